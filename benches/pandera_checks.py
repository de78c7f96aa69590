"""The range and change checks of benches/validation.rs, done by pandera on the same data.

Usage: python3 benches/pandera_checks.py DATA.csv RUNS
DATA.csv holds `series,time,value` rows (written by the Rust bench). Prints one JSON line:
{"tool": "pandera", "version": ..., "rows": ..., "median_s": ..., "failures": ...}.
"""
import json
import statistics
import sys
import time

import pandas as pd
import pandera
import pandera.pandas as pa


def main() -> None:
    path, runs = sys.argv[1], int(sys.argv[2])
    frame = pd.read_csv(path)
    frame = frame.sort_values(["series", "time"], kind="stable").reset_index(drop=True)

    def change_ok(df: pd.DataFrame) -> pd.Series:
        # abs(pct_change(1)) < 0.5 per series; the first point of a series has no change (it
        # fails, as in the platform, where the comparison with a missing value is false).
        pct = df.groupby("series")["value"].pct_change()
        return pct.abs() < 0.5

    schema = pa.DataFrameSchema(
        {"value": pa.Column(float, pa.Check.in_range(0, 1000))},
        checks=[pa.Check(change_ok, name="change")],
    )
    timings, failures = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        try:
            schema.validate(frame, lazy=True)
            failures = 0
        except pa.errors.SchemaErrors as err:
            # Failure cases list a failing row once per column of a frame-wide check: count rows.
            failures = err.failure_cases["index"].nunique()
        timings.append(time.perf_counter() - started)
    print(json.dumps({"tool": "pandera", "version": pandera.__version__, "rows": len(frame),
                      "median_s": statistics.median(timings), "failures": failures}))


if __name__ == "__main__":
    main()
