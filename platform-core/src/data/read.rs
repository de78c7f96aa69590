//! The data service (read-only): one data item by id, several by id, `_profile` on objects, the
//! history of one tenor of a curve, and the list of a curve's tenors.
//!
//! A data item's JSON is its header (as stored on the object) with the system fields
//! `_id _type _objid _dataid _access _objtype _oid _timestamp _user _tag _version` and its `data`
//! (series) or `ondate` and `contracts` (curve).

use super::calendar::{Calendar, TimeWriter};
use super::columns::write_points_json;
use super::columns::Columns;
use super::conversion::{converted, Conversion, Converter};
use super::curve::{self, curve_fields, StoredCurve};
use super::model::{points_json, Point};
use super::scale::Scaling;
use super::series::{self, Window};
use super::zone::{format_time_in, printed_instant, ReadZone};
use super::{series_settings, DataKind, SERIES_TYPE};
use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::holidays::HolidayCalendar;
use crate::ids::{validate_id, Scope, Source, VersionRef};
use crate::query::range::{self, Resolved};
use crate::query::{period, Params};
use crate::store::{Collection, DataKey, ReadTx, StoredVersion};
use crate::Platform;
use chrono::NaiveDate;
use serde_json::{json, Map, Value};

/// A parsed data id `OBJ:PROP[:ONDATE]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataId {
    /// The owning object.
    pub object: String,
    /// The data name.
    pub prop: String,
    /// The curve date, for one curve.
    pub ondate: Option<NaiveDate>,
}

impl DataId {
    /// Parses a data id.
    pub fn parse(text: &str) -> Result<DataId> {
        let bad =
            |why: &str| Error::invalid_parameter(format!("invalid data id \"{text}\": {why}"));
        let mut parts = text.splitn(3, ':');
        let object = parts.next().unwrap_or_default();
        let prop = parts
            .next()
            .ok_or_else(|| bad("expected OBJECT:DATA or OBJECT:DATA:ONDATE"))?;
        validate_id(object, "object id")?;
        if prop.is_empty() {
            return Err(bad("the data name is empty"));
        }
        let ondate = parts
            .next()
            .map(|d| {
                NaiveDate::parse_from_str(d, "%Y-%m-%d")
                    .map_err(|_| bad("the ondate must be YYYY-MM-DD"))
            })
            .transpose()?;
        Ok(DataId {
            object: object.to_string(),
            prop: prop.to_string(),
            ondate,
        })
    }
}

/// Options of a data read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DataQuery {
    /// `_range`.
    pub range: Option<range::RangeExpr>,
    /// `tenor=CODE`: the history of one tenor of a curve.
    pub tenor: Option<String>,
    /// `listTenors`: the relative tenors of a curve.
    pub list_tenors: bool,
    /// `_continuation` and `_roll`: a curve's continuation series.
    pub continuation: Option<super::continuation::Continuation>,
    /// `_version`: read the data as of an object version (number or tag).
    pub version: Option<VersionRef>,
    /// `units`, `currency`, `__density`.
    pub conversion: Conversion,
    /// `_calendar` with `_observed`, `_distribution` and `_block`: scaling on read.
    pub scaling: Option<Scaling>,
    /// `_timezone`: the zone a series' times print in, or with `_calendar` the zone periods are
    /// cut in; `_range` dates are read in it (see [`super::zone`]).
    pub timezone: Option<ReadZone>,
    /// `_shape=MONTHLY` with `_weights`: a curve shaped into months.
    pub shape: Option<super::shape::ShapeQuery>,
    /// `_settlement=GB`: each half-hour of a series read carries its GB settlement date and
    /// period, and `_range` dates are settlement days (see [`super::settlement`]).
    pub settlement: bool,
}

/// The most observations a read may take and still count as short ([`DataQuery::is_short`]).
const SHORT_READ: usize = 10_000;

impl DataQuery {
    /// Whether the read takes a bounded few observations whatever the item holds: a
    /// `last(n)` of at most 10,000, not a tenor's history.
    pub fn is_short(&self) -> bool {
        self.tenor.is_none()
            && self.continuation.is_none()
            && matches!(
                self.range.as_ref().map(|r| r.form()),
                Some(range::RangeForm::Last(n)) if *n <= SHORT_READ
            )
    }

