//! Candidate checks of curves: contract values, the curve's shape and contract moves.

use super::candidate::{candidate, Candidate};
use super::{MIN_FIT, OUTLIER_FACTOR};
use crate::validation::engine::{CheckScope, CurveInput};
use crate::validation::window::numbers::{
    amount, float_literal, median_mad, quantile, quantile_lower, quantile_rank, round_up_sig,
    short, sorted,
};

/// Candidates for curves: `curves[first..fit_end]` are fitted (earlier ones are history).
pub fn curve_candidates(
    curves: &[CurveInput],
    first: usize,
    fit_end: usize,
) -> (Vec<Candidate>, Option<String>) {
    let mut out = Vec::new();
    let window = curves.len() - first;
    if window < 2 {
        return (
            out,
            Some(format!(
                "only {window} curve(s) in the window: at least 2 are needed to suggest checks; widen days"
            )),
        );
    }
    let fit = &curves[first..fit_end];
    let values: Vec<Option<f64>> = fit
        .iter()
        .flat_map(|c| c.contracts.iter().map(|k| k.value))
        .collect();
    let present = sorted(values.iter().flatten().copied());
    if present.is_empty() {
        return (out, Some("no contract value in the fitted curves".into()));
    }
    out.extend(value_checks(fit, &values, &present));
    out.extend(tenor_count_check(fit));
    out.extend(shape_checks(fit));
    let message = match move_check(curves, first, fit_end, present[0] > 0.0) {
        Ok(c) => {
            out.push(c);
            None
        }
        Err(note) => Some(note),
    };
    (out, message)
}

/// No contract value missing in the fitted curves, and values above 0 (`present`: the
/// values there, sorted).
fn value_checks(fit: &[CurveInput], values: &[Option<f64>], present: &[f64]) -> Vec<Candidate> {
    let mut out = Vec::new();
    let n = present.len();
    if values.iter().all(Option::is_some) {
        out.push(candidate(
            "not_missing",
            "Not missing",
            "!is_missing()".into(),
            CheckScope::Tenor,
            format!(
                "none of the {} contracts of the {} fitted curves was missing a value",
                values.len(),
                fit.len()
            ),
            false,
        ));
    }
    if present[0] > 0.0 {
        out.push(candidate(
            "positive",
            "Positive",
            "value > 0".into(),
            CheckScope::Tenor,
            format!(
                "all {n} fitted contract values were above 0 (lowest {})",
                short(present[0])
            ),
            false,
        ));
    }
    out
}

/// The number of contracts with a value: from the 10% quantile to the most seen.
fn tenor_count_check(fit: &[CurveInput]) -> Option<Candidate> {
    let mut counts: Vec<usize> = fit
        .iter()
        .map(|c| c.contracts.iter().filter(|k| k.value.is_some()).count())
        .collect();
    counts.sort_unstable();
    if let (Some(lo), Some(&hi)) = (quantile_rank(&counts, 0.1), counts.last()) {
        Some(candidate(
            "tenor_count",
            "Tenor count",
            format!("between(tenor_count(), {lo}, {hi})"),
            CheckScope::Curve,
            format!(
                "the {} fitted curves had {}..{hi} contracts with a value; the lower bound is the 10% quantile ({lo}), so a curve missing contracts fails",
                fit.len(),
                counts[0]
            ),
            true,
        ))
    } else {
        None
    }
}

/// The shape of a curve: no gaps, sorted, unique, not a copy of the previous one.
fn shape_checks(fit: &[CurveInput]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (id, name, expr, why) in [
        (
            "no_gaps",
            "No gaps",
            "no_gaps()",
            "no delivery period was skipped",
        ),
        (
            "sorted",
            "Sorted",
            "sorted()",
            "the contracts were in delivery order",
        ),
        (
            "unique",
            "Unique",
            "unique()",
            "no delivery period appeared twice",
        ),
        (
            "not_stale",
            "Not stale",
            "!(unchanged_fraction() >= 1.0)",
            "no curve repeated every value of the previous one",
        ),
    ] {
        out.push(candidate(
            id,
            name,
            expr.into(),
            CheckScope::Curve,
            format!("on the {} fitted curves {why}", fit.len()),
            false,
        ));
    }
    out
}

