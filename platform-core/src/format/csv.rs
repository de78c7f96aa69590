//! CSV renderings (`Accept: text/csv`).
//!
//! - Fields follow RFC 4180 quoting: a field containing a comma, a double quote, a CR or an LF is
//!   enclosed in double quotes, and its double quotes are doubled. Nothing else is quoted.
//! - Every record, the header included, ends with a single `\n` (not RFC 4180's CRLF: every
//!   spreadsheet and CSV library reads both, and LF is what the rest of the platform writes).
//!   Line breaks inside a quoted field are kept as they are. A record of a single empty field is
//!   written `""` so that readers do not skip it as a blank line; a record of no fields (an empty
//!   header or row) is an empty line.
//! - The text is UTF-8 without a byte-order mark.
//!
//! [`objects_to_csv`] writes one row per object; [`data_to_csv`] a data item's table (time
//! series `time,value,quality,source,reliability`, a continuation with `absolute` (and
//! `adjustment` when back-adjusted) after `value`, curves `tenor,value,absolute,start,end,expiry`);
//! [`curves_to_csv`] the curves of a range, `ondate,tenor,value,absolute,start,end,expiry`;
//! [`rows_to_csv`] any header + rows table.
//!
//! The text is written by the `csv` crate's writer (`\n` terminator, quoting where necessary),
//! whose quoting is exactly the rule above: it quotes a field holding the delimiter, the quote,
//! a CR or an LF (a lone CR too, although the terminator is LF), and nothing else (no comment
//! character is set, so a leading `#` is not quoted). Only the record of no fields is written
//! here: the crate writes it `""`, like a single empty field. The renderings of JSON values
//! write each cell straight into the writer, without building rows of strings first.

use serde_json::Value;
use std::fmt::Write as _;

/// Writes a table: the header record, then one record per row, each ending with `\n`.
///
/// Rows are written as given; a row need not have as many fields as the header.
pub fn rows_to_csv(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = Out::new(0);
    out.record(header);
    for row in rows {
        out.record(row);
    }
    out.finish()
}

/// Writes objects, one row per item.
///
/// The header is `_id`, then every other top-level field in the order first seen across the
/// items. A cell holds a string as it is, a number or boolean as its JSON text, a nested object or
/// array as compact JSON text, and nothing for `null` or a missing field. An item that is not an
/// object gives a row of empty cells.
pub fn objects_to_csv(items: &[Value]) -> String {
    let mut columns: Vec<&str> = vec!["_id"];
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::from(["_id"]);
    for item in items {
        if let Value::Object(map) = item {
            for key in map.keys() {
                if seen.insert(key.as_str()) {
                    columns.push(key.as_str());
                }
            }
        }
    }
    let mut out = Out::new(0);
    out.record(&columns);
    for item in items {
        for column in &columns {
            out.cell(item.get(column));
        }
        out.end();
    }
    out.finish()
}

/// The CSV of one data item: a time series as `time,value,quality,source,reliability` (with
/// `settlementDate,settlementPeriod` after `time` when its points carry them), a curve
/// as `tenor,value,absolute,start,end,expiry`, a shaped curve as
/// `tenor,value,from,start,end,hours` (or `days`); `None` for anything else.
pub fn data_to_csv(item: &Value) -> Option<String> {
    if let Some(Value::Array(points)) = item.get("data") {
        // A continuation names each point's contract, and a back-adjusted one how far its
        // price moved.
        let props = item.get("properties");
        let mut extra: Vec<&str> = Vec::new();
        if props.and_then(|p| p.get("continuation")).is_some()
            || points.iter().any(|p| {
                p.get("properties")
                    .and_then(|p| p.get("absolute"))
                    .is_some()
            })
        {
            extra.push("absolute");
        }
        if props.and_then(|p| p.get("adjust")).is_some() {
            extra.push("adjustment");
        }
        return Some(series_to_csv(points, &extra));
    }
    if let (Some(Value::Array(months)), Some(Value::String(weights))) =
        (item.get("contracts"), item.get("weights"))
    {
        // A curve shaped into months (`_shape=MONTHLY`): each month, the shortest contract
        // containing it and its weight (days, or hours of the day or of a block such as PEAK).
        let unit = if weights == "days" { "days" } else { "hours" };
        return Some(contracts_to_csv(months, &["from", "start", "end", unit]));
    }
    if let Some(Value::Array(contracts)) = item.get("contracts") {
        return Some(contracts_to_csv(
            contracts,
            &["absolute", "start", "end", "expiry"],
        ));
    }
    None
}

