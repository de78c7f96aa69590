//! The fixtures of the data benches, built once on first use: the big series, its versions,
//! the series appended to, many small series, curves.

use crate::contestants::{
    core_with_big_series, open_baseline, open_core, points, walk, Baseline, Core,
};
use crate::{corpus, knob, n_points, APPEND};
use platform_core::documents::SaveOptions;
use platform_core::store::Collection;
use serde_json::{json, Value};
use std::sync::atomic::AtomicI64;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// One series of `PLATFORM_BENCH_POINTS` points, in core and in the baseline.
pub(crate) struct Big {
    pub(crate) core: Core,
    pub(crate) baseline: Mutex<Baseline>,
    pub(crate) n: usize,
}

pub(crate) fn big() -> &'static Big {
    static BIG: OnceLock<Big> = OnceLock::new();
    BIG.get_or_init(|| {
        let n = n_points();
        let core = core_with_big_series(n);
        let baseline = open_baseline();
        baseline.write(&[("BIG".to_string(), walk(0, n, 1))]);
        Big {
            core,
            baseline: Mutex::new(baseline),
            n,
        }
    })
}

/// The big series after `PLATFORM_BENCH_APPENDS` appended days, one version each.
pub(crate) struct Versions {
    pub(crate) core: Core,
    pub(crate) appends: usize,
}

pub(crate) fn versions() -> &'static Versions {
    static VERSIONS: OnceLock<Versions> = OnceLock::new();
    VERSIONS.get_or_init(|| {
        let n = n_points();
        let appends = knob("PLATFORM_BENCH_APPENDS", 20);
        let core = core_with_big_series(n);
        let baseline = open_baseline();
        baseline.write(&[("BIG".to_string(), walk(0, n, 1))]);
        let (core_before, base_before) = (core.file_size(), baseline.file_size());
        let mut appended_bytes = 0;
        for i in 0..appends {
            let day = walk(n + i * APPEND, APPEND, 100 + i as u64);
            appended_bytes += platform_core::data::codec::encode(&points(&day)).len();
            baseline.write(&[("BIG".to_string(), day.clone())]);
            core.save("BIG", points(&day));
        }
        let (core_after, base_after) = (core.file_size(), baseline.file_size());
        let per = |before: u64, after: u64| (after.saturating_sub(before)) / appends.max(1) as u64;
        eprintln!(
            "growth per append of {APPEND} points ({appends} appends, .db + -wal after a \
             checkpoint): core {} bytes (file {core_before} -> {core_after}), baseline {} bytes \
             (file {base_before} -> {base_after}); appended points encode to {} bytes in core, \
             {} bytes in the baseline",
            per(core_before, core_after),
            per(base_before, base_after),
            appended_bytes / appends.max(1),
            APPEND * 16,
        );
        Versions { core, appends }
    })
}

/// The big series, appended to by the append bench (a day per sample).
pub(crate) struct Appending {
    pub(crate) core: Core,
    pub(crate) baseline: Mutex<Baseline>,
    pub(crate) next_core: AtomicI64,
    pub(crate) next_baseline: AtomicI64,
}

pub(crate) fn appending() -> &'static Appending {
    static APPENDING: OnceLock<Appending> = OnceLock::new();
    APPENDING.get_or_init(|| {
        let n = n_points();
        let baseline = open_baseline();
        baseline.write(&[("BIG".to_string(), walk(0, n, 1))]);
        Appending {
            core: core_with_big_series(n),
            baseline: Mutex::new(baseline),
            next_core: AtomicI64::new(n as i64),
            next_baseline: AtomicI64::new(n as i64),
        }
    })
}

/// Many small series, in core (`S0000:price`...) and in the baseline.
pub(crate) struct Many {
    pub(crate) core: Core,
    pub(crate) baseline: Mutex<Baseline>,
    pub(crate) ids: Vec<String>,
}

pub(crate) fn many_ids() -> Vec<String> {
    (0..knob("PLATFORM_BENCH_SERIES", 1000))
        .map(|i| format!("S{i:04}"))
        .collect()
}

pub(crate) fn many_data(ids: &[String]) -> Vec<(String, Vec<(i64, f64)>)> {
    let n = knob("PLATFORM_BENCH_SERIES_POINTS", 1000);
    ids.iter()
        .enumerate()
        .map(|(i, id)| (id.clone(), walk(0, n, 1000 + i as u64)))
        .collect()
}

pub(crate) fn many() -> &'static Many {
    static MANY: OnceLock<Many> = OnceLock::new();
    MANY.get_or_init(|| {
        let ids = many_ids();
        let data = many_data(&ids);
        let core = open_core();
        for (id, pts) in &data {
            core.save(id, points(pts));
        }
        let baseline = open_baseline();
        baseline.write(&data);
        Many {
            core,
            baseline: Mutex::new(baseline),
            ids,
        }
    })
}

/// 100 relative tenor codes.
pub(crate) fn tenors() -> Vec<String> {
    let mut out = Vec::with_capacity(100);
    for (unit, count) in [("M", 36), ("Q", 12), ("Y", 5), ("W", 20), ("D", 27)] {
        out.extend((1..=count).map(|i| format!("{unit}{i:02}")));
    }
    out
}

/// `PLATFORM_BENCH_CURVES` curves of the object `CURVE`, property `fwd`, in core and in the
/// baseline.
pub(crate) struct Curves {
    pub(crate) core: Core,
    pub(crate) baseline: Mutex<Baseline>,
    pub(crate) n: usize,
}

pub(crate) fn curves() -> &'static Curves {
    static CURVES: OnceLock<Curves> = OnceLock::new();
    CURVES.get_or_init(|| {
        let n = knob("PLATFORM_BENCH_CURVES", 1000);
        let codes = tenors();
        let mut rng = corpus::Rng::new(9);
        let first = chrono::NaiveDate::from_ymd_opt(2021, 1, 1).unwrap();
        let days: Vec<(String, Vec<f64>)> = (0..n)
            .map(|i| {
                let ondate = first + chrono::Days::new(i as u64);
                let values = codes
                    .iter()
                    .map(|_| (rng.unit() * 10_000.0).round() / 100.0)
                    .collect();
                (ondate.format("%Y-%m-%d").to_string(), values)
            })
            .collect();
        let core = open_core();
        let started = Instant::now();
        for (ondate, values) in &days {
            let contracts: Vec<Value> = codes
                .iter()
                .zip(values)
                .map(|(tenor, value)| json!({"tenor": tenor, "value": value}))
                .collect();
            let body = json!({
                "_id": "CURVE",
                "fwd": {"_type": "VarCurve", "ondate": ondate, "contracts": contracts}
            });
            core.platform
                .objects()
                .save(&core.who, Collection::Object, body, &SaveOptions::default())
                .unwrap();
        }
        eprintln!(
            "saved {n} curves of {} tenors through the core in {:.2} s",
            codes.len(),
            started.elapsed().as_secs_f64()
        );
        let baseline = open_baseline();
        {
            let tx = baseline.conn.unchecked_transaction().unwrap();
            {
                let mut insert = tx.prepare("INSERT INTO curve VALUES (?1, ?2, ?3)").unwrap();
                for (ondate, values) in &days {
                    for (tenor, value) in codes.iter().zip(values) {
                        insert.execute((ondate, tenor, value)).unwrap();
                    }
                }
            }
            tx.commit().unwrap();
        }
        Curves {
            core,
            baseline: Mutex::new(baseline),
            n,
        }
    })
}
