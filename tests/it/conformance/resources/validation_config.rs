//! Validation configuration (service validationconfig, private): one per data item, versioned;
//! its fields, its checks (id, name, expression, scope, severity, enabled) and its options
//! (lookback, curveHistory, writeStatus, maxPoints) with their bounds, meanings and defaults.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// A daily series `NBP:SPOT` from 2024-07-01 with these values.
async fn series(c: &Client<'_>, values: &[f64]) {
    let data: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"time": format!("2024-07-{:02}", i + 1), "value": v}))
        .collect();
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}))
        .await;
}

async fn save(c: &Client<'_>, body: Value) -> Value {
    let r = c.post("/validationconfig/v1", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

async fn run(c: &Client<'_>, body: Value) -> Value {
    let r = c.post("/validation/v1?_function=run", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

fn check<'a>(record: &'a Value, id: &str) -> &'a Value {
    record["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == id)
        .unwrap_or_else(|| panic!("check {id} in {record}"))
}

#[actix_rt::test]
async fn there_is_one_per_data_item_and_its_id_is_the_data_id() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for _ in 0..2 {
        save(&c, json!({"_id": "NBP:SPOT", "kind": "timeseries"})).await;
    }
    save(&c, json!({"_id": "TTF:FWD", "kind": "curve"})).await;
    let list = c.get("/validationconfig/v1").await;
    let ids: Vec<&str> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["NBP:SPOT", "TTF:FWD"]);
    assert_eq!(
        c.get("/validationconfig/v1/NBP:SPOT").await.body["kind"],
        "timeseries"
    );
    // An id that is not a data id is refused.
    for bad in ["NBP", "not a data id"] {
        c.post(
            "/validationconfig/v1",
            json!({"_id": bad, "kind": "timeseries"}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    }
    // Private: another company sees none of them.
    let other = s.client_of("zed", "zoe", Role::Writer);
    assert_eq!(other.get("/validationconfig/v1").await.total(), 0);
    other
        .get("/validationconfig/v1/NBP:SPOT")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn every_change_keeps_a_version() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let v1 = save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": "first"}),
    )
    .await;
    let v2 = save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": "second"}),
    )
    .await;
    assert_eq!(
        (v1["_version"].clone(), v2["_version"].clone()),
        (json!(1), json!(2))
    );
    let versions = c.get("/validationconfig/v1/NBP:SPOT/*").await;
    assert_eq!(versions.total(), 2);
    assert_eq!(
        c.get("/validationconfig/v1/NBP:SPOT/1").await.body["name"],
        "first"
    );
    assert_eq!(
        c.get("/validationconfig/v1/NBP:SPOT").await.body["name"],
        "second"
    );
    // docs/decisions.md, "Validation": saving the same again is no change and makes no version.
    let same = save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": "second"}),
    )
    .await;
    assert_eq!(same["_version"], 2);
}

#[actix_rt::test]
async fn kind_is_required_and_is_curve_or_timeseries() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.post("/validationconfig/v1", json!({"_id": "NBP:SPOT"}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    let m = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "NBP:SPOT", "kind": "series"}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("series"), "{m}");
    assert_eq!(c.get("/validationconfig/v1").await.total(), 0);
    for kind in ["timeseries", "curve"] {
        assert_eq!(
            save(&c, json!({"_id": "NBP:SPOT", "kind": kind})).await["kind"],
            kind
        );
    }
}

#[actix_rt::test]
async fn name_description_group_and_tags_read_back_and_label_the_records() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c, &[10.0]).await;
    let fields = json!({"name": "NBP spot", "description": "Day-ahead checks", "group": "gas", "tags": ["uk", "hub"]});
    let mut body = json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]});
    body.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    save(&c, body).await;
    let got = c.get("/validationconfig/v1/NBP:SPOT").await.body;
    for (k, v) in fields.as_object().unwrap() {
        assert_eq!(&got[k], v, "{k} in {got}");
    }
    run(&c, json!({"target": "NBP:SPOT"})).await;
    let record = c.get("/validation/v1/NBP:SPOT:2024-07-01").await.body;
    assert_eq!(
        (
            record["name"].clone(),
            record["group"].clone(),
            record["tags"].clone()
        ),
        (json!("NBP spot"), json!("gas"), json!(["uk", "hub"]))
    );
}

