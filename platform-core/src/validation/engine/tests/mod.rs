//! Tests of the check engine: every built-in on hand-made data, compile and trial errors,
//! hostile checks, tenors across a roll, and the native path against rhai (property test).
//!
//! Here the helpers every test file shares (hand-made series and checks, both paths run side
//! by side); `points` the point built-ins and messages, `compile` compiling, the trial, hostile
//! checks and libraries, `curves` the tenor and curve built-ins, `native` the native path
//! against rhai and the statistics against their definitions (property tests), `docs` the
//! users' reference of the functions against the functions registered.

mod compile;
mod curves;
mod docs;
mod native;
mod points;

use super::compile::sample_curve;
use super::*;
use crate::error::ErrorCode;
use crate::query::period;
use proptest::prelude::*;
use std::sync::Arc;

const MIN: i64 = 60_000;
const BASE: i64 = 1_704_067_200_000; // 2024-01-01T00:00:00Z

fn check(id: &str, expression: &str, scope: CheckScope) -> CheckDef {
    CheckDef {
        id: id.into(),
        name: id.into(),
        expression: expression.into(),
        scope,
        severity: Severity::Failed,
    }
}

fn point(id: &str, expression: &str) -> CheckDef {
    check(id, expression, CheckScope::Point)
}

/// One-minute series; `values[i]` at minute `minutes[i]`.
fn series_at(values: &[Option<f64>], minutes: &[i64]) -> SeriesInput {
    SeriesInput {
        times: minutes.iter().map(|m| BASE + m * MIN).collect(),
        values: values.to_vec(),
        step_ms: Some(MIN),
        ..SeriesInput::default()
    }
}

/// The hand-made series of the built-in tests (index: value):
/// 0:10 1:12 2:11 3:11 4:11 5:missing 6:14 7:100 8:15 9:16 (9 comes 3 minutes after 8).
fn hand() -> SeriesInput {
    let v = [
        Some(10.0),
        Some(12.0),
        Some(11.0),
        Some(11.0),
        Some(11.0),
        None,
        Some(14.0),
        Some(100.0),
        Some(15.0),
        Some(16.0),
    ];
    series_at(&v, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 11])
}

/// Outcomes without the timings.
fn strip(out: Vec<PointOutcome>) -> Vec<(usize, String, CheckStatus, String)> {
    out.into_iter()
        .flat_map(|p| {
            p.checks
                .into_iter()
                .map(move |c| (p.index, c.id, c.status, c.message))
        })
        .collect()
}

/// Runs point checks natively (where possible) and in rhai, asserts both agree, returns them.
fn run_both(defs: &[CheckDef], series: &SeriesInput, targets: &[usize]) -> Vec<PointOutcome> {
    let native = compile(defs, &[]).expect("compiles");
    let rhai = compile_with(defs, &[], Options { native: false }).expect("compiles");
    assert!(rhai.native_ids().is_empty());
    let a = native.run_series(series, targets);
    let b = rhai.run_series(series, targets);
    assert_eq!(strip(a.clone()), strip(b), "native vs rhai for {defs:?}");
    a
}

fn outcome(expr: &str, series: &SeriesInput, target: usize) -> CheckOutcome {
    let out = run_both(&[point("c", expr)], series, &[target]);
    out[0].checks[0].clone()
}

/// The value of a numeric term at a target, as the failure message shows it.
fn num(term: &str, series: &SeriesInput, target: usize) -> String {
    let o = outcome(&format!("{term} == -987.125"), series, target);
    assert_eq!(o.status, CheckStatus::Fail, "{term}: {o:?}");
    let m = o.message;
    let rest = m
        .strip_prefix(&format!("{term} = "))
        .or_else(|| m.strip_prefix(&format!("{term} ")))
        .unwrap_or_else(|| panic!("{term}: {m}"));
    rest.strip_suffix(", expected == -987.125")
        .unwrap_or_else(|| panic!("{term}: {m}"))
        .to_string()
}
