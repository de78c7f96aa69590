//! A data item opened for validation, by run, test, suggest and tune alike: its object read in
//! the scope its id names, its data property found and the caller's read access to it checked;
//! and the engine's inputs built from its observations and curves.

use crate::auth::Principal;
use crate::data::calendar::Calendar;
use crate::data::curve;
use crate::data::read::DataId;
use crate::data::DataKind;
use crate::error::{Error, Result};
use crate::ids::{Scope, Source};
use crate::observations::model::{Point, PointValue};
use crate::store::{Collection, DataKey, ReadTx};
use crate::validation::engine::{ContractInput, CurveInput, SeriesInput};
use chrono::NaiveDate;
use serde_json::{Map, Value};

/// A data item the caller may read.
pub(crate) struct DataItem {
    /// Where its data is: the scope, the object and the data property.
    pub key: DataKey,
    /// The current version of its object.
    pub version: u32,
    /// The data property's header.
    pub header: Map<String, Value>,
    /// A series or a curve (None: neither).
    pub kind: Option<DataKind>,
}

/// The error of a data item that cannot be read, and why.
pub(crate) fn unreadable(target: &str, why: &str) -> Error {
    Error::not_found(format!("data \"{target}\" cannot be read: {why}"))
}

/// Opens a data item. A missing object or data property cannot be read, nor can a property
/// whose `_access` role the caller lacks (it reads as a property that does not exist).
pub(crate) fn open(tx: &dyn ReadTx, p: &Principal, target: &str) -> Result<DataItem> {
    let id = DataId::parse(target)?;
    let scope = Scope::for_source(Source::of_id(&id.object), p);
    let object = tx
        .current(Collection::Object, &scope, &id.object)?
        .ok_or_else(|| unreadable(target, "its object does not exist"))?;
    let header = object
        .body
        .get(&id.prop)
        .and_then(Value::as_object)
        .ok_or_else(|| unreadable(target, "no such data property"))?;
    if !p
        .grants
        .may_read(header.get("_access").and_then(Value::as_str))
    {
        return Err(unreadable(target, "no such data property"));
    }
    let kind = DataKind::of_header(header);
    let header = header.clone();
    Ok(DataItem {
        key: DataKey {
            scope,
            object: id.object,
            prop: id.prop,
        },
        version: object.version,
        header,
        kind,
    })
}

/// The engine's input of some observations: their times, their finite values, their text
/// values, and the step of a daily or intraday calendar.
pub(crate) fn series_input(points: &[Point], calendar: Calendar) -> SeriesInput {
    let step_ms = match calendar {
        Calendar::Daily => Some(86_400_000),
        Calendar::Intraday(s) => Some(i64::from(s) * 1000),
        _ => None,
    };
    SeriesInput {
        times: points.iter().map(|p| p.t).collect(),
        values: points
            .iter()
            .map(|p| p.v.as_f64().filter(|v| v.is_finite()))
            .collect(),
        text: points
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match &p.v {
                PointValue::Text(t) => Some((i, t.clone())),
                _ => None,
            })
            .collect(),
        step_ms,
    }
}

fn contract_input(c: &curve::Contract) -> ContractInput {
    let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_default();
    ContractInput {
        tenor: c.tenor.clone(),
        relative: c.relative.clone(),
        absolute: c.absolute.clone(),
        value: c.value.as_f64().filter(|v| v.is_finite()),
        text: match &c.value {
            PointValue::Text(t) => Some(t.clone()),
            _ => None,
        },
        start: day(&c.start),
        end: day(&c.end),
        expiry: day(&c.expiry),
    }
}

/// The engine's input of a stored curve.
pub(crate) fn curve_input(stored: &curve::StoredCurve) -> CurveInput {
    CurveInput {
        ondate: NaiveDate::parse_from_str(stored.curve_date(), "%Y-%m-%d").unwrap_or_default(),
        contracts: stored.contracts.iter().map(contract_input).collect(),
    }
}
