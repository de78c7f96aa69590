//! Where webhooks may go: URLs parsed by WHATWG rules and checked against `--webhook-allow` at
//! the save and at the delivery (backslashes, userinfo, IPv6 literals, decimal and octal IPv4
//! hosts), listed networks, and names checked again on the addresses they resolve to when the
//! client connects (a resolver injected into the server's network client, so no DNS is used).

use crate::automation::{automation, log, settings, webhook_on, Webhook};
use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use platform_core::events::deliver::DeliverySettings;
use platform_core::events::webhook::WebhookAllow;
use platform_core::Platform;
use platform_server::outbound::Network;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::Arc;

const NOW: &str = "2024-07-08T12:00:00Z";

fn allowing(entries: &[&str]) -> DeliverySettings {
    DeliverySettings {
        webhook_allow: Some(WebhookAllow::parse(entries).unwrap()),
        ..settings(None)
    }
}

/// A network client where `hooks.example` resolves to `to` (other names as the system says).
fn resolving_hooks_example_to(to: SocketAddr) -> Arc<Network> {
    Arc::new(Network::with_resolver(move |netloc: &str| {
        match netloc.rsplit_once(':') {
            Some(("hooks.example", _)) => Ok(vec![to]),
            _ => std::net::ToSocketAddrs::to_socket_addrs(netloc).map(Iterator::collect),
        }
    }))
}

fn id(a: &Value) -> String {
    a["_id"].as_str().unwrap().to_string()
}

/// The automation log entries of `a`, newest first.
async fn entries(c: &Client<'_>, a: &Value) -> Vec<Value> {
    log(c, &format!("?automation={}", id(a))).await
}

/// Saving refuses the URL as a 400 naming `host`, and stores nothing.
async fn refused_at_save(c: &Client<'_>, url: &str, host: &str) {
    let before = c.get("/automation/v1").await.body;
    let r = c
        .post("/automation/v1", webhook_on(url, "object", "*", "*"))
        .await;
    let message = r.assert_error(400, "INVALID_PARAMETER");
    assert!(
        message.contains(&format!("host {host} is not among the webhook hosts")),
        "{url}: {message}"
    );
    assert_eq!(c.get("/automation/v1").await.body, before, "{url}");
}

#[actix_rt::test]
async fn webhook_hosts_are_checked_as_the_client_parses_them() {
    let v4 = Webhook::start(vec![]);
    let v6 = Webhook::start_on("[::1]:0", vec![]);
    let (p4, p6) = (v4.port(), v6.port());
    // Each URL reaches loopback, whatever its text seems to name.
    let attacks = [
        (
            format!("http://127.0.0.1:{p4}\\@localhost:1/x"),
            "127.0.0.1",
        ),
        (format!("http://localhost@127.0.0.1:{p4}/hook"), "127.0.0.1"),
        (format!("http://2130706433:{p4}/hook"), "127.0.0.1"),
        (format!("http://0177.0.0.1:{p4}/hook"), "127.0.0.1"),
        (
            format!("http://[::ffff:127.0.0.1]:{p4}/hook"),
            "[::ffff:127.0.0.1]",
        ),
        (format!("http://[::1]:{p6}/hook"), "[::1]"),
        (format!("http://[0:0::1]:{p6}/hook"), "[::1]"),
    ];

    // With --webhook-allow localhost, the save refuses each, naming the host it really is.
    let strict = TestServer::at_with_delivery(NOW, allowing(&["localhost"]));
    let admin = strict.client(Role::Admin);
    for (url, host) in &attacks {
        refused_at_save(&admin, url, host).await;
    }
    // localhost itself is allowed and delivered to (loopback, since the name is localhost).
    let fine = automation(
        &admin,
        webhook_on(&format!("http://localhost:{p4}/hook"), "object", "*", "*"),
    )
    .await;
    admin.save(json!({"_id": "A"})).await;
    strict.platform.deliveries().run_due().unwrap();
    assert_eq!(entries(&admin, &fine).await[0]["status"], "success");
    assert_eq!((v4.received().len(), v6.received().len()), (1, 0));

    // Automations saved while no allow-list was set, then delivered by a server that has one:
    // the delivery checks the host again and sends nothing.
    let lax = TestServer::at_with_delivery(NOW, settings(None));
    let admin = lax.client(Role::Admin);
    let mut saved = Vec::new();
    for (url, _) in &attacks {
        saved.push(automation(&admin, webhook_on(url, "object", "*", "*")).await);
    }
    let strict: Platform = lax.platform.clone().with_delivery(allowing(&["localhost"]));
    admin.save(json!({"_id": "A"})).await;
    strict.deliveries().run_due().unwrap();
    for ((url, host), a) in attacks.iter().zip(&saved) {
        let e = entries(&admin, a).await;
        assert_eq!(e.len(), 1, "{url}");
        assert_eq!(e[0]["status"], "failed", "{url}: {e:?}");
        let message = e[0]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("host {host} is not among the webhook hosts")),
            "{url}: {message}"
        );
    }
    assert_eq!((v4.received().len(), v6.received().len()), (1, 0));

    // Without an allow-list any host is allowed: the same automations reach the receivers,
    // which shows where each URL really goes.
    admin.save(json!({"_id": "B"})).await;
    lax.platform.deliveries().run_due().unwrap();
    assert_eq!((v4.received().len(), v6.received().len()), (1 + 5, 2));
    let paths: Vec<String> = v4.received().iter().map(|r| r.path.clone()).collect();
    assert!(paths.contains(&"/@localhost:1/x".to_string()), "{paths:?}");
}

