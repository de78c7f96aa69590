//! The check engine: per-point cost of the same range check, `between(value, 0, 1000)`, on the
//! native path and on the forced rhai path (`Options { native: false }`), over 1,440
//! one-minute points (a day of a minute series, a few missing and out of range).
//!
//! - `*_evaluate`: `CompiledChecks::evaluate_series` (statuses and messages, what the engine
//!   computes). Target: native at least 50x faster per point than rhai.
//! - `*_run_series`: `CompiledChecks::run_series` (the same plus one `PointOutcome` per point,
//!   whose allocations cost the same on both paths).
//!
//! Before divan runs, the medians per point of both paths and their ratio are printed (101
//! samples each, native and rhai interleaved), after checking both paths give the same results.

use divan::counter::ItemsCount;
use divan::Bencher;
use platform_core::validation::engine::{
    compile_with, CheckDef, CheckScope, CompiledChecks, Options, SeriesInput, Severity,
};
use std::time::Instant;

const POINTS: usize = 1_440;
const RANGE: &str = "between(value, 0, 1000)";
const SAMPLES: usize = 101;

fn series() -> SeriesInput {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 10_000) as f64 / 10_000.0
    };
    let mut level = 500.0;
    let start = 1_704_067_200_000_i64;
    SeriesInput {
        times: (0..POINTS as i64).map(|i| start + i * 60_000).collect(),
        values: (0..POINTS)
            .map(|i| {
                level += (next() - 0.5) * 20.0;
                match i % 97 {
                    13 => None,
                    50 => Some(4_520.0),
                    _ => Some(level),
                }
            })
            .collect(),
        step_ms: Some(60_000),
        ..SeriesInput::default()
    }
}

fn checks(native: bool) -> CompiledChecks {
    let def = CheckDef {
        id: "range".into(),
        name: "Range".into(),
        expression: RANGE.into(),
        scope: CheckScope::Point,
        severity: Severity::Failed,
    };
    let checks = compile_with(&[def], &[], Options { native }).expect("the check compiles");
    assert_eq!(checks.native_ids().len(), usize::from(native));
    checks
}

fn targets() -> Vec<usize> {
    (0..POINTS).collect()
}

/// Median nanoseconds per point of `a` and of `b` over `SAMPLES` runs each, the runs of the
/// two interleaved so both see the same machine load.
fn medians_per_point(mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    a();
    b();
    let per_point = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64() * 1e9 / POINTS as f64
    };
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for _ in 0..SAMPLES {
        xs.push(per_point(&mut a));
        ys.push(per_point(&mut b));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(&mut xs), median(&mut ys))
}

fn report() {
    let (s, t) = (series(), targets());
    let (native, rhai) = (checks(true), checks(false));
    let (a, b) = (native.evaluate_series(&s, &t), rhai.evaluate_series(&s, &t));
    for j in 0..POINTS {
        assert_eq!(a.status(0, j), b.status(0, j), "point {j}");
        assert_eq!(a.message(0, j), b.message(0, j), "point {j}");
    }
    println!("check `{RANGE}` over {POINTS} points, median of {SAMPLES} runs, per point:");
    let (n, r) = medians_per_point(
        || drop(divan::black_box(native.evaluate_series(&s, &t))),
        || drop(divan::black_box(rhai.evaluate_series(&s, &t))),
    );
    println!(
        "  evaluate_series  native {n:>7.1} ns   rhai {r:>7.1} ns   rhai/native {:>6.1}x",
        r / n
    );
    let (n, r) = medians_per_point(
        || drop(divan::black_box(native.run_series(&s, &t))),
        || drop(divan::black_box(rhai.run_series(&s, &t))),
    );
    println!(
        "  run_series       native {n:>7.1} ns   rhai {r:>7.1} ns   rhai/native {:>6.1}x",
        r / n
    );
    println!();
}

fn main() {
    report();
    divan::main();
}

fn bench_evaluate(bencher: Bencher, native: bool) {
    let (s, t, c) = (series(), targets(), checks(native));
    bencher
        .counter(ItemsCount::new(POINTS))
        .bench(|| c.evaluate_series(&s, &t));
}

fn bench_run(bencher: Bencher, native: bool) {
    let (s, t, c) = (series(), targets(), checks(native));
    bencher
        .counter(ItemsCount::new(POINTS))
        .bench(|| c.run_series(&s, &t));
}

#[divan::bench]
fn native_evaluate(bencher: Bencher) {
    bench_evaluate(bencher, true);
}

#[divan::bench]
fn rhai_evaluate(bencher: Bencher) {
    bench_evaluate(bencher, false);
}

#[divan::bench]
fn native_run_series(bencher: Bencher) {
    bench_run(bencher, true);
}

#[divan::bench]
fn rhai_run_series(bencher: Bencher) {
    bench_run(bencher, false);
}
