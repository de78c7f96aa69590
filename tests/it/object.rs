//! The object service over HTTP: every row of the "Object versions" table, tags, sources,
//! arrays and paging.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::{json, Value};

fn versions_of(body: &Value) -> Vec<u64> {
    body.as_array()
        .unwrap()
        .iter()
        .map(|v| v["_version"].as_u64().unwrap())
        .collect()
}

#[actix_rt::test]
async fn absent_to_current_version_one() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let saved = c.save(json!({"_id": "A", "name": "first"})).await;
    assert_eq!(saved["_version"], 1);
    assert_eq!(saved["_oid"], "A");
    assert_eq!(saved["_user"], "writer-user");
    assert_eq!(saved["_tag"], json!([]));
    let got = c.get("/object/v1/private/A").await;
    assert_eq!(got.status, 200);
    assert_eq!(got.body, saved);
}

#[actix_rt::test]
async fn merge_adds_a_version_and_keeps_unsent_fields() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TESTMERGE", "_type": "#SETTING", "name": "TESTMERGE", "value": 1}))
        .await;
    let v2 = c
        .save(json!({"_id": "TESTMERGE", "_type": "#SETTING", "description": "Test merging"}))
        .await;
    assert_eq!(v2["_version"], 2);
    assert_eq!(v2["name"], "TESTMERGE");
    assert_eq!(v2["value"], 1);
    assert_eq!(v2["description"], "Test merging");
    // The previous one is archived and still readable.
    let v1 = c.get("/object/v1/private/TESTMERGE/1").await;
    assert_eq!(v1.status, 200);
    assert_eq!(v1.body["_id"], "TESTMERGE/1");
    assert_eq!(v1.body["_oid"], "TESTMERGE");
    assert!(v1.body.get("description").is_none());
}

#[actix_rt::test]
async fn replace_removes_unsent_fields() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TESTMERGE", "_type": "#SETTING", "name": "TESTMERGE", "value": 1}))
        .await;
    c.save(json!({"_id": "TESTMERGE", "_type": "#SETTING", "description": "Test merging"}))
        .await;
    let r = c
        .post(
            "/object/v1?_replace=true",
            json!({"_id": "TESTMERGE", "_type": "#SETTING", "description": "Test merging"}),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["_version"], 3);
    let got = c.get("/object/v1/private/TESTMERGE").await.body;
    assert!(
        got.get("name").is_none() && got.get("value").is_none(),
        "{got}"
    );
    assert_eq!(got["description"], "Test merging");
}

#[actix_rt::test]
async fn nothing_different_makes_no_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let v1 = c.save(json!({"_id": "A", "name": "n"})).await;
    let again = c.save(json!({"_id": "A", "name": "n"})).await;
    assert_eq!(again, v1);
    let versions = c.get("/object/v1/private/A/*").await;
    assert_eq!(versions_of(&versions.body), vec![1]);
}

#[actix_rt::test]
async fn unversioned_types_keep_version_one() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c
        .post("/type/v1", json!({"_id": "Setting", "_versioned": false}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.save(json!({"_id": "S", "_type": "Setting", "value": 1}))
        .await;
    let v = c.save(json!({"_id": "S", "value": 2})).await;
    assert_eq!(v["_version"], 1);
    assert_eq!(c.get("/object/v1/private/S").await.body["value"], 2);
    assert_eq!(
        versions_of(&c.get("/object/v1/private/S/*").await.body),
        vec![1]
    );
}

#[actix_rt::test]
async fn version_list_shows_every_version_with_reason_and_tags() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.post(
        "/object/v1?_reason=first%20load",
        json!({"_id": "A", "v": 1}),
    )
    .await;
    c.save(json!({"_id": "A", "v": 2})).await;
    let r = c.get("/object/v1/private/A/*").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.total(), 2);
    assert_eq!(versions_of(&r.body), vec![1, 2]);
    assert_eq!(r.body[0]["_reason"], "first load");
    assert_eq!(r.body[0]["_current"], false);
    assert_eq!(r.body[1]["_current"], true);
    assert_eq!(r.body[1]["_id"], "A");
    assert_eq!(r.body[0]["_id"], "A/1");
}

