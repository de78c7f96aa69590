//! What an operator uses: probes, metrics, request ids, compression, ETags, CORS and the
//! authentication challenge.

use crate::common::TestServer;
use actix_web::http::{header, Method};
use actix_web::test;
use platform_core::auth::Role;
use platform_server::state::MetricsAccess;
use platform_server::ServerConfig;
use serde_json::json;
use std::io::Read as _;

#[actix_rt::test]
async fn health_and_ready_answer_without_a_token() {
    let s = TestServer::new();
    let health = s.anonymous().get("/health").await;
    assert_eq!(health.status, 200);
    assert_eq!(health.body["status"], "up");
    let ready = s.anonymous().get("/ready").await;
    assert_eq!(ready.status, 200, "{:?}", ready.body);
    assert_eq!(ready.body["status"], "ready");
    assert_eq!(ready.body["database"], "up");
    // An in-process app runs no workers of its own.
    assert_eq!(ready.body["workers"], "none");
    // Under a base path, they move with every other route.
    let based = TestServer::with_config(ServerConfig {
        base_path: "/api".into(),
        ..Default::default()
    });
    assert_eq!(based.anonymous().get("/api/health").await.status, 200);
    assert_eq!(based.anonymous().get("/api/ready").await.status, 200);
}

#[actix_rt::test]
async fn ready_reports_workers_that_stopped() {
    let s = TestServer::new();
    let worker = platform_server::Worker::start(s.platform.clone());
    let health = worker.health();
    let state = s.state.clone().with_workers(health.clone());
    let app = test::init_service(platform_server::app(state.clone())).await;
    let res = test::call_service(&app, test::TestRequest::get().uri("/ready").to_request())
        .await
        .map_into_boxed_body();
    let resp = TestServer::read(res).await;
    assert_eq!(resp.status, 200, "{:?}", resp.body);
    assert_eq!(
        resp.body["workers"],
        json!({"jobs": "up", "events": "up", "heartbeat": "up"})
    );
    worker.stop();
    let res = test::call_service(&app, test::TestRequest::get().uri("/ready").to_request())
        .await
        .map_into_boxed_body();
    let resp = TestServer::read(res).await;
    assert_eq!(resp.status, 503, "{:?}", resp.body);
    assert_eq!(resp.body["status"], "unavailable");
    assert_eq!(resp.body["workers"]["jobs"], "down");
}

