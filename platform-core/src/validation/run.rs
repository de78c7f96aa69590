//! The validation service functions: `run`, `test`, `runMany`, `override`, `removeOverride`,
//! `comment`, record reads and `stats`.
//!
//! Points: `points` (observation times or ondates), `point`/`ondate` (one), `from`/`to` (a date
//! range; curves: their ondates in the range, up to today); none means the latest point (curves:
//! the newest ondate). `checks` runs only some checks, `tenors` only some tenors. `test` stores
//! nothing and takes at most 100 points; a `run` over more than `maxPoints` points, or with
//! `background: true`, goes to a background job.

use super::config::{self, severity_name, Config, Kind};
use super::engine::{
    CheckOutcome, CheckScope, CheckStatus, ContractInput, CurveInput, SeriesInput,
};
use super::records::{self, Context, PointResult};
use crate::auth::Principal;
use crate::data::calendar::{format_time, parse_time, Calendar};
use crate::data::curve;
use crate::data::model::Point;
use crate::data::series::{self, Window};
use crate::data::{series_settings, DataKind};
use crate::documents::json_kind;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::store::{Collection, DataKey, ReadTx};
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
        Ok(RunRequest {
            target: text("target")?,
            config: m.get("config").cloned(),
            points,
            from: text("from")?,
            to: text("to")?,
            checks: strings(m.get("checks"), "checks")?,
            tenors: strings(m.get("tenors"), "tenors")?,
            background: m
                .get("background")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

/// What the runner needs of a configuration, compiled.
struct Prepared {
    config: Config,
    compiled: super::engine::CompiledChecks,
    scripts_ms: f64,
}

fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e5).round() / 100.0
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
        let compiled = config::compile(&config, &libs)?;
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
        if !test {
            p.require(crate::auth::Role::Writer, "running validation")?;
        }
        let req = RunRequest::from_json(body)?;
        let delay = super::jobs::delay_of(body)?;
        if test && req.points.len() > MAX_TEST_POINTS {
            return Err(Error::invalid_parameter(format!(
                "test checks at most {MAX_TEST_POINTS} points; {} were given",
                req.points.len()
            )));
        }
        let tx = self.read()?;
        let (target, prep) = self.prepare(tx.as_ref(), p, &req, test)?;
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
        let in_job = JOB_RUN.with(|f| f.get());
        if !test && !in_job && (req.background || count > prep.config.options.max_points) {
            if req.points.is_empty() && req.from.is_none() && req.background {
                return Err(Error::invalid_parameter(
                    "a background run needs a range (from, to), not points",
                ));
            }
            return self.queue_job(p, "run", json!({"request": body, "origin": "background"}));
        }
        // `_delay` on a run that is not sent to the background: wait before it starts.
        if let Some(d) = delay.filter(|_| !in_job) {
            std::thread::sleep(d.to_std().unwrap_or_default());
        }
        let mut base = json!({"target": target, "kind": prep.config.kind.as_str(), "test": test});
        if !prep.config.enabled || count == 0 {
            let message = if !prep.config.enabled {
                "the configuration is disabled"
            } else {
                "no data points to check"
            };
            base["points"] = json!(0);
            base["records"] = json!(0);
            base["counts"] = json!({});
            base["truncated"] = json!(false);
            base["message"] = json!(message);
            base["results"] = json!([]);
            return Ok(base);
        }
        let checks_started = Instant::now();
        let results = self.evaluate(&prep, &data, req.tenors.as_deref());
        let checks_ms = ms(checks_started);
        let save_started = Instant::now();
        let ctx = Context {
            user: p.user.clone(),
            origin: origin.to_string(),
            now: self.now(),
        };
        let mut out = Vec::with_capacity(results.len());
        if test {
            for r in &results {
                let mut item = r.fields.clone();
                item.insert("_id".into(), json!(r.id));
                item.insert("status".into(), json!(r.status));
                item.insert("previous".into(), Value::Null);
                out.push(Value::Object(item));
            }
        } else {
            let scope = p.private_scope();
            self.write(|tx| {
                for r in results {
                    let old = tx.record(&scope, &r.id)?;
                    let keys: Vec<String> = r.fields.keys().cloned().collect();
                    let (rec, transition) = records::apply_run(old, r, &ctx);
                    tx.put_record(&scope, &rec)?;
                    // The answer carries the fields of the result (taken from the record).
                    let mut item = Map::with_capacity(keys.len() + 3);
                    item.insert("_id".into(), rec["_id"].clone());
                    for k in keys {
                        if let Some(v) = rec.get(&k) {
                            item.insert(k, v.clone());
                        }
                    }
                    item.insert("status".into(), json!(transition.status));
                    item.insert(
                        "previous".into(),
                        transition.previous.map_or(Value::Null, Value::String),
                    );
                    out.push(Value::Object(item));
                }
                Ok(())
            })?;
            if prep.config.options.write_status {
                self.write_status(p, &target, prep.config.kind, &out)?;
            }
        }
        let save_ms = ms(save_started);
        let mut counts: Map<String, Value> = Map::new();
        for r in &out {
            let s = r["status"].as_str().unwrap_or_default().to_string();
            let n = counts.get(&s).and_then(Value::as_u64).unwrap_or(0) + 1;
            counts.insert(s, json!(n));
        }
        for r in &mut out {
            if let Value::Object(m) = r {
                m.shift_remove("dataHash");
            }
        }
        base["points"] = json!(out.len());
        base["records"] = json!(if test { 0 } else { out.len() });
        base["counts"] = Value::Object(counts);
        base["truncated"] = json!(data.truncated());
        base["timings"] = json!({"scripts": prep.scripts_ms, "read": read_ms, "checks": checks_ms, "save": save_ms});
        base["message"] = Value::Null;
        base["results"] = Value::Array(out);
        Ok(base)
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

    fn evaluate(
        &self,
        prep: &Prepared,
        data: &Loaded,
        tenor_filter: Option<&[String]>,
    ) -> Vec<PointResult> {
        let cfg = &prep.config;
        let defs: Vec<&super::engine::CheckDef> = cfg
            .checks
            .iter()
            .filter(|(_, on)| *on)
            .map(|(d, _)| d)
            .collect();
        let check_json = |o: &CheckOutcome, extra: Option<usize>| -> Value {
            let def = defs.iter().find(|d| d.id == o.id);
            let status = outcome_status(o, def.map(|d| d.severity));
            let mut m = json!({
                "id": o.id,
                "name": def.map(|d| d.name.clone()).unwrap_or_default(),
                "scope": def.map(|d| match d.scope { CheckScope::Point => "point", CheckScope::Tenor => "tenor", CheckScope::Curve => "curve" }).unwrap_or_default(),
                "severity": def.map(|d| severity_name(d.severity)).unwrap_or_default(),
                "status": status,
                "message": o.message,
                "failures": usize::from(records::is_failing(&status) || status == "warning"),
                "log": if o.message.is_empty() { json!([]) } else { json!([o.message]) },
                "ms": (o.micros / 10.0).round() / 100.0,
            });
            if let Some(n) = extra {
                m["tenorsFailed"] = json!(n);
                m["failures"] = json!(n);
            }
            m
        };
        let common = |id: String, point: String, point_date: String| -> Map<String, Value> {
            let mut f = Map::new();
            f.insert("target".into(), json!(cfg.target));
            for k in ["name", "group", "tags"] {
                f.insert(k.into(), cfg.doc.get(k).cloned().unwrap_or(Value::Null));
            }
            f.insert("kind".into(), json!(cfg.kind.as_str()));
            f.insert("point".into(), json!(point));
            f.insert("pointDate".into(), json!(point_date));
            let _ = id;
            f
        };
        match data {
            Loaded::Series { input, points, targets, calendar, tz, .. } => {
                let outcomes = prep.compiled.run_series(input, targets, cfg.options.lookback);
                outcomes
                    .into_iter()
                    .map(|po| {
                        let p = &points[po.index];
                        let time = format_time(p.t, *calendar, *tz);
                        let date = crate::data::calendar::instant(p.t)
                            .map(|d| d.with_timezone(tz).date_naive().to_string())
                            .unwrap_or_default();
                        let id = format!("{}:{time}", cfg.target);
                        let mut f = common(id.clone(), time, date);
                        f.insert("value".into(), p.v.to_json());
                        let checks: Vec<Value> = po.checks.iter().map(|o| check_json(o, None)).collect();
                        let status = records::worst(checks.iter().map(|c| c["status"].as_str().unwrap_or("skipped")));
                        f.insert("message".into(), json!(summary(&checks)));
                        f.insert("checks".into(), Value::Array(checks));
                        f.insert("dataHash".into(), json!(p.v.to_json().to_string()));
                        PointResult { id, fields: f, status }
                    })
                    .collect()
            }
            Loaded::Curves { curves, .. } => curves
                .iter()
                .map(|(input, history, contracts)| {
                    let ondate = input.ondate.format("%Y-%m-%d").to_string();
                    let id = format!("{}:{ondate}", cfg.target);
                    let outcome = prep.compiled.run_curve(input, history);
                    let mut f = common(id.clone(), ondate.clone(), ondate);
                    let wanted = |t: &str| tenor_filter.is_none_or(|only| only.iter().any(|x| x == t));
                    let mut tenors = Vec::new();
                    let mut failed_tenors = Vec::new();
                    let mut warning_tenors = Vec::new();
                    let mut tenor_counts: Map<String, Value> = Map::new();
                    // Per tenor check: the worst status over tenors and how many failed.
                    let mut per_check: Vec<(String, String, String, usize)> = Vec::new();
                    for (t, c) in outcome.tenors.iter().zip(contracts.iter()) {
                        if !wanted(&t.tenor) {
                            continue;
                        }
                        let statuses: Vec<(String, String, String)> = t
                            .checks
                            .iter()
                            .map(|o| {
                                let def = defs.iter().find(|d| d.id == o.id);
                                (o.id.clone(), outcome_status(o, def.map(|d| d.severity)), o.message.clone())
                            })
                            .collect();
                        let status = records::worst(statuses.iter().map(|(_, s, _)| s.as_str()));
                        for (cid, s, m) in &statuses {
                            match per_check.iter_mut().find(|(id, ..)| id == cid) {
                                Some(entry) => {
                                    if records::worst([entry.1.as_str(), s.as_str()]) == *s && s != "skipped" {
                                        entry.1 = s.clone();
                                        entry.2 = format!("{}: {m}", t.tenor);
                                    }
                                    if records::is_failing(s) || s == "warning" {
                                        entry.3 += 1;
                                    }
                                }
                                None => per_check.push((
                                    cid.clone(),
                                    s.clone(),
                                    if m.is_empty() { String::new() } else { format!("{}: {m}", t.tenor) },
                                    usize::from(records::is_failing(s) || s == "warning"),
                                )),
                            }
                        }
                        if records::is_failing(&status) {
                            failed_tenors.push(json!(t.tenor));
                        } else if status == "warning" {
                            warning_tenors.push(json!(t.tenor));
                        }
                        let n = tenor_counts.get(&status).and_then(Value::as_u64).unwrap_or(0) + 1;
                        tenor_counts.insert(status.clone(), json!(n));
                        let message = statuses.iter().filter(|(_, s, m)| s != "valid" && s != "skipped" && !m.is_empty()).map(|(_, _, m)| m.clone()).collect::<Vec<_>>().join("; ");
                        tenors.push(json!({
                            "tenor": t.tenor,
                            "value": c.value.to_json(),
                            "status": status,
                            "message": message,
                            "checks": statuses.iter().map(|(id, s, m)| json!({"id": id, "status": s, "message": m})).collect::<Vec<_>>(),
                        }));
                    }
                    let mut checks: Vec<Value> = per_check
                        .iter()
                        .map(|(cid, s, m, n)| {
                            let o = CheckOutcome { id: cid.clone(), status: CheckStatus::Pass, message: m.clone(), micros: 0.0 };
                            let mut j = check_json(&o, Some(*n));
                            j["status"] = json!(s);
                            j
                        })
                        .collect();
                    checks.extend(outcome.curve.iter().map(|o| check_json(o, None)));
                    let status = records::worst(checks.iter().map(|c| c["status"].as_str().unwrap_or("skipped")));
                    f.insert("message".into(), json!(summary(&checks)));
                    f.insert("checks".into(), Value::Array(checks));
                    f.insert("tenors".into(), Value::Array(tenors));
                    f.insert("failedTenors".into(), Value::Array(failed_tenors));
                    f.insert("warningTenors".into(), Value::Array(warning_tenors));
                    f.insert("tenorCounts".into(), Value::Object(tenor_counts));
                    f.insert("contracts".into(), json!(contracts.len()));
                    let hash = contracts.iter().map(|c| format!("{}={}", c.tenor, c.value.to_json())).collect::<Vec<_>>().join(",");
                    f.insert("dataHash".into(), json!(crate::auth::hash_token(&hash)));
                    PointResult { id, fields: f, status }
                })
                .collect(),
        }
    }

    /// Writes the quality status of checked points into the private data (a data change that
    /// does not itself trigger validation).
    fn write_status(
        &self,
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
        self.write(|tx| {
            let object = tx
                .current(Collection::Object, &scope, &id.object)?
                .ok_or_else(|| Error::not_found(format!("data \"{target}\" not found")))?;
            let key = DataKey { scope: scope.clone(), object: id.object.clone(), prop: id.prop.clone() };
            let header = object.body.get(&id.prop).and_then(Value::as_object).cloned().unwrap_or_default();
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
                            status.quality = Some(quality(r["status"].as_str().unwrap_or_default()).into());
                            point.status = Some(status);
                            points.push(point);
                        }
                    }
                    crate::data::DataPayload::Points(points, false)
                }
                Kind::Curve => {
                    let r = results.last().cloned().unwrap_or(Value::Null);
                    let ondate = r["point"].as_str().unwrap_or_default().to_string();
                    let stored = tx
                        .curve(&key, object.version, &ondate)?
                        .ok_or_else(|| Error::not_found(format!("curve {target}:{ondate} not found")))?;
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
            let opts = crate::documents::SaveOptions { reason: Some("validation status".into()), ..Default::default() };
            self.save_one(tx, p, Collection::Object, Value::Object(item), &opts, &now, vec![(id.prop.clone(), payload)])?;
            Ok(())
        })
    }
}

