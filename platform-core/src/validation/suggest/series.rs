//! Candidate checks of a time series window, each threshold fitted on the older part.

use super::candidate::{candidate, Candidate};
use super::{MIN_FIT, MIN_VALUES, OUTLIER_FACTOR};
use crate::validation::engine::{CheckScope, SeriesInput, Severity};
use crate::validation::window::numbers::{
    amount, far_fences, float_literal, literal, median_mad, quantile, quantile_lower,
    quantile_rank, round_to, round_up_sig, run_lengths, short, sorted, step_for,
};

/// Candidates for a series window: `values` and `times` from the first loaded observation,
/// `first` the first window index, `fit_end` the end (exclusive) of the fitted part. Returns
/// the candidates, a message when some rules lacked data, and the lookback they need.
pub fn series_candidates(
    input: &SeriesInput,
    first: usize,
    fit_end: usize,
) -> (Vec<Candidate>, Option<String>, usize) {
    let fit = &input.values[first..fit_end];
    let present: Vec<f64> = fit.iter().flatten().copied().collect();
    let n = present.len();
    let mut out = Vec::new();
    let window_values = input.values[first..].iter().flatten().count();
    if window_values < MIN_VALUES {
        return (
            out,
            Some(format!(
                "only {window_values} values in the window: at least {MIN_VALUES} are needed to suggest checks; widen days"
            )),
            0,
        );
    }
    if n == 0 {
        return (
            out,
            Some("no value in the fitted (older) part of the window; widen days".into()),
            0,
        );
    }
    let s = sorted(present.iter().copied());
    let (min, max) = (s[0], s[n - 1]);
    out.extend(structural_checks(fit, n, min));
    if n < MIN_FIT {
        return (
            out,
            Some(format!(
                "only {n} values to fit thresholds on: range, move, stale and gap checks need at least {MIN_FIT}; widen days"
            )),
            0,
        );
    }
    let mut notes = Vec::new();
    match range_check(&s, n, min, max) {
        Ok(c) => out.push(c),
        Err(note) => notes.push(note),
    }
    out.extend(band_check(&present, n, min));
    match move_check(input, first, fit_end, min > 0.0) {
        Ok(c) => out.push(c),
        Err(note) => notes.push(note),
    }
    let mut lookback = 2;
    match stale_check(fit, n) {
        Ok((c, limit)) => {
            lookback = lookback.max(limit + 1);
            out.push(c);
        }
        Err(note) => notes.push(note),
    }
    out.extend(gap_check(input, first, fit_end));
    let message = (!notes.is_empty()).then(|| notes.join("; "));
    (out, message, lookback.min(1000))
}

/// No value missing in the fitted part, and the sign of the values (`n` of them, the lowest
/// `min`).
fn structural_checks(fit: &[Option<f64>], n: usize, min: f64) -> Vec<Candidate> {
    let mut out = Vec::new();
    if fit.iter().all(Option::is_some) {
        out.push(candidate(
            "not_missing",
            "Not missing",
            "!is_missing()".into(),
            CheckScope::Point,
            format!("none of the {} fitted observations was missing", fit.len()),
            false,
        ));
    }
    if min > 0.0 {
        out.push(candidate(
            "positive",
            "Positive",
            "value > 0".into(),
            CheckScope::Point,
            format!("all {n} fitted values were above 0 (lowest {})", short(min)),
            false,
        ));
    } else if min == 0.0 {
        out.push(candidate(
            "not_negative",
            "Not negative",
            "value >= 0".into(),
            CheckScope::Point,
            format!("no fitted value was below 0 ({n} values, lowest 0)"),
            false,
        ));
    }
    out
}

/// The range: Tukey's far fences of the sorted fitted values `s`, cut at 0 when no value was
/// below; a note when most values are equal.
fn range_check(s: &[f64], n: usize, min: f64, max: f64) -> Result<Candidate, String> {
    match far_fences(s) {
        Some((lo, hi)) => {
            let lo = if min >= 0.0 { lo.max(0.0) } else { lo };
            Ok(candidate(
                "range",
                "Range",
                format!("between(value, {}, {})", literal(lo), literal(hi)),
                CheckScope::Point,
                format!(
                    "the middle half of the {n} fitted values lies between {} and {} (lowest {}, highest {}); the band reaches 3 interquartile ranges beyond it, rounded outward{}",
                    short(quantile(s, 0.25)),
                    short(quantile(s, 0.75)),
                    short(min),
                    short(max),
                    if min >= 0.0 && lo == 0.0 { " and cut at 0" } else { "" }
                ),
                true,
            ))
        }
        None => Err("no range check: most fitted values are equal".to_string()),
    }
}

