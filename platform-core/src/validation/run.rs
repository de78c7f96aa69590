//! The validation service functions: `run`, `test`, `runMany`, `override`, `removeOverride`,
//! `comment`, record reads and `stats`.
//!
//! Points: `points` (observation times or ondates), `point`/`ondate` (one), `from`/`to` (a date
//! range; curves: their ondates in the range, up to today); none means the latest point (curves:
//! the newest ondate). `checks` runs only some checks, `tenors` only some tenors. `test` stores
//! nothing and takes at most 100 points; a `run` over more than `maxPoints` points, or with
//! `background: true`, goes to a background job.

use super::config::{self, severity_name, Config, Kind};
use super::engine::{CheckDef, CheckScope, CheckStatus, ContractInput, CurveInput, SeriesInput};
use super::records::{
    self, status_code, status_name, CheckMeta, CheckResult, CheckedValue, Chunk, Context,
    PointFormat, PointResult, Record, RunInfo, Summary, SKIPPED, VALID, WARNING,
};
use crate::auth::Principal;
use crate::data::calendar::{parse_time, Calendar};
use crate::data::curve;
use crate::data::model::{Point, PointValue};
use crate::data::series::{self, Window};
use crate::data::{series_settings, DataKind};
use crate::documents::json_kind;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::query::Filter;
use crate::store::{Collection, DataKey, ReadTx, RecordChunkRow};
use crate::Platform;
use chrono::NaiveDate;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// Most points a `test` may check.
pub const MAX_TEST_POINTS: usize = 100;
/// Most data items `runMany` runs at once.
pub const MAX_RUN_MANY: usize = 25;
/// Most ids an override, removeOverride or comment call takes.
pub const MAX_IDS: usize = 500;

/// A parsed run or test request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunRequest {
    /// The data id.
    pub target: Option<String>,
    /// A configuration to try (test only).
    pub config: Option<Value>,
    /// Points by text.
    pub points: Vec<String>,
    /// Range start (date or time).
    pub from: Option<String>,
    /// Range end (inclusive).
    pub to: Option<String>,
    /// Only these checks.
    pub checks: Option<Vec<String>>,
    /// Only these tenors.
    pub tenors: Option<Vec<String>>,
    /// Run in the background.
    pub background: bool,
}

fn strings(v: Option<&Value>, name: &str) -> Result<Option<Vec<String>>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str().map(str::to_string).ok_or_else(|| {
                    Error::invalid_body(format!("{name} must be an array of strings"))
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(other) => Err(Error::invalid_body(format!(
            "{name} must be an array, not {}",
            json_kind(other)
        ))),
    }
}

impl RunRequest {
    /// Reads a request body.
    pub fn from_json(body: &Value) -> Result<RunRequest> {
        let Value::Object(m) = body else {
            return Err(Error::invalid_body("the request must be a JSON object"));
        };
        let text = |k: &str| -> Result<Option<String>> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(Error::invalid_body(format!(
                    "{k} must be a string, not {}",
                    json_kind(other)
                ))),
            }
        };
        let mut points = strings(m.get("points"), "points")?.unwrap_or_default();
        for one in ["point", "ondate"] {
            if let Some(p) = text(one)? {
                points.push(p);
            }
        }
        let (from, to) = (text("from")?, text("to")?);
        // Every time of the request is a time, whatever the data: checked here, a malformed
        // request is refused before it runs, is queued as a job, or fans out to data items.
        for t in points.iter().chain(&from).chain(&to) {
            crate::data::timetext::parse_time_text(t)?;
        }
        Ok(RunRequest {
            target: text("target")?,
            config: m.get("config").cloned(),
            points,
            from,
            to,
            checks: strings(m.get("checks"), "checks")?,
            tenors: strings(m.get("tenors"), "tenors")?,
            background: match m.get("background") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(Error::invalid_body(format!(
                        "background must be true or false, not {}",
                        json_kind(other)
                    )))
                }
            },
        })
    }
}

/// What the runner needs of a configuration, compiled.
struct Prepared {
    config: Config,
    compiled: std::sync::Arc<super::engine::CompiledChecks>,
    scripts_ms: f64,
}

fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e5).round() / 100.0
}

/// Record fields a run or test answers with, per point (besides `status` and `previous`).
const RESULT_FIELDS: [&str; 16] = [
    "_id",
    "target",
    "name",
    "group",
    "tags",
    "kind",
    "point",
    "pointDate",
    "value",
    "message",
    "checks",
    "tenors",
    "failedTenors",
    "warningTenors",
    "tenorCounts",
    "contracts",
];

/// A run checked but not stored yet.
pub(crate) struct Checked {
    target: String,
    config: Config,
    results: Vec<PointResult>,
    /// The checks of the results, as records show them.
    set: Vec<CheckMeta>,
    /// Milliseconds per point of each check.
    check_ms: Vec<f64>,
    format: Option<PointFormat>,
    truncated: bool,
    test: bool,
    /// Only some checks or tenors ran (such runs raise no data events).
    partial: bool,
    origin: String,
    timings: (f64, f64, f64),
    /// The records laid into their chunks on the checking thread (see `commit_run`); the
    /// results are then in them (and `results` is empty).
    built: Option<Built>,
    /// The keys the results span and the buckets they fall in.
    span: ((i64, i64), (i64, i64)),
}

/// What `plan_run` found to do.
pub(crate) enum Planned {
    /// Sent to the background: the answer.
    Answer(Value),
    /// Nothing ran: the answer, the configuration's name, and why when it could not run.
    Nothing {
        answer: Value,
        name: Value,
        error: Option<&'static str>,
    },
    /// Points checked, to be stored (or shown, for a test).
    Checked(Box<Checked>),
}

/// A stored (or tested) run.
pub(crate) struct Done {
    target: String,
    /// The configuration's name.
    name: Value,
    kind: Kind,
    test: bool,
    /// Per point: the status.
    statuses: Vec<u8>,
    /// Record id and point of the first points (of every point when the answer is detailed
    /// or the quality status is written).
    listed: Vec<(String, String)>,
    /// Curves: the failed tenors of each point.
    failed_tenors: Vec<Value>,
    counts: Map<String, Value>,
    truncated: bool,
    timings: Value,
    /// The per-point answers (when asked for).
    results: Option<Vec<Value>>,
}

impl Done {
    fn into_json(self) -> Value {
        let mut base =
            json!({"target": self.target, "kind": self.kind.as_str(), "test": self.test});
        base["points"] = json!(self.statuses.len());
        base["records"] = json!(if self.test { 0 } else { self.statuses.len() });
        base["counts"] = Value::Object(self.counts);
        base["truncated"] = json!(self.truncated);
        base["timings"] = self.timings;
        base["message"] = Value::Null;
        base["results"] = Value::Array(self.results.unwrap_or_default());
        base
    }
}

/// The answer of a run that checked nothing: every key of a run's answer, with the time spent
/// loading scripts and reading data.
fn empty_answer(
    target: &str,
    kind: Kind,
    test: bool,
    message: &str,
    (scripts, read): (f64, f64),
) -> Value {
    json!({"target": target, "kind": kind.as_str(), "test": test, "points": 0, "records": 0,
        "counts": {}, "truncated": false,
        "timings": {"scripts": scripts, "read": read, "checks": 0.0, "save": 0.0},
        "message": message, "results": []})
}

