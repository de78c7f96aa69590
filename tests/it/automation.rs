//! Events and automations over HTTP: the automation and action services, the outbox and its
//! worker (driven step by step with `deliver_due`), the targets against a webhook receiver and
//! an SMTP sink started here on loopback, the automation log, runOnUpdate automations, and
//! deliveries that survive a restart.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use platform_core::events::deliver::DeliverySettings;
use platform_core::outbound::webhook::WebhookAllow;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// Loopback peers

/// One request a webhook receiver got.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    /// The request target, e.g. `/hook`.
    pub(crate) path: String,
    pub(crate) headers: HashMap<String, String>,
    pub(crate) body: String,
}

impl Received {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("JSON body: {}", self.body))
    }
}

/// An HTTP server on loopback that records each POST and answers with the next status of
/// `statuses` (200 once they run out).
pub(crate) struct Webhook {
    addr: SocketAddr,
    got: Arc<Mutex<Vec<Received>>>,
}

impl Webhook {
    pub(crate) fn start(statuses: Vec<u16>) -> Webhook {
        Webhook::start_on("127.0.0.1:0", statuses)
    }

    /// A receiver listening on `addr` (`[::1]:0` for IPv6 loopback).
    pub(crate) fn start_on(addr: &str, statuses: Vec<u16>) -> Webhook {
        let listener = TcpListener::bind(addr).unwrap();
        let addr = listener.local_addr().unwrap();
        let got = Arc::new(Mutex::new(Vec::new()));
        let log = got.clone();
        std::thread::spawn(move || {
            let mut statuses = statuses.into_iter();
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let status = statuses.next().unwrap_or(200);
                serve_http(stream, status, &log);
            }
        });
        Webhook { addr, got }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    pub(crate) fn port(&self) -> u16 {
        self.addr.port()
    }

    pub(crate) fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }
}

/// Reads one request, records it, then answers (so a caller that got the answer finds it).
fn serve_http(stream: TcpStream, status: u16, log: &Mutex<Vec<Received>>) -> Option<()> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    log.lock().unwrap().push(Received {
        path: line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string(),
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status} S\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
    )
    .ok()
}

/// A port nothing listens on (connections are refused), held for as long as the value lives:
/// a socket bound to it without listening (and without SO_REUSEADDR), so no other test's
/// server is given the port while a delivery to it is expected to fail.
struct Refusing(socket2::Socket);

impl Refusing {
    fn new() -> Refusing {
        use socket2::{Domain, Protocol, Socket, Type};
        let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).unwrap();
        let any: SocketAddr = "127.0.0.1:0".parse().unwrap();
        socket.bind(&any.into()).unwrap();
        Refusing(socket)
    }

    fn addr(&self) -> SocketAddr {
        self.0.local_addr().unwrap().as_socket().unwrap()
    }

    fn url(&self) -> String {
        format!("http://{}/hook", self.addr())
    }
}

/// A server that accepts connections and never answers.
fn hanging_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in l.incoming() {
            held.push(s);
        }
    });
    format!("http://{addr}/hook")
}

/// A minimal SMTP server on loopback keeping each message it is given.
struct SmtpSink {
    addr: SocketAddr,
    messages: Arc<Mutex<Vec<String>>>,
}

impl SmtpSink {
    fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let messages = Arc::new(Mutex::new(Vec::new()));
        let keep = messages.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let keep = keep.clone();
                std::thread::spawn(move || smtp_session(stream, &keep));
            }
        });
        SmtpSink { addr, messages }
    }

    fn messages(&self) -> Vec<String> {
        self.messages.lock().unwrap().clone()
    }
}

fn smtp_session(stream: TcpStream, keep: &Mutex<Vec<String>>) -> Option<()> {
    let mut out = stream.try_clone().ok()?;
    let mut reader = BufReader::new(stream);
    out.write_all(b"220 sink ESMTP\r\n").ok()?;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return Some(());
        }
        let verb = line.trim_end().to_ascii_uppercase();
        if verb.starts_with("EHLO") || verb.starts_with("HELO") {
            out.write_all(b"250 sink\r\n").ok()?;
        } else if verb.starts_with("DATA") {
            out.write_all(b"354 end with .\r\n").ok()?;
            let mut message = String::new();
            loop {
                let mut l = String::new();
                if reader.read_line(&mut l).ok()? == 0 {
                    return Some(());
                }
                if l.trim_end() == "." {
                    break;
                }
                message.push_str(&l);
            }
            keep.lock().unwrap().push(message);
            out.write_all(b"250 queued\r\n").ok()?;
        } else if verb.starts_with("QUIT") {
            out.write_all(b"221 bye\r\n").ok()?;
            return Some(());
        } else {
            out.write_all(b"250 OK\r\n").ok()?;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// Delivery settings for tests whose receivers listen on loopback, which the allow-list opens.
pub(crate) fn settings(smtp: Option<String>) -> DeliverySettings {
    DeliverySettings {
        smtp,
        webhook_allow: WebhookAllow::parse(["127.0.0.1", "::1", "localhost"]).unwrap(),
        timeout: Duration::from_millis(700),
        retry_base: Duration::from_secs(10),
        max_attempts: 3,
        ..DeliverySettings::default()
    }
}

pub(crate) fn server() -> TestServer {
    TestServer::at_with_delivery("2024-07-08T12:00:00Z", settings(None))
}

pub(crate) async fn automation(c: &Client<'_>, body: Value) -> Value {
    let r = c.post("/automation/v1", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

pub(crate) fn webhook_on(url: &str, service: &str, id: &str, action: &str) -> Value {
    json!({"target": "platform.webhook", "properties": {"url": url},
           "conditions": [{"source": "private", "service": service, "id": id, "action": action}]})
}

pub(crate) async fn log(c: &Client<'_>, query: &str) -> Vec<Value> {
    let r = c.get(&format!("/automation/v1/log{query}")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body.as_array().unwrap().clone()
}

pub(crate) fn deliver(s: &TestServer) {
    s.platform.deliveries().run_due().unwrap();
}

/// A daily series of `values` from 2024-07-01.
pub(crate) async fn series(c: &Client<'_>, values: &[f64]) {
    let data: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"time": format!("2024-07-{:02}", i + 1), "value": v}))
        .collect();
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}))
        .await;
}

// ---------------------------------------------------------------------------------------------
// The automation and action services

