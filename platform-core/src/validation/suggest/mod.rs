//! `suggest`: checks proposed from a data item's recent history; nothing is stored.
//!
//! A request names up to [`MAX_TARGETS`] data items of one kind and a window (`days` back from
//! today, 1..=366, default 30; curves also keep only the newest `maxCurves`, 2..=60, default
//! 25). Per item the answer has the window's statistics and a list of checks, each scored with
//! the engine on every point of the window, and a `config` made of the checks worth keeping,
//! which can be saved unchanged.
//!
//! How thresholds are chosen (fitted on the oldest 80% of the window, reported on all of it,
//! with the newest 20% also reported apart as `holdout`):
//!
//! | check | rule |
//! |---|---|
//! | `!is_missing()` | no value missing in the fitted part |
//! | `value > 0` / `value >= 0` | the fitted minimum is above / at 0 |
//! | `between(value, lo, hi)` (warning, `band`) | median -/+ 4 x 1.4826 x MAD, rounded outward to two significant digits of the band width |
//! | `between(value, lo, hi)` (`range`) | Tukey's far fences: quartiles ∓ 3 interquartile ranges, rounded outward to two significant digits of the band width, cut at 0 when the series never went below |
//! | `!(abs(pct_change(1)) > x && abs(pct_change(2)) > x)` | x = three times the 95% quantile (rank below) of the smaller of the two moves (moves beyond 8 times the median move, and for curves the curves whose median move is, left out of the fit), rounded up to two significant digits (`change` when values reach 0 or below) |
//! | `run_length() <= r` | r = max(2·q, q + 2), q = the 95% quantile of the lengths of runs of one value |
//! | `!(gap() > g)` | g = max(2·q, q + 1), q = the 95% quantile of the calendar steps between observations |
//! | curves: `between(tenor_count(), lo, hi)` | lo = the 10% quantile (nearest rank) of the contract counts, hi = the most seen |
//! | curves: `no_gaps()`, `sorted()`, `unique()`, `!(unchanged_fraction() >= 1.0)` | kept when they hold on every fitted curve |
//! | curves: `!(abs(tenor_pct_change(1)) > x && abs(tenor_pct_change(2)) > x)` | as the point move check, over every contract |
//!
//! Quantiles rather than extremes keep a defect inside the fitted part from widening the
//! threshold that should catch it. A move has to be large against both previous values, so the
//! point after a spike (back to normal) passes, and so does the second point of a genuine level
//! shift. Fewer than 5 values give no checks, fewer than 30 only the structural ones (missing,
//! sign, curve shape), each time with a `message` saying why.
//!
//! Here: the request and the constants of the rules; `answer` is the service function,
//! `series` and `curves` propose the candidates, `candidate` is what one is. The window, the
//! statistics and the scoring are [`super::window`]'s, shared with `tune`.

mod answer;
mod candidate;
mod curves;
mod series;

pub use candidate::Candidate;
pub use curves::curve_candidates;
pub use series::series_candidates;

use super::config::Kind;
use super::shared::object;
use super::window::load::Span;
use crate::error::{Error, ErrorCode, Result};
use crate::json::json_kind;
use serde_json::Value;

/// Most data items one `suggest` takes.
pub const MAX_TARGETS: usize = 25;
/// Fewest values for any check.
pub const MIN_VALUES: usize = 5;
/// Fewest values for a threshold fitted from a distribution.
pub const MIN_FIT: usize = 30;
/// Share of the window fitted (the rest is the hold-out).
const FIT_SHARE: f64 = 0.8;
/// A move more than this many times the usual (median) one is left out of a fit.
pub const OUTLIER_FACTOR: f64 = 8.0;
/// A threshold check failing on more than this share of its runs stays out of `config`.
const MAX_FAIL_SHARE: f64 = 0.1;

/// A parsed suggest request.
#[derive(Debug, Clone, PartialEq)]
pub struct SuggestRequest {
    /// The data ids.
    pub targets: Vec<String>,
    /// Their kind.
    pub kind: Kind,
    /// The window.
    pub span: Span,
}

impl SuggestRequest {
    /// Reads and bounds-checks a request body.
    pub fn from_json(body: &Value) -> Result<SuggestRequest> {
        let m = object(body)?;
        let targets = match m.get("targets") {
            None | Some(Value::Null) => {
                return Err(Error::new(
                    ErrorCode::MissingParameter,
                    "targets is missing",
                ))
            }
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .ok_or_else(|| {
                            Error::invalid_body("targets must be an array of data ids (strings)")
                        })
                })
                .collect::<Result<Vec<_>>>()?,
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "targets must be an array, not {}",
                    json_kind(other)
                )))
            }
        };
        if targets.is_empty() {
            return Err(Error::new(ErrorCode::MissingParameter, "targets is empty"));
        }
        if targets.len() > MAX_TARGETS {
            return Err(Error::invalid_parameter(format!(
                "at most {MAX_TARGETS} targets; {} were given",
                targets.len()
            )));
        }
        let kind = match m.get("kind") {
            None | Some(Value::Null) => Kind::TimeSeries,
            Some(Value::String(k)) => Kind::parse(k)?,
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "kind must be a string, not {}",
                    json_kind(other)
                )))
            }
        };
        Ok(SuggestRequest {
            targets,
            kind,
            span: Span::of(m)?,
        })
    }
}
