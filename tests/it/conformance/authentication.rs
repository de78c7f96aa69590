//! Authentication: the bearer token every request carries, environment selection by header,
//! and what the interface leaves to the decisions (how tokens are had; roles, permissions and
//! the public source; view features; data access roles).

use crate::common::{Client, TestServer};
use actix_web::http::Method;
use actix_web::test::TestRequest;
use base64::Engine as _;
use platform_core::auth::{Grant, Role};
use serde_json::json;

/// One call of every service of the interface, as (method, path, body).
fn one_call_of_every_service() -> Vec<(Method, &'static str, Option<serde_json::Value>)> {
    vec![
        (Method::GET, "/object/v1/private", None),
        (Method::GET, "/object/v1/public", None),
        (Method::GET, "/object/v1/private/A", None),
        (Method::POST, "/object/v1", Some(json!({"_id": "B"}))),
        (Method::PUT, "/object/v1/private/A/1/gold", None),
        (Method::DELETE, "/object/v1/private/A/*", None),
        (Method::GET, "/data/v1/private", None),
        (Method::GET, "/secret/v1", None),
        (Method::GET, "/extension/v1/public", None),
        (Method::GET, "/extension/v1/private", None),
        (Method::GET, "/validationconfig/v1", None),
        (Method::GET, "/validation/v1", None),
        (Method::GET, "/validation/v1?_function=stats", None),
        (Method::GET, "/automation/v1", None),
        (Method::GET, "/action/v1/public", None),
    ]
}

async fn call(
    c: &Client<'_>,
    method: &Method,
    path: &str,
    body: &Option<serde_json::Value>,
) -> u16 {
    match body {
        Some(b) => c.post(path, b.clone()).await.status,
        None => c.method(method.clone(), path).await.status,
    }
}

#[actix_rt::test]
async fn every_request_carries_a_bearer_token_and_without_one_it_is_refused() {
    let s = TestServer::new();
    let admin = s.client(Role::Admin);
    for (method, path, body) in one_call_of_every_service() {
        admin.save(json!({"_id": "A"})).await;
        let r = match &body {
            Some(b) => s.anonymous().post(path, b.clone()).await,
            None => s.anonymous().method(method.clone(), path).await,
        };
        let m = r.assert_error(401, "NOT_AUTHENTICATED");
        assert!(m.contains("Authorization"), "{method} {path}: {m}");
        // The same call with `Authorization: Bearer <token>` is answered.
        assert_eq!(
            call(&admin, &method, path, &body).await,
            200,
            "{method} {path}"
        );
    }
    // A refused call changes nothing.
    s.anonymous()
        .post("/object/v1", json!({"_id": "C"}))
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    admin
        .get("/object/v1/private/C")
        .await
        .assert_error(404, "NOT_FOUND");
    // Build information (`GET /{service}`) is the one answer given without a token: it tells
    // nothing of any tenant (see the area test `every_service_answers_build_information`).
}

#[actix_rt::test]
async fn a_token_that_is_not_a_valid_one_is_refused() {
    let s = TestServer::new();
    let c = s.client_of("acme", "carol", Role::Writer);
    for auth in [
        "Bearer pt_0000000000000000000000000000000000000000000000000000000000000000".to_string(),
        format!("Bearer {}x", c.token),
        "Bearer".to_string(),
        format!("Token {}", c.token),
        String::new(),
    ] {
        c.with_auth(&auth)
            .get("/object/v1/private")
            .await
            .assert_error(401, "NOT_AUTHENTICATED");
    }
    // The valid token authenticates the user it was issued for.
    let saved = c.save(json!({"_id": "A"})).await;
    assert_eq!(saved["_user"], "carol");
    // A revoked token is no longer valid.
    assert!(s.platform.tenancy().revoke_token(&c.token).unwrap());
    c.get("/object/v1/private")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
}

