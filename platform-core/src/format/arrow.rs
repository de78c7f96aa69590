//! The Arrow IPC stream format (`application/vnd.apache.arrow.stream`): one record batch of
//! columns, which pandas (`pyarrow.ipc.open_stream(body).read_pandas()`), polars and R read
//! without parsing text.
//!
//! | Answer | Columns |
//! |---|---|
//! | a series or a tenor history (`data`) | `time` (timestamp, ms, UTC; in the zone of `_timezone` when a read names one), with `_settlement=GB` `settlementDate` (date32) and `settlementPeriod` (uint8), `value` (float64), and `quality`, `source`, `reliability` (utf8) where some point has one (a series without statuses is two columns) |
//! | a curve (`contracts`) | `tenor` (utf8), `value` (float64), `absolute`, `start`, `end`, `expiry` (utf8) |
//! | a list of documents (or one) | one column per top-level field, in first-seen order: int64 when every value is an integer, float64 when every value is a number, bool, utf8 for text, and utf8 JSON text for objects, arrays and mixed kinds; a missing field is null |
//!
//! The schema's metadata carries the item's own fields (`_id`, `property`, `timezone`,
//! `unit`...) as text for data answers.

use crate::data::columns::Columns;
use crate::error::{Error, Result};
use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, StringBuilder, TimestampMillisecondBuilder,
};
use arrow_array::{
    Array as _, ArrayRef, Date32Array, Float64Array, RecordBatch, TimestampMillisecondArray,
    UInt8Array,
};
use arrow_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// An answer (a data item, a list, or one document) as an Arrow IPC stream.
pub fn to_arrow(value: &Value) -> Result<Vec<u8>> {
    match value {
        Value::Array(items) => objects_to_arrow(items),
        Value::Object(item) if matches!(item.get("data"), Some(Value::Array(_))) => {
            series_to_arrow(item)
        }
        Value::Object(item) if matches!(item.get("contracts"), Some(Value::Array(_))) => {
            curve_to_arrow(item)
        }
        one => objects_to_arrow(std::slice::from_ref(one)),
    }
}

fn text(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    }
}

/// The item's scalar fields beside its rows, as schema metadata.
fn metadata(item: &Map<String, Value>, rows: &str) -> HashMap<String, String> {
    item.iter()
        .filter(|(k, _)| k.as_str() != rows)
        .filter_map(|(k, v)| match v {
            Value::Object(_) | Value::Array(_) | Value::Null => None,
            other => text(Some(other)).map(|t| (k.clone(), t)),
        })
        .collect()
}

/// Milliseconds since the epoch of a point's time: RFC 3339 with an offset, or a date (its
/// midnight in UTC).
fn millis(time: &str) -> Result<i64> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(time) {
        return Ok(t.timestamp_millis());
    }
    chrono::NaiveDate::parse_from_str(time, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_millis())
        .ok_or_else(|| Error::Internal(format!("a point's time \"{time}\" is not an instant")))
}

fn series_to_arrow(item: &Map<String, Value>) -> Result<Vec<u8>> {
    let points = item
        .get("data")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut time = TimestampMillisecondBuilder::with_capacity(points.len()).with_timezone("UTC");
    let mut value = Float64Builder::with_capacity(points.len());
    let mut status: [StringBuilder; 3] = Default::default();
    for p in points {
        match p.get("time").and_then(Value::as_str) {
            Some(t) => time.append_value(millis(t)?),
            None => time.append_null(),
        }
        value.append_option(p.get("value").and_then(Value::as_f64));
        let s = p.get("status");
        for (builder, key) in status.iter_mut().zip(["quality", "source", "reliability"]) {
            builder.append_option(text(s.and_then(|s| s.get(key))));
        }
    }
    write(
        series_columns(
            Arc::new(time.finish()),
            Arc::new(value.finish()),
            Some(status),
        ),
        metadata(item, "data"),
    )
}

/// The `time` column of a series answer (a timestamp in milliseconds with its zone).
fn time_field(times: ArrayRef) -> (Field, ArrayRef) {
    (Field::new("time", times.data_type().clone(), true), times)
}

