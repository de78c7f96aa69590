//! The automation service's calls: targets and templates, automations, the log and the
//! outbox.

use super::{
    sync_owned, Automation, AutomationOwner, Automations, Condition, ConditionSource,
    DeletedAutomation,
};
use crate::api::{automations::LogQuery, automations::LogStatus, Collection, Paging, Source};
use crate::auth::{Principal, Role};
use crate::clock::{format_instant, FixedClock};
use crate::error::ErrorCode;
use crate::events::EVENT_SERVICES;
use crate::store::sqlite::SqliteStore;
use crate::Platform;
use chrono::{TimeZone, Utc};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

const ALL: Paging = Paging {
    skip: 0,
    limit: None,
};

/// A platform on a clock fixed at 2024-03-01 09:00 UTC, and its admin in tenant acme.
pub(super) fn platform() -> (Platform, Principal) {
    let at = Utc.with_ymd_and_hms(2024, 3, 1, 9, 0, 0).unwrap();
    let store = SqliteStore::open_in_memory().unwrap();
    let platform = Platform::over(Arc::new(store), Arc::new(FixedClock::new(at)));
    let admin = platform.tenancy().local_principal("acme", "ann").unwrap();
    (platform, admin)
}

#[test]
fn targets_are_the_catalogue() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let page = automations.targets(&ann, &ALL).unwrap();
    let ids: Vec<&str> = page.items.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "platform.validation",
            "platform.email",
            "platform.webhook",
            "platform.script"
        ]
    );
    assert_eq!(page.total, 4);
    for typed in &page.items {
        let target = crate::events::targets::find(&typed.id).unwrap();
        let names: Vec<&str> = target.inputs.iter().map(|i| i.name).collect();
        assert_eq!(
            typed
                .inputs
                .iter()
                .map(|i| i.name.as_str())
                .collect::<Vec<_>>(),
            names
        );
        assert_eq!(typed.allow_transformation, target.transform);
        for (service, actions) in EVENT_SERVICES {
            for action in *actions {
                assert_eq!(
                    typed.accepts(service, action),
                    target.accepts(service, action)
                );
            }
        }
        assert_eq!(&automations.target(&ann, &typed.code).unwrap(), typed);
    }
    let email = &page.items[1];
    let inputs: Vec<(&str, &str, bool)> = email
        .inputs
        .iter()
        .map(|i| (i.name.as_str(), i.kind.as_str(), i.required))
        .collect();
    assert_eq!(
        inputs,
        [
            ("to", "email", true),
            ("subject", "string", true),
            ("attachment", "boolean", false),
            ("attachmentName", "string", false),
            ("@transformer", "script", false),
        ]
    );
    assert_eq!(
        email.inputs[4]
            .filter
            .as_ref()
            .map(|f| f["category"].clone()),
        Some(json!("automation"))
    );
    let second = Paging {
        skip: 1,
        limit: Some(2),
    };
    let paged = automations.targets(&ann, &second).unwrap();
    assert_eq!((paged.total, paged.items), (4, page.items[1..3].to_vec()));
    let e = automations.target(&ann, "platform.fax").unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (
            ErrorCode::NotFound,
            "target \"platform.fax\" not found".into()
        )
    );
}

#[test]
fn templates_fit_the_item_and_save() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let body = json!({"_id": "PLANT1"});
    platform
        .objects()
        .save(&ann, Collection::Object, body, &Default::default())
        .unwrap();
    let offered = automations
        .templates(&ann, "object", Source::All, "PLANT1")
        .unwrap();
    // Email, webhook and script on create, update and delete; validation takes no object event.
    assert_eq!(offered.len(), 9);
    assert!(offered.iter().all(|t| t.target != "platform.validation"));
    for t in &offered {
        assert_eq!(t.conditions[0].source, ConditionSource::Private);
        assert_eq!(t.conditions[0].id, "PLANT1");
    }
    let script = offered
        .iter()
        .find(|t| t.code == "script" && t.conditions[0].action == "delete")
        .unwrap();
    assert_eq!(
        script.template,
        "When object PLANT1 raises delete, run the script [script]"
    );
    let mut values = Map::new();
    values.insert("script".into(), json!("absent"));
    let e = automations
        .save(&ann, &script.automation(values))
        .unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (
            ErrorCode::InvalidParameter,
            "properties.script: script \"absent\" does not exist".to_string()
        )
    );
    let refused = [
        (
            "weather",
            "PLANT1",
            ErrorCode::InvalidParameter,
            "the weather service raises no events, so no automation fits its items",
        ),
        (
            "object",
            "PLANT2",
            ErrorCode::NotFound,
            "object \"PLANT2\" not found in the private source",
        ),
    ];
    for (service, key, code, message) in refused {
        let e = automations
            .templates(&ann, service, Source::Private, key)
            .unwrap_err();
        assert_eq!((e.code(), e.to_string()), (code, message.to_string()));
    }
}