impl Platform {
    fn prepare(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        req: &RunRequest,
        test: bool,
    ) -> Result<(String, Prepared)> {
        let started = Instant::now();
        let doc = match (&req.config, test) {
            (Some(Value::Object(inline)), true) => config::normalise(inline.clone())?,
            (Some(_), true) => return Err(Error::invalid_body("config must be an object")),
            (Some(_), false) => {
                return Err(Error::invalid_body(
                    "config is for test only; run uses the saved configuration",
                ))
            }
            (None, _) => {
                let target = req
                    .target
                    .as_deref()
                    .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "target is missing"))?;
                tx.current(Collection::ValidationConfig, &p.private_scope(), target)?
                    .ok_or_else(|| {
                        Error::invalid_parameter(format!(
                            "\"{target}\" has no validation configuration"
                        ))
                    })?
                    .body
            }
        };
        let mut config = Config::from_doc(doc)?;
        let target = req.target.clone().unwrap_or_else(|| config.target.clone());
        if target.is_empty() {
            return Err(Error::new(ErrorCode::MissingParameter, "target is missing"));
        }
        config.target = target.clone();
        if let Some(only) = &req.checks {
            for id in only {
                if !config.checks.iter().any(|(d, _)| &d.id == id) {
                    return Err(Error::invalid_parameter(format!(
                        "{target} has no check \"{id}\""
                    )));
                }
            }
            for (def, on) in &mut config.checks {
                *on = *on && only.contains(&def.id);
            }
        }
        let libs = config::libraries(tx, p, &config)?;
        let compiled = config::compile_cached(&config, &libs)?;
        Ok((
            target,
            Prepared {
                config,
                compiled,
                scripts_ms: ms(started),
            },
        ))
    }

    /// `run` (stores records) or `test` (stores nothing) of one data item.
    pub fn validation_run(
        &self,
        p: &Principal,
        body: &Value,
        test: bool,
        origin: &str,
    ) -> Result<Value> {
        self.run_now(p, body, test, origin, false)
    }

    /// A run or test; `in_job` when a background job does it (it never goes to the background
    /// again).
    fn run_now(
        &self,
        p: &Principal,
        body: &Value,
        test: bool,
        origin: &str,
        in_job: bool,
    ) -> Result<Value> {
        match self.plan_run(p, body, test, origin, in_job, true)? {
            Planned::Answer(v) | Planned::Nothing { answer: v, .. } => Ok(v),
            Planned::Checked(c) => Ok(self.commit_run(p, *c, true)?.into_json()),
        }
    }

    /// Reads and checks the points of a run (a background run, a delayed one, or one past
    /// `maxPoints`, is queued instead unless `in_job`).
    pub(crate) fn plan_run(
        &self,
        p: &Principal,
        body: &Value,
        test: bool,
        origin: &str,
        in_job: bool,
        detail: bool,
    ) -> Result<Planned> {
        if !test {
            p.require(crate::auth::Role::Writer, "running validation")?;
        }
        let req = RunRequest::from_json(body)?;
        if req.background {
            if test {
                return Err(Error::invalid_parameter(
                    "background applies to run: a test runs at once",
                ));
            }
            if !req.points.is_empty() || (req.from.is_none() && req.to.is_none()) {
                return Err(Error::invalid_parameter(
                    "a background run needs a range (from, to), not points",
                ));
            }
        }
        let delay = super::jobs::delay_of(body)?.filter(|d| !d.is_zero());
        if test && delay.is_some() {
            return Err(Error::invalid_parameter(
                "_delay applies to run: a test runs at once",
            ));
        }
        if test && req.points.len() > MAX_TEST_POINTS {
            return Err(Error::invalid_parameter(format!(
                "test checks at most {MAX_TEST_POINTS} points; {} were given",
                req.points.len()
            )));
        }
        let tx = self.read()?;
        let (target, prep) = self.prepare(tx.as_ref(), p, &req, test)?;
        if delay.is_some() && !in_job {
            // A delayed run is a job that may not start before its time; no thread waits.
            drop(tx);
            return self
                .queue_job(p, "run", json!({"request": body, "origin": "background"}))
                .map(Planned::Answer);
        }
        let read_started = Instant::now();
        let data = self.load_points(tx.as_ref(), p, &target, &prep.config, &req)?;
        drop(tx);
        let read_ms = ms(read_started);
        let count = data.count();
        if test && count > MAX_TEST_POINTS {
            return Err(Error::invalid_parameter(format!(
                "test checks at most {MAX_TEST_POINTS} points; the range holds {count}"
            )));
        }
        if !test && !in_job && (req.background || count > prep.config.options.max_points) {
            return self
                .queue_job(p, "run", json!({"request": body, "origin": "background"}))
                .map(Planned::Answer);
        }
        let kind = prep.config.kind;
        let nothing = |message: &str, error: Option<&'static str>| Planned::Nothing {
            answer: empty_answer(&target, kind, test, message, (prep.scripts_ms, read_ms)),
            name: prep.config.doc.get("name").cloned().unwrap_or(Value::Null),
            error,
        };
        if !prep.config.enabled {
            return Ok(nothing("the configuration is disabled", Some("disabled")));
        }
        if count == 0 {
            return Ok(nothing("no data points to check", None));
        }
        let checks_started = Instant::now();
        let (results, set, check_ms) = evaluate(&prep, &data, req.tenors.as_deref());
        let checks_ms = ms(checks_started);
        let format = match &data {
            Loaded::Series { calendar, tz, .. } => Some(PointFormat {
                calendar: *calendar,
                tz: *tz,
            }),
            Loaded::Curves { .. } => None,
        };
        let mut checked = Checked {
            target,
            truncated: data.truncated(),
            config: prep.config,
            results,
            set,
            check_ms,
            format,
            test,
            partial: req.checks.is_some() || req.tenors.is_some(),
            origin: origin.to_string(),
            timings: (prep.scripts_ms, read_ms, checks_ms),
            built: None,
            span: ((0, 0), (0, 0)),
        };
        checked.span = run_span(&checked);
        if !test {
            let ctx = self.run_context(p, &checked);
            let tx = self.read()?;
            let results = std::mem::take(&mut checked.results);
            checked.built = Some(build(
                Some(tx.as_ref()),
                &p.private_scope(),
                &checked,
                results,
                &ctx,
                detail,
            )?);
        }
        Ok(Planned::Checked(Box::new(checked)))
    }

    /// Stores the records of a checked run (not for a test), writes the quality status when
    /// the configuration asks for it, and answers; `detail` builds the per-point answers.
    ///
    /// The records were laid into their chunks by the thread that checked them, on its read
    /// snapshot; here the chunks are read again and, when they are still the ones it saw, its
    /// rows are written as they are (else they are laid again, here). So the one writer only
    /// compares and writes, and checking runs in parallel.
    pub(crate) fn commit_run(&self, p: &Principal, mut c: Checked, detail: bool) -> Result<Done> {
        let save_started = Instant::now();
        let scope = p.private_scope();
        let results = std::mem::take(&mut c.results);
        let built = if c.test {
            let ctx = self.run_context(p, &c);
            build(None, &scope, &c, results, &ctx, detail)?
        } else {
            let pre = c.built.take();
            let built = self.write(|tx| {
                let seen = seen_rows(&*tx, &scope, &c)?;
                let mut built = match pre {
                    Some(b) if b.seen == seen && b.detail == detail => b,
                    pre => {
                        // Laid out on chunks that changed since (or without the answers):
                        // again, from the results (kept in the laid-out records).
                        let results = match pre {
                            Some(b) if results.is_empty() => results_of(&b)?,
                            _ => results,
                        };
                        let ctx = self.run_context(p, &c);
                        build(Some(&*tx), &scope, &c, results, &ctx, detail)?
                    }
                };
                for row in &built.rows {
                    tx.put_record_chunk(&scope, row)?;
                }
                if let Some(events) = built.events.take() {
                    events.emit(&mut *tx, p)?;
                }
                // Records, events and quality statuses commit together.
                if c.config.options.write_status {
                    let written: Vec<Value> = built
                        .listed
                        .iter()
                        .zip(&built.statuses)
                        .map(|((_, point), status)| json!({"point": point, "status": status_name(*status)}))
                        .collect();
                    self.write_status(tx, p, &c.target, c.config.kind, &written)?;
                }
                Ok(built)
            })?;
            built
        };
        let mut counts: Map<String, Value> = Map::new();
        for s in &built.statuses {
            let name = status_name(*s);
            let n = counts.get(name).and_then(Value::as_u64).unwrap_or(0) + 1;
            counts.insert(name.to_string(), json!(n));
        }
        let (scripts, read, checks) = c.timings;
        Ok(Done {
            target: c.target,
            name: c.config.doc.get("name").cloned().unwrap_or(Value::Null),
            kind: c.config.kind,
            test: c.test,
            statuses: built.statuses,
            listed: built.listed,
            failed_tenors: built.failed_tenors,
            counts,
            truncated: c.truncated,
            timings: json!({"scripts": scripts, "read": read, "checks": checks, "save": ms(save_started)}),
            results: built.answers,
        })
    }

    /// Who runs, how and when.
    fn run_context(&self, p: &Principal, c: &Checked) -> Context {
        Context {
            user: p.user.clone(),
            origin: c.origin.clone(),
            now: self.now(),
        }
    }
}

