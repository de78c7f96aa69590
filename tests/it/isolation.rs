//! The tenant isolation matrix: another tenant, another environment of the same tenant, and a
//! `platform`-role user of a third tenant address every id of tenant `acme` on every route of
//! every service. Each probe must answer exactly what the same route answers for an id that
//! exists nowhere (status, error code, message and body, with the id put aside), lists must
//! never show acme's items, and acme's data must be unchanged at the end.
//!
//! Every item of acme carries the marker [`MARK`] in its content (names, values, subjects,
//! the secret's value), so an answer that leaks any of it is seen whatever its shape.

use crate::common::{Client, Resp, TestServer};
use actix_web::http::{header, Method};
use actix_web::test::TestRequest;
use platform_core::auth::Role;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// In the content of every item of the victim tenant.
const MARK: &str = "ACMEONLY";

/// Percent-encodes everything but unreserved characters.
fn enc(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A request as `c`: any method, an optional JSON body and Accept header.
async fn call(
    c: &Client<'_>,
    method: &Method,
    path: &str,
    body: Option<&Value>,
    accept: Option<&str>,
) -> Resp {
    let mut req = TestRequest::default().method(method.clone()).uri(path);
    if let Some(auth) = &c.auth {
        req = req.insert_header((header::AUTHORIZATION, auth.clone()));
    }
    if let Some(env) = &c.env {
        req = req.insert_header(("x-platform-environment", env.clone()));
    }
    if let Some(accept) = accept {
        req = req.insert_header((header::ACCEPT, accept.to_string()));
    }
    if let Some(body) = body {
        req = req
            .insert_header((header::CONTENT_TYPE, "application/json"))
            .set_payload(body.to_string());
    }
    c.server.send(req).await
}

/// When a probe runs: reads first, then what would destroy, then writes (which make the
/// attacker's own items and so come last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    Read,
    Destroy,
    Write,
}

/// One route of the matrix, with `{X}` standing for the id: acme's (`victim`) or one that
/// exists nowhere (`ghost`).
#[derive(Debug, Clone)]
struct Route {
    method: Method,
    path: String,
    body: Option<Value>,
    accept: Option<&'static str>,
    victim: String,
    ghost: String,
    phase: Phase,
    /// What acme's own answer must contain (the probe addresses something that exists); None
    /// for calls acme is not asked (they would change its data).
    owner_sees: Option<String>,
}

impl Route {
    fn new(method: Method, path: &str, victim: &str, ghost: &str) -> Route {
        let phase = match method {
            Method::GET => Phase::Read,
            Method::POST => Phase::Write,
            _ => Phase::Destroy,
        };
        Route {
            method,
            path: path.to_string(),
            body: None,
            accept: None,
            victim: victim.to_string(),
            ghost: ghost.to_string(),
            phase,
            owner_sees: if phase == Phase::Read {
                Some(MARK.to_string())
            } else {
                None
            },
        }
    }

    fn get(path: &str, victim: &str, ghost: &str) -> Route {
        Route::new(Method::GET, path, victim, ghost)
    }

    fn body(mut self, body: Value) -> Route {
        self.body = Some(body);
        self
    }

    fn accept(mut self, accept: &'static str) -> Route {
        self.accept = Some(accept);
        self
    }

    /// acme's own answer holds `text` rather than the marker.
    fn owner_sees(mut self, text: &str) -> Route {
        self.owner_sees = Some(text.to_string());
        self
    }

    /// Not asked of acme.
    fn not_owner(mut self) -> Route {
        self.owner_sees = None;
        self
    }

    /// A function call: answered like a read, run after the reads (it may store for the caller).
    fn function(mut self) -> Route {
        self.phase = Phase::Destroy;
        self.owner_sees = None;
        self
    }

    fn path_for(&self, id: &str) -> String {
        self.path.replace("{X}", &enc(id))
    }

    fn body_for(&self, id: &str) -> Option<Value> {
        self.body.as_ref().map(|b| fill(b, id))
    }

