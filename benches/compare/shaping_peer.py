"""pandas on W12: the W12 curves shaped into arbitrage-free months, checked against the platform's.

Usage: python shaping_peer.py CORPUS_DIR RUNS
Reads w12_products.csv (curve,code,start,end,value; not timed) and computes, as the platform's
rule does (vectors/shaping.json): products from the shortest delivery to the longest (ties by the
first delivery day, then as listed); the days of a product that no shorter one priced share one
flat price making its hour-weighted average its price; a product whose days are all priced is
checked (arbitrage when off by more than 1e-6); a month is the weighted average of its priced
days, "from" the product that priced most of its hours. Hours are those of each day in
Europe/Berlin. The timed part starts from the loaded frame and ends with every month's value.

Then compares its months and arbitrage with the platform's (w12_platform.csv, w12_arbitrage.csv,
written by `compare measure W12` in the same run): the same months, values within 1e-6, the same
"from" and the same arbitrage, or an error line and exit status 1.
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


def shape(products):
    """Months (a frame of curve, month, value, from) and arbitrage (curve, code) of every curve."""
    first = products["start"].min()
    after = products["end"].max() + pd.Timedelta(days=1)
    midnights = pd.date_range(first, after, freq="D").tz_localize(ZONE)
    hours = np.diff(midnights.asi8) / 3.6e12
    month = pd.date_range(first, after - pd.Timedelta(days=1), freq="D").to_period("M")
    frame = products.assign(
        i0=(products["start"] - first).dt.days,
        i1=(products["end"] - first).dt.days + 1,
        order=np.arange(len(products)),
    )
    frame["days"] = frame["i1"] - frame["i0"]
    frame = frame.sort_values(["curve", "days", "start", "order"], kind="stable")
    parts, arbitrage = [], []
    for curve, g in frame.groupby("curve", sort=True):
        lo, hi = g["i0"].min(), g["i1"].max()
        w = hours[lo:hi]
        price = np.full(hi - lo, np.nan)
        owner = np.full(hi - lo, -1)
        for i0, i1, value, order, code in zip(
            g["i0"].to_numpy() - lo, g["i1"].to_numpy() - lo, g["value"].to_numpy(),
            g["order"].to_numpy(), g["code"].to_numpy(),
        ):
            p, ww = price[i0:i1], w[i0:i1]
            open_ = np.isnan(p)
            gap = np.sum(ww[~open_] * (value - p[~open_]))
            open_w = ww[open_].sum()
            if open_w == 0:
                if abs(gap / ww.sum()) > TOLERANCE:
                    arbitrage.append((curve, code))
                continue
            p[open_] = value + gap / open_w
            owner[i0:i1][open_] = order
        priced = ~np.isnan(price)
        parts.append(pd.DataFrame({
            "curve": curve, "month": month[lo:hi][priced], "w": w[priced],
            "p": price[priced], "owner": owner[priced],
        }))
    days = pd.concat(parts, ignore_index=True)
    days["wp"] = days["w"] * days["p"]
    sums = days.groupby(["curve", "month"], sort=True)[["wp", "w"]].sum()
    months = (sums["wp"] / sums["w"]).rename("value").reset_index()
    # "from": the product with the most hours in the month; on a tie the shorter, then the one
    # delivering first, then the one listed first.
    by_owner = days.groupby(["curve", "month", "owner"], sort=False)["w"].sum().reset_index()
    info = frame.set_index("order")
    by_owner["days"] = info.loc[by_owner["owner"], "days"].to_numpy()
    by_owner["start"] = info.loc[by_owner["owner"], "start"].to_numpy()
    by_owner["code"] = info.loc[by_owner["owner"], "code"].to_numpy()
    best = by_owner.sort_values(
        ["curve", "month", "w", "days", "start", "owner"],
        ascending=[True, True, False, True, True, True], kind="stable",
    ).drop_duplicates(["curve", "month"])
    months = months.merge(best[["curve", "month", "code"]], on=["curve", "month"])
    months = months.rename(columns={"code": "from"})
    months["month"] = months["month"].dt.strftime("%YM%m")
    return months, pd.DataFrame(arbitrage, columns=["curve", "code"])


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
    ours = sorted(map(tuple, arbitrage.astype(str).to_numpy()))
    if ours != sorted(map(tuple, their_arbitrage.astype(str).to_numpy())):
        return "the arbitrage differs", None
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
