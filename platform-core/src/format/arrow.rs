//! The Arrow IPC stream format (`application/vnd.apache.arrow.stream`): one record batch of
//! columns, which pandas (`pyarrow.ipc.open_stream(body).read_pandas()`), polars and R read
//! without parsing text.
//!
//! | Answer | Columns |
//! |---|---|
//! | a series (`data`) | `time` (timestamp, ms, UTC; in the zone of `_timezone` when a read names one; `date32`, the local date, when a read with `_timezone` is daily or coarser), with `_settlement=GB` `settlementDate` (date32) and `settlementPeriod` (uint8), `value` (float64), and `quality`, `source`, `reliability` (utf8) where some point has one (a series without statuses is two columns) |
//! | a tenor history or a continuation (a series by ondate) | `time` (date32: the ondate), `value` (float64), a continuation's `absolute` (utf8) and, back-adjusted, `adjustment` (float64), then the status columns as for a series |
//! | a curve (`contracts`), or the curves of a range (one row a contract) | `ondate` (date32), `tenor` (utf8), `value` (float64), `absolute` (utf8), `start`, `end`, `expiry` (date32); a shaped curve's months `ondate`, `tenor`, `value`, `from`, `absolute` (utf8), `start`, `end` (date32) and `hours` or `days` (float64) |
//! | a list of documents (or one) | one column per top-level field, in first-seen order: int64 when every value is an integer, float64 when every value is a number, bool, utf8 for text, and utf8 JSON text for objects, arrays and mixed kinds; a missing field is null |
//!
//! The schema's metadata carries the item's own fields (`_id`, `property`, `timezone`,
//! `unit`...) as text for data answers.

use crate::data::columns::Columns;
use crate::error::{Error, Result};
use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Float64Builder, Int64Builder, StringBuilder,
    TimestampMillisecondBuilder,
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

