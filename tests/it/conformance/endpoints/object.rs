//! Object service: `{base_url}/object`: lists (paged), one object (by key or tag), versions and
//! their list, `all` by ids with `_project`, tags, create or update (one or an array), the three
//! deletes; and the rules on `_search`, `_searchinfo`, `_project`, `_profile`, array POSTs and
//! the answers of POST, PUT and DELETE.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::{json, Value};

fn ids(body: &Value) -> Vec<String> {
    body.as_array()
        .expect("a list")
        .iter()
        .map(|i| i["_id"].as_str().unwrap().to_string())
        .collect()
}

fn versions(body: &Value) -> Vec<u64> {
    body.as_array()
        .expect("a list")
        .iter()
        .map(|v| v["_version"].as_u64().unwrap())
        .collect()
}

/// Percent-encodes a query value.
fn enc(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

#[actix_rt::test]
async fn get_source_lists_public_or_private_objects_paged() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    c.save(json!([{"_id": "#P1"}, {"_id": "#P2"}, {"_id": "A"}, {"_id": "B"}, {"_id": "C"}]))
        .await;
    let public = c.get("/object/v1/public").await;
    assert_eq!(
        (ids(&public.body), public.total()),
        (vec!["#P1".into(), "#P2".into()], 2)
    );
    let private = c.get("/object/v1/private?_limit=2&_skip=1").await;
    assert_eq!(
        (ids(&private.body), private.total()),
        (vec!["B".into(), "C".into()], 3)
    );
}

#[actix_rt::test]
async fn get_key_reads_one_object_and_the_key_may_be_a_tag_name() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "v": 1})).await;
    c.save(json!({"_id": "GB", "v": 2})).await;
    let current = c.get("/object/v1/private/GB").await;
    assert_eq!(current.status, 200, "{:?}", current.body);
    assert_eq!(
        (current.body["_id"].clone(), current.body["v"].clone()),
        (json!("GB"), json!(2))
    );
    c.put("/object/v1/private/GB/1/golden").await;
    // docs/decisions.md (shared) 4: a key ID/TAG is the tagged version of ID.
    let tagged = c.get("/object/v1/private/GB/golden").await;
    assert_eq!(tagged.status, 200, "{:?}", tagged.body);
    assert_eq!(
        (tagged.body["v"].clone(), tagged.body["_tag"].clone()),
        (json!(1), json!(["golden"]))
    );
    c.get("/object/v1/private/NOPE")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn get_key_version_reads_one_version_by_number_or_tag() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        c.save(json!({"_id": "GB", "v": v})).await;
    }
    let second = c.get("/object/v1/private/GB/2").await.body;
    assert_eq!(
        (
            second["v"].clone(),
            second["_version"].clone(),
            second["_oid"].clone()
        ),
        (json!(2), json!(2), json!("GB"))
    );
    c.put("/object/v1/private/GB/1/first").await;
    let first = c.get("/object/v1/private/GB/first").await.body;
    assert_eq!(
        (first["v"].clone(), first["_version"].clone()),
        (json!(1), json!(1))
    );
    c.get("/object/v1/private/GB/9")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/object/v1/private/GB/never")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn get_key_star_lists_the_versions_of_an_object() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        c.save(json!({"_id": "GB", "v": v})).await;
    }
    let r = c.get("/object/v1/private/GB/*").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!((versions(&r.body), r.total()), (vec![1, 2, 3], 3));
    assert!(r.body.as_array().unwrap().iter().all(|v| v["_oid"] == "GB"));
}

#[actix_rt::test]
async fn get_all_with_ids_reads_objects_from_both_sources_with_project() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    c.save(
        json!([{"_id": "#NBP", "name": "public", "x": 1}, {"_id": "NBP", "name": "private", "x": 2},
        {"_id": "TTF", "name": "not asked"}]),
    )
    .await;
    let r = c.get("/object/v1/all?_id=%23NBP&_id=NBP").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(ids(&r.body), ["#NBP", "NBP"]);
    assert_eq!(r.body[1]["x"], 2);
    let projected = c
        .get("/object/v1/all?_id=%23NBP&_id=NBP&_project=name")
        .await;
    assert_eq!(
        projected.body,
        json!([{"_id": "#NBP", "name": "public"}, {"_id": "NBP", "name": "private"}])
    );
}

