//! Validation configuration service: `{base_url}/validationconfig`: list, read one, save one,
//! delete (keeping the records), the list of versions and one version.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// A daily series `NBP:SPOT` with a negative value on July 3rd.
async fn series(c: &Client<'_>) {
    c.save(
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [
        {"time": "2024-07-01", "value": 10}, {"time": "2024-07-02", "value": 11},
        {"time": "2024-07-03", "value": -1}]}}),
    )
    .await;
}

fn config(name: &str) -> Value {
    json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": name,
        "checks": [{"name": "Positive", "expression": "value > 0"}]})
}

#[actix_rt::test]
async fn get_v1_lists_the_configurations() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for id in ["NBP:SPOT", "TTF:FWD"] {
        let r = c
            .post(
                "/validationconfig/v1",
                json!({"_id": id, "kind": "timeseries", "checks": []}),
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    let r = c.get("/validationconfig/v1").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let ids: Vec<&str> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["_id"].as_str().unwrap())
        .collect();
    assert_eq!((ids, r.total()), (vec!["NBP:SPOT", "TTF:FWD"], 2));
    // Private: another company sees none of them.
    let other = s.client_of("globex", "gus", Role::Writer);
    assert_eq!(other.get("/validationconfig/v1").await.total(), 0);
}

#[actix_rt::test]
async fn get_data_id_reads_one() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.post("/validationconfig/v1", config("NBP spot")).await;
    let r = c.get("/validationconfig/v1/NBP:SPOT").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (
            r.body["_id"].clone(),
            r.body["kind"].clone(),
            r.body["name"].clone(),
            r.body["checks"][0]["expression"].clone()
        ),
        (
            json!("NBP:SPOT"),
            json!("timeseries"),
            json!("NBP spot"),
            json!("value > 0")
        )
    );
    c.get("/validationconfig/v1/TTF:FWD")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn post_v1_saves_one_configuration() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c.post("/validationconfig/v1", config("first")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (r.body["_id"].clone(), r.body["_version"].clone()),
        (json!("NBP:SPOT"), json!(1))
    );
    let r = c.post("/validationconfig/v1", config("second")).await;
    assert_eq!(r.body["_version"], 2, "{:?}", r.body);
    assert_eq!(
        c.get("/validationconfig/v1/NBP:SPOT").await.body["name"],
        "second"
    );
    // kind is required: nothing is saved without it.
    c.post(
        "/validationconfig/v1",
        json!({"_id": "TTF:FWD", "checks": []}),
    )
    .await
    .assert_error(400, "MISSING_PARAMETER");
    assert_eq!(c.get("/validationconfig/v1").await.total(), 1);
}

#[actix_rt::test]
async fn delete_data_id_deletes_the_configuration_and_keeps_its_records() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    c.post("/validationconfig/v1", config("NBP spot")).await;
    c.post("/validationconfig/v1", config("renamed")).await;
    let run = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": "2024-07-01"}),
        )
        .await;
    assert_eq!(run.body["records"], 3, "{:?}", run.body);
    let r = c.delete("/validationconfig/v1/NBP:SPOT").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.get("/validationconfig/v1/NBP:SPOT")
        .await
        .assert_error(404, "NOT_FOUND");
    // docs/decisions.md: every version goes.
    c.get("/validationconfig/v1/NBP:SPOT/1")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(c.get("/validationconfig/v1").await.total(), 0);
    // The records stay.
    assert_eq!(c.get("/validation/v1").await.total(), 3);
    assert_eq!(
        c.get("/validation/v1/NBP:SPOT:2024-07-03").await.body["status"],
        "failed"
    );
}

#[actix_rt::test]
async fn get_data_id_star_lists_the_versions() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for name in ["one", "two", "three"] {
        c.post("/validationconfig/v1", config(name)).await;
    }
    let r = c.get("/validationconfig/v1/NBP:SPOT/*").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let numbers: Vec<u64> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["_version"].as_u64().unwrap())
        .collect();
    assert_eq!((numbers, r.total()), (vec![1, 2, 3], 3));
}

#[actix_rt::test]
async fn get_data_id_version_reads_one_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for name in ["one", "two", "three"] {
        c.post("/validationconfig/v1", config(name)).await;
    }
    let r = c.get("/validationconfig/v1/NBP:SPOT/2").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (r.body["name"].clone(), r.body["_version"].clone()),
        (json!("two"), json!(2))
    );
    c.get("/validationconfig/v1/NBP:SPOT/4")
        .await
        .assert_error(404, "NOT_FOUND");
}
