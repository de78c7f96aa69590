//! Conventions for all services: releases and sources, build information, encoded keys and
//! repeated parameters, paging, long GETs with a form body, environments, response formats and
//! the standard query parameters.

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

#[actix_rt::test]
async fn documented_system_fields_filter_lists_like_any_field() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let ann = s.client_of("acme", "ann", Role::Writer);
    let bob = s.client_of("acme", "bob", Role::Writer);
    ann.save(json!({"_id": "A1", "_type": "TA", "S": {"_type": "VarTimeSeries", "data": []}}))
        .await;
    s.advance(60);
    bob.save(json!({"_id": "B1", "_type": "TA"})).await;
    bob.save(json!({"_id": "B2", "_type": "TB", "F": {"_type": "VarCurve"}}))
        .await;
    bob.save(json!({"_id": "B2", "name": "second version"}))
        .await;
    assert_eq!(
        ann.put("/object/v1/private/B2/1/approved").await.status,
        200
    );

    let list = |q: &'static str| {
        let c = ann.clone();
        async move {
            let r = c.get(&format!("/object/v1/private?{q}")).await;
            assert_eq!(r.status, 200, "{q}: {:?}", r.body);
            (ids(&r.body), r.total())
        }
    };
    assert_eq!(
        list("_type=TA&_user=bob").await,
        (vec!["B1".to_string()], 1)
    );
    assert_eq!(list("_user=ann").await.0, ["A1"]);
    assert_eq!(list("_version=2").await.0, ["B2"]);
    assert_eq!(list("_version=gt(1)").await.0, ["B2"]);
    assert_eq!(
        list("_timestamp=gte(2024-07-08T12:01:00Z)").await.0,
        ["B1", "B2"]
    );
    assert_eq!(list("_oid=A1").await.0, ["A1"]);
    // A tag on an older version is not on the current one; moved to it, it is.
    assert_eq!(list("_tag=approved").await.0, Vec::<String>::new());
    assert_eq!(
        ann.put("/object/v1/private/B2/2/approved").await.status,
        200
    );
    assert_eq!(list("_tag=approved").await.0, ["B2"]);
    // The same fields in _filter and _sort.
    let r = ann
        .get("/object/v1/private?_filter=%7B%22_user%22%3A%22bob%22%7D&_sort=%7B%22_version%22%3A-1%7D")
        .await;
    assert_eq!(ids(&r.body), ["B2", "B1"]);
    let r = ann.get("/object/v1/private?_distinct=_user").await;
    assert_eq!(r.body, json!(["ann", "bob"]));

    // Data items: _objid, _dataid and _objtype.
    let data = |q: &'static str| {
        let c = ann.clone();
        async move {
            let r = c.get(&format!("/data/v1/private?{q}")).await;
            assert_eq!(r.status, 200, "{q}: {:?}", r.body);
            (ids(&r.body), r.total())
        }
    };
    assert_eq!(data("").await.1, 2);
    assert_eq!(data("_objid=B2").await, (vec!["B2:F".to_string()], 1));
    assert_eq!(data("_objtype=TA").await.0, ["A1:S"]);
    assert_eq!(data("_dataid=S").await.0, ["A1:S"]);
    assert_eq!(data("_user=bob").await.0, ["B2:F"]);
}

#[actix_rt::test]
async fn an_unknown_underscore_parameter_is_a_400_naming_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "X"})).await;
    for path in [
        "/object/v1/private?_limt=5",
        "/object/v1/private/X?_limt=5",
        "/data/v1/private?_limt=5",
        "/validation/v1?_limt=5",
        "/automation/v1?_limt=5",
        "/secret/v1?_limt=5",
    ] {
        let message = c.get(path).await.assert_error(400, "INVALID_PARAMETER");
        assert!(
            message.starts_with("unknown parameter \"_limt\" (did you mean _limit?)"),
            "{path}: {message}"
        );
    }
    // Also in a POST's query, and in a GET's form body; nothing is stored.
    c.post("/object/v1?_replce=true", json!({"_id": "Y"}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    c.get("/object/v1/private/Y")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get_form("/object/v1/private", "_sortt=name")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    // Standard parameters and plain fields are not refused.
    let r = c
        .get("/object/v1/private?_limit=5&_skip=0&_sort=name&_project=name&country=NL")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}
