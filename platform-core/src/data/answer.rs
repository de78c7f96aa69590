//! What a data read makes, once ([`Answer`]): the item read as the platform holds it — a
//! series' header and decoded points, a curve's header and stored contracts, a series dated
//! by ondate (a tenor's history, a continuation), a catalogue entry of a list. The JSON answer
//! (what a server sends) is written from it here; the api's typed answer is made from the same
//! value, so the two say one thing.

use super::calendar::Calendar;
use super::curve::{curve_fields, StoredCurve};
use super::model::{points_json, PointValue, Status};
use super::read_item::Opened;
use super::read_query::DataQuery;
use super::zone::format_time_in;
use super::DataKind;
use crate::observations::columns::Columns;
use chrono_tz::Tz;
use serde_json::{json, Map, Value};

/// What a data read answers.
pub(crate) enum Answer {
    /// A series: its item (the JSON header is printed with the points, see
    /// `Opened::take_series_json`) and its points, printed late so that a JSON answer can be
    /// written straight from them.
    Series {
        item: Box<Opened>,
        points: Columns,
        calendar: Calendar,
        tz: Tz,
    },
    /// The curve of one ondate.
    Curve(ItemCurve),
    /// The curves whose ondates lie in a `_range`, oldest first.
    Curves(Vec<ItemCurve>),
    /// A series whose times are ondates: a tenor's history, a continuation.
    Dated(DatedSeries),
    /// A catalogue entry of a data list: an item's header and extent, without its data.
    Entry(Entry),
    /// What is no data item: a curve's tenor codes, a curve shaped into months.
    Other(Value),
}

/// What a data list answers, before it is written.
pub(crate) enum Listing {
    /// The values of `_distinct`.
    Distinct(crate::store::Page<Value>),
    /// The data items of `_id` parameters, each read by id (none projected).
    ById(Vec<Answer>),
    /// The data items listed, paged, and how many there are.
    Listed { items: Vec<Answer>, total: u64 },
}

/// Which item an answer is of: `OBJ:PROP` at an object version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemName {
    pub(crate) object: String,
    pub(crate) prop: String,
    pub(crate) version: u32,
}

impl ItemName {
    /// The name of an opened item.
    pub(crate) fn of(item: &Opened) -> ItemName {
        ItemName {
            object: item.key.object.clone(),
            prop: item.key.prop.clone(),
            version: item.object.version,
        }
    }

    /// `OBJ:PROP`.
    pub(crate) fn id(&self) -> String {
        format!("{}:{}", self.object, self.prop)
    }
}

/// The curve of one ondate of an item.
pub(crate) struct ItemCurve {
    pub(crate) name: ItemName,
    /// The item's JSON header: its stored header and system fields, `_id` the curve's.
    pub(crate) json: Map<String, Value>,
    /// The curve, converted as the read asks.
    pub(crate) stored: StoredCurve,
}

impl ItemCurve {
    /// The JSON of the curve: its header, `ondate` and `contracts`.
    pub(crate) fn into_json(self) -> Value {
        let mut json = self.json;
        let (ondate, contracts) = curve_fields(&self.stored);
        json.insert("ondate".into(), ondate);
        json.insert("contracts".into(), contracts);
        Value::Object(json)
    }
}

/// A series dated by ondate, made from a curve's ondates.
pub(crate) struct DatedSeries {
    pub(crate) name: ItemName,
    /// The JSON header the points follow (`_type` a series', `calendar` SPARSE, `properties`
    /// saying what was read, a continuation's `rolls`).
    pub(crate) json: Map<String, Value>,
    pub(crate) points: Vec<DatedPoint>,
}

/// A point of a [`DatedSeries`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DatedPoint {
    /// The ondate (`YYYY-MM-DD`), its time.
    pub(crate) ondate: String,
    pub(crate) value: PointValue,
    pub(crate) status: Option<Status>,
    /// A continuation's point: the contract it holds and what a back-adjustment moved it by.
    pub(crate) properties: Option<Map<String, Value>>,
}

impl DatedPoint {
    fn into_json(self) -> Value {
        let mut obs = Map::new();
        obs.insert("time".into(), Value::String(self.ondate));
        obs.insert("value".into(), self.value.to_json());
        if let Some(s) = self.status {
            obs.insert("status".into(), s.to_json());
        }
        if let Some(props) = self.properties {
            obs.insert("properties".into(), Value::Object(props));
        }
        Value::Object(obs)
    }
}

impl DatedSeries {
    /// The JSON of the series: its header and its points as `data`.
    pub(crate) fn into_json(self) -> Value {
        let mut json = self.json;
        let data = self.points.into_iter().map(DatedPoint::into_json).collect();
        json.insert("data".into(), Value::Array(data));
        Value::Object(json)
    }
}

/// A catalogue entry: an item's header and how much it holds, from when to when.
pub(crate) struct Entry {
    pub(crate) name: ItemName,
    pub(crate) kind: DataKind,
    /// The item's header with its system fields.
    pub(crate) doc: Map<String, Value>,
    /// How many observations (a series) or ondates (a curve) it holds.
    pub(crate) count: u64,
    /// The first and last of them.
    pub(crate) bounds: Option<(Bound, Bound)>,
}

/// The first or last of what a catalogue entry holds.
pub(crate) enum Bound {
    /// An observation's time, printed as its series prints it (on `calendar` in `tz`, in
    /// `print`, the zone of `_timezone`, when given).
    Time {
        t: i64,
        calendar: Calendar,
        tz: Tz,
        print: Option<Tz>,
    },
    /// An ondate (`YYYY-MM-DD`).
    Ondate(String),
}

impl Bound {
    /// The text the answer prints.
    pub(crate) fn text(&self) -> String {
        match self {
            Bound::Time {
                t,
                calendar,
                tz,
                print,
            } => format_time_in(*t, *calendar, *tz, *print),
            Bound::Ondate(d) => d.clone(),
        }
    }
}

impl Entry {
    /// The JSON of the entry: the header with `_count`, `_first` and `_last`.
    fn into_json(self) -> Value {
        let mut doc = self.doc;
        doc.insert("_count".into(), json!(self.count));
        let (first, last) = self.bounds.map(|(a, b)| (a.text(), b.text())).unzip();
        doc.insert("_first".into(), json!(first));
        doc.insert("_last".into(), json!(last));
        Value::Object(doc)
    }
}

impl Answer {
    /// The JSON answer (the curves of a range as an array).
    pub(crate) fn into_json(self, q: &DataQuery) -> Value {
        match self {
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
            Answer::Curve(c) => c.into_json(),
            Answer::Curves(curves) => Value::Array(curves_json(curves)),
            Answer::Dated(d) => d.into_json(),
            Answer::Entry(e) => e.into_json(),
            Answer::Other(v) => v,
        }
    }

    /// The JSON items a list holds of the answer: each curve of a range, else the answer.
    pub(crate) fn into_list(self, q: &DataQuery) -> Vec<Value> {
        match self {
            Answer::Curves(curves) => curves_json(curves),
            other => vec![other.into_json(q)],
        }
    }
}

/// The JSON of curves, each a data item.
pub(crate) fn curves_json(curves: Vec<ItemCurve>) -> Vec<Value> {
    curves.into_iter().map(ItemCurve::into_json).collect()
}
