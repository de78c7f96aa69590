//! Object versions: every row of the state table (create, merge, replace, tag, rollback,
//! delete of the only version, delete of a version, delete of all), and the effect of a POST
//! on a type that is not versioned (not shown: decided).

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

async fn versions(c: &Client<'_>, id: &str) -> Vec<u64> {
    let r = c.get(&format!("/object/v1/private/{id}/*")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["_version"].as_u64().unwrap())
        .collect()
}

async fn current(c: &Client<'_>, id: &str) -> Value {
    let r = c.get(&format!("/object/v1/private/{id}")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

#[actix_rt::test]
async fn absent_post_makes_it_current_at_version_1() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.get("/object/v1/private/GB")
        .await
        .assert_error(404, "NOT_FOUND");
    let saved = c.save(json!({"_id": "GB", "name": "Great Britain"})).await;
    assert_eq!(saved["_version"], 1);
    let got = current(&c, "GB").await;
    assert_eq!(
        (got["_version"].clone(), got["name"].clone()),
        (json!(1), json!("Great Britain"))
    );
    assert_eq!(versions(&c, "GB").await, [1]);
}

#[actix_rt::test]
async fn a_merge_post_that_differs_makes_version_n_plus_1_and_archives_version_n() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "name": "Great Britain", "capital": "London", "pop": 1}))
        .await;
    let v2 = c
        .save(json!({"_id": "GB", "pop": 2, "currency": "GBP"}))
        .await;
    assert_eq!(v2["_version"], 2);
    // New field values win; fields not sent stay.
    let got = current(&c, "GB").await;
    assert_eq!(
        (
            got["name"].clone(),
            got["capital"].clone(),
            got["pop"].clone(),
            got["currency"].clone()
        ),
        (
            json!("Great Britain"),
            json!("London"),
            json!(2),
            json!("GBP")
        )
    );
    // The previous one is archived: still readable as it was.
    let v1 = c.get("/object/v1/private/GB/1").await.body;
    assert_eq!(
        (v1["pop"].clone(), v1.get("currency").cloned()),
        (json!(1), None)
    );
    assert_eq!(versions(&c, "GB").await, [1, 2]);
}

#[actix_rt::test]
async fn a_merge_post_that_does_not_differ_makes_no_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "name": "Great Britain", "pop": 1}))
        .await;
    let again = c.save(json!({"_id": "GB", "pop": 1})).await;
    assert_eq!(again["_version"], 1);
    assert_eq!(versions(&c, "GB").await, [1]);
}

#[actix_rt::test]
async fn a_replace_post_increases_the_version_and_removes_fields_not_sent() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "name": "Great Britain", "capital": "London"}))
        .await;
    let r = c
        .post("/object/v1?_replace=true", json!({"_id": "GB", "pop": 67}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_version"], 2);
    let got = current(&c, "GB").await;
    assert_eq!(got["pop"], 67);
    assert!(
        got.get("name").is_none() && got.get("capital").is_none(),
        "{got}"
    );
    assert_eq!(
        c.get("/object/v1/private/GB/1").await.body["capital"],
        "London"
    );
}

#[actix_rt::test]
async fn tagging_a_version_puts_the_tag_on_it_and_takes_it_from_another() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        c.save(json!({"_id": "GB", "v": v})).await;
    }
    assert_eq!(c.put("/object/v1/private/GB/1/approved").await.status, 200);
    assert_eq!(c.get("/object/v1/private/GB/approved").await.body["v"], 1);
    assert_eq!(
        c.get("/object/v1/private/GB/1").await.body["_tag"],
        json!(["approved"])
    );
    let r = c.put("/object/v1/private/GB/2/approved").await;
    assert_eq!(
        r.body,
        json!({"_id": "GB", "_version": 2, "_tag": ["approved"]})
    );
    assert_eq!(c.get("/object/v1/private/GB/approved").await.body["v"], 2);
    assert_eq!(
        c.get("/object/v1/private/GB/1").await.body["_tag"],
        json!([])
    );
    // The condition: the version exists.
    c.put("/object/v1/private/GB/9/approved")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(c.get("/object/v1/private/GB/approved").await.body["v"], 2);
}

