//! `suggest` and `tune` over HTTP: suggested configurations against planted defects, tuning
//! from overridden points, and bad input.

use crate::common::{Client, TestServer};
use chrono::{Duration, NaiveDate};
use platform_core::auth::Role;
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn day(i: i64) -> String {
    (NaiveDate::from_ymd_opt(2024, 3, 1).unwrap() + Duration::days(i)).to_string()
}

/// Deterministic noise in -1..1.
fn noise(i: i64) -> f64 {
    let x = (i as u64)
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    ((x >> 33) % 2001) as f64 / 1000.0 - 1.0
}

async fn save_series(c: &Client<'_>, id: &str, points: &[(i64, f64)]) {
    let data: Vec<Value> = points
        .iter()
        .map(|(i, v)| json!({"time": day(*i), "value": v}))
        .collect();
    let (object, prop) = id.split_once(':').unwrap();
    let mut body = json!({"_id": object});
    body[prop] = json!({"_type": "VarTimeSeries", "calendar": "DAILY", "data": data});
    c.save(body).await;
}

fn results(r: &crate::common::Resp) -> &Vec<Value> {
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["results"].as_array().unwrap()
}

fn check<'a>(item: &'a Value, id: &str) -> &'a Value {
    item["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("check {id} in {item}"))
}

/// The points (and their tenors) a saved configuration fails on, by `test` over a range.
async fn failing_points(c: &Client<'_>, target: &str, from: &str, to: &str) -> BTreeSet<String> {
    let r = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": target, "from": from, "to": to}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|rec| {
            matches!(
                rec["status"].as_str(),
                Some("failed" | "severe" | "error" | "warning")
            )
        })
        .map(|rec| rec["point"].as_str().unwrap().to_string())
        .collect()
}

/// A daily series 2024-03-01..2024-06-30 around 50 with a slow cycle and noise, with planted
/// defects: a spike up on 2024-04-20 (day 50, in the fitted part) and down on 2024-06-20 (day
/// 111, in the newest part), the value of 2024-05-03 repeated for 7 days 2024-05-04..05-10
/// (days 64..70, a stale run), and no observation 2024-06-01..06-05 (days 92..96, a gap, so
/// 2024-06-06 comes 6 days after the one before).
fn planted_series() -> Vec<(i64, f64)> {
    let clean =
        |i: i64| 50.0 + 3.0 * (2.0 * std::f64::consts::PI * i as f64 / 30.0).sin() + 0.6 * noise(i);
    let mut out = Vec::new();
    for i in 0..122 {
        if (92..=96).contains(&i) {
            continue;
        }
        let v = match i {
            50 => 150.0,
            111 => 5.0,
            64..=70 => clean(63),
            _ => clean(i),
        };
        out.push((i, (v * 100.0_f64).round() / 100.0));
    }
    out
}

