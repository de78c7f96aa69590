//! Validation records, their state transitions and their stored form.
//!
//! One record per checked point: `<data_id>:<time>` for a time-series observation,
//! `<data_id>:<ondate>` for a curve. Statuses: `valid`, `warning`, `failed`, `severe`, `error`,
//! `skipped`, `overridden`; failing means `failed`, `severe` or `error`.
//!
//! | Record | Call | Next | Effects |
//! |---|---|---|---|
//! | any or none | run | from the results (worst of severe > error > failed > warning > valid; skipped when no check applied) | `checkedStatus`, `runs`, `firstRun`, `lastRun`, `lastRunBy`, `lastOrigin`; `openSince` when it starts failing; `resolvedAt`, `resolution: rerun`, `resolveMinutes` when it stops |
//! | overridden | run, still failing on the same data | overridden | the override stays |
//! | overridden | run, passing or on changed data | from the results | timeline `override-cleared`; failing again on changed data opens it anew |
//! | failed, severe, error | override (reason) | overridden | override details, `resolution: override` |
//! | valid, warning, skipped | override | unchanged | reported per id |
//! | overridden | removeOverride | its `checkedStatus` | timeline `override-removed`; failing again opens it anew |
//! | any | comment | unchanged | timeline `comment` |
//!
//! The timeline keeps the last 100 events.
//!
//! ## Stored form
//!
//! A full run of a thousand series of a day of minutes writes 1.44 million records, so a
//! record is not stored as a JSON document: the records of one data item are kept in chunks
//! (a few thousand consecutive points each, see [`bucket_of`]). A chunk holds what its records
//! share once — the runs that touched them (time, user, origin, the configuration's name,
//! group and tags, the time each check took) and the check lists (id, name, scope, severity)
//! — and each [`Record`] holds only its own: the point, the value, one status byte per check
//! (and a message when the check did not pass), counters, times and the timeline (a run entry
//! is a reference to the chunk's run). A clean record takes about 40 bytes. The JSON record of
//! the interface is built from a record and its chunk on read ([`Chunk::materialize`]).

use crate::clock::format_instant;
use crate::data::bytes::{put_text, put_varint, Reader};
use crate::data::calendar::{format_time, parse_zone, Calendar};
use crate::error::Result;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Timeline entries kept per record.
pub const TIMELINE_MAX: usize = 100;

/// Who runs or acts, how, and when.
#[derive(Debug, Clone)]
pub struct Context {
    /// The user.
    pub user: String,
    /// `manual`, `update`, `build` or `background`.
    pub origin: String,
    /// Now.
    pub now: DateTime<Utc>,
}

// ---- statuses ----

/// `skipped`.
pub const SKIPPED: u8 = 0;
/// `valid`.
pub const VALID: u8 = 1;
/// `warning`.
pub const WARNING: u8 = 2;
/// `failed`.
pub const FAILED: u8 = 3;
/// `error`.
pub const ERROR: u8 = 4;
/// `severe`.
pub const SEVERE: u8 = 5;
/// `overridden`.
pub const OVERRIDDEN: u8 = 6;
/// No status (a timeline entry without a previous status).
const NONE: u8 = 255;

const NAMES: [&str; 7] = [
    "skipped",
    "valid",
    "warning",
    "failed",
    "error",
    "severe",
    "overridden",
];

/// The name of a status code.
pub fn status_name(code: u8) -> &'static str {
    NAMES.get(usize::from(code)).copied().unwrap_or("skipped")
}

/// The code of a status name (`skipped` for anything unknown).
pub fn status_code(name: &str) -> u8 {
    NAMES
        .iter()
        .position(|n| *n == name)
        .map_or(SKIPPED, |i| i as u8)
}

/// Whether a status counts as failing.
pub fn is_failing(status: &str) -> bool {
    matches!(status, "failed" | "severe" | "error")
}

/// Whether a status code counts as failing.
pub fn failing(code: u8) -> bool {
    matches!(code, FAILED | ERROR | SEVERE)
}

/// The worse of two status codes (severe > error > failed > warning > valid > skipped).
pub fn worse(a: u8, b: u8) -> u8 {
    // The codes of the check statuses are in rank order.
    a.max(b)
}

/// The worst of some check statuses; `skipped` when none ran.
pub fn worst<'a>(statuses: impl IntoIterator<Item = &'a str>) -> String {
    let code = statuses
        .into_iter()
        .map(status_code)
        .filter(|c| *c != OVERRIDDEN)
        .fold(SKIPPED, worse);
    status_name(code).to_string()
}

// ---- the record ----

/// The value a time-series record checked.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckedValue {
    /// No value.
    Null,
    /// A number.
    Num(f64),
    /// A text.
    Text(String),
}

impl CheckedValue {
    fn to_json(&self) -> Value {
        match self {
            CheckedValue::Null => Value::Null,
            CheckedValue::Num(x) => {
                serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number)
            }
            CheckedValue::Text(s) => Value::String(s.clone()),
        }
    }

    fn same(&self, other: &CheckedValue) -> bool {
        match (self, other) {
            (CheckedValue::Num(a), CheckedValue::Num(b)) => a.to_bits() == b.to_bits(),
            _ => self == other,
        }
    }
}

/// One check's result at a point.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckResult {
    /// The status code.
    pub status: u8,
    /// Why it did not pass (empty when it passed).
    pub message: Box<str>,
    /// Tenor checks of a curve: how many tenors failed or warned.
    pub tenors_failed: Option<u32>,
}

/// A record's summary message.
#[derive(Debug, Clone, PartialEq)]
pub enum Summary {
    /// `all <n> checks passed`.
    AllPassed(u32),
    /// Any other text.
    Text(Box<str>),
}

