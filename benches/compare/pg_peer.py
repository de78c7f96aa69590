"""PostgreSQL jsonb on the W5 objects: upsert all, a filtered first page with its total,
_search and _searchinfo equivalents, get by id. The server is started by benches/compare/run.

Usage: python pg_peer.py CORPUS_DIR RUNS PORT
Table `docs (id text primary key, body jsonb)` with a GIN (jsonb_path_ops) index on body.
Prints one JSON line per figure, in the format of benches/compare.rs.
"""
import json
import os
import statistics
import sys
import time

import psycopg

NAME_TEXT = ("lower(id || ' ' || coalesce(body->>'name', '') || ' ' || coalesce(body->>'description', '')"
             " || ' ' || coalesce(body->>'classification', ''))")


def emit(case, samples, version, **extra):
    line = {"workload": "W5", "case": case, "contestant": "postgresql",
            "median_ms": statistics.median(samples), "runs": len(samples),
            "samples_ms": [round(s, 4) for s in samples], "version": version}
    line.update(extra)
    print(json.dumps(line), flush=True)


def timed(f):
    started = time.perf_counter()
    out = f()
    return (time.perf_counter() - started) * 1e3, out


def main():
    corpus, runs, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    objects = [line.rstrip("\n") for line in open(os.path.join(corpus, "objects.jsonl"))]
    ids = [json.loads(o)["_id"] for o in objects]
    rows = list(zip(ids, objects))
    conn = psycopg.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    version = conn.execute("SHOW server_version").fetchone()[0]

    def reset():
        conn.execute("DROP TABLE IF EXISTS docs")
        conn.execute("CREATE TABLE docs (id text PRIMARY KEY, body jsonb NOT NULL)")
        conn.execute("CREATE INDEX docs_body ON docs USING gin (body jsonb_path_ops)")
        conn.commit()

    def upsert():
        with conn.cursor() as cur:
            for i in range(0, len(rows), 1000):
                cur.executemany("INSERT INTO docs VALUES (%s, %s::jsonb) "
                                "ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body", rows[i:i + 1000])
                conn.commit()

    loads = []
    for _ in range(min(runs, 3)):
        reset()
        loads.append(timed(upsert)[0])
    conn.execute("ANALYZE docs")
    conn.commit()
    emit(f"upsert {len(rows)} objects (saves of 1,000)", loads, version)

    def page_and_total(where, limit=100):
        def run():
            total = conn.execute(f"SELECT count(*) FROM docs WHERE {where}").fetchone()[0]
            page = conn.execute(f"SELECT id, body FROM docs WHERE {where} ORDER BY id LIMIT {limit}").fetchall()
            return total, page
        return run

    def repeat(n, f):
        # n timings after a warm-up call; fewer (at least 5) when f is slow (about 8 s).
        first = timed(f)[0]
        n = min(n, max(5, int(8000 / max(first, 1e-6))))
        return [timed(f)[0] for _ in range(n)]

    filt = page_and_total("body @> '{\"classification\": \"gas\"}' AND jsonb_typeof(body->'capacity') = 'number' "
                          "AND (body->>'capacity')::numeric > 500")
    emit("filtered first page with total", repeat(51, filt), version, total=filt()[0])
    search = page_and_total(f"{NAME_TEXT} LIKE '%north%' AND {NAME_TEXT} LIKE '%gas%'")
    emit("_search, first page with total", repeat(51, search), version, total=search()[0],
         query="lower(id, name, description, classification) LIKE '%north%' AND LIKE '%gas%'")

    def info():
        return conn.execute("SELECT id, body->>'name' FROM docs WHERE (id >= 'OBJ0012' AND id < 'OBJ0013') "
                            "OR lower(body->>'name') LIKE 'obj0012%' ORDER BY id LIMIT 10").fetchall()
    assert len(info()) <= 10
    emit("_searchinfo (10 items)", repeat(51, info), version)

    state = 7

    def next_id():
        # The xorshift64* of benches/corpus.rs, seed 7, as the platform's get by id.
        nonlocal state
        x = state
        x ^= x >> 12
        x ^= (x << 25) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 27
        state = x
        return f"OBJ{((x * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF) % len(ids):06}"

    def get():
        return conn.execute("SELECT body FROM docs WHERE id = %s", (next_id(),)).fetchone()
    emit("get by id", repeat(1001, get), version)
    conn.close()


if __name__ == "__main__":
    main()
