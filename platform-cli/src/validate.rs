//! `platform validate run|test|many|suggest|tune|stats|jobs|work|config` on a database file,
//! through the core (no server).
//!
//! `run` and `test` build the request body of the validation interface
//! (`{target, points, from, to, checks, tenors, background}`) and make one core call
//! (`Platform::validation_run`), so a run here stores the same records as one over HTTP. A run
//! the core sends to the background is queued in the file; `work` runs the queued jobs when no
//! server (whose worker would run them) works on the file.

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use platform_core::documents::SaveOptions;
use platform_core::ids::{Source, VersionRef};
use platform_core::query::Params;
use platform_core::store::Collection;
use platform_core::{Error, ErrorCode, Platform, Result};
use serde_json::{json, Map, Value};
use std::io::{IsTerminal as _, Read as _, Write as _};
use std::path::PathBuf;
use std::time::Duration;

/// A run over more explicit points than this shows a spinner (a range always does).
const SPINNER_POINTS: usize = 10;

use crate::local::Local;

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// The core's answer, pretty-printed.
    Json,
    /// One line per result and a line of counts.
    Table,
}

/// Which points of a data item to check (none: the latest point, or the newest curve).
#[derive(Args)]
struct Points {
    /// A point to check: an observation time, or a curve's ondate (repeatable).
    #[arg(long = "point", value_name = "P")]
    points: Vec<String>,
    /// Range start (a date or a time).
    #[arg(long, value_name = "D")]
    from: Option<String>,
    /// Range end, inclusive (a date includes its whole day).
    #[arg(long, value_name = "D")]
    to: Option<String>,
}

/// The selection of a run or a test.
#[derive(Args)]
struct Selection {
    #[command(flatten)]
    points: Points,
    /// Run only this check, by id (repeatable).
    #[arg(long = "check", value_name = "ID")]
    checks: Vec<String>,
    /// Check only this tenor of a curve (repeatable).
    #[arg(long = "tenor", value_name = "T")]
    tenors: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    local: Local,
    /// The data item, OBJECT:PROPERTY (it needs a saved validation configuration).
    target: String,
    #[command(flatten)]
    selection: Selection,
    /// Queue the run as a background job (needs --from/--to); `validate work` runs it.
    #[arg(long)]
    background: bool,
}

