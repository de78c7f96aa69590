//! Secret service: `{base_url}/secret`: the list without values, one secret, create or update,
//! delete.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn get_lists_all_secrets_without_their_values() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    for (id, value) in [("smtp", "hunter2"), ("api", "k-123")] {
        let r = c
            .post("/secret/v1", json!({"_id": id, "value": value}))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    let r = c.get("/secret/v1").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.total(), 2);
    let items = r.body.as_array().unwrap();
    let listed: Vec<&str> = items.iter().map(|i| i["_id"].as_str().unwrap()).collect();
    assert_eq!(listed, ["api", "smtp"]);
    for item in items {
        assert_eq!(item["_type"], "VarSecret", "{item}");
        assert!(item.get("value").is_none(), "{item}");
    }
    let text = r.body.to_string();
    assert!(
        !text.contains("hunter2") && !text.contains("k-123"),
        "{text}"
    );
}

#[actix_rt::test]
async fn get_key_reads_one_secret() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    c.post(
        "/secret/v1",
        json!({"_id": "smtp", "value": "hunter2", "notBefore": "2024-01-01", "expires": "2099-12-31"}),
    )
    .await;
    let r = c.get("/secret/v1/smtp").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (
            r.body["_id"].clone(),
            r.body["_type"].clone(),
            r.body["value"].clone(),
            r.body["enabled"].clone(),
            r.body["notBefore"].clone(),
            r.body["expires"].clone()
        ),
        (
            json!("smtp"),
            json!("VarSecret"),
            json!("hunter2"),
            json!(true),
            json!("2024-01-01"),
            json!("2099-12-31")
        )
    );
    c.get("/secret/v1/nope")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn post_creates_or_updates_a_secret() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let created = c
        .post("/secret/v1", json!({"_id": "api", "value": "one"}))
        .await;
    assert_eq!(created.status, 200, "{:?}", created.body);
    assert_eq!(c.get("/secret/v1/api").await.body["value"], "one");
    let updated = c
        .post(
            "/secret/v1",
            json!({"_id": "api", "value": "two", "enabled": false}),
        )
        .await;
    assert_eq!(updated.status, 200, "{:?}", updated.body);
    let read = c.get("/secret/v1/api").await.body;
    assert_eq!(
        (read["value"].clone(), read["enabled"].clone()),
        (json!("two"), json!(false))
    );
    assert_eq!(c.get("/secret/v1").await.total(), 1);
}

#[actix_rt::test]
async fn delete_removes_a_secret() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    c.post("/secret/v1", json!({"_id": "api", "value": "one"}))
        .await;
    c.post("/secret/v1", json!({"_id": "keep", "value": "two"}))
        .await;
    let r = c.delete("/secret/v1/api").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.get("/secret/v1/api").await.assert_error(404, "NOT_FOUND");
    let left = c.get("/secret/v1").await;
    assert_eq!(
        (left.total(), left.body[0]["_id"].clone()),
        (1, json!("keep"))
    );
    c.delete("/secret/v1/api")
        .await
        .assert_error(404, "NOT_FOUND");
}