impl Summary {
    /// The summary of check statuses (ids in the same order).
    pub fn of<'a>(checks: impl Iterator<Item = (&'a str, u8)>) -> Summary {
        let mut ran = 0u32;
        let mut bad: Vec<&str> = Vec::new();
        for (id, status) in checks {
            if status != SKIPPED {
                ran += 1;
                if status != VALID {
                    bad.push(id);
                }
            }
        }
        if ran == 0 {
            Summary::Text("no check applied".into())
        } else if bad.is_empty() {
            Summary::AllPassed(ran)
        } else {
            Summary::Text(
                format!(
                    "{} of {ran} checks did not pass: {}",
                    bad.len(),
                    bad.join(", ")
                )
                .into(),
            )
        }
    }

    /// The text.
    pub fn text(&self) -> String {
        match self {
            Summary::AllPassed(n) => format!("all {n} checks passed"),
            Summary::Text(t) => t.to_string(),
        }
    }
}

/// A timeline event.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A run (its time, user and origin are the chunk's run `run`).
    Run {
        /// Index of the run in the chunk.
        run: u32,
        /// Status after.
        status: u8,
        /// Status before (none for a new record).
        previous: u8,
        /// The summary of that run.
        message: Summary,
    },
    /// Anything else: override, override-removed, override-cleared, comment.
    Other {
        /// Milliseconds since the epoch.
        at: i64,
        /// The action.
        action: String,
        /// Who.
        user: String,
        /// How.
        origin: String,
        /// Status after.
        status: u8,
        /// Status before.
        previous: u8,
        /// The message.
        message: String,
    },
}

/// An override's details.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// Why.
    pub reason: String,
    /// Who.
    pub user: String,
    /// When (ms).
    pub at: i64,
    /// The status that was overridden.
    pub status: u8,
}

/// How an issue was resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// When (ms).
    pub at: i64,
    /// `rerun` (false) or `override` (true).
    pub by_override: bool,
    /// Minutes it was open (None when the opening time is unknown).
    pub minutes: Option<i64>,
}

/// A validation record in its stored form.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The point as a number: ms since the epoch (curves: the ondate at midnight UTC).
    pub key: i64,
    /// The point's text (the end of the id) and date, when not the ones the chunk's format
    /// gives the key (see [`Chunk::texts`]).
    pub explicit: Option<Box<(String, String)>>,
    /// Time series: the value checked.
    pub value: Option<CheckedValue>,
    /// The status that applies.
    pub status: u8,
    /// The result of the last run.
    pub checked: u8,
    /// Index of the check list in the chunk.
    pub set: u32,
    /// One result per check of the list.
    pub checks: Vec<CheckResult>,
    /// The summary.
    pub message: Summary,
    /// Runs so far.
    pub runs: u32,
    /// The first run (ms).
    pub first_run: i64,
    /// Index of the last run in the chunk.
    pub last_run: u32,
    /// When it started failing (open issues only).
    pub open_since: Option<i64>,
    /// When and how it stopped failing.
    pub resolved: Option<Resolved>,
    /// The override, when overridden.
    pub overridden: Option<Override>,
    /// The last events, oldest first.
    pub timeline: Vec<Event>,
    /// Curves: a digest of the contracts checked (series compare `value`).
    pub hash: Option<String>,
    /// Curves: tenors, failedTenors, warningTenors, tenorCounts, contracts.
    pub extra: Option<Box<Map<String, Value>>>,
}

/// The fresh result of checking one point (built by the runner).
#[derive(Debug, Clone, PartialEq)]
pub struct PointResult {
    /// The point as a number (see [`Record::key`]).
    pub key: i64,
    /// The point's text and date when not derived from the key (see [`Record::explicit`]).
    pub explicit: Option<Box<(String, String)>>,
    /// Time series: the value.
    pub value: Option<CheckedValue>,
    /// The status the results give.
    pub status: u8,
    /// Index of the check list in the chunk the record goes to (set by the writer).
    pub set: u32,
    /// One result per check of the list.
    pub checks: Vec<CheckResult>,
    /// The summary.
    pub message: Summary,
    /// Curves: a digest of the contracts.
    pub hash: Option<String>,
    /// Curves: the tenor fields.
    pub extra: Option<Box<Map<String, Value>>>,
}

/// What a run did to a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// The status before (None for a new record).
    pub previous: Option<String>,
    /// The status after.
    pub status: String,
    /// Whether the data checked differs from the last run's.
    pub data_changed: bool,
}

