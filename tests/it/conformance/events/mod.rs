//! Events: automations react to changes; an automation's conditions `{source, service, id,
//! action}` choose the changes it receives, and id `*` means any. The events of each service
//! are in the modules below; deliveries are observed at a webhook receiver (see the area tests
//! in `automation.rs`, whose helpers these share).

mod data_service;
mod extension_realtime;
mod validation_service;

use crate::automation::{automation, deliver, server, Received, Webhook};
use crate::common::Client;
use platform_core::auth::Role;
use serde_json::{json, Value};

/// An automation sending the events of `conditions` to `hook`.
pub(super) async fn hook_on(c: &Client<'_>, hook: &Webhook, conditions: Value) -> Value {
    automation(
        c,
        json!({"target": "platform.webhook", "properties": {"url": hook.url()}, "conditions": conditions}),
    )
    .await
}

/// What a receiver got, as (service, source, id, action).
pub(super) fn seen(hook: &Webhook) -> Vec<(String, String, String, String)> {
    hook.received()
        .iter()
        .map(Received::json)
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (s("service"), s("source"), s("id"), s("action"))
        })
        .collect()
}

fn ev(service: &str, source: &str, id: &str, action: &str) -> (String, String, String, String) {
    (service.into(), source.into(), id.into(), action.into())
}

#[actix_rt::test]
async fn an_automation_receives_the_changes_its_conditions_name() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    hook_on(
        &admin,
        &hook,
        json!([{"source": "private", "service": "object", "id": "A", "action": "update"}]),
    )
    .await;
    admin.save(json!({"_id": "A", "v": 1})).await; // create: another action
    admin.save(json!({"_id": "B", "v": 1})).await;
    admin.save(json!({"_id": "B", "v": 2})).await; // update of another id
    assert_eq!(
        admin.post("/type/v1", json!({"_id": "A"})).await.status,
        200
    ); // another service
    admin.save(json!({"_id": "A", "v": 2})).await; // the one
    deliver(&s);
    assert_eq!(seen(&hook), [ev("object", "private", "A", "update")]);
    // decisions.md 10: every event carries {service, source, id, action, timestamp, user,
    // tenant, environment, data}.
    let e = hook.received()[0].json();
    let mut keys: Vec<&String> = e.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "action",
            "data",
            "environment",
            "id",
            "service",
            "source",
            "tenant",
            "timestamp",
            "user"
        ]
    );
    assert_eq!(
        (
            e["user"].clone(),
            e["tenant"].clone(),
            e["environment"].clone()
        ),
        (json!("admin-user"), json!("acme"), json!("production"))
    );
    assert_eq!(e["data"]["v"], 2);
}

#[actix_rt::test]
async fn id_star_means_any_id() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    hook_on(
        &admin,
        &hook,
        json!([{"source": "private", "service": "object", "id": "*", "action": "create"}]),
    )
    .await;
    for id in ["A", "B", "C"] {
        admin.save(json!({"_id": id})).await;
    }
    deliver(&s);
    assert_eq!(
        seen(&hook),
        [
            ev("object", "private", "A", "create"),
            ev("object", "private", "B", "create"),
            ev("object", "private", "C", "create")
        ]
    );
}

#[actix_rt::test]
async fn the_source_of_a_condition_chooses_public_or_private_changes() {
    let s = server();
    let admin = s.client(Role::Admin);
    let platform = s.client_of("acme", "root", Role::Platform);
    let public = Webhook::start(vec![]);
    let private = Webhook::start(vec![]);
    hook_on(
        &admin,
        &public,
        json!([{"source": "public", "service": "object", "id": "*", "action": "*"}]),
    )
    .await;
    hook_on(
        &admin,
        &private,
        json!([{"source": "private", "service": "object", "id": "*", "action": "*"}]),
    )
    .await;
    platform.save(json!({"_id": "#HUB"})).await;
    admin.save(json!({"_id": "MINE"})).await;
    deliver(&s);
    assert_eq!(seen(&public), [ev("object", "public", "#HUB", "create")]);
    assert_eq!(seen(&private), [ev("object", "private", "MINE", "create")]);
}

#[actix_rt::test]
async fn other_services_raise_create_update_delete_and_extensions_install_upgrade_uninstall() {
    // Actions for services other than data and validation are not shown. decisions.md 10:
    // object, type, script, secret, validationconfig: create, update, delete; extension:
    // install, upgrade, uninstall.
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    for service in [
        "object",
        "type",
        "script",
        "secret",
        "validationconfig",
        "extension",
    ] {
        hook_on(
            &admin,
            &hook,
            json!([{"source": "private", "service": service, "id": "*", "action": "*"}]),
        )
        .await;
    }
    let ok = |r: crate::common::Resp| assert_eq!(r.status, 200, "{:?}", r.body);
    for v in [1, 2] {
        admin.save(json!({"_id": "A", "v": v})).await;
        ok(admin
            .post(
                "/type/v1",
                json!({"_id": "T", "description": format!("v{v}")}),
            )
            .await);
        ok(admin
            .post(
                "/script/v1",
                json!({"_id": "S", "script": format!("fn f() {{ {v} }}")}),
            )
            .await);
        ok(admin
            .post("/secret/v1", json!({"_id": "K", "value": format!("v{v}")}))
            .await);
        ok(admin
            .post(
                "/validationconfig/v1",
                json!({"_id": "A:P", "kind": "timeseries", "description": format!("v{v}")}),
            )
            .await);
    }
    ok(admin.delete("/object/v1/private/A/*").await);
    ok(admin.delete("/type/v1/private/T/*").await);
    ok(admin.delete("/script/v1/private/S/*").await);
    ok(admin.delete("/secret/v1/K").await);
    ok(admin.delete("/validationconfig/v1/A:P").await);
    // An extension published by another tenant, installed, upgraded and uninstalled here.
    let other = s.client_of("initech", "ida", Role::Admin);
    ok(other
        .post(
            "/extension/v1",
            json!({"_id": "initech.tool", "publisher": "initech", "code": "tool"}),
        )
        .await);
    ok(other
        .post(
            "/extension/v1/public?_publish=true",
            json!({"_id": "initech.tool"}),
        )
        .await);
    for _ in 0..2 {
        ok(admin
            .post(
                "/extension/v1/private?_publish=true",
                json!({"_id": "initech.tool"}),
            )
            .await);
    }
    ok(admin.delete("/extension/v1/private/initech.tool").await);
    deliver(&s);
    let got: Vec<(String, String)> = seen(&hook)
        .into_iter()
        .map(|(service, _, _, action)| (service, action))
        .collect();
    let want: Vec<(String, String)> = [
        ("object", "create"),
        ("type", "create"),
        ("script", "create"),
        ("secret", "create"),
        ("validationconfig", "create"),
        ("object", "update"),
        ("type", "update"),
        ("script", "update"),
        ("secret", "update"),
        ("validationconfig", "update"),
        ("object", "delete"),
        ("type", "delete"),
        ("script", "delete"),
        ("secret", "delete"),
        ("validationconfig", "delete"),
        ("extension", "install"),
        ("extension", "upgrade"),
        ("extension", "uninstall"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(got, want);
}
