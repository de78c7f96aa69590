//! The OpenAPI document: served without a token, and in step with the routes both ways (every
//! documented operation is served; every route the server answers is documented).

use crate::common::TestServer;
use actix_web::http::{header, Method};
use actix_web::test as actix_test;
use platform_core::auth::Role;
use platform_server::endpoint::Verb;
use platform_server::openapi::{endpoints, path_parameters};
use platform_server::ServerConfig;
use serde_json::Value;

/// Whether a (utoipa-made) schema allows a JSON value of this type.
fn allows(schema: &Value, kind: &str) -> bool {
    match schema.get("oneOf").and_then(Value::as_array) {
        Some(items) => items.iter().any(|s| allows(s, kind)),
        None => schema["type"] == kind,
    }
}

async fn document(server: &TestServer, path: &str) -> Value {
    let r = server.anonymous().get(path).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("application/json")
    );
    r.body
}

#[actix_rt::test]
async fn the_document_is_openapi_3_1_served_without_a_token_under_the_base_path() {
    let server = TestServer::new();
    let doc = document(&server, "/openapi.json").await;
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["title"], "platform");
    assert!(doc.get("servers").is_none(), "no base path, no server");
    // The bearer scheme, required everywhere but where an operation says otherwise.
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    assert_eq!(doc["security"], serde_json::json!([{"bearer": []}]));
    assert_eq!(
        doc["paths"]["/health"]["get"]["security"],
        serde_json::json!([])
    );
    assert_eq!(
        doc["paths"]["/metrics"]["get"]["security"],
        serde_json::json!([{}, {"bearer": []}]),
        "--metrics may ask for a token"
    );
    assert!(doc["paths"]["/object/v1/{source}"]["get"]
        .get("security")
        .is_none());
    // The error envelope is one shared schema, the same shape the server sends.
    let envelope = &doc["components"]["schemas"]["ErrorEnvelope"];
    assert_eq!(envelope["required"], serde_json::json!(["error"]));
    let body = &envelope["properties"]["error"];
    let inner = match body.get("$ref").and_then(Value::as_str) {
        Some(r) => &doc["components"]["schemas"][r.rsplit('/').next().unwrap()],
        None => body,
    };
    for field in ["status", "code", "message"] {
        assert!(inner["properties"].get(field).is_some(), "{field}: {inner}");
        assert!(inner["required"]
            .as_array()
            .unwrap()
            .contains(&Value::from(field)));
    }
    let list = &doc["paths"]["/object/v1/{source}"]["get"];
    assert_eq!(
        list["responses"]["404"]["$ref"],
        "#/components/responses/Error"
    );
    let names: Vec<&str> = list["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for name in [
        "source", "_filter", "_sort", "_limit", "_skip", "_search", "_project",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    assert_eq!(
        doc["paths"]["/validation/v1"]["post"]["parameters"][0]["required"], true,
        "_function is required on POST validation/v1"
    );
    assert!(doc["paths"]["/object/v1"]["post"]["requestBody"]["content"]
        .get("application/json")
        .is_some());

    let server = TestServer::with_config(ServerConfig {
        base_path: "/api/".into(),
        ..ServerConfig::default()
    });
    let doc = document(&server, "/api/openapi.json").await;
    assert_eq!(doc["servers"], serde_json::json!([{"url": "/api"}]));
    let r = server.anonymous().get("/openapi.json").await;
    r.assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn a_save_of_an_array_answers_an_array_as_the_document_says() {
    // schemathesis found this one: the document said a save answers an object.
    let server = TestServer::new();
    let doc = document(&server, "/openapi.json").await;
    let client = server.client(Role::Admin);
    for (path, service) in [("/object/v1", "object"), ("/type", "type")] {
        let schema = &doc["paths"][path]["post"]["responses"]["200"]["content"]["application/json"]
            ["schema"];
        let r = client
            .post(path, serde_json::json!([{"_id": format!("A-{service}")}]))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert!(r.body.is_array(), "{:?}", r.body);
        assert!(allows(schema, "array"), "{path}: {schema}");
        let r = client
            .post(path, serde_json::json!({"_id": format!("B-{service}")}))
            .await;
        assert!(r.body.is_object(), "{:?}", r.body);
        assert!(allows(schema, "object"), "{path}: {schema}");
    }
}

/// A path of the document with a value for each parameter.
fn concrete(template: &str, op: &Value) -> String {
    let mut path = template.to_string();
    for name in path_parameters(template) {
        let param = op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name.as_str() && p["in"] == "path")
            .unwrap_or_else(|| panic!("{template}: {{{name}}} is not documented"));
        let value = match param["schema"]["enum"].get(0).and_then(Value::as_str) {
            Some(first) => first.to_string(),
            None => "x1".to_string(),
        };
        path = path.replace(&format!("{{{name}}}"), &value);
    }
    let mut query = Vec::new();
    for param in op["parameters"].as_array().into_iter().flatten() {
        if param["in"] == "query" && param["required"] == true {
            let value = param["schema"]["enum"][0].as_str().unwrap_or("1");
            query.push(format!("{}={value}", param["name"].as_str().unwrap()));
        }
    }
    if query.is_empty() {
        path
    } else {
        format!("{path}?{}", query.join("&"))
    }
}

