"""Reads `wrk --latency` output on stdin and prints one JSON line in the format of
benches/compare.rs: the median latency (50%) and the requests per second.

Usage: wrk ... --latency URL | python wrk_json.py WORKLOAD CASE CONTESTANT [key=value...]
       python wrk_json.py --sum FILE FILE... WORKLOAD CASE CONTESTANT [key=value...]
         (wrk outputs of load generators that ran at once, against servers of one database: the
         requests per second summed, the median latency the mean of their medians)
"""
import json
import re
import sys

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def ms(text):
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def figures(text):
    """The figures of one wrk output, or None when it printed none."""
    p50 = re.search(r"^\s*50%\s+(\S+)", text, re.M)
    p99 = re.search(r"^\s*99%\s+(\S+)", text, re.M)
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    total = re.search(r"(\d+) requests in", text)
    if not (p50 and rps):
        return None
    return {"median_ms": ms(p50.group(1)), "p99_ms": ms(p99.group(1)) if p99 else None,
            "rps": float(rps.group(1)), "requests": int(total.group(1)) if total else None,
            "non_2xx": int(errors.group(1)) if errors else 0}


def summed(files, workload, case, contestant, extra):
    parts = [figures(open(f).read()) for f in files]
    if any(p is None for p in parts):
        return {"workload": workload, "case": case, "contestant": contestant,
                "error": "a load generator printed no figures"}
    line = {"workload": workload, "case": case, "contestant": contestant,
            "median_ms": sum(p["median_ms"] for p in parts) / len(parts),
            "p99_ms": max((p["p99_ms"] or 0) for p in parts),
            "rps": sum(p["rps"] for p in parts),
            "requests": sum(p["requests"] or 0 for p in parts),
            "non_2xx": sum(p["non_2xx"] for p in parts), "tool": "wrk"}
    line.update(extra)
    return line


def main():
    if sys.argv[1] == "--sum":
        args = sys.argv[2:]
        files = [a for a in args if "=" not in a][:-3]
        workload, case, contestant = args[len(files):len(files) + 3]
        extra = dict(a.split("=", 1) for a in args[len(files) + 3:])
        print(json.dumps(summed(files, workload, case, contestant, extra)), flush=True)
        return
    workload, case, contestant = sys.argv[1:4]
    extra = dict(a.split("=", 1) for a in sys.argv[4:])
    text = sys.stdin.read()
    p50 = re.search(r"^\s*50%\s+(\S+)", text, re.M)
    p99 = re.search(r"^\s*99%\s+(\S+)", text, re.M)
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    total = re.search(r"(\d+) requests in", text)
    timeouts = re.search(r"Socket errors:.*timeout (\d+)", text)
    if not (p50 and rps):
        print(json.dumps({"workload": workload, "case": case, "contestant": contestant,
                          "error": "wrk printed no figures", "output": text[-500:]}))
        return
    line = {"workload": workload, "case": case, "contestant": contestant,
            "median_ms": ms(p50.group(1)), "p99_ms": ms(p99.group(1)) if p99 else None,
            "rps": float(rps.group(1)), "requests": int(total.group(1)) if total else None,
            "non_2xx": int(errors.group(1)) if errors else 0, "tool": "wrk"}
    if timeouts:
        line["timeouts"] = int(timeouts.group(1))
    line.update(extra)
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
