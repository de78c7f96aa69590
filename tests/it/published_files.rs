//! Files as their publishers write them, imported over HTTP (`POST /data/v1/{source}/{OBJ:PROP}`,
//! text/csv): Elexon's system prices with every column it publishes, and an exchange's
//! settlement prices (`;`, decimal commas, a column per price); `valueColumn` (and
//! `timeColumn`) name the columns to read and the others are left out. Without them an unknown
//! column is refused, naming the columns found and the options.

use crate::common::{Client, Resp, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// The header of the system prices CSV Elexon publishes (BMRS, balancing/settlement/
/// system-prices), with all its columns.
pub const ELEXON_HEADER: &str = "settlementDate,settlementPeriod,startTime,createdDateTime,systemSellPrice,systemBuyPrice,bsadDefaulted,priceDerivationCode,reserveScarcityPrice,netImbalanceVolume,sellPriceAdjustment,buyPriceAdjustment,replacementPrice,replacementPriceReferenceVolume,totalAcceptedOfferVolume,totalAcceptedBidVolume,totalAdjustmentSellVolume,totalAdjustmentBuyVolume,totalSystemTaggedAcceptedOfferVolume,totalSystemTaggedAcceptedBidVolume,totalSystemTaggedAdjustmentSellVolume,totalSystemTaggedAdjustmentBuyVolume";

/// One published row of the file: what it says of a half-hour.
#[derive(Debug, Clone, PartialEq)]
pub struct ElexonRow {
    pub start: String,
    pub sell: f64,
    pub imbalance: f64,
}

/// An Elexon system-price file of three settlement days (a winter day of 48 periods, the
/// spring change's 46 and the autumn change's 50), as published, and the rows it holds. Each
/// period's start is the day's start (London midnight, in UTC) plus 30 minutes a period.
pub fn elexon_file() -> (String, Vec<ElexonRow>) {
    let days = [
        ("2025-01-01", 48, chrono_start("2025-01-01T00:00:00Z")),
        ("2025-03-30", 46, chrono_start("2025-03-30T00:00:00Z")),
        ("2025-10-26", 50, chrono_start("2025-10-25T23:00:00Z")),
    ];
    let mut text = format!("{ELEXON_HEADER}\n");
    let mut rows = Vec::new();
    for (d, (date, periods, midnight)) in days.into_iter().enumerate() {
        for p in 1..=periods {
            let start = midnight + chrono::Duration::minutes(30 * (i64::from(p) - 1));
            let created = start + chrono::Duration::minutes(95);
            let sell = 40.0 + 0.75 * f64::from(p) + 5.0 * d as f64;
            let imbalance = -150.5 + 7.25 * f64::from(p);
            let instant =
                |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%dT%H:%M:%SZ").to_string();
            text.push_str(&format!(
                "{date},{p},{},{},{sell:.2},{sell:.2},False,N,,{imbalance:.3},0,0,,,{:.3},{:.3},0,0,{:.3},{:.3},0,0\n",
                instant(start),
                instant(created),
                420.5 + f64::from(p),
                -371.71 - f64::from(p),
                362.767,
                -371.71,
            ));
            rows.push(ElexonRow {
                start: instant(start),
                sell,
                imbalance,
            });
        }
    }
    (text, rows)
}

fn chrono_start(text: &str) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&chrono::Utc)
}

/// An exchange's settlement prices of one German power base future (EEX-style: `;`-separated,
/// decimal commas, a column per price, the trading day's row empty where nothing traded), and
/// the (trading day, settlement price) it holds.
pub fn eex_file() -> (String, Vec<(String, f64)>) {
    let header = "Trading Date;Product;Delivery Start;Delivery End;Open Price;High Price;Low Price;Last Price;Settlement Price;Volume Exchange;Volume Trade Registration;Open Interest";
    let days = [
        (
            "2024-11-25",
            "97,25",
            "97,80",
            "96,90",
            "97,10",
            "96,50",
            1250,
            480,
            8901,
        ),
        ("2024-11-26", "", "", "", "", "95,75", 0, 120, 8950),
        (
            "2024-11-27",
            "95,60",
            "98,00",
            "95,40",
            "97,95",
            "98,125",
            2210,
            300,
            9012,
        ),
        (
            "2024-11-28",
            "98,00",
            "99,10",
            "97,55",
            "98,80",
            "98,9",
            1875,
            0,
            9120,
        ),
        (
            "2024-11-29",
            "98,50",
            "98,75",
            "96,10",
            "96,30",
            "96,35",
            3020,
            655,
            9033,
        ),
    ];
    let mut text = format!("{header}\n");
    let mut prices = Vec::new();
    for (date, open, high, low, last, settle, volume, registered, interest) in days {
        text.push_str(&format!(
            "{date};DE Base Month Dec-24;2024-12-01;2024-12-31;{open};{high};{low};{last};{settle};{volume};{registered};{interest}\n"
        ));
        prices.push((date.to_string(), settle.replace(',', ".").parse().unwrap()));
    }
    (text, prices)
}