/// The records of a run laid into their chunks, ready to store.
pub(crate) struct Built {
    /// The stored chunks they were laid on: (bucket, bytes).
    seen: Vec<(i64, Vec<u8>)>,
    /// The chunks to write.
    rows: Vec<RecordChunkRow>,
    /// Per point: the status.
    statuses: Vec<u8>,
    /// Record id and point of the first points (every point when detailed or the quality
    /// status is written).
    listed: Vec<(String, String)>,
    /// Curves: the failed tenors of each point.
    failed_tenors: Vec<Value>,
    /// The per-point answers, when detailed.
    answers: Option<Vec<Value>>,
    /// Whether the answers were built.
    detail: bool,
    /// The events the run raises (not for a test).
    events: Option<crate::events::rules::RunEvents>,
}

/// The results a run laid into chunks: the records its run touched, as fresh results.
fn results_of(built: &Built) -> Result<Vec<PointResult>> {
    let mut out = Vec::with_capacity(built.statuses.len());
    for row in &built.rows {
        let chunk = Chunk::decode(&row.target, row.seq, &row.body)?;
        // The run was added to each chunk it touched, last.
        let run = chunk.runs.len().saturating_sub(1) as u32;
        for r in chunk.records.into_iter().filter(|r| r.last_run == run) {
            out.push(PointResult {
                key: r.key,
                explicit: r.explicit,
                value: r.value,
                status: r.checked,
                set: 0,
                checks: r.checks,
                message: r.message,
                hash: r.hash,
                extra: records::result_extra(r.extra),
            });
        }
    }
    out.sort_by_key(|r| r.key);
    Ok(out)
}

/// The keys a run's results span and the buckets they fall in.
fn run_span(c: &Checked) -> ((i64, i64), (i64, i64)) {
    let lo = c.results.iter().map(|r| r.key).min().unwrap_or(0);
    let hi = c.results.iter().map(|r| r.key).max().unwrap_or(0);
    let f = c.format.as_ref();
    (
        (lo, hi),
        (records::bucket_of(lo, f), records::bucket_of(hi, f)),
    )
}

/// The stored chunks a run's records go to.
fn chunk_rows(tx: &dyn ReadTx, scope: &Scope, c: &Checked) -> Result<Vec<RecordChunkRow>> {
    let (keys, buckets) = c.span;
    tx.record_chunks(
        scope,
        Some(std::slice::from_ref(&c.target)),
        Some(keys),
        Some(buckets),
    )
}

fn seen_rows(tx: &dyn ReadTx, scope: &Scope, c: &Checked) -> Result<Vec<(i64, Vec<u8>)>> {
    Ok(chunk_rows(tx, scope, c)?
        .into_iter()
        .map(|row| (row.seq, row.body))
        .collect())
}

/// Lays the results of a run into the chunks stored in `tx` (a test, without `tx`: into a
/// fresh chunk, stored nowhere).
fn build(
    tx: Option<&dyn ReadTx>,
    scope: &Scope,
    c: &Checked,
    results: Vec<PointResult>,
    ctx: &Context,
    detail: bool,
) -> Result<Built> {
    let kind_text = c.config.kind.as_str();
    let format = c.format;
    let run_info = RunInfo {
        at: ctx.now.timestamp_millis(),
        user: ctx.user.clone(),
        origin: ctx.origin.clone(),
        name: c.config.doc.get("name").cloned().unwrap_or(Value::Null),
        group: c.config.doc.get("group").cloned().unwrap_or(Value::Null),
        tags: c.config.doc.get("tags").cloned().unwrap_or(Value::Null),
        ms: c.check_ms.clone(),
    };
    let list_all = detail || c.config.options.write_status;
    let expected = results.len();
    let mut built = Built {
        seen: Vec::new(),
        rows: Vec::new(),
        statuses: Vec::with_capacity(expected),
        listed: Vec::new(),
        failed_tenors: Vec::new(),
        answers: detail.then(Vec::new),
        detail,
        events: None,
    };
    let mut note = |chunk: &Chunk, rec: &Record, t: &records::Transition| {
        if list_all || built.listed.len() < MAX_LISTED {
            let (point, _) = chunk.texts(rec);
            built
                .listed
                .push((format!("{}:{point}", chunk.target), point));
        }
        if let Some(a) = &mut built.answers {
            let mut item: Map<String, Value> = chunk
                .materialize(rec)
                .into_iter()
                .filter(|(k, _)| RESULT_FIELDS.contains(&k.as_str()))
                .collect();
            item.insert("status".into(), json!(t.status));
            item.insert(
                "previous".into(),
                t.previous.as_deref().map_or(Value::Null, |s| json!(s)),
            );
            a.push(Value::Object(item));
        }
        built.failed_tenors.extend(tenors_of(rec));
        built.statuses.push(rec.status);
    };
    let Some(tx) = tx else {
        let mut chunk = Chunk::new(&c.target, 0, kind_text, format);
        let run = chunk.add_run(run_info);
        chunk.set_index(&c.set);
        for r in results {
            let (rec, t) = records::apply_run(None, r, run, ctx);
            note(&chunk, &rec, &t);
        }
        return Ok(built);
    };
    let wants = crate::events::rules::wants(tx, scope, &c.target)?;
    let mut events = crate::events::rules::RunEvents::new(wants, &c.target, c.partial, ctx);
    let stored = chunk_rows(tx, scope, c)?;
    let mut chunks: Vec<Chunk> = stored
        .iter()
        .map(|row| Chunk::decode(&row.target, row.seq, &row.body))
        .collect::<Result<_>>()?;
    let seen: Vec<(i64, Vec<u8>)> = stored.into_iter().map(|row| (row.seq, row.body)).collect();
    let mut touched = vec![false; chunks.len()];
    let mut runs: Vec<Option<u32>> = vec![None; chunks.len()];
    let mut sets: Vec<Option<u32>> = vec![None; chunks.len()];
    for mut r in results {
        let bucket = records::bucket_of(r.key, format.as_ref());
        // The chunk holding the record, else the one of its bucket.
        let at = chunks
            .iter()
            .position(|ch| ch.find(r.key).is_ok())
            .or_else(|| chunks.iter().position(|ch| ch.seq == bucket));
        let i = match at {
            Some(i) => i,
            None => {
                let mut fresh = Chunk::new(&c.target, bucket, kind_text, format);
                fresh.records.reserve(expected.min(4096));
                chunks.push(fresh);
                touched.push(false);
                runs.push(None);
                sets.push(None);
                chunks.len() - 1
            }
        };
        let chunk = &mut chunks[i];
        touched[i] = true;
        let run = *runs[i].get_or_insert_with(|| chunk.add_run(run_info.clone()));
        r.set = *sets[i].get_or_insert_with(|| chunk.set_index(&c.set));
        if chunk.format != format && r.explicit.is_none() {
            // The chunk writes points another way (the calendar or time zone changed): keep
            // this one's texts as they are now.
            let texts = match &format {
                Some(f) => f.texts(r.key),
                None => chunk.derived_texts(r.key),
            };
            r.explicit = Some(Box::new(texts));
        }
        let (j, t) = match chunk.find(r.key) {
            Ok(j) => {
                let old = chunk.records[j].clone();
                let (rec, t) = records::apply_run(Some(old), r, run, ctx);
                chunk.records[j] = rec;
                (j, t)
            }
            Err(j) => {
                let (rec, t) = records::apply_run(None, r, run, ctx);
                chunk.records.insert(j, rec);
                (j, t)
            }
        };
        if events.active() {
            let mut marked = chunk.records[j].clone();
            events.record(chunk, &mut marked, &t);
            chunk.records[j] = marked;
        }
        note(chunk, &chunk.records[j], &t);
    }
    built.events = Some(events);
    built.seen = seen;
    built.rows = chunks
        .iter_mut()
        .zip(&touched)
        .filter(|(_, t)| **t)
        .map(|(chunk, _)| chunk_row(chunk))
        .collect();
    Ok(built)
}

