//! Background jobs: large runs kept in the database, picked up by a worker, resumable.
//!
//! A job ([`Job`]) is `{_id, kind: run | runMany, status: queued | running | done | failed,
//! progress, created, started, finished, message, result}` plus who queued it. A worker claims
//! the oldest queued job that is due (the claim makes it running, so no other worker takes
//! it), does the work as the user who queued it, and marks it done or failed. Jobs left running
//! by a stopped server are queued again when it starts.

use crate::auth::{Grants, Principal};
use crate::clock::{delay_of, format_instant};
use crate::error::{Error, Result};
use crate::store::{DeliveryStatus, Job, JobStatus, Worker};
use crate::Platform;
use chrono::{DateTime, Utc};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// A run sent to the background: its job, which [`Jobs::run_next`] or a server's
/// worker runs, and the message that says who runs it. Its serde form is the answer of a run
/// (or a batch) sent there: `{"background": true, "message": ..., "job": ...}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedRun {
    /// The job's id ([`Jobs::jobs`] lists it, with its result once done).
    pub job: String,
    /// Where the run went and who runs it.
    pub message: String,
}

impl Serialize for QueuedRun {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("background", &true)?;
        map.serialize_entry("message", &self.message)?;
        map.serialize_entry("job", &self.job)?;
        map.end()
    }
}

/// How long a worker may go unseen before it counts as stopped (it reports every few seconds).
pub const WORKER_TIMEOUT_SECS: i64 = 20;

/// This machine's name, as far as the environment tells it.
fn hostname() -> String {
    std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// Background jobs (validation runs too long to answer at once, or asked for in the
/// background) and the workers that run them: a server runs one worker; a program that
/// embeds the platform without a server runs queued jobs with [`Jobs::run_next`]. From
/// [`Platform::jobs`].
///
/// ```
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// assert!(platform.jobs().jobs(&me)?.is_empty());
/// assert!(!platform.jobs().run_next()?); // nothing queued
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Jobs<'p> {
    platform: &'p Platform,
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

/// Its serde form is the job as the interface lists it (`GET validation/v1?_function=jobs`):
/// `_id`, `kind`, `status`, `progress`, `created`, `started`, `finished`, `message`, `user`,
/// `notBefore`, and `result` once there is one.
///
/// ```
/// use platform_core::api::data::Point;
/// use platform_core::api::validation::{Check, RunOutcome, ValidationConfig, ValidationRequest};
/// use chrono::{Duration, TimeZone, Utc};
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
/// let points: Vec<Point> = (0..3).map(|h| Point::new(at + Duration::hours(h), 1.0)).collect();
/// platform.data().write_series(&me, "NBP:SPOT", &points, &Default::default())?;
/// let config = ValidationConfig::timeseries("NBP:SPOT").check(Check::new("positive", "value > 0")).max_points(2);
/// platform.validation().save_config(&me, &config)?;
/// let req = ValidationRequest::new("NBP:SPOT").between(at, at + Duration::hours(2));
/// let RunOutcome::Queued(_) = platform.validation().run(&me, &req)? else { panic!("queued") };
/// let jobs = platform.jobs().jobs(&me)?;
/// let listed = serde_json::to_value(&jobs[0]).unwrap();
/// assert_eq!((listed["kind"].as_str(), listed["status"].as_str()), (Some("run"), Some("queued")));
/// assert!(listed.get("payload").is_none() && listed.get("result").is_none());
/// # Ok::<(), platform_core::Error>(())
/// ```
impl Serialize for JobInfo {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("_id", &self.id)?;
        m.serialize_entry("kind", &self.kind)?;
        m.serialize_entry("status", self.status.as_str())?;
        m.serialize_entry("progress", &self.progress)?;
        m.serialize_entry("created", &format_instant(self.created))?;
        m.serialize_entry("started", &self.started.map(format_instant))?;
        m.serialize_entry("finished", &self.finished.map(format_instant))?;
        m.serialize_entry("message", &self.message)?;
        m.serialize_entry("user", &self.user)?;
        m.serialize_entry("notBefore", &self.not_before.map(format_instant))?;
        if let Some(result) = &self.result {
            m.serialize_entry("result", result)?;
        }
        m.end()
    }
}

