//! `platform validate run|test|many|suggest|tune|stats|records|override|jobs|config` on a
//! database file (through the core) or a server (`--url`, through its REST interface), and
//! `validate work` on a database file.
//!
//! `run` and `test` build the request body of the validation interface
//! (`{target, points, from, to, checks, tenors, background}`) and send it as one request
//! ([`calls::Function`]) to the file or the server, so a run here stores the same records as
//! one over HTTP and prints the same. A run that goes to the background is followed to its end
//! (on a file this process runs it when no server's worker does; through a server the server
//! runs it); `work` runs the queued jobs of a file no server works on.

use clap::{Args, Subcommand, ValueEnum};
use platform_core::{Error, Result};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// A run over more explicit points than this shows a spinner (a range always does).
const SPINNER_POINTS: usize = 10;

mod calls;
mod jobs;
mod print;
mod records;

use crate::output::{print_json, text, Format, Table};
use crate::target::TargetArgs;
use calls::{Function, GetConfig, Jobs, SaveConfig, Stats};
use jobs::{follow, with_spinner, work};
use print::{print_many, print_run, print_suggest, print_tune};

/// Which record statuses make `run`, `test` and `many` exit with 1 (a pipeline's gate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// failed, severe or error.
    Failed,
    /// warning too.
    Warning,
    /// Never: print the answer and exit 0.
    Never,
}

impl FailOn {
    fn gates(self, status: &str) -> bool {
        match self {
            FailOn::Never => false,
            FailOn::Failed => matches!(status, "failed" | "severe" | "error"),
            FailOn::Warning => matches!(status, "failed" | "severe" | "error" | "warning"),
        }
    }
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
    /// Exit with 1 when a record ends with one of these statuses: failed (failed, severe or
    /// error), warning (those and warning) or never.
    #[arg(long, value_enum, default_value = "failed")]
    fail_on: FailOn,
    /// In a table or CSV, every point: without it only the points that did not pass (warning,
    /// failed, error, severe), and the count of those left out.
    #[arg(long)]
    all: bool,
}

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    on: TargetArgs,
    /// The data item, OBJECT:PROPERTY (it needs a saved validation configuration).
    target: String,
    #[command(flatten)]
    selection: Selection,
    /// Queue the run as a background job and wait for it as for any run.
    #[arg(long)]
    background: bool,
    /// Do not wait for a run that goes to the background (over the configuration's maxPoints,
    /// or --background): print its job and exit 0; `validate jobs` follows it.
    #[arg(long)]
    no_wait: bool,
    #[command(flatten)]
    server_wait: ServerWait,
}

/// How a run through a server waits for its background job.
#[derive(Args)]
struct ServerWait {
    /// Through a server (--url): the seconds the run's request waits for a job that goes to
    /// the background (`_wait`, 0 to 60) before this command follows the job.
    #[arg(long, value_name = "SECS", default_value_t = 3,
          value_parser = clap::value_parser!(u64).range(0..=60))]
    server_wait: u64,
}

impl ServerWait {
    /// The run, waiting within its request unless `no_wait`.
    fn apply(&self, mut run: Function, no_wait: bool) -> Function {
        if !no_wait {
            run.wait = Some(self.server_wait);
        }
        run
    }
}

#[derive(Args)]
pub struct TestArgs {
    #[command(flatten)]
    on: TargetArgs,
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
    on: TargetArgs,
    /// The data items, OBJECT:PROPERTY (more than 25 go to a background job).
    #[arg(required = true)]
    targets: Vec<String>,
    #[command(flatten)]
    points: Points,
    /// Queue the runs as a background job (a range always is) and wait for it as for any run.
    #[arg(long)]
    background: bool,
    /// Do not wait for runs that go to the background: print the job and exit 0.
    #[arg(long)]
    no_wait: bool,
    #[command(flatten)]
    server_wait: ServerWait,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
    /// Exit with 1 when a data item ends with one of these statuses: failed (failed, severe or
    /// error), warning (those and warning) or never.
    #[arg(long, value_enum, default_value = "failed")]
    fail_on: FailOn,
}

