//! Validation over HTTP: checks read the history their expressions ask for (no `lookback`
//! needed), a check whose function lacks history is skipped saying why, and a text value fails
//! a check that needs a number while a check comparing text reads it.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// Hourly Berlin prices around the clock change of 2024-03-31 (02:00 local does not exist; the
/// UTC hours run on): 48 hours from 2024-03-30T00:00Z, one of them (index 40) the text "n/a".
async fn prices(c: &Client<'_>) {
    let data: Vec<Value> = (0..48)
        .map(|i| {
            let time = format!("2024-03-{}T{:02}:00:00Z", 30 + i / 24, i % 24);
            let value = if i == 40 {
                json!("n/a")
            } else {
                json!(50.0 + (i % 5) as f64)
            };
            json!({"time": time, "value": value})
        })
        .collect();
    c.save(
        json!({"_id": "DE", "POWER": {"_type": "VarTimeSeries", "timezone": "Europe/Berlin",
        "calendar": "HOURLY", "data": data}}),
    )
    .await;
}

/// The status and message of check `id` in a result.
fn check(result: &Value, id: &str) -> (String, String) {
    let c = result["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == id)
        .unwrap_or_else(|| panic!("check {id} in {result}"));
    (
        c["status"].as_str().unwrap().to_string(),
        c["message"].as_str().unwrap().to_string(),
    )
}

fn statuses(run: &Value) -> Vec<String> {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap().to_string())
        .collect()
}

#[actix_rt::test]
async fn history_checks_work_as_written_and_text_is_not_a_number() {
    let s = TestServer::at("2024-04-02T12:00:00Z");
    let c = s.client(Role::Writer);
    prices(&c).await;
    // No options: no lookback.
    let saved = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "DE:POWER", "kind": "timeseries", "checks": [
                {"name": "Gap", "expression": "gap() <= 1"},
                {"name": "Level", "expression": "abs(value - mean(3)) < 20"}
            ]}),
        )
        .await;
    assert_eq!(saved.status, 200, "{:?}", saved.body);
    assert_eq!(saved.body["options"]["lookback"], 0);

    // A window from mid-series, over the clock change: every point passes, reading the hours
    // before the window, except the text one.
    let run = |from: &'static str| {
        let c = c.clone();
        async move {
            let r = c
                .post(
                    "/validation/v1?_function=run",
                    json!({"target": "DE:POWER", "from": from, "to": "2024-04-01"}),
                )
                .await;
            assert_eq!(r.status, 200, "{:?}", r.body);
            r.body
        }
    };
    let window = run("2024-03-31T00:00:00Z").await;
    assert_eq!(window["points"], 24, "{window}");
    assert_eq!(
        window["counts"],
        json!({"valid": 23, "failed": 1}),
        "{window}"
    );
    let results = window["results"].as_array().unwrap();
    let text = &results[16];
    assert_eq!(text["value"], "n/a", "{text}");
    assert_eq!(text["status"], "failed");
    assert_eq!(
        check(text, "level"),
        ("failed".into(), "value \"n/a\" is not a number".into())
    );
    // gap() reads no number: it runs on the text point too.
    assert_eq!(check(text, "gap").0, "valid");
    // The hour after: mean(3) leaves the text out, as a missing value.
    assert_eq!(results[17]["status"], "valid", "{}", results[17]);

    // From the start: the genuinely first point has no earlier one and is skipped, saying why;
    // the next two have too few for mean(3) and pass their gap.
    let all = run("2024-03-30").await;
    assert_eq!(all["points"], 48, "{all}");
    assert_eq!(
        all["counts"],
        json!({"skipped": 1, "valid": 46, "failed": 1}),
        "{all}"
    );
    let mut want = vec!["valid".to_string(); 48];
    want[0] = "skipped".into();
    want[40] = "failed".into();
    assert_eq!(statuses(&all), want);
    let results = all["results"].as_array().unwrap();
    assert_eq!(
        check(&results[0], "gap"),
        (
            "skipped".into(),
            "gap() needs 1 earlier point; none before 2024-03-30T00:00:00Z".into()
        )
    );
    assert_eq!(
        check(&results[0], "level"),
        (
            "skipped".into(),
            "mean(3) needs 3 earlier points; none before 2024-03-30T00:00:00Z".into()
        )
    );
    assert_eq!(results[0]["message"], "no check applied (2 skipped)");
    assert_eq!(
        check(&results[2], "level"),
        (
            "skipped".into(),
            "mean(3) needs 3 earlier points; only 2 before 2024-03-30T02:00:00Z".into()
        )
    );
    assert_eq!(check(&results[2], "gap").0, "valid");
    // The records: skipped is no failing status.
    let total = |q: &'static str| {
        let c = c.clone();
        async move { c.get(&format!("/validation/v1?{q}")).await.total() }
    };
    assert_eq!(total("status=skipped").await, 1);
    assert_eq!(total("status=failing").await, 1);
    assert_eq!(total("status=failed").await, 1);
}

#[actix_rt::test]
async fn a_series_of_text_is_checked_as_text() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    let data: Vec<Value> = ["ok", "ok", "stale", "ok"]
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"time": format!("2024-07-{:02}", i + 1), "value": v}))
        .collect();
    c.save(json!({"_id": "FEED", "STATE": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}))
        .await;
    let saved = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "FEED:STATE", "kind": "timeseries", "checks": [
                {"name": "Fresh", "expression": "value == \"ok\""},
                {"name": "Daily", "expression": "gap() <= 1"}
            ]}),
        )
        .await;
    assert_eq!(saved.status, 200, "{:?}", saved.body);
    let r = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": "FEED:STATE", "from": "2024-07-02"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        statuses(&r.body),
        ["valid", "failed", "valid"],
        "{:?}",
        r.body
    );
    assert_eq!(check(&r.body["results"][1], "fresh").0, "failed");
}
