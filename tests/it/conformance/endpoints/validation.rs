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
        json!({"_id": "GONE:S", "kind": "timeseries", "checks": [{"name": "Pos", "expression": "value > 0"}]}),
    )
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
            json!({"targets": ["NBP:SPOT", "OFF:S", "NONE:S", "GONE:S"]}),
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
    // Data that cannot be read: the platform's error.
    let unreadable = items[3]["error"].as_str().unwrap_or_default();
    assert!(
        unreadable.contains("GONE:S") && unreadable.contains("cannot be read"),
        "{}",
        items[3]
    );
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

/// A curve `TTF:FWD` for an ondate.
async fn curve(c: &Client<'_>, ondate: &str, contracts: Value) {
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate, "contracts": contracts}}))
        .await;
}

/// A curve configuration: positive contracts (failed), a warning under 40, and at least two
/// contracts (a curve check).
async fn checked_curve(c: &Client<'_>) {
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "TTF:FWD", "kind": "curve", "name": "TTF forward", "checks": [
                {"name": "Positive", "expression": "value > 0"},
                {"name": "Low", "expression": "value < 40", "severity": "warning"},
                {"name": "Enough", "expression": "tenor_count() >= 2", "scope": "curve"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

fn ids(body: &Value) -> Vec<String> {
    body.as_array()
        .expect("a list")
        .iter()
        .map(|i| i["_id"].as_str().unwrap().to_string())
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

async fn run(c: &Client<'_>, function: &str, body: Value) -> Value {
    let r = c
        .post(&format!("/validation/v1?_function={function}"), body)
        .await;
    assert_eq!(r.status, 200, "{function}: {:?}", r.body);
    r.body
}

#[actix_rt::test]
async fn get_lists_records_filtered_sorted_and_paged_with_the_total_in_x_total_count() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    run(
        &c,
        "run",
        json!({"target": "NBP:SPOT", "from": "2024-07-01"}),
    )
    .await;
    let r = c
        .get(&format!(
            "/validation/v1?_filter={}&_sort={}&_skip=1&_limit=2",
            enc(r#"{"status":"valid"}"#),
            enc(r#"{"pointDate":-1}"#)
        ))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.total(), 4, "the four valid records");
    assert_eq!(ids(&r.body), ["NBP:SPOT:2024-07-03", "NBP:SPOT:2024-07-02"]);
}

#[actix_rt::test]
async fn records_can_be_filtered_on_failed_tenors_with_a_json_filter() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    curve(
        &c,
        "2024-03-01",
        json!([{"tenor": "M01", "value": -1}, {"tenor": "M02", "value": 30}]),
    )
    .await;
    curve(
        &c,
        "2024-03-04",
        json!([{"tenor": "M01", "value": 30}, {"tenor": "M02", "value": -1}]),
    )
    .await;
    checked_curve(&c).await;
    run(
        &c,
        "run",
        json!({"target": "TTF:FWD", "from": "2024-03-01"}),
    )
    .await;
    let r = c
        .get(&format!(
            "/validation/v1?_filter={}",
            enc(r#"{"failedTenors":"M02"}"#)
        ))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (ids(&r.body), r.total()),
        (vec!["TTF:FWD:2024-03-04".into()], 1)
    );
    let r = c
        .get(&format!(
            "/validation/v1?_filter={}",
            enc(r#"{"failedTenors":{"$in":["M01","M02"]}}"#)
        ))
        .await;
    assert_eq!(r.total(), 2);
}

#[actix_rt::test]
async fn get_record_id_reads_a_record() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    run(
        &c,
        "run",
        json!({"target": "NBP:SPOT", "point": "2024-07-04"}),
    )
    .await;
    let r = c.get("/validation/v1/NBP:SPOT:2024-07-04").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (
            r.body["_id"].clone(),
            r.body["target"].clone(),
            r.body["status"].clone(),
            r.body["value"].clone()
        ),
        (
            json!("NBP:SPOT:2024-07-04"),
            json!("NBP:SPOT"),
            json!("failed"),
            json!(95.0)
        )
    );
    c.get("/validation/v1/NBP:SPOT:2024-07-03")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn run_checks_and_stores_records_and_answers_the_run_fields() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    let r = run(
        &c,
        "run",
        json!({"target": "NBP:SPOT", "from": "2024-07-03", "to": "2024-07-04"}),
    )
    .await;
    assert_eq!(
        (
            r["target"].clone(),
            r["kind"].clone(),
            r["test"].clone(),
            r["points"].clone(),
            r["records"].clone(),
            r["counts"].clone(),
            r["truncated"].clone(),
            r["message"].clone()
        ),
        (
            json!("NBP:SPOT"),
            json!("timeseries"),
            json!(false),
            json!(2),
            json!(2),
            json!({"valid": 1, "failed": 1}),
            json!(false),
            Value::Null
        )
    );
    for key in ["scripts", "read", "checks", "save"] {
        assert!(r["timings"][key].is_number(), "timings.{key} in {r}");
    }
    let spike = &r["results"][1];
    assert_eq!(
        (
            spike["_id"].clone(),
            spike["point"].clone(),
            spike["value"].clone(),
            spike["status"].clone(),
            spike["previous"].clone()
        ),
        (
            json!("NBP:SPOT:2024-07-04"),
            json!("2024-07-04"),
            json!(95.0),
            json!("failed"),
            Value::Null
        )
    );
    assert!(
        spike["message"].as_str().unwrap().contains("range"),
        "{spike}"
    );
    assert_eq!(spike["checks"][0]["status"], "failed");
    // The records are stored; a second run shows the previous status.
    assert_eq!(c.get("/validation/v1").await.total(), 2);
    let again = run(
        &c,
        "run",
        json!({"target": "NBP:SPOT", "point": "2024-07-04"}),
    )
    .await;
    assert_eq!(again["results"][0]["previous"], "failed");
}

#[actix_rt::test]
async fn test_runs_checks_of_a_saved_or_unsaved_configuration_and_stores_nothing() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    let r = run(
        &c,
        "test",
        json!({"target": "NBP:SPOT", "from": "2024-07-01"}),
    )
    .await;
    assert_eq!(
        (
            r["test"].clone(),
            r["points"].clone(),
            r["records"].clone(),
            r["counts"].clone()
        ),
        (
            json!(true),
            json!(5),
            json!(0),
            json!({"valid": 4, "failed": 1})
        )
    );
    // A configuration to try, not saved: sent instead of a target.
    let r = run(
        &c,
        "test",
        json!({"config": {"_id": "NBP:SPOT", "kind": "timeseries",
            "checks": [{"name": "Tight", "expression": "value < 10.6"}]}, "from": "2024-07-01"}),
    )
    .await;
    assert_eq!(r["counts"], json!({"valid": 2, "failed": 3}), "{r}");
    assert_eq!(c.get("/validation/v1").await.total(), 0, "nothing stored");
    assert_eq!(
        c.get("/validationconfig/v1/NBP:SPOT").await.body["checks"][0]["id"],
        "range",
        "the tried configuration is not saved"
    );
    // At most 100 data points.
    let points: Vec<String> = (0..101).map(|_| "2024-07-01".into()).collect();
    c.post(
        "/validation/v1?_function=test",
        json!({"target": "NBP:SPOT", "points": points}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn points_point_ondate_and_from_to_choose_the_data_points() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    let points = |body: Value| {
        let c = c.clone();
        async move {
            let r = run(&c, "test", body).await;
            r["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["point"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        points(json!({"target": "NBP:SPOT", "points": ["2024-07-02", "2024-07-04"]})).await,
        ["2024-07-02", "2024-07-04"]
    );
    assert_eq!(
        points(json!({"target": "NBP:SPOT", "point": "2024-07-03"})).await,
        ["2024-07-03"]
    );
    assert_eq!(
        points(json!({"target": "NBP:SPOT", "from": "2024-07-02", "to": "2024-07-03"})).await,
        ["2024-07-02", "2024-07-03"]
    );
    // With no points and no range: the latest data point.
    assert_eq!(points(json!({"target": "NBP:SPOT"})).await, ["2024-07-05"]);
    // Curves: ondate gives one.
    curve(
        &c,
        "2024-07-01",
        json!([{"tenor": "M01", "value": 30}, {"tenor": "M02", "value": 31}]),
    )
    .await;
    curve(
        &c,
        "2024-07-02",
        json!([{"tenor": "M01", "value": 30}, {"tenor": "M02", "value": 31}]),
    )
    .await;
    checked_curve(&c).await;
    assert_eq!(
        points(json!({"target": "TTF:FWD", "ondate": "2024-07-01"})).await,
        ["2024-07-01"]
    );
}

#[actix_rt::test]
async fn a_curve_runs_its_ondates_in_the_range_up_to_today_and_by_default_its_newest_readable_ondate(
) {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    for ondate in ["2024-03-01", "2024-03-04", "2024-03-08", "2024-03-15"] {
        curve(
            &c,
            ondate,
            json!([{"tenor": "M01", "value": 30}, {"tenor": "M02", "value": 31}]),
        )
        .await;
    }
    checked_curve(&c).await;
    let points = |body: Value| {
        let c = c.clone();
        async move {
            let r = run(&c, "test", body).await;
            r["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["point"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        points(json!({"target": "TTF:FWD", "from": "2024-03-02", "to": "2024-03-31"})).await,
        ["2024-03-04", "2024-03-08"],
        "up to today"
    );
    assert_eq!(
        points(json!({"target": "TTF:FWD", "from": "2024-03-01"})).await,
        ["2024-03-01", "2024-03-04", "2024-03-08"]
    );
    // The newest ondate up to today (a later one is not readable yet).
    assert_eq!(points(json!({"target": "TTF:FWD"})).await, ["2024-03-08"]);
}

#[actix_rt::test]
async fn checks_and_tenors_run_only_some_checks_or_tenors() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    curve(&c, "2024-03-01", json!([{"tenor": "M01", "value": -1}, {"tenor": "M02", "value": 45}, {"tenor": "M03", "value": 30}])).await;
    checked_curve(&c).await;
    let all = run(&c, "test", json!({"target": "TTF:FWD"})).await;
    let rec = &all["results"][0];
    assert_eq!(
        (
            rec["status"].clone(),
            rec["failedTenors"].clone(),
            rec["warningTenors"].clone()
        ),
        (json!("failed"), json!(["M01"]), json!(["M02"]))
    );
    // Only the warning check.
    let low = run(&c, "test", json!({"target": "TTF:FWD", "checks": ["low"]})).await;
    let rec = &low["results"][0];
    assert_eq!(
        (
            rec["status"].clone(),
            rec["failedTenors"].clone(),
            rec["warningTenors"].clone()
        ),
        (json!("warning"), json!([]), json!(["M02"]))
    );
    let ran: Vec<&str> = rec["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["status"] != "skipped")
        .map(|k| k["id"].as_str().unwrap())
        .collect();
    assert_eq!(ran, ["low"], "{rec}");
    // Only some tenors.
    let m3 = run(&c, "test", json!({"target": "TTF:FWD", "tenors": ["M03"]})).await;
    let rec = &m3["results"][0];
    let tenors: Vec<&str> = rec["tenors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tenor"].as_str().unwrap())
        .collect();
    assert_eq!(tenors, ["M03"]);
    assert_eq!(rec["failedTenors"], json!([]));
}

#[actix_rt::test]
async fn curve_results_carry_tenors_failed_and_warning_tenors_tenor_counts_and_contracts() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    curve(&c, "2024-03-01", json!([{"tenor": "M01", "value": -1}, {"tenor": "M02", "value": 45}, {"tenor": "M03", "value": 30}])).await;
    checked_curve(&c).await;
    let r = run(&c, "run", json!({"target": "TTF:FWD"})).await;
    assert_eq!(r["kind"], "curve");
    let rec = &r["results"][0];
    assert_eq!(
        (
            rec["_id"].clone(),
            rec["point"].clone(),
            rec["failedTenors"].clone(),
            rec["warningTenors"].clone(),
            rec["tenorCounts"].clone(),
            rec["contracts"].clone()
        ),
        (
            json!("TTF:FWD:2024-03-01"),
            json!("2024-03-01"),
            json!(["M01"]),
            json!(["M02"]),
            json!({"failed": 1, "warning": 1, "valid": 1}),
            json!(3)
        )
    );
    let m1 = &rec["tenors"][0];
    assert_eq!(
        (
            m1["tenor"].clone(),
            m1["value"].clone(),
            m1["status"].clone()
        ),
        (json!("M01"), json!(-1.0), json!("failed"))
    );
    assert!(
        m1["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["id"] == "positive" && k["status"] == "failed"),
        "{m1}"
    );
}

#[actix_rt::test]
async fn a_background_run_answers_background_and_a_message() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    let r = run(
        &c,
        "run",
        json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-05", "background": true}),
    )
    .await;
    assert_eq!(r["background"], true, "{r}");
    assert!(r["message"].as_str().is_some_and(|m| !m.is_empty()), "{r}");
    assert_eq!(c.get("/validation/v1").await.total(), 0, "not run yet");
    assert!(s.platform.jobs().run_next().unwrap());
    assert_eq!(c.get("/validation/v1").await.total(), 5);
}

#[actix_rt::test]
async fn truncated_is_false_and_a_run_over_max_points_goes_to_the_background() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({"options": {"maxPoints": 2}})).await;
    // docs/decisions.md (Validation): nothing is cut, so truncated is always false.
    let r = run(
        &c,
        "run",
        json!({"target": "NBP:SPOT", "from": "2024-07-04"}),
    )
    .await;
    assert_eq!(
        (r["points"].clone(), r["truncated"].clone()),
        (json!(2), json!(false))
    );
    let r = run(
        &c,
        "run",
        json!({"target": "NBP:SPOT", "from": "2024-07-01"}),
    )
    .await;
    assert_eq!(r["background"], true, "{r}");
}

#[actix_rt::test]
async fn when_the_data_cannot_be_read_the_run_fails_with_the_platform_error_in_x_platform_error() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    c.post(
        "/validationconfig/v1",
        json!({"_id": "GONE:S", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]}),
    )
    .await;
    for function in ["run", "test"] {
        let r = c
            .post(
                &format!("/validation/v1?_function={function}"),
                json!({"target": "GONE:S"}),
            )
            .await;
        let message = r.assert_error(404, "NOT_FOUND");
        let header = r.header("x-platform-error").unwrap();
        assert!(
            header.contains("GONE:S") && header.contains(&message),
            "{header}"
        );
    }
}

#[actix_rt::test]
async fn run_many_runs_the_saved_checks_of_several_data_items_and_stores_records() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    curve(
        &c,
        "2024-07-01",
        json!([{"tenor": "M01", "value": -1}, {"tenor": "M02", "value": 30}]),
    )
    .await;
    curve(
        &c,
        "2024-07-02",
        json!([{"tenor": "M01", "value": 30}, {"tenor": "M02", "value": 31}]),
    )
    .await;
    checked_curve(&c).await;
    let r = run(
        &c,
        "runMany",
        json!({"targets": ["NBP:SPOT", "TTF:FWD"], "ondate": "2024-07-01"}),
    )
    .await;
    assert_eq!(
        (r["targets"].clone(), r["counts"].clone()),
        (json!(2), json!({"valid": 1, "failed": 1}))
    );
    let series = &r["results"][0];
    assert_eq!(
        (
            series["target"].clone(),
            series["kind"].clone(),
            series["name"].clone(),
            series["points"].clone(),
            series["status"].clone(),
            series["ids"].clone(),
            series["pointList"].clone()
        ),
        (
            json!("NBP:SPOT"),
            json!("timeseries"),
            json!("NBP spot"),
            json!(1),
            json!("valid"),
            json!(["NBP:SPOT:2024-07-01"]),
            json!(["2024-07-01"])
        )
    );
    assert_eq!(series["counts"], json!({"valid": 1}));
    assert!(series["ms"].is_number(), "{series}");
    assert!(series.get("message").is_some(), "{series}");
    let fwd = &r["results"][1];
    assert_eq!(
        (
            fwd["kind"].clone(),
            fwd["status"].clone(),
            fwd["failedTenors"].clone()
        ),
        (json!("curve"), json!("failed"), json!(["M01"]))
    );
    assert_eq!(c.get("/validation/v1").await.total(), 2);
    assert_eq!(
        c.get("/validation/v1/TTF:FWD:2024-07-01").await.body["status"],
        "failed"
    );
    // points: several of each item.
    let r = run(
        &c,
        "runMany",
        json!({"targets": ["NBP:SPOT"], "points": ["2024-07-03", "2024-07-04"]}),
    )
    .await;
    assert_eq!(
        (
            r["counts"].clone(),
            r["results"][0]["pointList"].clone(),
            r["results"][0]["status"].clone()
        ),
        (
            json!({"failed": 1}),
            json!(["2024-07-03", "2024-07-04"]),
            json!("failed")
        )
    );
    assert_eq!(r["results"][0]["counts"], json!({"valid": 1, "failed": 1}));
}

