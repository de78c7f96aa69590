"""W9: a Python user reads the W1 series (every point) into a pandas DataFrame from the platform's
server over HTTP, as Arrow IPC (pyarrow) and, for reference, as JSON. Its peer is ArcticDB reading
the same series into a DataFrame locally: the points the server sent, written to a fresh LMDB
library here, and read in turn with the Arrow reads (one of each, alternately, at least 30 of
each), so the machine's swings fall on both alike. Without arcticdb, the report takes W1's read.

Usage: python w9_arrow.py PORT TOKEN PATH POINTS RUNS
Prints one JSON line per case in the format of benches/compare.rs.
"""
import http.client
import io
import json
import statistics
import sys
import time


def main():
    port, token, path, points, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    import pandas as pd
    import pyarrow as pa

    conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=120)

    def get(accept):
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}", "Accept": accept})
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise SystemExit(f"GET {path} ({accept}) answered {r.status}: {body[:300]!r}")
        return body

    def arrow_frame():
        with pa.ipc.open_stream(get("application/vnd.apache.arrow.stream")) as reader:
            return reader.read_pandas()

    def json_frame():
        doc = json.loads(get("application/json"))
        data = doc["data"] if isinstance(doc, dict) and "data" in doc else doc
        return pd.DataFrame.from_records(data)

    case = f"{points:,} points into a pandas DataFrame over HTTP"

    def timed(read):
        t = time.perf_counter()
        read()
        return (time.perf_counter() - t) * 1e3

    def emit(contestant, samples, frame, **extra):
        line = {"workload": "W9", "case": case, "contestant": contestant,
                "median_ms": statistics.median(samples), "runs": len(samples),
                "samples_ms": [round(s, 4) for s in samples], "columns": list(frame.columns),
                "pyarrow": pa.__version__, "pandas": pd.__version__}
        line.update(extra)
        print(json.dumps(line), flush=True)

    for contestant, read in [("platform-http-arrow", arrow_frame), ("platform-http-json", json_frame)]:
        frame = read()  # warm-up, and the check that every point arrives
        if len(frame) != points:
            print(json.dumps({"workload": "W9", "case": case, "contestant": contestant,
                              "error": f"{len(frame)} rows where {points} were written"}))
            continue
        if contestant != "platform-http-arrow":
            emit(contestant, [timed(read) for _ in range(runs)], frame)
            continue
        peer = arctic_reader(frame)
        if peer is None:
            emit(contestant, [timed(read) for _ in range(max(runs, 30))], frame)
            continue
        read_peer, version, peer_frame = peer
        ours, theirs = [], []
        for _ in range(max(runs, 30)):
            ours.append(timed(read))
            theirs.append(timed(read_peer))
        emit(contestant, ours, frame)
        emit("arcticdb", theirs, peer_frame, version=version,
             note="the same points from a local LMDB library, read in turn with the HTTP reads")


def arctic_reader(frame):
    """A read of `frame`'s points from a fresh local ArcticDB library (LMDB), shaped as W1's peer
    writes them (a float64 `value` column on a datetime index), or None without arcticdb."""
    try:
        import arcticdb
    except ImportError:
        return None
    import atexit
    import shutil
    import tempfile
    import pandas as pd
    folder = tempfile.mkdtemp(prefix="arctic-w9-")
    atexit.register(shutil.rmtree, folder, True)
    lib = arcticdb.Arctic(f"lmdb://{folder}").get_library("w9", create_if_missing=True)
    index = pd.DatetimeIndex(frame["time"]).tz_localize(None).as_unit("ns")
    lib.write("BIG", pd.DataFrame({"value": frame["value"].to_numpy()}, index=index))

    def read():
        return lib.read("BIG").data
    out = read()
    if len(out) != len(frame):
        raise SystemExit(f"ArcticDB read {len(out)} rows of {len(frame)}")
    return read, arcticdb.__version__, out


if __name__ == "__main__":
    main()
