//! Where webhooks may go. By default a webhook calls global addresses only: a URL whose host
//! is, or resolves to, a loopback, private, link-local, shared, unique-local, multicast,
//! unspecified or broadcast address is refused at the save (a 400 naming the address and the
//! option that would allow it) and again when the client connects (the delivery fails,
//! logged, and no request is sent), whatever form the URL writes it in (decimal, octal and hex
//! IPv4, IPv4-mapped IPv6, userinfo and backslash tricks). `--webhook-allow` opens exactly what
//! it lists; `any-address` opens everything. Host names are resolved by a resolver injected
//! into the network client, which knows a few names and fails every other: no test here asks
//! DNS or sends a packet beyond loopback.

use crate::automation::{automation, log, settings, webhook_on, Webhook};
use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use platform_core::events::deliver::DeliverySettings;
use platform_core::outbound::webhook::WebhookAllow;
use platform_core::Platform;
use platform_server::outbound::Network;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

const NOW: &str = "2024-07-08T12:00:00Z";

/// The settings of the tests' deliveries with this allow-list (`None`: the default, global
/// addresses only).
fn allowing(entries: Option<&[&str]>) -> DeliverySettings {
    DeliverySettings {
        webhook_allow: entries
            .map(|e| WebhookAllow::parse(e).unwrap())
            .unwrap_or_default(),
        ..settings(None)
    }
}

/// Names this test's resolver knows, each to one address (changed while a test runs).
#[derive(Clone, Default)]
struct Names(Arc<Mutex<HashMap<String, SocketAddr>>>);

impl Names {
    fn set(&self, name: &str, to: &str) {
        let to = to.parse().unwrap();
        self.0.lock().unwrap().insert(name.to_string(), to);
    }

    /// A network client that resolves these names and IP addresses, and no other (no DNS).
    fn network(&self) -> Arc<Network> {
        let names = self.0.clone();
        Arc::new(Network::with_resolver(move |netloc: &str| {
            if let Ok(addr) = netloc.parse::<SocketAddr>() {
                return Ok(vec![addr]);
            }
            let (host, _) = netloc.rsplit_once(':').unwrap();
            if host == "slow.example" {
                // A resolver that takes its time, then names loopback.
                std::thread::sleep(std::time::Duration::from_secs(3));
            }
            let known = names.lock().unwrap().get(host).copied();
            match known.as_ref() {
                Some(a) => Ok(vec![*a]),
                None => Err(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("{host} is not a name of this test"),
                )),
            }
        }))
    }
}

fn server(entries: Option<&[&str]>, names: &Names) -> TestServer {
    TestServer::at_with_network(NOW, allowing(entries), Some(names.network()))
}

fn id(a: &Value) -> String {
    a["_id"].as_str().unwrap().to_string()
}

/// The automation log entries of `a`, newest first.
async fn entries(c: &Client<'_>, a: &Value) -> Vec<Value> {
    log(c, &format!("?automation={}", id(a))).await
}

/// Saving refuses the URL as a 400 whose message starts `host {named}` and names the option
/// that would allow it, and stores nothing.
async fn refused_at_save(c: &Client<'_>, url: &str, named: &str) {
    let before = c.get("/automation/v1").await.body;
    let r = c
        .post("/automation/v1", webhook_on(url, "object", "*", "*"))
        .await;
    let message = r.assert_error(400, "INVALID_PARAMETER");
    assert!(
        message.contains(&format!("\"{url}\": host {named}")),
        "{url}: {message}"
    );
    assert!(message.contains("--webhook-allow "), "{url}: {message}");
    assert_eq!(c.get("/automation/v1").await.body, before, "{url}");
}

/// The URLs of the loopback receivers `v4` (127.0.0.1) and `v6` ([::1]) written in each form
/// that reaches them, with how the refusal names the host: (url, named).
fn loopback_forms(p4: u16, p6: u16) -> Vec<(String, String)> {
    [
        (
            format!("http://127.0.0.1:{p4}/hook"),
            "127.0.0.1 is a loopback",
        ),
        (
            format!("http://2130706433:{p4}/hook"),
            "127.0.0.1 is a loopback",
        ),
        (
            format!("http://0177.0.0.1:{p4}/hook"),
            "127.0.0.1 is a loopback",
        ),
        (
            format!("http://0x7f.0.0.1:{p4}/hook"),
            "127.0.0.1 is a loopback",
        ),
        (
            format!("http://0x7f000001:{p4}/hook"),
            "127.0.0.1 is a loopback",
        ),
        (
            format!("http://localhost@127.0.0.1:{p4}/hook"),
            "127.0.0.1 is a loopback",
        ),
        (
            format!("http://127.0.0.1:{p4}\\@hooks.example:1/x"),
            "127.0.0.1 is a loopback",
        ),
        (
            format!("http://[::ffff:127.0.0.1]:{p4}/hook"),
            "[::ffff:127.0.0.1] is a loopback",
        ),
        (
            format!("http://[::ffff:7f00:1]:{p4}/hook"),
            "[::ffff:127.0.0.1] is a loopback",
        ),
        (
            format!("http://localhost:{p4}/hook"),
            "localhost is a loopback name",
        ),
        (format!("http://[::1]:{p6}/hook"), "[::1] is a loopback"),
        (format!("http://[0:0::1]:{p6}/hook"), "[::1] is a loopback"),
    ]
    .into_iter()
    .map(|(u, n)| (u, n.to_string()))
    .collect()
}

