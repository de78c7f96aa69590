//! Limits: every row of the table, the value allowed at the bound and what happens just past it.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// `n` daily observations of `NBP:SPOT` from 2024-01-01 (values 10, 11, ...).
async fn daily_series(c: &Client<'_>, n: usize) {
    let start = chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap();
    let data: Vec<Value> = (0..n)
        .map(
            |i| json!({"time": (start + chrono::Days::new(i as u64)).to_string(), "value": 10 + i}),
        )
        .collect();
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}))
        .await;
}

fn day(i: u64) -> String {
    (chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap() + chrono::Days::new(i)).to_string()
}

async fn config(c: &Client<'_>, id: &str, extra: Value) -> crate::common::Resp {
    let mut body = json!({"_id": id, "kind": "timeseries",
                          "checks": [{"name": "Positive", "expression": "value > 0"}]});
    if let (Value::Object(b), Value::Object(e)) = (&mut body, extra) {
        b.extend(e);
    }
    c.post("/validationconfig/v1", body).await
}

/// 101 private objects `O000`..`O100`, each with a time series `S`.
async fn hundred_and_one(c: &Client<'_>) {
    let objects: Vec<Value> = (0..101)
        .map(|i| json!({"_id": format!("O{i:03}"), "S": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": i}]}}))
        .collect();
    let r = c.post("/object/v1", Value::Array(objects)).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

fn ids(body: &Value) -> Vec<String> {
    body.as_array()
        .expect("a list")
        .iter()
        .map(|i| i["_id"].as_str().unwrap().to_string())
        .collect()
}

#[actix_rt::test]
async fn a_get_url_of_2048_characters_is_answered_and_a_longer_query_moves_to_the_body() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "O1", "name": "one"})).await;
    c.save(json!({"_id": "O2", "name": "two"})).await;
    // `name=in(one,<filler>)` padded so that the URL is exactly `len` characters long.
    let url = |len: usize| {
        let head = "/object/v1/private?name=in(one,";
        format!("{head}{})", "F".repeat(len - head.len() - 1))
    };
    let at_bound = url(2048);
    assert_eq!(at_bound.len(), 2048);
    let r = c.get(&at_bound).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(ids(&r.body), ["O1"]);
    // Past the bound the query travels in a form body and gets the same answer. (The server
    // does not refuse a longer URL itself: the bound is where clients and proxies may cut.)
    let past = url(2049);
    let query = past.split_once('?').unwrap().1;
    let r = c
        .get_form(
            "/object/v1/private",
            &query
                .replace('(', "%28")
                .replace(')', "%29")
                .replace(',', "%2C"),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(ids(&r.body), ["O1"]);
}

#[actix_rt::test]
async fn a_paged_get_returns_100_items_unless_limit_says_otherwise() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    hundred_and_one(&c).await;
    for path in ["/object/v1/private", "/data/v1/private"] {
        let r = c.get(path).await;
        assert_eq!(r.status, 200, "{path}: {:?}", r.body);
        assert_eq!(r.body.as_array().unwrap().len(), 100, "{path}");
        assert_eq!(r.total(), 101, "{path}");
        let r = c.get(&format!("{path}?_limit=101")).await;
        assert_eq!(r.body.as_array().unwrap().len(), 101, "{path}");
    }
    // Validation records are paged alike.
    for i in 0..101 {
        let id = format!("O{i:03}:S");
        assert_eq!(config(&c, &id, json!({})).await.status, 200);
    }
    let targets: Vec<String> = (0..101).map(|i| format!("O{i:03}:S")).collect();
    for chunk in targets.chunks(25) {
        let r = c
            .post(
                "/validation/v1?_function=runMany",
                json!({"targets": chunk}),
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    let r = c.get("/validation/v1").await;
    assert_eq!((r.body.as_array().unwrap().len(), r.total()), (100, 101));
}

#[actix_rt::test]
async fn a_paged_get_skips_nothing_unless_skip_says_otherwise() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    hundred_and_one(&c).await;
    let first = ids(&c.get("/object/v1/private?_limit=3").await.body);
    assert_eq!(first, ["O000", "O001", "O002"]);
    assert_eq!(
        ids(&c.get("/object/v1/private?_limit=3&_skip=0").await.body),
        first
    );
    assert_eq!(
        ids(&c.get("/object/v1/private?_limit=3&_skip=1").await.body),
        ["O001", "O002", "O003"]
    );
}

#[actix_rt::test]
async fn limit_minus_one_returns_all_items() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    hundred_and_one(&c).await;
    for path in ["/object/v1/private", "/data/v1/private"] {
        let r = c.get(&format!("{path}?_limit=-1")).await;
        assert_eq!(r.status, 200, "{path}: {:?}", r.body);
        assert_eq!(r.body.as_array().unwrap().len(), 101, "{path}");
        assert_eq!(r.total(), 101);
    }
    // decisions.md 6: an explicit page holds at most 10,000; -1 is the only negative.
    assert_eq!(c.get("/object/v1/private?_limit=10000").await.status, 200);
    for bad in ["10001", "-2"] {
        let m = c
            .get(&format!("/object/v1/private?_limit={bad}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains("10000") && m.contains("-1"), "{m}");
    }
}

#[actix_rt::test]
async fn a_validation_configuration_holds_at_most_50_checks() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let checks = |n: usize| -> Value {
        (0..n)
            .map(|i| json!({"name": format!("c{i}"), "expression": "value > 0"}))
            .collect()
    };
    let r = config(&c, "A:S", json!({"checks": checks(50)})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["checks"].as_array().unwrap().len(), 50);
    let m = config(&c, "B:S", json!({"checks": checks(51)}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("50"), "{m}");
    c.get("/validationconfig/v1/B:S")
        .await
        .assert_error(404, "NOT_FOUND");
}

/// Saves a configuration with one option at each value; returns the statuses.
async fn option_statuses(c: &Client<'_>, option: &str, values: &[i64]) -> Vec<u16> {
    let mut out = Vec::new();
    for v in values {
        let r = config(c, "A:S", json!({"options": {option: v}})).await;
        if r.status == 200 {
            assert_eq!(r.body["options"][option], *v, "{:?}", r.body);
        } else {
            let m = r.assert_error(400, "INVALID_PARAMETER");
            assert!(m.contains(option), "{m}");
        }
        out.push(r.status);
    }
    out
}

#[actix_rt::test]
async fn lookback_is_0_to_1000() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    assert_eq!(
        option_statuses(&c, "lookback", &[-1, 0, 1000, 1001]).await,
        [400, 200, 200, 400]
    );
}

#[actix_rt::test]
async fn curve_history_is_0_to_30() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    assert_eq!(
        option_statuses(&c, "curveHistory", &[-1, 0, 30, 31]).await,
        [400, 200, 200, 400]
    );
}