fn ms_of(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

fn push_event(rec: &mut Record, event: Event) {
    rec.timeline.push(event);
    if rec.timeline.len() > TIMELINE_MAX {
        let extra = rec.timeline.len() - TIMELINE_MAX;
        rec.timeline.drain(..extra);
    }
}

fn other(ctx: &Context, action: &str, status: u8, previous: u8, message: &str) -> Event {
    Event::Other {
        at: ms_of(ctx.now),
        action: action.into(),
        user: ctx.user.clone(),
        origin: ctx.origin.clone(),
        status,
        previous,
        message: message.into(),
    }
}

fn open(rec: &mut Record, now: i64) {
    rec.open_since = Some(now);
    rec.resolved = None;
}

fn resolve(rec: &mut Record, now: i64, by_override: bool) {
    let minutes = rec.open_since.map(|since| (now - since).div_euclid(60_000));
    rec.resolved = Some(Resolved {
        at: now,
        by_override,
        minutes,
    });
    rec.open_since = None;
}

/// Applies a run's result to a record (new when `old` is None); `run` is the index of the
/// run in the record's chunk.
pub fn apply_run(
    old: Option<Record>,
    result: PointResult,
    run: u32,
    ctx: &Context,
) -> (Record, Transition) {
    let now = ms_of(ctx.now);
    let previous = old.as_ref().map(|r| r.status);
    let data_changed = match &old {
        None => true,
        Some(o) => match (&o.value, &result.value) {
            (Some(a), Some(b)) => !a.same(b),
            _ => o.hash != result.hash,
        },
    };
    let mut rec = match old {
        Some(mut r) => {
            r.explicit = result.explicit;
            r.value = result.value;
            r.set = result.set;
            r.checks = result.checks;
            r.message = result.message.clone();
            r.hash = result.hash;
            // What was last sent as validated outlives the run (see `events::rules`).
            let sent = r.extra.as_ref().and_then(|x| x.get(SENT_KEY).cloned());
            r.extra = result.extra;
            if let Some(sent) = sent {
                r.extra
                    .get_or_insert_with(Default::default)
                    .insert(SENT_KEY.into(), sent);
            }
            r
        }
        None => Record {
            key: result.key,
            explicit: result.explicit,
            value: result.value,
            status: result.status,
            checked: result.status,
            set: result.set,
            checks: result.checks,
            message: result.message.clone(),
            runs: 0,
            first_run: now,
            last_run: run,
            open_since: None,
            resolved: None,
            overridden: None,
            timeline: Vec::new(),
            hash: result.hash,
            extra: result.extra,
        },
    };
    rec.checked = result.status;
    let overridden = previous == Some(OVERRIDDEN);
    let status = if overridden && failing(result.status) && !data_changed {
        OVERRIDDEN
    } else {
        if overridden {
            rec.overridden = None;
            push_event(
                &mut rec,
                other(
                    ctx,
                    "override-cleared",
                    result.status,
                    OVERRIDDEN,
                    "the data or its result changed",
                ),
            );
        }
        result.status
    };
    let was_open = previous.is_some_and(failing);
    if failing(status) && (!was_open || (overridden && status != OVERRIDDEN)) {
        open(&mut rec, now);
    } else if !failing(status) && was_open {
        resolve(&mut rec, now, false);
    }
    rec.status = status;
    rec.runs += 1;
    rec.last_run = run;
    push_event(
        &mut rec,
        Event::Run {
            run,
            status,
            previous: previous.unwrap_or(NONE),
            message: result.message,
        },
    );
    let transition = Transition {
        previous: previous.map(|p| status_name(p).to_string()),
        status: status_name(status).to_string(),
        data_changed,
    };
    (rec, transition)
}

/// Overrides a failing record; `Err` says why it does not apply.
pub fn apply_override(rec: &mut Record, reason: &str, ctx: &Context) -> Result<(), String> {
    if rec.status == OVERRIDDEN {
        return Err("already overridden".into());
    }
    if !failing(rec.status) {
        return Err(format!(
            "status {} is not failing: nothing to override",
            status_name(rec.status)
        ));
    }
    let now = ms_of(ctx.now);
    rec.overridden = Some(Override {
        reason: reason.into(),
        user: ctx.user.clone(),
        at: now,
        status: rec.status,
    });
    let was = rec.status;
    rec.status = OVERRIDDEN;
    resolve(rec, now, true);
    push_event(rec, other(ctx, "override", OVERRIDDEN, was, reason));
    Ok(())
}

/// Removes an override; the record takes its last checked status. `Err` says why not.
pub fn remove_override(rec: &mut Record, ctx: &Context) -> Result<String, String> {
    if rec.overridden.is_none() || rec.status != OVERRIDDEN {
        return Err("there is no override to remove".into());
    }
    rec.overridden = None;
    rec.status = rec.checked;
    if failing(rec.checked) {
        open(rec, ms_of(ctx.now));
    }
    push_event(
        rec,
        other(ctx, "override-removed", rec.checked, OVERRIDDEN, ""),
    );
    Ok(status_name(rec.checked).to_string())
}

/// The field of a record's extra fields holding the data last sent as validated.
pub const SENT_KEY: &str = "sentAsValidated";

/// A record's extra fields as a run's result has them: without what was sent as validated
/// (that belongs to the record, not to the result).
pub fn result_extra(extra: Option<Box<Map<String, Value>>>) -> Option<Box<Map<String, Value>>> {
    let mut extra = extra?;
    extra.shift_remove(SENT_KEY);
    (!extra.is_empty()).then_some(extra)
}

/// Adds a platform entry to the timeline (`sent-as-failing`, `sent-as-validated`); the status
/// does not change.
pub fn note(rec: &mut Record, action: &str, message: &str, ctx: &Context) {
    let status = rec.status;
    push_event(rec, other(ctx, action, status, status, message));
}

/// Adds a comment to the timeline.
pub fn comment(rec: &mut Record, message: &str, ctx: &Context) {
    let status = rec.status;
    push_event(rec, other(ctx, "comment", status, status, message));
}

// ---- chunks ----

/// A run that touched records of a chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// When (ms).
    pub at: i64,
    /// Who.
    pub user: String,
    /// How.
    pub origin: String,
    /// The configuration's name.
    #[serde(default)]
    pub name: Value,
    /// The configuration's group.
    #[serde(default)]
    pub group: Value,
    /// The configuration's tags.
    #[serde(default)]
    pub tags: Value,
    /// Milliseconds each check of the run took per point, by check list position.
    #[serde(default)]
    pub ms: Vec<f64>,
}

/// A check as records show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckMeta {
    /// The check's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `point`, `tenor` or `curve`.
    pub scope: String,
    /// `warning`, `failed` or `severe`.
    pub severity: String,
}

/// How point texts of a time series are written (curves: dates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointFormat {
    /// The calendar.
    pub calendar: Calendar,
    /// The time zone.
    pub tz: chrono_tz::Tz,
}

impl PointFormat {
    /// The point text and date of a key.
    pub fn texts(&self, key: i64) -> (String, String) {
        let point = format_time(key, self.calendar, self.tz);
        let date = crate::data::calendar::instant(key)
            .map(|d| d.with_timezone(&self.tz).date_naive().to_string())
            .unwrap_or_default();
        (point, date)
    }
}

fn calendar_code(c: Calendar) -> u32 {
    match c {
        Calendar::Sparse => 0,
        Calendar::Daily => 1,
        Calendar::Business => 2,
        Calendar::Weekly => 3,
        Calendar::Monthly => 4,
        Calendar::Quarterly => 5,
        Calendar::Yearly => 6,
        Calendar::Intraday(s) => 7 + s,
    }
}

