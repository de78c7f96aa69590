//! `platform data import|get` on a database file, through the core.
//!
//! `import` reads a whole CSV or JSON file into observations first (with a progress bar on a
//! terminal), naming the line of the first bad one, and then writes them with one core call
//! (`Platform::save_series`), so a file is stored whole or not at all.
//!
//! ```text
//! csv  := [header] row*                 blank lines are skipped; fields follow RFC 4180 quoting
//! row  := time "," value ["," status]   status: a quality code (VALID, FAILED:info...) or empty
//! header names columns: time (or date, timestamp), value, status (or quality), source,
//!   reliability; an unknown name in the first two columns is the time or the value
//! json := [observation*] | {header fields..., "data": [observation*]}
//! ```
//!
//! A first row is a header when its first field does not start with a digit (no time does).
//! A value is a number when it reads as a finite number, else text; an empty value is null.

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use platform_core::auth::Principal;
use platform_core::data::calendar::{parse_time, Calendar};
use platform_core::data::model::{Point, PointValue, Status};
use platform_core::data::read::{DataId, DataQuery};
use platform_core::data::{series_settings, DataKind, DATA_SYSTEM_FIELDS, SERIES_TYPE};
use platform_core::documents::SaveOptions;
use platform_core::format::csv::data_to_csv;
use platform_core::ids::Source;
use platform_core::query::Params;
use platform_core::store::Collection;
use platform_core::{Error, ErrorCode, Platform, Result};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{IsTerminal as _, Read as _, Write as _};
use std::path::PathBuf;
use std::time::Duration;

use crate::local::Local;

#[derive(Subcommand)]
pub enum DataCommand {
    /// Load a CSV or JSON file into a time series, in one transaction.
    Import(ImportArgs),
    /// Print a data item: a series, a curve, a tenor's history or a curve's tenors.
    Get(GetArgs),
}

#[derive(Args)]
pub struct ImportArgs {
    #[command(flatten)]
    local: Local,
    /// The series, OBJECT:PROPERTY (the object is created if absent).
    series: String,
    /// A CSV file (time,value[,status]) or a JSON file ([{time,value,status}...] or
    /// {header..., "data": [...]}); '-' reads standard input.
    file: PathBuf,
    /// The series calendar (DAILY, BUSINESS, HOURLY, SPARSE...).
    #[arg(long)]
    calendar: Option<String>,
    /// The series time zone, in which times without an offset are read (default: the stored
    /// series' zone, else UTC).
    #[arg(long)]
    timezone: Option<String>,
    /// The series units.
    #[arg(long)]
    units: Option<String>,
    /// The series currency.
    #[arg(long)]
    currency: Option<String>,
    /// Replace the stored observations instead of merging into them.
    #[arg(long)]
    replace: bool,
    /// The reason stored with the new object version.
    #[arg(long)]
    reason: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Json,
    Csv,
}

#[derive(Args)]
pub struct GetArgs {
    #[command(flatten)]
    local: Local,
    /// The data id: OBJECT:PROPERTY, or OBJECT:PROPERTY:ONDATE for one curve.
    id: String,
    /// Which observations (`_range`): last(10), from(2024-01), between(2024-01,2024-03)...
    #[arg(long)]
    range: Option<String>,
    /// The history of one tenor of a curve (e.g. M1).
    #[arg(long)]
    tenor: Option<String>,
    /// List the relative tenors of a curve.
    #[arg(long)]
    list_tenors: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

pub fn run(cmd: DataCommand) -> Result<()> {
    match cmd {
        DataCommand::Import(args) => import(args),
        DataCommand::Get(args) => get(args),
    }
}

fn get(args: GetArgs) -> Result<()> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    if let Some(r) = &args.range {
        pairs.push(("_range", r));
    }
    if let Some(t) = &args.tenor {
        pairs.push(("tenor", t));
    }
    if args.list_tenors {
        pairs.push(("listTenors", ""));
    }
    let query = DataQuery::from_params(&Params::from_slice(&pairs))?;
    let object = args.id.split(':').next().unwrap_or_default();
    let (platform, who) = args.local.open()?;
    let item = platform.read_data(&who, Source::of_id(object), &args.id, &query)?;
    let text = match (args.format, &item) {
        (Format::Json, _) => serde_json::to_string_pretty(&item).unwrap_or_default() + "\n",
        // The tenors of a curve, one a line.
        (Format::Csv, Value::Array(tenors)) => tenors
            .iter()
            .map(|t| t.as_str().map_or_else(|| t.to_string(), str::to_string) + "\n")
            .collect(),
        // The server's rendering: a series (or a tenor's history) or a curve.
        (Format::Csv, one) => data_to_csv(one).unwrap_or_default(),
    };
    // A reader that stops early (`| head`) is not an error.
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Internal(format!(
            "cannot write to standard output: {e}"
        ))),
        _ => Ok(()),
    }
}

