"""W9: a Python user reads the W1 series (every point) into a pandas DataFrame from the platform's
server over HTTP, as Arrow IPC (pyarrow) and, for reference, as JSON. Its peer is ArcticDB reading
the same series into a DataFrame locally (W1 "read", measured by arctic_peer.py in the same run).

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

    for case, contestant, read in [
        (f"{points:,} points into a pandas DataFrame over HTTP", "platform-http-arrow", arrow_frame),
        (f"{points:,} points into a pandas DataFrame over HTTP", "platform-http-json", json_frame),
    ]:
        frame = read()  # warm-up, and the check that every point arrives
        if len(frame) != points:
            print(json.dumps({"workload": "W9", "case": case, "contestant": contestant,
                              "error": f"{len(frame)} rows where {points} were written"}))
            continue
        samples = []
        for _ in range(runs):
            t = time.perf_counter()
            read()
            samples.append((time.perf_counter() - t) * 1e3)
        print(json.dumps({"workload": "W9", "case": case, "contestant": contestant,
                          "median_ms": statistics.median(samples), "runs": runs,
                          "samples_ms": [round(s, 4) for s in samples],
                          "columns": list(frame.columns), "pyarrow": pa.__version__,
                          "pandas": pd.__version__}), flush=True)


if __name__ == "__main__":
    main()
