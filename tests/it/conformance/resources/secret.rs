//! Secret: `_id`, `_type` VarSecret, the value, `enabled` (default true), and the optional
//! `notBefore` and `expires` dates bounding when it is valid.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn id_is_unique_and_type_is_always_var_secret() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    for body in [
        json!({"_id": "smtp", "value": "a"}),
        json!({"_id": "smtp", "value": "b", "_type": "Other"}),
    ] {
        let r = c.post("/secret/v1", body).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["_type"], "VarSecret");
    }
    // Saving the id again updates the one secret.
    let list = c.get("/secret/v1").await;
    assert_eq!(list.total(), 1);
    let one = c.get("/secret/v1/smtp").await.body;
    assert_eq!(
        (
            one["_id"].clone(),
            one["_type"].clone(),
            one["value"].clone()
        ),
        (json!("smtp"), json!("VarSecret"), json!("b"))
    );
}

#[actix_rt::test]
async fn value_is_the_secret_itself() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    c.post(
        "/secret/v1",
        json!({"_id": "api", "value": "k-123 with spaces & symbols"}),
    )
    .await;
    assert_eq!(
        c.get("/secret/v1/api").await.body["value"],
        "k-123 with spaces & symbols"
    );
    // decisions.md 8: the list shows no values.
    assert!(c.get("/secret/v1").await.body[0].get("value").is_none());
}

#[actix_rt::test]
async fn enabled_defaults_to_true() {
    let s = TestServer::at("2024-07-10T12:00:00Z");
    let c = s.client(Role::Admin);
    c.post("/secret/v1", json!({"_id": "on", "value": "v"}))
        .await;
    c.post(
        "/secret/v1",
        json!({"_id": "off", "value": "v", "enabled": false}),
    )
    .await;
    let on = c.get("/secret/v1/on").await.body;
    let off = c.get("/secret/v1/off").await.body;
    // decisions.md 8: a disabled secret is returned with "active": false.
    assert_eq!(
        (on["enabled"].clone(), on["active"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(
        (off["enabled"].clone(), off["active"].clone()),
        (json!(false), json!(false))
    );
}

#[actix_rt::test]
async fn not_before_and_expires_bound_the_dates_the_secret_is_valid() {
    // decisions.md 8: outside notBefore..expires a secret is returned with "active": false;
    // docs/decisions.md, "Secrets": a date covers its whole day.
    let s = TestServer::at("2024-07-10T12:00:00Z");
    let c = s.client(Role::Admin);
    let cases = [
        (json!({"notBefore": "2024-07-10"}), true),
        (json!({"notBefore": "2024-07-11"}), false),
        (json!({"expires": "2024-07-10"}), true),
        (json!({"expires": "2024-07-09"}), false),
        (
            json!({"notBefore": "2024-07-01", "expires": "2024-07-31"}),
            true,
        ),
        (json!({}), true),
    ];
    for (i, (dates, active)) in cases.iter().enumerate() {
        let mut body = dates.clone();
        body["_id"] = json!(format!("s{i}"));
        body["value"] = json!("v");
        let r = c.post("/secret/v1", body).await;
        assert_eq!(r.status, 200, "{dates}: {:?}", r.body);
        let got = c.get(&format!("/secret/v1/s{i}")).await.body;
        assert_eq!(got["active"], json!(active), "{dates}: {got}");
        for (k, v) in dates.as_object().unwrap() {
            assert_eq!(&got[k], v, "{k} of {got}");
        }
    }
    // Time passes: the secret that was not yet valid becomes valid, the one valid until today expires.
    s.advance(24 * 3600);
    assert_eq!(c.get("/secret/v1/s1").await.body["active"], true);
    assert_eq!(c.get("/secret/v1/s2").await.body["active"], false);
    // A date that is not one is refused.
    c.post(
        "/secret/v1",
        json!({"_id": "bad", "value": "v", "expires": "soon"}),
    )
    .await
    .assert_error(400, "INVALID_BODY");
}