fn calendar_of(code: u32) -> Calendar {
    match code {
        0 => Calendar::Sparse,
        1 => Calendar::Daily,
        2 => Calendar::Business,
        3 => Calendar::Weekly,
        4 => Calendar::Monthly,
        5 => Calendar::Quarterly,
        6 => Calendar::Yearly,
        s => Calendar::Intraday(s - 7),
    }
}

#[derive(Serialize, Deserialize)]
struct Header {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    calendar: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tz: Option<String>,
    runs: Vec<RunInfo>,
    sets: Vec<Vec<CheckMeta>>,
}

/// The key of a curve's ondate.
pub fn date_key(date: chrono::NaiveDate) -> i64 {
    date.and_hms_opt(0, 0, 0)
        .map_or(0, |d| d.and_utc().timestamp_millis())
}

/// The chunk a point goes to: the start key of its bucket. Minute-like series are kept a day
/// per chunk, hourly ones a month, anything coarser (and curves) about five years.
pub fn bucket_of(key: i64, format: Option<&PointFormat>) -> i64 {
    const DAY: i64 = 86_400_000;
    let width = match format.map(|f| f.calendar) {
        Some(Calendar::Intraday(s)) if s < 3600 => DAY,
        Some(Calendar::Intraday(_)) | Some(Calendar::Sparse) => 32 * DAY,
        _ => 2048 * DAY,
    };
    key.div_euclid(width) * width
}

/// The records of one data item over a stretch of points, with what they share.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// The data id.
    pub target: String,
    /// The bucket (start key).
    pub seq: i64,
    /// `timeseries` or `curve`.
    pub kind: String,
    /// Time series: how points are written.
    pub format: Option<PointFormat>,
    /// Runs referred to by records.
    pub runs: Vec<RunInfo>,
    /// Check lists referred to by records.
    pub sets: Vec<Vec<CheckMeta>>,
    /// The records, by key.
    pub records: Vec<Record>,
}

/// Flags of a stored record.
const F_POINT: u8 = 1;
const F_VALUE: u8 = 2;
const F_OPEN: u8 = 4;
const F_RESOLVED: u8 = 8;
const F_OVERRIDE: u8 = 16;
const F_HASH: u8 = 32;
const F_EXTRA: u8 = 64;

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put_summary(out: &mut Vec<u8>, s: &Summary) {
    match s {
        Summary::AllPassed(n) => {
            out.push(0);
            put_varint(out, u64::from(*n));
        }
        Summary::Text(t) => {
            out.push(1);
            put_text(out, t);
        }
    }
}

fn read_summary(r: &mut Reader) -> Result<Summary> {
    Ok(match r.byte()? {
        0 => Summary::AllPassed(r.varint()? as u32),
        _ => Summary::Text(r.str()?.into()),
    })
}

impl Chunk {
    /// An empty chunk.
    pub fn new(target: &str, seq: i64, kind: &str, format: Option<PointFormat>) -> Chunk {
        Chunk {
            target: target.into(),
            seq,
            kind: kind.into(),
            format,
            runs: Vec::new(),
            sets: Vec::new(),
            records: Vec::new(),
        }
    }

    /// Adds a run, returning its index.
    pub fn add_run(&mut self, run: RunInfo) -> u32 {
        self.runs.push(run);
        (self.runs.len() - 1) as u32
    }

    /// The index of a check list, added when new.
    pub fn set_index(&mut self, set: &[CheckMeta]) -> u32 {
        match self.sets.iter().position(|s| s == set) {
            Some(i) => i as u32,
            None => {
                self.sets.push(set.to_vec());
                (self.sets.len() - 1) as u32
            }
        }
    }

    /// The position of the record with this key.
    pub fn find(&self, key: i64) -> std::result::Result<usize, usize> {
        self.records.binary_search_by_key(&key, |r| r.key)
    }

    /// The first and last keys and a bit per status present (bit = 1 << code).
    pub fn summary(&self) -> (i64, i64, u64) {
        let first = self.records.first().map_or(self.seq, |r| r.key);
        let last = self.records.last().map_or(self.seq, |r| r.key);
        let mask = self
            .records
            .iter()
            .fold(0u64, |m, r| m | (1u64 << r.status));
        (first, last, mask)
    }

    /// Drops runs and check lists no record refers to any more.
    fn compact(&mut self) {
        let mut run_used = vec![false; self.runs.len()];
        let mut set_used = vec![false; self.sets.len()];
        for r in &self.records {
            if let Some(u) = run_used.get_mut(r.last_run as usize) {
                *u = true;
            }
            if let Some(u) = set_used.get_mut(r.set as usize) {
                *u = true;
            }
            for e in &r.timeline {
                if let Event::Run { run, .. } = e {
                    if let Some(u) = run_used.get_mut(*run as usize) {
                        *u = true;
                    }
                }
            }
        }
        if run_used.iter().all(|u| *u) && set_used.iter().all(|u| *u) {
            return;
        }
        let remap = |used: &[bool]| -> Vec<u32> {
            let mut next = 0;
            used.iter()
                .map(|u| {
                    let i = next;
                    if *u {
                        next += 1;
                    }
                    i
                })
                .collect()
        };
        let (run_map, set_map) = (remap(&run_used), remap(&set_used));
        for r in &mut self.records {
            let at = |map: &[u32], i: u32| map.get(i as usize).copied().unwrap_or(0);
            r.last_run = at(&run_map, r.last_run);
            r.set = at(&set_map, r.set);
            for e in &mut r.timeline {
                if let Event::Run { run, .. } = e {
                    *run = at(&run_map, *run);
                }
            }
        }
        let mut i = 0;
        self.runs.retain(|_| {
            i += 1;
            run_used[i - 1]
        });
        let mut i = 0;
        self.sets.retain(|_| {
            i += 1;
            set_used[i - 1]
        });
    }

