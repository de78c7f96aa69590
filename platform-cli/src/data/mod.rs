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
mod tables;

use tables::data_table;

#[derive(Subcommand)]
pub enum DataCommand {
    /// Load a CSV or JSON file into a time series, or a CSV file of ondate,tenor,value or a JSON
    /// curve file into a curve, in one transaction.
    Import(ImportArgs),
    /// Print a data item: a series, a curve, a tenor's history or a curve's tenors.
    Get(Box<GetArgs>),
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
    /// What weighs the shaped months (`_weights`): hours (of each day in the curve's zone),
    /// days, the hours of a block (PEAK, OFFPEAK, EFA1..EFA6) or of a block calendar (its id);
    /// default: days for a gas curve, else hours.
    #[arg(long, requires = "shape")]
    weights: Option<String>,
    /// The largest miss of a quote the shaped months fit silently (`_tolerance`, default
    /// 0.01); quotes missed by more are named.
    #[arg(long, requires = "shape")]
    tolerance: Option<String>,
    /// The continuation series of a curve (`_continuation`): M01 (the front month), Q01, Y01,
    /// DA01...
    #[arg(long)]
    continuation: Option<String>,
    /// When the continuation rolls (`_roll`): expiry (the day after the front contract's
    /// expiry, the default) or calendar (the first day of each period).
    #[arg(long, requires = "continuation")]
    roll: Option<String>,
    /// Back-adjust the continuation at each roll (`_adjust`): difference or ratio.
    #[arg(long, requires = "continuation")]
    adjust: Option<String>,
    /// Of OBJECT:PROPERTY:ONDATE, the curve of the nearest ondate on or before (after) it
    /// when that day has none (`_nearest`: before or after).
    #[arg(long)]
    nearest: Option<String>,
    /// Read the data as of an object version: a number or a tag.
    #[arg(long)]
    version: Option<String>,
    /// Read the data as it was at this instant or date (`_asof`): the object version current
    /// then.
    #[arg(long, conflicts_with = "version")]
    asof: Option<String>,
    /// Convert to these units (`units`: MWh, kWh, therm...).
    #[arg(long)]
    units: Option<String>,
    /// Convert to this currency (`currency`), with the public FX series `#FX.<BASE><QUOTE>`.
    #[arg(long)]
    currency: Option<String>,
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
    /// The hours scaling keeps (`_block`): PEAK, OFFPEAK, BASE, EFA1..EFA6 or a block
    /// calendar's id.
    #[arg(long, requires = "calendar")]
    block: Option<String>,
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
        DataCommand::Get(args) => get(*args),
        DataCommand::List(args) => list(args),
    }
}

fn get(args: GetArgs) -> Result<()> {
    let nearest = args.nearest.is_some();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (key, value) in [
        ("_range", args.range),
        ("tenor", args.tenor),
        ("listTenors", args.list_tenors.then(String::new)),
        (
            "_shape",
            args.shape.map(|CurveShape::Monthly| "MONTHLY".into()),
        ),
        ("_weights", args.weights),
        ("_tolerance", args.tolerance),
        ("_continuation", args.continuation),
        ("_roll", args.roll),
        ("_adjust", args.adjust),
        ("_nearest", args.nearest),
        ("_version", args.version),
        ("_asof", args.asof),
        ("units", args.units),
        ("currency", args.currency),
        ("_calendar", args.calendar),
        ("_observed", args.observed),
        ("_distribution", args.distribution),
        ("_block", args.block),
        ("_timezone", args.timezone),
        ("_settlement", args.settlement),
    ] {
        if let Some(v) = value {
            pairs.push((key.to_string(), v));
        }
    }
    let asked = args.id.clone();
    let read = ReadData { id: args.id, pairs };
    let item = args.target.open()?.send(read)?.body;
    output::print(args.format, &item, || data_table(&item), "")?;
    // A nearest curve read in place of a day without one: which day it is, said on standard
    // error (a table or CSV of contracts does not show it).
    if let Some(Value::String(read_on)) = item.get("ondate").and_then(|o| o.get("curveDate")) {
        if nearest && !asked.ends_with(&format!(":{read_on}")) {
            eprintln!("{asked} has no curve: the curve of {read_on}, the nearest, is printed");
        }
    }
    // A shaped curve whose quotes disagree, or with contracts that took no part: said on
    // standard error as the answer's message says it, the answer printed whole.
    if let (Some(Value::String(message)), Some(_)) = (item.get("message"), item.get("shape")) {
        eprintln!("{message}");
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
