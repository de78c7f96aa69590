//! Background jobs and their workers: [`Jobs`].

use crate::auth::Principal;
use crate::error::Result;
use crate::store::{JobStatus, Worker};
use crate::Platform;
use chrono::{DateTime, Utc};
use serde_json::Value;

/// Background jobs (validation runs too long to answer at once, or asked for in the
/// background) and the workers that run them: a server runs one worker; a program that
/// embeds the platform without a server runs queued jobs with [`Jobs::run_next`]. From
/// [`Platform::jobs`].
///
/// ```
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// assert!(platform.jobs().list(&me)?.is_empty());
/// assert!(!platform.jobs().run_next()?); // nothing queued
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Jobs<'p> {
    pub(super) platform: &'p Platform,
}

/// A background job as its owner sees it: where it is and what it produced, without the work
/// it carries or the grants it runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct JobInfo {
    /// Its id (`job-...`).
    pub id: String,
    /// `run` or `runMany`.
    pub kind: String,
    /// Where it is.
    pub status: JobStatus,
    /// Percent done.
    pub progress: u32,
    /// When it was queued.
    pub created: DateTime<Utc>,
    /// When a worker took it.
    pub started: Option<DateTime<Utc>>,
    /// When it finished.
    pub finished: Option<DateTime<Utc>>,
    /// What it is doing, or how it ended.
    pub message: String,
    /// Who queued it.
    pub user: String,
    /// No worker takes it before this instant.
    pub not_before: Option<DateTime<Utc>>,
    /// What it produced, once done: the answer of the call it ran (JSON, as that call answers).
    pub result: Option<Value>,
}

impl From<crate::store::Job> for JobInfo {
    fn from(job: crate::store::Job) -> JobInfo {
        JobInfo {
            id: job.id,
            kind: job.kind,
            status: job.status,
            progress: job.progress,
            created: job.created,
            started: job.started,
            finished: job.finished,
            message: job.message,
            user: job.user,
            not_before: job.not_before,
            result: job.result,
        }
    }
}

impl Jobs<'_> {
    /// Typed: the caller's background jobs, newest first.
    pub fn jobs(&self, p: &Principal) -> Result<Vec<JobInfo>> {
        let rows = self.platform.validation_job_rows(p)?;
        Ok(rows.into_iter().map(JobInfo::from).collect())
    }

    /// JSON: the caller's background jobs, newest first (without their payloads).
    pub fn list(&self, p: &Principal) -> Result<Vec<Value>> {
        self.platform.validation_jobs(p)
    }

    /// Runs the oldest queued job that is due, if any; returns whether one ran.
    pub fn run_next(&self) -> Result<bool> {
        self.platform.run_next_job()
    }

    /// Queues again the jobs a stopped server left running; returns how many.
    pub fn requeue_interrupted(&self) -> Result<u64> {
        self.platform.requeue_interrupted_jobs()
    }

    /// Takes over the jobs of a database no server works on: queues again the jobs a stopped
    /// server left running and returns how many. While a server's worker is alive it is a
    /// `CONFLICT`: that worker runs the jobs, and one it is running must not be started twice.
    pub fn take_over(&self) -> Result<u64> {
        self.platform.take_over_jobs()
    }

    /// Records that the background worker `id` (a server's, started at `started`) is alive;
    /// a worker not seen for [`crate::api::interface::limits::WORKER_TIMEOUT_SECS`] counts as
    /// stopped.
    pub fn worker_heartbeat(&self, id: &str, started: DateTime<Utc>) -> Result<()> {
        self.platform.worker_heartbeat(id, started)
    }

    /// Records that the worker `id` stopped.
    pub fn worker_stopped(&self, id: &str) -> Result<()> {
        self.platform.worker_stopped(id)
    }

    /// The background workers seen in the last
    /// [`crate::api::interface::limits::WORKER_TIMEOUT_SECS`] seconds.
    pub fn live_workers(&self) -> Result<Vec<Worker>> {
        self.platform.live_workers()
    }
}
