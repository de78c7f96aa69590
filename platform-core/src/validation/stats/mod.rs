//! Dashboard statistics over validation records (`GET validation/v1?_function=stats`).
//!
//! Optional filters ([`StatsQuery`]): `from`, `to` (point dates, inclusive), `target`, `kind`,
//! `group`. The answer ([`ValidationStats`]): `totals`, `targets`, `byStatus`, `byKind`,
//! `byDay`, `byTarget`, `byCheck`, `open` (the oldest open issues), `resolved`, `activity` (the
//! newest timeline events), `configs`.

mod answer;

pub use answer::{
    ActivityEntry, CheckStats, ConfigStats, DayCounts, OpenIssue, ResolvedStats, StatsQuery,
    StatsTotals, TargetStats, ValidationStats,
};

use super::counts::{StatusCounts, ValidationKind, ValidationStatus};
use super::records::{worst, Resolution, ValidationRecord};
use crate::auth::Principal;
use crate::error::Result;
use crate::query::{ListQuery, Paging};
use crate::store::{Collection, StoredVersion};
use crate::validation::Validation;
use chrono::NaiveDate;
use serde_json::Value;
use std::collections::BTreeMap;

/// How many open issues and activity entries the dashboard lists.
pub const DASHBOARD_ROWS: usize = 20;

impl Validation<'_> {
    /// The dashboard statistics of the caller's records (those the query keeps) and of the
    /// caller's configurations.
    ///
    /// ```
    /// use platform_core::api::validation::StatsQuery;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let curves = StatsQuery { kind: Some("curve".into()), ..Default::default() };
    /// let stats = platform.validation().stats(&me, &curves)?;
    /// assert_eq!((stats.totals.records, stats.configs.count), (0, 0));
    /// assert!(stats.resolved.mean_minutes.is_none());
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn stats(&self, p: &Principal, query: &StatsQuery) -> Result<ValidationStats> {
        let scope = p.private_scope();
        let everything = ListQuery {
            paging: Paging {
                skip: 0,
                limit: None,
            },
            ..ListQuery::default()
        };
        let targets = query.target.as_ref().map(|t| vec![t.clone()]);
        let chunks = self.chunks_of(p, targets.as_deref())?;
        let tx = self.platform.read()?;
        let configs = tx
            .list(
                Collection::ValidationConfig,
                std::slice::from_ref(&scope),
                &everything,
            )?
            .items;
        drop(tx);
        let mut tally = Tally::default();
        for (_, chunk) in &chunks {
            for r in &chunk.records {
                let record = chunk.record(r)?;
                if query.keeps(&record) {
                    tally.add(record);
                }
            }
        }
        Ok(tally.into_stats(&configs))
    }
}

/// The dashboard's counts, record by record.
#[derive(Default)]
struct Tally {
    records: u64,
    failing: u64,
    by_status: StatusCounts,
    by_kind: BTreeMap<ValidationKind, StatusCounts>,
    by_day: BTreeMap<NaiveDate, StatusCounts>,
    /// Per target: its name, records, failing records and worst status.
    by_target: BTreeMap<String, (String, u64, u64, ValidationStatus)>,
    /// Per check: its name, runs and failures.
    by_check: BTreeMap<String, (String, u64, u64)>,
    open: Vec<OpenIssue>,
    resolved: u64,
    minutes: i64,
    by_resolution: Vec<(Resolution, u64)>,
    activity: Vec<ActivityEntry>,
}

impl Tally {
    /// Counts one record.
    fn add(&mut self, r: ValidationRecord) {
        let status = r.status;
        self.records += 1;
        self.by_status.add(status, 1);
        self.by_kind.entry(r.kind).or_default().add(status, 1);
        self.by_day.entry(r.point_date).or_default().add(status, 1);
        let t = self.by_target.entry(r.target.clone()).or_insert_with(|| {
            let name = r.name.clone().unwrap_or_default();
            (name, 0, 0, ValidationStatus::Valid)
        });
        t.1 += 1;
        if status.is_failing() {
            t.2 += 1;
        }
        if worst([t.3.name(), status.name()]) == status.name() {
            t.3 = status;
        }
        for c in &r.checks {
            let e = self
                .by_check
                .entry(c.id.clone())
                .or_insert_with(|| (c.name.clone(), 0, 0));
            e.1 += 1;
            if !matches!(
                c.status,
                ValidationStatus::Valid | ValidationStatus::Skipped
            ) {
                e.2 += 1;
            }
        }
        if status.is_failing() {
            self.failing += 1;
            self.open.push(OpenIssue {
                id: r.id.clone(),
                target: r.target.clone(),
                point: r.point.clone(),
                status,
                open_since: r.open_since,
            });
        }
        if let Some(res) = &r.resolved {
            self.resolved += 1;
            self.minutes += res.minutes.unwrap_or(0);
            match self.by_resolution.iter_mut().find(|(by, _)| *by == res.by) {
                Some((_, n)) => *n += 1,
                None => self.by_resolution.push((res.by, 1)),
            }
        }
        let id = r.id;
        self.activity
            .extend(r.timeline.into_iter().map(|event| ActivityEntry {
                event,
                id: id.clone(),
            }));
    }

    /// The dashboard of the counted records and the configurations.
    fn into_stats(self, configs: &[StoredVersion]) -> ValidationStats {
        let Tally {
            records,
            failing,
            by_status,
            by_kind,
            by_day,
            by_target,
            by_check,
            mut open,
            resolved,
            minutes,
            by_resolution,
            mut activity,
        } = self;
        // Stable sorts: among equal times, the order the records were met in.
        open.sort_by_key(|o| o.open_since);
        open.truncate(DASHBOARD_ROWS);
        activity.sort_by_key(|a| std::cmp::Reverse(a.event.timestamp));
        activity.truncate(DASHBOARD_ROWS);
        let enabled = configs
            .iter()
            .filter(|c| c.body.get("enabled").and_then(Value::as_bool) != Some(false))
            .count() as u64;
        let run_on_update = configs
            .iter()
            .filter(|c| c.body.get("runOnUpdate").and_then(Value::as_bool) == Some(true))
            .count() as u64;
        let targets = by_target.len() as u64;
        ValidationStats {
            totals: StatsTotals {
                records,
                targets,
                open: failing,
                resolved,
            },
            targets,
            by_status,
            by_kind,
            by_day: by_day
                .into_iter()
                .map(|(day, counts)| DayCounts { day, counts })
                .collect(),
            by_target: by_target
                .into_iter()
                .map(|(target, (name, records, failing, status))| TargetStats {
                    target,
                    name,
                    records,
                    failing,
                    status,
                })
                .collect(),
            by_check: by_check
                .into_iter()
                .map(|(id, (name, runs, failures))| CheckStats {
                    id,
                    name,
                    runs,
                    failures,
                })
                .collect(),
            open,
            resolved: ResolvedStats {
                count: resolved,
                mean_minutes: (resolved > 0).then(|| minutes as f64 / resolved as f64),
                by_resolution,
            },
            activity,
            configs: ConfigStats {
                count: configs.len() as u64,
                enabled,
                run_on_update,
            },
        }
    }
}