#[test]
fn templates_of_data_offer_the_validation_target_on_updates_only() {
    use super::catalogue::templates;
    let t = templates(ConditionSource::Private, "data", "A:S");
    let validation: Vec<&str> = t
        .iter()
        .filter(|a| a.target == "platform.validation")
        .map(|a| a.conditions[0].action.as_str())
        .collect();
    assert_eq!(validation, ["update"]);
    let o = templates(ConditionSource::Public, "object", "A");
    assert!(o.iter().all(|a| a.target != "platform.validation"));
    assert_eq!(o[0].conditions[0].id, "A");
    assert_eq!(o[0].conditions[0].source, ConditionSource::Public);
}

/// An automation that mails on an object's update: after the worker delivers, the log holds
/// its one attempt, found by its filters.
#[test]
fn the_log_holds_each_attempt_and_filters_them() {
    let platform = Platform::in_memory().unwrap();
    let me = platform.tenancy().local_principal("acme", "ann").unwrap();
    let mail = Automation::new(
        "platform.email",
        vec![Condition::new("object", "PLANT1", "update")],
    )
    .with_property("to", "ops@acme.example")
    .with_property("subject", "changed");
    let automation = platform
        .automations()
        .save(&me, &mail)
        .unwrap()
        .id()
        .to_string();
    let save = |capacity: u32| {
        platform
            .objects()
            .save(
                &me,
                Collection::Object,
                json!({"_id": "PLANT1", "capacity": capacity}),
                &Default::default(),
            )
            .unwrap();
    };
    save(1);
    save(2);
    while platform.deliveries().run_next().unwrap() {}
    let automations = platform.automations();
    let all = LogQuery::default();
    let log = automations.log(&me, &all).unwrap();
    assert_eq!(log.total, 1);
    let entry = &log.items[0];
    assert_eq!(entry.automation, automation);
    assert_eq!(
        (entry.service.as_str(), entry.key.as_str()),
        ("object", "PLANT1")
    );
    assert_eq!(
        (entry.action.as_str(), entry.status),
        ("update", LogStatus::Success)
    );
    let failed = LogQuery {
        status: Some("failed".into()),
        ..LogQuery::default()
    };
    assert_eq!(automations.log(&me, &failed).unwrap().total, 0);
    let mine = LogQuery {
        automation: Some(automation.clone()),
        from: Some("2000-01-01".into()),
        ..LogQuery::default()
    };
    assert_eq!(automations.log(&me, &mine).unwrap().total, 1);
    let refused = [
        (
            LogQuery {
                status: Some("lost".into()),
                ..LogQuery::default()
            },
            "status must be one of success, failed, skipped, not \"lost\"",
        ),
        (
            LogQuery {
                from: Some("2024-13-01".into()),
                ..LogQuery::default()
            },
            "from must be a date or an RFC 3339 time, not \"2024-13-01\"",
        ),
    ];
    for (query, message) in refused {
        let e = automations.log(&me, &query).unwrap_err();
        assert_eq!(
            (e.code(), e.to_string()),
            (ErrorCode::InvalidParameter, message.to_string())
        );
    }
    let mails = automations.mails(&me, 0, None).unwrap();
    assert_eq!(mails.total, 1);
    assert_eq!(mails.items[0].to, ["ops@acme.example"]);
    assert_eq!(mails.items[0].automation, automation);
}

/// An email automation on updates of PLANT1, as a program writes it.
pub(super) fn mail() -> Automation {
    Automation::new("email", vec![Condition::new("object", "PLANT1", "update")])
        .with_property("to", "ops@acme.example")
        .with_property("subject", "PLANT1 changed")
}

