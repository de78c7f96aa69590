//! W12, shaping forward curves into arbitrage-free months (`_shape=MONTHLY`), next to pandas
//! (benches/compare/shaping_peer.py) computing the same from the same products.
//!
//! The corpus (`w12_products.csv`: `curve,code,start,end,value`): `curves` Berlin power curves,
//! one a day from 2022-01-01 (the last day of a month skipped: nothing is left of its balance),
//! each of 40 products at its ondate: BOM, DA01, DA02, W01, M01-M18, Q01-Q08, S01-S04, HY01-HY02
//! and Y01-Y04. Each curve has a daily price of its own (a level, a winter premium, a weekday
//! premium) and each product is quoted as that price's hour-weighted average over its delivery,
//! rounded to cents, as a desk's quotes are: the rounding leaves misses under a cent, which
//! shaping fits silently. One curve in ten has one product quoted 2 off, so that quotes that
//! disagree are named as arbitrage now and then. Weights: the hours of each day in
//! Europe/Berlin. Shaping solves every quote of a curve together (least squares).
//!
//! `measure W12` times the shaping of every curve in memory (the figure set against pandas),
//! then the same through the Rust API reading each ondate from the store
//! (`data().shape_curve`), checks that both give the same months, and writes them for the peer
//! to check its own against: `w12_platform.csv` (`curve,month,value,from`) and
//! `w12_arbitrage.csv` (`curve,code,miss`) in the corpus directory (`PLATFORM_COMPARE_CORPUS`,
//! benches/compare/out/corpus by default).

use super::{emit, open_core, runs, time_ms, Sizes};
use chrono::NaiveDate;
use platform_core::api::{data::Contract, data::CurveQuery, data::ShapeQuery};
use platform_core::data::shape::{shape, Quoted, Shaped, Weights, DEFAULT_TOLERANCE};
use platform_core::query::period;
use serde_json::json;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The relative codes of each curve's 40 products.
fn codes() -> Vec<String> {
    let mut out: Vec<String> = ["BOM", "DA01", "DA02", "W01"].map(String::from).to_vec();
    for (unit, count) in [("M", 18), ("Q", 8), ("S", 4), ("HY", 2), ("Y", 4)] {
        out.extend((1..=count).map(|i| format!("{unit}{i:02}")));
    }
    out
}

/// The ondates: one a day from 2022-01-01, the last day of each month skipped.
fn ondates(n: usize) -> Vec<NaiveDate> {
    let mut d = NaiveDate::from_ymd_opt(2022, 1, 1).unwrap();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        if d.succ_opt().unwrap().month0() == d.month0() {
            out.push(d);
        }
        d = d.succ_opt().unwrap();
    }
    out
}

use chrono::{Datelike as _, TimeZone as _};

/// One curve of the corpus: its ondate, and each product's relative code and price.
struct Curve {
    ondate: NaiveDate,
    sent: Vec<(String, f64)>,
    quoted: Vec<Quoted>,
}

fn curves(s: &Sizes) -> Vec<Curve> {
    let mut rng = super::corpus::Rng::new(12);
    let codes = codes();
    let tz = berlin();
    // The hours of each Berlin day, worked out once.
    let mut day_hours: std::collections::HashMap<NaiveDate, f64> = Default::default();
    ondates(s.curves)
        .into_iter()
        .map(|ondate| {
            let level = 40.0 + 40.0 * rng.unit();
            let winter = 10.0 * rng.unit();
            let weekday = 8.0 * rng.unit();
            // The day's price and its hours in Berlin.
            let daily = |d: NaiveDate| {
                let cold = matches!(d.month(), 10..=12 | 1..=3);
                let work = d.weekday().num_days_from_monday() < 5;
                level + if cold { winter } else { 0.0 } + if work { weekday } else { 0.0 }
            };
            let mut hours = |d: NaiveDate| {
                *day_hours.entry(d).or_insert_with(|| {
                    let start = |d: NaiveDate| {
                        tz.from_local_datetime(&d.and_hms_opt(0, 0, 0).unwrap())
                            .earliest()
                            .unwrap()
                            .timestamp()
                    };
                    (start(d.succ_opt().unwrap()) - start(d)) as f64 / 3600.0
                })
            };
            let off = (rng.unit() < 0.1).then(|| (rng.unit() * codes.len() as f64) as usize);
            let quoted: Vec<Quoted> = codes
                .iter()
                .enumerate()
                .map(|(i, code)| {
                    let p = period::parse(code).unwrap();
                    let r = p.resolve(ondate).unwrap();
                    let (start, end) = (r.delivery.start, r.delivery.end);
                    let (mut sum, mut weight) = (0.0, 0.0);
                    for d in start.iter_days().take_while(|d| *d <= end) {
                        sum += daily(d) * hours(d);
                        weight += hours(d);
                    }
                    let mut value = (sum / weight * 100.0).round() / 100.0;
                    if off == Some(i) {
                        value += 2.0;
                    }
                    Quoted {
                        code: r.absolute.map_or_else(|| p.to_string(), |a| a.to_string()),
                        start,
                        end,
                        value,
                    }
                })
                .collect();
            let sent = codes
                .iter()
                .zip(&quoted)
                .map(|(c, q)| (c.clone(), q.value))
                .collect();
            Curve {
                ondate,
                sent,
                quoted,
            }
        })
        .collect()
}

