//! The point built-ins on hand-made data, comparisons, the lookback and failure messages.
use super::*;

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