/// The failed tenors of a curve record.
fn tenors_of(rec: &Record) -> Vec<Value> {
    rec.extra
        .as_ref()
        .and_then(|x| x.get("failedTenors"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The stored row of a chunk.
fn chunk_row(chunk: &mut Chunk) -> RecordChunkRow {
    let (first, last, statuses) = chunk.summary();
    RecordChunkRow {
        target: chunk.target.clone(),
        seq: chunk.seq,
        first,
        last,
        count: chunk.records.len() as u64,
        statuses,
        body: chunk.encode(),
    }
}

/// The data of a run: the series (with the lookback before the targets) or the curves.
enum Loaded {
    Series {
        input: SeriesInput,
        points: Vec<Point>,
        targets: Vec<usize>,
        calendar: Calendar,
        tz: chrono_tz::Tz,
        truncated: bool,
    },
    Curves {
        curves: Vec<(CurveInput, Vec<CurveInput>, Vec<curve::Contract>)>,
        truncated: bool,
    },
}

impl Loaded {
    /// Whether only part of the asked points was checked (never: large runs go to a job).
    fn truncated(&self) -> bool {
        match self {
            Loaded::Series { truncated, .. } | Loaded::Curves { truncated, .. } => *truncated,
        }
    }

    fn count(&self) -> usize {
        match self {
            Loaded::Series { targets, .. } => targets.len(),
            Loaded::Curves { curves, .. } => curves.len(),
        }
    }
}

fn date_bound(text: &str) -> Result<NaiveDate> {
    let head = text.get(..10).unwrap_or(text);
    NaiveDate::parse_from_str(head, "%Y-%m-%d")
        .map_err(|_| Error::invalid_parameter(format!("\"{text}\" is not a date (YYYY-MM-DD)")))
}

fn contract_input(c: &curve::Contract) -> ContractInput {
    let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_default();
    ContractInput {
        tenor: c.tenor.clone(),
        relative: c.relative.clone(),
        absolute: c.absolute.clone(),
        value: c.value.as_f64().filter(|v| v.is_finite()),
        start: day(&c.start),
        end: day(&c.end),
        expiry: day(&c.expiry),
    }
}

fn curve_input(stored: &curve::StoredCurve) -> CurveInput {
    CurveInput {
        ondate: NaiveDate::parse_from_str(stored.curve_date(), "%Y-%m-%d").unwrap_or_default(),
        contracts: stored.contracts.iter().map(contract_input).collect(),
    }
}

impl Platform {
    fn load_points(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        target: &str,
        config: &Config,
        req: &RunRequest,
    ) -> Result<Loaded> {
        let id = crate::data::read::DataId::parse(target)?;
        let scope = Scope::for_source(Source::of_id(&id.object), p);
        let unreadable =
            |why: &str| Error::not_found(format!("data \"{target}\" cannot be read: {why}"));
        let object = tx
            .current(Collection::Object, &scope, &id.object)?
            .ok_or_else(|| unreadable("its object does not exist"))?;
        let header = object
            .body
            .get(&id.prop)
            .and_then(Value::as_object)
            .ok_or_else(|| unreadable("no such data property"))?;
        if !p
            .grants
            .may_read(header.get("_access").and_then(Value::as_str))
        {
            return Err(unreadable("no such data property"));
        }
        let kind = DataKind::of(&Value::Object(header.clone()));
        let key = DataKey {
            scope,
            object: id.object.clone(),
            prop: id.prop.clone(),
        };
        match (config.kind, kind) {
            (Kind::TimeSeries, Some(DataKind::Series)) => {
                let (calendar, tz, _) = series_settings(&id.prop, header)?;
                let points = series::read(tx, &key, object.version, Window::All)?;
                let mut targets: Vec<usize> = Vec::new();
                if !req.points.is_empty() {
                    for text in &req.points {
                        let t = parse_time(text, tz)?;
                        let i = points.binary_search_by_key(&t, |p| p.t).map_err(|_| {
                            Error::invalid_parameter(format!(
                                "{target} has no observation at {text}"
                            ))
                        })?;
                        targets.push(i);
                    }
                    targets.sort_unstable();
                    targets.dedup();
                } else if req.from.is_some() || req.to.is_some() {
                    let lo = match &req.from {
                        Some(f) => Some(parse_time(f, tz)?),
                        None => None,
                    };
                    let hi = match &req.to {
                        // A date `to` includes its whole day.
                        Some(t) if t.len() == 10 => Some(parse_time(t, tz)? + 86_400_000 - 1),
                        Some(t) => Some(parse_time(t, tz)?),
                        None => None,
                    };
                    targets = (0..points.len())
                        .filter(|&i| {
                            lo.is_none_or(|l| points[i].t >= l)
                                && hi.is_none_or(|h| points[i].t <= h)
                        })
                        .collect();
                } else if !points.is_empty() {
                    targets.push(points.len() - 1);
                }
                let step_ms = match calendar {
                    Calendar::Daily => Some(86_400_000),
                    Calendar::Intraday(s) => Some(i64::from(s) * 1000),
                    _ => None,
                };
                let input = SeriesInput {
                    times: points.iter().map(|p| p.t).collect(),
                    values: points
                        .iter()
                        .map(|p| p.v.as_f64().filter(|v| v.is_finite()))
                        .collect(),
                    step_ms,
                };
                Ok(Loaded::Series {
                    input,
                    points,
                    targets,
                    calendar,
                    tz,
                    truncated: false,
                })
            }
            (Kind::Curve, Some(DataKind::Curve)) => {
                let today = self.now().date_naive().format("%Y-%m-%d").to_string();
                let all = tx.curves(&key, object.version, None, Some(&today), None)?;
                let mut chosen: Vec<usize> = Vec::new();
                if !req.points.is_empty() {
                    for text in &req.points {
                        let d = date_bound(text)?.format("%Y-%m-%d").to_string();
                        let i = all.iter().position(|(o, _)| *o == d).ok_or_else(|| {
                            Error::invalid_parameter(format!("{target} has no curve on {d}"))
                        })?;
                        chosen.push(i);
                    }
                } else if req.from.is_some() || req.to.is_some() {
                    let lo = req
                        .from
                        .as_deref()
                        .map(date_bound)
                        .transpose()?
                        .map(|d| d.format("%Y-%m-%d").to_string());
                    let hi = req
                        .to
                        .as_deref()
                        .map(date_bound)
                        .transpose()?
                        .map(|d| d.format("%Y-%m-%d").to_string());
                    chosen = (0..all.len())
                        .filter(|&i| {
                            lo.as_ref().is_none_or(|l| all[i].0 >= *l)
                                && hi.as_ref().is_none_or(|h| all[i].0 <= *h)
                        })
                        .collect();
                } else if !all.is_empty() {
                    chosen.push(all.len() - 1);
                }
                let depth = config.options.curve_history;
                let mut curves = Vec::with_capacity(chosen.len());
                for i in chosen {
                    let stored = curve::decode(&all[i].1)?;
                    let mut history = Vec::with_capacity(depth);
                    for j in (0..i).rev().take(depth) {
                        history.push(curve_input(&curve::decode(&all[j].1)?));
                    }
                    curves.push((curve_input(&stored), history, stored.contracts));
                }
                Ok(Loaded::Curves {
                    curves,
                    truncated: false,
                })
            }
            (k, _) => Err(unreadable(&format!(
                "it is not a {}",
                if k == Kind::Curve {
                    "curve"
                } else {
                    "time series"
                }
            ))),
        }
    }

    /// Writes the quality status of checked points into the private data (a data change that
    /// does not itself trigger validation), in the transaction of the run or override.
    fn write_status(
        &self,
        tx: &mut dyn crate::store::WriteTx,
        p: &Principal,
        target: &str,
        kind: Kind,
        results: &[Value],
    ) -> Result<()> {
        let id = crate::data::read::DataId::parse(target)?;
        let quality = |status: &str| match status {
            "warning" => "VALID:Warnings",
            s if records::is_failing(s) => "FAILED",
            _ => "VALID",
        };
        let scope = Scope::for_source(Source::of_id(&id.object), p);
        crate::documents::require_write(p, Collection::Object, &scope)?;
        let now = crate::clock::format_instant(self.now());
        {
            let object = tx
                .current(Collection::Object, &scope, &id.object)?
                .ok_or_else(|| Error::not_found(format!("data \"{target}\" not found")))?;
            let key = DataKey {
                scope: scope.clone(),
                object: id.object.clone(),
                prop: id.prop.clone(),
            };
            let header = object
                .body
                .get(&id.prop)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut item = Map::new();
            item.insert("_id".into(), json!(id.object));
            item.insert(id.prop.clone(), Value::Object(header.clone()));
            let payload = match kind {
                Kind::TimeSeries => {
                    let (_, tz, _) = series_settings(&id.prop, &header)?;
                    let stored = series::read(tx, &key, object.version, Window::All)?;
                    let mut points = Vec::new();
                    for r in results {
                        let t = parse_time(r["point"].as_str().unwrap_or_default(), tz)?;
                        if let Ok(i) = stored.binary_search_by_key(&t, |p| p.t) {
                            let mut point = stored[i].clone();
                            let mut status = point.status.take().unwrap_or_default();
                            status.quality =
                                Some(quality(r["status"].as_str().unwrap_or_default()).into());
                            point.status = Some(status);
                            points.push(point);
                        }
                    }
                    crate::data::DataPayload::Points(points, false)
                }
                Kind::Curve => {
                    let r = results.last().cloned().unwrap_or(Value::Null);
                    let ondate = r["point"].as_str().unwrap_or_default().to_string();
                    let stored = tx.curve(&key, object.version, &ondate)?.ok_or_else(|| {
                        Error::not_found(format!("curve {target}:{ondate} not found"))
                    })?;
                    let stored = curve::decode(&stored)?;
                    let q = quality(r["status"].as_str().unwrap_or_default());
                    let contracts: Vec<Value> = stored
                        .contracts
                        .iter()
                        .map(|c| {
                            let mut s = c.status.clone().unwrap_or_default();
                            s.quality = Some(q.into());
                            let mut props: Map<String, Value> = if c.extra.is_empty() { Map::new() } else { serde_json::from_str(&c.extra).unwrap_or_default() };
                            props.insert("expiry".into(), json!(c.expiry));
                            json!({"tenor": if c.absolute.is_empty() { &c.tenor } else { &c.absolute }, "value": c.value.to_json(), "status": s.to_json(), "properties": props})
                        })
                        .collect();
                    let mut sent = Map::new();
                    sent.insert("ondate".into(), Value::Object(stored.ondate.clone()));
                    sent.insert("contracts".into(), Value::Array(contracts));
                    crate::data::DataPayload::Curve(Some(sent))
                }
            };
            let opts = crate::documents::SaveOptions {
                reason: Some(super::STATUS_REASON.into()),
                ..Default::default()
            };
            self.save_one(
                tx,
                p,
                Collection::Object,
                Value::Object(item),
                &opts,
                &now,
                vec![(id.prop.clone(), payload)],
            )?;
            Ok(())
        }
    }
}

/// A check's record status code from its outcome and severity.
fn outcome_code(status: CheckStatus, severity: Option<super::engine::Severity>) -> u8 {
    match status {
        CheckStatus::Pass => VALID,
        CheckStatus::Fail => status_code(severity.map_or("failed", severity_name)),
        CheckStatus::Error => records::ERROR,
        CheckStatus::Skipped => SKIPPED,
    }
}

fn scope_name(scope: CheckScope) -> &'static str {
    match scope {
        CheckScope::Point => "point",
        CheckScope::Tenor => "tenor",
        CheckScope::Curve => "curve",
    }
}

/// Checks the loaded points: one result per point, the checks as records show them, and the
/// milliseconds per point of each.
fn evaluate(
    prep: &Prepared,
    data: &Loaded,
    tenor_filter: Option<&[String]>,
) -> (Vec<PointResult>, Vec<CheckMeta>, Vec<f64>) {
    let cfg = &prep.config;
    let defs: Vec<&CheckDef> = cfg
        .checks
        .iter()
        .filter(|(_, on)| *on)
        .map(|(d, _)| d)
        .collect();
    let def_of = |id: &str| defs.iter().find(|d| d.id == id).copied();
    let meta = |id: &str| -> CheckMeta {
        let def = def_of(id);
        CheckMeta {
            id: id.to_string(),
            name: def.map(|d| d.name.clone()).unwrap_or_default(),
            scope: def.map(|d| scope_name(d.scope)).unwrap_or_default().into(),
            severity: def
                .map(|d| severity_name(d.severity))
                .unwrap_or_default()
                .into(),
        }
    };
    match data {
        Loaded::Series {
            input,
            points,
            targets,
            ..
        } => {
            let eval = prep
                .compiled
                .evaluate_series(input, targets, cfg.options.lookback);
            let ids = eval.check_ids();
            let set: Vec<CheckMeta> = ids.iter().map(|id| meta(id)).collect();
            let severities: Vec<_> = ids
                .iter()
                .map(|id| def_of(id).map(|d| d.severity))
                .collect();
            let check_ms: Vec<f64> = (0..ids.len()).map(|c| eval.micros(c) / 1000.0).collect();
            let results = (0..eval.target_count())
                .map(|j| {
                    let p = &points[eval.index(j)];
                    let mut status = SKIPPED;
                    let checks: Vec<CheckResult> = (0..ids.len())
                        .map(|c| {
                            let code = outcome_code(eval.status(c, j), severities[c]);
                            status = records::worse(status, code);
                            CheckResult {
                                status: code,
                                message: eval.message(c, j).into(),
                                tenors_failed: None,
                            }
                        })
                        .collect();
                    let message = Summary::of(
                        ids.iter()
                            .map(String::as_str)
                            .zip(checks.iter().map(|c| c.status)),
                    );
                    let value = match &p.v {
                        PointValue::Num(x) => CheckedValue::Num(*x),
                        PointValue::Text(t) => CheckedValue::Text(t.clone()),
                        PointValue::Null => CheckedValue::Null,
                    };
                    PointResult {
                        key: p.t,
                        explicit: None,
                        value: Some(value),
                        status,
                        set: 0,
                        checks,
                        message,
                        hash: None,
                        extra: None,
                    }
                })
                .collect();
            (results, set, check_ms)
        }
        Loaded::Curves { curves, .. } => {
            let mut set: Vec<CheckMeta> = Vec::new();
            let mut check_ms: Vec<f64> = Vec::new();
            let mut results = Vec::with_capacity(curves.len());
            for (input, history, contracts) in curves {
                let outcome = prep.compiled.run_curve(input, history);
                let wanted = |t: &str| tenor_filter.is_none_or(|only| only.iter().any(|x| x == t));
                let mut tenors = Vec::new();
                let mut failed_tenors = Vec::new();
                let mut warning_tenors = Vec::new();
                let mut tenor_counts: Map<String, Value> = Map::new();
                // Per tenor check: the worst status over tenors, its message, how many failed
                // and the time it took.
                let mut per_check: Vec<(String, u8, String, u32, f64)> = Vec::new();
                for (t, c) in outcome.tenors.iter().zip(contracts.iter()) {
                    if !wanted(&t.tenor) {
                        continue;
                    }
                    let statuses: Vec<(String, u8, String)> = t
                        .checks
                        .iter()
                        .map(|o| {
                            let def = def_of(&o.id);
                            (
                                o.id.clone(),
                                outcome_code(o.status, def.map(|d| d.severity)),
                                o.message.clone(),
                            )
                        })
                        .collect();
                    let status = statuses
                        .iter()
                        .fold(SKIPPED, |a, (_, s, _)| records::worse(a, *s));
                    for ((cid, s, m), o) in statuses.iter().zip(&t.checks) {
                        let bad = u32::from(records::failing(*s) || *s == WARNING);
                        match per_check.iter_mut().find(|(id, ..)| id == cid) {
                            Some(entry) => {
                                if *s != SKIPPED && records::worse(entry.1, *s) == *s {
                                    entry.1 = *s;
                                    // A passing check says nothing, as point checks do.
                                    entry.2 = if m.is_empty() {
                                        String::new()
                                    } else {
                                        format!("{}: {m}", t.tenor)
                                    };
                                }
                                entry.3 += bad;
                                entry.4 += o.micros;
                            }
                            None => per_check.push((
                                cid.clone(),
                                *s,
                                if m.is_empty() {
                                    String::new()
                                } else {
                                    format!("{}: {m}", t.tenor)
                                },
                                bad,
                                o.micros,
                            )),
                        }
                    }
                    if records::failing(status) {
                        failed_tenors.push(json!(t.tenor));
                    } else if status == WARNING {
                        warning_tenors.push(json!(t.tenor));
                    }
                    let name = status_name(status);
                    let n = tenor_counts.get(name).and_then(Value::as_u64).unwrap_or(0) + 1;
                    tenor_counts.insert(name.to_string(), json!(n));
                    let message = statuses
                        .iter()
                        .filter(|(_, s, m)| *s != VALID && *s != SKIPPED && !m.is_empty())
                        .map(|(_, _, m)| m.clone())
                        .collect::<Vec<_>>()
                        .join("; ");
                    tenors.push(json!({
                        "tenor": t.tenor,
                        "value": c.value.to_json(),
                        "status": name,
                        "message": message,
                        "checks": statuses.iter().map(|(id, s, m)| json!({"id": id, "status": status_name(*s), "message": m})).collect::<Vec<_>>(),
                    }));
                }
                let mut ids: Vec<String> = Vec::new();
                let mut checks: Vec<CheckResult> = Vec::new();
                let mut micros: Vec<f64> = Vec::new();
                for (cid, s, m, n, us) in per_check {
                    ids.push(cid);
                    checks.push(CheckResult {
                        status: s,
                        message: m.into(),
                        tenors_failed: Some(n),
                    });
                    micros.push(us);
                }
                for o in &outcome.curve {
                    let def = def_of(&o.id);
                    ids.push(o.id.clone());
                    checks.push(CheckResult {
                        status: outcome_code(o.status, def.map(|d| d.severity)),
                        message: o.message.as_str().into(),
                        tenors_failed: None,
                    });
                    micros.push(o.micros);
                }
                // The check list of the last curve stands for all (curves share one config).
                set = ids.iter().map(|id| meta(id)).collect();
                check_ms = micros.iter().map(|us| us / 1000.0).collect();
                let status = checks
                    .iter()
                    .fold(SKIPPED, |a, c| records::worse(a, c.status));
                let message = Summary::of(
                    ids.iter()
                        .map(String::as_str)
                        .zip(checks.iter().map(|c| c.status)),
                );
                let mut extra = Map::new();
                extra.insert("tenors".into(), Value::Array(tenors));
                extra.insert("failedTenors".into(), Value::Array(failed_tenors));
                extra.insert("warningTenors".into(), Value::Array(warning_tenors));
                extra.insert("tenorCounts".into(), Value::Object(tenor_counts));
                extra.insert("contracts".into(), json!(contracts.len()));
                let hash = contracts
                    .iter()
                    .map(|c| format!("{}={}", c.tenor, c.value.to_json()))
                    .collect::<Vec<_>>()
                    .join(",");
                results.push(PointResult {
                    key: records::date_key(input.ondate),
                    explicit: None,
                    value: None,
                    status,
                    set: 0,
                    checks,
                    message,
                    hash: Some(crate::auth::hash_token(&hash)),
                    extra: Some(Box::new(extra)),
                });
            }
            (results, set, check_ms)
        }
    }
}

/// Parts of a record filter the chunks can answer before records are built: the targets and
/// the statuses it is limited to.
fn pinned(filter: &Filter, field: &str) -> Option<Vec<String>> {
    match filter {
        Filter::TextIn { path, texts } if path == field => Some(texts.clone()),
        Filter::Eq {
            path,
            value: Value::String(s),
        } if path == field => Some(vec![s.clone()]),
        Filter::And(parts) => parts.iter().find_map(|p| pinned(p, field)),
        _ => None,
    }
}

/// SQL-like order of two JSON values: absent and null first, then numbers, then text, then
/// anything else by its JSON text.
fn order_values(a: Option<&Value>, b: Option<&Value>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn rank(v: Option<&Value>) -> u8 {
        match v {
            None | Some(Value::Null) => 0,
            Some(Value::Number(_)) | Some(Value::Bool(_)) => 1,
            Some(Value::String(_)) => 2,
            _ => 3,
        }
    }
    let num = |v: &Value| match v {
        Value::Bool(b) => f64::from(u8::from(*b)),
        other => other.as_f64().unwrap_or(0.0),
    };
    match rank(a).cmp(&rank(b)) {
        Ordering::Equal => match (a, b) {
            (Some(Value::String(x)), Some(Value::String(y))) => x.cmp(y),
            (Some(x), Some(y)) if rank(a) == 1 => num(x).total_cmp(&num(y)),
            (Some(x), Some(y)) => x.to_string().cmp(&y.to_string()),
            _ => Ordering::Equal,
        },
        other => other,
    }
}

impl Platform {
    /// Decoded chunks of the caller's records (of some targets, or all).
    fn chunks_of(
        &self,
        p: &Principal,
        targets: Option<&[String]>,
    ) -> Result<Vec<(RecordChunkRow, Chunk)>> {
        let rows = self
            .read()?
            .record_chunks(&p.private_scope(), targets, None, None)?;
        rows.into_iter()
            .map(|row| {
                let chunk = Chunk::decode(&row.target, row.seq, &row.body)?;
                Ok((row, chunk))
            })
            .collect()
    }

    /// Where the record with this id is: (row, chunk, position).
    fn locate_record(
        &self,
        tx: &dyn ReadTx,
        scope: &Scope,
        id: &str,
    ) -> Result<Option<(Chunk, usize)>> {
        for target in tx.record_targets_of(scope, id)? {
            let suffix = &id[target.len() + 1..];
            let rows = tx.record_chunks(scope, Some(std::slice::from_ref(&target)), None, None)?;
            // The key of the point, when the text reads as one of the target's points.
            let newest = match rows.last() {
                Some(row) => Chunk::decode(&row.target, row.seq, &row.body)?,
                None => continue,
            };
            let key = match &newest.format {
                Some(f) => parse_time(suffix, f.tz).ok(),
                None => NaiveDate::parse_from_str(suffix, "%Y-%m-%d")
                    .ok()
                    .map(records::date_key),
            };
            for row in &rows {
                if key.is_some_and(|k| k < row.first || k > row.last) {
                    continue;
                }
                let chunk = Chunk::decode(&row.target, row.seq, &row.body)?;
                let found = match key {
                    Some(k) => chunk
                        .find(k)
                        .ok()
                        .filter(|&i| chunk.texts(&chunk.records[i]).0 == suffix),
                    None => None,
                }
                .or_else(|| {
                    chunk
                        .records
                        .iter()
                        .position(|r| chunk.texts(r).0 == suffix)
                });
                if let Some(i) = found {
                    return Ok(Some((chunk, i)));
                }
            }
        }
        Ok(None)
    }

    /// `override`, `removeOverride` or `comment` on records by id.
    pub fn validation_records_action(
        &self,
        p: &Principal,
        function: &str,
        body: &Value,
    ) -> Result<Value> {
        p.require(
            crate::auth::Role::Writer,
            &format!("{function} on validation records"),
        )?;
        let ids = strings(body.get("ids"), "ids")?
            .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "ids is missing"))?;
        if ids.len() > MAX_IDS {
            return Err(Error::invalid_parameter(format!(
                "at most {MAX_IDS} ids; {} were given",
                ids.len()
            )));
        }
        let text = |k: &str| {
            body.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let reason = text("reason");
        let message = text("message");
        match function {
            "override" if reason.is_none() => {
                return Err(Error::new(
                    ErrorCode::MissingParameter,
                    "override needs a reason",
                ))
            }
            "comment" if message.is_none() => {
                return Err(Error::new(
                    ErrorCode::MissingParameter,
                    "comment needs a message",
                ))
            }
            _ => {}
        }
        let ctx = Context {
            user: p.user.clone(),
            origin: "manual".into(),
            now: self.now(),
        };
        let scope = p.private_scope();
        let mut status_writes: Vec<(String, Kind, Value)> = Vec::new();
        let results = self.write(|tx| {
            let mut out = Vec::with_capacity(ids.len());
            let mut wants: Vec<(String, crate::events::rules::Wants)> = Vec::new();
            for id in &ids {
                let Some((mut chunk, i)) = self.locate_record(&*tx, &scope, id)? else {
                    out.push(json!({"id": id, "ok": false, "message": "no such record"}));
                    continue;
                };
                let before = chunk.records[i].status;
                let rec = &mut chunk.records[i];
                let outcome = match function {
                    "override" => {
                        records::apply_override(rec, reason.as_deref().unwrap_or_default(), &ctx)
                            .map(|_| "overridden".to_string())
                    }
                    "removeOverride" => records::remove_override(rec, &ctx)
                        .map(|s| format!("override removed; status {s}")),
                    _ => {
                        records::comment(rec, message.as_deref().unwrap_or_default(), &ctx);
                        Ok("comment added".to_string())
                    }
                };
                match outcome {
                    Ok(m) => {
                        let status = status_name(chunk.records[i].status);
                        if function != "comment" {
                            let kind = if chunk.kind == "curve" {
                                Kind::Curve
                            } else {
                                Kind::TimeSeries
                            };
                            status_writes.push((
                                chunk.target.clone(),
                                kind,
                                json!({"point": chunk.texts(&chunk.records[i]).0, "status": status}),
                            ));
                        }
                        out.push(json!({"id": id, "ok": true, "message": m, "status": status}));
                        if function != "comment" {
                            let w = match wants.iter().find(|(t, _)| *t == chunk.target) {
                                Some((_, w)) => *w,
                                None => {
                                    let w = crate::events::rules::wants(&*tx, &scope, &chunk.target)?;
                                    wants.push((chunk.target.clone(), w));
                                    w
                                }
                            };
                            if w.any() {
                                let mut marked = chunk.records[i].clone();
                                crate::events::rules::after_action(
                                    &mut *tx,
                                    p,
                                    w,
                                    &chunk,
                                    &mut marked,
                                    before,
                                    &ctx,
                                )?;
                                chunk.records[i] = marked;
                            }
                        }
                        tx.put_record_chunk(&scope, &chunk_row(&mut chunk))?;
                    }
                    Err(m) => out.push(json!({"id": id, "ok": false, "message": m})),
                }
            }
            // The quality status follows overrides where the configuration writes it, in the
            // same transaction as the records.
            let mut wanted: Vec<(String, Kind, Vec<Value>)> = Vec::new();
            for (target, kind, item) in std::mem::take(&mut status_writes) {
                let writes = tx
                    .current(Collection::ValidationConfig, &scope, &target)?
                    .and_then(|d| Config::from_doc(d.body).ok())
                    .is_some_and(|c| c.options.write_status);
                if !writes {
                    continue;
                }
                match wanted.iter_mut().find(|(t, ..)| *t == target) {
                    Some((_, _, items)) => items.push(item),
                    None => wanted.push((target, kind, vec![item])),
                }
            }
            for (target, kind, items) in wanted {
                self.write_status(tx, p, &target, kind, &items)?;
            }
            Ok(out)
        })?;
        Ok(Value::Array(results))
    }

    /// One record.
    pub fn validation_record(&self, p: &Principal, id: &str) -> Result<Value> {
        let tx = self.read()?;
        self.locate_record(tx.as_ref(), &p.private_scope(), id)?
            .map(|(chunk, i)| Value::Object(chunk.materialize(&chunk.records[i])))
            .ok_or_else(|| Error::not_found(format!("validation record \"{id}\" not found")))
    }

    /// Every record of the caller (of some targets), as JSON, in id order.
    pub(crate) fn all_records(
        &self,
        p: &Principal,
        targets: Option<&[String]>,
    ) -> Result<Vec<Map<String, Value>>> {
        let mut out = Vec::new();
        for (_, chunk) in self.chunks_of(p, targets)? {
            out.extend(chunk.records.iter().map(|r| chunk.materialize(r)));
        }
        Ok(out)
    }

    /// Records matching a list request (filters over the record fields, sort, paging).
    pub fn validation_records(
        &self,
        p: &Principal,
        req: &crate::documents::ListRequest,
    ) -> Result<crate::store::Page<Value>> {
        let query = &req.query;
        let targets = pinned(&query.filter, "target");
        let statuses: Option<u64> = pinned(&query.filter, "status").map(|s| {
            s.iter()
                .fold(0u64, |m, name| m | (1u64 << status_code(name)))
        });
        let project = |r: Map<String, Value>| match &req.project {
            Some(pr) => Value::Object(pr.apply(&r, true)),
            None => Value::Object(r),
        };
        let mut chunks = self.chunks_of(p, targets.as_deref())?;
        chunks.retain(|(row, _)| statuses.is_none_or(|s| row.statuses & s != 0));
        // Ids sort as `<target>:<point>`.
        chunks.sort_by(|a, b| {
            (a.0.target.clone() + ":")
                .cmp(&(b.0.target.clone() + ":"))
                .then(a.0.first.cmp(&b.0.first))
        });
        let skip = query.paging.skip as usize;
        let limit = query.paging.limit.map_or(usize::MAX, |l| l as usize);
        let fast = query.filter.is_all() && query.sort.0.is_empty() && req.distinct.is_none();
        if fast {
            // Every record, in id order: count from the rows, build only the page.
            let total: u64 = chunks.iter().map(|(row, _)| row.count).sum();
            let items = chunks
                .iter()
                .flat_map(|(_, chunk)| chunk.records.iter().map(move |r| (chunk, r)))
                .skip(skip)
                .take(limit)
                .map(|(chunk, r)| project(chunk.materialize(r)))
                .collect();
            return Ok(crate::store::Page { total, items });
        }
        let mut matched: Vec<Map<String, Value>> = Vec::new();
        for (_, chunk) in &chunks {
            for r in &chunk.records {
                if statuses.is_some_and(|s| s & (1u64 << r.status) == 0) {
                    continue;
                }
                let m = chunk.materialize(r);
                if query.filter.matches(&m) {
                    matched.push(m);
                }
            }
        }
        let id = |m: &Map<String, Value>| {
            m.get("_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        matched.sort_by(|a, b| {
            for k in &query.sort.0 {
                let o = order_values(
                    crate::query::filter::lookup(a, &k.field),
                    crate::query::filter::lookup(b, &k.field),
                );
                let o = if k.descending { o.reverse() } else { o };
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            id(a).cmp(&id(b))
        });
        if let Some(field) = &req.distinct {
            let values = crate::query::distinct_strings(&matched, field);
            return Ok(crate::store::Page {
                total: values.len() as u64,
                items: values,
            });
        }
        let total = matched.len() as u64;
        let items = matched
            .into_iter()
            .skip(skip)
            .take(limit)
            .map(project)
            .collect();
        Ok(crate::store::Page { total, items })
    }

    /// `runMany`: up to 25 data items at once; more, a range, `background` or `_delay` go to a
    /// job.
    pub fn validation_run_many(&self, p: &Principal, body: &Value, origin: &str) -> Result<Value> {
        p.require(crate::auth::Role::Writer, "running validation")?;
        let targets = strings(body.get("targets"), "targets")?
            .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "targets is missing"))?;
        // The fields every item shares are the request's: one malformed is a 400 for the whole
        // request, not an error per item nor a job that fails later.
        RunRequest::from_json(body)?;
        let ranged = body.get("from").is_some() || body.get("to").is_some();
        let background = body
            .get("background")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let delayed = super::jobs::delay_of(body)?.is_some_and(|d| !d.is_zero());
        if targets.len() > MAX_RUN_MANY || ranged || background || delayed {
            return self.queue_job(
                p,
                "runMany",
                json!({"request": body, "origin": "background"}),
            );
        }
        self.run_many_now(p, body, &targets, origin, false)
    }

    /// Runs several data items: checked on worker threads (each reads its own snapshot),
    /// stored one item a transaction, in order, by this thread.
    fn run_many_now(
        &self,
        p: &Principal,
        body: &Value,
        targets: &[String],
        origin: &str,
        in_job: bool,
    ) -> Result<Value> {
        let request_of = |target: &String| {
            let mut req = body.as_object().cloned().unwrap_or_default();
            req.remove("targets");
            req.insert("target".into(), json!(target));
            Value::Object(req)
        };
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4)
            .min(targets.len().max(1));
        let mut planned: Vec<Option<(Result<Planned>, Instant)>> = Vec::new();
        planned.resize_with(targets.len(), || None);
        let mut results = Vec::with_capacity(targets.len());
        let mut counts: Map<String, Value> = Map::new();
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| -> Result<()> {
            let (send, receive) =
                std::sync::mpsc::sync_channel::<(usize, Result<Planned>, Instant)>(workers * 2);
            for _ in 0..workers {
                let send = send.clone();
                let next = &next;
                let request_of = &request_of;
                s.spawn(move || loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= targets.len() {
                        break;
                    }
                    let started = Instant::now();
                    let plan =
                        self.plan_run(p, &request_of(&targets[i]), false, origin, in_job, false);
                    if send.send((i, plan, started)).is_err() {
                        break;
                    }
                });
            }
            drop(send);
            let mut done = 0;
            while done < targets.len() {
                // Store in target order, whatever order the workers finish in.
                while let Some((plan, started)) = planned.get_mut(done).and_then(Option::take) {
                    let item = self.run_many_item(p, &targets[done], plan, started);
                    let st = item["status"].as_str().unwrap_or("error").to_string();
                    let n = counts.get(&st).and_then(Value::as_u64).unwrap_or(0) + 1;
                    counts.insert(st, json!(n));
                    results.push(item);
                    done += 1;
                }
                if done >= targets.len() {
                    break;
                }
                match receive.recv() {
                    Ok((i, plan, started)) => planned[i] = Some((plan, started)),
                    Err(_) => break,
                }
            }
            Ok(())
        })?;
        Ok(json!({"targets": targets.len(), "counts": counts, "results": results}))
    }

    /// One item of a runMany answer.
    fn run_many_item(
        &self,
        p: &Principal,
        target: &str,
        plan: Result<Planned>,
        started: Instant,
    ) -> Value {
        let stored = plan.and_then(|plan| match plan {
            Planned::Answer(answer) => Ok(Err((answer, Value::Null, None))),
            Planned::Nothing {
                answer,
                name,
                error,
            } => Ok(Err((answer, name, error))),
            Planned::Checked(c) => self.commit_run(p, *c, false).map(Ok),
        });
        match stored {
            Ok(Ok(done)) => {
                let worst = done
                    .statuses
                    .iter()
                    .copied()
                    .filter(|s| *s != records::OVERRIDDEN)
                    .fold(SKIPPED, records::worse);
                let status = if done.statuses.iter().all(|s| *s == records::OVERRIDDEN) {
                    "overridden"
                } else {
                    status_name(worst)
                };
                let listed = done.listed.len().min(MAX_LISTED);
                let mut item = json!({
                    "target": target,
                    "kind": done.kind.as_str(),
                    "name": done.name,
                    "points": done.statuses.len(),
                    "counts": done.counts,
                    "status": status,
                    "message": Value::Null,
                    "ids": done.listed[..listed].iter().map(|(id, _)| json!(id)).collect::<Vec<_>>(),
                    "pointList": done.listed[..listed].iter().map(|(_, pt)| json!(pt)).collect::<Vec<_>>(),
                    "ms": ms(started),
                });
                if listed < done.statuses.len() {
                    item["listTruncated"] = json!(true);
                }
                if done.kind == Kind::Curve {
                    item["failedTenors"] = Value::Array(done.failed_tenors);
                }
                item
            }
            Ok(Err((answer, name, error))) => {
                let mut item = json!({
                    "target": target, "kind": answer["kind"], "name": name, "points": 0,
                    "counts": {}, "status": "skipped", "message": answer["message"], "ids": [],
                    "pointList": [], "ms": ms(started),
                });
                // The interface: an error when it could not run (disabled); an empty range ran
                // and found nothing to check.
                if let Some(error) = error {
                    item["error"] = json!(error);
                }
                item
            }
            Err(e) => {
                let why = if e.to_string().contains("no validation configuration") {
                    "no validation".to_string()
                } else {
                    e.public_message()
                };
                json!({"target": target, "status": "error", "error": why, "ms": ms(started)})
            }
        }
    }
}