fn berlin() -> chrono_tz::Tz {
    "Europe/Berlin".parse().unwrap()
}

/// Writes `w12_products.csv` into the corpus.
pub fn dump(dir: &Path, s: &Sizes) {
    let mut out =
        std::io::BufWriter::new(std::fs::File::create(dir.join("w12_products.csv")).unwrap());
    writeln!(out, "curve,code,start,end,value").unwrap();
    for (i, c) in curves(s).iter().enumerate() {
        for q in &c.quoted {
            writeln!(out, "{i},{},{},{},{}", q.code, q.start, q.end, q.value).unwrap();
        }
    }
    out.flush().unwrap();
}

fn corpus_dir() -> PathBuf {
    std::env::var_os("PLATFORM_COMPARE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/compare/out/corpus"))
}

/// Times W12 and writes the platform's months for the peer (see the module documentation).
pub fn measure(s: &Sizes) {
    let data = curves(s);
    let tz = berlin();
    let shape_all = || -> Vec<Shaped> {
        data.iter()
            .map(|c| shape(&c.quoted, tz, &Weights::Hours, DEFAULT_TOLERANCE).unwrap())
            .collect()
    };
    drop(shape_all());
    let mut shaped = Vec::new();
    let samples: Vec<f64> = (0..runs().max(5))
        .map(|_| {
            let (ms, out) = time_ms(shape_all);
            shaped = out;
            ms
        })
        .collect();
    let months: usize = shaped.iter().map(|s| s.months.len()).sum();
    let arbitrage: usize = shaped.iter().map(|s| s.arbitrage.len()).sum();
    let case = format!("shape {} curves of 40 products into months", data.len());
    emit(
        "W12",
        &case,
        "platform",
        &samples,
        json!({"months": months, "arbitrage": arbitrage}),
    );
    // Through the Rust API: each ondate read from the store and shaped.
    let core = open_core();
    let (mut bodies, mut written) = (Vec::new(), 0);
    for c in &data {
        let contracts: Vec<Contract> = c.sent.iter().map(|(t, v)| Contract::new(t, *v)).collect();
        bodies.push((c.ondate, contracts));
    }
    let opts = platform_core::api::data::WriteOptions {
        units: Some("MWh".into()),
        currency: Some("EUR".into()),
        ..Default::default()
    };
    for (ondate, contracts) in &bodies {
        core.platform
            .data()
            .write_curve(&core.who, "SHAPE:fwd", *ondate, contracts, &opts)
            .unwrap();
        written += 1;
    }
    // The curve's zone, set once on its header.
    core.platform
        .objects()
        .save(
            &core.who,
            platform_core::store::Collection::Object,
            json!({"_id": "SHAPE", "fwd": {"_type": "VarCurve", "timezone": "Europe/Berlin"}}),
            &Default::default(),
        )
        .unwrap();
    let read_all = || {
        data.iter()
            .map(|c| {
                let q = CurveQuery {
                    ondate: Some(c.ondate),
                    ..Default::default()
                };
                core.platform
                    .data()
                    .shape_curve(&core.who, "SHAPE:fwd", &q, &ShapeQuery::default())
                    .unwrap()
            })
            .collect::<Vec<_>>()
    };
    let api = read_all();
    for (a, s) in api.iter().zip(&shaped) {
        assert_eq!(a.weights, Weights::Hours);
        assert_eq!(
            a.months, s.months,
            "the API's months are the in-memory ones"
        );
        assert_eq!(a.arbitrage, s.arbitrage);
    }
    let samples: Vec<f64> = (0..runs().max(5)).map(|_| time_ms(read_all).0).collect();
    let case = format!(
        "read and shape {written} curves of 40 products (data().shape_curve, each ondate from the store)"
    );
    emit("W12", &case, "platform", &samples, json!({}));
    write_results(&corpus_dir(), &shaped);
}

/// The months and the arbitrage of every curve, for the peer to check its own against.
fn write_results(dir: &Path, shaped: &[Shaped]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut months =
        std::io::BufWriter::new(std::fs::File::create(dir.join("w12_platform.csv")).unwrap());
    let mut arbitrage =
        std::io::BufWriter::new(std::fs::File::create(dir.join("w12_arbitrage.csv")).unwrap());
    writeln!(months, "curve,month,value,from").unwrap();
    writeln!(arbitrage, "curve,code,miss").unwrap();
    for (i, s) in shaped.iter().enumerate() {
        for m in &s.months {
            writeln!(months, "{i},{},{:?},{}", m.code, m.value, m.from).unwrap();
        }
        for a in &s.arbitrage {
            writeln!(arbitrage, "{i},{},{:?}", a.code, a.miss).unwrap();
        }
    }
    months.flush().unwrap();
    arbitrage.flush().unwrap();
}
