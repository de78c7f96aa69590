//! The record in its stored form (one per checked point) and the fresh result of checking a
//! point that a run applies to it.

use super::status::SKIPPED;
use super::status::VALID;
use serde_json::{Map, Value};

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
    pub(crate) fn to_json(&self) -> Value {
        match self {
            CheckedValue::Null => Value::Null,
            CheckedValue::Num(x) => {
                serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number)
            }
            CheckedValue::Text(s) => Value::String(s.clone()),
        }
    }

    pub(super) fn same(&self, other: &CheckedValue) -> bool {
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
    /// `all <n> checks passed`: every check ran and passed.
    AllPassed(u32),
    /// `<n> checks passed, <k> skipped`: every check that ran passed, some did not run.
    PassedSkipping {
        /// The checks that passed.
        passed: u32,
        /// The checks that were skipped.
        skipped: u32,
    },
    /// Any other text.
    Text(Box<str>),
}

/// `1 check` / `2 checks`.
fn checks(n: usize) -> String {
    format!("{n} check{}", if n == 1 { "" } else { "s" })
}

impl Summary {
    /// The summary of check statuses (ids in the same order): every check counted, those
    /// that did not run (`skipped`) said apart from those that passed.
    pub fn of<'a>(checks_run: impl Iterator<Item = (&'a str, u8)>) -> Summary {
        let (mut ran, mut skipped) = (0u32, 0u32);
        let mut bad: Vec<&str> = Vec::new();
        for (id, status) in checks_run {
            if status == SKIPPED {
                skipped += 1;
            } else {
                ran += 1;
                if status != VALID {
                    bad.push(id);
                }
            }
        }
        let and_skipped = match skipped {
            0 => String::new(),
            k => format!("; {k} skipped"),
        };
        if ran == 0 {
            let text = match skipped {
                0 => "no check applied".to_string(),
                k => format!("no check applied ({k} skipped)"),
            };
            Summary::Text(text.into())
        } else if bad.is_empty() && skipped == 0 {
            Summary::AllPassed(ran)
        } else if bad.is_empty() {
            Summary::PassedSkipping {
                passed: ran,
                skipped,
            }
        } else {
            Summary::Text(
                format!(
                    "{} of {ran} checks did not pass: {}{and_skipped}",
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
            Summary::PassedSkipping { passed, skipped } => {
                format!("{} passed, {skipped} skipped", checks(*passed as usize))
            }
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
    /// gives the key (see [`super::Chunk::texts`]).
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
