//! Extension realtime messages: on install, upgrade and uninstall, messages go to the realtime
//! services and reach the subscribers of the extension; the payload is `{message}` with
//! timestamped text.
//!
//! The subscription protocol and transport are not shown: decisions.md 10 and
//! docs/decisions.md "Extensions" make them Server-Sent Events at
//! `GET /extension/v1/private/{id}/messages` (one extension) and `GET /extension/v1/realtime`
//! (all), one `data: <json>` line per message; `_limit=N` ends a stream after N messages. The
//! method name `OnExtensionMessage` belongs to the comparable platform's client transport and
//! is not carried by these streams.

use crate::common::{Client, TestServer};
use actix_web::test::TestRequest;
use platform_core::auth::Role;
use serde_json::{json, Value};
use std::time::Duration;

/// Publishes `acme.<code>` (no lifecycle scripts) from tenant acme.
async fn publish(acme: &Client<'_>, code: &str) {
    let id = format!("acme.{code}");
    let r = acme
        .post(
            "/extension/v1",
            json!({"_id": id, "publisher": "acme", "code": code, "name": code}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = acme
        .post("/extension/v1/public?_publish=true", json!({"_id": id}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

async fn install(c: &Client<'_>, id: &str) -> Value {
    let r = c
        .post("/extension/v1/private?_publish=true", json!({"_id": id}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

async fn uninstall(c: &Client<'_>, id: &str) {
    let r = c.delete(&format!("/extension/v1/private/{id}")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

/// Opens a stream at `path` as `c`.
async fn subscribe(s: &TestServer, c: &Client<'_>, path: &str) -> actix_web::dev::ServiceResponse {
    let mut req = TestRequest::get()
        .uri(path)
        .insert_header(("authorization", format!("Bearer {}", c.token)));
    if let Some(env) = &c.env {
        req = req.insert_header(("x-platform-environment", env.clone()));
    }
    let stream = s.start(req).await;
    assert_eq!(stream.status(), 200);
    assert_eq!(
        stream.headers().get("content-type").unwrap(),
        "text/event-stream"
    );
    stream
}

/// The payloads of a stream that ends after its `_limit` (failing instead of waiting forever
/// when fewer messages come).
async fn payloads(stream: actix_web::dev::ServiceResponse) -> Vec<Value> {
    let body = actix_rt::time::timeout(Duration::from_secs(10), actix_web::test::read_body(stream))
        .await
        .expect("the stream ends after its _limit of messages");
    String::from_utf8(body.to_vec())
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

fn texts(payloads: &[Value]) -> Vec<String> {
    payloads
        .iter()
        .map(|p| p["message"].as_str().unwrap().to_string())
        .collect()
}

#[actix_rt::test]
async fn install_upgrade_and_uninstall_send_messages_to_the_subscribers_of_the_extension() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    publish(&acme, "tool").await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    // A subscriber of the extension (before it is installed).
    let stream = subscribe(
        &s,
        &globex,
        "/extension/v1/private/acme.tool/messages?_limit=3",
    )
    .await;
    // Another tenant's install, and another environment's, do not reach it.
    install(&s.client_of("initech", "ida", Role::Admin), "acme.tool").await;
    s.platform
        .tenancy()
        .create_environment("globex", "uat")
        .unwrap();
    install(&globex.in_env("uat"), "acme.tool").await;
    assert_eq!(install(&globex, "acme.tool").await["action"], "install");
    assert_eq!(install(&globex, "acme.tool").await["action"], "upgrade");
    uninstall(&globex, "acme.tool").await;
    let got = texts(&payloads(stream).await);
    assert_eq!(got.len(), 3, "{got:?}");
    for (message, verb) in got.iter().zip(["Installed", "Upgraded", "Uninstalled"]) {
        assert!(
            message.contains(&format!("{verb} extension acme.tool")),
            "{verb}: {message}"
        );
        assert!(message.contains("production"), "{message}");
    }
}

#[actix_rt::test]
async fn a_message_is_an_object_with_one_string_field_message_of_timestamped_text() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let acme = s.client_of("acme", "ann", Role::Admin);
    publish(&acme, "tool").await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    let stream = subscribe(
        &s,
        &globex,
        "/extension/v1/private/acme.tool/messages?_limit=1",
    )
    .await;
    install(&globex, "acme.tool").await;
    let got = payloads(stream).await;
    assert_eq!(got.len(), 1);
    let fields: Vec<&String> = got[0].as_object().unwrap().keys().collect();
    assert_eq!(fields, ["message"]);
    let text = got[0]["message"].as_str().expect("a string");
    let (stamp, rest) = text.split_once(' ').unwrap();
    assert_eq!(
        chrono::DateTime::parse_from_rfc3339(stamp).unwrap(),
        chrono::DateTime::parse_from_rfc3339("2024-07-08T12:00:00Z").unwrap(),
        "{text}"
    );
    assert!(rest.contains("Installed extension acme.tool"), "{text}");
}

#[actix_rt::test]
async fn the_realtime_stream_of_the_extension_service_carries_the_messages_of_every_extension() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    publish(&acme, "one").await;
    publish(&acme, "two").await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    let stream = subscribe(&s, &globex, "/extension/v1/realtime?_limit=2").await;
    install(&globex, "acme.one").await;
    install(&globex, "acme.two").await;
    let got = texts(&payloads(stream).await);
    assert!(got[0].contains("Installed extension acme.one"), "{got:?}");
    assert!(got[1].contains("Installed extension acme.two"), "{got:?}");
}
