//! Tests of the check engine: every built-in on hand-made data, compile and trial errors,
//! hostile checks, tenors across a roll, and the native path against rhai (property test).

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
fn run_both(
    defs: &[CheckDef],
    series: &SeriesInput,
    targets: &[usize],
    lookback: usize,
) -> Vec<PointOutcome> {
    let native = compile(defs, &[]).expect("compiles");
    let rhai = compile_with(defs, &[], Options { native: false }).expect("compiles");
    assert!(rhai.native_ids().is_empty());
    let a = native.run_series(series, targets, lookback);
    let b = rhai.run_series(series, targets, lookback);
    assert_eq!(strip(a.clone()), strip(b), "native vs rhai for {defs:?}");
    a
}

fn outcome(expr: &str, series: &SeriesInput, target: usize, lookback: usize) -> CheckOutcome {
    let out = run_both(&[point("c", expr)], series, &[target], lookback);
    out[0].checks[0].clone()
}

/// The value of a numeric term at a target, as the failure message shows it.
fn num(term: &str, series: &SeriesInput, target: usize, lookback: usize) -> String {
    let o = outcome(&format!("{term} == -987.125"), series, target, lookback);
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

#[test]
fn point_values_and_predicates() {
    let s = hand();
    assert_eq!(num("value", &s, 4, 0), "11");
    for (expr, target, want) in [
        ("value > 0", 4, CheckStatus::Pass),
        ("value > 11", 4, CheckStatus::Fail),
        ("value > 0", 5, CheckStatus::Skipped),
        ("!is_missing()", 5, CheckStatus::Fail),
        ("!missing", 5, CheckStatus::Fail),
        ("missing || value > 0", 5, CheckStatus::Pass),
        ("is_missing()", 4, CheckStatus::Fail),
        ("!is_missing()", 4, CheckStatus::Pass),
        ("is_finite(value)", 4, CheckStatus::Pass),
        ("is_finite(value)", 5, CheckStatus::Skipped),
        ("between(value, 0, 1000)", 7, CheckStatus::Pass),
        ("between(value, 0, 99.5)", 7, CheckStatus::Fail),
        ("between(value, 100, 100)", 7, CheckStatus::Pass),
        ("is_zero(value)", 4, CheckStatus::Fail),
        ("is_zero(value - 11)", 4, CheckStatus::Pass),
        ("is_negative(value)", 4, CheckStatus::Fail),
        ("is_negative(-value)", 4, CheckStatus::Pass),
        ("on_tick(value, 0.5)", 4, CheckStatus::Pass),
        ("on_tick(value, 3)", 4, CheckStatus::Fail),
        ("on_tick(45.25, 0.25)", 4, CheckStatus::Pass),
        ("on_tick(45.2, 0.25)", 4, CheckStatus::Fail),
        ("decimals(45.25) == 2", 4, CheckStatus::Pass),
        ("decimals(value) == 0", 4, CheckStatus::Pass),
        ("value >= 10 && value <= 90", 7, CheckStatus::Fail),
        ("time == \"2024-01-01T00:04:00Z\"", 4, CheckStatus::Pass),
        ("time == \"2024-01-01T00:11:00Z\"", 9, CheckStatus::Pass),
    ] {
        let o = outcome(expr, &s, target, 20);
        assert_eq!(o.status, want, "{expr} at {target}: {o:?}");
    }
}

#[test]
fn comparisons_are_rhai_comparisons() {
    // rhai compares floats with a relative tolerance of one epsilon; a NaN (no history)
    // compares equal to 0 and false to anything else; an infinity compares false. The native
    // path does the same.
    let s = series_at(&[Some(f64::INFINITY), Some(1.0 + f64::EPSILON)], &[0, 1]);
    for (expr, target, want) in [
        ("prev() == 0", 0, CheckStatus::Pass),
        ("prev() <= 0", 0, CheckStatus::Pass),
        ("prev() >= 0", 0, CheckStatus::Pass),
        ("prev() != 0", 0, CheckStatus::Fail),
        ("prev() < 1", 0, CheckStatus::Fail),
        ("prev() > -1", 0, CheckStatus::Fail),
        ("is_finite(prev()) && prev() == 0", 0, CheckStatus::Fail),
        ("value > 5", 0, CheckStatus::Fail),
        ("value < 5", 0, CheckStatus::Fail),
        ("value == 1", 1, CheckStatus::Pass),
        ("value > 1", 1, CheckStatus::Fail),
        ("abs(-3) == 3", 1, CheckStatus::Pass),
        ("min(2, 3) < 3", 1, CheckStatus::Pass),
    ] {
        let o = outcome(expr, &s, target, 1);
        assert_eq!(o.status, want, "{expr} at {target}: {o:?}");
    }
}

#[test]
fn generic_helpers() {
    let s = hand();
    for expr in [
        "abs(-3) == 3",
        "abs(-2.5) == 2.5",
        "min(value, 3) == 3",
        "max(value, 3) == 11",
        "round(2.5) == 3.0",
        "round(value / 2) == 6.0",
        "sqrt(16.0) == 4.0",
        "abs(ln(exp(2.0)) - 2.0) < 1e-12",
        "sign(-value) == -1",
        "clamp(value, 0, 5) == 5",
        "clamp(value, 20, 30) == 20",
        "clamp(value, 0, 50) == 11",
    ] {
        let o = outcome(expr, &s, 4, 0);
        assert_eq!(o.status, CheckStatus::Pass, "{expr}: {o:?}");
    }
}

#[test]
fn history_functions_on_a_hand_made_series() {
    let s = hand();
    let at = |term: &str, target: usize| num(term, &s, target, 20);
    // Target 4 (value 11): earlier 10, 12, 11, 11.
    assert_eq!(at("lag(0)", 4), "11");
    assert_eq!(at("lag(1)", 4), "11");
    assert_eq!(at("lag(3)", 4), "12");
    assert_eq!(at("lag(4)", 4), "10");
    assert_eq!(at("lag(5)", 4), "NaN");
    assert_eq!(at("prev()", 4), "11");
    assert_eq!(at("change()", 4), "0");
    assert_eq!(at("change(4)", 4), "1");
    assert_eq!(at("pct_change(3)", 4), "-0.0833333");
    assert_eq!(at("pct_change(4)", 4), "0.1");
    assert_eq!(at("mean(3)", 4), "11.3333");
    assert_eq!(at("mean(4)", 4), "11");
    assert_eq!(at("stdev(4)", 4), "0.816497");
    assert_eq!(at("stdev(1)", 4), "NaN");
    assert_eq!(at("median(4)", 4), "11");
    assert_eq!(at("median(2)", 4), "11");
    assert_eq!(at("median(3)", 4), "11");
    assert_eq!(at("mad(4)", 4), "0.5");
    assert_eq!(at("min_of(4)", 4), "10");
    assert_eq!(at("max_of(4)", 4), "12");
    assert_eq!(at("quantile(4, 0.25)", 4), "10.75");
    assert_eq!(at("quantile(4, 1)", 4), "12");
    assert_eq!(at("count(4)", 4), "4");
    assert_eq!(at("count(50)", 4), "4");
    assert_eq!(at("zscore(4)", 4), "0");
    assert_eq!(at("robust_z(4)", 4), "0");
    assert_eq!(at("run_length()", 4), "3");
    assert_eq!(at("run_length(1.5)", 4), "5");
    assert_eq!(at("gap()", 4), "1");
    assert_eq!(at("spike()", 4), "0");
    assert_eq!(at("mean(0)", 4), "NaN");
    // Target 7 (value 100): earlier 11, 11, 11, missing, 14.
    assert_eq!(at("lag(2)", 7), "NaN");
    assert_eq!(at("mean(3)", 7), "12.5");
    assert_eq!(at("count(3)", 7), "2");
    assert_eq!(at("stdev(3)", 7), "2.12132");
    assert_eq!(at("zscore(3)", 7), "41.2479");
    assert_eq!(at("pct_change(1)", 7), "6.14286");
    assert_eq!(at("median(5)", 7), "11");
    assert_eq!(at("mad(5)", 7), "0");
    assert_eq!(at("robust_z(5)", 7), "NaN");
    assert_eq!(at("robust_z(6)", 7), "NaN");
    assert_eq!(at("spike()", 7), "NaN");
    assert_eq!(at("run_length()", 7), "1");
    // Target 8 (value 15) scores the spike at 7: |100 - (14 + 15) / 2|.
    assert_eq!(at("spike()", 8), "85.5");
    // robust_z over 8's previous 4 (11, missing, 14, 100): median 14, mad 3.
    assert_eq!(at("median(4)", 8), "14");
    assert_eq!(at("mad(4)", 8), "3");
    assert_eq!(at("robust_z(4)", 8), "0.224833");
    // Target 9 comes 3 calendar steps after 8.
    assert_eq!(at("gap()", 9), "3");
    // No earlier observation: NaN.
    assert_eq!(at("gap()", 0), "NaN");
    assert_eq!(at("prev()", 0), "NaN");
}

#[test]
fn the_lookback_limits_every_window() {
    let s = hand();
    // Target 4 with lookback 2 sees only indices 2 and 3.
    assert_eq!(num("mean(4)", &s, 4, 2), "11");
    assert_eq!(num("count(10)", &s, 4, 2), "2");
    assert_eq!(num("lag(3)", &s, 4, 2), "NaN");
    assert_eq!(num("run_length()", &s, 4, 2), "3");
    assert_eq!(num("run_length()", &s, 4, 1), "2");
    assert_eq!(num("gap()", &s, 4, 0), "NaN");
    assert_eq!(num("spike()", &s, 8, 1), "NaN");
    // A sparse series has no gap.
    let mut sparse = hand();
    sparse.step_ms = None;
    assert_eq!(num("gap()", &sparse, 9, 5), "NaN");
    // A range gives every point what it gets alone.
    let defs = [point("m", "mean(3) < 11.5"), point("r", "run_length() < 3")];
    let all = run_both(&defs, &s, &[4, 6, 7, 8, 9], 3);
    for p in &all {
        let alone = run_both(&defs, &s, &[p.index], 3);
        assert_eq!(strip(alone), strip(vec![p.clone()]));
    }
}

#[test]
fn failure_messages_show_the_numbers() {
    let s = series_at(&[Some(10.0), Some(4520.0)], &[0, 1]);
    let msg = |e: &str| outcome(e, &s, 1, 5).message;
    assert_eq!(msg("between(value, 0, 1000)"), "value 4520 outside 0..1000");
    assert_eq!(msg("value <= 1000"), "value 4520, expected <= 1000");
    assert_eq!(msg("1000 >= value"), "value 4520, expected <= 1000");
    assert_eq!(
        msg("pct_change(1) < 0.2"),
        "pct_change(1) = 451, expected < 0.2"
    );
    assert_eq!(
        msg("abs(pct_change()) < 0.2"),
        "abs(pct_change()) = 451, expected < 0.2"
    );
    assert_eq!(
        msg("value > 0 && value < mean(5)"),
        "value 4520, expected < mean(5) (10)"
    );
    assert_eq!(msg("!(value > 1000)"), "value 4520, expected <= 1000");
    assert_eq!(
        msg("value < 0 || value > 10000"),
        "value 4520, expected < 0; value 4520, expected > 10000"
    );
    assert_eq!(msg("is_missing()"), "value 4520 is not missing");
    assert_eq!(
        msg("lag(1) > 0 && prev() > 20"),
        "prev() = 10, expected > 20"
    );
    assert_eq!(msg("on_tick(value, 7)"), "value 4520 is not on tick 7");
    assert_eq!(
        msg("value - prev() < 100"),
        "value - prev() = 4510, expected < 100"
    );
    assert_eq!(
        msg("if value > 100 { value * 2 < 50 } else { true }"),
        "value * 2 = 9040, expected < 50"
    );
    // Custom expressions (rhai only) list the built-ins they read.
    assert_eq!(
        msg("value - prev() < 100 && time != \"\""),
        "the expression is false: value 4520, prev() = 10"
    );
    let missing = series_at(&[Some(1.0), None], &[0, 1]);
    assert_eq!(
        outcome("value > 0", &missing, 1, 1).message,
        "value is missing"
    );
    assert_eq!(
        outcome("!is_missing() && value > 0", &missing, 1, 1).message,
        "value is missing"
    );
    assert_eq!(outcome("value > 0", &s, 1, 0).message, "");
}

#[test]
fn which_checks_go_native() {
    let native = [
        "value > 0",
        "between(value, 0, 1000)",
        "abs(pct_change(1)) < 0.2",
        "run_length() < 5",
        "abs(zscore(20)) < 3",
        "abs(robust_z(50)) < 3.5",
        "gap() <= 1",
        "!is_missing()",
        "value >= 10 && value <= 90",
        "missing || (value > quantile(30, 0.99)) == false",
        "value - prev() < 3",
        "abs(value - mean(20)) < 3 * stdev(20)",
        "if value > 5 { value % 2 < 1 } else { value / 2 > -1 }",
    ];
    let custom = ["value ** 2 < 3", "time > \"2024\"", "lag(value) > 0"];
    let mut defs: Vec<CheckDef> = native
        .iter()
        .enumerate()
        .map(|(i, e)| point(&format!("n{i}"), e))
        .collect();
    defs.extend(
        custom
            .iter()
            .enumerate()
            .map(|(i, e)| point(&format!("c{i}"), e)),
    );
    defs.push(check("t", "value > 0", CheckScope::Tenor));
    let checks = compile(&defs, &[]).unwrap();
    let want: Vec<String> = (0..native.len()).map(|i| format!("n{i}")).collect();
    assert_eq!(checks.native_ids(), want);
    run_both(&defs, &hand(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 20);
}

#[test]
fn compile_errors_name_the_check() {
    let err = |defs: &[CheckDef]| compile(defs, &[]).unwrap_err();
    let e = err(&[point("typo", "valeu > 0")]);
    assert_eq!(e.code(), ErrorCode::InvalidBody);
    let text = e.to_string();
    assert!(
        text.contains("check \"typo\"") && text.contains("valeu"),
        "{text}"
    );
    for (id, expr) in [
        ("loop", "while true { }"),
        ("for", "for x in 0..3 { x }"),
        ("let", "{ let x = 1; x > 0 }"),
        ("eval", "eval(\"value > 0\")"),
        ("closure", "(|x| x > 0).call(value)"),
        ("syntax", "value > "),
        ("empty", "  "),
        ("tenor-time", "time > \"x\""),
    ] {
        let scope = if id == "tenor-time" {
            CheckScope::Tenor
        } else {
            CheckScope::Point
        };
        let text = err(&[check(id, expr, scope)]).to_string();
        assert!(text.contains(&format!("check \"{id}\"")), "{id}: {text}");
    }
    // At most 1,000 characters.
    let ok = format!("value > 0{}", " ".repeat(MAX_EXPRESSION_CHARS - 9));
    assert!(compile(&[point("max", &ok)], &[]).is_ok());
    let long = format!("{ok} ");
    let text = err(&[point("long", &long)]).to_string();
    assert!(
        text.contains("check \"long\"") && text.contains("1000"),
        "{text}"
    );
    // A library that does not compile names the script.
    let lib = Library {
        id: "helpers".into(),
        source: "fn broken( {".into(),
    };
    let text = compile(&[point("ok", "value > 0")], &[lib])
        .unwrap_err()
        .to_string();
    assert!(text.contains("script \"helpers\""), "{text}");
}

#[test]
fn trial_catches_what_compiling_cannot() {
    let trial = |defs: &[CheckDef]| compile(defs, &[]).unwrap().trial();
    for (id, expr, scope, reason) in [
        ("unknown", "nosuchfn(value)", CheckScope::Point, "nosuchfn"),
        (
            "number",
            "value + 1",
            CheckScope::Point,
            "not true or false",
        ),
        ("text", "time", CheckScope::Point, "not true or false"),
        (
            "badq",
            "quantile(10, 2) < value",
            CheckScope::Point,
            "between 0 and 1",
        ),
        ("badk", "lag(-1) < value", CheckScope::Point, "whole number"),
        (
            "wrongscope",
            "lag(1) < value",
            CheckScope::Tenor,
            "point checks",
        ),
        (
            "curvefn",
            "prev_tenor(1) > 0",
            CheckScope::Curve,
            "tenor checks",
        ),
        ("method", "value.nosuch() > 1", CheckScope::Point, "nosuch"),
    ] {
        let e = trial(&[check(id, expr, scope)]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidBody);
        let text = e.to_string();
        assert!(text.contains(&format!("check \"{id}\"")), "{id}: {text}");
        assert!(text.contains(reason), "{id}: {text}");
    }
    let fine = [
        point("p1", "abs(pct_change(1)) < 0.5 && abs(zscore(20)) < 10"),
        point("p2", "value - prev() < 30 || missing"),
        point("p3", "time > \"2023\" && gap() == 1 && run_length() < 5"),
        check(
            "t1",
            "tenor_pct_change(1) < 0.5 && contract.absolute != \"\"",
            CheckScope::Tenor,
        ),
        check(
            "t2",
            "tenor.len() == 3 && excess_move() < 1",
            CheckScope::Tenor,
        ),
        check(
            "c1",
            "tenor_count() == contracts && sorted() && unique() && no_gaps()",
            CheckScope::Curve,
        ),
        check(
            "c2",
            "has_tenor(\"M01\") && ondate == \"2024-03-01\"",
            CheckScope::Curve,
        ),
    ];
    trial(&fine).unwrap();
}

fn hostile_libs() -> Vec<Library> {
    vec![Library {
        id: "hostile".into(),
        source: r#"
            fn deep(n) { deep(n + 1) }
            fn spin() { loop { } }
            fn big(n) { let s = "x"; while s.len() < n { s += s; } s.len() }
            fn many() { let a = []; loop { a.push(1); } }
        "#
        .into(),
    }]
}

#[test]
fn hostile_checks_end_in_an_error() {
    let defs = [
        point("deep", "deep(1) > 0"),
        point("spin", "spin()"),
        point("big", "big(100000000) > 0"),
        point("many", "many() > 0"),
        point("fine", "value > 0"),
    ];
    let checks = compile(&defs, &hostile_libs()).unwrap();
    assert!(checks.trial().is_err());
    let out = checks.run_series(&hand(), &[0, 4], 5);
    for p in &out {
        let status: Vec<CheckStatus> = p.checks.iter().map(|c| c.status).collect();
        use CheckStatus::{Error, Pass};
        assert_eq!(status, [Error, Error, Error, Error, Pass], "{p:?}");
        assert!(p.checks[..4].iter().all(|c| !c.message.is_empty()));
    }
    // A deeply nested expression is refused or fails, never overflows the stack.
    let nested = format!("{}value{} > 0", "(".repeat(400), ")".repeat(400));
    match compile(&[point("nested", &nested)], &[]) {
        Err(e) => assert!(e.to_string().contains("check \"nested\""), "{e}"),
        Ok(c) => {
            let _ = c.run_series(&hand(), &[0], 0);
        }
    }
    // Hostile tenor checks too.
    let tenor = [check("deep", "deep(1) > 0", CheckScope::Tenor)];
    let checks = compile(&tenor, &hostile_libs()).unwrap();
    let (curve, history) = sample_curve();
    let out = checks.run_curve(&curve, &history);
    assert!(out
        .tenors
        .iter()
        .all(|t| t.checks[0].status == CheckStatus::Error));
}

#[test]
fn libraries_are_callable_and_may_shadow_builtins() {
    let libs = [
        Library {
            id: "bands".into(),
            source: "fn band(x, lo, hi) { x >= lo && x <= hi } let ignored = 1;".into(),
        },
        Library {
            id: "history".into(),
            source: "fn jump() { abs(pct_change(1)) } fn mean(n) { 42.0 }".into(),
        },
    ];
    let defs = [
        point("band", "band(value, 0, 50)"),
        point("jump", "jump() < 0.5"),
        point("shadow", "mean(3) == 42.0"),
    ];
    let checks = compile(&defs, &libs).unwrap();
    assert!(checks.native_ids().is_empty());
    checks.trial().unwrap();
    let out = checks.run_series(&hand(), &[4, 7], 5);
    let status = |p: usize, c: usize| out[p].checks[c].status;
    assert_eq!(status(0, 0), CheckStatus::Pass);
    assert_eq!(status(1, 0), CheckStatus::Fail);
    assert_eq!(status(0, 1), CheckStatus::Pass);
    assert_eq!(status(1, 1), CheckStatus::Fail);
    assert_eq!(status(0, 2), CheckStatus::Pass);
    assert_eq!(status(1, 2), CheckStatus::Pass);
}

#[test]
fn compiled_checks_are_shared_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<CompiledChecks>();
    let checks = Arc::new(
        compile(
            &[
                point("a", "value > 10.5"),
                point("b", "value - prev() < 50"),
            ],
            &[],
        )
        .unwrap(),
    );
    let want = strip(checks.run_series(&hand(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 3));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let checks = checks.clone();
            std::thread::spawn(move || {
                strip(checks.run_series(&hand(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 3))
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), want);
    }
}

#[test]
fn evaluation_matrix_matches_outcomes() {
    let defs = [point("a", "value > 10.5"), point("b", "value < 50")];
    let checks = compile(&defs, &[]).unwrap();
    let s = hand();
    let eval = checks.evaluate_series(&s, &[4, 5, 7, 42], 2);
    assert_eq!(eval.target_count(), 3);
    let indices: Vec<usize> = (0..3).map(|j| eval.index(j)).collect();
    assert_eq!(indices, [4, 5, 7]);
    let range = checks.evaluate_series(&s, &[7, 8, 9], 2);
    assert_eq!((range.target_count(), range.index(2)), (3, 9));
    assert_eq!(range.status(1, 0), CheckStatus::Fail);
    assert_eq!(eval.check_ids(), ["a", "b"]);
    assert_eq!(eval.status(0, 1), CheckStatus::Skipped);
    assert_eq!(eval.status(1, 2), CheckStatus::Fail);
    assert_eq!(eval.message(1, 2), "value 100, expected < 50");
    let out = eval.into_outcomes();
    assert_eq!(out.len(), 3);
    assert_eq!(out[2].index, 7);
    assert!(out[2].checks[1].micros >= 0.0);
}

// ---------------------------------------------------------------- curves

/// A contract of `code` (relative, absolute or balance-of) at `ondate`.
fn contract(code: &str, ondate: NaiveDate, value: Option<f64>) -> ContractInput {
    let p = period::parse(code).unwrap();
    let r = p.resolve(ondate).unwrap();
    let relative = match p {
        period::Period::Absolute(a) => a
            .relative_at(ondate)
            .map(|r| r.to_string())
            .unwrap_or_default(),
        _ => p.to_string(),
    };
    ContractInput {
        tenor: code.to_string(),
        relative,
        absolute: r.absolute.map(|a| a.to_string()).unwrap_or_default(),
        value,
        start: r.delivery.start,
        end: r.delivery.end,
        expiry: r.delivery.expiry,
    }
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

fn curve(ondate: NaiveDate, contracts: &[(&str, Option<f64>)]) -> CurveInput {
    CurveInput {
        ondate,
        contracts: contracts
            .iter()
            .map(|(c, v)| contract(c, ondate, *v))
            .collect(),
    }
}

/// A tenor term's value per contract, as the failure messages show it.
fn tenor_nums(term: &str, c: &CurveInput, history: &[CurveInput]) -> Vec<String> {
    let checks = compile(
        &[check(
            "t",
            &format!("{term} == -987.125"),
            CheckScope::Tenor,
        )],
        &[],
    )
    .unwrap();
    checks
        .run_curve(c, history)
        .tenors
        .into_iter()
        .map(|t| {
            let m = &t.checks[0].message;
            m.strip_prefix(&format!("{term} = "))
                .or_else(|| m.strip_prefix(&format!("{term} ")))
                .and_then(|r| r.strip_suffix(", expected == -987.125"))
                .unwrap_or_else(|| panic!("{term}: {m}"))
                .to_string()
        })
        .collect()
}

#[test]
fn tenors_match_by_absolute_period_across_a_roll() {
    // On 2024-03-01 M01 is 2024M04; on 2024-04-01 M00 is 2024M04.
    let march = curve(
        date(2024, 3, 1),
        &[
            ("M01", Some(50.0)),
            ("M02", Some(52.0)),
            ("M03", Some(53.0)),
        ],
    );
    assert_eq!(march.contracts[0].absolute, "2024M04");
    let april = curve(
        date(2024, 4, 1),
        &[
            ("M00", Some(51.0)),
            ("M01", Some(52.0)),
            ("M02", Some(60.0)),
        ],
    );
    assert_eq!(april.contracts[0].absolute, "2024M04");
    let hist = [march.clone()];
    let v = |t: &str| tenor_nums(t, &april, &hist);
    assert_eq!(v("value"), ["51", "52", "60"]);
    assert_eq!(v("prev_tenor(1)"), ["50", "52", "53"]);
    assert_eq!(v("prev_tenor()"), ["50", "52", "53"]);
    assert_eq!(v("prev_tenor(0)"), ["51", "52", "60"]);
    assert_eq!(v("prev_tenor(2)"), ["NaN", "NaN", "NaN"]);
    assert_eq!(v("tenor_change(1)"), ["1", "0", "7"]);
    assert_eq!(v("tenor_change()"), ["1", "0", "7"]);
    assert_eq!(v("tenor_pct_change(1)"), ["0.02", "0", "0.132075"]);
    assert_eq!(v("tenor_pct_change()"), ["0.02", "0", "0.132075"]);
    // Changes 1, 0, 7: median 1.
    assert_eq!(v("excess_move()"), ["0", "-1", "6"]);
    assert_eq!(v("tenor_run_length()"), ["1", "2", "1"]);
    assert_eq!(v("tenor_run_length(1)"), ["2", "2", "1"]);
    // Curve-level numbers are visible from tenor checks too.
    assert_eq!(v("tenor_count()"), ["3", "3", "3"]);

    // A contract new on the curve has no history.
    let may = curve(
        date(2024, 5, 1),
        &[
            ("M00", Some(52.0)),
            ("M01", Some(61.0)),
            ("M02", Some(70.0)),
        ],
    );
    let hist = [april.clone(), march.clone()];
    assert_eq!(
        tenor_nums("prev_tenor(1)", &may, &hist),
        ["52", "60", "NaN"]
    );
    assert_eq!(
        tenor_nums("prev_tenor(2)", &may, &hist),
        ["52", "53", "NaN"]
    );
    assert_eq!(
        tenor_nums("tenor_run_length()", &may, &hist),
        ["3", "1", "1"]
    );

    // Messages and statuses of tenor checks.
    let checks = compile(
        &[
            check("move", "abs(tenor_pct_change(1)) < 0.1", CheckScope::Tenor),
            check("pos", "value > 0", CheckScope::Tenor),
            check(
                "label",
                "tenor != \"M01\" && contract.absolute != \"\"",
                CheckScope::Tenor,
            ),
        ],
        &[],
    )
    .unwrap();
    let mut april_gap = april.clone();
    april_gap.contracts[1].value = None;
    let out = checks.run_curve(&april_gap, &[march]);
    let m00 = &out.tenors[0];
    assert_eq!(m00.tenor, "M00");
    assert_eq!(m00.checks[0].status, CheckStatus::Pass);
    let m01 = &out.tenors[1];
    assert_eq!(m01.checks[0].status, CheckStatus::Skipped);
    assert_eq!(m01.checks[0].message, "value is missing");
    assert_eq!(m01.checks[2].status, CheckStatus::Skipped);
    assert_eq!(m00.checks[2].status, CheckStatus::Pass);
    let m02 = &out.tenors[2];
    assert_eq!(m02.checks[0].status, CheckStatus::Fail);
    assert_eq!(
        m02.checks[0].message,
        "abs(tenor_pct_change(1)) = 0.132075, expected < 0.1"
    );
    assert_eq!(m02.checks[1].status, CheckStatus::Pass);
}

#[test]
fn curve_functions() {
    let d = date(2024, 3, 1);
    let march = curve(
        d,
        &[
            ("M01", Some(50.0)),
            ("M02", Some(52.0)),
            ("M03", Some(53.0)),
            ("Q03", Some(55.0)),
        ],
    );
    let april = curve(
        date(2024, 4, 1),
        &[
            ("M00", Some(50.0)),
            ("M01", Some(52.0)),
            ("M02", None),
            ("Q02", Some(55.0)),
        ],
    );
    let hist = [march.clone()];
    let run = |expr: &str, c: &CurveInput, h: &[CurveInput]| {
        let checks = compile(&[check("c", expr, CheckScope::Curve)], &[]).unwrap();
        checks.run_curve(c, h).curve.remove(0)
    };
    let pass = |expr: &str, c: &CurveInput, h: &[CurveInput]| {
        let o = run(expr, c, h);
        assert_eq!(o.status, CheckStatus::Pass, "{expr}: {o:?}");
    };
    pass("contracts == 4", &march, &[]);
    pass("tenor_count() == 4", &march, &[]);
    pass("tenor_count() == 3 && contracts == 4", &april, &[]);
    pass("is_nan(prev_tenor_count())", &march, &[]);
    pass("prev_tenor_count() == 4", &april, &hist);
    pass(
        "has_tenor(\"M01\") && has_tenor(\"m02\") && has_tenor(\"2024M04\")",
        &march,
        &[],
    );
    pass("!has_tenor(\"M06\")", &march, &[]);
    pass("sorted() && unique() && no_gaps()", &march, &[]);
    pass("ondate == \"2024-03-01\"", &march, &[]);
    // April vs March: 2024M04 50 = 50 (unchanged), 2024M05 52 = 52, 2024M06 missing, Q02 new.
    pass("unchanged_fraction() == 1.0", &april, &hist);
    pass("max_abs_change() == 0.0", &april, &hist);
    pass(
        "is_nan(unchanged_fraction()) && is_nan(max_abs_change())",
        &april,
        &[],
    );
    let moved = curve(
        date(2024, 4, 1),
        &[
            ("M00", Some(50.0)),
            ("M01", Some(55.0)),
            ("M02", Some(49.0)),
        ],
    );
    let o = run("unchanged_fraction() < 0.3", &moved, &hist);
    assert_eq!(o.message, "unchanged_fraction() = 0.333333, expected < 0.3");
    let o = run("max_abs_change() <= 3", &moved, &hist);
    assert_eq!(o.message, "max_abs_change() = 4, expected <= 3");

    let unsorted = curve(
        d,
        &[("M02", Some(1.0)), ("M01", Some(1.0)), ("Q03", Some(1.0))],
    );
    let o = run("sorted()", &unsorted, &[]);
    assert_eq!(o.status, CheckStatus::Fail);
    assert_eq!(o.message, "the contracts are not in delivery order");
    pass("unique() && no_gaps()", &unsorted, &[]);
    let dup = curve(d, &[("M01", Some(1.0)), ("2024M04", Some(1.0))]);
    let o = run("unique()", &dup, &[]);
    assert_eq!(o.message, "a contract appears twice");
    let gap = curve(
        d,
        &[("M01", Some(1.0)), ("M03", Some(1.0)), ("Q03", Some(1.0))],
    );
    let o = run("no_gaps()", &gap, &[]);
    assert_eq!(o.message, "the delivery periods have gaps");
    pass("sorted() && unique()", &gap, &[]);
    let o = run("has_tenor(\"M02\")", &gap, &[]);
    assert_eq!(o.message, "tenor M02 is missing");
    let o = run("tenor_count() > 5", &gap, &[]);
    assert_eq!(o.message, "tenor_count() = 3, expected > 5");
    let o = run("contracts >= 5", &gap, &[]);
    assert_eq!(o.message, "contracts = 3, expected >= 5");
    // Balance-of contracts have no absolute code: keyed by delivery days, left out of order.
    let bom = curve(d, &[("BOM", Some(1.0)), ("M01", Some(2.0))]);
    pass(
        "sorted() && unique() && no_gaps() && contracts == 2",
        &bom,
        &[],
    );
}

// ---------------------------------------------------------------- native == rhai

fn term() -> impl Strategy<Value = String> {
    let window = prop_oneof![
        Just("mean"),
        Just("stdev"),
        Just("median"),
        Just("mad"),
        Just("min_of"),
        Just("max_of"),
        Just("count"),
        Just("zscore"),
        Just("robust_z"),
    ];
    prop_oneof![
        3 => Just("value".to_string()),
        1 => (0usize..4).prop_map(|k| format!("lag({k})")),
        1 => Just("prev()".to_string()),
        1 => Just("change()".to_string()),
        1 => (0usize..4).prop_map(|k| format!("change({k})")),
        1 => Just("pct_change()".to_string()),
        1 => (1usize..4).prop_map(|k| format!("pct_change({k})")),
        4 => (window, 0usize..8).prop_map(|(f, n)| format!("{f}({n})")),
        1 => (0usize..8, 0u32..=4).prop_map(|(n, q)| match q {
            0 => format!("quantile({n}, 0)"),
            4 => format!("quantile({n}, 1)"),
            q => format!("quantile({n}, {})", f64::from(q) / 4.0),
        }),
        1 => Just("run_length()".to_string()),
        1 => (0u32..3).prop_map(|t| format!("run_length({t}.5)")),
        1 => Just("gap()".to_string()),
        1 => Just("spike()".to_string()),
    ]
}

fn lit() -> impl Strategy<Value = String> {
    prop_oneof![
        (-5i32..30).prop_map(|i| i.to_string()),
        (-500i32..5000).prop_map(|i| format!("{:.2}", f64::from(i) / 100.0)),
        Just("0".to_string()),
        Just("1".to_string()),
        Just("3.5".to_string()),
    ]
}

fn number() -> impl Strategy<Value = String> {
    term().prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|n| format!("abs({n})")),
            inner.clone().prop_map(|n| format!("-({n})")),
            (inner.clone(), lit()).prop_map(|(n, l)| format!("min({n}, {l})")),
            (lit(), inner.clone()).prop_map(|(l, n)| format!("max({l}, {n})")),
            inner.clone().prop_map(|n| format!("round({n})")),
            inner.clone().prop_map(|n| format!("sqrt(abs({n}))")),
            (inner.clone(), lit(), lit()).prop_map(|(n, a, b)| format!("clamp({n}, {a}, {b})")),
            (inner.clone(), arith(), lit()).prop_map(|(n, o, l)| format!("({n} {o} {l})")),
            (lit(), arith(), inner.clone()).prop_map(|(l, o, n)| format!("({l} {o} {n})")),
            (inner.clone(), arith(), inner.clone(), arith(), lit())
                .prop_map(|(a, o, b, p, l)| format!("({a} {o} {b} {p} {l})")),
            // Integer arithmetic that rhai can do without an error (it is folded).
            (
                lit(),
                prop_oneof![Just("+"), Just("-"), Just("*")],
                lit(),
                inner
            )
                .prop_map(|(a, o, b, n)| format!("(({a} {o} {b}) * {n})")),
        ]
    })
}

