//! Data validation over HTTP: configurations, runs, records and their states, overrides,
//! comments, stats, runMany, writeStatus and background jobs.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// A daily series with a spike on the 4th and a negative value on the 6th.
async fn series(c: &Client<'_>) {
    let values = [10.0, 11.0, 10.5, 95.0, 10.8, -1.0, 11.2];
    let data: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"time": format!("2024-07-{:02}", i + 1), "value": v}))
        .collect();
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}})).await;
}

async fn config(c: &Client<'_>, extra: Value) -> Value {
    let mut body = json!({
        "_id": "NBP:SPOT", "kind": "timeseries", "name": "NBP spot", "group": "gas",
        "checks": [
            {"name": "Positive", "expression": "value > 0"},
            {"name": "Range", "expression": "between(value, 0, 50)", "severity": "severe"},
            {"name": "Move", "expression": "abs(pct_change(1)) < 0.5", "severity": "warning"}
        ],
        "options": {"lookback": 5}
    });
    if let (Value::Object(b), Value::Object(e)) = (&mut body, extra) {
        b.extend(e);
    }
    let r = c.post("/validationconfig/v1", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

fn by_id<'a>(results: &'a Value, id: &str) -> &'a Value {
    results
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["_id"] == id)
        .unwrap_or_else(|| panic!("{id} in {results}"))
}

#[actix_rt::test]
async fn configurations_are_versioned_with_defaults_and_ids() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    series(&c).await;
    let saved = config(&c, json!({})).await;
    assert_eq!(saved["_version"], 1);
    assert_eq!(
        (saved["enabled"].clone(), saved["runOnUpdate"].clone()),
        (json!(true), json!(false))
    );
    assert_eq!(
        saved["options"],
        json!({"lookback": 5, "curveHistory": 0, "maxPoints": 1000, "writeStatus": false})
    );
    let ids: Vec<&str> = saved["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["positive", "range", "move"]);
    assert_eq!(saved["checks"][0]["severity"], "failed");
    assert_eq!(saved["checks"][0]["scope"], "point");
    // The same names twice get distinct ids; saving the same again makes no version.
    let again = config(&c, json!({})).await;
    assert_eq!(again["_version"], 1);
    let twice = c.post("/validationconfig/v1", json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [{"name": "A b", "expression": "value > 0"}, {"name": "a-b", "expression": "value < 99"}]})).await;
    let ids: Vec<&str> = twice.body["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["a_b", "a_b_2"]);
    assert_eq!(c.get("/validationconfig/v1/NBP:SPOT/*").await.total(), 2);
    assert_eq!(
        c.get("/validationconfig/v1/NBP:SPOT/1").await.body["checks"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(c.get("/validationconfig/v1").await.total(), 1);
    assert_eq!(
        c.get("/validationconfig/v1/NBP:SPOT").await.body["_version"],
        2
    );
}

#[actix_rt::test]
async fn bad_configurations_are_refused_at_save() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let post = |body: Value| {
        let c = c.clone();
        async move { c.post("/validationconfig/v1", body).await }
    };
    let base = |checks: Value| json!({"_id": "X:Y", "kind": "timeseries", "checks": checks});
    post(json!({"_id": "X:Y", "checks": []}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    let m = post(base(json!([{"name": "typo", "expression": "valeu > 0"}])))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("typo"), "{m}");
    let m = post(base(
        json!([{"name": "fn", "expression": "nosuchfn(value)"}]),
    ))
    .await
    .assert_error(400, "INVALID_BODY");
    assert!(m.contains("nosuchfn"), "{m}");
    post(base(json!([{"name": "num", "expression": "value + 1"}])))
        .await
        .assert_error(400, "INVALID_BODY");
    post(base(
        json!([{"name": "loop", "expression": "while true {}"}]),
    ))
    .await
    .assert_error(400, "INVALID_BODY");
    let many: Vec<Value> = (0..51)
        .map(|i| json!({"name": format!("c{i}"), "expression": "value > 0"}))
        .collect();
    let m = post(base(Value::Array(many)))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("50"), "{m}");
    for options in [
        json!({"lookback": 1001}),
        json!({"curveHistory": 31}),
        json!({"maxPoints": 0}),
        json!({"maxPoints": 5001}),
        json!({"bogus": 1}),
    ] {
        post(json!({"_id": "X:Y", "kind": "timeseries", "options": options}))
            .await
            .assert_error(400, "INVALID_PARAMETER");
    }
    post(json!({"_id": "X:Y", "kind": "curve", "checks": [{"name": "p", "expression": "value > 0", "scope": "point"}]})).await.assert_error(400, "INVALID_BODY");
    post(json!({"_id": "X:Y", "kind": "timeseries", "checks": [{"name": "s", "expression": "value > 0", "severity": "fatal"}]})).await.assert_error(400, "INVALID_BODY");
    post(json!({"_id": "not a data id", "kind": "timeseries"}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert_eq!(c.get("/validationconfig/v1").await.total(), 0);
}

#[actix_rt::test]
async fn a_configuration_with_an_unknown_field_is_refused_and_nothing_is_stored() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // maxPoints at the top level instead of under options would limit nothing.
    let body = json!({"_id": "NBP:SPOT", "kind": "timeseries", "maxPoints": 2,
        "checks": [{"name": "Positive", "expression": "value > 0"}]});
    let r = c.post("/validationconfig/v1", body).await;
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("application/json"),
        "{:?}",
        r.body
    );
    let m = r.assert_error(400, "INVALID_BODY");
    for says in [
        "unknown field \"maxPoints\"",
        "it belongs under options",
        "its fields are _id, kind, name, description, group, tags, enabled, runOnUpdate, scripts, checks, options",
    ] {
        assert!(m.contains(says), "{says} in {m}");
    }
    c.get("/validationconfig/v1/NBP:SPOT")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(c.get("/validationconfig/v1").await.total(), 0);
    // A check's unknown field likewise; under options, maxPoints saves and applies.
    let typo = json!({"_id": "NBP:SPOT", "kind": "timeseries",
        "checks": [{"name": "Positive", "expression": "value > 0", "severty": "warning"}]});
    let m = c
        .post("/validationconfig/v1", typo)
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("checks[0]: unknown field \"severty\""), "{m}");
    assert_eq!(c.get("/validationconfig/v1").await.total(), 0);
    let body = json!({"_id": "NBP:SPOT", "kind": "timeseries", "options": {"maxPoints": 2},
        "checks": [{"name": "Positive", "expression": "value > 0"}]});
    let r = c.post("/validationconfig/v1", body).await;
    assert_eq!(r.body["options"]["maxPoints"], 2, "{:?}", r.body);
}