/// The columns of a series answer: `time`, `value`, and each status column some point has a
/// value in (a series without statuses is two columns, not three more of nulls).
fn series_columns(
    time: ArrayRef,
    value: ArrayRef,
    status: Option<[StringBuilder; 3]>,
) -> Vec<(Field, ArrayRef)> {
    let mut columns = vec![
        time_field(time),
        (Field::new("value", DataType::Float64, true), value),
    ];
    for (name, mut builder) in ["quality", "source", "reliability"]
        .into_iter()
        .zip(status.into_iter().flatten())
    {
        let array = builder.finish();
        if array.null_count() < array.len() {
            columns.push((Field::new(name, DataType::Utf8, true), Arc::new(array)));
        }
    }
    columns
}

/// A series answer straight from its columns (never as a JSON tree): the columns and metadata
/// [`to_arrow`] gives the same answer in JSON. `header` is the item without `data`; the times
/// go into the `time` column as they are, or through `time_ms` where a point's printed time
/// names another instant (a dated calendar prints local midnights). The times and values move
/// into the answer's buffers without a copy.
pub fn series_columns_to_arrow(
    header: &Map<String, Value>,
    points: Columns,
    time_ms: Option<impl Fn(i64) -> i64>,
) -> Result<ArrowStream> {
    series_columns_to_arrow_in(header, points, time_ms, "UTC")
}

/// [`series_columns_to_arrow`] with the `time` column in the time zone `zone` (an IANA name,
/// Arrow's timezone metadata of the column; its values stay instants, as Arrow defines them):
/// what a read with `_timezone` answers.
pub fn series_columns_to_arrow_in(
    header: &Map<String, Value>,
    points: Columns,
    time_ms: Option<impl Fn(i64) -> i64>,
    zone: &str,
) -> Result<ArrowStream> {
    series_columns_to_arrow_keyed(header, points, time_ms, zone, None::<fn(i64) -> (i32, u8)>)
}

/// [`series_columns_to_arrow_in`] with each point keyed besides its time: `keys` gives the
/// `settlementDate` (days since 1970-01-01) and `settlementPeriod` of a point's instant, in two
/// columns after `time` (a read with `_settlement=GB`).
pub fn series_columns_to_arrow_keyed(
    header: &Map<String, Value>,
    points: Columns,
    time_ms: Option<impl Fn(i64) -> i64>,
    zone: &str,
    keys: Option<impl Fn(i64) -> (i32, u8)>,
) -> Result<ArrowStream> {
    let finite = points.all_finite();
    let Columns {
        mut times,
        values,
        extras,
        ..
    } = points;
    let len = times.len();
    // Keyed by the instants themselves, before a dated calendar moves them to printed ones.
    let keys = keys.map(|key| {
        let (dates, periods): (Vec<i32>, Vec<u8>) = times.iter().map(|&t| key(t)).unzip();
        [
            (
                Field::new("settlementDate", DataType::Date32, false),
                Arc::new(Date32Array::from(dates)) as ArrayRef,
            ),
            (
                Field::new("settlementPeriod", DataType::UInt8, false),
                Arc::new(UInt8Array::from(periods)) as ArrayRef,
            ),
        ]
    });
    if let Some(f) = time_ms {
        for t in &mut times {
            *t = f(*t);
        }
    }
    let time = TimestampMillisecondArray::from(times).with_timezone(zone);
    // A null where the value is no finite number (null, text, or NaN and infinities, which JSON
    // prints as null too).
    let nulls = (!finite)
        .then(|| NullBuffer::new(BooleanBuffer::collect_bool(len, |i| values[i].is_finite())));
    let value = Float64Array::new(ScalarBuffer::from(values), nulls);
    let mut statuses = extras
        .iter()
        .filter_map(|e| e.status.as_deref().map(|s| (e.index, s)))
        .peekable();
    let status = statuses.peek().is_some().then(|| {
        let mut status: [StringBuilder; 3] = Default::default();
        let mut next = 0;
        for (index, s) in statuses {
            for b in &mut status {
                b.append_nulls(index - next);
            }
            let [quality, source, reliability] = &mut status;
            quality.append_option(s.quality.as_deref());
            source.append_option(s.source.as_deref());
            reliability.append_option(s.reliability.as_deref());
            next = index + 1;
        }
        for b in &mut status {
            b.append_nulls(len - next);
        }
        status
    });
    let mut columns = series_columns(Arc::new(time), Arc::new(value), status);
    if let Some(keys) = keys {
        columns.splice(1..1, keys);
    }
    encode(columns, metadata(header, "data"))
}

