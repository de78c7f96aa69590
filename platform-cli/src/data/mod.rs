//! `platform data import|get|list`: files into time series and curves, data items read back and
//! listed; on a database file (through the core) or a running server (`--url`, through its REST
//! interface), each command with one request (`calls`) sent to either.
//!
//! `import` reads the whole file first (with a progress bar on a terminal) with the core's
//! import reader (`platform_core::api::interface::series::import`, whose module doc holds the grammar of CSV and
//! JSON files: the same reader serves the REST CSV import), naming the line of the first bad
//! observation, and then writes it with one call (`Platform::save_series` or `save_curves`, or
//! one `POST object/v1`), so a file is stored whole or not at all. A time (or an ondate and
//! tenor) the file holds twice is refused with both line numbers unless `--on-duplicate
//! first|last` says which to keep.

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use platform_core::api::interface::series::series_settings;
use platform_core::api::interface::series::Point;
use platform_core::api::interface::series::{check_values, Sent, Stored, ValueRule};
use platform_core::api::interface::series::{sort_payload, OnDuplicate, PayloadNames};
use platform_core::api::interface::time::format_time;
use platform_core::api::DataId;
use platform_core::api::DataKind;
use platform_core::api::Source;
use platform_core::{Error, ErrorCode, Result};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::io::{IsTerminal as _, Read as _};
use std::path::PathBuf;
use std::time::Duration;

use crate::object::GetObject;
use crate::output::{self, Format, Table};
use crate::target::{pairs, print_total, Target, TargetArgs};
use calls::{ListData, ReadData, SaveCurves, SaveSeries, Saving};
use platform_core::api::interface::series::import::{
    csv_records, curve_rows, json_file, CurveRows, PointReader, Progress, Records,
};

mod calls;

#[derive(Subcommand)]
pub enum DataCommand {
    /// Load a CSV or JSON file into a time series, or a CSV file of ondate,tenor,value into a
    /// curve, in one transaction.
    Import(ImportArgs),
    /// Print a data item: a series, a curve, a tenor's history or a curve's tenors.
    Get(GetArgs),
    /// List the data items (series and curves) of a source or of one object: each its header
    /// with its count of observations and first and last times; the total goes to standard
    /// error.
    List(ListArgs),
}

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
    /// or a JSON file of a series ([{time,value,status}...] or {header..., "data": [...]});
    /// '-' reads standard input.
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
}

/// The shapes a curve read can take (`_shape`).
#[derive(Clone, Copy, ValueEnum)]
enum CurveShape {
    /// One price a month, agreeing with every quoted contract.
    Monthly,
}

/// The weights of shaped months (`_weights`).
#[derive(Clone, Copy, ValueEnum)]
enum ShapeWeights {
    /// The hours of each day in the curve's time zone (power).
    Hours,
    /// Each day once (gas).
    Days,
}

fn parse_delimiter(text: &str) -> std::result::Result<u8, String> {
    platform_core::api::interface::series::import::parse_delimiter(text)
        .map_err(|_| "use one character such as ',' or ';', or 'tab'".into())
}

#[derive(Args)]
pub struct GetArgs {
    #[command(flatten)]
    target: TargetArgs,
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
    /// Shape a curve into one arbitrage-free price a month (`_shape`).
    #[arg(long, value_enum)]
    shape: Option<CurveShape>,
    /// What weighs the shaped months (`_weights`; default: days for a gas curve, else hours).
    #[arg(long, value_enum, requires = "shape")]
    weights: Option<ShapeWeights>,
    /// The continuation series of a curve (`_continuation`): M01 (the front month), Q01, Y01,
    /// DA01...
    #[arg(long)]
    continuation: Option<String>,
    /// When the continuation rolls (`_roll`): expiry (the day after the front contract's
    /// expiry, the default) or calendar (the first day of each period).
    #[arg(long, requires = "continuation")]
    roll: Option<String>,
    /// Read the data as of an object version: a number or a tag.
    #[arg(long)]
    version: Option<String>,
    /// Scale a series to this calendar (`_calendar`: DAILY, MONTHLY...), with --observed to
    /// a coarser one or --distribution to a finer one.
    #[arg(long)]
    calendar: Option<String>,
    /// How scaling aggregates into coarser periods (`_observed`: averaged, summed, high, low,
    /// beginning, end).
    #[arg(long, requires = "calendar")]
    observed: Option<String>,
    /// How scaling spreads values over finer periods (`_distribution`: constant).
    #[arg(long, requires = "calendar")]
    distribution: Option<String>,
    /// The time zone (`_timezone`) periods are cut in (with --calendar), or times are printed
    /// in.
    #[arg(long)]
    timezone: Option<String>,
    /// Key each half-hour by its settlement date and period (`_settlement`: GB); dates of
    /// --range are then settlement days.
    #[arg(long)]
    settlement: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// Only the data items of this object (`_objid`).
    #[arg(long)]
    object: Option<String>,
    /// public, private or all (default: the object's source with --object, else private).
    #[arg(long)]
    source: Option<String>,
    /// Query parameters as key=value (e.g. _type=VarCurve _sort=-_last _limit=10; _range
    /// adds the observations).
    params: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

pub fn run(cmd: DataCommand) -> Result<()> {
    match cmd {
        DataCommand::Import(args) => import(args),
        DataCommand::Get(args) => get(args),
        DataCommand::List(args) => list(args),
    }
}

fn get(args: GetArgs) -> Result<()> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (key, value) in [
        ("_range", args.range),
        ("tenor", args.tenor),
        ("listTenors", args.list_tenors.then(String::new)),
        (
            "_shape",
            args.shape.map(|CurveShape::Monthly| "MONTHLY".into()),
        ),
        (
            "_weights",
            args.weights.map(|w| {
                match w {
                    ShapeWeights::Hours => "hours",
                    ShapeWeights::Days => "days",
                }
                .into()
            }),
        ),
        ("_continuation", args.continuation),
        ("_roll", args.roll),
        ("_version", args.version),
        ("_calendar", args.calendar),
        ("_observed", args.observed),
        ("_distribution", args.distribution),
        ("_timezone", args.timezone),
        ("_settlement", args.settlement),
    ] {
        if let Some(v) = value {
            pairs.push((key.to_string(), v));
        }
    }
    let read = ReadData { id: args.id, pairs };
    let item = args.target.open()?.send(read)?.body;
    output::print(args.format, &item, || data_table(&item), "")?;
    // A shaped curve whose quotes disagree: said on standard error, the answer printed whole.
    if let Some(Value::Array(codes)) = item
        .get("arbitrage")
        .filter(|a| a.as_array().is_some_and(|a| !a.is_empty()))
    {
        let codes: Vec<String> = codes.iter().map(|c| output::text(Some(c))).collect();
        eprintln!(
            "arbitrage: the months of {} disagree with their price",
            codes.join(", ")
        );
    }
    Ok(())
}