    /// The stored bytes (runs and check lists no record uses are dropped first).
    pub fn encode(&mut self) -> Vec<u8> {
        self.compact();
        let header = Header {
            kind: self.kind.clone(),
            calendar: self.format.map(|f| calendar_code(f.calendar)),
            tz: self.format.map(|f| f.tz.name().to_string()),
            runs: std::mem::take(&mut self.runs),
            sets: std::mem::take(&mut self.sets),
        };
        let head = serde_json::to_vec(&header).unwrap_or_default();
        self.runs = header.runs;
        self.sets = header.sets;
        let mut out = Vec::with_capacity(head.len() + 16 + self.records.len() * 40);
        put_varint(&mut out, head.len() as u64);
        out.extend_from_slice(&head);
        put_varint(&mut out, self.records.len() as u64);
        let mut prev = self.seq;
        for r in &self.records {
            put_varint(&mut out, zigzag(r.key - prev));
            prev = r.key;
            let mut flags = 0u8;
            if r.explicit.is_some() {
                flags |= F_POINT;
            }
            if r.value.is_some() {
                flags |= F_VALUE;
            }
            if r.open_since.is_some() {
                flags |= F_OPEN;
            }
            if r.resolved.is_some() {
                flags |= F_RESOLVED;
            }
            if r.overridden.is_some() {
                flags |= F_OVERRIDE;
            }
            if r.hash.is_some() {
                flags |= F_HASH;
            }
            if r.extra.is_some() {
                flags |= F_EXTRA;
            }
            out.push(flags);
            if let Some(texts) = &r.explicit {
                put_text(&mut out, &texts.0);
                put_text(&mut out, &texts.1);
            }
            match &r.value {
                None => {}
                Some(CheckedValue::Null) => out.push(0),
                Some(CheckedValue::Num(x)) => {
                    out.push(1);
                    out.extend_from_slice(&x.to_le_bytes());
                }
                Some(CheckedValue::Text(t)) => {
                    out.push(2);
                    put_text(&mut out, t);
                }
            }
            out.push(r.status);
            out.push(r.checked);
            put_varint(&mut out, u64::from(r.set));
            put_varint(&mut out, r.checks.len() as u64);
            for c in &r.checks {
                let mut b = c.status;
                if !c.message.is_empty() {
                    b |= 0x80;
                }
                if c.tenors_failed.is_some() {
                    b |= 0x40;
                }
                out.push(b);
                if !c.message.is_empty() {
                    put_text(&mut out, &c.message);
                }
                if let Some(n) = c.tenors_failed {
                    put_varint(&mut out, u64::from(n));
                }
            }
            put_summary(&mut out, &r.message);
            put_varint(&mut out, u64::from(r.runs));
            let last_at = self.runs.get(r.last_run as usize).map_or(0, |x| x.at);
            put_varint(&mut out, zigzag(last_at - r.first_run));
            put_varint(&mut out, u64::from(r.last_run));
            if let Some(t) = r.open_since {
                put_varint(&mut out, zigzag(t));
            }
            if let Some(res) = &r.resolved {
                put_varint(&mut out, zigzag(res.at));
                out.push(u8::from(res.by_override));
                match res.minutes {
                    None => out.push(0),
                    Some(m) => {
                        out.push(1);
                        put_varint(&mut out, zigzag(m));
                    }
                }
            }
            if let Some(o) = &r.overridden {
                put_text(&mut out, &o.reason);
                put_text(&mut out, &o.user);
                put_varint(&mut out, zigzag(o.at));
                out.push(o.status);
            }
            put_varint(&mut out, r.timeline.len() as u64);
            for e in &r.timeline {
                match e {
                    Event::Run {
                        run,
                        status,
                        previous,
                        message,
                    } => {
                        out.push(0);
                        put_varint(&mut out, u64::from(*run));
                        out.push(*status);
                        out.push(*previous);
                        put_summary(&mut out, message);
                    }
                    Event::Other {
                        at,
                        action,
                        user,
                        origin,
                        status,
                        previous,
                        message,
                    } => {
                        out.push(1);
                        put_varint(&mut out, zigzag(*at));
                        put_text(&mut out, action);
                        put_text(&mut out, user);
                        put_text(&mut out, origin);
                        out.push(*status);
                        out.push(*previous);
                        put_text(&mut out, message);
                    }
                }
            }
            if let Some(h) = &r.hash {
                put_text(&mut out, h);
            }
            if let Some(x) = &r.extra {
                put_text(&mut out, &serde_json::to_string(x).unwrap_or_default());
            }
        }
        out
    }

