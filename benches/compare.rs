//! The platform's side of the side-by-side comparison (`benches/compare/run`), and the corpus
//! every contestant reads.
//!
//! Subcommands (after `cargo bench --bench compare --`):
//!
//! - `dump DIR`: writes the seeded corpus for the peers: `meta.json`, `w1_v.bin` (the 1,000,000
//!   one-minute values of W1, f64 little-endian; times are `t0_ms + i * 60000`), `w3_v.bin`
//!   (100 corrections of 1,440 values), `w4_v.bin` (1,000 series of 1,000 values), `w4_curves.bin`
//!   (1,000 ondates of 100 tenors), `objects.jsonl` (100,000 objects) and `w7.csv`
//!   (`series,time,value`, 1,000 series of 1,440 points), `w12_products.csv` (1,000 curves of 40
//!   products to shape, see `compare/shaping.rs`).
//! - `measure [W1 W2 ...]`: runs the core workloads on the platform and on plain rusqlite (the
//!   limit of SQLite) and prints one JSON line per figure: `{"workload", "case", "contestant",
//!   "median_ms", "samples_ms", ...}`. Figures are medians; the two contestants of a case run
//!   interleaved so they see the same machine load.
//! - `serve-db FILE` or `serve-db postgres://... KEY_FILE`: a database for the HTTP workloads:
//!   the W1 series (`BIG:price`) and the W5 objects, tenant `bench`, user `bench`.
//! - `w10-db FILE N`: a database for W10 (cost as the collection grows): `N` objects of the
//!   corpus, all of the private type `Asset`, whose definition (saved after them, so its indexes
//!   are built over the stored collection) indexes `classification`, `capacity` and `name`;
//!   tenant `bench`, user `bench`. Prints one JSON line: the file's size per object (after a
//!   checkpoint) before and after the indexes, next to the object's JSON size.
//!
//! Knobs: `PLATFORM_COMPARE_RUNS` (runs of the heavy cases, default 5), `PLATFORM_COMPARE_SCALE`
//! (divides every corpus size, default 1, for quick trials).

#[path = "corpus.rs"]
mod corpus;
#[path = "compare/shaping.rs"]
mod shaping;

use platform_core::auth::Principal;
use platform_core::data::columns::Columns;
use platform_core::data::model::Point;
use platform_core::data::read::DataQuery;
use platform_core::data::series::Window;
use platform_core::documents::{ListRequest, SaveOptions};
use platform_core::ids::Source;
use platform_core::query::Params;
use platform_core::store::Collection;
use platform_core::validation::engine::{
    compile_with, CheckDef, CheckScope, CheckStatus, CompiledChecks, Options, SeriesInput, Severity,
};
use platform_core::Platform;
use rusqlite::{Connection, OptionalExtension};
use serde_json::{json, Map, Value};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// 2020-01-01T00:00:00Z in milliseconds.
const T0: i64 = 1_577_836_800_000;
const MINUTE: i64 = 60_000;
const DAY: usize = 1_440;
const BLOB_POINTS: usize = 10_000;

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Corpus sizes.
struct Sizes {
    points: usize,
    corrections: usize,
    series: usize,
    series_points: usize,
    curves: usize,
    objects: usize,
    vseries: usize,
}

fn sizes() -> Sizes {
    let s = knob("PLATFORM_COMPARE_SCALE", 1).max(1);
    Sizes {
        points: 1_000_000 / s,
        corrections: 100 / s.min(10),
        series: 1_000 / s,
        series_points: 1_000,
        curves: 1_000 / s,
        objects: 100_000 / s,
        vseries: 1_000 / s,
    }
}