#[actix_rt::test]
async fn runs_store_records_and_test_stores_nothing() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({})).await;
    let test = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-07"}),
        )
        .await;
    assert_eq!(test.status, 200, "{:?}", test.body);
    assert_eq!(
        (
            test.body["test"].clone(),
            test.body["points"].clone(),
            test.body["records"].clone()
        ),
        (json!(true), json!(7), json!(0))
    );
    assert_eq!(
        c.get("/validation/v1").await.total(),
        0,
        "test stores nothing"
    );
    let run = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-07"}),
        )
        .await;
    assert_eq!(run.status, 200, "{:?}", run.body);
    let results = &run.body["results"];
    // The first point has no earlier one: its move check is skipped (and the point valid).
    assert_eq!(
        run.body["counts"],
        json!({"valid": 3, "warning": 2, "severe": 2})
    );
    let first = by_id(results, "NBP:SPOT:2024-07-01");
    let first_move = first["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == "move")
        .unwrap();
    assert_eq!(
        (first["status"].clone(), first_move["status"].clone()),
        (json!("valid"), json!("skipped"))
    );
    assert_eq!(
        first_move["message"],
        "pct_change(1) needs 1 earlier point; none before 2024-07-01T00:00:00Z"
    );
    // The point's message counts the skipped check apart from the two that passed, in the
    // run's answer and in the stored record.
    assert_eq!(first["message"], "2 checks passed, 1 skipped");
    let stored = c.get("/validation/v1/NBP:SPOT:2024-07-01").await;
    assert_eq!(
        stored.body["message"], "2 checks passed, 1 skipped",
        "{:?}",
        stored.body
    );
    assert_eq!(
        by_id(results, "NBP:SPOT:2024-07-02")["message"],
        "all 3 checks passed"
    );
    let spike = by_id(results, "NBP:SPOT:2024-07-04");
    assert_eq!(spike["status"], "severe");
    assert_eq!(spike["value"], 95.0);
    let checks = spike["checks"].as_array().unwrap();
    assert_eq!(
        checks.iter().find(|k| k["id"] == "range").unwrap()["status"],
        "severe"
    );
    assert_eq!(
        checks.iter().find(|k| k["id"] == "move").unwrap()["status"],
        "warning"
    );
    assert_eq!(
        by_id(results, "NBP:SPOT:2024-07-06")["status"],
        "severe",
        "negative: failed and outside the range"
    );
    assert_eq!(
        by_id(results, "NBP:SPOT:2024-07-05")["status"],
        "warning",
        "the fall after the spike"
    );
    assert_eq!(by_id(results, "NBP:SPOT:2024-07-02")["status"], "valid");
    for key in [
        "target",
        "kind",
        "test",
        "points",
        "records",
        "counts",
        "truncated",
        "timings",
        "message",
        "results",
    ] {
        assert!(run.body.get(key).is_some(), "{key} in {:?}", run.body);
    }
    // The record holds every field of the interface's table.
    let rec = c.get("/validation/v1/NBP:SPOT:2024-07-04").await.body;
    for key in [
        "_id",
        "target",
        "name",
        "kind",
        "group",
        "point",
        "pointDate",
        "value",
        "status",
        "checkedStatus",
        "checks",
        "message",
        "runs",
        "firstRun",
        "lastRun",
        "lastRunBy",
        "lastOrigin",
        "openSince",
        "timeline",
    ] {
        assert!(rec.get(key).is_some(), "{key} in {rec}");
    }
    assert_eq!(
        (
            rec["name"].clone(),
            rec["group"].clone(),
            rec["lastOrigin"].clone()
        ),
        (json!("NBP spot"), json!("gas"), json!("manual"))
    );
    // No points: the latest observation only.
    let latest = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT"}),
        )
        .await;
    assert_eq!(latest.body["points"], 1);
    assert_eq!(latest.body["results"][0]["point"], "2024-07-07");
    // test takes at most 100 points.
    let many: Vec<String> = (0..101).map(|_| "2024-07-01".to_string()).collect();
    c.post(
        "/validation/v1?_function=test",
        json!({"target": "NBP:SPOT", "points": many}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    // A target without a configuration, a missing point, unreadable data.
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "NBP:OTHER"}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "NBP:SPOT", "point": "2024-06-01"}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    c.post("/validationconfig/v1", json!({"_id": "GONE:SPOT", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]})).await;
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "GONE:SPOT"}),
        )
        .await;
    let m = r.assert_error(404, "NOT_FOUND");
    assert!(m.contains("cannot be read"), "{m}");
}