#[actix_rt::test]
async fn enabled_and_run_on_update_default_to_true_and_false() {
    // Defaults are not shown; decisions.md 9: enabled true, runOnUpdate false.
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let saved = save(&c, json!({"_id": "NBP:SPOT", "kind": "timeseries"})).await;
    assert_eq!(
        (saved["enabled"].clone(), saved["runOnUpdate"].clone()),
        (json!(true), json!(false))
    );
}

#[actix_rt::test]
async fn a_disabled_configuration_runs_no_checks() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c, &[-1.0]).await;
    save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "enabled": false,
        "checks": [{"name": "Positive", "expression": "value > 0"}]}),
    )
    .await;
    let r = run(&c, json!({"target": "NBP:SPOT"})).await;
    assert_eq!(
        (r["points"].clone(), r["records"].clone()),
        (json!(0), json!(0)),
        "{r}"
    );
    assert!(r["message"].as_str().unwrap().contains("disabled"), "{r}");
    assert_eq!(c.get("/validation/v1").await.total(), 0);
}

#[actix_rt::test]
async fn run_on_update_runs_the_checks_when_the_data_is_updated_if_enabled() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c, &[10.0]).await;
    let on = |id: &str, enabled: bool, run_on_update: bool| {
        json!({"_id": id, "kind": "timeseries", "enabled": enabled, "runOnUpdate": run_on_update,
            "checks": [{"name": "Positive", "expression": "value > 0"}]})
    };
    c.save(json!({"_id": "OFF", "S": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2024-07-01", "value": 1}]},
        "DIS": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2024-07-01", "value": 1}]}}))
        .await;
    save(&c, on("NBP:SPOT", true, true)).await;
    save(&c, on("OFF:S", true, false)).await;
    save(&c, on("OFF:DIS", false, true)).await;
    s.platform.deliveries().run_due().unwrap();
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02", "value": -5}]}}))
        .await;
    c.save(json!({"_id": "OFF", "S": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02", "value": -5}]},
        "DIS": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02", "value": -5}]}}))
        .await;
    s.platform.deliveries().run_due().unwrap();
    let records = c.get("/validation/v1").await;
    assert_eq!(records.total(), 1, "{:?}", records.body);
    assert_eq!(
        (
            records.body[0]["_id"].clone(),
            records.body[0]["status"].clone(),
            records.body[0]["lastOrigin"].clone()
        ),
        (
            json!("NBP:SPOT:2024-07-02"),
            json!("failed"),
            json!("update")
        )
    );
}

#[actix_rt::test]
async fn scripts_are_libraries_the_checks_may_call() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c, &[150.0]).await;
    let r = c
        .post(
            "/script/v1",
            json!({"_id": "limits", "script": "fn too_high(x) { x > 100.0 }"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let body = |scripts: Value| {
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "scripts": scripts,
            "checks": [{"name": "Cap", "expression": "!too_high(value)"}]})
    };
    // Without the library the check does not compile.
    let m = c
        .post("/validationconfig/v1", body(json!([])))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("too_high"), "{m}");
    save(&c, body(json!(["limits"]))).await;
    let r = run(&c, json!({"target": "NBP:SPOT"})).await;
    assert_eq!(r["results"][0]["status"], "failed", "{r}");
}

#[actix_rt::test]
async fn a_configuration_has_at_most_50_checks() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let checks = |n: usize| -> Vec<Value> {
        (0..n)
            .map(|i| json!({"name": format!("c{i}"), "expression": "value > 0"}))
            .collect()
    };
    let saved = save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": checks(50)}),
    )
    .await;
    assert_eq!(saved["checks"].as_array().unwrap().len(), 50);
    let m = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": checks(51)}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("50"), "{m}");
    assert_eq!(
        c.get("/validationconfig/v1/NBP:SPOT").await.body["_version"],
        1
    );
}

#[actix_rt::test]
async fn a_check_id_is_made_from_the_name_when_not_given_and_kept_unique() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let saved = save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [
        {"name": "Day move", "expression": "value > 0"},
        {"name": "Day move", "expression": "value < 100"},
        {"id": "mine", "name": "Own id", "expression": "value > 1"},
        {"id": "mine", "name": "Same id", "expression": "value > 2"}]}),
    )
    .await;
    let ids: Vec<&str> = saved["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["day_move", "day_move_2", "mine", "mine_2"]);
    assert_eq!(saved["checks"][0]["name"], "Day move");
}

