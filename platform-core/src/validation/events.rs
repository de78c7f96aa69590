//! Which validation changes raise events, decided from a record's status before and after
//! and the run's transition; the runner calls `RunEvents::record` for each record it writes
//! and `RunEvents::emit` once, in the transaction that stores the records.
//!
//! | Event | Raised when |
//! |---|---|
//! | validation `failed` / `warning` / `success` | the record's status changes to failed, severe or error / warning / valid, skipped or overridden; a new record that passes raises nothing |
//! | data `invalid` | a record starts failing (also after its override was cleared by a run or removed), or fails again on different data; one event per run of a data item, with all its points; never for tests or runs of some checks or tenors; the record's timeline gets `sent-as-failing` |
//! | data `validated` | a record passes (valid or warning) or is overridden, and that data was not sent before; only when an automation on `validated` exists (else nothing is remembered); consecutive passing observations of a series go in one event (at most 10,000 an event), split by any other; one event per curve ondate; never for tests or runs of some checks or tenors; the timeline gets `sent-as-validated` |
//!
//! Rules that cost something run only when an automation of the tenant and environment would
//! receive their event ([`Wants`]).

use super::records::{
    self, failing, status_code, status_name, Chunk, Context, Record, Transition, OVERRIDDEN,
    SENT_KEY, VALID, WARNING,
};
use crate::auth::Principal;
use crate::error::Result;
use crate::events::{emit_private, receives};
use crate::ids::{Scope, Source};
use crate::store::{Collection, DocumentRead, OutboxRead, WriteTx};
use serde_json::{json, Map, Value};

/// Which events of a data item's validation some automation would receive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wants {
    /// Validation record events.
    pub validation: bool,
    /// Data `invalid`.
    pub invalid: bool,
    /// Data `validated`.
    pub validated: bool,
}

impl Wants {
    /// Whether any event is wanted.
    pub fn any(&self) -> bool {
        self.validation || self.invalid || self.validated
    }
}

fn source_of(target: &str) -> &'static str {
    if target.starts_with('#') {
        "public"
    } else {
        "private"
    }
}

/// What the automations of a tenant and environment (`scope`) want of `target`'s validation.
pub(crate) fn wants(tx: &dyn OutboxRead, scope: &Scope, target: &str) -> Result<Wants> {
    let automations = tx.automations(scope)?;
    if automations.is_empty() {
        return Ok(Wants::default());
    }
    let proto = |action: &str| {
        let Value::Object(ev) =
            json!({"service": "data", "source": source_of(target), "id": target, "action": action})
        else {
            unreachable!("a json! object literal is an object")
        };
        ev
    };
    let any = |ev: &Map<String, Value>| automations.iter().any(|a| receives(a, ev));
    let on_validation = automations.iter().any(|a| {
        a.enabled()
            && a.body()
                .get("conditions")
                .and_then(Value::as_array)
                .is_some_and(|cs| cs.iter().any(|c| c["service"] == "validation"))
    });
    Ok(Wants {
        validation: on_validation,
        invalid: any(&proto("invalid")),
        validated: any(&proto("validated")),
    })
}

/// The validation event a status change raises.
fn validation_action(before: Option<u8>, after: u8) -> Option<&'static str> {
    if before == Some(after) {
        return None;
    }
    let passing = matches!(after, VALID | records::SKIPPED | OVERRIDDEN);
    if before.is_none() && passing {
        return None;
    }
    Some(if failing(after) {
        "failed"
    } else if after == WARNING {
        "warning"
    } else {
        "success"
    })
}

fn passes(status: u8) -> bool {
    matches!(status, VALID | WARNING | OVERRIDDEN)
}

/// The data a record checked, as compared for "sent once per version".
fn identity(rec: &Record) -> String {
    match &rec.hash {
        Some(h) => h.clone(),
        None => format!("{:?}", rec.value),
    }
}

fn already_sent(rec: &Record) -> bool {
    rec.extra
        .as_ref()
        .and_then(|x| x.get(SENT_KEY))
        .and_then(Value::as_str)
        == Some(identity(rec).as_str())
}

fn mark_sent(rec: &mut Record, ctx: &Context) {
    let id = identity(rec);
    rec.extra
        .get_or_insert_with(Default::default)
        .insert(SENT_KEY.into(), json!(id));
    records::note(rec, "sent-as-validated", "", ctx);
}