/// A save by a token the server keeps from an earlier request is authenticated in its own write
/// transaction, its body read without a read of its own first: a role lowered or the token
/// revoked since the token was kept is refused, and nothing is stored (a delete or a tag by it
/// alike).
#[actix_rt::test]
async fn a_save_by_a_kept_token_is_refused_once_its_role_is_lowered_or_it_is_revoked() {
    let s = TestServer::new();
    let c = s.client_of("acme", "carol", Role::Writer);
    let r = s.client_of("acme", "rita", Role::Reader);
    assert_eq!(c.save(json!({"_id": "A"})).await["_version"], 1);
    let tenancy = s.platform.tenancy();
    tenancy
        .create_token_setting_role("acme", "carol", Role::Reader)
        .unwrap();
    c.post("/object/v1", json!({"_id": "B"}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    tenancy
        .create_token_setting_role("acme", "carol", Role::Writer)
        .unwrap();
    assert_eq!(c.save(json!({"_id": "C"})).await["_version"], 1);
    assert!(tenancy.revoke_token(&c.token).unwrap());
    c.post("/object/v1", json!({"_id": "D"}))
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    for id in ["B", "D"] {
        r.get(&format!("/object/v1/private/{id}"))
            .await
            .assert_error(404, "NOT_FOUND");
    }
    // A delete and a tag by it alike: refused, and C stays as it was.
    c.method(Method::DELETE, "/object/v1/private/C")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    c.method(Method::PUT, "/object/v1/private/C/1/eod")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    let kept = r.get("/object/v1/private/C").await;
    assert_eq!((kept.status, &kept.body["_tag"]), (200, &json!([])));
}

#[actix_rt::test]
async fn the_x_platform_environment_header_selects_the_environment() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    s.platform
        .tenancy()
        .create_environment("acme", "uat")
        .unwrap();
    c.save(json!({"_id": "A", "env": "production"})).await;
    c.in_env("uat")
        .save(json!({"_id": "A", "env": "uat"}))
        .await;
    assert_eq!(
        c.in_env("uat").get("/object/v1/private/A").await.body["env"],
        "uat"
    );
    // Without the header, the production environment.
    assert_eq!(
        c.get("/object/v1/private/A").await.body["env"],
        "production"
    );
    assert_eq!(
        c.in_env("production")
            .get("/object/v1/private/A")
            .await
            .body["env"],
        "production"
    );
    // decisions.md 2: an environment that was never created is a 404 naming it.
    let m = c
        .in_env("staging")
        .get("/object/v1/private/A")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("staging"), "{m}");
}

#[actix_rt::test]
async fn tokens_are_issued_outside_the_interface_and_also_work_as_basic_credentials() {
    // How tokens are obtained is not shown. decisions.md 2 and docs/decisions.md "Tenants and
    // tokens": `platform token create` (the core's `create_token`) issues `pt_` + 64 hex
    // characters of randomness, a new one each time; `Basic base64(user:token)` is accepted
    // too, when the user part names the token's user.
    let s = TestServer::new();
    let first = s.client_of("acme", "carol", Role::Writer);
    let second = s.client_of("acme", "carol", Role::Writer);
    for t in [&first.token, &second.token] {
        let hex = t.strip_prefix("pt_").expect("pt_ prefix");
        assert_eq!(hex.len(), 64, "{t}");
        assert!(hex.chars().all(|c| c.is_ascii_hexdigit()), "{t}");
    }
    assert_ne!(first.token, second.token);
    let basic = |user: &str| {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{}", first.token))
        )
    };
    let r = first
        .with_auth(&basic("carol"))
        .post("/object/v1", json!({"_id": "A"}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_user"], "carol");
    first
        .with_auth(&basic("dave"))
        .get("/object/v1/private")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
}

#[actix_rt::test]
async fn roles_decide_who_reads_writes_administers_and_writes_the_public_source() {
    // Roles and permissions are not shown. decisions.md 2: reader (GET only) < writer (private
    // objects, data, configurations, runs) < admin (secrets, extensions, automations) < platform
    // (writes to the public source); a denied call is 403 with the reason and changes nothing.
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let reader = s.client(Role::Reader);
    let writer = s.client(Role::Writer);
    let admin = s.client(Role::Admin);
    let platform = s.client(Role::Platform);
    let object = json!({"_id": "A", "S": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]}});
    let config = json!({"_id": "A:S", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]});
    let secret = json!({"_id": "k", "value": "v"});
    // A global address (a webhook's default allows no other); nothing is delivered here.
    let hook = json!({"target": "platform.webhook", "properties": {"url": "http://93.184.215.14/hook"},
                      "conditions": [{"service": "object"}]});
    let public = json!({"_id": "#PUB"});

    // Reader: GETs only.
    assert_eq!(reader.get("/object/v1/private").await.status, 200);
    let m = reader
        .post("/object/v1", object.clone())
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("writer") && m.contains("reader"), "{m}");

    // Writer: private objects and data, configurations and runs; not secrets or automations.
    assert_eq!(writer.post("/object/v1", object).await.status, 200);
    assert_eq!(
        writer.post("/validationconfig/v1", config).await.status,
        200
    );
    let run = writer
        .post("/validation/v1?_function=run", json!({"target": "A:S"}))
        .await;
    assert_eq!(run.status, 200, "{:?}", run.body);
    reader
        .post("/validation/v1?_function=run", json!({"target": "A:S"}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    let m = writer
        .post("/secret/v1", secret.clone())
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("admin"), "{m}");
    writer
        .post("/automation/v1", hook.clone())
        .await
        .assert_error(403, "NOT_AUTHORIZED");

    // Admin: secrets and automations; not the public source.
    assert_eq!(admin.post("/secret/v1", secret).await.status, 200);
    assert_eq!(admin.post("/automation/v1", hook).await.status, 200);
    let m = admin
        .post("/object/v1", public.clone())
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("public") && m.contains("platform"), "{m}");
    reader
        .get("/object/v1/public/%23PUB")
        .await
        .assert_error(404, "NOT_FOUND");

    // Platform: writes the public source, which every tenant reads.
    assert_eq!(platform.post("/object/v1", public).await.status, 200);
    let other = s.client_of("globex", "gus", Role::Reader);
    assert_eq!(other.get("/object/v1/public/%23PUB").await.status, 200);
}