/// What a request answered: status and `x-platform-error` (the body is not read: streams stay
/// open). A POST or PUT sends `{}` as JSON.
async fn probe<S, B>(app: &S, token: &str, method: Method, path: &str) -> (u16, String)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    probe_with(app, token, method, path, "application/json").await
}

/// [`probe`] with the body sent as `content_type` (what the document says the operation reads).
async fn probe_with<S, B>(
    app: &S,
    token: &str,
    method: Method,
    path: &str,
    content_type: &str,
) -> (u16, String)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let mut req = actix_test::TestRequest::default()
        .method(method.clone())
        .uri(path)
        .insert_header((header::AUTHORIZATION, format!("Bearer {token}")));
    if method == Method::POST || method == Method::PUT {
        req = req
            .insert_header((header::CONTENT_TYPE, content_type.to_string()))
            .set_payload("{}");
    }
    let res = actix_test::call_service(app, req.to_request()).await;
    let error = res
        .headers()
        .get("x-platform-error")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (res.status().as_u16(), error)
}

/// Whether an answer says that no route has this path and method (as opposed to an answer of a
/// route, which may be a 404 for an item that does not exist).
fn unrouted(status: u16, error: &str) -> bool {
    status == 405
        || (status == 404
            && (error.starts_with("[NOT_FOUND] no endpoint")
                || error.contains("is not available in this build")
                || error.contains("unknown service")))
}

fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            out.push((path.clone(), method.clone(), op.clone()));
        }
    }
    out
}

#[actix_rt::test]
async fn every_documented_operation_is_served() {
    let server = TestServer::new();
    let token = server.client(Role::Platform).token;
    let app = actix_test::init_service(platform_server::app(server.state.clone())).await;
    let doc = document(&server, "/openapi.json").await;
    let ops = operations(&doc);
    assert!(ops.len() > 60, "{} operations", ops.len());
    for (template, method, op) in ops {
        let path = concrete(&template, &op);
        let m = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
        // The body in the media type the operation reads (JSON where it names none).
        let content = op["requestBody"]["content"].as_object();
        let kind = content
            .and_then(|c| c.keys().next())
            .map_or("application/json", String::as_str);
        let (status, error) = probe_with(&app, &token, m, &path, kind).await;
        assert!(
            !unrouted(status, &error) && status < 500,
            "{method} {path} (documented as {template}): {status} {error}"
        );
    }
}

/// Whether the document has an operation of this method whose template matches the path.
fn documented(doc: &Value, method: &str, path: &str) -> bool {
    let path = path.split('?').next().unwrap();
    let segments: Vec<&str> = path.split('/').collect();
    doc["paths"].as_object().unwrap().iter().any(|(t, item)| {
        let template: Vec<&str> = t.split('/').collect();
        template.len() == segments.len()
            && template
                .iter()
                .zip(&segments)
                .all(|(t, s)| t == s || (t.starts_with('{') && t.ends_with('}')))
            && item.get(method).is_some()
    })
}

#[actix_rt::test]
async fn every_route_the_server_answers_is_documented() {
    let server = TestServer::new();
    let token = server.client(Role::Platform).token;
    let app = actix_test::init_service(platform_server::app(server.state.clone())).await;
    let doc = document(&server, "/openapi.json").await;
    let services: Vec<&str> = platform_core::services::SERVICES
        .iter()
        .map(|s| s.name)
        .collect();
    let mut probed = 0;
    // Every registered path template (the route table registers every route), with every
    // service in place of `{service}` and every method: what a route answers is documented.
    for endpoint in endpoints() {
        let paths: Vec<String> = if endpoint.path.contains("{service}") {
            services
                .iter()
                .map(|s| endpoint.path.replace("{service}", s))
                .collect()
        } else {
            vec![endpoint.path.to_string()]
        };
        for template in paths {
            let mut path = template.clone();
            for name in path_parameters(&template) {
                let value = match name.as_str() {
                    "source" => endpoint.sources[0],
                    "switch" => "enable",
                    _ => "x1",
                };
                path = path.replace(&format!("{{{name}}}"), value);
            }
            for verb in Verb::ALL {
                let (status, error) = probe(&app, &token, verb.method(), &path).await;
                probed += 1;
                assert!(status < 500, "{verb:?} {path}: {status} {error}");
                if !unrouted(status, &error) {
                    assert!(
                        documented(&doc, verb.name(), &path),
                        "{verb:?} {path} answers {status} {error} but is not in the document"
                    );
                }
            }
        }
    }
    assert!(probed > 400, "{probed}");
}

#[test]
fn routes_are_registered_only_from_the_route_table() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("platform-server/src");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("openapi.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for registration in ["web::resource(", "cfg.route(", ".route(\"", "web::get()"] {
            assert!(
                !text.contains(registration),
                "{}: routes are registered through openapi::register_all and its tables \
                 ({registration})",
                path.display()
            );
        }
    }
}