#[actix_rt::test]
async fn run_many_goes_to_the_background_past_25_items_with_a_range_or_when_asked() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    let at_once: Vec<String> = (0..25).map(|_| "NBP:SPOT".to_string()).collect();
    let r = run(&c, "runMany", json!({"targets": at_once})).await;
    assert_eq!(r["targets"], 25, "{r}");
    assert!(r.get("background").is_none_or(|b| b == false), "{r}");
    let many: Vec<String> = (0..26).map(|_| "NBP:SPOT".to_string()).collect();
    for body in [
        json!({"targets": many}),
        json!({"targets": ["NBP:SPOT"], "from": "2024-07-01"}),
        json!({"targets": ["NBP:SPOT"], "to": "2024-07-03"}),
        json!({"targets": ["NBP:SPOT"], "background": true}),
    ] {
        let r = run(&c, "runMany", body.clone()).await;
        assert_eq!(r["background"], true, "{body}: {r}");
        assert!(r["message"].is_string(), "{body}: {r}");
    }
}

/// A daily series of `days` observations up to 2024-07-07 around 50.
async fn long_series(c: &Client<'_>, id: &str, days: i64) {
    let end = chrono::NaiveDate::from_ymd_opt(2024, 7, 7).unwrap();
    let data: Vec<Value> = (0..days)
        .map(|i| {
            let day = end - chrono::Duration::days(days - 1 - i);
            json!({"time": day.to_string(), "value": 50.0 + ((i * 7) % 5) as f64})
        })
        .collect();
    let (object, prop) = id.split_once(':').unwrap();
    let mut body = json!({"_id": object});
    body[prop] = json!({"_type": "VarTimeSeries", "calendar": "DAILY", "data": data});
    c.save(body).await;
}

