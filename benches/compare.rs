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
//! - `w13 N`: W13, what an object costs on disk: `N` small objects (about 160 B of JSON) of
//!   one type with three declared indexes, in a new database of the backend measured
//!   (`PLATFORM_COMPARE_BACKEND=postgres` with `PLATFORM_TEST_PG` for PostgreSQL). Prints one
//!   JSON line: bytes per object next to the object's JSON size.
//!
//! Knobs: `PLATFORM_COMPARE_RUNS` (runs of the heavy cases, default 5), `PLATFORM_COMPARE_SCALE`
//! (divides every corpus size, default 1, for quick trials).

#[path = "compare/checks.rs"]
mod checks;
#[path = "compare/contestants.rs"]
mod contestants;
#[path = "corpus.rs"]
mod corpus;
#[path = "compare/databases.rs"]
mod databases;
#[path = "compare/disk.rs"]
mod disk;
#[path = "compare/objects.rs"]
mod objects;
#[path = "compare/seeded.rs"]
mod seeded;
#[path = "compare/series.rs"]
mod series;
#[path = "compare/shaping.rs"]
mod shaping;
#[path = "compare/timing.rs"]
mod timing;

use checks::w7;
use contestants::open_core;
use databases::{serve_db, w10_db};
use objects::w5;
use seeded::dump;
use series::{w1_w2, w3, w4};
use std::path::Path;
use timing::{emit, time_ms};

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
        Some("w13") => disk::w13(
            args[1]
                .parse()
                .expect("w13 N: N is a number of objects"),
        ),
        _ => eprintln!(
            "usage: compare dump DIR | serve-db FILE|URL [KEY_FILE] | measure [W1 W2 W3 W4 W5 W7 W12] \
             | w10-db FILE N | w13 N"
        ),
    }
}

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
