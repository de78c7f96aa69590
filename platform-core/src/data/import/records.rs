//! CSV records (the `csv` crate) with the line each starts on, the separator of a file, and
//! the columns its header names (`super::header`).

use super::header::{header_columns, Column, ColumnChoice};
use super::{at_line, Progress, TICK};
use crate::data::model::{PointValue, Status};
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The records of a CSV file, each with the line it starts on, and its columns.
#[derive(Debug)]
pub struct Records {
    pub(super) rows: Vec<(usize, csv::StringRecord)>,
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// Whether a header named the columns.
    pub named: bool,
    /// Whether `80,5` is a number (a `;` file).
    pub(super) decimal_comma: bool,
}

impl Records {
    /// How many records the file holds (the header left out).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the file holds no record.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Whether the file holds curves: its header names a tenor column, or it has no header and
    /// the data it goes into is a curve.
    pub fn is_curve(&self, into_curve: bool) -> bool {
        self.columns.contains(&Column::Tenor) || (!self.named && into_curve)
    }
}

/// A field separator named by a person: one character such as `,` or `;`, or `tab`.
pub fn parse_delimiter(text: &str) -> Result<u8> {
    match text {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        t if t.len() == 1 && t.is_ascii() && !t.as_bytes()[0].is_ascii_alphanumeric() => {
            Ok(t.as_bytes()[0])
        }
        _ => Err(Error::invalid_parameter(format!(
            "delimiter \"{text}\": use one character such as ',' or ';', or 'tab'"
        ))),
    }
}

/// The separator a CSV text uses: `,`, `;` or tab, whichever its first line holds most outside
/// quotes (tab, then `;` on a tie: they are chosen where commas are data).
pub(super) fn detect_delimiter(text: &str) -> u8 {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let mut counts = [0usize; 3];
    let mut quoted = false;
    for b in first.bytes() {
        match b {
            b'"' => quoted = !quoted,
            b'\t' if !quoted => counts[0] += 1,
            b';' if !quoted => counts[1] += 1,
            b',' if !quoted => counts[2] += 1,
            _ => {}
        }
    }
    let best = counts.iter().copied().max().unwrap_or(0);
    if best == 0 || counts[2] == best && counts[0] < best && counts[1] < best {
        b','
    } else if counts[0] == best {
        b'\t'
    } else {
        b';'
    }
}

/// Reads a CSV text into records (the `csv` crate: RFC 4180 quoting, CR LF or LF), leaving out
/// blank lines, and names its columns from a header row if it has one. `delimiter` is the
/// field separator, detected when `None` (see the module grammar).
pub fn csv_records(text: &str, delimiter: Option<u8>, progress: &dyn Progress) -> Result<Records> {
    csv_records_choosing(text, delimiter, &ColumnChoice::default(), progress)
}

/// [`csv_records`] of a file as published: `choice` names its value (and time) column, and
/// the columns beside them that key no row are left out.
///
/// ```
/// use platform_core::api::import::{csv_records_choosing, ColumnChoice, PointReader};
/// let text = "date,open,close\n2024-03-01,26.0,26.1\n2024-03-04,26.2,25.85\n";
/// let choice = ColumnChoice { value: Some("close".into()), ..Default::default() };
/// let records = csv_records_choosing(text, None, &choice, &())?;
/// let (points, _) = PointReader::of_settings(Some("DAILY"), None)?.csv(&records, &())?;
/// assert_eq!(points[1].v.as_f64(), Some(25.85));
/// # Ok::<(), platform_core::Error>(())
/// ```
pub fn csv_records_choosing(
    text: &str,
    delimiter: Option<u8>,
    choice: &ColumnChoice,
    progress: &dyn Progress,
) -> Result<Records> {
    let delimiter = delimiter.unwrap_or_else(|| detect_delimiter(text));
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut rows = Vec::with_capacity(text.len() / 24);
    let mut record = csv::StringRecord::new();
    let mut lines = LineCounter {
        bytes: text.as_bytes(),
        counted: 0,
        line: 1,
    };
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let at = e.position().map_or(lines.counted, |p| p.byte() as usize);
                return Err(Error::invalid_body(format!(
                    "line {}: the file is not valid CSV ({})",
                    lines.line_at(at),
                    kind_text(&e)
                )));
            }
        }
        let at = record
            .position()
            .map_or(lines.counted, |p| p.byte() as usize);
        let start = lines.line_at(at);
        if record.iter().all(str::is_empty) {
            continue;
        }
        if rows.len() % TICK == 0 {
            progress.at(at as u64);
        }
        rows.push((start, record.clone()));
    }
    // A quote that is never closed swallows the lines after it into one field: refuse that
    // rather than store the rest of the file as one text value.
    if text.bytes().filter(|b| *b == b'"').count() % 2 == 1 {
        if let Some((line, _)) = rows
            .last()
            .filter(|(_, r)| r.iter().any(|f| f.contains('\n')))
        {
            return Err(Error::invalid_body(format!(
                "line {line}: a quoted field is not closed"
            )));
        }
    }
    let mut columns = vec![Column::Time, Column::Value, Column::Quality];
    let mut named = false;
    if let Some((line, first)) = rows.first() {
        let starts_with_digit = first
            .get(0)
            .and_then(|f| f.bytes().next())
            .is_some_and(|b| b.is_ascii_digit());
        if !starts_with_digit {
            columns = header_columns(first, choice).map_err(at_line(*line))?;
            named = true;
            rows.remove(0);
        }
    }
    if !named && choice.names_any() {
        return Err(Error::invalid_parameter(format!(
            "{} and {} name columns of a header, and the file has none (its first line is \
             data)",
            choice.options.0, choice.options.1
        )));
    }
    Ok(Records {
        rows,
        columns,
        named,
        decimal_comma: delimiter == b';',
    })
}

