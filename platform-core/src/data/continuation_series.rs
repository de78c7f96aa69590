//! Reading a continuation series (see `continuation`): the contract a continuation picks on
//! each ondate of a curve, as one point of a SPARSE series, converted as the read asks and
//! back-adjusted when it asks (`continuation_adjust`).

use super::answer::{DatedPoint, DatedSeries, ItemName};
use super::continuation::{text, Continuation};
use super::continuation_adjust::{back_adjust, Picked};
use super::conversion::{converted, Converter};
use super::curve;
use super::read::{DataQuery, Opened};
use super::SERIES_TYPE;
use crate::data::Data;
use crate::error::{Error, Result};
use crate::observations::model::Status;
use crate::store::ReadTx;
use chrono::NaiveDate;
use serde_json::{Map, Value};

impl Data<'_> {
    /// The continuation series `cont` of an opened curve item, over the ondates `q`'s range
    /// picks, converted as `q` asks.
    pub(crate) fn continuation_series(
        &self,
        tx: &dyn ReadTx,
        mut opened: Opened,
        cont: &Continuation,
        q: &DataQuery,
    ) -> Result<DatedSeries> {
        let mut item = opened.take_json();
        let (from, to, last) = self.window(q, chrono_tz::Tz::UTC, None)?.ondates();
        let curves = tx.curves(
            &opened.key,
            opened.object.version,
            from.as_deref(),
            to.as_deref(),
            last,
        )?;
        let conv = Converter::new(tx, &mut item, &q.conversion)?;
        let mut points = Vec::with_capacity(curves.len());
        // What each point holds, kept only to back-adjust.
        let mut picked = Vec::new();
        for (i, (ondate, payload)) in curves.iter().enumerate() {
            let Some(c) = cont.pick(ondate, curve::contract_views(payload)?)? else {
                continue;
            };
            let absolute = text(c.absolute)?.to_string();
            let mut value = c.value;
            let mut status = if c.status.is_empty() {
                None
            } else {
                Some(Status::decode(text(c.status)?))
            };
            if let (Some(conv), Some(_)) = (&conv, value.as_f64()) {
                let day = NaiveDate::parse_from_str(ondate, "%Y-%m-%d")
                    .map_err(|e| Error::caused("a stored ondate", e))?;
                let at = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
                value = conv.value(&value, at)?;
                status = converted(status);
            }
            if cont.adjust.is_some() {
                picked.push(Picked {
                    curve: i,
                    absolute: absolute.clone(),
                    value: value.as_f64().filter(|v| v.is_finite()),
                });
            }
            let mut props = Map::new();
            props.insert("absolute".into(), Value::String(absolute));
            points.push(DatedPoint {
                ondate: ondate.clone(),
                value,
                status,
                properties: Some(props),
            });
        }
        let rolls = match cont.adjust {
            Some(adjust) => Some(back_adjust(
                adjust,
                &curves,
                &picked,
                conv.as_ref(),
                &mut points,
            )?),
            None => None,
        };
        item.insert("_type".into(), Value::String(SERIES_TYPE.into()));
        item.insert("calendar".into(), Value::String("SPARSE".into()));
        let mut props = opened
            .header
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        props.insert("continuation".into(), Value::String(cont.code.to_string()));
        props.insert("roll".into(), Value::String(cont.roll.as_str().into()));
        if let Some(adjust) = cont.adjust {
            props.insert("adjust".into(), Value::String(adjust.as_str().into()));
        }
        item.insert("properties".into(), Value::Object(props));
        if let Some(rolls) = rolls {
            item.insert("rolls".into(), Value::Array(rolls));
        }
        Ok(DatedSeries {
            name: ItemName::of(&opened),
            json: item,
            points,
        })
    }
}
