//! Contract: tenor, value, status, ondate and properties (the standard absolute, relative,
//! expiry, start and end, plus custom ones).

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn a_contract_keeps_the_tenor_code_it_was_sent_with() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [
        {"tenor": "2024Q3", "value": 1}, {"tenor": "2024M05", "value": 2}, {"tenor": "2025Y", "value": 3},
        {"tenor": "M01", "value": 4}]}}))
        .await;
    let curve = c.get("/data/v1/private/TTF:FWD:2024-03-01").await.body;
    let read: Vec<(String, String, String)> = curve["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
            (
                text(&k["tenor"]),
                text(&k["properties"]["absolute"]),
                text(&k["properties"]["relative"]),
            )
        })
        .collect();
    let want = [
        ("2024Q03", "2024Q03", "Q02"),
        ("2024M05", "2024M05", "M02"),
        ("2025Y", "2025Y", "Y01"),
        ("M01", "2024M04", "M01"),
    ];
    assert_eq!(
        read,
        want.map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    );
}

#[actix_rt::test]
async fn status_is_a_status_with_the_rules_of_observations() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let status =
        json!({"quality": "VALID:checked", "source": "IMPLIED", "reliability": "UNOBSERVED"});
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-07-01",
        "contracts": [{"tenor": "M01", "value": 30, "status": status}]}}),
    )
    .await;
    assert_eq!(
        c.get("/data/v1/private/TTF:FWD").await.body["contracts"][0]["status"],
        status
    );
    c.post(
        "/object/v1",
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-07-02",
        "contracts": [{"tenor": "M01", "value": 30, "status": {"quality": "MAYBE"}}]}}),
    )
    .await
    .assert_error(400, "INVALID_BODY");
}

#[actix_rt::test]
async fn value_is_the_number_of_the_tenor() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [
        {"tenor": "M01", "value": 30.125}, {"tenor": "M02", "value": -2}]}}),
    )
    .await;
    let curve = c.get("/data/v1/private/TTF:FWD").await.body;
    assert_eq!(
        (
            curve["contracts"][0]["value"].clone(),
            curve["contracts"][1]["value"].clone()
        ),
        (json!(30.125), json!(-2.0))
    );
    c.post(
        "/object/v1",
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-02",
        "contracts": [{"tenor": "M01", "value": [1]}]}}),
    )
    .await
    .assert_error(400, "INVALID_BODY");
}

#[actix_rt::test]
async fn ondate_is_the_curve_date_of_the_contract() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": {"curveDate": "2024-03-01"}, "contracts": [
        {"tenor": "M01", "value": 30}, {"tenor": "M02", "value": 31}]}}))
        .await;
    let curve = c.get("/data/v1/private/TTF:FWD").await.body;
    for k in curve["contracts"].as_array().unwrap() {
        assert_eq!(k["ondate"], json!({"curveDate": "2024-03-01"}), "{k}");
    }
}

#[actix_rt::test]
async fn the_standard_properties_are_filled_from_tenor_and_ondate_and_custom_ones_kept() {
    // decisions.md 5: the platform fills absolute, relative, start and end (first and last
    // delivery day) from tenor and ondate; expiry defaults to the day before delivery starts
    // unless sent.
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [
        {"tenor": "M01", "value": 30, "properties": {"broker": "A", "lots": 5}},
        {"tenor": "2024Q3", "value": 31, "properties": {"expiry": "2024-06-26"}},
        {"tenor": "BOM", "value": 29, "properties": {"absolute": "sent", "start": "sent"}}]}}),
    )
    .await;
    let curve = c.get("/data/v1/private/TTF:FWD").await.body;
    assert_eq!(
        curve["contracts"][0]["properties"],
        json!({"broker": "A", "lots": 5, "absolute": "2024M04", "relative": "M01",
               "start": "2024-04-01", "end": "2024-04-30", "expiry": "2024-03-31"})
    );
    assert_eq!(
        curve["contracts"][1]["properties"],
        json!({"absolute": "2024Q03", "relative": "Q02", "start": "2024-07-01",
               "end": "2024-09-30", "expiry": "2024-06-26"})
    );
    // A balance-of code has no absolute code; computed properties sent are not taken.
    let bom = &curve["contracts"][2]["properties"];
    assert_eq!(
        (
            bom["absolute"].clone(),
            bom["relative"].clone(),
            bom["start"].clone(),
            bom["end"].clone()
        ),
        (
            json!(null),
            json!("BOM"),
            json!("2024-03-02"),
            json!("2024-03-31")
        )
    );
}
