//! Typed calls of the validation service beside its JSON ones: records and their actions
//! ([`ValidationRecord`], [`RecordOutcome`]), batches of runs ([`ValidationBatch`] →
//! [`ValidationBatchResult`]) and the automations of configurations ([`AutomationSync`]).
//! Statistics, suggestions and tunings are in `validation_typed_insights`.
//!
//! Each typed call is the JSON call with typed values on either side: the request's serde
//! form is the JSON body, and the JSON answer reads into the typed answer with serde (an
//! answer that does not read is an internal error).

use super::{
    RecordCheck, TenorResult, ValidationBatchResult, ValidationCounts, ValidationKind,
    ValidationStatus,
};
use crate::auth::Principal;
use crate::documents::ListRequest;
use crate::error::{Error, Result};
use crate::store::Page;
use crate::validation::Validation;
use chrono::{DateTime, NaiveDate, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Reads a JSON answer as its typed form; one that does not read is an internal error.
pub(super) fn from_json<T: DeserializeOwned>(what: &str, answer: Value) -> Result<T> {
    crate::json::typed_answer("a validation", what, answer)
}

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
/// record; fields the record has beyond these are kept in `other`.
///
/// (See [`Validation::validation_records`] for an example.)
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
    /// A curve: its tenors by status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenor_counts: Option<ValidationCounts>,
    /// A curve: its number of contracts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contracts: Option<u64>,
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
    /// When it last stopped failing.
    #[serde(
        default,
        with = "crate::clock::serde_instant::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub resolved_at: Option<DateTime<Utc>>,
    /// How it last stopped failing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
    /// How many minutes it failed before it stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolve_minutes: Option<i64>,
    /// The last 100 events, oldest first.
    pub timeline: Vec<TimelineEvent>,
    /// Its other fields (what the platform last sent as validated...), as the JSON record has
    /// them.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// What a records action did to one record: whether it applied, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordOutcome {
    /// The record id asked for.
    pub id: String,
    /// Whether it applied.
    pub ok: bool,
    /// What it did, or why it did not apply (`no such record`, `already overridden`...).
    pub message: String,
    /// The record's status after it (when it applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ValidationStatus>,
}

/// What recreating the automations of configurations did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutomationSync {
    /// Configurations looked at.
    pub checked: u64,
    /// Automations created (the missing ones).
    pub created: u64,
    /// The automation of each enabled `runOnUpdate` configuration.
    pub automations: Vec<String>,
}

impl Validation<'_> {
    /// Typed: one record.
    ///
    /// (See [`Validation::validation_records`] for an example.)
    pub fn validation_record(&self, p: &Principal, id: &str) -> Result<ValidationRecord> {
        from_json("record", self.record(p, id)?)
    }

    /// Typed: records matching a list request (filters over the record fields, sort,
    /// paging). A projection or `_distinct`, which do not answer whole records, is refused
    /// (the JSON [`Validation::records`] answers them).
    ///
    /// ```
    /// use platform_core::api::{Collection, Point, ValidationRequest, ValidationStatus};
    /// use chrono::{TimeZone, Utc};
    /// use serde_json::json;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, -3.0)], &Default::default())?;
    /// platform.objects().save(&me, Collection::ValidationConfig, json!({
    ///     "_id": "NBP:SPOT", "kind": "timeseries",
    ///     "checks": [{"name": "positive", "expression": "value > 0"}]
    /// }), &Default::default())?;
    /// let _checked = platform.validation().run(&me, &ValidationRequest::new("NBP:SPOT").at([at]))?;
    /// let page = platform.validation().validation_records(&me, &Default::default())?;
    /// let record = &page.items[0];
    /// assert_eq!((page.total, record.status), (1, ValidationStatus::Failed));
    /// assert_eq!(record.checks[0].name, "positive");
    /// assert_eq!(platform.validation().validation_record(&me, &record.id)?, *record);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn validation_records(
        &self,
        p: &Principal,
        req: &ListRequest,
    ) -> Result<Page<ValidationRecord>> {
        for (given, name) in [
            (req.project.is_some(), "_project"),
            (req.distinct.is_some(), "_distinct"),
        ] {
            if given {
                return Err(Error::invalid_parameter(format!(
                    "{name} does not answer whole records: list them as JSON"
                )));
            }
        }
        let page = self.records(p, req)?;
        Ok(Page {
            items: page
                .items
                .into_iter()
                .map(|r| from_json("record", r))
                .collect::<Result<_>>()?,
            total: page.total,
            estimated: page.estimated,
        })
    }

    /// Typed: overrides failing records (role `writer`); the reason is required. A record
    /// that is not failing, or not found, is reported in its outcome.
    ///
    /// (See [`Validation::comment_records`] for an example.)
    pub fn override_records<S: AsRef<str>>(
        &self,
        p: &Principal,
        ids: &[S],
        reason: &str,
    ) -> Result<Vec<RecordOutcome>> {
        self.act_on_records(p, "override", ids, Some(("reason", reason)))
    }

    /// Typed: removes the overrides of records, which take their last checked status.
    ///
    /// (See [`Validation::comment_records`] for an example.)
    pub fn remove_overrides<S: AsRef<str>>(
        &self,
        p: &Principal,
        ids: &[S],
    ) -> Result<Vec<RecordOutcome>> {
        self.act_on_records(p, "removeOverride", ids, None)
    }

    /// Typed: adds a comment to the timeline of records; the message is required.
    ///
    /// ```
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let said = platform.validation().comment_records(&me, &["NBP:SPOT:2024-01-01"], "seen")?;
    /// assert!(!said[0].ok);
    /// assert_eq!(said[0].message, "no such record");
    /// let undone = platform.validation().remove_overrides(&me, &["NBP:SPOT:2024-01-01"])?;
    /// assert_eq!(undone, said);
    /// let e = platform.validation().override_records(&me, &["NBP:SPOT:2024-01-01"], " ").unwrap_err();
    /// assert_eq!(e.code(), platform_core::ErrorCode::MissingParameter);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn comment_records<S: AsRef<str>>(
        &self,
        p: &Principal,
        ids: &[S],
        message: &str,
    ) -> Result<Vec<RecordOutcome>> {
        self.act_on_records(p, "comment", ids, Some(("message", message)))
    }

    /// A records action through the JSON call, its body `{ids, <text field>}`.
    fn act_on_records<S: AsRef<str>>(
        &self,
        p: &Principal,
        function: &str,
        ids: &[S],
        text: Option<(&str, &str)>,
    ) -> Result<Vec<RecordOutcome>> {
        let body = action_body(ids, text);
        from_json("records action", self.records_action(p, function, &body)?)
    }

    /// Typed: recreates the missing automations of the caller's enabled `runOnUpdate`
    /// configurations (role `writer`).
    ///
    /// ```
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let sync = platform.validation().recreate_automations(&me)?;
    /// assert_eq!((sync.checked, sync.created), (0, 0));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn recreate_automations(&self, p: &Principal) -> Result<AutomationSync> {
        from_json("automations answer", self.sync_automations(p)?)
    }
}