fn list(args: ListArgs) -> Result<()> {
    let mut pairs = pairs(&args.params)?;
    let source: Source = match (&args.source, &args.object) {
        (Some(s), _) => s.parse()?,
        (None, Some(object)) => Source::of_id(object),
        (None, None) => Source::Private,
    };
    if let Some(object) = args.object {
        pairs.push(("_objid".to_string(), object));
    }
    let answer = args.target.open()?.send(ListData { source, pairs })?;
    print_total(answer.total);
    let items = answer.body.as_array().map_or(&[][..], Vec::as_slice);
    output::print(
        args.format,
        &answer.body,
        || {
            Table::of(
                items,
                &[
                    "_id", "_type", "calendar", "timezone", "units", "currency", "_count",
                    "_first", "_last",
                ],
            )
        },
        "",
    )
}

/// A data item as rows: a series (or a tenor's history) as time, value and status; a curve as
/// its contracts with their periods; a curve's tenors one a row.
fn data_table(item: &Value) -> Table {
    if let Value::Array(tenors) = item {
        let mut t = Table::new(&["tenor"]);
        for code in tenors {
            t.push(vec![output::text(Some(code))]);
        }
        return t;
    }
    if let Some(Value::Array(contracts)) = item.get("contracts") {
        return curve_table(item, contracts);
    }
    let points = item["data"].as_array().map_or(&[][..], Vec::as_slice);
    // A continuation's points name the contract each holds.
    if points
        .iter()
        .any(|p| p["properties"]["absolute"].is_string())
    {
        return continuation_table(points);
    }
    // Points keyed by settlement date and period (`--settlement GB`) show them after the time.
    if points.iter().any(|p| p["settlementPeriod"].is_number()) {
        return settlement_table(points);
    }
    series_table(points)
}

/// A curve's contracts with their periods: with the weight each holds when the curve names
/// its weights, else with their absolute contract and expiry.
fn curve_table(item: &Value, contracts: &[Value]) -> Table {
    if let Some(Value::String(weights)) = item.get("weights") {
        let weight = format!("properties.{weights}");
        return Table::of(
            contracts,
            &[
                "tenor",
                "value",
                "properties.from",
                "properties.start",
                "properties.end",
                &weight,
            ],
        )
        .renamed(&["tenor", "value", "from", "start", "end", weights]);
    }
    Table::of(
        contracts,
        &[
            "tenor",
            "value",
            "properties.absolute",
            "properties.start",
            "properties.end",
            "properties.expiry",
        ],
    )
    .renamed(&["tenor", "value", "absolute", "start", "end", "expiry"])
}

/// A continuation's points, each with the contract it holds.
fn continuation_table(points: &[Value]) -> Table {
    Table::of(
        points,
        &[
            "time",
            "value",
            "properties.absolute",
            "status.quality",
            "status.source",
            "status.reliability",
        ],
    )
    .renamed(&[
        "time",
        "value",
        "absolute",
        "quality",
        "source",
        "reliability",
    ])
}