    fn name(&self) -> String {
        format!(
            "{} {}{}",
            self.method,
            self.path_for(&self.victim),
            self.body_for(&self.victim)
                .map(|b| format!(" {b}"))
                .unwrap_or_default()
        )
    }
}

/// `{X}` replaced by `id` in every string of a JSON value.
fn fill(v: &Value, id: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("{X}", id)),
        Value::Array(a) => Value::Array(a.iter().map(|x| fill(x, id)).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), fill(x, id))).collect())
        }
        other => other.clone(),
    }
}

/// Fields that differ between two calls whatever they address (times, durations).
const VOLATILE: [&str; 7] = [
    "ms",
    "timings",
    "_timestamp",
    "timestamp",
    "created",
    "updated",
    "lastRun",
];

/// Text with the ids of a probe (acme's and the ghost, plain and encoded) replaced by `{X}`;
/// both answers of a probe go through the same replacements, so that a word an id shares with
/// a message ("all", "public") reads the same in both.
fn put_aside(text: &str, ids: &[&str]) -> String {
    let mut forms: Vec<String> = ids
        .iter()
        .filter(|id| !id.is_empty())
        .flat_map(|id| [id.to_string(), enc(id)])
        .collect();
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    forms
        .iter()
        .fold(text.to_string(), |t, form| t.replace(form.as_str(), "{X}"))
}

