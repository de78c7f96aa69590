//! Validation record: one per data point (an observation of a time series, an ondate of a
//! curve), written only by the platform; its fields: id, labels of the data item and its
//! configuration, point, value, statuses, checks, message, the curve fields, override, run
//! history, open and resolved times, and the timeline.

use crate::common::{Client, TestServer};
use actix_web::http::Method;
use platform_core::auth::Role;
use serde_json::{json, Value};

/// A daily series `NBP:SPOT` from 2024-07-01 and a configuration whose check fails below 0.
async fn checked_series(c: &Client<'_>, values: &[f64]) {
    let data: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"time": format!("2024-07-{:02}", i + 1), "value": v}))
        .collect();
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}))
        .await;
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": "NBP spot", "group": "gas", "tags": ["uk"],
                "checks": [{"name": "Positive", "expression": "value > 0"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

async fn run(c: &Client<'_>, body: Value) -> Value {
    let r = c.post("/validation/v1?_function=run", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

async fn record(c: &Client<'_>, id: &str) -> Value {
    let r = c.get(&format!("/validation/v1/{id}")).await;
    assert_eq!(r.status, 200, "{id}: {:?}", r.body);
    r.body
}

/// A curve `TTF:FWD` of 2024-03-01 with M01 30, M02 -1 and M03 150.
async fn checked_curve(c: &Client<'_>) {
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [
        {"tenor": "M01", "value": 30}, {"tenor": "M02", "value": -1}, {"tenor": "M03", "value": 150}]}}))
        .await;
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "TTF:FWD", "kind": "curve", "checks": [
                {"name": "Positive", "expression": "value > 0"},
                {"name": "Small", "expression": "value < 100", "severity": "warning"},
                {"name": "Has M01", "expression": "has_tenor(\"M01\")", "scope": "curve"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

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

#[actix_rt::test]
async fn the_id_is_the_data_id_and_the_time_or_the_ondate() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, &[10.0, 11.0]).await;
    c.save(json!({"_id": "PWR", "H": {"_type": "VarTimeSeries", "calendar": "HOURLY", "data": [{"time": "2024-07-01T10:00:00Z", "value": 1}]}}))
        .await;
    c.post("/validationconfig/v1", json!({"_id": "PWR:H", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]}))
        .await;
    checked_curve(&c).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    run(&c, json!({"target": "PWR:H"})).await;
    run(&c, json!({"target": "TTF:FWD"})).await;
    let list = c.get("/validation/v1").await;
    let ids: Vec<&str> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "NBP:SPOT:2024-07-01",
            "NBP:SPOT:2024-07-02",
            "PWR:H:2024-07-01T10:00:00Z",
            "TTF:FWD:2024-03-01"
        ]
    );
}

#[actix_rt::test]
async fn target_name_kind_group_and_tags_are_the_data_item_and_its_configuration() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, &[10.0]).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    let r = record(&c, "NBP:SPOT:2024-07-01").await;
    assert_eq!(
        (
            r["target"].clone(),
            r["name"].clone(),
            r["kind"].clone(),
            r["group"].clone(),
            r["tags"].clone()
        ),
        (
            json!("NBP:SPOT"),
            json!("NBP spot"),
            json!("timeseries"),
            json!("gas"),
            json!(["uk"])
        )
    );
    checked_curve(&c).await;
    run(&c, json!({"target": "TTF:FWD"})).await;
    assert_eq!(record(&c, "TTF:FWD:2024-03-01").await["kind"], "curve");
}