/// A check's record status from its outcome and severity.
fn outcome_status(o: &CheckOutcome, severity: Option<super::engine::Severity>) -> String {
    match o.status {
        CheckStatus::Pass => "valid".into(),
        CheckStatus::Fail => severity.map_or("failed", severity_name).to_string(),
        CheckStatus::Error => "error".into(),
        CheckStatus::Skipped => "skipped".into(),
    }
}

fn summary(checks: &[Value]) -> String {
    let bad: Vec<&str> = checks
        .iter()
        .filter(|c| !matches!(c["status"].as_str(), Some("valid" | "skipped")))
        .filter_map(|c| c["id"].as_str())
        .collect();
    let ran = checks
        .iter()
        .filter(|c| c["status"].as_str() != Some("skipped"))
        .count();
    if ran == 0 {
        "no check applied".into()
    } else if bad.is_empty() {
        format!("all {ran} checks passed")
    } else {
        format!(
            "{} of {ran} checks did not pass: {}",
            bad.len(),
            bad.join(", ")
        )
    }
}

impl Platform {
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
        let results = self.write(|tx| {
            let mut out = Vec::with_capacity(ids.len());
            for id in &ids {
                let Some(mut rec) = tx.record(&scope, id)? else {
                    out.push(json!({"id": id, "ok": false, "message": "no such record"}));
                    continue;
                };
                let outcome = match function {
                    "override" => records::apply_override(
                        &mut rec,
                        reason.as_deref().unwrap_or_default(),
                        &ctx,
                    )
                    .map(|_| "overridden".to_string()),
                    "removeOverride" => records::remove_override(&mut rec, &ctx)
                        .map(|s| format!("override removed; status {s}")),
                    _ => {
                        records::comment(&mut rec, message.as_deref().unwrap_or_default(), &ctx);
                        Ok("comment added".to_string())
                    }
                };
                match outcome {
                    Ok(m) => {
                        tx.put_record(&scope, &rec)?;
                        out.push(
                            json!({"id": id, "ok": true, "message": m, "status": rec["status"]}),
                        );
                    }
                    Err(m) => out.push(json!({"id": id, "ok": false, "message": m})),
                }
            }
            Ok(out)
        })?;
        Ok(Value::Array(results))
    }

    /// One record.
    pub fn validation_record(&self, p: &Principal, id: &str) -> Result<Value> {
        self.read()?
            .record(&p.private_scope(), id)?
            .map(Value::Object)
            .ok_or_else(|| Error::not_found(format!("validation record \"{id}\" not found")))
    }

    /// Records matching a list request (filters over the record fields, sort, paging).
    pub fn validation_records(
        &self,
        p: &Principal,
        req: &crate::documents::ListRequest,
    ) -> Result<crate::store::Page<Value>> {
        let page = self.read()?.records(&p.private_scope(), &req.query)?;
        Ok(crate::store::Page {
            total: page.total,
            items: page
                .items
                .into_iter()
                .map(|r| match &req.project {
                    Some(pr) => Value::Object(pr.apply(&r, true)),
                    None => Value::Object(r),
                })
                .collect(),
        })
    }

    /// `runMany`: up to 25 data items at once; more, a range or `background` go to a job.
    pub fn validation_run_many(&self, p: &Principal, body: &Value, origin: &str) -> Result<Value> {
        p.require(crate::auth::Role::Writer, "running validation")?;
        let targets = strings(body.get("targets"), "targets")?
            .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "targets is missing"))?;
        let ranged = body.get("from").is_some() || body.get("to").is_some();
        let background = body
            .get("background")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if targets.len() > MAX_RUN_MANY || ranged || background {
            return self.queue_job(
                p,
                "runMany",
                json!({"request": body, "origin": "background"}),
            );
        }
        self.run_many_now(p, body, &targets, origin)
    }

    fn run_many_now(
        &self,
        p: &Principal,
        body: &Value,
        targets: &[String],
        origin: &str,
    ) -> Result<Value> {
        let mut results = Vec::new();
        let mut counts: Map<String, Value> = Map::new();
        for target in targets {
            let started = Instant::now();
            let mut req = body.as_object().cloned().unwrap_or_default();
            req.remove("targets");
            req.insert("target".into(), json!(target));
            let item = match self.validation_run(p, &Value::Object(req), false, origin) {
                Ok(out) => {
                    let statuses: Vec<&str> = out["results"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|r| r["status"].as_str())
                        .collect();
                    let status = records::worst(statuses.iter().copied());
                    let ids: Vec<Value> = out["results"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|r| r["_id"].clone())
                        .collect();
                    let point_list: Vec<Value> = out["results"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|r| r["point"].clone())
                        .collect();
                    let failed: Vec<Value> = out["results"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .flat_map(|r| r["failedTenors"].as_array().cloned().unwrap_or_default())
                        .collect();
                    let mut item = json!({"target": target, "kind": out["kind"], "name": Value::Null, "points": out["points"], "counts": out["counts"], "status": status, "message": out["message"], "ids": ids, "pointList": point_list, "ms": ms(started)});
                    if out["kind"] == "curve" {
                        item["failedTenors"] = Value::Array(failed);
                    }
                    if out["results"].as_array().is_some_and(|r| r.is_empty()) {
                        item["status"] = json!("skipped");
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
            };
            let s = item["status"].as_str().unwrap_or("error").to_string();
            let n = counts.get(&s).and_then(Value::as_u64).unwrap_or(0) + 1;
            counts.insert(s, json!(n));
            results.push(item);
        }
        Ok(json!({"targets": targets.len(), "counts": counts, "results": results}))
    }
}

/// Runs a queued job's work (called by the job worker).
impl Platform {
    pub(crate) fn run_job_work(&self, p: &Principal, kind: &str, payload: &Value) -> Result<Value> {
        let mut request = payload["request"].clone();
        if let Value::Object(m) = &mut request {
            m.insert("background".into(), json!(false));
        }
        match kind {
            "run" => {
                // A background run checks everything asked for, however many points.
                self.validation_run_unbounded(p, &request)
            }
            _ => {
                let targets = strings(request.get("targets"), "targets")?.unwrap_or_default();
                self.run_many_unbounded(p, &request, &targets)
            }
        }
    }

    fn validation_run_unbounded(&self, p: &Principal, request: &Value) -> Result<Value> {
        JOB_RUN.with(|flag| flag.set(true));
        let out = self.validation_run(p, request, false, "background");
        JOB_RUN.with(|flag| flag.set(false));
        out
    }

    fn run_many_unbounded(
        &self,
        p: &Principal,
        request: &Value,
        targets: &[String],
    ) -> Result<Value> {
        JOB_RUN.with(|flag| flag.set(true));
        let out = self.run_many_now(p, request, targets, "background");
        JOB_RUN.with(|flag| flag.set(false));
        out
    }
}

thread_local! {
    /// Set while a background job runs: its runs never go to the background again.
    pub(crate) static JOB_RUN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
