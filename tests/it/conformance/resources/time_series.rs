//! TimeSeries (data entity): its header fields, the system fields it takes from its object's
//! version, and its observations.

use crate::common::TestServer;
use platform_core::auth::{Grant, Role};
use serde_json::json;

#[actix_rt::test]
async fn id_is_the_data_id_and_an_older_version_is_addressed_by_its_object_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]}}))
        .await;
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02T00:00:00Z", "value": 2}]}}))
        .await;
    let latest = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(
        (latest["_id"].clone(), latest["_oid"].clone()),
        (json!("NBP:SPOT"), json!("NBP:SPOT"))
    );
    // docs/decisions.md, "Time series and curves": an older object version read with
    // `_version=N` shows `OBJ/N:PROP`; _oid stays the data id.
    let old = c.get("/data/v1/private/NBP:SPOT?_version=1").await;
    assert_eq!(old.status, 200, "{:?}", old.body);
    assert_eq!(
        (old.body["_id"].clone(), old.body["_oid"].clone()),
        (json!("NBP/1:SPOT"), json!("NBP:SPOT"))
    );
    assert_eq!(old.body["data"].as_array().unwrap().len(), 1);
}

#[actix_rt::test]
async fn type_is_always_var_time_series() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": []},
        "FWD": {"_type": "VarCurve", "ondate": "2024-07-01", "contracts": [{"tenor": "M01", "value": 1}]}}))
        .await;
    assert_eq!(
        c.get("/data/v1/private/NBP:SPOT").await.body["_type"],
        "VarTimeSeries"
    );
    // The history of a tenor of a curve is a time series too.
    assert_eq!(
        c.get("/data/v1/private/NBP:FWD?tenor=M01").await.body["_type"],
        "VarTimeSeries"
    );
}

#[actix_rt::test]
async fn header_fields_read_back_as_saved() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let header = json!({"description": "NBP day-ahead", "start": "2024-07-01T00:00:00Z",
        "calendar": "DAILY", "timezone": "Europe/London", "currency": "GBP", "units": "therm",
        "properties": {"source": "ICE", "lots": [1, 2], "nested": {"a": true}}});
    let mut series = header.clone();
    series["_type"] = json!("VarTimeSeries");
    series["data"] = json!([{"time": "2024-07-01", "value": 80}]);
    c.save(json!({"_id": "NBP", "SPOT": series})).await;
    let item = c.get("/data/v1/private/NBP:SPOT").await.body;
    for (k, v) in header.as_object().unwrap() {
        assert_eq!(&item[k], v, "{k} in {item}");
    }
}

#[actix_rt::test]
async fn calendar_is_the_code_the_observation_times_must_follow() {
    // decisions.md 5: a time not on the calendar is a 400 (INDEX_ALIGN); SPARSE takes any time.
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.post("/object/v1", json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "HOURLY", "data": [{"time": "2024-07-01T10:30:00Z", "value": 1}]}}))
        .await
        .assert_error(400, "INDEX_ALIGN");
    let r = c
        .post("/object/v1", json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "SPARSE", "data": [{"time": "2024-07-01T10:30:00Z", "value": 1}]}}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

#[actix_rt::test]
async fn timezone_is_the_zone_the_observations_are_in() {
    // decisions.md 5: a date-only time is midnight in the series timezone; docs/decisions.md:
    // times on a SPARSE series print as UTC instants.
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "PEG", "SPOT": {"_type": "VarTimeSeries", "timezone": "Europe/Paris",
        "data": [{"time": "2024-01-02", "value": 1}, {"time": "2024-07-02", "value": 2}]}}),
    )
    .await;
    c.save(json!({"_id": "UTC", "SPOT": {"_type": "VarTimeSeries",
        "data": [{"time": "2024-01-02", "value": 1}]}}))
        .await;
    let paris = c.get("/data/v1/private/PEG:SPOT").await.body;
    assert_eq!(
        (
            paris["data"][0]["time"].clone(),
            paris["data"][1]["time"].clone()
        ),
        (json!("2024-01-01T23:00:00Z"), json!("2024-07-01T22:00:00Z"))
    );
    let utc = c.get("/data/v1/private/UTC:SPOT").await.body;
    assert_eq!(utc["data"][0]["time"], "2024-01-02T00:00:00Z");
}

#[actix_rt::test]
async fn objid_dataid_access_and_objtype_name_the_owner_the_data_name_and_the_access_role() {
    let s = TestServer::new();
    let c = s.client_of("acme", "ann", Role::Writer);
    c.save(json!({"_id": "NBP", "_type": "#GasHub",
        "SPOT": {"_type": "VarTimeSeries", "data": []},
        "BOOK": {"_type": "VarTimeSeries", "_access": "traders", "data": []}}))
        .await;
    let spot = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(
        (
            spot["_objid"].clone(),
            spot["_dataid"].clone(),
            spot["_objtype"].clone(),
            spot["_access"].clone()
        ),
        (json!("NBP"), json!("SPOT"), json!("#GasHub"), json!(null))
    );
    // Data of an access role is the data of users holding it (decisions.md 2).
    c.get("/data/v1/private/NBP:BOOK")
        .await
        .assert_error(404, "NOT_FOUND");
    s.platform
        .tenancy()
        .grant("acme", "ann", &Grant::Access("traders".into()))
        .unwrap();
    let book = c.get("/data/v1/private/NBP:BOOK").await.body;
    assert_eq!(
        (book["_dataid"].clone(), book["_access"].clone()),
        (json!("BOOK"), json!("traders"))
    );
}

#[actix_rt::test]
async fn timestamp_user_tag_and_version_are_those_of_the_version_that_holds_the_data() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let ann = s.client_of("acme", "ann", Role::Writer);
    let bob = s.client_of("acme", "bob", Role::Writer);
    ann.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]}}))
        .await;
    s.advance(60);
    bob.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02T00:00:00Z", "value": 2}]}}))
        .await;
    assert_eq!(
        bob.put("/object/v1/private/NBP/2/approved").await.status,
        200
    );
    let item = ann.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(
        (
            item["_timestamp"].clone(),
            item["_user"].clone(),
            item["_tag"].clone(),
            item["_version"].clone()
        ),
        (
            json!("2024-07-08T12:01:00.000Z"),
            json!("bob"),
            json!(["approved"]),
            json!(2)
        )
    );
    let first = ann.get("/data/v1/private/NBP:SPOT?_version=1").await.body;
    assert_eq!(
        (
            first["_timestamp"].clone(),
            first["_user"].clone(),
            first["_tag"].clone(),
            first["_version"].clone()
        ),
        (
            json!("2024-07-08T12:00:00.000Z"),
            json!("ann"),
            json!([]),
            json!(1)
        )
    );
}

#[actix_rt::test]
async fn data_is_the_array_of_observations() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [
        {"time": "2024-07-02", "value": 2}, {"time": "2024-07-01", "value": 1, "status": {"quality": "VALID"}}]}}))
        .await;
    let item = c.get("/data/v1/private/NBP:SPOT").await.body;
    // In time order, each a TimeValue.
    assert_eq!(
        item["data"],
        json!([{"time": "2024-07-01", "value": 1.0, "status": {"quality": "VALID"}},
               {"time": "2024-07-02", "value": 2.0}])
    );
    // The object keeps the header only.
    assert!(c.get("/object/v1/private/NBP").await.body["SPOT"]
        .get("data")
        .is_none());
}
