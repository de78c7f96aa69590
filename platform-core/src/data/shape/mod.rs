//! Shaping a forward curve into an arbitrage-free monthly curve (`_shape=MONTHLY`).
//!
//! A curve arrives as overlapping products (years, seasons, quarters, months, a balance of the
//! month, weekends, day-aheads). Shaping answers one price per month that meets every quoted
//! product, solving all quotes together as the spec's `vectors/shaping.json` says:
//!
//! - the days inside quoted contracts fall into runs: a run is the days that lie in exactly the
//!   same quoted contracts (for contracts of whole months, the months that do), and each run has
//!   one flat price;
//! - the prices make each contract's weighted average over its days equal its price; weights are
//!   the hours of each day in the curve's time zone (power, base load), the hours of a block in
//!   it (`_weights=PEAK`, `OFFPEAK`, `EFA1`..`EFA6` or a block calendar's id), or its days
//!   (`_weights=days`, gas);
//! - where the quotes leave runs free, each free run stays as close as it can (least squares,
//!   weighted by its hours or days) to the price of the shortest quoted contract containing it;
//! - where the quotes disagree, the runs fit them in the least-squares sense (each contract's
//!   miss counted once), and every contract missed by more than the tolerance (`_tolerance`,
//!   default 0.01: quotes in cents) is named in `arbitrage` with its miss and a message says
//!   which quotes disagree; a miss within the tolerance is fitted silently;
//! - a month's value is the weighted average of its priced days; `from` is the shortest quoted
//!   contract containing the month's priced days (ties: the earlier start); a month inside no
//!   contract is not in the answer, one priced in part (a balance of the month) says which days
//!   in its `start` and `end`.
//!
//! Contracts without a numeric value, and contracts whose delivery has no weight (a weekend
//! under `PEAK`), take no part and are named in `ignored` with the reason. The solve is in
//! `solve`; this room reads the parameters and writes the answer's fields.

mod solve;
#[cfg(test)]
mod tests;

pub use solve::{shape, Ignored, QuoteMiss, Shaped, ShapedMonth};

use super::curve::StoredCurve;
use super::scale::Block;
use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::observations::model::PointValue;
use crate::query::Params;
use crate::store::ReadTx;
use chrono::NaiveDate;
use chrono_tz::Tz;
use serde_json::{json, Map, Value};

/// The largest miss of a quote that is fitted silently, unless `_tolerance` says otherwise:
/// quotes are in cents.
pub const DEFAULT_TOLERANCE: f64 = 0.01;

/// What weighs the days of a contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Weights {
    /// The hours of each day in the curve's time zone (power, base load).
    Hours,
    /// Each day counts once (gas).
    Days,
    /// The hours of a block in the curve's time zone: `PEAK`, `OFFPEAK`, an EFA block or a
    /// block calendar (a named one is loaded before shaping).
    Block(Block),
}

impl Weights {
    /// The parameter value (`hours`, `days`, or the block's code).
    pub fn code(&self) -> String {
        match self {
            Weights::Hours => "hours".into(),
            Weights::Days => "days".into(),
            Weights::Block(block) => match block {
                Block::Peak => "PEAK".into(),
                Block::Offpeak => "OFFPEAK".into(),
                Block::Base => "hours".into(),
                Block::Efa(n) => format!("EFA{n}"),
                Block::Named(id) => id.clone(),
                Block::Hours(hours) => hours.id.clone(),
            },
        }
    }

    /// What a month's weight counts: `days`, or `hours` (of the day or of the block).
    pub fn unit(&self) -> &'static str {
        match self {
            Weights::Days => "days",
            _ => "hours",
        }
    }

    /// Reads `hours` or `days` (case-insensitive), or a block: `PEAK`, `OFFPEAK`, `EFA1`..`EFA6`
    /// or a block calendar's id (`BASE` is every hour: `hours`).
    pub fn parse(text: &str) -> Result<Weights> {
        match text.trim().to_ascii_lowercase().as_str() {
            "hours" => return Ok(Weights::Hours),
            "days" => return Ok(Weights::Days),
            _ => {}
        }
        match Block::parse(text) {
            Ok(Block::Base) => Ok(Weights::Hours),
            Ok(block) => Ok(Weights::Block(block)),
            Err(_) => Err(Error::invalid_parameter(format!(
                "_weights \"{text}\" is not a weighting: use {WEIGHT_CODES} or the id of a block \
                 calendar"
            ))),
        }
    }

    internal! {
        /// These weights with a block calendar named by id loaded from the calendar service.
        fn loaded(self, tx: &dyn ReadTx, who: &Principal) -> Result<Weights> {
            match self {
                Weights::Block(Block::Named(id)) => {
                    let hours = crate::calendars::block_of(tx, who, &id, "_weights", WEIGHT_CODES)?;
                    Ok(Weights::Block(Block::Hours(std::sync::Arc::new(hours))))
                }
                other => Ok(other),
            }
        }
    }

    /// The default of a curve header: days for gas (a `commodity` naming gas, or `units` of gas
    /// such as therm, MMBtu or m3), hours otherwise.
    pub fn of_header(header: &Map<String, Value>) -> Weights {
        let field = |k: &str| {
            header
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_ascii_lowercase()
        };
        let commodity = field("commodity");
        let gas_word = commodity
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| matches!(w, "gas" | "lng" | "ng"));
        let units = field("units");
        // The quantity of a per-unit text such as "EUR/therm".
        let unit = units.rsplit('/').next().unwrap_or_default().trim();
        let gas_unit = matches!(
            unit,
            "therm"
                | "thm"
                | "mmbtu"
                | "btu"
                | "m3"
                | "nm3"
                | "sm3"
                | "scm"
                | "mcf"
                | "mmcf"
                | "bcf"
        );
        if gas_word || gas_unit {
            Weights::Days
        } else {
            Weights::Hours
        }
    }
}

