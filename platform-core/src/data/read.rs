//! The data service (read-only): one data item by id, several by id, `_profile` on objects, the
//! history of one tenor of a curve, and the list of a curve's tenors.
//!
//! A data item's JSON is its header (as stored on the object) with the system fields
//! `_id _type _objid _dataid _access _objtype _oid _timestamp _user _tag _version` and its `data`
//! (series) or `ondate` and `contracts` (curve).

use super::answer::{curves_json, Answer, DatedPoint, DatedSeries, ItemName};
use super::calendar::Calendar;
use super::columns::write_points_json;
use super::columns::Columns;
use super::conversion::{converted, Converter};
use super::curve::{self, StoredCurve};
use super::model::Point;
pub(crate) use super::read_item::Opened;
pub use super::read_query::{DataId, DataJson, DataQuery, Nearest};
use super::scale::Scaling;
use super::series::{self, Window};
use super::time_writer::TimeWriter;
use super::zone::printed_instant;
use super::{series_settings, DataKind, SERIES_TYPE};
use crate::auth::Principal;
use crate::data::Data;
use crate::error::{Error, Result};
use crate::holidays::HolidayCalendar;
use crate::ids::{Scope, Source, VersionRef};
use crate::query::period;
use crate::query::range::Resolved;
use crate::store::{Collection, DataKey, ReadTx};
use chrono::NaiveDate;
use serde_json::{json, Map, Value};

