"""pandas on W12: the W12 curves shaped into arbitrage-free months, checked against the platform's.

Usage: python shaping_peer.py CORPUS_DIR RUNS
Reads w12_products.csv (curve,code,start,end,value; not timed) and computes, as the spec's rule
says (vectors/shaping.json, all quotes solved together): each curve's days fall into runs of the
days that lie in exactly the same products; each run has one price; the prices meet every
product's hour-weighted average in the least-squares sense (each product's miss counted once),
and among the prices that do, each run stays nearest (least squares weighted by its hours) the
price of the shortest product containing it: numpy's lstsq (an SVD) gives that minimum-norm
solution. Products missed by more than 0.01 are arbitrage. A month is the weighted average of
its priced days, "from" the shortest product containing all of them (ties: the earlier start,
then as listed). Hours are those of each day in Europe/Berlin. The timed part starts from the
loaded frame and ends with every month's value.

Then compares its months and arbitrage with the platform's (w12_platform.csv, w12_arbitrage.csv,
written by `compare measure W12` in the same run): the same months, values within 1e-6, the same
"from" and the same arbitrage with misses within 1e-6, or an error line and exit status 1.
Prints one JSON line in the format of benches/compare.rs.
"""
import json
import os
import statistics
import sys
import time

import numpy as np
import pandas as pd

ZONE = "Europe/Berlin"
TOLERANCE = 1e-6
ARBITRAGE = 0.01


def shape_curve(curve, g, first, hours, month):
    """One curve's months (rows of curve, month, value, from) and arbitrage (curve, code, miss)."""
    i0 = (g["start"] - first).dt.days.to_numpy()
    i1 = (g["end"] - first).dt.days.to_numpy() + 1
    value = g["value"].to_numpy()
    codes = g["code"].to_numpy()
    length = i1 - i0
    lo, hi = i0.min(), i1.max()
    # Which products hold each day, as one row of booleans a day; runs are the distinct rows.
    days = np.arange(lo, hi)
    member = (days[:, None] >= i0[None, :]) & (days[:, None] < i1[None, :])
    priced = member.any(axis=1)
    keys, run = np.unique(member[priced], axis=0, return_inverse=True)
    run = run.ravel()
    w_day = hours[lo:hi][priced]
    w_run = np.bincount(run, weights=w_day, minlength=len(keys))
    # Each run's target: the shortest product holding it (ties: earlier start, then as listed).
    order = np.lexsort((np.arange(len(value)), i0, length))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    target = value[np.where(keys, rank[None, :], len(order)).argmin(axis=1)]
    # A[c, r]: run r's share of product c's hours.
    weight_in = keys.T * w_run[None, :]
    a = weight_in / weight_in.sum(axis=1, keepdims=True)
    root = np.sqrt(w_run)
    y = np.linalg.lstsq(a / root[None, :], value - a @ target, rcond=1e-10)[0]
    price = target + y / root
    miss = a @ price - value
    arbitrage = [(curve, codes[c], miss[c]) for c in np.flatnonzero(np.abs(miss) > ARBITRAGE)]
    frame = pd.DataFrame({"month": month[lo:hi][priced], "w": w_day, "p": price[run],
                          "run": run})
    frame["wp"] = frame["w"] * frame["p"]
    sums = frame.groupby("month", sort=True)[["wp", "w"]].sum()
    rows = []
    for m, runs in frame.groupby("month", sort=True)["run"]:
        held = keys[np.unique(runs.to_numpy())].all(axis=0)
        if not held.any():
            # No product holds the whole month (two day-aheads): its heaviest run's shortest.
            heavy = frame.loc[runs.index].groupby("run")["w"].sum().idxmax()
            held = keys[heavy]
        best = order[held[order]][0]
        rows.append((curve, m, sums.loc[m, "wp"] / sums.loc[m, "w"], codes[best]))
    return rows, arbitrage


def shape(products):
    """Months (a frame of curve, month, value, from) and arbitrage (curve, code, miss)."""
    first = products["start"].min()
    after = products["end"].max() + pd.Timedelta(days=1)
    midnights = pd.date_range(first, after, freq="D").tz_localize(ZONE)
    hours = np.diff(midnights.asi8) / 3.6e12
    month = pd.date_range(first, after - pd.Timedelta(days=1), freq="D").to_period("M")
    rows, arbitrage = [], []
    for curve, g in products.groupby("curve", sort=True):
        r, a = shape_curve(curve, g, first, hours, month)
        rows.extend(r)
        arbitrage.extend(a)
    months = pd.DataFrame(rows, columns=["curve", "month", "value", "from"])
    months["month"] = months["month"].dt.strftime("%YM%m")
    return months, pd.DataFrame(arbitrage, columns=["curve", "code", "miss"])


def compare(corpus, months, arbitrage):
    """None when the platform's months and arbitrage are these, else what differs."""
    theirs = pd.read_csv(os.path.join(corpus, "w12_platform.csv"))
    both = months.merge(theirs, on=["curve", "month"], how="outer", suffixes=("", "_platform"),
                        indicator=True)
    alone = both[both["_merge"] != "both"]
    if len(alone):
        return f"{len(alone)} months in one answer only, first {alone.iloc[0].to_dict()}", None
    diff = (both["value"] - both["value_platform"]).abs()
    if diff.max() > TOLERANCE:
        row = both.loc[diff.idxmax()]
        return f"values differ by {diff.max()} at curve {row['curve']} {row['month']}", None
    wrong_from = both[both["from"] != both["from_platform"]]
    if len(wrong_from):
        return f"{len(wrong_from)} months name another contract, first {wrong_from.iloc[0].to_dict()}", None
    their_arbitrage = pd.read_csv(os.path.join(corpus, "w12_arbitrage.csv"))
    named = arbitrage.merge(their_arbitrage, on=["curve", "code"], how="outer",
                            suffixes=("", "_platform"), indicator=True)
    alone = named[named["_merge"] != "both"]
    if len(alone):
        return f"{len(alone)} quotes named by one answer only, first {alone.iloc[0].to_dict()}", None
    if len(named) and (named["miss"] - named["miss_platform"]).abs().max() > TOLERANCE:
        return "the misses of the arbitrage differ", None
    return None, float(diff.max())


def main():
    corpus, runs = sys.argv[1], int(sys.argv[2])
    products = pd.read_csv(os.path.join(corpus, "w12_products.csv"), parse_dates=["start", "end"])
    timings, months, arbitrage = [], None, None
    for _ in range(runs):
        started = time.perf_counter()
        months, arbitrage = shape(products)
        timings.append((time.perf_counter() - started) * 1e3)
    curves = products["curve"].nunique()
    case = f"shape {curves} curves of 40 products into months"
    line = {"workload": "W12", "case": case, "contestant": "pandas",
            "median_ms": statistics.median(timings), "runs": runs,
            "samples_ms": [round(t, 4) for t in timings], "months": len(months),
            "arbitrage": len(arbitrage), "version": pd.__version__}
    error, max_diff = compare(corpus, months, arbitrage)
    if error:
        line["error"] = f"the results differ from the platform's: {error}"
    else:
        line["checked_equal"] = True
        line["max_abs_diff"] = max_diff
    print(json.dumps(line), flush=True)
    sys.exit(1 if error else 0)


if __name__ == "__main__":
    main()