#[actix_rt::test]
async fn max_points_is_1_to_5000_and_a_manual_run_over_it_goes_to_the_background() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    assert_eq!(
        option_statuses(&c, "maxPoints", &[0, 1, 5000, 5001]).await,
        [400, 200, 200, 400]
    );
    daily_series(&c, 5).await;
    let r = config(&c, "NBP:SPOT", json!({"options": {"maxPoints": 3}})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let run = |to: u64| {
        let c = c.clone();
        async move {
            let r = c
                .post(
                    "/validation/v1?_function=run",
                    json!({"target": "NBP:SPOT", "from": day(0), "to": day(to)}),
                )
                .await;
            assert_eq!(r.status, 200, "{:?}", r.body);
            r.body
        }
    };
    // Three points: run at once.
    let at_once = run(2).await;
    assert_eq!(at_once["points"], 3, "{at_once}");
    assert!(at_once.get("background").is_none(), "{at_once}");
    // Four points: in the background.
    let queued = run(3).await;
    assert_eq!(queued["background"], true, "{queued}");
    assert!(queued["message"].is_string(), "{queued}");
    assert_eq!(c.get("/validation/v1").await.total(), 3);
}

#[actix_rt::test]
async fn test_checks_at_most_100_data_points() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    daily_series(&c, 101).await;
    assert_eq!(config(&c, "NBP:SPOT", json!({})).await.status, 200);
    let test = |body: Value| {
        let c = c.clone();
        async move { c.post("/validation/v1?_function=test", body).await }
    };
    let r = test(json!({"target": "NBP:SPOT", "from": day(0), "to": day(99)})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["points"], 100);
    let m = test(json!({"target": "NBP:SPOT", "from": day(0), "to": day(100)}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("100"), "{m}");
    // Listed points alike.
    let points = |n: u64| (0..n).map(day).collect::<Vec<_>>();
    let r = test(json!({"target": "NBP:SPOT", "points": points(100)})).await;
    assert_eq!(r.body["points"], 100, "{:?}", r.body);
    test(json!({"target": "NBP:SPOT", "points": points(101)}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    // A run (not a test) over 101 points is not refused.
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": day(0), "to": day(100)}),
        )
        .await;
    assert_eq!(r.body["points"], 101, "{:?}", r.body);
}

#[actix_rt::test]
async fn run_many_runs_up_to_25_data_items_at_once_without_a_range() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    let mut object = json!({"_id": "HUB"});
    for i in 0..26 {
        object[format!("S{i}")] = json!({"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]});
    }
    c.save(object).await;
    let targets: Vec<String> = (0..26).map(|i| format!("HUB:S{i}")).collect();
    for t in &targets {
        assert_eq!(config(&c, t, json!({})).await.status, 200);
    }
    let r = c
        .post(
            "/validation/v1?_function=runMany",
            json!({"targets": targets[..25]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.body.get("background").is_none(), "{}", r.body);
    assert_eq!(r.body["results"].as_array().unwrap().len(), 25);
    assert_eq!(c.get("/validation/v1").await.total(), 25);
    // 26 items: the background.
    let r = c
        .post(
            "/validation/v1?_function=runMany",
            json!({"targets": targets}),
        )
        .await;
    assert_eq!(r.body["background"], true, "{:?}", r.body);
    // So does one item with a range.
    let r = c
        .post(
            "/validation/v1?_function=runMany",
            json!({"targets": ["HUB:S0"], "from": "2024-07-01"}),
        )
        .await;
    assert_eq!(r.body["background"], true, "{:?}", r.body);
    assert_eq!(c.get("/validation/v1").await.total(), 25, "nothing ran yet");
    assert_eq!(
        c.get("/validation/v1?_function=jobs").await.total(),
        2,
        "two jobs queued"
    );
}

fn targets(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("NONE:S{i}")).collect()
}

#[actix_rt::test]
async fn suggest_takes_at_most_25_targets() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    let r = c
        .post(
            "/validation/v1?_function=suggest",
            json!({"targets": targets(25)}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["results"].as_array().unwrap().len(), 25);
    let m = c
        .post(
            "/validation/v1?_function=suggest",
            json!({"targets": targets(26)}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("25"), "{m}");
}

fn items(n: usize) -> Vec<Value> {
    targets(n)
        .into_iter()
        .map(|t| json!({"target": t, "points": ["2024-07-01"]}))
        .collect()
}

#[actix_rt::test]
async fn tune_takes_at_most_25_items() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    let r = c
        .post("/validation/v1?_function=tune", json!({"items": items(25)}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["results"].as_array().unwrap().len(), 25);
    let m = c
        .post("/validation/v1?_function=tune", json!({"items": items(26)}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("25"), "{m}");
}

#[actix_rt::test]
async fn days_is_1_to_366_and_30_by_default_for_suggest_and_tune() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    for function in ["suggest", "tune"] {
        let body = |days: Option<i64>| {
            let mut b = if function == "suggest" {
                json!({"targets": targets(1)})
            } else {
                json!({"items": items(1)})
            };
            if let Some(d) = days {
                b["days"] = json!(d);
            }
            b
        };
        let path = format!("/validation/v1?_function={function}");
        let r = c.post(&path, body(None)).await;
        assert_eq!(r.status, 200, "{function}: {:?}", r.body);
        assert_eq!(
            (
                r.body["days"].clone(),
                r.body["from"].clone(),
                r.body["to"].clone()
            ),
            (json!(30), json!("2024-06-08"), json!("2024-07-08")),
            "{function}"
        );
        for (days, from) in [(1, "2024-07-07"), (366, "2023-07-08")] {
            let r = c.post(&path, body(Some(days))).await;
            assert_eq!(r.status, 200, "{function} {days}: {:?}", r.body);
            assert_eq!(
                (r.body["days"].clone(), r.body["from"].clone()),
                (json!(days), json!(from))
            );
        }
        for days in [0, 367] {
            let m = c
                .post(&path, body(Some(days)))
                .await
                .assert_error(400, "INVALID_PARAMETER");
            assert!(m.contains("days"), "{function} {days}: {m}");
        }
    }
}

#[actix_rt::test]
async fn max_curves_is_2_to_60_and_25_by_default_for_suggest_and_tune() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    // 30 curves, one per day from 2024-06-09 to 2024-07-08: all inside the default 30 days.
    let today = chrono::NaiveDate::from_ymd_opt(2024, 7, 8).unwrap();
    for i in 0..30u64 {
        let ondate = (today - chrono::Days::new(29 - i)).to_string();
        c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate,
                "contracts": [{"tenor": "M01", "value": 30 + i}, {"tenor": "M02", "value": 31 + i}]}}))
            .await;
    }
    let suggest = |max: Option<i64>| {
        let c = c.clone();
        async move {
            let mut b = json!({"targets": ["TTF:FWD"], "kind": "curve"});
            if let Some(m) = max {
                b["maxCurves"] = json!(m);
            }
            c.post("/validation/v1?_function=suggest", b).await
        }
    };
    let curves = |r: &crate::common::Resp| {
        assert_eq!(r.status, 200, "{:?}", r.body);
        r.body["results"][0]["stats"]["curves"].clone()
    };
    assert_eq!(curves(&suggest(None).await), 25, "the newest 25 by default");
    assert_eq!(curves(&suggest(Some(2)).await), 2);
    assert_eq!(curves(&suggest(Some(60)).await), 30, "all there are");
    for bad in [1, 61] {
        let m = suggest(Some(bad))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains("maxCurves"), "{bad}: {m}");
    }
    // tune has the same bounds.
    let tune = |max: i64| {
        let c = c.clone();
        async move {
            c.post(
                "/validation/v1?_function=tune",
                json!({"items": items(1), "maxCurves": max}),
            )
            .await
        }
    };
    for ok in [2, 60] {
        assert_eq!(tune(ok).await.status, 200);
    }
    for bad in [1, 61] {
        tune(bad).await.assert_error(400, "INVALID_PARAMETER");
    }
}

