//! The typed calls of the data service beside its JSON reads: data items ([`DataItem`]) read
//! by id, by ids, listed, and as the profile of objects. Each makes its items from what the
//! read makes (see `crate::data::answer`), the value the JSON answer is written from.

use super::series_and_curves::{curve_contracts, day, not_a_number, text};
use super::series_and_curves::{Curve, CurveQuery, Partial, Point, Series};
use crate::auth::Principal;
use crate::data::answer::{Answer, Bound, DatedSeries, Entry, ItemCurve, ItemName, Listing};
use crate::data::conversion::Conversion;
use crate::data::read::DataQuery;
use crate::data::zone::format_time_in;
use crate::data::Data;
use crate::data::DataKind;
use crate::documents::ListRequest;
use crate::error::{Error, Result};
use crate::ids::Source;
use crate::observations::columns::Columns;
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
/// use platform_core::api::{data::DataItem, data::DataKind, data::Point};
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
/// use platform_core::api::{data::Contract, data::DataItem, data::DataKind, ListRequest, Source};
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
    /// use platform_core::api::{data::DataEntry, data::DataItem, data::DataKind};
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
}

/// The system fields of a data item's JSON, which a typed item holds apart (its id, version)
/// or not at all.
const SYSTEM_FIELDS: [&str; 9] = [
    "_id",
    "_objid",
    "_dataid",
    "_version",
    "_objtype",
    "_oid",
    "_timestamp",
    "_user",
    "_tag",
];

/// The header of an item's JSON: without its system fields (`_access` kept where the item
/// names a role), nor the fields `also` (those its data is answered in).
fn header_of(mut json: Map<String, Value>, also: &[&str]) -> Map<String, Value> {
    for field in SYSTEM_FIELDS.iter().chain(also) {
        json.shift_remove(*field);
    }
    if json.get("_access") == Some(&Value::Null) {
        json.shift_remove("_access");
    }
    json
}

/// A read's answer that is not what the typed read of it holds: the platform's fault.
fn unread(what: String) -> Error {
    Error::Internal(format!("the data service answered {what}"))
}

/// The instant of a point (UTC milliseconds).
fn instant(t: i64) -> Result<DateTime<Utc>> {
    DateTime::from_timestamp_millis(t).ok_or_else(|| unread(format!("the time {t}")))
}

/// The zone an item's header names, in which its dates are midnights.
fn zone_of(id: &str, header: &Map<String, Value>) -> Result<Tz> {
    crate::data::calendar::parse_zone(header.get("timezone").and_then(Value::as_str))
        .map_err(|e| unread(format!("\"{id}\": {e}")))
}

/// The midnight of the date `text` (an ondate) in `zone`.
fn midnight(text: &str, zone: Tz) -> Result<DateTime<Utc>> {
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| unread(format!("the date \"{text}\"")))?;
    zone.from_local_datetime(&date.and_time(chrono::NaiveTime::MIN))
        .earliest()
        .map(|at| at.with_timezone(&Utc))
        .ok_or_else(|| unread(format!("the date {text}, which has no midnight in {zone}")))
}

/// The typed items of a read's answer: each curve of a range, else the one item. `q` is the
/// read's query; `json_call` names the call that reads what the typed items cannot hold.
fn items_of(answer: Answer, q: &DataQuery, json_call: &str) -> Result<Vec<DataItem>> {
    match answer {
        Answer::Curves(curves) => curves
            .into_iter()
            .map(|c| curve_of(c, json_call).map(DataItem::Curve))
            .collect(),
        other => Ok(vec![item_of(other, q, json_call)?]),
    }
}

