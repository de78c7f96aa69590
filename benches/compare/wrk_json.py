"""Reads `wrk --latency` output on stdin and prints one JSON line in the format of
benches/compare.rs: the median latency (50%) and the requests per second.

Usage: wrk ... --latency URL | python wrk_json.py WORKLOAD CASE CONTESTANT [key=value...]
"""
import json
import re
import sys

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def ms(text):
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def main():
    workload, case, contestant = sys.argv[1:4]
    extra = dict(a.split("=", 1) for a in sys.argv[4:])
    text = sys.stdin.read()
    p50 = re.search(r"^\s*50%\s+(\S+)", text, re.M)
    p99 = re.search(r"^\s*99%\s+(\S+)", text, re.M)
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    total = re.search(r"(\d+) requests in", text)
    if not (p50 and rps):
        print(json.dumps({"workload": workload, "case": case, "contestant": contestant,
                          "error": "wrk printed no figures", "output": text[-500:]}))
        return
    line = {"workload": workload, "case": case, "contestant": contestant,
            "median_ms": ms(p50.group(1)), "p99_ms": ms(p99.group(1)) if p99 else None,
            "rps": float(rps.group(1)), "requests": int(total.group(1)) if total else None,
            "non_2xx": int(errors.group(1)) if errors else 0, "tool": "wrk"}
    line.update(extra)
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