fn curve_to_arrow(item: &Map<String, Value>) -> Result<Vec<u8>> {
    let contracts = item
        .get("contracts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut tenor = StringBuilder::new();
    let mut value = Float64Builder::with_capacity(contracts.len());
    let mut props: [StringBuilder; 4] = Default::default();
    for c in contracts {
        tenor.append_option(text(c.get("tenor")));
        value.append_option(c.get("value").and_then(Value::as_f64));
        let p = c.get("properties");
        for (builder, key) in props.iter_mut().zip(["absolute", "start", "end", "expiry"]) {
            builder.append_option(text(p.and_then(|p| p.get(key))));
        }
    }
    let [absolute, start, end, expiry] = props;
    let columns: Vec<(Field, ArrayRef)> = vec![
        utf8("tenor", tenor),
        (
            Field::new("value", DataType::Float64, true),
            Arc::new(value.finish()),
        ),
        utf8("absolute", absolute),
        utf8("start", start),
        utf8("end", end),
        utf8("expiry", expiry),
    ];
    write(columns, metadata(item, "contracts"))
}

fn utf8(name: &str, mut builder: StringBuilder) -> (Field, ArrayRef) {
    (
        Field::new(name, DataType::Utf8, true),
        Arc::new(builder.finish()),
    )
}

/// The kind of column a field's values make.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Int,
    Float,
    Bool,
    Text,
    Json,
}

fn kind_of(v: &Value) -> Option<Kind> {
    match v {
        Value::Null => None,
        Value::Bool(_) => Some(Kind::Bool),
        Value::Number(n) if n.is_i64() => Some(Kind::Int),
        Value::Number(_) => Some(Kind::Float),
        Value::String(_) => Some(Kind::Text),
        Value::Array(_) | Value::Object(_) => Some(Kind::Json),
    }
}

fn widen(a: Kind, b: Kind) -> Kind {
    match (a, b) {
        (a, b) if a == b => a,
        (Kind::Int, Kind::Float) | (Kind::Float, Kind::Int) => Kind::Float,
        _ => Kind::Json,
    }
}

fn objects_to_arrow(items: &[Value]) -> Result<Vec<u8>> {
    // The columns: every top-level field, in the order first seen, with its widest kind.
    let mut names: Vec<&str> = Vec::new();
    let mut kinds: HashMap<&str, Option<Kind>> = HashMap::new();
    for item in items {
        let Value::Object(fields) = item else {
            continue;
        };
        for (name, v) in fields {
            let seen = kinds.entry(name.as_str()).or_insert_with(|| {
                names.push(name.as_str());
                None
            });
            if let Some(k) = kind_of(v) {
                *seen = Some(seen.map_or(k, |s| widen(s, k)));
            }
        }
    }
    let field = |item: &'_ Value, name: &str| item.get(name).filter(|v| !v.is_null()).cloned();
    let mut columns: Vec<(Field, ArrayRef)> = Vec::with_capacity(names.len());
    for name in names {
        let kind = kinds[name].unwrap_or(Kind::Text);
        let column: (DataType, ArrayRef) = match kind {
            Kind::Int => {
                let mut b = Int64Builder::with_capacity(items.len());
                for item in items {
                    b.append_option(field(item, name).and_then(|v| v.as_i64()));
                }
                (DataType::Int64, Arc::new(b.finish()))
            }
            Kind::Float => {
                let mut b = Float64Builder::with_capacity(items.len());
                for item in items {
                    b.append_option(field(item, name).and_then(|v| v.as_f64()));
                }
                (DataType::Float64, Arc::new(b.finish()))
            }
            Kind::Bool => {
                let mut b = BooleanBuilder::with_capacity(items.len());
                for item in items {
                    b.append_option(field(item, name).and_then(|v| v.as_bool()));
                }
                (DataType::Boolean, Arc::new(b.finish()))
            }
            Kind::Text | Kind::Json => {
                let mut b = StringBuilder::new();
                for item in items {
                    b.append_option(field(item, name).map(|v| match v {
                        Value::String(s) => s,
                        other => other.to_string(),
                    }));
                }
                (DataType::Utf8, Arc::new(b.finish()))
            }
        };
        columns.push((Field::new(name, column.0, true), column.1));
    }
    write(columns, HashMap::new())
}

fn write(columns: Vec<(Field, ArrayRef)>, metadata: HashMap<String, String>) -> Result<Vec<u8>> {
    Ok(encode(columns, metadata)?.into_bytes())
}

