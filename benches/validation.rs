//! A full validation run: many series of a day of minutes, ten checks each (range, spike,
//! stale, missing, two z-scores, four custom expressions), records stored.
//!
//! Target (issue "Data validation"): 1,000 series of 1,440 points in under 3 s on this machine.
//! - `full_run`: one runMany over every series (a background job, run by the worker's entry
//!   point). The four custom expressions use arithmetic and `if`, which the native path takes.
//! - `full_run_rhai_customs`: the same with the four custom checks made rhai-only (each also
//!   reads `time`), the cost of checks outside the native subset.
//! - `baseline_record_bytes`: plain rusqlite writing as many bytes as the records take, one
//!   transaction per series: the storage floor, measured in the same run.
//! - `one_run_per_series`: one `run` call per series, every record answered in full.
//!
//! Knobs: `PLATFORM_BENCH_VSERIES` (default 1000), `PLATFORM_BENCH_VPOINTS` (default 1440),
//! `PLATFORM_BENCH_PANDERA=0` skips the comparison with pandera.
//! Run: `cargo bench --bench validation`.

#[path = "corpus.rs"]
mod corpus;

use divan::Bencher;
use platform_core::api::{
    validation::RunOutcome, validation::ValidationBatch, validation::ValidationRequest,
};
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
    setup_with(false)
}

/// The four custom checks made rhai-only (they read `time`, which the native path does not
/// have), to show what checks outside the native subset cost.
fn setup_rhai() -> Setup {
    setup_with(true)
}

fn setup_with(rhai_customs: bool) -> Setup {
    let (series, points) = (
        knob("PLATFORM_BENCH_VSERIES", 1000),
        knob("PLATFORM_BENCH_VPOINTS", 1440),
    );
    let dir = tempfile::tempdir().unwrap();
    let platform = Platform::open(dir.path().join("v.db")).unwrap();
    let who = platform
        .tenancy()
        .local_principal("bench", "bench")
        .unwrap();
    let mut rng = corpus::Rng::new(11);
    let mut checks: Value = serde_json::from_str(CHECKS).unwrap();
    if rhai_customs {
        for c in checks.as_array_mut().unwrap().iter_mut().skip(6) {
            let e = c["expression"].as_str().unwrap().to_string();
            c["expression"] = json!(format!("({e}) && time != \"\""));
        }
    }
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
            .data()
            .save_series(&who, &object, "price", header, pts, &SaveOptions::default())
            .unwrap();
        let target = format!("{object}:price");
        platform
            .objects().save(&who, Collection::ValidationConfig, json!({"_id": target, "kind": "timeseries", "checks": checks, "options": {"lookback": 50, "maxPoints": 5000}}), &SaveOptions::default())
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
    if knob("PLATFORM_BENCH_PANDERA", 1) != 0 {
        versus_pandera();
    }
    divan::main();
}

/// The range and change checks over the same series, in the engine (native path) and in
/// pandera when it is installed; prints both medians and the ratio.
fn versus_pandera() {
    let (series, points) = (
        knob("PLATFORM_BENCH_VSERIES", 1000),
        knob("PLATFORM_BENCH_VPOINTS", 1440),
    );
    let has_pandera = std::process::Command::new("python3")
        .args(["-c", "import pandera.pandas"])
        .output()
        .is_ok_and(|o| o.status.success());
    let data = random_walks(series, points);
    let (our_median, our_failures) = engine_median(&data, points);
    eprintln!("range + change checks over {series} series x {points} points: platform engine median {our_median:.4} s ({our_failures} failures)");
    if !has_pandera {
        eprintln!("pandera is not installed (pip install pandera): no comparison");
        return;
    }
    pandera_median(&data, our_median);
}

/// `series` seeded random walks of `points` values.
fn random_walks(series: usize, points: usize) -> Vec<Vec<f64>> {
    let mut rng = corpus::Rng::new(11);
    (0..series)
        .map(|_| {
            let mut v = 100.0 + rng.unit() * 100.0;
            (0..points)
                .map(|_| {
                    v = (v + (rng.unit() - 0.5) * 2.0).max(1.0);
                    v
                })
                .collect()
        })
        .collect()
}

/// The engine's median seconds over five runs of the range and change checks on every point
/// of every series, and the failures it found.
fn engine_median(data: &[Vec<f64>], points: usize) -> (f64, usize) {
    use platform_core::validation::engine::{
        compile, CheckDef, CheckScope, CheckStatus, SeriesInput, Severity,
    };
    let defs = vec![
        CheckDef {
            id: "range".into(),
            name: "range".into(),
            expression: "between(value, 0, 1000)".into(),
            scope: CheckScope::Point,
            severity: Severity::Failed,
        },
        CheckDef {
            id: "change".into(),
            name: "change".into(),
            expression: "abs(pct_change(1)) < 0.5".into(),
            scope: CheckScope::Point,
            severity: Severity::Failed,
        },
    ];
    let checks = compile(&defs, &[]).unwrap();
    let inputs: Vec<SeriesInput> = data
        .iter()
        .map(|values| SeriesInput {
            times: (0..values.len() as i64).map(|i| i * 60_000).collect(),
            values: values.iter().map(|v| Some(*v)).collect(),
            step_ms: Some(60_000),
            ..SeriesInput::default()
        })
        .collect();
    let targets: Vec<usize> = (0..points).collect();
    let mut ours = Vec::new();
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let mut failures = 0usize;
        for input in &inputs {
            let eval = checks.evaluate_series(input, &targets);
            failures += (0..2)
                .map(|c| {
                    (0..targets.len())
                        .filter(|&t| eval.status(c, t) != CheckStatus::Pass)
                        .count()
                })
                .sum::<usize>();
        }
        ours.push((started.elapsed().as_secs_f64(), failures));
    }
    ours.sort_by(|a, b| a.0.total_cmp(&b.0));
    ours[ours.len() / 2]
}