fn arith() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("+"), Just("-"), Just("*"), Just("/"), Just("%")]
}

fn op() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("<"),
        Just("<="),
        Just(">"),
        Just(">="),
        Just("=="),
        Just("!=")
    ]
}

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (number(), op(), lit()).prop_map(|(n, o, l)| format!("{n} {o} {l}")),
        2 => (lit(), op(), number()).prop_map(|(l, o, n)| format!("{l} {o} {n}")),
        2 => (number(), op(), number()).prop_map(|(a, o, b)| format!("{a} {o} {b}")),
        3 => (number(), lit(), lit()).prop_map(|(n, a, b)| format!("between({n}, {a}, {b})")),
        1 => Just("is_missing()".to_string()),
        1 => Just("!is_missing()".to_string()),
        1 => Just("missing".to_string()),
        1 => number().prop_map(|n| format!("is_finite({n})")),
        1 => number().prop_map(|n| format!("is_zero({n})")),
        1 => number().prop_map(|n| format!("is_negative({n})")),
        1 => number().prop_map(|n| format!("on_tick({n}, 0.5)")),
    ]
}

fn expression() -> impl Strategy<Value = String> {
    atom().prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) || ({b})")),
            inner.clone().prop_map(|a| format!("!({a})")),
            (inner.clone(), inner.clone(), inner)
                .prop_map(|(c, a, b)| format!("if {c} {{ {a} }} else {{ {b} }}")),
        ]
    })
}

