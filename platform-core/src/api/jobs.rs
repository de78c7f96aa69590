//! Background jobs and their workers: [`Jobs`].

use crate::auth::Principal;
use crate::error::Result;
use crate::store::Worker;
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

impl Jobs<'_> {
    /// The caller's background jobs, newest first (without their payloads).
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
