//! `suggest`: checks proposed from a data item's recent history; nothing is stored.
//!
//! A request names up to [`MAX_TARGETS`] data items of one kind and a window (`days` back from
//! today, 1..=366, default 30; curves also keep only the newest `maxCurves`, 2..=60, default
//! 25). Per item the answer has the window's statistics and a list of checks, each scored with
//! the engine on every point of the window, and a `config` made of the checks worth keeping,
//! which can be saved unchanged.
//!
//! How thresholds are chosen (fitted on the oldest 80% of the window, reported on all of it,
//! with the newest 20% also reported apart as `holdout`):
//!
//! | check | rule |
//! |---|---|
//! | `!is_missing()` | no value missing in the fitted part |
//! | `value > 0` / `value >= 0` | the fitted minimum is above / at 0 |
//! | `between(value, lo, hi)` (warning, `band`) | median -/+ 4 x 1.4826 x MAD, rounded outward to two significant digits of the band width |
//! | `between(value, lo, hi)` (`range`) | Tukey's far fences: quartiles ∓ 3 interquartile ranges, rounded outward to two significant digits of the band width, cut at 0 when the series never went below |
//! | `!(abs(pct_change(1)) > x && abs(pct_change(2)) > x)` | x = three times the 95% quantile (rank below) of the smaller of the two moves (moves beyond 8 times the median move, and for curves the curves whose median move is, left out of the fit), rounded up to two significant digits (`change` when values reach 0 or below) |
//! | `run_length() <= r` | r = max(2·q, q + 2), q = the 95% quantile of the lengths of runs of one value |
//! | `!(gap() > g)` | g = max(2·q, q + 1), q = the 95% quantile of the calendar steps between observations |
//! | curves: `between(tenor_count(), lo, hi)` | lo = the 10% quantile (nearest rank) of the contract counts, hi = the most seen |
//! | curves: `no_gaps()`, `sorted()`, `unique()`, `!(unchanged_fraction() >= 1.0)` | kept when they hold on every fitted curve |
//! | curves: `!(abs(tenor_pct_change(1)) > x && abs(tenor_pct_change(2)) > x)` | as the point move check, over every contract |
//!
//! Quantiles rather than extremes keep a defect inside the fitted part from widening the
//! threshold that should catch it. A move has to be large against both previous values, so the
//! point after a spike (back to normal) passes, and so does the second point of a genuine level
//! shift. Fewer than 5 values give no checks, fewer than 30 only the structural ones (missing,
//! sign, curve shape), each time with a `message` saying why.

use super::config::{self, severity_name, Kind};
use super::engine::{
    self, CheckDef, CheckScope, CheckStatus, ContractInput, CurveInput, Library, SeriesInput,
    Severity,
};
use crate::auth::Principal;
use crate::data::calendar::{format_time, parse_time, Calendar};
use crate::data::curve;
use crate::data::series::{self, Window};
use crate::data::{series_settings, DataKind};
use crate::documents::json_kind;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::store::{DataKey, ReadTx};
use crate::Platform;
use chrono::{Duration, NaiveDate};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::time::Instant;

/// Most data items one `suggest` takes.
pub const MAX_TARGETS: usize = 25;
/// Bounds and default of `days`.
pub const DAYS: (u64, u64, u64) = (1, 366, 30);
/// Bounds and default of `maxCurves`.
pub const MAX_CURVES: (u64, u64, u64) = (2, 60, 25);
/// Fewest values for any check.
pub const MIN_VALUES: usize = 5;
/// Fewest values for a threshold fitted from a distribution.
pub const MIN_FIT: usize = 30;
/// Share of the window fitted (the rest is the hold-out).
const FIT_SHARE: f64 = 0.8;
/// A move more than this many times the usual (median) one is left out of a fit.
pub const OUTLIER_FACTOR: f64 = 8.0;
/// A threshold check failing on more than this share of its runs stays out of `config`.
const MAX_FAIL_SHARE: f64 = 0.1;

// ---------------------------------------------------------------------------------------------
// Statistics and rounding

/// The `q` quantile (0..=1) of sorted values, linear between ranks; NaN when empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = pos.ceil() as usize;
            sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
        }
    }
}

/// The `q` quantile of sorted values at the rank below (never between two values, so one
/// outlier above it cannot pull it up); NaN when empty.
pub fn quantile_lower(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[(q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64).floor() as usize]
}

/// The `q` quantile of sorted whole numbers by nearest rank (a value that occurred).
pub fn quantile_rank(sorted: &[usize], q: f64) -> Option<usize> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Sorts finite values ascending (NaN dropped).
pub fn sorted(values: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v
}

/// The median and the median absolute deviation of values (NaN when empty).
pub fn median_mad(values: &[f64]) -> (f64, f64) {
    let s = sorted(values.iter().copied());
    let median = quantile(&s, 0.5);
    let dev = sorted(s.iter().map(|x| (x - median).abs()));
    (median, quantile(&dev, 0.5))
}

/// The rounding step giving two significant digits of `width` (a power of ten).
pub fn step_for(width: f64) -> f64 {
    let w = width.abs();
    if !w.is_finite() || w == 0.0 {
        return 1.0;
    }
    10f64.powi(w.log10().floor() as i32 - 1)
}

/// Decimals needed to write multiples of `step`.
fn decimals_of(step: f64) -> usize {
    (-step.log10().round()).max(0.0) as usize
}

/// `x` rounded to a multiple of `step`, down or up (outward rounding of a bound).
pub fn round_to(x: f64, step: f64, up: bool) -> f64 {
    // A tiny tolerance keeps 0.30000000000000004 from becoming 0.31.
    let r = x / step;
    let n = if up {
        (r - 1e-9).ceil()
    } else {
        (r + 1e-9).floor()
    };
    let d = decimals_of(step) as i32;
    let scale = 10f64.powi(d);
    (n * step * scale).round() / scale
}

/// A positive limit rounded up to two significant digits.
pub fn round_up_sig(x: f64) -> f64 {
    round_to(x, step_for(x), true)
}

/// A number as an expression literal: whole numbers without decimals, others with the few
/// decimals they need.
pub fn literal(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let mut s = format!("{x:.10}");
    while s.ends_with('0') {
        s.pop();
    }
    s
}