async fn import(c: &Client<'_>, path: &str, text: &str) -> Resp {
    c.post_bytes(path, Some("text/csv"), text).await
}

async fn points(c: &Client<'_>, id: &str) -> Vec<(String, f64)> {
    let r = c.get(&format!("/data/v1/private/{id}")).await;
    assert_eq!(r.status, 200, "{id}: {:?}", r.body);
    r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["time"].as_str().unwrap().to_string(),
                p["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[actix_rt::test]
async fn an_elexon_system_price_file_imports_as_published() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let saved = c.save(json!({"_id": "GB", "name": "Great Britain"})).await;
    let (file, rows) = elexon_file();
    let half_hours = "calendar=HALFHOURLY&timezone=Europe/London";
    // Without a value column: refused, naming the columns found and the option; nothing kept.
    let m = import(&c, &format!("/data/v1/private/GB:SSP?{half_hours}"), &file)
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(
        m.starts_with("line 1: unknown column \"startTime\": the header's columns are settlementDate, settlementPeriod, startTime, createdDateTime, systemSellPrice, systemBuyPrice, bsadDefaulted, priceDerivationCode"),
        "{m}"
    );
    assert!(
        m.contains("name its value column with valueColumn NAME"),
        "{m}"
    );
    let object = c.get("/object/v1/private/GB").await.body;
    assert_eq!(object["_version"], saved["_version"]);
    assert!(object.get("SSP").is_none(), "{object}");

    // The system sell price, keyed by the settlement date and period as now.
    let r = import(
        &c,
        &format!("/data/v1/private/GB:SSP?{half_hours}&valueColumn=systemSellPrice"),
        &file,
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_read"], json!(48 + 46 + 50));
    let ssp = points(&c, "GB:SSP").await;
    assert_eq!(ssp.len(), rows.len());
    for (got, row) in ssp.iter().zip(&rows) {
        assert_eq!(got.0, row.start, "the period's start Elexon publishes");
        assert!(
            close(got.1, (row.sell * 100.0).round() / 100.0),
            "{got:?} {row:?}"
        );
    }
    // The imbalance volume, keyed by its start time instead (any case): the same half-hours.
    let r = import(
        &c,
        &format!("/data/v1/private/GB:NIV?{half_hours}&valueColumn=NETIMBALANCEVOLUME&timeColumn=startTime"),
        &file,
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let niv = points(&c, "GB:NIV").await;
    let expected: Vec<(String, f64)> = rows
        .iter()
        .map(|r| (r.start.clone(), (r.imbalance * 1000.0).round() / 1000.0))
        .collect();
    assert_eq!(niv.len(), expected.len());
    for (got, want) in niv.iter().zip(&expected) {
        assert!(got.0 == want.0 && close(got.1, want.1), "{got:?} {want:?}");
    }
    // A column the header lacks: refused, naming the columns.
    let m = import(
        &c,
        &format!("/data/v1/private/GB:X?{half_hours}&valueColumn=price"),
        &file,
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("valueColumn \"price\": the header has no such column; its columns are settlementDate, settlementPeriod, startTime"),
        "{m}"
    );
}

#[actix_rt::test]
async fn an_exchange_settlement_file_imports_as_published() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "DEPWR", "name": "German power"}))
        .await;
    let (file, prices) = eex_file();
    let m = import(&c, "/data/v1/private/DEPWR:DEC24?calendar=BUSINESS", &file)
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(
        m.contains("unknown column \"Delivery Start\": the header's columns are Trading Date, Product, Delivery Start, Delivery End, Open Price"),
        "{m}"
    );
    let path = "/data/v1/private/DEPWR:DEC24?calendar=BUSINESS&timezone=Europe/Berlin\
                &timeColumn=Trading%20Date&valueColumn=settlement%20price";
    let r = import(&c, path, &file).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_read"], json!(5));
    let r = c.get("/data/v1/private/DEPWR:DEC24").await;
    let got: Vec<(String, Value)> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["time"].as_str().unwrap().to_string(), p["value"].clone()))
        .collect();
    let want: Vec<(String, Value)> = prices.into_iter().map(|(d, p)| (d, json!(p))).collect();
    assert_eq!(got, want);
}
