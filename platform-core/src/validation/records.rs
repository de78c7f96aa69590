//! Validation records and their state transitions.
//!
//! One record per checked point: `<data_id>:<time>` for a time-series observation,
//! `<data_id>:<ondate>` for a curve. Statuses: `valid`, `warning`, `failed`, `severe`, `error`,
//! `skipped`, `overridden`; failing means `failed`, `severe` or `error`.
//!
//! | Record | Call | Next | Effects |
//! |---|---|---|---|
//! | any or none | run | from the results (worst of severe > error > failed > warning > valid; skipped when no check applied) | `checkedStatus`, `runs`, `firstRun`, `lastRun`, `lastRunBy`, `lastOrigin`; `openSince` when it starts failing; `resolvedAt`, `resolution: rerun`, `resolveMinutes` when it stops |
//! | overridden | run, still failing on the same data | overridden | the override stays |
//! | overridden | run, passing or on changed data | from the results | timeline `override-cleared`; failing again on changed data opens it anew |
//! | failed, severe, error | override (reason) | overridden | override details, `resolution: override` |
//! | valid, warning, skipped | override | unchanged | reported per id |
//! | overridden | removeOverride | its `checkedStatus` | timeline `override-removed`; failing again opens it anew |
//! | any | comment | unchanged | timeline `comment` |
//!
//! The timeline keeps the last 100 events.

use crate::clock::format_instant;
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

/// Timeline entries kept per record.
pub const TIMELINE_MAX: usize = 100;

/// Who runs or acts, how, and when.
#[derive(Debug, Clone)]
pub struct Context {
    /// The user.
    pub user: String,
    /// `manual`, `update`, `build` or `background`.
    pub origin: String,
    /// Now.
    pub now: DateTime<Utc>,
}

/// Whether a status counts as failing.
pub fn is_failing(status: &str) -> bool {
    matches!(status, "failed" | "severe" | "error")
}

fn rank(status: &str) -> u8 {
    match status {
        "severe" => 5,
        "error" => 4,
        "failed" => 3,
        "warning" => 2,
        "valid" => 1,
        _ => 0,
    }
}

/// The worst of some check statuses; `skipped` when none ran.
pub fn worst<'a>(statuses: impl IntoIterator<Item = &'a str>) -> String {
    statuses
        .into_iter()
        .filter(|s| *s != "skipped")
        .max_by_key(|s| rank(s))
        .unwrap_or("skipped")
        .to_string()
}

/// The fresh result of checking one point (built by the runner).
#[derive(Debug, Clone, PartialEq)]
pub struct PointResult {
    /// The record id.
    pub id: String,
    /// Fields describing the point and the results: target, name, kind, group, tags, point,
    /// pointDate, value, checks, message, tenors, failedTenors, warningTenors, tenorCounts,
    /// contracts, dataHash.
    pub fields: Map<String, Value>,
    /// The status the results give.
    pub status: String,
}

fn push_timeline(
    rec: &mut Map<String, Value>,
    ctx: &Context,
    action: &str,
    status: &str,
    previous: &Value,
    message: &str,
) {
    let entry = json!({
        "timestamp": format_instant(ctx.now),
        "action": action,
        "user": ctx.user,
        "origin": ctx.origin,
        "status": status,
        "previous": previous,
        "message": message,
    });
    let timeline = rec.entry("timeline").or_insert_with(|| json!([]));
    if let Value::Array(items) = timeline {
        items.push(entry);
        if items.len() > TIMELINE_MAX {
            let extra = items.len() - TIMELINE_MAX;
            items.drain(..extra);
        }
    }
}

fn minutes_since(rec: &Map<String, Value>, key: &str, now: DateTime<Utc>) -> Option<i64> {
    let since = rec.get(key)?.as_str()?;
    let at = DateTime::parse_from_rfc3339(since)
        .ok()?
        .with_timezone(&Utc);
    Some((now - at).num_minutes())
}

fn open(rec: &mut Map<String, Value>, ctx: &Context) {
    rec.insert("openSince".into(), Value::String(format_instant(ctx.now)));
    for k in ["resolvedAt", "resolution", "resolveMinutes"] {
        rec.shift_remove(k);
    }
}

fn resolve(rec: &mut Map<String, Value>, ctx: &Context, how: &str) {
    let minutes = minutes_since(rec, "openSince", ctx.now);
    rec.insert("resolvedAt".into(), Value::String(format_instant(ctx.now)));
    rec.insert("resolution".into(), Value::String(how.into()));
    rec.insert(
        "resolveMinutes".into(),
        minutes.map_or(Value::Null, |m| json!(m)),
    );
    rec.shift_remove("openSince");
}