impl JobInfo {
    /// The job as its owner sees it.
    fn of(job: Job) -> JobInfo {
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

impl<'p> Jobs<'p> {
    /// The job service of `platform`.
    pub(crate) fn of(platform: &'p Platform) -> Self {
        Jobs { platform }
    }
}

impl Jobs<'_> {
    /// Queues background work: the job, and the message that says who runs it.
    pub(crate) fn queue(&self, p: &Principal, kind: &str, payload: Value) -> Result<QueuedRun> {
        let now = self.platform.now();
        let delay = delay_of(&payload["request"])?;
        let id = format!(
            "job-{}-{}",
            now.format("%Y%m%dT%H%M%S%3f"),
            &crate::auth::generate_token()?[3..11]
        );
        let job = Job {
            id: id.clone(),
            kind: kind.to_string(),
            status: JobStatus::Queued,
            progress: 0,
            created: now,
            started: None,
            finished: None,
            message: "queued".into(),
            user: p.user.clone(),
            role: p.role,
            access: p.grants.access.clone(),
            features: p.grants.features.clone(),
            payload,
            not_before: delay.map(|d| now + d),
            result: None,
        };
        self.platform
            .write(|tx| tx.put_job(&p.private_scope(), &job))?;
        let how = match self.live_workers()?.as_slice() {
            [] => "no server's worker is running on this database: `platform validate work` \
                   on the database file runs it"
                .to_string(),
            [w] => format!(
                "the worker of the server on {} (pid {}) runs it",
                w.host, w.pid
            ),
            more => format!("one of the {} servers' workers runs it", more.len()),
        };
        Ok(QueuedRun {
            message: format!("the {kind} runs in the background as job {id}: {how}"),
            job: id,
        })
    }

    /// Records that the background worker `id` (a server's, started at `started`) is alive;
    /// a worker not seen for [`crate::api::limits::WORKER_TIMEOUT_SECS`] counts as
    /// stopped.
    pub fn worker_heartbeat(&self, id: &str, started: DateTime<Utc>) -> Result<()> {
        let row = Worker {
            id: id.to_string(),
            host: hostname(),
            pid: std::process::id(),
            started,
            seen: self.platform.now(),
        };
        self.platform.write(|tx| tx.worker_seen(&row))
    }

    /// Takes over the jobs of a database no server works on (`platform validate work`): queues
    /// again the jobs a stopped server left running and returns how many. While a server's
    /// worker is alive it is a `CONFLICT`: that worker runs the jobs, and one it is running
    /// must not be started twice.
    pub fn take_over(&self) -> Result<u64> {
        if let Some(w) = self.live_workers()?.first() {
            return Err(Error::new(
                crate::error::ErrorCode::Conflict,
                format!(
                    "the worker of the server on {} (pid {}, seen {}) works on this database \
                     and runs its jobs; stop that server to run them here",
                    w.host,
                    w.pid,
                    format_instant(w.seen)
                ),
            ));
        }
        self.requeue_interrupted()
    }

    /// Records that the worker `id` stopped.
    pub fn worker_stopped(&self, id: &str) -> Result<()> {
        self.platform.write(|tx| tx.worker_gone(id))
    }

    /// The background workers seen in the last
    /// [`crate::api::limits::WORKER_TIMEOUT_SECS`] seconds.
    pub fn live_workers(&self) -> Result<Vec<Worker>> {
        let since = self.platform.now() - chrono::TimeDelta::seconds(WORKER_TIMEOUT_SECS);
        self.platform.read()?.workers_seen_since(since)
    }

    /// The caller's background jobs, newest first, without the work they carry or the grants
    /// they run with.
    pub fn jobs(&self, p: &Principal) -> Result<Vec<JobInfo>> {
        let rows = self.platform.read()?.jobs(&p.private_scope())?;
        Ok(rows.into_iter().map(JobInfo::of).collect())
    }

    /// Queues again the jobs a stopped server left running; returns how many. On a database
    /// several servers share, a running job may be another live server's: it comes back
    /// through the lease of its claim instead, and nothing is requeued here.
    pub fn requeue_interrupted(&self) -> Result<u64> {
        if self.platform.store.shared() {
            return Ok(0);
        }
        self.platform.write(|tx| {
            let running = tx.jobs_with_status(JobStatus::Running)?;
            for (scope, mut job) in running.iter().cloned() {
                job.status = JobStatus::Queued;
                job.message = "queued again after a restart".into();
                tx.put_job(&scope, &job)?;
            }
            Ok(running.len() as u64)
        })
    }

    /// Runs the oldest queued job that is due, if any; returns whether one ran.
    pub fn run_next(&self) -> Result<bool> {
        let now = self.platform.now();
        let claimed = self.platform.write(|tx| {
            let Some((scope, mut job)) = tx.claim_job(now)? else {
                return Ok(None);
            };
            job.message = "running".into();
            tx.put_job(&scope, &job)?;
            Ok(Some((scope, job)))
        })?;
        let Some((scope, mut job)) = claimed else {
            return Ok(false);
        };
        // Until the job's end is recorded (or given up), the claim's lease is renewed.
        let _claim = crate::events::deliver::ClaimGuard::new(
            self.platform,
            crate::store::Claim::Job(job.id.clone()),
        );
        let who = Principal {
            tenant: scope.tenant.clone(),
            user: job.user.clone(),
            role: job.role,
            environment: scope.env.clone(),
            grants: Grants {
                access: job.access.clone(),
                features: job.features.clone(),
                everything: false,
            },
        };
        let outcome = self
            .platform
            .validation()
            .run_job_work(&who, &job.kind, &job.payload);
        match outcome {
            Ok(result) => {
                job.status = JobStatus::Done;
                job.progress = 100;
                job.message = summary(&result);
                job.result = Some(result);
            }
            Err(e) => {
                job.status = JobStatus::Failed;
                job.message = e.public_message();
            }
        }
        job.finished = Some(self.platform.now());
        self.platform
            .write_finish(|| self.platform.write(|tx| tx.put_job(&scope, &job)))?;
        metrics::counter!("platform_jobs_total", "outcome" => job.status.as_str()).increment(1);
        Ok(true)
    }
}

impl Platform {
    /// What waits in the database for the workers, over every tenant: queued and running jobs,
    /// pending and running deliveries (the gauges of `/metrics`).
    pub fn backlog(&self) -> Result<Backlog> {
        let tx = self.read()?;
        Ok(Backlog {
            jobs_queued: tx.jobs_with_status(JobStatus::Queued)?.len(),
            jobs_running: tx.jobs_with_status(JobStatus::Running)?.len(),
            deliveries_pending: tx.deliveries(DeliveryStatus::Pending)?.len(),
            deliveries_running: tx.deliveries(DeliveryStatus::Running)?.len(),
        })
    }
}

/// Work waiting for the workers ([`Platform::backlog`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Backlog {
    /// Jobs waiting for a worker.
    pub jobs_queued: usize,
    /// Jobs a worker runs.
    pub jobs_running: usize,
    /// Deliveries waiting for their time or for earlier ones of their item.
    pub deliveries_pending: usize,
    /// Deliveries a worker attempts.
    pub deliveries_running: usize,
}

