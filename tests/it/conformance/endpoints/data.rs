//! Data service: `{base_url}/data` (read-only): lists, one item, `all` with `_id`, and the query
//! parameters `tenor`, `listTenors`, `_range`, `_id`, `currency`, `units`, `__density`,
//! `_distinct=_objtype` and `_filter`.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

#[actix_rt::test]
async fn tenor_accepts_every_form_accepted_on_input() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (ondate, value) in [("2024-03-01", 29.8), ("2024-04-01", 30.2)] {
        c.save(
            json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate,
            "contracts": [{"tenor": "2024Q3", "value": value}]}}),
        )
        .await;
    }
    for code in ["2024Q3", "2024Q03", "2024q3"] {
        let r = c
            .get(&format!("/data/v1/private/TTF:FWD?tenor={code}"))
            .await;
        assert_eq!(r.status, 200, "{code}: {:?}", r.body);
        assert_eq!(
            r.body["data"],
            json!([{"time": "2024-03-01", "value": 29.8}, {"time": "2024-04-01", "value": 30.2}]),
            "{code}"
        );
    }
    // The relative code rolls: Q02 is 2024Q3 on 2024-03-01 and 2024Q4 on 2024-04-01.
    let r = c.get("/data/v1/private/TTF:FWD?tenor=Q2").await;
    assert_eq!(
        r.body["data"],
        json!([{"time": "2024-03-01", "value": 29.8}])
    );
    c.get("/data/v1/private/TTF:FWD?tenor=2024X9")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

/// A daily series `NBP:SPOT` (GBP per therm) of July 1st to 5th, valued 1 to 5.
async fn series(c: &Client<'_>) {
    let data: Vec<Value> = (1..=5)
        .map(|d| json!({"time": format!("2024-07-{d:02}"), "value": d}))
        .collect();
    c.save(json!({"_id": "NBP", "_type": "GasHub", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "currency": "GBP", "units": "therm", "data": data}}))
        .await;
}

fn ids(body: &Value) -> Vec<String> {
    body.as_array()
        .expect("a list")
        .iter()
        .map(|i| i["_id"].as_str().unwrap().to_string())
        .collect()
}

#[actix_rt::test]
async fn get_source_lists_data_items_paged() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    series(&c).await;
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-07-01",
        "contracts": [{"tenor": "M01", "value": 30}]}, "DA": {"_type": "VarTimeSeries", "data": []}}))
        .await;
    c.save(json!({"_id": "#PUB", "S": {"_type": "VarTimeSeries", "data": []}}))
        .await;
    let r = c.get("/data/v1/private").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (ids(&r.body), r.total()),
        (
            vec!["NBP:SPOT".into(), "TTF:DA".into(), "TTF:FWD".into()],
            3
        )
    );
    let page = c.get("/data/v1/private?_limit=1&_skip=1").await;
    assert_eq!((ids(&page.body), page.total()), (vec!["TTF:DA".into()], 3));
    assert_eq!(ids(&c.get("/data/v1/public").await.body), ["#PUB:S"]);
}

#[actix_rt::test]
async fn get_key_reads_one_data_item_by_data_id() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    series(&c).await;
    let r = c.get("/data/v1/private/NBP:SPOT").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (
            r.body["_id"].clone(),
            r.body["_type"].clone(),
            r.body["data"].as_array().unwrap().len()
        ),
        (json!("NBP:SPOT"), json!("VarTimeSeries"), 5)
    );
    c.get("/data/v1/private/NBP:NONE")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn get_all_with_repeated_ids_reads_data_items_from_both_sources() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    series(&c).await;
    c.save(
        json!({"_id": "#FX.EURGBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "data": [{"time": "2024-07-01", "value": 0.85}]}}),
    )
    .await;
    let r = c
        .get("/data/v1/all?_id=%23FX.EURGBP:SPOT&_id=NBP:SPOT")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(ids(&r.body), ["#FX.EURGBP:SPOT", "NBP:SPOT"]);
    assert_eq!(r.body[0]["data"][0]["value"], 0.85);
    assert_eq!(r.body[1]["data"].as_array().unwrap().len(), 5);
}

#[actix_rt::test]
async fn tenor_gives_the_historic_series_of_one_tenor_and_list_tenors_the_relative_tenors() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (ondate, m1, q1) in [("2024-03-01", 30.0, 32.0), ("2024-03-04", 31.0, 33.0)] {
        c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate,
            "contracts": [{"tenor": "M01", "value": m1}, {"tenor": "Q01", "value": q1}, {"tenor": "BOM", "value": 29}]}}))
            .await;
    }
    let r = c.get("/data/v1/private/TTF:FWD?tenor=M01").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_type"], "VarTimeSeries");
    assert_eq!(
        r.body["data"],
        json!([{"time": "2024-03-01", "value": 30.0}, {"time": "2024-03-04", "value": 31.0}])
    );
    let r = c.get("/data/v1/private/TTF:FWD?listTenors").await;
    assert_eq!(r.body, json!(["BOM", "M01", "Q01"]));
}

