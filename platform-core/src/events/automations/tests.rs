//! The typed automation log and outbox against the JSON ones.

use crate::api::{Collection, LogQuery, LogStatus};
use crate::Platform;
use serde_json::json;

/// An automation that mails on an object's update: after the worker delivers, the typed
/// log holds the one entry the JSON log answers, and its filters are the JSON log's.
#[test]
fn the_typed_automation_log_is_the_json_log_as_entries() {
    let platform = Platform::in_memory().unwrap();
    let me = platform.tenancy().local_principal("acme", "ann").unwrap();
    let automation = platform
        .automations()
        .save(
            &me,
            json!({"name": "alert", "target": "platform.email",
                   "properties": {"to": "ops@acme.example", "subject": "changed"},
                   "conditions": [{"service": "object", "id": "PLANT1", "action": "update"}]}),
        )
        .unwrap()["_id"]
        .as_str()
        .unwrap()
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
    let typed = automations.log_entries(&me, &all).unwrap();
    let json = automations.log(&me, &all).unwrap();
    assert_eq!((typed.total, json.total), (1, 1));
    let entry = &typed.items[0];
    assert_eq!(entry.automation, automation);
    assert_eq!(
        (entry.service.as_str(), entry.key.as_str()),
        ("object", "PLANT1")
    );
    assert_eq!(
        (entry.action.as_str(), entry.status),
        ("update", LogStatus::Success)
    );
    assert_eq!(serde_json::Value::Object(entry.to_json()), json.items[0]);
    let failed = LogQuery {
        status: Some("failed".into()),
        ..LogQuery::default()
    };
    assert_eq!(automations.log_entries(&me, &failed).unwrap().total, 0);
    let bad = LogQuery {
        status: Some("lost".into()),
        ..LogQuery::default()
    };
    let e = automations.log_entries(&me, &bad).unwrap_err();
    assert_eq!(
        e.to_string(),
        automations.log(&me, &bad).unwrap_err().to_string()
    );
}
