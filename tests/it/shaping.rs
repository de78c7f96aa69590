//! Curves shaped into arbitrage-free months over HTTP (`_shape=MONTHLY`, `_weights`,
//! `_tolerance`): the spec's shaping vectors end to end, the default weights, peak hours and
//! block calendars, quotes that disagree and their message, CSV and SVG, and bad input.

use crate::common::{vectors, Client, Resp, TestServer};
use actix_web::http::header;
use actix_web::test::TestRequest;
use platform_core::auth::Role;
use serde_json::json;

async fn get_as(c: &Client<'_>, path: &str, accept: &str) -> Resp {
    let mut req = TestRequest::get()
        .uri(path)
        .insert_header((header::ACCEPT, accept.to_string()));
    if let Some(auth) = &c.auth {
        req = req.insert_header((header::AUTHORIZATION, auth.clone()));
    }
    c.server.send(req).await
}

/// The quarter of the first vector on a Berlin power curve `DE:BASE`, and an older ondate.
async fn save_berlin(c: &Client<'_>) {
    c.save(
        json!({"_id": "DE", "BASE": {"_type": "VarCurve", "timezone": "Europe/Berlin",
        "currency": "EUR", "units": "MWh", "ondate": "2024-11-14",
        "contracts": [{"tenor": "2025Q01", "value": 90.0}]}}),
    )
    .await;
    c.save(
        json!({"_id": "DE", "BASE": {"_type": "VarCurve", "ondate": "2024-11-15",
        "contracts": [{"tenor": "2025M01", "value": 100.0}, {"tenor": "2025M02", "value": 98.0},
                      {"tenor": "2025Q01", "value": 95.0}]}}),
    )
    .await;
}

#[actix_rt::test]
async fn every_shaping_vector_holds_on_a_curve_get() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let file = vectors("shaping.json");
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for (i, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let curve = &case["curve"];
        let ondate = curve["ondate"].as_str().unwrap();
        let id = format!("V{i}");
        c.save(
            json!({"_id": id, "C": {"_type": "VarCurve", "timezone": curve["timezone"],
            "ondate": ondate, "contracts": curve["contracts"]}}),
        )
        .await;
        let q = &case["query"];
        let (shape, weights) = (q["shape"].as_str().unwrap(), q["weights"].as_str().unwrap());
        // By its ondate, and without one (the newest ondate): the same months.
        for path in [
            format!("/data/v1/private/{id}:C:{ondate}?_shape={shape}&_weights={weights}"),
            format!("/data/v1/private/{id}:C?_shape={shape}&_weights={weights}"),
        ] {
            let r = c.get(&path).await;
            assert_eq!(r.status, 200, "{name}: {:?}", r.body);
            assert_eq!(r.body["shape"], "MONTHLY", "{name}");
            assert_eq!(r.body["weights"], weights, "{name}");
            assert_eq!(r.body["ondate"]["curveDate"], ondate, "{name}");
            let got = r.body["contracts"].as_array().unwrap();
            let want = case["result"].as_array().unwrap();
            assert_eq!(got.len(), want.len(), "{name}: {got:?}");
            for (g, w) in got.iter().zip(want) {
                assert_eq!(g["tenor"], w["tenor"], "{name}");
                assert_eq!(g["properties"]["from"], w["from"], "{name}: {g}");
                let (gv, wv) = (g["value"].as_f64().unwrap(), w["value"].as_f64().unwrap());
                assert!((gv - wv).abs() < 1e-6, "{name}: {g} vs {w}");
            }
            // Each quote missed beyond the tolerance, by how much, and a message naming them.
            let got = r.body["arbitrage"].as_array().unwrap();
            let want = case["arbitrage"].as_array().unwrap();
            assert_eq!(got.len(), want.len(), "{name}: {got:?}");
            for (g, w) in got.iter().zip(want) {
                assert_eq!(g["tenor"], w["tenor"], "{name}");
                let (gm, wm) = (g["miss"].as_f64().unwrap(), w["miss"].as_f64().unwrap());
                assert!((gm - wm).abs() < 1e-8, "{name}: {g} vs {w}");
                let quoted = g["quoted"].as_f64().unwrap();
                assert!((g["fitted"].as_f64().unwrap() - quoted - gm).abs() < 1e-9);
                let message = r.body["message"].as_str().unwrap();
                assert!(message.contains(w["tenor"].as_str().unwrap()), "{message}");
            }
            if want.is_empty() {
                assert!(r.body.get("message").is_none(), "{name}: {:?}", r.body);
            }
            assert_eq!(r.body["tolerance"], 0.01, "{name}");
            // The quoted contracts come with the answer, as read.
            assert_eq!(
                r.body["quoted"].as_array().unwrap().len(),
                curve["contracts"].as_array().unwrap().len(),
                "{name}"
            );
        }
    }
}

