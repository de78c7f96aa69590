//! The typed automation calls against the JSON ones: each typed answer is the JSON answer
//! read, a typed save stores what the JSON body stores, and what the JSON call refuses the
//! typed one refuses alike.

use super::typed::{from_json, Automation};
use super::{
    sync_owned, AutomationOwner, Condition, ConditionSource, DeletedAutomation, StoredAutomation,
};
use crate::auth::{Principal, Role};
use crate::clock::{format_instant, FixedClock};
use crate::error::{Error, ErrorCode};
use crate::query::Paging;
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
fn platform() -> (Platform, Principal) {
    let at = Utc.with_ymd_and_hms(2024, 3, 1, 9, 0, 0).unwrap();
    let store = SqliteStore::open_in_memory().unwrap();
    let platform = Platform::over(Arc::new(store), Arc::new(FixedClock::new(at)));
    let admin = platform.tenancy().local_principal("acme", "ann").unwrap();
    (platform, admin)
}

/// An email automation on updates of PLANT1, as a program writes it.
fn mail() -> Automation {
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

#[test]
fn a_typed_save_stores_what_the_json_body_stores() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let mut typed = mail();
    typed.description = Some("tells ops".into());
    typed.enabled = Some(false);
    typed
        .conditions
        .push(Condition::new("data", "*", "invalid").in_source(ConditionSource::Any));
    typed.other.insert("note".into(), json!("dropped"));
    let saved = automations.save_automation(&ann, &typed).unwrap();
    let body = json!({
        "target": "email", "description": "tells ops", "enabled": false, "note": "dropped",
        "properties": {"to": "ops@acme.example", "subject": "PLANT1 changed"},
        "conditions": [
            {"source": "private", "service": "object", "id": "PLANT1", "action": "update"},
            {"source": "*", "service": "data", "id": "*", "action": "invalid"},
        ],
    });
    let json = automations.save(&ann, body).unwrap();
    let json_id = json["_id"].as_str().unwrap();
    assert_ne!(saved.id(), json_id);
    assert_eq!(saved.id().len(), 24);
    assert_eq!(
        stored_doc(&platform, &ann, saved.id()),
        stored_doc(&platform, &ann, json_id)
    );
    // The answer is the JSON answer read.
    let mut read = StoredAutomation::from_json(json.clone()).unwrap();
    read.automation.id = Some(saved.id().to_string());
    assert_eq!(saved, read);
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
    assert!(a.other.is_empty(), "{:?}", a.other);
    assert_eq!(
        saved.template,
        "send an email to [to] with subject [subject]"
    );
    assert_eq!(saved.owner, "ann");
    assert_eq!(format_instant(saved.created), "2024-03-01T09:00:00.000Z");
    assert_eq!(saved.owned_by, None);
}

#[test]
fn a_typed_update_keeps_the_automation_and_when_it_was_created() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let first = automations.save_automation(&ann, &mail()).unwrap();
    let mut changed = first.automation.clone();
    changed.name = Some("plant alert".into());
    changed.properties.insert("subject".into(), json!("again"));
    let bob = platform.tenancy().local_principal("acme", "bob").unwrap();
    let second = automations.save_automation(&bob, &changed).unwrap();
    assert_eq!(second.id(), first.id());
    assert_eq!(second.automation.name.as_deref(), Some("plant alert"));
    assert_eq!(second.automation.properties["subject"], "again");
    assert_eq!(
        (second.owner.as_str(), second.created),
        ("bob", first.created)
    );
    assert_eq!(automations.list(&ann, &ALL).unwrap().total, 1);
}

#[test]
fn typed_reads_are_the_json_reads() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let mut ids: Vec<String> = (0..3)
        .map(|_| {
            automations
                .save_automation(&ann, &mail())
                .unwrap()
                .id()
                .to_string()
        })
        .collect();
    ids.sort();
    let json_one = automations.get(&ann, &ids[1]).unwrap();
    let one = automations.automation(&ann, &ids[1]).unwrap();
    assert_eq!(one, StoredAutomation::from_json(json_one).unwrap());
    assert_eq!(one.id(), ids[1]);
    let paging = Paging {
        skip: 1,
        limit: Some(1),
    };
    let page = automations.automations(&ann, &paging).unwrap();
    let json_page = automations.list(&ann, &paging).unwrap();
    assert_eq!((page.total, page.estimated), (3, json_page.estimated));
    assert_eq!(page.items, vec![one]);
    let e = automations.automation(&ann, "absent").unwrap_err();
    let j = automations.get(&ann, "absent").unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (ErrorCode::NotFound, j.to_string())
    );
}

