//! The threshold search: the smallest move of a literal that lets every false alarm pass,
//! rounded, and the best relaxation of a check among the moves of its literals.

use super::literals::{replace, replace_many, thresholds, Literal};
use crate::error::{ErrorCode, Result};
use crate::validation::engine::{CheckDef, Library};
use crate::validation::window::load::Loaded;
use crate::validation::window::numbers::{round_to, step_for};
use crate::validation::window::score::{score, Scored};
use crate::Platform;
use std::collections::BTreeMap;

/// The smallest move of `v` in direction `dir` (+1 up, -1 down) for which `passes` holds,
/// found by doubling then bisection (to 0.1% of the move for a float); whole numbers move by
/// whole steps. None when no move
/// up to a billion times the value's size passes.
pub fn smallest_move(
    v: f64,
    int: bool,
    dir: f64,
    mut passes: impl FnMut(f64) -> Result<bool>,
) -> Result<Option<f64>> {
    let base = if v != 0.0 { v.abs() } else { 1.0 };
    let delta = |k: i32| {
        let d = base * 2f64.powi(k - 6);
        if int {
            d.round().max(1.0)
        } else {
            d
        }
    };
    let mut lo = 0.0;
    let mut hi = None;
    for k in 0..=36 {
        let d = delta(k);
        if passes(v + dir * d)? {
            hi = Some(d);
            break;
        }
        lo = d;
    }
    let Some(mut hi) = hi else {
        return Ok(None);
    };
    for _ in 0..40 {
        if int && hi - lo <= 1.0 {
            break;
        }
        // A float is then widened 2% and rounded to two significant digits: 0.1% is enough.
        if !int && ((hi - lo) <= 1e-3 * hi || (hi - lo) <= 1e-9 * base) {
            break;
        }
        let mid = if int {
            ((lo + hi) / 2.0).floor()
        } else {
            (lo + hi) / 2.0
        };
        if passes(v + dir * mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(v + dir * hi))
}

/// A float threshold widened by 2% of its size and rounded outward to two significant digits.
pub fn round_relaxed(x: f64, dir: f64) -> f64 {
    let widened = x + dir * 0.02 * x.abs();
    if widened == 0.0 {
        return 0.0;
    }
    round_to(widened, step_for(widened), dir > 0.0)
}

/// One proposal for a check.
pub(super) struct Proposal {
    pub(super) expression: String,
    pub(super) scored: Scored,
    pub(super) lost: Vec<usize>,
}

impl Platform {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn best_relaxation(
        &self,
        loaded: &Loaded,
        def: &CheckDef,
        libs: &[Library],
        lookback: usize,
        history: usize,
        false_alarms: &[(usize, Option<String>)],
        standing: &[(usize, Option<String>)],
    ) -> Result<Option<Proposal>> {
        let lits = thresholds(&def.expression);
        // Equal literals move together.
        let mut groups: BTreeMap<String, Vec<&Literal>> = BTreeMap::new();
        for l in &lits {
            groups
                .entry(def.expression[l.start..l.end].trim().to_string())
                .or_default()
                .push(l);
        }
        let run = |expr: &str| -> Result<Option<Scored>> {
            let mut d = def.clone();
            d.expression = expr.to_string();
            match score(loaded, &[d], libs, lookback, history) {
                Ok(mut s) => Ok(s.pop()),
                Err(e) if e.code() == ErrorCode::Internal => Err(e),
                Err(_) => Ok(None),
            }
        };
        let passes_all = |s: &Scored| {
            false_alarms
                .iter()
                .all(|(pt, t)| !s.fails_at(*pt, t.as_deref()))
        };
        type Best = Option<(usize, usize, f64, Proposal)>;
        let mut best: Best = None;
        let consider = |best: &mut Best, expression: String, change: f64, scored: Scored| {
            let lost: Vec<usize> = standing
                .iter()
                .enumerate()
                .filter(|(_, (pt, t))| !scored.fails_at(*pt, t.as_deref()))
                .map(|(i, _)| i)
                .collect();
            let rank = (lost.len(), scored.fails.len());
            let better = best
                .as_ref()
                .is_none_or(|(l, f, c, _)| rank < (*l, *f) || (rank == (*l, *f) && change < *c));
            if better {
                *best = Some((
                    rank.0,
                    rank.1,
                    change,
                    Proposal {
                        expression,
                        scored,
                        lost,
                    },
                ));
            }
        };
        for spans in groups.values() {
            let (v, int) = (spans[0].value, spans.iter().all(|l| l.int));
            for dir in [1.0, -1.0] {
                let found = smallest_move(v, int, dir, |x| {
                    Ok(run(&replace(&def.expression, spans, x, int))?
                        .is_some_and(|s| passes_all(&s)))
                })?;
                let Some(exact) = found else {
                    continue;
                };
                let mut chosen = exact;
                if !int {
                    let nice = round_relaxed(exact, dir);
                    // Rounding outward only relaxes further; keep the exact value if not.
                    if run(&replace(&def.expression, spans, nice, int))?
                        .is_some_and(|s| passes_all(&s))
                    {
                        chosen = nice;
                    }
                }
                let expression = replace(&def.expression, spans, chosen, int);
                let Some(scored) = run(&expression)? else {
                    continue;
                };
                let change = (chosen - v).abs() / v.abs().max(1e-12);
                consider(&mut best, expression, change, scored);
            }
        }
        if best.is_some() || groups.len() < 2 {
            return Ok(best.map(|(_, _, _, p)| p));
        }
        // No single threshold passes them all (say overridden highs and lows of a band): move
        // each threshold, in the direction that lets the most of them pass, just far enough
        // for those, and try the moves together.
        let mut moves: Vec<(&[&Literal], f64, bool)> = Vec::new();
        for spans in groups.values() {
            let (v, int) = (spans[0].value, spans.iter().all(|l| l.int));
            let far = if v != 0.0 { v.abs() } else { 1.0 } * 2f64.powi(30);
            let mut pick: Option<(f64, Vec<usize>)> = None;
            for dir in [1.0, -1.0] {
                let Some(s) = run(&replace(&def.expression, spans, v + dir * far, int))? else {
                    continue;
                };
                let helped: Vec<usize> = (0..false_alarms.len())
                    .filter(|&i| {
                        let (pt, t) = &false_alarms[i];
                        !s.fails_at(*pt, t.as_deref())
                    })
                    .collect();
                if !helped.is_empty() && pick.as_ref().is_none_or(|(_, h)| helped.len() > h.len()) {
                    pick = Some((dir, helped));
                }
            }
            let Some((dir, helped)) = pick else {
                continue;
            };
            let passes_helped = |s: &Scored| {
                helped.iter().all(|&i| {
                    let (pt, t) = &false_alarms[i];
                    !s.fails_at(*pt, t.as_deref())
                })
            };
            let found = smallest_move(v, int, dir, |x| {
                Ok(run(&replace(&def.expression, spans, x, int))?
                    .is_some_and(|s| passes_helped(&s)))
            })?;
            if let Some(exact) = found {
                let chosen = if int {
                    exact
                } else {
                    round_relaxed(exact, dir)
                };
                moves.push((spans.as_slice(), chosen, int));
            }
        }
        if moves.len() > 1 {
            let expression = replace_many(&def.expression, &moves);
            if let Some(scored) = run(&expression)?.filter(|s| passes_all(s)) {
                let change = moves
                    .iter()
                    .map(|(spans, x, _)| {
                        (x - spans[0].value).abs() / spans[0].value.abs().max(1e-12)
                    })
                    .sum();
                consider(&mut best, expression, change, scored);
            }
        }
        Ok(best.map(|(_, _, _, p)| p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn the_smallest_move_is_found_by_bisection() {
        // Passes once the threshold reaches 68.3.
        let up = smallest_move(60.0, false, 1.0, |x| Ok(x >= 68.3))
            .unwrap()
            .unwrap();
        assert!(up >= 68.3 && up - 68.3 < 0.01, "{up}");
        assert_eq!(round_relaxed(up, 1.0), 70.0);
        let down = smallest_move(20.0, true, -1.0, |x| Ok(x <= 13.0)).unwrap();
        assert_eq!(down, Some(13.0));
        assert_eq!(smallest_move(1.0, false, 1.0, |_| Ok(false)).unwrap(), None);
        assert_eq!(round_relaxed(0.0431, 1.0), 0.044);
        assert_eq!(round_relaxed(13.7, -1.0), 13.0);
    }
}