#[actix_rt::test]
async fn an_expression_is_one_line_of_the_scripting_language() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let with = |expression: &str| json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [{"name": "x", "expression": expression}]});
    let m = c
        .post("/validationconfig/v1", with("value > 0 &&\nvalue < 100"))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("one line"), "{m}");
    c.post("/validationconfig/v1", with("value >> > 0"))
        .await
        .assert_error(400, "INVALID_BODY");
    assert_eq!(c.get("/validationconfig/v1").await.total(), 0);
    save(&c, with("value > 0 && value < 100")).await;
}

#[actix_rt::test]
async fn scope_is_tenor_by_default_or_curve_on_curves_and_always_point_on_time_series() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    // A time series: point, whether sent or not; another scope is refused.
    let ts = save(&c, json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [
        {"name": "a", "expression": "value > 0"}, {"name": "b", "expression": "value > 0", "scope": "point"}]}))
    .await;
    assert_eq!(
        (
            ts["checks"][0]["scope"].clone(),
            ts["checks"][1]["scope"].clone()
        ),
        (json!("point"), json!("point"))
    );
    for scope in ["tenor", "curve"] {
        c.post(
            "/validationconfig/v1",
            json!({"_id": "NBP:SPOT", "kind": "timeseries",
            "checks": [{"name": "a", "expression": "value > 0", "scope": scope}]}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    }
    // A curve: a tenor check runs on each contract, a curve check once.
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [
        {"tenor": "M01", "value": 30}, {"tenor": "M02", "value": -1}, {"tenor": "M03", "value": -2}]}}))
        .await;
    let cv = save(
        &c,
        json!({"_id": "TTF:FWD", "kind": "curve", "checks": [
        {"name": "Positive", "expression": "value > 0"},
        {"name": "Has M01", "expression": "has_tenor(\"M01\")", "scope": "curve"}]}),
    )
    .await;
    assert_eq!(
        (
            cv["checks"][0]["scope"].clone(),
            cv["checks"][1]["scope"].clone()
        ),
        (json!("tenor"), json!("curve"))
    );
    c.post(
        "/validationconfig/v1",
        json!({"_id": "TTF:FWD", "kind": "curve",
        "checks": [{"name": "a", "expression": "value > 0", "scope": "point"}]}),
    )
    .await
    .assert_error(400, "INVALID_BODY");
    let r = run(&c, json!({"target": "TTF:FWD"})).await;
    let record = &r["results"][0];
    assert_eq!(
        (
            check(record, "positive")["status"].clone(),
            check(record, "positive")["tenorsFailed"].clone()
        ),
        (json!("failed"), json!(2))
    );
    assert_eq!(check(record, "has_m01")["status"], "valid");
    assert!(
        check(record, "has_m01").get("tenorsFailed").is_none(),
        "{record}"
    );
    for tenor in record["tenors"].as_array().unwrap() {
        let ids: Vec<&str> = tenor["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["positive"], "{tenor}");
    }
}

