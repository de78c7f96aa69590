//! A checked run stored: its chunks written by the one writer (laid out again when they
//! changed since they were read), its events and quality statuses in the same transaction,
//! and the answer.

use super::answer::{PointResult, RunTimings, ValidationResult};
use super::layout::Checked;
use super::layout::{build, results_of, seen_rows, Built};
use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{Collection, Hold};
use crate::validation::config::Kind;
use crate::validation::counts::{StatusCounts, ValidationStatus};
use crate::validation::records::{status_name, Context};
use crate::validation::shared::ms;
use crate::validation::Validation;
use serde_json::{json, Value};
use std::time::Instant;

/// A stored (or tested) run.
pub(crate) struct Done {
    pub(super) target: String,
    /// The configuration's name.
    pub(super) name: Option<String>,
    pub(super) kind: Kind,
    pub(super) test: bool,
    /// Per point: the status.
    pub(super) statuses: Vec<u8>,
    /// Record id and point of the first points (of every point when the answer is detailed
    /// or the quality status is written).
    pub(super) listed: Vec<(String, String)>,
    /// Curves: the failed tenors of each point.
    pub(super) failed_tenors: Vec<String>,
    pub(super) counts: StatusCounts,
    pub(super) truncated: bool,
    pub(super) timings: RunTimings,
    /// The per-point answers (when asked for).
    pub(super) results: Option<Vec<PointResult>>,
}

impl Done {
    /// The answer of the run.
    pub(super) fn into_result(self) -> ValidationResult {
        let points = self.statuses.len() as u64;
        ValidationResult {
            target: self.target,
            kind: self.kind.typed(),
            test: self.test,
            points,
            records: if self.test { 0 } else { points },
            counts: self.counts,
            truncated: self.truncated,
            timings: self.timings,
            message: None,
            results: self.results.unwrap_or_default(),
        }
    }
}

