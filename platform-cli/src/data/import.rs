//! `platform data import`: a file into a time series or curves. It reads the whole file first
//! (with a progress bar on a terminal) with the core's import reader
//! (`platform_core::api::import`, whose module doc holds the grammar of CSV
//! and JSON files: the same reader serves the REST CSV import), naming the line of the first bad
//! observation, and then writes it with one call (`Platform::save_series` or `save_curves`, or
//! one `POST object/v1`), so a file is stored whole or not at all. A time (or an ondate and
//! tenor) the file holds twice is refused with both line numbers unless `--on-duplicate
//! first|last` says which to keep.

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use platform_core::api::data::DataId;
use platform_core::api::data::DataKind;
use platform_core::api::import::series_settings;
use platform_core::api::import::Observation;
use platform_core::api::import::{check_values, Sent, Stored, ValueRule};
use platform_core::api::import::{
    csv_records_choosing, curve_rows, json_curve_file, json_file, ColumnChoice, PointReader,
    Progress, Records,
};
use platform_core::api::import::{sort_payload, OnDuplicate, PayloadNames};
use platform_core::api::time::format_time;
use platform_core::{Error, ErrorCode, Result};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::io::{IsTerminal as _, Read as _};
use std::path::PathBuf;
use std::time::Duration;

use super::calls::{ReadData, SaveCurves, SaveSeries, Saving};
use crate::object::GetObject;
use crate::target::{Target, TargetArgs};

/// Which of the observations a file holds twice to keep.
#[derive(Clone, Copy, ValueEnum)]
enum Duplicates {
    /// Refuse the file, naming both lines.
    Reject,
    /// Keep the first in file order.
    First,
    /// Keep the last in file order.
    Last,
}

#[derive(Args)]
pub struct ImportArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// The data item, OBJECT:PROPERTY (the object is created if absent).
    series: String,
    /// A CSV file (time,value[,status] for a series, ondate,tenor,value[,status] for a curve)
    /// or a JSON file of a series ([{time,value,status}...] or {header..., "data": [...]}) or
    /// of a curve ({"_type": "VarCurve", header..., "ondate": ..., "contracts": [...]}, or
    /// "curves": [{ondate, contracts}...]); '-' reads standard input.
    // The help text above is clap's, shown as written: its brackets are not rustdoc links.
    #[allow(rustdoc::broken_intra_doc_links)]
    file: PathBuf,
    /// The series calendar (DAILY, BUSINESS, HOURLY, SPARSE...).
    #[arg(long)]
    calendar: Option<String>,
    /// The series time zone, in which times without an offset are read (default: the stored
    /// series' zone, else UTC).
    #[arg(long)]
    timezone: Option<String>,
    /// The units.
    #[arg(long)]
    units: Option<String>,
    /// The currency.
    #[arg(long)]
    currency: Option<String>,
    /// Replace the stored observations of the series instead of merging into them (the
    /// object's other fields and data stay).
    #[arg(long)]
    replace: bool,
    /// The reason stored with the new object version.
    #[arg(long)]
    reason: Option<String>,
    /// A time (or a curve's ondate and tenor) the file holds twice: refuse the file, or keep
    /// the first or the last in file order.
    #[arg(long, value_enum, default_value = "reject")]
    on_duplicate: Duplicates,
    /// The field separator of a CSV file: ',', ';' or 'tab' (default: the one the first line
    /// holds most).
    #[arg(long, value_parser = parse_delimiter)]
    delimiter: Option<u8>,
    /// The expiry calendar of a curve (its header's `expiryCalendar`): each contract of an
    /// ondate that names none expires by it (e.g. #REOMHENG, #REOMB, #REOD, or a private
    /// one); without any, a contract expires on the calendar day before its delivery starts.
    #[arg(long, value_name = "ID")]
    expiry_calendar: Option<String>,
    /// A CSV file as published: the header's column that holds the values (any case). The
    /// columns that key the rows (time, or settlementDate and settlementPeriod, or a curve's
    /// ondate and tenor) are found as without it; every other column is left out.
    #[arg(long, value_name = "NAME")]
    value_column: Option<String>,
    /// A CSV file as published: the header's column that holds the times (any case); with it,
    /// settlementDate and settlementPeriod columns are left out.
    #[arg(long, value_name = "NAME")]
    time_column: Option<String>,
    /// Curves: merge the file's contracts into the stored curve of each ondate by contract
    /// instead of replacing the ondate's curve (`_merge=true`).
    #[arg(long)]
    merge: bool,
}

