//! The validation service: [`Validation`], with a typed run ([`ValidationRequest`] →
//! [`ValidationResult`]).

use crate::auth::Principal;
use crate::clock::format_instant;
use crate::error::{Error, Result};
use crate::validation::Validation;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// A point of a data item a validation request names: an observation time (series), or a
/// date (a curve's ondate, or a day of a series read in its zone).
///
/// ```
/// use platform_core::api::When;
/// use chrono::{NaiveDate, TimeZone, Utc};
/// let day: When = NaiveDate::from_ymd_opt(2024, 5, 14).unwrap().into();
/// let hour: When = Utc.with_ymd_and_hms(2024, 5, 14, 7, 0, 0).unwrap().into();
/// assert!(matches!((day, hour), (When::Date(_), When::Time(_))));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// An instant.
    Time(DateTime<Utc>),
    /// A date.
    Date(NaiveDate),
}

impl When {
    pub(super) fn text(&self) -> String {
        match self {
            When::Time(t) => format_instant(*t),
            When::Date(d) => d.format("%Y-%m-%d").to_string(),
        }
    }
}

impl From<DateTime<Utc>> for When {
    fn from(t: DateTime<Utc>) -> When {
        When::Time(t)
    }
}

impl From<NaiveDate> for When {
    fn from(d: NaiveDate) -> When {
        When::Date(d)
    }
}

/// What a run or test checks: one data item, at some points or over a range (the latest
/// point, or a curve's newest ondate, when neither is given), all checks or some.
///
/// ```
/// use platform_core::api::ValidationRequest;
/// use chrono::NaiveDate;
/// let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
/// let req = ValidationRequest::new("TTF:FWD").between(d(1), d(14)).only_checks(["monotone"]);
/// assert_eq!(req.checks.as_deref(), Some(&["monotone".to_string()][..]));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidationRequest {
    /// The data id (`OBJ:PROP`).
    pub target: String,
    /// These points.
    pub points: Vec<When>,
    /// Points at or after this one.
    pub from: Option<When>,
    /// Points at or before this one.
    pub to: Option<When>,
    /// Only the checks with these names.
    pub checks: Option<Vec<String>>,
    /// Curves: only these tenors.
    pub tenors: Option<Vec<String>>,
    /// A test only: a configuration (JSON, as saved) to try instead of the stored one.
    pub config: Option<Value>,
    /// Who asked, as records keep it (`manual` when `None`).
    pub origin: Option<String>,
}

impl ValidationRequest {
    /// A request for the latest point of `target` (a curve: its newest ondate), every check.
    ///
    /// ```
    /// let req = platform_core::api::ValidationRequest::new("NBP:SPOT");
    /// assert!(req.points.is_empty() && req.from.is_none() && req.checks.is_none());
    /// ```
    pub fn new(target: impl Into<String>) -> ValidationRequest {
        ValidationRequest {
            target: target.into(),
            ..ValidationRequest::default()
        }
    }

    /// The same request over the points from `from` to `to`, both included.
    ///
    /// ```
    /// use platform_core::api::{ValidationRequest, When};
    /// use chrono::NaiveDate;
    /// let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
    /// let req = ValidationRequest::new("TTF:FWD").between(d(1), d(31));
    /// assert_eq!(req.to, Some(When::Date(d(31))));
    /// ```
    pub fn between(self, from: impl Into<When>, to: impl Into<When>) -> ValidationRequest {
        ValidationRequest {
            from: Some(from.into()),
            to: Some(to.into()),
            ..self
        }
    }

    /// The same request on these points.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// let at = |h| Utc.with_ymd_and_hms(2024, 5, 14, h, 0, 0).unwrap();
    /// let req = platform_core::api::ValidationRequest::new("DE:POWER").at([at(7), at(8)]);
    /// assert_eq!(req.points.len(), 2);
    /// ```
    pub fn at<W: Into<When>>(self, points: impl IntoIterator<Item = W>) -> ValidationRequest {
        ValidationRequest {
            points: points.into_iter().map(Into::into).collect(),
            ..self
        }
    }

    /// The same request running only the checks with these names (see
    /// [`ValidationRequest`] for an example).
    pub fn only_checks<S: Into<String>>(
        self,
        names: impl IntoIterator<Item = S>,
    ) -> ValidationRequest {
        ValidationRequest {
            checks: Some(names.into_iter().map(Into::into).collect()),
            ..self
        }
    }

