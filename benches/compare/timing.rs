//! Timing and output: medians, paired runs of two contestants, one JSON line per figure.

use serde_json::{json, Value};
use std::io::Write as _;
use std::time::Instant;

pub(crate) fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
    }
}

pub(crate) fn time_ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let started = Instant::now();
    let out = std::hint::black_box(f());
    (started.elapsed().as_secs_f64() * 1e3, out)
}

/// Whether the platform's side runs on PostgreSQL (`PLATFORM_COMPARE_BACKEND=postgres`, on a
/// fresh database of the server `PLATFORM_TEST_PG` names); its figures are then `platform-pg`.
pub(crate) fn on_postgres() -> bool {
    std::env::var("PLATFORM_COMPARE_BACKEND").as_deref() == Ok("postgres")
}

pub(crate) fn emit(workload: &str, case: &str, contestant: &str, samples: &[f64], extra: Value) {
    let contestant = if contestant == "platform" && on_postgres() {
        "platform-pg"
    } else {
        contestant
    };
    let mut line = json!({
        "workload": workload, "case": case, "contestant": contestant,
        "median_ms": median(samples), "runs": samples.len(),
        "samples_ms": samples.iter().map(|x| (x * 1e4).round() / 1e4).collect::<Vec<_>>(),
    });
    if let (Value::Object(l), Value::Object(e)) = (&mut line, extra) {
        l.extend(e);
    }
    println!("{line}");
    std::io::stdout().flush().unwrap();
}

/// Runs `a` and `b` `n` times each, interleaved (fewer when they are slow); returns their
/// timings in ms.
pub(crate) fn paired(
    n: usize,
    mut a: impl FnMut() -> f64,
    mut b: impl FnMut() -> f64,
) -> (Vec<f64>, Vec<f64>) {
    let (mut xs, mut ys) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut n = n;
    while xs.len() < n {
        xs.push(a());
        ys.push(b());
        if xs.len() == 1 {
            // Slow cases: fewer runs (at least 5), about 8 s per case at most.
            let pair = xs[0] + ys[0];
            n = n.min(((8_000.0 / pair.max(1e-6)) as usize).max(5));
        }
    }
    (xs, ys)
}

/// A timer of a quick call, after one warm-up call.
pub(crate) fn repeat<T>(mut f: impl FnMut() -> T) -> impl FnMut() -> f64 {
    drop(f());
    move || time_ms(&mut f).0
}