#[actix_rt::test]
async fn suggested_series_checks_catch_every_planted_defect_and_pass_the_clean_part() {
    let s = TestServer::at("2024-07-01T12:00:00Z");
    let c = s.client(Role::Writer);
    save_series(&c, "PWR:SPOT", &planted_series()).await;
    let r = c
        .post(
            "/validation/v1?_function=suggest",
            json!({"targets": ["PWR:SPOT"], "days": 90}),
        )
        .await;
    assert_eq!(
        (
            r.body["days"].clone(),
            r.body["from"].clone(),
            r.body["to"].clone()
        ),
        (json!(90), json!("2024-04-02"), json!("2024-07-01"))
    );
    let item = &results(&r)[0];
    assert!(item.get("error").is_none(), "{item}");
    // Days 32..121 without the 5-day gap.
    assert_eq!(item["points"], 85);
    let stats = &item["stats"];
    assert_eq!(
        (
            stats["values"].clone(),
            stats["missing"].clone(),
            stats["negatives"].clone()
        ),
        (json!(85), json!(0), json!(0))
    );
    assert_eq!(
        (stats["min"].clone(), stats["max"].clone()),
        (json!(5.0), json!(150.0))
    );
    assert_eq!(
        stats["longestGap"], 6,
        "2024-06-06 comes 6 days after 2024-05-31"
    );
    assert_eq!(
        stats["longestRun"], 8,
        "the value of 05-03 and its 7 repeats"
    );
    for id in [
        "not_missing",
        "positive",
        "band",
        "range",
        "move",
        "stale",
        "gap",
    ] {
        let k = check(item, id);
        assert!(k["reason"].as_str().unwrap().len() > 20, "{k}");
        assert_eq!(k["inConfig"], true, "{k}");
        assert_eq!(k["suggested"], k["failures"] == 0, "{k}");
    }
    assert_eq!(check(item, "stale")["expression"], "run_length() <= 3");
    assert_eq!(check(item, "band")["severity"], "warning");
    assert_eq!(check(item, "gap")["expression"], "!(gap() > 2)");
    let range = check(item, "range");
    assert!(range["failures"].as_u64().unwrap() >= 2, "{range}");
    assert!(range["example"]["point"].is_string(), "{range}");
    assert_eq!(check(item, "positive")["suggested"], true);
    // The suggested configuration saves unchanged and catches exactly the planted defects.
    let saved = c.post("/validationconfig/v1", item["config"].clone()).await;
    assert_eq!(saved.status, 200, "{:?}", saved.body);
    let failing = failing_points(&c, "PWR:SPOT", "2024-04-02", "2024-07-01").await;
    let spikes = [day(50), day(111)];
    let stale: Vec<String> = (64..=70).map(day).collect();
    let gap = day(97);
    for d in &spikes {
        assert!(failing.contains(d), "spike {d} caught: {failing:?}");
    }
    assert!(
        stale.iter().any(|d| failing.contains(d)),
        "stale run caught: {failing:?}"
    );
    assert!(failing.contains(&gap), "gap caught: {failing:?}");
    let planted: BTreeSet<String> = spikes.iter().chain(&stale).cloned().chain([gap]).collect();
    let clean: Vec<&String> = failing.difference(&planted).collect();
    assert!(clean.is_empty(), "no failure on the clean part: {clean:?}");
    assert_eq!(
        c.get("/validation/v1").await.total(),
        0,
        "suggest stores nothing"
    );
}

/// Monthly contracts M01..M12 priced by delivery month (a seasonal shape) with a little daily
/// noise, one curve a day.
fn curve_contracts(d: i64, factor: f64, skip: &[u32]) -> Vec<Value> {
    let ondate = NaiveDate::from_ymd_opt(2024, 3, 1).unwrap() + Duration::days(d);
    (1..=12u32)
        .filter(|m| !skip.contains(m))
        .map(|m| {
            use chrono::Datelike;
            let month0 = ondate.month0() + m;
            let season = (2.0 * std::f64::consts::PI * f64::from(month0 % 12) / 12.0).cos();
            let v = (40.0 + 10.0 * season) * (1.0 + 0.004 * noise(d * 13 + i64::from(m)));
            json!({"tenor": format!("M{m:02}"), "value": (v * factor * 100.0).round() / 100.0})
        })
        .collect()
}

