//! `platform data import|get|list`: files into time series and curves (`import`), data items
//! read back and listed; on a database file (through the core) or a running server (`--url`,
//! through its REST interface), each command with one request (`calls`) sent to either.

use clap::{Args, Subcommand, ValueEnum};
use platform_core::api::Source;
use platform_core::Result;
use serde_json::Value;

use crate::output::{self, Format, Table};
use crate::target::{pairs, print_total, TargetArgs};
use calls::{ListData, ReadData};
use import::ImportArgs;

mod calls;
mod import;

#[derive(Subcommand)]
pub enum DataCommand {
    /// Load a CSV or JSON file into a time series, or a CSV file of ondate,tenor,value or a JSON
    /// curve file into a curve, in one transaction.
    Import(ImportArgs),
    /// Print a data item: a series, a curve, a tenor's history or a curve's tenors.
    Get(GetArgs),
    /// List the data items (series and curves) of a source or of one object: each its header
    /// with its count of observations and first and last times; the total goes to standard
    /// error.
    List(ListArgs),
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
        DataCommand::Import(args) => import::import(args),
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