#[actix_rt::test]
async fn override_remove_override_and_comment_take_at_most_500_ids() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let ids = |n: usize| (0..n).map(|i| format!("X:Y:{i}")).collect::<Vec<_>>();
    for (function, extra) in [
        ("override", json!({"reason": "r"})),
        ("removeOverride", json!({})),
        ("comment", json!({"message": "m"})),
    ] {
        let path = format!("/validation/v1?_function={function}");
        let body = |n: usize| {
            let mut b = extra.clone();
            b["ids"] = json!(ids(n));
            b
        };
        let r = c.post(&path, body(500)).await;
        assert_eq!(r.status, 200, "{function}: {:?}", r.body);
        assert_eq!(r.body.as_array().unwrap().len(), 500, "{function}");
        let m = c
            .post(&path, body(501))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains("500"), "{function}: {m}");
    }
}

#[actix_rt::test]
async fn a_record_keeps_the_last_100_timeline_entries() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    daily_series(&c, 1).await;
    assert_eq!(config(&c, "NBP:SPOT", json!({})).await.status, 200);
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT"}),
        )
        .await;
    let id = r.body["results"][0]["_id"].as_str().unwrap().to_string();
    let comment = |i: usize| {
        let c = c.clone();
        let id = id.clone();
        async move {
            let r = c
                .post(
                    "/validation/v1?_function=comment",
                    json!({"ids": [id], "message": format!("note {i}")}),
                )
                .await;
            assert_eq!(r.body[0]["ok"], true, "{:?}", r.body);
        }
    };
    let timeline = || {
        let c = c.clone();
        let id = id.clone();
        async move {
            c.get(&format!("/validation/v1/{id}")).await.body["timeline"]
                .as_array()
                .unwrap()
                .clone()
        }
    };
    // The run and 99 comments: 100 entries, all kept.
    for i in 1..=99 {
        comment(i).await;
    }
    let t = timeline().await;
    assert_eq!(t.len(), 100);
    assert_eq!(t[0]["action"], "run");
    assert_eq!(t[99]["message"], "note 99");
    // One more: still 100, the oldest (the run) dropped.
    comment(100).await;
    let t = timeline().await;
    assert_eq!(t.len(), 100);
    assert_eq!(t[0]["message"], "note 1");
    assert_eq!(t[99]["message"], "note 100");
}