#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    on: TargetArgs,
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
    on: TargetArgs,
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
    on: TargetArgs,
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
        on: TargetArgs,
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
        on: TargetArgs,
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
    /// List the validation records (one per data point), filtered like objects; the total
    /// goes to standard error.
    Records(records::RecordsArgs),
    /// Override failing validation records with a reason (or with --remove take overrides
    /// back); prints each record's outcome and fails when one was not changed.
    Override(records::OverrideArgs),
    /// List the background jobs, newest first.
    Jobs {
        #[command(flatten)]
        on: TargetArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// Run the queued background jobs of the file (every tenant's) until none is left.
    ///
    /// Jobs a stopped server left running are queued again first; while a server works on the
    /// same file this refuses: its worker runs the jobs there.
    Work {
        #[command(flatten)]
        db: crate::local::DbArg,
    },
    /// Save or read validation configurations.
    #[command(subcommand)]
    Config(ConfigCommand),
}

/// Runs a validate command; `Ok(false)` when the data did not pass the `--fail-on` gate (the
/// answer is printed either way).
pub fn run(cmd: ValidateCommand) -> Result<bool> {
    match cmd {
        ValidateCommand::Run(args) => run_one(args),
        ValidateCommand::Test(args) => test(args),
        ValidateCommand::Many(args) => many(args),
        ValidateCommand::Suggest(args) => suggest(args),
        ValidateCommand::Tune(args) => tune(args),
        ValidateCommand::Stats(args) => stats(args),
        ValidateCommand::Records(args) => records::records(args).map(|()| true),
        ValidateCommand::Override(args) => records::override_records(args).map(|()| true),
        ValidateCommand::Jobs { on, format } => list_jobs(on, format),
        ValidateCommand::Work { db } => work(&db.open()?).map(|()| true),
        ValidateCommand::Config(cmd) => config(cmd).map(|()| true),
    }
}

/// `validate run`: one data item validated, waited for unless `--no-wait`.
fn run_one(args: RunArgs) -> Result<bool> {
    let body = request(Some(&args.target), &args.selection, args.background, None);
    let target = args.on.open()?;
    let run = args
        .server_wait
        .apply(Function::new("run", body), args.no_wait);
    let out = with_spinner(long(&args.selection.points), "validating", || {
        target.send(run)
    })?
    .body;
    let out = if args.no_wait {
        out
    } else {
        follow(&target, out)?
    };
    print_run(&out, args.selection.format, args.selection.all)?;
    Ok(passes(&out, args.selection.fail_on))
}

/// `validate test`: checks tried on a data item, nothing stored.
fn test(args: TestArgs) -> Result<bool> {
    let config = args
        .config
        .as_deref()
        .map(|f| crate::input::read_json(Some(f)))
        .transpose()?;
    let body = request(args.target.as_deref(), &args.selection, false, config);
    let target = args.on.open()?;
    let out = with_spinner(long(&args.selection.points), "testing", || {
        target.send(Function::new("test", body))
    })?
    .body;
    print_run(&out, args.selection.format, args.selection.all)?;
    Ok(passes(&out, args.selection.fail_on))
}

/// `validate many`: several data items validated, waited for unless `--no-wait`.
fn many(args: ManyArgs) -> Result<bool> {
    let mut body = json!({"targets": args.targets});
    add_points(&mut body, &args.points);
    if args.background {
        body["background"] = json!(true);
    }
    let target = args.on.open()?;
    let run = args
        .server_wait
        .apply(Function::new("runMany", body), args.no_wait);
    let out = with_spinner(args.targets.len() > 1, "validating", || target.send(run))?.body;
    let out = if args.no_wait {
        out
    } else {
        follow(&target, out)?
    };
    print_many(&out, args.format)?;
    Ok(passes(&out, args.fail_on))
}

