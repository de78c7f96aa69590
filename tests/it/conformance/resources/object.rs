//! Object: an open-ended JSON document with `_id`, `_type`, the searchable `name`,
//! `description` and `classification`, `geolocation`, the system fields `_oid`, `_timestamp`,
//! `_user`, `_tag` and `_version`, arbitrary further fields, and data properties addressed by
//! their data name.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::{json, Value};

fn ids(body: &Value) -> Vec<String> {
    body.as_array()
        .expect("a list")
        .iter()
        .map(|o| o["_id"].as_str().unwrap().to_string())
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
async fn an_id_is_unique_within_its_source() {
    let s = TestServer::new();
    let acme = s.client(Role::Writer);
    acme.save(json!({"_id": "GB", "v": 1})).await;
    let again = acme.save(json!({"_id": "GB", "v": 2})).await;
    // A second save of the id is the same object, not a second one.
    assert_eq!(again["_version"], 2);
    let list = acme.get("/object/v1/private").await;
    assert_eq!((ids(&list.body), list.total()), (vec!["GB".to_string()], 1));
    // Another company's private source is another source: its GB is its own.
    let zed = s.client_of("zed", "zoe", Role::Writer);
    assert_eq!(zed.save(json!({"_id": "GB", "v": 9})).await["_version"], 1);
    assert_eq!(acme.get("/object/v1/private/GB").await.body["v"], 2);
}

#[actix_rt::test]
async fn an_id_may_start_with_a_hash_encoded_as_percent_23_in_a_path() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    c.save(json!({"_id": "#GB", "name": "Great Britain"})).await;
    let r = c.get("/object/v1/public/%23GB").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (r.body["_id"].clone(), r.body["name"].clone()),
        (json!("#GB"), json!("Great Britain"))
    );
    c.get("/object/v1/public/GB")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn a_type_name_may_start_with_a_hash() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "NBP", "_type": "#GasHub"})).await;
    c.save(json!({"_id": "PEG", "_type": "GasHub"})).await;
    let got = c.get("/object/v1/private/NBP").await.body;
    assert_eq!(got["_type"], "#GasHub");
    let r = c.get("/object/v1/private?_type=%23GasHub").await;
    assert_eq!(ids(&r.body), ["NBP"]);
    let r = c.get("/object/v1/private?_type=GasHub").await;
    assert_eq!(ids(&r.body), ["PEG"]);
}

#[actix_rt::test]
async fn an_object_saved_without_a_type_is_of_type_hash_object() {
    // docs/decisions.md, "Objects and versions": a document saved without `_type` gets `#Object`.
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let saved = c.save(json!({"_id": "PLAIN"})).await;
    assert_eq!(saved["_type"], "#Object");
}

#[actix_rt::test]
async fn name_description_and_classification_are_searchable() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A", "name": "Zinc smelter"})).await;
    c.save(json!({"_id": "B", "description": "A zinc mine"}))
        .await;
    c.save(json!({"_id": "C", "classification": "ZINC"})).await;
    c.save(json!({"_id": "D", "comment": "zinc, but not in a searchable field"}))
        .await;
    c.save(json!({"_id": "ZINC1"})).await;
    let r = c.get("/object/v1/private?_search=zinc").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(ids(&r.body), ["A", "B", "C", "ZINC1"]);
}

#[actix_rt::test]
async fn geolocation_is_returned_by_search_and_filtered_with_within_sphere() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "PEG", "name": "PEG hub", "country": "FR", "geolocation": [2.35, 48.85]}))
        .await;
    c.save(json!({"_id": "TTF", "name": "TTF hub", "geolocation": {"type": "Point", "coordinates": [5.3, 52.1]}}))
        .await;
    let r = c.get("/object/v1/private?_search=hub").await;
    assert_eq!(r.body[0]["geolocation"], json!([2.35, 48.85]));
    assert!(r.body[0].get("country").is_none(), "{}", r.body[0]);
    assert_eq!(
        r.body[1]["geolocation"],
        json!({"type": "Point", "coordinates": [5.3, 52.1]})
    );
    // Paris to the Dutch hub is about 0.066 radians.
    let near = |radians: &str| {
        let c = c.clone();
        let q = format!(
            "/object/v1/private?geolocation={}",
            enc(&format!("within(sphere([2.35,48.85],{radians}))"))
        );
        async move {
            let r = c.get(&q).await;
            assert_eq!(r.status, 200, "{q}: {:?}", r.body);
            ids(&r.body)
        }
    };
    assert_eq!(near("0.06").await, ["PEG"]);
    assert_eq!(near("0.07").await, ["PEG", "TTF"]);
}

