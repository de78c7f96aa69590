//! Tenor codes over HTTP: every row of docs/tenors.md resolves as the page says, weekend and
//! next-day products (`WKD`, `SAT`, `SUN`) take part in curves, their histories and shaping,
//! and a code that does not parse is refused naming the forms.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

/// The rows of the table "Every code, with an example" of docs/tenors.md: code, ondate,
/// absolute, start, end.
fn documented() -> Vec<[String; 5]> {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tenors.md")).unwrap();
    let table = page.split("## Every code, with an example").nth(1).unwrap();
    table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<String> = l
                .split('|')
                .map(|c| c.trim().trim_matches('`').to_string())
                .collect();
            [
                cells[1].clone(),
                cells[3].clone(),
                cells[4].clone(),
                cells[5].clone(),
                cells[6].clone(),
            ]
        })
        .collect()
}

#[actix_rt::test]
async fn every_documented_tenor_code_resolves_as_the_page_says() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let rows = documented();
    assert!(rows.len() >= 25, "{rows:?}");
    let units = [
        "D", "DA", "WKD", "SAT", "SUN", "W", "BOW", "BOM", "BOQ", "BOY", "M", "Q",
    ];
    for unit in units.iter().chain(&["S", "HY", "Y"]) {
        assert!(
            rows.iter().any(|r| r[0]
                .trim_start_matches(char::is_numeric)
                .trim_end_matches(char::is_numeric)
                == *unit),
            "docs/tenors.md has no example of {unit}"
        );
    }
    for (i, [code, ondate, absolute, start, end]) in rows.iter().enumerate() {
        c.save(
            json!({"_id": "T", format!("R{i}"): {"_type": "VarCurve", "ondate": ondate,
            "contracts": [{"tenor": code, "value": 1.0}]}}),
        )
        .await;
        let r = c.get(&format!("/data/v1/private/T:R{i}")).await;
        assert_eq!(r.status, 200, "{code}: {:?}", r.body);
        let props = &r.body["contracts"][0]["properties"];
        let got_absolute = props["absolute"].as_str().unwrap_or_default();
        assert_eq!(
            (got_absolute, props["start"].as_str(), props["end"].as_str()),
            (absolute.as_str(), Some(start.as_str()), Some(end.as_str())),
            "{code} at {ondate}: {props}"
        );
    }
}

#[actix_rt::test]
async fn weekend_and_next_day_products_take_part_in_curves_histories_and_shaping() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // Wednesday and Thursday: the weekend of 30 November and 1 December both days.
    for (ondate, wkd) in [("2024-11-27", 61.5), ("2024-11-28", 62.25)] {
        c.save(
            json!({"_id": "GB", "FWD": {"_type": "VarCurve", "timezone": "Europe/London",
            "ondate": ondate, "contracts": [
                {"tenor": "WKD01", "value": wkd}, {"tenor": "SAT", "value": 60.0},
                {"tenor": "SUN", "value": 63.0}, {"tenor": "BOM", "value": 70.0},
                {"tenor": "M01", "value": 80.0}]}}),
        )
        .await;
    }
    let r = c.get("/data/v1/private/GB:FWD:2024-11-27").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let wkd = &r.body["contracts"][0];
    assert_eq!(
        (
            &wkd["tenor"],
            &wkd["properties"]["absolute"],
            &wkd["properties"]["relative"]
        ),
        (&json!("WKD01"), &json!("2024WKD48"), &json!("WKD01"))
    );
    assert_eq!(
        (
            &wkd["properties"]["start"],
            &wkd["properties"]["end"],
            &wkd["properties"]["expiry"]
        ),
        (
            &json!("2024-11-30"),
            &json!("2024-12-01"),
            &json!("2024-11-29")
        )
    );
    let sat = &r.body["contracts"][1]["properties"];
    assert_eq!(
        (&sat["absolute"], &sat["relative"]),
        (&json!("2024D1130"), &json!("SAT"))
    );
    // The rolling weekend's history over both ondates, and the codes listed.
    let h = c.get("/data/v1/private/GB:FWD?tenor=WKD01").await;
    let values: Vec<f64> = h.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [61.5, 62.25]);
    let codes = c.get("/data/v1/private/GB:FWD?listTenors").await.body;
    assert_eq!(codes, json!(["BOM", "SAT", "SUN", "WKD01", "M01"]));
    // Shaped: November's priced days are the balance (28-30 November, with Saturday in the
    // weekend and itself quoted); its average is the balance's price.
    let shaped = c
        .get("/data/v1/private/GB:FWD:2024-11-27?_shape=MONTHLY&_weights=days")
        .await
        .body;
    let nov = &shaped["contracts"][0];
    assert_eq!(nov["tenor"], "2024M11");
    assert!(
        (nov["value"].as_f64().unwrap() - 70.0).abs() < 1e-9,
        "{shaped}"
    );
    assert_eq!(nov["properties"]["from"], "BOM");
    // December: the month's quote is met, Sunday the 1st keeps its own price.
    let dec = &shaped["contracts"][1];
    assert!(
        (dec["value"].as_f64().unwrap() - 80.0).abs() < 1e-9,
        "{shaped}"
    );
    // Saturday, Sunday and the weekend disagree by 0.0 (61.5 = (60 + 63) / 2): nothing named.
    assert_eq!(shaped["arbitrage"], json!([]));
}