#[actix_rt::test]
async fn range_selects_the_observations_of_a_time_series() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    series(&c).await;
    let r = c
        .get("/data/v1/private/NBP:SPOT?_range=between(2024-07-02,2024-07-03)")
        .await;
    assert_eq!(
        r.body["data"],
        json!([{"time": "2024-07-02", "value": 2.0}, {"time": "2024-07-03", "value": 3.0}])
    );
    let r = c.get("/data/v1/private/NBP:SPOT?_range=last(1)").await;
    assert_eq!(
        r.body["data"],
        json!([{"time": "2024-07-05", "value": 5.0}])
    );
}

#[actix_rt::test]
async fn currency_and_units_convert_and_density_overrides_the_product_density() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    series(&c).await;
    c.save(
        json!({"_id": "#FX.EURGBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "data": [{"time": "2024-07-01", "value": 0.8}]}}),
    )
    .await;
    let eur = c
        .get("/data/v1/private/NBP:SPOT?currency=EUR&_range=last(1)")
        .await
        .body;
    assert_eq!(eur["currency"], "EUR");
    let v = eur["data"][0]["value"].as_f64().unwrap();
    assert!((v - 5.0 / 0.8).abs() < 1e-9, "{v}");
    assert_eq!(eur["data"][0]["status"]["source"], "CONVERTED");
    // GBP per therm to GBP per MWh: one MWh is 34.121 therms.
    let mwh = c
        .get("/data/v1/private/NBP:SPOT?units=MWh&_range=last(1)")
        .await
        .body;
    assert_eq!(mwh["units"], "MWh");
    let v = mwh["data"][0]["value"].as_f64().unwrap();
    assert!((v - 5.0 * 34.121_416_331_279).abs() < 1e-6, "{v}");
    // A quantity in tonnes to cubic metres through a density.
    c.save(
        json!({"_id": "DIESEL", "STOCK": {"_type": "VarTimeSeries", "units": "MT",
        "properties": {"density": 800}, "data": [{"time": "2024-07-01T00:00:00Z", "value": 1.0}]}}),
    )
    .await;
    let by_product = c.get("/data/v1/private/DIESEL:STOCK?units=m3").await.body;
    let v = by_product["data"][0]["value"].as_f64().unwrap();
    assert!((v - 1000.0 / 800.0).abs() < 1e-9, "{v}");
    let overridden = c
        .get("/data/v1/private/DIESEL:STOCK?units=m3&__density=1000")
        .await
        .body;
    let v = overridden["data"][0]["value"].as_f64().unwrap();
    assert!((v - 1.0).abs() < 1e-9, "{v}");
}

#[actix_rt::test]
async fn distinct_objtype_lists_the_data_types_and_filter_combines_with_range() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    series(&c).await;
    c.save(json!({"_id": "PWR", "_type": "PowerHub", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "data": [{"time": "2024-07-01", "value": 50}, {"time": "2024-07-02", "value": 51}]}}))
        .await;
    let r = c.get("/data/v1/private?_distinct=_objtype").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body, json!(["GasHub", "PowerHub"]));
    let r = c
        .get("/data/v1/private?_filter=%7B%22_objtype%22%3A%22PowerHub%22%7D&_range=last(1)")
        .await;
    assert_eq!((ids(&r.body), r.total()), (vec!["PWR:SPOT".into()], 1));
    assert_eq!(
        r.body[0]["data"],
        json!([{"time": "2024-07-02", "value": 51.0}])
    );
}
