//! Reading a curve item: the curve of one ondate (named, the newest, or the nearest one on or
//! before or after a date), the curves whose ondates lie in a `_range`, a tenor's history, a
//! continuation or the list of tenors. A curve is never answered in place of another:
//!
//! - `OBJ:PROP?_range=...` answers the curves whose ondates lie in the range, oldest first: a
//!   list of curves, each as `OBJ:PROP:ONDATE` reads it (`_id` `OBJ:PROP:ONDATE`, `ondate`,
//!   `contracts`); a range that holds none answers an empty list. Dates are read in UTC, as a
//!   tenor's history reads them; `last(n)` takes the n newest.
//! - `OBJ:PROP:ONDATE` of an ondate without a curve is a 404 naming the nearest ondates before
//!   and after it.
//! - `OBJ:PROP:ONDATE?_nearest=before|after` answers the curve of the nearest ondate on or
//!   before (after) the date; its `ondate` and `_id` say which.
//! - `OBJ:PROP` alone reads the newest curve, as the interface says.
//!
//! An ondate with `_range`, `_nearest` without an ondate or with another read of the curve
//! (`tenor`, `listTenors`, `_continuation`), and `_shape` over a range are 400s.

use super::answer::{Answer, ItemCurve, ItemName};
use super::curve::{curve_fields, StoredCurve};
use super::read::{converted_curve, DataId, DataQuery, Opened};
use super::read_query::Nearest;
use crate::auth::Principal;
use crate::data::Data;
use crate::error::{Error, Result};
use crate::store::ReadTx;
use chrono::NaiveDate;
use serde_json::Value;

impl Data<'_> {
    /// The answer of a read of the curve item `item` (data id `id`, as written `text`).
    pub(super) fn curve_answer(
        &self,
        who: &Principal,
        tx: &dyn ReadTx,
        mut item: Opened,
        id: &DataId,
        text: &str,
        q: &DataQuery,
    ) -> Result<Answer> {
        if q.settlement {
            return Err(Error::invalid_parameter(format!(
                "\"{text}\" is a curve: _settlement=GB keys the half-hours of a series"
            )));
        }
        check_curve_query(text, id, q)?;
        if let Some(shape) = &q.shape {
            shape.check_with(q.tenor.is_some(), q.list_tenors, q.continuation.is_some())?;
        }
        if q.list_tenors {
            return self
                .list_tenors(tx, &item.key, item.object.version)
                .map(Answer::Other);
        }
        if let Some(cont) = &q.continuation {
            super::continuation::no_ondate(text, id.ondate)?;
            return self
                .continuation_series(tx, item, cont, q)
                .map(Answer::Dated);
        }
        if let Some(code) = &q.tenor {
            return self.tenor_history(tx, item, code, q).map(Answer::Dated);
        }
        if q.range.is_some() {
            return self.range_curves(tx, item, q).map(Answer::Curves);
        }
        let stored = self.item_curve(tx, &mut item, text, id.ondate, q)?;
        let is_current = item.is_current;
        let json = item.json();
        if id.ondate.is_some() && is_current {
            let found = format!("{}:{}:{}", id.object, id.prop, stored.curve_date());
            json.insert("_id".into(), Value::String(found));
        }
        let Some(shape) = &q.shape else {
            return Ok(Answer::Curve(ItemCurve {
                name: ItemName::of(&item),
                json: item.take_json(),
                stored,
            }));
        };
        // Shaped into months: no curve of contracts.
        let (ondate_json, contracts) = curve_fields(&stored);
        let mut fields = vec![("ondate", ondate_json)];
        fields.extend(shape.fields(tx, who, text, &item.header, &stored, contracts)?);
        let json = item.json();
        for (k, v) in fields {
            json.insert(k.into(), v);
        }
        Ok(Answer::Other(Value::Object(item.take_json())))
    }

    /// The stored curve a read of `day` answers: the curve of `day` itself; else, with
    /// `_nearest`, that of the nearest ondate on or before (after) it; else a 404 naming the
    /// nearest ondates either side.
    pub(crate) fn ondate_payload(
        &self,
        tx: &dyn ReadTx,
        item: &Opened,
        text: &str,
        day: NaiveDate,
        nearest: Option<Nearest>,
    ) -> Result<Vec<u8>> {
        let version = item.object.version;
        let date = day.format("%Y-%m-%d").to_string();
        if let Some(payload) = tx.curve(&item.key, version, &date)? {
            return Ok(payload);
        }
        let (before, after) = tx.nearest_ondates(&item.key, version, &date)?;
        let name = format!("{}:{}", item.key.object, item.key.prop);
        let found = match nearest {
            Some(Nearest::Before) => before.as_deref(),
            Some(Nearest::After) => after.as_deref(),
            None => None,
        };
        if let Some(found) = found {
            return tx.curve(&item.key, version, found)?.ok_or_else(|| {
                Error::Internal(format!("the ondate {found} of {name} has no curve"))
            });
        }
        let weekday = day.format("%A");
        Err(Error::not_found(match (nearest, before, after) {
            (_, None, None) => format!("data \"{text}\" not found: {name} has no curves"),
            (Some(n), before, after) => {
                let (side, other, other_side) = match n {
                    Nearest::Before => ("on or before", after, Nearest::After),
                    Nearest::After => ("on or after", before, Nearest::Before),
                };
                format!(
                    "data \"{text}\" not found: {name} has no curve {side} {date} ({weekday}); \
                     the nearest ondate is {} (_nearest={} reads it)",
                    other.unwrap_or_default(),
                    other_side.as_str()
                )
            }
            (None, before, after) => {
                let around = match (before, after) {
                    (Some(b), Some(a)) => format!("{b} before it and {a} after it"),
                    (Some(b), None) => format!("{b} before it (none after it)"),
                    (None, Some(a)) => format!("{a} after it (none before it)"),
                    (None, None) => String::new(),
                };
                format!(
                    "data \"{text}\" not found: {name} has no curve on {date} ({weekday}); the \
                     nearest ondates are {around}: read one of them, or ask for it with \
                     _nearest=before or _nearest=after"
                )
            }
        }))
    }

    /// The curves of an opened curve item whose ondates lie in `q`'s range (dates read in
    /// UTC), oldest first, each as a read of its ondate answers it.
    fn range_curves(
        &self,
        tx: &dyn ReadTx,
        mut item: Opened,
        q: &DataQuery,
    ) -> Result<Vec<ItemCurve>> {
        let (from, to, last) = self.window(q, chrono_tz::Tz::UTC, None)?.ondates();
        let version = item.object.version;
        let curves = tx.curves(&item.key, version, from.as_deref(), to.as_deref(), last)?;
        let conv = item.converter(tx, &q.conversion)?;
        let mut out = Vec::with_capacity(curves.len());
        for (_, payload) in &curves {
            let stored = converted_curve(payload, conv.as_ref())?;
            out.push(curve_item(&mut item, stored));
        }
        Ok(out)
    }
}

