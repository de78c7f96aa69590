//! The secret service: encrypted at rest, admin only, never listed with values.

use crate::common::TestServer;
use platform_core::api::secrets::Secret;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn secrets_round_trip_without_values_in_lists() {
    let s = TestServer::at("2024-07-10T12:00:00Z");
    let admin = s.client(Role::Admin);
    let saved = admin
        .post(
            "/secret/v1",
            json!({"_id": "smtp", "value": "hunter2", "notBefore": "2024-01-01"}),
        )
        .await;
    assert_eq!(saved.status, 200, "{:?}", saved.body);
    assert_eq!(saved.body["_type"], "VarSecret");
    assert_eq!(saved.body["enabled"], true);
    assert_eq!(saved.body["active"], true);
    assert!(
        saved.body.get("value").is_none(),
        "the answer to a save shows no value"
    );
    let one = admin.get("/secret/v1/smtp").await;
    assert_eq!(one.body["value"], "hunter2");
    admin
        .post(
            "/secret/v1",
            json!({"_id": "api", "value": "k-123", "enabled": false}),
        )
        .await;
    admin
        .post(
            "/secret/v1",
            json!({"_id": "old", "value": "x", "expires": "2024-07-09"}),
        )
        .await;
    admin
        .post(
            "/secret/v1",
            json!({"_id": "later", "value": "x", "notBefore": "2024-08-01"}),
        )
        .await;
    let list = admin.get("/secret/v1").await;
    assert_eq!(list.total(), 4);
    for item in list.body.as_array().unwrap() {
        assert!(item.get("value").is_none(), "{item}");
    }
    let active: Vec<(String, bool)> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["_id"].as_str().unwrap().to_string(),
                i["active"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        active,
        vec![
            ("api".into(), false),
            ("later".into(), false),
            ("old".into(), false),
            ("smtp".into(), true)
        ]
    );
    // An update without a value keeps the value.
    admin
        .post("/secret/v1", json!({"_id": "smtp", "enabled": false}))
        .await;
    let updated = admin.get("/secret/v1/smtp").await.body;
    assert_eq!(
        (updated["value"].clone(), updated["active"].clone()),
        (json!("hunter2"), json!(false))
    );
    assert_eq!(
        admin.delete("/secret/v1/smtp").await.body,
        json!({"_id": "smtp", "deleted": true})
    );
    admin
        .get("/secret/v1/smtp")
        .await
        .assert_error(404, "NOT_FOUND");
    admin
        .delete("/secret/v1/smtp")
        .await
        .assert_error(404, "NOT_FOUND");
}

/// The caller's role is checked before the body is read: a writer's malformed secret is
/// refused for the role, an admin's for the body.
#[actix_rt::test]
async fn a_secret_is_refused_for_the_role_before_its_body() {
    let s = TestServer::new();
    let writer = s.client(Role::Writer);
    for body in [json!([]), json!({"_id": "#k", "value": 1})] {
        let m = writer
            .post("/secret/v1", body)
            .await
            .assert_error(403, "NOT_AUTHORIZED");
        assert!(m.starts_with("writing secrets needs the admin role"), "{m}");
    }
    let admin = s.client(Role::Admin);
    let m = admin
        .post("/secret/v1", json!([]))
        .await
        .assert_error(400, "INVALID_BODY");
    assert_eq!(m, "a secret must be a JSON object, not an array");
}

#[actix_rt::test]
async fn scripts_read_only_active_secrets() {
    let s = TestServer::at("2024-07-10T12:00:00Z");
    let admin = s.client(Role::Admin);
    for body in [
        json!({"_id": "ok", "value": "v1"}),
        json!({"_id": "off", "value": "v2", "enabled": false}),
        json!({"_id": "old", "value": "v3", "expires": "2024-07-09"}),
        json!({"_id": "later", "value": "v4", "notBefore": "2024-07-11"}),
    ] {
        assert_eq!(admin.post("/secret/v1", body).await.status, 200);
    }
    let who = s
        .platform
        .tenancy()
        .authenticate(
            Some(&platform_core::auth::Credentials::Bearer(
                admin.token.clone(),
            )),
            None,
        )
        .unwrap();
    assert_eq!(s.platform.secrets().value(&who, "ok").unwrap(), "v1");
    for (id, why) in [
        ("off", "disabled"),
        ("old", "expired on 2024-07-09"),
        ("later", "not valid before 2024-07-11"),
    ] {
        let err = s.platform.secrets().value(&who, id).unwrap_err();
        assert!(err.to_string().contains(why), "{id}: {err}");
    }
}

