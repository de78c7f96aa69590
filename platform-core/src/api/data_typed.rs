//! The typed calls of the data service beside its JSON reads: data items ([`DataItem`]) read
//! by id, by ids, listed, and as the profile of objects. Each runs the JSON call of [`Data`]
//! and reads its answer.

use super::data::{Curve, CurveContract, CurveQuery, Partial, Point, Series};
use crate::auth::Principal;
use crate::data::conversion::Conversion;
use crate::data::read::DataQuery;
use crate::data::Data;
use crate::data::DataKind;
use crate::documents::ListRequest;
use crate::error::{Error, Result};
use crate::ids::Source;
use crate::query::range;
use crate::store::Page;
use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use serde_json::{Map, Value};

/// A data item as the data service reads it, typed: a series with its observations, a curve
/// of one ondate with its contracts, or (in a list read without `_range`) a catalogue entry.
///
/// The id of each is `OBJ:PROP` (the object and its data property, whatever the version read),
/// and the header is the item's header as the read answers it (after a conversion its
/// `units` and `currency` are those of the values read), without the system fields
/// (`_objid`, `_version`, `_timestamp`...). A series' points are numbers: a series holding a
/// value that is not a number (text, null) is refused, to be read as JSON.
///
/// ```
/// use platform_core::api::{DataItem, DataKind, Point};
/// use chrono::{TimeZone, Utc};
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
/// platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, 71.3)], &Default::default())?;
/// let item = platform.data().data_item(&me, platform_core::api::Source::All, "NBP:SPOT", &Default::default())?;
/// assert_eq!((item.object(), item.property(), item.kind(), item.version()), ("NBP", "SPOT", DataKind::Series, 1));
/// let DataItem::Series(series) = item else { panic!("a series") };
/// assert_eq!(series.points, [Point::new(at, 71.3)]);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum DataItem {
    /// A series (a curve's tenor history and continuation series are series too).
    Series(Series),
    /// The curve of one ondate.
    Curve(Curve),
    /// A catalogue entry: a series or curve of a list read without `_range`, with its
    /// extent and no data.
    Entry(DataEntry),
}

/// A catalogue entry of a data list ([`Data::data_items`] without `_range`): a series or
/// curve, how much it holds and from when to when, without its data.
///
/// ```
/// use platform_core::api::{Contract, DataItem, DataKind, ListRequest, Source};
/// use chrono::{NaiveDate, TimeZone, Utc};
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
/// for day in [13, 14] {
///     platform.data().write_curve(&me, "TTF:FWD", d(day), &[Contract::new("M01", 30.0)], &Default::default())?;
/// }
/// let page = platform.data().data_items(&me, Source::Private, &ListRequest::default(), &Default::default())?;
/// let DataItem::Entry(entry) = &page.items[0] else { panic!("an entry") };
/// assert_eq!((entry.id.as_str(), entry.kind, entry.count), ("TTF:FWD", DataKind::Curve, 2));
/// assert_eq!(entry.last, Some(Utc.with_ymd_and_hms(2024, 5, 14, 0, 0, 0).unwrap()));
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DataEntry {
    /// The data id (`OBJ:PROP`).
    pub id: String,
    /// Series or curve.
    pub kind: DataKind,
    /// The object version listed.
    pub version: u32,
    /// The units of the values.
    pub units: Option<String>,
    /// The currency of the values.
    pub currency: Option<String>,
    /// The header (calendar, time zone, properties...).
    pub header: Map<String, Value>,
    /// How many observations (a series) or ondates (a curve) it holds (`_count`).
    pub count: u64,
    /// The first observation's time, or the first ondate at midnight UTC (`_first`).
    pub first: Option<DateTime<Utc>>,
    /// The last observation's time, or the last ondate at midnight UTC (`_last`).
    pub last: Option<DateTime<Utc>>,
}

impl DataItem {
    /// The data id, `OBJ:PROP`.
    ///
    /// ```
    /// use platform_core::api::{DataEntry, DataItem, DataKind};
    /// let entry = DataEntry { id: "NBP:SPOT".into(), kind: DataKind::Series, version: 1, units: None,
    ///     currency: None, header: Default::default(), count: 0, first: None, last: None };
    /// assert_eq!(DataItem::Entry(entry).id(), "NBP:SPOT");
    /// ```
    pub fn id(&self) -> &str {
        match self {
            DataItem::Series(s) => &s.id,
            DataItem::Curve(c) => &c.id,
            DataItem::Entry(e) => &e.id,
        }
    }

    /// The object the item is kept on (the id before its `:`).
    pub fn object(&self) -> &str {
        self.id().split_once(':').map_or("", |(object, _)| object)
    }

