//! Validation record states (valid, warning, failed, severe, error, skipped, overridden) and
//! every row of their table: run, override, removeOverride, comment; the transitions the
//! interface does not show, as decided; and the quality status written to the data.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// Checks giving each status: `Positive` fails below 0, `Small` warns at 100 or more, `Cap` is
/// severe at 500 or more, `Seven` answers a number (an error) for the value 7; a missing
/// value skips them all.
const CHECKS: &str = r#"[
    {"name": "Positive", "expression": "value > 0"},
    {"name": "Small", "expression": "value < 100", "severity": "warning"},
    {"name": "Cap", "expression": "value < 500", "severity": "severe"},
    {"name": "Seven", "expression": "if value != 7.0 { true } else { 0 }"}
]"#;

/// A daily series `NBP:SPOT` from 2024-07-01 and its configuration with [`CHECKS`].
async fn setup(c: &Client<'_>, values: &[Value], options: Value) {
    let data: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"time": format!("2024-07-{:02}", i + 1), "value": v}))
        .collect();
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}))
        .await;
    let checks: Value = serde_json::from_str(CHECKS).unwrap();
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": checks, "options": options}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

async fn set_value(c: &Client<'_>, day: u32, value: f64) {
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": format!("2024-07-{day:02}"), "value": value}]}}))
        .await;
}