/// The stored document of an automation (with the owner's rights), without its id.
fn stored_doc(platform: &Platform, p: &Principal, id: &str) -> Map<String, Value> {
    let mut doc = platform
        .read()
        .unwrap()
        .automation(&p.private_scope(), id)
        .unwrap()
        .unwrap()
        .into_body();
    doc.shift_remove("_id");
    doc
}

/// A save stores the automation as sent, its name made from its target and first condition;
/// a request's body reads into the same automation, and stores the same document.
#[test]
fn a_save_stores_the_automation_as_sent() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let mut typed = mail();
    typed.description = Some(Some("tells ops".into()));
    typed.enabled = Some(false);
    typed
        .conditions
        .push(Condition::new("data", "*", "invalid").in_source(ConditionSource::Any));
    let saved = automations.save(&ann, &typed).unwrap();
    let body = json!({
        "target": "email", "description": "tells ops", "enabled": false, "note": "dropped",
        "owner": "zed", "created": "2001-01-01T00:00:00.000Z",
        "properties": {"to": "ops@acme.example", "subject": "PLANT1 changed"},
        "conditions": [
            {"service": "object", "id": "PLANT1", "action": "update"},
            {"source": "*", "service": "data", "action": "invalid"},
        ],
    });
    let read = Automation::from_body(&body).unwrap();
    let mut want = typed.clone();
    want.target = Some("platform.email".into());
    assert_eq!(read, want);
    let again = automations.save(&ann, &read).unwrap();
    assert_ne!(saved.id(), again.id());
    assert_eq!(saved.id().len(), 24);
    assert_eq!(
        stored_doc(&platform, &ann, saved.id()),
        stored_doc(&platform, &ann, again.id())
    );
    let a = &saved.automation;
    assert_eq!(
        a.name.as_deref(),
        Some("When object PLANT1 raises update, send an email to ops@acme.example with subject PLANT1 changed")
    );
    assert_eq!(
        (a.target.as_deref(), a.enabled),
        (Some("platform.email"), Some(false))
    );
    assert_eq!(a.conditions, typed.conditions);
    assert_eq!(a.description, Some(Some("tells ops".into())));
    assert_eq!(
        saved.template,
        "send an email to [to] with subject [subject]"
    );
    assert_eq!(saved.owner, "ann");
    assert_eq!(format_instant(saved.created), "2024-03-01T09:00:00.000Z");
    assert_eq!(saved.owned_by, None);
    assert_eq!(automations.automation(&ann, saved.id()).unwrap(), saved);
}

#[test]
fn an_update_keeps_the_automation_and_when_it_was_created() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let first = automations.save(&ann, &mail()).unwrap();
    let mut changed = first.automation.clone();
    changed.name = Some("plant alert".into());
    changed.properties.insert("subject".into(), json!("again"));
    let bob = platform.tenancy().local_principal("acme", "bob").unwrap();
    let second = automations.save(&bob, &changed).unwrap();
    assert_eq!(second.id(), first.id());
    assert_eq!(second.automation.name.as_deref(), Some("plant alert"));
    assert_eq!(second.automation.properties["subject"], "again");
    assert_eq!(
        (second.owner.as_str(), second.created),
        ("bob", first.created)
    );
    assert_eq!(automations.automations(&ann, &ALL).unwrap().total, 1);
}

#[test]
fn automations_read_by_id_and_by_page() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let mut ids: Vec<String> = (0..3)
        .map(|_| automations.save(&ann, &mail()).unwrap().id().to_string())
        .collect();
    ids.sort();
    let one = automations.automation(&ann, &ids[1]).unwrap();
    assert_eq!(one.id(), ids[1]);
    let paging = Paging {
        skip: 1,
        limit: Some(1),
    };
    let page = automations.automations(&ann, &paging).unwrap();
    assert_eq!((page.total, page.estimated), (3, false));
    assert_eq!(page.items, vec![one]);
    let e = automations.automation(&ann, "absent").unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (
            ErrorCode::NotFound,
            "automation \"absent\" not found".into()
        )
    );
}