fn import(args: ImportArgs) -> Result<()> {
    let id = DataId::parse(&args.series)?;
    if id.ondate.is_some() {
        return Err(Error::invalid_parameter(format!(
            "\"{}\" names a curve: import writes time series, OBJECT:PROPERTY",
            args.series
        )));
    }
    let (platform, who) = args.local.open()?;
    let stored = stored_header(&platform, &who, &id)?;

    let text = read_input(&args.file)?;
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let json = matches!(body.trim_start().as_bytes().first(), Some(b'[' | b'{'));
    let (mut header, observations) = if json {
        let (header, obs) = json_file(body)?;
        (header, Observations::Json(obs))
    } else {
        (Map::new(), Observations::Csv)
    };
    for (field, flag) in [
        ("calendar", args.calendar),
        ("timezone", args.timezone),
        ("units", args.units),
        ("currency", args.currency),
    ] {
        if let Some(v) = flag {
            header.insert(field.into(), Value::String(v));
        }
    }
    // The settings the core will check against: the stored header with this one merged in.
    let mut merged = stored.unwrap_or_default();
    merged.extend(header.clone());
    let (calendar, tz, code) = series_settings(&id.prop, &merged)?;
    let reader = PointReader {
        calendar,
        tz,
        code: &code,
    };

    let bar = bar(body.len() as u64, "parsing");
    let points = match observations {
        Observations::Csv => reader.csv(body, &bar)?,
        Observations::Json(obs) => reader.json(body, &obs, &bar)?,
    };
    bar.finish_and_clear();

    let count = points.len();
    let saving = spinner(format!("saving {count} observations"));
    let opts = SaveOptions {
        replace: args.replace,
        reason: args.reason,
        source: None,
        ..SaveOptions::default()
    };
    let saved = platform.save_series(&who, &id.object, &id.prop, header, points, &opts);
    saving.finish_and_clear();
    let saved = saved?;
    eprintln!(
        "imported {count} observations into {}:{} (version {})",
        id.object,
        id.prop,
        saved.get("_version").unwrap_or(&Value::Null)
    );
    Ok(())
}

/// The header of the series as stored, if the object exists and holds it.
fn stored_header(
    platform: &Platform,
    who: &Principal,
    id: &DataId,
) -> Result<Option<Map<String, Value>>> {
    let object = match platform.get(
        who,
        Collection::Object,
        Source::of_id(&id.object),
        &id.object,
        None,
        None,
    ) {
        Ok(o) => o,
        Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(object
        .get(&id.prop)
        .filter(|h| DataKind::of(h) == Some(DataKind::Series))
        .and_then(Value::as_object)
        .cloned())
}

fn read_input(file: &PathBuf) -> Result<String> {
    let cannot = |e: std::io::Error| {
        Error::invalid_parameter(format!("cannot read {}: {e}", file.display()))
    };
    let mut text = String::new();
    if file.as_os_str() == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Error::invalid_parameter(format!("cannot read standard input: {e}")))?;
        return Ok(text);
    }
    let f = std::fs::File::open(file).map_err(cannot)?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = bar(len, "reading");
    bar.wrap_read(f).read_to_string(&mut text).map_err(cannot)?;
    bar.finish_and_clear();
    Ok(text)
}

/// A progress bar over the bytes of the input, drawn only on a terminal.
fn bar(len: u64, what: &'static str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), draw_target());
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:8} [{bar:40.cyan/blue}] {bytes}/{total_bytes} ({eta} left)",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(what);
    bar
}