#[actix_rt::test]
async fn suggest_suggests_checks_for_time_series_and_stores_nothing() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    long_series(&c, "GAS:DA", 60).await;
    let r = run(&c, "suggest", json!({"targets": ["GAS:DA"]})).await;
    // days defaults to 30, counted back from today; kind to timeseries.
    assert_eq!(
        (r["days"].clone(), r["from"].clone(), r["to"].clone()),
        (json!(30), json!("2024-06-08"), json!("2024-07-08"))
    );
    let item = &r["results"][0];
    assert!(item.get("error").is_none(), "{item}");
    assert_eq!(
        (
            item["target"].clone(),
            item["kind"].clone(),
            item["points"].clone()
        ),
        (json!("GAS:DA"), json!("timeseries"), json!(30))
    );
    assert!(item["ms"].is_number(), "{item}");
    for key in [
        "values",
        "missing",
        "zeros",
        "negatives",
        "min",
        "max",
        "mean",
        "stdev",
        "longestGap",
        "longestRun",
    ] {
        assert!(item["stats"][key].is_number(), "stats.{key} in {item}");
    }
    assert_eq!(
        (
            item["stats"]["values"].clone(),
            item["stats"]["min"].clone(),
            item["stats"]["max"].clone()
        ),
        (json!(30), json!(50.0), json!(54.0))
    );
    let checks = item["checks"].as_array().unwrap();
    assert!(!checks.is_empty(), "{item}");
    for k in checks {
        for key in [
            "name",
            "expression",
            "severity",
            "reason",
            "runs",
            "failures",
            "example",
            "suggested",
        ] {
            assert!(k.get(key).is_some(), "{key} in {k}");
        }
        // example: the first failure, when there is one.
        assert_eq!(k["example"].is_null(), k["failures"] == 0, "{k}");
        // suggested is true when it passed on every data point run.
        assert_eq!(k["suggested"], k["failures"] == 0, "{k}");
    }
    // days counts back from today.
    let r = run(&c, "suggest", json!({"targets": ["GAS:DA"], "days": 45})).await;
    assert_eq!(
        (r["from"].clone(), r["results"][0]["points"].clone()),
        (json!("2024-05-24"), json!(45))
    );
    assert_eq!(c.get("/validation/v1").await.total(), 0);
    assert_eq!(c.get("/validationconfig/v1").await.total(), 0);
}