impl Validation<'_> {
    /// Stores the records of a checked run (not for a test), writes the quality status when
    /// the configuration asks for it, and answers; `detail` builds the per-point answers.
    ///
    /// The records were laid into their chunks by the thread that checked them, on its read
    /// snapshot; here the chunks are read again and, when they are still the ones it saw, its
    /// rows are written as they are (else they are laid again, here). So the one writer only
    /// compares and writes, and checking runs in parallel.
    pub(crate) fn commit_run(&self, p: &Principal, mut c: Checked, detail: bool) -> Result<Done> {
        let save_started = Instant::now();
        let scope = p.private_scope();
        let results = std::mem::take(&mut c.results);
        let built = if c.test {
            let ctx = self.run_context(p, &c);
            build(None, &scope, &c, results, &ctx, detail)?
        } else {
            let pre = c.built.take();
            let mut results = results;
            // Laid out again here when the chunks changed since they were read (kept apart from
            // `pre`, which a later try may still find current).
            let mut again: Option<Built> = None;
            // The data item's object: the run raises events about its data (`invalid`,
            // `validated`, which the object's saves raise `update` about, in one order), and
            // may write the quality status to it.
            let object = crate::data::read::DataId::parse(&c.target)?.object;
            let object_scope = Scope::for_source(crate::ids::Source::of_id(&object), p);
            let current = self.platform.write(|tx| {
                tx.hold(&[
                    Hold::Records(&scope, &c.target),
                    Hold::Document(Collection::Object, &object_scope, &object),
                ])?;
                let seen = seen_rows(&*tx, &scope, &c)?;
                let current = matches!(&pre, Some(b) if b.seen == seen && b.detail == detail);
                if !current {
                    // Laid out on chunks that changed since (or without the answers): again,
                    // from the results (kept in the laid-out records).
                    if results.is_empty() {
                        if let Some(b) = &pre {
                            results = results_of(b)?;
                        }
                    }
                    let ctx = self.run_context(p, &c);
                    again = Some(build(Some(&*tx), &scope, &c, results.clone(), &ctx, detail)?);
                }
                let built = match (current, &pre, &again) {
                    (true, Some(b), _) | (false, _, Some(b)) => b,
                    _ => return Err(Error::Internal("a run laid out nowhere".into())),
                };
                for row in &built.rows {
                    tx.put_record_chunk(&scope, row)?;
                }
                if let Some(events) = &built.events {
                    events.clone().emit(&mut *tx, p)?;
                }
                // Records, events and quality statuses commit together.
                if c.config.options.write_status {
                    let written: Vec<Value> = built
                        .listed
                        .iter()
                        .zip(&built.statuses)
                        .map(|((_, point), status)| json!({"point": point, "status": status_name(*status)}))
                        .collect();
                    self.write_status(tx, p, &c.target, c.config.kind, &written)?;
                }
                Ok(current)
            })?;
            let built = if current { pre } else { again };
            built.ok_or_else(|| Error::Internal("a stored run laid out nowhere".into()))?
        };
        let counts: StatusCounts = built
            .statuses
            .iter()
            .map(|s| ValidationStatus::of_code(*s))
            .collect();
        let (scripts, read, checks) = c.timings;
        Ok(Done {
            target: c.target,
            name: c.config.name(),
            kind: c.config.kind,
            test: c.test,
            statuses: built.statuses,
            listed: built.listed,
            failed_tenors: built.failed_tenors,
            counts,
            truncated: c.truncated,
            timings: RunTimings {
                scripts,
                read,
                checks,
                save: ms(save_started),
            },
            results: built.answers,
        })
    }

    /// Who runs, how and when.
    pub(super) fn run_context(&self, p: &Principal, c: &Checked) -> Context {
        Context {
            user: p.user.clone(),
            origin: c.origin.clone(),
            now: self.platform.now(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::Planned;
    use super::*;
    use crate::documents::SaveOptions;
    use crate::observations::model::Point;
    use crate::store::Collection;
    use crate::Platform;
    use serde_json::Map;

    fn setup() -> (Platform, Principal) {
        let platform = Platform::in_memory().unwrap();
        let who = platform.tenancy().local_principal("t", "u").unwrap();
        let mut header = Map::new();
        header.insert("calendar".into(), json!("#PT1M"));
        let points: Vec<Point> = (0..10)
            .map(|i| Point::num(1_719_792_000_000 + i * 60_000, 1.0 + i as f64))
            .collect();
        platform
            .data()
            .save_series(&who, "S", "p", header, points, &SaveOptions::default())
            .unwrap();
        platform
            .objects().save(
                &who,
                Collection::ValidationConfig,
                json!({"_id": "S:p", "kind": "timeseries", "checks": [{"name": "pos", "expression": "value > 0"}]}),
                &SaveOptions::default(),
            )
            .unwrap();
        (platform, who)
    }

    fn plan(platform: &Platform, who: &Principal) -> Checked {
        match platform
            .validation()
            .plan_run(
                who,
                &super::super::RunRequest::from_json(
                    &json!({"target": "S:p", "from": "2024-07-01"}),
                )
                .unwrap(),
                false,
                "manual",
                false,
                false,
            )
            .unwrap()
        {
            Planned::Checked(c) => *c,
            Planned::Queued(q) => panic!("{q:?}"),
            Planned::Nothing { answer, .. } => panic!("{answer:?}"),
        }
    }

    /// Records laid out on a snapshot that another run changed since are laid out again by
    /// the writer: no run is lost.
    #[test]
    fn a_run_planned_on_a_stale_snapshot_is_laid_out_again() {
        let (platform, who) = setup();
        let first = plan(&platform, &who);
        let second = plan(&platform, &who);
        assert!(first.built.as_ref().unwrap().seen.is_empty());
        platform
            .validation()
            .commit_run(&who, first, false)
            .unwrap();
        let done = platform
            .validation()
            .commit_run(&who, second, false)
            .unwrap();
        assert_eq!(done.statuses.len(), 10);
        let rec = platform
            .validation()
            .record(&who, "S:p:2024-07-01T00:05:00Z")
            .unwrap();
        assert_eq!(rec.runs, 2, "{rec:?}");
        assert_eq!(rec.timeline.len(), 2);
        // A plan on the current state is written as it was laid out.
        let third = plan(&platform, &who);
        let rows = third.built.as_ref().unwrap().rows.clone();
        platform
            .validation()
            .commit_run(&who, third, false)
            .unwrap();
        let stored = platform
            .read()
            .unwrap()
            .record_chunks(&who.private_scope(), None, None, None)
            .unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].body, rows[0].body);
    }
}