/// The typed item of a read's answer of one item (see [`items_of`]).
fn item_of(answer: Answer, q: &DataQuery, json_call: &str) -> Result<DataItem> {
    Ok(match answer {
        Answer::Series {
            mut item,
            points,
            calendar,
            tz,
        } => {
            let name = ItemName::of(&item);
            let print = |t| format_time_in(t, calendar, tz, q.print_zone(tz));
            let (points, partial) = series_points(&name.id(), &points, print, json_call)?;
            let json = item.take_series_json();
            DataItem::Series(Series {
                id: name.id(),
                version: name.version,
                units: text(&json, "units"),
                currency: text(&json, "currency"),
                header: header_of(json, &[]),
                points,
                partial,
            })
        }
        Answer::Curve(c) => DataItem::Curve(curve_of(c, json_call)?),
        Answer::Dated(d) => DataItem::Series(dated_series(d, json_call)?),
        Answer::Entry(e) => DataItem::Entry(entry_of(e)?),
        Answer::Curves(_) => return Err(unread("the curves of a range for one item".into())),
        Answer::Other(v) => return Err(unread(format!("{v}, not a data item"))),
    })
}

/// A series' points (numbers: another value at a time `print` prints is refused), and those
/// of them that are partial aggregates.
fn series_points(
    id: &str,
    columns: &Columns,
    print: impl Fn(i64) -> String,
    json_call: &str,
) -> Result<(Vec<Point>, Vec<Partial>)> {
    let mut extras = columns.extras.iter().peekable();
    let (mut points, mut partial) = (Vec::with_capacity(columns.len()), Vec::new());
    for (i, (&t, &n)) in columns.times.iter().zip(&columns.values).enumerate() {
        let extra = extras.next_if(|e| e.index == i);
        let value = match extra.map(|e| &e.value) {
            None => Some(n),
            Some(v) => v.as_f64(),
        };
        let value = value
            .filter(|v| v.is_finite())
            .ok_or_else(|| not_a_number(id, print(t), json_call))?;
        let at = instant(t)?;
        let status = extra.and_then(|e| e.status.as_deref());
        partial.extend(Partial::of(at, status.and_then(|s| s.source.as_deref())));
        points.push(Point::new(at, value));
    }
    Ok((points, partial))
}