/// Runs the same checks with pandera on the same series and prints its median beside ours.
fn pandera_median(data: &[Vec<f64>], our_median: f64) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("series.csv");
    let mut text = String::from("series,time,value\n");
    for (s, values) in data.iter().enumerate() {
        for (i, v) in values.iter().enumerate() {
            text.push_str(&format!("{s},{},{v}\n", i * 60_000));
        }
    }
    std::fs::write(&csv, text).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/pandera_checks.py");
    let out = std::process::Command::new("python3")
        .args([script, csv.to_str().unwrap(), "5"])
        .output()
        .unwrap();
    let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
    match serde_json::from_str::<Value>(&line) {
        Ok(p) => {
            let theirs = p["median_s"].as_f64().unwrap_or(f64::NAN);
            eprintln!(
                "pandera {} median {theirs:.4} s ({} failures); platform / pandera = {:.3}",
                p["version"],
                p["failures"],
                our_median / theirs
            );
        }
        Err(_) => eprintln!(
            "pandera run failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Every point of every series checked and its record stored: one runMany over all the
/// series from the first day, which goes to a background job, run here by the job worker's
/// own entry point (checks on worker threads, records stored by this one).
#[divan::bench(sample_count = 3, sample_size = 1)]
fn full_run(b: Bencher) {
    b.with_inputs(setup).bench_local_values(|s| {
        let queued = s
            .platform
            .validation()
            .run_batch(
                &s.who,
                &ValidationBatch::from_body(&json!({"targets": s.targets, "from": "2024-01-01"}))
                    .unwrap(),
            )
            .unwrap();
        assert!(queued.background, "{queued:?}");
        assert!(s.platform.jobs().run_next().unwrap());
        let jobs = s.platform.jobs().jobs(&s.who).unwrap();
        let result = jobs[0].result.as_ref().expect("the job's result");
        let records: u64 = result["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["points"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(
            records as usize,
            s.targets.len() * s.points,
            "{:?}",
            jobs[0]
        );
        records
    });
}

/// The storage floor of [`full_run`], measured in the same run: plain rusqlite writing what the
/// records of one series take (1,440 x 40 bytes) once per series, one transaction each, into
/// a database set up like the platform's (WAL, synchronous NORMAL, 8 KiB pages).
#[divan::bench(sample_count = 3, sample_size = 1)]
fn baseline_record_bytes(b: Bencher) {
    let (series, points) = (
        knob("PLATFORM_BENCH_VSERIES", 1000),
        knob("PLATFORM_BENCH_VPOINTS", 1440),
    );
    b.with_inputs(|| {
        let dir = tempfile::tempdir().unwrap();
        let conn = rusqlite::Connection::open(dir.path().join("b.db")).unwrap();
        conn.execute_batch(
            "PRAGMA page_size = 8192; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
             CREATE TABLE c (rid INTEGER PRIMARY KEY, target TEXT, seq INTEGER, body BLOB,
                             UNIQUE (target, seq));",
        )
        .unwrap();
        let mut rng = corpus::Rng::new(3);
        let body: Vec<u8> = (0..points * 40)
            .map(|_| (rng.unit() * 255.0) as u8)
            .collect();
        (dir, conn, body)
    })
    .bench_local_values(|(_dir, mut conn, body)| {
        for s in 0..series {
            let tx = conn.transaction().unwrap();
            tx.execute(
                "INSERT INTO c (target, seq, body) VALUES (?1, ?2, ?3)",
                rusqlite::params![format!("S{s:04}:price"), 0, body],
            )
            .unwrap();
            tx.commit().unwrap();
        }
        series
    });
}

/// [`full_run`] with the four custom checks on the rhai path.
#[divan::bench(sample_count = 1, sample_size = 1)]
fn full_run_rhai_customs(b: Bencher) {
    b.with_inputs(setup_rhai).bench_local_values(|s| {
        s.platform
            .validation()
            .run_batch(
                &s.who,
                &ValidationBatch::from_body(&json!({"targets": s.targets, "from": "2024-01-01"}))
                    .unwrap(),
            )
            .unwrap();
        assert!(s.platform.jobs().run_next().unwrap());
        let jobs = s.platform.jobs().jobs(&s.who).unwrap();
        assert_eq!(jobs[0].status.as_str(), "done", "{}", jobs[0].message);
        jobs.len()
    });
}

/// The same series one `run` call each (the interactive path: every record answered in full).
#[divan::bench(sample_count = 1, sample_size = 1)]
fn one_run_per_series(b: Bencher) {
    b.with_inputs(setup).bench_local_values(|s| {
        let mut records = 0u64;
        for t in &s.targets {
            let req =
                ValidationRequest::from_body(&json!({"target": t, "from": "2024-01-01"})).unwrap();
            let out = s.platform.validation().run(&s.who, &req).unwrap();
            records += out.done().map_or(0, |r| r.records);
        }
        assert_eq!(records as usize, s.targets.len() * s.points);
        records
    });
}

/// Where the time of one series' run goes (scripts, read, checks, save), printed once.
#[divan::bench(sample_count = 1, sample_size = 1)]
fn timings_of_one_series(b: Bencher) {
    b.with_inputs(setup).bench_local_values(|s| {
        let req =
            ValidationRequest::from_body(&json!({"target": s.targets[0], "from": "2024-01-01"}))
                .unwrap();
        let out = s.platform.validation().run(&s.who, &req).unwrap();
        if let RunOutcome::Done(r) = &out {
            eprintln!(
                "timings of one series of {} points (ms): {}",
                s.points,
                serde_json::to_string(&r.timings).unwrap_or_default()
            );
        }
        out
    });
}