#[actix_rt::test]
async fn tags_name_versions_and_move() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        c.save(json!({"_id": "A", "v": v})).await;
    }
    let r = c.put("/object/v1/private/A/1/approved").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body,
        json!({"_id": "A", "_version": 1, "_tag": ["approved"]})
    );
    let tagged = c.get("/object/v1/private/A/approved").await;
    assert_eq!(tagged.body["v"], 1);
    assert_eq!(tagged.body["_tag"], json!(["approved"]));
    // Tag a version by another tag's name, and move the first tag.
    c.put("/object/v1/private/A/approved/gold").await;
    let moved = c.put("/object/v1/private/A/3/approved").await;
    assert_eq!(
        moved.body,
        json!({"_id": "A", "_version": 3, "_tag": ["approved"]})
    );
    assert_eq!(c.get("/object/v1/private/A/approved").await.body["v"], 3);
    assert_eq!(c.get("/object/v1/private/A/gold").await.body["v"], 1);
    let versions = c.get("/object/v1/private/A/*").await.body;
    assert_eq!(versions[0]["_tag"], json!(["gold"]));
    assert_eq!(versions[2]["_tag"], json!(["approved"]));
    // The current version shows its tags too.
    assert_eq!(
        c.get("/object/v1/private/A").await.body["_tag"],
        json!(["approved"])
    );
}

#[actix_rt::test]
async fn delete_key_rolls_back_to_the_previous_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A", "v": 1})).await;
    c.save(json!({"_id": "A", "v": 2})).await;
    let r = c.delete("/object/v1/private/A").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body, json!({"_id": "A", "deleted": [2], "current": 1}));
    let got = c.get("/object/v1/private/A").await.body;
    assert_eq!(
        (got["v"].clone(), got["_version"].clone()),
        (json!(1), json!(1))
    );
}

#[actix_rt::test]
async fn delete_key_with_one_version_makes_it_absent() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A"})).await;
    let r = c.delete("/object/v1/private/A?_reason=mistake").await;
    assert_eq!(r.body, json!({"_id": "A", "deleted": [1], "current": null}));
    c.get("/object/v1/private/A")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(c.get("/object/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn delete_a_version_by_number_or_tag() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        c.save(json!({"_id": "A", "v": v})).await;
    }
    let r = c.delete("/object/v1/private/A/2").await;
    assert_eq!(r.body, json!({"_id": "A", "deleted": [2], "current": 3}));
    c.put("/object/v1/private/A/3/latest-good").await;
    // Deleting the current version by tag makes the previous one current.
    let r = c.delete("/object/v1/private/A/latest-good").await;
    assert_eq!(r.body, json!({"_id": "A", "deleted": [3], "current": 1}));
    assert_eq!(c.get("/object/v1/private/A").await.body["v"], 1);
    c.get("/object/v1/private/A/latest-good")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn delete_star_removes_every_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        c.save(json!({"_id": "A", "v": v})).await;
    }
    let r = c.delete("/object/v1/private/A/*").await;
    assert_eq!(
        r.body,
        json!({"_id": "A", "deleted": [1, 2, 3], "current": null})
    );
    c.get("/object/v1/private/A/*")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/object/v1/private/A/1")
        .await
        .assert_error(404, "NOT_FOUND");
    // The id is free again and starts over at version 1.
    assert_eq!(c.save(json!({"_id": "A"})).await["_version"], 1);
}

