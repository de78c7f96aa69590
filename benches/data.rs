//! Time-series and curve storage in core, each next to the same work on plain rusqlite in the
//! same run (the baseline: what SQLite alone does).
//!
//! The series baseline is a table of blobs of up to 10,000 `(i64 time, f64 value)` little-endian
//! pairs, keyed by (series, first time), written in one transaction; reading it selects the blobs
//! and decodes them into a `Vec<(i64, f64)>`. The curve baseline is a table
//! `(ondate TEXT, tenor TEXT, value REAL)` with an index on `(tenor, ondate)`.
//! Both baselines use WAL and `synchronous=NORMAL`, as the core does.
//!
//! Series are one-minute (`calendar: "#PT1M"`, UTC) numeric points from 2020-01-01, values a
//! seeded random walk (`corpus::Rng`), the same on every run.
//!
//! What each bench measures, with the targets (issue text, 2-core machine, in core):
//!
//! - `series_1m::*_write`: one series of `PLATFORM_BENCH_POINTS` points written in one save
//!   (`Platform::save_series`) into a fresh database; the database, principal and points are
//!   prepared outside the timing. Target < 150 ms.
//! - `series_1m::*_read_all`: all of them (`Window::All`). Target < 40 ms.
//! - `series_1m::*_last_1000`: `Window::Last(1000)`. Target < 1 ms.
//! - `series_1m::*_between_10000`: a 10,000-point `Window::Between` in the middle. Target < 3 ms.
//! - `series_1m::*_append_1440`: 1,440 points after the end of the series, saved as a new
//!   version (each sample appends the next day; the baseline inserts one new blob). Target < 5 ms.
//!   Before the benches run, the growth of the database file (`.db` plus `-wal`, measured after
//!   `Platform::close`, which checkpoints) per append is printed for `PLATFORM_BENCH_APPENDS`
//!   appends of 1,440 points, next to the encoded size of what was appended: it should be about
//!   the size of the append, not of the series.
//! - `series_1m::core_read_{current,version_1}`: after those appends, reading the current version
//!   vs. the first one (`read_series(.., Some(1))`): they should cost about the same (compare
//!   with `baseline_read_all`; the baseline has no versions).
//! - `many_series::*_write`: `PLATFORM_BENCH_SERIES` series of `PLATFORM_BENCH_SERIES_POINTS`
//!   points, one object per series (`S0000:price`...), written with one `save_series` call
//!   (one transaction) per series, what a program loading series does; the baseline writes
//!   one blob per series in one transaction. Target < 600 ms.
//! - `many_series::*_read_all`: every point of every series, one `read_series` (one query) per
//!   series. Target < 150 ms.
//! - `curves::*_tenor_m01`: the history of tenor `M01` (`read_data` with `tenor=M01`) over
//!   `PLATFORM_BENCH_CURVES` ondates of a 100-tenor curve (M01-M36, Q01-Q12, Y01-Y05, W01-W20,
//!   D01-D27), each ondate saved by one `Platform::save` of the object with a `VarCurve`
//!   property; the baseline is `SELECT ondate, value FROM t WHERE tenor = 'M01' ORDER BY
//!   ondate`. Target < 20 ms.
//!
//! Knobs (environment): `PLATFORM_BENCH_POINTS` (default 1000000), `PLATFORM_BENCH_APPENDS`
//! (20), `PLATFORM_BENCH_SERIES` (1000), `PLATFORM_BENCH_SERIES_POINTS` (1000),
//! `PLATFORM_BENCH_CURVES` (1000). Expensive fixtures are built once, outside the timings: all
//! before the benches run, or on first use when a filter is given. Run:
//! `cargo bench --bench data` (divan prints the medians; filter with a name, e.g.
//! `cargo bench --bench data -- curves`).

#[path = "data/contestants.rs"]
mod contestants;
#[path = "corpus.rs"]
mod corpus;
#[path = "data/fixtures.rs"]
mod fixtures;

use divan::Bencher;
use platform_core::data::model::Point;
use platform_core::data::read::DataQuery;
use platform_core::data::series::Window;
use platform_core::ids::Source;
use std::sync::atomic::Ordering;

/// 2020-01-01T00:00:00Z in milliseconds.
const T0: i64 = 1_577_836_800_000;
/// One minute in milliseconds.
const MINUTE: i64 = 60_000;
/// Points per baseline blob.
const BLOB_POINTS: usize = 10_000;
/// Points per append (one day of minutes).
const APPEND: usize = 1_440;
/// Points read by the `between` benches.
const BETWEEN: i64 = 10_000;

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn n_points() -> usize {
    knob("PLATFORM_BENCH_POINTS", 1_000_000)
}