#[actix_rt::test]
async fn suggested_curve_checks_catch_missing_tenors_and_shifted_curves() {
    let s = TestServer::at("2024-07-01T12:00:00Z");
    let c = s.client(Role::Writer);
    // Ondates day 61 (2024-05-01) .. day 121 (2024-06-30). Planted: day 96 (2024-06-05) is
    // shifted up 30%, day 111 (2024-06-20) down 25%, day 116 (2024-06-25) lacks M05..M07.
    for d in 61..122 {
        let contracts = match d {
            96 => curve_contracts(d, 1.3, &[]),
            111 => curve_contracts(d, 0.75, &[]),
            116 => curve_contracts(d, 1.0, &[5, 6, 7]),
            _ => curve_contracts(d, 1.0, &[]),
        };
        c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": day(d), "contracts": contracts}}))
            .await;
    }
    let r = c
        .post(
            "/validation/v1?_function=suggest",
            json!({"targets": ["TTF:FWD"], "kind": "curve", "days": 60, "maxCurves": 40}),
        )
        .await;
    let item = &results(&r)[0];
    assert!(item.get("error").is_none(), "{item}");
    assert_eq!(item["points"], 40, "the newest 40 curves");
    assert_eq!(
        (
            item["stats"]["fewestContracts"].clone(),
            item["stats"]["mostContracts"].clone()
        ),
        (json!(9), json!(12))
    );
    assert_eq!(
        check(item, "tenor_count")["expression"],
        "between(tenor_count(), 12, 12)"
    );
    assert_eq!(check(item, "tenor_count")["scope"], "curve");
    assert_eq!(
        check(item, "tenor_move")["scope"],
        "tenor",
        "{}",
        check(item, "tenor_move")
    );
    assert_eq!(item["config"]["options"]["curveHistory"], 2);
    let saved = c.post("/validationconfig/v1", item["config"].clone()).await;
    assert_eq!(saved.status, 200, "{:?}", saved.body);
    let r = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": "TTF:FWD", "from": day(82), "to": day(121)}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let mut failing = BTreeSet::new();
    for rec in r.body["results"].as_array().unwrap() {
        if rec["status"] != "valid" {
            failing.insert(rec["point"].as_str().unwrap().to_string());
            if rec["point"] == day(96) || rec["point"] == day(111) {
                assert_eq!(rec["failedTenors"].as_array().unwrap().len(), 12, "{rec}");
            }
        }
    }
    let planted: BTreeSet<String> = [day(96), day(111), day(116)].into_iter().collect();
    assert_eq!(failing, planted, "exactly the planted defects fail");
}

/// A daily series 2024-04-01..2024-06-30 with a seasonal cycle whose highs reach 55..58, and a
/// spike of 120 on 2024-06-15.
fn seasonal() -> Vec<(i64, f64)> {
    (31..122)
        .map(|i| {
            let v = if i == 106 {
                120.0
            } else {
                45.0 + 12.0 * (2.0 * std::f64::consts::PI * i as f64 / 28.0).sin() + noise(i)
            };
            (i, (v * 100.0_f64).round() / 100.0)
        })
        .collect()
}

async fn run_and_override(
    c: &Client<'_>,
    target: &str,
    keep: &[String],
) -> (Vec<String>, Vec<String>) {
    let run = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": target, "from": day(31), "to": day(121)}),
        )
        .await;
    assert_eq!(run.status, 200, "{:?}", run.body);
    let failing: Vec<String> = run.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "failed")
        .map(|r| r["point"].as_str().unwrap().to_string())
        .collect();
    let overridden: Vec<String> = failing
        .iter()
        .filter(|p| !keep.contains(p))
        .cloned()
        .collect();
    let ids: Vec<String> = overridden.iter().map(|p| format!("{target}:{p}")).collect();
    let r = c
        .post(
            "/validation/v1?_function=override",
            json!({"ids": ids, "reason": "seasonal high"}),
        )
        .await;
    assert!(
        r.body.as_array().unwrap().iter().all(|x| x["ok"] == true),
        "{:?}",
        r.body
    );
    (failing, overridden)
}

