//! Events and automations.
//!
//! Every change raises an event in the transaction of the change (`emit`): one delivery row
//! per automation whose conditions match it (the outbox). A worker
//! ([`crate::api::automations::Deliveries::run_next`]) delivers each to its target at least once, in order per
//! item and automation, with retries and backoff, writing every attempt to the automation log.
//!
//! | Module | Holds |
//! |---|---|
//! | [`automations`] | the automation service: save, list, get, delete, enable/disable; owned automations of `runOnUpdate` configurations |
//! | [`targets`] | the built-in targets (the action service) and `listAutomations` templates |
//! | [`deliver`] | the worker step, the targets' effects, transformers, the log and the mail outbox |
//!
//! Which validation record changes raise events is decided by the validation service
//! ([`crate::validation::events`]); webhook URLs and the allow-list are the network seam's
//! ([`crate::outbound::webhook`]).
//!
//! An event is `{service, source, id, action, timestamp, user, tenant, environment, data}`, plus
//! `chain` (how many deliveries led to it) when a delivery raised it; past
//! [`deliver::MAX_CHAIN`] it reaches no automation, so automations feeding each other stop.

pub mod automations;
pub mod deliver;
pub mod targets;

use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{Automation, Delivery, DeliveryStatus, OutboxRead, OutboxWrite};
use serde_json::{json, Map, Value};

/// The services that raise events, with their actions.
pub const EVENT_SERVICES: &[(&str, &[&str])] = &[
    ("object", &["create", "update", "delete"]),
    ("type", &["create", "update", "delete"]),
    ("script", &["create", "update", "delete"]),
    ("secret", &["create", "update", "delete"]),
    ("validationconfig", &["create", "update", "delete"]),
    ("calendar", &["create", "update", "delete"]),
    ("data", &["update", "invalid", "validated"]),
    ("validation", &["failed", "warning", "success"]),
    (
        "extension",
        &[
            "create",
            "update",
            "delete",
            "install",
            "upgrade",
            "uninstall",
        ],
    ),
];

/// Actions that only automations naming them receive (not those on `*`).
pub const EXPLICIT_ACTIONS: [&str; 2] = ["invalid", "validated"];

/// The actions of an event service, if it is one.
pub fn actions_of(service: &str) -> Option<&'static [&'static str]> {
    EVENT_SERVICES
        .iter()
        .find(|(s, _)| *s == service)
        .map(|(_, a)| *a)
}

/// Builds an event raised by `p` about item `id` of `service` in `scope`.
pub fn event(
    p: &Principal,
    scope: &Scope,
    service: &str,
    id: &str,
    action: &str,
    timestamp: &str,
    data: Value,
) -> Map<String, Value> {
    let source = if scope.is_public() {
        "public"
    } else {
        "private"
    };
    let Value::Object(mut map) = json!({
        "service": service, "source": source, "id": id, "action": action,
        "timestamp": timestamp, "user": p.user, "tenant": p.tenant,
        "environment": p.environment, "data": data,
    }) else {
        unreachable!("a json! object literal is an object")
    };
    if let Some(depth) = chain() {
        map.insert("chain".into(), json!(depth));
    }
    map
}

/// How many deliveries led to an event raised now (its `chain`), when a delivery raised it.
pub(crate) fn chain() -> Option<u32> {
    let depth = deliver::chain_depth();
    (depth > 0).then_some(depth)
}

/// Raises an event in the caller's transaction: one `pending` delivery is written for each
/// enabled automation with a matching condition (for a public item: in every tenant and
/// environment; for a private one: in its own). The deliveries are the outbox: they commit or
/// roll back with the change, and only the worker acts on them. An event no automation wants
/// leaves nothing behind.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit(
    tx: &mut dyn OutboxWrite,
    p: &Principal,
    scope: &Scope,
    service: &str,
    id: &str,
    action: &str,
    timestamp: &str,
    data: Value,
) -> Result<()> {
    emit_with(tx, p, scope, service, id, action, timestamp, || data)
}