    /// The JSON body of the request, as the server receives it.
    fn body(&self) -> Value {
        let mut m = Map::new();
        m.insert("target".into(), json!(self.target));
        if !self.points.is_empty() {
            m.insert(
                "points".into(),
                json!(self.points.iter().map(When::text).collect::<Vec<_>>()),
            );
        }
        for (name, at) in [("from", &self.from), ("to", &self.to)] {
            if let Some(at) = at {
                m.insert(name.into(), json!(at.text()));
            }
        }
        if let Some(c) = &self.checks {
            m.insert("checks".into(), json!(c));
        }
        if let Some(t) = &self.tenors {
            m.insert("tenors".into(), json!(t));
        }
        if let Some(c) = &self.config {
            m.insert("config".into(), c.clone());
        }
        Value::Object(m)
    }

    fn origin(&self) -> &str {
        self.origin.as_deref().unwrap_or("manual")
    }
}

/// The status of a checked point or of one check, worst last but `overridden`. Its serde
/// form is the lower-case name the JSON answers use.
///
/// ```
/// use platform_core::api::ValidationStatus;
/// assert_eq!(serde_json::to_value(ValidationStatus::Failed).unwrap(), "failed");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValidationStatus {
    /// Not checked (no check applied).
    Skipped,
    /// Every check passed.
    Valid,
    /// A check of severity warning failed.
    Warning,
    /// A check failed.
    Failed,
    /// A check could not run (a script error).
    Error,
    /// A check of severity severe failed.
    Severe,
    /// A failure a user overrode.
    Overridden,
}

impl ValidationStatus {
    /// Whether the status counts as failing (`failed`, `error`, `severe`).
    ///
    /// ```
    /// use platform_core::api::ValidationStatus;
    /// assert!(ValidationStatus::Severe.is_failing());
    /// assert!(!ValidationStatus::Warning.is_failing());
    /// ```
    pub fn is_failing(self) -> bool {
        matches!(
            self,
            ValidationStatus::Failed | ValidationStatus::Error | ValidationStatus::Severe
        )
    }

    /// Whether a point with this status passed: every check that ran passed (`valid`), none
    /// applied (`skipped`), or a user accepted its failure (`overridden`). The others
    /// (`warning`, `failed`, `error`, `severe`) are what a failing-points view shows.
    ///
    /// ```
    /// use platform_core::api::ValidationStatus;
    /// assert!(ValidationStatus::Skipped.passed());
    /// assert!(!ValidationStatus::Warning.passed());
    /// ```
    pub fn passed(self) -> bool {
        matches!(
            self,
            ValidationStatus::Valid | ValidationStatus::Skipped | ValidationStatus::Overridden
        )
    }
}

/// Points checked, by status (see [`Validation`] for a run that counts them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ValidationCounts {
    /// `skipped`.
    pub skipped: u64,
    /// `valid`.
    pub valid: u64,
    /// `warning`.
    pub warning: u64,
    /// `failed`.
    pub failed: u64,
    /// `error`.
    pub error: u64,
    /// `severe`.
    pub severe: u64,
    /// `overridden`.
    pub overridden: u64,
}

impl ValidationCounts {
    /// Points with a failing status (`failed`, `error`, `severe`).
    ///
    /// ```
    /// let c = platform_core::api::ValidationCounts { valid: 5, failed: 1, severe: 1, ..Default::default() };
    /// assert_eq!(c.failing(), 2);
    /// ```
    pub fn failing(&self) -> u64 {
        self.failed + self.error + self.severe
    }
}

/// One check's outcome at a point (see [`Validation`] for an example).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    /// The check's id in its configuration.
    #[serde(default)]
    pub id: String,
    /// The check's name.
    pub name: String,
    /// The check's severity (`failed`, `warning`, `severe`).
    #[serde(default)]
    pub severity: String,
    /// Its status.
    pub status: ValidationStatus,
    /// Its message ("" when it passed).
    #[serde(default)]
    pub message: String,
}

/// The outcome at one point (see [`Validation`] for an example).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The id of the point's record (`TARGET:POINT`).
    #[serde(rename = "_id", default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The point (an observation time or an ondate, as the data writes it).
    pub point: String,
    /// The point's day in the data's zone (`pointDate`).
    #[serde(rename = "pointDate", default, skip_serializing_if = "Option::is_none")]
    pub point_date: Option<NaiveDate>,
    /// The value checked (series).
    #[serde(default)]
    pub value: Option<Value>,
    /// The status now.
    pub status: ValidationStatus,
    /// The status before this run (`None` for a point not checked before).
    #[serde(default)]
    pub previous: Option<ValidationStatus>,
    /// The message of the failing checks.
    #[serde(default)]
    pub message: String,
    /// Each check's outcome.
    #[serde(default)]
    pub checks: Vec<CheckResult>,
    /// A curve's contracts with their tenor checks' outcomes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenors: Option<Vec<TenorResult>>,
    /// A curve's tenors that failed.
    #[serde(
        rename = "failedTenors",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub failed_tenors: Option<Vec<String>>,
    /// A curve's tenors with a warning.
    #[serde(
        rename = "warningTenors",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub warning_tenors: Option<Vec<String>>,
    /// A curve's contracts by status.
    #[serde(
        rename = "tenorCounts",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub tenor_counts: Option<ValidationCounts>,
}