fn spinner(message: String) -> ProgressBar {
    let s = ProgressBar::with_draw_target(None, draw_target());
    s.set_style(ProgressStyle::default_spinner());
    s.set_message(message);
    s.enable_steady_tick(Duration::from_millis(120));
    s
}

fn draw_target() -> ProgressDrawTarget {
    if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

enum Observations<'a> {
    Csv,
    Json(Vec<&'a RawValue>),
}

/// Splits a JSON file into its header fields and its observations (each still raw, so its
/// line can be named).
fn json_file(text: &str) -> Result<(Map<String, Value>, Vec<&RawValue>)> {
    let bad = |e: serde_json::Error| {
        Error::new(
            ErrorCode::InvalidJson,
            format!("the file is not valid JSON: {e}"),
        )
    };
    if text.trim_start().starts_with('[') {
        return Ok((Map::new(), serde_json::from_str(text).map_err(bad)?));
    }
    let fields: HashMap<String, &RawValue> = serde_json::from_str(text).map_err(bad)?;
    // Keep the header fields in the file's order.
    let mut fields: Vec<(String, &RawValue)> = fields.into_iter().collect();
    fields.sort_by_key(|(_, raw)| offset(text, raw));
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
        let value: Value = serde_json::from_str(raw.get()).map_err(bad)?;
        match name.as_str() {
            "_type" if value != SERIES_TYPE => {
                return Err(Error::invalid_body(format!(
                    "the file holds a {value}: import writes time series ({SERIES_TYPE})"
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
fn offset(text: &str, raw: &RawValue) -> usize {
    (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
}

/// Prefixes an error with the line it comes from.
fn at_line(line: usize) -> impl Fn(Error) -> Error {
    move |e| match e {
        Error::User { code, message } => Error::new(code, format!("line {line}: {message}")),
        other => other,
    }
}

/// How often the progress bar moves (in observations).
const TICK: usize = 4096;

/// Turns observation texts into points, in the series' time zone and on its calendar.
struct PointReader<'a> {
    calendar: Calendar,
    tz: chrono_tz::Tz,
    code: &'a str,
}

/// The columns of a CSV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Time,
    Value,
    Quality,
    Source,
    Reliability,
}

impl PointReader<'_> {
    fn point(&self, time: &str, v: PointValue, status: Option<Status>) -> Result<Point> {
        let time = time.trim();
        if time.is_empty() {
            return Err(Error::new(ErrorCode::MissingParameter, "the time is empty"));
        }
        let t = parse_time(time, self.tz)?;
        self.calendar.check(t, self.tz, self.code)?;
        Ok(Point {
            t,
            v,
            status: status.map(Box::new),
        })
    }

    fn json(&self, text: &str, items: &[&RawValue], bar: &ProgressBar) -> Result<Vec<Point>> {
        let mut points = Vec::with_capacity(items.len());
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
            let obs: Value = serde_json::from_str(raw.get())
                .map_err(|e| Error::new(ErrorCode::InvalidJson, format!("line {line}: {e}")))?;
            points.push(self.json_point(&obs).map_err(at_line(line))?);
        }
        Ok(points)
    }

    fn json_point(&self, obs: &Value) -> Result<Point> {
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

    fn csv(&self, text: &str, bar: &ProgressBar) -> Result<Vec<Point>> {
        let mut reader = CsvReader::new(text);
        let mut points = Vec::with_capacity(text.len() / 24);
        let mut columns = vec![Column::Time, Column::Value, Column::Quality];
        let mut first = true;
        while let Some((line, fields)) = reader.record()? {
            let at = at_line(line);
            if first {
                first = false;
                let starts_with_digit = fields
                    .first()
                    .and_then(|f| f.trim().bytes().next())
                    .is_some_and(|b| b.is_ascii_digit());
                if !starts_with_digit {
                    columns = header_columns(&fields).map_err(&at)?;
                    continue;
                }
            }
            if points.len() % TICK == 0 {
                bar.set_position(reader.pos as u64);
            }
            if fields.len() > columns.len() {
                return Err(at(Error::invalid_body(format!(
                    "{} fields, expected at most {} ({})",
                    fields.len(),
                    columns.len(),
                    columns
                        .iter()
                        .map(|c| format!("{c:?}").to_ascii_lowercase())
                        .collect::<Vec<_>>()
                        .join(",")
                ))));
            }
            let mut time = "";
            let mut v = PointValue::Null;
            let mut status = Map::new();
            for (column, field) in columns.iter().zip(&fields) {
                let field = field.as_ref();
                match column {
                    Column::Time => time = field,
                    Column::Value => v = csv_value(field),
                    other => {
                        if !field.trim().is_empty() {
                            let name = format!("{other:?}").to_ascii_lowercase();
                            status.insert(name, Value::String(field.trim().to_string()));
                        }
                    }
                }
            }
            let status = if status.is_empty() {
                None
            } else {
                Status::from_json(&Value::Object(status)).map_err(&at)?
            };
            points.push(self.point(time, v, status).map_err(&at)?);
        }
        Ok(points)
    }
}

/// A CSV value: a finite number, else text; empty is null.
fn csv_value(field: &str) -> PointValue {
    let trimmed = field.trim();
    if trimmed.is_empty() {
        return PointValue::Null;
    }
    match trimmed.parse::<f64>() {
        Ok(n) if n.is_finite() => PointValue::Num(n),
        _ => PointValue::Text(field.to_string()),
    }
}

/// The columns named by a header row.
fn header_columns(names: &[Cow<'_, str>]) -> Result<Vec<Column>> {
    let mut columns = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let lower = name.trim().to_ascii_lowercase();
        let column = match (lower.as_str(), i) {
            ("time" | "date" | "timestamp", _) => Column::Time,
            ("value", _) => Column::Value,
            ("status" | "quality", _) => Column::Quality,
            ("source", _) => Column::Source,
            ("reliability", _) => Column::Reliability,
            (_, 0) => Column::Time,
            (_, 1) => Column::Value,
            _ => {
                return Err(Error::invalid_body(format!(
                    "unknown column \"{name}\": use time, value, status (or quality), source, reliability"
                )))
            }
        };
        if columns.contains(&column) {
            return Err(Error::invalid_body(format!(
                "column \"{name}\" repeats the {} column",
                format!("{column:?}").to_ascii_lowercase()
            )));
        }
        columns.push(column);
    }
    for needed in [Column::Time, Column::Value] {
        if !columns.contains(&needed) {
            return Err(Error::invalid_body(format!(
                "the header has no {} column",
                format!("{needed:?}").to_ascii_lowercase()
            )));
        }
    }
    Ok(columns)
}

/// Records of a CSV text (RFC 4180 quoting, LF or CRLF line ends, blank lines skipped), each
/// with the line it starts on. Unquoted fields are trimmed.
struct CsvReader<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> CsvReader<'a> {
    fn new(text: &'a str) -> Self {
        CsvReader {
            text,
            pos: 0,
            line: 1,
        }
    }

    /// The next record and its line.
    fn record(&mut self) -> Result<Option<(usize, Vec<Cow<'a, str>>)>> {
        let bytes = self.text.as_bytes();
        // Blank lines.
        loop {
            let rest = &bytes[self.pos..];
            let end = rest.iter().position(|b| *b == b'\n');
            let line = &rest[..end.unwrap_or(rest.len())];
            if !line.iter().all(u8::is_ascii_whitespace) {
                break;
            }
            match end {
                Some(n) => {
                    self.pos += n + 1;
                    self.line += 1;
                }
                None => return Ok(None),
            }
        }
        let start_line = self.line;
        let mut fields = Vec::with_capacity(3);
        loop {
            let quoted_start = self.text[self.pos..]
                .find(|c: char| c != ' ' && c != '\t')
                .map(|n| self.pos + n)
                .filter(|i| bytes[*i] == b'"');
            if let Some(open) = quoted_start {
                let mut value = String::new();
                self.pos = open + 1;
                loop {
                    let Some(close) = self.text[self.pos..].find('"').map(|n| self.pos + n) else {
                        return Err(Error::invalid_body(format!(
                            "line {start_line}: a quoted field is not closed"
                        )));
                    };
                    let part = &self.text[self.pos..close];
                    self.line += part.bytes().filter(|b| *b == b'\n').count();
                    value.push_str(part);
                    self.pos = close + 1;
                    if bytes.get(self.pos) == Some(&b'"') {
                        value.push('"');
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                while matches!(bytes.get(self.pos), Some(b' ' | b'\t')) {
                    self.pos += 1;
                }
                fields.push(Cow::Owned(value));
            } else {
                let end = self.text[self.pos..]
                    .find([',', '\n'])
                    .map_or(self.text.len(), |n| self.pos + n);
                fields.push(Cow::Borrowed(self.text[self.pos..end].trim()));
                self.pos = end;
            }
            match bytes.get(self.pos) {
                None => break,
                Some(b',') => self.pos += 1,
                Some(b'\n') => {
                    self.pos += 1;
                    self.line += 1;
                    break;
                }
                Some(b'\r') if bytes.get(self.pos + 1) == Some(&b'\n') => {
                    self.pos += 2;
                    self.line += 1;
                    break;
                }
                Some(_) => {
                    return Err(Error::invalid_body(format!(
                        "line {}: text after a quoted field",
                        self.line
                    )))
                }
            }
        }
        Ok(Some((start_line, fields)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str) -> Vec<(usize, Vec<String>)> {
        let mut r = CsvReader::new(text);
        let mut out = Vec::new();
        while let Some((line, fields)) = r.record().unwrap() {
            out.push((line, fields.into_iter().map(Cow::into_owned).collect()));
        }
        out
    }

    #[test]
    fn csv_records_quotes_and_lines() {
        let text = "time,value\r\n\n2024-01-01, 1.5 ,VALID\n\"2024-01-02\",\"a, \"\"b\"\"\nc\"\n2024-01-03,";
        assert_eq!(
            records(text),
            vec![
                (1, vec!["time".into(), "value".into()]),
                (3, vec!["2024-01-01".into(), "1.5".into(), "VALID".into()]),
                (4, vec!["2024-01-02".into(), "a, \"b\"\nc".into()]),
                (6, vec!["2024-01-03".into(), String::new()]),
            ]
        );
        assert!(CsvReader::new("a,\"b").record().is_err());
        assert!(CsvReader::new("a,\"b\"x").record().is_err());
    }

    #[test]
    fn csv_values() {
        assert_eq!(csv_value(" 2.5"), PointValue::Num(2.5));
        assert_eq!(csv_value("-1e3"), PointValue::Num(-1000.0));
        assert_eq!(csv_value("NaN"), PointValue::Text("NaN".into()));
        assert_eq!(csv_value("n/a"), PointValue::Text("n/a".into()));
        assert_eq!(csv_value(""), PointValue::Null);
    }

    #[test]
    fn header_names_columns() {
        fn names(s: &str) -> Vec<Cow<'_, str>> {
            s.split(',').map(Cow::Borrowed).collect()
        }
        assert_eq!(
            header_columns(&names("Date,Price")).unwrap(),
            vec![Column::Time, Column::Value]
        );
        assert_eq!(
            header_columns(&names("value,time,quality,source,reliability")).unwrap(),
            vec![
                Column::Value,
                Column::Time,
                Column::Quality,
                Column::Source,
                Column::Reliability
            ]
        );
        assert!(header_columns(&names("time,value,price")).is_err());
        assert!(header_columns(&names("time,time")).is_err());
        assert!(header_columns(&names("time,status")).is_err());
    }

    #[test]
    fn json_observations_know_their_lines() {
        let text = "{\"units\": \"MW\",\n \"data\": [\n  {\"time\": \"2024-01-01\", \"value\": 1},\n  {\"time\": \"bad\"}\n]}";
        let (header, obs) = json_file(text).unwrap();
        assert_eq!(header.get("units"), Some(&Value::String("MW".into())));
        let reader = PointReader {
            calendar: Calendar::Sparse,
            tz: chrono_tz::Tz::UTC,
            code: "SPARSE",
        };
        let err = reader.json(text, &obs, &ProgressBar::hidden()).unwrap_err();
        assert!(err.to_string().starts_with("line 4: "), "{err}");
    }
}