/// The status of each stored record of a data item, by point text.
pub(crate) fn record_statuses(
    tx: &dyn ReadTx,
    scope: &Scope,
    target: &str,
) -> Result<std::collections::HashMap<String, &'static str>> {
    let mut out = std::collections::HashMap::new();
    for row in tx.record_chunks(scope, Some(&[target.to_string()]), None, None)? {
        let chunk = Chunk::decode(&row.target, row.seq, &row.body)?;
        for r in &chunk.records {
            out.insert(chunk.texts(r).0, status_name(r.status));
        }
    }
    Ok(out)
}

/// Most record ids and points a runMany item lists.
pub const MAX_LISTED: usize = 100;

/// Runs a queued job's work (called by the job worker).
impl Platform {
    pub(crate) fn run_job_work(&self, p: &Principal, kind: &str, payload: &Value) -> Result<Value> {
        let mut request = payload["request"].clone();
        if let Value::Object(m) = &mut request {
            m.insert("background".into(), json!(false));
        }
        match kind {
            // A background run checks everything asked for, however many points.
            "run" => self.run_now(p, &request, false, "background", true),
            _ => {
                let targets = strings(request.get("targets"), "targets")?.unwrap_or_default();
                self.run_many_now(p, &request, &targets, "background", true)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::SaveOptions;

    fn setup() -> (Platform, Principal) {
        let platform = Platform::in_memory().unwrap();
        let who = platform.local_principal("t", "u").unwrap();
        let mut header = Map::new();
        header.insert("calendar".into(), json!("#PT1M"));
        let points: Vec<Point> = (0..10)
            .map(|i| Point::num(1_719_792_000_000 + i * 60_000, 1.0 + i as f64))
            .collect();
        platform
            .save_series(&who, "S", "p", header, points, &SaveOptions::default())
            .unwrap();
        platform
            .save(
                &who,
                Collection::ValidationConfig,
                json!({"_id": "S:p", "kind": "timeseries", "checks": [{"name": "pos", "expression": "value > 0"}]}),
                &SaveOptions::default(),
            )
            .unwrap();
        (platform, who)
    }

    fn plan(platform: &Platform, who: &Principal) -> Checked {
        match platform
            .plan_run(
                who,
                &json!({"target": "S:p", "from": "2024-07-01"}),
                false,
                "manual",
                false,
                false,
            )
            .unwrap()
        {
            Planned::Checked(c) => *c,
            Planned::Answer(a) | Planned::Nothing { answer: a, .. } => panic!("{a}"),
        }
    }

    /// Records laid out on a snapshot that another run changed since are laid out again by
    /// the writer: no run is lost.
    #[test]
    fn a_run_planned_on_a_stale_snapshot_is_laid_out_again() {
        let (platform, who) = setup();
        let first = plan(&platform, &who);
        let second = plan(&platform, &who);
        assert!(first.built.as_ref().unwrap().seen.is_empty());
        platform.commit_run(&who, first, false).unwrap();
        let done = platform.commit_run(&who, second, false).unwrap();
        assert_eq!(done.statuses.len(), 10);
        let rec = platform
            .validation_record(&who, "S:p:2024-07-01T00:05:00Z")
            .unwrap();
        assert_eq!(rec["runs"], 2, "{rec}");
        assert_eq!(rec["timeline"].as_array().unwrap().len(), 2);
        // A plan on the current state is written as it was laid out.
        let third = plan(&platform, &who);
        let rows = third.built.as_ref().unwrap().rows.clone();
        platform.commit_run(&who, third, false).unwrap();
        let stored = platform
            .read()
            .unwrap()
            .record_chunks(&who.private_scope(), None, None, None)
            .unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].body, rows[0].body);
    }
}
