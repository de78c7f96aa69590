//! Validation service: `{base_url}/validation`: records, run, test, runMany, suggest, tune,
//! override, removeOverride, comment, stats and automations.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// A daily series `NBP:SPOT` with a spike on 2024-07-04, and its configuration.
async fn checked_series(c: &Client<'_>, config: Value) {
    let data: Vec<Value> = [10.0, 11.0, 10.5, 95.0, 10.8]
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"time": format!("2024-07-{:02}", i + 1), "value": v}))
        .collect();
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}))
        .await;
    let mut body = json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": "NBP spot",
        "checks": [{"name": "Range", "expression": "between(value, 0, 50)"}]});
    if let (Value::Object(b), Value::Object(extra)) = (&mut body, config) {
        b.extend(extra);
    }
    let r = c.post("/validationconfig/v1", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

#[actix_rt::test]
async fn post_automations_recreates_the_missing_update_automations() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Admin);
    checked_series(&c, json!({"runOnUpdate": true})).await;
    let owned = c.get("/automation/v1").await.body;
    let id = owned[0]["_id"]
        .as_str()
        .expect("an owned automation")
        .to_string();
    c.delete(&format!("/automation/v1/{id}")).await;
    assert_eq!(c.get("/automation/v1").await.total(), 0);
    // The request body is not shown: none is needed.
    let r = c.post_raw("/validation/v1?_function=automations", "").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (r.body["checked"].clone(), r.body["created"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(c.get("/automation/v1").await.body[0]["_id"], id.as_str());
    // Nothing missing: nothing created.
    let again = c
        .post("/validation/v1?_function=automations", json!({}))
        .await;
    assert_eq!(again.body["created"], 0);
}

#[actix_rt::test]
async fn run_many_items_carry_the_configuration_name_and_an_error_when_they_could_not_run() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    c.save(json!({"_id": "OFF", "S": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]}}))
        .await;
    c.post(
        "/validationconfig/v1",
        json!({"_id": "OFF:S", "kind": "timeseries", "name": "Switched off",
        "enabled": false, "checks": [{"name": "Pos", "expression": "value > 0"}]}),
    )
    .await;
    let r = c
        .post(
            "/validation/v1?_function=runMany",
            json!({"targets": ["NBP:SPOT", "OFF:S", "NONE:S"]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let items = r.body["results"].as_array().unwrap();
    assert_eq!(items[0]["name"], "NBP spot");
    assert!(items[0].get("error").is_none(), "{}", items[0]);
    assert_eq!(
        (
            items[1]["name"].clone(),
            items[1]["status"].clone(),
            items[1]["error"].clone()
        ),
        (json!("Switched off"), json!("skipped"), json!("disabled"))
    );
    assert!(items[1]["message"].as_str().unwrap().contains("disabled"));
    assert_eq!(items[2]["error"], "no validation");
}

#[actix_rt::test]
async fn run_and_test_answers_carry_timings_even_when_nothing_ran() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    for function in ["run", "test"] {
        let r = c
            .post(
                &format!("/validation/v1?_function={function}"),
                json!({"target": "NBP:SPOT", "from": "2024-08-01"}),
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["points"], 0);
        assert!(r.body["message"].is_string(), "{}", r.body);
        for key in ["scripts", "read", "checks", "save"] {
            assert!(
                r.body["timings"][key].is_number(),
                "{function}: timings.{key} in {}",
                r.body
            );
        }
        // And when something ran.
        let r = c
            .post(
                &format!("/validation/v1?_function={function}"),
                json!({"target": "NBP:SPOT"}),
            )
            .await;
        assert!(r.body["timings"]["checks"].is_number(), "{}", r.body);
    }
}

#[actix_rt::test]
async fn a_background_run_needs_a_range_not_points() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    for body in [
        json!({"target": "NBP:SPOT", "points": ["2024-07-04"], "background": true}),
        json!({"target": "NBP:SPOT", "point": "2024-07-04", "from": "2024-07-01", "background": true}),
        json!({"target": "NBP:SPOT", "background": true}),
    ] {
        let message = c
            .post("/validation/v1?_function=run", body.clone())
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(message.contains("needs a range"), "{body}: {message}");
    }
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "NBP:SPOT", "from": "2024-07-01", "background": "yes"}),
    )
    .await
    .assert_error(400, "INVALID_BODY");
    c.post(
        "/validation/v1?_function=test",
        json!({"target": "NBP:SPOT", "from": "2024-07-01", "background": true}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    // Nothing ran or was queued.
    assert_eq!(c.get("/validation/v1").await.total(), 0);
    assert_eq!(c.get("/validation/v1?_function=jobs").await.total(), 0);
    // With a range it goes to the background.
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": "2024-07-01", "background": true}),
        )
        .await;
    assert_eq!(r.body["background"], true, "{:?}", r.body);
}

#[actix_rt::test]
async fn distinct_on_the_record_list_answers_the_distinct_values() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "NBP:SPOT", "from": "2024-07-01"}),
    )
    .await;
    assert_eq!(c.get("/validation/v1").await.total(), 5);
    let r = c.get("/validation/v1?_distinct=status").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body, json!(["failed", "valid"]));
    assert_eq!(r.total(), 2);
    let r = c.get("/validation/v1?_distinct=target&status=failed").await;
    assert_eq!(r.body, json!(["NBP:SPOT"]));
}