#[actix_rt::test]
async fn record_states_open_resolve_override_and_comment() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({})).await;
    let run = |point: &str| {
        let c = c.clone();
        let point = point.to_string();
        async move {
            c.post(
                "/validation/v1?_function=run",
                json!({"target": "NBP:SPOT", "point": point}),
            )
            .await
            .body
        }
    };
    let id = "NBP:SPOT:2024-07-06";
    let first = run("2024-07-06").await;
    assert_eq!(
        (
            first["results"][0]["status"].clone(),
            first["results"][0]["previous"].clone()
        ),
        (json!("severe"), Value::Null)
    );
    let rec = c.get(&format!("/validation/v1/{id}")).await.body;
    assert!(rec["openSince"].is_string());
    // The same failing data again: runs counts it, the issue stays open.
    run("2024-07-06").await;
    assert_eq!(c.get(&format!("/validation/v1/{id}")).await.body["runs"], 2);
    // Override: only failing records; a reason is required.
    let r = c
        .post(
            "/validation/v1?_function=override",
            json!({"ids": [id, "NBP:SPOT:2024-07-02", "nope"], "reason": "exchange outage"}),
        )
        .await;
    // (2024-07-02 has no record yet: not run.)
    assert_eq!(r.body[0]["ok"], true, "{:?}", r.body);
    assert_eq!(r.body[1]["ok"], false);
    assert_eq!(r.body[2]["ok"], false);
    c.post("/validation/v1?_function=override", json!({"ids": [id]}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    let rec = c.get(&format!("/validation/v1/{id}")).await.body;
    assert_eq!(rec["status"], "overridden");
    assert_eq!(rec["override"]["reason"], "exchange outage");
    assert_eq!(rec["override"]["status"], "severe");
    assert_eq!(rec["resolution"], "override");
    assert!(rec.get("openSince").is_none());
    // A valid record cannot be overridden.
    run("2024-07-02").await;
    let r = c
        .post(
            "/validation/v1?_function=override",
            json!({"ids": ["NBP:SPOT:2024-07-02"], "reason": "x"}),
        )
        .await;
    assert_eq!(r.body[0]["ok"], false);
    assert!(r.body[0]["message"]
        .as_str()
        .unwrap()
        .contains("not failing"));
    // Re-running the same data keeps the override.
    assert_eq!(
        run("2024-07-06").await["results"][0]["status"],
        "overridden"
    );
    // removeOverride goes back to the checked status and reopens.
    let r = c
        .post(
            "/validation/v1?_function=removeOverride",
            json!({"ids": [id, "NBP:SPOT:2024-07-02"]}),
        )
        .await;
    assert_eq!(
        (r.body[0]["ok"].clone(), r.body[1]["ok"].clone()),
        (json!(true), json!(false))
    );
    let rec = c.get(&format!("/validation/v1/{id}")).await.body;
    assert_eq!(rec["status"], "severe");
    assert!(rec["openSince"].is_string());
    // Corrected data resolves it by rerun.
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-06", "value": 11.0}]}})).await;
    assert_eq!(run("2024-07-06").await["results"][0]["status"], "valid");
    let rec = c.get(&format!("/validation/v1/{id}")).await.body;
    assert_eq!(rec["resolution"], "rerun");
    assert!(rec["resolveMinutes"].is_number());
    // Comments go to the timeline, which keeps 100 entries.
    for i in 0..120 {
        c.post(
            "/validation/v1?_function=comment",
            json!({"ids": [id], "message": format!("note {i}")}),
        )
        .await;
    }
    c.post("/validation/v1?_function=comment", json!({"ids": [id]}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    let rec = c.get(&format!("/validation/v1/{id}")).await.body;
    let timeline = rec["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), 100);
    assert_eq!(timeline[99]["message"], "note 119");
    assert_eq!(timeline[99]["action"], "comment");
    let ids: Vec<String> = (0..501).map(|i| format!("x{i}")).collect();
    c.post(
        "/validation/v1?_function=comment",
        json!({"ids": ids, "message": "m"}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
}

async fn curve(c: &Client<'_>, ondate: &str, m01: f64, with_q: bool) {
    let mut contracts = vec![
        json!({"tenor": "M01", "value": m01}),
        json!({"tenor": "M02", "value": 31.0}),
    ];
    if with_q {
        contracts.push(json!({"tenor": "Q01", "value": -5.0}));
    }
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate, "contracts": contracts}})).await;
}

#[actix_rt::test]
async fn curves_get_tenor_and_curve_checks() {
    let s = TestServer::at("2024-03-10T12:00:00Z");
    let c = s.client(Role::Writer);
    curve(&c, "2024-03-01", 30.0, true).await;
    curve(&c, "2024-03-04", 45.0, true).await;
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "TTF:FWD", "kind": "curve", "checks": [
                {"name": "Positive", "expression": "value > 0"},
                {"name": "Day move", "expression": "abs(tenor_pct_change(1)) < 0.2", "severity": "warning"},
                {"name": "Has Q01", "expression": "has_tenor(\"Q01\")", "scope": "curve"}
            ], "options": {"curveHistory": 1}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let run = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "TTF:FWD", "ondate": "2024-03-04"}),
        )
        .await;
    assert_eq!(run.status, 200, "{:?}", run.body);
    let rec = &run.body["results"][0];
    assert_eq!(rec["_id"], "TTF:FWD:2024-03-04");
    assert_eq!(rec["status"], "failed");
    assert_eq!(rec["failedTenors"], json!(["Q01"]));
    assert_eq!(rec["warningTenors"], json!(["M01"]));
    assert_eq!(rec["contracts"], 3);
    assert_eq!(
        rec["tenorCounts"],
        json!({"warning": 1, "valid": 1, "failed": 1})
    );
    let positive = rec["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == "positive")
        .unwrap();
    assert_eq!(
        (positive["status"].clone(), positive["tenorsFailed"].clone()),
        (json!("failed"), json!(1))
    );
    let has_q = rec["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == "has_q01")
        .unwrap();
    assert_eq!(has_q["status"], "valid");
    let tenors = rec["tenors"].as_array().unwrap();
    assert_eq!(tenors.len(), 3);
    // Records can be filtered on failedTenors with a JSON filter, sorted and paged.
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "TTF:FWD", "ondate": "2024-03-01"}),
    )
    .await;
    let f = c
        .get(
            "/validation/v1?_filter=%7B%22failedTenors%22%3A%22Q01%22%7D&_sort=-pointDate&_limit=1",
        )
        .await;
    assert_eq!(f.total(), 2);
    assert_eq!(f.body[0]["_id"], "TTF:FWD:2024-03-04");
    // Only some tenors.
    let only = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": "TTF:FWD", "ondate": "2024-03-04", "tenors": ["M02"]}),
        )
        .await;
    assert_eq!(
        only.body["results"][0]["tenors"].as_array().unwrap().len(),
        1
    );
    // The newest ondate by default; a curve without Q01 fails the curve check.
    curve(&c, "2024-03-05", 45.0, false).await;
    let latest = c
        .post("/validation/v1?_function=run", json!({"target": "TTF:FWD"}))
        .await;
    let rec = &latest.body["results"][0];
    assert_eq!(rec["point"], "2024-03-05");
    assert_eq!(
        rec["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["id"] == "has_q01")
            .unwrap()["status"],
        "failed"
    );
}

