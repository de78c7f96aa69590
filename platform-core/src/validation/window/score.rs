//! Scoring checks over a window with the engine: per check, how many evaluations ran at each
//! point and which failed ([`FailingPoint`] as the answers show one).

use super::load::{Data, Loaded};
use super::numbers::rounded;
use crate::error::Result;
use crate::validation::engine::{self, CheckDef, CheckStatus, CurveInput, Library};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A failing evaluation: where and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cell {
    /// Position in the window.
    pub point: usize,
    /// The contract (tenor checks).
    pub tenor: Option<String>,
    /// The value checked.
    pub value: Option<f64>,
    /// Fail or Error.
    pub status: CheckStatus,
    /// The engine's message.
    pub message: String,
}

/// One check over the window.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scored {
    /// Per window point, how many evaluations ran (were not skipped).
    pub ran: Vec<u32>,
    /// The failing evaluations, in window order.
    pub fails: Vec<Cell>,
}

impl Scored {
    /// Evaluations that ran from window position `from` on.
    pub fn runs_from(&self, from: usize) -> usize {
        self.ran.iter().skip(from).map(|n| *n as usize).sum()
    }

    /// Failures from window position `from` on.
    pub fn fails_from(&self, from: usize) -> usize {
        self.fails.iter().filter(|c| c.point >= from).count()
    }

    /// Whether an evaluation at `point` (and `tenor`, for tenor checks) failed.
    pub fn fails_at(&self, point: usize, tenor: Option<&str>) -> bool {
        self.fails
            .iter()
            .any(|c| c.point == point && (tenor.is_none() || c.tenor.as_deref() == tenor))
    }
}

/// Runs checks over the window of `loaded`: each point check reads the earlier observations
/// it needs, each curve `history` earlier curves or the more its checks need. One [`Scored`]
/// per def, in order.
pub(crate) fn score(
    loaded: &Loaded,
    defs: &[CheckDef],
    libs: &[Library],
    history: usize,
) -> Result<Vec<Scored>> {
    let compiled = engine::compile(defs, libs)?;
    let history = history.max(compiled.curve_history());
    let n = loaded.len();
    let mut out: Vec<Scored> = defs
        .iter()
        .map(|_| Scored {
            ran: vec![0; n],
            fails: Vec::new(),
        })
        .collect();
    let index: HashMap<&str, usize> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id.as_str(), i))
        .collect();
    let first = loaded.first;
    match &loaded.data {
        Data::Series { input, .. } => {
            let targets: Vec<usize> = (first..input.times.len()).collect();
            let eval = compiled.evaluate_series(input, &targets);
            for (c, id) in eval.check_ids().iter().enumerate() {
                let Some(&d) = index.get(id.as_str()) else {
                    continue;
                };
                for t in 0..eval.target_count() {
                    let pos = eval.index(t) - first;
                    let status = eval.status(c, t);
                    if status != CheckStatus::Skipped {
                        out[d].ran[pos] += 1;
                    }
                    if matches!(status, CheckStatus::Fail | CheckStatus::Error) {
                        out[d].fails.push(Cell {
                            point: pos,
                            tenor: None,
                            value: input.values[eval.index(t)],
                            status,
                            message: eval.message(c, t).to_string(),
                        });
                    }
                }
            }
        }
        Data::Curves { curves } => {
            for pos in 0..n {
                let i = first + pos;
                let past: Vec<CurveInput> =
                    curves[..i].iter().rev().take(history).cloned().collect();
                let outcome = compiled.run_curve(&curves[i], &past);
                let mut record = |o: &engine::CheckOutcome, tenor: Option<(&str, Option<f64>)>| {
                    let Some(&d) = index.get(o.id.as_str()) else {
                        return;
                    };
                    if o.status != CheckStatus::Skipped {
                        out[d].ran[pos] += 1;
                    }
                    if matches!(o.status, CheckStatus::Fail | CheckStatus::Error) {
                        out[d].fails.push(Cell {
                            point: pos,
                            tenor: tenor.map(|(t, _)| t.to_string()),
                            value: tenor.and_then(|(_, v)| v),
                            status: o.status,
                            message: o.message.clone(),
                        });
                    }
                };
                for o in &outcome.curve {
                    record(o, None);
                }
                for (t, contract) in outcome.tenors.iter().zip(&curves[i].contracts) {
                    for o in &t.checks {
                        record(o, Some((&t.tenor, contract.value)));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// A point of the window failing a check, as `suggest` (a check's `example`) and `tune` (its
/// `failingPoints`) show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailingPoint {
    /// The point (observation time or ondate).
    pub point: String,
    /// The value there (a curve: the contract's), to six decimals.
    pub value: Option<f64>,
    /// The check's message.
    pub message: String,
    /// A curve: the tenor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenor: Option<String>,
    /// Whether the check could not run there.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
}

/// A failing evaluation as the answers show it.
pub(crate) fn failing_point(loaded: &Loaded, c: &Cell) -> FailingPoint {
    FailingPoint {
        point: loaded.label(c.point),
        value: c.value.and_then(rounded),
        message: c.message.clone(),
        tenor: c.tenor.clone(),
        error: c.status == CheckStatus::Error,
    }
}