#[actix_rt::test]
async fn by_default_a_webhook_to_an_internal_address_is_refused_at_the_save() {
    let (v4, v6) = (Webhook::start(vec![]), Webhook::start_on("[::1]:0", vec![]));
    let names = Names::default();
    names.set("metadata.example", "169.254.169.254:80");
    names.set("intranet.example", "10.20.30.40:80");
    names.set("carrier.example", "100.64.0.7:80");
    names.set("v6.example", "[fd12::1]:80");
    names.set("mapped.example", "[::ffff:192.168.0.1]:80");
    names.set("loop.example", &format!("127.0.0.1:{}", v4.port()));
    names.set("hooks.example", "93.184.215.14:443");
    let s = server(None, &names);
    let admin = s.client(Role::Admin);

    let mut refused = loopback_forms(v4.port(), v6.port());
    for (url, named) in [
        (
            "http://169.254.169.254/latest/meta-data",
            "169.254.169.254 is a link-local",
        ),
        ("http://[fe80::1]/x", "[fe80::1] is a link-local"),
        ("http://10.0.0.1/x", "10.0.0.1 is a private"),
        ("http://172.16.5.4/x", "172.16.5.4 is a private"),
        ("http://192.168.1.1/x", "192.168.1.1 is a private"),
        ("http://3232235777/x", "192.168.1.1 is a private"),
        ("http://[fd00::1]/x", "[fd00::1] is a unique-local"),
        ("http://[fc00::1]/x", "[fc00::1] is a unique-local"),
        ("http://100.64.0.1/x", "100.64.0.1 is a shared"),
        ("http://224.0.0.1/x", "224.0.0.1 is a multicast"),
        ("http://[ff02::1]/x", "[ff02::1] is a multicast"),
        ("http://0.0.0.0/x", "0.0.0.0 is an unspecified"),
        ("http://0/x", "0.0.0.0 is an unspecified"),
        ("http://[::]/x", "[::] is an unspecified"),
        ("http://255.255.255.255/x", "255.255.255.255 is a broadcast"),
        ("http://api.localhost/x", "api.localhost is a loopback name"),
        (
            "http://metadata.example/x",
            "metadata.example resolves to 169.254.169.254, a link-local",
        ),
        (
            "http://intranet.example/x",
            "intranet.example resolves to 10.20.30.40, a private",
        ),
        (
            "http://carrier.example/x",
            "carrier.example resolves to 100.64.0.7, a shared",
        ),
        (
            "http://v6.example/x",
            "v6.example resolves to fd12::1, a unique-local",
        ),
        (
            "http://mapped.example/x",
            "mapped.example resolves to 192.168.0.1, a private",
        ),
        (
            "http://loop.example/x",
            "loop.example resolves to 127.0.0.1, a loopback",
        ),
    ] {
        refused.push((url.to_string(), named.to_string()));
    }
    for (url, named) in &refused {
        refused_at_save(&admin, url, named).await;
    }
    // A name resolving to a refused address names both ways to allow it.
    let r = admin
        .post(
            "/automation/v1",
            webhook_on("http://intranet.example/x", "object", "*", "*"),
        )
        .await;
    let message = r.assert_error(400, "INVALID_PARAMETER");
    assert!(
        message.contains("--webhook-allow intranet.example or 10.20.30.40"),
        "{message}"
    );

    // Global addresses are saved (an id no save matches: nothing is ever sent to them), and
    // so is a name that does not resolve now: its addresses are checked when delivering.
    for url in [
        "http://93.184.215.14/x",
        "https://hooks.example/x",
        "http://[2a00:1450::1]/x",
        "http://unknown.example/x",
    ] {
        automation(&admin, webhook_on(url, "object", "NEVER", "*")).await;
    }
    admin.save(json!({"_id": "A"})).await;
    s.platform.deliveries().run_due().unwrap();
    assert_eq!((v4.received().len(), v6.received().len()), (0, 0));
    assert_eq!(log(&admin, "").await, Vec::<Value>::new());
}

