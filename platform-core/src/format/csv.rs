//! CSV renderings (`Accept: text/csv`).
//!
//! - Fields follow RFC 4180 quoting: a field containing a comma, a double quote, a CR or an LF is
//!   enclosed in double quotes, and its double quotes are doubled. Nothing else is quoted.
//! - Every record, the header included, ends with a single `\n` (not RFC 4180's CRLF: every
//!   spreadsheet and CSV library reads both, and LF is what the rest of the platform writes).
//!   Line breaks inside a quoted field are kept as they are. A record of a single empty field is
//!   written `""` so that readers do not skip it as a blank line.
//! - The text is UTF-8 without a byte-order mark.
//!
//! [`objects_to_csv`] writes one row per object; [`rows_to_csv`] writes any header + rows table
//! (time series `time,value,quality,source,reliability`, curves
//! `tenor,value,absolute,start,end,expiry`).

use serde_json::Value;

/// Writes a table: the header record, then one record per row, each ending with `\n`.
///
/// Rows are written as given; a row need not have as many fields as the header.
pub fn rows_to_csv(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    write_record(&mut out, header.iter().copied());
    for row in rows {
        write_record(&mut out, row.iter().map(String::as_str));
    }
    out
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
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|item| {
            columns
                .iter()
                .map(|column| item.get(column).map(cell).unwrap_or_default())
                .collect()
        })
        .collect();
    rows_to_csv(&columns, &rows)
}

/// The text of one cell for a JSON value.
fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_) => value.to_string(),
    }
}

/// Appends one record and its `\n`. A record of one empty field is written `""`, so that it
/// is not read as a blank line.
fn write_record<'a>(out: &mut String, fields: impl Iterator<Item = &'a str>) {
    let start = out.len();
    let mut count = 0;
    for field in fields {
        if count > 0 {
            out.push(',');
        }
        write_field(out, field);
        count += 1;
    }
    if count == 1 && out.len() == start {
        out.push_str("\"\"");
    }
    out.push('\n');
}

/// Appends one field, quoted when it holds a comma, a quote, a CR or an LF.
fn write_field(out: &mut String, field: &str) {
    if field.contains([',', '"', '\r', '\n']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// The CSV of one data item: a time series as `time,value,quality,source,reliability` (with
/// `settlementDate,settlementPeriod` after `time` when its points carry them), a curve
/// as `tenor,value,absolute,start,end,expiry`, a shaped curve as
/// `tenor,value,from,start,end,hours` (or `days`); `None` for anything else.
pub fn data_to_csv(item: &Value) -> Option<String> {
    let text = |v: Option<&Value>| match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    if let Some(Value::Array(points)) = item.get("data") {
        // Points keyed by settlement date and period (`_settlement=GB`) keep them as columns.
        let keyed = points
            .first()
            .is_some_and(|p| p.get("settlementPeriod").is_some());
        let rows: Vec<Vec<String>> = points
            .iter()
            .map(|p| {
                let status = p.get("status");
                let mut row = vec![text(p.get("time"))];
                if keyed {
                    row.push(text(p.get("settlementDate")));
                    row.push(text(p.get("settlementPeriod")));
                }
                row.extend([
                    text(p.get("value")),
                    text(status.and_then(|s| s.get("quality"))),
                    text(status.and_then(|s| s.get("source"))),
                    text(status.and_then(|s| s.get("reliability"))),
                ]);
                row
            })
            .collect();
        let header: &[&str] = if keyed {
            &[
                "time",
                "settlementDate",
                "settlementPeriod",
                "value",
                "quality",
                "source",
                "reliability",
            ]
        } else {
            &["time", "value", "quality", "source", "reliability"]
        };
        return Some(rows_to_csv(header, &rows));
    }
    if let (Some(Value::Array(months)), Some(Value::String(weights))) =
        (item.get("contracts"), item.get("weights"))
    {
        // A curve shaped into months (`_shape=MONTHLY`): each month, the contract that fixed it
        // and its weight.
        let rows: Vec<Vec<String>> = months
            .iter()
            .map(|m| {
                let prop = |k: &str| text(m.get("properties").and_then(|p| p.get(k)));
                vec![
                    text(m.get("tenor")),
                    text(m.get("value")),
                    prop("from"),
                    prop("start"),
                    prop("end"),
                    prop(weights),
                ]
            })
            .collect();
        return Some(rows_to_csv(
            &["tenor", "value", "from", "start", "end", weights],
            &rows,
        ));
    }
    if let Some(Value::Array(contracts)) = item.get("contracts") {
        let rows: Vec<Vec<String>> = contracts
            .iter()
            .map(|c| {
                let props = c.get("properties");
                let prop = |k: &str| text(props.and_then(|p| p.get(k)));
                vec![
                    text(c.get("tenor")),
                    text(c.get("value")),
                    prop("absolute"),
                    prop("start"),
                    prop("end"),
                    prop("expiry"),
                ]
            })
            .collect();
        return Some(rows_to_csv(
            &["tenor", "value", "absolute", "start", "end", "expiry"],
            &rows,
        ));
    }
    None
}