    /// The item's data property on its object (the id after its `:`).
    pub fn property(&self) -> &str {
        self.id().split_once(':').map_or("", |(_, prop)| prop)
    }

    /// Series or curve: what the read answered (a tenor's history is a series).
    pub fn kind(&self) -> DataKind {
        match self {
            DataItem::Series(_) => DataKind::Series,
            DataItem::Curve(_) => DataKind::Curve,
            DataItem::Entry(e) => e.kind,
        }
    }

    /// The object version read.
    pub fn version(&self) -> u32 {
        match self {
            DataItem::Series(s) => s.version,
            DataItem::Curve(c) => c.version,
            DataItem::Entry(e) => e.version,
        }
    }

    /// The item's header (see [`DataItem`]).
    pub fn header(&self) -> &Map<String, Value> {
        match self {
            DataItem::Series(s) => &s.header,
            DataItem::Curve(c) => &c.header,
            DataItem::Entry(e) => &e.header,
        }
    }

    /// The typed form of a data item's JSON answer. `json_call` names the call that reads
    /// what the typed form cannot hold.
    fn from_json(answer: Value, json_call: &str) -> Result<DataItem> {
        let Value::Object(mut json) = answer else {
            return Err(unread(format!("a data item that is {answer}")));
        };
        let mut take_text = |name: &str| match json.shift_remove(name) {
            Some(Value::String(s)) => Ok(s),
            other => Err(unread(format!("{name} {other:?}"))),
        };
        let id = format!("{}:{}", take_text("_objid")?, take_text("_dataid")?);
        let version = json
            .shift_remove("_version")
            .and_then(|v| v.as_u64())
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| unread(format!("\"{id}\" without a version")))?;
        let kind = DataKind::of_header(&json)
            .ok_or_else(|| unread(format!("\"{id}\" of _type {:?}", json.get("_type"))))?;
        let zone = crate::data::calendar::parse_zone(json.get("timezone").and_then(Value::as_str))
            .map_err(|e| unread(format!("\"{id}\": {e}")))?;
        for system in ["_id", "_objtype", "_oid", "_timestamp", "_user", "_tag"] {
            json.shift_remove(system);
        }
        if json.get("_access") == Some(&Value::Null) {
            json.shift_remove("_access");
        }
        let units = text(&json, "units");
        let currency = text(&json, "currency");
        if let Some(count) = json.shift_remove("_count") {
            let mut bound = |name: &str| match json.shift_remove(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(t)) => instant(&t, zone).map(Some),
                Some(other) => Err(unread(format!("\"{id}\" {name} {other}"))),
            };
            let (first, last) = (bound("_first")?, bound("_last")?);
            return Ok(DataItem::Entry(DataEntry {
                count: count
                    .as_u64()
                    .ok_or_else(|| unread(format!("\"{id}\" _count {count}")))?,
                id,
                kind,
                version,
                units,
                currency,
                header: json,
                first,
                last,
            }));
        }
        Ok(match kind {
            DataKind::Series => {
                let data = json.shift_remove("data");
                let (points, partial) = series_points(&id, data, zone, json_call)?;
                DataItem::Series(Series {
                    id,
                    version,
                    units,
                    currency,
                    header: json,
                    points,
                    partial,
                })
            }
            DataKind::Curve => {
                let ondate = curve_date(&id, json.shift_remove("ondate"))?;
                let contracts = json.shift_remove("contracts");
                let contracts = curve_contracts(&id, contracts, json_call)?;
                DataItem::Curve(Curve {
                    id,
                    version,
                    ondate,
                    units,
                    currency,
                    header: json,
                    contracts,
                })
            }
        })
    }
}

/// An answer of the data service that does not read as a data item: the platform's fault.
fn unread(what: String) -> Error {
    Error::Internal(format!("the data service answered {what}"))
}

fn text(m: &Map<String, Value>, field: &str) -> Option<String> {
    m.get(field).and_then(Value::as_str).map(str::to_string)
}

/// The instant a data answer's time names: an RFC 3339 time, or a date (of a dated series,
/// an ondate) at its midnight in `zone`, the series' zone.
fn instant(text: &str, zone: Tz) -> Result<DateTime<Utc>> {
    if let Ok(at) = crate::clock::parse_instant(text) {
        return Ok(at);
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| unread(format!("the time \"{text}\"")))?;
    zone.from_local_datetime(&date.and_time(chrono::NaiveTime::MIN))
        .earliest()
        .map(|at| at.with_timezone(&Utc))
        .ok_or_else(|| unread(format!("the date {text}, which has no midnight in {zone}")))
}

