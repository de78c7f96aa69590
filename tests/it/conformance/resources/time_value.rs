//! TimeValue: an observation's time, its value (a string or a number) and its status.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn time_is_the_time_point_of_the_observation() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "PWR", "HH": {"_type": "VarTimeSeries", "calendar": "HALFHOURLY", "data": [
        {"time": "2024-07-01T10:30:00Z", "value": 1}, {"time": "2024-07-01T12:00:00+01:00", "value": 2}]}}))
        .await;
    let item = c.get("/data/v1/private/PWR:HH").await.body;
    assert_eq!(
        (
            item["data"][0]["time"].clone(),
            item["data"][1]["time"].clone()
        ),
        (json!("2024-07-01T10:30:00Z"), json!("2024-07-01T11:00:00Z"))
    );
    // An observation without a time, or with one that is not a time, is refused.
    c.post(
        "/object/v1",
        json!({"_id": "PWR", "HH": {"_type": "VarTimeSeries", "data": [{"value": 3}]}}),
    )
    .await
    .assert_error(400, "MISSING_PARAMETER");
    c.post("/object/v1", json!({"_id": "PWR", "HH": {"_type": "VarTimeSeries", "data": [{"time": "noon", "value": 3}]}}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert_eq!(
        c.get("/data/v1/private/PWR:HH").await.body["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[actix_rt::test]
async fn value_is_a_string_or_a_number() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [
        {"time": "2024-07-01", "value": 80.25}, {"time": "2024-07-02", "value": "n/a"}, {"time": "2024-07-03", "value": -3}]}}))
        .await;
    let item = c.get("/data/v1/private/NBP:SPOT").await.body;
    let values: Vec<_> = item["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["value"].clone())
        .collect();
    assert_eq!(values, [json!(80.25), json!("n/a"), json!(-3.0)]);
    for bad in [json!(true), json!([1]), json!({"v": 1})] {
        let m = c
            .post("/object/v1", json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-04", "value": bad}]}}))
            .await
            .assert_error(400, "INVALID_BODY");
        assert!(m.contains("value"), "{bad}: {m}");
    }
}

#[actix_rt::test]
async fn status_carries_quality_source_and_reliability() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let status = json!({"quality": "VALID", "source": "CALCULATED", "reliability": "OBSERVED"});
    c.save(
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [
        {"time": "2024-07-01", "value": 1, "status": status}]}}),
    )
    .await;
    let item = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(item["data"][0]["status"], status);
    c.post("/object/v1", json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02", "value": 2, "status": "VALID"}]}}))
        .await
        .assert_error(400, "INVALID_BODY");
}