/// [`emit`] with the data made only when some automation receives the event (saves of large
/// data pay nothing when no automation listens).
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_with(
    tx: &mut dyn OutboxWrite,
    p: &Principal,
    scope: &Scope,
    service: &str,
    id: &str,
    action: &str,
    timestamp: &str,
    data: impl FnOnce() -> Value,
) -> Result<()> {
    // Most saves reach no automation: the event is built only when some could receive it.
    let candidates = candidates(&*tx, scope)?;
    if candidates.is_empty() {
        return Ok(());
    }
    let mut ev = event(p, scope, service, id, action, timestamp, Value::Null);
    let targets = receiving(candidates, &ev);
    if targets.is_empty() {
        return Ok(());
    }
    ev.insert("data".into(), data());
    write_deliveries(tx, ev, targets)
}

/// Raises an event about the caller's own view of an item (its validation of public data,
/// say): only automations of the caller's tenant and environment receive it, whatever
/// `source` the event names.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_private(
    tx: &mut dyn OutboxWrite,
    p: &Principal,
    source: &str,
    service: &str,
    id: &str,
    action: &str,
    timestamp: &str,
    data: Value,
) -> Result<()> {
    let mut ev = event(p, &p.private_scope(), service, id, action, timestamp, data);
    ev.insert("source".into(), json!(source));
    deliver_to_matching(tx, &p.private_scope(), ev)
}

fn deliver_to_matching(
    tx: &mut dyn OutboxWrite,
    scope: &Scope,
    ev: Map<String, Value>,
) -> Result<()> {
    let targets = receiving(candidates(&*tx, scope)?, &ev);
    write_deliveries(tx, ev, targets)
}

/// The automations (with their scopes) that may receive an event of `scope`: for a public
/// item, those of every tenant and environment; for a private one, its own.
fn candidates(tx: &dyn OutboxRead, scope: &Scope) -> Result<Vec<(Scope, Automation)>> {
    Ok(if scope.is_public() {
        tx.all_automations()?
    } else {
        tx.automations(scope)?
            .into_iter()
            .map(|a| (scope.clone(), a))
            .collect()
    })
}

/// Those of `candidates` whose conditions an event meets, and the chain it is part of allows
/// (with their scopes and ids).
fn receiving(
    candidates: Vec<(Scope, Automation)>,
    ev: &Map<String, Value>,
) -> Vec<(Scope, String)> {
    let depth = ev.get("chain").and_then(Value::as_u64).unwrap_or(0);
    if depth > u64::from(deliver::MAX_CHAIN) {
        tracing::warn!(
            service = ev["service"].as_str().unwrap_or_default(),
            id = ev["id"].as_str().unwrap_or_default(),
            depth,
            "event raised by a chain of automations too deep; not delivered"
        );
        return Vec::new();
    }
    candidates
        .into_iter()
        .filter(|(_, a)| receives(a, ev))
        .map(|(at, a)| (at, a.id().to_string()))
        .collect()
}

/// The item of an event, as deliveries name it: `service/source/id`. The deliveries of one
/// item to one automation go in order.
pub(crate) fn item_of(ev: &Map<String, Value>) -> String {
    let text = |k: &str| ev.get(k).and_then(Value::as_str).unwrap_or_default();
    format!("{}/{}/{}", text("service"), text("source"), text("id"))
}

