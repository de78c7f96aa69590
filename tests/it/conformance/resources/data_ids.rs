//! Data ids: `<object_id>:<data_name>` for a time series, `<object_id>:<data_name>:<ondate>`
//! for the curve of one date, and a curve id without ondate with `tenor=` for the history of
//! that tenor.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn a_time_series_is_addressed_as_object_id_colon_data_name() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]},
        "WEEK": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 2}]}}))
        .await;
    c.save(json!({"_id": "#FX.EURGBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 0.85}]}}))
        .await;
    let spot = c.get("/data/v1/private/NBP:SPOT").await.body;
    let week = c.get("/data/v1/private/NBP:WEEK").await.body;
    assert_eq!(
        (spot["_id"].clone(), spot["data"][0]["value"].clone()),
        (json!("NBP:SPOT"), json!(1.0))
    );
    assert_eq!(
        (week["_id"].clone(), week["data"][0]["value"].clone()),
        (json!("NBP:WEEK"), json!(2.0))
    );
    // A public object id keeps its '#', encoded in the path.
    let fx = c.get("/data/v1/public/%23FX.EURGBP:SPOT").await.body;
    assert_eq!(
        (fx["_id"].clone(), fx["data"][0]["value"].clone()),
        (json!("#FX.EURGBP:SPOT"), json!(0.85))
    );
    // An object id alone is no data id; an unknown data name is not found.
    c.get("/data/v1/private/NBP")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    c.get("/data/v1/private/NBP:NOPE")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn a_curve_of_one_date_is_addressed_as_object_id_colon_data_name_colon_ondate() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (ondate, v) in [("2024-03-01", 30), ("2024-03-04", 31)] {
        c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate, "contracts": [{"tenor": "M01", "value": v}]}}))
            .await;
    }
    let one = c.get("/data/v1/private/TTF:FWD:2024-03-01").await.body;
    assert_eq!(
        (
            one["ondate"]["curveDate"].clone(),
            one["contracts"][0]["value"].clone()
        ),
        (json!("2024-03-01"), json!(30.0))
    );
    let other = c.get("/data/v1/private/TTF:FWD:2024-03-04").await.body;
    assert_eq!(other["contracts"][0]["value"], 31.0);
    c.get("/data/v1/private/TTF:FWD:2024-03-02")
        .await
        .assert_error(404, "NOT_FOUND");
    // decisions.md 5: without ondate and tenor, the newest ondate.
    assert_eq!(
        c.get("/data/v1/private/TTF:FWD").await.body["ondate"]["curveDate"],
        "2024-03-04"
    );
}

#[actix_rt::test]
async fn a_curve_id_without_ondate_and_with_tenor_gives_the_history_of_that_tenor() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (ondate, m01, m02) in [
        ("2024-03-01", 30, 40),
        ("2024-03-04", 31, 41),
        ("2024-04-02", 32, 42),
    ] {
        c.save(
            json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate, "contracts": [
            {"tenor": "M01", "value": m01}, {"tenor": "M02", "value": m02}]}}),
        )
        .await;
    }
    let r = c.get("/data/v1/private/TTF:FWD?tenor=M01").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_type"], "VarTimeSeries");
    assert_eq!(
        r.body["data"],
        json!([{"time": "2024-03-01", "value": 30.0}, {"time": "2024-03-04", "value": 31.0},
               {"time": "2024-04-02", "value": 32.0}])
    );
    // decisions.md 5: an absolute code follows one contract (2024M05 is M02 in March, M01 in April).
    let may = c.get("/data/v1/private/TTF:FWD?tenor=2024M05").await.body;
    assert_eq!(
        may["data"],
        json!([{"time": "2024-03-01", "value": 40.0}, {"time": "2024-03-04", "value": 41.0},
               {"time": "2024-04-02", "value": 32.0}])
    );
}