/// An answer (a data item, a list, or one document) as an Arrow IPC stream. A list whose
/// items are all curves is their contracts, one row each (see [`curves_to_arrow`]).
pub fn to_arrow(value: &Value) -> Result<Vec<u8>> {
    match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(is_curve) => {
            curves_to_arrow(items)
        }
        Value::Array(items) => objects_to_arrow(items),
        Value::Object(item) if matches!(item.get("data"), Some(Value::Array(_))) => {
            series_to_arrow(item, false)
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

/// Whether a value is a curve of one ondate (`contracts`).
fn is_curve(v: &Value) -> bool {
    matches!(v.get("contracts"), Some(Value::Array(_)))
}

/// Days since 1970-01-01 (Arrow's `date32`) of a date's text (`YYYY-MM-DD`).
fn date32(text: &str) -> Result<i32> {
    let day = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| Error::Internal(format!("\"{text}\" is not a date")))?;
    Ok((day - chrono::NaiveDate::default()).num_days() as i32)
}

/// A series whose times are ondates (a tenor's history, a continuation): its `time` column
/// `date32`, a continuation's contract in `absolute` and a back-adjusted one's `adjustment`.
pub fn dated_series_to_arrow(item: &Value) -> Result<Vec<u8>> {
    match item {
        Value::Object(item) => series_to_arrow(item, true),
        other => to_arrow(other),
    }
}

fn series_to_arrow(item: &Map<String, Value>, dated: bool) -> Result<Vec<u8>> {
    let points = item
        .get("data")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut time = TimestampMillisecondBuilder::with_capacity(points.len()).with_timezone("UTC");
    let mut days = Date32Builder::with_capacity(points.len());
    let mut value = Float64Builder::with_capacity(points.len());
    let mut absolute = StringBuilder::new();
    let mut adjustment = Float64Builder::with_capacity(points.len());
    let mut status: [StringBuilder; 3] = Default::default();
    for p in points {
        match (p.get("time").and_then(Value::as_str), dated) {
            (Some(t), false) => time.append_value(millis(t)?),
            (Some(t), true) => days.append_value(date32(t)?),
            (None, false) => time.append_null(),
            (None, true) => days.append_null(),
        }
        value.append_option(p.get("value").and_then(Value::as_f64));
        let props = p.get("properties");
        absolute.append_option(text(props.and_then(|p| p.get("absolute"))));
        adjustment.append_option(
            props
                .and_then(|p| p.get("adjustment"))
                .and_then(Value::as_f64),
        );
        let s = p.get("status");
        for (builder, key) in status.iter_mut().zip(["quality", "source", "reliability"]) {
            builder.append_option(text(s.and_then(|s| s.get(key))));
        }
    }
    let time: ArrayRef = if dated {
        Arc::new(days.finish())
    } else {
        Arc::new(time.finish())
    };
    let mut columns = series_columns(time, Arc::new(value.finish()), Some(status));
    // A continuation names its contract (and, back-adjusted, how far each price moved) in
    // every format, even when it has no points.
    let props = item.get("properties");
    let is_continuation = props.and_then(|p| p.get("continuation")).is_some()
        || points.iter().any(|p| {
            p.get("properties")
                .and_then(|p| p.get("absolute"))
                .is_some()
        });
    let mut extra = Vec::new();
    if is_continuation {
        extra.push(utf8("absolute", absolute));
    }
    if props.and_then(|p| p.get("adjust")).is_some() {
        extra.push((
            Field::new("adjustment", DataType::Float64, true),
            Arc::new(adjustment.finish()) as ArrayRef,
        ));
    }
    columns.splice(2..2, extra);
    write(columns, metadata(item, "data"))
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

/// [`series_columns_to_arrow`] with a `date32` `time` column: `day` gives the date of an
/// instant (days since 1970-01-01), as a daily or coarser read in a zone prints it.
pub fn series_columns_to_arrow_dated(
    header: &Map<String, Value>,
    points: Columns,
    day: impl Fn(i64) -> i32,
) -> Result<ArrowStream> {
    let days: Vec<i32> = points.times.iter().map(|&t| day(t)).collect();
    point_columns(header, Arc::new(Date32Array::from(days)), points, None)
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
    let mut points = points;
    // Keyed by the instants themselves, before a dated calendar moves them to printed ones.
    let keys = keys.map(|key| {
        let (dates, periods): (Vec<i32>, Vec<u8>) = points.times.iter().map(|&t| key(t)).unzip();
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
    let times = std::mem::take(&mut points.times);
    let mut times = times;
    if let Some(f) = time_ms {
        for t in &mut times {
            *t = f(*t);
        }
    }
    let time = TimestampMillisecondArray::from(times).with_timezone(zone);
    point_columns(header, Arc::new(time), points, keys)
}

/// The stream of a series answer from its `time` column and the rest of its columns (whose
/// `times` are already in `time`): `value`, the status columns some point fills, and `keys`
/// after `time`.
fn point_columns(
    header: &Map<String, Value>,
    time: ArrayRef,
    points: Columns,
    keys: Option<[(Field, ArrayRef); 2]>,
) -> Result<ArrowStream> {
    let finite = points.all_finite();
    let Columns { values, extras, .. } = points;
    let len = time.len();
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
    let mut columns = series_columns(time, Arc::new(value), status);
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
    let ondate = curve_date(item);
    let rows: Vec<(Option<&str>, &Value)> = contracts.iter().map(|c| (ondate, c)).collect();
    let weights = item.get("weights").and_then(Value::as_str);
    write(
        contract_columns(&rows, weights)?,
        metadata(item, "contracts"),
    )
}

/// The curves of a range (each a curve of one ondate) as one row a contract, each with its
/// `ondate`; the schema's metadata holds the fields every curve shares (`_objid`, `units`...).
/// No curves is no rows, with the columns of a curve.
pub fn curves_to_arrow(items: &[Value]) -> Result<Vec<u8>> {
    let mut rows: Vec<(Option<&str>, &Value)> = Vec::new();
    for item in items {
        let ondate = item.as_object().and_then(curve_date);
        if let Some(Value::Array(contracts)) = item.get("contracts") {
            rows.extend(contracts.iter().map(|c| (ondate, c)));
        }
    }
    let mut shared = match items.first() {
        Some(Value::Object(first)) => metadata(first, "contracts"),
        _ => HashMap::new(),
    };
    shared.retain(|k, v| {
        items.iter().all(|item| {
            item.as_object()
                .is_some_and(|m| text(m.get(k)).as_deref() == Some(v.as_str()))
        })
    });
    write(contract_columns(&rows, None)?, shared)
}

/// The date of a curve's `ondate` (`{"curveDate": ...}`, or the date itself).
fn curve_date(item: &Map<String, Value>) -> Option<&str> {
    match item.get("ondate") {
        Some(Value::String(d)) => Some(d),
        Some(Value::Object(o)) => o.get("curveDate").and_then(Value::as_str),
        _ => None,
    }
}

/// The columns of contracts, each with its curve's ondate: `ondate`, `tenor`, `value`,
/// `absolute` and the delivery dates and expiry (`date32`); a shaped curve's months (whose
/// `weights` name their weight) with `from` and their weight instead of the expiry.
fn contract_columns(
    rows: &[(Option<&str>, &Value)],
    weights: Option<&str>,
) -> Result<Vec<(Field, ArrayRef)>> {
    let mut ondate = Date32Builder::with_capacity(rows.len());
    let mut tenor = StringBuilder::new();
    let mut value = Float64Builder::with_capacity(rows.len());
    let mut from = StringBuilder::new();
    let mut absolute = StringBuilder::new();
    let mut dates: [Date32Builder; 3] = Default::default();
    let mut weight = Float64Builder::with_capacity(rows.len());
    let dated = if weights.is_some() {
        &["start", "end"][..]
    } else {
        &["start", "end", "expiry"][..]
    };
    for (day, c) in rows {
        ondate.append_option(day.map(date32).transpose()?);
        tenor.append_option(text(c.get("tenor")));
        value.append_option(c.get("value").and_then(Value::as_f64));
        let p = c.get("properties");
        let field = |key: &str| p.and_then(|p| p.get(key));
        from.append_option(text(field("from")));
        absolute.append_option(text(field("absolute")));
        for (builder, key) in dates.iter_mut().zip(dated) {
            builder.append_option(field(key).and_then(Value::as_str).map(date32).transpose()?);
        }
        weight.append_option(weights.and_then(field).and_then(Value::as_f64));
    }
    let [start, end, expiry] = dates;
    let date = |name: &str, mut b: Date32Builder| {
        (
            Field::new(name, DataType::Date32, true),
            Arc::new(b.finish()) as ArrayRef,
        )
    };
    let mut columns: Vec<(Field, ArrayRef)> = vec![
        date("ondate", ondate),
        utf8("tenor", tenor),
        (
            Field::new("value", DataType::Float64, true),
            Arc::new(value.finish()),
        ),
    ];
    match weights {
        Some(w) => columns.extend([
            utf8("from", from),
            utf8("absolute", absolute),
            date("start", start),
            date("end", end),
            (
                Field::new(w, DataType::Float64, true),
                Arc::new(weight.finish()) as ArrayRef,
            ),
        ]),
        None => columns.extend([
            utf8("absolute", absolute),
            date("start", start),
            date("end", end),
            date("expiry", expiry),
        ]),
    }
    Ok(columns)
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
    Ok(ArrowStream {
        pieces,
        batch: Some(batch),
    })
}

/// An Arrow IPC stream in the pieces it is made of: the framing, and the columns' own buffers
/// (a series' times and values as they were decoded), so a large answer is handed on without
/// being copied into one buffer first. [`ArrowStream::into_bytes`] joins them.
#[derive(Debug, Clone)]
pub struct ArrowStream {
    pieces: Vec<arrow_buffer::Buffer>,
    /// The record batch it carries, when it was made here from its columns.
    batch: Option<RecordBatch>,
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

    /// The record batch the stream carries (its schema with the answer's metadata, and its
    /// columns), without decoding the stream when it was made from its columns.
    pub fn record_batch(&self) -> Result<RecordBatch> {
        if let Some(batch) = &self.batch {
            return Ok(batch.clone());
        }
        let arrow = |e: arrow_schema::ArrowError| Error::caused("an Arrow answer", e);
        let bytes = self.clone().into_bytes();
        let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(arrow)?;
        let schema = reader.schema();
        let mut batches = reader
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(arrow)?;
        match batches.len() {
            0 => Ok(RecordBatch::new_empty(schema)),
            1 => Ok(batches.remove(0)),
            n => Err(Error::Internal(format!(
                "an Arrow answer of {n} record batches where one was made"
            ))),
        }
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
            batch: None,
        }
    }
}

#[cfg(test)]
mod tests;