/// The JSON body of a records action: the ids and the reason or message.
pub(super) fn action_body<S: AsRef<str>>(ids: &[S], text: Option<(&str, &str)>) -> Value {
    let mut body = json!({"ids": ids.iter().map(AsRef::as_ref).collect::<Vec<_>>()});
    if let Some((field, text)) = text {
        body[field] = json!(text);
    }
    body
}

/// What a finished validation job produced, typed: the answer of the call it ran.
#[derive(Debug, Clone, PartialEq)]
pub enum JobResult {
    /// A `run` of one data item sent to the background.
    Run(super::ValidationResult),
    /// A `runMany` batch (or one of its items) sent to the background.
    Batch(ValidationBatchResult),
}

impl super::JobInfo {
    /// What the job produced, typed, once it is done: `None` while it is queued or running,
    /// and for a job that failed (its `message` says why).
    ///
    /// ```
    /// use platform_core::api::{JobResult, Point, RunOutcome, ValidationRequest};
    /// use chrono::{Duration, TimeZone, Utc};
    /// use serde_json::json;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// let points: Vec<Point> = (0..3).map(|h| Point::new(at + Duration::hours(h), 1.0)).collect();
    /// platform.data().write_series(&me, "NBP:SPOT", &points, &Default::default())?;
    /// platform.objects().save(&me, platform_core::api::Collection::ValidationConfig, json!({
    ///     "_id": "NBP:SPOT", "kind": "timeseries", "options": {"maxPoints": 2},
    ///     "checks": [{"name": "positive", "expression": "value > 0"}]}), &Default::default())?;
    /// let req = ValidationRequest::new("NBP:SPOT").between(at, at + Duration::hours(2));
    /// let RunOutcome::Queued(queued) = platform.validation().run(&me, &req)? else { panic!() };
    /// while platform.jobs().run_next()? {}
    /// let job = platform.jobs().jobs(&me)?.into_iter().find(|j| j.id == queued.job).unwrap();
    /// let Some(JobResult::Run(result)) = job.outcome()? else { panic!("{}", job.message) };
    /// assert!(result.passed() && result.counts.valid == 3);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn outcome(&self) -> Result<Option<JobResult>> {
        let Some(result) = &self.result else {
            return Ok(None);
        };
        if self.status != crate::store::JobStatus::Done {
            return Ok(None);
        }
        let read = |what: &str, e: serde_json::Error| {
            Error::Internal(format!(
                "the result of job {} does not read as {what}: {e}",
                self.id
            ))
        };
        match self.kind.as_str() {
            "run" => super::ValidationResult::deserialize(result)
                .map(|r| Some(JobResult::Run(r)))
                .map_err(|e| read("a run's", e)),
            "runMany" => ValidationBatchResult::deserialize(result)
                .map(|r| Some(JobResult::Batch(r)))
                .map_err(|e| read("a batch's", e)),
            other => Err(Error::Internal(format!(
                "job {} is of an unknown kind \"{other}\"",
                self.id
            ))),
        }
    }
}