#[actix_rt::test]
async fn a_listed_name_that_resolves_to_loopback_is_refused_when_connecting() {
    let hook = Webhook::start(vec![]);
    let to: SocketAddr = ([127, 0, 0, 1], hook.port()).into();
    let url = format!("http://hooks.example:{}/hook", hook.port());

    let s = TestServer::at_with_delivery(NOW, allowing(&["hooks.example"]));
    let admin = s.client(Role::Admin);
    // The name is listed: the save accepts it.
    let a = automation(&admin, webhook_on(&url, "object", "*", "*")).await;
    let deliver = |settings: DeliverySettings| {
        s.platform
            .clone()
            .with_delivery(settings)
            .with_outbound(resolving_hooks_example_to(to))
            .deliveries()
            .run_due()
            .unwrap()
    };
    admin.save(json!({"_id": "A"})).await;
    deliver(allowing(&["hooks.example"]));
    let e = entries(&admin, &a).await;
    assert_eq!(e[0]["status"], "failed", "{e:?}");
    let message = e[0]["message"].as_str().unwrap();
    assert!(
        message.contains("host hooks.example resolves to 127.0.0.1, a loopback address"),
        "{message}"
    );
    assert!(hook.received().is_empty());

    // So is a name resolving to a unique-local address (the retry, an hour later).
    s.advance(3600);
    s.platform
        .clone()
        .with_delivery(allowing(&["hooks.example"]))
        .with_outbound(resolving_hooks_example_to("[fd00::1]:80".parse().unwrap()))
        .deliveries()
        .run_due()
        .unwrap();
    let e = entries(&admin, &a).await;
    assert_eq!(e.len(), 2);
    assert!(
        e[0]["message"]
            .as_str()
            .unwrap()
            .contains("host hooks.example resolves to fd00::1, a unique-local address"),
        "{e:?}"
    );
    assert!(hook.received().is_empty());

    // Listing the address, or a network holding it, lets the name reach it.
    s.advance(3600);
    deliver(allowing(&["hooks.example", "127.0.0.0/8"]));
    assert_eq!(entries(&admin, &a).await[0]["status"], "success");
    assert_eq!(hook.received().len(), 1);
}

#[actix_rt::test]
async fn listed_networks_allow_the_addresses_inside_them() {
    let hook = Webhook::start(vec![]);
    let p = hook.port();
    let s = TestServer::at_with_delivery(NOW, allowing(&["10.0.0.0/8", "127.0.0.0/8"]));
    let admin = s.client(Role::Admin);
    let inside = automation(
        &admin,
        webhook_on(&format!("http://127.0.0.1:{p}/hook"), "object", "*", "*"),
    )
    .await;
    automation(
        &admin,
        webhook_on("http://10.255.0.1:9/hook", "object", "NONE", "*"),
    )
    .await;
    refused_at_save(&admin, &format!("http://11.0.0.1:{p}/hook"), "11.0.0.1").await;
    refused_at_save(&admin, &format!("http://[::1]:{p}/hook"), "[::1]").await;
    refused_at_save(
        &admin,
        &format!("http://hooks.example:{p}/hook"),
        "hooks.example",
    )
    .await;
    admin.save(json!({"_id": "A"})).await;
    s.platform.deliveries().run_due().unwrap();
    assert_eq!(entries(&admin, &inside).await[0]["status"], "success");
    assert_eq!(hook.received().len(), 1);

    // A network that does not hold the address refuses it.
    let other = TestServer::at_with_delivery(NOW, allowing(&["10.0.0.0/8"]));
    refused_at_save(
        &other.client(Role::Admin),
        &format!("http://127.0.0.1:{p}/hook"),
        "127.0.0.1",
    )
    .await;
}

#[actix_rt::test]
async fn a_url_that_does_not_parse_is_refused_at_the_save() {
    for s in [
        TestServer::at_with_delivery(NOW, settings(None)),
        TestServer::at_with_delivery(NOW, allowing(&["localhost"])),
    ] {
        let admin = s.client(Role::Admin);
        for url in ["http://[::1", "http://exa mple.com/", "ftp://localhost/x"] {
            let r = admin
                .post("/automation/v1", webhook_on(url, "object", "*", "*"))
                .await;
            let message = r.assert_error(400, "INVALID_PARAMETER");
            assert!(message.contains(&format!("\"{url}\"")), "{message}");
        }
        assert_eq!(admin.get("/automation/v1").await.body, json!([]));
    }
}