#[actix_rt::test]
async fn suggest_on_curves_reads_the_most_recent_max_curves_and_gives_contract_counts() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    for d in 1..=30 {
        let ondate = format!("2024-06-{d:02}");
        let contracts: Vec<Value> = (1..=6)
            .map(|m| json!({"tenor": format!("M{m:02}"), "value": 30.0 + f64::from(m) + f64::from(d % 3) * 0.1}))
            .collect();
        curve(&c, &ondate, Value::Array(contracts)).await;
    }
    // 30 curves in the 60 days asked for: maxCurves defaults to 25, the most recent.
    let r = run(
        &c,
        "suggest",
        json!({"targets": ["TTF:FWD"], "kind": "curve", "days": 60}),
    )
    .await;
    let item = &r["results"][0];
    assert!(item.get("error").is_none(), "{item}");
    assert_eq!(item["kind"], "curve");
    assert_eq!(
        (item["points"].clone(), item["stats"]["curves"].clone()),
        (json!(25), json!(25)),
        "{item}"
    );
    assert_eq!(
        (
            item["stats"]["fewestContracts"].clone(),
            item["stats"]["mostContracts"].clone()
        ),
        (json!(6), json!(6))
    );
    assert!(
        item["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|k| k["scope"].is_string()),
        "curve checks name their scope: {item}"
    );
    let r = run(
        &c,
        "suggest",
        json!({"targets": ["TTF:FWD"], "kind": "curve", "days": 60, "maxCurves": 10}),
    )
    .await;
    assert_eq!(r["results"][0]["points"], 10);
}