#[actix_rt::test]
async fn metrics_count_requests_by_route_template_and_the_work_waiting() {
    let s = TestServer::new();
    let w = s.client(Role::Writer);
    w.save(json!({"_id": "M1", "_type": "T"})).await;
    assert_eq!(w.get("/object/v1/private/M1").await.status, 200);
    assert_eq!(w.get("/object/v1/private/NOPE").await.status, 404);
    let m = s.anonymous().get("/metrics").await;
    assert_eq!(m.status, 200);
    assert!(m
        .header("content-type")
        .unwrap()
        .starts_with("text/plain; version=0.0.4"));
    let text = m.body.as_str().unwrap();
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle} in\n{text}"))
            .to_string()
    };
    // Route templates, not paths: ids never become labels.
    line(
        r#"platform_http_requests_total{method="GET",route="/{service}/v1/{source}/{key}",status="200"}"#,
    );
    line(
        r#"platform_http_requests_total{method="GET",route="/{service}/v1/{source}/{key}",status="404"}"#,
    );
    assert!(!text.contains("M1"), "{text}");
    line("platform_http_request_duration_seconds_bucket");
    line(r#"platform_backlog_jobs{state="queued"}"#);
    line(r#"platform_backlog_deliveries{state="pending"}"#);
    line(r#"platform_db_wait_seconds_count{tx="read"}"#);
    // Every family is described: its `# HELP` line comes right before its `# TYPE` line.
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if let Some(name) = l.strip_prefix("# TYPE ").and_then(|t| t.split(' ').next()) {
            let help = format!("# HELP {name} ");
            assert!(
                i > 0 && lines[i - 1].starts_with(&help),
                "{l}: no help in\n{text}"
            );
        }
    }
}

#[actix_rt::test]
async fn metrics_are_closed_to_callers_below_the_role_or_off() {
    let s = TestServer::with_config(ServerConfig {
        metrics: MetricsAccess::Role(Role::Admin),
        ..Default::default()
    });
    s.anonymous()
        .get("/metrics")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    s.client(Role::Reader)
        .get("/metrics")
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert_eq!(s.client(Role::Admin).get("/metrics").await.status, 200);
    let off = TestServer::with_config(ServerConfig {
        metrics: MetricsAccess::Off,
        ..Default::default()
    });
    off.client(Role::Platform)
        .get("/metrics")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn a_request_id_is_echoed_or_made() {
    let s = TestServer::new();
    let req = test::TestRequest::get()
        .uri("/health")
        .insert_header(("x-request-id", "lb-7f3a.9"));
    assert_eq!(
        s.send(req).await.header("x-request-id").as_deref(),
        Some("lb-7f3a.9")
    );
    // None, or one that is not a plain token: a new one, different each time.
    let made = s
        .anonymous()
        .get("/health")
        .await
        .header("x-request-id")
        .unwrap();
    let again = s
        .anonymous()
        .get("/health")
        .await
        .header("x-request-id")
        .unwrap();
    assert_eq!(made.len(), 20);
    assert_ne!(made, again);
    let bad = test::TestRequest::get()
        .uri("/health")
        .insert_header(("x-request-id", "a b\"c"));
    let id = s.send(bad).await.header("x-request-id").unwrap();
    assert_ne!(id, "a b\"c");
    // Errors carry it too.
    let err = s.anonymous().get("/object/v1/private").await;
    assert_eq!(err.status, 401);
    assert!(err.header("x-request-id").is_some());
}

#[actix_rt::test]
async fn a_401_challenges_for_a_bearer_token() {
    let s = TestServer::new();
    let r = s.anonymous().get("/object/v1/private").await;
    r.assert_error(401, "NOT_AUTHENTICATED");
    assert_eq!(
        r.header("www-authenticate").as_deref(),
        Some("Bearer realm=\"platform\"")
    );
    let forbidden = s
        .client(Role::Reader)
        .post("/object/v1", json!({"_id": "X"}))
        .await;
    assert_eq!(forbidden.status, 403);
    assert_eq!(forbidden.header("www-authenticate"), None);
}

/// A list of many objects: a body well over the compression threshold.
async fn big_list(s: &TestServer) -> String {
    let w = s.client(Role::Writer);
    let docs: Vec<_> = (0..60)
        .map(|i| json!({"_id": format!("C{i:03}"), "_type": "T", "note": "a fairly repetitive text"}))
        .collect();
    assert_eq!(w.post("/object/v1", json!(docs)).await.status, 200);
    w.token.clone()
}

async fn raw(s: &TestServer, req: test::TestRequest) -> (u16, header::HeaderMap, Vec<u8>) {
    let res = s.start(req).await;
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let body = test::read_body(res).await.to_vec();
    (status, headers, body)
}

#[actix_rt::test]
async fn large_answers_are_compressed_as_the_client_accepts_and_small_ones_are_not() {
    let s = TestServer::new();
    let token = big_list(&s).await;
    let get = |enc: &str| {
        test::TestRequest::get()
            .uri("/object/v1/private?_limit=100")
            .insert_header((header::AUTHORIZATION, format!("Bearer {token}")))
            .insert_header((header::ACCEPT_ENCODING, enc.to_string()))
    };
    let (_, plain_headers, plain) = raw(&s, get("identity")).await;
    assert_eq!(plain_headers.get(header::CONTENT_ENCODING), None);
    let plain: serde_json::Value = serde_json::from_slice(&plain).unwrap();
    assert_eq!(plain.as_array().unwrap().len(), 60);

    let (status, headers, body) = raw(&s, get("gzip")).await;
    assert_eq!(status, 200);
    assert_eq!(headers.get(header::CONTENT_ENCODING).unwrap(), "gzip");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&body[..])
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        plain
    );
    assert!(
        body.len() * 4 < text.len(),
        "{} of {}",
        body.len(),
        text.len()
    );

    let (_, headers, body) = raw(&s, get("br")).await;
    assert_eq!(headers.get(header::CONTENT_ENCODING).unwrap(), "br");
    let mut text = String::new();
    brotli::Decompressor::new(&body[..], 4096)
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        plain
    );

    // A small answer stays as it is, with no content-encoding at all.
    let small = test::TestRequest::get()
        .uri("/health")
        .insert_header((header::ACCEPT_ENCODING, "gzip, br"));
    let (_, headers, body) = raw(&s, small).await;
    assert_eq!(headers.get(header::CONTENT_ENCODING), None);
    assert!(serde_json::from_slice::<serde_json::Value>(&body).is_ok());
}

