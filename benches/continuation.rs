//! The continuation-series workload of `benches/compare/run`: a forward curve of 24 monthly
//! contracts on each of 1,000 business-day ondates (expiries of `#REOMHENG`), read as the
//! continuation series `_continuation=M01` (rolling the day after each front contract's
//! expiry) through the core, beside the same computed with pandas by
//! `benches/compare/continuation_peer.py`, which checks both answers are equal.
//!
//! Usage: `cargo bench --bench continuation -- DIR RUNS`. Writes `DIR/curves.csv` (every
//! contract of every ondate as the platform stored it: `ondate,absolute,start,expiry,value`),
//! `DIR/ours.csv` (the platform's series: `time,absolute,value`), and prints one JSON line in
//! the format of `benches/compare.rs`. Building and saving the curves is not timed.

use chrono::{Datelike, NaiveDate, Weekday};
use platform_core::auth::Principal;
use platform_core::data::continuation::{Continuation, Roll};
use platform_core::data::read::DataQuery;
use platform_core::documents::SaveOptions;
use platform_core::ids::Source;
use platform_core::Platform;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// Ondates of the curve.
const ONDATES: usize = 1_000;
/// Monthly contracts on each ondate (M01..M24).
const CONTRACTS: u32 = 24;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let (Some(dir), Some(runs)) = (
        args.first(),
        args.get(1).and_then(|r| r.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: continuation DIR RUNS");
        std::process::exit(2);
    };
    let dir = Path::new(dir);
    std::fs::create_dir_all(dir).unwrap();
    let db = dir.join("continuation.db");
    for suffix in ["", "-wal", "-shm", ".key"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let platform = Platform::open(&db).unwrap();
    let who = platform
        .tenancy()
        .local_principal("bench", "bench")
        .unwrap();
    let ondates = business_days(ONDATES);
    save_curves(&platform, &who, &ondates);
    std::fs::write(dir.join("curves.csv"), corpus(&platform, &who, &ondates)).unwrap();
    let (samples, answer) = measure(&platform, &who, runs);
    let points = answer["data"].as_array().unwrap();
    std::fs::write(dir.join("ours.csv"), series_csv(points)).unwrap();
    let mut sorted = samples.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    println!(
        "{}",
        json!({
            "workload": "continuation",
            "case": format!("M01 continuation (expiry roll) over {ONDATES} ondates x {CONTRACTS} contracts"),
            "contestant": "platform", "median_ms": median, "runs": samples.len(),
            "samples_ms": samples.iter().map(|x| (x * 1e4).round() / 1e4).collect::<Vec<_>>(),
            "points": points.len(),
        })
    );
}

/// The first `n` business days (weekdays) from 2020-01-01.
fn business_days(n: usize) -> Vec<NaiveDate> {
    let mut ondates = Vec::with_capacity(n);
    let mut d = NaiveDate::from_ymd_opt(2020, 1, 1).unwrap();
    while ondates.len() < n {
        if !matches!(d.weekday(), Weekday::Sat | Weekday::Sun) {
            ondates.push(d);
        }
        d = d.succ_opt().unwrap();
    }
    ondates
}

/// Saves the curve of every ondate (M01..M24, expiries of `#REOMHENG`); each contract's price
/// moves with the ondate.
fn save_curves(platform: &Platform, who: &Principal, ondates: &[NaiveDate]) {
    let curves: Vec<Map<String, Value>> = ondates
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let contracts: Vec<Value> = (1..=CONTRACTS)
                .map(|m| {
                    let value = 20.0 + ((i * 31 + m as usize * 7) % 997) as f64 / 10.0;
                    json!({"tenor": format!("M{m:02}"), "value": value})
                })
                .collect();
            let Value::Object(curve) = json!({
                "ondate": {"curveDate": d.format("%Y-%m-%d").to_string(), "expiryCalendar": "#REOMHENG"},
                "contracts": contracts,
            }) else {
                unreachable!("a json! object literal is an object")
            };
            curve
        })
        .collect();
    let mut header = Map::new();
    header.insert("_type".into(), Value::String("VarCurve".into()));
    platform
        .data()
        .save_curves(who, "BENCH", "FWD", header, curves, &SaveOptions::default())
        .unwrap();
}

/// The corpus the peer reads: the contracts as stored, with their computed expiries.
fn corpus(platform: &Platform, who: &Principal, ondates: &[NaiveDate]) -> String {
    let mut corpus = String::from("ondate,absolute,start,expiry,value\n");
    for d in ondates {
        let id = format!("BENCH:FWD:{}", d.format("%Y-%m-%d"));
        let curve = platform
            .data()
            .read(who, Source::Private, &id, &DataQuery::default())
            .unwrap();
        for c in curve["contracts"].as_array().unwrap() {
            let p = &c["properties"];
            let text = |v: &Value| v.as_str().unwrap().to_string();
            writeln!(
                corpus,
                "{},{},{},{},{}",
                d.format("%Y-%m-%d"),
                text(&p["absolute"]),
                text(&p["start"]),
                text(&p["expiry"]),
                c["value"]
            )
            .unwrap();
        }
    }
    corpus
}

/// The timed reads of the M01 continuation (expiry roll): each run's milliseconds, and the
/// last answer.
fn measure(platform: &Platform, who: &Principal, runs: usize) -> (Vec<f64>, Value) {
    let q = DataQuery {
        continuation: Some(Continuation::new("M01", Roll::Expiry, None).unwrap()),
        ..DataQuery::default()
    };
    let mut samples = Vec::with_capacity(runs);
    let mut answer = Value::Null;
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        answer = std::hint::black_box(
            platform
                .data()
                .read(who, Source::Private, "BENCH:FWD", &q)
                .unwrap(),
        );
        samples.push(started.elapsed().as_secs_f64() * 1e3);
    }
    (samples, answer)
}

/// The platform's series as the peer reads it: `time,absolute,value`.
fn series_csv(points: &[Value]) -> String {
    let mut ours = String::from("time,absolute,value\n");
    for p in points {
        writeln!(
            ours,
            "{},{},{}",
            p["time"].as_str().unwrap(),
            p["properties"]["absolute"].as_str().unwrap(),
            p["value"]
        )
        .unwrap();
    }
    ours
}
