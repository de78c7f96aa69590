//! `runMany`: several data items checked on worker threads (each reads its own snapshot) and
//! stored one item a transaction, in order, by the calling thread.

use super::batch::{BatchItemResult, ValidationBatch, ValidationBatchResult};
use super::plan::Planned;
use super::request::RunRequest;
use super::{MAX_LISTED, MAX_RUN_MANY};
use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::validation::config::Kind;
use crate::validation::counts::{StatusCounts, ValidationStatus};
use crate::validation::records::{self, SKIPPED};
use crate::validation::shared::ms;
use crate::validation::Validation;
use serde_json::json;
use std::time::Instant;

impl Validation<'_> {
    /// Runs the saved checks of several data items (role `writer`): up to 25 items at once;
    /// more, a range, `background` or a delay go to a background job.
    ///
    /// ```
    /// use platform_core::api::{Collection, data::Point, validation::ValidationBatch, validation::ValidationStatus};
    /// use chrono::{TimeZone, Utc};
    /// use serde_json::json;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, 50.0)], &Default::default())?;
    /// platform.objects().save(&me, Collection::ValidationConfig, json!({
    ///     "_id": "NBP:SPOT", "kind": "timeseries",
    ///     "checks": [{"name": "positive", "expression": "value > 0"}]
    /// }), &Default::default())?;
    /// let done = platform.validation().run_batch(&me, &ValidationBatch::new(["NBP:SPOT", "TTF:SPOT"]))?;
    /// assert_eq!((done.targets, done.counts.valid, done.counts.error), (2, 1, 1));
    /// assert_eq!(done.results[0].ids, ["NBP:SPOT:2024-01-01T00:00:00Z"]);
    /// assert_eq!(done.results[1].status, ValidationStatus::Error);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn run_batch(
        &self,
        p: &Principal,
        batch: &ValidationBatch,
    ) -> Result<ValidationBatchResult> {
        p.require(crate::auth::Role::Writer, "running validation")?;
        let shared = batch.shared()?;
        let ranged = batch.from.is_some() || batch.to.is_some();
        let delayed = batch.delay_ms.is_some_and(|d| d > 0);
        if batch.targets.len() > MAX_RUN_MANY || ranged || batch.background || delayed {
            let queued = self.platform.jobs().queue(
                p,
                "runMany",
                json!({"request": batch.body()?, "origin": "background"}),
            )?;
            return Ok(ValidationBatchResult::queued(queued));
        }
        let started = Instant::now();
        let out = self.run_many_now(p, &shared, &batch.targets, batch.origin(), false)?;
        super::record_run("runMany", started);
        Ok(out)
    }

    /// [`Validation::run_batch`] in the foreground: every item is checked on this thread's
    /// workers now, however many items, points or days (no job for the batch nor for an item:
    /// `background` false, no item with a `job`); a delay asked for is refused.
    pub fn run_batch_and_wait(
        &self,
        p: &Principal,
        batch: &ValidationBatch,
    ) -> Result<ValidationBatchResult> {
        if batch.background || batch.delay_ms.is_some_and(|d| d > 0) {
            return Err(Error::invalid_parameter(
                "run_batch_and_wait runs now: a batch for the background or for later goes \
                 through run_batch",
            ));
        }
        p.require(crate::auth::Role::Writer, "running validation")?;
        let shared = batch.shared()?;
        let started = Instant::now();
        let out = self.run_many_now(p, &shared, &batch.targets, batch.origin(), true)?;
        super::record_run("runMany", started);
        Ok(out)
    }

    /// Runs several data items: checked on worker threads (each reads its own snapshot),
    /// stored one item a transaction, in order, by this thread.
    pub(super) fn run_many_now(
        &self,
        p: &Principal,
        shared: &RunRequest,
        targets: &[String],
        origin: &str,
        in_job: bool,
    ) -> Result<ValidationBatchResult> {
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
        let mut counts = StatusCounts::default();
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
                    counts.add(item.status, 1);
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
        Ok(ValidationBatchResult {
            targets: targets.len() as u64,
            counts,
            results,
            ..ValidationBatchResult::default()
        })
    }

    /// One item of a batch: stored, or why nothing was checked, or why it could not run.
    fn run_many_item(
        &self,
        p: &Principal,
        target: &str,
        plan: Result<Planned>,
        started: Instant,
    ) -> BatchItemResult {
        let stored = plan.and_then(|plan| match plan {
            Planned::Queued(q) => Ok(Err(BatchItemResult {
                message: Some(q.message),
                job: Some(q.job),
                ..BatchItemResult::default()
            })),
            // The interface: an error when it could not run (disabled); an empty range ran
            // and found nothing to check.
            Planned::Nothing {
                answer,
                name,
                error,
            } => Ok(Err(BatchItemResult {
                kind: Some(answer.kind),
                name,
                message: answer.message,
                error: error.map(str::to_string),
                ..BatchItemResult::default()
            })),
            Planned::Checked(c) => self.commit_run(p, *c, false).map(Ok),
        });
        let item = match stored {
            Ok(Ok(done)) => {
                let worst = done
                    .statuses
                    .iter()
                    .copied()
                    .filter(|s| *s != records::OVERRIDDEN)
                    .fold(SKIPPED, records::worse);
                let status = if done.statuses.iter().all(|s| *s == records::OVERRIDDEN) {
                    ValidationStatus::Overridden
                } else {
                    ValidationStatus::of_code(worst)
                };
                let listed = done.listed.len().min(MAX_LISTED);
                let (ids, point_list) = done.listed[..listed].iter().cloned().unzip();
                BatchItemResult {
                    kind: Some(done.kind.typed()),
                    name: done.name,
                    points: done.statuses.len() as u64,
                    counts: done.counts,
                    status,
                    ids,
                    point_list,
                    list_truncated: listed < done.statuses.len(),
                    failed_tenors: (done.kind == Kind::Curve).then_some(done.failed_tenors),
                    ..BatchItemResult::default()
                }
            }
            // Nothing checked: an item past its maxPoints went to a job of its own, checked
            // later, not now.
            Ok(Err(nothing)) => nothing,
            Err(e) => BatchItemResult {
                status: ValidationStatus::Error,
                error: Some(if e.to_string().contains("no validation configuration") {
                    "no validation".to_string()
                } else {
                    e.public_message()
                }),
                ..BatchItemResult::default()
            },
        };
        BatchItemResult {
            target: target.to_string(),
            ms: ms(started),
            ..item
        }
    }
}