    /// Reads `_range`, `tenor`, `listTenors`, `_version`.
    pub fn from_params(params: &Params) -> Result<DataQuery> {
        let range = params
            .get("_range")
            .map(|r| range::parse(r).map_err(|e| Error::invalid_parameter(format!("_range: {e}"))))
            .transpose()?;
        // Every form accepted on input, read in its canonical form (`2024Q3` is `2024Q03`).
        let tenor = match params.get("tenor") {
            Some(t) => Some(
                period::parse(t)
                    .map_err(|e| Error::invalid_parameter(format!("tenor: {e}")))?
                    .to_string(),
            ),
            None => None,
        };
        let scaling = Scaling::from_params(
            params.get("_calendar"),
            params.get("_observed"),
            params.get("_distribution"),
            params.get("_block"),
        )?;
        let timezone = params.get("_timezone").map(ReadZone::parse).transpose()?;
        Ok(DataQuery {
            range,
            tenor,
            list_tenors: params.flag("listTenors")?,
            continuation: super::continuation::Continuation::from_params(params)?,
            version: match (params.get("_version"), params.get("_asof")) {
                (Some(_), Some(_)) => {
                    return Err(Error::invalid_parameter(
                        "_version and _asof name a version each: send one",
                    ))
                }
                (Some(v), None) => Some(v.parse()?),
                (None, Some(t)) => Some(VersionRef::as_of(t)?),
                (None, None) => None,
            },
            conversion: Conversion::from_params(params)?,
            scaling,
            timezone,
            shape: super::shape::ShapeQuery::from_params(params)?,
            settlement: match params.get("_settlement") {
                Some(text) => super::settlement::parse_param(text).map(|()| true)?,
                None => false,
            },
        })
    }
}

/// A data answer's JSON text, and the `_timestamp` of the object version it was read at (a
/// server's `Last-Modified`, without reading the text again for it).
#[derive(Debug, Clone, PartialEq)]
pub struct DataJson {
    /// The JSON text.
    pub bytes: Vec<u8>,
    /// The object version's `_timestamp` (none for an answer without one).
    pub timestamp: Option<String>,
}