#[actix_rt::test]
async fn point_and_point_date_are_the_observation_time_or_the_ondate_and_value_the_value_checked() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "PWR", "H": {"_type": "VarTimeSeries", "calendar": "HOURLY", "timezone": "Europe/Paris",
        "data": [{"time": "2024-07-01T23:00:00Z", "value": 42.5}]}}))
        .await;
    c.post("/validationconfig/v1", json!({"_id": "PWR:H", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]}))
        .await;
    run(&c, json!({"target": "PWR:H"})).await;
    let r = record(&c, "PWR:H:2024-07-01T23:00:00Z").await;
    // 23:00 UTC is already the 2nd in Paris: the date of the point in the series' zone.
    assert_eq!(
        (
            r["point"].clone(),
            r["pointDate"].clone(),
            r["value"].clone()
        ),
        (
            json!("2024-07-01T23:00:00Z"),
            json!("2024-07-02"),
            json!(42.5)
        )
    );
    checked_curve(&c).await;
    run(&c, json!({"target": "TTF:FWD"})).await;
    let r = record(&c, "TTF:FWD:2024-03-01").await;
    assert_eq!(
        (r["point"].clone(), r["pointDate"].clone()),
        (json!("2024-03-01"), json!("2024-03-01"))
    );
}

#[actix_rt::test]
async fn status_is_the_status_that_applies_and_checked_status_the_result_of_the_last_run() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, &[-1.0]).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    let r = record(&c, "NBP:SPOT:2024-07-01").await;
    assert_eq!(
        (r["status"].clone(), r["checkedStatus"].clone()),
        (json!("failed"), json!("failed"))
    );
    c.post(
        "/validation/v1?_function=override",
        json!({"ids": ["NBP:SPOT:2024-07-01"], "reason": "known outage"}),
    )
    .await;
    let r = record(&c, "NBP:SPOT:2024-07-01").await;
    assert_eq!(
        (r["status"].clone(), r["checkedStatus"].clone()),
        (json!("overridden"), json!("failed"))
    );
}

#[actix_rt::test]
async fn each_check_reports_id_name_scope_severity_status_message_failures_log_and_ms() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, &[-1.0]).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    let r = record(&c, "NBP:SPOT:2024-07-01").await;
    let k = &r["checks"][0];
    assert_eq!(
        (
            k["id"].clone(),
            k["name"].clone(),
            k["scope"].clone(),
            k["severity"].clone(),
            k["status"].clone(),
            k["failures"].clone()
        ),
        (
            json!("positive"),
            json!("Positive"),
            json!("point"),
            json!("failed"),
            json!("failed"),
            json!(1)
        )
    );
    let message = k["message"].as_str().unwrap();
    assert!(!message.is_empty(), "{k}");
    assert_eq!(k["log"], json!([message]));
    assert!(k["ms"].as_f64().is_some_and(|ms| ms >= 0.0), "{k}");
}

#[actix_rt::test]
async fn a_tenor_check_reports_the_worst_result_over_the_tenors_and_tenors_failed() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_curve(&c).await;
    run(&c, json!({"target": "TTF:FWD"})).await;
    let r = record(&c, "TTF:FWD:2024-03-01").await;
    let by_id = |id: &str| {
        r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["id"] == id)
            .unwrap()
            .clone()
    };
    let positive = by_id("positive");
    assert_eq!(
        (
            positive["status"].clone(),
            positive["tenorsFailed"].clone(),
            positive["scope"].clone()
        ),
        (json!("failed"), json!(1), json!("tenor"))
    );
    assert!(
        positive["message"].as_str().unwrap().starts_with("M02: "),
        "{positive}"
    );
    let small = by_id("small");
    assert_eq!(
        (small["status"].clone(), small["tenorsFailed"].clone()),
        (json!("warning"), json!(1))
    );
}

#[actix_rt::test]
async fn message_summarises_the_record() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, &[10.0, -1.0]).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let ok = record(&c, "NBP:SPOT:2024-07-01").await;
    let bad = record(&c, "NBP:SPOT:2024-07-02").await;
    assert_eq!(ok["message"], "all 1 checks passed");
    let m = bad["message"].as_str().unwrap();
    assert!(m.contains("positive"), "{m}");
}