/// `validate suggest`: checks proposed from history; with `--write`, the configurations
/// written to a file (refused when an item has none).
fn suggest(args: SuggestArgs) -> Result<bool> {
    let mut body = json!({"targets": args.targets, "kind": args.kind});
    args.span.add_to(&mut body);
    let target = args.on.open()?;
    let out = with_spinner(true, "suggesting", || {
        target.send(Function::new("suggest", body))
    })?
    .body;
    print_suggest(&out, args.format)?;
    // An item without checks (too little data, or an error) leaves nothing to save:
    // no file, and the command fails rather than write a configuration of no checks.
    let empty: Vec<String> = out["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["config"]["checks"].as_array().is_none_or(Vec::is_empty))
        .map(|r| text(r.get("target")))
        .collect();
    if !empty.is_empty() {
        return Err(Error::invalid_parameter(format!(
            "nothing to suggest for {}{}",
            empty.join(", "),
            if args.write.is_some() {
                "; no configuration written"
            } else {
                ""
            }
        )));
    }
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
    Ok(true)
}

/// `validate tune`: a configuration's thresholds relaxed to pass overridden points; with
/// `--write`, the tuned configuration written to a file.
fn tune(args: TuneArgs) -> Result<bool> {
    let mut item = json!({"target": args.target, "points": args.points});
    if !args.tenors.is_empty() {
        item["tenors"] = json!(args.tenors);
    }
    let mut body = json!({"items": [item]});
    args.span.add_to(&mut body);
    let target = args.on.open()?;
    let out = with_spinner(true, "tuning", || target.send(Function::new("tune", body)))?.body;
    print_tune(&out, args.format)?;
    let errors: Vec<String> = out["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            Some(format!(
                "{}: {}",
                text(r.get("target")),
                r["error"].as_str()?
            ))
        })
        .collect();
    if !errors.is_empty() {
        return Err(Error::invalid_parameter(format!(
            "tune could not run: {}{}",
            errors.join("; "),
            if args.write.is_some() {
                "; no configuration written"
            } else {
                ""
            }
        )));
    }
    if let Some(file) = &args.write {
        let saved = target
            .send(GetConfig {
                target: args.target.clone(),
                version: None,
            })?
            .body;
        write_json(file, &tuned_config(saved, &out))?;
    }
    Ok(true)
}

/// `validate stats`: the dashboard's counts.
fn stats(args: StatsArgs) -> Result<bool> {
    let mut pairs = Vec::new();
    for (k, v) in [
        ("from", args.from),
        ("to", args.to),
        ("target", args.target),
        ("kind", args.kind),
        ("group", args.group),
    ] {
        if let Some(v) = v {
            pairs.push((k.to_string(), v));
        }
    }
    let out = args.on.open()?.send(Stats { pairs })?.body;
    print_json(&out)?;
    Ok(true)
}

/// `validate jobs`: the background jobs and their progress.
fn list_jobs(on: TargetArgs, format: Format) -> Result<bool> {
    let answer = on.open()?.send(Jobs)?.body;
    let jobs = answer.as_array().map_or(&[][..], Vec::as_slice);
    let rows = || {
        let mut t = Table::new(&["job", "status", "progress", "message"]);
        for j in jobs {
            t.push(vec![
                text(j.get("_id")),
                text(j.get("status")),
                format!("{}%", text(j.get("progress"))),
                text(j.get("message")),
            ]);
        }
        t
    };
    crate::output::print(format, &answer, rows, &format!("{} job(s)\n", jobs.len()))?;
    Ok(true)
}

/// Whether an answer passes the gate: no status it counts (records of a run or test, data
/// items of a runMany) is one `fail_on` names. A run sent to the background passes (it has not
/// run yet).
fn passes(out: &Value, fail_on: FailOn) -> bool {
    if queued(out).is_some() {
        return true;
    }
    let failing: Vec<String> = out["counts"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(status, n)| fail_on.gates(status) && n.as_u64().unwrap_or(0) > 0)
        .map(|(status, n)| format!("{} {status}", text(Some(n))))
        .collect();
    if failing.is_empty() {
        return true;
    }
    eprintln!("did not pass: {}", failing.join(", "));
    false
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

fn config(cmd: ConfigCommand) -> Result<()> {
    let out = match cmd {
        ConfigCommand::Put {
            on,
            file,
            replace,
            reason,
        } => {
            let body = crate::input::read_json(file.as_deref())?;
            let save = SaveConfig {
                body,
                replace,
                reason,
            };
            on.open()?.send(save)?.body
        }
        ConfigCommand::Get {
            on,
            target,
            version,
        } => on.open()?.send(GetConfig { target, version })?.body,
    };
    print_json(&out)
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

#[cfg(test)]
mod tests;