/// A series dated by ondate (a tenor's history, a continuation): each point at the midnight
/// of its ondate in the zone of the item's header.
fn dated_series(d: DatedSeries, json_call: &str) -> Result<Series> {
    let id = d.name.id();
    let zone = zone_of(&id, &d.json)?;
    let mut partial = Vec::new();
    let points = d
        .points
        .iter()
        .map(|p| {
            let value = p
                .value
                .as_f64()
                .filter(|v| v.is_finite())
                .ok_or_else(|| not_a_number(&id, &p.ondate, json_call))?;
            let at = midnight(&p.ondate, zone)?;
            let source = p.status.as_ref().and_then(|s| s.source.as_deref());
            partial.extend(Partial::of(at, source));
            Ok(Point::new(at, value))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Series {
        id,
        version: d.name.version,
        units: text(&d.json, "units"),
        currency: text(&d.json, "currency"),
        header: header_of(d.json, &["data"]),
        points,
        partial,
    })
}

/// The curve of one ondate.
fn curve_of(c: ItemCurve, json_call: &str) -> Result<Curve> {
    let id = c.name.id();
    let contracts = curve_contracts(&id, &c.stored, json_call)?;
    Ok(Curve {
        ondate: day(c.stored.curve_date(), "ondate")?,
        version: c.name.version,
        units: text(&c.json, "units"),
        currency: text(&c.json, "currency"),
        header: header_of(c.json, &["ondate", "contracts"]),
        contracts,
        id,
    })
}

/// A catalogue entry: a series' first and last times, a curve's first and last ondates at
/// their midnights in the zone of the item's header.
fn entry_of(e: Entry) -> Result<DataEntry> {
    let id = e.name.id();
    let zone = zone_of(&id, &e.doc)?;
    let at = |b: Bound| match b {
        Bound::Time { t, .. } => instant(t),
        Bound::Ondate(d) => midnight(&d, zone),
    };
    let (first, last) = match e.bounds {
        Some((first, last)) => (Some(at(first)?), Some(at(last)?)),
        None => (None, None),
    };
    Ok(DataEntry {
        kind: e.kind,
        version: e.name.version,
        units: text(&e.doc, "units"),
        currency: text(&e.doc, "currency"),
        header: header_of(e.doc, &["_count", "_first", "_last"]),
        count: e.count,
        first,
        last,
        id,
    })
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

/// The typed items of answers (see [`items_of`]).
fn all_items_of(answers: Vec<Answer>, q: &DataQuery, json_call: &str) -> Result<Vec<DataItem>> {
    let mut out = Vec::with_capacity(answers.len());
    for answer in answers {
        out.extend(items_of(answer, q, json_call)?);
    }
    Ok(out)
}

impl Data<'_> {
    /// One data item by id (`OBJ:PROP`, or `OBJ:PROP:ONDATE` for the curve of one ondate)
    /// from a source, read as `q` asks (range, version, tenor history, continuation,
    /// conversion, scaling): the item [`Data::read`] answers in JSON. `listTenors` and
    /// `_shape` (not data items) are refused: [`Data::read`] answers them.
    ///
    /// ```
    /// use platform_core::api::{data::Contract, data::DataItem, data::DataQuery, Params, Source};
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
        match self.read_answer(p, source, id, q)? {
            Answer::Curves(_) => Err(Error::invalid_parameter(format!(
                "\"{id}\" with _range answers the curves of the range, a list: \
                 Data::curves_in_range reads them"
            ))),
            answer => item_of(answer, q, "Data::read"),
        }
    }

    /// Data items with these ids, each from the source its object's id names, in the order
    /// of `ids`; ids not found are left out, and a curve read with `_range` gives its curves
    /// in the range. What else [`Data::data_item`] refuses is refused.
    ///
    /// ```
    /// use platform_core::api::data::Point;
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
        items_only(q, "Data::read")?;
        all_items_of(self.read_many(p, ids, q)?, q, "Data::read")
    }

    /// The data items of a source, filtered, sorted and paged (by `_skip`) like objects, with
    /// the total before paging: what [`Data::list`] answers in JSON. Without `_range` (or a
    /// tenor or continuation) each is a [`DataItem::Entry`]; with one each is read by `q`.
    /// `_distinct` (values) and `_project` (parts of items) are refused: [`Data::list`]
    /// answers them.
    ///
    /// ```
    /// use platform_core::api::{data::DataItem, data::DataQuery, ListRequest, Params, data::Point, Source};
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
        let (items, total) = match self.listing(p, source, req, q)? {
            Listing::Listed { items, total } => (all_items_of(items, q, "Data::list")?, total),
            Listing::ById(answers) => {
                let items = all_items_of(answers, q, "Data::list")?;
                let total = items.len() as u64;
                (items, total)
            }
            Listing::Distinct(_) => return Err(unread("values for a list of data items".into())),
        };
        Ok(Page {
            items,
            total,
            estimated: false,
        })
    }

    /// The data item `name` of `object` (`_profile=NAME` on an object read): the item
    /// `OBJECT:NAME` as [`Data::data_item`] reads it.
    ///
    /// ```
    /// use platform_core::api::{data::DataKind, data::Point, Source};
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
        self.data_item(p, source, &format!("{object}:{name}"), q)
    }

    /// The data items `name` of the objects the request lists (objects without it, or whose
    /// data the caller may not read, are left out), each read as [`Data::data_item`] reads it;
    /// paging and the total count objects. [`Data::list_profile`] answers them in JSON.
    ///
    /// ```
    /// use platform_core::api::{ListRequest, objects::Object, Params, data::Point, Source};
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
        let page = self.profile_answers(p, source, req, name, q)?;
        Ok(Page {
            items: all_items_of(page.items, q, "Data::list_profile")?,
            total: page.total,
            estimated: page.estimated,
        })
    }

    /// The curves of `id` (`OBJ:PROP`) whose ondates lie in `range` (the `_range` grammar:
    /// `last(5)`, `between(2024-10-01,2024-10-04)`..., dates read in UTC), oldest first, at
    /// the version and converted as `q` asks (its `ondate` and `nearest` must be unset). A
    /// range that holds no ondate answers none: no other curve stands in for them.
    ///
    /// ```
    /// use platform_core::api::{data::Contract, data::CurveQuery};
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
        match self.read_answer(p, q.source, id, &dq)? {
            Answer::Curves(curves) => curves
                .into_iter()
                .map(|c| curve_of(c, "Data::read"))
                .collect(),
            _ => Err(Error::not_found(format!("data \"{id}\" is not a curve"))),
        }
    }
}

#[cfg(test)]
mod tests;
