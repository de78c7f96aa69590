//! Dashboard statistics over validation records (`GET validation/v1?_function=stats`).
//!
//! Optional filters: `from`, `to` (point dates, inclusive), `target`, `kind`, `group`. Keys:
//! `totals`, `targets`, `byStatus`, `byKind`, `byDay`, `byTarget`, `byCheck`, `open` (the oldest
//! open issues), `resolved`, `activity` (the newest timeline events), `configs`.

use super::records::is_failing;
use super::shared::bump;
use crate::auth::Principal;
use crate::error::Result;
use crate::query::{ListQuery, Paging, Params};
use crate::store::{Collection, StoredVersion};
use crate::validation::Validation;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// How many open issues and activity entries the dashboard lists.
pub const DASHBOARD_ROWS: usize = 20;

impl Validation<'_> {
    /// The dashboard statistics of the caller's records.
    pub fn stats(&self, p: &Principal, params: &Params) -> Result<Value> {
        let scope = p.private_scope();
        for bound in ["from", "to"] {
            if let Some(day) = params.get(bound) {
                if chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_err() || day.len() != 10 {
                    return Err(crate::error::Error::invalid_parameter(format!(
                        "{bound} \"{day}\" is not a date: stats take dates as YYYY-MM-DD"
                    )));
                }
            }
        }
        let everything = ListQuery {
            paging: Paging {
                skip: 0,
                limit: None,
            },
            ..ListQuery::default()
        };
        let targets = params.get("target").map(|t| vec![t.to_string()]);
        let records = self.all_records(p, targets.as_deref())?;
        let tx = self.platform.read()?;
        let configs = tx
            .list(
                Collection::ValidationConfig,
                std::slice::from_ref(&scope),
                &everything,
            )?
            .items;
        drop(tx);
        let keep = |r: &Map<String, Value>| {
            let day = text(r, "pointDate");
            params.get("from").is_none_or(|f| day.as_str() >= f)
                && params.get("to").is_none_or(|t| day.as_str() <= t)
                && ["target", "kind", "group"]
                    .iter()
                    .all(|k| params.get(k).is_none_or(|v| text(r, k) == v))
        };
        let records: Vec<&Map<String, Value>> = records.iter().filter(|r| keep(r)).collect();
        let mut tally = Tally::default();
        for r in &records {
            tally.add(r);
        }
        Ok(tally.into_json(&records, &configs))
    }
}

/// A text field of a JSON record ("" when absent).
fn text(r: &Map<String, Value>, k: &str) -> String {
    r.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The dashboard's counts, record by record.
#[derive(Default)]
struct Tally {
    by_status: Map<String, Value>,
    by_kind: BTreeMap<String, Map<String, Value>>,
    by_day: BTreeMap<String, Map<String, Value>>,
    /// Per target: its name, records, failing records and worst status.
    by_target: BTreeMap<String, (String, u64, u64, String)>,
    /// Per check: its name, runs and failures.
    by_check: BTreeMap<String, (String, u64, u64)>,
    open: Vec<Value>,
    resolved: u64,
    minutes: i64,
    by_resolution: Map<String, Value>,
    activity: Vec<Value>,
}

impl Tally {
    /// Counts one record.
    fn add(&mut self, r: &Map<String, Value>) {
        let status = text(r, "status");
        bump(&mut self.by_status, &status);
        bump(self.by_kind.entry(text(r, "kind")).or_default(), &status);
        bump(
            self.by_day.entry(text(r, "pointDate")).or_default(),
            &status,
        );
        let t = self
            .by_target
            .entry(text(r, "target"))
            .or_insert_with(|| (text(r, "name"), 0, 0, "valid".into()));
        t.1 += 1;
        if is_failing(&status) {
            t.2 += 1;
        }
        if super::records::worst([t.3.as_str(), status.as_str()]) == status {
            t.3 = status.clone();
        }
        for c in r
            .get("checks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let id = c["id"].as_str().unwrap_or_default().to_string();
            let e = self
                .by_check
                .entry(id)
                .or_insert_with(|| (c["name"].as_str().unwrap_or_default().to_string(), 0, 0));
            e.1 += 1;
            if !matches!(c["status"].as_str(), Some("valid" | "skipped")) {
                e.2 += 1;
            }
        }
        if is_failing(&status) {
            self.open.push(json!({"_id": r["_id"], "target": r["target"], "point": r["point"], "status": status, "openSince": r.get("openSince")}));
        }
        if r.get("resolvedAt").is_some_and(|v| !v.is_null()) {
            self.resolved += 1;
            self.minutes += r.get("resolveMinutes").and_then(Value::as_i64).unwrap_or(0);
            bump(&mut self.by_resolution, &text(r, "resolution"));
        }
        for e in r
            .get("timeline")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut e = e.clone();
            e["_id"] = r["_id"].clone();
            self.activity.push(e);
        }
    }

    /// The dashboard of the counted records and the configurations.
    fn into_json(self, records: &[&Map<String, Value>], configs: &[StoredVersion]) -> Value {
        let Tally {
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
        open.sort_by(|a, b| a["openSince"].as_str().cmp(&b["openSince"].as_str()));
        open.truncate(DASHBOARD_ROWS);
        activity.sort_by(|a, b| b["timestamp"].as_str().cmp(&a["timestamp"].as_str()));
        activity.truncate(DASHBOARD_ROWS);
        let enabled = configs
            .iter()
            .filter(|c| c.body.get("enabled").and_then(Value::as_bool) != Some(false))
            .count();
        let on_update = configs
            .iter()
            .filter(|c| c.body.get("runOnUpdate").and_then(Value::as_bool) == Some(true))
            .count();
        let open_count = records
            .iter()
            .filter(|r| is_failing(r.get("status").and_then(Value::as_str).unwrap_or_default()))
            .count();
        json!({
            "totals": {"records": records.len(), "targets": by_target.len(), "open": open_count, "resolved": resolved},
            "targets": by_target.len(),
            "byStatus": by_status,
            "byKind": by_kind,
            "byDay": by_day.into_iter().map(|(day, counts)| json!({"day": day, "counts": counts})).collect::<Vec<_>>(),
            "byTarget": by_target.into_iter().map(|(target, (name, n, failing, worst))| json!({"target": target, "name": name, "records": n, "failing": failing, "status": worst})).collect::<Vec<_>>(),
            "byCheck": by_check.into_iter().map(|(id, (name, runs, failures))| json!({"id": id, "name": name, "runs": runs, "failures": failures})).collect::<Vec<_>>(),
            "open": open,
            "resolved": {"count": resolved, "meanMinutes": if resolved > 0 { json!(minutes as f64 / resolved as f64) } else { Value::Null }, "byResolution": by_resolution},
            "activity": activity,
            "configs": {"count": configs.len(), "enabled": enabled, "runOnUpdate": on_update},
        })
    }
}