#[actix_rt::test]
async fn hash_ids_go_public_and_plain_ids_private() {
    let s = TestServer::new();
    let admin = s.client(Role::Platform);
    let saved = admin
        .save(json!([{"_id": "#PUB", "name": "shared"}, {"_id": "PRIV", "name": "mine"}]))
        .await;
    assert_eq!(saved.as_array().unwrap().len(), 2);
    let public = admin.get("/object/v1/public").await;
    assert_eq!(public.total(), 1);
    assert_eq!(public.body[0]["_id"], "#PUB");
    let private = admin.get("/object/v1/private").await;
    assert_eq!(private.total(), 1);
    assert_eq!(private.body[0]["_id"], "PRIV");
    // Encoded '#' in the path.
    assert_eq!(
        admin.get("/object/v1/public/%23PUB").await.body["name"],
        "shared"
    );
    // An id read through the other source is not there.
    admin
        .get("/object/v1/private/%23PUB")
        .await
        .assert_error(404, "NOT_FOUND");
    admin
        .get("/object/v1/public/PRIV")
        .await
        .assert_error(404, "NOT_FOUND");
    // The public source is shared by every tenant; the private one is not.
    let other = s.client_of("globex", "bob", Role::Reader);
    assert_eq!(
        other.get("/object/v1/public/%23PUB").await.body["name"],
        "shared"
    );
    assert_eq!(other.get("/object/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn post_to_a_named_source() {
    let s = TestServer::new();
    let admin = s.client(Role::Platform);
    assert_eq!(
        admin
            .post("/object/v1/public", json!({"_id": "#P"}))
            .await
            .status,
        200
    );
    assert_eq!(
        admin
            .post("/object/v1/private", json!({"_id": "Q"}))
            .await
            .status,
        200
    );
    let m = admin
        .post("/object/v1/private", json!({"_id": "#X"}))
        .await
        .assert_error(400, "INVALID_ID");
    assert!(m.contains("public"), "{m}");
    admin
        .post("/object/v1/public", json!({"_id": "X"}))
        .await
        .assert_error(400, "INVALID_ID");
    admin
        .get("/object/v1/private/X")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn all_source_fetches_by_id_from_both_with_projection() {
    let s = TestServer::new();
    let admin = s.client(Role::Platform);
    admin
        .save(json!([{"_id": "#PUB", "name": "p", "x": 1}, {"_id": "PRIV", "name": "q", "x": 2}, {"_id": "OTHER"}]))
        .await;
    let r = admin
        .get("/object/v1/all?_id=%23PUB&_id=PRIV&_id=MISSING")
        .await;
    assert_eq!(r.status, 200);
    let ids: Vec<&str> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["#PUB", "PRIV"]);
    let projected = admin
        .get("/object/v1/all?_id=%23PUB&_id=PRIV&_project=name")
        .await;
    assert_eq!(
        projected.body,
        json!([{"_id": "#PUB", "name": "p"}, {"_id": "PRIV", "name": "q"}])
    );
    let json_form = admin
        .get("/object/v1/all?_id=PRIV&_project=%7B%22x%22%3A1%2C%22_id%22%3A0%7D")
        .await;
    assert_eq!(json_form.body, json!([{"x": 2}]));
    // Without ids, all lists the union of both sources.
    let union = admin.get("/object/v1/all").await;
    assert_eq!(union.total(), 3);
}

#[actix_rt::test]
async fn single_get_projection() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A", "name": "n", "x": 1, "y": 2}))
        .await;
    let r = c.get("/object/v1/private/A?_project=name,y").await;
    assert_eq!(r.body, json!({"_id": "A", "name": "n", "y": 2}));
}

#[actix_rt::test]
async fn an_array_post_is_one_transaction() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "KEEP", "v": 1})).await;
    let r = c
        .post(
            "/object/v1",
            json!([{"_id": "NEW1"}, {"_id": "KEEP", "v": 2}, {"_id": "bad/id"}]),
        )
        .await;
    let m = r.assert_error(400, "INVALID_ID");
    assert!(m.starts_with("item 2:"), "{m}");
    c.get("/object/v1/private/NEW1")
        .await
        .assert_error(404, "NOT_FOUND");
    let keep = c.get("/object/v1/private/KEEP").await.body;
    assert_eq!(
        (keep["v"].clone(), keep["_version"].clone()),
        (json!(1), json!(1))
    );
    // A public object in an array written by a writer fails the whole array too.
    let r = c
        .post("/object/v1", json!([{"_id": "NEW2"}, {"_id": "#PUB"}]))
        .await;
    r.assert_error(403, "NOT_AUTHORIZED");
    c.get("/object/v1/private/NEW2")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn paging_limits_skips_and_counts() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let items: Vec<Value> = (0..150)
        .map(|i| json!({"_id": format!("OBJ{i:03}"), "i": i}))
        .collect();
    c.save(Value::Array(items)).await;
    let first = c.get("/object/v1/private").await;
    assert_eq!(first.total(), 150);
    assert_eq!(first.body.as_array().unwrap().len(), 100);
    assert_eq!(first.body[0]["_id"], "OBJ000");
    let page = c.get("/object/v1/private?_limit=20&_skip=140").await;
    assert_eq!(page.total(), 150);
    let ids: Vec<&str> = page
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        (140..150).map(|i| format!("OBJ{i:03}")).collect::<Vec<_>>()
    );
    let all = c.get("/object/v1/private?_limit=-1").await;
    assert_eq!(all.body.as_array().unwrap().len(), 150);
    let none = c.get("/object/v1/private?_limit=0").await;
    assert_eq!(
        (none.total(), none.body.as_array().unwrap().len()),
        (150, 0)
    );
    let past = c.get("/object/v1/private?_skip=1000").await;
    assert_eq!(
        (past.total(), past.body.as_array().unwrap().len()),
        (150, 0)
    );
    let sorted = c.get("/object/v1/private?_sort=-i&_limit=2").await;
    assert_eq!(sorted.body[0]["i"], 149);
    let by_type = c.get("/object/v1/private?_type=%23Object&_limit=1").await;
    assert_eq!(by_type.total(), 150);
    assert_eq!(c.get("/object/v1/private?_type=Other").await.total(), 0);
}