fn write_deliveries(
    tx: &mut dyn OutboxWrite,
    ev: Map<String, Value>,
    targets: Vec<(Scope, String)>,
) -> Result<()> {
    if targets.is_empty() {
        return Ok(());
    }
    let item = item_of(&ev);
    let raised = ev
        .get("timestamp")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let due = crate::clock::parse_instant(raised)
        .map_err(|e| Error::caused(format!("the time of an event \"{raised}\""), e))?;
    for (at, automation) in targets {
        tx.add_delivery(&Delivery {
            seq: 0,
            scope: at,
            automation,
            item: item.clone(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_at: due,
            event: ev.clone(),
        })?;
    }
    Ok(())
}

/// Whether an automation condition matches an event.
pub fn condition_matches(cond: &Value, ev: &Map<String, Value>) -> bool {
    let field = |m: &Value, k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let ev_field = |k: &str| ev.get(k).and_then(Value::as_str).unwrap_or_default();
    let want = |k: &str, default: &str| field(cond, k).unwrap_or_else(|| default.to_string());
    let source = want("source", "private");
    let service = want("service", "");
    let id = want("id", "*");
    let action = want("action", "*");
    let ev_action = ev_field("action");
    (source == "*" || source == ev_field("source"))
        && service == ev_field("service")
        && (id == "*" || id == ev_field("id"))
        && (action == ev_action || (action == "*" && !EXPLICIT_ACTIONS.contains(&ev_action)))
}

/// Whether an automation receives an event: it is enabled and one of its conditions matches.
pub fn receives(automation: &Automation, ev: &Map<String, Value>) -> bool {
    automation.enabled() && automation_matches(automation.body(), ev)
}

/// Whether an automation (enabled) has a condition matching the event.
pub fn automation_matches(automation: &Map<String, Value>, ev: &Map<String, Value>) -> bool {
    automation.get("enabled").and_then(Value::as_bool) != Some(false)
        && automation
            .get("conditions")
            .and_then(Value::as_array)
            .is_some_and(|cs| cs.iter().any(|c| condition_matches(c, ev)))
}

/// The id of the public script that turns a data `invalid` event into an HTML email.
pub const EMAIL_VALIDATION_FAILED: &str = "#email-validation-failed";

/// The mustache source of [`EMAIL_VALIDATION_FAILED`]: it renders the fields of an `invalid`
/// event (target, kind, name, status, message, points, failed tenors).
pub const EMAIL_VALIDATION_FAILED_SOURCE: &str = r#"<!DOCTYPE html>
<html><body style="font-family: sans-serif">
<h2>Validation {{status}}: {{name}}</h2>
<table cellpadding="4">
<tr><th align="left">Target</th><td>{{target}}</td></tr>
<tr><th align="left">Kind</th><td>{{kind}}</td></tr>
<tr><th align="left">Name</th><td>{{name}}</td></tr>
<tr><th align="left">Status</th><td>{{status}}</td></tr>
<tr><th align="left">Message</th><td>{{message}}</td></tr>
<tr><th align="left">Checked by</th><td>{{user}} ({{origin}}) at {{timestamp}}</td></tr>
</table>
<h3>Points</h3>
<ul>{{#points}}<li>{{.}}</li>{{/points}}</ul>
{{#failedTenors.0}}<h3>Failed tenors</h3>{{/failedTenors.0}}
<ul>{{#failedTenors}}<li>{{.}}</li>{{/failedTenors}}</ul>
</body></html>
"#;

impl crate::Platform {
    /// Stores the built-in public scripts when absent (every fresh database has them).
    pub(crate) fn seed_builtins(&self) -> Result<()> {
        let scope = Scope::public();
        let coll = crate::store::Collection::Script;
        if self
            .read()?
            .current(coll, &scope, EMAIL_VALIDATION_FAILED)?
            .is_some()
        {
            return Ok(());
        }
        let Value::Object(body) = json!({
            "_id": EMAIL_VALIDATION_FAILED, "_type": "VarScript", "scriptType": "mustache",
            "category": targets::TRANSFORMER_CATEGORY,
            "description": "Turns a data invalid event into an HTML email (target, kind, name, status, message, points, failed tenors)",
            "script": EMAIL_VALIDATION_FAILED_SOURCE,
        }) else {
            unreachable!("a json! object literal is an object")
        };
        let now = self.now();
        self.write(|tx| {
            tx.hold(&[crate::store::Hold::Document(
                coll,
                &scope,
                EMAIL_VALIDATION_FAILED,
            )])?;
            if tx.current(coll, &scope, EMAIL_VALIDATION_FAILED)?.is_some() {
                return Ok(());
            }
            let v = crate::store::StoredVersion {
                id: EMAIL_VALIDATION_FAILED.into(),
                version: 1,
                body: body.clone(),
                timestamp: now,
                user: "platform".into(),
                reason: Some("built in".into()),
                tags: Vec::new(),
            };
            tx.put_current(coll, &scope, &v, None)
        })
    }
}

/// The `data` of a data `update` event: the data header (`_id` the data id) with what the
/// save wrote: `points` (observation times, or `from`/`to` and `count` past
/// [`MAX_EVENT_POINTS`](crate::data::MAX_EVENT_POINTS)) for a time series, `ondate` for a curve, `replaced` when the whole
/// series was replaced or removed.
pub(crate) fn data_update(
    stored: &crate::store::StoredVersion,
    change: &crate::data::DataChange,
) -> Value {
    let mut data = stored
        .body
        .get(&change.name)
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    data.insert(
        "_id".into(),
        json!(format!("{}:{}", stored.id, change.name)),
    );
    data.insert("_objid".into(), json!(stored.id));
    data.insert("_dataid".into(), json!(change.name));
    data.insert("_version".into(), json!(stored.version));
    if let Some(reason) = &stored.reason {
        data.insert("_reason".into(), json!(reason));
    }
    if let Some(ondate) = &change.ondate {
        data.insert("ondate".into(), json!(ondate));
    }
    let time = |t: i64| {
        chrono::DateTime::from_timestamp_millis(t)
            .map(crate::clock::format_instant)
            .unwrap_or_default()
    };
    if let Some(times) = &change.times {
        if !times.listed.is_empty() {
            let points: Vec<String> = times.listed.iter().map(|t| time(*t)).collect();
            data.insert("points".into(), json!(points));
        }
        data.insert("from".into(), json!(time(times.first)));
        data.insert("to".into(), json!(time(times.last)));
        data.insert("count".into(), json!(times.count));
    }
    if change.replaced {
        data.insert("replaced".into(), json!(true));
    }
    Value::Object(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(service: &str, id: &str, action: &str) -> Map<String, Value> {
        let Value::Object(m) =
            json!({"service": service, "source": "private", "id": id, "action": action})
        else {
            unreachable!()
        };
        m
    }

    #[test]
    fn conditions_match_by_source_service_id_and_action() {
        let c = json!({"source": "private", "service": "object", "id": "*", "action": "*"});
        assert!(condition_matches(&c, &ev("object", "A", "update")));
        assert!(!condition_matches(&c, &ev("type", "A", "update")));
        let c = json!({"service": "object", "id": "A", "action": "delete"});
        assert!(condition_matches(&c, &ev("object", "A", "delete")));
        assert!(!condition_matches(&c, &ev("object", "A", "update")));
        assert!(!condition_matches(&c, &ev("object", "B", "delete")));
        let c = json!({"source": "public", "service": "object", "id": "*", "action": "*"});
        assert!(!condition_matches(&c, &ev("object", "A", "update")));
    }

    #[test]
    fn invalid_and_validated_reach_only_automations_that_name_them() {
        let all = json!({"service": "data", "id": "*", "action": "*"});
        assert!(condition_matches(&all, &ev("data", "A:S", "update")));
        assert!(!condition_matches(&all, &ev("data", "A:S", "invalid")));
        assert!(!condition_matches(&all, &ev("data", "A:S", "validated")));
        let named = json!({"service": "data", "id": "*", "action": "validated"});
        assert!(condition_matches(&named, &ev("data", "A:S", "validated")));
    }
}