#[actix_rt::test]
async fn shaping_weighs_hours_for_power_days_for_gas_and_follows_conversion() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_berlin(&c).await;
    let r = c.get("/data/v1/private/DE:BASE?_shape=monthly").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["weights"], "hours");
    let march = &r.body["contracts"][2];
    assert_eq!(march["properties"]["hours"], 743);
    assert_eq!(
        march["properties"],
        json!({"from": "2025Q01", "absolute": "2025M03", "start": "2025-03-01",
               "end": "2025-03-31", "hours": 743})
    );
    // The older ondate: one quarter, three months at its price.
    let old = c
        .get("/data/v1/private/DE:BASE:2024-11-14?_shape=MONTHLY")
        .await;
    let values: Vec<f64> = old.body["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [90.0, 90.0, 90.0]);
    // A gas curve weighs days by default; `_weights=hours` overrides it.
    c.save(
        json!({"_id": "NBP", "FWD": {"_type": "VarCurve", "commodity": "gas",
        "timezone": "Europe/London", "ondate": "2024-11-15",
        "contracts": [{"tenor": "2025M01", "value": 100.0}, {"tenor": "2025Q01", "value": 95.0}]}}),
    )
    .await;
    let gas = c.get("/data/v1/private/NBP:FWD?_shape=MONTHLY").await.body;
    assert_eq!(gas["weights"], "days");
    let feb = gas["contracts"][1]["value"].as_f64().unwrap();
    assert!(
        (feb - (95.0 * 90.0 - 100.0 * 31.0) / 59.0).abs() < 1e-9,
        "{feb}"
    );
    assert_eq!(gas["contracts"][1]["properties"]["days"], 28);
    let by_hours = c
        .get("/data/v1/private/NBP:FWD?_shape=MONTHLY&_weights=hours")
        .await
        .body;
    assert_eq!(by_hours["weights"], "hours");
    assert_ne!(
        by_hours["contracts"][1]["value"],
        gas["contracts"][1]["value"]
    );
    // Converted first, then shaped: MWh to kWh divides every price by 1000.
    let kwh = c
        .get("/data/v1/private/DE:BASE?_shape=MONTHLY&units=kWh")
        .await
        .body;
    assert_eq!(kwh["units"], "kWh");
    let got = kwh["contracts"][2]["value"].as_f64().unwrap();
    let want = r.body["contracts"][2]["value"].as_f64().unwrap() / 1000.0;
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    // The Rust API gives the same months.
    let who = s.platform.tenancy().local_principal("acme", "ann").unwrap();
    let api = s
        .platform
        .data()
        .shape_curve(&who, "DE:BASE", &Default::default(), &Default::default())
        .unwrap();
    assert_eq!(api.months.len(), 3);
    assert_eq!(api.months[2].value, march["value"].as_f64().unwrap());
}