#[actix_rt::test]
async fn oid_equals_the_id_on_the_current_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "v": 1})).await;
    c.save(json!({"_id": "GB", "v": 2})).await;
    let current = c.get("/object/v1/private/GB").await.body;
    assert_eq!(
        (current["_id"].clone(), current["_oid"].clone()),
        (json!("GB"), json!("GB"))
    );
    // docs/decisions.md, "Objects and versions": an older version is addressed as <id>/<version>
    // and its _oid is the object id.
    let old = c.get("/object/v1/private/GB/1").await.body;
    assert_eq!(
        (old["_id"].clone(), old["_oid"].clone()),
        (json!("GB/1"), json!("GB"))
    );
}

#[actix_rt::test]
async fn timestamp_is_the_iso_8601_utc_time_this_version_was_written() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    assert_eq!(
        c.save(json!({"_id": "GB", "v": 1})).await["_timestamp"],
        "2024-07-08T12:00:00.000Z"
    );
    s.advance(90);
    assert_eq!(
        c.save(json!({"_id": "GB", "v": 2})).await["_timestamp"],
        "2024-07-08T12:01:30.000Z"
    );
    // Each version keeps the time it was written.
    assert_eq!(
        c.get("/object/v1/private/GB/1").await.body["_timestamp"],
        "2024-07-08T12:00:00.000Z"
    );
}

#[actix_rt::test]
async fn user_is_the_id_of_the_user_that_wrote_this_version() {
    let s = TestServer::new();
    let ann = s.client_of("acme", "ann", Role::Writer);
    let bob = s.client_of("acme", "bob", Role::Writer);
    ann.save(json!({"_id": "GB", "v": 1})).await;
    bob.save(json!({"_id": "GB", "v": 2})).await;
    assert_eq!(ann.get("/object/v1/private/GB").await.body["_user"], "bob");
    assert_eq!(
        ann.get("/object/v1/private/GB/1").await.body["_user"],
        "ann"
    );
}

#[actix_rt::test]
async fn tag_lists_the_tags_of_this_version_and_is_empty_when_untagged() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    assert_eq!(
        c.save(json!({"_id": "GB", "v": 1})).await["_tag"],
        json!([])
    );
    c.save(json!({"_id": "GB", "v": 2})).await;
    assert_eq!(c.put("/object/v1/private/GB/1/gold").await.status, 200);
    assert_eq!(c.put("/object/v1/private/GB/1/silver").await.status, 200);
    let tags = |v: &Value| {
        let mut t: Vec<String> = v["_tag"]
            .as_array()
            .expect("_tag is an array")
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        t.sort();
        t
    };
    assert_eq!(
        tags(&c.get("/object/v1/private/GB/1").await.body),
        ["gold", "silver"]
    );
    assert_eq!(c.get("/object/v1/private/GB").await.body["_tag"], json!([]));
}

#[actix_rt::test]
async fn version_is_1_on_creation() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    assert_eq!(c.save(json!({"_id": "GB"})).await["_version"], 1);
    assert_eq!(c.save(json!({"_id": "GB", "v": 2})).await["_version"], 2);
}

#[actix_rt::test]
async fn objects_accept_further_arbitrary_fields() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let extra = json!({"capacity": 120.5, "open": true, "closed": null, "aliases": ["NBP", 7],
        "meta": {"tier": 1, "deep": {"list": [{"a": "b"}]}}});
    let mut body = json!({"_id": "NBP"});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    c.save(body).await;
    let got = c.get("/object/v1/private/NBP").await.body;
    for (k, v) in extra.as_object().unwrap() {
        assert_eq!(&got[k], v, "{k} in {got}");
    }
}

#[actix_rt::test]
async fn a_data_property_is_addressed_by_its_data_name() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 80.5}]},
        "FWD": {"_type": "VarCurve", "ondate": "2024-07-01", "contracts": [{"tenor": "M01", "value": 81}]}}))
        .await;
    let spot = c.get("/object/v1/private/NBP?_profile=SPOT").await;
    assert_eq!(spot.status, 200, "{:?}", spot.body);
    assert_eq!(
        (
            spot.body["_dataid"].clone(),
            spot.body["data"][0]["value"].clone()
        ),
        (json!("SPOT"), json!(80.5))
    );
    let fwd = c.get("/object/v1/private/NBP?_profile=FWD").await.body;
    assert_eq!(
        (fwd["_dataid"].clone(), fwd["contracts"][0]["value"].clone()),
        (json!("FWD"), json!(81.0))
    );
    c.get("/object/v1/private/NBP?_profile=NOPE")
        .await
        .assert_error(404, "NOT_FOUND");
}