/// What `_weights` takes besides a block calendar's id.
const WEIGHT_CODES: &str = "hours, days, PEAK, OFFPEAK, EFA1..EFA6";

/// `_shape`, `_weights` and `_tolerance` of a data read.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeQuery {
    /// `_weights`; the curve's default ([`Weights::of_header`]) when `None`.
    pub weights: Option<Weights>,
    /// `_tolerance`: the largest miss of a quote fitted silently (by default 0.01).
    pub tolerance: f64,
}

impl Default for ShapeQuery {
    fn default() -> Self {
        ShapeQuery {
            weights: None,
            tolerance: DEFAULT_TOLERANCE,
        }
    }
}

impl ShapeQuery {
    /// Reads `_shape` (only `MONTHLY`, case-insensitive), `_weights` and `_tolerance` (which
    /// need `_shape`).
    pub fn from_params(params: &Params) -> Result<Option<ShapeQuery>> {
        let weights = params.get("_weights").map(Weights::parse).transpose()?;
        let tolerance = params.get("_tolerance").map(parse_tolerance).transpose()?;
        let needs = |what: &str| {
            Err(Error::invalid_parameter(format!(
                "{what} of a shaped curve: it needs _shape=MONTHLY"
            )))
        };
        match params.get("_shape") {
            None if weights.is_some() => needs("_weights weighs the months"),
            None if tolerance.is_some() => needs("_tolerance is the largest miss of a quote"),
            None => Ok(None),
            Some(s) if s.trim().eq_ignore_ascii_case("MONTHLY") => Ok(Some(ShapeQuery {
                weights,
                tolerance: tolerance.unwrap_or(DEFAULT_TOLERANCE),
            })),
            Some(s) => Err(Error::invalid_parameter(format!(
                "_shape \"{s}\" is not a shape: use MONTHLY"
            ))),
        }
    }

    /// Refuses `_shape` where it means nothing: with `tenor=` (one tenor over ondates),
    /// `listTenors` (the codes of a curve) or `_continuation`.
    pub fn check_with(&self, tenor: bool, list_tenors: bool, continuation: bool) -> Result<()> {
        let other = match (tenor, list_tenors, continuation) {
            (true, _, _) => "tenor= reads one tenor over the ondates",
            (_, true, _) => "listTenors lists the tenors",
            (_, _, true) => "_continuation reads the front contract over the ondates",
            _ => return Ok(()),
        };
        Err(Error::invalid_parameter(format!(
            "_shape=MONTHLY shapes the curve of one ondate and {other}: send one of them"
        )))
    }

    internal! {
        /// Shapes a curve read of the item `name` with this header: the months and the weights
        /// used (a block calendar named by `_weights` is read in `tx` as `who`).
        fn apply(
            &self,
            tx: &dyn ReadTx,
            who: &Principal,
            name: &str,
            header: &Map<String, Value>,
            curve: &StoredCurve,
        ) -> Result<(Shaped, Weights)> {
            let weights = self
                .weights
                .clone()
                .unwrap_or_else(|| Weights::of_header(header))
                .loaded(tx, who)?;
            let tz = zone_of(name, header)?;
            let (contracts, ignored) = quoted(curve);
            let mut shaped = shape(&contracts, tz, &weights, self.tolerance)?;
            shaped.ignore(ignored);
            Ok((shaped, weights))
        }
    }
}

impl ShapeQuery {
    internal! {
        /// The fields of a shaped read of the curve `name` ([`ShapeQuery::apply`], written as a
        /// read answers them), `contracts` being the contracts as read.
        fn fields(
            &self,
            tx: &dyn ReadTx,
            who: &Principal,
            name: &str,
            header: &Map<String, Value>,
            curve: &StoredCurve,
            contracts: Value,
        ) -> Result<Vec<(&'static str, Value)>> {
            let (shaped, weights) = self.apply(tx, who, name, header, curve)?;
            Ok(shaped_fields(&shaped, &weights, self.tolerance, contracts))
        }
    }
}

