//! What the service does: services, formats, read-only data, sources.

use crate::common::TestServer;
use actix_web::http::Method;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn every_service_is_at_base_url_slash_its_name() {
    let s = TestServer::new();
    let c = s.client(Role::Reader);
    for service in [
        "object",
        "data",
        "secret",
        "extension",
        "validationconfig",
        "validation",
        "automation",
        "action",
    ] {
        let r = c.get(&format!("/{service}")).await;
        assert_eq!(r.status, 200, "{service}: {:?}", r.body);
        assert!(r.body.is_object(), "{service}: {:?}", r.body);
    }
    c.get("/nothing").await.assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn answers_are_json_unless_another_format_is_asked() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "name": "Great Britain"})).await;
    let r = c.get("/object/v1/private/GB").await;
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("application/json")
    );
    let csv = s
        .send(
            actix_web::test::TestRequest::get()
                .uri("/object/v1/private?_project=name")
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", "text/csv")),
        )
        .await;
    assert!(csv.header("content-type").unwrap().starts_with("text/csv"));
}

#[actix_rt::test]
async fn data_is_read_only_written_by_saving_its_object_and_deleted_with_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "S": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]}}))
        .await;
    assert_eq!(c.get("/data/v1/private/GB:S").await.status, 200);
    for method in [Method::POST, Method::PUT, Method::DELETE] {
        let r = c.method(method.clone(), "/data/v1/private/GB:S").await;
        assert_eq!(r.status, 405, "{method}: {:?}", r.body);
    }
    c.delete("/object/v1/private/GB/*").await;
    c.get("/data/v1/private/GB:S")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn sources_are_public_private_and_all_with_repeated_ids() {
    let s = TestServer::new();
    let admin = s.client(Role::Platform);
    admin
        .save(json!({"_id": "#SHARED", "name": "public"}))
        .await;
    admin.save(json!({"_id": "MINE", "name": "private"})).await;
    let other = s.client_of("zed", "zoe", Role::Reader);
    // The public source is shared; a private source is the caller's company's alone.
    assert_eq!(other.get("/object/v1/public").await.total(), 1);
    assert_eq!(other.get("/object/v1/private").await.total(), 0);
    let both = admin.get("/object/v1/all?_id=%23SHARED&_id=MINE").await;
    assert_eq!(both.total(), 2);
    // `all` is for the object and data services only.
    assert_eq!(admin.get("/secret/v1/all").await.status, 404);
}
