"""pandera on the W7 corpus: range, change, stale and missing checks over every point.

Usage: python pandera_peer.py CORPUS_DIR RUNS
Prints one JSON line in the format of benches/compare.rs. Reading the CSV is not timed.
"""
import json
import os
import statistics
import sys
import time

import pandas as pd
import pandera
import pandera.pandas as pa


def main():
    corpus, runs = sys.argv[1], int(sys.argv[2])
    meta = json.load(open(os.path.join(corpus, "meta.json")))
    frame = pd.read_csv(os.path.join(corpus, "w7.csv"))
    frame = frame.sort_values(["series", "time"], kind="stable").reset_index(drop=True)

    def change_ok(df):
        # abs(pct_change(1)) < 0.5 within each series (the first point has no change: fails).
        return df.groupby("series")["value"].pct_change().abs() < 0.5

    def stale_ok(df):
        # run_length() < 30: the run of equal consecutive values ending at the point.
        v, s = df["value"], df["series"]
        run = ((v != v.shift()) | (s != s.shift())).cumsum()
        return df.groupby(run).cumcount() + 1 < 30

    schema = pa.DataFrameSchema(
        {"value": pa.Column(float, pa.Check.in_range(0, 1000), nullable=False)},
        checks=[pa.Check(change_ok, name="change"), pa.Check(stale_ok, name="stale")],
    )
    timings, failures = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        try:
            schema.validate(frame, lazy=True)
            failures = 0
        except pa.errors.SchemaErrors as err:
            failures = err.failure_cases["index"].nunique()
        timings.append((time.perf_counter() - started) * 1e3)
    case = f"range, change, stale, missing over {meta['vseries']} series x {meta['vpoints']} points"
    print(json.dumps({"workload": "W7", "case": case, "contestant": "pandera",
                      "median_ms": statistics.median(timings), "runs": runs,
                      "samples_ms": [round(t, 4) for t in timings], "failures": failures,
                      "version": pandera.__version__}), flush=True)


if __name__ == "__main__":
    main()