#[actix_rt::test]
async fn deleting_the_key_of_an_object_with_versions_rolls_back_to_the_previous_one() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "v": 1})).await;
    c.save(json!({"_id": "GB", "v": 2, "extra": true})).await;
    let r = c.delete("/object/v1/private/GB").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let got = current(&c, "GB").await;
    assert_eq!(
        (
            got["_version"].clone(),
            got["v"].clone(),
            got.get("extra").cloned()
        ),
        (json!(1), json!(1), None)
    );
    assert_eq!(versions(&c, "GB").await, [1]);
}

#[actix_rt::test]
async fn deleting_the_key_of_an_object_with_one_version_makes_it_absent() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB"})).await;
    assert_eq!(c.delete("/object/v1/private/GB").await.status, 200);
    c.get("/object/v1/private/GB")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/object/v1/private/GB/*")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(c.get("/object/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn deleting_a_version_by_number_or_tag_removes_it_and_the_previous_becomes_current_if_it_was_the_latest(
) {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=4 {
        c.save(json!({"_id": "GB", "v": v})).await;
    }
    // Not the latest: removed, the current stays.
    assert_eq!(c.delete("/object/v1/private/GB/2").await.status, 200);
    assert_eq!(versions(&c, "GB").await, [1, 3, 4]);
    assert_eq!(current(&c, "GB").await["v"], 4);
    c.get("/object/v1/private/GB/2")
        .await
        .assert_error(404, "NOT_FOUND");
    // The latest, by tag: the previous one becomes current.
    c.put("/object/v1/private/GB/4/latest").await;
    assert_eq!(c.delete("/object/v1/private/GB/latest").await.status, 200);
    assert_eq!(versions(&c, "GB").await, [1, 3]);
    assert_eq!(current(&c, "GB").await["v"], 3);
    // An older one by tag.
    c.put("/object/v1/private/GB/1/first").await;
    assert_eq!(c.delete("/object/v1/private/GB/first").await.status, 200);
    assert_eq!(versions(&c, "GB").await, [3]);
}

#[actix_rt::test]
async fn deleting_key_star_removes_every_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        c.save(json!({"_id": "GB", "v": v})).await;
    }
    let r = c.delete("/object/v1/private/GB/*").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.get("/object/v1/private/GB")
        .await
        .assert_error(404, "NOT_FOUND");
    for v in 1..=3 {
        c.get(&format!("/object/v1/private/GB/{v}"))
            .await
            .assert_error(404, "NOT_FOUND");
    }
    assert_eq!(c.get("/object/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn a_post_on_an_unversioned_type_overwrites_in_place_and_keeps_version_1() {
    // Not shown; decisions.md 4: a type whose definition says `"_versioned": false` is
    // overwritten in place and keeps `_version` 1.
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c
        .post("/type/v1", json!({"_id": "Setting", "_versioned": false}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.save(json!({"_id": "S", "_type": "Setting", "a": 1, "b": 1}))
        .await;
    let again = c.save(json!({"_id": "S", "a": 2})).await;
    assert_eq!(again["_version"], 1);
    let got = current(&c, "S").await;
    assert_eq!(
        (got["a"].clone(), got["b"].clone(), got["_version"].clone()),
        (json!(2), json!(1), json!(1))
    );
    assert_eq!(versions(&c, "S").await, [1]);
    let replaced = c
        .post(
            "/object/v1?_replace=true",
            json!({"_id": "S", "_type": "Setting", "c": 3}),
        )
        .await;
    assert_eq!(replaced.body["_version"], 1, "{:?}", replaced.body);
    assert_eq!(versions(&c, "S").await, [1]);
}