fn parse_delimiter(text: &str) -> std::result::Result<u8, String> {
    platform_core::api::import::parse_delimiter(text)
        .map_err(|_| "use one character such as ',' or ';', or 'tab'".into())
}

/// The stored object, if any.
fn stored_object(target: &Target, id: &str) -> Result<Option<Map<String, Value>>> {
    let get = GetObject {
        key: id.to_string(),
        version: None,
    };
    match target.send(get) {
        Ok(answer) => Ok(match answer.body {
            Value::Object(o) => Some(o),
            _ => None,
        }),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

pub(super) fn import(args: ImportArgs) -> Result<()> {
    let id = DataId::parse(&args.series)?;
    if id.ondate.is_some() {
        return Err(Error::invalid_parameter(format!(
            "\"{}\" names one curve: import into OBJECT:PROPERTY (the file names the ondates)",
            args.series
        )));
    }
    let target = args.target.open()?;
    let object = stored_object(&target, &id.object)?;
    let before = object
        .as_ref()
        .and_then(|o| o.get("_version"))
        .and_then(Value::as_u64);
    let stored = object
        .as_ref()
        .and_then(|o| o.get(&id.prop))
        .and_then(Value::as_object)
        .cloned();

    let text = read_input(&args.file)?;
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let on_duplicate = match args.on_duplicate {
        Duplicates::Reject => OnDuplicate::Reject,
        Duplicates::First => OnDuplicate::First,
        Duplicates::Last => OnDuplicate::Last,
    };
    let stored_kind = stored
        .as_ref()
        .and_then(|h| DataKind::of(&Value::Object(h.clone())));
    let bar = bar(body.len() as u64, "parsing");
    let (header, rows) = read_file(body, &args, &bar)?;
    let kind = match &rows {
        Rows::Csv(records) if records.is_curve(stored_kind == Some(DataKind::Curve)) => {
            DataKind::Curve
        }
        Rows::Curves(_) => DataKind::Curve,
        Rows::Csv(_) | Rows::Json(_) => DataKind::Series,
    };
    if let Some(stored) = stored_kind.filter(|k| *k != kind) {
        bar.finish_and_clear();
        return Err(Error::invalid_body(format!(
            "{} holds a {}, the file a {}: import into another name, or delete the property first",
            args.series,
            kind_name(stored),
            kind_name(kind)
        )));
    }
    if kind == DataKind::Series && args.expiry_calendar.is_some() {
        bar.finish_and_clear();
        return Err(Error::invalid_parameter(format!(
            "--expiry-calendar sets when a curve's contracts expire; {} takes a time series",
            args.series
        )));
    }
    let saving = Saving {
        replace: args.replace,
        reason: args.reason.clone(),
        merge: args.merge,
    };
    let file = ImportFile {
        body,
        header,
        rows,
        bar: &bar,
    };
    let summary = if kind == DataKind::Curve {
        import_curve(&target, &id, file, on_duplicate, saving)?
    } else {
        import_series(&target, &id, &args, stored, file, on_duplicate, saving)?
    };
    let after = summary.version;
    let change = match (before, after) {
        (Some(b), Some(a)) if a == b => " (no change: the data held them already)".to_string(),
        (_, Some(a)) => format!(" (version {a})"),
        _ => String::new(),
    };
    eprintln!(
        "imported {} into {}:{}{change}",
        summary.what, id.object, id.prop
    );
    Ok(())
}

/// A file to import as read: its text (past a byte order mark), its header (a JSON file's,
/// with the flags' fields over it), its rows, and the bar of its parsing.
struct ImportFile<'a> {
    body: &'a str,
    header: Map<String, Value>,
    rows: Rows<'a>,
    bar: &'a ProgressBar,
}

/// The rows of a file: a CSV file's records, a JSON file's observations (each as its text),
/// or a JSON file's curves (`{ondate, contracts}` each).
enum Rows<'a> {
    Csv(Records),
    Json(Vec<&'a RawValue>),
    Curves(Vec<Map<String, Value>>),
}

/// A file's header (a JSON file's, else empty) with the fields the flags set over it, and its
/// rows.
fn read_file<'a>(
    body: &'a str,
    args: &ImportArgs,
    bar: &ProgressBar,
) -> Result<(Map<String, Value>, Rows<'a>)> {
    let json = matches!(body.trim_start().as_bytes().first(), Some(b'[' | b'{'));
    if json && (args.value_column.is_some() || args.time_column.is_some()) {
        return Err(Error::invalid_parameter(
            "--value-column and --time-column name columns of a CSV file's header; this file \
             is JSON",
        ));
    }
    let (mut header, rows) = if !json {
        let choice = ColumnChoice::named(
            args.value_column.clone(),
            args.time_column.clone(),
            ("--value-column", "--time-column"),
        );
        let records = csv_records_choosing(body, args.delimiter, &choice, &Bar(bar))?;
        (Map::new(), Rows::Csv(records))
    } else if let Some((header, curves)) = json_curve_file(body)? {
        (header, Rows::Curves(curves))
    } else {
        let (header, obs) = json_file(body)?;
        (header, Rows::Json(obs))
    };
    for (field, flag) in [
        ("calendar", &args.calendar),
        ("timezone", &args.timezone),
        ("units", &args.units),
        ("currency", &args.currency),
        ("expiryCalendar", &args.expiry_calendar),
    ] {
        if let Some(v) = flag {
            header.insert(field.into(), Value::String(v.clone()));
        }
    }
    Ok((header, rows))
}

