//! Background jobs: large runs kept in the database, picked up by a worker, resumable.
//!
//! A job is `{_id, kind: run | runMany, status: queued | running | done | failed, progress,
//! created, started, finished, message, result}` plus who queued it. A worker takes the oldest
//! queued job, marks it running, does the work as the user who queued it, and marks it done or
//! failed. Jobs left running by a stopped server are queued again when it starts.

use crate::auth::{Grants, Principal, Role};
use crate::clock::format_instant;
use crate::error::{Error, Result};
use crate::Platform;
use serde_json::{json, Map, Value};

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

impl Platform {
    /// Queues background work; answers `{background: true, message, job}`.
    pub(crate) fn queue_job(&self, p: &Principal, kind: &str, payload: Value) -> Result<Value> {
        let now = self.now();
        let delay = delay_of(&payload["request"])?;
        let id = format!(
            "job-{}-{}",
            now.format("%Y%m%dT%H%M%S%3f"),
            &crate::auth::generate_token()?[3..11]
        );
        let job = json!({
            "_id": id, "kind": kind, "status": "queued", "progress": 0,
            "created": format_instant(now), "started": null, "finished": null, "message": "queued",
            "user": p.user, "role": p.role.as_str(), "access": p.grants.access, "features": p.grants.features,
            "payload": payload,
            "notBefore": delay.map(|d| format_instant(now + d)),
        });
        let Value::Object(job) = job else {
            return Err(Error::Internal("job is not an object".into()));
        };
        self.write(|tx| tx.put_job(&p.private_scope(), &job))?;
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
        Ok(json!({"background": true,
            "message": format!("the {kind} runs in the background as job {id}: {how}"),
            "job": id}))
    }

    /// Records that the background worker `id` (a server's, started at `started`) is alive;
    /// a worker not seen for [`WORKER_TIMEOUT_SECS`] counts as stopped.
    pub fn worker_heartbeat(&self, id: &str, started: &str) -> Result<()> {
        let row = crate::store::WorkerRow {
            id: id.to_string(),
            host: hostname(),
            pid: std::process::id(),
            started: started.to_string(),
            seen: format_instant(self.now()),
        };
        self.write(|tx| tx.worker_seen(&row))
    }

    /// Takes over the jobs of a database no server works on (`platform validate work`): queues
    /// again the jobs a stopped server left running and returns how many. While a server's
    /// worker is alive it is a `CONFLICT`: that worker runs the jobs, and one it is running
    /// must not be started twice.
    pub fn take_over_jobs(&self) -> Result<u64> {
        if let Some(w) = self.live_workers()?.first() {
            return Err(Error::new(
                crate::error::ErrorCode::Conflict,
                format!(
                    "the worker of the server on {} (pid {}, seen {}) works on this database \
                     and runs its jobs; stop that server to run them here",
                    w.host, w.pid, w.seen
                ),
            ));
        }
        self.requeue_interrupted_jobs()
    }

    /// Records that the worker `id` stopped.
    pub fn worker_stopped(&self, id: &str) -> Result<()> {
        self.write(|tx| tx.worker_gone(id))
    }

    /// The background workers seen in the last [`WORKER_TIMEOUT_SECS`].
    pub fn live_workers(&self) -> Result<Vec<crate::store::WorkerRow>> {
        let since = self.now() - chrono::TimeDelta::seconds(WORKER_TIMEOUT_SECS);
        self.read()?.workers_seen_since(&format_instant(since))
    }

    /// The caller's background jobs, newest first (without their payloads).
    pub fn validation_jobs(&self, p: &Principal) -> Result<Vec<Value>> {
        let jobs = self.read()?.jobs(&p.private_scope())?;
        Ok(jobs.into_iter().map(public_job).collect())
    }

    /// Queues again the jobs a stopped server left running; returns how many.
    pub fn requeue_interrupted_jobs(&self) -> Result<u64> {
        let mut n = 0;
        let far = "9999-12-31T23:59:59.999Z";
        while let Some((scope, mut job)) = self.read()?.next_job("running", far)? {
            job.insert("status".into(), json!("queued"));
            job.insert("message".into(), json!("queued again after a restart"));
            self.write(|tx| tx.put_job(&scope, &job))?;
            n += 1;
        }
        Ok(n)
    }

    /// Runs the oldest queued job, if any; returns whether one ran.
    pub fn run_next_job(&self) -> Result<bool> {
        let now = format_instant(self.now());
        let Some((scope, mut job)) = self.read()?.next_job("queued", &now)? else {
            return Ok(false);
        };
        job.insert("status".into(), json!("running"));
        job.insert("started".into(), json!(format_instant(self.now())));
        job.insert("message".into(), json!("running"));
        self.write(|tx| tx.put_job(&scope, &job))?;
        let text = |k: &str| {
            job.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let list = |k: &str| -> Vec<String> {
            job.get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        let who = Principal {
            tenant: scope.tenant.clone(),
            user: text("user"),
            role: text("role").parse().unwrap_or(Role::Reader),
            environment: scope.env.clone(),
            grants: Grants {
                access: list("access"),
                features: list("features"),
                everything: false,
            },
        };
        let payload = job.get("payload").cloned().unwrap_or(Value::Null);
        let outcome = self.run_job_work(&who, &text("kind"), &payload);
        let now = format_instant(self.now());
        match outcome {
            Ok(result) => {
                job.insert("status".into(), json!("done"));
                job.insert("progress".into(), json!(100));
                job.insert("message".into(), json!(summary(&result)));
                job.insert("result".into(), result);
            }
            Err(e) => {
                job.insert("status".into(), json!("failed"));
                job.insert("message".into(), json!(e.public_message()));
            }
        }
        job.insert("finished".into(), json!(now));
        self.write(|tx| tx.put_job(&scope, &job))?;
        Ok(true)
    }
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

fn public_job(mut job: Map<String, Value>) -> Value {
    for k in ["payload", "access", "features", "role"] {
        job.shift_remove(k);
    }
    Value::Object(job)
}

/// Longest `_delay` accepted, in milliseconds.
pub const MAX_DELAY_MS: u64 = 60_000;

/// The `_delay` (milliseconds) of a request body, if any, checked against its bound.
pub fn delay_of(request: &Value) -> Result<Option<chrono::TimeDelta>> {
    match request.get("_delay") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        {
            Some(ms) if ms <= MAX_DELAY_MS => Ok(chrono::TimeDelta::try_milliseconds(ms as i64)),
            _ => Err(Error::invalid_parameter(format!(
                "_delay must be 0 to {MAX_DELAY_MS} milliseconds, not {v}"
            ))),
        },
    }
}