/// What a validation configuration checks: a time series or a curve. Its serde form is the
/// name configurations and answers use.
///
/// ```
/// use platform_core::api::ValidationKind;
/// assert_eq!(serde_json::to_value(ValidationKind::TimeSeries).unwrap(), "timeseries");
/// assert_eq!(serde_json::from_value::<ValidationKind>("curve".into()).unwrap(), ValidationKind::Curve);
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum ValidationKind {
    /// A time series (`timeseries`), a record per observation.
    #[default]
    #[serde(rename = "timeseries")]
    TimeSeries,
    /// A curve (`curve`), a record per ondate.
    #[serde(rename = "curve")]
    Curve,
}

/// A curve's contract as its record keeps it (`tenors`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TenorResult {
    /// The tenor.
    pub tenor: String,
    /// The contract's value.
    pub value: Value,
    /// The worst status of its checks.
    pub status: ValidationStatus,
    /// The message of its failing checks.
    pub message: String,
    /// Each tenor check's outcome on it.
    pub checks: Vec<TenorCheck>,
}

/// One tenor check's outcome on a contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TenorCheck {
    /// The check's id.
    pub id: String,
    /// Its status.
    pub status: ValidationStatus,
    /// Its message ("" when it passed).
    pub message: String,
}

/// Where a run's time went, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunTimings {
    /// Loading the configuration's scripts.
    pub scripts: f64,
    /// Reading the data.
    pub read: f64,
    /// Running the checks.
    pub checks: f64,
    /// Storing the records (0 for a test).
    pub save: f64,
}

/// The outcome of a run or a test: the answer of the JSON run, typed (see [`Validation`] and
/// [`Validation::test`] for examples).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ValidationResult {
    /// The data id checked.
    pub target: String,
    /// What it is: a series or a curve.
    pub kind: ValidationKind,
    /// Whether it was a test (nothing stored).
    pub test: bool,
    /// Points checked.
    pub points: u64,
    /// Records stored (0 for a test).
    pub records: u64,
    /// Points by status.
    pub counts: ValidationCounts,
    /// Whether only the first points are listed in `results`.
    pub truncated: bool,
    /// Why nothing was checked (no points, a disabled configuration), or where a background
    /// run went.
    pub message: Option<String>,
    /// The background job a run went to (one over the configuration's `maxPoints`), which
    /// [`super::Jobs::run_next`] or a server's worker runs; the counts are then empty.
    pub job: Option<String>,
    /// The outcome at each point.
    pub results: Vec<PointResult>,
    /// Where the time went.
    pub timings: RunTimings,
}

impl ValidationResult {
    /// Whether no checked point has a failing status (warnings pass).
    ///
    /// ```
    /// use platform_core::api::{ValidationCounts, ValidationResult};
    /// let r = ValidationResult { counts: ValidationCounts { valid: 3, warning: 1, ..Default::default() }, ..Default::default() };
    /// assert!(r.passed());
    /// ```
    pub fn passed(&self) -> bool {
        self.counts.failing() == 0
    }

    fn from_answer(answer: Value) -> Result<ValidationResult> {
        serde_json::from_value(answer)
            .map_err(|e| Error::Internal(format!("a validation answer does not read: {e}")))
    }
}

/// What a run did: checked its points now, or queued them as a background job. A queued run has
/// checked nothing, so it has no `passed()`: a caller that gates on the checks matches on this,
/// or asks for [`Validation::run_and_wait`].
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a queued run has checked nothing yet"]
pub enum RunOutcome {
    /// The points were checked and their records stored.
    Done(ValidationResult),
    /// The run went to a background job (it holds more points than the configuration's
    /// `maxPoints`): nothing is checked yet.
    Queued(QueuedRun),
}

/// A run sent to the background: its job, which [`super::Jobs::run_next`] or a server's
/// worker runs, and the message that says who runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedRun {
    /// The job's id ([`super::Jobs::jobs`] lists it, with its result once done).
    pub job: String,
    /// Where the run went and who runs it.
    pub message: String,
}

