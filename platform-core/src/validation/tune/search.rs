//! The threshold search: the smallest move of a literal that lets every false alarm pass,
//! rounded, and the best relaxation of a check among the moves of its literals.

use super::literals::{replace, replace_many, thresholds, Literal};
use crate::error::{ErrorCode, Result};
use crate::validation::engine::{CheckDef, Library};
use crate::validation::window::load::Loaded;
use crate::validation::window::numbers::{round_to, step_for};
use crate::validation::window::score::{score, Scored};
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

/// A point of the window (its position) and, for tenor checks, the tenor.
pub(super) type Spot = (usize, Option<String>);

/// One proposal for a check.
pub(super) struct Proposal {
    pub(super) expression: String,
    pub(super) scored: Scored,
    pub(super) lost: Vec<usize>,
}

/// The best proposal so far, with its rank: standing failures lost, failures in the window,
/// then the size of the change.
type Best = Option<(usize, usize, f64, Proposal)>;

/// The threshold search of one check over a window: the false alarms to let pass, and the
/// standing failures to keep.
pub(super) struct Search<'a> {
    pub(super) loaded: &'a Loaded,
    pub(super) def: &'a CheckDef,
    pub(super) libs: &'a [Library],
    pub(super) history: usize,
    pub(super) false_alarms: &'a [Spot],
    pub(super) standing: &'a [Spot],
}

impl Search<'_> {
    /// The best relaxation of the check: each group of equal literals moved alone, up and
    /// down; when no single move lets every false alarm pass, the groups moved together.
    pub(super) fn best(&self) -> Result<Option<Proposal>> {
        let def = self.def;
        let lits = thresholds(&def.expression);
        // Equal literals move together.
        let mut groups: BTreeMap<String, Vec<&Literal>> = BTreeMap::new();
        for l in &lits {
            groups
                .entry(def.expression[l.start..l.end].trim().to_string())
                .or_default()
                .push(l);
        }
        let mut best: Best = None;
        for spans in groups.values() {
            self.move_alone(spans, &mut best)?;
        }
        if best.is_some() || groups.len() < 2 {
            return Ok(best.map(|(_, _, _, p)| p));
        }
        self.move_together(&groups, &mut best)?;
        Ok(best.map(|(_, _, _, p)| p))
    }

    /// The check with another expression, scored over the window (None when it cannot run).
    fn run(&self, expr: &str) -> Result<Option<Scored>> {
        let mut d = self.def.clone();
        d.expression = expr.to_string();
        match score(self.loaded, &[d], self.libs, self.history) {
            Ok(mut s) => Ok(s.pop()),
            Err(e) if e.code() == ErrorCode::Internal => Err(e),
            Err(_) => Ok(None),
        }
    }

    /// Whether every false alarm passes.
    fn passes_all(&self, s: &Scored) -> bool {
        self.false_alarms
            .iter()
            .all(|(pt, t)| !s.fails_at(*pt, t.as_deref()))
    }

    /// Keeps a proposal when it ranks better than the best so far.
    fn consider(&self, best: &mut Best, expression: String, change: f64, scored: Scored) {
        let lost: Vec<usize> = self
            .standing
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
    }

    /// One group of equal literals moved alone, up then down, just far enough for every false
    /// alarm to pass (a float rounded outward when that still passes).
    fn move_alone(&self, spans: &[&Literal], best: &mut Best) -> Result<()> {
        let def = self.def;
        let (v, int) = (spans[0].value, spans.iter().all(|l| l.int));
        for dir in [1.0, -1.0] {
            let found = smallest_move(v, int, dir, |x| {
                Ok(self
                    .run(&replace(&def.expression, spans, x, int))?
                    .is_some_and(|s| self.passes_all(&s)))
            })?;
            let Some(exact) = found else {
                continue;
            };
            let mut chosen = exact;
            if !int {
                let nice = round_relaxed(exact, dir);
                // Rounding outward only relaxes further; keep the exact value if not.
                if self
                    .run(&replace(&def.expression, spans, nice, int))?
                    .is_some_and(|s| self.passes_all(&s))
                {
                    chosen = nice;
                }
            }
            let expression = replace(&def.expression, spans, chosen, int);
            let Some(scored) = self.run(&expression)? else {
                continue;
            };
            let change = (chosen - v).abs() / v.abs().max(1e-12);
            self.consider(best, expression, change, scored);
        }
        Ok(())
    }

    /// No single threshold passes them all (say overridden highs and lows of a band): move
    /// each threshold, in the direction that lets the most of them pass, just far enough for
    /// those, and try the moves together.
    fn move_together(
        &self,
        groups: &BTreeMap<String, Vec<&Literal>>,
        best: &mut Best,
    ) -> Result<()> {
        let def = self.def;
        let mut moves: Vec<(&[&Literal], f64, bool)> = Vec::new();
        for spans in groups.values() {
            let int = spans.iter().all(|l| l.int);
            if let Some(chosen) = self.partial_move(spans, int)? {
                moves.push((spans.as_slice(), chosen, int));
            }
        }
        if moves.len() > 1 {
            let expression = replace_many(&def.expression, &moves);
            if let Some(scored) = self.run(&expression)?.filter(|s| self.passes_all(s)) {
                let change = moves
                    .iter()
                    .map(|(spans, x, _)| {
                        (x - spans[0].value).abs() / spans[0].value.abs().max(1e-12)
                    })
                    .sum();
                self.consider(best, expression, change, scored);
            }
        }
        Ok(())
    }

    /// A group of equal literals moved in the direction that lets the most false alarms pass,
    /// just far enough for those (rounded outward for a float); None when neither helps.
    fn partial_move(&self, spans: &[&Literal], int: bool) -> Result<Option<f64>> {
        let (def, false_alarms) = (self.def, self.false_alarms);
        let v = spans[0].value;
        let far = if v != 0.0 { v.abs() } else { 1.0 } * 2f64.powi(30);
        let mut pick: Option<(f64, Vec<usize>)> = None;
        for dir in [1.0, -1.0] {
            let Some(s) = self.run(&replace(&def.expression, spans, v + dir * far, int))? else {
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
            return Ok(None);
        };
        let passes_helped = |s: &Scored| {
            helped.iter().all(|&i| {
                let (pt, t) = &false_alarms[i];
                !s.fails_at(*pt, t.as_deref())
            })
        };
        let found = smallest_move(v, int, dir, |x| {
            Ok(self
                .run(&replace(&def.expression, spans, x, int))?
                .is_some_and(|s| passes_helped(&s)))
        })?;
        Ok(found.map(|exact| {
            if int {
                exact
            } else {
                round_relaxed(exact, dir)
            }
        }))
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