impl Platform {
    /// One data item by id from a source.
    pub(crate) fn read_data(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<Value> {
        let (data_id, scope) = data_scope(p, source, id)?;
        let tx = self.read()?;
        self.data_item(p, tx.as_ref(), &scope, &data_id, id, q)
    }

    /// Data items with these ids, each from its own source; missing ones are left out.
    pub(crate) fn read_many_data(
        &self,
        p: &Principal,
        ids: &[&str],
        q: &DataQuery,
    ) -> Result<Vec<Value>> {
        let tx = self.read()?;
        if q.version.is_none() {
            read_series_ahead(tx.as_ref(), p, ids)?;
        }
        let mut out = Vec::new();
        for id in ids {
            let data_id = DataId::parse(id)?;
            let scope = Scope::for_source(Source::of_id(&data_id.object), p);
            match self.data_item(p, tx.as_ref(), &scope, &data_id, id, q) {
                Ok(v) => out.push(v),
                Err(e) if e.code() == crate::ErrorCode::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// One data item by id from a source, as the bytes of its JSON answer: a series' points are
    /// written straight from their decoded form, never as a JSON tree.
    pub(crate) fn read_data_json(
        &self,
        tx: Option<&dyn ReadTx>,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<DataJson> {
        let (data_id, scope) = data_scope(p, source, id)?;
        let tx = self.read_in(tx)?;
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
            Answer::Value(v) => Ok(DataJson {
                timestamp: v.as_object().and_then(timestamp),
                bytes: v.to_string().into_bytes(),
            }),
        }
    }

    /// One data item by id from a source, as an Arrow IPC stream: a series' columns are built
    /// straight from its decoded points, never from a JSON tree.
    pub(crate) fn read_data_arrow(
        &self,
        tx: Option<&dyn ReadTx>,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<crate::format::arrow::ArrowStream> {
        let (data_id, scope) = data_scope(p, source, id)?;
        let tx = self.read_in(tx)?;
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
            Answer::Value(v) => crate::format::arrow::to_arrow(&v).map(Into::into),
        }
    }

    fn data_item(
        &self,
        who: &Principal,
        tx: &dyn ReadTx,
        scope: &Scope,
        id: &DataId,
        text: &str,
        q: &DataQuery,
    ) -> Result<Value> {
        Ok(match self.data_answer(who, tx, scope, id, text, q)? {
            Answer::Series {
                mut item,
                points,
                calendar,
                tz,
            } => {
                let mut json = item.take_series_json();
                let print = q.print_zone(tz);
                let text = |t| format_time_in(t, calendar, tz, print);
                let points = points.into_points();
                let mut data = points_json(&points, text);
                if let (true, Value::Array(printed)) = (q.settlement, &mut data) {
                    for (p, printed) in points.iter().zip(printed.iter_mut()) {
                        *printed = super::settlement::keyed_point(p.t, printed.take());
                    }
                }
                json.insert("data".into(), data);
                Value::Object(json)
            }
            Answer::Value(v) => v,
        })
    }

    /// A data item as its answer: a series' header and points, or any other item's JSON.
    fn data_answer(
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
                {
                    return Err(Error::invalid_parameter(format!(
                        "\"{text}\" is a time series: ondates, tenor, listTenors, _shape and \
                         _continuation apply to curves"
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
                return Ok(Answer::Series {
                    item: Box::new(item),
                    points,
                    calendar,
                    tz,
                });
            }
            DataKind::Curve => {
                if q.settlement {
                    return Err(Error::invalid_parameter(format!(
                        "\"{text}\" is a curve: _settlement=GB keys the half-hours of a series"
                    )));
                }
                if let Some(shape) = &q.shape {
                    shape.check_with(q.tenor.is_some(), q.list_tenors, q.continuation.is_some())?;
                }
                if q.list_tenors {
                    return self
                        .list_tenors(tx, &item.key, item.object.version)
                        .map(Answer::Value);
                }
                if let Some(cont) = &q.continuation {
                    super::continuation::no_ondate(text, id.ondate)?;
                    return self
                        .continuation_series(tx, item, cont, q)
                        .map(Answer::Value);
                }
                if let Some(code) = &q.tenor {
                    let json = item.take_json();
                    let Opened {
                        key,
                        object,
                        header,
                        ..
                    } = item;
                    return self
                        .tenor_history(tx, &key, &object, &header, code, q, json)
                        .map(Answer::Value);
                }
                let stored = self.item_curve(tx, &mut item, text, id.ondate, q)?;
                let (ondate, contracts) = curve_fields(&stored);
                let mut fields = vec![("ondate", ondate)];
                match &q.shape {
                    None => fields.push(("contracts", contracts)),
                    Some(shape) => {
                        let (shaped, weights) = shape.apply(text, &item.header, &stored)?;
                        fields.extend(super::shape::shaped_fields(&shaped, weights, contracts));
                    }
                }
                let is_current = item.is_current;
                let json = item.json();
                if id.ondate.is_some() && is_current {
                    json.insert("_id".into(), Value::String(text.to_string()));
                }
                for (k, v) in fields {
                    json.insert(k.into(), v);
                }
            }
        }
        Ok(Answer::Value(Value::Object(item.take_json())))
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
                let hours = crate::calendars::block_of(tx, who, id, "_block")?;
                loaded = Scaling {
                    block: Some(super::scale::Block::Hours(std::sync::Arc::new(hours))),
                    ..s.clone()
                };
                &loaded
            }
            _ => s,
        };
        // Scaling comes after conversion: the periods aggregate converted values.
        let cut = q.timezone.map_or(tz, |zone| zone.resolve(tz));
        let points = s.apply(&points, calendar, cut)?;
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
    /// `None`), converted as `q` asks.
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
            Some(d) => tx.curve(&item.key, version, &d.format("%Y-%m-%d").to_string())?,
            None => tx
                .curves(&item.key, version, None, None, Some(1))?
                .pop()
                .map(|(_, c)| c),
        };
        let stored =
            stored.ok_or_else(|| Error::not_found(format!("data \"{text}\" not found")))?;
        let mut stored = curve::decode(&stored)?;
        if let Some(conv) = item.converter(tx, &q.conversion)? {
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
                .resolve_with(self.now(), tz, business)
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

    fn list_tenors(&self, tx: &dyn ReadTx, key: &DataKey, version: u32) -> Result<Value> {
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
            Ok(period::Period::Relative(r)) => (1, Some(r.unit), r.index, String::new()),
            _ => (2, None, 0, c.clone()),
        };
        codes.sort_by_key(order);
        Ok(json!(codes))
    }

    #[allow(clippy::too_many_arguments)]
    fn tenor_history(
        &self,
        tx: &dyn ReadTx,
        key: &DataKey,
        object: &StoredVersion,
        header: &Map<String, Value>,
        code: &str,
        q: &DataQuery,
        mut item: Map<String, Value>,
    ) -> Result<Value> {
        // A code no curve could hold (a save refuses it) is refused on a read as well.
        period::parse(code)
            .and_then(|p| p.resolve(self.now().date_naive()))
            .map_err(|e| Error::invalid_parameter(format!("tenor \"{code}\": {e}")))?;
        let (from, to, last) = match self.window(q, chrono_tz::Tz::UTC, None)? {
            Window::All => (None, None, None),
            Window::Last(n) => (None, None, Some(n)),
            Window::Between(s, e) => (
                s.and_then(chrono::DateTime::from_timestamp_millis)
                    .map(|d| d.format("%Y-%m-%d").to_string()),
                e.and_then(|ms| chrono::DateTime::from_timestamp_millis(ms - 1))
                    .map(|d| d.format("%Y-%m-%d").to_string()),
                None,
            ),
        };
        let curves = tx.curves(key, object.version, from.as_deref(), to.as_deref(), last)?;
        let conv = Converter::new(tx, &mut item, &q.conversion)?;
        let mut data = Vec::with_capacity(curves.len());
        for (ondate, payload) in &curves {
            if let Some((mut value, mut status)) = curve::find_tenor(payload, code)? {
                if let (Some(conv), super::model::PointValue::Num(_)) = (&conv, &value) {
                    value = conv.value(&value, ondate_instant(ondate))?;
                    status = converted(status);
                }
                let mut obs = Map::new();
                obs.insert("time".into(), Value::String(ondate.clone()));
                obs.insert("value".into(), value.to_json());
                if let Some(s) = status {
                    obs.insert("status".into(), s.to_json());
                }
                data.push(Value::Object(obs));
            }
        }
        item.insert("_type".into(), Value::String(SERIES_TYPE.into()));
        item.insert("calendar".into(), Value::String("SPARSE".into()));
        let mut props = header
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        props.insert("tenor".into(), Value::String(code.to_string()));
        item.insert("properties".into(), Value::Object(props));
        item.insert("data".into(), Value::Array(data));
        Ok(Value::Object(item))
    }

    /// `_profile=NAME` on an object read: that object's data item.
    pub(crate) fn profile(
        &self,
        p: &Principal,
        source: Source,
        object: &str,
        name: &str,
        q: &DataQuery,
    ) -> Result<Value> {
        self.read_data(p, source, &format!("{object}:{name}"), q)
    }
}

/// A data item opened for a read ([`Platform::open_item`]).
pub(crate) struct Opened {
    /// Series or curve.
    pub(crate) kind: DataKind,
    /// Where its data is stored.
    pub(crate) key: DataKey,
    /// Whether the object version read is the current one.
    pub(crate) is_current: bool,
    /// The item's JSON so far (its header and system fields), once made or changed: see
    /// [`Opened::json`]; a plain read prints it without making it.
    json: Option<Map<String, Value>>,
    /// The header as stored on the object.
    pub(crate) header: Map<String, Value>,
    /// The object version read (of its body, the item's property and `_type` where it is
    /// the current one; see `open_item`).
    pub(crate) object: StoredVersion,
}

impl Opened {
    /// The item's JSON so far: its header and system fields, made on first use.
    pub(crate) fn json(&mut self) -> &mut Map<String, Value> {
        let Opened {
            json,
            object,
            key,
            header,
            is_current,
            ..
        } = self;
        json.get_or_insert_with(|| item_header(object, &key.prop, header, *is_current))
    }

    /// [`Opened::json`], taken out of the item.
    pub(crate) fn take_json(&mut self) -> Map<String, Value> {
        self.json();
        self.json.take().unwrap_or_default()
    }

    /// [`Opened::take_json`] of a series, without a `data` field of the stored header (the
    /// points take its place, last).
    fn take_series_json(&mut self) -> Map<String, Value> {
        let mut json = self.take_json();
        json.shift_remove("data");
        json
    }

    /// The converter `c` asks for (`None` when nothing is asked), the item's `units` and
    /// `currency` changed to its targets.
    fn converter<'a>(
        &mut self,
        tx: &'a dyn ReadTx,
        c: &Conversion,
    ) -> Result<Option<Converter<'a>>> {
        if c.is_none() {
            return Ok(None);
        }
        Converter::new(tx, self.json(), c)
    }

    /// Writes the JSON text of [`Opened::take_series_json`] of an item whose JSON is not made,
    /// without making it: the fields in the order and with the values `item_header` gives them.
    fn write_header_json(&self, out: &mut Vec<u8>) {
        let (object, prop, header) = (&self.object, self.key.prop.as_str(), &self.header);
        let data_id = format!("{}:{prop}", object.id);
        let null = Value::Null;
        // What `item_header` inserts after the stored header, and so wins over its fields.
        let system = |out: &mut Vec<u8>, name: &str| {
            let _ = match name {
                "_objid" => serde_json::to_writer(&mut *out, &object.id),
                "_dataid" => serde_json::to_writer(&mut *out, prop),
                "_access" => {
                    serde_json::to_writer(&mut *out, header.get("_access").unwrap_or(&null))
                }
                "_objtype" => {
                    serde_json::to_writer(&mut *out, object.body.get("_type").unwrap_or(&null))
                }
                "_oid" => serde_json::to_writer(&mut *out, &data_id),
                "_timestamp" => serde_json::to_writer(
                    &mut *out,
                    &crate::clock::format_instant(object.timestamp),
                ),
                "_user" => serde_json::to_writer(&mut *out, &object.user),
                "_tag" => serde_json::to_writer(&mut *out, &object.tags),
                _ => serde_json::to_writer(&mut *out, &object.version),
            };
        };
        let mut first = true;
        let mut key = |out: &mut Vec<u8>, k: &str| {
            if !first {
                out.push(b',');
            }
            first = false;
            let _ = serde_json::to_writer(&mut *out, k);
            out.push(b':');
        };
        out.push(b'{');
        // `_id` first, as the stored header's `_id` where it has one (inserted after).
        key(out, "_id");
        let _ = match header.get("_id") {
            Some(v) => serde_json::to_writer(&mut *out, v),
            None if self.is_current => serde_json::to_writer(&mut *out, &data_id),
            None => serde_json::to_writer(
                &mut *out,
                &format!("{}/{}:{prop}", object.id, object.version),
            ),
        };
        for (k, v) in header {
            if k == "_id" || k == "data" {
                continue;
            }
            key(out, k);
            if ITEM_SYSTEM_FIELDS.contains(&k.as_str()) {
                system(out, k);
            } else {
                let _ = serde_json::to_writer(&mut *out, v);
            }
        }
        for name in ITEM_SYSTEM_FIELDS {
            if !header.contains_key(name) {
                key(out, name);
                system(out, name);
            }
        }
        out.push(b'}');
    }
}

/// The system fields `item_header` adds after a data item's stored header, in their order.
const ITEM_SYSTEM_FIELDS: [&str; 9] = [
    "_objid",
    "_dataid",
    "_access",
    "_objtype",
    "_oid",
    "_timestamp",
    "_user",
    "_tag",
    "_version",
];

/// A data id and the scope of its object, read through a source.
/// What a data read answers: a series' header and its points (written out late, so a JSON
/// answer can be written straight from them), or the JSON of anything else.
enum Answer {
    Series {
        /// The item: its JSON header printed with the points (see `Opened::take_series_json`).
        item: Box<Opened>,
        points: Columns,
        calendar: Calendar,
        tz: chrono_tz::Tz,
    },
    Value(Value),
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

/// Midnight UTC of an ondate (the time FX rates are read at for a curve).
fn ondate_instant(ondate: &str) -> chrono::DateTime<chrono::Utc> {
    NaiveDate::parse_from_str(ondate, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
        .unwrap_or_default()
}

/// The header and system fields of a data item.
fn item_header(
    object: &StoredVersion,
    prop: &str,
    header: &Map<String, Value>,
    is_current: bool,
) -> Map<String, Value> {
    let data_id = format!("{}:{prop}", object.id);
    let mut out = Map::new();
    out.insert(
        "_id".into(),
        Value::String(if is_current {
            data_id.clone()
        } else {
            format!("{}/{}:{prop}", object.id, object.version)
        }),
    );
    for (k, v) in header {
        out.insert(k.clone(), v.clone());
    }
    out.insert("_objid".into(), Value::String(object.id.clone()));
    out.insert("_dataid".into(), Value::String(prop.to_string()));
    out.insert(
        "_access".into(),
        header.get("_access").cloned().unwrap_or(Value::Null),
    );
    out.insert(
        "_objtype".into(),
        object.body.get("_type").cloned().unwrap_or(Value::Null),
    );
    out.insert("_oid".into(), Value::String(data_id));
    // The object's system fields as `render` prints them (without rendering the whole object).
    out.insert(
        "_timestamp".into(),
        Value::String(crate::clock::format_instant(object.timestamp)),
    );
    out.insert("_user".into(), Value::String(object.user.clone()));
    out.insert("_tag".into(), json!(object.tags));
    out.insert("_version".into(), json!(object.version));
    out
}

impl Platform {
    /// Lists the data items of a source: every data property of every current object, as its
    /// header and system fields, filtered (`_filter`, field filters, `_search`) and sorted like
    /// objects, paged; `_distinct` lists values. Without `_range` (or `tenor`, `listTenors`) each
    /// item is a catalogue entry: its header with `_count`, `_first` and `_last` (observations
    /// of a series, ondates of a curve) and no data; with them each item carries its data read
    /// by `q`.
    pub(crate) fn list_data(
        &self,
        p: &Principal,
        source: Source,
        req: &crate::documents::ListRequest,
        q: &DataQuery,
    ) -> Result<crate::store::Page<Value>> {
        if q.shape.is_some() {
            return Err(Error::invalid_parameter(
                "_shape=MONTHLY shapes one curve: read it by its id (OBJ:PROP or OBJ:PROP:ONDATE)",
            ));
        }
        if !req.ids.is_empty() {
            // `_id` parameters fetch data items by id, each from its own source: only through
            // `all`.
            if source != Source::All {
                return Err(Error::invalid_parameter(format!(
                    "_id parameters fetch by id from the all source, not from {source}"
                )));
            }
            let ids: Vec<&str> = req.ids.iter().map(String::as_str).collect();
            let items = self.read_many_data(p, &ids, q)?;
            return Ok(crate::store::Page {
                estimated: false,
                total: items.len() as u64,
                items,
            });
        }
        let tx = self.read()?;
        let everything = crate::query::ListQuery {
            paging: crate::query::Paging {
                skip: 0,
                limit: None,
            },
            ..Default::default()
        };
        let mut items: Vec<(Scope, DataId, Map<String, Value>)> = Vec::new();
        for scope in Scope::read_scopes(source, p) {
            let current = tx.list(
                Collection::Object,
                std::slice::from_ref(&scope),
                &everything,
            )?;
            // With `_asof`, each object as it was then (objects that did not exist then are
            // left out), and its data items as that version saw them.
            let objects: Vec<(StoredVersion, bool)> = match req.as_of {
                None => current.items.into_iter().map(|v| (v, true)).collect(),
                Some(at) => {
                    let mut then = Vec::new();
                    for v in &current.items {
                        if let Some(found) = crate::documents::read::version_at(
                            tx.as_ref(),
                            Collection::Object,
                            &scope,
                            &v.id,
                            at,
                        )? {
                            then.push(found);
                        }
                    }
                    then
                }
            };
            for (object, is_current) in &objects {
                for (prop, header) in &object.body {
                    let Some(h) = header.as_object() else {
                        continue;
                    };
                    if DataKind::of(header).is_none()
                        || !p.grants.may_read(h.get("_access").and_then(Value::as_str))
                    {
                        continue;
                    }
                    let doc = item_header(object, prop, h, *is_current);
                    if req.query.filter.matches(&doc) {
                        let id = DataId {
                            object: object.id.clone(),
                            prop: prop.clone(),
                            ondate: None,
                        };
                        items.push((scope.clone(), id, doc));
                    }
                }
            }
        }
        if let Some(field) = &req.distinct {
            let values = crate::query::distinct_strings(items.iter().map(|(_, _, d)| d), field);
            return Ok(crate::store::Page {
                estimated: false,
                total: values.len() as u64,
                items: values,
            });
        }
        sort_docs(&mut items, &req.query.sort);
        let total = items.len() as u64;
        let skip = usize::try_from(req.query.paging.skip)
            .unwrap_or(usize::MAX)
            .min(items.len());
        let take = req.query.paging.limit.map_or(usize::MAX, |l| l as usize);
        let mut out = Vec::new();
        // Without `_range` (or a tenor) a list is a catalogue: headers and extents, no data.
        let catalogue =
            q.range.is_none() && q.tenor.is_none() && !q.list_tenors && q.continuation.is_none();
        // A list holds current items (`_version` filtered them above, it does not read back),
        // or with `_asof` the items as they were then.
        let q = &DataQuery {
            version: req.as_of.map(VersionRef::AsOf),
            ..q.clone()
        };
        for (scope, id, doc) in items.into_iter().skip(skip).take(take) {
            let text = format!("{}:{}", id.object, id.prop);
            let item = if catalogue {
                catalogue_entry(tx.as_ref(), scope, id, doc, q)?
            } else {
                self.data_item(p, tx.as_ref(), &scope, &id, &text, q)?
            };
            out.push(match &req.project {
                Some(pr) => Value::Object(pr.apply(item.as_object().unwrap_or(&Map::new()), true)),
                None => item,
            });
        }
        Ok(crate::store::Page {
            items: out,
            total,
            estimated: false,
        })
    }
}

/// A data item's header with its extent: `_count`, `_first` and `_last` (a series' observations,
/// as the series prints its times, in `_timezone` when `q` names one; a curve's ondates).
fn catalogue_entry(
    tx: &dyn ReadTx,
    scope: Scope,
    id: DataId,
    mut doc: Map<String, Value>,
    q: &DataQuery,
) -> Result<Value> {
    let key = DataKey {
        scope,
        object: id.object,
        prop: id.prop,
    };
    let version = doc.get("_version").and_then(Value::as_u64).unwrap_or(0) as u32;
    let (count, bounds) = match DataKind::of_header(&doc) {
        Some(DataKind::Curve) => {
            let e = tx.curve_extent(&key, version)?;
            (e.count, e.bounds)
        }
        _ => {
            let (calendar, tz, _) = series_settings(&key.prop, &doc)?;
            let e = tx.series_extent(&key, version)?;
            let text = |t| format_time_in(t, calendar, tz, q.print_zone(tz));
            (e.count, e.bounds.map(|(a, b)| (text(a), text(b))))
        }
    };
    doc.insert("_count".into(), json!(count));
    let (first, last) = bounds.unzip();
    doc.insert("_first".into(), json!(first));
    doc.insert("_last".into(), json!(last));
    Ok(Value::Object(doc))
}

/// Sorts documents by a sort spec (then by `_id`), comparing values as the store does: numbers
/// before strings, numbers numerically, strings by code point.
fn sort_docs(items: &mut [(Scope, DataId, Map<String, Value>)], sort: &crate::query::SortSpec) {
    use std::cmp::Ordering;
    fn rank(v: Option<&Value>) -> (u8, f64, String) {
        match v {
            None | Some(Value::Null) => (0, 0.0, String::new()),
            Some(Value::Bool(b)) => (1, f64::from(u8::from(*b)), String::new()),
            Some(Value::Number(n)) => (1, n.as_f64().unwrap_or(0.0), String::new()),
            Some(Value::String(s)) => (2, 0.0, s.clone()),
            Some(other) => (3, 0.0, other.to_string()),
        }
    }
    items.sort_by(|a, b| {
        for key in &sort.0 {
            let (x, y) = (
                rank(crate::query::filter::lookup(&a.2, &key.field)),
                rank(crate::query::filter::lookup(&b.2, &key.field)),
            );
            let ord =
                x.0.cmp(&y.0)
                    .then(x.1.partial_cmp(&y.1).unwrap_or(Ordering::Equal))
                    .then(x.2.cmp(&y.2));
            let ord = if key.descending { ord.reverse() } else { ord };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        let id = |d: &Map<String, Value>| {
            d.get("_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        id(&a.2).cmp(&id(&b.2))
    });
}

impl Platform {
    /// `_profile=NAME` on an object list: the data items `NAME` of the matching objects (objects
    /// without it, or whose data the caller may not read, are left out); paging counts objects.
    pub(crate) fn list_profile(
        &self,
        p: &Principal,
        source: Source,
        req: &crate::documents::ListRequest,
        name: &str,
        q: &DataQuery,
    ) -> Result<crate::store::Page<Value>> {
        let req = crate::documents::ListRequest {
            project: None,
            distinct: None,
            searchinfo: None,
            ..req.clone()
        };
        let objects = self.list(p, Collection::Object, source, &req)?;
        let ids: Vec<String> = objects
            .items
            .iter()
            .filter_map(|o| {
                // An older version (a list `_asof`) is shown at its address; `_oid` is its id.
                o.get("_oid")
                    .or_else(|| o.get("_id"))
                    .and_then(Value::as_str)
                    .map(|id| format!("{id}:{name}"))
            })
            .collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        Ok(crate::store::Page {
            estimated: objects.estimated,
            items: self.read_many_data(p, &ids, q)?,
            total: objects.total,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_header_carries_the_objects_system_fields_as_the_object_prints_them() {
        let object = StoredVersion {
            id: "NBP".into(),
            version: 3,
            body: json!({"_id": "NBP", "_type": "#Hub", "_bundle": "b", "name": "n",
                         "SPOT": {"_type": SERIES_TYPE, "_access": "traders"}})
            .as_object()
            .unwrap()
            .clone(),
            timestamp: chrono::DateTime::from_timestamp_millis(1_700_000_000_123).unwrap(),
            user: "ann".into(),
            reason: Some("why".into()),
            tags: vec!["a".into(), "live".into()],
        };
        let header = object.body["SPOT"].as_object().unwrap().clone();
        for current in [true, false] {
            let printed = crate::documents::render(&object, current);
            let h = item_header(&object, "SPOT", &header, current);
            for (field, of_object) in [
                ("_objtype", "_type"),
                ("_timestamp", "_timestamp"),
                ("_user", "_user"),
                ("_tag", "_tag"),
                ("_version", "_version"),
            ] {
                assert_eq!(h[field], printed[of_object], "{field}");
            }
            assert_eq!(h["_access"], "traders");
            assert_eq!(h["_id"], if current { "NBP:SPOT" } else { "NBP/3:SPOT" });
            assert_eq!(
                (&h["_oid"], &h["_objid"], &h["_dataid"]),
                (&json!("NBP:SPOT"), &json!("NBP"), &json!("SPOT"))
            );
        }
    }
    /// A series' header printed without making its JSON is, byte for byte, the JSON made and
    /// printed: for stored headers with and without an access role, with fields of the names
    /// the system fields take (their values replaced in place, `_id` kept from the header as
    /// the map keeps it), with a `data` field (dropped), escaped names and values, any `_type`
    /// of the object, at the current version and an earlier one.
    #[test]
    fn a_header_printed_unmade_is_the_header_made_and_printed() {
        let headers = [
            json!({"_type": SERIES_TYPE}),
            json!({"_type": SERIES_TYPE, "_access": "traders", "units": "MWh", "calendar": "#PT1H"}),
            json!({"calendar": "#PT1M", "_type": SERIES_TYPE, "_version": 99, "_user": "x",
                   "data": [1, 2], "nested": {"a": [null, true, 1.5e300], "b\"q": "\u{1}é"}}),
            json!({"_id": "mine", "_type": SERIES_TYPE, "_timestamp": "t", "_tag": 1, "z": null}),
            json!({"data": {"x": 1}, "_objid": 7, "_oid": false, "_dataid": [], "_objtype": {},
                   "_access": null, "_type": SERIES_TYPE}),
        ];
        for (n, header) in headers.iter().enumerate() {
            for object_type in [json!("#Hub"), json!(null), json!(3)] {
                let mut body = json!({"_id": "NBP", "name": "n"});
                if !object_type.is_null() {
                    body["_type"] = object_type.clone();
                }
                body["SPOT"] = header.clone();
                let object = StoredVersion {
                    id: "NBP".into(),
                    version: 3,
                    body: body.as_object().unwrap().clone(),
                    timestamp: chrono::DateTime::from_timestamp_millis(
                        1_700_000_000_120 + n as i64,
                    )
                    .unwrap(),
                    user: "a\"nn".into(),
                    reason: None,
                    tags: if n % 2 == 0 {
                        vec![]
                    } else {
                        vec!["a".into(), "live".into()]
                    },
                };
                for is_current in [true, false] {
                    let item = Opened {
                        kind: DataKind::Series,
                        key: DataKey {
                            scope: Scope::public(),
                            object: "NBP".into(),
                            prop: "SPOT".into(),
                        },
                        is_current,
                        json: None,
                        header: header.as_object().unwrap().clone(),
                        object: object.clone(),
                    };
                    let mut printed = Vec::new();
                    item.write_header_json(&mut printed);
                    let mut made = item;
                    let made = serde_json::to_vec(&made.take_series_json()).unwrap();
                    assert_eq!(
                        String::from_utf8(printed).unwrap(),
                        String::from_utf8(made).unwrap(),
                        "header {n}, object type {object_type}, current {is_current}"
                    );
                }
            }
        }
    }
}