/// An answer with the ids put aside and volatile fields left out.
fn normalise(v: &Value, ids: &[&str]) -> Value {
    match v {
        Value::String(s) => Value::String(put_aside(s, ids)),
        Value::Array(a) => Value::Array(a.iter().map(|x| normalise(x, ids)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| !VOLATILE.contains(&k.as_str()))
                .map(|(k, x)| (put_aside(k, ids), normalise(x, ids)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What a probe compares: status, the error header and total, and the body, all normalised.
fn seen(r: &Resp, ids: &[&str]) -> Value {
    let text = |name: &str| r.header(name).map(|h| put_aside(&h, ids));
    json!({
        "status": r.status,
        "x-platform-error": text("x-platform-error"),
        "x-total-count": text("x-total-count"),
        "body": normalise(&r.body, ids),
    })
}

/// The data of one object of acme: a daily series and a curve.
fn plant(id: &str) -> Value {
    let days: Vec<Value> = (1..=5)
        .map(|d| json!({"time": format!("2024-07-0{d}"), "value": d}))
        .collect();
    json!({"_id": id, "_type": "PlantType", "name": format!("{MARK} plant {id}"), "description": MARK,
           "S": {"_type": "VarTimeSeries", "calendar": "DAILY", "description": MARK, "data": days},
           "F": {"_type": "VarCurve", "ondate": "2024-07-01", "properties": {"note": MARK},
                 "contracts": [{"tenor": "M01", "value": 10}, {"tenor": "M02", "value": 11}]}})
}

#[track_caller]
fn ok(r: &Resp) -> &Value {
    assert_eq!(r.status, 200, "{:?}", r.body);
    &r.body
}

/// Acme's private world in production: objects (ids that look like routes too), a type, a
/// script, a secret, a draft and an installed extension, configurations, records with an
/// override and a comment, a queued job, and an automation that has delivered a mail.
/// Returns the automation's id.
async fn victim_world(s: &TestServer, acme: &Client<'_>) -> String {
    ok(&acme
        .post("/type/v1", json!({"_id": "PlantType", "description": MARK}))
        .await);
    ok(&acme
        .post(
            "/type/v1",
            json!({"_id": "PlantType", "description": format!("{MARK} 2")}),
        )
        .await);
    ok(&acme.put("/type/v1/private/PlantType/1/gold").await);
    for id in ["PLANT1", "public", "all"] {
        acme.save(plant(id)).await;
        acme.save(json!({"_id": id, "capacity": 2})).await;
        ok(&acme.put(&format!("/object/v1/private/{id}/1/gold")).await);
    }
    for v in ["1", "2"] {
        ok(&acme
            .post(
                "/script/v1",
                json!({"_id": "acmelib", "name": MARK, "script": format!("fn acmeonly() {{ \"{MARK} {v}\" }}")}),
            )
            .await);
    }
    ok(&acme.put("/script/v1/private/acmelib/1/gold").await);
    ok(&acme
        .post(
            "/secret/v1",
            json!({"_id": "apikey", "value": format!("{MARK}-secret"), "description": MARK}),
        )
        .await);
    for name in ["tools", "tools 2"] {
        ok(&acme
            .post(
                "/extension/v1",
                json!({"_id": "acme.tools7", "publisher": "acme", "code": "tools7", "name": format!("{MARK} {name}")}),
            )
            .await);
    }
    ok(&acme.put("/extension/v1/private/acme.tools7/1/gold").await);
    // A vendor publishes an extension with a view; acme installs it.
    let vendor = s.client_of("vendor", "vera", Role::Admin);
    ok(&vendor
        .post(
            "/script/v1",
            json!({"_id": "kitview", "scriptType": "mustache", "script": "<p>{{extension.name}} for {{user.id}}</p>"}),
        )
        .await);
    ok(&vendor
        .post(
            "/extension/v1",
            json!({"_id": "vendor.kitx9", "publisher": "vendor", "code": "kitx9", "name": "Kit",
                   "views": [{"name": "main", "script": "kitview"}], "resources": {"script": ["kitview"]}}),
        )
        .await);
    ok(&vendor
        .post(
            "/extension/v1/public?_publish=true",
            json!({"_id": "vendor.kitx9"}),
        )
        .await);
    ok(&acme
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "vendor.kitx9"}),
        )
        .await);
    for name in ["config", "config 2"] {
        ok(&acme
            .post(
                "/validationconfig/v1",
                json!({"_id": "PLANT1:S", "kind": "timeseries", "name": format!("{MARK} {name}"),
                       "checks": [{"id": "above", "expression": "value > 2"}]}),
            )
            .await);
    }
    ok(&acme.put("/validationconfig/v1/PLANT1:S/1/gold").await);
    ok(&acme
        .post(
            "/validationconfig/v1",
            json!({"_id": "PLANT1:F", "kind": "curve", "name": MARK, "checks": [{"expression": "value > 0"}]}),
        )
        .await);
    ok(&acme
        .post(
            "/validation/v1?_function=run",
            json!({"target": "PLANT1:S", "from": "2024-07-01", "to": "2024-07-05"}),
        )
        .await);
    ok(&acme
        .post(
            "/validation/v1?_function=override",
            json!({"ids": ["PLANT1:S:2024-07-01"], "reason": MARK}),
        )
        .await);
    ok(&acme
        .post(
            "/validation/v1?_function=comment",
            json!({"ids": ["PLANT1:S:2024-07-02"], "message": MARK}),
        )
        .await);
    let job = ok(&acme
        .post(
            "/validation/v1?_function=run&_delay=60000",
            json!({"target": "PLANT1:S", "point": "2024-07-05", "note": MARK}),
        )
        .await)
    .clone();
    assert!(job["job"].is_string(), "{job}");
    let automation = ok(&acme
        .post(
            "/automation/v1",
            json!({"name": format!("{MARK} alert"), "target": "platform.email",
                   "properties": {"to": "ops@acme.example", "subject": format!("{MARK} subject")},
                   "conditions": [{"service": "object", "id": "PLANT1", "action": "update"}]}),
        )
        .await)["_id"]
        .as_str()
        .unwrap()
        .to_string();
    acme.save(json!({"_id": "PLANT1", "capacity": 3})).await;
    while s.platform.deliveries().run_next().unwrap() {}
    assert_eq!(acme.get("/automation/v1/mail").await.total(), 1);
    assert_eq!(acme.get("/automation/v1/log").await.total(), 1);
    automation
}

/// Everything acme has, as acme reads it.
async fn snapshot(acme: &Client<'_>) -> BTreeMap<String, Value> {
    let mut all = BTreeMap::new();
    let mut paths: Vec<String> = vec![
        "/secret/v1".into(),
        "/secret/v1/apikey".into(),
        "/validation/v1?_limit=-1".into(),
        "/validation/v1?_function=jobs".into(),
        "/automation/v1".into(),
        "/automation/v1/log".into(),
        "/automation/v1/mail".into(),
        "/data/v1/private".into(),
        "/data/v1/private/PLANT1:S".into(),
        "/data/v1/private/PLANT1:F".into(),
        "/validationconfig/v1/PLANT1:S/*".into(),
        "/validationconfig/v1/PLANT1:F/*".into(),
        "/validationconfig/v1".into(),
        "/extension/v1/private/acme.tools7/*".into(),
        "/extension/v1/private/vendor.kitx9".into(),
    ];
    for service in ["object", "type", "script", "extension"] {
        let list = acme.get(&format!("/{service}/v1/private")).await;
        for item in list.body.as_array().unwrap() {
            let id = item["_id"].as_str().unwrap();
            paths.push(format!("/{service}/v1/private/{}/*", enc(id)));
        }
        paths.push(format!("/{service}/v1/private"));
    }
    for path in paths {
        let r = acme.get(&path).await;
        all.insert(path, json!({"status": r.status, "body": r.body}));
    }
    all
}

/// Every route of every service that takes an id, with acme's ids and ghosts of the same shape.
fn routes(automation: &str) -> Vec<Route> {
    let mut routes = Vec::new();
    let get = Route::get;
    let new = Route::new;
    // Versioned services: objects (ids that look like routes too), types and scripts.
    let versioned = [
        (
            "object",
            "PLANT1",
            "GHOST1",
            json!({"_id": "{X}", "name": "probe"}),
        ),
        (
            "object",
            "public",
            "ghostly",
            json!({"_id": "{X}", "name": "probe"}),
        ),
        (
            "object",
            "all",
            "nil",
            json!({"_id": "{X}", "name": "probe"}),
        ),
        (
            "type",
            "PlantType",
            "GhostType",
            json!({"_id": "{X}", "description": "probe"}),
        ),
        (
            "script",
            "acmelib",
            "ghostlib",
            json!({"_id": "{X}", "script": "1 + 1"}),
        ),
    ];
    for (svc, victim, ghost, body) in versioned {
        for path in [
            "/private/{X}",
            "/private/{X}/1",
            "/private/{X}/2",
            "/private/{X}/gold",
            "/all/{X}",
            "/all/{X}/gold",
            "/private/{X}?_project=name,description",
        ] {
            routes.push(get(&format!("/{svc}/v1{path}"), victim, ghost));
        }
        routes
            .push(get(&format!("/{svc}/v1/private/{{X}}/*"), victim, ghost).owner_sees("_version"));
        routes.push(
            get(
                &format!("/{svc}/v1/private/{{X}}?_function=listAutomations"),
                victim,
                ghost,
            )
            .owner_sees("conditions"),
        );
        routes.push(get(&format!("/{svc}/v1/all?_id={{X}}"), victim, ghost));
        if svc == "object" {
            routes.push(get("/object/v1/private/{X}", victim, ghost).accept("text/csv"));
        }
        routes.push(get(&format!("/{svc}/v1/public/{{X}}"), victim, ghost).not_owner());
        for path in [
            "/private/{X}/1/probe",
            "/private/{X}/gold/probe",
            "/all/{X}/1/probe",
        ] {
            routes.push(new(Method::PUT, &format!("/{svc}/v1{path}"), victim, ghost));
        }
        for path in [
            "/private/{X}/1",
            "/private/{X}/gold",
            "/private/{X}/*",
            "/private/{X}?_reason=probe",
            "/all/{X}",
        ] {
            routes.push(new(
                Method::DELETE,
                &format!("/{svc}/v1{path}"),
                victim,
                ghost,
            ));
        }
        routes.push(new(Method::POST, &format!("/{svc}/v1"), victim, ghost).body(body.clone()));
        routes.push(
            new(
                Method::POST,
                &format!("/{svc}/v1/private?_replace=true"),
                victim,
                ghost,
            )
            .body(body),
        );
    }
    // Data of an object: series, curves, tenor histories, versions, formats.
    let (o, g) = ("PLANT1", "GHOST1");
    for path in [
        "/data/v1/private/{X}:S",
        "/data/v1/private/{X}:S?_range=last(2)",
        "/data/v1/private/{X}:S?_version=1",
        "/data/v1/private/{X}:S?_version=gold",
        "/data/v1/private/{X}:F",
        "/data/v1/private/{X}:F:2024-07-01",
        "/data/v1/all/{X}:S",
        "/object/v1/private/{X}?_profile=S",
        "/object/v1/private/{X}?_profile=F&_range=last(1)",
    ] {
        routes.push(get(path, o, g));
    }
    routes.push(get("/data/v1/private/{X}:F?listTenors=true", o, g).owner_sees("M01"));
    routes.push(get("/data/v1/private/{X}:F?tenor=M01", o, g).owner_sees("M01"));
    routes.push(get("/data/v1/all?_id={X}:S", o, g));
    routes.push(
        get("/data/v1/private/{X}:S", o, g)
            .accept("text/csv")
            .owner_sees("2024-07-01"),
    );
    routes.push(
        get("/data/v1/private/{X}:S?_function=listAutomations", o, g).owner_sees("conditions"),
    );
    routes.push(get("/data/v1/public/{X}:S", o, g).not_owner());
    // Secrets.
    let (k, gk) = ("apikey", "ghostkey");
    routes.push(get("/secret/v1/{X}", k, gk));
    routes.push(new(Method::DELETE, "/secret/v1/{X}", k, gk));
    routes
        .push(new(Method::POST, "/secret/v1", k, gk).body(json!({"_id": "{X}", "enabled": false})));
    routes
        .push(new(Method::POST, "/secret/v1", k, gk).body(json!({"_id": "{X}", "value": "probe"})));
    // Extensions: acme's draft (the code stands for the id) and the one it installed.
    let (e, ge) = ("tools7", "ghst7");
    for path in ["", "/1", "/gold", "?_function=listAutomations"] {
        let r = get(&format!("/extension/v1/private/acme.{{X}}{path}"), e, ge);
        routes.push(if path.contains("listAutomations") {
            r.owner_sees("conditions")
        } else {
            r
        });
    }
    routes.push(get("/extension/v1/private/acme.{X}/*", e, ge).owner_sees("_version"));
    routes.push(new(
        Method::PUT,
        "/extension/v1/private/acme.{X}/1/probe",
        e,
        ge,
    ));
    routes.push(new(Method::DELETE, "/extension/v1/private/acme.{X}", e, ge));
    routes.push(new(
        Method::DELETE,
        "/extension/v1/private/acme.{X}/1",
        e,
        ge,
    ));
    routes.push(new(
        Method::DELETE,
        "/extension/v1/private/acme.{X}/*",
        e,
        ge,
    ));
    for source in ["public", "private"] {
        routes.push(
            new(
                Method::POST,
                &format!("/extension/v1/{source}?_publish=true"),
                e,
                ge,
            )
            .body(json!({"_id": "acme.{X}"}))
            .function(),
        );
    }
    routes.push(
        new(Method::POST, "/extension/v1", e, ge)
            .body(json!({"_id": "acme.{X}", "publisher": "acme", "code": "{X}", "name": "probe"})),
    );
    let (i, gi) = ("kitx9", "ghst9");
    routes.push(get("/extension/v1/private/vendor.{X}", i, gi).owner_sees("_installedVersion"));
    routes.push(get("/extension/v1/private/vendor.{X}/*", i, gi).owner_sees("_version"));
    routes.push(
        get("/extension/v1/private/vendor.{X}/view/main", i, gi)
            .accept("text/html")
            .owner_sees("<p>Kit for"),
    );
    routes.push(new(
        Method::DELETE,
        "/extension/v1/private/vendor.{X}",
        i,
        gi,
    ));
    // Validation configurations and records, and every function on them.
    for path in [
        "/validationconfig/v1/{X}:S",
        "/validationconfig/v1/{X}:S/1",
        "/validationconfig/v1/{X}:S/gold",
        "/validation/v1/{X}:S:2024-07-01",
        "/validation/v1/{X}:S:2024-07-02",
    ] {
        routes.push(get(path, o, g));
    }
    routes.push(get("/validationconfig/v1/{X}:S/*", o, g).owner_sees("_version"));
    for path in [
        "/validationconfig/v1/{X}:S?_function=listAutomations",
        "/validation/v1/{X}:S:2024-07-01?_function=listAutomations",
    ] {
        routes.push(get(path, o, g).owner_sees("conditions"));
    }
    routes.push(new(Method::PUT, "/validationconfig/v1/{X}:S/1/probe", o, g));
    routes.push(new(Method::DELETE, "/validationconfig/v1/{X}:S", o, g));
    routes.push(new(Method::POST, "/validationconfig/v1", o, g).body(
        json!({"_id": "{X}:S", "kind": "timeseries", "checks": [{"expression": "value > 0"}]}),
    ));
    for (function, body) in [
        ("run", json!({"target": "{X}:S", "point": "2024-07-01"})),
        (
            "run",
            json!({"target": "{X}:S", "from": "2024-07-01", "to": "2024-07-02", "background": true}),
        ),
        ("test", json!({"target": "{X}:S"})),
        (
            "test",
            json!({"target": "{X}:S", "config": {"_id": "{X}:S", "kind": "timeseries", "checks": [{"expression": "value > 0"}]}}),
        ),
        ("runMany", json!({"targets": ["{X}:S", "{X}:F"]})),
        ("suggest", json!({"targets": ["{X}:S"]})),
        (
            "tune",
            json!({"items": [{"target": "{X}:S", "points": ["2024-07-01"]}]}),
        ),
        (
            "override",
            json!({"ids": ["{X}:S:2024-07-02"], "reason": "probe"}),
        ),
        ("removeOverride", json!({"ids": ["{X}:S:2024-07-01"]})),
        (
            "comment",
            json!({"ids": ["{X}:S:2024-07-01"], "message": "probe"}),
        ),
    ] {
        routes.push(
            new(
                Method::POST,
                &format!("/validation/v1?_function={function}"),
                o,
                g,
            )
            .body(body)
            .function(),
        );
    }
    routes.push(get("/validation/v1?_function=stats&target={X}:S", o, g).owner_sees("PLANT1:S"));
    // Automations.
    let ga = "0123456789abcdef01234567";
    routes.push(get("/automation/v1/{X}", automation, ga));
    routes.push(get("/automation/v1/{X}?_run=true", automation, ga).function());
    routes.push(get("/automation/v1/log?automation={X}", automation, ga).owner_sees("PLANT1"));
    routes.push(
        new(Method::PUT, "/automation/v1/{X}", automation, ga).body(json!({"enabled": false})),
    );
    for switch in ["enable", "disable"] {
        routes.push(
            new(
                Method::POST,
                &format!("/automation/v1/{{X}}/{switch}"),
                automation,
                ga,
            )
            .function(),
        );
    }
    routes.push(new(Method::DELETE, "/automation/v1/{X}", automation, ga));
    routes.push(new(Method::POST, "/automation/v1", automation, ga).body(
        json!({"_id": "{X}", "target": "platform.email", "properties": {"to": "x@example.com", "subject": "probe"},
               "conditions": [{"service": "object"}]}),
    ));
    routes
}

/// Lists and searches that name acme's things (compared with the same query for a ghost), and
/// whole lists (which must not show them).
fn lists() -> Vec<Route> {
    let get = Route::get;
    let filter = |json: &str| enc(json).replace("%7BX%7D", "{X}");
    let mut lists = Vec::new();
    for base in [
        "/object/v1/private",
        "/object/v1/all",
        "/data/v1/private",
        "/data/v1/all",
    ] {
        lists.push(get(&format!("{base}?_search={{X}}"), MARK, "GHOSTMARK"));
        lists
            .push(get(&format!("{base}?_searchinfo={{X}}"), "PLANT", "GHOST").owner_sees("PLANT1"));
        lists.push(get(
            &format!("{base}?_filter={}", filter(r#"{"description":"{X}"}"#)),
            MARK,
            "GHOSTMARK",
        ));
    }
    for base in ["/object/v1/private", "/object/v1/all"] {
        lists.push(get(
            &format!("{base}?name={{X}}"),
            &format!("{MARK} plant PLANT1"),
            "GHOSTMARK plant PLANT1",
        ));
        lists.push(get(
            &format!("{base}?_type={{X}}"),
            "PlantType",
            "GhostType",
        ));
        lists.push(get(
            &format!("{base}?%23type={{X}}"),
            "PlantType",
            "GhostType",
        ));
        lists.push(get(
            &format!("{base}?_profile=S&_range=last(1)&_type={{X}}"),
            "PlantType",
            "GhostType",
        ));
        lists.push(get(
            &format!("{base}?_distinct=name&description={{X}}"),
            MARK,
            "GHOSTMARK",
        ));
    }
    lists.push(get("/data/v1/private?_objid={X}", "PLANT1", "GHOST1"));
    lists.push(get(
        "/data/v1/private?_objid={X}&_range=last(1)",
        "PLANT1",
        "GHOST1",
    ));
    for svc in ["type", "script", "extension"] {
        lists.push(get(
            &format!("/{svc}/v1/private?_search={{X}}"),
            MARK,
            "GHOSTMARK",
        ));
    }
    lists.push(get("/type/v1/all?_searchinfo={X}", "Plant", "Ghost").owner_sees("PlantType"));
    lists.push(get("/script/v1/all?_searchinfo={X}", "acme", "ghost").owner_sees("acmelib"));
    lists.push(get("/validationconfig/v1?_search={X}", MARK, "GHOSTMARK"));
    lists.push(get(
        &format!(
            "/validationconfig/v1?_filter={}",
            filter(r#"{"_id":"{X}:S"}"#)
        ),
        "PLANT1",
        "GHOST1",
    ));
    lists.push(
        get("/validation/v1?target={X}:S", "PLANT1", "GHOST1").owner_sees("PLANT1:S:2024-07-01"),
    );
    lists.push(
        get(
            &format!("/validation/v1?_filter={}", filter(r#"{"target":"{X}:S"}"#)),
            "PLANT1",
            "GHOST1",
        )
        .owner_sees("PLANT1:S:2024-07-01"),
    );
    lists.push(
        get("/validation/v1?status={X}", "overridden", "severe").owner_sees("PLANT1:S:2024-07-01"),
    );
    // Whole lists: the same answer as for a caller who has nothing, and never acme's items.
    for (path, owner) in [
        ("/object/v1/private", MARK),
        ("/object/v1/all", MARK),
        ("/object/v1/private?_distinct=name", MARK),
        ("/object/v1/all?_distinct=_type", "PlantType"),
        ("/data/v1/private", MARK),
        ("/data/v1/all?_distinct=_objtype", "PlantType"),
        ("/type/v1/private", MARK),
        ("/type/v1/all", MARK),
        ("/script/v1/private", MARK),
        ("/extension/v1/private", MARK),
        ("/secret/v1", "apikey"),
        ("/validationconfig/v1", MARK),
        ("/validation/v1", "PLANT1:S"),
        ("/validation/v1?_function=jobs", "queued"),
        ("/validation/v1?_function=stats", "PLANT1:S"),
        ("/automation/v1", MARK),
        ("/automation/v1/log", "PLANT1"),
        ("/automation/v1/mail", MARK),
    ] {
        lists.push(get(path, "", "").owner_sees(owner));
    }
    lists
}

#[actix_rt::test]
async fn another_tenant_or_environment_meets_every_id_of_a_tenant_as_missing() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let acme = s.client_of("acme", "alice", Role::Admin);
    s.platform
        .tenancy()
        .create_environment("acme", "test")
        .unwrap();
    let automation = victim_world(&s, &acme).await;
    let before = snapshot(&acme).await;
    for (path, answer) in &before {
        assert_eq!(answer["status"], 200, "{path}: {answer}");
    }

    let globex = s.client_of("globex", "bob", Role::Admin);
    let acme_test = acme.in_env("test");
    let operator = s.client_of("ops", "olga", Role::Platform);
    let attackers = [
        ("tenant globex", &globex),
        ("acme's test environment", &acme_test),
        ("a platform-role user of tenant ops", &operator),
    ];

    let mut matrix: Vec<Route> = routes(&automation);
    matrix.extend(lists());
    matrix.sort_by_key(|r| r.phase);
    let acme_ids = [
        "PLANT1",
        "public",
        "all",
        "PlantType",
        "acmelib",
        "apikey",
        "acme.tools7",
        &automation,
    ];

    // acme's own answers: every read probe addresses something that exists.
    let mut absent = Vec::new();
    for route in matrix.iter().filter(|r| r.owner_sees.is_some()) {
        let r = call(
            &acme,
            &route.method,
            &route.path_for(&route.victim),
            route.body_for(&route.victim).as_ref(),
            route.accept,
        )
        .await;
        let text = format!(
            "{} {}",
            r.body,
            r.header("x-total-count").unwrap_or_default()
        );
        let wanted = route.owner_sees.as_deref().unwrap();
        if r.status != 200 || !text.contains(wanted) {
            absent.push(format!("acme's own {}: {} {text}", route.name(), r.status));
        }
    }
    assert!(absent.is_empty(), "{}", absent.join("\n"));

    let mut probes = 0;
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for phase in [Phase::Read, Phase::Destroy, Phase::Write] {
        for (who, attacker) in &attackers {
            for route in matrix.iter().filter(|r| r.phase == phase) {
                let victim = call(
                    attacker,
                    &route.method,
                    &route.path_for(&route.victim),
                    route.body_for(&route.victim).as_ref(),
                    route.accept,
                )
                .await;
                let ghost = call(
                    attacker,
                    &route.method,
                    &route.path_for(&route.ghost),
                    route.body_for(&route.ghost).as_ref(),
                    route.accept,
                )
                .await;
                probes += 1;
                *statuses.entry(victim.status).or_default() += 1;
                let ids = [route.victim.as_str(), route.ghost.as_str()];
                let (v, g) = (seen(&victim, &ids), seen(&ghost, &ids));
                // The marker is looked for in the answer as given, but for the id asked.
                let text = seen(&victim, &[route.victim.as_str()]).to_string();
                if v != g {
                    failures.push(format!(
                        "{who}: {}:\n  acme's id: {v}\n  a ghost:   {g}",
                        route.name()
                    ));
                } else if victim.status == 403 {
                    failures.push(format!("{who}: {}: 403 tells the id exists", route.name()));
                } else if text.contains(MARK) {
                    failures.push(format!(
                        "{who}: {}: leaks acme's data: {text}",
                        route.name()
                    ));
                } else if let Some(items) = victim.body.as_array() {
                    let leaked: Vec<&Value> = items
                        .iter()
                        .filter(|i| {
                            acme_ids.iter().any(|id| {
                                i["_id"] == *id
                                    || i["target"]
                                        .as_str()
                                        .is_some_and(|t| t.starts_with("PLANT1"))
                            })
                        })
                        .collect();
                    if !leaked.is_empty() {
                        failures.push(format!("{who}: {}: lists acme's {leaked:?}", route.name()));
                    }
                }
            }
        }
    }
    let after = snapshot(&acme).await;
    for (path, value) in &before {
        if after.get(path) != Some(value) {
            failures.push(format!(
                "acme's {path} changed:\n  before: {value}\n  after:  {:?}",
                after.get(path)
            ));
        }
    }
    eprintln!(
        "isolation matrix: {} routes x {} attackers = {probes} probes (answers: {statuses:?}), {} failed",
        matrix.len(),
        attackers.len(),
        failures.len()
    );
    assert!(probes >= 300, "{probes} probes");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The probes reached every kind of answer: missing ids, refused bodies, and the writes that
    // made the attackers' own items.
    assert!(
        statuses.contains_key(&404) && statuses.contains_key(&200),
        "{statuses:?}"
    );
}
