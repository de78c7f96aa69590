//! Reading import files: CSV records (the `csv` crate) with their line numbers and columns, JSON
//! observations, and the points and curves they hold (see the grammar in the parent module).

use indicatif::ProgressBar;
use platform_core::data::calendar::Calendar;
use platform_core::data::curve;
use platform_core::data::model::{Point, PointValue, Status};
use platform_core::data::series::OnDuplicate;
use platform_core::data::timetext::TimeReader;
use platform_core::data::{DATA_SYSTEM_FIELDS, SERIES_TYPE};
use platform_core::query::period;
use platform_core::{Error, ErrorCode, Result};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Splits a JSON file into its header fields and its observations (each still raw, so its
/// line can be named).
pub(super) fn json_file(text: &str) -> Result<(Map<String, Value>, Vec<&RawValue>)> {
    let bad = |e: serde_json::Error| {
        Error::new(
            ErrorCode::InvalidBody,
            format!("the file is not valid JSON: {e}"),
        )
    };
    if text.trim_start().starts_with('[') {
        return Ok((Map::new(), serde_json::from_str(text).map_err(bad)?));
    }
    // The header fields in the file's order; a field given twice is refused.
    let fields = raw_fields(text).map_err(bad)?;
    let mut header = Map::new();
    let mut data = None;
    for (name, raw) in fields {
        if name == "data" {
            data = Some(
                serde_json::from_str::<Vec<&RawValue>>(raw.get()).map_err(|e| {
                    Error::invalid_body(format!(
                        "line {}: data must be an array of observations ({e})",
                        line_of(text, offset(text, raw))
                    ))
                })?,
            );
            continue;
        }
        let value: Value = platform_core::json::from_str(raw.get()).map_err(bad)?;
        match name.as_str() {
            "_type" if value != SERIES_TYPE => {
                return Err(Error::invalid_body(format!(
                    "the file holds a {value}: JSON files hold time series ({SERIES_TYPE}); \
                     curves import from CSV files of ondate,tenor,value"
                )))
            }
            "_type" => {}
            "_access" if value.is_null() => {}
            n if DATA_SYSTEM_FIELDS.contains(&n) => {}
            _ => {
                header.insert(name, value);
            }
        }
    }
    let data = data.ok_or_else(|| {
        Error::new(
            ErrorCode::MissingParameter,
            "the JSON object has no \"data\" array of observations",
        )
    })?;
    Ok((header, data))
}

/// Where a raw JSON value starts in the text it was read from.
pub(super) fn offset(text: &str, raw: &RawValue) -> usize {
    (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
}

/// Prefixes an error with the line it comes from.
pub(super) fn at_line(line: usize) -> impl Fn(Error) -> Error {
    move |e| match e {
        Error::User { code, message } => Error::new(code, format!("line {line}: {message}")),
        other => other,
    }
}

/// How often the progress bar moves (in records).
const TICK: usize = 4096;

/// The columns of a CSV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Column {
    Time,
    Value,
    Quality,
    Source,
    Reliability,
    Ondate,
    Tenor,
    SettlementDate,
    SettlementPeriod,
}

impl Column {
    fn name(self) -> &'static str {
        match self {
            Column::Time => "time",
            Column::Value => "value",
            Column::Quality => "quality",
            Column::Source => "source",
            Column::Reliability => "reliability",
            Column::Ondate => "ondate",
            Column::Tenor => "tenor",
            Column::SettlementDate => "settlementDate",
            Column::SettlementPeriod => "settlementPeriod",
        }
    }
}

/// The records of a CSV file, each with the line it starts on, and its columns.
pub(super) struct Records {
    rows: Vec<(usize, csv::StringRecord)>,
    pub columns: Vec<Column>,
    /// Whether a header named the columns.
    pub named: bool,
    /// Whether `80,5` is a number (a `;` file).
    decimal_comma: bool,
}