/// Per fitted curve, the moves of its contracts against the nearer of their two previous
/// curves (matched by absolute delivery period; `relative`: as a share).
fn contract_moves(
    curves: &[CurveInput],
    first: usize,
    fit_end: usize,
    relative: bool,
) -> Vec<Vec<f64>> {
    let find = |c: &CurveInput, abs: &str| {
        c.contracts
            .iter()
            .find(|k| k.absolute == abs)
            .and_then(|k| k.value)
    };
    let mut per_curve: Vec<Vec<f64>> = Vec::new();
    for i in first..fit_end {
        let mut moves = Vec::new();
        for k in &curves[i].contracts {
            let (Some(v), false) = (k.value, k.absolute.is_empty()) else {
                continue;
            };
            let m = |back: usize| {
                let j = i.checked_sub(back)?;
                let p = find(&curves[j], &k.absolute)?;
                if relative {
                    (p != 0.0).then(|| ((v - p) / p.abs()).abs())
                } else {
                    Some((v - p).abs())
                }
            };
            if let (Some(a), Some(b)) = (m(1), m(2)) {
                moves.push(a.min(b));
            }
        }
        if !moves.is_empty() {
            per_curve.push(moves);
        }
    }
    per_curve
}

/// Contract moves, fitted without the curves whose typical move is far beyond the usual; a
/// note when too few moves could be measured.
fn move_check(
    curves: &[CurveInput],
    first: usize,
    fit_end: usize,
    relative: bool,
) -> Result<Candidate, String> {
    let per_curve = contract_moves(curves, first, fit_end, relative);
    // A curve whose typical move is far beyond the others' (a shifted curve) stays out of
    // the fit, so that defects in the fitted part do not set the threshold.
    let typical: Vec<f64> = per_curve.iter().map(|m| median_mad(m).0).collect();
    let usual = quantile(&sorted(typical.iter().copied()), 0.5);
    let mut left_out = 0;
    let mut moves = Vec::new();
    for (m, t) in per_curve.into_iter().zip(&typical) {
        if usual > 0.0 && *t > OUTLIER_FACTOR * usual {
            left_out += 1;
        } else {
            moves.extend(m);
        }
    }
    let moves = sorted(moves);
    let q95 = quantile_lower(&moves, 0.95);
    if moves.len() >= MIN_FIT && q95 > 0.0 {
        let x = round_up_sig(3.0 * q95);
        let f = if relative {
            "tenor_pct_change"
        } else {
            "tenor_change"
        };
        Ok(candidate(
            "tenor_move",
            "Tenor move",
            format!("!(abs({f}(1)) > {x} && abs({f}(2)) > {x})", x = float_literal(x)),
            CheckScope::Tenor,
            format!(
                "95% of {} fitted contract prices moved at most {} from the nearer of their two previous curves{}; the limit is three times that, rounded up: a contract fails when it moved more than {} from both (a shifted curve), while the curve after it passes",
                moves.len(),
                amount(q95, relative),
                if left_out > 0 {
                    format!(" ({left_out} curve(s) whose typical move was more than {OUTLIER_FACTOR} times the usual left out)")
                } else {
                    String::new()
                },
                amount(x, relative)
            ),
            true,
        ))
    } else {
        Err(format!(
            "no move check: {} contract moves could be measured, at least {MIN_FIT} are needed",
            moves.len()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::engine::{self, CheckDef, ContractInput};
    use chrono::NaiveDate;
    #[test]
    fn curve_fits_leave_a_shifted_curve_out() {
        let date = |d: u32| NaiveDate::from_ymd_opt(2024, 5, d).unwrap();
        let curves: Vec<CurveInput> = (1..=31u32)
            .map(|d| {
                let factor = if d == 10 || d == 20 { 1.3 } else { 1.0 };
                CurveInput {
                    ondate: date(d),
                    contracts: (0..6u32)
                        .map(|m| {
                            let code = format!("2025M{:02}", m + 1);
                            ContractInput {
                                tenor: code.clone(),
                                relative: String::new(),
                                absolute: code,
                                value: Some(
                                    (40.0 + f64::from(m) + f64::from((d * 7 + m) % 5) * 0.1)
                                        * factor,
                                ),
                                text: None,
                                start: date(1),
                                end: date(1),
                                expiry: date(1),
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        let (c, message) = curve_candidates(&curves, 2, 31);
        assert!(message.is_none(), "{message:?}");
        let moves = c.iter().find(|c| c.def.id == "tenor_move").unwrap();
        assert!(moves.reason.contains("2 curve(s)"), "{}", moves.reason);
        // Day-to-day moves are below 1.5%: the limit stays far below the 30% shift.
        let x: f64 = moves
            .def
            .expression
            .rsplit("> ")
            .next()
            .unwrap()
            .trim_end_matches(')')
            .parse()
            .unwrap();
        assert!(x < 0.1, "{}", moves.def.expression);
        let defs: Vec<CheckDef> = c.iter().map(|c| c.def.clone()).collect();
        engine::compile(&defs, &[]).unwrap().trial().unwrap();
    }
}
