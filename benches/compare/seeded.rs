//! The seeded corpus every contestant reads, and `dump`, which writes it for the peers.

use crate::{corpus, sizes, Sizes, DAY, MINUTE, T0};
use serde_json::json;
use std::io::Write as _;
use std::path::Path;

/// `n` values of a seeded random walk.
pub(crate) fn walk(n: usize, seed: u64) -> Vec<f64> {
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
pub(crate) fn w1_values(s: &Sizes) -> Vec<f64> {
    walk(s.points, 1)
}

/// W3: correction `k` covers the day starting at point `k * 6 * DAY` (every sixth day).
pub(crate) fn correction_start(k: usize, s: &Sizes) -> usize {
    (k * 6 * DAY) % (s.points - DAY)
}

pub(crate) fn correction(k: usize) -> Vec<f64> {
    walk(DAY, 500 + k as u64)
        .into_iter()
        .map(|v| v + 1000.0)
        .collect()
}

pub(crate) fn w4_values(i: usize, s: &Sizes) -> Vec<f64> {
    walk(s.series_points, 1000 + i as u64)
}

pub(crate) fn tenors() -> Vec<String> {
    let mut out = Vec::with_capacity(100);
    for (unit, count) in [("M", 36), ("Q", 12), ("Y", 5), ("W", 20), ("D", 27)] {
        out.extend((1..=count).map(|i| format!("{unit}{i:02}")));
    }
    out
}

pub(crate) fn ondate(i: usize) -> String {
    let first = chrono::NaiveDate::from_ymd_opt(2021, 1, 1).unwrap();
    (first + chrono::Days::new(i as u64))
        .format("%Y-%m-%d")
        .to_string()
}

pub(crate) fn curve_values(s: &Sizes) -> Vec<Vec<f64>> {
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
pub(crate) fn w7_values(s: &Sizes) -> Vec<Vec<f64>> {
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

pub(crate) const W7_START: i64 = 1_719_999_960_000;

pub(crate) fn ms_text(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string()
}

/// The W2 windows: `between` (10,000 points from the middle) and `from` (the last day).
pub(crate) fn windows(s: &Sizes) -> ((i64, i64), i64) {
    let start = T0 + (s.points as i64 / 2 + 1_234) * MINUTE;
    let last_day = T0 + (s.points - DAY) as i64 * MINUTE;
    ((start, start + 10_000 * MINUTE), last_day)
}

pub(crate) fn write_f64s(path: &Path, values: impl IntoIterator<Item = f64>) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for v in values {
        out.write_all(&v.to_le_bytes()).unwrap();
    }
    out.flush().unwrap();
}

pub(crate) fn dump(dir: &Path) {
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
    crate::shaping::dump(dir, &s);
    eprintln!("corpus written to {}", dir.display());
}
