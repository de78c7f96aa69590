//! The script service: versioned like objects, public and private, compiled when saved.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn scripts_are_versioned_public_and_private() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    let r = c.post("/script/v1", json!({"_id": "#lib", "scriptType": "rhai", "script": "fn double(x) { x * 2 }", "category": "library"})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_type"], "VarScript");
    c.post(
        "/script/v1",
        json!({"_id": "#lib", "script": "fn double(x) { x + x }"}),
    )
    .await;
    let versions = c.get("/script/v1/public/%23lib/*").await;
    assert_eq!(versions.total(), 2);
    assert_eq!(
        c.get("/script/v1/public/%23lib/1").await.body["script"],
        "fn double(x) { x * 2 }"
    );
    c.post("/script/v1", json!({"_id": "mine", "script": "1 + 1"}))
        .await;
    assert_eq!(c.get("/script/v1/private").await.total(), 1);
    assert_eq!(c.get("/script/v1/all?_id=%23lib&_id=mine").await.total(), 2);
    // Rollback works as for objects.
    c.delete("/script/v1/public/%23lib").await;
    assert_eq!(
        c.get("/script/v1/public/%23lib").await.body["script"],
        "fn double(x) { x * 2 }"
    );
}

#[actix_rt::test]
async fn scripts_that_do_not_compile_are_refused() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let m = c
        .post("/script/v1", json!({"_id": "bad", "script": "let = ;"}))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("does not compile"), "{m}");
    c.post(
        "/script/v1",
        json!({"_id": "bad", "scriptType": "python", "script": "x"}),
    )
    .await
    .assert_error(400, "INVALID_BODY");
    c.post("/script/v1", json!({"_id": "bad", "scriptType": "rhai"}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    c.get("/script/v1/private/bad")
        .await
        .assert_error(404, "NOT_FOUND");
    // A merge that breaks a stored script is refused, and the stored one stays.
    c.post("/script/v1", json!({"_id": "ok", "script": "1"}))
        .await;
    c.post("/script/v1", json!({"_id": "ok", "script": "1 +"}))
        .await
        .assert_error(400, "INVALID_BODY");
    assert_eq!(c.get("/script/v1/private/ok").await.body["script"], "1");
    // Writers may not write public scripts.
    c.post("/script/v1", json!({"_id": "#x", "script": "1"}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
}
