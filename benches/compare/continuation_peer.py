"""pandas on the continuation workload: the M01 continuation of a forward curve (the front
month of each ondate, rolling the day after its expiry), from the contracts the platform's
side wrote (benches/continuation.rs), checked equal to the platform's answer.

Usage: python continuation_peer.py DIR RUNS
Reads DIR/curves.csv (ondate,absolute,start,expiry,value) and DIR/ours.csv (time,absolute,
value); prints one JSON line in the format of benches/compare.rs, with "equal" (whether the
series equal the platform's, ondate by ondate, contract and value) or an "error". Reading the
CSV and parsing its dates is not timed.
"""
import json
import statistics
import sys
import time

import pandas as pd


def continuation(curves):
    # Contracts not expired on their ondate; of those the earliest delivery per ondate.
    live = curves[curves["expiry"] >= curves["ondate"]]
    front = live.loc[live.groupby("ondate")["start"].idxmin()]
    return front[["ondate", "absolute", "value"]].sort_values("ondate").reset_index(drop=True)


def main():
    folder, runs = sys.argv[1], int(sys.argv[2])
    curves = pd.read_csv(f"{folder}/curves.csv", parse_dates=["ondate", "start", "expiry"])
    ours = pd.read_csv(f"{folder}/ours.csv", parse_dates=["time"])
    timings, series = [], None
    for _ in range(runs):
        started = time.perf_counter()
        series = continuation(curves)
        timings.append((time.perf_counter() - started) * 1e3)
    ondates = curves["ondate"].nunique()
    line = {"workload": "continuation",
            "case": f"M01 continuation (expiry roll) over {ondates} ondates x "
                    f"{len(curves) // ondates} contracts",
            "contestant": "pandas", "median_ms": statistics.median(timings), "runs": runs,
            "samples_ms": [round(t, 4) for t in timings], "points": len(series),
            "version": pd.__version__}
    equal = (len(series) == len(ours)
             and (series["ondate"].values == ours["time"].values).all()
             and (series["absolute"].values == ours["absolute"].values).all()
             and (series["value"].values == ours["value"].values).all())
    line["equal"] = bool(equal)
    if not equal:
        line["error"] = "the pandas series is not the platform's"
    print(json.dumps(line), flush=True)
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