/// The usual band (a warning): median -/+ 4 robust standard deviations; none when the values
/// do not vary.
fn band_check(present: &[f64], n: usize, min: f64) -> Option<Candidate> {
    let (median, mad) = median_mad(present);
    if mad > 0.0 {
        let half = 4.0 * 1.4826 * mad;
        let step = step_for(2.0 * half);
        let lo = round_to(median - half, step, false);
        let lo = if min >= 0.0 { lo.max(0.0) } else { lo };
        let hi = round_to(median + half, step, true);
        let mut band = candidate(
            "band",
            "Usual band",
            format!("between(value, {}, {})", literal(lo), literal(hi)),
            CheckScope::Point,
            format!(
                "the {n} fitted values have median {} and median absolute deviation {}; the band is the median -/+ 4 x 1.4826 x MAD (about 4 standard deviations of normal data), rounded outward; a value outside it is worth a look",
                short(median),
                short(mad)
            ),
            true,
        );
        band.def.severity = Severity::Warning;
        Some(band)
    } else {
        None
    }
}

/// Moves against the two previous observations (`relative`: as a share of the previous
/// value), fitted without the moves far beyond the usual one.
fn move_check(
    input: &SeriesInput,
    first: usize,
    fit_end: usize,
    relative: bool,
) -> Result<Candidate, String> {
    let lag = |i: usize, k: usize| i.checked_sub(k).and_then(|j| input.values[j]);
    let moves = sorted((first..fit_end).filter_map(|i| {
        let v = input.values[i]?;
        let m = |k| {
            lag(i, k).and_then(|p: f64| {
                let d = v - p;
                if relative {
                    (p != 0.0).then(|| (d / p.abs()).abs())
                } else {
                    Some(d.abs())
                }
            })
        };
        Some(m(1)?.min(m(2)?))
    }));
    // Moves far beyond the usual one (spikes in the fitted part) stay out of the fit.
    let usual = quantile(&moves, 0.5);
    let all_moves = moves.len();
    let moves: Vec<f64> = moves
        .into_iter()
        .filter(|m| !(usual > 0.0 && *m > OUTLIER_FACTOR * usual))
        .collect();
    let left_out = all_moves - moves.len();
    let q95 = quantile_lower(&moves, 0.95);
    if moves.len() >= MIN_FIT && q95 > 0.0 {
        let x = round_up_sig(3.0 * q95);
        let f = if relative { "pct_change" } else { "change" };
        Ok(candidate(
        "move",
        "Move",
        format!("!(abs({f}(1)) > {x} && abs({f}(2)) > {x})", x = float_literal(x)),
        CheckScope::Point,
        format!(
            "95% of the {} fitted values moved at most {} from the nearer of the two previous values{}; the limit is three times that, rounded up: a value fails when it moved more than {} from both, as a spike does (the value after it, back to normal, passes)",
            moves.len(),
            amount(q95, relative),
            if left_out > 0 {
                format!(" ({left_out} move(s) more than {OUTLIER_FACTOR} times the median move left out)")
            } else {
                String::new()
            },
            amount(x, relative)
        ),
        true,
    ))
    } else {
        Err("no move check: too few consecutive values, or they never moved".into())
    }
}

/// Runs of one repeated value in the fitted part (`n` values): the check and its limit.
fn stale_check(fit: &[Option<f64>], n: usize) -> Result<(Candidate, usize), String> {
    let mut runs = run_lengths(fit);
    runs.sort_unstable();
    let longest = runs.last().copied().unwrap_or(0);
    match quantile_rank(&runs, 0.95) {
        Some(q) if q * 4 <= n => {
            let limit = (2 * q).max(q + 2);
            let check = candidate(
                "stale",
                "Stale",
                format!("run_length() <= {limit}"),
                CheckScope::Point,
                format!(
                    "95% of the {} runs of one repeated value in the fitted part were at most {q} long (longest {longest}); the same value more than {limit} times in a row fails",
                    runs.len()
                ),
                true,
            );
            Ok((check, limit))
        }
        _ => Err("no stale check: the series mostly repeats its values".into()),
    }
}

