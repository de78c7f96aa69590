//! Curves shaped into arbitrage-free months over HTTP (`_shape=MONTHLY`, `_weights`): the spec's
//! shaping vectors end to end, the default weights, CSV and SVG, and bad input.

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
    assert!(cases.len() >= 6);
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
            assert_eq!(r.body["arbitrage"], case["arbitrage"], "{name}");
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
        .shape_curve(&who, "DE:BASE", &Default::default(), None)
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
    assert!(m.contains("_weights") && m.contains("hours or days"), "{m}");
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