#[actix_rt::test]
async fn write_status_marks_the_data() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({"options": {"lookback": 5, "writeStatus": true}})).await;
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "NBP:SPOT", "from": "2024-07-03", "to": "2024-07-06"}),
    )
    .await;
    let data = c.get("/data/v1/private/NBP:SPOT").await.body;
    let q = |day: usize| data["data"][day - 1]["status"]["quality"].clone();
    assert_eq!(
        (q(3), q(4), q(5), q(6)),
        (
            json!("VALID"),
            json!("FAILED"),
            json!("VALID:Warnings"),
            json!("FAILED")
        )
    );
    assert!(
        data["data"][0].get("status").is_none(),
        "points not run keep their status"
    );
    assert_eq!(data["data"][3]["value"], 95.0, "values are untouched");
    // Curves take the status of their record.
    curve(&c, "2024-03-01", 30.0, true).await;
    c.post("/validationconfig/v1", json!({"_id": "TTF:FWD", "kind": "curve", "checks": [{"name": "p", "expression": "value > 0"}], "options": {"writeStatus": true}})).await;
    c.post("/validation/v1?_function=run", json!({"target": "TTF:FWD"}))
        .await;
    let fwd = c.get("/data/v1/private/TTF:FWD").await.body;
    assert_eq!(fwd["contracts"][0]["status"]["quality"], "FAILED");
}