/// What a run did to a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// The status before (None for a new record).
    pub previous: Option<String>,
    /// The status after.
    pub status: String,
    /// Whether the data checked differs from the last run's.
    pub data_changed: bool,
}

/// Applies a run's result to a record (new when `old` is None).
pub fn apply_run(
    old: Option<Map<String, Value>>,
    result: PointResult,
    ctx: &Context,
) -> (Map<String, Value>, Transition) {
    let previous = old
        .as_ref()
        .and_then(|r| r.get("status"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let data_changed =
        old.as_ref().and_then(|r| r.get("dataHash")) != result.fields.get("dataHash");
    let mut rec = old.unwrap_or_default();
    rec.insert("_id".into(), Value::String(result.id.clone()));
    let message = result
        .fields
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    for (k, v) in result.fields {
        rec.insert(k, v);
    }
    rec.insert("checkedStatus".into(), Value::String(result.status.clone()));
    let overridden = previous.as_deref() == Some("overridden");
    let status = if overridden && is_failing(&result.status) && !data_changed {
        "overridden".to_string()
    } else {
        if overridden {
            rec.shift_remove("override");
            push_timeline(
                &mut rec,
                ctx,
                "override-cleared",
                &result.status,
                &json!("overridden"),
                "the data or its result changed",
            );
        }
        result.status.clone()
    };
    let was_open = previous.as_deref().is_some_and(is_failing);
    if is_failing(&status) && (!was_open || (overridden && status != "overridden")) {
        open(&mut rec, ctx);
    } else if !is_failing(&status) && was_open {
        resolve(&mut rec, ctx, "rerun");
    }
    rec.insert("status".into(), Value::String(status.clone()));
    let runs = rec.get("runs").and_then(Value::as_u64).unwrap_or(0) + 1;
    rec.insert("runs".into(), json!(runs));
    let now = format_instant(ctx.now);
    rec.entry("firstRun")
        .or_insert_with(|| Value::String(now.clone()));
    rec.insert("lastRun".into(), Value::String(now));
    rec.insert("lastRunBy".into(), Value::String(ctx.user.clone()));
    rec.insert("lastOrigin".into(), Value::String(ctx.origin.clone()));
    push_timeline(
        &mut rec,
        ctx,
        "run",
        &status,
        &previous.clone().map_or(Value::Null, Value::String),
        &message,
    );
    // Keep the fields in a readable order: the system ones last.
    (
        rec,
        Transition {
            previous,
            status,
            data_changed,
        },
    )
}

/// Overrides a failing record; `Err` says why it does not apply.
pub fn apply_override(
    rec: &mut Map<String, Value>,
    reason: &str,
    ctx: &Context,
) -> Result<(), String> {
    let status = rec
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if status == "overridden" {
        return Err("already overridden".into());
    }
    if !is_failing(&status) {
        return Err(format!(
            "status {status} is not failing: nothing to override"
        ));
    }
    rec.insert(
        "override".into(),
        json!({"reason": reason, "user": ctx.user, "timestamp": format_instant(ctx.now), "status": status}),
    );
    rec.insert("status".into(), Value::String("overridden".into()));
    resolve(rec, ctx, "override");
    push_timeline(
        rec,
        ctx,
        "override",
        "overridden",
        &Value::String(status),
        reason,
    );
    Ok(())
}

/// Removes an override; the record takes its last checked status. `Err` says why not.
pub fn remove_override(rec: &mut Map<String, Value>, ctx: &Context) -> Result<String, String> {
    if rec.get("override").is_none()
        || rec.get("status").and_then(Value::as_str) != Some("overridden")
    {
        return Err("there is no override to remove".into());
    }
    rec.shift_remove("override");
    let checked = rec
        .get("checkedStatus")
        .and_then(Value::as_str)
        .unwrap_or("skipped")
        .to_string();
    rec.insert("status".into(), Value::String(checked.clone()));
    if is_failing(&checked) {
        open(rec, ctx);
    }
    push_timeline(
        rec,
        ctx,
        "override-removed",
        &checked,
        &json!("overridden"),
        "",
    );
    Ok(checked)
}

/// Adds a comment to the timeline.
pub fn comment(rec: &mut Map<String, Value>, message: &str, ctx: &Context) {
    let status = rec.get("status").cloned().unwrap_or(Value::Null);
    push_timeline(
        rec,
        ctx,
        "comment",
        status.as_str().unwrap_or_default(),
        &status,
        message,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(minute: u32) -> Context {
        Context {
            user: "u".into(),
            origin: "manual".into(),
            now: DateTime::parse_from_rfc3339(&format!("2024-07-01T10:{minute:02}:00Z"))
                .unwrap()
                .with_timezone(&Utc),
        }
    }

    fn result(status: &str, hash: &str) -> PointResult {
        let mut fields = Map::new();
        fields.insert("target".into(), json!("X:P"));
        fields.insert("message".into(), json!(format!("{status} result")));
        fields.insert("dataHash".into(), json!(hash));
        PointResult {
            id: "X:P:2024-07-01".into(),
            fields,
            status: status.into(),
        }
    }

    #[test]
    fn worst_of() {
        assert_eq!(worst(["valid", "warning"]), "warning");
        assert_eq!(worst(["failed", "error", "warning"]), "error");
        assert_eq!(worst(["severe", "error"]), "severe");
        assert_eq!(worst(["skipped", "skipped"]), "skipped");
        assert_eq!(worst(Vec::<&str>::new()), "skipped");
        assert_eq!(worst(["skipped", "valid"]), "valid");
    }

    #[test]
    fn open_and_resolve_by_rerun() {
        let (r, t) = apply_run(None, result("failed", "a"), &ctx(0));
        assert_eq!((t.previous, t.status.as_str()), (None, "failed"));
        assert_eq!(r["openSince"], "2024-07-01T10:00:00.000Z");
        assert_eq!(r["runs"], 1);
        let (r, _) = apply_run(Some(r), result("failed", "a"), &ctx(5));
        assert_eq!(
            r["openSince"], "2024-07-01T10:00:00.000Z",
            "still the same open issue"
        );
        let (r, t) = apply_run(Some(r), result("valid", "b"), &ctx(30));
        assert_eq!(t.previous.as_deref(), Some("failed"));
        assert_eq!(
            (r["resolution"].clone(), r["resolveMinutes"].clone()),
            (json!("rerun"), json!(30))
        );
        assert!(r.get("openSince").is_none());
        assert_eq!(r["runs"], 3);
        assert_eq!(r["firstRun"], "2024-07-01T10:00:00.000Z");
        assert_eq!(r["timeline"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn overrides() {
        let (mut r, _) = apply_run(None, result("severe", "a"), &ctx(0));
        apply_override(&mut r, "known outage", &ctx(10)).unwrap();
        assert_eq!(r["status"], "overridden");
        assert_eq!(r["override"]["status"], "severe");
        assert_eq!(
            (r["resolution"].clone(), r["resolveMinutes"].clone()),
            (json!("override"), json!(10))
        );
        assert!(apply_override(&mut r, "again", &ctx(11)).is_err());
        // A re-run on the same failing data keeps the override.
        let (r, t) = apply_run(Some(r), result("severe", "a"), &ctx(12));
        assert_eq!(t.status, "overridden");
        // Changed data that fails again clears it and opens a new issue.
        let (mut r, t) = apply_run(Some(r), result("failed", "b"), &ctx(20));
        assert_eq!(t.status, "failed");
        assert!(r.get("override").is_none());
        assert_eq!(r["openSince"], "2024-07-01T10:20:00.000Z");
        let actions: Vec<&str> = r["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["action"].as_str().unwrap())
            .collect();
        assert_eq!(
            actions,
            vec!["run", "override", "run", "override-cleared", "run"]
        );
        // removeOverride goes back to the checked status and reopens.
        apply_override(&mut r, "ok", &ctx(21)).unwrap();
        assert_eq!(remove_override(&mut r, &ctx(22)).unwrap(), "failed");
        assert_eq!(r["status"], "failed");
        assert_eq!(r["openSince"], "2024-07-01T10:22:00.000Z");
        assert!(remove_override(&mut r, &ctx(23)).is_err());
        let (mut valid, _) = apply_run(None, result("valid", "a"), &ctx(0));
        assert!(apply_override(&mut valid, "x", &ctx(1))
            .unwrap_err()
            .contains("not failing"));
    }

    #[test]
    fn the_timeline_keeps_the_last_hundred() {
        let (mut r, _) = apply_run(None, result("valid", "a"), &ctx(0));
        for i in 0..150 {
            comment(&mut r, &format!("note {i}"), &ctx(1));
        }
        let timeline = r["timeline"].as_array().unwrap();
        assert_eq!(timeline.len(), TIMELINE_MAX);
        assert_eq!(timeline[99]["message"], "note 149");
        assert_eq!(timeline[0]["message"], "note 50");
    }
}