/// The separator a CSV text uses: `,`, `;` or tab, whichever its first line holds most outside
/// quotes (tab, then `;` on a tie: they are chosen where commas are data).
fn detect_delimiter(text: &str) -> u8 {
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
/// blank lines, and names its columns from a header row if it has one.
pub(super) fn csv_records(text: &str, delimiter: Option<u8>, bar: &ProgressBar) -> Result<Records> {
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
                    e.kind_text()
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
            bar.set_position(at as u64);
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
            columns = header_columns(first).map_err(at_line(*line))?;
            named = true;
            rows.remove(0);
        }
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

/// The text of an error kind of the `csv` crate.
trait KindText {
    fn kind_text(&self) -> String;
}

impl KindText for csv::Error {
    fn kind_text(&self) -> String {
        match self.kind() {
            csv::ErrorKind::Utf8 { .. } => "a field is not UTF-8".into(),
            other => format!("{other:?}"),
        }
    }
}

/// A CSV value: a finite number, else text; empty is null. In a `;` file a decimal comma
/// (`80,5`) is a number.
fn csv_value(field: &str, decimal_comma: bool) -> PointValue {
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

/// The columns named by a header row.
fn header_columns(names: &csv::StringRecord) -> Result<Vec<Column>> {
    let curve = names.iter().any(|n| n.trim().eq_ignore_ascii_case("tenor"));
    let mut columns = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let lower = name.trim().to_ascii_lowercase();
        let column = match (lower.as_str(), i, curve) {
            ("time" | "date" | "timestamp", _, false) => Column::Time,
            ("settlementdate", _, false) => Column::SettlementDate,
            ("settlementperiod", _, false) => Column::SettlementPeriod,
            ("ondate" | "curvedate", _, true) => Column::Ondate,
            ("tenor", _, true) => Column::Tenor,
            ("value", _, _) => Column::Value,
            ("status" | "quality", _, _) => Column::Quality,
            ("source", _, _) => Column::Source,
            ("reliability", _, _) => Column::Reliability,
            (_, 0, false) => Column::Time,
            (_, 1, false) => Column::Value,
            _ => {
                return Err(Error::invalid_body(format!(
                    "unknown column \"{name}\": use {}",
                    if curve {
                        "ondate, tenor, value, status (or quality), source, reliability"
                    } else {
                        "time (or settlementDate and settlementPeriod), value, status (or quality), \
                         source, reliability"
                    }
                )))
            }
        };
        if columns.contains(&column) {
            return Err(Error::invalid_body(format!(
                "column \"{name}\" repeats the {} column",
                column.name()
            )));
        }
        columns.push(column);
    }
    let settlement = [Column::SettlementDate, Column::SettlementPeriod];
    if settlement.iter().any(|c| columns.contains(c)) && columns.contains(&Column::Time) {
        return Err(Error::invalid_body(
            "a settlement file keys its rows by settlementDate and settlementPeriod: drop the \
             time column",
        ));
    }
    let needed: &[Column] = if curve {
        &[Column::Ondate, Column::Tenor, Column::Value]
    } else if settlement.iter().any(|c| columns.contains(c)) {
        &[
            Column::SettlementDate,
            Column::SettlementPeriod,
            Column::Value,
        ]
    } else {
        &[Column::Time, Column::Value]
    };
    for needed in needed {
        if !columns.contains(needed) {
            return Err(Error::invalid_body(format!(
                "the header has no {} column",
                needed.name()
            )));
        }
    }
    Ok(columns)
}

/// The fields of one record by column, checking it has no more fields than columns.
fn fields<'r>(
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
fn record_status(fields: &HashMap<Column, &str>) -> Result<Option<Status>> {
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

/// Turns observation texts into points, in the series' time zone and on its calendar.
pub(super) struct PointReader<'a> {
    calendar: Calendar,
    tz: chrono_tz::Tz,
    code: &'a str,
    times: TimeReader,
}

impl<'a> PointReader<'a> {
    /// A reader of one file's times on a calendar, in a time zone.
    pub fn new(calendar: Calendar, tz: chrono_tz::Tz, code: &'a str) -> Self {
        PointReader {
            calendar,
            tz,
            code,
            times: TimeReader::new(tz),
        }
    }
}

impl PointReader<'_> {
    fn point(&mut self, time: &str, v: PointValue, status: Option<Status>) -> Result<Point> {
        let time = time.trim();
        if time.is_empty() {
            return Err(Error::new(ErrorCode::MissingParameter, "the time is empty"));
        }
        let t = self.times.read(time)?;
        self.calendar.check(t, self.tz, self.code)?;
        Ok(Point {
            t,
            v,
            status: status.map(Box::new),
        })
    }

    /// The point of a settlement-keyed row: its settlement date and period become the period's
    /// start, on a HALFHOURLY series only.
    fn settlement_point(
        &self,
        date: &str,
        fields: &HashMap<Column, &str>,
        v: PointValue,
        status: Option<Status>,
    ) -> Result<Point> {
        use platform_core::data::settlement;
        if self.calendar != Calendar::Intraday(1800) {
            return Err(Error::invalid_body(format!(
                "settlementDate and settlementPeriod key half-hours: the series' calendar is {}, \
                 not HALFHOURLY",
                self.code
            )));
        }
        let date = settlement::parse_date(date)?;
        let period = fields
            .get(&Column::SettlementPeriod)
            .copied()
            .unwrap_or_default();
        let t = settlement::start(date, settlement::parse_period(period)?)?;
        Ok(Point {
            t,
            v,
            status: status.map(Box::new),
        })
    }

    /// The observations of a JSON file and the line of each.
    pub fn json(
        &mut self,
        text: &str,
        items: &[&RawValue],
        bar: &ProgressBar,
    ) -> Result<(Vec<Point>, Vec<usize>)> {
        let mut points = Vec::with_capacity(items.len());
        let mut lines = Vec::with_capacity(items.len());
        let (mut line, mut counted) = (1, 0);
        for (i, raw) in items.iter().enumerate() {
            let at = offset(text, raw);
            line += text.as_bytes()[counted..at]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            counted = at;
            if i % TICK == 0 {
                bar.set_position(at as u64);
            }
            let obs: Value = platform_core::json::from_str(raw.get())
                .map_err(|e| Error::new(ErrorCode::InvalidBody, format!("line {line}: {e}")))?;
            points.push(self.json_point(&obs).map_err(at_line(line))?);
            lines.push(line);
        }
        Ok((points, lines))
    }

    fn json_point(&mut self, obs: &Value) -> Result<Point> {
        let Value::Object(obs) = obs else {
            return Err(Error::invalid_body(
                "an observation must be an object {time, value, status}",
            ));
        };
        let time = match obs.get("time") {
            Some(Value::String(t)) => t,
            Some(_) => return Err(Error::invalid_body("time must be a string")),
            None => return Err(Error::new(ErrorCode::MissingParameter, "time is missing")),
        };
        let v = PointValue::from_json(obs.get("value").unwrap_or(&Value::Null))?;
        let status = Status::from_json(obs.get("status").unwrap_or(&Value::Null))?;
        self.point(time, v, status)
    }

    /// The observations of a CSV file and the line of each.
    pub fn csv(
        &mut self,
        records: &Records,
        bar: &ProgressBar,
    ) -> Result<(Vec<Point>, Vec<usize>)> {
        let mut points = Vec::with_capacity(records.rows.len());
        let mut lines = Vec::with_capacity(records.rows.len());
        for (i, (line, record)) in records.rows.iter().enumerate() {
            if i % TICK == 0 {
                bar.tick();
            }
            let at = at_line(*line);
            let fields = fields(&records.columns, record).map_err(&at)?;
            let v = csv_value(
                fields.get(&Column::Value).copied().unwrap_or_default(),
                records.decimal_comma,
            );
            let status = record_status(&fields).map_err(&at)?;
            let point = match fields.get(&Column::SettlementDate) {
                Some(date) => self.settlement_point(date, &fields, v, status),
                None => {
                    let time = fields.get(&Column::Time).copied().unwrap_or_default();
                    self.point(time, v, status)
                }
            };
            points.push(point.map_err(&at)?);
            lines.push(*line);
        }
        Ok((points, lines))
    }
}