#[actix_rt::test]
async fn run_many_and_stats() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({})).await;
    let r = c
        .post(
            "/validation/v1?_function=runMany",
            json!({"targets": ["NBP:SPOT", "NBP:NOCONFIG"], "point": "2024-07-04"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["targets"], 2);
    assert_eq!(r.body["results"][0]["status"], "severe");
    assert_eq!(r.body["results"][0]["ids"], json!(["NBP:SPOT:2024-07-04"]));
    assert_eq!(r.body["results"][1]["error"], "no validation");
    let stats = c.get("/validation/v1?_function=stats").await.body;
    for key in [
        "totals", "targets", "byStatus", "byKind", "byDay", "byTarget", "byCheck", "open",
        "resolved", "activity", "configs",
    ] {
        assert!(stats.get(key).is_some(), "{key} in {stats}");
    }
    assert_eq!(stats["byStatus"]["severe"], 1);
    assert_eq!(stats["open"][0]["_id"], "NBP:SPOT:2024-07-04");
    assert_eq!(stats["configs"]["count"], 1);
    let filtered = c
        .get("/validation/v1?_function=stats&from=2024-07-05")
        .await
        .body;
    assert_eq!(filtered["totals"]["records"], 0);
    // More than 25 targets go to the background.
    let targets: Vec<String> = (0..26).map(|i| format!("NBP:S{i}")).collect();
    let bg = c
        .post(
            "/validation/v1?_function=runMany",
            json!({"targets": targets}),
        )
        .await;
    assert_eq!(bg.body["background"], true);
}

#[actix_rt::test]
async fn large_runs_go_to_background_jobs() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({"options": {"maxPoints": 3, "lookback": 5}})).await;
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-07"}),
        )
        .await;
    assert_eq!(r.body["background"], true, "{:?}", r.body);
    let jobs = c.get("/validation/v1?_function=jobs").await.body;
    assert_eq!(jobs[0]["status"], "queued");
    assert!(jobs[0].get("payload").is_none());
    assert_eq!(c.get("/validation/v1").await.total(), 0);
    assert!(s.platform.jobs().run_next().unwrap());
    let jobs = c.get("/validation/v1?_function=jobs").await.body;
    assert_eq!(jobs[0]["status"], "done", "{jobs}");
    assert_eq!(jobs[0]["progress"], 100);
    assert_eq!(c.get("/validation/v1").await.total(), 7);
    let rec = c.get("/validation/v1/NBP:SPOT:2024-07-04").await.body;
    assert_eq!(rec["lastOrigin"], "background");
    assert!(!s.platform.jobs().run_next().unwrap());
}

