"""ArcticDB (LMDB backend, embedded) on the corpus of W1-W4, written by `compare dump`.

Usage: python arctic_peer.py CORPUS_DIR RUNS [W1 W2 W3 W4]
Prints one JSON line per figure, in the format of benches/compare.rs.
"""
import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np
import pandas as pd
import arcticdb
from arcticdb import Arctic
from arcticdb.version_store.library import WritePayload


def emit(workload, case, samples, **extra):
    line = {"workload": workload, "case": case, "contestant": "arcticdb",
            "median_ms": statistics.median(samples), "runs": len(samples),
            "samples_ms": [round(s, 4) for s in samples], "version": arcticdb.__version__}
    line.update(extra)
    print(json.dumps(line), flush=True)


def timed(f):
    started = time.perf_counter()
    out = f()
    return (time.perf_counter() - started) * 1e3, out


def repeat(n, f):
    """n timings of f after a warm-up call; fewer (at least 5) when f is slow (about 8 s)."""
    first = timed(f)[0]
    n = min(n, max(5, int(8000 / max(first, 1e-6))))
    return [timed(f)[0] for _ in range(n)]


FOLDERS = []
atexit.register(lambda: [shutil.rmtree(f, ignore_errors=True) for f in FOLDERS])


def fresh_library():
    """A library in a new LMDB folder (removed at exit); returns (library, folder, keep-alive)."""
    folder = tempfile.mkdtemp(prefix="arctic-")
    FOLDERS.append(folder)
    ac = Arctic(f"lmdb://{folder}")
    lib = ac.get_library("bench", create_if_missing=True)
    return lib, folder, ac


def disk_bytes(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for f in files:
            st = os.stat(os.path.join(root, f))
            total += st.st_blocks * 512
    return total


def main():
    corpus, runs = sys.argv[1], int(sys.argv[2])
    wanted = set(sys.argv[3:]) or {"W1", "W2", "W3", "W4"}
    meta = json.load(open(os.path.join(corpus, "meta.json")))
    t0, minute, n = meta["t0_ms"], meta["minute_ms"], meta["points"]
    values = np.fromfile(os.path.join(corpus, "w1_v.bin"), dtype="<f8")
    index = pd.to_datetime(t0 + np.arange(n, dtype=np.int64) * minute, unit="ms")
    big = pd.DataFrame({"value": values}, index=index)
    label = f"{n // 1000}k points"

    if "W1" in wanted or "W2" in wanted:
        writes = []
        for _ in range(runs):
            lib, _, _ac = fresh_library()
            writes.append(timed(lambda: lib.write("BIG", big))[0])
        if "W1" in wanted:
            emit("W1", f"write {label}", writes)
        lib, folder, _ac = fresh_library()
        before = disk_bytes(folder)
        lib.write("BIG", big)
        if "W1" in wanted:
            size = disk_bytes(folder) - before
            print(json.dumps({"workload": "W1", "case": "bytes per point", "contestant": "arcticdb",
                              "bytes_per_point": size / n, "file_bytes": size, "points": n,
                              "note": "allocated blocks of the LMDB folder"}), flush=True)

        def read_all():
            df = lib.read("BIG").data
            assert len(df) == n
            return df
        if "W1" in wanted:
            emit("W1", f"read {label}", repeat(runs * 2, read_all))
        if "W2" in wanted:
            b0, b1 = (pd.Timestamp(x, unit="ms") for x in meta["between_ms"])
            last_day = pd.Timestamp(meta["from_ms"], unit="ms")
            # date_range is inclusive at both ends: end one minute before the platform's end.
            cases = [
                ("last(1000)", lambda: lib.tail("BIG", 1000).data, 1000),
                ("between, 10,000 points",
                 lambda: lib.read("BIG", date_range=(b0, b1 - pd.Timedelta(minutes=1))).data, 10000),
                ("from the last day (1,440 points)",
                 lambda: lib.read("BIG", date_range=(last_day, None)).data, 1440),
            ]
            for case, f, expect in cases:
                assert len(f()) == expect, (case, len(f()))
                emit("W2", case, repeat(101, f), points=expect)

    if "W3" in wanted:
        lib, folder, _ac = fresh_library()
        lib.write("BIG", big)
        before = disk_bytes(folder)
        k_points = meta["correction_points"]
        corr = np.fromfile(os.path.join(corpus, "w3_v.bin"), dtype="<f8").reshape(-1, k_points)
        saves = []
        for k, start in enumerate(meta["correction_starts"]):
            idx = pd.to_datetime(t0 + (start + np.arange(k_points, dtype=np.int64)) * minute, unit="ms")
            df = pd.DataFrame({"value": corr[k]}, index=idx)
            saves.append(timed(lambda: lib.update("BIG", df))[0])
        after = disk_bytes(folder)
        emit("W3", f"correction of {k_points} points (new version)", saves)
        assert len(lib.read("BIG").data) == n
        emit("W3", "read version 1 (all points)", repeat(runs * 2, lambda: lib.read("BIG", as_of=0).data))
        emit("W3", "read the latest version", repeat(runs * 2, lambda: lib.read("BIG").data))
        print(json.dumps({"workload": "W3", "case": "growth per correction", "contestant": "arcticdb",
                          "bytes": (after - before) / max(1, len(saves)),
                          "file_before": before, "file_after": after,
                          "note": "allocated blocks of the LMDB folder"}), flush=True)

    if "W4" in wanted:
        ns, npts = meta["series"], meta["series_points"]
        data = np.fromfile(os.path.join(corpus, "w4_v.bin"), dtype="<f8").reshape(ns, npts)
        idx = pd.to_datetime(t0 + np.arange(npts, dtype=np.int64) * minute, unit="ms")
        frames = [WritePayload(f"S{i:04}", pd.DataFrame({"value": data[i]}, index=idx)) for i in range(ns)]
        syms = [f"S{i:04}" for i in range(ns)]
        writes = []
        for _ in range(min(runs, 3)):
            lib, _, _ac = fresh_library()
            writes.append(timed(lambda: lib.write_batch(frames))[0])
        emit("W4", f"write {ns} series x {npts} points", writes, transactions="write_batch")

        def read_all():
            out = lib.read_batch(syms)
            assert len(out) == ns and len(out[-1].data) == npts
            return out
        emit("W4", f"read {ns} series x {npts} points", repeat(runs, read_all))

        tenors, ondates = meta["tenors"], meta["ondates"]
        curves = np.fromfile(os.path.join(corpus, "w4_curves.bin"), dtype="<f8").reshape(len(ondates), len(tenors))
        rows = [pd.DataFrame([curves[i]], columns=tenors, index=pd.DatetimeIndex([pd.Timestamp(d)]))
                for i, d in enumerate(ondates)]
        writes = []
        for _ in range(min(runs, 3)):
            lib, _, _ac = fresh_library()

            def write_curves():
                lib.write("CURVE", rows[0])
                for r in rows[1:]:
                    lib.append("CURVE", r)
            writes.append(timed(write_curves)[0])
        emit("W4", f"write {len(ondates)} curves of 100 tenors", writes,
             transactions="write, then one append per ondate")

        def tenor():
            df = lib.read("CURVE", columns=["M01"]).data
            assert len(df) == len(ondates)
            return df
        emit("W4", f"tenor history (M01 over {len(ondates)} ondates)", repeat(51, tenor))


if __name__ == "__main__":
    main()