/// The events of one run of one data item, collected while its records are written.
#[derive(Debug, Clone)]
pub(crate) struct RunEvents {
    wants: Wants,
    target: String,
    partial: bool,
    ctx: Context,
    validation: Vec<(String, &'static str, Value)>,
    invalid: Vec<Map<String, Value>>,
    /// Records to send as validated in point order; `None` splits groups.
    sends: Vec<Option<Map<String, Value>>>,
}

impl RunEvents {
    /// Events of a run of `target` by `ctx`; `partial` when only some checks or tenors ran.
    pub(crate) fn new(wants: Wants, target: &str, partial: bool, ctx: &Context) -> RunEvents {
        RunEvents {
            wants,
            target: target.to_string(),
            partial,
            ctx: ctx.clone(),
            validation: Vec::new(),
            invalid: Vec::new(),
            sends: Vec::new(),
        }
    }

    /// Whether any event may be raised (else the runner need not call [`RunEvents::record`]).
    pub(crate) fn active(&self) -> bool {
        self.wants.any()
    }

    /// Applies the rules to a record a run just wrote (marking its timeline).
    pub(crate) fn record(&mut self, chunk: &Chunk, rec: &mut Record, t: &Transition) {
        let ctx = &self.ctx;
        let before = t.previous.as_deref().map(status_code);
        let after = rec.status;
        if !self.partial {
            if self.wants.invalid
                && failing(after)
                && (before.is_none_or(|b| !failing(b)) || t.data_changed)
            {
                records::note(rec, "sent-as-failing", "", ctx);
                self.invalid.push(chunk.materialize(rec));
            }
            if self.wants.validated {
                if passes(after) && !already_sent(rec) {
                    mark_sent(rec, ctx);
                    self.sends.push(Some(chunk.materialize(rec)));
                } else {
                    self.sends.push(None);
                }
            }
        }
        if self.wants.validation {
            if let Some(action) = validation_action(before, after) {
                let full = chunk.materialize(rec);
                self.validation
                    .push((chunk.id_of(rec), action, Value::Object(full)));
            }
        }
    }