#[actix_rt::test]
async fn automations_are_created_listed_switched_and_deleted() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    let saved = automation(&admin, webhook_on(&hook.url(), "object", "*", "*")).await;
    let id = saved["_id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 24, "server-assigned id: {id}");
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(saved["owner"], "admin-user");
    assert_eq!(saved["enabled"], true);
    assert_eq!(saved["target"], "platform.webhook");
    assert!(
        saved.get("_run").is_none(),
        "the rights snapshot stays inside"
    );
    assert!(saved["name"].as_str().unwrap().contains(&hook.url()));

    let list = admin.get("/automation/v1").await;
    assert_eq!(list.total(), 1);
    assert_eq!(
        admin.get(&format!("/automation/v1/{id}")).await.body["_id"],
        id.as_str()
    );

    // The bare code is accepted and stored as the target id; _id updates.
    let mut update = webhook_on(&hook.url(), "object", "A", "update");
    update["_id"] = json!(id);
    update["target"] = json!("webhook");
    let updated = automation(&admin, update).await;
    assert_eq!(updated["_id"], id.as_str());
    assert_eq!(updated["target"], "platform.webhook");
    assert_eq!(updated["conditions"][0]["id"], "A");
    assert_eq!(admin.get("/automation/v1").await.total(), 1);

    let off = admin
        .put_json(&format!("/automation/v1/{id}"), json!({"enabled": false}))
        .await;
    assert_eq!(off.body["enabled"], false, "{:?}", off.body);
    // A disabled automation receives nothing.
    admin.save(json!({"_id": "A", "v": 1})).await;
    admin.save(json!({"_id": "A", "v": 2})).await;
    deliver(&s);
    assert!(hook.received().is_empty());
    let on = admin
        .post(&format!("/automation/v1/{id}/enable"), json!({}))
        .await;
    assert_eq!(on.body["enabled"], true, "{:?}", on.body);

    let gone = admin.delete(&format!("/automation/v1/{id}")).await;
    assert_eq!(gone.body["deleted"], true);
    admin
        .get(&format!("/automation/v1/{id}"))
        .await
        .assert_error(404, "NOT_FOUND");
    admin
        .delete(&format!("/automation/v1/{id}"))
        .await
        .assert_error(404, "NOT_FOUND");
    // Another tenant cannot see them.
    let other = s.client_of("globex", "gus", Role::Admin);
    let mine = automation(&admin, webhook_on(&hook.url(), "object", "*", "*")).await;
    other
        .get(&format!("/automation/v1/{}", mine["_id"].as_str().unwrap()))
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(other.get("/automation/v1").await.total(), 0);
    // Paged like every list.
    automation(&admin, webhook_on(&hook.url(), "type", "*", "*")).await;
    let paged = admin.get("/automation/v1?_limit=1").await;
    assert_eq!(
        (paged.total(), paged.body.as_array().unwrap().len()),
        (2, 1)
    );
}

#[actix_rt::test]
async fn bad_automations_are_refused_and_nothing_is_stored() {
    let s = server();
    let admin = s.client(Role::Admin);
    admin
        .post(
            "/script/v1",
            json!({"_id": "page", "scriptType": "mustache", "script": "<p>{{_id}}</p>"}),
        )
        .await;
    admin.save(json!({"_id": "NOT_A_SCRIPT"})).await;
    let url = "http://127.0.0.1:9/hook";
    let cases = [
        (
            json!({"target": "platform.webhook", "properties": {"url": url}, "conditions": [{"service": "weather", "action": "update"}]}),
            400,
            "INVALID_PARAMETER",
            "weather",
        ),
        (
            json!({"target": "platform.webhook", "properties": {"url": url}, "conditions": [{"service": "object", "action": "explode"}]}),
            400,
            "INVALID_PARAMETER",
            "explode",
        ),
        (
            json!({"target": "platform.fax", "properties": {}, "conditions": [{"service": "object"}]}),
            400,
            "INVALID_PARAMETER",
            "platform.fax",
        ),
        (
            json!({"properties": {"url": url}, "conditions": [{"service": "object"}]}),
            400,
            "MISSING_PARAMETER",
            "target",
        ),
        (
            json!({"target": "platform.webhook", "properties": {"url": url}}),
            400,
            "MISSING_PARAMETER",
            "conditions",
        ),
        (
            json!({"target": "platform.webhook", "properties": {}, "conditions": [{"service": "object"}]}),
            400,
            "MISSING_PARAMETER",
            "url",
        ),
        (
            json!({"target": "platform.webhook", "properties": {"url": "ftp://x"}, "conditions": [{"service": "object"}]}),
            400,
            "INVALID_PARAMETER",
            "http",
        ),
        (
            json!({"target": "platform.webhook", "properties": {"url": url, "@transformer": "NOT_A_SCRIPT"}, "conditions": [{"service": "object"}]}),
            400,
            "INVALID_PARAMETER",
            "NOT_A_SCRIPT",
        ),
        (
            json!({"target": "platform.webhook", "properties": {"url": url, "secret": "nope"}, "conditions": [{"service": "object"}]}),
            400,
            "INVALID_PARAMETER",
            "nope",
        ),
        (
            json!({"target": "platform.email", "properties": {"to": "not an address", "subject": "x"}, "conditions": [{"service": "object"}]}),
            400,
            "INVALID_PARAMETER",
            "address",
        ),
        (
            json!({"target": "platform.script", "properties": {"script": "page"}, "conditions": [{"service": "object"}]}),
            400,
            "INVALID_PARAMETER",
            "mustache",
        ),
        (
            json!({"target": "platform.validation", "conditions": [{"service": "object", "action": "update"}]}),
            400,
            "INVALID_PARAMETER",
            "platform.validation",
        ),
        (
            json!({"_id": "0123456789abcdef01234567", "target": "platform.webhook", "properties": {"url": url}, "conditions": [{"service": "object"}]}),
            404,
            "NOT_FOUND",
            "0123456789abcdef01234567",
        ),
        (json!([1]), 400, "INVALID_BODY", "object"),
    ];
    for (body, status, code, mention) in cases {
        let r = admin.post("/automation/v1", body.clone()).await;
        let message = r.assert_error(status, code);
        assert!(message.contains(mention), "{body}: {message}");
    }
    // Only admins save automations.
    let writer = s.client(Role::Writer);
    writer
        .post("/automation/v1", webhook_on(url, "object", "*", "*"))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert_eq!(admin.get("/automation/v1").await.total(), 0);
}

#[actix_rt::test]
async fn the_action_service_lists_the_targets_paged() {
    let s = server();
    let c = s.client(Role::Reader);
    let all = c.get("/action/v1/public").await;
    assert_eq!(all.total(), 4);
    let ids: Vec<&str> = all
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "platform.validation",
            "platform.email",
            "platform.webhook",
            "platform.script"
        ]
    );
    assert_eq!(all.body[0]["name"], "Run validation checks");
    let page = c.get("/action/v1/public?_limit=2&_skip=1").await;
    assert_eq!(page.total(), 4);
    assert_eq!(page.body.as_array().unwrap().len(), 2);
    assert_eq!(page.body[0]["_id"], "platform.email");
    assert_eq!(
        c.get("/action/v1/public/email").await.body["_id"],
        "platform.email"
    );
    c.get("/action/v1/private")
        .await
        .assert_error(404, "NOT_FOUND");
    c.post("/action/v1", json!({"_id": "x"}))
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    // POST /automation is an alias of POST /automation/v1.
    let admin = s.client(Role::Admin);
    let r = admin
        .post(
            "/automation",
            webhook_on("http://127.0.0.1:9/hook", "object", "*", "*"),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(admin.get("/automation/v1").await.total(), 1);
    assert_eq!(c.get("/automation").await.body["status"], "available");
}

