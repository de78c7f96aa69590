//! Validation record: one per data point, written by the platform; its fields.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn a_passing_tenor_check_has_an_empty_message_and_log_as_point_checks_do() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01",
        "contracts": [{"tenor": "M01", "value": 30}, {"tenor": "M02", "value": -1}]}}),
    )
    .await;
    c.post(
        "/validationconfig/v1",
        json!({"_id": "TTF:FWD", "kind": "curve", "checks": [
        {"name": "Positive", "expression": "value > 0"},
        {"name": "Small", "expression": "value < 100"}]}),
    )
    .await;
    let run = c
        .post("/validation/v1?_function=run", json!({"target": "TTF:FWD"}))
        .await;
    assert_eq!(run.status, 200, "{:?}", run.body);
    let checks = run.body["results"][0]["checks"].as_array().unwrap().clone();
    let small = checks.iter().find(|k| k["id"] == "small").unwrap();
    assert_eq!(small["status"], "valid");
    assert_eq!(
        (small["message"].clone(), small["log"].clone()),
        (json!(""), json!([]))
    );
    // A failing tenor check names its tenor.
    let positive = checks.iter().find(|k| k["id"] == "positive").unwrap();
    assert_eq!(positive["status"], "failed");
    assert!(
        positive["message"].as_str().unwrap().starts_with("M02: "),
        "{positive}"
    );
    // The stored record reads the same.
    let stored = c.get("/validation/v1/TTF:FWD:2024-03-01").await.body;
    let small = stored["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == "small")
        .unwrap()
        .clone();
    assert_eq!(
        (small["message"].clone(), small["log"].clone()),
        (json!(""), json!([]))
    );
}