/// Line numbers of byte offsets met in order. The `csv` crate places a record that follows blank
/// lines at the blank lines, so line breaks at an offset are skipped first.
struct LineCounter<'a> {
    bytes: &'a [u8],
    counted: usize,
    line: usize,
}

impl LineCounter<'_> {
    fn line_at(&mut self, mut at: usize) -> usize {
        while matches!(self.bytes.get(at), Some(b'\r' | b'\n')) {
            at += 1;
        }
        let at = at.max(self.counted).min(self.bytes.len());
        self.line += self.bytes[self.counted..at]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        self.counted = at;
        self.line
    }
}

/// The text of an error of the `csv` crate.
fn kind_text(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "a field is not UTF-8".into(),
        other => format!("{other:?}"),
    }
}

/// A CSV value: a finite number, else text; empty is null. In a `;` file a decimal comma
/// (`80,5`) is a number.
pub(super) fn csv_value(field: &str, decimal_comma: bool) -> PointValue {
    let trimmed = field.trim();
    if trimmed.is_empty() {
        return PointValue::Null;
    }
    let number = if decimal_comma && trimmed.matches(',').count() == 1 && !trimmed.contains('.') {
        trimmed.replace(',', ".").parse::<f64>()
    } else {
        trimmed.parse::<f64>()
    };
    match number {
        Ok(n) if n.is_finite() => PointValue::Num(n),
        _ => PointValue::Text(field.to_string()),
    }
}

/// The fields of one record by column, checking it has no more fields than columns.
pub(super) fn fields<'r>(
    columns: &[Column],
    record: &'r csv::StringRecord,
) -> Result<HashMap<Column, &'r str>> {
    if record.len() > columns.len() {
        return Err(Error::invalid_body(format!(
            "{} fields, expected at most {} ({})",
            record.len(),
            columns.len(),
            columns
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>()
                .join(",")
        )));
    }
    Ok(columns.iter().copied().zip(record.iter()).collect())
}

/// The status of a record from its quality, source and reliability fields.
pub(super) fn record_status(fields: &HashMap<Column, &str>) -> Result<Option<Status>> {
    let mut status = Map::new();
    for column in [Column::Quality, Column::Source, Column::Reliability] {
        if let Some(f) = fields.get(&column).filter(|f| !f.trim().is_empty()) {
            status.insert(column.name().into(), Value::String(f.trim().to_string()));
        }
    }
    if status.is_empty() {
        return Ok(None);
    }
    Status::from_json(&Value::Object(status))
}

/// The UTF-8 text of a body; a byte sequence that is not UTF-8 is refused naming its line.
pub fn text_of(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let line = 1 + bytes[..at].iter().filter(|b| **b == b'\n').count();
        Error::invalid_body(format!(
            "line {line}: the body is not UTF-8 text (byte {at}): send CSV in UTF-8"
        ))
    })
}