#[actix_rt::test]
async fn severity_is_warning_failed_by_default_or_severe() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c, &[-1.0]).await;
    let saved = save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [
        {"name": "w", "expression": "value > 0", "severity": "warning"},
        {"name": "f", "expression": "value > 0"},
        {"name": "s", "expression": "value > 0", "severity": "severe"}]}),
    )
    .await;
    assert_eq!(saved["checks"][1]["severity"], "failed");
    let r = run(&c, json!({"target": "NBP:SPOT"})).await;
    let record = &r["results"][0];
    let statuses: Vec<Value> = ["w", "f", "s"]
        .iter()
        .map(|id| check(record, id)["status"].clone())
        .collect();
    assert_eq!(
        statuses,
        [json!("warning"), json!("failed"), json!("severe")]
    );
    assert_eq!(record["status"], "severe");
    c.post(
        "/validationconfig/v1",
        json!({"_id": "NBP:SPOT", "kind": "timeseries",
        "checks": [{"name": "x", "expression": "value > 0", "severity": "fatal"}]}),
    )
    .await
    .assert_error(400, "INVALID_BODY");
}

#[actix_rt::test]
async fn a_disabled_check_does_not_run() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c, &[-1.0]).await;
    let saved = save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [
        {"name": "Positive", "expression": "value > 0", "enabled": false},
        {"name": "Small", "expression": "value < 100"}]}),
    )
    .await;
    // decisions.md 9: a check is enabled by default.
    assert_eq!(
        (
            saved["checks"][0]["enabled"].clone(),
            saved["checks"][1]["enabled"].clone()
        ),
        (json!(false), json!(true))
    );
    let r = run(&c, json!({"target": "NBP:SPOT"})).await;
    assert_eq!(r["results"][0]["status"], "valid", "{r}");
    // decisions.md 9: with no enabled check the record is skipped.
    save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [
        {"name": "Positive", "expression": "value > 0", "enabled": false}]}),
    )
    .await;
    let r = run(&c, json!({"target": "NBP:SPOT"})).await;
    assert_eq!(r["results"][0]["status"], "skipped", "{r}");
}

#[actix_rt::test]
async fn options_default_as_decided() {
    // Not shown; decisions.md 9: lookback 0, curveHistory 0, writeStatus false, maxPoints 1000.
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let saved = save(&c, json!({"_id": "NBP:SPOT", "kind": "timeseries"})).await;
    assert_eq!(
        saved["options"],
        json!({"lookback": 0, "curveHistory": 0, "writeStatus": false, "maxPoints": 1000})
    );
}

#[actix_rt::test]
async fn options_are_refused_outside_their_bounds() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let with =
        |options: Value| json!({"_id": "NBP:SPOT", "kind": "timeseries", "options": options});
    for options in [
        json!({"lookback": 0}),
        json!({"lookback": 1000}),
        json!({"curveHistory": 0}),
        json!({"curveHistory": 30}),
        json!({"maxPoints": 1}),
        json!({"maxPoints": 5000}),
    ] {
        let r = c.post("/validationconfig/v1", with(options.clone())).await;
        assert_eq!(r.status, 200, "{options}: {:?}", r.body);
    }
    for options in [
        json!({"lookback": -1}),
        json!({"lookback": 1001}),
        json!({"lookback": 2.5}),
        json!({"curveHistory": -1}),
        json!({"curveHistory": 31}),
        json!({"maxPoints": 0}),
        json!({"maxPoints": 5001}),
    ] {
        let m = c
            .post("/validationconfig/v1", with(options.clone()))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        let name = options.as_object().unwrap().keys().next().unwrap().clone();
        assert!(m.contains(&name), "{options}: {m}");
    }
}