#[actix_rt::test]
async fn a_curve_record_lists_its_tenors_failed_and_warning_tenors_counts_and_contracts() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_curve(&c).await;
    run(&c, json!({"target": "TTF:FWD"})).await;
    let r = record(&c, "TTF:FWD:2024-03-01").await;
    assert_eq!(r["contracts"], 3);
    assert_eq!(r["failedTenors"], json!(["M02"]));
    assert_eq!(r["warningTenors"], json!(["M03"]));
    assert_eq!(
        r["tenorCounts"],
        json!({"valid": 1, "failed": 1, "warning": 1})
    );
    let tenors = r["tenors"].as_array().unwrap();
    let m02 = tenors.iter().find(|t| t["tenor"] == "M02").unwrap();
    assert_eq!(
        (m02["value"].clone(), m02["status"].clone()),
        (json!(-1.0), json!("failed"))
    );
    assert!(!m02["message"].as_str().unwrap().is_empty(), "{m02}");
    let statuses: Vec<(Value, Value)> = m02["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            assert!(k["message"].is_string(), "{k}");
            (k["id"].clone(), k["status"].clone())
        })
        .collect();
    assert_eq!(
        statuses,
        [
            (json!("positive"), json!("failed")),
            (json!("small"), json!("valid"))
        ]
    );
    let m01 = tenors.iter().find(|t| t["tenor"] == "M01").unwrap();
    assert_eq!(
        (m01["status"].clone(), m01["message"].clone()),
        (json!("valid"), json!(""))
    );
}

#[actix_rt::test]
async fn override_holds_reason_user_timestamp_and_the_status_overridden() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client_of("acme", "ann", Role::Writer);
    checked_series(&c, &[-1.0]).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    s.advance(600);
    c.post(
        "/validation/v1?_function=override",
        json!({"ids": ["NBP:SPOT:2024-07-01"], "reason": "known outage"}),
    )
    .await;
    let r = record(&c, "NBP:SPOT:2024-07-01").await;
    assert_eq!(
        r["override"],
        json!({"reason": "known outage", "user": "ann", "timestamp": "2024-07-08T12:10:00.000Z", "status": "failed"})
    );
}

#[actix_rt::test]
async fn runs_first_run_last_run_last_run_by_and_last_origin_tell_how_often_when_and_how_it_was_checked(
) {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let ann = s.client_of("acme", "ann", Role::Writer);
    let bob = s.client_of("acme", "bob", Role::Writer);
    checked_series(&ann, &[10.0]).await;
    run(&ann, json!({"target": "NBP:SPOT"})).await;
    s.advance(3600);
    run(&bob, json!({"target": "NBP:SPOT"})).await;
    let r = record(&ann, "NBP:SPOT:2024-07-01").await;
    assert_eq!(
        (
            r["runs"].clone(),
            r["firstRun"].clone(),
            r["lastRun"].clone(),
            r["lastRunBy"].clone(),
            r["lastOrigin"].clone()
        ),
        (
            json!(2),
            json!("2024-07-08T12:00:00.000Z"),
            json!("2024-07-08T13:00:00.000Z"),
            json!("bob"),
            json!("manual")
        )
    );
    // A background run is of origin background.
    let bg = run(
        &ann,
        json!({"target": "NBP:SPOT", "from": "2024-07-01", "background": true}),
    )
    .await;
    assert_eq!(bg["background"], true, "{bg}");
    assert!(s.platform.jobs().run_next().unwrap());
    let r = record(&ann, "NBP:SPOT:2024-07-01").await;
    assert_eq!(
        (r["runs"].clone(), r["lastOrigin"].clone()),
        (json!(3), json!("background"))
    );
}

#[actix_rt::test]
async fn open_since_is_when_it_started_failing_and_resolved_at_resolution_and_resolve_minutes_when_it_stopped(
) {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    checked_series(&c, &[-1.0, 5.0]).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let open = record(&c, "NBP:SPOT:2024-07-01").await;
    assert_eq!(open["openSince"], "2024-07-08T12:00:00.000Z");
    assert!(open.get("resolvedAt").is_none(), "{open}");
    // Open issues only.
    assert!(record(&c, "NBP:SPOT:2024-07-02")
        .await
        .get("openSince")
        .is_none());
    s.advance(45 * 60);
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01", "value": 3}]}}))
        .await;
    run(&c, json!({"target": "NBP:SPOT", "point": "2024-07-01"})).await;
    let resolved = record(&c, "NBP:SPOT:2024-07-01").await;
    assert_eq!(
        (
            resolved["resolvedAt"].clone(),
            resolved["resolution"].clone(),
            resolved["resolveMinutes"].clone()
        ),
        (json!("2024-07-08T12:45:00.000Z"), json!("rerun"), json!(45))
    );
    assert!(resolved.get("openSince").is_none(), "{resolved}");
}