/// Gaps between observations, in calendar steps (a series with a calendar step only).
fn gap_check(input: &SeriesInput, first: usize, fit_end: usize) -> Option<Candidate> {
    let step = input.step_ms.filter(|s| *s > 0)?;
    let mut gaps: Vec<usize> = (first.max(1)..fit_end)
        .map(|i| ((input.times[i] - input.times[i - 1]) / step).max(0) as usize)
        .collect();
    gaps.sort_unstable();
    let q = quantile_rank(&gaps, 0.95)?;
    let limit = (2 * q).max(q + 1);
    Some(candidate(
        "gap",
        "Gap",
        format!("!(gap() > {limit})"),
        CheckScope::Point,
        format!(
            "95% of the {} fitted observations came at most {q} calendar step(s) after the previous one (most {}); more than {limit} steps fails",
            gaps.len(),
            gaps.last().copied().unwrap_or(0)
        ),
        true,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::engine::{self, CheckDef};

    fn daily(values: &[Option<f64>]) -> SeriesInput {
        SeriesInput {
            times: (0..values.len() as i64).map(|i| i * 86_400_000).collect(),
            values: values.to_vec(),
            step_ms: Some(86_400_000),
            ..SeriesInput::default()
        }
    }

    #[test]
    fn series_candidates_are_robust_to_a_defect_in_the_fitted_part() {
        let mut v: Vec<Option<f64>> = (0..100)
            .map(|i| Some(50.0 + f64::from((i * 7) % 13) * 0.5))
            .collect();
        v[20] = Some(500.0);
        let input = daily(&v);
        let (c, message, lookback) = series_candidates(&input, 0, 80);
        assert!(message.is_none(), "{message:?}");
        let expr = |id: &str| {
            c.iter()
                .find(|c| c.def.id == id)
                .map(|c| c.def.expression.clone())
                .unwrap_or_default()
        };
        assert_eq!(expr("positive"), "value > 0");
        let range = expr("range");
        assert!(range.starts_with("between(value, "), "{range}");
        let hi: f64 = range
            .trim_end_matches(')')
            .rsplit(", ")
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(hi < 100.0, "the spike does not widen the range: {range}");
        assert_eq!(expr("stale"), "run_length() <= 3");
        assert_eq!(expr("gap"), "!(gap() > 2)");
        // Values 50..56 by halves, median 53, MAD 1.5: 53 -/+ 8.9 rounded outward.
        assert_eq!(expr("band"), "between(value, 44, 62)");
        let band = c.iter().find(|c| c.def.id == "band").unwrap();
        assert_eq!(band.def.severity, Severity::Warning);
        assert!(lookback >= 4);
        assert!(expr("move").starts_with("!(abs(pct_change(1)) > 0."));
    }

    #[test]
    fn suggested_point_checks_run_natively_and_curve_checks_compile() {
        let v: Vec<Option<f64>> = (0..100)
            .map(|i| Some(50.0 + f64::from((i * 7) % 13) * 0.5))
            .collect();
        let (c, _, _) = series_candidates(&daily(&v), 0, 80);
        let defs: Vec<CheckDef> = c.iter().map(|c| c.def.clone()).collect();
        let compiled = engine::compile(&defs, &[]).unwrap();
        let all: Vec<String> = defs.iter().map(|d| d.id.clone()).collect();
        assert_eq!(compiled.native_ids(), all);
        assert_eq!(all.len(), 7, "{all:?}");
        compiled.trial().unwrap();
    }

    #[test]
    fn too_little_data_gives_a_message() {
        let input = daily(&[Some(1.0), Some(2.0), Some(3.0)]);
        let (c, message, _) = series_candidates(&input, 0, 3);
        assert!(c.is_empty());
        assert!(message.unwrap().contains("at least 5"));
        let v: Vec<Option<f64>> = (0..12).map(|i| Some(f64::from(i) + 1.0)).collect();
        let (c, message, _) = series_candidates(&daily(&v), 0, 10);
        assert!(message.unwrap().contains("at least 30"));
        let ids: Vec<&str> = c.iter().map(|c| c.def.id.as_str()).collect();
        assert_eq!(ids, vec!["not_missing", "positive"]);
    }
}