fn parse_tolerance(text: &str) -> Result<f64> {
    match text.trim().parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(Error::invalid_parameter(format!(
            "_tolerance \"{text}\" is not a tolerance: send the largest miss of a quote to fit \
             silently, a number of the curve's units at least 0 (default {DEFAULT_TOLERANCE})"
        ))),
    }
}

/// A quoted contract that takes part in shaping.
#[derive(Debug, Clone, PartialEq)]
pub struct Quoted {
    /// Its name in the answer: the absolute code, or the tenor when it has none (`BOM`).
    pub code: String,
    /// The first delivery day.
    pub start: NaiveDate,
    /// The last delivery day (inclusive).
    pub end: NaiveDate,
    /// The price.
    pub value: f64,
}

/// The contracts of a stored curve that take part (those with a numeric value and a delivery
/// period), and those that cannot, with the reason.
pub fn quoted(curve: &StoredCurve) -> (Vec<Quoted>, Vec<Ignored>) {
    let (mut taking, mut ignored) = (Vec::new(), Vec::new());
    for c in &curve.contracts {
        let code = if c.absolute.is_empty() {
            c.tenor.clone()
        } else {
            c.absolute.clone()
        };
        let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
        let reason = match (&c.value, day(&c.start), day(&c.end)) {
            (PointValue::Num(v), Some(start), Some(end)) if v.is_finite() && start <= end => {
                taking.push(Quoted {
                    code,
                    start,
                    end,
                    value: *v,
                });
                continue;
            }
            (PointValue::Null, ..) => "it has no value",
            (PointValue::Text(_), ..) => "its value is text",
            (PointValue::Num(_), ..) => "it has no delivery period",
        };
        ignored.push(Ignored {
            code,
            reason: reason.into(),
        });
    }
    (taking, ignored)
}

/// The time zone a curve is shaped in: its header's `timezone`, UTC when none.
pub fn zone_of(name: &str, header: &Map<String, Value>) -> Result<Tz> {
    match header.get("timezone") {
        None | Some(Value::Null) => Ok(Tz::UTC),
        Some(Value::String(z)) => z.parse::<Tz>().map_err(|_| {
            Error::invalid_parameter(format!(
                "{name}.timezone \"{z}\" is not an IANA time zone: a curve is shaped in its zone"
            ))
        }),
        Some(other) => Err(Error::invalid_parameter(format!(
            "{name}.timezone must be a string, not {}",
            crate::json::json_kind(other)
        ))),
    }
}

/// The JSON fields a shaped read puts in place of the curve's `contracts`: `shape`, `weights`,
/// `tolerance`, `contracts` (the months, each with `properties.from`, `start`, `end` and its
/// weight as `hours` or `days`), `arbitrage` (each quote missed by more than the tolerance:
/// `tenor`, `quoted`, `fitted`, `miss`), `ignored` (`tenor`, `reason`), `message` (what the
/// answer did besides meeting every quote, when anything) and `quoted` (the contracts as read).
pub fn shaped_fields(
    shaped: &Shaped,
    weights: &Weights,
    tolerance: f64,
    quoted_contracts: Value,
) -> Vec<(&'static str, Value)> {
    let months = shaped
        .months
        .iter()
        .map(|m| {
            let mut props = Map::new();
            props.insert("from".into(), Value::String(m.from.clone()));
            props.insert("absolute".into(), Value::String(m.code.clone()));
            props.insert("start".into(), Value::String(m.start.to_string()));
            props.insert("end".into(), Value::String(m.end.to_string()));
            props.insert(weights.unit().into(), number(m.weight));
            json!({"tenor": m.code, "value": m.value, "properties": props})
        })
        .collect();
    let arbitrage = shaped
        .arbitrage
        .iter()
        .map(|a| json!({"tenor": a.code, "quoted": a.quoted, "fitted": a.fitted, "miss": a.miss}))
        .collect();
    let ignored = shaped
        .ignored
        .iter()
        .map(|i| json!({"tenor": i.code, "reason": i.reason}))
        .collect();
    let mut fields = vec![
        ("shape", Value::String("MONTHLY".into())),
        ("weights", Value::String(weights.code())),
        ("tolerance", json!(tolerance)),
        ("contracts", Value::Array(months)),
        ("arbitrage", Value::Array(arbitrage)),
        ("ignored", Value::Array(ignored)),
    ];
    if let Some(message) = shaped.message() {
        fields.push(("message", Value::String(message)));
    }
    fields.push(("quoted", quoted_contracts));
    fields
}

/// Whole hours and days print as integers (a zone with half-hour changes has halves).
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}