#[actix_rt::test]
async fn a_run_asked_to_wait_answers_its_result_when_the_job_ends_in_time() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({"options": {"maxPoints": 3, "lookback": 5}})).await;
    let body = json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-07"});
    // No worker runs the job within 1 s: the queued answer.
    let r = c
        .post("/validation/v1?_function=run&_wait=1", body.clone())
        .await;
    assert_eq!(r.body["background"], true, "{:?}", r.body);
    // A worker that takes 300 ms to come by: the answer is the run's result.
    let platform = s.platform.clone();
    let worker = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        while platform.jobs().run_next().unwrap() {}
    });
    let r = c.post("/validation/v1?_function=run&_wait=10", body).await;
    worker.join().unwrap();
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body.get("background"), None, "{:?}", r.body);
    assert_eq!(r.body["points"], 7, "{:?}", r.body);
    assert!(r.body["counts"].is_object(), "{:?}", r.body);
    // A wait out of bounds is refused, and nothing is queued.
    let jobs = c.get("/validation/v1?_function=jobs").await.body;
    for bad in ["61", "-1", "soon", "5&_delay=100"] {
        c.post(
            &format!("/validation/v1?_function=run&_wait={bad}"),
            json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-07"}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    }
    assert_eq!(c.get("/validation/v1?_function=jobs").await.body, jobs);
}

#[actix_rt::test]
async fn status_failing_finds_every_failing_record_and_failed_only_failed_ones() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({"options": {"lookback": 5}})).await;
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-07"}),
        )
        .await;
    assert_eq!(
        r.body["counts"],
        json!({"severe": 2, "valid": 3, "warning": 2}),
        "{:?}",
        r.body
    );
    let total = |q: &'static str| {
        let c = &c;
        async move { c.get(&format!("/validation/v1?{q}")).await.total() }
    };
    // failed is that status alone; failing is what --fail-on failed counts.
    assert_eq!(total("status=failed").await, 0);
    assert_eq!(total("status=severe").await, 2);
    assert_eq!(total("status=failing").await, 2);
    assert_eq!(total("status=in(failing,warning)").await, 4);
    assert_eq!(total("status=ne(failing)").await, 5);
    let ids: Vec<String> = c
        .get("/validation/v1?status=failing")
        .await
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["severe", "severe"]);
    // Records by id: those named, with the other filters too.
    let named = c
        .get("/validation/v1?_id=NBP:SPOT:2024-07-04&_id=NBP:SPOT:2024-07-06&_id=NBP:SPOT:1999-01-01")
        .await;
    assert_eq!(named.status, 200, "{:?}", named.body);
    let ids: Vec<&str> = named
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["NBP:SPOT:2024-07-04", "NBP:SPOT:2024-07-06"]);
    assert_eq!(total("_id=NBP:SPOT:2024-07-04&status=valid").await, 0);
    // What records cannot take is refused, not ignored.
    for q in ["_asof=2024-07-01T00:00:00Z", "_searchinfo=NBP"] {
        c.get(&format!("/validation/v1?{q}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
    }
}

#[test]
fn background_jobs_survive_a_restart() {
    use platform_core::store::Store;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let (user_token, job_id) = {
        let platform = platform_core::Platform::open(&db).unwrap();
        let who = platform.tenancy().local_principal("acme", "ann").unwrap();
        let data: Vec<Value> = (1..=7)
            .map(|d| json!({"time": format!("2024-07-{d:02}"), "value": d}))
            .collect();
        platform.objects().save(&who, platform_core::store::Collection::Object, json!({"_id": "A", "S": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}), &Default::default()).unwrap();
        platform.objects().save(&who, platform_core::store::Collection::ValidationConfig, json!({"_id": "A:S", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 3"}], "options": {"maxPoints": 2}}), &Default::default()).unwrap();
        let req = platform_core::api::validation::ValidationRequest::from_body(
            &json!({"target": "A:S", "from": "2024-07-01", "to": "2024-07-07"}),
        )
        .unwrap();
        let out = platform.validation().run(&who, &req).unwrap();
        let platform_core::api::validation::RunOutcome::Queued(queued) = out else {
            panic!("a run over maxPoints is queued: {out:?}");
        };
        (who, queued.job)
    };
    // The server stopped while the job was running: it is marked running in the file.
    {
        let store = platform_core::store::sqlite::SqliteStore::open(&db).unwrap();
        let scope = user_token.private_scope();
        let mut job = store.read().unwrap().job(&scope, &job_id).unwrap().unwrap();
        job.insert("status".into(), json!("running"));
        let mut tx = store.write().unwrap();
        tx.put_job(&scope, &job).unwrap();
        tx.commit().unwrap();
    }
    let platform = platform_core::Platform::open(&db).unwrap();
    assert_eq!(platform.jobs().requeue_interrupted().unwrap(), 1);
    assert!(platform.jobs().run_next().unwrap());
    let jobs = platform.jobs().jobs(&user_token).unwrap();
    assert_eq!(jobs[0].status.as_str(), "done", "{jobs:?}");
    let failing = platform
        .validation()
        .records(
            &user_token,
            &platform_core::documents::ListRequest::from_params(
                &platform_core::query::Params::from_slice(&[("status", "failed")]),
            )
            .unwrap(),
        )
        .unwrap();
    assert_eq!(failing.total, 3);
}

#[actix_rt::test]
async fn a_hostile_check_errors_and_the_server_keeps_serving() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    series(&c).await;
    let lib = c
        .post(
            "/script/v1",
            json!({"_id": "deep", "script": "fn down(n) { down(n + 1) }"}),
        )
        .await;
    assert_eq!(lib.status, 200, "{:?}", lib.body);
    let r = c.post("/validation/v1?_function=test", json!({"config": {"_id": "NBP:SPOT", "kind": "timeseries", "scripts": ["deep"], "checks": [{"name": "hostile", "expression": "down(0) > 0"}]}})).await;
    // Refused at compile or trial, or run as an error: never a hang or a crash.
    assert!(
        r.status == 400 || r.body["results"][0]["status"] == "error",
        "{:?}",
        r.body
    );
    config(&c, json!({})).await;
    let normal = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": "NBP:SPOT"}),
        )
        .await;
    assert_eq!(normal.status, 200);
}

#[actix_rt::test]
async fn delay_postpones_a_process() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({})).await;
    // A background run with _delay waits until its time comes.
    let r = c
        .post(
            "/validation/v1?_function=run&_delay=60000",
            json!({"target": "NBP:SPOT", "from": "2024-07-01", "background": true}),
        )
        .await;
    assert_eq!(r.body["background"], true, "{:?}", r.body);
    assert!(
        !s.platform.jobs().run_next().unwrap(),
        "not before its time"
    );
    let later = chrono::DateTime::parse_from_rfc3339("2024-07-08T12:01:01Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    s.clock.as_ref().unwrap().set(later);
    assert!(s.platform.jobs().run_next().unwrap());
    // A run of points with _delay goes to the background too: no thread waits for it.
    let r = c
        .post(
            "/validation/v1?_function=run&_delay=300",
            json!({"target": "NBP:SPOT"}),
        )
        .await;
    assert_eq!(r.body["background"], true, "{:?}", r.body);
    assert!(
        !s.platform.jobs().run_next().unwrap(),
        "not before its time"
    );
    s.advance(1);
    assert!(s.platform.jobs().run_next().unwrap());
    c.post(
        "/validation/v1?_function=run&_delay=60001",
        json!({"target": "NBP:SPOT"}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
}

/// Records listed without a filter come in id order, counted from the stored chunks, paged
/// with `_skip` and `_limit`; with a status filter only matching records are counted; a sort
/// on a record field orders them.
#[actix_rt::test]
async fn records_are_listed_in_id_order_with_paging_and_counts() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({})).await;
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": "2024-07-01"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let all = c.get("/validation/v1").await;
    assert_eq!(all.header("x-total-count").as_deref(), Some("7"));
    let ids: Vec<String> = all
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["_id"].as_str().unwrap().to_string())
        .collect();
    let want: Vec<String> = (1..=7)
        .map(|d| format!("NBP:SPOT:2024-07-{d:02}"))
        .collect();
    assert_eq!(ids, want);
    let page = c.get("/validation/v1?_skip=2&_limit=3").await;
    assert_eq!(page.header("x-total-count").as_deref(), Some("7"));
    let ids: Vec<&str> = page
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "NBP:SPOT:2024-07-03",
            "NBP:SPOT:2024-07-04",
            "NBP:SPOT:2024-07-05"
        ]
    );
    // The spike (95) and the negative value fail severely; nothing else is severe.
    let severe = c.get("/validation/v1?status=severe&_sort=-value").await;
    assert_eq!(severe.header("x-total-count").as_deref(), Some("2"));
    let values: Vec<f64> = severe
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [95.0, -1.0]);
    let none = c.get("/validation/v1?status=overridden").await;
    assert_eq!(none.header("x-total-count").as_deref(), Some("0"));
}

