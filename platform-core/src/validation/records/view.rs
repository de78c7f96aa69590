//! The record as the interface shows it ([`ValidationRecord`]), made from a record and its
//! chunk: its override, its timeline and how it last stopped failing. Its serde form is the
//! JSON record [`Chunk::materialize`] builds (the one filters and projections read), field for
//! field and in order.

use super::answer::{run_tags, run_text, CurveFields, RecordCheck, TenorResult};
use super::chunk::Chunk;
use super::record::{Event, Record};
use super::status::NONE;
use crate::error::{Error, Result};
use crate::validation::counts::{StatusCounts, ValidationKind, ValidationStatus};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A user's override of a failing record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordOverride {
    /// Why.
    pub reason: String,
    /// Who.
    pub user: String,
    /// When.
    #[serde(with = "crate::clock::serde_instant")]
    pub timestamp: DateTime<Utc>,
    /// The failing status it overrode.
    pub status: ValidationStatus,
}

/// How a record stopped failing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resolution {
    /// A user overrode it.
    Override,
    /// A run found it passing.
    Rerun,
}

/// When and how a record last stopped failing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolvedIssue {
    /// When.
    #[serde(rename = "resolvedAt", with = "crate::clock::serde_instant")]
    pub at: DateTime<Utc>,
    /// How.
    #[serde(rename = "resolution")]
    pub by: Resolution,
    /// How many minutes it failed before (`None` when when it started is not known).
    #[serde(rename = "resolveMinutes")]
    pub minutes: Option<i64>,
}

/// An entry of a record's timeline: a run, an override, its removal or clearing, a comment,
/// or a note of the platform (`sent-as-failing`, `sent-as-validated`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineEvent {
    /// When.
    #[serde(with = "crate::clock::serde_instant")]
    pub timestamp: DateTime<Utc>,
    /// `run`, `override`, `override-removed`, `override-cleared`, `comment`, or a note.
    pub action: String,
    /// Who.
    pub user: Option<String>,
    /// How (`manual`, `update`, `build`, `background`).
    pub origin: Option<String>,
    /// The status after.
    pub status: ValidationStatus,
    /// The status before (`None` for a new record).
    pub previous: Option<ValidationStatus>,
    /// The run's summary, the reason or the comment.
    pub message: String,
}

/// A validation record: one checked point of a data item (an observation of a series, an
/// ondate of a curve), its status, checks, override and history. Its serde form is the JSON
/// record of the interface; fields the record keeps beyond these (what the platform last sent
/// as validated) are in `other`.
///
/// (See [`crate::api::validation::Validation::records`] for an example.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationRecord {
    /// `<data id>:<point>`.
    #[serde(rename = "_id")]
    pub id: String,
    /// The data id.
    pub target: String,
    /// The configuration's name.
    pub name: Option<String>,
    /// The configuration's group.
    pub group: Option<String>,
    /// The configuration's tags.
    pub tags: Option<Vec<String>>,
    /// A series or a curve.
    pub kind: ValidationKind,
    /// The point: an observation time or an ondate, as the data writes it.
    pub point: String,
    /// The point's date (a series: in its zone).
    pub point_date: NaiveDate,
    /// A series: the value checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// The status that applies.
    pub status: ValidationStatus,
    /// The status of the last run.
    pub checked_status: ValidationStatus,
    /// The summary of the failing checks.
    pub message: String,
    /// Each check's result.
    pub checks: Vec<RecordCheck>,
    /// A curve: every contract's outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenors: Option<Vec<TenorResult>>,
    /// A curve: the tenors that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_tenors: Option<Vec<String>>,
    /// A curve: the tenors that warned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning_tenors: Option<Vec<String>>,
    /// A curve: its tenors by status, in the order first met.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenor_counts: Option<StatusCounts>,
    /// A curve: its number of contracts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contracts: Option<u64>,
    /// Its other fields (what the platform last sent as validated), as the record keeps them.
    #[serde(flatten)]
    pub other: Map<String, Value>,
    /// The override, while it stands.
    #[serde(rename = "override", default, skip_serializing_if = "Option::is_none")]
    pub overridden: Option<RecordOverride>,
    /// How often it was checked.
    pub runs: u64,
    /// When it was first checked.
    #[serde(with = "crate::clock::serde_instant")]
    pub first_run: DateTime<Utc>,
    /// When it was last checked.
    #[serde(with = "crate::clock::serde_instant::option")]
    pub last_run: Option<DateTime<Utc>>,
    /// Who checked it last.
    pub last_run_by: Option<String>,
    /// How it was checked last.
    pub last_origin: Option<String>,
    /// An open issue: when it started failing.
    #[serde(
        default,
        with = "crate::clock::serde_instant::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub open_since: Option<DateTime<Utc>>,
    /// When and how it last stopped failing.
    #[serde(flatten)]
    pub resolved: Option<ResolvedIssue>,
    /// The last 100 events, oldest first.
    pub timeline: Vec<TimelineEvent>,
}