/// A number for a sentence: four significant digits.
pub fn short(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return literal(x);
    }
    let step = 10f64.powi(x.abs().log10().floor() as i32 - 3);
    let d = decimals_of(step) as i32;
    let scale = 10f64.powi(d);
    literal(((x / step).round() * step * scale).round() / scale)
}

/// A move for a sentence: a percentage when relative.
fn amount(x: f64, relative: bool) -> String {
    if relative {
        format!("{}%", short(x * 100.0))
    } else {
        short(x)
    }
}

/// A float literal (always with a decimal point).
pub fn float_literal(x: f64) -> String {
    let s = literal(x);
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Tukey's far fences of sorted values, rounded outward; None when the quartiles coincide.
pub fn far_fences(sorted: &[f64]) -> Option<(f64, f64)> {
    let (q1, q3) = (quantile(sorted, 0.25), quantile(sorted, 0.75));
    let iqr = q3 - q1;
    if iqr.is_nan() || iqr <= 0.0 {
        return None;
    }
    let (lo, hi) = (q1 - 3.0 * iqr, q3 + 3.0 * iqr);
    let step = step_for(hi - lo);
    Some((round_to(lo, step, false), round_to(hi, step, true)))
}

/// Lengths of the runs of one repeated value (missing values end a run).
pub fn run_lengths(values: &[Option<f64>]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut cur: Option<(f64, usize)> = None;
    for v in values {
        match (v, cur) {
            (Some(x), Some((y, n))) if *x == y => cur = Some((y, n + 1)),
            (Some(x), c) => {
                if let Some((_, n)) = c {
                    out.push(n);
                }
                cur = Some((*x, 1));
            }
            (None, c) => {
                if let Some((_, n)) = c {
                    out.push(n);
                }
                cur = None;
            }
        }
    }
    if let Some((_, n)) = cur {
        out.push(n);
    }
    out
}

fn num(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1e6).round() / 1e6)
    } else {
        Value::Null
    }
}

/// values, missing, zeros, negatives, min, max, mean, stdev of some values.
fn value_stats(values: &[Option<f64>]) -> Map<String, Value> {
    let present: Vec<f64> = values.iter().flatten().copied().collect();
    let n = present.len();
    let mean = present.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        present.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        f64::NAN
    };
    let mut m = Map::new();
    m.insert("values".into(), json!(n));
    m.insert("missing".into(), json!(values.len() - n));
    m.insert(
        "zeros".into(),
        json!(present.iter().filter(|x| **x == 0.0).count()),
    );
    m.insert(
        "negatives".into(),
        json!(present.iter().filter(|x| **x < 0.0).count()),
    );
    let min = present.iter().copied().fold(f64::INFINITY, f64::min);
    let max = present.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m.insert("min".into(), num(min));
    m.insert("max".into(), num(max));
    m.insert("mean".into(), num(mean));
    m.insert("stdev".into(), num(var.sqrt()));
    m
}

// ---------------------------------------------------------------------------------------------
// Requests and the window of data

/// `days` and `maxCurves` of a suggest or tune request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Days back from today.
    pub days: u64,
    /// Newest curves kept.
    pub max_curves: usize,
}

fn bounded(
    body: &Map<String, Value>,
    name: &str,
    (lo, hi, default): (u64, u64, u64),
) -> Result<u64> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match v.as_u64() {
            Some(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(Error::invalid_parameter(format!(
                "{name} must be an integer from {lo} to {hi}, not {v}"
            ))),
        },
    }
}

impl Span {
    /// Reads `days` and `maxCurves`.
    pub fn of(body: &Map<String, Value>) -> Result<Span> {
        Ok(Span {
            days: bounded(body, "days", DAYS)?,
            max_curves: bounded(body, "maxCurves", MAX_CURVES)? as usize,
        })
    }
}

/// The request body as an object.
pub(crate) fn object(body: &Value) -> Result<&Map<String, Value>> {
    body.as_object()
        .ok_or_else(|| Error::invalid_body("the request must be a JSON object"))
}

/// Observations or curves of one data item: the window and what comes before it.
pub(crate) enum Data {
    /// A time series; `labels` are the point texts of every observation of `input`.
    Series {
        input: SeriesInput,
        labels: Vec<String>,
    },
    /// Curves, ascending by ondate.
    Curves { curves: Vec<CurveInput> },
}

/// The loaded data of one item.
pub(crate) struct Loaded {
    pub data: Data,
    /// Index (in `input` or `curves`) of the first point of the window.
    pub first: usize,
    /// Positions in the window of the asked points (tune), in the order asked.
    pub asked: Vec<usize>,
}

impl Loaded {
    /// Points in the window.
    pub fn len(&self) -> usize {
        match &self.data {
            Data::Series { input, .. } => input.times.len() - self.first,
            Data::Curves { curves } => curves.len() - self.first,
        }
    }

    /// The text of the window point at `pos` (observation time or ondate).
    pub fn label(&self, pos: usize) -> String {
        match &self.data {
            Data::Series { labels, .. } => labels[self.first + pos].clone(),
            Data::Curves { curves } => curves[self.first + pos].ondate.to_string(),
        }
    }
}

/// Window bounds: the first day and today.
pub(crate) fn window_dates(now: NaiveDate, days: u64) -> (NaiveDate, NaiveDate) {
    (now - Duration::days(days as i64), now)
}