#[actix_rt::test]
async fn a_tenor_code_that_does_not_parse_is_refused_naming_the_forms() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (code, says) in [
        (
            "FORTNIGHT",
            "WKD01, HY02, ...), BOW, BOM, BOQ, BOY, SAT, SUN or an absolute code",
        ),
        (
            "WKDX",
            "index \"X\" after WKD must be a non-negative number",
        ),
        ("2021WKD53", "ISO year 2021 has no week 53"),
    ] {
        let r = c
            .post(
                "/object/v1",
                json!({"_id": "GB", "FWD": {"_type": "VarCurve", "ondate": "2024-11-27",
                       "contracts": [{"tenor": code, "value": 1.0}]}}),
            )
            .await;
        let m = r.assert_error(400, "INVALID_PARAMETER");
        assert!(
            m.contains(&format!("\"{code}\"")) && m.contains(says),
            "{m}"
        );
    }
    assert_eq!(c.get("/data/v1/private/GB:FWD").await.status, 404);
}

/// The Rust API reads and writes the same codes: a weekend and a Saturday written with
/// `write_curve` come back with their deliveries and absolute codes.
#[actix_rt::test]
async fn weekend_codes_go_through_the_rust_api() {
    let s = TestServer::new();
    let who = s.platform.tenancy().local_principal("acme", "ann").unwrap();
    let ondate = chrono::NaiveDate::from_ymd_opt(2024, 11, 27).unwrap();
    let quotes = [
        platform_core::api::data::Contract::new("WKD01", 61.5),
        platform_core::api::data::Contract::new("SAT", 60.0),
        platform_core::api::data::Contract::new("2024WKD49", 58.0),
    ];
    s.platform
        .data()
        .write_curve(&who, "GB:FWD", ondate, &quotes, &Default::default())
        .unwrap();
    let curve = s
        .platform
        .data()
        .curve(&who, "GB:FWD", &Default::default())
        .unwrap();
    let got: Vec<(&str, Option<&str>, String, String)> = curve
        .contracts
        .iter()
        .map(|c| {
            (
                c.tenor.as_str(),
                c.absolute.as_deref(),
                c.start.to_string(),
                c.end.to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "WKD01",
                Some("2024WKD48"),
                "2024-11-30".into(),
                "2024-12-01".into()
            ),
            (
                "SAT",
                Some("2024D1130"),
                "2024-11-30".into(),
                "2024-11-30".into()
            ),
            (
                "2024WKD49",
                Some("2024WKD49"),
                "2024-12-07".into(),
                "2024-12-08".into()
            ),
        ]
    );
}