/// A stored time (milliseconds) as an instant; one out of range is not the platform's.
fn at(ms: i64) -> Result<DateTime<Utc>> {
    DateTime::from_timestamp_millis(ms)
        .ok_or_else(|| Error::Internal(format!("a validation record's time {ms} is out of range")))
}

/// A stored status that may be none.
fn status_or_none(code: u8) -> Option<ValidationStatus> {
    (code != NONE).then(|| ValidationStatus::of_code(code))
}

impl Chunk {
    /// The record as the interface shows it.
    pub(crate) fn record(&self, r: &Record) -> Result<ValidationRecord> {
        let run = self.last_run_of(r);
        let (point, point_date, id) = self.point_of(r);
        let curve = CurveFields::of(r.extra.as_deref())?;
        let other = r
            .extra
            .as_deref()
            .map_or_else(Map::new, CurveFields::others);
        Ok(ValidationRecord {
            id,
            target: self.target.clone(),
            name: run_text(run.map(|x| &x.name)),
            group: run_text(run.map(|x| &x.group)),
            tags: run_tags(run.map(|x| &x.tags)),
            kind: ValidationKind::of_name(&self.kind),
            point,
            point_date,
            value: r.value.as_ref().map(|v| v.to_json()),
            status: ValidationStatus::of_code(r.status),
            checked_status: ValidationStatus::of_code(r.checked),
            message: r.message.text(),
            checks: self.record_checks(r),
            tenors: curve.tenors,
            failed_tenors: curve.failed_tenors,
            warning_tenors: curve.warning_tenors,
            tenor_counts: curve.tenor_counts,
            contracts: curve.contracts,
            other,
            overridden: match &r.overridden {
                Some(o) => Some(RecordOverride {
                    reason: o.reason.clone(),
                    user: o.user.clone(),
                    timestamp: at(o.at)?,
                    status: ValidationStatus::of_code(o.status),
                }),
                None => None,
            },
            runs: u64::from(r.runs),
            first_run: at(r.first_run)?,
            last_run: run.map(|x| at(x.at)).transpose()?,
            last_run_by: run.map(|x| x.user.clone()),
            last_origin: run.map(|x| x.origin.clone()),
            open_since: r.open_since.map(at).transpose()?,
            resolved: match &r.resolved {
                Some(res) => Some(ResolvedIssue {
                    at: at(res.at)?,
                    by: if res.by_override {
                        Resolution::Override
                    } else {
                        Resolution::Rerun
                    },
                    minutes: res.minutes,
                }),
                None => None,
            },
            timeline: r
                .timeline
                .iter()
                .map(|e| self.timeline_event(e))
                .collect::<Result<_>>()?,
        })
    }

    /// A timeline entry (a run's time, user and origin are the chunk's run).
    fn timeline_event(&self, e: &Event) -> Result<TimelineEvent> {
        Ok(match e {
            Event::Run {
                run,
                status,
                previous,
                message,
            } => {
                let info = self.runs.get(*run as usize).ok_or_else(|| {
                    Error::Internal(format!(
                        "a validation record of {} names a run its chunk does not hold",
                        self.target
                    ))
                })?;
                TimelineEvent {
                    timestamp: at(info.at)?,
                    action: "run".into(),
                    user: Some(info.user.clone()),
                    origin: Some(info.origin.clone()),
                    status: ValidationStatus::of_code(*status),
                    previous: status_or_none(*previous),
                    message: message.text(),
                }
            }
            Event::Other {
                at: when,
                action,
                user,
                origin,
                status,
                previous,
                message,
            } => TimelineEvent {
                timestamp: at(*when)?,
                action: action.clone(),
                user: Some(user.clone()),
                origin: Some(origin.clone()),
                status: ValidationStatus::of_code(*status),
                previous: status_or_none(*previous),
                message: message.clone(),
            },
        })
    }
}