fn runs() -> usize {
    knob("PLATFORM_COMPARE_RUNS", 5).max(1)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo bench --no-run` only builds.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    match args.first().map(String::as_str) {
        Some("dump") => dump(Path::new(&args[1])),
        Some("serve-db") => serve_db(Path::new(&args[1]), args.get(2).map(Path::new)),
        Some("measure") => measure(&args[1..]),
        Some("w10-db") => w10_db(
            Path::new(&args[1]),
            args[2]
                .parse()
                .expect("w10-db FILE N: N is a number of objects"),
        ),
        _ => eprintln!(
            "usage: compare dump DIR | serve-db FILE|URL [KEY_FILE] | measure [W1 W2 W3 W4 W5 W7 W12] \
             | w10-db FILE N"
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus

/// `n` values of a seeded random walk.
fn walk(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = corpus::Rng::new(seed);
    let mut v = 50.0;
    (0..n)
        .map(|_| {
            v += rng.unit() - 0.5;
            (v * 100.0_f64).round() / 100.0
        })
        .collect()
}

/// W1: the big series.
fn w1_values(s: &Sizes) -> Vec<f64> {
    walk(s.points, 1)
}

/// W3: correction `k` covers the day starting at point `k * 6 * DAY` (every sixth day).
fn correction_start(k: usize, s: &Sizes) -> usize {
    (k * 6 * DAY) % (s.points - DAY)
}

fn correction(k: usize) -> Vec<f64> {
    walk(DAY, 500 + k as u64)
        .into_iter()
        .map(|v| v + 1000.0)
        .collect()
}

fn w4_values(i: usize, s: &Sizes) -> Vec<f64> {
    walk(s.series_points, 1000 + i as u64)
}

fn tenors() -> Vec<String> {
    let mut out = Vec::with_capacity(100);
    for (unit, count) in [("M", 36), ("Q", 12), ("Y", 5), ("W", 20), ("D", 27)] {
        out.extend((1..=count).map(|i| format!("{unit}{i:02}")));
    }
    out
}

fn ondate(i: usize) -> String {
    let first = chrono::NaiveDate::from_ymd_opt(2021, 1, 1).unwrap();
    (first + chrono::Days::new(i as u64))
        .format("%Y-%m-%d")
        .to_string()
}

fn curve_values(s: &Sizes) -> Vec<Vec<f64>> {
    let mut rng = corpus::Rng::new(9);
    (0..s.curves)
        .map(|_| {
            (0..100)
                .map(|_| (rng.unit() * 10_000.0).round() / 100.0)
                .collect()
        })
        .collect()
}

/// W7: `vseries` series of a day of minutes (the data of benches/validation.rs).
fn w7_values(s: &Sizes) -> Vec<Vec<f64>> {
    let mut rng = corpus::Rng::new(11);
    (0..s.vseries)
        .map(|_| {
            let mut v = 100.0 + rng.unit() * 100.0;
            (0..DAY)
                .map(|_| {
                    v = (v + (rng.unit() - 0.5) * 2.0).max(1.0);
                    v
                })
                .collect()
        })
        .collect()
}

const W7_START: i64 = 1_719_999_960_000;

fn ms_text(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string()
}

/// The W2 windows: `between` (10,000 points from the middle) and `from` (the last day).
fn windows(s: &Sizes) -> ((i64, i64), i64) {
    let start = T0 + (s.points as i64 / 2 + 1_234) * MINUTE;
    let last_day = T0 + (s.points - DAY) as i64 * MINUTE;
    ((start, start + 10_000 * MINUTE), last_day)
}

fn write_f64s(path: &Path, values: impl IntoIterator<Item = f64>) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for v in values {
        out.write_all(&v.to_le_bytes()).unwrap();
    }
    out.flush().unwrap();
}

fn dump(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let s = sizes();
    let ((b0, b1), from) = windows(&s);
    let meta = json!({
        "t0_ms": T0, "minute_ms": MINUTE, "points": s.points,
        "between_ms": [b0, b1], "between_text": [ms_text(b0), ms_text(b1)],
        "from_ms": from, "from_text": ms_text(from),
        "corrections": s.corrections, "correction_points": DAY,
        "correction_starts": (0..s.corrections).map(|k| correction_start(k, &s)).collect::<Vec<_>>(),
        "series": s.series, "series_points": s.series_points,
        "curves": s.curves, "tenors": tenors(), "ondates": (0..s.curves).map(ondate).collect::<Vec<_>>(),
        "objects": s.objects, "vseries": s.vseries, "vpoints": DAY, "w7_start_ms": W7_START,
    });
    std::fs::write(dir.join("meta.json"), meta.to_string()).unwrap();
    write_f64s(&dir.join("w1_v.bin"), w1_values(&s));
    write_f64s(
        &dir.join("w3_v.bin"),
        (0..s.corrections).flat_map(correction),
    );
    write_f64s(
        &dir.join("w4_v.bin"),
        (0..s.series).flat_map(|i| w4_values(i, &s)),
    );
    write_f64s(
        &dir.join("w4_curves.bin"),
        curve_values(&s).into_iter().flatten(),
    );
    let mut out =
        std::io::BufWriter::new(std::fs::File::create(dir.join("objects.jsonl")).unwrap());
    for o in corpus::objects(s.objects as u64, 42) {
        writeln!(out, "{o}").unwrap();
    }
    out.flush().unwrap();
    let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join("w7.csv")).unwrap());
    writeln!(out, "series,time,value").unwrap();
    for (k, values) in w7_values(&s).iter().enumerate() {
        for (i, v) in values.iter().enumerate() {
            writeln!(out, "{k},{},{v}", W7_START + i as i64 * MINUTE).unwrap();
        }
    }
    out.flush().unwrap();
    shaping::dump(dir, &s);
    eprintln!("corpus written to {}", dir.display());
}

// ---------------------------------------------------------------------------------------------
// Timing and output

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
    }
}

fn time_ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let started = Instant::now();
    let out = std::hint::black_box(f());
    (started.elapsed().as_secs_f64() * 1e3, out)
}

/// Whether the platform's side runs on PostgreSQL (`PLATFORM_COMPARE_BACKEND=postgres`, on a
/// fresh database of the server `PLATFORM_TEST_PG` names); its figures are then `platform-pg`.
fn on_postgres() -> bool {
    std::env::var("PLATFORM_COMPARE_BACKEND").as_deref() == Ok("postgres")
}

fn emit(workload: &str, case: &str, contestant: &str, samples: &[f64], extra: Value) {
    let contestant = if contestant == "platform" && on_postgres() {
        "platform-pg"
    } else {
        contestant
    };
    let mut line = json!({
        "workload": workload, "case": case, "contestant": contestant,
        "median_ms": median(samples), "runs": samples.len(),
        "samples_ms": samples.iter().map(|x| (x * 1e4).round() / 1e4).collect::<Vec<_>>(),
    });
    if let (Value::Object(l), Value::Object(e)) = (&mut line, extra) {
        l.extend(e);
    }
    println!("{line}");
    std::io::stdout().flush().unwrap();
}

/// Runs `a` and `b` `n` times each, interleaved (fewer when they are slow); returns their
/// timings in ms.
fn paired(
    n: usize,
    mut a: impl FnMut() -> f64,
    mut b: impl FnMut() -> f64,
) -> (Vec<f64>, Vec<f64>) {
    let (mut xs, mut ys) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut n = n;
    while xs.len() < n {
        xs.push(a());
        ys.push(b());
        if xs.len() == 1 {
            // Slow cases: fewer runs (at least 5), about 8 s per case at most.
            let pair = xs[0] + ys[0];
            n = n.min(((8_000.0 / pair.max(1e-6)) as usize).max(5));
        }
    }
    (xs, ys)
}

/// A timer of a quick call, after one warm-up call.
fn repeat<T>(mut f: impl FnMut() -> T) -> impl FnMut() -> f64 {
    drop(f());
    move || time_ms(&mut f).0
}

// ---------------------------------------------------------------------------------------------
// Contestants

struct Core {
    platform: Platform,
    who: Principal,
    path: PathBuf,
    _dir: tempfile::TempDir,
    _pg: Option<platform_core::store::postgres::testing::TestDatabase>,
}

fn open_core() -> Core {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    let (platform, pg) = if on_postgres() {
        let db = platform_core::store::postgres::testing::TestDatabase::new()
            .expect("PLATFORM_COMPARE_BACKEND=postgres needs PLATFORM_TEST_PG");
        let platform = Platform::open_postgres(
            &db.url,
            &dir.path().join("bench.key"),
            platform_core::store::postgres::DEFAULT_LEASE,
        )
        .unwrap();
        (platform, Some(db))
    } else {
        (Platform::open(&path).unwrap(), None)
    };
    let who = platform
        .tenancy()
        .local_principal("bench", "bench")
        .unwrap();
    Core {
        platform,
        who,
        path,
        _dir: dir,
        _pg: pg,
    }
}

fn header() -> Map<String, Value> {
    let mut h = Map::new();
    h.insert("calendar".into(), Value::String("#PT1M".into()));
    h
}

/// The observations of [`points`] as columns.
fn columns(first: usize, values: &[f64]) -> Columns {
    let mut c = Columns::with_capacity(values.len());
    c.times
        .extend((0..values.len()).map(|i| T0 + (first + i) as i64 * MINUTE));
    c.values.extend_from_slice(values);
    c
}

fn points(first: usize, values: &[f64]) -> Vec<Point> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| Point::num(T0 + (first + i) as i64 * MINUTE, v))
        .collect()
}

impl Core {
    fn save(&self, object: &str, pts: Vec<Point>) {
        self.platform
            .data()
            .save_series(
                &self.who,
                object,
                "price",
                header(),
                pts,
                &SaveOptions::default(),
            )
            .unwrap();
    }

    fn save_columns(&self, object: &str, columns: Columns) {
        self.platform
            .data()
            .save_columns(
                &self.who,
                object,
                "price",
                header(),
                columns,
                &SaveOptions::default(),
            )
            .unwrap();
    }

    /// A read as columns (times and values in two arrays, as the peers' frames and blobs).
    fn read(&self, id: &str, window: Window, version: Option<u32>) -> Columns {
        self.platform
            .data()
            .read_columns(&self.who, Source::Private, id, window, version)
            .unwrap()
    }

    /// A read with a [`Point`] per observation.
    fn read_points(&self, id: &str, window: Window, version: Option<u32>) -> Vec<Point> {
        self.platform
            .data()
            .read_points(&self.who, Source::Private, id, window, version)
            .unwrap()
    }

    /// The database file and its WAL after a checkpoint.
    fn file_size(&self) -> u64 {
        self.platform.close().unwrap();
        db_size(&self.path)
    }
}

fn db_size(db: &Path) -> u64 {
    let wal = db.with_extension("db-wal");
    [db, wal.as_path()]
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}

/// Plain rusqlite: series as blobs of up to 10,000 `(i64, f64)` pairs, curves as rows, objects
/// as JSONB rows; WAL and `synchronous=NORMAL` as in the core.
struct Sqlite {
    conn: Connection,
    _dir: tempfile::TempDir,
}

fn open_sqlite() -> Sqlite {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
         CREATE TABLE series (id TEXT NOT NULL, start INTEGER NOT NULL, stop INTEGER NOT NULL,
                              payload BLOB NOT NULL, PRIMARY KEY (id, start));
         CREATE TABLE curve (ondate TEXT NOT NULL, tenor TEXT NOT NULL, value REAL);
         CREATE INDEX curve_tenor ON curve(tenor, ondate);
         CREATE TABLE docs (id TEXT PRIMARY KEY, body BLOB NOT NULL);",
    )
    .unwrap();
    Sqlite { conn, _dir: dir }
}

fn encode_blob(first: usize, values: &[f64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 16);
    for (i, v) in values.iter().enumerate() {
        out.extend_from_slice(&(T0 + (first + i) as i64 * MINUTE).to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

fn decode_blob(bytes: &[u8], out: &mut Vec<(i64, f64)>) {
    out.reserve(bytes.len() / 16);
    for pair in bytes.chunks_exact(16) {
        let t = i64::from_le_bytes(pair[..8].try_into().unwrap());
        let v = f64::from_le_bytes(pair[8..].try_into().unwrap());
        out.push((t, v));
    }
}

impl Sqlite {
    /// One series, in one transaction.
    fn write(&self, id: &str, first: usize, values: &[f64]) {
        let tx = self.conn.unchecked_transaction().unwrap();
        {
            let mut insert = tx
                .prepare_cached("INSERT OR REPLACE INTO series VALUES (?1, ?2, ?3, ?4)")
                .unwrap();
            for (c, blob) in values.chunks(BLOB_POINTS).enumerate() {
                let at = first + c * BLOB_POINTS;
                insert
                    .execute((
                        id,
                        T0 + at as i64 * MINUTE,
                        T0 + (at + blob.len() - 1) as i64 * MINUTE,
                        encode_blob(at, blob),
                    ))
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    }

    fn between(&self, id: &str, start: i64, end: i64) -> Vec<(i64, f64)> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT payload FROM series WHERE id = ?1 AND stop >= ?2 AND start < ?3 \
                 ORDER BY start",
            )
            .unwrap();
        let mut rows = stmt.query((id, start, end)).unwrap();
        let mut out = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            decode_blob(row.get_ref(0).unwrap().as_blob().unwrap(), &mut out);
        }
        out.retain(|&(t, _)| t >= start && t < end);
        out
    }

    fn read_all(&self, id: &str) -> Vec<(i64, f64)> {
        self.between(id, i64::MIN, i64::MAX)
    }

    fn last(&self, id: &str, n: usize) -> Vec<(i64, f64)> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT payload FROM series WHERE id = ?1 ORDER BY start DESC")
            .unwrap();
        let mut rows = stmt.query([id]).unwrap();
        let mut blobs: Vec<Vec<u8>> = Vec::new();
        let mut have = 0;
        while have < n {
            let Some(row) = rows.next().unwrap() else {
                break;
            };
            let blob: Vec<u8> = row.get(0).unwrap();
            have += blob.len() / 16;
            blobs.push(blob);
        }
        let mut out = Vec::with_capacity(have);
        for b in blobs.iter().rev() {
            decode_blob(b, &mut out);
        }
        out.drain(..out.len().saturating_sub(n));
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Workloads

fn measure(only: &[String]) {
    let wanted = |w: &str| only.is_empty() || only.iter().any(|o| o.eq_ignore_ascii_case(w));
    let s = sizes();
    if wanted("W1") || wanted("W2") {
        w1_w2(&s, wanted("W1"), wanted("W2"));
    }
    if wanted("W3") {
        w3(&s);
    }
    if wanted("W4") {
        w4(&s);
    }
    if wanted("W5") {
        w5(&s);
    }
    if wanted("W7") {
        w7(&s);
    }
    if wanted("W12") {
        shaping::measure(&s);
    }
}

/// A read of the plain rusqlite contestant.
type PlainRead<'a> = Box<dyn Fn() -> Vec<(i64, f64)> + 'a>;

fn w1_w2(s: &Sizes, do_w1: bool, do_w2: bool) {
    let values = w1_values(s);
    let n = s.points;
    let case_n = format!("{}k points", n / 1000);
    // Write: a fresh database each run; the points are built outside the timing.
    let mut kept = None;
    if do_w1 {
        let (ours, plain) = paired(
            runs(),
            || {
                let core = open_core();
                let columns = columns(0, &values);
                let (ms, ()) = time_ms(|| core.save_columns("BIG", columns));
                ms
            },
            || {
                let db = open_sqlite();
                time_ms(|| db.write("BIG", 0, &values)).0
            },
        );
        emit(
            "W1",
            &format!("write {case_n}"),
            "platform",
            &ours,
            json!({}),
        );
        emit(
            "W1",
            &format!("write {case_n}"),
            "rusqlite",
            &plain,
            json!({}),
        );
        // The same write with a value built per observation (the typed `save_series`).
        let points: Vec<f64> = (0..runs())
            .map(|_| {
                let core = open_core();
                let pts = points(0, &values);
                time_ms(|| core.save("BIG", pts)).0
            })
            .collect();
        emit(
            "W1",
            &format!("write {case_n}"),
            "platform-points",
            &points,
            json!({}),
        );
    }
    let core = open_core();
    core.save("BIG", points(0, &values));
    let db = open_sqlite();
    db.write("BIG", 0, &values);
    if do_w1 {
        let (ours, plain) = paired(
            runs() * 2,
            repeat(|| {
                let p = core.read("BIG:price", Window::All, None);
                assert_eq!(p.len(), n);
                p
            }),
            repeat(|| {
                let p = db.read_all("BIG");
                assert_eq!(p.len(), n);
                p
            }),
        );
        emit(
            "W1",
            &format!("read {case_n}"),
            "platform",
            &ours,
            json!({}),
        );
        emit(
            "W1",
            &format!("read {case_n}"),
            "rusqlite",
            &plain,
            json!({}),
        );
        // The same read with a value built per observation (the typed `read_points`).
        let mut read_points = repeat(|| {
            let p = core.read_points("BIG:price", Window::All, None);
            assert_eq!(p.len(), n);
            p
        });
        let points: Vec<f64> = (0..runs() * 2).map(|_| read_points()).collect();
        emit(
            "W1",
            &format!("read {case_n}"),
            "platform-points",
            &points,
            json!({}),
        );
        kept = Some(());
    }
    let _ = kept;
    // Bytes per point on disk: the file after a checkpoint, and the chunks' own bytes.
    if do_w1 && !on_postgres() {
        let empty = open_core();
        empty.save("EMPTY", Vec::new());
        let base = empty.file_size();
        let file = open_core();
        let pts = points(0, &values);
        let encoded: usize = pts
            .chunks(platform_core::data::series::CHUNK_POINTS)
            .map(|c| platform_core::data::codec::encode(c).len())
            .sum();
        file.save("BIG", pts);
        let bytes = file.file_size().saturating_sub(base);
        println!(
            "{}",
            json!({"workload": "W1", "case": "bytes per point", "contestant": "platform",
                   "bytes_per_point": bytes as f64 / n as f64,
                   "encoded_bytes_per_point": encoded as f64 / n as f64,
                   "file_bytes": bytes, "points": n})
        );
    }
    if do_w2 {
        let ((b0, b1), from) = windows(s);
        let quick = 101;
        let cases: [(&str, Window, PlainRead<'_>); 3] = [
            (
                "last(1000)",
                Window::Last(1000),
                Box::new(|| db.last("BIG", 1000)),
            ),
            (
                "between, 10,000 points",
                Window::Between(Some(b0), Some(b1)),
                Box::new(|| db.between("BIG", b0, b1)),
            ),
            (
                "from the last day (1,440 points)",
                Window::Between(Some(from), None),
                Box::new(|| db.between("BIG", from, i64::MAX)),
            ),
        ];
        for (name, window, plain) in cases {
            let expect = plain().len();
            let (ours, theirs) = paired(
                quick,
                repeat(|| {
                    let p = core.read("BIG:price", window, None);
                    assert_eq!(p.len(), expect);
                    p
                }),
                repeat(&plain),
            );
            emit("W2", name, "platform", &ours, json!({"points": expect}));
            emit("W2", name, "rusqlite", &theirs, json!({"points": expect}));
        }
    }
}

fn w3(s: &Sizes) {
    let values = w1_values(s);
    let core = open_core();
    core.save("BIG", points(0, &values));
    let before = core.file_size();
    let mut saves = Vec::new();
    let mut encoded = 0;
    for k in 0..s.corrections {
        let pts = points(correction_start(k, s), &correction(k));
        encoded += platform_core::data::codec::encode(&pts).len();
        saves.push(time_ms(|| core.save("BIG", pts)).0);
    }
    let after = core.file_size();
    let growth = after.saturating_sub(before) as f64 / s.corrections as f64;
    emit(
        "W3",
        &format!("correction of {DAY} points (new version)"),
        "platform",
        &saves,
        json!({}),
    );
    let latest = s.corrections as u32 + 1;
    let check = core.read("BIG:price", Window::All, None);
    assert_eq!(check.len(), s.points);
    let (v1, cur) = paired(
        runs() * 2,
        repeat(|| core.read("BIG:price", Window::All, Some(1))),
        repeat(|| core.read("BIG:price", Window::All, Some(latest))),
    );
    emit(
        "W3",
        "read version 1 (all points)",
        "platform",
        &v1,
        json!({}),
    );
    emit("W3", "read the latest version", "platform", &cur, json!({}));
    // The growth of a file (a PostgreSQL database has none to measure here).
    if on_postgres() {
        return;
    }
    println!(
        "{}",
        json!({"workload": "W3", "case": "growth per correction", "contestant": "platform",
               "bytes": growth, "correction_raw_bytes": DAY * 16,
               "correction_encoded_bytes": encoded / s.corrections.max(1),
               "file_before": before, "file_after": after, "corrections": s.corrections})
    );
}

fn w4(s: &Sizes) {
    let data: Vec<Vec<f64>> = (0..s.series).map(|i| w4_values(i, s)).collect();
    let ids: Vec<String> = (0..s.series).map(|i| format!("S{i:04}")).collect();
    let case = format!("write {} series x {} points", s.series, s.series_points);
    let heavy = runs().min(3);
    let (ours, plain) = paired(
        heavy,
        || {
            let core = open_core();
            let pts: Vec<Vec<Point>> = data.iter().map(|v| points(0, v)).collect();
            time_ms(|| {
                for (id, p) in ids.iter().zip(pts) {
                    core.save(id, p);
                }
            })
            .0
        },
        || {
            let db = open_sqlite();
            time_ms(|| {
                for (id, v) in ids.iter().zip(&data) {
                    db.write(id, 0, v);
                }
            })
            .0
        },
    );
    emit(
        "W4",
        &case,
        "platform",
        &ours,
        json!({"transactions": "one per series"}),
    );
    emit(
        "W4",
        &case,
        "rusqlite",
        &plain,
        json!({"transactions": "one per series"}),
    );
    let core = open_core();
    let db = open_sqlite();
    for (id, v) in ids.iter().zip(&data) {
        core.save(id, points(0, v));
        db.write(id, 0, v);
    }
    // All the series in one read (`read_columns_many`: one round trip on PostgreSQL), checked
    // once against the series read one by one.
    let read_ids: Vec<String> = ids.iter().map(|id| format!("{id}:price")).collect();
    let read_refs: Vec<&str> = read_ids.iter().map(String::as_str).collect();
    let read_many = || {
        core.platform
            .data()
            .read_columns_many(&core.who, &read_refs, Window::All)
            .unwrap()
    };
    let many = read_many();
    assert_eq!(many.len(), s.series);
    for (id, got) in read_ids.iter().zip(&many) {
        let one = core.read(id, Window::All, None);
        assert!(
            got.times == one.times
                && got.values == one.values
                && got.values.len() == s.series_points,
            "read_columns_many differs from read_columns for {id}"
        );
    }
    drop(many);
    let (ours, plain) = paired(
        runs(),
        repeat(read_many),
        repeat(|| ids.iter().map(|id| db.read_all(id)).collect::<Vec<_>>()),
    );
    let case = format!("read {} series x {} points", s.series, s.series_points);
    emit(
        "W4",
        &case,
        "platform",
        &ours,
        json!({"reads": "one read_columns_many call"}),
    );
    emit("W4", &case, "rusqlite", &plain, json!({}));

    // Curves: one save (one transaction) per ondate.
    let codes = tenors();
    let curves = curve_values(s);
    let bodies: Vec<Value> = curves
        .iter()
        .enumerate()
        .map(|(i, values)| {
            let contracts: Vec<Value> = codes
                .iter()
                .zip(values)
                .map(|(tenor, value)| json!({"tenor": tenor, "value": value}))
                .collect();
            json!({"_id": "CURVE", "fwd": {"_type": "VarCurve", "ondate": ondate(i), "contracts": contracts}})
        })
        .collect();
    let (mut ours, mut plain) = (Vec::new(), Vec::new());
    let mut stores = None;
    for _ in 0..heavy {
        let core = open_core();
        let bodies = bodies.clone();
        ours.push(
            time_ms(|| {
                for b in bodies {
                    core.platform
                        .objects()
                        .save(&core.who, Collection::Object, b, &SaveOptions::default())
                        .unwrap();
                }
            })
            .0,
        );
        let db = open_sqlite();
        plain.push(
            time_ms(|| {
                for (i, values) in curves.iter().enumerate() {
                    let tx = db.conn.unchecked_transaction().unwrap();
                    {
                        let mut insert = tx
                            .prepare_cached("INSERT INTO curve VALUES (?1, ?2, ?3)")
                            .unwrap();
                        let d = ondate(i);
                        for (tenor, value) in codes.iter().zip(values) {
                            insert.execute((&d, tenor, value)).unwrap();
                        }
                    }
                    tx.commit().unwrap();
                }
            })
            .0,
        );
        stores = Some((core, db));
    }
    let case = format!("write {} curves of 100 tenors", s.curves);
    emit(
        "W4",
        &case,
        "platform",
        &ours,
        json!({"transactions": "one per ondate"}),
    );
    emit(
        "W4",
        &case,
        "rusqlite",
        &plain,
        json!({"transactions": "one per ondate"}),
    );
    let (core, db) = stores.unwrap();
    let q = DataQuery {
        tenor: Some("M01".into()),
        ..Default::default()
    };
    let mut stmt = db
        .conn
        .prepare("SELECT ondate, value FROM curve WHERE tenor = 'M01' ORDER BY ondate")
        .unwrap();
    let (ours, plain) = paired(
        51,
        repeat(|| {
            let item = core
                .platform
                .data()
                .read(&core.who, Source::Private, "CURVE:fwd", &q)
                .unwrap();
            assert_eq!(item["data"].as_array().map(Vec::len), Some(s.curves));
            item
        }),
        repeat(|| {
            stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect::<Vec<_>>()
        }),
    );
    let case = format!("tenor history (M01 over {} ondates)", s.curves);
    emit("W4", &case, "platform", &ours, json!({}));
    emit("W4", &case, "rusqlite", &plain, json!({}));
}

/// Loads the objects in saves of 1,000 (one transaction each).
fn load_objects(core: &Core, objects: &[Value]) {
    for chunk in objects.chunks(1000) {
        core.platform
            .objects()
            .save(
                &core.who,
                Collection::Object,
                Value::Array(chunk.to_vec()),
                &SaveOptions::default(),
            )
            .unwrap();
    }
}

fn load_sqlite_objects(db: &Sqlite, objects: &[Value]) {
    for chunk in objects.chunks(1000) {
        let tx = db.conn.unchecked_transaction().unwrap();
        {
            let mut up = tx
                .prepare_cached(
                    "INSERT INTO docs VALUES (?1, jsonb(?2)) \
                     ON CONFLICT(id) DO UPDATE SET body = excluded.body",
                )
                .unwrap();
            for o in chunk {
                up.execute((o["_id"].as_str().unwrap(), o.to_string()))
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    }
}

/// The rows the platform's saves of `objects` wrote, read back from its SQLite file: for each
/// object (in saves of 1,000), its version row and its current row, as stored.
struct SavedRows {
    /// The statements that made the two tables and the current row's indexes.
    schema: Vec<String>,
    /// Per object: the version row's values, then the current row's.
    rows: Vec<(Vec<rusqlite::types::Value>, Vec<rusqlite::types::Value>)>,
}

impl SavedRows {
    fn read(path: &Path) -> SavedRows {
        let conn = Connection::open(path).unwrap();
        let schema = conn
            .prepare(
                "SELECT sql FROM sqlite_master WHERE tbl_name IN ('versions', 'heads') \
                 AND sql IS NOT NULL ORDER BY type DESC, rowid",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let all = |sql: &str| -> Vec<Vec<rusqlite::types::Value>> {
            let mut stmt = conn.prepare(sql).unwrap();
            let n = stmt.column_count();
            stmt.query_map([], |r| (0..n).map(|i| r.get(i)).collect())
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let versions = all("SELECT * FROM versions WHERE coll = 'object' ORDER BY id");
        let heads = all("SELECT * FROM heads WHERE coll = 'object' ORDER BY id");
        assert_eq!(versions.len(), heads.len(), "one version per object");
        SavedRows {
            schema,
            rows: versions.into_iter().zip(heads).collect(),
        }
    }

    /// Writes the rows into a fresh file of the same tables and indexes (and the platform's
    /// settings of the connection) with plain rusqlite, 1,000 objects to a transaction: per
    /// object, a look-up of its current version (an upsert's new version number depends on
    /// it), then its version row and its current row. The floor under the platform's upsert,
    /// given what it keeps of each object.
    fn write(&self) -> (f64, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("rows.db")).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768;",
        )
        .unwrap();
        for sql in &self.schema {
            conn.execute_batch(sql).unwrap();
        }
        let insert = |table: &str, n: usize| {
            let marks = vec!["?"; n].join(", ");
            format!("INSERT INTO {table} VALUES ({marks})")
        };
        let (v_sql, h_sql) = (
            insert("versions", self.rows[0].0.len()),
            insert("heads", self.rows[0].1.len()),
        );
        let took = time_ms(|| {
            for chunk in self.rows.chunks(1000) {
                let tx = conn.unchecked_transaction().unwrap();
                {
                    let mut current = tx
                        .prepare_cached(
                            "SELECT version FROM heads WHERE coll = ?1 AND tenant = ?2 \
                             AND env = ?3 AND id = ?4",
                        )
                        .unwrap();
                    let mut v = tx.prepare_cached(&v_sql).unwrap();
                    let mut h = tx.prepare_cached(&h_sql).unwrap();
                    for (version, head) in chunk {
                        let had: Option<i64> = current
                            .query_row(rusqlite::params_from_iter(&head[..4]), |r| r.get(0))
                            .optional()
                            .unwrap();
                        assert!(had.is_none());
                        v.execute(rusqlite::params_from_iter(version)).unwrap();
                        h.execute(rusqlite::params_from_iter(head)).unwrap();
                    }
                }
                tx.commit().unwrap();
            }
        })
        .0;
        (took, dir)
    }
}

fn w5(s: &Sizes) {
    let objects = corpus::objects(s.objects as u64, 42);
    let heavy = runs().min(3);
    let (mut ours, mut plain, mut same) = (Vec::new(), Vec::new(), Vec::new());
    let mut kept = None;
    let mut saved = None;
    for _ in 0..heavy {
        let core = open_core();
        ours.push(time_ms(|| load_objects(&core, &objects)).0);
        let db = open_sqlite();
        plain.push(time_ms(|| load_sqlite_objects(&db, &objects)).0);
        // On SQLite: the same rows written by plain rusqlite, in turn with the other two.
        if !on_postgres() {
            let rows = saved.get_or_insert_with(|| SavedRows::read(&core.path));
            assert_eq!(rows.rows.len(), objects.len());
            same.push(rows.write().0);
        }
        kept = Some((core, db));
    }
    let case = format!("upsert {} objects (saves of 1,000)", s.objects);
    emit("W5", &case, "platform", &ours, json!({}));
    emit("W5", &case, "rusqlite", &plain, json!({}));
    if !same.is_empty() {
        emit("W5", &case, "rusqlite-same-rows", &same, json!({}));
    }
    let (core, db) = kept.unwrap();
    let core = &core;
    let list = |params: &[(&str, &str)]| {
        let req = ListRequest::from_params(&Params::from_slice(params)).unwrap();
        move || {
            core.platform
                .objects()
                .list(&core.who, Collection::Object, Source::Private, &req)
                .unwrap()
        }
    };
    let quick = 51;
    // Filtered first page with its total.
    let filter = "body ->> '$.classification' = 'gas' AND json_type(body, '$.capacity') IN \
                  ('integer','real') AND body ->> '$.capacity' > 500";
    let search = "lower(id || ' ' || ifnull(body ->> '$.name', '') || ' ' || \
                  ifnull(body ->> '$.description', '') || ' ' || \
                  ifnull(body ->> '$.classification', '')) LIKE '%north%' AND \
                  lower(id || ' ' || ifnull(body ->> '$.name', '') || ' ' || \
                  ifnull(body ->> '$.description', '') || ' ' || \
                  ifnull(body ->> '$.classification', '')) LIKE '%gas%'";
    let page_and_total = |filter: &str| {
        let mut count = db
            .conn
            .prepare(&format!("SELECT count(*) FROM docs WHERE {filter}"))
            .unwrap();
        let mut page = db
            .conn
            .prepare(&format!(
                "SELECT id, json(body) FROM docs WHERE {filter} ORDER BY id LIMIT 100"
            ))
            .unwrap();
        move || {
            let total: u64 = count.query_row([], |r| r.get(0)).unwrap();
            let rows: Vec<(String, String)> = page
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            (total, rows)
        }
    };
    // Totals counted exactly, as the peers count them (a list past 10,000 matches would
    // otherwise answer an estimate: W10 measures that).
    let mut f_ours = list(&[
        ("classification", "gas"),
        ("capacity", "gt(500)"),
        ("_limit", "100"),
        ("_count", "exact"),
    ]);
    let mut f_plain = page_and_total(filter);
    let (total, rows) = f_plain();
    let page = f_ours();
    assert_eq!((page.total, page.items.len()), (total, rows.len()));
    let (ours, plain) = paired(quick, repeat(&mut f_ours), repeat(&mut f_plain));
    let extra = json!({"total": total});
    emit(
        "W5",
        "filtered first page with total",
        "platform",
        &ours,
        extra.clone(),
    );
    emit(
        "W5",
        "filtered first page with total",
        "rusqlite",
        &plain,
        extra,
    );

    let mut s_ours = list(&[
        ("_search", "north gas"),
        ("_limit", "100"),
        ("_count", "exact"),
    ]);
    let mut s_plain = page_and_total(search);
    let (total, _) = s_plain();
    let page = s_ours();
    assert_eq!(page.total, total);
    let (ours, plain) = paired(quick, repeat(&mut s_ours), repeat(&mut s_plain));
    let extra = json!({"total": total, "query": "_search=north gas"});
    emit(
        "W5",
        "_search, first page with total",
        "platform",
        &ours,
        extra.clone(),
    );
    emit(
        "W5",
        "_search, first page with total",
        "rusqlite",
        &plain,
        extra,
    );

    let mut i_ours = list(&[("_searchinfo", "obj0012"), ("_limit", "10")]);
    let mut stmt = db
        .conn
        .prepare(
            "SELECT id, body ->> '$.name' FROM docs WHERE (id >= 'OBJ0012' AND id < 'OBJ0013') \
             OR lower(body ->> '$.name') LIKE 'obj0012%' ORDER BY id LIMIT 10",
        )
        .unwrap();
    let mut i_plain = || {
        stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect::<Vec<_>>()
    };
    assert_eq!(i_ours().items.len(), i_plain().len());
    let (ours, plain) = paired(quick, repeat(&mut i_ours), repeat(&mut i_plain));
    emit("W5", "_searchinfo (10 items)", "platform", &ours, json!({}));
    emit(
        "W5",
        "_searchinfo (10 items)",
        "rusqlite",
        &plain,
        json!({}),
    );

    let n = s.objects as u64;
    let mut rng = corpus::Rng::new(7);
    let mut rng2 = corpus::Rng::new(7);
    let mut get = db
        .conn
        .prepare("SELECT json(body) FROM docs WHERE id = ?1")
        .unwrap();
    let (ours, plain) = paired(
        1001,
        || {
            let id = format!("OBJ{:06}", rng.below(n));
            time_ms(|| {
                core.platform
                    .objects()
                    .get(
                        &core.who,
                        Collection::Object,
                        Source::Private,
                        &id,
                        None,
                        None,
                    )
                    .unwrap()
            })
            .0
        },
        || {
            let id = format!("OBJ{:06}", rng2.below(n));
            time_ms(|| {
                let text: String = get.query_row([&id], |r| r.get(0)).unwrap();
                serde_json::from_str::<Value>(&text).unwrap()
            })
            .0
        },
    );
    emit("W5", "get by id", "platform", &ours, json!({}));
    emit("W5", "get by id", "rusqlite", &plain, json!({}));
}

fn def(id: &str, expression: &str) -> CheckDef {
    CheckDef {
        id: id.into(),
        name: id.into(),
        expression: expression.into(),
        scope: CheckScope::Point,
        severity: Severity::Failed,
    }
}

/// The four checks compared with pandera.
fn w7_defs() -> Vec<CheckDef> {
    vec![
        def("range", "between(value, 0, 1000)"),
        def("change", "abs(pct_change(1)) < 0.5"),
        def("stale", "run_length() < 30"),
        def("missing", "!is_missing()"),
    ]
}

fn evaluate_all(checks: &CompiledChecks, inputs: &[SeriesInput], targets: &[usize]) -> usize {
    let mut failures = 0;
    for input in inputs {
        let eval = checks.evaluate_series(input, targets);
        for c in 0..4 {
            failures += (0..targets.len())
                .filter(|&t| eval.status(c, t) != CheckStatus::Pass)
                .count();
        }
    }
    failures
}

fn w7(s: &Sizes) {
    let data = w7_values(s);
    let inputs: Vec<SeriesInput> = data
        .iter()
        .map(|values| SeriesInput {
            times: (0..values.len() as i64)
                .map(|i| W7_START + i * MINUTE)
                .collect(),
            values: values.iter().map(|v| Some(*v)).collect(),
            step_ms: Some(MINUTE),
            ..SeriesInput::default()
        })
        .collect();
    let targets: Vec<usize> = (0..DAY).collect();
    let native = compile_with(&w7_defs(), &[], Options { native: true }).unwrap();
    let rhai = compile_with(&w7_defs(), &[], Options { native: false }).unwrap();
    let mut failures = 0;
    let samples: Vec<f64> = (0..runs())
        .map(|_| {
            let (ms, f) = time_ms(|| evaluate_all(&native, &inputs, &targets));
            failures = f;
            ms
        })
        .collect();
    let case = format!(
        "range, change, stale, missing over {} series x {DAY} points",
        s.vseries
    );
    emit(
        "W7",
        &case,
        "platform",
        &samples,
        json!({"failures": failures}),
    );
    // Native against rhai per point, on the first 50 series (rhai is slow).
    let few = &inputs[..inputs.len().min(50)];
    let per_point = 1e6 / (few.len() * DAY * 4) as f64;
    let (a, b) = paired(
        runs(),
        || time_ms(|| evaluate_all(&native, few, &targets)).0 * per_point,
        || time_ms(|| evaluate_all(&rhai, few, &targets)).0 * per_point,
    );
    let extra = json!({"unit": "ns per point and check", "series": few.len()});
    emit(
        "W7",
        "per point and check: native path",
        "platform",
        &a,
        extra.clone(),
    );
    emit(
        "W7",
        "per point and check: rhai path",
        "platform-rhai",
        &b,
        extra,
    );
    // The full run: ten checks, records stored.
    let full: Vec<f64> = (0..runs().min(3))
        .map(|_| {
            let setup = validation_setup(&data);
            time_ms(|| {
                // All series from the first day: a background job, run here by the job
                // worker's own entry point (as benches/validation.rs does).
                let (core, targets) = &setup;
                let queued = core
                    .platform
                    .validation()
                    .run_many(
                        &core.who,
                        &json!({"targets": targets, "from": "2024-01-01"}),
                        "manual",
                    )
                    .unwrap();
                assert_eq!(queued["background"], true, "{queued}");
                assert!(core.platform.jobs().run_next().unwrap());
                let jobs = core.platform.jobs().list(&core.who).unwrap();
                let records: u64 = jobs[0]["result"]["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["points"].as_u64().unwrap_or(0))
                    .sum();
                assert_eq!(records as usize, data.len() * DAY);
            })
            .0
        })
        .collect();
    let case = format!(
        "full run: {} series x {DAY} points, 10 checks, records stored",
        s.vseries
    );
    emit("W7", &case, "platform", &full, json!({}));
}

const CHECKS: &str = r#"[
  {"name": "range", "expression": "between(value, 0, 1000)"},
  {"name": "spike", "expression": "abs(pct_change(1)) < 0.5"},
  {"name": "stale", "expression": "run_length() < 30"},
  {"name": "missing", "expression": "!is_missing()", "severity": "warning"},
  {"name": "z20", "expression": "abs(zscore(20)) < 6"},
  {"name": "robust", "expression": "abs(robust_z(50)) < 8", "severity": "warning"},
  {"name": "custom1", "expression": "value * 2 > lag(1) - 100"},
  {"name": "custom2", "expression": "if value > 500 { value < 999 } else { value >= 0 }"},
  {"name": "custom3", "expression": "max_of(10) - min_of(10) < 400 || value > 0"},
  {"name": "custom4", "expression": "round(value) >= 0 && mean(5) > -1"}
]"#;

/// The W7 series with the ten checks of benches/validation.rs configured on each.
fn validation_setup(data: &[Vec<f64>]) -> (Core, Vec<String>) {
    let core = open_core();
    let checks: Value = serde_json::from_str(CHECKS).unwrap();
    let mut targets = Vec::with_capacity(data.len());
    for (k, values) in data.iter().enumerate() {
        let object = format!("S{k:04}");
        let pts: Vec<Point> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| Point::num(W7_START + i as i64 * MINUTE, v))
            .collect();
        core.platform
            .data()
            .save_series(
                &core.who,
                &object,
                "price",
                header(),
                pts,
                &SaveOptions::default(),
            )
            .unwrap();
        let target = format!("{object}:price");
        core.platform
            .objects()
            .save(
                &core.who,
                Collection::ValidationConfig,
                json!({"_id": target, "kind": "timeseries", "checks": checks,
                       "options": {"lookback": 50, "maxPoints": 5000}}),
                &SaveOptions::default(),
            )
            .unwrap();
        targets.push(target);
    }
    (core, targets)
}

fn serve_db(path: &Path, key_file: Option<&Path>) {
    let s = sizes();
    let text = path.to_string_lossy();
    let platform = if platform_core::store::postgres::is_url(&text) {
        let key = key_file.expect("serve-db URL KEY_FILE: a PostgreSQL database needs a key file");
        Platform::open_postgres(&text, key, platform_core::store::postgres::DEFAULT_LEASE).unwrap()
    } else {
        Platform::open(path).unwrap()
    };
    let who = platform
        .tenancy()
        .local_principal("bench", "bench")
        .unwrap();
    platform
        .data()
        .save_series(
            &who,
            "BIG",
            "price",
            header(),
            points(0, &w1_values(&s)),
            &SaveOptions::default(),
        )
        .unwrap();
    let core = Core {
        platform,
        who,
        path: path.to_path_buf(),
        _dir: tempfile::tempdir().unwrap(),
        _pg: None,
    };
    load_objects(&core, &corpus::objects(s.objects as u64, 42));
    core.platform.close().unwrap();
    eprintln!("serve database written to {}", path.display());
}

/// The type of the W10 objects and the fields its definition indexes (what W10's filters and
/// sort use).
const W10_TYPE: &str = "Asset";
const W10_INDEXES: [&str; 3] = ["classification", "capacity", "name"];

fn w10_db(path: &Path, n: u64) {
    let started = Instant::now();
    let open = || {
        let platform = Platform::open(path).unwrap();
        let who = platform
            .tenancy()
            .local_principal("bench", "bench")
            .unwrap();
        Core {
            platform,
            who,
            path: path.to_path_buf(),
            _dir: tempfile::tempdir().unwrap(),
            _pg: None,
        }
    };
    let core = open();
    // The corpus object by object (a million at once would take gigabytes as `Value`s), saved
    // as W5 saves them: 1,000 to a save.
    let mut rng = corpus::Rng::new(42);
    let (mut json_bytes, mut chunk) = (0u64, Vec::with_capacity(1000));
    for i in 0..n {
        let mut object = corpus::object(i, &mut rng);
        object["_type"] = json!(W10_TYPE);
        json_bytes += object.to_string().len() as u64;
        chunk.push(object);
        if chunk.len() == 1000 || i + 1 == n {
            load_objects(&core, &std::mem::take(&mut chunk));
        }
    }
    let rows = core.file_size();
    let loaded = started.elapsed().as_secs_f64();
    let core = open();
    core.platform
        .objects()
        .save(
            &core.who,
            Collection::Type,
            json!({"_id": W10_TYPE, "_indexes": W10_INDEXES}),
            &SaveOptions::default(),
        )
        .unwrap();
    let indexed = core.file_size();
    let per = |bytes: u64| bytes as f64 / n.max(1) as f64;
    let line = json!({
        "workload": "W10", "case": "database size per object", "contestant": "platform",
        "objects": n, "json_bytes_per_object": per(json_bytes),
        "bytes_per_object": per(rows), "bytes_per_object_indexed": per(indexed),
        "indexes": W10_INDEXES, "load_s": loaded,
        "index_s": started.elapsed().as_secs_f64() - loaded,
    });
    println!("{line}");
    eprintln!(
        "W10 database of {n} objects written to {} in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
}