#[actix_rt::test]
async fn the_timeline_keeps_the_last_100_events_with_their_fields() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client_of("acme", "ann", Role::Writer);
    checked_series(&c, &[-1.0]).await;
    let id = "NBP:SPOT:2024-07-01";
    run(&c, json!({"target": "NBP:SPOT"})).await;
    c.post(
        "/validation/v1?_function=override",
        json!({"ids": [id], "reason": "outage"}),
    )
    .await;
    c.post(
        "/validation/v1?_function=removeOverride",
        json!({"ids": [id]}),
    )
    .await;
    c.post(
        "/validation/v1?_function=comment",
        json!({"ids": [id], "message": "looking"}),
    )
    .await;
    let r = record(&c, id).await;
    let timeline = r["timeline"].as_array().unwrap();
    let actions: Vec<&str> = timeline
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["run", "override", "override-removed", "comment"]);
    assert_eq!(
        timeline[0],
        json!({"timestamp": "2024-07-08T12:00:00.000Z", "action": "run", "user": "ann", "origin": "manual",
               "status": "failed", "previous": null, "message": "1 of 1 checks did not pass: positive"})
    );
    assert_eq!(
        (
            timeline[1]["status"].clone(),
            timeline[1]["previous"].clone(),
            timeline[1]["message"].clone()
        ),
        (json!("overridden"), json!("failed"), json!("outage"))
    );
    assert_eq!(timeline[3]["message"], "looking");
    for e in timeline {
        for k in [
            "timestamp",
            "action",
            "user",
            "origin",
            "status",
            "previous",
            "message",
        ] {
            assert!(e.get(k).is_some(), "{k} in {e}");
        }
    }
    for i in 0..110 {
        c.post(
            "/validation/v1?_function=comment",
            json!({"ids": [id], "message": format!("note {i}")}),
        )
        .await;
    }
    let timeline = record(&c, id).await["timeline"].as_array().unwrap().clone();
    assert_eq!(timeline.len(), 100);
    assert_eq!(
        (
            timeline[0]["message"].clone(),
            timeline[99]["message"].clone()
        ),
        (json!("note 10"), json!("note 109"))
    );
}

#[actix_rt::test]
async fn the_timeline_also_shows_sent_as_failing_and_sent_as_validated() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let admin = s.client(Role::Admin);
    checked_series(&admin, &[-1.0, 5.0]).await;
    for action in ["invalid", "validated"] {
        let r = admin
            .post("/automation/v1", json!({"target": "platform.email", "properties": {"to": "ops@example.com", "subject": action},
                "conditions": [{"source": "private", "service": "data", "id": "NBP:SPOT", "action": action}]}))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    run(&admin, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let actions = |r: &Value| -> Vec<String> {
        r["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["action"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        actions(&record(&admin, "NBP:SPOT:2024-07-01").await),
        ["run", "sent-as-failing"]
    );
    assert_eq!(
        actions(&record(&admin, "NBP:SPOT:2024-07-02").await),
        ["run", "sent-as-validated"]
    );
}

#[actix_rt::test]
async fn records_are_written_only_by_the_platform() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Admin);
    checked_series(&c, &[-1.0]).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    let id = "NBP:SPOT:2024-07-01";
    c.post("/validation/v1", json!({"_id": id, "status": "valid"}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    c.post(
        "/validation/v1?_function=save",
        json!({"_id": id, "status": "valid"}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
        c.method(method, &format!("/validation/v1/{id}"))
            .await
            .assert_error(405, "METHOD_NOT_ALLOWED");
    }
    let r = record(&c, id).await;
    assert_eq!(
        (r["status"].clone(), r["runs"].clone()),
        (json!("failed"), json!(1))
    );
    assert_eq!(c.get("/validation/v1").await.total(), 1);
}