#[actix_rt::test]
async fn a_shaped_curve_reads_as_csv_and_as_a_step_chart_over_its_quoted_bars() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_berlin(&c).await;
    let r = get_as(&c, "/data/v1/private/DE:BASE?_shape=MONTHLY", "text/csv").await;
    assert_eq!(r.status, 200);
    let text = r.body.as_str().unwrap().to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "tenor,value,from,start,end,hours");
    assert_eq!(lines[1], "2025M01,100.0,2025M01,2025-01-01,2025-01-31,744");
    assert!(
        lines[3].starts_with("2025M03,87.27994616")
            && lines[3].ends_with(",2025Q01,2025-03-01,2025-03-31,743"),
        "{text}"
    );
    assert_eq!(lines.len(), 4);
    let r = get_as(
        &c,
        "/data/v1/private/DE:BASE?_shape=MONTHLY&_weights=days",
        "text/csv",
    )
    .await;
    assert!(r
        .body
        .as_str()
        .unwrap()
        .starts_with("tenor,value,from,start,end,days\n"));
    let r = get_as(
        &c,
        "/data/v1/private/DE:BASE?_shape=MONTHLY",
        "image/svg+xml",
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.header("content-type").as_deref(), Some("image/svg+xml"));
    let svg = r.body.as_str().unwrap().to_string();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let desc = doc
        .descendants()
        .find(|n| n.has_tag_name("desc"))
        .and_then(|n| n.text())
        .unwrap();
    assert_eq!(
        desc,
        "Curve shaped into 3 months, from 2025M01 to 2025M03, over 3 quoted contracts; last \
         value 87.2799 EUR/MWh (2025M03); no failed points."
    );
    // Three bars (the quoted contracts) and their legend's swatch, and the legend's texts.
    let rects = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("opacity") == Some("0.25"))
        .count();
    assert_eq!(rects, 4, "{svg}");
    let texts: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    assert!(texts.contains(&"quoted contracts"), "{texts:?}");
    assert!(texts.contains(&"DE:BASE (months)"), "{texts:?}");
    // A plain read draws no bars.
    let plain = get_as(&c, "/data/v1/private/DE:BASE", "image/svg+xml").await;
    assert!(!plain.body.as_str().unwrap().contains("quoted contracts"));
}

