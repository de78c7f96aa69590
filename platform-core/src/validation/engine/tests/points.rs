//! The point built-ins on hand-made data, comparisons, history a function lacks, text values
//! and failure messages.
use super::*;

#[test]
fn point_values_and_predicates() {
    let s = hand();
    assert_eq!(num("value", &s, 4), "11");
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
        let o = outcome(expr, &s, target);
        assert_eq!(o.status, want, "{expr} at {target}: {o:?}");
    }
}

#[test]
fn comparisons_are_rhai_comparisons() {
    // rhai compares floats with a relative tolerance of one epsilon; a NaN (here inf - inf)
    // compares equal to 0 and false to anything else; an infinity compares false. The native
    // path does the same.
    let s = series_at(&[Some(f64::INFINITY), Some(1.0 + f64::EPSILON)], &[0, 1]);
    for (expr, target, want) in [
        ("value - value == 0", 0, CheckStatus::Pass),
        ("value - value <= 0", 0, CheckStatus::Pass),
        ("value - value >= 0", 0, CheckStatus::Pass),
        ("value - value != 0", 0, CheckStatus::Fail),
        ("value - value < 1", 0, CheckStatus::Fail),
        ("value - value > -1", 0, CheckStatus::Fail),
        (
            "is_finite(value - value) && value - value == 0",
            0,
            CheckStatus::Fail,
        ),
        ("value > 5", 0, CheckStatus::Fail),
        ("value < 5", 0, CheckStatus::Fail),
        ("value == 1", 1, CheckStatus::Pass),
        ("value > 1", 1, CheckStatus::Fail),
        ("abs(-3) == 3", 1, CheckStatus::Pass),
        ("min(2, 3) < 3", 1, CheckStatus::Pass),
    ] {
        let o = outcome(expr, &s, target);
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
        let o = outcome(expr, &s, 4);
        assert_eq!(o.status, CheckStatus::Pass, "{expr}: {o:?}");
    }
}

#[test]
fn history_functions_on_a_hand_made_series() {
    let s = hand();
    let at = |term: &str, target: usize| num(term, &s, target);
    // Target 4 (value 11): earlier 10, 12, 11, 11.
    assert_eq!(at("lag(0)", 4), "11");
    assert_eq!(at("lag(1)", 4), "11");
    assert_eq!(at("lag(3)", 4), "12");
    assert_eq!(at("lag(4)", 4), "10");
    assert_eq!(at("prev()", 4), "11");
    assert_eq!(at("change()", 4), "0");
    assert_eq!(at("change(4)", 4), "1");
    assert_eq!(at("pct_change(3)", 4), "-0.0833333");
    assert_eq!(at("pct_change(4)", 4), "0.1");
    assert_eq!(at("mean(3)", 4), "11.3333");
    assert_eq!(at("mean(4)", 4), "11");
    assert_eq!(at("stdev(4)", 4), "0.816497");
    assert_eq!(at("median(4)", 4), "11");
    assert_eq!(at("median(2)", 4), "11");
    assert_eq!(at("median(3)", 4), "11");
    assert_eq!(at("mad(4)", 4), "0.5");
    assert_eq!(at("min_of(4)", 4), "10");
    assert_eq!(at("max_of(4)", 4), "12");
    assert_eq!(at("quantile(4, 0.25)", 4), "10.75");
    assert_eq!(at("quantile(4, 1)", 4), "12");
    assert_eq!(at("count(4)", 4), "4");
    assert_eq!(at("zscore(4)", 4), "0");
    assert_eq!(at("robust_z(4)", 4), "0");
    assert_eq!(at("run_length()", 4), "3");
    assert_eq!(at("run_length(1.5)", 4), "5");
    assert_eq!(at("gap()", 4), "1");
    assert_eq!(at("spike()", 4), "0");
    // Target 7 (value 100): earlier 11, 11, 11, missing, 14.
    assert_eq!(at("mean(3)", 7), "12.5");
    assert_eq!(at("count(3)", 7), "2");
    assert_eq!(at("stdev(3)", 7), "2.12132");
    assert_eq!(at("zscore(3)", 7), "41.2479");
    assert_eq!(at("pct_change(1)", 7), "6.14286");
    assert_eq!(at("median(5)", 7), "11");
    assert_eq!(at("mad(5)", 7), "0");
    assert_eq!(at("robust_z(5)", 7), "NaN");
    assert_eq!(at("robust_z(6)", 7), "NaN");
    assert_eq!(at("run_length()", 7), "1");
    // Target 8 (value 15) scores the spike at 7: |100 - (14 + 15) / 2|.
    assert_eq!(at("spike()", 8), "85.5");
    // robust_z over 8's previous 4 (11, missing, 14, 100): median 14, mad 3.
    assert_eq!(at("median(4)", 8), "14");
    assert_eq!(at("mad(4)", 8), "3");
    assert_eq!(at("robust_z(4)", 8), "0.224833");
    // Target 9 comes 3 calendar steps after 8.
    assert_eq!(at("gap()", 9), "3");
    // Every window reads all it asks for, however far back.
    assert_eq!(at("mean(9)", 9), "23");
}

