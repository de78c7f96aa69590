//! `tune`: new thresholds for the saved checks of data items, from points users marked as
//! false alarms; nothing is stored.
//!
//! A request has up to [`MAX_ITEMS`] items `{target, points, tenors?}` and the window of
//! `suggest` (`days`, `maxCurves`; the window is widened to reach the oldest given point).
//! Labels come from the validation records: a given point whose record is `overridden` (or that
//! has no record, or only a `warning`, which cannot be overridden) is a false alarm; a given
//! point whose record is `failed`, `severe` or `error`, and any other point of the window
//! failing the check with such a record, is a standing (true) failure.
//!
//! For each saved check that fails on a given point: every numeric literal that sits in a
//! comparison or in `between`/`clamp` (not the counts given to built-ins such as
//! `pct_change(1)`; equal literals move together) is moved, up and down, by an exponential
//! search then a bisection to the smallest value that lets every false alarm pass; a float is
//! then widened by 2% and rounded outward to two significant digits, a whole number stays
//! exact. Among the moves that pass all false alarms, the one losing the fewest standing
//! failures, then changing the window's failures least, wins. When no single threshold passes
//! them all (overridden highs and lows of one band), each threshold moves in the direction that
//! helps most, just far enough for the false alarms it can pass, and the moves are tried
//! together. A proposal that lets a standing
//! failure through says so in `reason`, with the points.
//!
//! Here: the request ([`TuningRequest`]); `answer` is the service function, its answer
//! ([`Tunings`]) and the labels, `literals` finds and replaces the thresholds of an
//! expression, `search` moves them. The window and the scoring are [`super::window`]'s, shared
//! with `suggest`.

mod answer;
mod literals;
mod search;

// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use literals::{thresholds, Literal};
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use search::{round_relaxed, smallest_move};

pub use answer::{TuneWindow, TunedCheck, TunedChecks, TunedItem, Tunings};

use crate::error::{Error, ErrorCode, Result};
use crate::json::json_kind;
use crate::validation::run::When;
use crate::validation::shared::{object, strings};
use crate::validation::window::load::Span;
use serde::Serialize;
use serde_json::{Map, Value};

/// Most items one `tune` takes.
pub const MAX_ITEMS: usize = 25;

/// A data item to tune: the failing points users marked (overridden ones are false alarms).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TuningItem {
    /// The data id.
    pub target: String,
    /// The failing points to tune for.
    pub points: Vec<When>,
    /// Curves: only these tenors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenors: Option<Vec<String>>,
}

/// A request for relaxed thresholds of saved checks (`tune`): up to 25 items, over the window
/// of [`crate::api::validation::SuggestionRequest`] (widened to the oldest point given). Its serde form is
/// the body.
///
/// ```
/// use platform_core::api::{validation::TuningItem, validation::TuningRequest};
/// use chrono::NaiveDate;
/// let day = NaiveDate::from_ymd_opt(2024, 5, 14).unwrap();
/// let req = TuningRequest::new([TuningItem { target: "TTF:FWD".into(), points: vec![day.into()], tenors: None }]);
/// let body = serde_json::json!({"items": [{"target": "TTF:FWD", "points": ["2024-05-14"]}]});
/// assert_eq!(serde_json::to_value(&req).unwrap(), body);
/// assert_eq!(TuningRequest::from_body(&body)?, req);
/// let e = TuningRequest::from_body(&serde_json::json!({"items": [{"target": "TTF:FWD"}]})).unwrap_err();
/// assert_eq!(e.to_string(), "items[0] needs points (the failing points to tune for)");
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TuningRequest {
    /// The items.
    pub items: Vec<TuningItem>,
    /// Days back from today.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<u64>,
    /// Curves: the newest curves kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_curves: Option<u64>,
}

impl TuningRequest {
    /// A request for these items over the default window.
    pub fn new(items: impl IntoIterator<Item = TuningItem>) -> TuningRequest {
        TuningRequest {
            items: items.into_iter().collect(),
            ..TuningRequest::default()
        }
    }

    /// The request a body of `tune` asks, checked as [`crate::api::validation::Validation::tune`] checks
    /// it, with the same texts: `items` (required, 1 to 25 objects `{target, points,
    /// tenors?}`, `points` the failing points as the data writes them), `days` and
    /// `maxCurves` (integers within their bounds, or null); other fields are not read.
    pub fn from_body(body: &Value) -> Result<TuningRequest> {
        let m = object(body)?;
        let items = items_of(m)?;
        let (days, max_curves) = Span::given(m)?;
        Ok(TuningRequest {
            items,
            days,
            max_curves,
        })
    }

    /// The window, the request checked.
    pub(super) fn span(&self) -> Result<Span> {
        check_count(self.items.len())?;
        for (i, item) in self.items.iter().enumerate() {
            if item.target.is_empty() {
                return Err(needs_target(i));
            }
            if item.points.is_empty() {
                return Err(needs_points(i));
            }
        }
        Span::checked(self.days, self.max_curves)
    }
}

/// Refuses no items, or more than [`MAX_ITEMS`].
fn check_count(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::new(ErrorCode::MissingParameter, "items is empty"));
    }
    if n > MAX_ITEMS {
        return Err(Error::invalid_parameter(format!(
            "at most {MAX_ITEMS} items; {n} were given"
        )));
    }
    Ok(())
}

fn needs_target(i: usize) -> Error {
    Error::new(
        ErrorCode::MissingParameter,
        format!("items[{i}] needs a target"),
    )
}

fn needs_points(i: usize) -> Error {
    Error::new(
        ErrorCode::MissingParameter,
        format!("items[{i}] needs points (the failing points to tune for)"),
    )
}

/// Reads the items of a tune request.
fn items_of(body: &Map<String, Value>) -> Result<Vec<TuningItem>> {
    let items = match body.get("items") {
        None | Some(Value::Null) => {
            return Err(Error::new(ErrorCode::MissingParameter, "items is missing"))
        }
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "items must be an array, not {}",
                json_kind(other)
            )))
        }
    };
    check_count(items.len())?;
    items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let Value::Object(m) = it else {
                return Err(Error::invalid_body(format!(
                    "items[{i}] must be an object {{target, points, tenors?}}"
                )));
            };
            let target = match m.get("target") {
                Some(Value::String(t)) if !t.is_empty() => t.clone(),
                _ => return Err(needs_target(i)),
            };
            let points = strings(m.get("points"), &format!("items[{i}].points"))?
                .filter(|p| !p.is_empty())
                .ok_or_else(|| needs_points(i))?;
            Ok(TuningItem {
                target,
                points: points.iter().map(|t| When::of_text(t)).collect(),
                tenors: strings(m.get("tenors"), &format!("items[{i}].tenors"))?,
            })
        })
        .collect()
}