/// A curve file's import: its rows by ondate and tenor, saved as curves.
fn import_curve(
    target: &Target,
    id: &DataId,
    file: ImportFile,
    on_duplicate: OnDuplicate,
    saving: Saving,
) -> Result<Saved> {
    let (curves, dropped) = match file.rows {
        Rows::Csv(records) => {
            let hint = "or keep one with --on-duplicate first|last";
            let rows = curve_rows(&records, &id.prop, on_duplicate, hint)?;
            let dropped = rows.dropped;
            (rows.into_sent(), dropped)
        }
        Rows::Curves(curves) => (curves, 0),
        Rows::Json(_) => unreachable!("JSON observations are a series"),
    };
    file.bar.finish_and_clear();
    save_curves(target, id, file.header, curves, dropped, saving)
}

/// A series file's import: its points read in the series' settings, checked against the
/// series' value type, sorted, and saved.
fn import_series(
    target: &Target,
    id: &DataId,
    args: &ImportArgs,
    stored: Option<Map<String, Value>>,
    file: ImportFile,
    on_duplicate: OnDuplicate,
    saving: Saving,
) -> Result<Saved> {
    let ImportFile {
        body,
        header,
        rows,
        bar,
    } = file;
    // The settings times are read in: the stored header with this one merged in.
    let mut merged = stored.unwrap_or_default();
    merged.extend(header.clone());
    let (calendar, tz, code) = series_settings(&id.prop, &merged)?;
    let mut reader = PointReader::new(calendar, tz, &code);
    let (mut points, lines) = match &rows {
        Rows::Csv(records) => reader.csv(records, &Bar(bar))?,
        Rows::Json(obs) => reader.json(body, obs, &Bar(bar))?,
        Rows::Curves(_) => unreachable!("JSON curves are a curve"),
    };
    bar.finish_and_clear();
    // Text where the series holds numbers, named by its line (the core refuses it too, by
    // its place in the sorted observations).
    let rule = ValueRule::of_header(&id.prop, &merged)?;
    let values = points.iter().map(|p| Sent::of(&p.v)).enumerate();
    // ("NaN" in a numeric series is made null by the core.)
    check_values(&rule, values, &|i| format!("line {}", lines[i]), || {
        if args.replace || merged.get("_type").is_none() {
            return Ok(Stored::Nothing);
        }
        stored_values(target, &args.series)
    })?;
    let names = PayloadNames {
        place: &|i| format!("line {}", lines[i]),
        time: &|t| format_time(t, calendar, tz),
        hint: "or keep one with --on-duplicate first|last",
    };
    let dropped = sort_payload(&mut points, on_duplicate, &names)?;
    save_series(target, id, header, points, dropped, saving)
}