/// The curves of a file: contracts by ondate, in file order.
#[derive(Debug)]
pub(super) struct CurveRows {
    pub curves: Vec<(String, Vec<Value>)>,
    /// Contracts the file held twice, left out by `--on-duplicate`.
    pub dropped: usize,
}

/// Reads the records of a curve file into contracts by ondate, checking each ondate and tenor
/// on its line; an (ondate, tenor) held twice is refused or resolved by `policy`.
pub(super) fn curve_rows(records: &Records, prop: &str, policy: OnDuplicate) -> Result<CurveRows> {
    let columns = if records.named {
        records.columns.clone()
    } else {
        vec![
            Column::Ondate,
            Column::Tenor,
            Column::Value,
            Column::Quality,
            Column::Source,
            Column::Reliability,
        ]
    };
    let mut curves: Vec<(String, Vec<Value>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    // (ondate, tenor) -> (curve, contract, line)
    let mut seen: HashMap<(String, String), (usize, usize, usize)> = HashMap::new();
    let mut dropped = 0;
    for (line, record) in &records.rows {
        let at = at_line(*line);
        let fields = fields(&columns, record).map_err(&at)?;
        let ondate_text = fields.get(&Column::Ondate).copied().unwrap_or_default();
        let (ondate, _) = curve::parse_ondate(prop, Some(&json!(ondate_text))).map_err(&at)?;
        let tenor = fields.get(&Column::Tenor).copied().unwrap_or_default();
        period::parse(tenor)
            .and_then(|p| p.resolve(ondate))
            .map_err(|e| at(Error::invalid_parameter(format!("{prop}: {e}"))))?;
        let value = csv_value(
            fields.get(&Column::Value).copied().unwrap_or_default(),
            records.decimal_comma,
        );
        let mut contract = Map::new();
        contract.insert("tenor".into(), Value::String(tenor.to_string()));
        contract.insert("value".into(), value.to_json());
        if let Some(status) = record_status(&fields).map_err(&at)? {
            contract.insert("status".into(), status.to_json());
        }
        let ondate = ondate.format("%Y-%m-%d").to_string();
        let curve = *index.entry(ondate.clone()).or_insert_with(|| {
            curves.push((ondate.clone(), Vec::new()));
            curves.len() - 1
        });
        let key = (ondate.clone(), tenor.to_ascii_uppercase());
        match (seen.get(&key).copied(), policy) {
            (Some((_, _, first)), OnDuplicate::Reject) => {
                return Err(Error::invalid_body(format!(
                    "lines {first} and {line} are both tenor {tenor} of ondate {ondate}: send \
                     each contract once (or keep one with --on-duplicate first|last); nothing \
                     was stored"
                )))
            }
            (Some(_), OnDuplicate::First) => dropped += 1,
            (Some((c, i, _)), OnDuplicate::Last) => {
                curves[c].1[i] = Value::Object(contract);
                dropped += 1;
            }
            (None, _) => {
                seen.insert(key, (curve, curves[curve].1.len(), *line));
                curves[curve].1.push(Value::Object(contract));
            }
        }
    }
    if curves.is_empty() {
        return Err(Error::invalid_body("the file holds no contracts"));
    }
    Ok(CurveRows { curves, dropped })
}

/// The fields of a JSON object as raw text, in order; a field given twice is an error.
fn raw_fields(text: &str) -> serde_json::Result<Vec<(String, &RawValue)>> {
    use serde::de::{Deserializer as _, Error as _, MapAccess, Visitor};
    struct Fields;
    impl<'de> Visitor<'de> for Fields {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
            let mut out: Vec<(String, &'de RawValue)> = Vec::new();
            while let Some(key) = access.next_key::<String>()? {
                if out.iter().any(|(k, _)| *k == key) {
                    return Err(A::Error::custom(format!(
                        "the key \"{key}\" is given twice in one object"
                    )));
                }
                out.push((key, access.next_value()?));
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = (&mut de).deserialize_map(Fields)?;
    de.end()?;
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn records(text: &str) -> Records {
        csv_records(text, None, &ProgressBar::hidden()).unwrap()
    }

    fn fields_of(r: &Records) -> Vec<(usize, Vec<String>)> {
        r.rows
            .iter()
            .map(|(line, rec)| (*line, rec.iter().map(str::to_string).collect()))
            .collect()
    }

    #[test]
    fn csv_records_quotes_lines_and_headers() {
        let r = records(
            "time,value\r\n\n2024-01-01, 1.5 ,VALID\n\"2024-01-02\",\"a, \"\"b\"\"\nc\"\n2024-01-03,",
        );
        assert!(r.named);
        assert_eq!(r.columns, vec![Column::Time, Column::Value]);
        assert_eq!(
            fields_of(&r),
            vec![
                (3, vec!["2024-01-01".into(), "1.5".into(), "VALID".into()]),
                (4, vec!["2024-01-02".into(), "a, \"b\"\nc".into()]),
                (6, vec!["2024-01-03".into(), String::new()]),
            ]
        );
        let r = records("2024-01-01,1\n");
        assert!(!r.named);
        assert_eq!(r.columns[..2], [Column::Time, Column::Value]);
        let err = csv_records(
            "time,value\n2024-01-01,\"1\n2024-01-02,2\n",
            None,
            &ProgressBar::hidden(),
        )
        .err()
        .expect("an unclosed quote");
        assert_eq!(err.to_string(), "line 2: a quoted field is not closed");
    }

    #[test]
    fn the_delimiter_is_the_one_the_first_line_holds_most() {
        assert_eq!(detect_delimiter("time,value\n"), b',');
        assert_eq!(detect_delimiter("\n\ntime;value;status\n"), b';');
        assert_eq!(detect_delimiter("time\tvalue\n"), b'\t');
        assert_eq!(detect_delimiter("2024-01-01;80,5\n"), b';');
        assert_eq!(detect_delimiter("2024-01-01\t80,5\n"), b'\t');
        assert_eq!(detect_delimiter("\"a;b\",c\n"), b',');
        assert_eq!(detect_delimiter("2024-01-01\n"), b',');
        let r = records("time;value\n2024-01-01;80,5\n2024-01-02;\"7\"\n");
        assert_eq!(
            fields_of(&r),
            vec![
                (2, vec!["2024-01-01".into(), "80,5".into()]),
                (3, vec!["2024-01-02".into(), "7".into()])
            ]
        );
        assert!(r.decimal_comma);
    }

    #[test]
    fn csv_values() {
        assert_eq!(csv_value(" 2.5", false), PointValue::Num(2.5));
        assert_eq!(csv_value("-1e3", false), PointValue::Num(-1000.0));
        assert_eq!(csv_value("NaN", false), PointValue::Text("NaN".into()));
        assert_eq!(csv_value("n/a", false), PointValue::Text("n/a".into()));
        assert_eq!(csv_value("", false), PointValue::Null);
        assert_eq!(csv_value("80,5", true), PointValue::Num(80.5));
        assert_eq!(csv_value("80,5", false), PointValue::Text("80,5".into()));
        assert_eq!(
            csv_value("1,234.5", true),
            PointValue::Text("1,234.5".into())
        );
    }

    fn header(s: &str) -> csv::StringRecord {
        csv::StringRecord::from(s.split(',').collect::<Vec<_>>())
    }

    #[test]
    fn header_names_columns() {
        assert_eq!(
            header_columns(&header("Date,Price")).unwrap(),
            vec![Column::Time, Column::Value]
        );
        assert_eq!(
            header_columns(&header("value,time,quality,source,reliability")).unwrap(),
            vec![
                Column::Value,
                Column::Time,
                Column::Quality,
                Column::Source,
                Column::Reliability
            ]
        );
        assert_eq!(
            header_columns(&header("ondate,Tenor,value")).unwrap(),
            vec![Column::Ondate, Column::Tenor, Column::Value]
        );
        assert!(header_columns(&header("time,value,price")).is_err());
        assert!(header_columns(&header("time,time")).is_err());
        assert!(header_columns(&header("time,status")).is_err());
        assert!(header_columns(&header("tenor,value")).is_err());
        assert!(header_columns(&header("ondate,tenor,value,price")).is_err());
    }

    #[test]
    fn json_observations_know_their_lines() {
        let text = "{\"units\": \"MW\",\n \"data\": [\n  {\"time\": \"2024-01-01\", \"value\": 1},\n  {\"time\": \"bad\"}\n]}";
        let (header, obs) = json_file(text).unwrap();
        assert_eq!(header.get("units"), Some(&Value::String("MW".into())));
        let mut reader = PointReader::new(Calendar::Sparse, chrono_tz::Tz::UTC, "SPARSE");
        let err = reader.json(text, &obs, &ProgressBar::hidden()).unwrap_err();
        assert!(err.to_string().starts_with("line 4: "), "{err}");
    }

    #[test]
    fn curve_rows_group_by_ondate_and_name_repeats() {
        let r = records(
            "ondate,tenor,value\n2024-03-01,M01,30\n2024-03-01,Q01,32\n2024-03-04,M01,31\n",
        );
        let rows = curve_rows(&r, "FWD", OnDuplicate::Reject).unwrap();
        assert_eq!(rows.curves.len(), 2);
        assert_eq!(rows.curves[0].0, "2024-03-01");
        assert_eq!(rows.curves[0].1.len(), 2);
        assert_eq!(rows.curves[1].1[0]["value"], 31.0);
        let r = records("ondate,tenor,value\n2024-03-01,M01,30\n2024-03-01,m01,33\n");
        let err = curve_rows(&r, "FWD", OnDuplicate::Reject).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("lines 2 and 3 are both tenor m01"),
            "{err}"
        );
        let last = curve_rows(&r, "FWD", OnDuplicate::Last).unwrap();
        assert_eq!(
            (last.curves[0].1[0]["value"].clone(), last.dropped),
            (json!(33.0), 1)
        );
        let first = curve_rows(&r, "FWD", OnDuplicate::First).unwrap();
        assert_eq!(first.curves[0].1[0]["value"], 30.0);
        let r = records("ondate,tenor,value\n2024-03-01,M01,30\n2024-03-01,X9,1\n");
        let err = curve_rows(&r, "FWD", OnDuplicate::Reject).unwrap_err();
        assert!(err.to_string().starts_with("line 3: "), "{err}");
        let r = records("ondate,tenor,value\n01/03/2024,M01,30\n");
        let err = curve_rows(&r, "FWD", OnDuplicate::Reject).unwrap_err();
        assert!(err.to_string().contains("01/03/2024"), "{err}");
    }
}