#[actix_rt::test]
async fn list_automations_offers_the_templates_that_fit_an_item() {
    let s = server();
    let c = s.client(Role::Writer);
    series(&c, &[1.0, 2.0]).await;
    let r = c
        .get("/object/v1/private/NBP?_function=listAutomations")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let items = r.body.as_array().unwrap();
    assert!(items.iter().all(|t| t["_type"] == "VarAutomation"
        && t["conditions"][0]["id"] == "NBP"
        && t["conditions"][0]["service"] == "object"));
    assert!(items.iter().all(|t| t["target"] != "platform.validation"));
    assert!(items.iter().any(
        |t| t["target"] == "platform.email" && t["inputs"]["@transformer"]["type"] == "script"
    ));
    let data = c
        .get("/data/v1/private/NBP:SPOT?_function=listAutomations")
        .await;
    assert_eq!(data.status, 200, "{:?}", data.body);
    let actions: Vec<(String, String)> = data
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["target"].as_str().unwrap().to_string(),
                t["conditions"][0]["action"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(actions.contains(&("platform.validation".into(), "update".into())));
    assert!(actions.contains(&("platform.email".into(), "invalid".into())));
    assert!(!actions.contains(&("platform.validation".into(), "invalid".into())));
    c.get("/object/v1/private/NOPE?_function=listAutomations")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/data/v1/private/NBP:NOPE?_function=listAutomations")
        .await
        .assert_error(404, "NOT_FOUND");
}

// ---------------------------------------------------------------------------------------------
// Events and deliveries

#[actix_rt::test]
async fn object_events_reach_a_signed_webhook_in_order_outside_the_request() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    let r = admin
        .post("/secret/v1", json!({"_id": "hook-key", "value": "s3cret"}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let mut body = webhook_on(&hook.url(), "object", "*", "*");
    body["properties"]["secret"] = json!("hook-key");
    let a = automation(&admin, body).await;
    admin.save(json!({"_id": "GB", "name": "Britain"})).await;
    admin
        .save(json!({"_id": "GB", "name": "Great Britain"}))
        .await;
    // Unchanged: no new version, no event.
    admin
        .save(json!({"_id": "GB", "name": "Great Britain"}))
        .await;
    admin.delete("/object/v1/private/GB").await;
    // Deliveries never run inside the request that caused them.
    assert!(hook.received().is_empty());
    assert!(log(&admin, "").await.is_empty());
    deliver(&s);
    let got = hook.received();
    let actions: Vec<String> = got
        .iter()
        .map(|r| r.json()["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(actions, ["create", "update", "delete"]);
    let first = got[0].json();
    assert_eq!(first["service"], "object");
    assert_eq!(first["source"], "private");
    assert_eq!(first["id"], "GB");
    assert_eq!(first["tenant"], "acme");
    assert_eq!(first["environment"], "production");
    assert_eq!(first["user"], "admin-user");
    assert_eq!(first["data"]["name"], "Britain");
    assert_eq!(first["timestamp"], "2024-07-08T12:00:00.000Z");
    assert_eq!(got[0].headers["x-platform-event"], "object.create");
    // The signature is HMAC-SHA256 of the body keyed by the secret's value.
    use hmac::Mac;
    for r in &got {
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(b"s3cret").unwrap();
        mac.update(r.body.as_bytes());
        let hex: String = mac
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(r.headers["x-platform-signature"], format!("sha256={hex}"));
    }
    let entries = log(&admin, "").await;
    assert_eq!(entries.len(), 3);
    assert!(entries
        .iter()
        .all(|e| e["status"] == "success" && e["automation"] == a["_id"]));
    assert_eq!(entries[0]["action"], "delete", "newest first");
    // Another tenant's objects raise nothing here.
    let other = s.client_of("globex", "gus", Role::Writer);
    other.save(json!({"_id": "GB"})).await;
    deliver(&s);
    assert_eq!(hook.received().len(), 3);
}

#[actix_rt::test]
async fn events_of_every_service_carry_their_actions() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    for service in ["type", "script", "secret", "validationconfig", "data"] {
        automation(&admin, webhook_on(&hook.url(), service, "*", "*")).await;
    }
    assert_eq!(
        admin.post("/type/v1", json!({"_id": "Hub"})).await.status,
        200
    );
    assert_eq!(
        admin
            .post(
                "/script/v1",
                json!({"_id": "lib", "script": "fn f() { 1 }"})
            )
            .await
            .status,
        200
    );
    assert_eq!(
        admin
            .post("/secret/v1", json!({"_id": "k", "value": "v"}))
            .await
            .status,
        200
    );
    admin.delete("/secret/v1/k").await;
    series(&admin, &[1.0, 2.0]).await;
    let cfg = admin
        .post("/validationconfig/v1", json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]}))
        .await;
    assert_eq!(cfg.status, 200, "{:?}", cfg.body);
    deliver(&s);
    let seen: Vec<(String, String, String)> = hook
        .received()
        .iter()
        .map(|r| {
            let e = r.json();
            (
                e["service"].as_str().unwrap().into(),
                e["id"].as_str().unwrap().into(),
                e["action"].as_str().unwrap().into(),
            )
        })
        .collect();
    for want in [
        ("type", "Hub", "create"),
        ("script", "lib", "create"),
        ("secret", "k", "create"),
        ("secret", "k", "delete"),
        ("data", "NBP:SPOT", "update"),
        ("validationconfig", "NBP:SPOT", "create"),
    ] {
        assert!(
            seen.contains(&(want.0.into(), want.1.into(), want.2.into())),
            "{want:?} in {seen:?}"
        );
    }
    let secret_event = hook
        .received()
        .into_iter()
        .map(|r| r.json())
        .find(|e| e["service"] == "secret")
        .unwrap();
    assert!(
        !secret_event.to_string().contains("\"v\""),
        "never the value: {secret_event}"
    );
    let data_event = hook
        .received()
        .into_iter()
        .map(|r| r.json())
        .find(|e| e["service"] == "data")
        .unwrap();
    assert_eq!(
        data_event["data"]["points"],
        json!(["2024-07-01T00:00:00.000Z", "2024-07-02T00:00:00.000Z"])
    );
    assert_eq!(data_event["data"]["_type"], "VarTimeSeries");
}