    /// A chunk from its stored bytes.
    pub fn decode(target: &str, seq: i64, bytes: &[u8]) -> Result<Chunk> {
        let mut r = Reader::new(bytes, "validation records");
        let head_len = r.varint()? as usize;
        let mut head_bytes = Vec::with_capacity(head_len);
        for _ in 0..head_len {
            head_bytes.push(r.byte()?);
        }
        let header: Header =
            serde_json::from_slice(&head_bytes).map_err(|e| r.corrupt(&e.to_string()))?;
        let format = match (header.calendar, &header.tz) {
            (Some(c), Some(tz)) => Some(PointFormat {
                calendar: calendar_of(c),
                tz: parse_zone(Some(tz))?,
            }),
            _ => None,
        };
        let n = r.varint()? as usize;
        let mut records = Vec::with_capacity(n.min(1 << 16));
        let mut prev = seq;
        for _ in 0..n {
            let key = prev + unzigzag(r.varint()?);
            prev = key;
            let flags = r.byte()?;
            let explicit = if flags & F_POINT != 0 {
                Some(Box::new((r.text()?, r.text()?)))
            } else {
                None
            };
            let value = if flags & F_VALUE != 0 {
                Some(match r.byte()? {
                    0 => CheckedValue::Null,
                    1 => CheckedValue::Num(f64::from_le_bytes(r.take::<8>()?)),
                    _ => CheckedValue::Text(r.text()?),
                })
            } else {
                None
            };
            let status = r.byte()?;
            let checked = r.byte()?;
            let set = r.varint()? as u32;
            let count = r.varint()? as usize;
            let mut checks = Vec::with_capacity(count.min(64));
            for _ in 0..count {
                let b = r.byte()?;
                let message: Box<str> = if b & 0x80 != 0 {
                    r.str()?.into()
                } else {
                    "".into()
                };
                let tenors_failed = if b & 0x40 != 0 {
                    Some(r.varint()? as u32)
                } else {
                    None
                };
                checks.push(CheckResult {
                    status: b & 0x3f,
                    message,
                    tenors_failed,
                });
            }
            let message = read_summary(&mut r)?;
            let runs = r.varint()? as u32;
            let first_delta = unzigzag(r.varint()?);
            let last_run = r.varint()? as u32;
            let last_at = header.runs.get(last_run as usize).map_or(0, |x| x.at);
            let open_since = if flags & F_OPEN != 0 {
                Some(unzigzag(r.varint()?))
            } else {
                None
            };
            let resolved = if flags & F_RESOLVED != 0 {
                let at = unzigzag(r.varint()?);
                let by_override = r.byte()? != 0;
                let minutes = match r.byte()? {
                    0 => None,
                    _ => Some(unzigzag(r.varint()?)),
                };
                Some(Resolved {
                    at,
                    by_override,
                    minutes,
                })
            } else {
                None
            };
            let overridden = if flags & F_OVERRIDE != 0 {
                Some(Override {
                    reason: r.text()?,
                    user: r.text()?,
                    at: unzigzag(r.varint()?),
                    status: r.byte()?,
                })
            } else {
                None
            };
            let events = r.varint()? as usize;
            let mut timeline = Vec::with_capacity(events.min(TIMELINE_MAX));
            for _ in 0..events {
                timeline.push(match r.byte()? {
                    0 => Event::Run {
                        run: r.varint()? as u32,
                        status: r.byte()?,
                        previous: r.byte()?,
                        message: read_summary(&mut r)?,
                    },
                    _ => Event::Other {
                        at: unzigzag(r.varint()?),
                        action: r.text()?,
                        user: r.text()?,
                        origin: r.text()?,
                        status: r.byte()?,
                        previous: r.byte()?,
                        message: r.text()?,
                    },
                });
            }
            let hash = if flags & F_HASH != 0 {
                Some(r.text()?)
            } else {
                None
            };
            let extra = if flags & F_EXTRA != 0 {
                let text = r.str()?;
                Some(Box::new(
                    serde_json::from_str(text).map_err(|e| r.corrupt(&e.to_string()))?,
                ))
            } else {
                None
            };
            records.push(Record {
                key,
                explicit,
                value,
                status,
                checked,
                set,
                checks,
                message,
                runs,
                first_run: last_at - first_delta,
                last_run,
                open_since,
                resolved,
                overridden,
                timeline,
                hash,
                extra,
            });
        }
        Ok(Chunk {
            target: target.into(),
            seq,
            kind: header.kind,
            format,
            runs: header.runs,
            sets: header.sets,
            records,
        })
    }

    /// The point text and date of a key in this chunk's format.
    pub fn derived_texts(&self, key: i64) -> (String, String) {
        match &self.format {
            Some(f) => f.texts(key),
            None => {
                let d = crate::data::calendar::instant(key)
                    .map(|d| d.date_naive().to_string())
                    .unwrap_or_default();
                (d.clone(), d)
            }
        }
    }

    /// The point text and date of a record.
    pub fn texts(&self, r: &Record) -> (String, String) {
        match &r.explicit {
            Some(t) => (t.0.clone(), t.1.clone()),
            None => self.derived_texts(r.key),
        }
    }

    /// The record id of a record.
    pub fn id_of(&self, r: &Record) -> String {
        format!("{}:{}", self.target, self.texts(r).0)
    }