#[actix_rt::test]
async fn bad_shaping_input_is_refused_naming_the_parameter_and_the_values_allowed() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_berlin(&c).await;
    c.save(
        json!({"_id": "DE", "LOAD": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "data": [{"time": "2024-11-15", "value": 1.0}]}}),
    )
    .await;
    let base = "/data/v1/private/DE:BASE";
    let m = c
        .get(&format!("{base}?_shape=WEEKLY"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("_shape") && m.contains("WEEKLY") && m.contains("MONTHLY"),
        "{m}"
    );
    let m = c
        .get(&format!("{base}?_shape=MONTHLY&_weights=kg"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("_weights \"kg\"") && m.contains("hours, days, PEAK, OFFPEAK"),
        "{m}"
    );
    let m = c
        .get(&format!("{base}?_shape=MONTHLY&_tolerance=-0.1"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("_tolerance") && m.contains("at least 0"), "{m}");
    let m = c
        .get(&format!("{base}?_tolerance=0.1"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("needs _shape=MONTHLY"), "{m}");
    // A holiday calendar is not a block: named as such.
    let m = c
        .get(&format!("{base}?_shape=MONTHLY&_weights=%23HENG"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("#HENG") && m.contains("not a block calendar"),
        "{m}"
    );
    let m = c
        .get(&format!("{base}?_weights=days"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("needs _shape=MONTHLY"), "{m}");
    let m = c
        .get(&format!("{base}?_shape=MONTHLY&tenor=M01"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("tenor=") && m.contains("send one"), "{m}");
    let m = c
        .get(&format!("{base}?_shape=MONTHLY&listTenors"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("listTenors"), "{m}");
    let m = c
        .get(&format!("{base}?_shape=MONTHLY&_continuation=M01"))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("_continuation") && m.contains("send one"), "{m}");
    let m = c
        .get("/data/v1/private/DE:LOAD?_shape=MONTHLY")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("time series") && m.contains("_shape"), "{m}");
    let m = c
        .get("/data/v1/private?_shape=MONTHLY&_range=last(1)")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("read it by its id"), "{m}");
    // A curve whose zone is not one: refused on a shaped read, naming the field.
    c.save(
        json!({"_id": "XX", "C": {"_type": "VarCurve", "timezone": "Mars/Olympus",
        "ondate": "2024-11-15", "contracts": [{"tenor": "2025Q01", "value": 1.0}]}}),
    )
    .await;
    let m = c
        .get("/data/v1/private/XX:C?_shape=MONTHLY")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("Mars/Olympus"), "{m}");
    // Nothing changed: the plain read is the curve as sent.
    let plain = c.get(base).await.body;
    assert_eq!(plain["contracts"].as_array().unwrap().len(), 3);
    assert!(plain.get("shape").is_none());
}

/// Berlin peak hours (Monday to Friday 08:00-20:00) of a month of 2025.
fn peak_hours(month: u32) -> f64 {
    use chrono::Datelike;
    let first = chrono::NaiveDate::from_ymd_opt(2025, month, 1).unwrap();
    first
        .iter_days()
        .take_while(|d| d.month() == month)
        .filter(|d| d.weekday().num_days_from_monday() < 5)
        .count() as f64
        * 12.0
}

#[actix_rt::test]
async fn peak_curves_shape_by_peak_hours_or_a_block_calendar_of_their_own() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "DE", "PEAK": {"_type": "VarCurve", "timezone": "Europe/Berlin",
        "ondate": "2024-12-02", "contracts": [{"tenor": "2025M01", "value": 125.0},
        {"tenor": "2025M02", "value": 118.0}, {"tenor": "2025Q01", "value": 115.0},
        {"tenor": "2024D1207", "value": 60.0}]}}),
    )
    .await;
    // By peak hours March is 101.19; by all hours it would be 102.27.
    let r = c
        .get("/data/v1/private/DE:PEAK?_shape=MONTHLY&_weights=PEAK")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["weights"], "PEAK");
    let (jan, feb, mar) = (peak_hours(1), peak_hours(2), peak_hours(3));
    let want = (115.0 * (jan + feb + mar) - 125.0 * jan - 118.0 * feb) / mar;
    let months = r.body["contracts"].as_array().unwrap();
    let march = &months[months.len() - 1];
    assert_eq!(march["tenor"], "2025M03");
    assert!(
        (march["value"].as_f64().unwrap() - want).abs() < 1e-9,
        "{march}"
    );
    assert!((want - 101.19047619).abs() < 1e-6);
    assert_eq!(march["properties"]["hours"], mar as i64);
    // Saturday 7 December has no peak hour: it takes no part, and the answer says so.
    assert_eq!(
        r.body["ignored"],
        json!([{"tenor": "2024D1207", "reason": "its delivery has no PEAK hours"}])
    );
    let message = r.body["message"].as_str().unwrap();
    assert!(
        message.contains("2024D1207 (its delivery has no PEAK hours) took no part"),
        "{message}"
    );
    assert!(r.body["arbitrage"].as_array().unwrap().is_empty());
    let hours = c
        .get("/data/v1/private/DE:PEAK?_shape=MONTHLY&_weights=hours")
        .await
        .body;
    let by_hours = hours["contracts"].as_array().unwrap().last().unwrap()["value"]
        .as_f64()
        .unwrap();
    assert!((by_hours - 102.27).abs() < 0.01, "{by_hours}");
    // A private block calendar (an extended peak, 07:00-22:00 on working days) weighs its own
    // hours: 15 a weekday.
    let r = c
        .post(
            "/calendar/v1",
            json!({"_id": "EXTPEAK", "block": {"days": ["MON", "TUE", "WED", "THU", "FRI"],
                   "hours": [7, 22]}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = c
        .get("/data/v1/private/DE:PEAK?_shape=MONTHLY&_weights=EXTPEAK")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["weights"], "EXTPEAK");
    let months = r.body["contracts"].as_array().unwrap();
    let march = months.last().unwrap();
    assert_eq!(march["properties"]["hours"], (mar / 12.0 * 15.0) as i64);
    // The same weekday share as peak hours: the same March.
    assert!((march["value"].as_f64().unwrap() - want).abs() < 1e-9);
    // The Rust API: the same answer.
    let who = s.platform.tenancy().local_principal("acme", "ann").unwrap();
    let q = platform_core::api::data::ShapeQuery {
        weights: Some(platform_core::api::data::Weights::parse("PEAK").unwrap()),
        ..Default::default()
    };
    let api = s
        .platform
        .data()
        .shape_curve(&who, "DE:PEAK", &Default::default(), &q)
        .unwrap();
    assert!((api.months.last().unwrap().value - want).abs() < 1e-9);
    assert_eq!(api.ignored.len(), 1);
    assert!(api.message.unwrap().contains("2024D1207"));
}

#[actix_rt::test]
async fn quotes_that_disagree_are_fitted_and_named_with_their_misses_beyond_the_tolerance() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // A winter season over the year end, consistent with Cal-26 and its quarters, quoted in
    // cents: rounding leaves misses under a cent, which are fitted silently. The third
    // quarter is off by 2.
    c.save(
        json!({"_id": "DE", "BASE": {"_type": "VarCurve", "timezone": "Europe/Berlin",
        "ondate": "2025-11-20", "contracts": [
            {"tenor": "2026Q01", "value": 104.5}, {"tenor": "2026Q02", "value": 78.25},
            {"tenor": "2026S01", "value": 74.1}, {"tenor": "2026S02", "value": 101.8},
            {"tenor": "2026Y", "value": 88.6}, {"tenor": "2027Y", "value": 86.9}]}}),
    )
    .await;
    let r = c.get("/data/v1/private/DE:BASE?_shape=MONTHLY").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["arbitrage"], json!([]));
    assert!(r.body.get("message").is_none());
    assert_eq!(r.body["contracts"].as_array().unwrap().len(), 24);
    c.save(
        json!({"_id": "DE", "BASE": {"_type": "VarCurve", "ondate": "2025-11-21", "contracts": [
            {"tenor": "2026M01", "value": 100.0}, {"tenor": "2026M02", "value": 100.0},
            {"tenor": "2026M03", "value": 100.0}, {"tenor": "2026Q01", "value": 98.0}]}}),
    )
    .await;
    let r = c.get("/data/v1/private/DE:BASE?_shape=MONTHLY").await;
    let named: Vec<&str> = r.body["arbitrage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["tenor"].as_str().unwrap())
        .collect();
    assert_eq!(named, ["2026M01", "2026M02", "2026M03", "2026Q01"]);
    let q1 = &r.body["arbitrage"][3];
    assert_eq!(q1["quoted"], 98.0);
    // Three months and a quarter off by 2: least squares puts three quarters of it on the
    // quarter (each quote counted once).
    assert!((q1["miss"].as_f64().unwrap() - 1.5).abs() < 0.01, "{q1}");
    let message = r.body["message"].as_str().unwrap();
    assert!(
        message.contains("The quotes 2026M01 (quoted 100, fitted 99.")
            && message.contains("and 2026Q01 (quoted 98, fitted 99.")
            && message.contains("disagree")
            && message.contains("tolerance 0.01"),
        "{message}"
    );
    // A tolerance of 2 fits the same months without naming anything.
    let loose = c
        .get("/data/v1/private/DE:BASE?_shape=MONTHLY&_tolerance=2")
        .await
        .body;
    assert_eq!(loose["tolerance"], 2.0);
    assert_eq!(loose["arbitrage"], json!([]));
    assert_eq!(loose["contracts"], r.body["contracts"]);
}