#[actix_rt::test]
async fn a_get_can_carry_its_query_in_a_form_body() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!([{"_id": "A", "n": 1}, {"_id": "B", "n": 2}]))
        .await;
    let r = c.get_form("/object/v1/private", "_limit=1&_skip=1").await;
    assert_eq!(r.total(), 2);
    assert_eq!(r.body[0]["_id"], "B");
}

#[actix_rt::test]
async fn post_without_release_is_an_alias() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c.post("/object", json!({"_id": "A"})).await;
    assert_eq!(r.status, 200);
    assert_eq!(c.get("/object/v1/private/A").await.status, 200);
}

#[actix_rt::test]
async fn every_service_answers_build_information() {
    let s = TestServer::new();
    let c = s.anonymous();
    for service in [
        "object",
        "data",
        "secret",
        "extension",
        "validationconfig",
        "validation",
        "automation",
        "action",
        "type",
    ] {
        let r = c.get(&format!("/{service}")).await;
        assert_eq!(r.status, 200, "{service}");
        assert_eq!(r.body["service"], service);
        assert_eq!(r.body["releases"], json!(["v1"]));
    }
    c.get("/nope").await.assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn a_base_path_prefixes_every_route() {
    let s = TestServer::with_config(platform_server::ServerConfig {
        base_path: "/api".into(),
        ..Default::default()
    });
    let c = s.client(Role::Writer);
    assert_eq!(
        c.post("/api/object/v1", json!({"_id": "A"})).await.status,
        200
    );
    assert_eq!(c.get("/api/object/v1/private/A").await.status, 200);
    c.get("/object/v1/private/A")
        .await
        .assert_error(404, "NOT_FOUND");
}