#[actix_rt::test]
async fn secrets_need_admin_and_stay_in_their_tenant_and_environment() {
    let s = TestServer::new();
    let admin = s.client(Role::Admin);
    admin
        .post("/secret/v1", json!({"_id": "k", "value": "v"}))
        .await;
    let writer = s.client(Role::Writer);
    for r in [
        writer.get("/secret/v1").await,
        writer.get("/secret/v1/k").await,
        writer
            .post("/secret/v1", json!({"_id": "k", "value": "w"}))
            .await,
        writer.delete("/secret/v1/k").await,
    ] {
        r.assert_error(403, "NOT_AUTHORIZED");
    }
    let other = s.client_of("globex", "gina", Role::Admin);
    other
        .get("/secret/v1/k")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(other.get("/secret/v1").await.total(), 0);
    s.platform
        .tenancy()
        .create_environment("acme", "test")
        .unwrap();
    admin
        .in_env("test")
        .get("/secret/v1/k")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(admin.get("/secret/v1/k").await.body["value"], "v");
    // Bad input changes nothing.
    admin
        .post("/secret/v1", json!({"_id": "#pub", "value": "v"}))
        .await
        .assert_error(400, "INVALID_ID");
    admin
        .post("/secret/v1", json!({"_id": "n"}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    admin
        .post("/secret/v1", json!({"_id": "k", "value": 5}))
        .await
        .assert_error(400, "INVALID_BODY");
    admin
        .post("/secret/v1", json!({"_id": "k", "expires": "soon"}))
        .await
        .assert_error(400, "INVALID_BODY");
    assert_eq!(admin.get("/secret/v1/k").await.body["value"], "v");
    assert_eq!(admin.get("/secret/v1").await.total(), 1);
}

#[test]
fn values_are_not_in_the_database_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let platform = platform_core::Platform::open(&db).unwrap();
    let who = platform.tenancy().local_principal("acme", "ann").unwrap();
    let value = "correct-horse-battery-staple-4f9a";
    platform
        .secrets()
        .save(
            &who,
            &Secret::from_body(
                &json!({"_id": "vault", "value": value, "note": "visible metadata"}),
            )
            .unwrap(),
        )
        .unwrap();
    platform.close().unwrap();
    let mut bytes = std::fs::read(&db).unwrap();
    if let Ok(wal) = std::fs::read(dir.path().join("p.db-wal")) {
        bytes.extend(wal);
    }
    let contains = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(
        contains(b"visible metadata"),
        "the metadata is stored in the file (the search works)"
    );
    assert!(!contains(value.as_bytes()), "the value is sealed");
    // The key file is beside the database, readable by its owner only, and opens the value again.
    let key = dir.path().join("p.db.key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let reopened = platform_core::Platform::open(&db).unwrap();
    assert_eq!(
        reopened
            .secrets()
            .secret(&who, "vault")
            .unwrap()
            .secret
            .value,
        Some(value.to_string())
    );
    // With another key the value does not open.
    std::fs::remove_file(&key).unwrap();
    let other_key = platform_core::Platform::open(&db).unwrap();
    assert!(other_key.secrets().secret(&who, "vault").is_err());
}

#[actix_rt::test]
async fn a_script_reads_a_secret_through_its_function() {
    let s = TestServer::at("2024-07-10T12:00:00Z");
    let admin = s.client(Role::Admin);
    admin
        .post("/secret/v1", json!({"_id": "ok", "value": "v1"}))
        .await;
    admin
        .post(
            "/secret/v1",
            json!({"_id": "off", "value": "v2", "enabled": false}),
        )
        .await;
    let who = s
        .platform
        .tenancy()
        .authenticate(
            Some(&platform_core::auth::Credentials::Bearer(
                admin.token.clone(),
            )),
            None,
        )
        .unwrap();
    let run = |src: &str| {
        platform_core::scripts::host::run(&s.platform, &who, "x.y", src, "test", json!({}))
    };
    assert_eq!(run("secret(\"ok\") + \"!\"").unwrap(), json!("v1!"));
    let err = run("secret(\"off\")").unwrap_err();
    assert!(
        err.to_string().contains("secret \"off\" is disabled"),
        "{err}"
    );
    let err = run("secret(\"missing\")").unwrap_err();
    assert!(err.to_string().contains("not found"), "{err}");
}