#[derive(Args)]
pub struct TestArgs {
    #[command(flatten)]
    local: Local,
    /// The data item, OBJECT:PROPERTY (default with --config: the configuration's _id).
    #[arg(required_unless_present = "config")]
    target: Option<String>,
    #[command(flatten)]
    selection: Selection,
    /// Try this configuration (a JSON file; '-' reads standard input) instead of the saved one.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(Args)]
pub struct ManyArgs {
    #[command(flatten)]
    local: Local,
    /// The data items, OBJECT:PROPERTY (more than 25 go to a background job).
    #[arg(required = true)]
    targets: Vec<String>,
    #[command(flatten)]
    points: Points,
    /// Queue the runs as a background job (a range always is).
    #[arg(long)]
    background: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    local: Local,
    /// Only records of points from this date.
    #[arg(long, value_name = "D")]
    from: Option<String>,
    /// Only records of points up to this date (inclusive).
    #[arg(long, value_name = "D")]
    to: Option<String>,
    /// Only records of this data item.
    #[arg(long, value_name = "T")]
    target: Option<String>,
    /// Only records of this kind (timeseries or curve).
    #[arg(long, value_name = "K")]
    kind: Option<String>,
    /// Only records of this configuration group.
    #[arg(long, value_name = "G")]
    group: Option<String>,
}

/// The window of `suggest` and `tune`.
#[derive(Args)]
struct Span {
    /// Days back from today (1 to 366; default 30).
    #[arg(long, value_name = "N")]
    days: Option<u64>,
    /// Curves: keep only the newest N curves (2 to 60; default 25).
    #[arg(long, value_name = "N")]
    max_curves: Option<u64>,
}

impl Span {
    fn add_to(&self, body: &mut Value) {
        if let Some(d) = self.days {
            body["days"] = json!(d);
        }
        if let Some(m) = self.max_curves {
            body["maxCurves"] = json!(m);
        }
    }
}

#[derive(Args)]
pub struct SuggestArgs {
    #[command(flatten)]
    local: Local,
    /// The data items, OBJECT:PROPERTY (up to 25, all of one kind).
    #[arg(required = true)]
    targets: Vec<String>,
    /// The kind of the data items: timeseries or curve.
    #[arg(long, default_value = "timeseries")]
    kind: String,
    #[command(flatten)]
    span: Span,
    /// Write the suggested configuration (an array for several items) to FILE, ready for
    /// `validate config put`.
    #[arg(long, value_name = "FILE")]
    write: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

#[derive(Args)]
pub struct TuneArgs {
    #[command(flatten)]
    local: Local,
    /// The data item, OBJECT:PROPERTY (it needs a saved validation configuration).
    target: String,
    /// A failing point to tune for: an observation time or a curve's ondate (repeatable).
    #[arg(long = "point", value_name = "P", required = true)]
    points: Vec<String>,
    /// Curves: only these tenors of the points (repeatable).
    #[arg(long = "tenor", value_name = "T")]
    tenors: Vec<String>,
    #[command(flatten)]
    span: Span,
    /// Write the saved configuration with the suggested expressions to FILE, ready for
    /// `validate config put`.
    #[arg(long, value_name = "FILE")]
    write: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

#[derive(Subcommand)]
pub enum ConfigCommand {
    /// Save the validation configuration (object or array) in FILE; prints the saved version.
    Put {
        #[command(flatten)]
        local: Local,
        /// A JSON file; '-' or nothing reads standard input.
        file: Option<PathBuf>,
        /// Replace instead of merge.
        #[arg(long)]
        replace: bool,
        /// The reason stored with the new version.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Print the validation configuration of a data item, or one version of it.
    Get {
        #[command(flatten)]
        local: Local,
        /// The data item, OBJECT:PROPERTY.
        target: String,
        /// A version number or tag.
        #[arg(long)]
        version: Option<String>,
    },
}

#[derive(Subcommand)]
pub enum ValidateCommand {
    /// Run the checks of a data item and store the validation records.
    Run(RunArgs),
    /// Run the checks and store nothing (at most 100 points).
    Test(TestArgs),
    /// Run the checks of several data items.
    Many(ManyArgs),
    /// Suggest checks from the recent history of data items (stores nothing).
    Suggest(SuggestArgs),
    /// Suggest new thresholds from failing points users overrode (stores nothing).
    Tune(TuneArgs),
    /// Dashboard statistics over the validation records.
    Stats(StatsArgs),
    /// List the background jobs, newest first.
    Jobs {
        #[command(flatten)]
        local: Local,
        /// Output format.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// Run the queued background jobs of the file (every tenant's) until none is left.
    ///
    /// Jobs a stopped server left running are queued again first, so do not use it while a
    /// server works on the same file: its worker runs the jobs there.
    Work {
        #[command(flatten)]
        db: crate::DbArg,
    },
    /// Save or read validation configurations.
    #[command(subcommand)]
    Config(ConfigCommand),
}

pub fn run(cmd: ValidateCommand) -> Result<()> {
    match cmd {
        ValidateCommand::Run(args) => {
            let body = request(Some(&args.target), &args.selection, args.background, None);
            let (platform, who) = args.local.open()?;
            let out = with_spinner(long(&args.selection.points), "validating", || {
                platform.validation_run(&who, &body, false, "manual")
            })?;
            print_run(&out, args.selection.format)
        }
        ValidateCommand::Test(args) => {
            let config = args.config.map(read_json).transpose()?;
            let body = request(args.target.as_deref(), &args.selection, false, config);
            let (platform, who) = args.local.open()?;
            let out = with_spinner(long(&args.selection.points), "testing", || {
                platform.validation_run(&who, &body, true, "manual")
            })?;
            print_run(&out, args.selection.format)
        }
        ValidateCommand::Many(args) => {
            let mut body = json!({"targets": args.targets});
            add_points(&mut body, &args.points);
            if args.background {
                body["background"] = json!(true);
            }
            let (platform, who) = args.local.open()?;
            let out = with_spinner(args.targets.len() > 1, "validating", || {
                platform.validation_run_many(&who, &body, "manual")
            })?;
            print_many(&out, args.format)
        }
        ValidateCommand::Suggest(args) => {
            let mut body = json!({"targets": args.targets, "kind": args.kind});
            args.span.add_to(&mut body);
            let (platform, who) = args.local.open()?;
            let out = with_spinner(true, "suggesting", || {
                platform.validation_suggest(&who, &body)
            })?;
            if let Some(file) = &args.write {
                let configs: Vec<Value> = out["results"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r.get("config").cloned())
                    .collect();
                let doc = match <[Value; 1]>::try_from(configs) {
                    Ok([one]) => one,
                    Err(all) => Value::Array(all),
                };
                write_json(file, &doc)?;
            }
            print_suggest(&out, args.format)
        }
        ValidateCommand::Tune(args) => {
            let mut item = json!({"target": args.target, "points": args.points});
            if !args.tenors.is_empty() {
                item["tenors"] = json!(args.tenors);
            }
            let mut body = json!({"items": [item]});
            args.span.add_to(&mut body);
            let (platform, who) = args.local.open()?;
            let out = with_spinner(true, "tuning", || platform.validation_tune(&who, &body))?;
            if let Some(file) = &args.write {
                let saved = platform.get(
                    &who,
                    Collection::ValidationConfig,
                    Source::Private,
                    &args.target,
                    None,
                    None,
                )?;
                write_json(file, &tuned_config(saved, &out))?;
            }
            print_tune(&out, args.format)
        }
        ValidateCommand::Stats(args) => {
            let mut pairs: Vec<(&str, &str)> = Vec::new();
            for (k, v) in [
                ("from", &args.from),
                ("to", &args.to),
                ("target", &args.target),
                ("kind", &args.kind),
                ("group", &args.group),
            ] {
                if let Some(v) = v {
                    pairs.push((k, v));
                }
            }
            let (platform, who) = args.local.open()?;
            let out = platform.validation_stats(&who, &Params::from_slice(&pairs))?;
            print_json(&out)
        }
        ValidateCommand::Jobs { local, format } => {
            let (platform, who) = local.open()?;
            let jobs = platform.validation_jobs(&who)?;
            match format {
                Format::Json => print_json(&Value::Array(jobs)),
                Format::Table => {
                    let rows: Vec<[String; 4]> = jobs
                        .iter()
                        .map(|j| {
                            [
                                text(&j["_id"]),
                                text(&j["status"]),
                                format!("{}%", text(&j["progress"])),
                                text(&j["message"]),
                            ]
                        })
                        .collect();
                    let mut out = table(&rows);
                    out.push_str(&format!("{} job(s)\n", jobs.len()));
                    write_out(&out)
                }
            }
        }
        ValidateCommand::Work { db } => work(&db.open()?),
        ValidateCommand::Config(cmd) => config(cmd),
    }
}

/// The request body of a run or a test: only the fields given.
fn request(
    target: Option<&str>,
    sel: &Selection,
    background: bool,
    config: Option<Value>,
) -> Value {
    let mut body = Value::Object(Map::new());
    if let Some(t) = target {
        body["target"] = json!(t);
    }
    if let Some(c) = config {
        body["config"] = c;
    }
    add_points(&mut body, &sel.points);
    // An empty list would select no check (or tenor): absent means all.
    if !sel.checks.is_empty() {
        body["checks"] = json!(sel.checks);
    }
    if !sel.tenors.is_empty() {
        body["tenors"] = json!(sel.tenors);
    }
    if background {
        body["background"] = json!(true);
    }
    body
}

fn add_points(body: &mut Value, points: &Points) {
    if !points.points.is_empty() {
        body["points"] = json!(points.points);
    }
    if let Some(f) = &points.from {
        body["from"] = json!(f);
    }
    if let Some(t) = &points.to {
        body["to"] = json!(t);
    }
}

/// Whether a run may take a while: a range, or many points.
fn long(points: &Points) -> bool {
    points.from.is_some() || points.to.is_some() || points.points.len() > SPINNER_POINTS
}

fn work(platform: &Platform) -> Result<()> {
    let requeued = platform.requeue_interrupted_jobs()?;
    if requeued > 0 {
        eprintln!("{requeued} interrupted job(s) queued again");
    }
    let spinner = spinner("running background jobs".into());
    let mut ran = 0u64;
    let outcome = loop {
        match platform.run_next_job() {
            Ok(true) => {
                ran += 1;
                spinner.set_message(format!("running background jobs ({ran} done)"));
            }
            Ok(false) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    spinner.finish_and_clear();
    eprintln!("{ran} job(s) run");
    outcome
}

fn config(cmd: ConfigCommand) -> Result<()> {
    let out = match cmd {
        ConfigCommand::Put {
            local,
            file,
            replace,
            reason,
        } => {
            let body = read_json(file.unwrap_or_else(|| PathBuf::from("-")))?;
            let (platform, who) = local.open()?;
            let opts = SaveOptions {
                replace,
                reason,
                source: Some(Source::Private),
                ..SaveOptions::default()
            };
            platform.save(&who, Collection::ValidationConfig, body, &opts)?
        }
        ConfigCommand::Get {
            local,
            target,
            version,
        } => {
            let version = version
                .as_deref()
                .map(str::parse::<VersionRef>)
                .transpose()?;
            let (platform, who) = local.open()?;
            platform.get(
                &who,
                Collection::ValidationConfig,
                Source::Private,
                &target,
                version.as_ref(),
                None,
            )?
        }
    };
    print_json(&out)
}

/// Runs one core call, with a spinner on a terminal when `show`.
fn with_spinner<T>(show: bool, what: &str, call: impl FnOnce() -> T) -> T {
    if !show {
        return call();
    }
    let s = spinner(format!("{what}..."));
    let out = call();
    s.finish_and_clear();
    out
}

fn spinner(message: String) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let s = ProgressBar::with_draw_target(None, target);
    s.set_style(ProgressStyle::default_spinner());
    s.set_message(message);
    s.enable_steady_tick(Duration::from_millis(120));
    s
}

/// A run or test answer: one line per result (`point  status  message`) and the counts.
fn print_run(out: &Value, format: Format) -> Result<()> {
    if let (Format::Table, None) = (format, queued(out)) {
        let results = out["results"].as_array().map_or(&[][..], Vec::as_slice);
        let rows: Vec<[String; 3]> = results
            .iter()
            .map(|r| [text(&r["point"]), text(&r["status"]), text(&r["message"])])
            .collect();
        let mut lines = table(&rows);
        lines.push_str(&counts_line(
            out["points"].as_u64().unwrap_or(0),
            "point",
            &out["counts"],
        ));
        if out["test"] == true {
            lines.push_str(" (test: nothing stored)");
        }
        if let Some(m) = out["message"].as_str() {
            lines.push_str(&format!(" ({m})"));
        }
        lines.push('\n');
        return write_out(&lines);
    }
    print_queued_or_json(out, format)
}

/// A runMany answer: one line per data item (`target  status  message`) and the counts.
fn print_many(out: &Value, format: Format) -> Result<()> {
    if let (Format::Table, None) = (format, queued(out)) {
        let results = out["results"].as_array().map_or(&[][..], Vec::as_slice);
        let rows: Vec<[String; 3]> = results
            .iter()
            .map(|r| {
                let message = match (&r["error"], &r["message"]) {
                    (Value::String(e), _) => e.clone(),
                    (_, Value::String(m)) => m.clone(),
                    _ => counts_line(r["points"].as_u64().unwrap_or(0), "point", &r["counts"]),
                };
                [text(&r["target"]), text(&r["status"]), message]
            })
            .collect();
        let mut lines = table(&rows);
        lines.push_str(&counts_line(
            out["targets"].as_u64().unwrap_or(0),
            "target",
            &out["counts"],
        ));
        lines.push('\n');
        return write_out(&lines);
    }
    print_queued_or_json(out, format)
}

/// A suggest answer: per data item its checks (`target  check  severity  failures/runs
/// suggested  expression`), then its message or error.
fn print_suggest(out: &Value, format: Format) -> Result<()> {
    if let Format::Json = format {
        return print_json(out);
    }
    let mut rows: Vec<[String; 6]> = vec![[
        "TARGET".into(),
        "CHECK".into(),
        "SEVERITY".into(),
        "FAILED".into(),
        "OK".into(),
        "EXPRESSION".into(),
    ]];
    let mut notes = Vec::new();
    for r in out["results"].as_array().into_iter().flatten() {
        let target = text(&r["target"]);
        for c in r["checks"].as_array().into_iter().flatten() {
            let scope = match c["scope"].as_str() {
                Some(s) => format!(" [{s}]"),
                None => String::new(),
            };
            rows.push([
                target.clone(),
                format!("{}{scope}", text(&c["id"])),
                text(&c["severity"]),
                format!("{}/{}", text(&c["failures"]), text(&c["runs"])),
                match (c["suggested"] == true, c["inConfig"] == true) {
                    (true, _) => "yes".into(),
                    (false, true) => "kept".into(),
                    (false, false) => "no".into(),
                },
                text(&c["expression"]),
            ]);
        }
        for k in ["error", "message"] {
            if let Some(m) = r[k].as_str() {
                notes.push(format!("{target}: {k}: {m}"));
            }
        }
    }
    let mut lines = table(&rows);
    for n in notes {
        lines.push_str(&n);
        lines.push('\n');
    }
    lines.push_str(&format!(
        "window {} .. {} ({} days); nothing stored\n",
        text(&out["from"]),
        text(&out["to"]),
        text(&out["days"])
    ));
    write_out(&lines)
}

/// A tune answer: per check (`check  failing  before -> after  suggested`) and its reason.
fn print_tune(out: &Value, format: Format) -> Result<()> {
    if let Format::Json = format {
        return print_json(out);
    }
    let mut rows: Vec<[String; 5]> = vec![[
        "CHECK".into(),
        "FAILING".into(),
        "WINDOW".into(),
        "EXPRESSION".into(),
        "SUGGESTED".into(),
    ]];
    let mut reasons = Vec::new();
    for r in out["results"].as_array().into_iter().flatten() {
        for c in r["checks"].as_array().into_iter().flatten() {
            let w = &c["window"];
            rows.push([
                text(&c["id"]),
                text(&c["failing"]),
                format!(
                    "{} -> {} of {}",
                    text(&w["before"]),
                    text(&w["after"]),
                    text(&w["runs"])
                ),
                text(&c["expression"]),
                match &c["suggested"] {
                    Value::Null => "-".into(),
                    v => text(v),
                },
            ]);
            reasons.push(format!("{}: {}", text(&c["id"]), text(&c["reason"])));
        }
        for k in ["error", "message"] {
            if let Some(m) = r[k].as_str() {
                reasons.push(format!("{}: {k}: {m}", text(&r["target"])));
            }
        }
    }
    let mut lines = table(&rows);
    for n in reasons {
        lines.push_str(&n);
        lines.push('\n');
    }
    lines.push_str("nothing stored\n");
    write_out(&lines)
}

/// The saved configuration with each check's suggested expression (from a tune answer).
fn tuned_config(mut saved: Value, out: &Value) -> Value {
    let suggested: Vec<(String, String)> = out["results"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| r["checks"].as_array().into_iter().flatten())
        .filter_map(|c| {
            Some((
                c["id"].as_str()?.to_string(),
                c["suggested"].as_str()?.to_string(),
            ))
        })
        .collect();
    if let Value::Object(m) = &mut saved {
        // The stored version's system fields are not part of a configuration to save.
        m.retain(|k, _| !k.starts_with('_') || k == "_id");
        if let Some(Value::Array(checks)) = m.get_mut("checks") {
            for c in checks {
                if let Some((_, e)) = suggested.iter().find(|(id, _)| c["id"] == id.as_str()) {
                    c["expression"] = json!(e);
                }
            }
        }
    }
    saved
}

fn write_json(file: &PathBuf, doc: &Value) -> Result<()> {
    let text = serde_json::to_string_pretty(doc).unwrap_or_default() + "\n";
    std::fs::write(file, text)
        .map_err(|e| Error::invalid_parameter(format!("cannot write {}: {e}", file.display())))?;
    eprintln!("configuration written to {}", file.display());
    Ok(())
}

/// The message of an answer that queued a background job.
fn queued(out: &Value) -> Option<&str> {
    (out["background"] == true)
        .then(|| out["message"].as_str())
        .flatten()
}

fn print_queued_or_json(out: &Value, format: Format) -> Result<()> {
    match (format, queued(out)) {
        (Format::Table, Some(m)) => write_out(&format!("{m}\n")),
        _ => print_json(out),
    }
}

/// `7 points: valid 4, warning 1, severe 2`.
fn counts_line(n: u64, what: &str, counts: &Value) -> String {
    let parts: Vec<String> = counts
        .as_object()
        .into_iter()
        .flatten()
        .map(|(status, k)| format!("{status} {}", text(k)))
        .collect();
    let plural = if n == 1 { "" } else { "s" };
    if parts.is_empty() {
        format!("{n} {what}{plural}")
    } else {
        format!("{n} {what}{plural}: {}", parts.join(", "))
    }
}

/// Rows with their columns padded to the widest cell (the last column is not padded).
fn table<const N: usize>(rows: &[[String; N]]) -> String {
    let mut widths = [0; N];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 < N {
                line.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            } else {
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A JSON value as table text (strings without quotes, null empty).
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn print_json(v: &Value) -> Result<()> {
    write_out(&(serde_json::to_string_pretty(v).unwrap_or_default() + "\n"))
}

/// Writes to standard output; a reader that stops early (`| head`) is not an error.
fn write_out(text: &str) -> Result<()> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Internal(format!(
            "cannot write to standard output: {e}"
        ))),
        _ => Ok(()),
    }
}

/// A JSON file, or standard input for '-'.
fn read_json(file: PathBuf) -> Result<Value> {
    let text = if file.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| Error::invalid_parameter(format!("cannot read standard input: {e}")))?;
        s
    } else {
        std::fs::read_to_string(&file)
            .map_err(|e| Error::invalid_parameter(format!("cannot read {}: {e}", file.display())))?
    };
    serde_json::from_str(&text).map_err(|e| {
        Error::new(
            ErrorCode::InvalidJson,
            format!("{} is not valid JSON: {e}", file.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_pad_all_but_the_last_column() {
        let rows = [
            [
                "2024-07-01".to_string(),
                "valid".into(),
                "all passed".into(),
            ],
            ["2024-07-10".into(), "severe".into(), String::new()],
        ];
        assert_eq!(
            table(&rows),
            "2024-07-01  valid   all passed\n2024-07-10  severe\n"
        );
    }

    #[test]
    fn counts_lines() {
        assert_eq!(
            counts_line(3, "point", &json!({"valid": 2, "severe": 1})),
            "3 points: valid 2, severe 1"
        );
        assert_eq!(counts_line(1, "target", &json!({})), "1 target");
    }

    #[test]
    fn tuned_configs_take_the_suggested_expressions() {
        let saved = json!({"_id": "A:B", "_version": 3, "kind": "timeseries", "checks": [
            {"id": "range", "expression": "between(value, 20, 52)"},
            {"id": "positive", "expression": "value > 0"}
        ]});
        let out = json!({"results": [{"checks": [
            {"id": "range", "suggested": "between(value, 20, 60)"},
            {"id": "positive", "suggested": null}
        ]}]});
        assert_eq!(
            tuned_config(saved, &out),
            json!({"_id": "A:B", "kind": "timeseries", "checks": [
                {"id": "range", "expression": "between(value, 20, 60)"},
                {"id": "positive", "expression": "value > 0"}
            ]})
        );
    }

    #[test]
    fn requests_carry_only_what_is_given() {
        let sel = Selection {
            points: Points {
                points: vec![],
                from: Some("2024-07-01".into()),
                to: None,
            },
            checks: vec!["positive".into()],
            tenors: vec![],
            format: Format::Json,
        };
        assert_eq!(
            request(Some("A:B"), &sel, true, None),
            json!({"target": "A:B", "from": "2024-07-01", "checks": ["positive"], "background": true})
        );
    }
}