/// Points keyed by settlement date and period, shown after the time.
fn settlement_table(points: &[Value]) -> Table {
    Table::of(
        points,
        &[
            "time",
            "settlementDate",
            "settlementPeriod",
            "value",
            "status.quality",
            "status.source",
            "status.reliability",
        ],
    )
    .renamed(&[
        "time",
        "settlementDate",
        "settlementPeriod",
        "value",
        "quality",
        "source",
        "reliability",
    ])
}

/// A series' points as time, value and status.
fn series_table(points: &[Value]) -> Table {
    Table::of(
        points,
        &[
            "time",
            "value",
            "status.quality",
            "status.source",
            "status.reliability",
        ],
    )
    .renamed(&["time", "value", "quality", "source", "reliability"])
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

fn import(args: ImportArgs) -> Result<()> {
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
    let (header, json_obs) = file_header(body, &args)?;
    let on_duplicate = match args.on_duplicate {
        Duplicates::Reject => OnDuplicate::Reject,
        Duplicates::First => OnDuplicate::First,
        Duplicates::Last => OnDuplicate::Last,
    };
    let stored_kind = stored
        .as_ref()
        .and_then(|h| DataKind::of(&Value::Object(h.clone())));

    let bar = bar(body.len() as u64, "parsing");
    let records = match json_obs {
        Some(_) => None,
        None => Some(csv_records(body, args.delimiter, &Bar(&bar))?),
    };
    let curve_file = records
        .as_ref()
        .is_some_and(|r| r.is_curve(stored_kind == Some(DataKind::Curve)));
    let kind = if curve_file {
        DataKind::Curve
    } else {
        DataKind::Series
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
    let saving = Saving {
        replace: args.replace,
        reason: args.reason.clone(),
    };
    let file = ImportFile {
        body,
        header,
        records,
        json_obs,
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
/// with the flags' fields over it), its rows (a CSV file's records or a JSON file's
/// observations), and the bar of its parsing.
struct ImportFile<'a> {
    body: &'a str,
    header: Map<String, Value>,
    records: Option<Records>,
    json_obs: Option<JsonObservations<'a>>,
    bar: &'a ProgressBar,
}

/// A JSON file's observations, each as its text.
type JsonObservations<'a> = Vec<&'a RawValue>;

/// A file's header (a JSON file's, else empty) with the fields the flags set over it, and a
/// JSON file's observations.
fn file_header<'a>(
    body: &'a str,
    args: &ImportArgs,
) -> Result<(Map<String, Value>, Option<JsonObservations<'a>>)> {
    let json = matches!(body.trim_start().as_bytes().first(), Some(b'[' | b'{'));
    let (mut header, json_obs) = if json {
        let (header, obs) = json_file(body)?;
        (header, Some(obs))
    } else {
        (Map::new(), None)
    };
    for (field, flag) in [
        ("calendar", &args.calendar),
        ("timezone", &args.timezone),
        ("units", &args.units),
        ("currency", &args.currency),
    ] {
        if let Some(v) = flag {
            header.insert(field.into(), Value::String(v.clone()));
        }
    }
    Ok((header, json_obs))
}

/// A curve file's import: its rows by ondate and tenor, saved as curves.
fn import_curve(
    target: &Target,
    id: &DataId,
    file: ImportFile,
    on_duplicate: OnDuplicate,
    saving: Saving,
) -> Result<Saved> {
    let records = file.records.expect("a curve file is CSV");
    let hint = "or keep one with --on-duplicate first|last";
    let curves = curve_rows(&records, &id.prop, on_duplicate, hint)?;
    file.bar.finish_and_clear();
    save_curves(target, id, file.header, curves, saving)
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
        records,
        json_obs,
        bar,
    } = file;
    // The settings times are read in: the stored header with this one merged in.
    let mut merged = stored.unwrap_or_default();
    merged.extend(header.clone());
    let (calendar, tz, code) = series_settings(&id.prop, &merged)?;
    let mut reader = PointReader::new(calendar, tz, &code);
    let (mut points, lines) = match (&records, &json_obs) {
        (Some(records), _) => reader.csv(records, &Bar(bar))?,
        (None, Some(obs)) => reader.json(body, obs, &Bar(bar))?,
        (None, None) => unreachable!("a file is CSV or JSON"),
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
    points: Vec<Point>,
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
    curves: CurveRows,
    saving: Saving,
) -> Result<Saved> {
    let contracts: usize = curves.curves.iter().map(|(_, c)| c.len()).sum();
    let sent: Vec<Map<String, Value>> = curves
        .curves
        .into_iter()
        .map(|(ondate, contracts)| {
            let mut m = Map::new();
            m.insert("ondate".into(), Value::String(ondate));
            m.insert("contracts".into(), Value::Array(contracts));
            m
        })
        .collect();
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
    let saved = match saved?.body {
        Value::Array(mut saved) => saved.pop().unwrap_or(Value::Null),
        one => one,
    };
    let mut what = format!(
        "{} ({})",
        plural(count, "curve"),
        plural(contracts, "contract")
    );
    if curves.dropped > 0 {
        what.push_str(&format!(
            "; {} the file held twice left out by --on-duplicate",
            plural(curves.dropped, "contract")
        ));
    }
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
