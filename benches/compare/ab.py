"""The report of benches/compare/ab: each case's median over the rounds for A and for B, the
ratio B/A, and the cases of the platform that B made slower by more than the tolerance.

A peer measured in the same rounds (plain rusqlite) is the same code on both sides: its ratio
shows how much the machine itself moved between A's turns and B's, and `/peer` is the
platform's ratio divided by it.

    python3 ab.py FIGURES.jsonl [TOLERANCE]
"""

import json
import statistics
import sys
from collections import defaultdict


def main(path, tolerance):
    runs = defaultdict(lambda: {"A": [], "B": []})
    errors = []
    for line in open(path):
        figure = json.loads(line)
        key = (figure["workload"], figure["case"], figure["contestant"])
        if "error" in figure:
            errors.append(f"{key} {figure['side']} round {figure['round']}: {figure['error']}")
        elif "median_ms" in figure:
            runs[key][figure["side"]].append(figure["median_ms"])
    slower = []
    ratios = {}
    for key, sides in runs.items():
        if sides["A"] and sides["B"]:
            a, b = statistics.median(sides["A"]), statistics.median(sides["B"])
            ratios[key] = (a, b, b / a if a else float("nan"))
    # The machine's drift in a case: the ratio of its peers (the same code on both sides).
    drift = defaultdict(list)
    for (workload, case, contestant), (_, _, ratio) in ratios.items():
        if not contestant.startswith("platform"):
            drift[(workload, case)].append(ratio)
    print(f"{'workload':8} {'case':52} {'contestant':16} {'A ms':>10} {'B ms':>10} {'B/A':>6} {'/peer':>6}")
    for (workload, case, contestant), (a, b, ratio) in sorted(ratios.items()):
        peers = drift.get((workload, case))
        adjusted = ratio / statistics.median(peers) if peers else None
        shown = f"{adjusted:6.3f}" if adjusted is not None and contestant.startswith("platform") else ""
        print(f"{workload:8} {case[:52]:52} {contestant[:16]:16} {a:10.3f} {b:10.3f} {ratio:6.3f} {shown:>6}")
        if contestant.startswith("platform") and ratio > 1 + tolerance:
            note = f" (its peer moved {statistics.median(peers):.3f})" if peers else ""
            slower.append(f"{workload} {case}: {ratio:.3f}{note}")
    for e in errors:
        print("error:", e)
    if slower:
        print(f"slower than A by more than {tolerance:.0%}: " + "; ".join(slower))
    else:
        print(f"no case of the platform is slower than A by more than {tolerance:.0%}")


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 0.05)