#[test]
fn enabling_and_deleting() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let id = automations.save(&ann, &mail()).unwrap().id().to_string();
    let off = automations.set_enabled(&ann, &id, false).unwrap();
    assert_eq!(off.automation.enabled, Some(false));
    assert_eq!(off, automations.automation(&ann, &id).unwrap());
    let on = automations.set_enabled(&ann, &id, true).unwrap();
    assert_eq!(on.automation.enabled, Some(true));
    let reader = Principal {
        role: Role::Reader,
        ..ann.clone()
    };
    let e = automations.set_enabled(&reader, &id, false).unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (
            ErrorCode::NotAuthorized,
            "enabling or disabling automations needs the admin role; user \"ann\" has reader"
                .into()
        )
    );
    assert_eq!(
        automations
            .automation(&ann, &id)
            .unwrap()
            .automation
            .enabled,
        Some(true)
    );
    for (body, on) in [
        (json!({"enabled": false}), Ok(false)),
        (json!({"active": true}), Ok(true)),
        (json!({"enabled": "no"}), Err(())),
        (json!([]), Err(())),
    ] {
        let read = Automations::enabled_from_body(&body);
        assert_eq!(read.as_ref().ok().copied(), on.ok(), "{body}");
        if let Err(e) = read {
            assert_eq!(
                e.to_string(),
                "PUT automation/v1/{id} takes {\"enabled\": true or false}"
            );
        }
    }
    let deleted = automations.delete(&ann, &id).unwrap();
    assert_eq!(
        deleted,
        DeletedAutomation {
            id: id.clone(),
            deleted: true
        }
    );
    assert_eq!(automations.automations(&ann, &ALL).unwrap().total, 0);
    let e = automations.delete(&ann, &id).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
}

#[test]
fn a_test_firing_queues_a_test_event() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let id = automations.save(&ann, &mail()).unwrap().id().to_string();
    let delay = Duration::from_millis(1500);
    let fired = automations.test(&ann, &id, Some(delay)).unwrap();
    assert_eq!((fired.id.as_str(), fired.queued), (id.as_str(), true));
    assert_eq!(format_instant(fired.due), "2024-03-01T09:00:01.500Z");
    let ev = &fired.event;
    assert_eq!(
        (
            ev.service.as_str(),
            ev.id.as_str(),
            ev.action.as_str(),
            ev.source.as_str()
        ),
        ("object", "PLANT1", "update", "private")
    );
    assert_eq!((ev.user.as_str(), ev.tenant.as_str()), ("ann", "acme"));
    assert_eq!(
        (ev.data.clone(), ev.test, ev.chain),
        (json!({"_test": true}), true, None)
    );
    // The delivery queued carries the event answered.
    let queued = platform
        .read()
        .unwrap()
        .deliveries(crate::store::DeliveryStatus::Pending)
        .unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(
        Value::Object(queued[0].event.clone()),
        serde_json::to_value(ev).unwrap()
    );
    assert_eq!(queued[0].next_at, fired.due);
    let now = automations.test(&ann, &id, None).unwrap();
    assert_eq!(now.due, ev.timestamp);
    let e = automations
        .test(&ann, &id, Some(Duration::from_secs(61)))
        .unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (
            ErrorCode::InvalidParameter,
            "_delay must be 0 to 60000 milliseconds, not 61000".into()
        )
    );
    let e = automations.test(&ann, "absent", None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
}