#[actix_rt::test]
async fn lookback_takes_earlier_observations_of_a_time_series_from_history() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    // The move into the 3rd is small, the one into the 4th large.
    series(&c, &[10.0, 10.0, 11.0, 30.0]).await;
    let config = |lookback: u64| {
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "options": {"lookback": lookback},
            "checks": [{"name": "Move", "expression": "abs(pct_change(1)) < 0.5"}]})
    };
    // A check takes the earlier observations its expression needs from history, whatever
    // lookback says (a minimum): the move of a point is computed with lookback 0 as with 1.
    for lookback in [0, 1] {
        save(&c, config(lookback)).await;
        for (point, status) in [("2024-07-03", "valid"), ("2024-07-04", "failed")] {
            let r = c
                .post(
                    "/validation/v1?_function=test",
                    json!({"target": "NBP:SPOT", "point": point}),
                )
                .await;
            assert_eq!(
                r.body["results"][0]["status"], status,
                "lookback {lookback}, {point}: {:?}",
                r.body
            );
        }
    }
    // The first observation has none before it: the check is skipped there, saying why.
    let r = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": "NBP:SPOT", "point": "2024-07-01"}),
        )
        .await;
    let first = &r.body["results"][0];
    assert_eq!(first["status"], "skipped", "{first}");
    assert_eq!(
        check(first, "move")["message"],
        "pct_change(1) needs 1 earlier point; none before 2024-07-01T00:00:00Z"
    );
}

#[actix_rt::test]
async fn curve_history_reads_previous_curves_for_tenor_history() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    for (ondate, v) in [("2024-03-01", 30), ("2024-03-04", 31)] {
        c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate, "contracts": [{"tenor": "M01", "value": v}]}}))
            .await;
    }
    let config = |history: u64, limit: f64| {
        json!({"_id": "TTF:FWD", "kind": "curve", "options": {"curveHistory": history},
            "checks": [{"name": "Move", "expression": format!("abs(tenor_pct_change(1)) < {limit}")}]})
    };
    // A tenor check takes the previous curves its expression needs, whatever curveHistory
    // says (a minimum): the move 30 -> 31 is read with curveHistory 0 as with 1.
    for history in [0, 1] {
        for (limit, status) in [(0.5, "valid"), (0.01, "failed")] {
            save(&c, config(history, limit)).await;
            let r = c
                .post(
                    "/validation/v1?_function=test",
                    json!({"target": "TTF:FWD", "ondate": "2024-03-04"}),
                )
                .await;
            assert_eq!(
                r.body["results"][0]["status"], status,
                "curveHistory {history}, limit {limit}: {:?}",
                r.body
            );
        }
    }
    // The first curve has none before it: the check is skipped there, saying why.
    let r = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": "TTF:FWD", "ondate": "2024-03-01"}),
        )
        .await;
    let first = &r.body["results"][0];
    assert_eq!(first["status"], "skipped", "{first}");
    assert_eq!(
        first["tenors"][0]["checks"][0]["message"],
        "tenor_pct_change(1) needs 1 earlier curve; none before 2024-03-01"
    );
}

#[actix_rt::test]
async fn write_status_writes_the_quality_status_to_the_data() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c, &[10.0, -1.0]).await;
    let config = |write: bool| {
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "options": {"writeStatus": write},
            "checks": [{"name": "Positive", "expression": "value > 0"}]})
    };
    save(&c, config(false)).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let data = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert!(
        data["data"][0].get("status").is_none() && data["data"][1].get("status").is_none(),
        "{data}"
    );
    save(&c, config(true)).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let data = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(
        (
            data["data"][0]["status"]["quality"].clone(),
            data["data"][1]["status"]["quality"].clone()
        ),
        (json!("VALID"), json!("FAILED"))
    );
}

#[actix_rt::test]
async fn a_manual_run_over_more_points_than_max_points_runs_in_the_background() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c, &[1.0, 2.0, 3.0]).await;
    save(
        &c,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "options": {"maxPoints": 2},
        "checks": [{"name": "Positive", "expression": "value > 0"}]}),
    )
    .await;
    let two = run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-02"})).await;
    assert_eq!(
        (two["points"].clone(), two.get("background").cloned()),
        (json!(2), None),
        "{two}"
    );
    let three = run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    assert_eq!(three["background"], true, "{three}");
    assert_eq!(
        c.get("/validation/v1").await.total(),
        2,
        "not run in the request"
    );
    assert!(s.platform.jobs().run_next().unwrap());
    assert_eq!(c.get("/validation/v1").await.total(), 3);
}
