//! The answer of a run or a test ([`ValidationResult`], [`RunOutcome`]): what was checked, the
//! outcome at each point ([`PointResult`]) and where the time went, made by the runner from the
//! records it laid out. Its serde form is the answer of `run` and `test`, field for field and in
//! order.

use crate::error::Result;
use crate::validation::counts::{StatusCounts, ValidationKind, ValidationStatus};
use crate::validation::jobs::QueuedRun;
use crate::validation::records::{
    run_tags, run_text, Chunk, CurveFields, Record, RecordCheck, TenorResult, Transition,
};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The outcome at one point: its record as the run left it (the fields a run answers with)
/// and its status before the run.
///
/// (See [`crate::api::validation::Validation`] for an example.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PointResult {
    /// The id of the point's record (`TARGET:POINT`).
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
    /// The point (an observation time or an ondate, as the data writes it).
    pub point: String,
    /// The point's day (a series: in its zone).
    pub point_date: NaiveDate,
    /// A series: the value checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// The summary of the failing checks.
    pub message: String,
    /// Each check's outcome.
    pub checks: Vec<RecordCheck>,
    /// A curve: its contracts with their tenor checks' outcomes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenors: Option<Vec<TenorResult>>,
    /// A curve: the tenors that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_tenors: Option<Vec<String>>,
    /// A curve: the tenors with a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning_tenors: Option<Vec<String>>,
    /// A curve: its contracts by status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenor_counts: Option<StatusCounts>,
    /// A curve: its number of contracts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contracts: Option<u64>,
    /// The status now.
    pub status: ValidationStatus,
    /// The status before this run (`None` for a point not checked before).
    pub previous: Option<ValidationStatus>,
}

/// Where a run's time went, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RunTimings {
    /// Loading the configuration's scripts.
    pub scripts: f64,
    /// Reading the data.
    pub read: f64,
    /// Running the checks.
    pub checks: f64,
    /// Storing the records (for a test, laying them out).
    pub save: f64,
}

/// The outcome of a run or a test (see [`crate::api::validation::Validation`] and
/// [`crate::api::validation::Validation::test`] for examples). It reads back from a background run's stored
/// result ([`crate::api::jobs::JobInfo::outcome`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    pub counts: StatusCounts,
    /// Whether only the first points are listed in `results`.
    pub truncated: bool,
    /// Where the time went.
    pub timings: RunTimings,
    /// Why nothing was checked (no points, a disabled configuration).
    pub message: Option<String>,
    /// The outcome at each point.
    pub results: Vec<PointResult>,
}

impl ValidationResult {
    /// Whether no checked point has a failing status (warnings pass).
    ///
    /// ```
    /// use platform_core::api::{validation::ValidationCounts, validation::ValidationResult};
    /// let counts = ValidationCounts { valid: 3, warning: 1, ..Default::default() };
    /// let r = ValidationResult { counts: counts.into(), ..Default::default() };
    /// assert!(r.passed());
    /// ```
    pub fn passed(&self) -> bool {
        self.counts.failing() == 0
    }
}

/// The outcome of a run at a record it laid out: the record as the run left it and its
/// status before.
pub(super) fn point_result(chunk: &Chunk, r: &Record, t: &Transition) -> Result<PointResult> {
    let run = chunk.last_run_of(r);
    let (point, point_date, id) = chunk.point_of(r);
    let curve = CurveFields::of(r.extra.as_deref())?;
    Ok(PointResult {
        id,
        target: chunk.target.clone(),
        name: run_text(run.map(|x| &x.name)),
        group: run_text(run.map(|x| &x.group)),
        tags: run_tags(run.map(|x| &x.tags)),
        kind: ValidationKind::of_name(&chunk.kind),
        point,
        point_date,
        value: r.value.as_ref().map(|v| v.to_json()),
        message: r.message.text(),
        checks: chunk.record_checks(r),
        tenors: curve.tenors,
        failed_tenors: curve.failed_tenors,
        warning_tenors: curve.warning_tenors,
        tenor_counts: curve.tenor_counts,
        contracts: curve.contracts,
        status: ValidationStatus::of_name(&t.status),
        previous: t.previous.as_deref().map(ValidationStatus::of_name),
    })
}