#[actix_rt::test]
async fn by_default_a_delivery_to_an_internal_address_is_refused_when_connecting() {
    let (v4, v6) = (Webhook::start(vec![]), Webhook::start_on("[::1]:0", vec![]));
    let names = Names::default();
    names.set("loop.example", &format!("127.0.0.1:{}", v4.port()));
    names.set("localhost", &format!("127.0.0.1:{}", v4.port()));
    // A name that resolves to a global address at the save, and to loopback later.
    names.set("rebind.example", "93.184.215.14:80");

    // Automations saved by a server that allowed any address ...
    let open = server(Some(&["any-address"]), &names);
    let admin = open.client(Role::Admin);
    let mut saved = Vec::new();
    let mut forms = loopback_forms(v4.port(), v6.port());
    forms.push((
        format!("http://loop.example:{}/hook", v4.port()),
        "loop.example resolves to 127.0.0.1, a loopback".into(),
    ));
    for (url, _) in &forms {
        saved.push(automation(&admin, webhook_on(url, "object", "*", "*")).await);
    }
    let strict = server(None, &names);
    let rebind = automation(
        &strict.client(Role::Admin),
        webhook_on(
            &format!("http://rebind.example:{}/hook", v4.port()),
            "object",
            "*",
            "*",
        ),
    )
    .await;
    names.set("rebind.example", &format!("127.0.0.1:{}", v4.port()));

    // ... delivered by one with the default: each fails, logged, and nothing is sent.
    admin.save(json!({"_id": "A"})).await;
    let default: Platform = open
        .platform
        .clone()
        .with_delivery(allowing(None))
        .with_outbound(names.network());
    default.deliveries().run_due().unwrap();
    for ((url, named), a) in forms.iter().zip(&saved) {
        let e = entries(&admin, a).await;
        assert_eq!(e.len(), 1, "{url}");
        assert_eq!(e[0]["status"], "failed", "{url}: {e:?}");
        let message = e[0]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("host {named}")),
            "{url}: {message}"
        );
    }
    // The name resolved elsewhere since its save: the client checks what it connects to.
    let strict_admin = strict.client(Role::Admin);
    strict_admin.save(json!({"_id": "A"})).await;
    strict.platform.deliveries().run_due().unwrap();
    let e = entries(&strict_admin, &rebind).await;
    assert_eq!(e[0]["status"], "failed", "{e:?}");
    assert!(
        e[0]["message"]
            .as_str()
            .unwrap()
            .contains("host rebind.example resolves to 127.0.0.1, a loopback address"),
        "{e:?}"
    );
    assert_eq!((v4.received().len(), v6.received().len()), (0, 0));

    // The same automations through the server that allows any address reach the receivers,
    // which shows where each URL really goes.
    admin.save(json!({"_id": "B"})).await;
    open.platform.deliveries().run_due().unwrap();
    let v6_forms = forms
        .iter()
        .filter(|(u, _)| u.contains("[::1]") || u.contains("[0:0::1]"))
        .count();
    assert_eq!(
        (v4.received().len(), v6.received().len()),
        (forms.len() - v6_forms, v6_forms)
    );
    let paths: Vec<String> = v4.received().iter().map(|r| r.path.clone()).collect();
    assert!(
        paths.contains(&"/@hooks.example:1/x".to_string()),
        "{paths:?}"
    );
}

