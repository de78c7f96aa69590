//! What a finished validation job produced, typed ([`JobResult`]): the answer of the run or
//! batch it ran, read from the result the job stored.

use super::validation::ValidationBatchResult;
use crate::error::{Error, Result};
use serde::Deserialize;

/// What a finished validation job produced, typed: the answer of the call it ran.
#[derive(Debug, Clone, PartialEq)]
pub enum JobResult {
    /// A `run` of one data item sent to the background.
    Run(super::validation::ValidationResult),
    /// A `runMany` batch (or one of its items) sent to the background.
    Batch(ValidationBatchResult),
}

impl super::jobs::JobInfo {
    /// What the job produced, typed, once it is done: `None` while it is queued or running,
    /// and for a job that failed (its `message` says why).
    ///
    /// ```
    /// use platform_core::api::{validation::JobResult, data::Point, validation::RunOutcome, validation::ValidationRequest};
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
            "run" => super::validation::ValidationResult::deserialize(result)
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