#[actix_rt::test]
async fn tune_passes_overridden_seasonal_highs_and_still_fails_the_spike() {
    let s = TestServer::at("2024-07-01T12:00:00Z");
    let c = s.client(Role::Writer);
    save_series(&c, "GAS:DA", &seasonal()).await;
    let cfg = json!({"_id": "GAS:DA", "kind": "timeseries", "checks": [
        {"name": "Range", "expression": "between(value, 20, 52)"},
        {"name": "Positive", "expression": "value > 0"}
    ]});
    assert_eq!(c.post("/validationconfig/v1", cfg).await.status, 200);
    let spike = day(106);
    let (failing, highs) = run_and_override(&c, "GAS:DA", std::slice::from_ref(&spike)).await;
    assert!(failing.contains(&spike) && highs.len() >= 5, "{failing:?}");
    let records_before = c.get("/validation/v1").await.total();
    let r = c
        .post(
            "/validation/v1?_function=tune",
            json!({"items": [{"target": "GAS:DA", "points": highs}], "days": 91}),
        )
        .await;
    let item = &results(&r)[0];
    assert!(item.get("error").is_none(), "{item}");
    let checks = item["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 1, "only the failing check: {item}");
    let range = &checks[0];
    assert_eq!(range["id"], "range");
    assert_eq!(range["failing"], highs.len());
    assert_eq!(
        range["failingPoints"].as_array().unwrap().len(),
        highs.len()
    );
    assert!(
        range["failingPoints"][0]["message"]
            .as_str()
            .unwrap()
            .contains("52"),
        "{range}"
    );
    assert_eq!(
        (range["falseAlarms"].clone(), range["standing"].clone()),
        (json!(highs.len()), json!(1))
    );
    let suggested = range["suggested"].as_str().unwrap();
    let hi: f64 = suggested
        .strip_prefix("between(value, 20, ")
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{suggested}"))
        .parse()
        .unwrap();
    assert!(
        (55.0..=70.0).contains(&hi) && hi.fract() == 0.0,
        "a rounded bound above the highs: {suggested}"
    );
    assert_eq!(range["window"]["before"], failing.len());
    assert_eq!(range["window"]["after"], 1, "only the spike still fails");
    assert_eq!(range["letsThrough"], json!([]));
    assert!(
        range["reason"]
            .as_str()
            .unwrap()
            .contains("keeps all 1 standing"),
        "{range}"
    );
    // The proposal, tried as a configuration: the highs pass and the spike fails.
    let r = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": "GAS:DA", "from": day(31), "to": day(121), "config": {"kind": "timeseries", "checks": [{"name": "Range", "expression": suggested}]}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let still: Vec<&str> = r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["status"] == "failed")
        .map(|x| x["point"].as_str().unwrap())
        .collect();
    assert_eq!(still, vec![spike.as_str()]);
    assert_eq!(
        c.get("/validation/v1").await.total(),
        records_before,
        "tune stores nothing"
    );
}

#[actix_rt::test]
async fn tune_says_when_a_proposal_lets_a_standing_failure_through() {
    let s = TestServer::at("2024-07-01T12:00:00Z");
    let c = s.client(Role::Writer);
    save_series(&c, "GAS:DA", &seasonal()).await;
    let cfg = json!({"_id": "GAS:DA", "kind": "timeseries", "checks": [{"name": "Range", "expression": "between(value, 20, 52)"}]});
    assert_eq!(c.post("/validationconfig/v1", cfg).await.status, 200);
    // Keep the lowest failing high standing, override the others (and the spike stays too).
    let values: std::collections::HashMap<String, f64> =
        seasonal().into_iter().map(|(i, v)| (day(i), v)).collect();
    let run = c
        .post(
            "/validation/v1?_function=test",
            json!({"target": "GAS:DA", "from": day(31), "to": day(121)}),
        )
        .await;
    let mut highs: Vec<String> = run.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "failed" && r["point"] != day(106))
        .map(|r| r["point"].as_str().unwrap().to_string())
        .collect();
    highs.sort_by(|a, b| values[a].total_cmp(&values[b]));
    let lowest = highs[0].clone();
    let (_, overridden) = run_and_override(&c, "GAS:DA", &[lowest.clone(), day(106)]).await;
    let mut points = overridden.clone();
    points.push(lowest.clone());
    let r = c
        .post(
            "/validation/v1?_function=tune",
            json!({"items": [{"target": "GAS:DA", "points": points}], "days": 91}),
        )
        .await;
    let range = &results(&r)[0]["checks"][0];
    assert_eq!(range["standing"], 2, "{range}");
    assert_eq!(range["letsThrough"], json!([lowest]), "{range}");
    let reason = range["reason"].as_str().unwrap();
    assert!(
        reason.contains("would let 1 of 2 standing failure(s) through") && reason.contains(&lowest),
        "{reason}"
    );
    // Only standing failures given: nothing to relax.
    let r = c
        .post(
            "/validation/v1?_function=tune",
            json!({"items": [{"target": "GAS:DA", "points": [day(106)]}]}),
        )
        .await;
    let range = &results(&r)[0]["checks"][0];
    assert_eq!(range["suggested"], Value::Null);
    assert!(
        range["reason"]
            .as_str()
            .unwrap()
            .contains("nothing to relax"),
        "{range}"
    );
}

