//! A full validation run: many series of a day of minutes, ten checks each (range, spike,
//! stale, missing, two z-scores, four custom rhai expressions), records stored.
//!
//! Target (issue "Data validation"): 1,000 series of 1,440 points in under 3 s on this machine.
//! Knobs: `PLATFORM_BENCH_VSERIES` (default 1000), `PLATFORM_BENCH_VPOINTS` (default 1440).
//! Run: `cargo bench --bench validation`.

#[path = "corpus.rs"]
mod corpus;

use divan::Bencher;
use platform_core::auth::Principal;
use platform_core::data::model::Point;
use platform_core::documents::SaveOptions;
use platform_core::store::Collection;
use platform_core::Platform;
use serde_json::{json, Map, Value};

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
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

struct Setup {
    platform: Platform,
    who: Principal,
    targets: Vec<String>,
    points: usize,
    _dir: tempfile::TempDir,
}

fn setup() -> Setup {
    let (series, points) = (
        knob("PLATFORM_BENCH_VSERIES", 1000),
        knob("PLATFORM_BENCH_VPOINTS", 1440),
    );
    let dir = tempfile::tempdir().unwrap();
    let platform = Platform::open(&dir.path().join("v.db")).unwrap();
    let who = platform.local_principal("bench", "bench").unwrap();
    let mut rng = corpus::Rng::new(11);
    let checks: Value = serde_json::from_str(CHECKS).unwrap();
    let mut targets = Vec::with_capacity(series);
    for s in 0..series {
        let object = format!("S{s:04}");
        let mut header = Map::new();
        header.insert("calendar".into(), json!("#PT1M"));
        let mut v = 100.0 + rng.unit() * 100.0;
        let pts: Vec<Point> = (0..points as i64)
            .map(|i| {
                v = (v + (rng.unit() - 0.5) * 2.0).max(1.0);
                Point::num(1_719_999_960_000 + i * 60_000, v)
            })
            .collect();
        platform
            .save_series(&who, &object, "price", header, pts, &SaveOptions::default())
            .unwrap();
        let target = format!("{object}:price");
        platform
            .save(&who, Collection::ValidationConfig, json!({"_id": target, "kind": "timeseries", "checks": checks, "options": {"lookback": 50, "maxPoints": 5000}}), &SaveOptions::default())
            .unwrap();
        targets.push(target);
    }
    Setup {
        platform,
        who,
        targets,
        points,
        _dir: dir,
    }
}

fn main() {
    divan::main();
}

/// Every point of every series checked and its record stored.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn full_run(b: Bencher) {
    b.with_inputs(setup).bench_local_values(|s| {
        let mut records = 0u64;
        for t in &s.targets {
            let out = s
                .platform
                .validation_run(
                    &s.who,
                    &json!({"target": t, "from": "2024-01-01"}),
                    false,
                    "manual",
                )
                .unwrap();
            records += out["records"].as_u64().unwrap_or(0);
        }
        assert_eq!(records as usize, s.targets.len() * s.points);
        records
    });
}

/// Where the time of one series' run goes (scripts, read, checks, save), printed once.
#[divan::bench(sample_count = 1, sample_size = 1)]
fn timings_of_one_series(b: Bencher) {
    b.with_inputs(setup).bench_local_values(|s| {
        let out = s
            .platform
            .validation_run(
                &s.who,
                &json!({"target": s.targets[0], "from": "2024-01-01"}),
                false,
                "manual",
            )
            .unwrap();
        eprintln!(
            "timings of one series of {} points (ms): {}",
            s.points, out["timings"]
        );
        out
    });
}
