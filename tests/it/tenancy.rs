//! Authentication, tenants and environments over HTTP.

use crate::common::TestServer;
use base64::Engine as _;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn no_bad_or_revoked_credentials_are_401() {
    let s = TestServer::new();
    let m = s
        .anonymous()
        .get("/object/v1/private")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    assert!(m.contains("Authorization"), "{m}");
    let c = s.client(Role::Writer);
    c.with_auth("Bearer pt_0000")
        .get("/object/v1/private")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    c.with_auth("Token abc")
        .get("/object/v1/private")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    assert_eq!(c.get("/object/v1/private").await.status, 200);
    assert!(s.platform.tenancy().revoke_token(&c.token).unwrap());
    c.get("/object/v1/private")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    // A write without credentials changes nothing.
    s.anonymous()
        .post("/object/v1", json!({"_id": "A"}))
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    let other = s.client(Role::Writer);
    other
        .get("/object/v1/private/A")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn basic_auth_takes_user_and_token() {
    let s = TestServer::new();
    let c = s.client_of("acme", "carol", Role::Writer);
    let basic = |user: &str| {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{}", c.token))
        )
    };
    let ok = c
        .with_auth(&basic("carol"))
        .post("/object/v1", json!({"_id": "A"}))
        .await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.body["_user"], "carol");
    c.with_auth(&basic("dave"))
        .get("/object/v1/private")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
}

#[actix_rt::test]
async fn another_tenants_private_ids_are_404() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "alice", Role::Admin);
    acme.save(json!({"_id": "SECRETPLAN", "v": 1})).await;
    let globex = s.client_of("globex", "bob", Role::Admin);
    globex
        .get("/object/v1/private/SECRETPLAN")
        .await
        .assert_error(404, "NOT_FOUND");
    globex
        .get("/object/v1/private/SECRETPLAN/1")
        .await
        .assert_error(404, "NOT_FOUND");
    globex
        .get("/object/v1/private/SECRETPLAN/*")
        .await
        .assert_error(404, "NOT_FOUND");
    globex
        .delete("/object/v1/private/SECRETPLAN")
        .await
        .assert_error(404, "NOT_FOUND");
    globex
        .put("/object/v1/private/SECRETPLAN/1/mine")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(globex.get("/object/v1/private").await.total(), 0);
    assert_eq!(
        globex.get("/object/v1/all?_id=SECRETPLAN").await.body,
        json!([])
    );
    // Globex may use the same id for its own object; acme's stays untouched.
    assert_eq!(
        globex.save(json!({"_id": "SECRETPLAN", "v": 99})).await["_version"],
        1
    );
    let mine = acme.get("/object/v1/private/SECRETPLAN").await.body;
    assert_eq!(
        (mine["v"].clone(), mine["_tag"].clone()),
        (json!(1), json!([]))
    );
}

#[actix_rt::test]
async fn environments_partition_private_data() {
    let s = TestServer::new();
    let prod = s.client(Role::Writer);
    s.platform
        .tenancy()
        .create_environment("acme", "test")
        .unwrap();
    let test = prod.in_env("test");
    prod.save(json!({"_id": "A", "env": "production"})).await;
    test.save(json!({"_id": "A", "env": "test"})).await;
    test.save(json!({"_id": "ONLYTEST"})).await;
    assert_eq!(
        prod.get("/object/v1/private/A").await.body["env"],
        "production"
    );
    assert_eq!(test.get("/object/v1/private/A").await.body["env"], "test");
    prod.get("/object/v1/private/ONLYTEST")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(
        prod.in_env("production")
            .get("/object/v1/private")
            .await
            .total(),
        1
    );
    assert_eq!(test.get("/object/v1/private").await.total(), 2);
    // The public source is the same in every environment.
    let platform = s.client(Role::Platform);
    platform.save(json!({"_id": "#SHARED"})).await;
    assert_eq!(test.get("/object/v1/public/%23SHARED").await.status, 200);
    // An environment that was never created is 404 and stores nothing.
    let m = prod
        .in_env("staging")
        .get("/object/v1/private")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("staging"), "{m}");
    prod.in_env("staging")
        .post("/object/v1", json!({"_id": "Z"}))
        .await
        .assert_error(404, "NOT_FOUND");
    // Another tenant's environment of the same name is not this tenant's.
    let globex = s.client_of("globex", "bob", Role::Writer);
    globex
        .in_env("test")
        .get("/object/v1/private")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn a_users_role_is_the_one_last_granted() {
    let s = TestServer::new();
    let writer = s.client_of("acme", "erin", Role::Writer);
    assert_eq!(
        writer.post("/object/v1", json!({"_id": "A"})).await.status,
        200
    );
    // A reader token for the same user is refused: it would change the user's role.
    let refused = s
        .platform
        .tenancy()
        .create_token("acme", "erin", Role::Reader)
        .unwrap_err();
    assert_eq!(refused.code(), platform_core::ErrorCode::Conflict);
    assert_eq!(
        writer.post("/object/v1", json!({"_id": "B"})).await.status,
        200
    );
    // Asked for, it changes the role of every token of the user.
    s.platform
        .tenancy()
        .create_token_setting_role("acme", "erin", Role::Reader)
        .unwrap();
    writer
        .post("/object/v1", json!({"_id": "C"}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
}

#[actix_rt::test]
async fn an_admin_lists_its_own_tenants_tokens_with_the_role_each_acts_with() {
    let s = TestServer::new();
    let admin = s.client_of("acme", "ann", Role::Admin);
    let bob = s.client_of("acme", "bob", Role::Writer);
    s.client_of("other", "olga", Role::Admin);
    // Bob's role changes: his token acts as a reader from then on.
    s.platform
        .tenancy()
        .create_token_setting_role("acme", "bob", Role::Reader)
        .unwrap();
    let r = admin.get("/token/v1").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.headers.get("x-total-count").unwrap(), "3");
    let rows: Vec<(String, String, String)> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["tenant"].as_str().unwrap().to_string(),
                t["user"].as_str().unwrap().to_string(),
                t["role"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let row = |u: &str, role: &str| ("acme".to_string(), u.to_string(), role.to_string());
    assert_eq!(
        rows,
        [
            row("ann", "admin"),
            row("bob", "reader"),
            row("bob", "reader")
        ]
    );
    assert!(
        !r.body.to_string().contains(&admin.token),
        "never the token"
    );
    let fields: Vec<&String> = r.body[0].as_object().unwrap().keys().collect();
    assert_eq!(
        fields,
        ["id", "tenant", "user", "role", "created", "revoked"]
    );
    assert_eq!(admin.get("/token/v1?tenant=acme").await.body, r.body);
    // Another tenant's tokens are not found; a writer or reader may not list.
    let m = admin
        .get("/token/v1?tenant=other")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("other"), "{m}");
    let m = bob
        .get("/token/v1")
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("admin"), "{m}");
    s.client(Role::Writer)
        .get("/token/v1")
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    s.anonymous()
        .get("/token/v1")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
}