async fn run(c: &Client<'_>, body: Value) -> Value {
    let r = c.post("/validation/v1?_function=run", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

async fn record(c: &Client<'_>, day: u32) -> Value {
    let r = c
        .get(&format!("/validation/v1/NBP:SPOT:2024-07-{day:02}"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

async fn function(c: &Client<'_>, name: &str, body: Value) -> Value {
    let r = c
        .post(&format!("/validation/v1?_function={name}"), body)
        .await;
    assert_eq!(r.status, 200, "{name}: {:?}", r.body);
    r.body
}

fn actions(r: &Value) -> Vec<String> {
    r["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_string())
        .collect()
}

fn id(day: u32) -> String {
    format!("NBP:SPOT:2024-07-{day:02}")
}

/// valid, warning, failed, severe, error, skipped.
fn every_status() -> Vec<Value> {
    vec![
        json!(10),
        json!(150),
        json!(-1),
        json!(600),
        json!(7),
        Value::Null,
    ]
}

#[actix_rt::test]
async fn a_run_sets_the_status_from_the_results_and_checked_status() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(&c, &every_status(), json!({})).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let want = ["valid", "warning", "failed", "severe", "error", "skipped"];
    for (day, status) in (1..=6).zip(want) {
        let r = record(&c, day).await;
        assert_eq!(
            (
                r["status"].clone(),
                r["checkedStatus"].clone(),
                r["runs"].clone(),
                actions(&r)
            ),
            (
                json!(status),
                json!(status),
                json!(1),
                vec!["run".to_string()]
            ),
            "day {day}: {r}"
        );
    }
}

#[actix_rt::test]
async fn a_run_increases_runs_adds_a_run_to_the_timeline_and_sets_open_since_when_it_starts_failing(
) {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(&c, &[json!(10)], json!({})).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    assert!(record(&c, 1).await.get("openSince").is_none());
    s.advance(600);
    set_value(&c, 1, -1.0).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    let r = record(&c, 1).await;
    assert_eq!(
        (
            r["status"].clone(),
            r["runs"].clone(),
            r["openSince"].clone()
        ),
        (json!("failed"), json!(2), json!("2024-07-08T12:10:00.000Z"))
    );
    assert_eq!(actions(&r), ["run", "run"]);
    assert_eq!(
        (
            r["timeline"][1]["status"].clone(),
            r["timeline"][1]["previous"].clone()
        ),
        (json!("failed"), json!("valid"))
    );
    // Failing again: still open since it started.
    s.advance(600);
    run(&c, json!({"target": "NBP:SPOT"})).await;
    let r = record(&c, 1).await;
    assert_eq!(
        (r["runs"].clone(), r["openSince"].clone()),
        (json!(3), json!("2024-07-08T12:10:00.000Z"))
    );
}

#[actix_rt::test]
async fn a_run_that_stops_the_failure_sets_resolved_at_and_resolution_rerun() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(&c, &[json!(-1)], json!({})).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    s.advance(1800);
    set_value(&c, 1, 5.0).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    let r = record(&c, 1).await;
    assert_eq!(
        (
            r["status"].clone(),
            r["resolvedAt"].clone(),
            r["resolution"].clone(),
            r.get("openSince").cloned()
        ),
        (
            json!("valid"),
            json!("2024-07-08T12:30:00.000Z"),
            json!("rerun"),
            None
        )
    );
}

#[actix_rt::test]
async fn override_with_a_reason_moves_failed_severe_and_error_to_overridden() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client_of("acme", "ann", Role::Writer);
    setup(&c, &every_status(), json!({})).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    // The condition: a reason is given.
    c.post("/validation/v1?_function=override", json!({"ids": [id(3)]}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    assert_eq!(record(&c, 3).await["status"], "failed");
    let out = function(
        &c,
        "override",
        json!({"ids": [id(3), id(4), id(5)], "reason": "exchange outage"}),
    )
    .await;
    for (item, (day, was)) in
        out.as_array()
            .unwrap()
            .iter()
            .zip([(3, "failed"), (4, "severe"), (5, "error")])
    {
        assert_eq!(item["ok"], true, "{item}");
        let r = record(&c, day).await;
        assert_eq!(
            (
                r["status"].clone(),
                r["override"]["status"].clone(),
                r["override"]["reason"].clone(),
                r["override"]["user"].clone(),
                r["resolution"].clone()
            ),
            (
                json!("overridden"),
                json!(was),
                json!("exchange outage"),
                json!("ann"),
                json!("override")
            ),
            "{r}"
        );
        assert_eq!(actions(&r), ["run", "override"]);
    }
}

#[actix_rt::test]
async fn override_leaves_valid_warning_and_skipped_unchanged_and_reports_it() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(&c, &every_status(), json!({})).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let out = function(
        &c,
        "override",
        json!({"ids": [id(1), id(2), id(6)], "reason": "x"}),
    )
    .await;
    for (item, (day, status)) in
        out.as_array()
            .unwrap()
            .iter()
            .zip([(1, "valid"), (2, "warning"), (6, "skipped")])
    {
        assert_eq!(item["ok"], false, "{item}");
        assert!(
            item["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{item}"
        );
        let r = record(&c, day).await;
        assert_eq!(
            (r["status"].clone(), r.get("override").cloned(), actions(&r)),
            (json!(status), None, vec!["run".to_string()])
        );
    }
}

#[actix_rt::test]
async fn remove_override_returns_to_the_checked_status_and_a_failing_record_is_newly_failing() {
    // The status after removal is not shown; decisions.md 9: the record takes its last
    // checkedStatus; a failing one gets a new openSince and raises invalid again.
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Admin);
    setup(&c, &[json!(-1)], json!({})).await;
    let r = c
        .post("/automation/v1", json!({"target": "platform.email", "properties": {"to": "ops@example.com", "subject": "invalid"},
            "conditions": [{"service": "data", "id": "NBP:SPOT", "action": "invalid"}]}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    run(&c, json!({"target": "NBP:SPOT"})).await;
    function(&c, "override", json!({"ids": [id(1)], "reason": "outage"})).await;
    s.advance(3600);
    let out = function(&c, "removeOverride", json!({"ids": [id(1)]})).await;
    assert_eq!(out[0]["ok"], true, "{out}");
    let r = record(&c, 1).await;
    assert_eq!(
        (
            r["status"].clone(),
            r["checkedStatus"].clone(),
            r.get("override").cloned(),
            r["openSince"].clone()
        ),
        (
            json!("failed"),
            json!("failed"),
            None,
            json!("2024-07-08T13:00:00.000Z")
        )
    );
    assert_eq!(
        actions(&r),
        [
            "run",
            "sent-as-failing",
            "override",
            "override-removed",
            "sent-as-failing"
        ]
    );
}

#[actix_rt::test]
async fn remove_override_on_a_record_without_one_leaves_it_unchanged_and_reports_it() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(&c, &[json!(-1), json!(10)], json!({})).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let out = function(&c, "removeOverride", json!({"ids": [id(1), id(2)]})).await;
    for (item, (day, status)) in out
        .as_array()
        .unwrap()
        .iter()
        .zip([(1, "failed"), (2, "valid")])
    {
        assert_eq!(item["ok"], false, "{item}");
        assert!(
            item["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{item}"
        );
        let r = record(&c, day).await;
        assert_eq!(
            (r["status"].clone(), actions(&r)),
            (json!(status), vec!["run".to_string()])
        );
    }
}

#[actix_rt::test]
async fn a_comment_with_a_message_adds_to_the_timeline_and_changes_no_status() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(&c, &every_status(), json!({})).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    function(&c, "override", json!({"ids": [id(3)], "reason": "outage"})).await;
    c.post("/validation/v1?_function=comment", json!({"ids": [id(1)]}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    let ids: Vec<String> = (1..=6).map(id).collect();
    let out = function(
        &c,
        "comment",
        json!({"ids": ids, "message": "checked by desk"}),
    )
    .await;
    let want = [
        "valid",
        "warning",
        "overridden",
        "severe",
        "error",
        "skipped",
    ];
    for ((day, status), item) in (1..=6).zip(want).zip(out.as_array().unwrap()) {
        assert_eq!(item["ok"], true, "{item}");
        let r = record(&c, day).await;
        assert_eq!(r["status"], status, "{r}");
        let last = r["timeline"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(
            (last["action"].clone(), last["message"].clone()),
            (json!("comment"), json!("checked by desk"))
        );
    }
}

#[actix_rt::test]
async fn an_overridden_record_run_again_on_the_same_data_stays_overridden() {
    // Not shown; docs/decisions.md, "Validation".
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(&c, &[json!(-1)], json!({})).await;
    run(&c, json!({"target": "NBP:SPOT"})).await;
    function(&c, "override", json!({"ids": [id(1)], "reason": "outage"})).await;
    let out = run(&c, json!({"target": "NBP:SPOT"})).await;
    assert_eq!(out["results"][0]["status"], "overridden");
    let r = record(&c, 1).await;
    assert_eq!(
        (
            r["status"].clone(),
            r["checkedStatus"].clone(),
            r["runs"].clone()
        ),
        (json!("overridden"), json!("failed"), json!(2))
    );
    assert_eq!(r["override"]["reason"], "outage");
}

#[actix_rt::test]
async fn an_overridden_record_run_on_changed_data_or_passing_has_its_override_cleared() {
    // Not shown; docs/decisions.md, "Validation": on changed data, or when it passes, the
    // override is cleared (timeline override-cleared).
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(&c, &[json!(-1), json!(-1)], json!({})).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    function(
        &c,
        "override",
        json!({"ids": [id(1), id(2)], "reason": "outage"}),
    )
    .await;
    s.advance(60);
    set_value(&c, 1, -2.0).await;
    set_value(&c, 2, 5.0).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let failing = record(&c, 1).await;
    assert_eq!(
        (
            failing["status"].clone(),
            failing.get("override").cloned(),
            failing["openSince"].clone()
        ),
        (json!("failed"), None, json!("2024-07-08T12:01:00.000Z"))
    );
    assert!(
        actions(&failing).contains(&"override-cleared".to_string()),
        "{failing}"
    );
    let passing = record(&c, 2).await;
    assert_eq!(
        (passing["status"].clone(), passing.get("override").cloned()),
        (json!("valid"), None)
    );
    assert!(
        actions(&passing).contains(&"override-cleared".to_string()),
        "{passing}"
    );
}

#[actix_rt::test]
async fn write_status_writes_the_quality_of_each_record_status_after_runs_and_overrides() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(&c, &every_status(), json!({"writeStatus": true})).await;
    run(&c, json!({"target": "NBP:SPOT", "from": "2024-07-01"})).await;
    let quality = |data: &Value| -> Vec<Value> {
        data["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["status"]["quality"].clone())
            .collect()
    };
    let data = c.get("/data/v1/private/NBP:SPOT").await.body;
    // valid, warning, failed, severe, error, skipped.
    assert_eq!(
        quality(&data),
        [
            json!("VALID"),
            json!("VALID:Warnings"),
            json!("FAILED"),
            json!("FAILED"),
            json!("FAILED"),
            json!("VALID")
        ]
    );
    // After an override: overridden is VALID.
    function(&c, "override", json!({"ids": [id(3)], "reason": "outage"})).await;
    let data = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(quality(&data)[2], "VALID");
    assert_eq!(data["data"][2]["value"], -1.0, "values are not touched");
}

#[actix_rt::test]
async fn a_curve_takes_the_status_of_its_record_and_a_series_observation_that_of_its_own() {
    // docs/decisions.md, "Validation": writeStatus writes into each checked observation of a
    // series, and into every contract of a curve.
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    setup(
        &c,
        &[json!(10), json!(-1), json!(10)],
        json!({"writeStatus": true}),
    )
    .await;
    run(
        &c,
        json!({"target": "NBP:SPOT", "points": ["2024-07-01", "2024-07-02"]}),
    )
    .await;
    let data = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(
        (
            data["data"][0]["status"]["quality"].clone(),
            data["data"][1]["status"]["quality"].clone(),
            data["data"][2].get("status").cloned()
        ),
        (json!("VALID"), json!("FAILED"), None)
    );
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-07-01", "contracts": [
        {"tenor": "M01", "value": 30}, {"tenor": "M02", "value": -1}]}}),
    )
    .await;
    c.post(
        "/validationconfig/v1",
        json!({"_id": "TTF:FWD", "kind": "curve", "options": {"writeStatus": true},
        "checks": [{"name": "Positive", "expression": "value > 0"}]}),
    )
    .await;
    run(&c, json!({"target": "TTF:FWD"})).await;
    let curve = c.get("/data/v1/private/TTF:FWD").await.body;
    let q: Vec<Value> = curve["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["status"]["quality"].clone())
        .collect();
    assert_eq!(
        q,
        [json!("FAILED"), json!("FAILED")],
        "the record of the ondate failed"
    );
}
