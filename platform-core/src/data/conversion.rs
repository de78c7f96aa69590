//! Converting data on read: `units=`, `currency=` and `__density=` (kg/m3).
//!
//! A data item whose header has a `currency` holds prices per unit (GBP per therm); without one
//! it holds quantities. Units convert within a dimension, and between mass and volume through a
//! density (`__density`, else the header's `properties.density`). Currencies convert with the FX
//! rate of each observation's date (its local date on date calendars, so a daily London price
//! of July 2nd takes the rate dated July 2nd; its instant on intraday calendars; a curve: its
//! ondate) read from the public series
//! `#FX.<BASE><QUOTE>:SPOT`, the last observation at or before that time (`convert::rate` finds
//! direct, inverse and cross rates). Converted values carry status source `CONVERTED`; text
//! values and nulls pass unchanged. Anything that cannot convert is `CONVERSION_ERROR`.

use super::series::{self, Window};
use super::DataKind;
use crate::convert::{self, RateSource};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::Scope;
use crate::observations::model::{Point, PointValue, Status};
use crate::query::Params;
use crate::store::{Collection, DataKey, ReadTx};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;

/// What a read asks to convert to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversion {
    /// `units=`.
    pub units: Option<String>,
    /// `currency=`.
    pub currency: Option<String>,
    /// `__density=` in kg/m3.
    pub density: Option<f64>,
}

impl Conversion {
    /// Reads `units`, `currency`, `__density`.
    pub fn from_params(params: &Params) -> Result<Conversion> {
        let density = match params.get("__density") {
            None => None,
            Some(t) => Some(
                t.parse::<f64>()
                    .ok()
                    .filter(|d| d.is_finite() && *d > 0.0)
                    .ok_or_else(|| {
                        Error::invalid_parameter(format!(
                            "__density must be a positive number of kg/m3, not \"{t}\""
                        ))
                    })?,
            ),
        };
        Ok(Conversion {
            units: params.get("units").map(str::to_string),
            currency: params.get("currency").map(str::to_string),
            density,
        })
    }

    /// Whether anything is asked.
    pub fn is_none(&self) -> bool {
        self.units.is_none() && self.currency.is_none()
    }
}

fn conversion_error(e: Error) -> Error {
    match e {
        Error::User { message, .. } => Error::new(ErrorCode::ConversionError, message),
        other => other,
    }
}

/// A prepared conversion of one data item: a unit factor and, for currencies, the pair.
pub struct Converter<'a> {
    factor: f64,
    fx: Option<(String, String)>,
    rates: FxRates<'a>,
}

impl<'a> Converter<'a> {
    /// Prepares the conversion of an item with this header; updates the header's `units` and
    /// `currency` to the targets. `None` when nothing is asked.
    pub fn new(
        tx: &'a dyn ReadTx,
        header: &mut Map<String, Value>,
        c: &Conversion,
    ) -> Result<Option<Converter<'a>>> {
        if c.is_none() {
            return Ok(None);
        }
        let text = |f: &str| header.get(f).and_then(Value::as_str).map(str::to_string);
        let stored_units = text("units");
        let stored_currency = text("currency");
        let mut factor = 1.0;
        if let Some(to) = &c.units {
            let from = stored_units.clone().ok_or_else(|| {
                Error::new(
                    ErrorCode::ConversionError,
                    format!("cannot convert to {to}: the data has no units"),
                )
            })?;
            let (_, from_unit) = convert::split_price_unit(&from);
            let (_, to_unit) = convert::split_price_unit(to);
            let from_u = convert::parse_unit(from_unit).map_err(conversion_error)?;
            let to_u = convert::parse_unit(to_unit).map_err(conversion_error)?;
            let density = c.density.or_else(|| {
                header
                    .get("properties")
                    .and_then(|p| p.get("density"))
                    .or_else(|| header.get("density"))
                    .and_then(Value::as_f64)
            });
            factor = if stored_currency.is_some() {
                convert::price_factor(&from_u, &to_u, density)
            } else {
                convert::quantity_factor(&from_u, &to_u, density)
            }
            .map_err(conversion_error)?;
            header.insert("units".into(), Value::String(to.clone()));
        }
        let mut fx = None;
        if let Some(to) = &c.currency {
            let from = stored_currency.ok_or_else(|| {
                Error::new(
                    ErrorCode::ConversionError,
                    format!("cannot convert to {to}: the data has no currency"),
                )
            })?;
            convert::parse_currency(to).map_err(conversion_error)?;
            convert::parse_currency(&from).map_err(conversion_error)?;
            if from != *to {
                fx = Some((from, to.clone()));
            }
            header.insert("currency".into(), Value::String(to.clone()));
        }
        Ok(Some(Converter {
            factor,
            fx,
            rates: FxRates {
                tx,
                cache: RefCell::new(HashMap::new()),
            },
        }))
    }

    /// The converted value at a time.
    pub fn value(&self, v: &PointValue, at: DateTime<Utc>) -> Result<PointValue> {
        let PointValue::Num(n) = v else {
            return Ok(v.clone());
        };
        let rate = match &self.fx {
            None => 1.0,
            Some((from, to)) => {
                convert::rate(&self.rates, from, to, at).map_err(conversion_error)?
            }
        };
        Ok(PointValue::Num(n * self.factor * rate))
    }

    /// Converts observations in place; `at` gives the instant whose FX rate applies to a time.
    pub fn points(&self, points: &mut [Point], at: impl Fn(i64) -> DateTime<Utc>) -> Result<()> {
        for p in points {
            let at = at(p.t);
            if matches!(p.v, PointValue::Num(_)) {
                p.v = self.value(&p.v, at)?;
                p.status = converted_boxed(p.status.take());
            }
        }
        Ok(())
    }
}

/// A status with source `CONVERTED`.
pub fn converted(status: Option<Status>) -> Option<Status> {
    let mut s = status.unwrap_or_default();
    s.source = Some("CONVERTED".into());
    Some(s)
}

/// [`converted`] for an observation's boxed status.
pub fn converted_boxed(status: Option<Box<Status>>) -> Option<Box<Status>> {
    converted(status.map(|s| *s)).map(Box::new)
}

/// FX rates from public `#FX.<PAIR>` series, each read once per conversion.
struct FxRates<'a> {
    tx: &'a dyn ReadTx,
    cache: RefCell<HashMap<String, Option<Vec<Point>>>>,
}

impl RateSource for FxRates<'_> {
    fn spot(&self, pair: &str, at: DateTime<Utc>) -> Result<Option<f64>> {
        let mut cache = self.cache.borrow_mut();
        if !cache.contains_key(pair) {
            let object = format!("#FX.{pair}");
            let scope = Scope::public();
            let points = match self.tx.current(Collection::Object, &scope, &object)? {
                Some(obj)
                    if obj.body.get("SPOT").and_then(DataKind::of) == Some(DataKind::Series) =>
                {
                    let key = DataKey {
                        scope,
                        object,
                        prop: "SPOT".into(),
                    };
                    Some(series::read(self.tx, &key, obj.version, Window::All)?)
                }
                _ => None,
            };
            cache.insert(pair.to_string(), points);
        }
        let Some(Some(points)) = cache.get(pair) else {
            return Ok(None);
        };
        let t = at.timestamp_millis();
        let idx = points.partition_point(|p| p.t <= t);
        Ok(points[..idx].iter().rev().find_map(|p| p.v.as_f64()))
    }
}
