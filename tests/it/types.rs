//! The type service: versioned like objects, public and private.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn types_are_versioned_documents() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    let t = c
        .post(
            "/type/v1",
            json!({"_id": "#Commodity", "description": "a traded good"}),
        )
        .await;
    assert_eq!(t.status, 200);
    assert_eq!(t.body["_type"], "VarType");
    c.post(
        "/type/v1",
        json!({"_id": "#Commodity", "properties": {"unit": {"type": "string"}}}),
    )
    .await;
    let versions = c.get("/type/v1/public/%23Commodity/*").await;
    assert_eq!(versions.total(), 2);
    c.post("/type/v1", json!({"_id": "Gas", "_extends": "#Commodity"}))
        .await;
    let private = c.get("/type/v1/private/Gas").await;
    assert_eq!(private.body["_extends"], "#Commodity");
    let m = c
        .post("/type/v1", json!({"_id": "#Commodity", "_extends": "Gas"}))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("cycle"), "{m}");
    c.post("/type/v1", json!({"_id": "X", "properties": 3}))
        .await
        .assert_error(400, "INVALID_BODY");
    // Type writes follow the same role rules.
    let reader = s.client(Role::Reader);
    reader
        .post("/type/v1", json!({"_id": "Y"}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
}