/// A value of a series or contract as a number; a value that is not one is refused.
fn number(id: &str, at: &str, value: Option<&Value>, json_call: &str) -> Result<f64> {
    value.and_then(Value::as_f64).ok_or_else(|| {
        Error::invalid_parameter(format!(
            "data \"{id}\" holds a value that is not a number at {at}: read it as JSON with \
             {json_call}"
        ))
    })
}

/// A series' points, and those of them that are partial aggregates.
fn series_points(
    id: &str,
    data: Option<Value>,
    zone: Tz,
    json_call: &str,
) -> Result<(Vec<Point>, Vec<Partial>)> {
    let Some(Value::Array(data)) = data else {
        return Err(unread(format!("the series \"{id}\" without data")));
    };
    let mut partial = Vec::new();
    let points = data
        .iter()
        .map(|point| {
            let time = point
                .get("time")
                .and_then(Value::as_str)
                .ok_or_else(|| unread(format!("a point of \"{id}\" without a time")))?;
            let value = number(id, time, point.get("value"), json_call)?;
            let at = instant(time, zone)?;
            let source = point.pointer("/status/source").and_then(Value::as_str);
            partial.extend(Partial::of(at, source));
            Ok(Point::new(at, value))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((points, partial))
}

/// The date of a curve's `ondate` (`{"curveDate": ...}`, or the date itself).
fn curve_date(id: &str, ondate: Option<Value>) -> Result<NaiveDate> {
    let text = match &ondate {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Object(o)) => o.get("curveDate").and_then(Value::as_str),
        _ => None,
    };
    text.and_then(|t| NaiveDate::parse_from_str(t, "%Y-%m-%d").ok())
        .ok_or_else(|| unread(format!("the curve \"{id}\" of ondate {ondate:?}")))
}

fn curve_contracts(
    id: &str,
    contracts: Option<Value>,
    json_call: &str,
) -> Result<Vec<CurveContract>> {
    let Some(Value::Array(contracts)) = contracts else {
        return Err(unread(format!("the curve \"{id}\" without contracts")));
    };
    contracts
        .iter()
        .map(|c| {
            let tenor = c.get("tenor").and_then(Value::as_str).unwrap_or_default();
            let props = c.get("properties");
            let field = |name: &str| props.and_then(|p| p.get(name)).and_then(Value::as_str);
            let day = |name: &str| {
                field(name)
                    .and_then(|t| NaiveDate::parse_from_str(t, "%Y-%m-%d").ok())
                    .ok_or_else(|| unread(format!("\"{id}\" {tenor} without a {name} day")))
            };
            Ok(CurveContract {
                tenor: tenor.to_string(),
                absolute: field("absolute").map(str::to_string),
                start: day("start")?,
                end: day("end")?,
                expiry: day("expiry")?,
                value: number(id, tenor, c.get("value"), json_call)?,
            })
        })
        .collect()
}

/// Refuses a read whose answer is not a data item: `listTenors` (tenor codes) and `_shape`
/// (a curve shaped into months).
fn items_only(q: &DataQuery, json_call: &str) -> Result<()> {
    let what = if q.list_tenors {
        "listTenors answers tenor codes"
    } else if q.shape.is_some() {
        "_shape answers a curve shaped into months"
    } else {
        return Ok(());
    };
    Err(Error::invalid_parameter(format!(
        "{what}, not a data item: ask {json_call} for it"
    )))
}

fn items_of(page: Page<Value>, json_call: &str) -> Result<Page<DataItem>> {
    Ok(Page {
        items: page
            .items
            .into_iter()
            .map(|v| DataItem::from_json(v, json_call))
            .collect::<Result<_>>()?,
        total: page.total,
        estimated: page.estimated,
    })
}

impl Data<'_> {
    /// Typed [`read`](Self::read): one data item by id (`OBJ:PROP`, or `OBJ:PROP:ONDATE` for
    /// the curve of one ondate) from a source, read as `q` asks (range, version, tenor history,
    /// continuation, conversion, scaling). `listTenors` and `_shape` (not data items) are
    /// refused: [`Data::read`] answers them.
    ///
    /// ```
    /// use platform_core::api::{Contract, DataItem, DataQuery, Params, Source};
    /// use chrono::NaiveDate;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
    /// platform.data().write_curve(&me, "TTF:FWD", d(13), &[Contract::new("M01", 30.0)], &Default::default())?;
    /// platform.data().write_curve(&me, "TTF:FWD", d(14), &[Contract::new("M01", 31.5)], &Default::default())?;
    /// // The history of one tenor: a series by ondate.
    /// let q = DataQuery::from_params(&Params::from_slice(&[("tenor", "M01")]))?;
    /// let DataItem::Series(history) = platform.data().data_item(&me, Source::Private, "TTF:FWD", &q)? else { panic!() };
    /// let values: Vec<f64> = history.points.iter().map(|p| p.value).collect();
    /// assert_eq!(values, [30.0, 31.5]);
    /// // One ondate's curve.
    /// let DataItem::Curve(curve) = platform.data().data_item(&me, Source::Private, "TTF:FWD:2024-05-13", &Default::default())? else { panic!() };
    /// assert_eq!((curve.ondate, curve.contracts[0].value), (d(13), 30.0));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn data_item(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<DataItem> {
        items_only(q, "Data::read")?;
        match self.read(p, source, id, q)? {
            Value::Array(_) => Err(Error::invalid_parameter(format!(
                "\"{id}\" with _range answers the curves of the range, a list: \
                 Data::curves_in_range reads them"
            ))),
            answer => DataItem::from_json(answer, "Data::read"),
        }
    }

    /// Typed [`read_many`](Self::read_many): data items with these ids, each from the source
    /// its object's id names, in the order of `ids`; ids not found are left out. What
    /// [`Data::data_item`] refuses is refused.
    ///
    /// ```
    /// use platform_core::api::Point;
    /// use chrono::{TimeZone, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, 71.3)], &Default::default())?;
    /// platform.data().write_series(&me, "TTF:SPOT", &[Point::new(at, 34.5)], &Default::default())?;
    /// let items = platform.data().data_items_by_id(&me, &["TTF:SPOT", "ZTP:SPOT", "NBP:SPOT"], &Default::default())?;
    /// let objects: Vec<&str> = items.iter().map(|i| i.object()).collect();
    /// assert_eq!(objects, ["TTF", "NBP"]);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn data_items_by_id(
        &self,
        p: &Principal,
        ids: &[&str],
        q: &DataQuery,
    ) -> Result<Vec<DataItem>> {
        items_only(q, "Data::read_many")?;
        let found = self.read_many(p, ids, q)?;
        found
            .into_iter()
            .map(|v| DataItem::from_json(v, "Data::read_many"))
            .collect()
    }

    /// Typed [`list`](Self::list): the data items of a source, filtered, sorted and paged (by
    /// `_skip`) like objects, with the total before paging. Without `_range` (or a tenor or
    /// continuation) each is a [`DataItem::Entry`]; with one each is read by `q`. `_distinct`
    /// (values) and `_project` (parts of items) are refused: [`Data::list`] answers them.
    ///
    /// ```
    /// use platform_core::api::{DataItem, DataQuery, ListRequest, Params, Point, Source};
    /// use chrono::{Duration, TimeZone, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let start = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// let points: Vec<Point> = (0..5).map(|h| Point::new(start + Duration::hours(h), h as f64)).collect();
    /// for id in ["NBP:SPOT", "TTF:SPOT", "TTF:LOAD"] {
    ///     platform.data().write_series(&me, id, &points, &Default::default())?;
    /// }
    /// let req = ListRequest::from_params(&Params::from_slice(&[("_dataid", "SPOT"), ("_sort", "-_objid")]))?;
    /// let q = DataQuery::from_params(&Params::from_slice(&[("_range", "last(2)")]))?;
    /// let page = platform.data().data_items(&me, Source::Private, &req, &q)?;
    /// assert_eq!((page.total, page.items[0].id()), (2, "TTF:SPOT"));
    /// let DataItem::Series(ttf) = &page.items[0] else { panic!("a series") };
    /// assert_eq!(ttf.points, &points[3..]);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn data_items(
        &self,
        p: &Principal,
        source: Source,
        req: &ListRequest,
        q: &DataQuery,
    ) -> Result<Page<DataItem>> {
        items_only(q, "Data::list")?;
        if req.distinct.is_some() || req.project.is_some() {
            return Err(Error::invalid_parameter(
                "_distinct and _project answer values and parts of data items: ask Data::list \
                 for them",
            ));
        }
        items_of(self.list(p, source, req, q)?, "Data::list")
    }

    /// Typed [`profile`](Self::profile): the data item `name` of `object` (`_profile=NAME` on
    /// an object read), read as [`Data::data_item`] reads it.
    ///
    /// ```
    /// use platform_core::api::{DataKind, Point, Source};
    /// use chrono::{TimeZone, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, 71.3)], &Default::default())?;
    /// let item = platform.data().profile_item(&me, Source::Private, "NBP", "SPOT", &Default::default())?;
    /// assert_eq!((item.id(), item.kind()), ("NBP:SPOT", DataKind::Series));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn profile_item(
        &self,
        p: &Principal,
        source: Source,
        object: &str,
        name: &str,
        q: &DataQuery,
    ) -> Result<DataItem> {
        items_only(q, "Data::profile")?;
        DataItem::from_json(self.profile(p, source, object, name, q)?, "Data::profile")
    }

    /// Typed [`list_profile`](Self::list_profile): the data items `name` of the objects the
    /// request lists (objects without it, or whose data the caller may not read, are left
    /// out), each read as [`Data::data_item`] reads it; paging and the total count objects.
    ///
    /// ```
    /// use platform_core::api::{ListRequest, Object, Params, Point, Source};
    /// use chrono::{TimeZone, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// for (hub, value) in [("NBP", 71.3), ("TTF", 34.5)] {
    ///     platform.objects().save_object(&me, &Object::new(hub).with_type("Hub"), &Default::default())?;
    ///     platform.data().write_series(&me, &format!("{hub}:SPOT"), &[Point::new(at, value)], &Default::default())?;
    /// }
    /// platform.objects().save_object(&me, &Object::new("ZTP").with_type("Hub"), &Default::default())?;
    /// let hubs = ListRequest::from_params(&Params::from_slice(&[("_type", "Hub")]))?;
    /// let page = platform.data().profile_items(&me, Source::Private, &hubs, "SPOT", &Default::default())?;
    /// let ids: Vec<&str> = page.items.iter().map(|i| i.id()).collect();
    /// assert_eq!((ids, page.total), (vec!["NBP:SPOT", "TTF:SPOT"], 3));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn profile_items(
        &self,
        p: &Principal,
        source: Source,
        req: &ListRequest,
        name: &str,
        q: &DataQuery,
    ) -> Result<Page<DataItem>> {
        items_only(q, "Data::list_profile")?;
        let page = self.list_profile(p, source, req, name, q)?;
        items_of(page, "Data::list_profile")
    }

    /// The curves of `id` (`OBJ:PROP`) whose ondates lie in `range` (the `_range` grammar:
    /// `last(5)`, `between(2024-10-01,2024-10-04)`..., dates read in UTC), oldest first, at
    /// the version and converted as `q` asks (its `ondate` and `nearest` must be unset). A
    /// range that holds no ondate answers none: no other curve stands in for them.
    ///
    /// ```
    /// use platform_core::api::{Contract, CurveQuery};
    /// use chrono::NaiveDate;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let d = |day| NaiveDate::from_ymd_opt(2024, 10, day).unwrap();
    /// for (day, price) in [(3, 70.0), (4, 71.0), (7, 72.5)] {
    ///     platform.data().write_curve(&me, "DE:BASE", d(day), &[Contract::new("M01", price)], &Default::default())?;
    /// }
    /// let week = platform.data().curves_in_range(&me, "DE:BASE", "between(2024-10-01,2024-10-06)", &CurveQuery::default())?;
    /// let got: Vec<_> = week.iter().map(|c| (c.ondate, c.contracts[0].value)).collect();
    /// assert_eq!(got, [(d(3), 70.0), (d(4), 71.0)]);
    /// let none = platform.data().curves_in_range(&me, "DE:BASE", "between(2024-10-05,2024-10-06)", &CurveQuery::default())?;
    /// assert!(none.is_empty());
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn curves_in_range(
        &self,
        p: &Principal,
        id: &str,
        range: &str,
        q: &CurveQuery,
    ) -> Result<Vec<Curve>> {
        if q.ondate.is_some() || q.nearest.is_some() {
            return Err(Error::invalid_parameter(
                "curves_in_range reads the curves of a range: CurveQuery::ondate and nearest \
                 pick one curve (Data::curve reads it)",
            ));
        }
        let dq = DataQuery {
            range: Some(
                range::parse(range)
                    .map_err(|e| Error::invalid_parameter(format!("_range: {e}")))?,
            ),
            version: q.version.clone(),
            conversion: Conversion {
                units: q.units.clone(),
                currency: q.currency.clone(),
                density: q.density,
            },
            ..DataQuery::default()
        };
        match self.read(p, Source::All, id, &dq)? {
            Value::Array(items) => items
                .into_iter()
                .map(|item| match DataItem::from_json(item, "Data::read")? {
                    DataItem::Curve(c) => Ok(c),
                    _ => Err(Error::Internal(format!(
                        "\"{id}\" answered a curve list of another kind"
                    ))),
                })
                .collect(),
            _ => Err(Error::not_found(format!("data \"{id}\" is not a curve"))),
        }
    }
}

#[cfg(test)]
mod tests;
