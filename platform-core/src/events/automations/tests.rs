//! The automation service's calls: targets and templates, automations, the log and the
//! outbox.

use crate::api::{Collection, LogQuery, LogStatus, Paging, Source};
use crate::auth::Principal;
use crate::clock::FixedClock;
use crate::error::ErrorCode;
use crate::events::EVENT_SERVICES;
use crate::store::sqlite::SqliteStore;
use crate::Platform;
use chrono::{TimeZone, Utc};
use serde_json::{json, Map};
use std::sync::Arc;

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
        assert_eq!(t.conditions[0].source, crate::api::ConditionSource::Private);
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
        .save_automation(&ann, &script.automation(values))
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
    use crate::api::ConditionSource;
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
    let mail = crate::api::Automation::new(
        "platform.email",
        vec![crate::api::Condition::new("object", "PLANT1", "update")],
    )
    .with_property("to", "ops@acme.example")
    .with_property("subject", "changed");
    let automation = platform
        .automations()
        .save_automation(&me, &mail)
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
