"""Reads `wrk --latency` output on stdin and prints one JSON line in the format of
benches/compare.rs: the median latency (50%) and the requests per second.

Usage: wrk ... --latency URL | python wrk_json.py WORKLOAD CASE CONTESTANT [key=value...]
       python wrk_json.py --sum FILE FILE... WORKLOAD CASE CONTESTANT [key=value...]
         (wrk outputs of load generators that ran at once, against servers of one database: the
         requests per second summed, the median latency the mean of their medians)
Extras: `clk_tck=N` with `NAME_cpu_ticks=T` (CPU time a process or cluster spent over the run,
in clock ticks) become `NAME_cpu_us_per_request` (µs of CPU per request wrk counted) and
`NAME_cpu_s`; extras named `*_ticks` or `*_reads` are numbers.
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
    timeouts = re.search(r"Socket errors:.*timeout (\d+)", text)
    if not (p50 and rps):
        return None
    return {"median_ms": ms(p50.group(1)), "p99_ms": ms(p99.group(1)) if p99 else None,
            "rps": float(rps.group(1)), "requests": int(total.group(1)) if total else None,
            "non_2xx": int(errors.group(1)) if errors else 0,
            "timeouts": int(timeouts.group(1)) if timeouts else 0}


def numbers(line):
    """Turns the CPU extras into CPU per request (see the module's doc), in place."""
    tck = line.pop("clk_tck", None)
    for key in [k for k in line if k.endswith("_ticks") or k.endswith("_reads")]:
        line[key] = int(line[key])
    for key in [k for k in line if k.endswith("_cpu_ticks")]:
        ticks = line.pop(key)
        name = key[: -len("_cpu_ticks")]
        if tck:
            seconds = ticks / float(tck)
            line[f"{name}_cpu_s"] = round(seconds, 3)
            if line.get("requests"):
                line[f"{name}_cpu_us_per_request"] = round(seconds * 1e6 / line["requests"], 2)
    return line


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
    if any(p["timeouts"] for p in parts):
        line["timeouts"] = sum(p["timeouts"] for p in parts)
    line.update(extra)
    return numbers(line)


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
    print(json.dumps(numbers(line)), flush=True)


if __name__ == "__main__":
    main()
