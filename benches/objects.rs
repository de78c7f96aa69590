//! Object queries on a corpus of 100,000 objects of about 20 fields in one tenant, in core,
//! next to the same work on a plain rusqlite JSON table (the baseline: what SQLite alone does).
//!
//! Targets (issue "Finding objects"): a filtered first page with its total under 50 ms,
//! `_searchinfo` under 20 ms, an `_id` lookup under 0.2 ms.
//!
//! Knobs: `PLATFORM_BENCH_OBJECTS` (default 100000). Run: `cargo bench --bench objects`.

#[path = "corpus.rs"]
mod corpus;

use divan::Bencher;
use platform_core::auth::Principal;
use platform_core::documents::{ListRequest, SaveOptions};
use platform_core::ids::Source;
use platform_core::query::Params;
use platform_core::store::Collection;
use platform_core::Platform;
use rusqlite::Connection;
use std::sync::{Mutex, OnceLock};

struct Fixture {
    platform: Platform,
    who: Principal,
    n: u64,
    baseline: Mutex<Connection>,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let n: u64 = std::env::var("PLATFORM_BENCH_OBJECTS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
        let dir = tempfile::tempdir().unwrap();
        let platform = Platform::open(dir.path().join("bench.db")).unwrap();
        let who = platform.tenancy().local_principal("bench", "bench").unwrap();
        let objects = corpus::objects(n, 42);
        let started = std::time::Instant::now();
        for chunk in objects.chunks(1000) {
            platform
                .objects().save(&who, Collection::Object, serde_json::Value::Array(chunk.to_vec()), &SaveOptions::default())
                .unwrap();
        }
        eprintln!("loaded {n} objects through the core in {:.1} s", started.elapsed().as_secs_f64());
        let baseline = Connection::open(dir.path().join("baseline.db")).unwrap();
        baseline
            .execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE docs (id TEXT PRIMARY KEY, body BLOB NOT NULL);")
            .unwrap();
        let tx = baseline.unchecked_transaction().unwrap();
        {
            let mut insert = tx.prepare("INSERT INTO docs VALUES (?1, jsonb(?2))").unwrap();
            for o in &objects {
                insert.execute((o["_id"].as_str().unwrap(), o.to_string())).unwrap();
            }
        }
        tx.commit().unwrap();
        Fixture { platform, who, n, baseline: Mutex::new(baseline), _dir: dir }
    })
}

fn main() {
    fixture();
    divan::main();
}

const FILTER: [(&str, &str); 3] = [
    ("classification", "gas"),
    ("capacity", "gt(500)"),
    ("_limit", "100"),
];

#[divan::bench]
fn core_filtered_first_page_with_total(b: Bencher) {
    let f = fixture();
    let req = ListRequest::from_params(&Params::from_slice(&FILTER)).unwrap();
    b.bench(|| {
        let page = f
            .platform
            .objects()
            .list(&f.who, Collection::Object, Source::Private, &req)
            .unwrap();
        assert_eq!(page.items.len(), 100);
        page.total
    });
}

#[divan::bench]
fn baseline_filtered_first_page_with_total(b: Bencher) {
    let f = fixture();
    let conn = f.baseline.lock().unwrap();
    let filter = "body ->> '$.classification' = 'gas' AND json_type(body, '$.capacity') IN ('integer','real') \
                  AND body ->> '$.capacity' > 500";
    let mut count = conn
        .prepare(&format!("SELECT count(*) FROM docs WHERE {filter}"))
        .unwrap();
    let mut page = conn
        .prepare(&format!(
            "SELECT id, json(body) FROM docs WHERE {filter} ORDER BY id LIMIT 100"
        ))
        .unwrap();
    b.bench_local(|| {
        let total: u64 = count.query_row([], |r| r.get(0)).unwrap();
        let rows: Vec<(String, String)> = page
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows.len(), 100);
        (total, rows)
    });
}

#[divan::bench]
fn core_searchinfo(b: Bencher) {
    let f = fixture();
    let req = ListRequest::from_params(&Params::from_slice(&[
        ("_searchinfo", "obj0123"),
        ("_limit", "10"),
    ]))
    .unwrap();
    b.bench(|| {
        let page = f
            .platform
            .objects()
            .list(&f.who, Collection::Object, Source::Private, &req)
            .unwrap();
        assert_eq!(page.items.len(), 10);
        page
    });
}

#[divan::bench]
fn baseline_searchinfo_by_id_prefix(b: Bencher) {
    let f = fixture();
    let conn = f.baseline.lock().unwrap();
    let mut stmt = conn
        .prepare("SELECT id, body ->> '$.name' FROM docs WHERE id >= 'OBJ0123' AND id < 'OBJ0124' ORDER BY id LIMIT 10")
        .unwrap();
    b.bench_local(|| {
        let rows: Vec<(String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows.len(), 10);
        rows
    });
}

#[divan::bench]
fn core_get_by_id(b: Bencher) {
    let f = fixture();
    let mut rng = corpus::Rng::new(7);
    b.bench_local(|| {
        let id = format!("OBJ{:06}", rng.below(f.n));
        f.platform
            .objects()
            .get(&f.who, Collection::Object, Source::Private, &id, None, None)
            .unwrap()
    });
}

#[divan::bench]
fn baseline_get_by_id(b: Bencher) {
    let f = fixture();
    let conn = f.baseline.lock().unwrap();
    let mut stmt = conn
        .prepare("SELECT json(body) FROM docs WHERE id = ?1")
        .unwrap();
    let mut rng = corpus::Rng::new(7);
    b.bench_local(|| {
        let id = format!("OBJ{:06}", rng.below(f.n));
        let text: String = stmt.query_row([&id], |r| r.get(0)).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()
    });
}