impl Data<'_> {
    /// The same answer as [`read`](Self::read), as the bytes of its JSON text, written without
    /// building a JSON tree of the points (what a server sends), with the `_timestamp` it
    /// carries. Through a snapshot's handle ([`crate::Snapshot::data`]) its reads are made in
    /// the snapshot.
    pub fn read_json_bytes(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<DataJson> {
        self.read_json_in(self.tx(), p, source, id, q)
    }

    /// [`read_arrow_bytes`](Self::read_arrow_bytes) in the pieces the stream is made of: a
    /// series' decoded times and values are among them as they are, not copied into one buffer
    /// (a server hands them on to the connection). Through a snapshot's handle
    /// ([`crate::Snapshot::data`]) its reads are made in the snapshot.
    pub fn read_arrow_stream(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<crate::format::arrow::ArrowStream> {
        self.read_arrow_in(self.tx(), p, source, id, q)
    }

    /// JSON: one data item by id from a source, read as `q` asks (range, version, tenor,
    /// conversion).
    pub fn read(&self, p: &Principal, source: Source, id: &str, q: &DataQuery) -> Result<Value> {
        Ok(self.read_answer(p, source, id, q)?.into_json(q))
    }

    /// One data item by id from a source, read as `q` asks: what [`Data::read`] answers,
    /// before it is written.
    pub(crate) fn read_answer(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<Answer> {
        let (data_id, scope) = data_scope(p, source, id)?;
        let tx = self.platform.read()?;
        self.data_answer(p, tx.as_ref(), &scope, &data_id, id, q)
    }

    /// Data items with these ids, each from its own source; missing ones are left out (a curve
    /// read with `_range` gives the curves in the range).
    pub(crate) fn read_many(
        &self,
        p: &Principal,
        ids: &[&str],
        q: &DataQuery,
    ) -> Result<Vec<Answer>> {
        let tx = self.platform.read()?;
        if q.version.is_none() {
            read_series_ahead(tx.as_ref(), p, ids)?;
        }
        let mut out = Vec::new();
        for id in ids {
            let data_id = DataId::parse(id)?;
            let scope = Scope::for_source(Source::of_id(&data_id.object), p);
            match self.data_answer(p, tx.as_ref(), &scope, &data_id, id, q) {
                Ok(answer) => out.push(answer),
                Err(e) if e.code() == crate::ErrorCode::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// One data item by id from a source, as the bytes of its JSON answer: a series' points are
    /// written straight from their decoded form, never as a JSON tree.
    fn read_json_in(
        &self,
        tx: Option<&dyn ReadTx>,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<DataJson> {
        let (data_id, scope) = data_scope(p, source, id)?;
        let tx = self.platform.read_in(tx)?;
        let timestamp = |json: &Map<String, Value>| {
            json.get("_timestamp")
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        match self.data_answer(p, &*tx, &scope, &data_id, id, q)? {
            Answer::Series {
                mut item,
                points,
                calendar,
                tz,
            } => {
                let (mut out, timestamp) = match item.json.take() {
                    // Changed by a conversion or scaling: printed as it now is.
                    Some(mut json) => {
                        json.shift_remove("data");
                        let timestamp = timestamp(&json);
                        let out = serde_json::to_vec(&Value::Object(json))
                            .map_err(|e| Error::caused("a data answer", e))?;
                        (out, timestamp)
                    }
                    None => {
                        let mut out = Vec::with_capacity(512 + points.len() * 48);
                        item.write_header_json(&mut out);
                        (
                            out,
                            Some(crate::clock::format_instant(item.object.timestamp)),
                        )
                    }
                };
                // The header's closing brace gives way to the points.
                out.pop();
                out.extend_from_slice(if out.len() > 1 {
                    b",\"data\":"
                } else {
                    b"\"data\":"
                });
                let mut times = TimeWriter::new(calendar, tz).printing_in(q.print_zone(tz));
                let keyed = q.settlement;
                write_points_json(&mut out, &points, |t, out| {
                    times.write(t, out);
                    if keyed {
                        super::settlement::write_json_fields(t, out);
                    }
                });
                out.push(b'}');
                Ok(DataJson {
                    bytes: out,
                    timestamp,
                })
            }
            other => {
                let v = other.into_json(q);
                // The curves of a range: the first one's.
                let first = match &v {
                    Value::Array(items) => items.first(),
                    v => Some(v),
                };
                Ok(DataJson {
                    timestamp: first.and_then(Value::as_object).and_then(timestamp),
                    bytes: v.to_string().into_bytes(),
                })
            }
        }
    }

    /// One data item by id from a source, as an Arrow IPC stream: a series' columns are built
    /// straight from its decoded points, never from a JSON tree.
    fn read_arrow_in(
        &self,
        tx: Option<&dyn ReadTx>,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<crate::format::arrow::ArrowStream> {
        let (data_id, scope) = data_scope(p, source, id)?;
        let tx = self.platform.read_in(tx)?;
        match self.data_answer(p, &*tx, &scope, &data_id, id, q)? {
            Answer::Series {
                mut item,
                points,
                calendar,
                tz,
            } => {
                let keys = q
                    .settlement
                    .then_some(super::settlement::date32_and_period as fn(i64) -> (i32, u8));
                if q.timezone.is_some() && calendar.is_dated() {
                    // Local dates, as the JSON answer prints them: `date32`, which a reader
                    // takes for the day itself in any zone.
                    return crate::format::arrow::series_columns_to_arrow_dated(
                        &item.take_series_json(),
                        points,
                        move |t| local_day(t, tz),
                    );
                }
                match q.print_zone(tz) {
                    // Times printed in a zone: the instants themselves, and the zone beside them.
                    Some(zone) => crate::format::arrow::series_columns_to_arrow_keyed(
                        &item.take_series_json(),
                        points,
                        None::<fn(i64) -> i64>,
                        zone.name(),
                        keys,
                    ),
                    None => crate::format::arrow::series_columns_to_arrow_keyed(
                        &item.take_series_json(),
                        points,
                        calendar
                            .is_dated()
                            .then_some(move |t| printed_instant(t, calendar, tz)),
                        "UTC",
                        keys,
                    ),
                }
            }
            Answer::Dated(d) => {
                crate::format::arrow::dated_series_to_arrow(&d.into_json()).map(Into::into)
            }
            Answer::Curves(curves) => {
                crate::format::arrow::curves_to_arrow(&curves_json(curves)).map(Into::into)
            }
            other => crate::format::arrow::to_arrow(&other.into_json(q)).map(Into::into),
        }
    }

    /// One data item by id from a source, as CSV (see [`crate::format::csv::data_to_csv`]):
    /// the curves of a `_range` as one row a contract, each with its `ondate`.
    pub fn read_csv(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<String> {
        let (data_id, scope) = data_scope(p, source, id)?;
        let tx = self.platform.read()?;
        let answer = self.data_answer(p, tx.as_ref(), &scope, &data_id, id, q)?;
        Ok(match answer {
            Answer::Curves(curves) => crate::format::csv::curves_to_csv(&curves_json(curves)),
            other => {
                let v = other.into_json(q);
                crate::format::csv::data_to_csv(&v)
                    .unwrap_or_else(|| crate::format::csv::objects_to_csv(std::slice::from_ref(&v)))
            }
        })
    }

    /// A data item as its answer: a series' header and points, a curve's, ... (see [`Answer`]).
    pub(super) fn data_answer(
        &self,
        who: &Principal,
        tx: &dyn ReadTx,
        scope: &Scope,
        id: &DataId,
        text: &str,
        q: &DataQuery,
    ) -> Result<Answer> {
        let mut item = self.open_item(who, tx, scope, id, text, q)?;
        match item.kind {
            DataKind::Series => {
                if id.ondate.is_some()
                    || q.tenor.is_some()
                    || q.list_tenors
                    || q.shape.is_some()
                    || q.continuation.is_some()
                    || q.nearest.is_some()
                {
                    return Err(Error::invalid_parameter(format!(
                        "\"{text}\" is a time series: ondates, tenor, listTenors, _shape, \
                         _continuation and _nearest apply to curves"
                    )));
                }
                let (points, calendar, tz) =
                    self.item_columns(who, tx, &mut item, q, |tz, h| {
                        self.window(q, q.range_zone(tz), h)
                    })?;
                if q.settlement {
                    let code = match item.json.as_ref().and_then(|j| j.get("calendar")) {
                        Some(Value::String(scaled)) => scaled.clone(),
                        _ => series_settings(&item.key.prop, &item.header)?.2,
                    };
                    super::settlement::check_calendar(calendar, &code)?;
                }
                // The points go last, as a new field ("data" in a stored header is replaced):
                // see `take_series_json`.
                Ok(Answer::Series {
                    item: Box::new(item),
                    points,
                    calendar,
                    tz,
                })
            }
            DataKind::Curve => self.curve_answer(who, tx, item, id, text, q),
        }
    }

    /// A data item opened at the object version `q` asks for: its header checked readable by
    /// `who`, and its kind.
    pub(crate) fn open_item(
        &self,
        who: &Principal,
        tx: &dyn ReadTx,
        scope: &Scope,
        id: &DataId,
        text: &str,
        q: &DataQuery,
    ) -> Result<Opened> {
        let not_found = || Error::not_found(format!("data \"{text}\" not found"));
        // Of the object, only the item's property and the object's type are read.
        let current = tx
            .current_fields(Collection::Object, scope, &id.object, &[&id.prop, "_type"])?
            .ok_or_else(not_found)?;
        let current_version = current.version;
        let object = match &q.version {
            None => current,
            Some(which) => {
                let n = match which {
                    VersionRef::Number(n) => *n,
                    VersionRef::Tag(t) => tx
                        .tagged(Collection::Object, scope, &id.object, t)?
                        .ok_or_else(not_found)?,
                    VersionRef::AsOf(at) => VersionRef::pick_as_of(
                        *at,
                        &tx.versions(Collection::Object, scope, &id.object)?,
                    )
                    .ok_or_else(not_found)?,
                };
                tx.version(Collection::Object, scope, &id.object, n)?
                    .ok_or_else(not_found)?
            }
        };
        let header = object
            .body
            .get(&id.prop)
            .and_then(Value::as_object)
            .ok_or_else(not_found)?
            .clone();
        // Data with an access role is invisible to users without it.
        if !who
            .grants
            .may_read(header.get("_access").and_then(Value::as_str))
        {
            return Err(not_found());
        }
        let kind = DataKind::of_header(&header).ok_or_else(not_found)?;
        let key = DataKey {
            scope: scope.clone(),
            object: id.object.clone(),
            prop: id.prop.clone(),
        };
        let is_current = object.version == current_version;
        Ok(Opened {
            kind,
            key,
            is_current,
            json: None,
            header,
            object,
        })
    }

    /// The window `window_in` gives for an opened series, with the series' calendar and zone.
    fn item_window(
        &self,
        who: &Principal,
        tx: &dyn ReadTx,
        item: &Opened,
        q: &DataQuery,
        window_in: impl FnOnce(chrono_tz::Tz, Option<&HolidayCalendar>) -> Result<Window>,
    ) -> Result<(Window, Calendar, chrono_tz::Tz)> {
        let (calendar, tz, code) = series_settings(&item.key.prop, &item.header)?;
        // A series dated on a holiday calendar counts `B` of its ranges in its business days.
        let holidays = if q.range.is_some() && crate::data::names_holiday_calendar(&code) {
            let what = format!("{}.calendar", item.key.prop);
            Some(crate::calendars::holidays_of(tx, who, &code, &what)?)
        } else {
            None
        };
        Ok((window_in(tz, holidays.as_ref())?, calendar, tz))
    }

    /// [`Platform::item_points`] as columns: read straight into them when nothing is converted
    /// or scaled.
    pub(crate) fn item_columns(
        &self,
        who: &Principal,
        tx: &dyn ReadTx,
        item: &mut Opened,
        q: &DataQuery,
        window_in: impl FnOnce(chrono_tz::Tz, Option<&HolidayCalendar>) -> Result<Window>,
    ) -> Result<(Columns, Calendar, chrono_tz::Tz)> {
        if q.conversion.is_none() && q.scaling.is_none() {
            let (window, calendar, tz) = self.item_window(who, tx, item, q, window_in)?;
            let columns = series::read_columns(tx, &item.key, item.object.version, window)?;
            return Ok((columns, calendar, tz));
        }
        let (points, calendar, tz) = self.item_points(who, tx, item, q, window_in)?;
        Ok((Columns::from_points(&points), calendar, tz))
    }

    /// The observations of an opened series in the window `window_in` gives for the series'
    /// zone, converted as `q` asks (the item's `units` and `currency` become the targets).
    pub(crate) fn item_points(
        &self,
        who: &Principal,
        tx: &dyn ReadTx,
        item: &mut Opened,
        q: &DataQuery,
        window_in: impl FnOnce(chrono_tz::Tz, Option<&HolidayCalendar>) -> Result<Window>,
    ) -> Result<(Vec<Point>, Calendar, chrono_tz::Tz)> {
        let (window, calendar, tz) = self.item_window(who, tx, item, q, window_in)?;
        let mut points = series::read(tx, &item.key, item.object.version, window)?;
        if let Some(conv) = item.converter(tx, &q.conversion)? {
            conv.points(&mut points, |t| {
                let at = chrono::DateTime::from_timestamp_millis(t).unwrap_or_default();
                if calendar.is_dated() {
                    ondate_instant(&at.with_timezone(&tz).date_naive().to_string())
                } else {
                    at
                }
            })?;
        }
        let Some(s) = &q.scaling else {
            return Ok((points, calendar, tz));
        };
        // A `_block` naming a block calendar: its days, hours and holidays, loaded now.
        let loaded;
        let s = match &s.block {
            Some(super::scale::Block::Named(id)) => {
                let hours = crate::calendars::block_of(
                    tx,
                    who,
                    id,
                    "_block",
                    "PEAK, OFFPEAK, BASE, EFA1..EFA6",
                )?;
                loaded = Scaling {
                    block: Some(super::scale::Block::Hours(std::sync::Arc::new(hours))),
                    ..s.clone()
                };
                &loaded
            }
            _ => s,
        };
        // A series dated on a holiday calendar's business days expects none on its holidays.
        let (_, _, code) = series_settings(&item.key.prop, &item.header)?;
        let holidays = if s.observed.is_some() && crate::data::names_holiday_calendar(&code) {
            let what = format!("{}.calendar", item.key.prop);
            Some(crate::calendars::holidays_of(tx, who, &code, &what)?)
        } else {
            None
        };
        // Scaling comes after conversion: the periods aggregate converted values.
        let cut = q.timezone.map_or(tz, |zone| zone.resolve(tz));
        let points = s.apply_in(&points, (calendar, holidays.as_ref()), tz, cut)?;
        let json = item.json();
        json.insert("calendar".into(), Value::String(s.target.code()));
        if let Some(o) = s.observed {
            json.insert("observed".into(), Value::String(o.as_str().into()));
        }
        if q.timezone.is_some() {
            json.insert("timezone".into(), Value::String(cut.name().into()));
        }
        Ok((points, s.target.printed(), cut))
    }

    /// The curve of an opened curve item (data id `text`) at `ondate` (the newest when
    /// `None`; the nearest one when that day has none and `q` asks `_nearest`), converted as
    /// `q` asks.
    pub(crate) fn item_curve(
        &self,
        tx: &dyn ReadTx,
        item: &mut Opened,
        text: &str,
        ondate: Option<NaiveDate>,
        q: &DataQuery,
    ) -> Result<StoredCurve> {
        let version = item.object.version;
        let stored = match ondate {
            // A day without a curve: the nearest one `q` asks for, or a 404 naming them.
            Some(d) => self.ondate_payload(tx, item, text, d, q.nearest)?,
            None => tx
                .curves(&item.key, version, None, None, Some(1))?
                .pop()
                .map(|(_, c)| c)
                .ok_or_else(|| Error::not_found(format!("data \"{text}\" not found")))?,
        };
        let conv = item.converter(tx, &q.conversion)?;
        converted_curve(&stored, conv.as_ref())
    }

    /// The observation window of a `_range` (all when absent), dates read in `tz` unless the
    /// range names a zone.
    pub(crate) fn window(
        &self,
        q: &DataQuery,
        tz: chrono_tz::Tz,
        holidays: Option<&HolidayCalendar>,
    ) -> Result<Window> {
        let move_by = |d: NaiveDate, n: i64| holidays.and_then(|h| h.add_business_days(d, n).ok());
        let business: Option<crate::query::daterule::BusinessDays<'_>> =
            holidays.map(|_| &move_by as crate::query::daterule::BusinessDays<'_>);
        Ok(match &q.range {
            None => Window::All,
            Some(r) => match r
                .resolve_with(self.platform.now(), tz, business)
                .map_err(|e| Error::invalid_parameter(format!("_range: {e}")))?
            {
                Resolved::Last(n) => Window::Last(n as u64),
                Resolved::Window { start, end } => Window::Between(
                    start.map(|s| s.timestamp_millis()),
                    end.map(|e| e.timestamp_millis()),
                ),
            },
        })
    }

    pub(super) fn list_tenors(
        &self,
        tx: &dyn ReadTx,
        key: &DataKey,
        version: u32,
    ) -> Result<Value> {
        let curves = tx.curves(key, version, None, None, None)?;
        let mut codes: Vec<String> = Vec::new();
        for (_, payload) in &curves {
            for code in curve::relative_codes(payload)? {
                if !codes.contains(&code) {
                    codes.push(code);
                }
            }
        }
        // Balance-of codes first, then by period length (day ... year), then by index.
        let order = |c: &String| match period::parse(c) {
            Ok(period::Period::BalanceOf(b)) => (0, None, 0, b.code().to_string()),
            Ok(period::Period::Next(d)) => (0, None, 0, d.code().to_string()),
            Ok(period::Period::Relative(r)) => (1, Some(r.unit), r.index, String::new()),
            _ => (2, None, 0, c.clone()),
        };
        codes.sort_by_key(order);
        Ok(json!(codes))
    }

    /// The history of the tenor `code` of an opened curve item: a series dated by the ondates
    /// `q`'s range picks, converted as `q` asks.
    pub(super) fn tenor_history(
        &self,
        tx: &dyn ReadTx,
        mut opened: Opened,
        code: &str,
        q: &DataQuery,
    ) -> Result<DatedSeries> {
        // A code no curve could hold (a save refuses it) is refused on a read as well.
        period::parse(code)
            .and_then(|p| p.resolve(self.platform.now().date_naive()))
            .map_err(|e| Error::invalid_parameter(format!("tenor \"{code}\": {e}")))?;
        let mut item = opened.take_json();
        let (from, to, last) = self.window(q, chrono_tz::Tz::UTC, None)?.ondates();
        let version = opened.object.version;
        let curves = tx.curves(&opened.key, version, from.as_deref(), to.as_deref(), last)?;
        let conv = Converter::new(tx, &mut item, &q.conversion)?;
        let mut points = Vec::with_capacity(curves.len());
        for (ondate, payload) in &curves {
            if let Some((mut value, mut status)) = curve::find_tenor(payload, code)? {
                if let (Some(conv), super::model::PointValue::Num(_)) = (&conv, &value) {
                    value = conv.value(&value, ondate_instant(ondate))?;
                    status = converted(status);
                }
                points.push(DatedPoint {
                    ondate: ondate.clone(),
                    value,
                    status,
                    properties: None,
                });
            }
        }
        item.insert("_type".into(), Value::String(SERIES_TYPE.into()));
        item.insert("calendar".into(), Value::String("SPARSE".into()));
        let mut props = opened
            .header
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        props.insert("tenor".into(), Value::String(code.to_string()));
        item.insert("properties".into(), Value::Object(props));
        Ok(DatedSeries {
            name: ItemName::of(&opened),
            json: item,
            points,
        })
    }
}

/// The local date of an instant in `tz`, as days since 1970-01-01 (Arrow's `date32`).
fn local_day(t: i64, tz: chrono_tz::Tz) -> i32 {
    let day = chrono::DateTime::from_timestamp_millis(t)
        .unwrap_or_default()
        .with_timezone(&tz)
        .date_naive();
    (day - NaiveDate::default()).num_days() as i32
}

/// Names ahead the objects of the data items `ids` (each from its own source) and their series
/// at the current versions, so that a store a network away reads them all in one round trip.
pub(crate) fn read_series_ahead(tx: &dyn ReadTx, p: &Principal, ids: &[&str]) -> Result<()> {
    let keys: Vec<DataKey> = ids
        .iter()
        .filter_map(|id| data_scope(p, Source::All, id).ok())
        .map(|(id, scope)| DataKey {
            scope,
            object: id.object,
            prop: id.prop,
        })
        .collect();
    let mut ahead: Vec<crate::store::Ahead<'_>> = keys
        .iter()
        .map(|k| crate::store::Ahead::Document(Collection::Object, &k.scope, &k.object))
        .collect();
    ahead.extend(keys.iter().map(crate::store::Ahead::Series));
    tx.read_ahead(&ahead)
}

pub(crate) fn data_scope(p: &Principal, source: Source, id: &str) -> Result<(DataId, Scope)> {
    let data_id = DataId::parse(id)?;
    let home = Source::of_id(&data_id.object);
    if source != Source::All && source != home {
        return Err(Error::not_found(format!(
            "data \"{id}\" not found in the {source} source"
        )));
    }
    let scope = Scope::for_source(home, p);
    Ok((data_id, scope))
}

/// A stored curve decoded, its numbers converted by `conv` (at the rates of its ondate).
pub(super) fn converted_curve(stored: &[u8], conv: Option<&Converter<'_>>) -> Result<StoredCurve> {
    let mut stored = curve::decode(stored)?;
    if let Some(conv) = conv {
        let at = ondate_instant(stored.curve_date());
        for c in &mut stored.contracts {
            if matches!(c.value, super::model::PointValue::Num(_)) {
                c.value = conv.value(&c.value, at)?;
                c.status = converted(c.status.take());
            }
        }
    }
    Ok(stored)
}

/// Midnight UTC of an ondate (the time FX rates are read at for a curve).
fn ondate_instant(ondate: &str) -> chrono::DateTime<chrono::Utc> {
    NaiveDate::parse_from_str(ondate, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
        .unwrap_or_default()
}
