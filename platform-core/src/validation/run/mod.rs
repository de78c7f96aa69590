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
//! | `load` | the configuration compiled and the points read |
//! | `plan` | a run planned: refused, sent to the background, or checked |
//! | `evaluate` | the checks run over the points, one result per point |
//! | `layout` | the results laid into the record chunks they go to |
//! | `commit` | a checked run stored, with its events and quality statuses |
//! | `quality` | the quality status written into the data |
//! | `many` | `runMany`: data items checked on worker threads, stored in order |
//! | `actions` | `override`, `removeOverride` and `comment` |
//! | `read` | record reads and lists |

mod actions;
mod commit;
mod evaluate;
mod layout;
mod load;
mod many;
mod plan;
mod quality;
mod read;
mod request;

// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use request::RunRequest;

pub(crate) use read::record_statuses;

use super::shared::strings;
use crate::auth::Principal;
use crate::error::Result;
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
    /// `run` (stores records) or `test` (stores nothing) of one data item.
    pub(crate) fn validation_run(
        &self,
        p: &Principal,
        body: &Value,
        test: bool,
        origin: &str,
    ) -> Result<Value> {
        self.run_now(p, body, test, origin, false)
    }

    /// A run checked on this thread whatever its size (never queued as a job).
    pub(crate) fn validation_run_in_foreground(
        &self,
        p: &Principal,
        body: &Value,
        origin: &str,
    ) -> Result<Value> {
        self.run_now(p, body, false, origin, true)
    }

    /// A run or test; `in_job` when a background job does it (it never goes to the background
    /// again).
    fn run_now(
        &self,
        p: &Principal,
        body: &Value,
        test: bool,
        origin: &str,
        in_job: bool,
    ) -> Result<Value> {
        let started = std::time::Instant::now();
        let out = match self.plan_run(p, body, test, origin, in_job, true)? {
            Planned::Answer(v) | Planned::Nothing { answer: v, .. } => v,
            Planned::Checked(c) => self.commit_run(p, *c, true)?.into_json(),
        };
        record_run(if test { "test" } else { "run" }, started);
        Ok(out)
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
        match kind {
            // A background run checks everything asked for, however many points.
            "run" => self.run_now(p, &request, false, "background", true),
            _ => {
                let targets = strings(request.get("targets"), "targets")?.unwrap_or_default();
                let started = std::time::Instant::now();
                let out = self.run_many_now(p, &request, &targets, "background", true)?;
                record_run("runMany", started);
                Ok(out)
            }
        }
    }
}