/// What the stored series holds (asked only of a file with text or "NaN" for an undeclared
/// series).
fn stored_values(target: &Target, id: &str) -> Result<Stored> {
    let read = ReadData {
        id: id.to_string(),
        pairs: Vec::new(),
    };
    let body = target.send(read)?.body;
    let values = body["data"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    Ok(if values.iter().any(|o| o["value"].is_string()) {
        Stored::Text
    } else if values.iter().any(|o| o["value"].is_number()) {
        Stored::Numbers
    } else {
        Stored::Nothing
    })
}

fn kind_name(kind: DataKind) -> &'static str {
    match kind {
        DataKind::Series => "time series",
        DataKind::Curve => "curve",
    }
}

/// What an import stored, for its report.
struct Saved {
    what: String,
    version: Option<u64>,
}

fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

fn save_series(
    target: &Target,
    id: &DataId,
    header: Map<String, Value>,
    points: Vec<Observation>,
    dropped: usize,
    saving: Saving,
) -> Result<Saved> {
    let count = points.len();
    let saving_bar = spinner(format!("saving {}", plural(count, "observation")));
    let save = SaveSeries {
        object: id.object.clone(),
        prop: id.prop.clone(),
        header,
        points,
        saving,
    };
    let saved = target.send(save);
    saving_bar.finish_and_clear();
    let saved = saved?.body;
    let mut what = plural(count, "observation");
    if dropped > 0 {
        what.push_str(&format!(
            " ({} the file held twice left out by --on-duplicate)",
            plural(dropped, "observation")
        ));
    }
    Ok(Saved {
        what,
        version: saved.get("_version").and_then(Value::as_u64),
    })
}

fn save_curves(
    target: &Target,
    id: &DataId,
    header: Map<String, Value>,
    sent: Vec<Map<String, Value>>,
    dropped: usize,
    saving: Saving,
) -> Result<Saved> {
    let contracts: usize = sent
        .iter()
        .map(|c| {
            c.get("contracts")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        })
        .sum();
    let count = sent.len();
    let saving_bar = spinner(format!("saving {}", plural(count, "curve")));
    let save = SaveCurves {
        object: id.object.clone(),
        prop: id.prop.clone(),
        header,
        curves: sent,
        saving,
    };
    let saved = target.send(save);
    saving_bar.finish_and_clear();
    // A server answers an array (one save an ondate): the last is the object as saved.
    let mut saved = match saved?.body {
        Value::Array(saved) => saved,
        one => vec![one],
    };
    // What the writes did to the curves the ondates held (`_replacedCurves`).
    let replaced: Vec<&Value> = saved
        .iter()
        .filter_map(|s| s["_replacedCurves"].as_array())
        .flatten()
        .collect();
    let lost: u64 = replaced.iter().filter_map(|r| r["dropped"].as_u64()).sum();
    let replaced_note = (!replaced.is_empty()).then(|| {
        format!(
            "; replaced the stored curves of {}, dropping {} they held{}",
            plural(replaced.len(), "ondate"),
            plural(lost as usize, "contract"),
            if lost > 0 {
                " (--merge keeps them)"
            } else {
                ""
            }
        )
    });
    let saved = saved.pop().unwrap_or(Value::Null);
    let mut what = format!(
        "{} ({})",
        plural(count, "curve"),
        plural(contracts, "contract")
    );
    if dropped > 0 {
        what.push_str(&format!(
            "; {} the file held twice left out by --on-duplicate",
            plural(dropped, "contract")
        ));
    }
    what.push_str(&replaced_note.unwrap_or_default());
    Ok(Saved {
        what,
        version: saved.get("_version").and_then(Value::as_u64),
    })
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

/// The reader's progress through the file, drawn on a bar.
struct Bar<'a>(&'a ProgressBar);

impl Progress for Bar<'_> {
    fn at(&self, offset: u64) {
        self.0.set_position(offset);
    }

    fn tick(&self) {
        self.0.tick();
    }
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