impl RunOutcome {
    /// The result when the points were checked; `None` when the run was queued.
    pub fn done(self) -> Option<ValidationResult> {
        match self {
            RunOutcome::Done(result) => Some(result),
            RunOutcome::Queued(_) => None,
        }
    }

    fn from_answer(answer: Value) -> Result<RunOutcome> {
        match answer.get("job").and_then(Value::as_str) {
            Some(job) => Ok(RunOutcome::Queued(QueuedRun {
                job: job.to_string(),
                message: answer["message"].as_str().unwrap_or_default().to_string(),
            })),
            None => ValidationResult::from_answer(answer).map(RunOutcome::Done),
        }
    }
}

impl Validation<'_> {
    /// Runs the checks of `req.target`'s configuration over the points asked for and stores a
    /// record per point, or, for more points than the configuration's `maxPoints`, queues the
    /// run as a background job ([`RunOutcome::Queued`]: nothing checked yet). Role `writer`.
    ///
    /// (See [`Validation`] for an example.)
    pub fn run(&self, p: &Principal, req: &ValidationRequest) -> Result<RunOutcome> {
        let answer = self.validation_run(p, &req.body(), false, req.origin())?;
        RunOutcome::from_answer(answer)
    }

    /// [`Validation::run`] in the foreground whatever its size: the points are checked on this
    /// thread, however many, and the call answers when their records are stored (never a job).
    /// Role `writer`.
    ///
    /// ```
    /// use platform_core::api::{Point, ValidationRequest};
    /// use chrono::{Duration, TimeZone, Utc};
    /// use serde_json::json;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let start = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// let hours: Vec<Point> = (0..3).map(|h| Point::new(start + Duration::hours(h), 50.0)).collect();
    /// platform.data().write_series(&me, "NBP:SPOT", &hours, &Default::default())?;
    /// platform.objects().save(&me, platform_core::api::Collection::ValidationConfig,
    ///     json!({"_id": "NBP:SPOT", "kind": "timeseries", "options": {"maxPoints": 2},
    ///            "checks": [{"name": "cap", "expression": "value < 200"}]}),
    ///     &Default::default())?;
    /// let all = ValidationRequest::new("NBP:SPOT").between(start, start + Duration::hours(2));
    /// // Over maxPoints, run queues it; run_and_wait checks it now.
    /// assert!(platform.validation().run(&me, &all)?.done().is_none());
    /// let checked = platform.validation().run_and_wait(&me, &all)?;
    /// assert!(checked.passed() && checked.points == 3);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn run_and_wait(&self, p: &Principal, req: &ValidationRequest) -> Result<ValidationResult> {
        let answer = self.validation_run_in_foreground(p, &req.body(), req.origin())?;
        ValidationResult::from_answer(answer)
    }

    /// Tests the checks (the stored configuration, or `req.config`) over at most 100 points,
    /// storing nothing.
    ///
    /// ```
    /// use platform_core::api::{Point, ValidationRequest};
    /// use chrono::{TimeZone, Utc};
    /// use serde_json::json;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, 250.0)], &Default::default())?;
    /// let mut req = ValidationRequest::new("NBP:SPOT").at([at]);
    /// req.config = Some(json!({"kind": "timeseries", "checks": [{"name": "cap", "expression": "value < 200"}]}));
    /// let tried = platform.validation().test(&me, &req)?;
    /// assert!(tried.test && !tried.passed());
    /// assert_eq!(tried.records, 0);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn test(&self, p: &Principal, req: &ValidationRequest) -> Result<ValidationResult> {
        let answer = self.validation_run(p, &req.body(), true, req.origin())?;
        ValidationResult::from_answer(answer)
    }

    /// JSON: `run` of one data item (the server's body); `origin` is kept on the records.
    pub fn run_json(&self, p: &Principal, body: &Value, origin: &str) -> Result<Value> {
        self.validation_run(p, body, false, origin)
    }

    /// JSON: `test` of one data item (the server's body): nothing is stored.
    pub fn test_json(&self, p: &Principal, body: &Value, origin: &str) -> Result<Value> {
        self.validation_run(p, body, true, origin)
    }

    /// JSON: recreates the missing automations of the caller's enabled `runOnUpdate`
    /// configurations; returns `{checked, created, automations}`.
    pub fn sync_automations(&self, p: &Principal) -> Result<Value> {
        self.platform.automations().sync_validation(p)
    }
}