/// What a run did: checked its points now, or queued them as a background job. A queued run has
/// checked nothing, so it has no `passed()`: a caller that gates on the checks matches on this,
/// or asks for [`super::super::Validation::run_and_wait`]. Its serde form is the answer of `run`: the
/// result's, or the queued run's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[must_use = "a queued run has checked nothing yet"]
pub enum RunOutcome {
    /// The points were checked and their records stored.
    Done(ValidationResult),
    /// The run went to a background job (it holds more points than the configuration's
    /// `maxPoints`): nothing is checked yet.
    Queued(QueuedRun),
}

impl RunOutcome {
    /// The result when the points were checked; `None` when the run was queued.
    pub fn done(self) -> Option<ValidationResult> {
        match self {
            RunOutcome::Done(result) => Some(result),
            RunOutcome::Queued(_) => None,
        }
    }

    /// The job and message when the run was queued; `None` when the points were checked.
    pub fn queued(&self) -> Option<&QueuedRun> {
        match self {
            RunOutcome::Done(_) => None,
            RunOutcome::Queued(queued) => Some(queued),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::records::TenorCheck;

    fn check(id: &str, status: ValidationStatus, message: &str) -> RecordCheck {
        RecordCheck {
            id: id.into(),
            name: id.into(),
            scope: "point".into(),
            severity: "failed".into(),
            status,
            message: message.into(),
            failures: u64::from(!message.is_empty()),
            log: if message.is_empty() {
                vec![]
            } else {
                vec![message.into()]
            },
            ms: 0.01,
            tenors_failed: None,
        }
    }

    /// A run's answer is written as `run` answers it: every field in its place, timings as
    /// numbers with a fraction, the counts in the order their statuses were met.
    #[test]
    fn a_run_result_is_written_as_the_run_answers() {
        let point = PointResult {
            id: "NBP:SPOT:2024-02-04T00:00:00Z".into(),
            target: "NBP:SPOT".into(),
            name: Some("spot".into()),
            group: None,
            tags: Some(vec!["uk".into()]),
            kind: ValidationKind::TimeSeries,
            point: "2024-02-04T00:00:00Z".into(),
            point_date: NaiveDate::from_ymd_opt(2024, 2, 4).unwrap(),
            value: Some(serde_json::json!(-3.0)),
            message: "1 of 1 checks did not pass: positive".into(),
            checks: vec![check(
                "positive",
                ValidationStatus::Failed,
                "value -3, expected > 0",
            )],
            tenors: None,
            failed_tenors: None,
            warning_tenors: None,
            tenor_counts: None,
            contracts: None,
            status: ValidationStatus::Failed,
            previous: None,
        };
        let result = ValidationResult {
            target: "NBP:SPOT".into(),
            kind: ValidationKind::TimeSeries,
            test: false,
            points: 2,
            records: 2,
            counts: [ValidationStatus::Failed, ValidationStatus::Valid]
                .into_iter()
                .collect(),
            truncated: false,
            timings: RunTimings {
                scripts: 0.21,
                read: 0.26,
                checks: 0.1,
                save: 0.0,
            },
            message: None,
            results: vec![point],
        };
        assert_eq!(
            serde_json::to_string(&result).unwrap(),
            concat!(
                r#"{"target":"NBP:SPOT","kind":"timeseries","test":false,"points":2,"records":2,"#,
                r#""counts":{"failed":1,"valid":1},"truncated":false,"#,
                r#""timings":{"scripts":0.21,"read":0.26,"checks":0.1,"save":0.0},"message":null,"#,
                r#""results":[{"_id":"NBP:SPOT:2024-02-04T00:00:00Z","target":"NBP:SPOT","#,
                r#""name":"spot","group":null,"tags":["uk"],"kind":"timeseries","#,
                r#""point":"2024-02-04T00:00:00Z","pointDate":"2024-02-04","value":-3.0,"#,
                r#""message":"1 of 1 checks did not pass: positive","checks":[{"id":"positive","#,
                r#""name":"positive","scope":"point","severity":"failed","status":"failed","#,
                r#""message":"value -3, expected > 0","failures":1,"#,
                r#""log":["value -3, expected > 0"],"ms":0.01}],"status":"failed","previous":null}]}"#
            )
        );
        // It reads back (a background run's stored result).
        let text = serde_json::to_string(&result).unwrap();
        assert_eq!(
            serde_json::from_str::<ValidationResult>(&text).unwrap(),
            result
        );
    }

    /// A curve's point has its tenors after its checks, in the order its record keeps them,
    /// and no value; an empty run says why, its counts an empty object.
    #[test]
    fn a_curve_point_and_an_empty_run_are_written_as_the_run_answers() {
        let tenor = |t: &str, v: f64, s: ValidationStatus, m: &str| TenorResult {
            tenor: t.into(),
            value: serde_json::json!(v),
            status: s,
            message: m.into(),
            checks: vec![TenorCheck {
                id: "positive".into(),
                status: s,
                message: m.into(),
            }],
        };
        let mut c = check(
            "positive",
            ValidationStatus::Failed,
            "M02: value -1, expected > 0",
        );
        c.scope = "tenor".into();
        c.tenors_failed = Some(1);
        let point = PointResult {
            id: "TTF:FWD:2024-02-28".into(),
            target: "TTF:FWD".into(),
            name: None,
            group: None,
            tags: None,
            kind: ValidationKind::Curve,
            point: "2024-02-28".into(),
            point_date: NaiveDate::from_ymd_opt(2024, 2, 28).unwrap(),
            value: None,
            message: "1 of 1 checks did not pass: positive".into(),
            checks: vec![c],
            tenors: Some(vec![
                tenor("M01", 30.0, ValidationStatus::Valid, ""),
                tenor(
                    "M02",
                    -1.0,
                    ValidationStatus::Failed,
                    "value -1, expected > 0",
                ),
            ]),
            failed_tenors: Some(vec!["M02".into()]),
            warning_tenors: Some(vec![]),
            tenor_counts: Some(
                [ValidationStatus::Valid, ValidationStatus::Failed]
                    .into_iter()
                    .collect(),
            ),
            contracts: Some(2),
            status: ValidationStatus::Failed,
            previous: Some(ValidationStatus::Failed),
        };
        assert_eq!(
            serde_json::to_string(&point).unwrap(),
            concat!(
                r#"{"_id":"TTF:FWD:2024-02-28","target":"TTF:FWD","name":null,"group":null,"#,
                r#""tags":null,"kind":"curve","point":"2024-02-28","pointDate":"2024-02-28","#,
                r#""message":"1 of 1 checks did not pass: positive","checks":[{"id":"positive","#,
                r#""name":"positive","scope":"tenor","severity":"failed","status":"failed","#,
                r#""message":"M02: value -1, expected > 0","failures":1,"#,
                r#""log":["M02: value -1, expected > 0"],"ms":0.01,"tenorsFailed":1}],"#,
                r#""tenors":[{"tenor":"M01","value":30.0,"status":"valid","message":"","#,
                r#""checks":[{"id":"positive","status":"valid","message":""}]},"#,
                r#"{"tenor":"M02","value":-1.0,"status":"failed","message":"value -1, expected > 0","#,
                r#""checks":[{"id":"positive","status":"failed","message":"value -1, expected > 0"}]}],"#,
                r#""failedTenors":["M02"],"warningTenors":[],"tenorCounts":{"valid":1,"failed":1},"#,
                r#""contracts":2,"status":"failed","previous":"failed"}"#
            )
        );
        let empty = ValidationResult {
            target: "NBP:OFF".into(),
            message: Some("the configuration is disabled".into()),
            timings: RunTimings {
                scripts: 0.13,
                read: 0.1,
                ..RunTimings::default()
            },
            ..ValidationResult::default()
        };
        assert_eq!(
            serde_json::to_string(&empty).unwrap(),
            concat!(
                r#"{"target":"NBP:OFF","kind":"timeseries","test":false,"points":0,"records":0,"#,
                r#""counts":{},"truncated":false,"#,
                r#""timings":{"scripts":0.13,"read":0.1,"checks":0.0,"save":0.0},"#,
                r#""message":"the configuration is disabled","results":[]}"#
            )
        );
    }

    /// A queued run is written as `run` answers it: `background`, `message`, `job`.
    #[test]
    fn a_queued_run_is_written_as_the_run_answers() {
        let queued = RunOutcome::Queued(QueuedRun {
            job: "job-1".into(),
            message: "the run runs in the background as job job-1".into(),
        });
        assert_eq!(
            serde_json::to_string(&queued).unwrap(),
            r#"{"background":true,"message":"the run runs in the background as job job-1","job":"job-1"}"#
        );
        let done = RunOutcome::Done(ValidationResult::default());
        assert!(serde_json::to_string(&done)
            .unwrap()
            .starts_with(r#"{"target":"","kind":"timeseries""#));
    }
}
