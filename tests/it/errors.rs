//! Bad input gets a clear error (status, JSON body, `x-platform-error`) and changes nothing.

use crate::common::TestServer;
use actix_web::http::Method;
use platform_core::auth::Role;
use serde_json::json;

/// The private objects of the caller, to prove nothing changed.
async fn snapshot(c: &crate::common::Client<'_>) -> serde_json::Value {
    c.get("/object/v1/all?_limit=-1").await.body
}

#[actix_rt::test]
async fn malformed_json_is_400() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A"})).await;
    let before = snapshot(&c).await;
    let m = c
        .post_raw("/object/v1", "{\"_id\": \"B\",")
        .await
        .assert_error(400, "INVALID_JSON");
    assert!(m.contains("not valid JSON"), "{m}");
    c.post_raw("/object/v1", "")
        .await
        .assert_error(400, "INVALID_JSON");
    assert_eq!(snapshot(&c).await, before);
}

#[actix_rt::test]
async fn a_body_that_is_not_an_object_or_array_is_400() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for body in [json!(42), json!("text"), json!(null), json!([])] {
        c.post("/object/v1", body.clone())
            .await
            .assert_error(400, "INVALID_BODY");
    }
    let m = c
        .post("/object/v1", json!([{"_id": "A"}, 7]))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("item 1"), "{m}");
    assert_eq!(c.get("/object/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn missing_or_invalid_ids_are_400() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let m = c
        .post("/object/v1", json!({"name": "x"}))
        .await
        .assert_error(400, "INVALID_ID");
    assert!(m.contains("missing _id"), "{m}");
    for bad in [
        json!(5),
        json!(""),
        json!("a/b"),
        json!("a:b"),
        json!("x".repeat(257)),
    ] {
        c.post("/object/v1", json!({"_id": bad}))
            .await
            .assert_error(400, "INVALID_ID");
    }
    let m = c
        .post("/object/v1", json!({"_id": "A", "_type": 3}))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("_type"), "{m}");
    assert_eq!(c.get("/object/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn a_hash_id_sent_to_private_is_400() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    let m = c
        .post("/object/v1/private", json!({"_id": "#A"}))
        .await
        .assert_error(400, "INVALID_ID");
    assert!(m.contains("#A") && m.contains("private"), "{m}");
    assert_eq!(c.get("/object/v1/public").await.total(), 0);
}

#[actix_rt::test]
async fn unknown_versions_and_tags_are_404() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A"})).await;
    let m = c
        .get("/object/v1/private/A/7")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("version 7"), "{m}");
    let m = c
        .get("/object/v1/private/A/nosuchtag")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("nosuchtag"), "{m}");
    c.put("/object/v1/private/A/9/gold")
        .await
        .assert_error(404, "NOT_FOUND");
    c.delete("/object/v1/private/A/9")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/object/v1/private/A/0")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/object/v1/private/NOPE")
        .await
        .assert_error(404, "NOT_FOUND");
    c.delete("/object/v1/private/NOPE")
        .await
        .assert_error(404, "NOT_FOUND");
    c.delete("/object/v1/private/NOPE/*")
        .await
        .assert_error(404, "NOT_FOUND");
    // A tag that is a number is refused, and nothing changed.
    c.put("/object/v1/private/A/1/12")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert_eq!(c.get("/object/v1/private/A").await.body["_tag"], json!([]));
}

