//! Curve (data entity): its id, type, ondate (a CurveDate), currency, units, properties, the
//! system fields shared with TimeSeries, and its contracts.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn id_is_the_data_id_of_the_curve() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 30}]}}))
        .await;
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-04", "contracts": [{"tenor": "M01", "value": 31}]}}))
        .await;
    let newest = c.get("/data/v1/private/TTF:FWD").await.body;
    assert_eq!(
        (newest["_id"].clone(), newest["_oid"].clone()),
        (json!("TTF:FWD"), json!("TTF:FWD"))
    );
    let one = c.get("/data/v1/private/TTF:FWD:2024-03-01").await.body;
    assert_eq!(one["_id"], "TTF:FWD:2024-03-01");
    // docs/decisions.md, "Time series and curves": an older object version shows OBJ/N:PROP.
    let old = c.get("/data/v1/private/TTF:FWD?_version=1").await.body;
    assert_eq!(
        (
            old["_id"].clone(),
            old["_oid"].clone(),
            old["ondate"]["curveDate"].clone()
        ),
        (json!("TTF/1:FWD"), json!("TTF:FWD"), json!("2024-03-01"))
    );
}

#[actix_rt::test]
async fn type_is_always_var_curve() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 30}]}}))
        .await;
    assert_eq!(
        c.get("/data/v1/private/TTF:FWD").await.body["_type"],
        "VarCurve"
    );
    assert_eq!(
        c.get("/data/v1/private/TTF:FWD:2024-03-01").await.body["_type"],
        "VarCurve"
    );
}

#[actix_rt::test]
async fn ondate_is_a_curve_date_object() {
    // CurveDate is not shown; decisions.md 5: `{"curveDate": "YYYY-MM-DD", "expiryCalendar":
    // optional}`; a plain date is accepted for it on input.
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 30}]}}))
        .await;
    // The expiry calendar an ondate names must exist in the calendar service (README, "Energy
    // time"): one business day before delivery on the TARGET days.
    let r = s
        .client(Role::Platform)
        .post(
            "/calendar/v1",
            json!({"_id": "#REOMB", "expiry": {"holidays": "#TARGET", "businessDaysBefore": 1}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": {"curveDate": "2024-03-04", "expiryCalendar": "#REOMB"}, "contracts": [{"tenor": "M01", "value": 31}]}}))
        .await;
    assert_eq!(
        c.get("/data/v1/private/TTF:FWD:2024-03-01").await.body["ondate"],
        json!({"curveDate": "2024-03-01"})
    );
    assert_eq!(
        c.get("/data/v1/private/TTF:FWD:2024-03-04").await.body["ondate"],
        json!({"curveDate": "2024-03-04", "expiryCalendar": "#REOMB"})
    );
    // Without an ondate there is no curve; a date that is not one is refused.
    c.post("/object/v1", json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "contracts": [{"tenor": "M01", "value": 1}]}}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    c.post("/object/v1", json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-02-30", "contracts": []}}))
        .await
        .assert_error(400, "INVALID_BODY");
}

#[actix_rt::test]
async fn currency_units_and_properties_read_back_as_saved() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "currency": "EUR", "units": "MWh",
        "properties": {"broker": "A", "tiers": [1, 2]}, "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 30}]}}))
        .await;
    let curve = c.get("/data/v1/private/TTF:FWD").await.body;
    assert_eq!(
        (
            curve["currency"].clone(),
            curve["units"].clone(),
            curve["properties"].clone()
        ),
        (
            json!("EUR"),
            json!("MWh"),
            json!({"broker": "A", "tiers": [1, 2]})
        )
    );
}

#[actix_rt::test]
async fn system_fields_are_those_of_time_series() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client_of("acme", "ann", Role::Writer);
    c.save(json!({"_id": "TTF", "_type": "#GasHub", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 30}]}}))
        .await;
    assert_eq!(c.put("/object/v1/private/TTF/1/eod").await.status, 200);
    let curve = c.get("/data/v1/private/TTF:FWD").await.body;
    assert_eq!(
        (
            curve["_objid"].clone(),
            curve["_dataid"].clone(),
            curve["_access"].clone(),
            curve["_objtype"].clone(),
            curve["_oid"].clone()
        ),
        (
            json!("TTF"),
            json!("FWD"),
            json!(null),
            json!("#GasHub"),
            json!("TTF:FWD")
        )
    );
    assert_eq!(
        (
            curve["_timestamp"].clone(),
            curve["_user"].clone(),
            curve["_tag"].clone(),
            curve["_version"].clone()
        ),
        (
            json!("2024-03-10T12:00:00.000Z"),
            json!("ann"),
            json!(["eod"]),
            json!(1)
        )
    );
}

#[actix_rt::test]
async fn contracts_are_the_tenors_of_the_curve() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [
        {"tenor": "M01", "value": 30}, {"tenor": "Q02", "value": 32}, {"tenor": "2025Y", "value": 33}]}}))
        .await;
    let curve = c.get("/data/v1/private/TTF:FWD").await.body;
    let tenors: Vec<_> = curve["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["tenor"].clone(), k["value"].clone()))
        .collect();
    assert_eq!(
        tenors,
        [
            (json!("M01"), json!(30.0)),
            (json!("Q02"), json!(32.0)),
            (json!("2025Y"), json!(33.0))
        ]
    );
    // The object keeps the header only.
    let obj = c.get("/object/v1/private/TTF").await.body;
    assert!(obj["FWD"].get("contracts").is_none(), "{obj}");
}