#[actix_rt::test]
async fn suggest_takes_up_to_25_targets_of_one_kind_days_1_to_366_and_max_curves_2_to_60() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    long_series(&c, "GAS:DA", 40).await;
    let many: Vec<String> = (0..26).map(|_| "GAS:DA".to_string()).collect();
    for body in [
        json!({"targets": many}),
        json!({"targets": ["GAS:DA"], "days": 0}),
        json!({"targets": ["GAS:DA"], "days": 367}),
        json!({"targets": ["GAS:DA"], "kind": "curve", "maxCurves": 1}),
        json!({"targets": ["GAS:DA"], "kind": "curve", "maxCurves": 61}),
    ] {
        c.post("/validation/v1?_function=suggest", body)
            .await
            .assert_error(400, "INVALID_PARAMETER");
    }
    for days in [1, 366] {
        assert_eq!(
            run(&c, "suggest", json!({"targets": ["GAS:DA"], "days": days})).await["days"],
            days
        );
    }
    // An item of another kind is an error of that item.
    let r = run(
        &c,
        "suggest",
        json!({"targets": ["GAS:DA"], "kind": "curve"}),
    )
    .await;
    assert!(r["results"][0]["error"].is_string(), "{r}");
    // Too few values to fit anything: a message and no checks.
    long_series(&c, "NEW:DA", 3).await;
    let r = run(&c, "suggest", json!({"targets": ["NEW:DA"]})).await;
    let item = &r["results"][0];
    assert!(item.get("error").is_none(), "{item}");
    assert!(
        item["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{item}"
    );
    assert_eq!(item["checks"], json!([]), "{item}");
}

