//! Every `_function` of a method with a body (POST, PUT), walked from the route table: a body of
//! a JSON type the function does not take is refused (400, the error envelope, a message naming
//! the shape it takes) and changes nothing.

use crate::common::{Client, Resp, TestServer};
use platform_core::auth::Role;
use platform_server::endpoint::{BodyDoc, Endpoint, Function, Verb};
use platform_server::openapi::{endpoints, path_parameters};
use serde_json::{json, Value};

/// A daily series `NBP:SPOT` with a spike, its configuration checked on update, its update
/// automation deleted (so `_function=automations` would recreate it) and one run's records.
async fn plant(c: &Client<'_>) {
    let data: Vec<Value> = [10.0, 11.0, 10.5, 95.0, 10.8]
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"time": format!("2024-07-{:02}", i + 1), "value": v}))
        .collect();
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}))
        .await;
    let config = json!({"_id": "NBP:SPOT", "kind": "timeseries", "runOnUpdate": true,
        "checks": [{"name": "Range", "expression": "between(value, 0, 50)"}]});
    let r = c.post("/validationconfig/v1", config).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let owned = c.get("/automation/v1").await.body;
    let id = owned[0]["_id"].as_str().expect("an update automation");
    assert_eq!(c.delete(&format!("/automation/v1/{id}")).await.status, 200);
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-05"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

/// What a function could change: objects, configurations, records, automations, jobs.
async fn state(c: &Client<'_>) -> Vec<Value> {
    let mut out = Vec::new();
    for path in [
        "/object/v1/private?_limit=-1",
        "/validationconfig/v1?_limit=-1",
        "/validation/v1?_limit=-1",
        "/validation/v1?_function=jobs",
        "/automation/v1",
    ] {
        let r = c.get(path).await;
        assert_eq!(r.status, 200, "{path}: {:?}", r.body);
        out.push(r.body);
    }
    out
}

/// The JSON types a body of this shape may have (besides none at all where it is optional).
fn taken(shape: BodyDoc) -> &'static [&'static str] {
    match shape {
        BodyDoc::Object | BodyDoc::OptionalObject | BodyDoc::None => &["an object"],
        BodyDoc::ObjectOrArray => &["an object", "an array"],
        BodyDoc::Csv => unreachable!("no function reads CSV"),
    }
}

/// How a refusal names the shape.
fn named(shape: BodyDoc) -> &'static str {
    match shape {
        BodyDoc::Object => "a JSON object",
        BodyDoc::OptionalObject | BodyDoc::None => "a JSON object or empty",
        BodyDoc::ObjectOrArray => "a JSON object or an array of objects",
        BodyDoc::Csv => unreachable!("no function reads CSV"),
    }
}

/// A concrete path of an endpoint's documented path: the private source, `X` for other names.
fn concrete(path: &str) -> String {
    let mut out = path.to_string();
    for name in path_parameters(path) {
        let value = if name == "source" { "private" } else { "X" };
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

async fn send(c: &Client<'_>, e: &Endpoint, url: &str, body: Option<&Value>) -> Resp {
    match (e.verb, body) {
        (Verb::Post, Some(b)) => c.post(url, b.clone()).await,
        (Verb::Post, None) => c.post_raw(url, "").await,
        (Verb::Put, Some(b)) => c.put_json(url, b.clone()).await,
        (Verb::Put, None) => c.put(url).await,
        (verb, _) => panic!("{verb:?} has no body"),
    }
}

#[actix_rt::test]
async fn every_function_refuses_a_body_of_a_json_type_it_does_not_take() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Admin);
    plant(&c).await;
    let before = state(&c).await;
    let wrong = [
        ("a string", json!("x")),
        ("a number", json!(1)),
        ("an array", json!([{}])),
        ("null", json!(null)),
        ("a boolean", json!(true)),
        ("an object", json!({})),
    ];
    let with_body = |e: &&Endpoint| matches!(e.verb, Verb::Post | Verb::Put);
    let mut walked: Vec<(String, &str)> = Vec::new();
    for e in endpoints()
        .filter(with_body)
        .filter(|e| !e.functions.is_empty())
    {
        for path in e.documented_paths() {
            let path = concrete(&path);
            for Function { name, body: shape } in e.functions.iter().copied() {
                let url = format!("{path}?_function={name}");
                for (kind, body) in wrong.iter().filter(|(k, _)| !taken(shape).contains(k)) {
                    let r = send(&c, e, &url, Some(body)).await;
                    let m = r.assert_error(400, "INVALID_BODY");
                    let says = format!(
                        "the body of _function={name} must be {}, not {kind}",
                        named(shape)
                    );
                    assert!(m.contains(&says), "{e:?} {url} {body}: {m}");
                    assert_eq!(state(&c).await, before, "{e:?} {url} {body} changed");
                }
                if shape == BodyDoc::Object || shape == BodyDoc::ObjectOrArray {
                    let m = send(&c, e, &url, None)
                        .await
                        .assert_error(400, "INVALID_JSON");
                    assert!(m.contains(&format!("_function={name}")), "{url}: {m}");
                    assert!(m.contains(named(shape)), "{url}: {m}");
                    assert_eq!(state(&c).await, before, "{e:?} {url} (empty) changed");
                }
                walked.push((path.clone(), name));
            }
        }
    }
    for (path, name) in [
        ("/validation/v1", "automations"),
        ("/validation/v1", "run"),
        ("/validation/v1", "runMany"),
        ("/validation/v1", "comment"),
        ("/validationconfig/v1", "automations"),
    ] {
        assert!(
            walked.contains(&(path.to_string(), name)),
            "{path} {name}: {walked:?}"
        );
    }

    // The document says what each function reads.
    let doc = s.anonymous().get("/openapi.json").await.body;
    for e in endpoints()
        .filter(with_body)
        .filter(|e| !e.functions.is_empty())
    {
        for path in e.documented_paths() {
            let said = doc["paths"][&path][e.verb.name()]["requestBody"]["description"]
                .as_str()
                .unwrap_or_else(|| panic!("{e:?} {path}: no body documented"))
                .to_string();
            for f in e.functions {
                assert!(said.contains(f.name), "{path} {}: {said}", f.name);
            }
            if e.functions.iter().any(|f| f.body == BodyDoc::None) {
                assert!(said.contains("nothing, or a JSON object"), "{path}: {said}");
            }
        }
    }

    // A function that reads no body takes none, or a JSON object that it ignores.
    for e in endpoints().filter(with_body) {
        for f in e.functions.iter().filter(|f| f.body == BodyDoc::None) {
            for path in e.documented_paths() {
                let url = format!("{}?_function={}", concrete(&path), f.name);
                for body in [None, Some(&json!({})), Some(&json!({"ignored": [1]}))] {
                    let r = send(&c, e, &url, body).await;
                    assert_eq!(r.status, 200, "{url} {body:?}: {:?}", r.body);
                }
            }
        }
    }
    // The automation the first of those recreated.
    assert_eq!(c.get("/automation/v1").await.total(), 1);
}
