//! The record state machine: what a run, an override, its removal, a comment or a platform
//! note does to a record (see the table in [`super`]).

use super::record::{Event, Override, PointResult, Record, Resolved};
use super::status::{failing, status_name, NONE, OVERRIDDEN};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

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

pub(super) fn ms_of(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

fn push_event(rec: &mut Record, event: Event) {
    rec.timeline.push(event);
    if rec.timeline.len() > TIMELINE_MAX {
        let extra = rec.timeline.len() - TIMELINE_MAX;
        rec.timeline.drain(..extra);
    }
}

fn other(ctx: &Context, action: &str, status: u8, previous: u8, message: &str) -> Event {
    Event::Other {
        at: ms_of(ctx.now),
        action: action.into(),
        user: ctx.user.clone(),
        origin: ctx.origin.clone(),
        status,
        previous,
        message: message.into(),
    }
}

fn open(rec: &mut Record, now: i64) {
    rec.open_since = Some(now);
    rec.resolved = None;
}

fn resolve(rec: &mut Record, now: i64, by_override: bool) {
    let minutes = rec.open_since.map(|since| (now - since).div_euclid(60_000));
    rec.resolved = Some(Resolved {
        at: now,
        by_override,
        minutes,
    });
    rec.open_since = None;
}

/// Applies a run's result to a record (new when `old` is None); `run` is the index of the
/// run in the record's chunk.
pub fn apply_run(
    old: Option<Record>,
    result: PointResult,
    run: u32,
    ctx: &Context,
) -> (Record, Transition) {
    let now = ms_of(ctx.now);
    let previous = old.as_ref().map(|r| r.status);
    let data_changed = match &old {
        None => true,
        Some(o) => match (&o.value, &result.value) {
            (Some(a), Some(b)) => !a.same(b),
            _ => o.hash != result.hash,
        },
    };
    let mut rec = match old {
        Some(mut r) => {
            r.explicit = result.explicit;
            r.value = result.value;
            r.set = result.set;
            r.checks = result.checks;
            r.message = result.message.clone();
            r.hash = result.hash;
            // What was last sent as validated outlives the run (see `validation::events`).
            let sent = r.extra.as_ref().and_then(|x| x.get(SENT_KEY).cloned());
            r.extra = result.extra;
            if let Some(sent) = sent {
                r.extra
                    .get_or_insert_with(Default::default)
                    .insert(SENT_KEY.into(), sent);
            }
            r
        }
        None => Record {
            key: result.key,
            explicit: result.explicit,
            value: result.value,
            status: result.status,
            checked: result.status,
            set: result.set,
            checks: result.checks,
            message: result.message.clone(),
            runs: 0,
            first_run: now,
            last_run: run,
            open_since: None,
            resolved: None,
            overridden: None,
            timeline: Vec::new(),
            hash: result.hash,
            extra: result.extra,
        },
    };
    rec.checked = result.status;
    let overridden = previous == Some(OVERRIDDEN);
    let status = if overridden && failing(result.status) && !data_changed {
        OVERRIDDEN
    } else {
        if overridden {
            rec.overridden = None;
            push_event(
                &mut rec,
                other(
                    ctx,
                    "override-cleared",
                    result.status,
                    OVERRIDDEN,
                    "the data or its result changed",
                ),
            );
        }
        result.status
    };
    let was_open = previous.is_some_and(failing);
    if failing(status) && (!was_open || (overridden && status != OVERRIDDEN)) {
        open(&mut rec, now);
    } else if !failing(status) && was_open {
        resolve(&mut rec, now, false);
    }
    rec.status = status;
    rec.runs += 1;
    rec.last_run = run;
    push_event(
        &mut rec,
        Event::Run {
            run,
            status,
            previous: previous.unwrap_or(NONE),
            message: result.message,
        },
    );
    let transition = Transition {
        previous: previous.map(|p| status_name(p).to_string()),
        status: status_name(status).to_string(),
        data_changed,
    };
    (rec, transition)
}

/// Overrides a failing record; `Err` says why it does not apply.
pub fn apply_override(rec: &mut Record, reason: &str, ctx: &Context) -> Result<(), String> {
    if rec.status == OVERRIDDEN {
        return Err("already overridden".into());
    }
    if !failing(rec.status) {
        return Err(format!(
            "status {} is not failing: nothing to override",
            status_name(rec.status)
        ));
    }
    let now = ms_of(ctx.now);
    rec.overridden = Some(Override {
        reason: reason.into(),
        user: ctx.user.clone(),
        at: now,
        status: rec.status,
    });
    let was = rec.status;
    rec.status = OVERRIDDEN;
    resolve(rec, now, true);
    push_event(rec, other(ctx, "override", OVERRIDDEN, was, reason));
    Ok(())
}

/// Removes an override; the record takes its last checked status. `Err` says why not.
pub fn remove_override(rec: &mut Record, ctx: &Context) -> Result<String, String> {
    if rec.overridden.is_none() || rec.status != OVERRIDDEN {
        return Err("there is no override to remove".into());
    }
    rec.overridden = None;
    rec.status = rec.checked;
    if failing(rec.checked) {
        open(rec, ms_of(ctx.now));
    }
    push_event(
        rec,
        other(ctx, "override-removed", rec.checked, OVERRIDDEN, ""),
    );
    Ok(status_name(rec.checked).to_string())
}

/// The field of a record's extra fields holding the data last sent as validated.
pub const SENT_KEY: &str = "sentAsValidated";

/// A record's extra fields as a run's result has them: without what was sent as validated
/// (that belongs to the record, not to the result).
pub fn result_extra(extra: Option<Box<Map<String, Value>>>) -> Option<Box<Map<String, Value>>> {
    let mut extra = extra?;
    extra.shift_remove(SENT_KEY);
    (!extra.is_empty()).then_some(extra)
}

/// Adds a platform entry to the timeline (`sent-as-failing`, `sent-as-validated`); the status
/// does not change.
pub fn note(rec: &mut Record, action: &str, message: &str, ctx: &Context) {
    let status = rec.status;
    push_event(rec, other(ctx, action, status, status, message));
}

/// Adds a comment to the timeline.
pub fn comment(rec: &mut Record, message: &str, ctx: &Context) {
    let status = rec.status;
    push_event(rec, other(ctx, "comment", status, status, message));
}