#[actix_rt::test]
async fn unknown_source_service_and_release_are_404() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let m = c
        .get("/object/v1/secretsource")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("secretsource"), "{m}");
    c.get("/object/v2/private")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/nosuchservice/v1/private")
        .await
        .assert_error(404, "NOT_FOUND");
    c.post("/object/v2", json!({"_id": "A"}))
        .await
        .assert_error(404, "NOT_FOUND");
    c.post("/object/v1/all", json!({"_id": "A"}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert_eq!(c.get("/object/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn limit_and_skip_out_of_range_are_400() {
    let s = TestServer::new();
    let c = s.client(Role::Reader);
    for q in [
        "_limit=10001",
        "_limit=-2",
        "_limit=ten",
        "_skip=-1",
        "_skip=x",
    ] {
        let m = c
            .get(&format!("/object/v1/private?{q}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains(q.split('=').next().unwrap()), "{m}");
    }
    c.get("/object/v1/private?_sort=%7B%22a%22%3A2%7D")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    c.get("/object/v1/private?_project=a,,b")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    c.post("/object/v1?_replace=perhaps", json!({"_id": "A"}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn a_reader_cannot_write() {
    let s = TestServer::new();
    let writer = s.client(Role::Writer);
    writer.save(json!({"_id": "A", "v": 1})).await;
    let reader = s.client(Role::Reader);
    let m = reader
        .post("/object/v1", json!({"_id": "B"}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("writer"), "{m}");
    reader
        .post("/object/v1", json!({"_id": "A", "v": 2}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    reader
        .delete("/object/v1/private/A")
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    reader
        .put("/object/v1/private/A/1/t")
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert_eq!(reader.get("/object/v1/private/A").await.body["v"], 1);
    assert_eq!(reader.get("/object/v1/private/A/*").await.total(), 1);
}

#[actix_rt::test]
async fn public_writes_need_the_platform_role() {
    let s = TestServer::new();
    let admin = s.client(Role::Admin);
    let m = admin
        .post("/object/v1", json!({"_id": "#PUB"}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("public") && m.contains("platform"), "{m}");
    let platform = s.client(Role::Platform);
    platform.save(json!({"_id": "#PUB", "v": 1})).await;
    admin
        .delete("/object/v1/public/%23PUB")
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    admin
        .put("/object/v1/public/%23PUB/1/t")
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert_eq!(admin.get("/object/v1/public/%23PUB").await.body["v"], 1);
}

#[actix_rt::test]
async fn a_method_a_path_does_not_have_is_405() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.method(Method::PATCH, "/object/v1/private/A")
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    c.put("/object/v1/private")
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    c.delete("/object")
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
}

#[actix_rt::test]
async fn a_body_over_the_limit_is_413() {
    let s = TestServer::with_config(platform_server::ServerConfig {
        max_body: 1024,
        ..Default::default()
    });
    let c = s.client(Role::Writer);
    let big = json!({"_id": "A", "blob": "x".repeat(2000)});
    let m = c
        .post("/object/v1", big)
        .await
        .assert_error(413, "PAYLOAD_TOO_LARGE");
    assert!(m.contains("1024"), "{m}");
    c.get("/object/v1/private/A")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn system_fields_in_a_body_change_nothing_they_name() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let v = c.save(json!({"_id": "A", "_version": 40, "_user": "mallory", "_timestamp": "1999-01-01T00:00:00Z"})).await;
    assert_eq!(v["_version"], 1);
    assert_eq!(v["_user"], "writer-user");
    assert_ne!(v["_timestamp"], "1999-01-01T00:00:00Z");
}

#[actix_rt::test]
async fn errors_quote_at_most_a_couple_of_hundred_characters_of_input() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2024-01-01", "value": 1}]}}))
        .await;
    // A 1 MB _range (in a form body on GET, since a URL cannot be that long).
    let huge = "z".repeat(1 << 20);
    let r = c
        .get_form("/data/v1/private/A:SPOT", &format!("_range={huge}"))
        .await;
    let message = r.assert_error(400, "INVALID_PARAMETER");
    let header = r.header("x-platform-error").unwrap();
    assert!(header.len() < 1024, "{} bytes: {header}", header.len());
    assert!(message.contains("\"zzzz"), "{message}");
    assert!(message.contains("...\""), "{message}");
    assert!(message.len() < 1024, "{message}");
    // Without quotes too: a long word is cut, and the whole message is bounded.
    let long_id = "x".repeat(10_000);
    let r = c
        .get(&format!("/data/v1/private/A:SPOT?_range={long_id}"))
        .await;
    r.assert_error(400, "INVALID_PARAMETER");
    assert!(r.header("x-platform-error").unwrap().len() < 1024);
    let words = "ab ".repeat(50_000);
    let r = c
        .get_form("/data/v1/private/A:SPOT", &format!("_range={words}"))
        .await;
    r.assert_error(400, "INVALID_PARAMETER");
    assert!(r.header("x-platform-error").unwrap().len() < 3 * 1024);
}

#[actix_rt::test]
async fn the_caller_is_authenticated_before_the_body_is_read() {
    let s = TestServer::new();
    let anonymous = s.anonymous();
    // A body that would be refused (bad JSON, too large) is not looked at: the caller is 401.
    anonymous
        .post_raw("/object/v1", "{\"_id\": ")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    let bad_token = s.anonymous().with_auth("Bearer pt_nope");
    bad_token
        .post_raw("/object/v1", "{\"_id\": ")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    anonymous
        .get_form("/object/v1/private", "_limit=x")
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    // An authenticated caller's body is read and judged.
    s.client(Role::Writer)
        .post_raw("/object/v1", "{\"_id\": ")
        .await
        .assert_error(400, "INVALID_JSON");
}

#[actix_rt::test]
async fn a_url_over_the_limit_is_414() {
    let s = TestServer::new();
    let c = s.client(Role::Reader);
    let long = format!("/object/v1/private?name={}", "n".repeat(20_000));
    let m = c.get(&long).await.assert_error(414, "URI_TOO_LONG");
    assert!(m.contains("16384 bytes"), "{m}");
    assert!(m.len() < 1024, "{m}");
    // Unknown paths too.
    let long = format!("/nowhere/{}", "n".repeat(20_000));
    c.get(&long).await.assert_error(414, "URI_TOO_LONG");
    // The limit is a setting; a query that fits is served.
    let s = TestServer::with_config(platform_server::ServerConfig {
        max_url: 64,
        ..Default::default()
    });
    let c = s.client(Role::Reader);
    assert_eq!(c.get("/object/v1/private?name=n").await.status, 200);
    c.get(&format!("/object/v1/private?name={}", "n".repeat(64)))
        .await
        .assert_error(414, "URI_TOO_LONG");
}