#[actix_rt::test]
async fn a_view_is_shown_only_to_users_holding_the_feature_it_names() {
    let s = TestServer::new();
    let ann = s.client_of("acme", "ann", Role::Admin);
    let r = ann
        .post(
            "/script/v1",
            json!({"_id": "page", "scriptType": "mustache", "script": "<p>{{view.name}} for {{user.id}}</p>"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = ann
        .post(
            "/extension/v1",
            json!({"_id": "acme.desk", "publisher": "acme", "code": "desk",
                   "views": [{"name": "open", "script": "page"},
                             {"name": "gated", "script": "page", "feature": "acme.desk.pro"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let view = |name: &str| {
        TestRequest::get()
            .uri(&format!("/extension/v1/private/acme.desk/view/{name}"))
            .insert_header(("authorization", format!("Bearer {}", ann.token)))
            .insert_header(("accept", "text/html"))
    };
    let open = s.send(view("open")).await;
    assert_eq!(open.status, 200, "{:?}", open.body);
    assert_eq!(open.body, json!("<p>open for ann</p>"));
    // decisions.md 2 and docs/decisions.md "Extensions": without the feature, a 403 naming it.
    let m = s
        .send(view("gated"))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("acme.desk.pro"), "{m}");
    s.platform
        .tenancy()
        .grant("acme", "ann", &Grant::Feature("acme.desk.pro".into()))
        .unwrap();
    let gated = s.send(view("gated")).await;
    assert_eq!(gated.body, json!("<p>gated for ann</p>"));
}

#[actix_rt::test]
async fn data_carries_its_access_role_in_access_and_only_holders_of_it_read_it() {
    let s = TestServer::new();
    let writer = s.client(Role::Writer);
    writer
        .save(json!({"_id": "BOOK",
            "PNL": {"_type": "VarTimeSeries", "_access": "traders", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]},
            "OPEN": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 2}]}}))
        .await;
    let rita = s.client_of("acme", "rita", Role::Reader);
    // decisions.md 2: for a user without the role the data is absent from lists and a 404.
    rita.get("/data/v1/private/BOOK:PNL")
        .await
        .assert_error(404, "NOT_FOUND");
    let list = rita.get("/data/v1/private").await;
    assert_eq!(
        (list.total(), list.body[0]["_id"].clone()),
        (1, json!("BOOK:OPEN"))
    );
    s.platform
        .tenancy()
        .grant("acme", "rita", &Grant::Access("traders".into()))
        .unwrap();
    let pnl = rita.get("/data/v1/private/BOOK:PNL").await;
    assert_eq!(pnl.status, 200, "{:?}", pnl.body);
    assert_eq!(pnl.body["_access"], "traders");
    assert_eq!(rita.get("/data/v1/private").await.total(), 2);
}