#[actix_rt::test]
async fn a_get_carries_an_etag_and_an_unchanged_one_is_answered_304() {
    let s = TestServer::new();
    let w = s.client(Role::Writer);
    w.save(json!({"_id": "E1", "_type": "T", "v": 1})).await;
    let first = w.get("/object/v1/private/E1").await;
    let etag = first.header("etag").expect("an etag");
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    assert_eq!(
        w.get("/object/v1/private/E1").await.header("etag"),
        Some(etag.clone())
    );
    let modified = first.header("last-modified").expect("a last-modified");
    // The document's `_timestamp`, to the second, as an HTTP date.
    let stamp = first.body["_timestamp"].as_str().unwrap();
    let at = chrono::DateTime::parse_from_rfc3339(stamp).unwrap();
    assert_eq!(
        modified,
        at.format("%a, %d %b %Y %H:%M:%S GMT").to_string(),
        "{stamp}"
    );
    // A data read carries its object version's time too.
    w.save(json!({"_id": "E2", "p": {"_type": "VarTimeSeries",
        "data": [{"time": "2024-01-01T00:00:00Z", "value": 1}]}}))
        .await;
    for path in [
        "/data/v1/private/E2:p",
        "/data/v1/private/E2:p?_range=last(1)",
    ] {
        let data = w.get(path).await;
        assert_eq!(data.status, 200, "{path}");
        let stamp = data.body["_timestamp"].as_str().unwrap();
        let at = chrono::DateTime::parse_from_rfc3339(stamp).unwrap();
        assert_eq!(
            data.header("last-modified"),
            Some(at.format("%a, %d %b %Y %H:%M:%S GMT").to_string()),
            "{path}"
        );
    }
    // A projection that leaves `_timestamp` out leaves the header out too.
    let projected = w.get("/object/v1/private/E1?_project=v").await;
    assert_eq!(projected.status, 200);
    assert!(
        projected.body.get("_timestamp").is_none(),
        "{:?}",
        projected.body
    );
    assert_eq!(projected.header("last-modified"), None);

    let conditional = |tag: &str| {
        test::TestRequest::get()
            .uri("/object/v1/private/E1")
            .insert_header((header::AUTHORIZATION, format!("Bearer {}", w.token)))
            .insert_header((header::IF_NONE_MATCH, tag.to_string()))
    };
    let (status, headers, body) = raw(&s, conditional(&etag)).await;
    assert_eq!(status, 304);
    assert!(body.is_empty());
    assert_eq!(headers.get(header::ETAG).unwrap().to_str().unwrap(), etag);
    assert_eq!(
        headers
            .get(header::LAST_MODIFIED)
            .unwrap()
            .to_str()
            .unwrap(),
        modified
    );
    let (status, _, _) = raw(&s, conditional(&format!("\"other\", W/{etag}"))).await;
    assert_eq!(status, 304, "a weak match in a list counts");

    // A new version: a new tag, and the old one no longer matches.
    w.save(json!({"_id": "E1", "_type": "T", "v": 2})).await;
    let (status, headers, body) = raw(&s, conditional(&etag)).await;
    assert_eq!(status, 200);
    assert_ne!(headers.get(header::ETAG).unwrap().to_str().unwrap(), etag);
    let doc: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(doc["v"], 2);
    // A version read has its own tag, the same each time, and its own time.
    let first_v1 = w.get("/object/v1/private/E1/1").await;
    assert_eq!(first_v1.header("last-modified"), Some(modified.clone()));
    let v1 = first_v1.header("etag").unwrap();
    assert_eq!(
        w.get("/object/v1/private/E1/1").await.header("etag"),
        Some(v1.clone())
    );
    assert_ne!(
        Some(v1),
        w.get("/object/v1/private/E1").await.header("etag")
    );
    // Writes and errors carry none.
    assert_eq!(
        w.post("/object/v1", json!({"_id": "E2"}))
            .await
            .header("etag"),
        None
    );
    assert_eq!(w.get("/object/v1/private/NOPE").await.header("etag"), None);
}

#[actix_rt::test]
async fn cors_answers_preflights_of_configured_origins_only() {
    let none = TestServer::new();
    let preflight = |origin: &str| {
        test::TestRequest::default()
            .method(Method::OPTIONS)
            .uri("/object/v1/private")
            .insert_header((header::ORIGIN, origin.to_string()))
            .insert_header((header::ACCESS_CONTROL_REQUEST_METHOD, "GET"))
            .insert_header((
                header::ACCESS_CONTROL_REQUEST_HEADERS,
                "authorization, x-platform-environment",
            ))
    };
    // Without --cors-origin no origin is allowed.
    let r = none.send(preflight("https://console.example.com")).await;
    assert_eq!(r.header("access-control-allow-origin"), None);

    let s = TestServer::with_config(ServerConfig {
        cors_origins: vec!["https://console.example.com".into()],
        ..Default::default()
    });
    let r = s.send(preflight("https://console.example.com")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.header("access-control-allow-origin").as_deref(),
        Some("https://console.example.com")
    );
    let allowed = r
        .header("access-control-allow-headers")
        .unwrap()
        .to_lowercase();
    assert!(allowed.contains("authorization") && allowed.contains("x-platform-environment"));
    // Another origin is refused.
    let r = s.send(preflight("https://evil.example.net")).await;
    assert_ne!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), None);
    // An actual request from the origin can read the paging and error headers.
    let w = s.client(Role::Reader);
    let req = test::TestRequest::get()
        .uri("/object/v1/private")
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", w.token)))
        .insert_header((header::ORIGIN, "https://console.example.com"));
    let r = s.send(req).await;
    assert_eq!(r.status, 200);
    let exposed = r
        .header("access-control-expose-headers")
        .unwrap()
        .to_lowercase();
    assert!(exposed.contains("x-total-count") && exposed.contains("x-platform-error"));
    assert!(exposed.contains("x-odsl-error"), "{exposed}");
}
