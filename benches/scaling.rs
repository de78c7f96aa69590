//! Scaling on read next to pandas: one year of hourly Berlin prices (2024, 8,784 hours with
//! both clock changes) scaled to daily peak averages (`_calendar=DAILY&_observed=averaged&
//! _block=PEAK`: Monday to Friday 08:00-20:00 local), and the same with pandas in the same run
//! (`tz_convert`, a weekday and hour mask, `resample("D").mean()`).
//!
//! Both sides time only the scaling of data already in memory (no storage, no JSON): ours is
//! `Scaling::apply` on the decoded points, pandas' the mask and resample on a tz-aware
//! `Series`. Each side takes the median of `SCALING_RUNS` runs (default 51); both answers are
//! compared (same days, values within 1e-9) before the figures are printed.
//!
//! Run: `cargo bench --bench scaling`. Python is `PLATFORM_PYTHON`, else the venv of
//! `benches/compare/run` (`benches/compare/.venv`), else `python3`; without pandas the peer is
//! skipped with a line saying so.

use chrono::{Datelike, TimeZone, Timelike, Utc};
use platform_core::data::calendar::Calendar;
use platform_core::data::model::{Point, PointValue};
use platform_core::data::scale::Scaling;
use std::process::Command;
use std::time::Instant;

const PEER: &str = r#"
import json, sys, time
import numpy as np, pandas as pd
runs = int(sys.argv[1])
start = pd.Timestamp("2024-01-01T00:00:00", tz="Europe/Berlin").tz_convert("UTC")
idx = pd.date_range(start, periods=int(sys.argv[2]), freq="h", tz="UTC")
vals = np.array([float(x) for x in sys.argv[3].split(",")])
s = pd.Series(vals, index=idx)
def scale(s):
    local = s.tz_convert("Europe/Berlin")
    i = local.index
    peak = local[(i.dayofweek < 5) & (i.hour >= 8) & (i.hour < 20)]
    return peak.resample("D").mean().dropna()
out = scale(s)
times = []
for _ in range(runs):
    t = time.perf_counter()
    scale(s)
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_s": times[len(times) // 2], "pandas": pd.__version__,
                  "days": [d.strftime("%Y-%m-%d") for d in out.index], "values": list(out.values)}))
"#;

fn python() -> String {
    if let Ok(p) = std::env::var("PLATFORM_PYTHON") {
        return p;
    }
    let venv = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/compare/.venv/bin/python"
    );
    if std::path::Path::new(venv).exists() {
        return venv.into();
    }
    "python3".into()
}

fn main() {
    let runs: usize = std::env::var("SCALING_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(51);
    let tz = chrono_tz::Europe::Berlin;
    let (first, values) = hourly_2024(tz);
    let hours = values.len();
    let points: Vec<Point> = values
        .iter()
        .enumerate()
        .map(|(i, v)| Point::num(first + i as i64 * 3_600_000, *v))
        .collect();
    let (ours, our_median) = measure(&points, tz, runs);
    println!(
        "scaling: {hours} hourly points of 2024 (Europe/Berlin) to {} daily peak averages, {runs} runs",
        ours.len()
    );
    println!("platform  median {:>9.3} ms", our_median * 1e3);
    let Some(answer) = run_peer(runs, &values) else {
        return;
    };
    check_same(&ours, &answer, tz);
    let peer_median = answer["median_s"].as_f64().unwrap();
    println!(
        "pandas {} median {:>9.3} ms",
        answer["pandas"].as_str().unwrap_or("?"),
        peer_median * 1e3
    );
    println!(
        "ratio platform / pandas: {:.3} (below 1: the platform is faster)",
        our_median / peer_median
    );
}

/// The first instant of 2024 in `tz` (UTC ms) and a seeded price for each hour of the year.
fn hourly_2024(tz: chrono_tz::Tz) -> (i64, Vec<f64>) {
    let first = tz
        .with_ymd_and_hms(2024, 1, 1, 0, 0, 0)
        .unwrap()
        .with_timezone(&Utc)
        .timestamp_millis();
    let last = tz
        .with_ymd_and_hms(2025, 1, 1, 0, 0, 0)
        .unwrap()
        .with_timezone(&Utc)
        .timestamp_millis();
    let hours = ((last - first) / 3_600_000) as usize;
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let values = (0..hours)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Quarter-euro steps keep the text form exact for the peer.
            60.0 + (i % 24) as f64 + (state % 400) as f64 / 4.0
        })
        .collect();
    (first, values)
}

/// The daily peak averages of the points, and the median seconds of `runs` scalings.
fn measure(points: &[Point], tz: chrono_tz::Tz, runs: usize) -> (Vec<Point>, f64) {
    let scaling = Scaling::from_params(Some("DAILY"), Some("averaged"), None, Some("PEAK"))
        .unwrap()
        .unwrap();
    let ours = scaling.apply(points, Calendar::Intraday(3600), tz).unwrap();
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let out = scaling.apply(points, Calendar::Intraday(3600), tz).unwrap();
        samples.push(t.elapsed().as_secs_f64());
        assert_eq!(out.len(), ours.len());
    }
    samples.sort_by(f64::total_cmp);
    let median = samples[samples.len() / 2];
    (ours, median)
}

/// The peer's answer (its days, values and median), or `None` when it cannot run (said why).
fn run_peer(runs: usize, values: &[f64]) -> Option<serde_json::Value> {
    let text: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    let peer = Command::new(python())
        .args([
            "-c",
            PEER,
            &runs.to_string(),
            &values.len().to_string(),
            &text.join(","),
        ])
        .output();
    match peer {
        Ok(o) if o.status.success() => Some(serde_json::from_slice(&o.stdout).unwrap()),
        Ok(o) => {
            println!(
                "pandas    SKIPPED: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            None
        }
        Err(e) => {
            println!("pandas    SKIPPED: {e}");
            None
        }
    }
}

/// The same days and values on both sides.
fn check_same(ours: &[Point], answer: &serde_json::Value, tz: chrono_tz::Tz) {
    let days: Vec<String> = ours
        .iter()
        .map(|p| {
            let d = Utc.timestamp_millis_opt(p.t).unwrap().with_timezone(&tz);
            assert_eq!(d.hour(), 0);
            format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day())
        })
        .collect();
    let theirs: Vec<&str> = answer["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert_eq!(days, theirs, "the same days");
    for (p, v) in ours.iter().zip(answer["values"].as_array().unwrap()) {
        let PointValue::Num(x) = p.v else {
            panic!("a number")
        };
        assert!((x - v.as_f64().unwrap()).abs() < 1e-9, "{x} vs {v}");
    }
}