/// The stream of one record batch of `columns`, in pieces that share the columns' buffers.
fn encode(
    columns: Vec<(Field, ArrayRef)>,
    metadata: HashMap<String, String>,
) -> Result<ArrowStream> {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema = Arc::new(Schema::new_with_metadata(fields, metadata));
    let arrow = |e: arrow_schema::ArrowError| Error::caused("an Arrow answer", e);
    let batch = if arrays.is_empty() {
        RecordBatch::new_empty(schema.clone())
    } else {
        RecordBatch::try_new(schema.clone(), arrays).map_err(arrow)?
    };
    let mut encoder = arrow_ipc::writer::StreamEncoder::try_new(&schema).map_err(arrow)?;
    let mut pieces = encoder.encode(&batch).map_err(arrow)?;
    pieces.extend(encoder.finish().map_err(arrow)?);
    Ok(ArrowStream { pieces })
}

/// An Arrow IPC stream in the pieces it is made of: the framing, and the columns' own buffers
/// (a series' times and values as they were decoded), so a large answer is handed on without
/// being copied into one buffer first. [`ArrowStream::into_bytes`] joins them.
#[derive(Debug, Clone)]
pub struct ArrowStream {
    pieces: Vec<arrow_buffer::Buffer>,
}

impl ArrowStream {
    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.pieces.iter().map(|p| p.len()).sum()
    }

    /// Whether it has no bytes (a stream always has some).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its bytes, piece by piece, in order.
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        self.pieces.iter().map(|p| p.as_slice())
    }

    /// Its pieces, each owning its bytes (to be sent without a copy).
    pub fn into_pieces(self) -> impl Iterator<Item = impl AsRef<[u8]> + Send + Sync + 'static> {
        self.pieces.into_iter()
    }

    /// The stream as one buffer.
    pub fn into_bytes(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for p in &self.pieces {
            out.extend_from_slice(p);
        }
        out
    }
}

