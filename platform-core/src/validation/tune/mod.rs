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
//! Here: the request; `answer` is the service function and the labels, `literals` finds and
//! replaces the thresholds of an expression, `search` moves them. The window and the scoring
//! are [`super::window`]'s, shared with `suggest`.

mod answer;
mod literals;
mod search;

// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use literals::{thresholds, Literal};
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use search::{round_relaxed, smallest_move};

use crate::error::{Error, ErrorCode, Result};
use crate::json::json_kind;
use crate::validation::shared::strings;
use serde_json::{Map, Value};

/// Most items one `tune` takes.
pub const MAX_ITEMS: usize = 25;

/// One item of a tune request.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneItem {
    /// The data id.
    pub target: String,
    /// The failing points to tune for.
    pub points: Vec<String>,
    /// Curves: only these tenors.
    pub tenors: Option<Vec<String>>,
}

/// Reads the items of a tune request.
pub fn items_of(body: &Map<String, Value>) -> Result<Vec<TuneItem>> {
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
    if items.is_empty() {
        return Err(Error::new(ErrorCode::MissingParameter, "items is empty"));
    }
    if items.len() > MAX_ITEMS {
        return Err(Error::invalid_parameter(format!(
            "at most {MAX_ITEMS} items; {} were given",
            items.len()
        )));
    }
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
                _ => {
                    return Err(Error::new(
                        ErrorCode::MissingParameter,
                        format!("items[{i}] needs a target"),
                    ))
                }
            };
            let points = strings(m.get("points"), &format!("items[{i}].points"))?
                .filter(|p| !p.is_empty())
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::MissingParameter,
                        format!("items[{i}] needs points (the failing points to tune for)"),
                    )
                })?;
            Ok(TuneItem {
                target,
                points,
                tenors: strings(m.get("tenors"), &format!("items[{i}].tenors"))?,
            })
        })
        .collect()
}