fn summary(result: &Value) -> String {
    if let Some(n) = result.get("points").and_then(Value::as_u64) {
        return format!("checked {n} points");
    }
    if let Some(n) = result.get("targets").and_then(Value::as_u64) {
        return format!("ran {n} data items");
    }
    "done".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Role;
    use chrono::TimeZone;
    use serde_json::json;

    /// The job as the interface listed it before `JobInfo` wrote it: its stored JSON form
    /// without the work and the rights it runs with.
    fn stored_form_listed(job: &Job) -> String {
        let mut doc = job.to_json();
        for k in ["payload", "access", "features", "role"] {
            doc.shift_remove(k);
        }
        serde_json::to_string(&doc).unwrap()
    }

    #[test]
    fn a_job_is_listed_in_its_stored_form_without_its_work_or_rights() {
        let at = |h| Utc.with_ymd_and_hms(2024, 5, 14, h, 0, 0).unwrap();
        let queued = Job {
            id: "job-1".into(),
            kind: "run".into(),
            status: JobStatus::Queued,
            progress: 0,
            created: at(8),
            started: None,
            finished: None,
            message: "queued".into(),
            user: "ann".into(),
            role: Role::Writer,
            access: vec!["DE".into()],
            features: vec!["beta".into()],
            payload: json!({"request": {"target": "NBP:SPOT"}}),
            not_before: Some(at(9)),
            result: None,
        };
        let done = Job {
            status: JobStatus::Done,
            progress: 100,
            started: Some(at(9)),
            finished: Some(at(10)),
            message: "checked 3 points".into(),
            not_before: None,
            result: Some(json!({"points": 3, "passed": true})),
            ..queued.clone()
        };
        for job in [queued, done] {
            let listed = serde_json::to_string(&JobInfo::of(job.clone())).unwrap();
            assert_eq!(listed, stored_form_listed(&job));
            assert!(
                !listed.contains("payload") && !listed.contains("beta"),
                "{listed}"
            );
        }
    }
}