#[actix_rt::test]
async fn put_tags_a_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "v": 1})).await;
    c.save(json!({"_id": "GB", "v": 2})).await;
    let r = c.put("/object/v1/private/GB/1/approved").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let versions = c.get("/object/v1/private/GB/*").await.body;
    assert_eq!(
        (versions[0]["_tag"].clone(), versions[1]["_tag"].clone()),
        (json!(["approved"]), json!([]))
    );
    c.put("/object/v1/private/GB/7/approved")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn post_creates_or_updates_one_object_or_an_array_of_objects() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c
        .post("/object/v1", json!({"_id": "GB", "name": "Britain"}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(c.get("/object/v1/private/GB").await.body["_version"], 1);
    let r = c
        .post(
            "/object/v1",
            json!([{"_id": "GB", "name": "Great Britain"}, {"_id": "NL", "name": "Netherlands"}]),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let gb = c.get("/object/v1/private/GB").await.body;
    assert_eq!(
        (gb["name"].clone(), gb["_version"].clone()),
        (json!("Great Britain"), json!(2))
    );
    assert_eq!(
        c.get("/object/v1/private/NL").await.body["name"],
        "Netherlands"
    );
}

#[actix_rt::test]
async fn delete_key_deletes_the_latest_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "v": 1})).await;
    c.save(json!({"_id": "GB", "v": 2})).await;
    assert_eq!(c.delete("/object/v1/private/GB").await.status, 200);
    let back = c.get("/object/v1/private/GB").await.body;
    assert_eq!(
        (back["v"].clone(), back["_version"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(versions(&c.get("/object/v1/private/GB/*").await.body), [1]);
}

#[actix_rt::test]
async fn delete_key_version_deletes_a_version_by_number_or_tag() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=4 {
        c.save(json!({"_id": "GB", "v": v})).await;
    }
    assert_eq!(c.delete("/object/v1/private/GB/2").await.status, 200);
    c.put("/object/v1/private/GB/3/old").await;
    assert_eq!(c.delete("/object/v1/private/GB/old").await.status, 200);
    assert_eq!(
        versions(&c.get("/object/v1/private/GB/*").await.body),
        [1, 4]
    );
    assert_eq!(c.get("/object/v1/private/GB").await.body["v"], 4);
}

#[actix_rt::test]
async fn delete_key_star_deletes_the_object_with_all_versions() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for v in 1..=3 {
        c.save(json!({"_id": "GB", "v": v})).await;
    }
    assert_eq!(c.delete("/object/v1/private/GB/*").await.status, 200);
    c.get("/object/v1/private/GB")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/object/v1/private/GB/1")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(c.get("/object/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn rule_1_search_matches_id_name_description_classification_and_project_adds_fields() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!([
        {"_id": "HUB-1", "name": "First", "country": "GB"},
        {"_id": "B", "name": "Hub two", "description": "Dutch", "classification": "gas", "country": "NL", "geolocation": [5.3, 52.1]},
        {"_id": "C", "description": "a hub", "country": "DE"},
        {"_id": "D", "classification": "hub", "country": "FR"},
        {"_id": "E", "name": "Elsewhere", "note": "hub"}
    ]))
    .await;
    let r = c.get("/object/v1/private?_search=hub").await;
    assert_eq!(ids(&r.body), ["B", "C", "D", "HUB-1"], "not the note field");
    // The result carries the search fields only.
    assert_eq!(
        r.body[0],
        json!({"_id": "B", "name": "Hub two", "description": "Dutch", "classification": "gas", "geolocation": [5.3, 52.1]})
    );
    let r = c
        .get("/object/v1/private?_search=hub&_project=country")
        .await;
    assert_eq!(
        r.body[0],
        json!({"_id": "B", "name": "Hub two", "description": "Dutch", "classification": "gas", "geolocation": [5.3, 52.1], "country": "NL"})
    );
}

#[actix_rt::test]
async fn rule_2_searchinfo_returns_ids_and_names_and_limit_sets_how_many() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!([{"_id": "GAS1", "name": "Gas one", "x": 1}, {"_id": "GAS2", "name": "Gas two"},
        {"_id": "GAS3", "name": "Gas three"}, {"_id": "OIL", "name": "Oil"}]),
    )
    .await;
    let r = c.get("/object/v1/private?_searchinfo=gas").await;
    assert_eq!(
        r.body,
        json!([{"_id": "GAS1", "name": "Gas one"}, {"_id": "GAS2", "name": "Gas two"}, {"_id": "GAS3", "name": "Gas three"}])
    );
    let r = c.get("/object/v1/private?_searchinfo=gas&_limit=2").await;
    assert_eq!(ids(&r.body), ["GAS1", "GAS2"]);
}