fn main() {
    // Build the fixtures before divan prints its table, unless a filter picks some benches (then
    // each fixture is built on first use).
    if !std::env::args().skip(1).any(|a| !a.starts_with('-')) {
        big();
        versions();
        appending();
        many();
        curves();
    }
    divan::main();
}

use contestants::{open_baseline, open_core, points, walk};
use fixtures::{appending, big, curves, many, many_data, many_ids, versions};

// ---------------------------------------------------------------------------------------------
// Benches

mod series_1m {
    use super::*;

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn core_write(b: Bencher) {
        let n = n_points();
        b.with_inputs(|| (open_core(), points(&walk(0, n, 1))))
            .bench_local_values(|(core, pts)| {
                core.save("BIG", pts);
                core
            });
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn baseline_write(b: Bencher) {
        let n = n_points();
        b.with_inputs(|| (open_baseline(), vec![("BIG".to_string(), walk(0, n, 1))]))
            .bench_local_values(|(base, data)| {
                base.write(&data);
                base
            });
    }

    #[divan::bench(sample_count = 20)]
    fn core_read_all(b: Bencher) {
        let f = big();
        b.bench(|| {
            let pts = f.core.read("BIG:price", Window::All, None);
            assert_eq!(pts.len(), f.n);
            pts
        });
    }

    #[divan::bench(sample_count = 20)]
    fn baseline_read_all(b: Bencher) {
        let f = big();
        let base = f.baseline.lock().unwrap();
        b.bench_local(|| {
            let pts = base.read_all("BIG");
            assert_eq!(pts.len(), f.n);
            pts
        });
    }

    #[divan::bench]
    fn core_last_1000(b: Bencher) {
        let f = big();
        b.bench(|| {
            let pts = f.core.read("BIG:price", Window::Last(1000), None);
            assert_eq!(pts.len(), 1000);
            pts
        });
    }

    #[divan::bench]
    fn baseline_last_1000(b: Bencher) {
        let f = big();
        let base = f.baseline.lock().unwrap();
        b.bench_local(|| {
            let pts = base.last("BIG", 1000);
            assert_eq!(pts.len(), 1000);
            pts
        });
    }

    /// A window of `BETWEEN` points starting in the middle of the series, not on a chunk or
    /// blob boundary.
    fn window(n: usize) -> (i64, i64) {
        let start = T0 + (n as i64 / 2 + 1_234) * MINUTE;
        (start, start + BETWEEN * MINUTE)
    }

    #[divan::bench]
    fn core_between_10000(b: Bencher) {
        let f = big();
        let (start, end) = window(f.n);
        b.bench(|| {
            let pts = f
                .core
                .read("BIG:price", Window::Between(Some(start), Some(end)), None);
            assert_eq!(pts.len() as i64, BETWEEN);
            pts
        });
    }

    #[divan::bench]
    fn baseline_between_10000(b: Bencher) {
        let f = big();
        let (start, end) = window(f.n);
        let base = f.baseline.lock().unwrap();
        b.bench_local(|| {
            let pts = base.between("BIG", start, end);
            assert_eq!(pts.len() as i64, BETWEEN);
            pts
        });
    }

    /// The `_range` of [`window`] as the HTTP interface takes it.
    fn between_query(n: usize) -> DataQuery {
        let (start, end) = window(n);
        let text = |ms: i64| {
            chrono::DateTime::from_timestamp_millis(ms)
                .unwrap()
                .format("%Y-%m-%dT%H:%M")
                .to_string()
        };
        // Minutes name their minute: the window runs to the end of the last one.
        let range = format!("between({},{})", text(start), text(end - MINUTE));
        DataQuery::from_params(&platform_core::query::Params::new(vec![(
            "_range".to_string(),
            range,
        )]))
        .unwrap()
    }

    /// The JSON answer of a 10,000-point read as a JSON tree printed (how answers were made).
    #[divan::bench]
    fn json_between_10000_tree(b: Bencher) {
        let f = big();
        let q = between_query(f.n);
        b.bench(|| {
            let item = f
                .core
                .platform
                .data()
                .read(&f.core.who, Source::Private, "BIG:price", &q)
                .unwrap();
            let text = item.to_string();
            assert!(text.len() > 10_000 * 30);
            text
        });
    }

    /// The same answer written straight from the points (what the server sends now).
    #[divan::bench]
    fn json_between_10000_direct(b: Bencher) {
        let f = big();
        let q = between_query(f.n);
        b.bench(|| {
            let bytes = f
                .core
                .platform
                .data()
                .read_json_bytes(&f.core.who, Source::Private, "BIG:price", &q)
                .unwrap()
                .bytes;
            assert!(bytes.len() > 10_000 * 30);
            bytes
        });
    }

    #[divan::bench(sample_count = 30, sample_size = 1)]
    fn core_append_1440(b: Bencher) {
        let f = appending();
        b.with_inputs(|| {
            let first = f.next_core.fetch_add(APPEND as i64, Ordering::Relaxed) as usize;
            points(&walk(first, APPEND, first as u64))
        })
        .bench_local_values(|pts| f.core.save("BIG", pts));
    }

    #[divan::bench(sample_count = 30, sample_size = 1)]
    fn baseline_append_1440(b: Bencher) {
        let f = appending();
        let base = f.baseline.lock().unwrap();
        b.with_inputs(|| {
            let first = f.next_baseline.fetch_add(APPEND as i64, Ordering::Relaxed) as usize;
            vec![("BIG".to_string(), walk(first, APPEND, first as u64))]
        })
        .bench_local_values(|data| base.write(&data));
    }

    #[divan::bench(sample_count = 20)]
    fn core_read_current(b: Bencher) {
        let f = versions();
        b.bench(|| {
            let pts = f.core.read("BIG:price", Window::All, None);
            assert_eq!(pts.len(), n_points() + f.appends * APPEND);
            pts
        });
    }

    #[divan::bench(sample_count = 20)]
    fn core_read_version_1(b: Bencher) {
        let f = versions();
        b.bench(|| {
            let pts = f.core.read("BIG:price", Window::All, Some(1));
            assert_eq!(pts.len(), n_points());
            pts
        });
    }
}

mod many_series {
    use super::*;

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn core_write(b: Bencher) {
        let ids = many_ids();
        b.with_inputs(|| {
            let data: Vec<(String, Vec<Point>)> = many_data(&ids)
                .into_iter()
                .map(|(id, pts)| (id, points(&pts)))
                .collect();
            (open_core(), data)
        })
        .bench_local_values(|(core, data)| {
            for (id, pts) in data {
                core.save(&id, pts);
            }
            core
        });
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn baseline_write(b: Bencher) {
        let ids = many_ids();
        b.with_inputs(|| (open_baseline(), many_data(&ids)))
            .bench_local_values(|(base, data)| {
                base.write(&data);
                base
            });
    }

    #[divan::bench(sample_count = 20)]
    fn core_read_all(b: Bencher) {
        let f = many();
        let ids: Vec<String> = f.ids.iter().map(|id| format!("{id}:price")).collect();
        b.bench(|| {
            ids.iter()
                .map(|id| f.core.read(id, Window::All, None))
                .collect::<Vec<_>>()
        });
    }

    #[divan::bench(sample_count = 20)]
    fn baseline_read_all(b: Bencher) {
        let f = many();
        let base = f.baseline.lock().unwrap();
        b.bench_local(|| f.ids.iter().map(|id| base.read_all(id)).collect::<Vec<_>>());
    }
}

mod curves {
    use super::*;