fn series() -> impl Strategy<Value = SeriesInput> {
    let value = prop_oneof![
        2 => Just(None),
        4 => (0i32..4).prop_map(|i| Some(f64::from(i))),
        6 => (-10_000i32..10_000).prop_map(|i| Some(f64::from(i) / 100.0)),
        1 => prop_oneof![Just(1e4), Just(-1e4), Just(5e6)].prop_map(Some),
        1 => prop_oneof![Just(0.0), Just(1.0 + f64::EPSILON), Just(1e-300)].prop_map(Some),
        1 => prop_oneof![Just(f64::INFINITY), Just(f64::NAN)].prop_map(Some),
    ];
    let step = prop_oneof![8 => Just(1i64), 1 => 2i64..5];
    (
        proptest::collection::vec((value, step), 1..60),
        any::<bool>(),
    )
        .prop_map(|(points, dense)| {
            let mut minute = 0;
            let mut s = SeriesInput {
                step_ms: dense.then_some(MIN),
                ..SeriesInput::default()
            };
            for (v, step) in points {
                minute += step;
                s.times.push(BASE + minute * MIN);
                s.values.push(v);
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// The native path and rhai give identical statuses and messages.
    #[test]
    fn native_equals_rhai(
        exprs in proptest::collection::vec(expression(), 1..4),
        s in series(),
        lookback in 0usize..12,
        first in 0usize..20,
    ) {
        let defs: Vec<CheckDef> = exprs
            .iter()
            .enumerate()
            .map(|(i, e)| point(&format!("p{i}"), e))
            .collect();
        let native = compile(&defs, &[]).unwrap();
        let ids: Vec<String> = defs.iter().map(|d| d.id.clone()).collect();
        prop_assert_eq!(native.native_ids(), ids, "not all native: {:?}", exprs);
        let rhai = compile_with(&defs, &[], Options { native: false }).unwrap();
        let targets: Vec<usize> = (first.min(s.values.len() - 1)..s.values.len()).collect();
        let a = strip(native.run_series(&s, &targets, lookback));
        let b = strip(rhai.run_series(&s, &targets, lookback));
        prop_assert_eq!(a, b, "{:?}", exprs);
    }
}

#[test]
fn number_text() {
    use super::native::fmt_num;
    assert_eq!(fmt_num(4520.0), "4520");
    assert_eq!(fmt_num(0.35000000000000003), "0.35");
    assert_eq!(fmt_num(-1.0 / 12.0), "-0.0833333");
    assert_eq!(fmt_num(1234567.89), "1234570");
    assert_eq!(fmt_num(f64::NAN), "NaN");
    assert_eq!(fmt_num(f64::NEG_INFINITY), "-inf");
    assert_eq!(fmt_num(-0.0), "0");
}

proptest! {
    /// The selection quantile equals the one read off a sorted copy (type 7).
    #[test]
    fn quantile_by_selection_equals_sorting(
        xs in proptest::collection::vec(prop_oneof![
            8 => -1e6f64..1e6,
            1 => Just(f64::NAN),
            1 => Just(f64::INFINITY),
            1 => Just(0.0),
        ], 1..60),
        q in prop_oneof![Just(0.0), Just(0.5), Just(1.0), 0.0f64..=1.0],
    ) {
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        let h = (sorted.len() - 1) as f64 * q;
        let lo = h.floor() as usize;
        let hi = (lo + 1).min(sorted.len() - 1);
        let want = sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]);
        let mut work = xs.clone();
        let got = super::series::quantile(&mut work, q);
        prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{got} vs {want}");
    }
}

proptest! {
    /// Window statistics computed on sliding sorted windows equal the ones computed from each
    /// target's window afresh (sorted copy, type 7 quantile).
    #[test]
    fn sliding_window_statistics_equal_fresh_ones(
        s in series(),
        lookback in 0usize..12,
        n in 0usize..12,
        first in 0usize..20,
        skip_some in any::<bool>(),
    ) {
        use super::native::PointStat;
        let len = s.values.len();
        let mut targets: Vec<usize> = (first.min(len - 1)..len).collect();
        if skip_some {
            targets.retain(|t| t % 3 != 1);
        }
        let ctx = super::series::SeriesCtx::new(&s, &targets, lookback, false);
        let values: Vec<f64> = s.values.iter().map(|v| v.unwrap_or(f64::NAN)).collect();
        let fresh = |t: usize| -> Vec<f64> {
            let w = n.min(lookback).min(t);
            let mut v: Vec<f64> = values[t - w..t].iter().copied().filter(|x| !x.is_nan()).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let q7 = |v: &[f64], q: f64| super::series::quantile_sorted(v, q);
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let median = ctx.column(PointStat::Median(n));
        let mad = ctx.column(PointStat::Mad(n));
        let q90 = ctx.column(PointStat::Quantile(n, 0.9f64.to_bits()));
        for (j, &t) in targets.iter().enumerate() {
            let w = fresh(t);
            let m = q7(&w, 0.5);
            let mut dev: Vec<f64> = w.iter().map(|x| (x - m).abs()).collect();
            dev.sort_by(f64::total_cmp);
            prop_assert!(same(median[j], m), "median at {t}: {} vs {m}", median[j]);
            prop_assert!(same(mad[j], q7(&dev, 0.5)), "mad at {t}");
            prop_assert!(same(q90[j], q7(&w, 0.9)), "q90 at {t}");
        }
    }
}