/// `GAS:DA` fails `between(value, 0, 53)` on its highs; the 2024-07-04 high is overridden.
async fn overridden_high(c: &Client<'_>) {
    long_series(c, "GAS:DA", 40).await;
    c.save(json!({"_id": "GAS", "DA": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-04", "value": 60}]}}))
        .await;
    c.post(
        "/validationconfig/v1",
        json!({"_id": "GAS:DA", "kind": "timeseries", "checks": [{"name": "Range", "expression": "between(value, 0, 55)"}]}),
    )
    .await;
    run(c, "run", json!({"target": "GAS:DA", "point": "2024-07-04"})).await;
    let r = run(
        c,
        "override",
        json!({"ids": ["GAS:DA:2024-07-04"], "reason": "a real high"}),
    )
    .await;
    assert_eq!(r[0]["ok"], true, "{r}");
}

#[actix_rt::test]
async fn tune_suggests_new_parameters_from_failing_points_and_stores_nothing() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    overridden_high(&c).await;
    let records = c.get("/validation/v1").await.body;
    let r = run(
        &c,
        "tune",
        json!({"items": [{"target": "GAS:DA", "points": ["2024-07-04"]}]}),
    )
    .await;
    assert_eq!(
        (r["days"].clone(), r["from"].clone(), r["to"].clone()),
        (json!(30), json!("2024-06-08"), json!("2024-07-08"))
    );
    let item = &r["results"][0];
    assert!(item.get("error").is_none(), "{item}");
    assert_eq!(
        (item["target"].clone(), item["kind"].clone()),
        (json!("GAS:DA"), json!("timeseries"))
    );
    assert!(
        item["points"].is_number() && item["ms"].is_number(),
        "{item}"
    );
    let k = &item["checks"][0];
    assert_eq!(
        (
            k["id"].clone(),
            k["name"].clone(),
            k["expression"].clone(),
            k["severity"].clone(),
            k["scope"].clone(),
            k["failing"].clone()
        ),
        (
            json!("range"),
            json!("Range"),
            json!("between(value, 0, 55)"),
            json!("failed"),
            json!("point"),
            json!(1)
        )
    );
    let suggested = k["suggested"].as_str().expect("a new expression");
    assert!(
        suggested.starts_with("between(value, 0, ") && suggested != "between(value, 0, 55)",
        "{k}"
    );
    assert!(k["reason"].as_str().is_some_and(|t| !t.is_empty()), "{k}");
    assert!(k["runs"].as_u64().unwrap() >= 30, "{k}");
    assert_eq!(
        (
            k["window"]["runs"].clone(),
            k["window"]["before"].clone(),
            k["window"]["after"].clone()
        ),
        (k["runs"].clone(), json!(1), json!(0))
    );
    // Nothing stored: the configuration and the records are as they were.
    assert_eq!(
        c.get("/validationconfig/v1/GAS:DA").await.body["checks"][0]["expression"],
        "between(value, 0, 55)"
    );
    assert_eq!(c.get("/validation/v1").await.body, records);
}

#[actix_rt::test]
async fn tune_takes_up_to_25_items_days_1_to_366_and_max_curves_2_to_60() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    overridden_high(&c).await;
    let item = json!({"target": "GAS:DA", "points": ["2024-07-04"]});
    let many: Vec<Value> = (0..26).map(|_| item.clone()).collect();
    for body in [
        json!({"items": many}),
        json!({"items": [item.clone()], "days": 0}),
        json!({"items": [item.clone()], "days": 367}),
        json!({"items": [item.clone()], "maxCurves": 1}),
        json!({"items": [item.clone()], "maxCurves": 61}),
    ] {
        c.post("/validation/v1?_function=tune", body)
            .await
            .assert_error(400, "INVALID_PARAMETER");
    }
    let r = run(
        &c,
        "tune",
        json!({"items": [item.clone()], "days": 366, "maxCurves": 60}),
    )
    .await;
    assert_eq!(r["days"], 366);
    // An item that cannot be tuned says why in its own error.
    let r = run(
        &c,
        "tune",
        json!({"items": [item, {"target": "NONE:X", "points": ["2024-07-04"]}]}),
    )
    .await;
    assert!(r["results"][0].get("error").is_none(), "{r}");
    assert!(r["results"][1]["error"].is_string(), "{r}");
    // A point that fails no check: nothing to tune, said in a message.
    let r = run(
        &c,
        "tune",
        json!({"items": [{"target": "GAS:DA", "points": ["2024-07-03"]}]}),
    )
    .await;
    let item = &r["results"][0];
    assert!(item.get("error").is_none(), "{item}");
    assert_eq!(item["checks"], json!([]), "{item}");
    assert!(
        item["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{item}"
    );
}

#[actix_rt::test]
async fn tune_on_a_curve_reads_the_most_recent_max_curves_and_tenors_limit_it_to_some_tenors() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    for d in 1..=30 {
        let high = if d == 30 { 20.0 } else { 0.0 };
        curve(&c, &format!("2024-06-{d:02}"), json!([{"tenor": "M01", "value": 30.0 + high}, {"tenor": "M02", "value": 31.0 + high}, {"tenor": "M03", "value": 32.0}])).await;
    }
    c.post(
        "/validationconfig/v1",
        json!({"_id": "TTF:FWD", "kind": "curve", "checks": [{"name": "Range", "expression": "value < 40"}]}),
    )
    .await;
    run(
        &c,
        "run",
        json!({"target": "TTF:FWD", "ondate": "2024-06-30"}),
    )
    .await;
    run(
        &c,
        "override",
        json!({"ids": ["TTF:FWD:2024-06-30"], "reason": "real"}),
    )
    .await;
    let tune = |extra: Value| {
        let c = c.clone();
        async move {
            let mut item = json!({"target": "TTF:FWD", "points": ["2024-06-30"]});
            if let Some(t) = extra.get("tenors") {
                item["tenors"] = t.clone();
            }
            let mut body = json!({"items": [item], "days": 60});
            if let Some(m) = extra.get("maxCurves") {
                body["maxCurves"] = m.clone();
            }
            let r = run(&c, "tune", body).await;
            let item = r["results"][0].clone();
            assert_eq!(item["kind"], "curve", "{item}");
            item
        }
    };
    let all = tune(json!({})).await;
    assert_eq!(all["checks"][0]["failing"], 2, "{all}");
    // maxCurves defaults to 25: the 25 most recent curves of the 30 in the window.
    assert_eq!(all["points"], 25, "{all}");
    assert_eq!(tune(json!({"maxCurves": 10})).await["points"], 10);
    let m02 = tune(json!({"tenors": ["M02"]})).await;
    assert_eq!(m02["checks"][0]["failing"], 1, "{m02}");
}

#[actix_rt::test]
async fn override_remove_override_and_comment_answer_each_id_with_ok_and_a_message() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({})).await;
    run(
        &c,
        "run",
        json!({"target": "NBP:SPOT", "from": "2024-07-03"}),
    )
    .await;
    let failing = "NBP:SPOT:2024-07-04";
    let valid = "NBP:SPOT:2024-07-03";
    let r = run(
        &c,
        "override",
        json!({"ids": [failing, valid, "NBP:SPOT:1999-01-01"], "reason": "exchange outage"}),
    )
    .await;
    let answers: Vec<(Value, Value)> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["id"].clone(), a["ok"].clone()))
        .collect();
    assert_eq!(
        answers,
        [
            (json!(failing), json!(true)),
            (json!(valid), json!(false)),
            (json!("NBP:SPOT:1999-01-01"), json!(false))
        ]
    );
    assert!(
        r.as_array()
            .unwrap()
            .iter()
            .all(|a| a["message"].is_string()),
        "{r}"
    );
    let rec = c.get(&format!("/validation/v1/{failing}")).await.body;
    assert_eq!(
        (rec["status"].clone(), rec["override"]["reason"].clone()),
        (json!("overridden"), json!("exchange outage"))
    );
    // reason is required for override; message for comment.
    c.post(
        "/validation/v1?_function=override",
        json!({"ids": [failing]}),
    )
    .await
    .assert_error(400, "MISSING_PARAMETER");
    c.post(
        "/validation/v1?_function=comment",
        json!({"ids": [failing]}),
    )
    .await
    .assert_error(400, "MISSING_PARAMETER");
    let r = run(
        &c,
        "comment",
        json!({"ids": [failing], "message": "checked with the desk"}),
    )
    .await;
    assert_eq!(r[0]["ok"], true, "{r}");
    let timeline = c.get(&format!("/validation/v1/{failing}")).await.body["timeline"].clone();
    let last = timeline.as_array().unwrap().last().unwrap();
    assert_eq!(
        (last["action"].clone(), last["message"].clone()),
        (json!("comment"), json!("checked with the desk"))
    );
    let r = run(&c, "removeOverride", json!({"ids": [failing, valid]})).await;
    assert_eq!(
        (r[0]["ok"].clone(), r[1]["ok"].clone()),
        (json!(true), json!(false))
    );
    assert!(r[1]["message"].is_string(), "{r}");
    assert_eq!(
        c.get(&format!("/validation/v1/{failing}")).await.body["status"],
        "failed"
    );
    // Up to 500 ids.
    let ids: Vec<String> = (0..500).map(|i| format!("NBP:SPOT:x{i}")).collect();
    assert_eq!(
        run(&c, "comment", json!({"ids": ids, "message": "m"}))
            .await
            .as_array()
            .unwrap()
            .len(),
        500
    );
    let ids: Vec<String> = (0..501).map(|i| format!("NBP:SPOT:x{i}")).collect();
    for function in ["override", "removeOverride", "comment"] {
        c.post(
            &format!("/validation/v1?_function={function}"),
            json!({"ids": ids, "reason": "r", "message": "m"}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    }
}

#[actix_rt::test]
async fn stats_filters_on_from_to_target_kind_and_group_and_answers_its_keys() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, json!({"group": "gas"})).await;
    run(
        &c,
        "run",
        json!({"target": "NBP:SPOT", "from": "2024-07-01"}),
    )
    .await;
    curve(
        &c,
        "2024-07-01",
        json!([{"tenor": "M01", "value": 30}, {"tenor": "M02", "value": 31}]),
    )
    .await;
    checked_curve(&c).await;
    run(&c, "run", json!({"target": "TTF:FWD"})).await;
    let stats = |query: &str| {
        let c = c.clone();
        let url = format!("/validation/v1?_function=stats{query}");
        async move {
            let r = c.get(&url).await;
            assert_eq!(r.status, 200, "{url}: {:?}", r.body);
            r.body
        }
    };
    let all = stats("").await;
    for key in [
        "totals", "targets", "byStatus", "byKind", "byDay", "byTarget", "byCheck", "open",
        "resolved", "activity", "configs",
    ] {
        assert!(all.get(key).is_some(), "{key} in {all}");
    }
    assert_eq!(all["totals"]["records"], 6);
    assert_eq!(
        all["open"][0]["_id"], "NBP:SPOT:2024-07-04",
        "oldest open issue"
    );
    let records = |v: Value| v["totals"]["records"].clone();
    assert_eq!(records(stats("&from=2024-07-04").await), 2);
    assert_eq!(records(stats("&to=2024-07-01").await), 2);
    assert_eq!(records(stats("&from=2024-07-02&to=2024-07-03").await), 2);
    assert_eq!(records(stats("&target=TTF:FWD").await), 1);
    assert_eq!(records(stats("&kind=timeseries").await), 5);
    assert_eq!(records(stats("&group=gas").await), 5);
}