    /// The JSON record of the interface.
    pub fn materialize(&self, r: &Record) -> Map<String, Value> {
        let run = self.runs.get(r.last_run as usize);
        let ts = |ms: i64| -> Value {
            crate::data::calendar::instant(ms)
                .map_or(Value::Null, |at| Value::String(format_instant(at)))
        };
        let mut m = Map::with_capacity(28);
        let (point, point_date) = self.texts(r);
        m.insert(
            "_id".into(),
            Value::String(format!("{}:{point}", self.target)),
        );
        m.insert("target".into(), Value::String(self.target.clone()));
        for (k, v) in [
            ("name", run.map(|x| &x.name)),
            ("group", run.map(|x| &x.group)),
            ("tags", run.map(|x| &x.tags)),
        ] {
            m.insert(k.into(), v.cloned().unwrap_or(Value::Null));
        }
        m.insert("kind".into(), Value::String(self.kind.clone()));
        m.insert("point".into(), Value::String(point));
        m.insert("pointDate".into(), Value::String(point_date));
        if let Some(v) = &r.value {
            m.insert("value".into(), v.to_json());
        }
        m.insert("status".into(), json!(status_name(r.status)));
        m.insert("checkedStatus".into(), json!(status_name(r.checked)));
        m.insert("message".into(), Value::String(r.message.text()));
        let empty = Vec::new();
        let set = self.sets.get(r.set as usize).unwrap_or(&empty);
        let checks: Vec<Value> = r
            .checks
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let meta = set.get(i);
                let text =
                    |f: fn(&CheckMeta) -> &String| meta.map_or(String::new(), |m| f(m).clone());
                let failures = c
                    .tenors_failed
                    .unwrap_or(u32::from(failing(c.status) || c.status == WARNING));
                let mut j = Map::with_capacity(10);
                j.insert("id".into(), Value::String(text(|m| &m.id)));
                j.insert("name".into(), Value::String(text(|m| &m.name)));
                j.insert("scope".into(), Value::String(text(|m| &m.scope)));
                j.insert("severity".into(), Value::String(text(|m| &m.severity)));
                j.insert("status".into(), json!(status_name(c.status)));
                j.insert("message".into(), Value::String(c.message.to_string()));
                j.insert("failures".into(), json!(failures));
                j.insert(
                    "log".into(),
                    if c.message.is_empty() {
                        json!([])
                    } else {
                        json!([&*c.message])
                    },
                );
                let ms = run.and_then(|x| x.ms.get(i)).copied().unwrap_or(0.0);
                j.insert("ms".into(), json!((ms * 100.0).round() / 100.0));
                if let Some(n) = c.tenors_failed {
                    j.insert("tenorsFailed".into(), json!(n));
                }
                Value::Object(j)
            })
            .collect();
        m.insert("checks".into(), Value::Array(checks));
        if let Some(extra) = &r.extra {
            for (k, v) in extra.iter() {
                m.insert(k.clone(), v.clone());
            }
        }
        if let Some(o) = &r.overridden {
            m.insert(
                "override".into(),
                json!({"reason": o.reason, "user": o.user, "timestamp": ts(o.at), "status": status_name(o.status)}),
            );
        }
        m.insert("runs".into(), json!(r.runs));
        m.insert("firstRun".into(), ts(r.first_run));
        m.insert("lastRun".into(), run.map_or(Value::Null, |x| ts(x.at)));
        m.insert(
            "lastRunBy".into(),
            run.map_or(Value::Null, |x| json!(x.user)),
        );
        m.insert(
            "lastOrigin".into(),
            run.map_or(Value::Null, |x| json!(x.origin)),
        );
        if let Some(t) = r.open_since {
            m.insert("openSince".into(), ts(t));
        }
        if let Some(res) = &r.resolved {
            m.insert("resolvedAt".into(), ts(res.at));
            m.insert(
                "resolution".into(),
                json!(if res.by_override { "override" } else { "rerun" }),
            );
            m.insert(
                "resolveMinutes".into(),
                res.minutes.map_or(Value::Null, |x| json!(x)),
            );
        }
        let status_or_null = |c: u8| {
            if c == NONE {
                Value::Null
            } else {
                json!(status_name(c))
            }
        };
        let timeline: Vec<Value> = r
            .timeline
            .iter()
            .map(|e| match e {
                Event::Run {
                    run,
                    status,
                    previous,
                    message,
                } => {
                    let info = self.runs.get(*run as usize);
                    json!({
                        "timestamp": info.map_or(Value::Null, |x| ts(x.at)),
                        "action": "run",
                        "user": info.map_or(Value::Null, |x| json!(x.user)),
                        "origin": info.map_or(Value::Null, |x| json!(x.origin)),
                        "status": status_name(*status),
                        "previous": status_or_null(*previous),
                        "message": message.text(),
                    })
                }
                Event::Other {
                    at,
                    action,
                    user,
                    origin,
                    status,
                    previous,
                    message,
                } => json!({
                    "timestamp": ts(*at),
                    "action": action,
                    "user": user,
                    "origin": origin,
                    "status": status_name(*status),
                    "previous": status_or_null(*previous),
                    "message": message,
                }),
            })
            .collect();
        m.insert("timeline".into(), Value::Array(timeline));
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(minute: u32) -> Context {
        Context {
            user: "u".into(),
            origin: "manual".into(),
            now: DateTime::parse_from_rfc3339(&format!("2024-07-01T10:{minute:02}:00Z"))
                .unwrap()
                .with_timezone(&Utc),
        }
    }

    fn result(status: u8, value: f64) -> PointResult {
        PointResult {
            key: 1_719_792_000_000,
            explicit: None,
            value: Some(CheckedValue::Num(value)),
            status,
            set: 0,
            checks: vec![CheckResult {
                status,
                message: if status == VALID {
                    "".into()
                } else {
                    "bad".into()
                },
                tenors_failed: None,
            }],
            message: Summary::of([("c", status)].into_iter()),
            hash: None,
            extra: None,
        }
    }

    /// A chunk holding `rec`, written and read back, then the record as JSON.
    fn stored(rec: &Record, runs: Vec<RunInfo>) -> (Record, Map<String, Value>) {
        let mut chunk = Chunk::new("X:P", 0, "timeseries", None);
        chunk.runs = runs;
        chunk.sets = vec![vec![CheckMeta {
            id: "c".into(),
            name: "C".into(),
            scope: "point".into(),
            severity: "failed".into(),
        }]];
        chunk.records.push(rec.clone());
        let bytes = chunk.encode();
        let back = Chunk::decode("X:P", 0, &bytes).unwrap();
        assert_eq!(back.records.len(), 1);
        let json = back.materialize(&back.records[0]);
        (back.records[0].clone(), json)
    }

    fn runs(minutes: &[u32]) -> Vec<RunInfo> {
        minutes
            .iter()
            .map(|m| RunInfo {
                at: ms_of(ctx(*m).now),
                user: "u".into(),
                origin: "manual".into(),
                name: json!("N"),
                group: Value::Null,
                tags: json!([]),
                ms: vec![0.5],
            })
            .collect()
    }

    #[test]
    fn worst_of() {
        assert_eq!(worst(["valid", "warning"]), "warning");
        assert_eq!(worst(["failed", "error", "warning"]), "error");
        assert_eq!(worst(["severe", "error"]), "severe");
        assert_eq!(worst(["skipped", "skipped"]), "skipped");
        assert_eq!(worst(Vec::<&str>::new()), "skipped");
        assert_eq!(worst(["skipped", "valid"]), "valid");
    }

    #[test]
    fn open_and_resolve_by_rerun() {
        let (r, t) = apply_run(None, result(FAILED, 1.0), 0, &ctx(0));
        assert_eq!((t.previous, t.status.as_str()), (None, "failed"));
        let (r, j) = stored(&r, runs(&[0]));
        assert_eq!(j["openSince"], "2024-07-01T10:00:00.000Z");
        assert_eq!(j["runs"], 1);
        let (r, _) = apply_run(Some(r), result(FAILED, 1.0), 1, &ctx(5));
        let (r, j) = stored(&r, runs(&[0, 5]));
        assert_eq!(
            j["openSince"], "2024-07-01T10:00:00.000Z",
            "still the same open issue"
        );
        let (r, t) = apply_run(Some(r), result(VALID, 2.0), 2, &ctx(30));
        assert_eq!(t.previous.as_deref(), Some("failed"));
        let (_, j) = stored(&r, runs(&[0, 5, 30]));
        assert_eq!(
            (j["resolution"].clone(), j["resolveMinutes"].clone()),
            (json!("rerun"), json!(30))
        );
        assert!(j.get("openSince").is_none());
        assert_eq!(j["runs"], 3);
        assert_eq!(j["firstRun"], "2024-07-01T10:00:00.000Z");
        assert_eq!(j["lastRun"], "2024-07-01T10:30:00.000Z");
        let timeline = j["timeline"].as_array().unwrap();
        assert_eq!(timeline.len(), 3);
        assert_eq!(timeline[0]["previous"], Value::Null);
        assert_eq!(timeline[1]["timestamp"], "2024-07-01T10:05:00.000Z");
        assert_eq!(timeline[2]["message"], "all 1 checks passed");
        assert_eq!(j["checks"][0]["name"], "C");
        assert_eq!(j["checks"][0]["ms"], 0.5);
    }

    #[test]
    fn overrides() {
        let (mut r, _) = apply_run(None, result(SEVERE, 1.0), 0, &ctx(0));
        apply_override(&mut r, "known outage", &ctx(10)).unwrap();
        let (mut r, j) = stored(&r, runs(&[0]));
        assert_eq!(j["status"], "overridden");
        assert_eq!(j["override"]["status"], "severe");
        assert_eq!(j["override"]["reason"], "known outage");
        assert_eq!(
            (j["resolution"].clone(), j["resolveMinutes"].clone()),
            (json!("override"), json!(10))
        );
        assert!(apply_override(&mut r, "again", &ctx(11)).is_err());
        // A re-run on the same failing data keeps the override.
        let (r, t) = apply_run(Some(r), result(SEVERE, 1.0), 1, &ctx(12));
        assert_eq!(t.status, "overridden");
        // Changed data that fails again clears it and opens a new issue.
        let (mut r, t) = apply_run(Some(r), result(FAILED, 2.0), 2, &ctx(20));
        assert_eq!(t.status, "failed");
        assert!(t.data_changed);
        let (_, j) = stored(&r, runs(&[0, 12, 20]));
        assert!(j.get("override").is_none());
        assert_eq!(j["openSince"], "2024-07-01T10:20:00.000Z");
        let actions: Vec<&str> = j["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["action"].as_str().unwrap())
            .collect();
        assert_eq!(
            actions,
            vec!["run", "override", "run", "override-cleared", "run"]
        );
        // removeOverride goes back to the checked status and reopens.
        apply_override(&mut r, "ok", &ctx(21)).unwrap();
        assert_eq!(remove_override(&mut r, &ctx(22)).unwrap(), "failed");
        assert_eq!(status_name(r.status), "failed");
        let (_, j) = stored(&r, runs(&[0, 12, 20]));
        assert_eq!(j["openSince"], "2024-07-01T10:22:00.000Z");
        assert!(remove_override(&mut r, &ctx(23)).is_err());
        let (mut valid, _) = apply_run(None, result(VALID, 1.0), 0, &ctx(0));
        assert!(apply_override(&mut valid, "x", &ctx(1))
            .unwrap_err()
            .contains("not failing"));
    }

    #[test]
    fn the_timeline_keeps_the_last_hundred() {
        let (mut r, _) = apply_run(None, result(VALID, 1.0), 0, &ctx(0));
        for i in 0..150 {
            comment(&mut r, &format!("note {i}"), &ctx(1));
        }
        let (_, j) = stored(&r, runs(&[0]));
        let timeline = j["timeline"].as_array().unwrap();
        assert_eq!(timeline.len(), TIMELINE_MAX);
        assert_eq!(timeline[99]["message"], "note 149");
        assert_eq!(timeline[0]["message"], "note 50");
    }

    #[test]
    fn chunks_keep_what_records_refer_to_and_drop_the_rest() {
        let mut chunk = Chunk::new("X:P", 0, "timeseries", None);
        chunk.set_index(&[]);
        let a = chunk.add_run(runs(&[0])[0].clone());
        let b = chunk.add_run(runs(&[5])[0].clone());
        let (r, _) = apply_run(None, result(VALID, 1.0), a, &ctx(0));
        chunk.records.push(r);
        // The only record moves on to run b: run a is referenced by its timeline still.
        let old = chunk.records.pop();
        let (r, _) = apply_run(old, result(VALID, 1.0), b, &ctx(5));
        chunk.records.push(r);
        chunk.runs.push(runs(&[9])[0].clone()); // unused
        let bytes = chunk.encode();
        let back = Chunk::decode("X:P", 0, &bytes).unwrap();
        assert_eq!(back.runs.len(), 2, "the unused run is dropped");
        assert_eq!(back.records, chunk.records);
        assert!(Chunk::decode("X:P", 0, &bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn point_texts_are_derived_from_the_key_or_kept() {
        let fmt = PointFormat {
            calendar: Calendar::Intraday(60),
            tz: chrono_tz::Tz::UTC,
        };
        let mut chunk = Chunk::new(
            "X:P",
            bucket_of(1_719_792_060_000, Some(&fmt)),
            "timeseries",
            Some(fmt),
        );
        let mut res = result(VALID, 1.0);
        res.key = 1_719_792_060_000;
        assert_eq!(fmt.texts(res.key).0, "2024-07-01T00:01:00Z");
        let (r, _) = apply_run(None, res.clone(), 0, &ctx(0));
        chunk.records.push(r);
        assert_eq!(chunk.id_of(&chunk.records[0]), "X:P:2024-07-01T00:01:00Z");
        res.key += 60_000;
        res.explicit = Some(Box::new(("as written once".into(), "2024-07-01".into())));
        let (r, _) = apply_run(None, res, 0, &ctx(0));
        chunk.records.push(r);
        chunk.runs = runs(&[0]);
        let back = Chunk::decode("X:P", chunk.seq, &chunk.encode()).unwrap();
        assert_eq!(back.records, chunk.records);
        assert_eq!(back.id_of(&back.records[1]), "X:P:as written once");
        assert_eq!(chunk.seq, 1_719_792_000_000);
    }
}