impl From<Vec<u8>> for ArrowStream {
    fn from(bytes: Vec<u8>) -> ArrowStream {
        ArrowStream {
            pieces: vec![arrow_buffer::Buffer::from(bytes)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray as _;
    use arrow_array::types::{Float64Type, Int64Type, TimestampMillisecondType};
    use arrow_schema::TimeUnit;
    use serde_json::json;

    fn read(bytes: &[u8]) -> RecordBatch {
        let mut reader = arrow_ipc::reader::StreamReader::try_new(bytes, None).unwrap();
        let batch = reader.next().unwrap().unwrap();
        assert!(reader.next().is_none(), "one batch");
        batch
    }

    #[test]
    fn a_series_is_times_values_and_statuses() {
        let item = json!({"_id": "NBP", "property": "SPOT", "timezone": "Europe/London", "data": [
            {"time": "2024-10-27T01:00:00+01:00", "value": 1.5, "status": {"quality": "VALID"}},
            {"time": "2024-10-27T01:00:00Z", "value": null},
            {"time": "2024-10-28", "value": 3}
        ]});
        let batch = read(&to_arrow(&item).unwrap());
        assert_eq!(batch.num_rows(), 3);
        let time = batch.column(0).as_primitive::<TimestampMillisecondType>();
        assert_eq!(time.value(0), 1_729_987_200_000);
        assert_eq!(
            time.value(1),
            1_729_990_800_000,
            "the repeated hour stays distinct"
        );
        assert_eq!(time.value(2), 1_730_073_600_000);
        let value = batch.column(1).as_primitive::<Float64Type>();
        assert_eq!(
            (value.value(0), value.is_null(1), value.value(2)),
            (1.5, true, 3.0)
        );
        assert_eq!(batch.column(2).as_string::<i32>().value(0), "VALID");
        assert!(batch.column(2).is_null(1));
        let schema = batch.schema();
        assert_eq!(schema.metadata()["timezone"], "Europe/London");
        assert_eq!(schema.metadata()["_id"], "NBP");
        assert_eq!(
            schema.field(0).data_type(),
            &DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
        );
    }

    #[test]
    fn a_series_from_columns_is_the_answer_its_json_gives() {
        use crate::data::model::{Point, PointValue, Status};
        let header = json!({"_id": "NBP", "property": "SPOT"});
        let header = header.as_object().unwrap();
        let t0 = 1_729_987_200_000;
        let plain: Vec<Point> = (0..5)
            .map(|i| Point::num(t0 + i * 3_600_000, i as f64 / 4.0))
            .collect();
        let mut mixed = plain.clone();
        mixed[1].v = PointValue::Text("n/a".into());
        mixed[2].v = PointValue::Null;
        mixed[3].status = Some(Box::new(Status {
            source: Some("CHANGED".into()),
            ..Status::default()
        }));
        mixed[4].v = PointValue::Num(f64::INFINITY);
        for points in [plain, mixed] {
            let columns = crate::data::columns::Columns::from_points(&points);
            let ours = read(
                &series_columns_to_arrow(header, columns, None::<fn(i64) -> i64>)
                    .unwrap()
                    .into_bytes(),
            );
            let mut item = header.clone();
            let data = points
                .iter()
                .map(|p| p.to_json(crate::data::calendar::utc_text(p.t).unwrap()))
                .collect();
            item.insert("data".into(), Value::Array(data));
            let theirs = read(&to_arrow(&Value::Object(item)).unwrap());
            assert_eq!(ours, theirs);
        }
        // Without statuses: time and value only; with one, only the status column it fills.
        let plain = read(
            &series_columns_to_arrow(
                header,
                crate::data::columns::Columns::from_points(&[Point::num(t0, 1.0)]),
                None::<fn(i64) -> i64>,
            )
            .unwrap()
            .into_bytes(),
        );
        assert_eq!(plain.num_columns(), 2);
        let mut with = Point::num(t0, 1.0);
        with.status = Some(Box::new(Status {
            quality: Some("VALID".into()),
            ..Status::default()
        }));
        let one = read(
            &series_columns_to_arrow(
                header,
                crate::data::columns::Columns::from_points(&[with, Point::num(t0 + 1, 2.0)]),
                Some(|t: i64| t + 1000),
            )
            .unwrap()
            .into_bytes(),
        );
        let names: Vec<String> = one
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["time", "value", "quality"]);
        assert_eq!(one.column(2).as_string::<i32>().value(0), "VALID");
        assert!(one.column(2).is_null(1));
        let time = one.column(0).as_primitive::<TimestampMillisecondType>();
        assert_eq!((time.value(0), time.value(1)), (t0 + 1000, t0 + 1001));
    }

    #[test]
    fn a_curve_is_tenors_values_and_delivery_periods() {
        let item = json!({"_id": "TTF", "contracts": [
            {"tenor": "M1", "value": 30.5, "properties": {"start": "2025-01-01", "end": "2025-02-01"}},
            {"tenor": "Q1", "value": 29}
        ]});
        let batch = read(&to_arrow(&item).unwrap());
        assert_eq!(batch.num_rows(), 2);
        assert_eq!(batch.column(0).as_string::<i32>().value(1), "Q1");
        assert_eq!(batch.column(1).as_primitive::<Float64Type>().value(1), 29.0);
        assert_eq!(batch.column(3).as_string::<i32>().value(0), "2025-01-01");
        assert!(batch.column(3).is_null(1));
    }

    #[test]
    fn a_list_gets_a_column_per_field_of_its_widest_kind() {
        let items = json!([
            {"_id": "A", "n": 1, "x": 1, "ok": true, "tags": ["a"]},
            {"_id": "B", "n": 2, "x": 2.5, "extra": "e", "tags": null},
            {"_id": "C", "x": "mixed"}
        ]);
        let batch = read(&to_arrow(&items).unwrap());
        let schema = batch.schema();
        let names: Vec<_> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["_id", "n", "x", "ok", "tags", "extra"]);
        assert_eq!(schema.field(1).data_type(), &DataType::Int64);
        assert_eq!(
            schema.field(2).data_type(),
            &DataType::Utf8,
            "mixed kinds: JSON text"
        );
        assert_eq!(schema.field(3).data_type(), &DataType::Boolean);
        let n = batch.column(1).as_primitive::<Int64Type>();
        assert_eq!((n.value(1), n.is_null(2)), (2, true));
        assert_eq!(batch.column(2).as_string::<i32>().value(1), "2.5");
        assert_eq!(batch.column(4).as_string::<i32>().value(0), "[\"a\"]");
        assert!(batch.column(4).is_null(1));
        // Nothing at all is an empty batch.
        assert_eq!(read(&to_arrow(&json!([])).unwrap()).num_rows(), 0);
    }
}