#[test]
fn a_function_without_the_history_it_needs_skips_the_check_and_says_why() {
    let s = hand();
    let skipped = |expr: &str, target: usize| {
        let o = outcome(expr, &s, target);
        assert_eq!(o.status, CheckStatus::Skipped, "{expr} at {target}: {o:?}");
        o.message
    };
    // Too few earlier observations: the first point, or a window longer than the series.
    assert_eq!(
        skipped("gap() <= 1", 0),
        "gap() needs 1 earlier point; none before 2024-01-01T00:00:00Z"
    );
    assert_eq!(
        skipped("abs(pct_change()) < 0.5", 0),
        "pct_change() needs 1 earlier point; none before 2024-01-01T00:00:00Z"
    );
    assert_eq!(
        skipped("value < mean(30) * 2", 4),
        "mean(30) needs 30 earlier points; only 4 before 2024-01-01T00:04:00Z"
    );
    assert_eq!(
        skipped("lag(5) > 0", 4),
        "lag(5) needs 5 earlier points; only 4 before 2024-01-01T00:04:00Z"
    );
    assert_eq!(
        skipped("count(50) > 1", 4),
        "count(50) needs 50 earlier points; only 4 before 2024-01-01T00:04:00Z"
    );
    assert_eq!(
        skipped("spike() < 10", 1),
        "spike() needs 2 earlier points; only 1 before 2024-01-01T00:01:00Z"
    );
    // No number where the function reads one (5 is missing).
    assert_eq!(
        skipped("lag(2) > 0", 7),
        "lag(2) needs a number 2 points back; there is none at 2024-01-01T00:05:00Z"
    );
    assert_eq!(
        skipped("spike() < 1000", 7),
        "spike() needs a number 2 points back; there is none at 2024-01-01T00:05:00Z"
    );
    assert_eq!(
        skipped("change() < 1000", 6),
        "change() needs a number 1 point back; there is none at 2024-01-01T00:05:00Z"
    );
    // Too few values in a whole window.
    assert_eq!(
        skipped("stdev(1) < 5", 4),
        "stdev(1) needs 2 values among the 1 earlier point; there is only 1"
    );
    assert_eq!(
        skipped("mean(1) > 0", 6),
        "mean(1) needs 1 value among the 1 earlier point; there are none"
    );
    assert_eq!(
        skipped("mean(0) > 0", 4),
        "mean(0) needs 1 value among the 0 earlier points; there are none"
    );
    // A sparse series has no gap.
    let mut sparse = hand();
    sparse.step_ms = None;
    let o = outcome("gap() <= 1", &sparse, 9);
    assert_eq!(
        (o.status, o.message.as_str()),
        (
            CheckStatus::Skipped,
            "gap() needs a daily or intraday calendar; this series has none"
        )
    );
    // The first function to lack history, in rhai's order, stops the check: what comes
    // before it still decides (a failing `&&` side, a passing `||` side).
    assert_eq!(
        outcome("value > 50 && gap() <= 1", &s, 0).status,
        CheckStatus::Fail
    );
    assert_eq!(
        outcome("value < 50 || gap() <= 1", &s, 0).status,
        CheckStatus::Pass
    );
    assert_eq!(
        skipped("value < 50 && (mean(3) > 0 || gap() <= 1)", 0),
        "mean(3) needs 3 earlier points; none before 2024-01-01T00:00:00Z"
    );
    // A statistic that is NaN by itself (a flat window) is not lacking history.
    assert_eq!(
        outcome("abs(robust_z(5)) < 3", &s, 7).status,
        CheckStatus::Fail
    );
    // A point gives the same result alone as in a range.
    let defs = [
        point("m", "mean(3) < 11.5"),
        point("r", "run_length() < 3"),
        point("g", "gap() <= 1"),
    ];
    let all = run_both(&defs, &s, &[0, 1, 2, 3, 4, 6, 7, 8, 9]);
    for p in &all {
        let alone = run_both(&defs, &s, &[p.index]);
        assert_eq!(strip(alone), strip(vec![p.clone()]));
    }
}