#[actix_rt::test]
async fn extension_installs_raise_install_upgrade_uninstall() {
    let s = server();
    let acme = s.client_of("acme", "ann", Role::Admin);
    let hook = Webhook::start(vec![]);
    assert_eq!(
        acme.post(
            "/extension/v1",
            json!({"_id": "acme.tool", "publisher": "acme", "code": "tool", "name": "Tool"})
        )
        .await
        .status,
        200
    );
    let r = acme
        .post(
            "/extension/v1/public?_publish=true",
            json!({"_id": "acme.tool"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let globex = s.client_of("globex", "gus", Role::Admin);
    automation(
        &globex,
        webhook_on(&hook.url(), "extension", "acme.tool", "*"),
    )
    .await;
    for _ in 0..2 {
        let r = globex
            .post(
                "/extension/v1/private?_publish=true",
                json!({"_id": "acme.tool"}),
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    assert_eq!(
        globex
            .delete("/extension/v1/private/acme.tool")
            .await
            .status,
        200
    );
    deliver(&s);
    let actions: Vec<String> = hook
        .received()
        .iter()
        .map(|r| r.json()["action"].as_str().unwrap().to_string())
        .filter(|a| ["install", "upgrade", "uninstall"].contains(&a.as_str()))
        .collect();
    assert_eq!(actions, ["install", "upgrade", "uninstall"]);
}

#[actix_rt::test]
async fn failed_deliveries_are_retried_with_backoff_in_order_and_logged() {
    let s = server();
    let admin = s.client(Role::Admin);
    // The receiver fails twice, then accepts.
    let hook = Webhook::start(vec![500, 503]);
    let a = automation(&admin, webhook_on(&hook.url(), "object", "*", "*")).await;
    admin.save(json!({"_id": "A", "v": 1})).await;
    admin.save(json!({"_id": "A", "v": 2})).await;
    deliver(&s);
    // The first event failed; the second waits behind it (order per item).
    assert_eq!(hook.received().len(), 1);
    let failed = log(&admin, "?status=failed").await;
    assert_eq!(failed.len(), 1);
    assert!(
        failed[0]["message"].as_str().unwrap().contains("500"),
        "{:?}",
        failed[0]
    );
    // Not due before its backoff.
    s.advance(5);
    deliver(&s);
    assert_eq!(hook.received().len(), 1);
    s.advance(6);
    deliver(&s);
    assert_eq!(hook.received().len(), 2, "second attempt");
    s.advance(20);
    deliver(&s);
    let got = hook.received();
    let versions: Vec<i64> = got
        .iter()
        .map(|r| r.json()["data"]["v"].as_i64().unwrap())
        .collect();
    assert_eq!(
        versions,
        [1, 1, 1, 2],
        "retries of the first, then the second"
    );
    let entries = log(&admin, "").await;
    let statuses: Vec<&str> = entries
        .iter()
        .rev()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["failed", "failed", "success", "success"]);
    assert_eq!(entries[1]["attempt"], 3);
    // Filters: automation, status, time.
    let id = a["_id"].as_str().unwrap();
    assert_eq!(
        log(&admin, &format!("?automation={id}&status=success"))
            .await
            .len(),
        2
    );
    assert_eq!(
        log(&admin, "?automation=000000000000000000000000")
            .await
            .len(),
        0
    );
    assert_eq!(log(&admin, "?from=2024-07-08T12:00:06Z").await.len(), 3);
    assert_eq!(
        log(&admin, "?from=2024-07-08T12:00:11Z").await.len(),
        3,
        "inclusive"
    );
    assert_eq!(
        log(&admin, "?to=2024-07-08").await.len(),
        4,
        "the whole day"
    );
    assert_eq!(log(&admin, "?to=2024-07-07").await.len(), 0);
    admin
        .get("/automation/v1/log?from=yesterday")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert_eq!(log(&admin, "?to=2024-07-08T12:00:01Z").await.len(), 1);
    let paged = admin.get("/automation/v1/log?_limit=1").await;
    assert_eq!(paged.total(), 4);
    assert_eq!(paged.body.as_array().unwrap().len(), 1);
}

#[actix_rt::test]
async fn refusing_and_hanging_webhooks_fail_without_stopping_others() {
    let s = server();
    let admin = s.client(Role::Admin);
    let good = Webhook::start(vec![]);
    let refusing = Refusing::new();
    let refused = automation(&admin, webhook_on(&refusing.url(), "object", "*", "*")).await;
    let hanging = automation(&admin, webhook_on(&hanging_url(), "object", "*", "*")).await;
    automation(&admin, webhook_on(&good.url(), "object", "*", "*")).await;
    admin.save(json!({"_id": "A"})).await;
    let started = std::time::Instant::now();
    deliver(&s);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "timeouts bound a hanging peer"
    );
    assert_eq!(good.received().len(), 1);
    for a in [&refused, &hanging] {
        let entries = log(
            &admin,
            &format!("?automation={}", a["_id"].as_str().unwrap()),
        )
        .await;
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0]["status"], "failed");
        assert!(
            entries[0]["message"].as_str().unwrap().contains("retry at"),
            "{:?}",
            entries[0]
        );
    }
    // Retried until given up (3 attempts), each logged.
    s.advance(10);
    deliver(&s);
    s.advance(20);
    deliver(&s);
    let entries = log(
        &admin,
        &format!("?automation={}", refused["_id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(entries.len(), 3);
    assert!(
        entries[0]["message"].as_str().unwrap().contains("given up"),
        "{:?}",
        entries[0]
    );
    s.advance(3600);
    deliver(&s);
    assert_eq!(
        log(
            &admin,
            &format!("?automation={}", refused["_id"].as_str().unwrap())
        )
        .await
        .len(),
        3
    );
    // The server still serves.
    assert_eq!(admin.get("/object/v1/private/A").await.status, 200);
}

#[actix_rt::test]
async fn transformers_reshape_what_is_sent() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    admin
        .post("/script/v1", json!({"_id": "shape", "script": "#{ item: event.id, what: event.action, name: data.name }"}))
        .await;
    admin
        .post("/script/v1", json!({"_id": "card", "scriptType": "mustache", "script": "{\"card\": \"{{name}} by {{_event.user}}\"}"}))
        .await;
    let mut rhai = webhook_on(&hook.url(), "object", "A", "create");
    rhai["properties"]["@transformer"] = json!("shape");
    automation(&admin, rhai).await;
    let mut stache = webhook_on(&hook.url(), "object", "B", "create");
    stache["properties"]["@transformer"] = json!("card");
    automation(&admin, stache).await;
    admin.save(json!({"_id": "A", "name": "Alpha"})).await;
    admin.save(json!({"_id": "B", "name": "Beta"})).await;
    deliver(&s);
    let bodies: Vec<Value> = hook.received().iter().map(Received::json).collect();
    assert!(
        bodies.contains(&json!({"item": "A", "what": "create", "name": "Alpha"})),
        "{bodies:?}"
    );
    assert!(
        bodies.contains(&json!({"card": "Beta by admin-user"})),
        "{bodies:?}"
    );
}

#[actix_rt::test]
async fn script_targets_run_as_the_owner_and_throwing_scripts_are_logged() {
    let s = server();
    let admin = s.client(Role::Admin);
    admin
        .post("/script/v1", json!({"_id": "mark", "script": "save_object(#{_id: \"SEEN_\" + event.id, action: event.action, by: properties.note}); \"ok\""}))
        .await;
    admin
        .post(
            "/script/v1",
            json!({"_id": "boom", "script": "throw \"no way\";"}),
        )
        .await;
    let mut body = json!({"target": "platform.script", "properties": {"script": "mark", "note": "n1"},
                          "conditions": [{"service": "object", "id": "A", "action": "*"}]});
    automation(&admin, body.clone()).await;
    body["properties"]["script"] = json!("boom");
    let boom = automation(&admin, body).await;
    admin.save(json!({"_id": "A"})).await;
    deliver(&s);
    let seen = admin.get("/object/v1/private/SEEN_A").await;
    assert_eq!(seen.status, 200, "{:?}", seen.body);
    assert_eq!(seen.body["action"], "create");
    assert_eq!(seen.body["_user"], "admin-user", "runs as the owner");
    let entries = log(
        &admin,
        &format!("?automation={}", boom["_id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(entries[0]["status"], "failed");
    assert!(
        entries[0]["message"].as_str().unwrap().contains("no way"),
        "{:?}",
        entries[0]
    );
    // With the owner's rights only: an admin may not write to the public source.
    admin
        .post("/script/v1", json!({"_id": "publish", "script": "save_object(#{_id: \"#PUB_\" + event.id}); \"ok\""}))
        .await;
    let publish = automation(&admin, json!({"target": "platform.script", "properties": {"script": "publish"},
                              "conditions": [{"service": "object", "id": "B", "action": "create"}]})).await;
    admin.save(json!({"_id": "B"})).await;
    deliver(&s);
    let entries = log(
        &admin,
        &format!("?automation={}", publish["_id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(entries[0]["status"], "failed");
    assert!(
        entries[0]["message"]
            .as_str()
            .unwrap()
            .contains("platform role"),
        "{:?}",
        entries[0]
    );
    admin
        .get("/object/v1/public/%23PUB_B")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn emails_go_to_the_mail_outbox_without_smtp() {
    let s = server();
    let admin = s.client(Role::Admin);
    automation(&admin, json!({"target": "email", "properties": {"to": "ops@example.com; desk@example.com", "subject": "Object changed", "attachment": true},
                              "conditions": [{"service": "object", "id": "A", "action": "update"}]})).await;
    admin.save(json!({"_id": "A", "v": 1})).await;
    deliver(&s);
    assert_eq!(
        admin.get("/automation/v1/mail").await.total(),
        0,
        "create is not update"
    );
    admin.save(json!({"_id": "A", "v": 2})).await;
    deliver(&s);
    let mail = admin.get("/automation/v1/mail").await;
    assert_eq!(mail.total(), 1);
    let m = &mail.body[0];
    assert_eq!(m["to"], json!(["ops@example.com", "desk@example.com"]));
    assert_eq!(m["subject"], "Object changed");
    assert!(m["body"].as_str().unwrap().contains("\"update\""));
    assert_eq!(m["attachment"]["name"], "data.json");
    assert!(m["attachment"]["content"]
        .as_str()
        .unwrap()
        .contains("\"v\": 2"));
    // Another tenant's outbox is its own.
    assert_eq!(
        s.client_of("globex", "g", Role::Admin)
            .get("/automation/v1/mail")
            .await
            .total(),
        0
    );
}

#[actix_rt::test]
async fn emails_reach_an_smtp_server_and_a_down_one_is_retried() {
    let sink = SmtpSink::start();
    let s = TestServer::at_with_delivery(
        "2024-07-08T12:00:00Z",
        settings(Some(sink.addr.to_string())),
    );
    let admin = s.client(Role::Admin);
    automation(&admin, json!({"target": "platform.email", "properties": {"to": "ops@example.com", "subject": "Hello from platform"},
                              "conditions": [{"service": "object", "id": "*", "action": "create"}]})).await;
    admin.save(json!({"_id": "A"})).await;
    deliver(&s);
    let messages = sink.messages();
    assert_eq!(messages.len(), 1, "{:?}", log(&admin, "").await);
    assert!(
        messages[0].contains("Subject: Hello from platform"),
        "{}",
        messages[0]
    );
    assert!(messages[0].contains("ops@example.com"));

    // An SMTP server that is down: the delivery fails and is retried.
    let refusing = Refusing::new();
    let down = TestServer::at_with_delivery(
        "2024-07-08T12:00:00Z",
        settings(Some(refusing.addr().to_string())),
    );
    let admin = down.client(Role::Admin);
    automation(&admin, json!({"target": "platform.email", "properties": {"to": "ops@example.com", "subject": "x"},
                              "conditions": [{"service": "object", "id": "*", "action": "create"}]})).await;
    admin.save(json!({"_id": "A"})).await;
    deliver(&down);
    let entries = log(&admin, "").await;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["status"], "failed");
    assert!(
        entries[0]["message"].as_str().unwrap().contains("SMTP"),
        "{:?}",
        entries[0]
    );
    assert_eq!(admin.get("/object/v1/private/A").await.status, 200);
}

// ---------------------------------------------------------------------------------------------
// runOnUpdate

#[actix_rt::test]
async fn run_on_update_configurations_own_a_validation_automation() {
    let s = server();
    let w = s.client(Role::Writer);
    series(&w, &[10.0, 11.0]).await;
    let body = json!({"_id": "NBP:SPOT", "kind": "timeseries", "runOnUpdate": true,
                      "checks": [{"name": "Positive", "expression": "value > 0"}]});
    assert_eq!(
        w.post("/validationconfig/v1", body.clone()).await.status,
        200
    );
    let list = w.get("/automation/v1").await;
    assert_eq!(list.total(), 1);
    let a = &list.body[0];
    assert_eq!(a["target"], "platform.validation");
    assert_eq!(
        a["conditions"],
        json!([{"source": "private", "service": "data", "id": "NBP:SPOT", "action": "update"}])
    );
    assert_eq!(
        a["ownedBy"],
        json!({"service": "validationconfig", "id": "NBP:SPOT"})
    );
    assert_eq!(a["owner"], "writer-user");
    deliver(&s);
    // Saving data runs the checks on the saved points, in the background of the request.
    w.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-03", "value": -5}]}})).await;
    assert_eq!(
        w.get("/validation/v1").await.total(),
        0,
        "not inside the request"
    );
    deliver(&s);
    let records = w.get("/validation/v1").await;
    assert_eq!(records.total(), 1, "{:?}", records.body);
    assert_eq!(records.body[0]["status"], "failed");
    assert_eq!(records.body[0]["lastOrigin"], "update");
    let entries = log(&w, "").await;
    assert_eq!(entries[0]["status"], "success", "{entries:?}");

    // Deleted by hand, _function=automations recreates it.
    let admin = s.client(Role::Admin);
    let id = a["_id"].as_str().unwrap();
    assert_eq!(
        admin.delete(&format!("/automation/v1/{id}")).await.status,
        200
    );
    let r = w
        .post("/validationconfig/v1?_function=automations", json!({}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["created"], 1);
    assert_eq!(w.get("/automation/v1").await.total(), 1);
    let again = w.get("/validationconfig/v1?_function=automations").await;
    assert_eq!(again.body["created"], 0);

    // Turning runOnUpdate off removes it; on again recreates; deleting the config removes it.
    let mut off = body.clone();
    off["runOnUpdate"] = json!(false);
    assert_eq!(w.post("/validationconfig/v1", off).await.status, 200);
    assert_eq!(w.get("/automation/v1").await.total(), 0);
    assert_eq!(
        w.post("/validationconfig/v1", body.clone()).await.status,
        200
    );
    assert_eq!(w.get("/automation/v1").await.total(), 1);
    let mut disabled = body.clone();
    disabled["enabled"] = json!(false);
    assert_eq!(w.post("/validationconfig/v1", disabled).await.status, 200);
    assert_eq!(w.get("/automation/v1").await.total(), 0);
    assert_eq!(w.post("/validationconfig/v1", body).await.status, 200);
    assert_eq!(w.delete("/validationconfig/v1/NBP:SPOT").await.status, 200);
    assert_eq!(w.get("/automation/v1").await.total(), 0);
}

#[actix_rt::test]
async fn run_on_update_for_public_data_belongs_to_the_callers_tenant() {
    let s = server();
    let platform = s.client_of("acme", "root", Role::Platform);
    platform
        .save(json!({"_id": "#HUB", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2024-07-01", "value": 1}]}}))
        .await;
    let w = s.client(Role::Writer);
    let r = w
        .post("/validationconfig/v1", json!({"_id": "#HUB:SPOT", "kind": "timeseries", "runOnUpdate": true, "checks": [{"name": "p", "expression": "value > 0"}]}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let list = w.get("/automation/v1").await;
    assert_eq!(list.total(), 1);
    assert_eq!(list.body[0]["conditions"][0]["source"], "public");
    assert_eq!(
        s.client_of("globex", "g", Role::Writer)
            .get("/automation/v1")
            .await
            .total(),
        0
    );
    // A public data save reaches the tenant's automation.
    deliver(&s);
    platform
        .save(json!({"_id": "#HUB", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02", "value": -1}]}}))
        .await;
    deliver(&s);
    let records = w.get("/validation/v1").await;
    assert_eq!(records.total(), 1, "{:?}", log(&w, "").await);
    assert_eq!(records.body[0]["status"], "failed");
}

#[actix_rt::test]
async fn the_email_validation_failed_script_is_on_every_fresh_database() {
    let s = server();
    let c = s.client(Role::Reader);
    let r = c.get("/script/v1/public/%23email-validation-failed").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["scriptType"], "mustache");
    for field in [
        "target",
        "kind",
        "name",
        "status",
        "message",
        "points",
        "failedTenors",
    ] {
        assert!(
            r.body["script"].as_str().unwrap().contains(field),
            "{field}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Restarts

#[actix_rt::test]
async fn deliveries_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let hook = Webhook::start(vec![]);
    let open = || {
        platform_core::Platform::open(&db)
            .unwrap()
            .with_delivery(settings(None))
    };
    {
        let s = TestServer::with_platform(open());
        let admin = s.client(Role::Admin);
        automation(&admin, webhook_on(&hook.url(), "object", "*", "*")).await;
        admin.save(json!({"_id": "A", "v": 1})).await;
        admin.save(json!({"_id": "B", "v": 1})).await;
        s.platform.close().unwrap();
    }
    // A delivery was under way when the server stopped: it is marked running in the file.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let n = conn
            .execute("UPDATE deliveries SET status = 'running', attempts = 1 WHERE seq = (SELECT min(seq) FROM deliveries)", [])
            .unwrap();
        assert_eq!(n, 1);
    }
    let platform = platform_server::outbound::networked(open());
    assert!(hook.received().is_empty());
    assert_eq!(platform.deliveries().requeue_interrupted().unwrap(), 1);
    platform.deliveries().run_due().unwrap();
    let ids: Vec<String> = hook
        .received()
        .iter()
        .map(|r| r.json()["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["A", "B"], "nothing lost, in order");
    let left: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM deliveries", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 0, "finished deliveries leave only their log");
    let s = TestServer::with_platform(platform);
    let entries = log(&s.client(Role::Admin), "").await;
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1]["attempt"], 2, "the interrupted attempt counts");
}

// ---------------------------------------------------------------------------------------------
// Validation and data events

pub(crate) async fn positive_config(c: &Client<'_>) {
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": "NBP spot",
               "checks": [{"name": "Positive", "expression": "value > 0"},
                          {"name": "Small", "expression": "value < 100", "severity": "warning"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

pub(crate) async fn run(c: &Client<'_>, body: Value) -> Value {
    let r = c.post("/validation/v1?_function=run", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

pub(crate) async fn set_value(c: &Client<'_>, day: u32, value: f64) {
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": format!("2024-07-{day:02}"), "value": value}]}}))
        .await;
}

pub(crate) async fn record_id(c: &Client<'_>, day: u32) -> String {
    let r = c.get("/validation/v1?_limit=-1").await;
    r.body
        .as_array()
        .unwrap()
        .iter()
        .find(|x| {
            x["point"]
                .as_str()
                .unwrap()
                .starts_with(&format!("2024-07-{day:02}"))
        })
        .unwrap_or_else(|| panic!("record of day {day} in {:?}", r.body))["_id"]
        .as_str()
        .unwrap()
        .to_string()
}

pub(crate) fn events_of(hook: &Webhook, action: &str) -> Vec<Value> {
    hook.received()
        .iter()
        .map(Received::json)
        .filter(|e| e["action"] == action)
        .collect()
}

#[actix_rt::test]
async fn validation_records_raise_events_only_when_their_status_changes() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    automation(&admin, webhook_on(&hook.url(), "validation", "*", "*")).await;
    series(&admin, &[10.0, -1.0, 150.0]).await;
    positive_config(&admin).await;
    run(
        &admin,
        json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-03"}),
    )
    .await;
    deliver(&s);
    let got: Vec<(String, String)> = hook
        .received()
        .iter()
        .map(|r| {
            let e = r.json();
            (
                e["action"].as_str().unwrap().into(),
                e["data"]["point"].as_str().unwrap()[..10].to_string(),
            )
        })
        .collect();
    // A new passing record raises nothing; new failing and warning records do.
    assert_eq!(
        got,
        [
            ("failed".to_string(), "2024-07-02".to_string()),
            ("warning".into(), "2024-07-03".into())
        ]
    );
    let failed = &events_of(&hook, "failed")[0];
    assert_eq!(failed["service"], "validation");
    assert_eq!(failed["source"], "private");
    assert_eq!(failed["data"]["status"], "failed");
    assert_eq!(failed["id"], failed["data"]["_id"]);
    // Re-running changes nothing: no events.
    run(
        &admin,
        json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-03"}),
    )
    .await;
    deliver(&s);
    assert_eq!(hook.received().len(), 2);
    // Override: success; removing it: failed again.
    let id = record_id(&admin, 2).await;
    let r = admin
        .post(
            "/validation/v1?_function=override",
            json!({"ids": [id], "reason": "known spike"}),
        )
        .await;
    assert_eq!(r.body[0]["ok"], true, "{:?}", r.body);
    deliver(&s);
    assert_eq!(events_of(&hook, "success").len(), 1);
    assert_eq!(
        events_of(&hook, "success")[0]["data"]["status"],
        "overridden"
    );
    admin
        .post(
            "/validation/v1?_function=removeOverride",
            json!({"ids": [id]}),
        )
        .await;
    deliver(&s);
    assert_eq!(events_of(&hook, "failed").len(), 2);
    // Tests raise nothing.
    set_value(&admin, 1, -4.0).await;
    let t = admin
        .post(
            "/validation/v1?_function=test",
            json!({"target": "NBP:SPOT", "points": ["2024-07-01"]}),
        )
        .await;
    assert_eq!(t.body["results"][0]["status"], "failed", "{:?}", t.body);
    deliver(&s);
    assert_eq!(hook.received().len(), 4);
    set_value(&admin, 1, 10.0).await;
    // Comments raise nothing; fixed data passes: success.
    admin
        .post(
            "/validation/v1?_function=comment",
            json!({"ids": [id], "message": "looking"}),
        )
        .await;
    set_value(&admin, 2, 12.0).await;
    run(
        &admin,
        json!({"target": "NBP:SPOT", "points": ["2024-07-02"]}),
    )
    .await;
    deliver(&s);
    assert_eq!(events_of(&hook, "success").len(), 2);
    assert_eq!(hook.received().len(), 5);
}

#[actix_rt::test]
async fn invalid_is_raised_when_data_starts_failing_and_not_on_reruns_or_tests() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    let all = Webhook::start(vec![]);
    automation(
        &admin,
        webhook_on(&hook.url(), "data", "NBP:SPOT", "invalid"),
    )
    .await;
    automation(&admin, webhook_on(&all.url(), "data", "*", "*")).await;
    series(&admin, &[10.0, -1.0, -2.0, 4.0]).await;
    positive_config(&admin).await;
    let range = json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-04"});
    run(&admin, range.clone()).await;
    deliver(&s);
    let inv = events_of(&hook, "invalid");
    assert_eq!(inv.len(), 1, "one event for the run");
    let d = &inv[0]["data"];
    assert_eq!(inv[0]["id"], "NBP:SPOT");
    assert_eq!(d["target"], "NBP:SPOT");
    assert_eq!(d["kind"], "timeseries");
    assert_eq!(d["name"], "NBP spot");
    assert_eq!(d["status"], "failed");
    assert_eq!(d["points"].as_array().unwrap().len(), 2);
    assert_eq!(d["records"].as_array().unwrap().len(), 2);
    assert_eq!(d["user"], "admin-user");
    assert_eq!(d["origin"], "manual");
    assert!(d["message"].as_str().unwrap().contains("positive"), "{d}");
    assert!(d.get("timestamp").is_some());
    // The timeline shows it was sent as failing.
    let id2 = record_id(&admin, 2).await;
    let rec = admin.get(&format!("/validation/v1/{id2}")).await.body;
    assert!(
        rec["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["action"] == "sent-as-failing"),
        "{rec}"
    );
    // Re-running on the same failing data, and tests, raise nothing.
    run(&admin, range.clone()).await;
    let t = admin
        .post("/validation/v1?_function=test", range.clone())
        .await;
    assert_eq!(t.status, 200);
    deliver(&s);
    assert_eq!(events_of(&hook, "invalid").len(), 1);
    // Failing again on different data raises it again (only that point).
    set_value(&admin, 2, -5.0).await;
    run(&admin, range.clone()).await;
    deliver(&s);
    let inv = events_of(&hook, "invalid");
    assert_eq!(inv.len(), 2);
    assert_eq!(inv[1]["data"]["points"].as_array().unwrap().len(), 1);
    // After an override is removed it fails anew: raised again.
    admin
        .post(
            "/validation/v1?_function=override",
            json!({"ids": [id2], "reason": "ok"}),
        )
        .await;
    admin
        .post(
            "/validation/v1?_function=removeOverride",
            json!({"ids": [id2]}),
        )
        .await;
    deliver(&s);
    assert_eq!(events_of(&hook, "invalid").len(), 3);
    // An override cleared by a run on changed, still failing data: raised again.
    admin
        .post(
            "/validation/v1?_function=override",
            json!({"ids": [id2], "reason": "ok"}),
        )
        .await;
    set_value(&admin, 2, -7.0).await;
    run(&admin, range.clone()).await;
    deliver(&s);
    assert_eq!(events_of(&hook, "invalid").len(), 4);
    // Automations on all actions of data never get invalid.
    assert!(events_of(&all, "invalid").is_empty());
    assert!(!events_of(&all, "update").is_empty());
}

#[actix_rt::test]
async fn validated_sends_each_version_of_passing_data_once_in_groups() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    let all = Webhook::start(vec![]);
    series(&admin, &[1.0, 2.0, -1.0, 4.0, 150.0]).await;
    positive_config(&admin).await;
    let range = json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-05"});
    // No validated automation yet: nothing is remembered.
    run(&admin, range.clone()).await;
    automation(&admin, webhook_on(&all.url(), "data", "*", "*")).await;
    let a = automation(
        &admin,
        webhook_on(&hook.url(), "data", "NBP:SPOT", "validated"),
    )
    .await;
    deliver(&s);
    assert!(hook.received().is_empty());
    run(&admin, range.clone()).await;
    deliver(&s);
    let sent = events_of(&hook, "validated");
    assert_eq!(
        sent.len(),
        2,
        "two groups split by the failing observation: {sent:?}"
    );
    let first = &sent[0]["data"];
    assert_eq!(first["_id"], "NBP:SPOT");
    assert_eq!(first["_type"], "VarTimeSeries");
    assert_eq!(first["data"].as_array().unwrap().len(), 2);
    assert_eq!(first["data"][0]["value"], 1.0);
    assert!(first["range"]["from"]
        .as_str()
        .unwrap()
        .starts_with("2024-07-01"));
    assert!(first["range"]["to"]
        .as_str()
        .unwrap()
        .starts_with("2024-07-02"));
    assert_eq!(first["_validation"]["status"], "valid");
    assert_eq!(first["_validation"]["records"].as_array().unwrap().len(), 2);
    assert_eq!(first["_validation"]["origin"], "manual");
    assert_eq!(first["_validation"]["user"], "admin-user");
    let second = &sent[1]["data"];
    assert_eq!(second["data"].as_array().unwrap().len(), 2);
    assert_eq!(second["_validation"]["status"], "warning", "150 warns");
    let all_values: Vec<f64> = sent
        .iter()
        .flat_map(|e| {
            e["data"]["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["value"].as_f64().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(!all_values.contains(&-1.0), "a failure is never sent");
    let id1 = record_id(&admin, 1).await;
    let rec = admin.get(&format!("/validation/v1/{id1}")).await.body;
    assert!(rec["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["action"] == "sent-as-validated"));
    // Re-running unchanged data sends nothing; tests and partial runs send nothing.
    run(&admin, range.clone()).await;
    set_value(&admin, 1, 3.0).await;
    admin
        .post("/validation/v1?_function=test", range.clone())
        .await;
    let mut partial = range.clone();
    partial["checks"] = json!(["positive"]);
    run(&admin, partial).await;
    deliver(&s);
    assert_eq!(events_of(&hook, "validated").len(), 2);
    // Changed data that passes is sent again (only that observation).
    run(&admin, range.clone()).await;
    deliver(&s);
    let sent = events_of(&hook, "validated");
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[2]["data"]["data"],
        json!([{"time": sent[2]["data"]["data"][0]["time"], "value": 3.0}])
    );
    // An override sends the overridden observation, with its reason.
    let id3 = record_id(&admin, 3).await;
    admin
        .post(
            "/validation/v1?_function=override",
            json!({"ids": [id3], "reason": "holiday"}),
        )
        .await;
    deliver(&s);
    let sent = events_of(&hook, "validated");
    assert_eq!(sent.len(), 4);
    let v = &sent[3]["data"]["_validation"];
    assert_eq!(v["status"], "overridden");
    assert_eq!(v["checkedStatus"], "failed");
    assert_eq!(
        v["override"],
        json!({"reason": "holiday", "user": "admin-user"})
    );
    // Removing it takes nothing back and sends nothing.
    admin
        .post(
            "/validation/v1?_function=removeOverride",
            json!({"ids": [id3]}),
        )
        .await;
    deliver(&s);
    assert_eq!(events_of(&hook, "validated").len(), 4);
    // Automations on all actions never get validated; the log names the automation.
    assert!(events_of(&all, "validated").is_empty());
    let entries = log(
        &admin,
        &format!("?automation={}", a["_id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(entries.len(), 4);
}

#[actix_rt::test]
async fn the_email_validation_failed_script_turns_invalid_data_into_an_html_email() {
    let s = server();
    let admin = s.client(Role::Admin);
    automation(&admin, json!({"target": "platform.email",
        "properties": {"to": "desk@example.com", "subject": "Data failed validation", "attachment": false, "@transformer": "#email-validation-failed"},
        "conditions": [{"source": "private", "service": "data", "id": "*", "action": "invalid"}]})).await;
    series(&admin, &[10.0, -1.0]).await;
    positive_config(&admin).await;
    run(
        &admin,
        json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-02"}),
    )
    .await;
    deliver(&s);
    let mail = admin.get("/automation/v1/mail").await;
    assert_eq!(mail.total(), 1, "{:?}", log(&admin, "").await);
    let m = &mail.body[0];
    assert_eq!(m["subject"], "Data failed validation");
    assert_eq!(m["contentType"], "text/html");
    assert!(m["attachment"].is_null());
    let html = m["body"].as_str().unwrap();
    for part in [
        "NBP:SPOT",
        "timeseries",
        "NBP spot",
        "failed",
        "positive",
        "2024-07-02",
    ] {
        assert!(html.contains(part), "{part} in {html}");
    }
    assert!(html.starts_with("<!DOCTYPE html>"));
}

async fn ttf(c: &Client<'_>, ondate: &str, q01: f64) {
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate,
                  "contracts": [{"tenor": "M01", "value": 30.0}, {"tenor": "Q01", "value": q01}]}}),
    )
    .await;
}

#[actix_rt::test]
async fn curves_raise_invalid_with_failed_tenors_and_validated_per_ondate() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    for action in ["invalid", "validated"] {
        automation(&admin, webhook_on(&hook.url(), "data", "TTF:FWD", action)).await;
    }
    ttf(&admin, "2024-07-01", 31.0).await;
    ttf(&admin, "2024-07-02", -5.0).await;
    let r = admin
        .post(
            "/validationconfig/v1",
            json!({"_id": "TTF:FWD", "kind": "curve", "name": "TTF forward",
               "checks": [{"name": "Positive", "expression": "value > 0"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    run(
        &admin,
        json!({"target": "TTF:FWD", "from": "2024-07-01", "to": "2024-07-02"}),
    )
    .await;
    deliver(&s);
    let inv = events_of(&hook, "invalid");
    assert_eq!(inv.len(), 1);
    assert_eq!(inv[0]["data"]["kind"], "curve");
    assert_eq!(inv[0]["data"]["points"], json!(["2024-07-02"]));
    let failed = inv[0]["data"]["failedTenors"].to_string();
    assert!(
        failed.contains("Q01") && !failed.contains("M01"),
        "{failed}"
    );
    let ok = events_of(&hook, "validated");
    assert_eq!(ok.len(), 1, "one curve, the passing ondate");
    let d = &ok[0]["data"];
    assert_eq!(d["_type"], "VarCurve");
    assert_eq!(d["ondate"], "2024-07-01");
    assert_eq!(d["contracts"].as_array().unwrap().len(), 2);
    assert_eq!(d["_validation"]["status"], "valid");
    assert_eq!(d["_validation"]["warningTenors"], json!([]));
    // Fixed, the second ondate passes and is sent; the first is not sent again.
    ttf(&admin, "2024-07-02", 7.0).await;
    run(
        &admin,
        json!({"target": "TTF:FWD", "from": "2024-07-01", "to": "2024-07-02"}),
    )
    .await;
    deliver(&s);
    let ok = events_of(&hook, "validated");
    assert_eq!(ok.len(), 2);
    assert_eq!(ok[1]["data"]["ondate"], "2024-07-02");
}

#[actix_rt::test]
async fn statuses_written_by_validation_do_not_trigger_it_again() {
    let s = server();
    let w = s.client(Role::Writer);
    series(&w, &[10.0, -1.0]).await;
    let r = w
        .post("/validationconfig/v1", json!({"_id": "NBP:SPOT", "kind": "timeseries", "runOnUpdate": true,
               "options": {"writeStatus": true}, "checks": [{"name": "p", "expression": "value > 0"}]}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    set_value(&w, 2, -3.0).await;
    deliver(&s);
    let records = w.get("/validation/v1").await;
    assert_eq!(records.total(), 1);
    assert_eq!(
        records.body[0]["runs"], 1,
        "run once, not again for its own status write"
    );
    let entries = log(&w, "").await;
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(
        entries[0]["message"]
            .as_str()
            .unwrap()
            .contains("only wrote validation statuses"),
        "{entries:?}"
    );
    let data = w.get("/data/v1/private/NBP:SPOT").await;
    assert_eq!(
        data.body["data"][1]["status"]["quality"], "FAILED",
        "{:?}",
        data.body
    );
}

#[actix_rt::test]
async fn automations_feeding_each_other_stop_after_a_bounded_chain() {
    let s = server();
    let admin = s.client(Role::Admin);
    admin
        .post(
            "/script/v1",
            json!({"_id": "echo", "script": "save_object(#{_id: \"C\" + event.id}); \"ok\""}),
        )
        .await;
    automation(&admin, json!({"target": "platform.script", "properties": {"script": "echo"},
                              "conditions": [{"service": "object", "id": "*", "action": "create"}]})).await;
    admin.save(json!({"_id": "A"})).await;
    deliver(&s);
    // A, then one object per link of the chain (depths 1 to 9); depth 9 reaches no automation.
    let objects = admin.get("/object/v1/private").await;
    assert_eq!(
        objects.total(),
        1 + 1 + platform_core::events::deliver::MAX_CHAIN as u64,
        "{:?}",
        objects.body
    );
    assert_eq!(
        log(&admin, "").await.len(),
        1 + platform_core::events::deliver::MAX_CHAIN as usize
    );
}

#[actix_rt::test]
async fn an_automation_can_be_test_fired_with_a_delay() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    let a = automation(&admin, webhook_on(&hook.url(), "object", "GB", "*")).await;
    let id = a["_id"].as_str().unwrap();
    let r = admin
        .get(&format!("/automation/v1/{id}?_run=true&_delay=2000"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["queued"], true);
    deliver(&s);
    assert!(hook.received().is_empty(), "not before its delay");
    s.advance(2);
    deliver(&s);
    let got = hook.received();
    assert_eq!(got.len(), 1);
    let e = got[0].json();
    assert_eq!(
        (
            e["service"].clone(),
            e["id"].clone(),
            e["action"].clone(),
            e["test"].clone()
        ),
        (json!("object"), json!("GB"), json!("create"), json!(true))
    );
    admin
        .get(&format!("/automation/v1/{id}?_run=true&_delay=60001"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    admin
        .get("/automation/v1/000000000000000000000000?_run=true")
        .await
        .assert_error(404, "NOT_FOUND");
}

/// The caller's role is checked before the body or the delay is read: a writer's malformed
/// automation and bad delay are refused for the role, an admin's for what they say.
#[actix_rt::test]
async fn an_automation_is_refused_for_the_role_before_its_body() {
    let s = server();
    let writer = s.client(Role::Writer);
    let m = writer
        .post("/automation/v1", json!({"target": 3}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(
        m.starts_with("saving automations needs the admin role"),
        "{m}"
    );
    let m = writer
        .get("/automation/v1/000000000000000000000000?_run=true&_delay=soon")
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(
        m.starts_with("test-firing automations needs the admin role"),
        "{m}"
    );
    let admin = s.client(Role::Admin);
    let m = admin
        .post("/automation/v1", json!({"target": 3}))
        .await
        .assert_error(400, "INVALID_BODY");
    assert_eq!(m, "target must be a string, not a number");
    let m = admin
        .get("/automation/v1/000000000000000000000000?_run=true&_delay=soon")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert_eq!(m, "_delay must be 0 to 60000 milliseconds, not \"soon\"");
}