/// An automation that reads, the body a request sends for it, and the code the two are
/// refused with.
fn refused() -> Vec<(Automation, Value, ErrorCode)> {
    let props = json!({"to": "ops@acme.example", "subject": "s"});
    let on = |service: &str, action: &str| json!([{"source": "private", "service": service, "id": "*", "action": action}]);
    let mut no_target = mail();
    no_target.target = None;
    let many = vec![Condition::new("object", "*", "*"); 21];
    let mut unknown_id = mail();
    unknown_id.id = Some("0123456789abcdef01234567".into());
    let mut bad_id_body =
        json!({"target": "email", "properties": props, "conditions": on("object", "update")});
    bad_id_body["_id"] = json!("0123456789abcdef01234567");
    let mut empty_id = mail();
    empty_id.conditions[0].id = String::new();
    vec![
        (
            no_target,
            json!({"properties": props, "conditions": on("object", "update")}),
            ErrorCode::MissingParameter,
        ),
        (
            Automation::new("email", vec![]).with_property("to", "ops@acme.example"),
            json!({"target": "email", "properties": {"to": "ops@acme.example"}, "conditions": []}),
            ErrorCode::MissingParameter,
        ),
        (
            Automation::new("email", vec![Condition::new("weather", "*", "*")]),
            json!({"target": "email", "conditions": on("weather", "*")}),
            ErrorCode::InvalidParameter,
        ),
        (
            Automation::new("validation", vec![Condition::new("data", "*", "create")]),
            json!({"target": "validation", "conditions": on("data", "create")}),
            ErrorCode::InvalidParameter,
        ),
        (
            Automation::new("validation", vec![Condition::new("object", "*", "update")]),
            json!({"target": "validation", "conditions": on("object", "update")}),
            ErrorCode::InvalidParameter,
        ),
        (
            Automation::new("fax", vec![Condition::new("object", "*", "*")]),
            json!({"target": "fax", "conditions": on("object", "*")}),
            ErrorCode::InvalidParameter,
        ),
        (
            Automation::new("email", many),
            json!({"target": "email", "conditions": vec![on("object", "*")[0].clone(); 21]}),
            ErrorCode::InvalidParameter,
        ),
        (
            Automation::new("email", vec![Condition::new("object", "*", "*")])
                .with_property("to", "ops@acme.example"),
            json!({"target": "email", "properties": {"to": "ops@acme.example"}, "conditions": on("object", "*")}),
            ErrorCode::MissingParameter,
        ),
        (
            Automation::new("email", vec![Condition::new("object", "*", "*")])
                .with_property("to", "not an address")
                .with_property("subject", "s"),
            json!({"target": "email", "properties": {"to": "not an address", "subject": "s"}, "conditions": on("object", "*")}),
            ErrorCode::InvalidParameter,
        ),
        (
            Automation::new("webhook", vec![Condition::new("object", "*", "*")])
                .with_property("url", "ftp://hooks.example.com/x"),
            json!({"target": "webhook", "properties": {"url": "ftp://hooks.example.com/x"}, "conditions": on("object", "*")}),
            ErrorCode::InvalidParameter,
        ),
        (unknown_id, bad_id_body, ErrorCode::NotFound),
        (
            empty_id,
            json!({"target": "email", "properties": props, "conditions": [{"service": "object", "id": ""}]}),
            ErrorCode::InvalidBody,
        ),
    ]
}

/// A program's automation is refused as the request's body for it is, with the same text,
/// and nothing is stored.
#[test]
fn bad_automations_are_refused_alike_and_store_nothing() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    for (typed, body, code) in refused() {
        let e = automations.save(&ann, &typed).unwrap_err();
        let j = Automation::from_body(&body)
            .and_then(|a| automations.save(&ann, &a))
            .unwrap_err();
        assert_eq!(
            (e.code(), e.to_string()),
            (code, j.to_string()),
            "{typed:?}"
        );
    }
    let reader = Principal {
        role: Role::Reader,
        ..ann.clone()
    };
    let e = automations.save(&reader, &mail()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotAuthorized);
    assert_eq!(automations.automations(&ann, &ALL).unwrap().total, 0);
}

#[test]
fn an_owned_automation_reads_with_its_owner() {
    let (platform, ann) = platform();
    let config = json!({"runOnUpdate": true});
    let (id, created) = platform
        .write(|tx| {
            sync_owned(
                tx,
                &ann,
                "PLANT1:SPOT",
                config.as_object(),
                "2024-03-01T09:00:00.000Z",
            )
        })
        .unwrap()
        .unwrap();
    assert!(created);
    let owned = platform.automations().automation(&ann, &id).unwrap();
    assert_eq!(
        owned.owned_by,
        Some(AutomationOwner {
            service: "validationconfig".into(),
            id: "PLANT1:SPOT".into()
        })
    );
    assert_eq!(
        owned.automation.conditions,
        [Condition::new("data", "PLANT1:SPOT", "update")]
    );
    assert_eq!(
        owned.automation.target.as_deref(),
        Some("platform.validation")
    );
}
