"""Reads the output of a `pgbench -l` run and prints one JSON line in the format of wrk_json.py:
the transactions per second (without the initial connection time), the median latency (from
pgbench's log of every transaction) and the number of transactions.

Usage: python pgbench_json.py OUTPUT LOG_PREFIX WORKLOAD CASE CONTESTANT [key=value...]
         (OUTPUT: pgbench's standard output and error; LOG_PREFIX: its --log-prefix, the log
         files being LOG_PREFIX.PID and LOG_PREFIX.PID.N; extras as in wrk_json.py)
"""
import glob
import json
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wrk_json import numbers  # noqa: E402


def main():
    output, prefix, workload, case, contestant = sys.argv[1:6]
    extra = dict(a.split("=", 1) for a in sys.argv[6:])
    text = open(output).read()
    line = {"workload": workload, "case": case, "contestant": contestant}
    tps = re.search(r"^tps = ([\d.]+) \((?:without initial connection time|excluding connections establishing)\)",
                    text, re.M)
    done = re.search(r"^number of transactions actually processed: (\d+)", text, re.M)
    failed = re.search(r"^number of failed transactions: (\d+)", text, re.M)
    average = re.search(r"^latency average = ([\d.]+) ms", text, re.M)
    if not (tps and done):
        line.update({"error": "pgbench printed no figures", "output": text[-500:]})
        print(json.dumps(line), flush=True)
        return
    # Each line of the log: client_id transaction_no latency_us script_no epoch_s epoch_us ...
    latencies = []
    for path in glob.glob(glob.escape(prefix) + ".*"):
        for row in open(path):
            fields = row.split()
            if len(fields) > 2 and fields[2].isdigit():
                latencies.append(int(fields[2]))
        os.remove(path)
    line.update({"median_ms": statistics.median(latencies) / 1e3 if latencies else None,
                 "latency_avg_ms": float(average.group(1)) if average else None,
                 "rps": float(tps.group(1)), "requests": int(done.group(1)),
                 "failed": int(failed.group(1)) if failed else 0, "tool": "pgbench"})
    if line["failed"]:
        line["error"] = f"{line['failed']} of {line['requests']} transactions failed"
    line.update(extra)
    print(json.dumps(numbers(line)), flush=True)


if __name__ == "__main__":
    main()