#[actix_rt::test]
async fn rule_3_project_takes_a_field_list_or_a_json_object_and_a_zero_on_id_removes_it_from_lists()
{
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "name": "Britain", "code": "GB", "big": [1, 2, 3]}))
        .await;
    // A list of fields: _id always included.
    assert_eq!(
        c.get("/object/v1/private/GB?_project=name,code").await.body,
        json!({"_id": "GB", "name": "Britain", "code": "GB"})
    );
    // JSON: field 1 includes.
    assert_eq!(
        c.get(&format!(
            "/object/v1/private/GB?_project={}",
            enc(r#"{"name":1}"#)
        ))
        .await
        .body,
        json!({"_id": "GB", "name": "Britain"})
    );
    // JSON: field 0 excludes.
    let excluded = c
        .get(&format!(
            "/object/v1/private/GB?_project={}",
            enc(r#"{"big":0}"#)
        ))
        .await
        .body;
    assert_eq!(
        (excluded["name"].clone(), excluded.get("big").is_none()),
        (json!("Britain"), true),
        "{excluded}"
    );
    // On lists, a 0 on _id removes it.
    assert_eq!(
        c.get(&format!(
            "/object/v1/private?_project={}",
            enc(r#"{"code":1,"_id":0}"#)
        ))
        .await
        .body,
        json!([{"code": "GB"}])
    );
}

#[actix_rt::test]
async fn rule_4_profile_returns_the_data_of_one_object_or_of_a_filtered_list_and_range_applies() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (id, zone) in [("NBP", "gas"), ("TTF", "gas"), ("EEX", "power")] {
        c.save(
            json!({"_id": id, "zone": zone, "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
            "data": [{"time": "2024-07-01", "value": 1}, {"time": "2024-07-02", "value": 2}]}}),
        )
        .await;
    }
    let one = c.get("/object/v1/private/NBP?_profile=SPOT").await.body;
    assert_eq!(
        (
            one["_id"].clone(),
            one["_type"].clone(),
            one["data"].as_array().unwrap().len()
        ),
        (json!("NBP:SPOT"), json!("VarTimeSeries"), 2)
    );
    let ranged = c
        .get("/object/v1/private/NBP?_profile=SPOT&_range=last(1)")
        .await
        .body;
    assert_eq!(
        ranged["data"],
        json!([{"time": "2024-07-02", "value": 2.0}])
    );
    let list = c
        .get("/object/v1/private?zone=gas&_profile=SPOT&_range=last(1)")
        .await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    assert_eq!(ids(&list.body), ["NBP:SPOT", "TTF:SPOT"]);
    assert_eq!(
        list.body[1]["data"],
        json!([{"time": "2024-07-02", "value": 2.0}])
    );
}

#[actix_rt::test]
async fn rule_5_a_post_array_is_one_transaction() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "KEEP", "v": 1})).await;
    let r = c
        .post(
            "/object/v1",
            json!([{"_id": "NEW"}, {"_id": "KEEP", "v": 2}, {"_id": "bad:id"}]),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    c.get("/object/v1/private/NEW")
        .await
        .assert_error(404, "NOT_FOUND");
    let keep = c.get("/object/v1/private/KEEP").await.body;
    assert_eq!(
        (keep["v"].clone(), keep["_version"].clone()),
        (json!(1), json!(1))
    );
}

#[actix_rt::test]
async fn rule_6_post_put_and_delete_answer_as_decided() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // Not shown: docs/decisions.md (shared) 3. POST answers what was stored, with its system
    // fields (an array for an array), or the unchanged current version when nothing differed.
    let saved = c
        .post("/object/v1", json!({"_id": "GB", "v": 1}))
        .await
        .body;
    assert_eq!(
        (
            saved["_id"].clone(),
            saved["v"].clone(),
            saved["_version"].clone(),
            saved["_oid"].clone()
        ),
        (json!("GB"), json!(1), json!(1), json!("GB"))
    );
    assert!(
        saved["_timestamp"].is_string() && saved["_user"] == "writer-user",
        "{saved}"
    );
    let same = c
        .post("/object/v1", json!({"_id": "GB", "v": 1}))
        .await
        .body;
    assert_eq!(same, saved);
    let many = c
        .post("/object/v1", json!([{"_id": "GB", "v": 2}, {"_id": "NL"}]))
        .await
        .body;
    assert_eq!(
        (many[0]["_version"].clone(), many[1]["_id"].clone()),
        (json!(2), json!("NL"))
    );
    // PUT answers the tagged version's header.
    assert_eq!(
        c.put("/object/v1/private/GB/1/first").await.body,
        json!({"_id": "GB", "_version": 1, "_tag": ["first"]})
    );
    // DELETE answers the versions removed and the version now current.
    assert_eq!(
        c.delete("/object/v1/private/GB").await.body,
        json!({"_id": "GB", "deleted": [2], "current": 1})
    );
    assert_eq!(
        c.delete("/object/v1/private/NL/*").await.body,
        json!({"_id": "NL", "deleted": [1], "current": null})
    );
}