/// The curves of a range (each a curve of one ondate, as `data_to_csv` takes one): one row a
/// contract, `ondate,tenor,value,absolute,start,end,expiry`; the header alone for none.
pub fn curves_to_csv(items: &[Value]) -> String {
    let columns = ["absolute", "start", "end", "expiry"];
    let mut out = Out::new(items.len() * 1024);
    out.record(&[&["ondate", "tenor", "value"][..], &columns[..]].concat());
    for item in items {
        let ondate = match item.get("ondate") {
            Some(Value::Object(o)) => o.get("curveDate"),
            other => other,
        };
        for c in item
            .get("contracts")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            out.cell(ondate);
            out.cell(c.get("tenor"));
            out.cell(c.get("value"));
            let props = c.get("properties");
            for key in columns {
                out.cell(props.and_then(|p| p.get(key)));
            }
            out.end();
        }
    }
    out.finish()
}

/// A series' points: `time`, the settlement date and period when the first point has them,
/// `value`, the `extra` properties of each point, then the status' `quality`, `source` and
/// `reliability`.
fn series_to_csv(points: &[Value], extra: &[&str]) -> String {
    // Points keyed by settlement date and period (`_settlement=GB`) keep them as columns.
    let keyed = points
        .first()
        .is_some_and(|p| p.get("settlementPeriod").is_some());
    let mut header: Vec<&str> = vec!["time"];
    if keyed {
        header.extend(["settlementDate", "settlementPeriod"]);
    }
    header.push("value");
    header.extend(extra);
    header.extend(["quality", "source", "reliability"]);
    let mut out = Out::new(points.len() * 48);
    out.record(&header);
    for p in points {
        out.cell(p.get("time"));
        if keyed {
            out.cell(p.get("settlementDate"));
            out.cell(p.get("settlementPeriod"));
        }
        out.cell(p.get("value"));
        for key in extra {
            out.cell(p.get("properties").and_then(|props| props.get(key)));
        }
        let status = p.get("status");
        for key in ["quality", "source", "reliability"] {
            out.cell(status.and_then(|s| s.get(key)));
        }
        out.end();
    }
    out.finish()
}

/// A curve's contracts (or a shaped curve's months): `tenor`, `value`, then the named
/// `properties`.
fn contracts_to_csv(contracts: &[Value], properties: &[&str]) -> String {
    let mut out = Out::new(contracts.len() * 64);
    out.record(&[&["tenor", "value"], properties].concat());
    for c in contracts {
        out.cell(c.get("tenor"));
        out.cell(c.get("value"));
        let props = c.get("properties");
        for key in properties {
            out.cell(props.and_then(|p| p.get(key)));
        }
        out.end();
    }
    out.finish()
}

/// A CSV text being written: the `csv` crate's writer into memory, set to the module's rules.
struct Out {
    writer: csv::Writer<Vec<u8>>,
    /// The JSON text of the last number, boolean, object or array cell (reused, so that a cell
    /// costs no allocation).
    scratch: String,
}

impl Out {
    /// A writer whose text starts with room for `capacity` bytes.
    fn new(capacity: usize) -> Out {
        Out {
            writer: writer(Vec::with_capacity(capacity)),
            scratch: String::new(),
        }
    }

    /// Appends one record and its `\n`.
    fn record<T: AsRef<[u8]>>(&mut self, fields: &[T]) {
        if fields.is_empty() {
            // The crate writes a record of no fields as `""`, like one of a single empty field;
            // here it is an empty line.
            let full = std::mem::replace(&mut self.writer, writer(Vec::new()));
            let mut text = full.into_inner().unwrap_or_default();
            text.push(b'\n');
            self.writer = writer(text);
            return;
        }
        // Writing to memory cannot fail (and rows of any length are allowed).
        let _ = self.writer.write_record(fields);
    }

    /// Appends the cell of a JSON value to the record being written: a string as it is, a
    /// number, boolean, object or array as its JSON text, nothing for `null` or no value.
    fn cell(&mut self, value: Option<&Value>) {
        let text = match value {
            None | Some(Value::Null) => "",
            Some(Value::String(s)) => s,
            Some(other) => {
                self.scratch.clear();
                // Formatting into a String cannot fail.
                let _ = write!(self.scratch, "{other}");
                &self.scratch
            }
        };
        let _ = self.writer.write_field(text);
    }

    /// Ends the record being written (a record of a single empty field is written `""`).
    fn end(&mut self) {
        let _ = self.writer.write_record(None::<&[u8]>);
    }

    /// The text: UTF-8, since every field was.
    fn finish(self) -> String {
        String::from_utf8(self.writer.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

/// The crate's writer set to the module's rules: `\n` after each record, quotes only where
/// necessary, rows of any length.
fn writer(text: Vec<u8>) -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .quote_style(csv::QuoteStyle::Necessary)
        .flexible(true)
        .from_writer(text)
}