impl Platform {
    /// Reads the window of an item: the observations (or curves) from `from` to the end of
    /// today, the asked points added even when older, and (curves) only the newest
    /// `max_curves` besides those.
    pub(crate) fn load_window(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        target: &str,
        kind: Kind,
        span: Span,
        asked: &[String],
    ) -> Result<Loaded> {
        let id = crate::data::read::DataId::parse(target)?;
        let scope = Scope::for_source(Source::of_id(&id.object), p);
        let unreadable =
            |why: &str| Error::not_found(format!("data \"{target}\" cannot be read: {why}"));
        let object = tx
            .current(crate::store::Collection::Object, &scope, &id.object)?
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
        let key = DataKey {
            scope,
            object: id.object.clone(),
            prop: id.prop.clone(),
        };
        let (from, today) = window_dates(self.now().date_naive(), span.days);
        let actual = DataKind::of(&Value::Object(header.clone()));
        match (kind, actual) {
            (Kind::TimeSeries, Some(DataKind::Series)) => {
                let (calendar, tz, _) = series_settings(&id.prop, header)?;
                let points = series::read(tx, &key, object.version, Window::All)?;
                let day_ms = |d: NaiveDate| -> Result<i64> {
                    parse_time(&d.format("%Y-%m-%d").to_string(), tz)
                };
                let end = day_ms(today + Duration::days(1))?;
                let mut start = day_ms(from)?;
                let mut asked_t = Vec::with_capacity(asked.len());
                for text in asked {
                    let t = parse_time(text, tz)?;
                    if points.binary_search_by_key(&t, |p| p.t).is_err() || t >= end {
                        return Err(Error::invalid_parameter(format!(
                            "{target} has no observation at {text}"
                        )));
                    }
                    start = start.min(t);
                    asked_t.push(t);
                }
                let kept: Vec<_> = points.into_iter().filter(|p| p.t < end).collect();
                let first = kept.partition_point(|p| p.t < start);
                let step_ms = match calendar {
                    Calendar::Daily => Some(86_400_000),
                    Calendar::Intraday(s) => Some(i64::from(s) * 1000),
                    _ => None,
                };
                let asked = asked_t
                    .iter()
                    .filter_map(|t| kept.binary_search_by_key(t, |p| p.t).ok())
                    .map(|i| i - first)
                    .collect();
                let input = SeriesInput {
                    times: kept.iter().map(|p| p.t).collect(),
                    values: kept
                        .iter()
                        .map(|p| p.v.as_f64().filter(|v| v.is_finite()))
                        .collect(),
                    step_ms,
                };
                let labels = kept
                    .iter()
                    .map(|p| format_time(p.t, calendar, tz))
                    .collect();
                Ok(Loaded {
                    data: Data::Series { input, labels },
                    first,
                    asked,
                })
            }
            (Kind::Curve, Some(DataKind::Curve)) => {
                let to = today.format("%Y-%m-%d").to_string();
                let all = tx.curves(&key, object.version, None, Some(&to), None)?;
                let mut asked_days = Vec::with_capacity(asked.len());
                for text in asked {
                    let d = text
                        .get(..10)
                        .and_then(|h| NaiveDate::parse_from_str(h, "%Y-%m-%d").ok())
                        .ok_or_else(|| {
                            Error::invalid_parameter(format!(
                                "\"{text}\" is not a date (YYYY-MM-DD)"
                            ))
                        })?
                        .format("%Y-%m-%d")
                        .to_string();
                    if !all.iter().any(|(o, _)| *o == d) {
                        return Err(Error::invalid_parameter(format!(
                            "{target} has no curve on {d}"
                        )));
                    }
                    asked_days.push(d);
                }
                let from = from.format("%Y-%m-%d").to_string();
                let in_days = all.partition_point(|(o, _)| *o < from);
                let mut first = in_days.max(all.len().saturating_sub(span.max_curves));
                if let Some(oldest) = asked_days.iter().min() {
                    first = first.min(all.partition_point(|(o, _)| o < oldest));
                }
                // Two earlier curves feed the move checks of the first ones.
                let load_from = first.saturating_sub(2);
                let mut curves = Vec::with_capacity(all.len() - load_from);
                for (_, bytes) in &all[load_from..] {
                    curves.push(curve_input(&curve::decode(bytes)?));
                }
                let first = first - load_from;
                let asked = asked_days
                    .iter()
                    .filter_map(|d| {
                        curves
                            .iter()
                            .position(|c| c.ondate.format("%Y-%m-%d").to_string() == *d)
                    })
                    .map(|i| i - first)
                    .collect();
                Ok(Loaded {
                    data: Data::Curves { curves },
                    first,
                    asked,
                })
            }
            (k, _) => Err(Error::invalid_parameter(format!(
                "{target} is not a {}",
                if k == Kind::Curve {
                    "curve"
                } else {
                    "time series"
                }
            ))),
        }
    }
}

