//! Automation service: `POST {base_url}/automation/v1` creates an automation from the Automation
//! JSON; the other operations (not shown) as docs/decisions.md settles them; the action
//! service's list at `{base_url}/action/v1/public`, paged.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::{json, Value};

fn email_on_object_updates() -> Value {
    json!({"_type": "VarAutomation", "name": "Tell ops", "target": "platform.email",
        "properties": {"to": "ops@example.com", "subject": "changed"},
        "conditions": [{"source": "private", "service": "object", "id": "NBP", "action": "update"}],
        "active": true})
}

#[actix_rt::test]
async fn post_automation_v1_creates_an_automation_from_the_automation_json() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let r = c.post("/automation/v1", email_on_object_updates()).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let id = r.body["_id"].as_str().expect("an id").to_string();
    assert_eq!(
        (
            r.body["name"].clone(),
            r.body["target"].clone(),
            r.body["properties"].clone(),
            r.body["conditions"].clone(),
            r.body["enabled"].clone()
        ),
        (
            json!("Tell ops"),
            json!("platform.email"),
            json!({"to": "ops@example.com", "subject": "changed"}),
            json!([{"source": "private", "service": "object", "id": "NBP", "action": "update"}]),
            json!(true)
        )
    );
    // It is stored, and it acts on its condition.
    assert_eq!(c.get("/automation/v1").await.total(), 1);
    c.save(json!({"_id": "NBP", "v": 1})).await;
    c.save(json!({"_id": "NBP", "v": 2})).await;
    c.save(json!({"_id": "OTHER", "v": 1})).await;
    c.save(json!({"_id": "OTHER", "v": 2})).await;
    s.platform.deliveries().run_due().unwrap();
    let mail = c.get("/automation/v1/mail").await;
    assert_eq!(mail.total(), 1, "{:?}", mail.body);
    // `active: false` on an automation to be saved: it is saved switched off.
    let mut off = email_on_object_updates();
    off["active"] = json!(false);
    let r = c.post("/automation/v1", off).await;
    assert_eq!(r.body["enabled"], false, "{:?}", r.body);
    assert_ne!(r.body["_id"], id.as_str());
}

#[actix_rt::test]
async fn the_other_operations_of_the_automation_service_are_as_decided() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    // Not shown: docs/decisions.md (shared) 10 gives full CRUD at /automation/v1.
    let created = c
        .post("/automation/v1", email_on_object_updates())
        .await
        .body;
    let id = created["_id"].as_str().unwrap().to_string();
    let list = c.get("/automation/v1").await;
    assert_eq!((list.total(), list.body[0]["_id"].clone()), (1, json!(id)));
    assert_eq!(
        c.get(&format!("/automation/v1/{id}")).await.body["name"],
        "Tell ops"
    );
    let mut update = email_on_object_updates();
    update["_id"] = json!(id);
    update["name"] = json!("Tell the desk");
    let updated = c.post("/automation/v1", update).await;
    assert_eq!(
        (updated.body["_id"].clone(), updated.body["name"].clone()),
        (json!(id), json!("Tell the desk"))
    );
    assert_eq!(c.get("/automation/v1").await.total(), 1);
    assert_eq!(c.delete(&format!("/automation/v1/{id}")).await.status, 200);
    c.get(&format!("/automation/v1/{id}"))
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(c.get("/automation/v1").await.total(), 0);
}

#[actix_rt::test]
async fn the_action_list_at_action_v1_public_is_paged() {
    let s = TestServer::new();
    let c = s.client(Role::Reader);
    let all = c.get("/action/v1/public").await;
    assert_eq!(all.status, 200, "{:?}", all.body);
    let every: Vec<Value> = all.body.as_array().unwrap().clone();
    assert!(every.len() >= 2, "{every:?}");
    assert_eq!(all.total(), every.len() as u64);
    let page = c.get("/action/v1/public?_limit=1&_skip=1").await;
    assert_eq!(page.total(), every.len() as u64);
    assert_eq!(page.body, json!([every[1].clone()]));
}