#[test]
fn a_text_value_fails_a_check_that_needs_a_number_and_is_read_by_one_that_wants_text() {
    let mut s = hand();
    s.values[3] = None;
    s.text.insert(3, "n/a".into());
    let at = |expr: &str| outcome(expr, &s, 3);
    for expr in [
        "value > 0",
        "between(value, 0, 50)",
        "abs(pct_change(1)) < 0.5",
        "run_length() < 5",
        "!is_missing() && value > 0",
        // In rhai only (strings, `time`).
        "value > 0 && time != \"\"",
    ] {
        let o = at(expr);
        assert_eq!(
            (o.status, o.message.as_str()),
            (CheckStatus::Fail, "value \"n/a\" is not a number"),
            "{expr}"
        );
    }
    // Checks that read no number at the point run there.
    assert_eq!(at("!is_missing()").status, CheckStatus::Pass);
    assert_eq!(at("missing").status, CheckStatus::Fail);
    assert_eq!(at("gap() <= 1").status, CheckStatus::Pass);
    assert_eq!(at("mean(3) < 12").status, CheckStatus::Pass);
    // A check that compares the value with text reads it.
    assert_eq!(at("value == \"n/a\"").status, CheckStatus::Pass);
    assert_eq!(
        at("value != \"n/a\"").message,
        "the expression is false: value \"n/a\""
    );
    assert_eq!(at("value in [\"ok\", \"n/a\"]").status, CheckStatus::Pass);
    assert_eq!(outcome("value == \"n/a\"", &s, 4).status, CheckStatus::Fail);
    // Later points see the text as no number.
    assert_eq!(
        outcome("lag(1) > 0", &s, 4).message,
        "lag(1) needs a number 1 point back; there is none at 2024-01-01T00:03:00Z"
    );
    assert_eq!(num("count(3)", &s, 4), "2");
    // A library function reading the value at a text point fails the same way.
    let lib = Library {
        id: "moves".into(),
        source: "fn jump() { abs(change()) }".into(),
    };
    let checks = compile(&[point("j", "jump() < 5")], &[lib]).unwrap();
    let out = checks.run_series(&s, &[3]);
    assert_eq!(
        (out[0].checks[0].status, out[0].checks[0].message.as_str()),
        (CheckStatus::Fail, "value \"n/a\" is not a number")
    );
}

#[test]
fn failure_messages_show_the_numbers() {
    let s = series_at(&[Some(10.0), Some(4520.0)], &[0, 1]);
    let msg = |e: &str| outcome(e, &s, 1).message;
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
        msg("value > 0 && value < mean(1)"),
        "value 4520, expected < mean(1) (10)"
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
        outcome("value > 0", &missing, 1).message,
        "value is missing"
    );
    assert_eq!(
        outcome("!is_missing() && value > 0", &missing, 1).message,
        "value is missing"
    );
    assert_eq!(outcome("value > 0", &s, 1).message, "");
}