fn curve_input(stored: &curve::StoredCurve) -> CurveInput {
    let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_default();
    CurveInput {
        ondate: day(stored.curve_date()),
        contracts: stored
            .contracts
            .iter()
            .map(|c| ContractInput {
                tenor: c.tenor.clone(),
                relative: c.relative.clone(),
                absolute: c.absolute.clone(),
                value: c.value.as_f64().filter(|v| v.is_finite()),
                start: day(&c.start),
                end: day(&c.end),
                expiry: day(&c.expiry),
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Scoring checks with the engine

/// A failing evaluation: where and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cell {
    /// Position in the window.
    pub point: usize,
    /// The contract (tenor checks).
    pub tenor: Option<String>,
    /// The value checked.
    pub value: Option<f64>,
    /// Fail or Error.
    pub status: CheckStatus,
    /// The engine's message.
    pub message: String,
}

/// One check over the window.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scored {
    /// Per window point, how many evaluations ran (were not skipped).
    pub ran: Vec<u32>,
    /// The failing evaluations, in window order.
    pub fails: Vec<Cell>,
}

impl Scored {
    /// Evaluations that ran from window position `from` on.
    pub fn runs_from(&self, from: usize) -> usize {
        self.ran.iter().skip(from).map(|n| *n as usize).sum()
    }

    /// Failures from window position `from` on.
    pub fn fails_from(&self, from: usize) -> usize {
        self.fails.iter().filter(|c| c.point >= from).count()
    }

    /// Whether an evaluation at `point` (and `tenor`, for tenor checks) failed.
    pub fn fails_at(&self, point: usize, tenor: Option<&str>) -> bool {
        self.fails
            .iter()
            .any(|c| c.point == point && (tenor.is_none() || c.tenor.as_deref() == tenor))
    }
}

/// Runs checks over the window of `loaded`: each point check sees `lookback` earlier
/// observations, each curve `history` earlier curves. One [`Scored`] per def, in order.
pub(crate) fn score(
    loaded: &Loaded,
    defs: &[CheckDef],
    libs: &[Library],
    lookback: usize,
    history: usize,
) -> Result<Vec<Scored>> {
    let compiled = engine::compile(defs, libs)?;
    let n = loaded.len();
    let mut out: Vec<Scored> = defs
        .iter()
        .map(|_| Scored {
            ran: vec![0; n],
            fails: Vec::new(),
        })
        .collect();
    let index: HashMap<&str, usize> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id.as_str(), i))
        .collect();
    let first = loaded.first;
    match &loaded.data {
        Data::Series { input, .. } => {
            let targets: Vec<usize> = (first..input.times.len()).collect();
            let eval = compiled.evaluate_series(input, &targets, lookback);
            for (c, id) in eval.check_ids().iter().enumerate() {
                let Some(&d) = index.get(id.as_str()) else {
                    continue;
                };
                for t in 0..eval.target_count() {
                    let pos = eval.index(t) - first;
                    let status = eval.status(c, t);
                    if status != CheckStatus::Skipped {
                        out[d].ran[pos] += 1;
                    }
                    if matches!(status, CheckStatus::Fail | CheckStatus::Error) {
                        out[d].fails.push(Cell {
                            point: pos,
                            tenor: None,
                            value: input.values[eval.index(t)],
                            status,
                            message: eval.message(c, t).to_string(),
                        });
                    }
                }
            }
        }
        Data::Curves { curves } => {
            for pos in 0..n {
                let i = first + pos;
                let past: Vec<CurveInput> =
                    curves[..i].iter().rev().take(history).cloned().collect();
                let outcome = compiled.run_curve(&curves[i], &past);
                let mut record = |o: &engine::CheckOutcome, tenor: Option<(&str, Option<f64>)>| {
                    let Some(&d) = index.get(o.id.as_str()) else {
                        return;
                    };
                    if o.status != CheckStatus::Skipped {
                        out[d].ran[pos] += 1;
                    }
                    if matches!(o.status, CheckStatus::Fail | CheckStatus::Error) {
                        out[d].fails.push(Cell {
                            point: pos,
                            tenor: tenor.map(|(t, _)| t.to_string()),
                            value: tenor.and_then(|(_, v)| v),
                            status: o.status,
                            message: o.message.clone(),
                        });
                    }
                };
                for o in &outcome.curve {
                    record(o, None);
                }
                for (t, contract) in outcome.tenors.iter().zip(&curves[i].contracts) {
                    for o in &t.checks {
                        record(o, Some((&t.tenor, contract.value)));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The name of a scope.
pub(crate) fn scope_name(s: CheckScope) -> &'static str {
    match s {
        CheckScope::Point => "point",
        CheckScope::Tenor => "tenor",
        CheckScope::Curve => "curve",
    }
}

/// A failing evaluation as JSON.
pub(crate) fn cell_json(loaded: &Loaded, c: &Cell) -> Value {
    let mut m = json!({
        "point": loaded.label(c.point),
        "value": c.value.map_or(Value::Null, num),
        "message": c.message,
    });
    if let Some(t) = &c.tenor {
        m["tenor"] = json!(t);
    }
    if c.status == CheckStatus::Error {
        m["error"] = json!(true);
    }
    m
}

// ---------------------------------------------------------------------------------------------
// Candidate checks

/// A proposed check and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The check.
    pub def: CheckDef,
    /// Why, with the numbers behind it.
    pub reason: String,
    /// A threshold fitted from a distribution (kept in `config` unless it fails often);
    /// otherwise a structural check (kept only when it passes on the fitted part).
    pub fitted: bool,
}

fn candidate(
    id: &str,
    name: &str,
    expression: String,
    scope: CheckScope,
    reason: String,
    fitted: bool,
) -> Candidate {
    Candidate {
        def: CheckDef {
            id: id.into(),
            name: name.into(),
            expression,
            scope,
            severity: Severity::Failed,
        },
        reason,
        fitted,
    }
}

/// Candidates for a series window: `values` and `times` from the first loaded observation,
/// `first` the first window index, `fit_end` the end (exclusive) of the fitted part. Returns
/// the candidates, a message when some rules lacked data, and the lookback they need.
pub fn series_candidates(
    input: &SeriesInput,
    first: usize,
    fit_end: usize,
) -> (Vec<Candidate>, Option<String>, usize) {
    let fit = &input.values[first..fit_end];
    let present: Vec<f64> = fit.iter().flatten().copied().collect();
    let n = present.len();
    let mut out = Vec::new();
    let window_values = input.values[first..].iter().flatten().count();
    if window_values < MIN_VALUES {
        return (
            out,
            Some(format!(
                "only {window_values} values in the window: at least {MIN_VALUES} are needed to suggest checks; widen days"
            )),
            0,
        );
    }
    if n == 0 {
        return (
            out,
            Some("no value in the fitted (older) part of the window; widen days".into()),
            0,
        );
    }
    if fit.iter().all(Option::is_some) {
        out.push(candidate(
            "not_missing",
            "Not missing",
            "!is_missing()".into(),
            CheckScope::Point,
            format!("none of the {} fitted observations was missing", fit.len()),
            false,
        ));
    }
    let s = sorted(present.iter().copied());
    let (min, max) = (s[0], s[n - 1]);
    if min > 0.0 {
        out.push(candidate(
            "positive",
            "Positive",
            "value > 0".into(),
            CheckScope::Point,
            format!("all {n} fitted values were above 0 (lowest {})", short(min)),
            false,
        ));
    } else if min == 0.0 {
        out.push(candidate(
            "not_negative",
            "Not negative",
            "value >= 0".into(),
            CheckScope::Point,
            format!("no fitted value was below 0 ({n} values, lowest 0)"),
            false,
        ));
    }
    if n < MIN_FIT {
        return (
            out,
            Some(format!(
                "only {n} values to fit thresholds on: range, move, stale and gap checks need at least {MIN_FIT}; widen days"
            )),
            0,
        );
    }
    let mut notes = Vec::new();
    match far_fences(&s) {
        Some((lo, hi)) => {
            let lo = if min >= 0.0 { lo.max(0.0) } else { lo };
            out.push(candidate(
                "range",
                "Range",
                format!("between(value, {}, {})", literal(lo), literal(hi)),
                CheckScope::Point,
                format!(
                    "the middle half of the {n} fitted values lies between {} and {} (lowest {}, highest {}); the band reaches 3 interquartile ranges beyond it, rounded outward{}",
                    short(quantile(&s, 0.25)),
                    short(quantile(&s, 0.75)),
                    short(min),
                    short(max),
                    if min >= 0.0 && lo == 0.0 { " and cut at 0" } else { "" }
                ),
                true,
            ));
        }
        None => notes.push("no range check: most fitted values are equal".to_string()),
    }
    // The usual band (a warning): median -/+ 4 robust standard deviations.
    let (median, mad) = median_mad(&present);
    if mad > 0.0 {
        let half = 4.0 * 1.4826 * mad;
        let step = step_for(2.0 * half);
        let lo = round_to(median - half, step, false);
        let lo = if min >= 0.0 { lo.max(0.0) } else { lo };
        let hi = round_to(median + half, step, true);
        let mut band = candidate(
            "band",
            "Usual band",
            format!("between(value, {}, {})", literal(lo), literal(hi)),
            CheckScope::Point,
            format!(
                "the {n} fitted values have median {} and median absolute deviation {}; the band is the median -/+ 4 x 1.4826 x MAD (about 4 standard deviations of normal data), rounded outward; a value outside it is worth a look",
                short(median),
                short(mad)
            ),
            true,
        );
        band.def.severity = Severity::Warning;
        out.push(band);
    }
    // Moves against the two previous observations.
    let relative = min > 0.0;
    let lag = |i: usize, k: usize| i.checked_sub(k).and_then(|j| input.values[j]);
    let moves = sorted((first..fit_end).filter_map(|i| {
        let v = input.values[i]?;
        let m = |k| {
            lag(i, k).and_then(|p: f64| {
                let d = v - p;
                if relative {
                    (p != 0.0).then(|| (d / p.abs()).abs())
                } else {
                    Some(d.abs())
                }
            })
        };
        Some(m(1)?.min(m(2)?))
    }));
    // Moves far beyond the usual one (spikes in the fitted part) stay out of the fit.
    let usual = quantile(&moves, 0.5);
    let all_moves = moves.len();
    let moves: Vec<f64> = moves
        .into_iter()
        .filter(|m| !(usual > 0.0 && *m > OUTLIER_FACTOR * usual))
        .collect();
    let left_out = all_moves - moves.len();
    let q95 = quantile_lower(&moves, 0.95);
    if moves.len() >= MIN_FIT && q95 > 0.0 {
        let x = round_up_sig(3.0 * q95);
        let f = if relative { "pct_change" } else { "change" };
        out.push(candidate(
            "move",
            "Move",
            format!("!(abs({f}(1)) > {x} && abs({f}(2)) > {x})", x = float_literal(x)),
            CheckScope::Point,
            format!(
                "95% of the {} fitted values moved at most {} from the nearer of the two previous values{}; the limit is three times that, rounded up: a value fails when it moved more than {} from both, as a spike does (the value after it, back to normal, passes)",
                moves.len(),
                amount(q95, relative),
                if left_out > 0 {
                    format!(" ({left_out} move(s) more than {OUTLIER_FACTOR} times the median move left out)")
                } else {
                    String::new()
                },
                amount(x, relative)
            ),
            true,
        ));
    } else {
        notes.push("no move check: too few consecutive values, or they never moved".into());
    }
    // Runs of one repeated value.
    let mut runs = run_lengths(fit);
    runs.sort_unstable();
    let longest = runs.last().copied().unwrap_or(0);
    let mut lookback = 2;
    match quantile_rank(&runs, 0.95) {
        Some(q) if q * 4 <= n => {
            let limit = (2 * q).max(q + 2);
            lookback = lookback.max(limit + 1);
            out.push(candidate(
                "stale",
                "Stale",
                format!("run_length() <= {limit}"),
                CheckScope::Point,
                format!(
                    "95% of the {} runs of one repeated value in the fitted part were at most {q} long (longest {longest}); the same value more than {limit} times in a row fails",
                    runs.len()
                ),
                true,
            ));
        }
        _ => notes.push("no stale check: the series mostly repeats its values".into()),
    }
    // Gaps between observations, in calendar steps.
    if let Some(step) = input.step_ms.filter(|s| *s > 0) {
        let mut gaps: Vec<usize> = (first.max(1)..fit_end)
            .map(|i| ((input.times[i] - input.times[i - 1]) / step).max(0) as usize)
            .collect();
        gaps.sort_unstable();
        if let Some(q) = quantile_rank(&gaps, 0.95) {
            let limit = (2 * q).max(q + 1);
            out.push(candidate(
                "gap",
                "Gap",
                format!("!(gap() > {limit})"),
                CheckScope::Point,
                format!(
                    "95% of the {} fitted observations came at most {q} calendar step(s) after the previous one (most {}); more than {limit} steps fails",
                    gaps.len(),
                    gaps.last().copied().unwrap_or(0)
                ),
                true,
            ));
        }
    }
    let message = (!notes.is_empty()).then(|| notes.join("; "));
    (out, message, lookback.min(1000))
}

/// Candidates for curves: `curves[first..fit_end]` are fitted (earlier ones are history).
pub fn curve_candidates(
    curves: &[CurveInput],
    first: usize,
    fit_end: usize,
) -> (Vec<Candidate>, Option<String>) {
    let mut out = Vec::new();
    let window = curves.len() - first;
    if window < 2 {
        return (
            out,
            Some(format!(
                "only {window} curve(s) in the window: at least 2 are needed to suggest checks; widen days"
            )),
        );
    }
    let fit = &curves[first..fit_end];
    let values: Vec<Option<f64>> = fit
        .iter()
        .flat_map(|c| c.contracts.iter().map(|k| k.value))
        .collect();
    let present = sorted(values.iter().flatten().copied());
    if present.is_empty() {
        return (out, Some("no contract value in the fitted curves".into()));
    }
    let n = present.len();
    if values.iter().all(Option::is_some) {
        out.push(candidate(
            "not_missing",
            "Not missing",
            "!is_missing()".into(),
            CheckScope::Tenor,
            format!(
                "none of the {} contracts of the {} fitted curves was missing a value",
                values.len(),
                fit.len()
            ),
            false,
        ));
    }
    if present[0] > 0.0 {
        out.push(candidate(
            "positive",
            "Positive",
            "value > 0".into(),
            CheckScope::Tenor,
            format!(
                "all {n} fitted contract values were above 0 (lowest {})",
                short(present[0])
            ),
            false,
        ));
    }
    let mut counts: Vec<usize> = fit
        .iter()
        .map(|c| c.contracts.iter().filter(|k| k.value.is_some()).count())
        .collect();
    counts.sort_unstable();
    if let (Some(lo), Some(&hi)) = (quantile_rank(&counts, 0.1), counts.last()) {
        out.push(candidate(
            "tenor_count",
            "Tenor count",
            format!("between(tenor_count(), {lo}, {hi})"),
            CheckScope::Curve,
            format!(
                "the {} fitted curves had {}..{hi} contracts with a value; the lower bound is the 10% quantile ({lo}), so a curve missing contracts fails",
                fit.len(),
                counts[0]
            ),
            true,
        ));
    }
    for (id, name, expr, why) in [
        (
            "no_gaps",
            "No gaps",
            "no_gaps()",
            "no delivery period was skipped",
        ),
        (
            "sorted",
            "Sorted",
            "sorted()",
            "the contracts were in delivery order",
        ),
        (
            "unique",
            "Unique",
            "unique()",
            "no delivery period appeared twice",
        ),
        (
            "not_stale",
            "Not stale",
            "!(unchanged_fraction() >= 1.0)",
            "no curve repeated every value of the previous one",
        ),
    ] {
        out.push(candidate(
            id,
            name,
            expr.into(),
            CheckScope::Curve,
            format!("on the {} fitted curves {why}", fit.len()),
            false,
        ));
    }
    let relative = present[0] > 0.0;
    let find = |c: &CurveInput, abs: &str| {
        c.contracts
            .iter()
            .find(|k| k.absolute == abs)
            .and_then(|k| k.value)
    };
    let mut per_curve: Vec<Vec<f64>> = Vec::new();
    for i in first..fit_end {
        let mut moves = Vec::new();
        for k in &curves[i].contracts {
            let (Some(v), false) = (k.value, k.absolute.is_empty()) else {
                continue;
            };
            let m = |back: usize| {
                let j = i.checked_sub(back)?;
                let p = find(&curves[j], &k.absolute)?;
                if relative {
                    (p != 0.0).then(|| ((v - p) / p.abs()).abs())
                } else {
                    Some((v - p).abs())
                }
            };
            if let (Some(a), Some(b)) = (m(1), m(2)) {
                moves.push(a.min(b));
            }
        }
        if !moves.is_empty() {
            per_curve.push(moves);
        }
    }
    // A curve whose typical move is far beyond the others' (a shifted curve) stays out of
    // the fit, so that defects in the fitted part do not set the threshold.
    let typical: Vec<f64> = per_curve.iter().map(|m| median_mad(m).0).collect();
    let usual = quantile(&sorted(typical.iter().copied()), 0.5);
    let mut left_out = 0;
    let mut moves = Vec::new();
    for (m, t) in per_curve.into_iter().zip(&typical) {
        if usual > 0.0 && *t > OUTLIER_FACTOR * usual {
            left_out += 1;
        } else {
            moves.extend(m);
        }
    }
    let moves = sorted(moves);
    let q95 = quantile_lower(&moves, 0.95);
    let message = if moves.len() >= MIN_FIT && q95 > 0.0 {
        let x = round_up_sig(3.0 * q95);
        let f = if relative {
            "tenor_pct_change"
        } else {
            "tenor_change"
        };
        out.push(candidate(
            "tenor_move",
            "Tenor move",
            format!("!(abs({f}(1)) > {x} && abs({f}(2)) > {x})", x = float_literal(x)),
            CheckScope::Tenor,
            format!(
                "95% of {} fitted contract prices moved at most {} from the nearer of their two previous curves{}; the limit is three times that, rounded up: a contract fails when it moved more than {} from both (a shifted curve), while the curve after it passes",
                moves.len(),
                amount(q95, relative),
                if left_out > 0 {
                    format!(" ({left_out} curve(s) whose typical move was more than {OUTLIER_FACTOR} times the usual left out)")
                } else {
                    String::new()
                },
                amount(x, relative)
            ),
            true,
        ));
        None
    } else {
        Some(format!(
            "no move check: {} contract moves could be measured, at least {MIN_FIT} are needed",
            moves.len()
        ))
    };
    (out, message)
}

// ---------------------------------------------------------------------------------------------
// The service function

/// A parsed suggest request.
#[derive(Debug, Clone, PartialEq)]
pub struct SuggestRequest {
    /// The data ids.
    pub targets: Vec<String>,
    /// Their kind.
    pub kind: Kind,
    /// The window.
    pub span: Span,
}

impl SuggestRequest {
    /// Reads and bounds-checks a request body.
    pub fn from_json(body: &Value) -> Result<SuggestRequest> {
        let m = object(body)?;
        let targets = match m.get("targets") {
            None | Some(Value::Null) => {
                return Err(Error::new(
                    ErrorCode::MissingParameter,
                    "targets is missing",
                ))
            }
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .ok_or_else(|| {
                            Error::invalid_body("targets must be an array of data ids (strings)")
                        })
                })
                .collect::<Result<Vec<_>>>()?,
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "targets must be an array, not {}",
                    json_kind(other)
                )))
            }
        };
        if targets.is_empty() {
            return Err(Error::new(ErrorCode::MissingParameter, "targets is empty"));
        }
        if targets.len() > MAX_TARGETS {
            return Err(Error::invalid_parameter(format!(
                "at most {MAX_TARGETS} targets; {} were given",
                targets.len()
            )));
        }
        let kind = match m.get("kind") {
            None | Some(Value::Null) => Kind::TimeSeries,
            Some(Value::String(k)) => Kind::parse(k)?,
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "kind must be a string, not {}",
                    json_kind(other)
                )))
            }
        };
        Ok(SuggestRequest {
            targets,
            kind,
            span: Span::of(m)?,
        })
    }
}