    /// Raises the collected events in the run's transaction.
    pub(crate) fn emit(self, tx: &mut dyn WriteTx, p: &Principal) -> Result<()> {
        let ctx = &self.ctx;
        let now = crate::clock::format_instant(ctx.now);
        for (id, action, rec) in self.validation {
            emit_private(tx, p, "private", "validation", &id, action, &now, rec)?;
        }
        let src = source_of(&self.target);
        if !self.invalid.is_empty() {
            let data = invalid_data(&self.target, &self.invalid, ctx);
            emit_private(tx, p, src, "data", &self.target, "invalid", &now, data)?;
        }
        let mut group: Vec<Map<String, Value>> = Vec::new();
        let mut groups = Vec::new();
        for s in self.sends {
            match s {
                Some(r) => group.push(r),
                None if !group.is_empty() => groups.push(std::mem::take(&mut group)),
                None => {}
            }
        }
        if !group.is_empty() {
            groups.push(group);
        }
        for g in groups {
            let curve = g[0]["kind"] == "curve";
            // One curve per event; a long run of passing observations in events of at most
            // `MAX_EVENT_POINTS`.
            let size = if curve {
                1
            } else {
                crate::data::MAX_EVENT_POINTS
            };
            let parts: Vec<Vec<Map<String, Value>>> =
                g.chunks(size).map(<[Map<String, Value>]>::to_vec).collect();
            for part in parts {
                let data = validated_data(&*tx, p, &self.target, &part, ctx)?;
                emit_private(tx, p, src, "data", &self.target, "validated", &now, data)?;
            }
        }
        Ok(())
    }
}

/// The events of an override or override removal of one record (`before` its status before).
pub(crate) fn after_action(
    tx: &mut dyn WriteTx,
    p: &Principal,
    wants: Wants,
    chunk: &Chunk,
    rec: &mut Record,
    before: u8,
    ctx: &Context,
) -> Result<()> {
    let mut events = RunEvents::new(wants, &chunk.target, false, ctx);
    let t = Transition {
        previous: Some(status_name(before).to_string()),
        status: status_name(rec.status).to_string(),
        data_changed: false,
    };
    events.record(chunk, rec, &t);
    events.emit(tx, p)
}

fn text(m: &Map<String, Value>, k: &str) -> String {
    m.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The fields of a data `invalid` event.
fn invalid_data(target: &str, recs: &[Map<String, Value>], ctx: &Context) -> Value {
    let statuses: Vec<String> = recs.iter().map(|r| text(r, "status")).collect();
    let status = records::worst(statuses.iter().map(String::as_str));
    let points: Vec<String> = recs.iter().map(|r| text(r, "point")).collect();
    let message = if recs.len() == 1 {
        text(&recs[0], "message")
    } else {
        format!(
            "{} points failing; {}: {}",
            recs.len(),
            points[0],
            text(&recs[0], "message")
        )
    };
    let mut data = json!({
        "target": target, "kind": recs[0].get("kind").cloned().unwrap_or(Value::Null),
        "name": recs[0].get("name").cloned().unwrap_or(Value::Null),
        "status": status, "message": message, "points": points,
        "records": recs.iter().map(|r| text(r, "_id")).collect::<Vec<_>>(),
        "user": ctx.user, "origin": ctx.origin,
        "timestamp": crate::clock::format_instant(ctx.now),
    });
    if recs[0]["kind"] == "curve" {
        let tenors: Vec<Value> = recs
            .iter()
            .flat_map(|r| {
                r.get("failedTenors")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        data["failedTenors"] = Value::Array(tenors);
    }
    data
}

/// The data of a `validated` event: the series (observations of the group, `range` set) or
/// the curve of the ondate, with the object's header of the data property and `_validation`.
fn validated_data(
    tx: &dyn DocumentRead,
    p: &Principal,
    target: &str,
    recs: &[Map<String, Value>],
    ctx: &Context,
) -> Result<Value> {
    let (object, prop) = target.split_once(':').unwrap_or((target, ""));
    let scope = Scope::for_source(Source::of_id(object), p);
    let mut data = tx
        .current(Collection::Object, &scope, object)?
        .and_then(|o| o.body.get(prop).and_then(Value::as_object).cloned())
        .unwrap_or_default();
    data.insert("_id".into(), json!(target));
    data.insert("_objid".into(), json!(object));
    data.insert("_dataid".into(), json!(prop));
    let curve = recs[0]["kind"] == "curve";
    if curve {
        let r = &recs[0];
        data.insert("_type".into(), json!("VarCurve"));
        data.insert(
            "ondate".into(),
            r.get("point").cloned().unwrap_or(Value::Null),
        );
        let contracts: Vec<Value> = r
            .get("tenors")
            .and_then(Value::as_array)
            .map(|ts| {
                ts.iter()
                    .map(|t| json!({"tenor": t["tenor"], "value": t["value"]}))
                    .collect()
            })
            .unwrap_or_default();
        data.insert("contracts".into(), Value::Array(contracts));
    } else {
        data.insert("_type".into(), json!("VarTimeSeries"));
        let obs: Vec<Value> = recs
            .iter()
            .map(|r| json!({"time": r["point"], "value": r.get("value").cloned().unwrap_or(Value::Null)}))
            .collect();
        data.insert(
            "range".into(),
            json!({"from": recs[0]["point"], "to": recs[recs.len() - 1]["point"]}),
        );
        data.insert("data".into(), Value::Array(obs));
    }
    let statuses: Vec<u8> = recs
        .iter()
        .map(|r| status_code(&text(r, "status")))
        .collect();
    let status = if statuses.contains(&OVERRIDDEN) {
        OVERRIDDEN
    } else if statuses.contains(&WARNING) {
        WARNING
    } else {
        VALID
    };
    let checked = records::worst(
        recs.iter()
            .map(|r| r["checkedStatus"].as_str().unwrap_or("valid")),
    );
    let mut v = json!({
        "status": status_name(status), "checkedStatus": checked,
        "records": recs.iter().map(|r| text(r, "_id")).collect::<Vec<_>>(),
        "user": ctx.user, "origin": ctx.origin,
        "timestamp": crate::clock::format_instant(ctx.now),
    });
    if let Some(o) = recs.iter().find_map(|r| r.get("override")) {
        v["override"] = json!({"reason": o["reason"], "user": o["user"]});
    }
    if curve {
        v["warningTenors"] = recs[0].get("warningTenors").cloned().unwrap_or(json!([]));
    }
    data.insert("_validation".into(), v);
    Ok(Value::Object(data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::records::{FAILED, SEVERE, SKIPPED};

    #[test]
    fn results_rebuilt_from_records_forget_what_was_sent() {
        let mut extra = Map::new();
        extra.insert(SENT_KEY.into(), json!("Some(Num(1.0))"));
        assert!(records::result_extra(Some(Box::new(extra.clone()))).is_none());
        extra.insert("tenors".into(), json!([]));
        let kept = records::result_extra(Some(Box::new(extra))).unwrap();
        assert!(!kept.contains_key(SENT_KEY) && kept.contains_key("tenors"));
    }

    #[test]
    fn only_status_changes_raise_validation_events() {
        assert_eq!(validation_action(None, VALID), None, "a new passing record");
        assert_eq!(validation_action(None, SKIPPED), None);
        assert_eq!(validation_action(None, FAILED), Some("failed"));
        assert_eq!(validation_action(None, WARNING), Some("warning"));
        assert_eq!(validation_action(Some(FAILED), FAILED), None);
        assert_eq!(validation_action(Some(FAILED), SEVERE), Some("failed"));
        assert_eq!(validation_action(Some(FAILED), OVERRIDDEN), Some("success"));
        assert_eq!(validation_action(Some(WARNING), VALID), Some("success"));
        assert_eq!(validation_action(Some(VALID), WARNING), Some("warning"));
    }
}