/// An answer's body as the server wrote it (the JSON keeps its order), every `ms` (the time a
/// call or a check took) 0.
fn written(mut body: Value) -> String {
    fn zero_ms(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "ms" {
                        *x = json!(0);
                    } else {
                        zero_ms(x);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(zero_ms),
            _ => {}
        }
    }
    zero_ms(&mut body);
    serde_json::to_string(&body).unwrap()
}

#[actix_rt::test]
async fn record_answers_keep_their_bytes_and_a_reader_is_refused_before_the_body() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    series(&c).await;
    config(&c, json!({})).await;
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": "2024-07-05", "to": "2024-07-06"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let record = c.get("/validation/v1/NBP:SPOT:2024-07-06").await;
    assert_eq!(
        written(record.body),
        concat!(
            r#"{"_id":"NBP:SPOT:2024-07-06","target":"NBP:SPOT","name":"NBP spot","group":"gas","#,
            r#""tags":null,"kind":"timeseries","point":"2024-07-06","pointDate":"2024-07-06","#,
            r#""value":-1.0,"status":"severe","checkedStatus":"severe","#,
            r#""message":"3 of 3 checks did not pass: positive, range, move","#,
            r#""checks":[{"id":"positive","#,
            r#""name":"Positive","scope":"point","severity":"failed","status":"failed","#,
            r#""message":"value -1, expected > 0","failures":1,"log":["value -1, expected > 0"],"ms":0},"#,
            r#"{"id":"range","name":"Range","scope":"point","severity":"severe","status":"severe","#,
            r#""message":"value -1 outside 0..50","failures":1,"log":["value -1 outside 0..50"],"#,
            r#""ms":0},{"id":"move","name":"Move","scope":"point","#,
            r#""severity":"warning","status":"warning","#,
            r#""message":"abs(pct_change(1)) = 1.09259, expected < 0.5","failures":1,"#,
            r#""log":["abs(pct_change(1)) = 1.09259, expected < 0.5"],"ms":0}],"runs":1,"#,
            r#""firstRun":"2024-07-08T12:00:00.000Z","lastRun":"2024-07-08T12:00:00.000Z","#,
            r#""lastRunBy":"writer-user","lastOrigin":"manual","#,
            r#""openSince":"2024-07-08T12:00:00.000Z","timeline":[{"#,
            r#""timestamp":"2024-07-08T12:00:00.000Z","action":"run","user":"writer-user","#,
            r#""origin":"manual","status":"severe","previous":null,"#,
            r#""message":"3 of 3 checks did not pass: positive, range, move"}]}"#
        )
    );
    // A projection and `_distinct` answer values of the records.
    let r = c.get("/validation/v1?_project=status,value").await;
    assert_eq!(r.total(), 2);
    assert_eq!(
        written(r.body),
        concat!(
            r#"[{"_id":"NBP:SPOT:2024-07-05","status":"warning","value":10.8},"#,
            r#"{"_id":"NBP:SPOT:2024-07-06","status":"severe","value":-1.0}]"#
        )
    );
    let r = c.get("/validation/v1?_distinct=status").await;
    assert_eq!(
        (r.total(), written(r.body)),
        (2, r#"["severe","warning"]"#.into())
    );
    // A reader is refused before anything of the body is read; a writer is told what is
    // wrong with it.
    let reader = s.client(Role::Reader);
    for (function, body) in [
        ("override", json!({})),
        ("removeOverride", json!({"ids": 3})),
        ("comment", json!({"ids": ["NBP:SPOT:2024-07-06"]})),
    ] {
        let path = format!("/validation/v1?_function={function}");
        let message = reader
            .post(&path, body.clone())
            .await
            .assert_error(403, "NOT_AUTHORIZED");
        assert!(
            message.starts_with(&format!(
                "{function} on validation records needs the writer role"
            )),
            "{message}"
        );
        let r = c.post(&path, body).await;
        assert_eq!(r.status, 400, "{function}: {:?}", r.body);
    }
    let r = c
        .post("/validation/v1?_function=override", json!({"ids": 3}))
        .await;
    assert_eq!(
        r.assert_error(400, "INVALID_BODY"),
        "ids must be an array, not a number"
    );
    let r = c
        .post(
            "/validation/v1?_function=override",
            json!({"ids": ["NBP:SPOT:2024-07-06", "NBP:SPOT:2024-07-05", "nope"], "reason": " outage "}),
        )
        .await;
    assert_eq!(
        written(r.body),
        concat!(
            r#"[{"id":"NBP:SPOT:2024-07-06","ok":true,"message":"overridden","status":"overridden"},"#,
            r#"{"id":"NBP:SPOT:2024-07-05","ok":false,"message":"status warning is not failing: nothing to override"},"#,
            r#"{"id":"nope","ok":false,"message":"no such record"}]"#
        )
    );
    let record = c.get("/validation/v1/NBP:SPOT:2024-07-06").await.body;
    assert_eq!(
        serde_json::to_string(&record["override"]).unwrap(),
        r#"{"reason":"outage","user":"writer-user","timestamp":"2024-07-08T12:00:00.000Z","status":"severe"}"#
    );
    let text = written(record);
    assert!(
        text.contains(r#""lastOrigin":"manual","resolvedAt":"2024-07-08T12:00:00.000Z","resolution":"override","resolveMinutes":0,"timeline""#),
        "{text}"
    );
    // The dashboard of a kind that is none counts no record, its configuration still.
    let r = c.get("/validation/v1?_function=stats&kind=cube").await;
    assert_eq!(
        written(r.body),
        concat!(
            r#"{"totals":{"records":0,"targets":0,"open":0,"resolved":0},"targets":0,"#,
            r#""byStatus":{},"byKind":{},"byDay":[],"byTarget":[],"byCheck":[],"open":[],"#,
            r#""resolved":{"count":0,"meanMinutes":null,"byResolution":{}},"activity":[],"#,
            r#""configs":{"count":1,"enabled":1,"runOnUpdate":0}}"#
        )
    );
    let r = c
        .post("/validation/v1?_function=automations", json!({}))
        .await;
    assert_eq!(
        written(r.body),
        r#"{"checked":1,"created":0,"automations":[]}"#
    );
}
