//! Versioning: the API version is the `{release}` path segment (v1) of every service, never a
//! header or query parameter; versions of objects, extensions and validation configurations
//! are listed and read by number or tag, and a tag is unique per object; which object types
//! are versioned is not shown (decided).

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// One GET of each service, with `{r}` for the release.
const READS: [&str; 8] = [
    "/object/{r}/private",
    "/data/{r}/private",
    "/secret/{r}",
    "/extension/{r}/private",
    "/validationconfig/{r}",
    "/validation/{r}",
    "/automation/{r}",
    "/action/{r}/public",
];

#[actix_rt::test]
async fn every_service_is_on_the_v1_path_segment_and_no_other_release() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    for path in READS {
        let v1 = c.get(&path.replace("{r}", "v1")).await;
        assert_eq!(v1.status, 200, "{path}: {:?}", v1.body);
        for other in ["v2", "v0", "V1"] {
            let m = c
                .get(&path.replace("{r}", other))
                .await
                .assert_error(404, "NOT_FOUND");
            assert!(
                m.contains(other) || m.contains("no endpoint"),
                "{path} {other}: {m}"
            );
        }
    }
    // Writes too: a POST to another release stores nothing.
    c.post("/object/v2", json!({"_id": "GB"}))
        .await
        .assert_error(404, "NOT_FOUND");
    c.post(
        "/validationconfig/v2",
        json!({"_id": "NBP:SPOT", "kind": "timeseries"}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    c.get("/object/v1/private/GB")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn the_version_is_not_carried_in_a_header_or_a_query_parameter() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "name": "Great Britain"})).await;
    // Without the path segment there is no route, whatever the headers say.
    let req = actix_web::test::TestRequest::get()
        .uri("/object/private/GB")
        .insert_header(("authorization", format!("Bearer {}", c.token)))
        .insert_header(("api-version", "v1"))
        .insert_header(("accept-version", "v1"));
    assert_eq!(s.send(req).await.status, 404);
    // A header naming another release does not change the path's.
    let req = actix_web::test::TestRequest::get()
        .uri("/object/v1/private/GB")
        .insert_header(("authorization", format!("Bearer {}", c.token)))
        .insert_header(("api-version", "v2"))
        .insert_header(("accept-version", "v2"));
    let r = s.send(req).await;
    assert_eq!(
        (r.status, r.body["name"].clone()),
        (200, json!("Great Britain"))
    );
    // A release query parameter is no parameter of the interface.
    c.get("/object/v1/private/GB?_release=v1")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

fn version_numbers(body: &Value) -> Vec<u64> {
    body.as_array()
        .unwrap()
        .iter()
        .map(|v| v["_version"].as_u64().unwrap())
        .collect()
}

/// Saves three versions through `save` and checks the version list, reads by number and tag,
/// and that a tag moves, under `base` (e.g. `/object/v1/private/GB`).
async fn versions_by_number_and_tag(c: &Client<'_>, base: &str, field: &str) {
    let list = c.get(&format!("{base}/*")).await;
    assert_eq!(list.status, 200, "{base}: {:?}", list.body);
    assert_eq!(
        (version_numbers(&list.body), list.total()),
        (vec![1, 2, 3], 3)
    );
    for v in 1..=3u64 {
        let r = c.get(&format!("{base}/{v}")).await;
        assert_eq!(
            (r.body["_version"].clone(), r.body[field].clone()),
            (json!(v), json!(format!("v{v}"))),
            "{base}/{v}"
        );
    }
    assert_eq!(c.put(&format!("{base}/1/gold")).await.status, 200);
    assert_eq!(c.get(&format!("{base}/gold")).await.body[field], "v1");
    // Tags are unique per object: assigning it to another version moves it.
    assert_eq!(c.put(&format!("{base}/3/gold")).await.status, 200);
    assert_eq!(c.get(&format!("{base}/gold")).await.body[field], "v3");
    let tags: Vec<Value> = c
        .get(&format!("{base}/*"))
        .await
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["_tag"].clone())
        .collect();
    assert_eq!(tags, [json!([]), json!([]), json!(["gold"])]);
}

#[actix_rt::test]
async fn object_versions_are_listed_and_read_by_number_or_tag_and_tags_move() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        let saved = c.save(json!({"_id": "GB", "name": format!("v{v}")})).await;
        assert_eq!(saved["_version"], v);
    }
    versions_by_number_and_tag(&c, "/object/v1/private/GB", "name").await;
    // A tag names a version of one object only: another object may carry the same tag.
    c.save(json!({"_id": "FR", "name": "v1"})).await;
    assert_eq!(c.put("/object/v1/private/FR/1/gold").await.status, 200);
    assert_eq!(c.get("/object/v1/private/GB/gold").await.body["name"], "v3");
}

#[actix_rt::test]
async fn extension_versions_are_listed_and_read_by_number_or_tag_and_tags_move() {
    let s = TestServer::new();
    let c = s.client_of("acme", "ann", Role::Admin);
    for v in 1..=3 {
        let r = c
            .post("/extension/v1", json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": format!("v{v}")}))
            .await;
        assert_eq!(
            (r.status, r.body["_version"].clone()),
            (200, json!(v)),
            "{:?}",
            r.body
        );
    }
    versions_by_number_and_tag(&c, "/extension/v1/private/acme.prices", "name").await;
}

#[actix_rt::test]
async fn validation_configuration_versions_are_listed_and_read_by_number_or_tag() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        let r = c
            .post(
                "/validationconfig/v1",
                json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": format!("v{v}")}),
            )
            .await;
        assert_eq!(
            (r.status, r.body["_version"].clone()),
            (200, json!(v)),
            "{:?}",
            r.body
        );
    }
    // Tagging a configuration version is `PUT validationconfig/v1/{data_id}/{version}/{tag}`,
    // as for objects (the endpoint table is silent; docs/decisions.md, Validation).
    versions_by_number_and_tag(&c, "/validationconfig/v1/NBP:SPOT", "name").await;
    c.get("/validationconfig/v1/NBP:SPOT/4")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn every_object_type_is_versioned_unless_its_definition_says_otherwise() {
    // Not shown; decisions.md 4: every type is versioned unless its type definition says
    // `"_versioned": false`; an undefined type is versioned.
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    assert_eq!(c.post("/type/v1", json!({"_id": "Hub"})).await.status, 200);
    assert_eq!(
        c.post("/type/v1", json!({"_id": "Setting", "_versioned": false}))
            .await
            .status,
        200
    );
    for (id, ty, last) in [
        ("A", "Hub", 2),
        ("B", "Undefined", 2),
        ("C", "#Object", 2),
        ("D", "Setting", 1),
    ] {
        c.save(json!({"_id": id, "_type": ty, "v": 1})).await;
        let saved = c.save(json!({"_id": id, "v": 2})).await;
        assert_eq!(saved["_version"], last, "{ty}");
        let list = c.get(&format!("/object/v1/private/{id}/*")).await;
        assert_eq!(list.total(), last, "{ty}");
    }
}
