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
//! Here: the request ([`SuggestionRequest`]) and the constants of the rules; `answer` is the
//! service function and its answer ([`Suggestions`]), `series` and `curves` propose the
//! candidates, `candidate` is what one is. The window, the statistics and the scoring are
//! [`super::window`]'s, shared with `tune`.

mod answer;
mod candidate;
mod curves;
mod series;

pub use answer::{
    CheckTally, Proposals, SuggestedCheck, SuggestedItem, Suggestions, WindowShape, WindowStats,
};
pub use candidate::Candidate;
pub use curves::curve_candidates;
pub use series::series_candidates;

use super::config::Kind;
use super::counts::ValidationKind;
use super::shared::object;
use super::window::load::Span;
use crate::error::{Error, ErrorCode, Result};
use crate::json::json_kind;
use serde::Serialize;
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

/// A request for checks proposed from the recent history of data items (`suggest`): up to 25
/// data ids of one kind, over the last `days` (1 to 366, default 30; curves also at most the
/// newest `max_curves`, 2 to 60, default 25). Its serde form is the body.
///
/// ```
/// use platform_core::api::validation::SuggestionRequest;
/// let req = SuggestionRequest { days: Some(60), ..SuggestionRequest::new(["NBP:SPOT"]) };
/// assert_eq!(serde_json::to_value(&req).unwrap(), serde_json::json!({
///     "targets": ["NBP:SPOT"], "kind": "timeseries", "days": 60}));
/// assert_eq!(SuggestionRequest::from_body(&serde_json::to_value(&req).unwrap())?, req);
/// let e = SuggestionRequest::from_body(&serde_json::json!({"targets": []})).unwrap_err();
/// assert_eq!(e.to_string(), "targets is empty");
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestionRequest {
    /// The data ids.
    pub targets: Vec<String>,
    /// Their kind.
    pub kind: ValidationKind,
    /// Days back from today.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<u64>,
    /// Curves: the newest curves kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_curves: Option<u64>,
}

impl SuggestionRequest {
    /// A request for series, over the default window.
    pub fn new<S: Into<String>>(targets: impl IntoIterator<Item = S>) -> SuggestionRequest {
        SuggestionRequest {
            targets: targets.into_iter().map(Into::into).collect(),
            ..SuggestionRequest::default()
        }
    }

    /// The request a body of `suggest` asks, checked as [`crate::api::validation::Validation::suggest`]
    /// checks it, with the same texts: `targets` (required, 1 to 25 data ids), `kind`
    /// (`timeseries`, the default, or `curve`), `days` and `maxCurves` (integers within their
    /// bounds, or null); other fields are not read.
    pub fn from_body(body: &Value) -> Result<SuggestionRequest> {
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
                .map(|x| x.as_str().map(str::to_string).ok_or_else(not_data_ids))
                .collect::<Result<Vec<_>>>()?,
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "targets must be an array, not {}",
                    json_kind(other)
                )))
            }
        };
        check_targets(&targets)?;
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
        let (days, max_curves) = Span::given(m)?;
        Ok(SuggestionRequest {
            targets,
            kind: kind.typed(),
            days,
            max_curves,
        })
    }

    /// The window, the request checked.
    pub(super) fn span(&self) -> Result<Span> {
        check_targets(&self.targets)?;
        Span::checked(self.days, self.max_curves)
    }
}

/// The refusal of targets that are not data ids.
fn not_data_ids() -> Error {
    Error::invalid_body("targets must be an array of data ids (strings)")
}

/// Refuses targets that are not 1 to [`MAX_TARGETS`] data ids.
fn check_targets(targets: &[String]) -> Result<()> {
    if targets.iter().any(String::is_empty) {
        return Err(not_data_ids());
    }
    if targets.is_empty() {
        return Err(Error::new(ErrorCode::MissingParameter, "targets is empty"));
    }
    if targets.len() > MAX_TARGETS {
        return Err(Error::invalid_parameter(format!(
            "at most {MAX_TARGETS} targets; {} were given",
            targets.len()
        )));
    }
    Ok(())
}
