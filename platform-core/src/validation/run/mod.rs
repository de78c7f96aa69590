//! The validation service functions: `run`, `test`, `runMany`, `override`, `removeOverride`,
//! `comment` and record reads (the dashboard `stats` are [`super::stats`]'s).
//!
//! Points: `points` (observation times or ondates), `point`/`ondate` (one), `from`/`to` (a date
//! range; curves: their ondates in the range, up to today); none means the latest point (curves:
//! the newest ondate). `checks` runs only some checks, `tenors` only some tenors. `test` stores
//! nothing and takes at most 100 points; a `run` over more than `maxPoints` points, or with
//! `background: true`, goes to a background job.
//!
//! | file | holds |
//! |---|---|
//! | `request` | the request of a run or test |
//! | `answer` | the answer of a run or test |
//! | `load` | the configuration compiled and the points read |
//! | `plan` | a run planned: refused, sent to the background, or checked |
//! | `evaluate` | the checks run over the points, one result per point |
//! | `layout` | the results laid into the record chunks they go to |
//! | `commit` | a checked run stored, with its events and quality statuses |
//! | `quality` | the quality status written into the data |
//! | `batch` | the request and answer of `runMany` |
//! | `many` | `runMany`: data items checked on worker threads, stored in order |
//! | `actions` | `override`, `removeOverride` and `comment` |
//! | `read` | record reads and lists (whole records, or the values a projection picks) |

mod actions;
mod answer;
mod batch;
mod commit;
mod evaluate;
mod layout;
mod load;
mod many;
mod plan;
mod quality;
mod read;
mod request;

pub use actions::{RecordOutcome, RecordsAction};
pub use answer::{PointResult, RunOutcome, RunTimings, ValidationResult};
pub use batch::{BatchItemResult, ValidationBatch, ValidationBatchResult};
pub use request::{ValidationRequest, When};
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use request::RunRequest;
#[cfg(not(feature = "internals"))]
pub(crate) use request::RunRequest;

pub(crate) use read::record_statuses;

use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::validation::Validation;
use plan::Planned;
use serde_json::{json, Value};

/// Most points a `test` may check.
pub const MAX_TEST_POINTS: usize = 100;
/// Most data items `runMany` runs at once.
pub const MAX_RUN_MANY: usize = 25;
/// Most ids an override, removeOverride or comment call takes.
pub const MAX_IDS: usize = 500;

/// Most record ids and points a runMany item lists.
pub const MAX_LISTED: usize = 100;

impl Validation<'_> {
    /// A run or test; `in_job` when it is checked now whatever its size (a background job, or
    /// a run that waits): it never goes to the background.
    pub(crate) fn run_now(
        &self,
        p: &Principal,
        req: &RunRequest,
        test: bool,
        origin: &str,
        in_job: bool,
    ) -> Result<RunOutcome> {
        let started = std::time::Instant::now();
        let out = match self.plan_run(p, req, test, origin, in_job, true)? {
            Planned::Queued(q) => RunOutcome::Queued(q),
            Planned::Nothing { answer, .. } => RunOutcome::Done(answer),
            Planned::Checked(c) => RunOutcome::Done(self.commit_run(p, *c, true)?.into_result()),
        };
        record_run(if test { "test" } else { "run" }, started);
        Ok(out)
    }

    /// A run of a request body (an automation's, made of the event that fired it), kept on the
    /// records as made by `origin`.
    pub(crate) fn run_body(&self, p: &Principal, body: &Value, origin: &str) -> Result<RunOutcome> {
        let req = RunRequest::from_json(body)?;
        self.run_now(p, &req, false, origin, false)
    }

    /// Runs the checks of `req.target`'s configuration over the points asked for and stores a
    /// record per point, or, for more points than the configuration's `maxPoints` (or asked
    /// for `background` or with a delay), queues the run as a background job
    /// ([`RunOutcome::Queued`]: nothing checked yet). Role `writer`.
    ///
    /// (See [`Validation`] for an example.)
    pub fn run(&self, p: &Principal, req: &ValidationRequest) -> Result<RunOutcome> {
        self.run_now(p, &req.run_request()?, false, req.origin(), false)
    }

    /// [`Validation::run`] in the foreground whatever its size: the points are checked on this
    /// thread, however many, and the call answers when their records are stored (never a job;
    /// a run asked for the background or for later is refused). Role `writer`.
    ///
    /// ```
    /// use platform_core::api::{data::Point, validation::ValidationRequest};
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
        if req.background || req.delay_ms.is_some_and(|d| d > 0) {
            return Err(Error::invalid_parameter(
                "run_and_wait runs now: a run for the background or for later goes through run",
            ));
        }
        match self.run_now(p, &req.run_request()?, false, req.origin(), true)? {
            RunOutcome::Done(result) => Ok(result),
            RunOutcome::Queued(q) => Err(Error::Internal(format!(
                "a run in the foreground went to job {}",
                q.job
            ))),
        }
    }

    /// Tests the checks (the stored configuration, or `req.config`) over at most 100 points,
    /// storing nothing.
    ///
    /// ```
    /// use platform_core::api::{data::Point, validation::ValidationRequest};
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
        match self.run_now(p, &req.run_request()?, true, req.origin(), false)? {
            RunOutcome::Done(result) => Ok(result),
            RunOutcome::Queued(q) => Err(Error::Internal(format!("a test went to job {}", q.job))),
        }
    }
}

/// Counts a finished validation call of `kind` (`run`, `test`, `runMany`) and its duration.
pub(crate) fn record_run(kind: &'static str, started: std::time::Instant) {
    metrics::counter!("platform_validation_runs_total", "kind" => kind).increment(1);
    metrics::histogram!("platform_validation_run_seconds", "kind" => kind)
        .record(started.elapsed().as_secs_f64());
}

/// Runs a queued job's work (called by the job worker).
impl Validation<'_> {
    pub(crate) fn run_job_work(&self, p: &Principal, kind: &str, payload: &Value) -> Result<Value> {
        let mut request = payload["request"].clone();
        if let Value::Object(m) = &mut request {
            m.insert("background".into(), json!(false));
        }
        let stored = |e: serde_json::Error| Error::Internal(format!("a job's result: {e}"));
        match kind {
            // A background run checks everything asked for, however many points.
            "run" => {
                let req = RunRequest::from_json(&request)?;
                let outcome = self.run_now(p, &req, false, "background", true)?;
                serde_json::to_value(&outcome).map_err(stored)
            }
            _ => {
                let batch = ValidationBatch::from_body(&request)?;
                let started = std::time::Instant::now();
                let out =
                    self.run_many_now(p, &batch.shared()?, &batch.targets, "background", true)?;
                record_run("runMany", started);
                serde_json::to_value(&out).map_err(stored)
            }
        }
    }
}
