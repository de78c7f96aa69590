//! The series and curve workloads: W1 (write and read a big series, bytes per point), W2
//! (windows of it), W3 (corrections), W4 (many series, curves, a tenor's history).

use crate::contestants::{columns, open_core, open_sqlite, points, Core, Sqlite};
use crate::seeded::{
    correction, correction_start, curve_values, ondate, tenors, w1_values, w4_values, windows,
};
use crate::timing::{emit, on_postgres, paired, repeat, time_ms};
use crate::{runs, Sizes, DAY};
use platform_core::data::model::Point;
use platform_core::data::read::DataQuery;
use platform_core::data::series::Window;
use platform_core::documents::SaveOptions;
use platform_core::ids::Source;
use platform_core::store::Collection;
use serde_json::{json, Value};

/// A read of the plain rusqlite contestant.
pub(crate) type PlainRead<'a> = Box<dyn Fn() -> Vec<(i64, f64)> + 'a>;

pub(crate) fn w1_w2(s: &Sizes, do_w1: bool, do_w2: bool) {
    let values = w1_values(s);
    let n = s.points;
    let case_n = format!("{}k points", n / 1000);
    if do_w1 {
        w1_write(&values, &case_n);
    }
    let core = open_core();
    core.save("BIG", points(0, &values));
    let db = open_sqlite();
    db.write("BIG", 0, &values);
    if do_w1 {
        w1_read(&core, &db, n, &case_n);
    }
    if do_w1 && !on_postgres() {
        w1_bytes(&values);
    }
    if do_w2 {
        w2(s, &core, &db);
    }
}

/// W1 write: a fresh database each run; the points are built outside the timing.
fn w1_write(values: &[f64], case_n: &str) {
    let (ours, plain) = paired(
        runs(),
        || {
            let core = open_core();
            let columns = columns(0, values);
            let (ms, ()) = time_ms(|| core.save_columns("BIG", columns));
            ms
        },
        || {
            let db = open_sqlite();
            time_ms(|| db.write("BIG", 0, values)).0
        },
    );
    let case = format!("write {case_n}");
    emit("W1", &case, "platform", &ours, json!({}));
    emit("W1", &case, "rusqlite", &plain, json!({}));
    // The same write with a value built per observation (the typed `save_series`).
    let points: Vec<f64> = (0..runs())
        .map(|_| {
            let core = open_core();
            let pts = points(0, values);
            time_ms(|| core.save("BIG", pts)).0
        })
        .collect();
    emit("W1", &case, "platform-points", &points, json!({}));
}

/// W1 read: the whole series, as columns and as a value per observation.
fn w1_read(core: &Core, db: &Sqlite, n: usize, case_n: &str) {
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
    let case = format!("read {case_n}");
    emit("W1", &case, "platform", &ours, json!({}));
    emit("W1", &case, "rusqlite", &plain, json!({}));
    // The same read with a value built per observation (the typed `read_points`).
    let mut read_points = repeat(|| {
        let p = core.read_points("BIG:price", Window::All, None);
        assert_eq!(p.len(), n);
        p
    });
    let points: Vec<f64> = (0..runs() * 2).map(|_| read_points()).collect();
    emit("W1", &case, "platform-points", &points, json!({}));
}

/// W1 bytes per point on disk: the file after a checkpoint, and the chunks' own bytes.
fn w1_bytes(values: &[f64]) {
    let n = values.len();
    let empty = open_core();
    empty.save("EMPTY", Vec::new());
    let base = empty.file_size();
    let file = open_core();
    let pts = points(0, values);
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

/// W2: windows of the big series (the last 1,000 points, 10,000 from the middle, the last
/// day).
fn w2(s: &Sizes, core: &Core, db: &Sqlite) {
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

pub(crate) fn w3(s: &Sizes) {
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

pub(crate) fn w4(s: &Sizes) {
    let data: Vec<Vec<f64>> = (0..s.series).map(|i| w4_values(i, s)).collect();
    let ids: Vec<String> = (0..s.series).map(|i| format!("S{i:04}")).collect();
    w4_series_write(s, &ids, &data);
    let core = open_core();
    let db = open_sqlite();
    for (id, v) in ids.iter().zip(&data) {
        core.save(id, points(0, v));
        db.write(id, 0, v);
    }
    w4_series_read(s, &ids, &core, &db);
    let (core, db) = w4_curves_write(s);
    w4_tenor_history(s, &core, &db);
}

/// W4: many series written, one save (one transaction) per series.
fn w4_series_write(s: &Sizes, ids: &[String], data: &[Vec<f64>]) {
    let case = format!("write {} series x {} points", s.series, s.series_points);
    let (ours, plain) = paired(
        runs().min(3),
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
                for (id, v) in ids.iter().zip(data) {
                    db.write(id, 0, v);
                }
            })
            .0
        },
    );
    let extra = json!({"transactions": "one per series"});
    emit("W4", &case, "platform", &ours, extra.clone());
    emit("W4", &case, "rusqlite", &plain, extra);
}

/// W4: all the series in one read (`read_columns_many`: one round trip on PostgreSQL),
/// checked once against the series read one by one.
fn w4_series_read(s: &Sizes, ids: &[String], core: &Core, db: &Sqlite) {
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
}

/// W4: curves written, one save (one transaction) per ondate; the stores of the last run.
fn w4_curves_write(s: &Sizes) -> (Core, Sqlite) {
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
    for _ in 0..runs().min(3) {
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
        plain.push(time_ms(|| write_plain_curves(&db, &codes, &curves)).0);
        stores = Some((core, db));
    }
    let case = format!("write {} curves of 100 tenors", s.curves);
    let extra = json!({"transactions": "one per ondate"});
    emit("W4", &case, "platform", &ours, extra.clone());
    emit("W4", &case, "rusqlite", &plain, extra);
    stores.expect("runs() is at least one")
}

/// The curves written by plain rusqlite: a row per tenor, one transaction per ondate.
fn write_plain_curves(db: &Sqlite, codes: &[String], curves: &[Vec<f64>]) {
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
}

/// W4: a tenor's history (M01 over every ondate).
fn w4_tenor_history(s: &Sizes, core: &Core, db: &Sqlite) {
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