#[actix_rt::test]
async fn too_little_data_gives_a_message_not_checks() {
    let s = TestServer::at("2024-07-01T12:00:00Z");
    let c = s.client(Role::Writer);
    save_series(&c, "A:B", &[(119, 1.0), (120, 2.0), (121, 3.0)]).await;
    let r = c
        .post(
            "/validation/v1?_function=suggest",
            json!({"targets": ["A:B"]}),
        )
        .await;
    let item = &results(&r)[0];
    assert_eq!(item["points"], 3);
    assert_eq!(item["checks"], json!([]));
    assert!(
        item["message"].as_str().unwrap().contains("at least 5"),
        "{item}"
    );
    assert!(item["ms"].is_number());
}

#[actix_rt::test]
async fn bad_suggest_and_tune_requests_are_refused_or_reported_per_item() {
    let s = TestServer::at("2024-07-01T12:00:00Z");
    let c = s.client(Role::Writer);
    save_series(&c, "PWR:SPOT", &planted_series()).await;
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-06-28", "contracts": curve_contracts(119, 1.0, &[])}}))
        .await;
    let suggest = |body: Value| {
        let c = c.clone();
        async move { c.post("/validation/v1?_function=suggest", body).await }
    };
    let many: Vec<String> = (0..26).map(|i| format!("X{i}:Y")).collect();
    let m = suggest(json!({"targets": many}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("25"), "{m}");
    for (body, code) in [
        (
            json!({"targets": ["PWR:SPOT"], "days": 0}),
            "INVALID_PARAMETER",
        ),
        (
            json!({"targets": ["PWR:SPOT"], "days": 367}),
            "INVALID_PARAMETER",
        ),
        (
            json!({"targets": ["PWR:SPOT"], "days": "ten"}),
            "INVALID_PARAMETER",
        ),
        (
            json!({"targets": ["TTF:FWD"], "kind": "curve", "maxCurves": 1}),
            "INVALID_PARAMETER",
        ),
        (
            json!({"targets": ["TTF:FWD"], "kind": "curve", "maxCurves": 61}),
            "INVALID_PARAMETER",
        ),
        (
            json!({"targets": ["PWR:SPOT"], "kind": "bogus"}),
            "INVALID_BODY",
        ),
        (json!({"targets": "PWR:SPOT"}), "INVALID_BODY"),
        (json!({"targets": [1]}), "INVALID_BODY"),
        (json!({}), "MISSING_PARAMETER"),
        (json!([]), "INVALID_BODY"),
    ] {
        suggest(body).await.assert_error(400, code);
    }
    // Mixed kinds and unknown targets: per-item errors next to the good item.
    let r =
        suggest(json!({"targets": ["PWR:SPOT", "TTF:FWD", "NOPE:X", "bad id"], "days": 90})).await;
    let items = results(&r);
    assert!(items[0].get("error").is_none(), "{}", items[0]);
    assert!(
        items[1]["error"]
            .as_str()
            .unwrap()
            .contains("not a time series"),
        "{}",
        items[1]
    );
    assert!(
        items[2]["error"]
            .as_str()
            .unwrap()
            .contains("cannot be read"),
        "{}",
        items[2]
    );
    assert!(items[3]["error"].is_string(), "{}", items[3]);
    let tune = |body: Value| {
        let c = c.clone();
        async move { c.post("/validation/v1?_function=tune", body).await }
    };
    let many: Vec<Value> = (0..26)
        .map(|i| json!({"target": format!("X{i}:Y"), "points": ["2024-06-01"]}))
        .collect();
    tune(json!({"items": many}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    tune(json!({"items": [{"target": "PWR:SPOT"}]}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    tune(json!({"items": [{"points": ["2024-06-01"]}]}))
        .await
        .assert_error(400, "MISSING_PARAMETER");
    tune(json!({"items": ["PWR:SPOT"]}))
        .await
        .assert_error(400, "INVALID_BODY");
    tune(json!({"items": [{"target": "PWR:SPOT", "points": [day(60)]}], "maxCurves": 0}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    tune(json!({})).await.assert_error(400, "MISSING_PARAMETER");
    // No configuration, a point that is not in the data: per-item errors.
    let r = tune(json!({"items": [{"target": "PWR:SPOT", "points": [day(60)]}]})).await;
    assert!(
        results(&r)[0]["error"]
            .as_str()
            .unwrap()
            .contains("no validation configuration"),
        "{:?}",
        r.body
    );
    let cfg = json!({"_id": "PWR:SPOT", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]});
    assert_eq!(c.post("/validationconfig/v1", cfg).await.status, 200);
    let r = tune(json!({"items": [{"target": "PWR:SPOT", "points": [day(94)]}, {"target": "PWR:SPOT", "points": [day(60)]}]})).await;
    let items = results(&r);
    assert!(
        items[0]["error"]
            .as_str()
            .unwrap()
            .contains("no observation"),
        "{}",
        items[0]
    );
    assert!(items[1].get("error").is_none(), "{}", items[1]);
    assert!(
        items[1]["message"]
            .as_str()
            .unwrap()
            .contains("nothing to tune"),
        "{}",
        items[1]
    );
    assert_eq!(c.get("/validation/v1").await.total(), 0, "nothing stored");
    assert_eq!(c.get("/validationconfig/v1").await.total(), 1);
}

#[actix_rt::test]
async fn tune_on_curves_relaxes_for_overridden_tenors_and_keeps_a_shifted_curve_failing() {
    let s = TestServer::at("2024-07-01T12:00:00Z");
    let c = s.client(Role::Writer);
    // From day 100 (2024-06-09) M01 and M02 trade 5% higher (a real move, overridden); day 110
    // (2024-06-19) is a curve shifted up 30% (a standing failure).
    for d in 61..122 {
        let mut contracts = curve_contracts(d, if d == 110 { 1.3 } else { 1.0 }, &[]);
        if d >= 100 {
            for k in contracts.iter_mut().take(2) {
                let v = k["value"].as_f64().unwrap() * 1.05;
                k["value"] = json!((v * 100.0).round() / 100.0);
            }
        }
        c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": day(d), "contracts": contracts}}))
            .await;
    }
    let cfg = json!({"_id": "TTF:FWD", "kind": "curve", "checks": [
        {"name": "Move", "expression": "!(abs(tenor_pct_change(1)) >= 0.02)"},
        {"name": "Count", "expression": "tenor_count() >= 12", "scope": "curve"}
    ], "options": {"curveHistory": 1}});
    assert_eq!(c.post("/validationconfig/v1", cfg).await.status, 200);
    let run = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "TTF:FWD", "from": day(92), "to": day(121)}),
        )
        .await;
    assert_eq!(run.status, 200, "{:?}", run.body);
    let failed: Vec<&str> = run.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "failed")
        .map(|r| r["point"].as_str().unwrap())
        .collect();
    assert_eq!(
        failed,
        vec![day(100), day(110), day(111)],
        "{:?}",
        run.body["counts"]
    );
    let id = format!("TTF:FWD:{}", day(100));
    let r = c
        .post(
            "/validation/v1?_function=override",
            json!({"ids": [id], "reason": "real move"}),
        )
        .await;
    assert_eq!(r.body[0]["ok"], true, "{:?}", r.body);
    let r = c
        .post(
            "/validation/v1?_function=tune",
            json!({"items": [{"target": "TTF:FWD", "points": [day(100)], "tenors": ["M01", "M02"]}], "days": 30, "maxCurves": 30}),
        )
        .await;
    let item = &results(&r)[0];
    assert_eq!(item["kind"], "curve");
    let checks = item["checks"].as_array().unwrap();
    assert_eq!(
        checks.len(),
        1,
        "the count check does not fail there: {item}"
    );
    let m = &checks[0];
    assert_eq!(
        (m["id"].clone(), m["scope"].clone()),
        (json!("move"), json!("tenor"))
    );
    assert_eq!(
        (m["failing"].clone(), m["falseAlarms"].clone()),
        (json!(2), json!(2))
    );
    let tenors: Vec<&str> = m["failingPoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tenor"].as_str().unwrap())
        .collect();
    assert_eq!(tenors, vec!["M01", "M02"]);
    assert_eq!(
        m["standing"], 24,
        "every contract of the shifted curve and of the one after it"
    );
    let suggested = m["suggested"].as_str().unwrap();
    let x: f64 = suggested
        .strip_prefix("!(abs(tenor_pct_change(1)) >= ")
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{suggested}"))
        .parse()
        .unwrap();
    assert!(x > 0.05 && x < 0.07, "{suggested}");
    assert_eq!(m["letsThrough"], json!([]));
    assert_eq!(m["window"]["after"], 24, "{m}");
    assert!(m["window"]["before"].as_u64().unwrap() > 24, "{m}");
}

#[actix_rt::test]
async fn tune_moves_both_bounds_when_highs_and_lows_were_overridden() {
    let s = TestServer::at("2024-07-01T12:00:00Z");
    let c = s.client(Role::Writer);
    let series = seasonal();
    save_series(&c, "GAS:DA", &series).await;
    let cfg = json!({"_id": "GAS:DA", "kind": "timeseries", "checks": [{"name": "Range", "expression": "between(value, 35, 55)"}]});
    assert_eq!(c.post("/validationconfig/v1", cfg).await.status, 200);
    let spike = day(106);
    let (failing, overridden) = run_and_override(&c, "GAS:DA", std::slice::from_ref(&spike)).await;
    let value = |p: &String| series.iter().find(|(i, _)| day(*i) == *p).unwrap().1;
    let lows: Vec<f64> = overridden.iter().map(value).filter(|v| *v < 35.0).collect();
    let highs: Vec<f64> = overridden.iter().map(value).filter(|v| *v > 55.0).collect();
    assert!(!lows.is_empty() && !highs.is_empty(), "{failing:?}");
    let r = c
        .post(
            "/validation/v1?_function=tune",
            json!({"items": [{"target": "GAS:DA", "points": overridden}], "days": 91}),
        )
        .await;
    let range = &results(&r)[0]["checks"][0];
    let suggested = range["suggested"]
        .as_str()
        .unwrap_or_else(|| panic!("{range}"));
    let bounds: Vec<f64> = suggested
        .strip_prefix("between(value, ")
        .and_then(|x| x.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{suggested}"))
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    let lowest = lows.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = highs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!(
        bounds[0] <= lowest && bounds[0] > lowest - 3.0,
        "{suggested} vs {lowest}"
    );
    assert!(
        bounds[1] >= highest && bounds[1] < highest + 3.0,
        "{suggested} vs {highest}"
    );
    assert_eq!(range["window"]["after"], 1, "only the spike: {range}");
    assert_eq!(range["letsThrough"], json!([]));
}

#[actix_rt::test]
async fn tune_says_so_when_no_threshold_can_pass_the_false_alarms() {
    let s = TestServer::at("2024-07-01T12:00:00Z");
    let c = s.client(Role::Writer);
    save_series(&c, "A:B", &[(118, 1.0), (119, -2.0), (120, 3.0)]).await;
    let cfg = json!({"_id": "A:B", "kind": "timeseries", "checks": [{"name": "Sign", "expression": "!is_negative(value)"}]});
    assert_eq!(c.post("/validationconfig/v1", cfg).await.status, 200);
    let r = c
        .post(
            "/validation/v1?_function=tune",
            json!({"items": [{"target": "A:B", "points": [day(119)]}]}),
        )
        .await;
    let sign = &results(&r)[0]["checks"][0];
    assert_eq!(sign["suggested"], Value::Null, "{sign}");
    assert_eq!(sign["window"], json!({"runs": 3, "before": 1, "after": 1}));
    assert!(
        sign["reason"].as_str().unwrap().contains("no threshold"),
        "{sign}"
    );
}