    #[divan::bench(sample_count = 30)]
    fn core_tenor_m01(b: Bencher) {
        let f = curves();
        let q = DataQuery {
            tenor: Some("M01".into()),
            ..Default::default()
        };
        b.bench(|| {
            let item = f
                .core
                .platform
                .data()
                .read(&f.core.who, Source::Private, "CURVE:fwd", &q)
                .unwrap();
            assert_eq!(item["data"].as_array().map(Vec::len), Some(f.n));
            item
        });
    }

    #[divan::bench(sample_count = 30)]
    fn baseline_tenor_m01(b: Bencher) {
        let f = curves();
        let base = f.baseline.lock().unwrap();
        let mut stmt = base
            .conn
            .prepare("SELECT ondate, value FROM curve WHERE tenor = 'M01' ORDER BY ondate")
            .unwrap();
        b.bench_local(|| {
            let rows: Vec<(String, f64)> = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert_eq!(rows.len(), f.n);
            rows
        });
    }
}

/// Point times as text, which every rendered observation needs: the platform's writer next to
/// chrono's formatting (the baseline) over a day of minutes.
mod render {
    use divan::Bencher;
    use platform_core::data::calendar::{format_time, parse_zone, Calendar};

    const DAY: i64 = 1_719_792_000_000;

    #[divan::bench]
    fn core_time_text(b: Bencher) {
        let utc = parse_zone(None).unwrap();
        b.bench(|| {
            (0..1440)
                .map(|i| format_time(DAY + i * 60_000, Calendar::Sparse, utc).len())
                .sum::<usize>()
        });
    }

    #[divan::bench]
    fn baseline_chrono_time_text(b: Bencher) {
        b.bench(|| {
            (0..1440)
                .map(|i| {
                    chrono::DateTime::from_timestamp_millis(DAY + i * 60_000)
                        .unwrap()
                        .format("%Y-%m-%dT%H:%M:%SZ")
                        .to_string()
                        .len()
                })
                .sum::<usize>()
        });
    }
}
