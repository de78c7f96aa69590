//! `runMany`: several data items checked on worker threads (each reads its own snapshot) and
//! stored one item a transaction, in order, by the calling thread.

use super::plan::Planned;
use super::request::RunRequest;
use super::{MAX_LISTED, MAX_RUN_MANY};
use crate::auth::Principal;
use crate::error::{Error, ErrorCode, Result};
use crate::validation::config::Kind;
use crate::validation::records::{self, status_name, SKIPPED};
use crate::validation::shared::{bump, ms, strings};
use crate::validation::Validation;
use serde_json::{json, Map, Value};
use std::time::Instant;

impl Validation<'_> {
    /// `runMany`: up to 25 data items at once; more, a range, `background` or `_delay` go to a
    /// job.
    pub fn run_many(&self, p: &Principal, body: &Value, origin: &str) -> Result<Value> {
        p.require(crate::auth::Role::Writer, "running validation")?;
        let targets = strings(body.get("targets"), "targets")?
            .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "targets is missing"))?;
        // The fields every item shares are the request's: one malformed is a 400 for the whole
        // request, not an error per item nor a job that fails later.
        RunRequest::from_json(body)?;
        let ranged = body.get("from").is_some() || body.get("to").is_some();
        let background = body
            .get("background")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let delayed = crate::clock::delay_of(body)?.is_some_and(|d| !d.is_zero());
        if targets.len() > MAX_RUN_MANY || ranged || background || delayed {
            let queued = self.platform.jobs().queue(
                p,
                "runMany",
                json!({"request": body, "origin": "background"}),
            )?;
            return serde_json::to_value(queued)
                .map_err(|e| Error::Internal(format!("a queued batch: {e}")));
        }
        let started = Instant::now();
        let out = self.run_many_now(p, body, &targets, origin, false)?;
        super::record_run("runMany", started);
        Ok(out)
    }

    /// [`Validation::run_many`] in the foreground: every item checked now, whatever the
    /// number of items, their range or their points (never a job).
    pub(crate) fn run_many_in_foreground(
        &self,
        p: &Principal,
        body: &Value,
        origin: &str,
    ) -> Result<Value> {
        p.require(crate::auth::Role::Writer, "running validation")?;
        let targets = strings(body.get("targets"), "targets")?
            .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "targets is missing"))?;
        RunRequest::from_json(body)?;
        let started = Instant::now();
        let out = self.run_many_now(p, body, &targets, origin, true)?;
        super::record_run("runMany", started);
        Ok(out)
    }

    /// Runs several data items: checked on worker threads (each reads its own snapshot),
    /// stored one item a transaction, in order, by this thread.
    pub(super) fn run_many_now(
        &self,
        p: &Principal,
        body: &Value,
        targets: &[String],
        origin: &str,
        in_job: bool,
    ) -> Result<Value> {
        let shared = RunRequest::from_json(body)?;
        let request_of = |target: &String| RunRequest {
            target: Some(target.clone()),
            ..shared.clone()
        };
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4)
            .min(targets.len().max(1));
        let mut planned: Vec<Option<(Result<Planned>, Instant)>> = Vec::new();
        planned.resize_with(targets.len(), || None);
        let mut results = Vec::with_capacity(targets.len());
        let mut counts: Map<String, Value> = Map::new();
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| -> Result<()> {
            let (send, receive) =
                std::sync::mpsc::sync_channel::<(usize, Result<Planned>, Instant)>(workers * 2);
            for _ in 0..workers {
                let send = send.clone();
                let next = &next;
                let request_of = &request_of;
                s.spawn(move || loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= targets.len() {
                        break;
                    }
                    let started = Instant::now();
                    let plan =
                        self.plan_run(p, &request_of(&targets[i]), false, origin, in_job, false);
                    if send.send((i, plan, started)).is_err() {
                        break;
                    }
                });
            }
            drop(send);
            let mut done = 0;
            while done < targets.len() {
                // Store in target order, whatever order the workers finish in.
                while let Some((plan, started)) = planned.get_mut(done).and_then(Option::take) {
                    let item = self.run_many_item(p, &targets[done], plan, started);
                    let st = item["status"].as_str().unwrap_or("error").to_string();
                    bump(&mut counts, &st);
                    results.push(item);
                    done += 1;
                }
                if done >= targets.len() {
                    break;
                }
                match receive.recv() {
                    Ok((i, plan, started)) => planned[i] = Some((plan, started)),
                    Err(_) => break,
                }
            }
            Ok(())
        })?;
        Ok(json!({"targets": targets.len(), "counts": counts, "results": results}))
    }

    /// One item of a runMany answer.
    fn run_many_item(
        &self,
        p: &Principal,
        target: &str,
        plan: Result<Planned>,
        started: Instant,
    ) -> Value {
        let stored = plan.and_then(|plan| match plan {
            Planned::Queued(q) => Ok(Err((
                json!({"kind": null, "message": q.message, "job": q.job}),
                None,
                None,
            ))),
            Planned::Nothing {
                answer,
                name,
                error,
            } => Ok(Err((
                json!({"kind": answer.kind, "message": answer.message}),
                name,
                error,
            ))),
            Planned::Checked(c) => self.commit_run(p, *c, false).map(Ok),
        });
        match stored {
            Ok(Ok(done)) => {
                let worst = done
                    .statuses
                    .iter()
                    .copied()
                    .filter(|s| *s != records::OVERRIDDEN)
                    .fold(SKIPPED, records::worse);
                let status = if done.statuses.iter().all(|s| *s == records::OVERRIDDEN) {
                    "overridden"
                } else {
                    status_name(worst)
                };
                let listed = done.listed.len().min(MAX_LISTED);
                let mut item = json!({
                    "target": target,
                    "kind": done.kind.as_str(),
                    "name": done.name,
                    "points": done.statuses.len(),
                    "counts": json!(done.counts),
                    "status": status,
                    "message": Value::Null,
                    "ids": done.listed[..listed].iter().map(|(id, _)| json!(id)).collect::<Vec<_>>(),
                    "pointList": done.listed[..listed].iter().map(|(_, pt)| json!(pt)).collect::<Vec<_>>(),
                    "ms": ms(started),
                });
                if listed < done.statuses.len() {
                    item["listTruncated"] = json!(true);
                }
                if done.kind == Kind::Curve {
                    item["failedTenors"] = json!(done.failed_tenors);
                }
                item
            }
            Ok(Err((answer, name, error))) => {
                let mut item = json!({
                    "target": target, "kind": answer["kind"], "name": name, "points": 0,
                    "counts": {}, "status": "skipped", "message": answer["message"], "ids": [],
                    "pointList": [], "ms": ms(started),
                });
                // The interface: an error when it could not run (disabled); an empty range ran
                // and found nothing to check.
                if let Some(error) = error {
                    item["error"] = json!(error);
                }
                // An item past its maxPoints went to a job of its own: checked later, not now.
                if let Some(job) = answer.get("job") {
                    item["job"] = job.clone();
                }
                item
            }
            Err(e) => {
                let why = if e.to_string().contains("no validation configuration") {
                    "no validation".to_string()
                } else {
                    e.public_message()
                };
                json!({"target": target, "status": "error", "error": why, "ms": ms(started)})
            }
        }
    }
}