#[actix_rt::test]
async fn the_allow_list_opens_exactly_what_it_lists() {
    let (v4, v6) = (Webhook::start(vec![]), Webhook::start_on("[::1]:0", vec![]));
    let (p4, p6) = (v4.port(), v6.port());
    let names = Names::default();
    names.set("hooks.internal", &format!("127.0.0.1:{p4}"));
    names.set("other.internal", &format!("127.0.0.1:{p4}"));

    // An address: that address, in any form, and nothing else.
    let s = server(Some(&["127.0.0.1"]), &names);
    let admin = s.client(Role::Admin);
    let listed = automation(
        &admin,
        webhook_on(&format!("http://127.0.0.1:{p4}/a"), "object", "*", "*"),
    )
    .await;
    let decimal = automation(
        &admin,
        webhook_on(&format!("http://2130706433:{p4}/b"), "object", "*", "*"),
    )
    .await;
    refused_at_save(
        &admin,
        &format!("http://[::1]:{p6}/hook"),
        "[::1] is a loopback",
    )
    .await;
    refused_at_save(&admin, "http://127.0.0.2/x", "127.0.0.2 is a loopback").await;
    refused_at_save(
        &admin,
        &format!("http://localhost:{p4}/x"),
        "localhost is a loopback name",
    )
    .await;
    refused_at_save(&admin, "http://10.0.0.1/x", "10.0.0.1 is a private").await;
    admin.save(json!({"_id": "A"})).await;
    s.platform.deliveries().run_due().unwrap();
    assert_eq!(entries(&admin, &listed).await[0]["status"], "success");
    assert_eq!(entries(&admin, &decimal).await[0]["status"], "success");
    assert_eq!(v4.received().len(), 2);

    // A network: the addresses inside it.
    let s = server(Some(&["127.0.0.0/8", "::1"]), &names);
    let admin = s.client(Role::Admin);
    automation(
        &admin,
        webhook_on(&format!("http://127.0.0.1:{p4}/c"), "object", "*", "*"),
    )
    .await;
    automation(
        &admin,
        webhook_on(&format!("http://[::1]:{p6}/c"), "object", "*", "*"),
    )
    .await;
    automation(
        &admin,
        webhook_on("http://127.9.9.9:9/never", "object", "NEVER", "*"),
    )
    .await;
    refused_at_save(&admin, "http://[::2]/x", "[::2] is a reserved").await;
    refused_at_save(&admin, "http://10.0.0.1/x", "10.0.0.1 is a private").await;
    admin.save(json!({"_id": "A"})).await;
    s.platform.deliveries().run_due().unwrap();
    assert_eq!((v4.received().len(), v6.received().len()), (3, 1));

    // A name: that name, whatever it resolves to; another name of the same address is not.
    let s = server(Some(&["hooks.internal"]), &names);
    let admin = s.client(Role::Admin);
    let named = automation(
        &admin,
        webhook_on(&format!("http://hooks.internal:{p4}/d"), "object", "*", "*"),
    )
    .await;
    refused_at_save(
        &admin,
        &format!("http://other.internal:{p4}/d"),
        "other.internal resolves to 127.0.0.1, a loopback",
    )
    .await;
    refused_at_save(
        &admin,
        &format!("http://127.0.0.1:{p4}/d"),
        "127.0.0.1 is a loopback",
    )
    .await;
    admin.save(json!({"_id": "A"})).await;
    s.platform.deliveries().run_due().unwrap();
    assert_eq!(entries(&admin, &named).await[0]["status"], "success");
    assert_eq!(v4.received().len(), 4);

    // localhost, the name RFC 6761 keeps for loopback.
    names.set("localhost", &format!("127.0.0.1:{p4}"));
    let s = server(Some(&["localhost"]), &names);
    let admin = s.client(Role::Admin);
    let local = automation(
        &admin,
        webhook_on(&format!("http://localhost:{p4}/e"), "object", "*", "*"),
    )
    .await;
    refused_at_save(
        &admin,
        &format!("http://127.0.0.1:{p4}/e"),
        "127.0.0.1 is a loopback",
    )
    .await;
    admin.save(json!({"_id": "A"})).await;
    s.platform.deliveries().run_due().unwrap();
    assert_eq!(entries(&admin, &local).await[0]["status"], "success");
    assert_eq!((v4.received().len(), v6.received().len()), (5, 1));
}

#[actix_rt::test]
async fn a_url_that_does_not_parse_is_refused_at_the_save() {
    let names = Names::default();
    for s in [server(None, &names), server(Some(&["any-address"]), &names)] {
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

#[actix_rt::test]
async fn a_save_waits_for_the_resolver_two_seconds_and_the_delivery_checks_the_name() {
    let hook = Webhook::start(vec![]);
    let names = Names::default();
    names.set("slow.example", &format!("127.0.0.1:{}", hook.port()));
    let s = server(None, &names);
    let admin = s.client(Role::Admin);
    let started = std::time::Instant::now();
    let a = automation(
        &admin,
        webhook_on(
            &format!("http://slow.example:{}/hook", hook.port()),
            "object",
            "*",
            "*",
        ),
    )
    .await;
    // Saved: the resolver had not answered (it would have named loopback), after 2 s.
    let waited = started.elapsed();
    assert!(waited >= std::time::Duration::from_secs(2), "{waited:?}");
    admin.save(json!({"_id": "A"})).await;
    s.platform.deliveries().run_due().unwrap();
    let e = entries(&admin, &a).await;
    assert_eq!(e[0]["status"], "failed", "{e:?}");
    assert!(
        e[0]["message"]
            .as_str()
            .unwrap()
            .contains("host slow.example resolves to 127.0.0.1, a loopback address"),
        "{e:?}"
    );
    assert!(hook.received().is_empty());
}