pub(crate) fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e5).round() / 100.0
}

impl Platform {
    /// `suggest`: proposed checks per data item; nothing is stored.
    pub fn validation_suggest(&self, p: &Principal, body: &Value) -> Result<Value> {
        let req = SuggestRequest::from_json(body)?;
        let (from, to) = window_dates(self.now().date_naive(), req.span.days);
        let tx = self.read()?;
        let mut results = Vec::with_capacity(req.targets.len());
        for target in &req.targets {
            let started = Instant::now();
            let mut item = match self.suggest_one(tx.as_ref(), p, target, &req) {
                Ok(m) => m,
                Err(e) if e.code() == ErrorCode::Internal => return Err(e),
                Err(e) => {
                    let mut m = Map::new();
                    m.insert("target".into(), json!(target));
                    m.insert("kind".into(), json!(req.kind.as_str()));
                    m.insert("error".into(), json!(e.public_message()));
                    m
                }
            };
            item.insert("ms".into(), json!(ms(started)));
            results.push(Value::Object(item));
        }
        Ok(json!({
            "days": req.span.days,
            "from": from.to_string(),
            "to": to.to_string(),
            "results": results,
        }))
    }

    fn suggest_one(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        target: &str,
        req: &SuggestRequest,
    ) -> Result<Map<String, Value>> {
        let loaded = self.load_window(tx, p, target, req.kind, req.span, &[])?;
        let n = loaded.len();
        let fit_len = ((n as f64 * FIT_SHARE).ceil() as usize).clamp(n.min(1), n);
        let fit_end = loaded.first + fit_len;
        let mut item = Map::new();
        item.insert("target".into(), json!(target));
        item.insert("kind".into(), json!(req.kind.as_str()));
        item.insert("points".into(), json!(n));
        let (candidates, message, lookback, history) = match &loaded.data {
            Data::Series { input, .. } => {
                let window = &input.values[loaded.first..];
                let mut stats = value_stats(window);
                let longest_gap = input.step_ms.filter(|s| *s > 0).map(|step| {
                    (loaded.first.max(1)..input.times.len())
                        .map(|i| (input.times[i] - input.times[i - 1]) / step)
                        .max()
                        .unwrap_or(0)
                });
                stats.insert("longestGap".into(), json!(longest_gap));
                stats.insert(
                    "longestRun".into(),
                    json!(run_lengths(window).into_iter().max().unwrap_or(0)),
                );
                item.insert("stats".into(), Value::Object(stats));
                let (c, m, lookback) = series_candidates(input, loaded.first, fit_end);
                (c, m, lookback, 0)
            }
            Data::Curves { curves } => {
                let window = &curves[loaded.first..];
                let values: Vec<Option<f64>> = window
                    .iter()
                    .flat_map(|c| c.contracts.iter().map(|k| k.value))
                    .collect();
                let mut stats = value_stats(&values);
                let counts = window.iter().map(|c| c.contracts.len());
                stats.insert("curves".into(), json!(window.len()));
                stats.insert("fewestContracts".into(), json!(counts.clone().min()));
                stats.insert("mostContracts".into(), json!(counts.max()));
                item.insert("stats".into(), Value::Object(stats));
                let (c, m) = curve_candidates(curves, loaded.first, fit_end);
                (c, m, 0, 2)
            }
        };
        if let Some(m) = message {
            item.insert("message".into(), json!(m));
        }
        let defs: Vec<CheckDef> = candidates.iter().map(|c| c.def.clone()).collect();
        let scored = score(&loaded, &defs, &[], lookback, history)?;
        let holdout = fit_len;
        let mut checks = Vec::with_capacity(candidates.len());
        let mut kept = Vec::new();
        for (cand, s) in candidates.iter().zip(&scored) {
            let runs = s.runs_from(0);
            let failures = s.fails.len();
            let fit_failures = failures - s.fails_from(holdout);
            let keep = if cand.fitted {
                runs > 0 && failures as f64 <= MAX_FAIL_SHARE * runs as f64
            } else {
                runs > 0 && fit_failures == 0
            };
            let mut reason = cand.reason.clone();
            if failures > 0 {
                reason.push_str(&format!(
                    "; it fails on {failures} of {runs} evaluations in the window ({} in the newest part)",
                    s.fails_from(holdout)
                ));
            }
            if !keep {
                reason.push_str(if cand.fitted {
                    "; left out of config: it fails too often"
                } else {
                    "; left out of config: it fails on the fitted part"
                });
            }
            let d = &cand.def;
            let mut check = json!({
                "id": d.id,
                "name": d.name,
                "expression": d.expression,
                "severity": severity_name(d.severity),
                "reason": reason,
                "runs": runs,
                "failures": failures,
                "example": s.fails.first().map_or(Value::Null, |c| cell_json(&loaded, c)),
                "suggested": runs > 0 && failures == 0,
                "inConfig": keep,
                "holdout": {"runs": s.runs_from(holdout), "failures": s.fails_from(holdout)},
            });
            if req.kind == Kind::Curve {
                check["scope"] = json!(scope_name(d.scope));
            }
            if keep {
                let mut c = json!({"id": d.id, "name": d.name, "expression": d.expression, "severity": severity_name(d.severity)});
                if req.kind == Kind::Curve {
                    c["scope"] = json!(scope_name(d.scope));
                }
                kept.push(c);
            }
            checks.push(check);
        }
        item.insert("checks".into(), Value::Array(checks));
        let options = match req.kind {
            Kind::TimeSeries => json!({"lookback": lookback}),
            Kind::Curve => json!({"curveHistory": history}),
        };
        let doc =
            json!({"_id": target, "kind": req.kind.as_str(), "checks": kept, "options": options});
        // The configuration must save as it is.
        if let Value::Object(d) = &doc {
            config::normalise(d.clone())?;
        }
        item.insert("config".into(), doc);
        Ok(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_and_rank() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&s, 0.5), 3.0);
        assert_eq!(quantile(&s, 0.25), 2.0);
        assert_eq!(quantile(&s, 0.9), 4.6);
        assert!(quantile(&[], 0.5).is_nan());
        assert_eq!(
            quantile_rank(&[1, 1, 1, 1, 1, 1, 1, 1, 1, 8], 0.95),
            Some(8)
        );
        let mut runs = vec![1; 40];
        runs.push(8);
        assert_eq!(
            quantile_rank(&runs, 0.95),
            Some(1),
            "one long run is not the 95% quantile"
        );
        assert_eq!(quantile_rank(&[], 0.5), None);
    }

    #[test]
    fn median_and_mad_ignore_one_outlier() {
        let (median, mad) = median_mad(&[10.0, 11.0, 9.0, 10.0, 1000.0]);
        assert_eq!((median, mad), (10.0, 1.0));
    }

    #[test]
    fn rounding_goes_outward_to_two_significant_digits() {
        assert_eq!(step_for(37.0), 1.0);
        assert_eq!(step_for(0.042), 0.001);
        assert_eq!(round_to(12.34, 1.0, false), 12.0);
        assert_eq!(round_to(12.34, 1.0, true), 13.0);
        assert_eq!(round_to(-3.21, 0.1, false), -3.3);
        assert_eq!(round_to(0.3, 0.1, true), 0.3, "an exact multiple stays");
        assert_eq!(round_up_sig(0.04312), 0.044);
        assert_eq!(round_up_sig(1234.0), 1300.0);
        assert_eq!(literal(70.0), "70");
        assert_eq!(literal(0.044), "0.044");
        assert_eq!(float_literal(2.0), "2.0");
        assert_eq!(short(0.0305551), "0.03056");
        assert_eq!(short(51.342763), "51.34");
        assert_eq!(amount(0.0305551, true), "3.056%");
    }

    #[test]
    fn far_fences_round_outward_and_need_a_spread() {
        let s = sorted((0..100).map(|i| 50.0 + f64::from(i % 10)));
        let (lo, hi) = far_fences(&s).unwrap();
        // Quartiles 52 and 57: fences 37 and 72, already whole.
        assert_eq!((lo, hi), (37.0, 72.0));
        assert!(far_fences(&[5.0; 10]).is_none());
    }

    #[test]
    fn runs_of_one_value() {
        let v = [
            Some(1.0),
            Some(1.0),
            Some(2.0),
            None,
            Some(2.0),
            Some(2.0),
            Some(2.0),
        ];
        assert_eq!(run_lengths(&v), vec![2, 1, 3]);
    }

    fn daily(values: &[Option<f64>]) -> SeriesInput {
        SeriesInput {
            times: (0..values.len() as i64).map(|i| i * 86_400_000).collect(),
            values: values.to_vec(),
            step_ms: Some(86_400_000),
        }
    }

    #[test]
    fn series_candidates_are_robust_to_a_defect_in_the_fitted_part() {
        let mut v: Vec<Option<f64>> = (0..100)
            .map(|i| Some(50.0 + f64::from((i * 7) % 13) * 0.5))
            .collect();
        v[20] = Some(500.0);
        let input = daily(&v);
        let (c, message, lookback) = series_candidates(&input, 0, 80);
        assert!(message.is_none(), "{message:?}");
        let expr = |id: &str| {
            c.iter()
                .find(|c| c.def.id == id)
                .map(|c| c.def.expression.clone())
                .unwrap_or_default()
        };
        assert_eq!(expr("positive"), "value > 0");
        let range = expr("range");
        assert!(range.starts_with("between(value, "), "{range}");
        let hi: f64 = range
            .trim_end_matches(')')
            .rsplit(", ")
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(hi < 100.0, "the spike does not widen the range: {range}");
        assert_eq!(expr("stale"), "run_length() <= 3");
        assert_eq!(expr("gap"), "!(gap() > 2)");
        // Values 50..56 by halves, median 53, MAD 1.5: 53 -/+ 8.9 rounded outward.
        assert_eq!(expr("band"), "between(value, 44, 62)");
        let band = c.iter().find(|c| c.def.id == "band").unwrap();
        assert_eq!(band.def.severity, Severity::Warning);
        assert!(lookback >= 4);
        assert!(expr("move").starts_with("!(abs(pct_change(1)) > 0."));
    }

    #[test]
    fn suggested_point_checks_run_natively_and_curve_checks_compile() {
        let v: Vec<Option<f64>> = (0..100)
            .map(|i| Some(50.0 + f64::from((i * 7) % 13) * 0.5))
            .collect();
        let (c, _, _) = series_candidates(&daily(&v), 0, 80);
        let defs: Vec<CheckDef> = c.iter().map(|c| c.def.clone()).collect();
        let compiled = engine::compile(&defs, &[]).unwrap();
        let all: Vec<String> = defs.iter().map(|d| d.id.clone()).collect();
        assert_eq!(compiled.native_ids(), all);
        assert_eq!(all.len(), 7, "{all:?}");
        compiled.trial().unwrap();
    }

    #[test]
    fn curve_fits_leave_a_shifted_curve_out() {
        let date = |d: u32| NaiveDate::from_ymd_opt(2024, 5, d).unwrap();
        let curves: Vec<CurveInput> = (1..=31u32)
            .map(|d| {
                let factor = if d == 10 || d == 20 { 1.3 } else { 1.0 };
                CurveInput {
                    ondate: date(d),
                    contracts: (0..6u32)
                        .map(|m| {
                            let code = format!("2025M{:02}", m + 1);
                            ContractInput {
                                tenor: code.clone(),
                                relative: String::new(),
                                absolute: code,
                                value: Some(
                                    (40.0 + f64::from(m) + f64::from((d * 7 + m) % 5) * 0.1)
                                        * factor,
                                ),
                                start: date(1),
                                end: date(1),
                                expiry: date(1),
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        let (c, message) = curve_candidates(&curves, 2, 31);
        assert!(message.is_none(), "{message:?}");
        let moves = c.iter().find(|c| c.def.id == "tenor_move").unwrap();
        assert!(moves.reason.contains("2 curve(s)"), "{}", moves.reason);
        // Day-to-day moves are below 1.5%: the limit stays far below the 30% shift.
        let x: f64 = moves
            .def
            .expression
            .rsplit("> ")
            .next()
            .unwrap()
            .trim_end_matches(')')
            .parse()
            .unwrap();
        assert!(x < 0.1, "{}", moves.def.expression);
        let defs: Vec<CheckDef> = c.iter().map(|c| c.def.clone()).collect();
        engine::compile(&defs, &[]).unwrap().trial().unwrap();
    }

    #[test]
    fn too_little_data_gives_a_message() {
        let input = daily(&[Some(1.0), Some(2.0), Some(3.0)]);
        let (c, message, _) = series_candidates(&input, 0, 3);
        assert!(c.is_empty());
        assert!(message.unwrap().contains("at least 5"));
        let v: Vec<Option<f64>> = (0..12).map(|i| Some(f64::from(i) + 1.0)).collect();
        let (c, message, _) = series_candidates(&daily(&v), 0, 10);
        assert!(message.unwrap().contains("at least 30"));
        let ids: Vec<&str> = c.iter().map(|c| c.def.id.as_str()).collect();
        assert_eq!(ids, vec!["not_missing", "positive"]);
    }
}