#[test]
fn typed_enabling_and_deleting_are_the_json_calls() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let id = automations
        .save_automation(&ann, &mail())
        .unwrap()
        .id()
        .to_string();
    let off = automations.enable_automation(&ann, &id, false).unwrap();
    assert_eq!(off.automation.enabled, Some(false));
    assert_eq!(
        off,
        StoredAutomation::from_json(automations.get(&ann, &id).unwrap()).unwrap()
    );
    let on = automations.enable_automation(&ann, &id, true).unwrap();
    let json_on = automations.set_enabled(&ann, &id, true).unwrap();
    assert_eq!(on, StoredAutomation::from_json(json_on).unwrap());
    assert_eq!(on.automation.enabled, Some(true));
    let reader = Principal {
        role: Role::Reader,
        ..ann.clone()
    };
    let e = automations
        .enable_automation(&reader, &id, false)
        .unwrap_err();
    let j = automations.set_enabled(&reader, &id, false).unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (ErrorCode::NotAuthorized, j.to_string())
    );
    assert_eq!(automations.get(&ann, &id).unwrap()["enabled"], true);
    let deleted = automations.delete_automation(&ann, &id).unwrap();
    assert_eq!(
        deleted,
        DeletedAutomation {
            id: id.clone(),
            deleted: true
        }
    );
    assert_eq!(automations.list(&ann, &ALL).unwrap().total, 0);
    let e = automations.delete_automation(&ann, &id).unwrap_err();
    let j = automations.delete(&ann, &id).unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (ErrorCode::NotFound, j.to_string())
    );
}

#[test]
fn a_typed_test_firing_is_the_json_one() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let id = automations
        .save_automation(&ann, &mail())
        .unwrap()
        .id()
        .to_string();
    let delay = Duration::from_millis(1500);
    let fired = automations.test_automation(&ann, &id, Some(delay)).unwrap();
    let json = automations.test(&ann, &id, Some("1500")).unwrap();
    assert_eq!(fired, from_json("test-firing", json).unwrap());
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
    let now = automations.test_automation(&ann, &id, None).unwrap();
    assert_eq!(now.due, ev.timestamp);
    let e = automations
        .test_automation(&ann, &id, Some(Duration::from_secs(61)))
        .unwrap_err();
    let j = automations.test(&ann, &id, Some("61000")).unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (ErrorCode::InvalidParameter, j.to_string())
    );
}

/// An automation that reads, the body the JSON call is sent for it, and the code the two are
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
    ]
}

#[test]
fn bad_automations_are_refused_alike_and_store_nothing() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    for (typed, body, code) in refused() {
        let e = automations.save_automation(&ann, &typed).unwrap_err();
        let j = automations.save(&ann, body).unwrap_err();
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
    let e = automations.save_automation(&reader, &mail()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotAuthorized);
    assert_eq!(automations.list(&ann, &ALL).unwrap().total, 0);
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

#[test]
fn answers_that_do_not_read_are_internal_errors() {
    let bad = [
        json!("automation"),
        json!({"_id": "a", "target": "platform.email", "enabled": true, "template": "t",
               "owner": "ann", "created": "yesterday", "updated": "2024-03-01T09:00:00.000Z"}),
        json!({"target": "platform.email", "enabled": true, "template": "t", "owner": "ann",
               "created": "2024-03-01T09:00:00.000Z", "updated": "2024-03-01T09:00:00.000Z"}),
    ];
    for answer in bad {
        let e = StoredAutomation::from_json(answer.clone()).unwrap_err();
        assert!(matches!(e, Error::Internal(_)), "{answer}: {e:?}");
        assert_eq!(e.code(), ErrorCode::Internal);
    }
}