/// One curve of an opened item: its header, `_id` `OBJ:PROP:ONDATE` (at the current
/// version), and the curve.
fn curve_item(item: &mut Opened, stored: StoredCurve) -> ItemCurve {
    let is_current = item.is_current;
    let id = format!(
        "{}:{}:{}",
        item.key.object,
        item.key.prop,
        stored.curve_date()
    );
    let mut json = item.json().clone();
    if is_current {
        json.insert("_id".into(), Value::String(id));
    }
    ItemCurve {
        name: ItemName::of(item),
        json,
        stored,
    }
}

/// Refuses what would answer a curve in place of the one asked for: an ondate with `_range`,
/// `_nearest` without an ondate or with a read over every ondate, `_shape` over a range.
fn check_curve_query(text: &str, id: &DataId, q: &DataQuery) -> Result<()> {
    let over_ondates = if q.tenor.is_some() {
        Some("tenor= reads one tenor over the ondates")
    } else if q.list_tenors {
        Some("listTenors lists the tenors of every ondate")
    } else if q.continuation.is_some() {
        Some("_continuation reads every ondate")
    } else {
        None
    };
    if let Some(n) = q.nearest {
        let n = n.as_str();
        if id.ondate.is_none() {
            return Err(Error::invalid_parameter(format!(
                "_nearest={n} needs a date: read {text}:YYYY-MM-DD?_nearest={n} for the curve \
                 of the nearest ondate {} it",
                if n == "before" {
                    "on or before"
                } else {
                    "on or after"
                }
            )));
        }
        if let Some(other) = over_ondates {
            return Err(Error::invalid_parameter(format!(
                "_nearest picks the curve of one ondate and {other}: send one of them"
            )));
        }
        if q.range.is_some() {
            return Err(Error::invalid_parameter(
                "_nearest picks the curve of one ondate and _range picks the curves of a range: \
                 send one of them",
            ));
        }
    }
    if let (Some(day), Some(_)) = (id.ondate, &q.range) {
        if over_ondates.is_none() {
            return Err(Error::invalid_parameter(format!(
                "\"{text}\" names the ondate {day}: _range picks the curves of a range, so name \
                 the curve without an ondate ({}:{}?_range=...)",
                id.object, id.prop
            )));
        }
    }
    if q.shape.is_some() && q.range.is_some() && over_ondates.is_none() {
        return Err(Error::invalid_parameter(
            "_shape=MONTHLY shapes the curve of one ondate and _range picks the curves of a \
             range: name the ondate (OBJ:PROP:ONDATE) instead of a range",
        ));
    }
    Ok(())
}
