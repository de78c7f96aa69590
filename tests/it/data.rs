//! Time series and curves over HTTP: written through objects, read through the data service.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

fn times(item: &Value) -> Vec<String> {
    item["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["time"].as_str().unwrap().to_string())
        .collect()
}

fn values(item: &Value) -> Vec<Value> {
    item["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["value"].clone())
        .collect()
}

async fn save_series(c: &Client<'_>, data: Value) -> Value {
    c.save(
        json!({"_id": "NBP", "_type": "#GasHub", "name": "NBP", "SPOT": {
            "_type": "VarTimeSeries", "calendar": "BUSINESS", "timezone": "Europe/London",
            "currency": "GBP", "units": "therm", "data": data
        }}),
    )
    .await
}

#[actix_rt::test]
async fn a_series_is_written_with_its_object_and_read_by_data_id() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let saved = save_series(&c, json!([{"time": "2024-07-01", "value": 80.5}, {"time": "2024-07-02", "value": 81.0, "status": {"quality": "VALID", "reliability": "QUOTED"}}])).await;
    // The object keeps the header, not the observations.
    assert_eq!(saved["SPOT"]["calendar"], "BUSINESS");
    assert!(saved["SPOT"].get("data").is_none());
    let r = c.get("/data/v1/private/NBP:SPOT").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let item = r.body;
    assert_eq!(item["_id"], "NBP:SPOT");
    assert_eq!(item["_type"], "VarTimeSeries");
    assert_eq!(
        (
            item["_objid"].clone(),
            item["_dataid"].clone(),
            item["_objtype"].clone()
        ),
        (json!("NBP"), json!("SPOT"), json!("#GasHub"))
    );
    assert_eq!(
        (item["currency"].clone(), item["units"].clone()),
        (json!("GBP"), json!("therm"))
    );
    assert_eq!(item["_version"], 1);
    assert_eq!(times(&item), vec!["2024-07-01", "2024-07-02"]);
    assert_eq!(
        item["data"][1]["status"],
        json!({"quality": "VALID", "reliability": "QUOTED"})
    );
    // _profile on the object gives the same item.
    let profile = c.get("/object/v1/private/NBP?_profile=SPOT").await;
    assert_eq!(profile.body, item);
}

#[actix_rt::test]
async fn saves_merge_observations_and_mark_changes() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_series(
        &c,
        json!([{"time": "2024-07-01", "value": 1}, {"time": "2024-07-02", "value": 2}]),
    )
    .await;
    let v2 = save_series(
        &c,
        json!([{"time": "2024-07-02", "value": 20}, {"time": "2024-07-03", "value": 3}]),
    )
    .await;
    assert_eq!(v2["_version"], 2);
    let item = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(values(&item), vec![json!(1.0), json!(20.0), json!(3.0)]);
    assert_eq!(item["data"][1]["status"]["source"], "CHANGED");
    assert!(item["data"][2].get("status").is_none());
    // The same observations again change nothing: no new version.
    let again = save_series(&c, json!([{"time": "2024-07-03", "value": 3}])).await;
    assert_eq!(again["_version"], 2);
    // Version 1's data stays readable.
    let v1 = c.get("/data/v1/private/NBP:SPOT?_version=1").await.body;
    assert_eq!(values(&v1), vec![json!(1.0), json!(2.0)]);
    assert_eq!(v1["_id"], "NBP/1:SPOT");
}

#[actix_rt::test]
async fn rolling_back_the_object_rolls_back_its_data() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_series(&c, json!([{"time": "2024-07-01", "value": 1}])).await;
    save_series(
        &c,
        json!([{"time": "2024-07-01", "value": 10}, {"time": "2024-07-02", "value": 2}]),
    )
    .await;
    assert_eq!(c.delete("/object/v1/private/NBP").await.body["current"], 1);
    let item = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(values(&item), vec![json!(1.0)]);
    // A new save after the rollback takes version 2 again, with its own data.
    save_series(&c, json!([{"time": "2024-07-03", "value": 3}])).await;
    let item = c.get("/data/v1/private/NBP:SPOT").await.body;
    assert_eq!(times(&item), vec!["2024-07-01", "2024-07-03"]);
    // Deleting the object deletes its data.
    c.delete("/object/v1/private/NBP/*").await;
    c.get("/data/v1/private/NBP:SPOT")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn replace_and_removing_the_property_clear_the_series() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_series(
        &c,
        json!([{"time": "2024-07-01", "value": 1}, {"time": "2024-07-02", "value": 2}]),
    )
    .await;
    let r = c
        .post("/object/v1?_replace=true", json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2024-07-06", "value": 6}]}}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        times(&c.get("/data/v1/private/NBP:SPOT").await.body),
        vec!["2024-07-06"]
    );
    c.post(
        "/object/v1?_replace=true",
        json!({"_id": "NBP", "name": "no data"}),
    )
    .await;
    c.get("/data/v1/private/NBP:SPOT")
        .await
        .assert_error(404, "NOT_FOUND");
    // Rolling back brings the series back.
    c.delete("/object/v1/private/NBP").await;
    assert_eq!(
        times(&c.get("/data/v1/private/NBP:SPOT").await.body),
        vec!["2024-07-06"]
    );
}

#[actix_rt::test]
async fn replace_data_replaces_the_observations_sent_and_merges_the_rest() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let series = |data: Value| json!({"_type": "VarTimeSeries", "calendar": "DAILY", "data": data});
    let first = json!([{"time": "2024-07-01", "value": 1}, {"time": "2024-07-02", "value": 2}]);
    c.post(
        "/object/v1",
        json!({"_id": "NBP", "name": "kept", "SPOT": series(first.clone()), "FWD": series(json!([{"time": "2024-07-01", "value": 9}]))}),
    )
    .await;
    // Only SPOT is sent: its observations become the ones sent; FWD and the name stay.
    let r = c
        .post(
            "/object/v1?_replaceData=true&_reason=reload",
            json!({"_id": "NBP", "SPOT": series(json!([{"time": "2024-07-05", "value": 5}]))}),
        )
        .await;
    assert_eq!(
        (r.status, &r.body["_version"]),
        (200, &json!(2)),
        "{:?}",
        r.body
    );
    assert_eq!(r.body["name"], "kept");
    assert_eq!(
        times(&c.get("/data/v1/private/NBP:SPOT").await.body),
        vec!["2024-07-05"]
    );
    assert_eq!(
        times(&c.get("/data/v1/private/NBP:FWD").await.body),
        vec!["2024-07-01"]
    );
    // The same again changes nothing; a header-only save keeps the observations.
    let r = c
        .post(
            "/object/v1?_replaceData=true",
            json!({"_id": "NBP", "SPOT": series(json!([{"time": "2024-07-05", "value": 5}]))}),
        )
        .await;
    assert_eq!(r.body["_version"], 2, "{:?}", r.body);
    c.post(
        "/object/v1?_replaceData=true",
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "units": "MWh"}}),
    )
    .await;
    assert_eq!(
        times(&c.get("/data/v1/private/NBP:SPOT").await.body),
        vec!["2024-07-05"]
    );
    // Without it observations merge; a bad value is refused.
    c.post("/object/v1", json!({"_id": "NBP", "SPOT": series(first)}))
        .await;
    assert_eq!(
        times(&c.get("/data/v1/private/NBP:SPOT").await.body),
        vec!["2024-07-01", "2024-07-02", "2024-07-05"]
    );
    let m = c
        .post(
            "/object/v1?_replaceData=maybe",
            json!({"_id": "NBP", "SPOT": series(json!([]))}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("_replaceData"), "{m}");
    assert_eq!(
        times(&c.get("/data/v1/private/NBP:SPOT").await.body),
        vec!["2024-07-01", "2024-07-02", "2024-07-05"]
    );
}

#[actix_rt::test]
async fn ranges_select_observations() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let data: Vec<Value> = (1..=31)
        .map(|d| json!({"time": format!("2024-07-{d:02}"), "value": d}))
        .filter(|o| {
            let d =
                chrono::NaiveDate::parse_from_str(o["time"].as_str().unwrap(), "%Y-%m-%d").unwrap();
            !matches!(
                chrono::Datelike::weekday(&d),
                chrono::Weekday::Sat | chrono::Weekday::Sun
            )
        })
        .collect();
    save_series(&c, Value::Array(data)).await;
    let get = |range: &str| {
        let c = c.clone();
        let url = format!("/data/v1/private/NBP:SPOT?_range={range}");
        async move {
            let r = c.get(&url).await;
            assert_eq!(r.status, 200, "{url}: {:?}", r.body);
            times(&r.body)
        }
    };
    assert_eq!(get("last(2)").await, vec!["2024-07-30", "2024-07-31"]);
    assert_eq!(
        get("between(2024-07-10,2024-07-12)").await,
        vec!["2024-07-10", "2024-07-11", "2024-07-12"]
    );
    assert_eq!(
        get("from(2024-07-29)").await,
        vec!["2024-07-29", "2024-07-30", "2024-07-31"]
    );
    // In the series zone: from 2024-07-29T00:00 London time.
    assert_eq!(
        get("from(2024-07-29,Europe/London)").await,
        vec!["2024-07-29", "2024-07-30", "2024-07-31"]
    );
    assert_eq!(get("within(2024-06)").await, Vec::<String>::new());
    assert_eq!(
        get("between(2024-07-05,2024-07-08)").await,
        vec!["2024-07-05", "2024-07-08"]
    );
    c.get("/data/v1/private/NBP:SPOT?_range=last(-1)")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    c.get("/data/v1/private/NBP:SPOT?_range=from(2024-01-01,Mars/Base)")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn bad_observations_store_nothing() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_series(&c, json!([{"time": "2024-07-01", "value": 1}])).await;
    // A Saturday on a BUSINESS calendar.
    let m = c
        .post("/object/v1", json!({"_id": "NBP", "name": "changed", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02", "value": 2}, {"time": "2024-07-06", "value": 6}]}}))
        .await
        .assert_error(400, "INDEX_ALIGN");
    assert!(m.contains("2024-07-06") && m.contains("BUSINESS"), "{m}");
    let m = c
        .post("/object/v1", json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "July 2nd", "value": 2}]}}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("July 2nd"), "{m}");
    c.post("/object/v1", json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02", "value": [1]}]}}))
        .await
        .assert_error(400, "INVALID_BODY");
    c.post("/object/v1", json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02", "value": 1, "status": {"quality": "GREAT"}}]}}))
        .await
        .assert_error(400, "INVALID_BODY");
    c.post(
        "/object/v1",
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "timezone": "Mars/Base"}}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
    let obj = c.get("/object/v1/private/NBP").await.body;
    assert_eq!(
        (obj["name"].clone(), obj["_version"].clone()),
        (json!("NBP"), json!(1))
    );
    assert_eq!(
        times(&c.get("/data/v1/private/NBP:SPOT").await.body),
        vec!["2024-07-01"]
    );
}

#[actix_rt::test]
async fn the_data_service_is_read_only() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_series(&c, json!([{"time": "2024-07-01", "value": 1}])).await;
    c.post("/data/v1", json!({"_id": "X"}))
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    c.post("/data/v1/private", json!({"_id": "X"}))
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    c.delete("/data/v1/private/NBP:SPOT")
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    c.get("/data/v1/private/NBP:NOPE")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/data/v1/private/NBP")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    c.get("/data/v1/public/NBP:SPOT")
        .await
        .assert_error(404, "NOT_FOUND");
}

async fn save_curve(c: &Client<'_>, ondate: &str, shift: f64) -> Value {
    c.save(json!({"_id": "TTF", "_type": "#GasHub", "FWD": {
        "_type": "VarCurve", "currency": "EUR", "units": "MWh",
        "ondate": {"curveDate": ondate},
        "contracts": [
            {"tenor": "M01", "value": 30.0 + shift},
            {"tenor": "M02", "value": 31.0 + shift},
            {"tenor": "Q01", "value": 32.0 + shift},
            {"tenor": "2025Y", "value": 33.0 + shift}
        ]
    }}))
    .await
}

#[actix_rt::test]
async fn curves_one_per_ondate_with_contract_periods() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_curve(&c, "2024-03-01", 0.0).await;
    save_curve(&c, "2024-03-04", 1.0).await;
    let one = c.get("/data/v1/private/TTF:FWD:2024-03-01").await;
    assert_eq!(one.status, 200, "{:?}", one.body);
    assert_eq!(one.body["_id"], "TTF:FWD:2024-03-01");
    assert_eq!(one.body["ondate"]["curveDate"], "2024-03-01");
    let m01 = &one.body["contracts"][0];
    assert_eq!(
        m01["properties"],
        json!({"absolute": "2024M04", "relative": "M01", "start": "2024-04-01", "end": "2024-04-30", "expiry": "2024-03-31"})
    );
    // An absolute code keeps its form; its relative code is in the properties.
    assert_eq!(one.body["contracts"][3]["tenor"], "2025Y");
    assert_eq!(one.body["contracts"][3]["properties"]["relative"], "Y01");
    // Without an ondate: the newest curve.
    let newest = c.get("/data/v1/private/TTF:FWD").await.body;
    assert_eq!(newest["ondate"]["curveDate"], "2024-03-04");
    assert_eq!(newest["contracts"][0]["value"], 31.0);
    // Saving an ondate again replaces only that ondate's contracts.
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 99}]}})).await;
    let replaced = c.get("/data/v1/private/TTF:FWD:2024-03-01").await.body;
    assert_eq!(replaced["contracts"].as_array().unwrap().len(), 1);
    assert_eq!(
        c.get("/data/v1/private/TTF:FWD:2024-03-04").await.body["contracts"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    // Tenor history and the list of tenors.
    let m01 = c.get("/data/v1/private/TTF:FWD?tenor=M01").await.body;
    assert_eq!(m01["_type"], "VarTimeSeries");
    assert_eq!(
        m01["data"],
        json!([{"time": "2024-03-01", "value": 99.0}, {"time": "2024-03-04", "value": 31.0}])
    );
    let abs = c.get("/data/v1/private/TTF:FWD?tenor=2024M05").await.body;
    assert_eq!(abs["data"], json!([{"time": "2024-03-04", "value": 32.0}]));
    let tenors = c.get("/data/v1/private/TTF:FWD?listTenors").await.body;
    assert_eq!(tenors, json!(["M01", "M02", "Q01", "Y01"]));
    // Rollback removes the replaced ondate's new contracts.
    c.delete("/object/v1/private/TTF").await;
    assert_eq!(
        c.get("/data/v1/private/TTF:FWD:2024-03-01").await.body["contracts"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[actix_rt::test]
async fn bad_curves_store_nothing() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_curve(&c, "2024-03-01", 0.0).await;
    let m = c.post("/object/v1", json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "contracts": [{"tenor": "M01", "value": 1}]}})).await.assert_error(400, "MISSING_PARAMETER");
    assert!(m.contains("ondate"), "{m}");
    let m = c
        .post("/object/v1", json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-02", "contracts": [{"tenor": "X99", "value": 1}]}}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("X99"), "{m}");
    c.get("/data/v1/private/TTF:FWD:2024-03-02")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/data/v1/private/TTF:FWD?tenor=Z9")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert_eq!(c.get("/object/v1/private/TTF").await.body["_version"], 1);
}

#[actix_rt::test]
async fn data_lists_filter_and_range_each_item() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    save_series(
        &c,
        json!([{"time": "2024-07-01", "value": 1}, {"time": "2024-07-02", "value": 2}]),
    )
    .await;
    save_curve(&c, "2024-03-01", 0.0).await;
    c.save(json!({"_id": "#FX.EURGBP", "_type": "#FX", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2024-07-01", "value": 0.85}]}})).await;
    let r = c.get("/data/v1/private?_range=last(1)").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.total(), 2);
    let ids: Vec<&str> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["_id"].as_str().unwrap())
        .collect();
    // A curve with `_range` is its curves in the range, each the data item of its ondate
    // (decisions 13): here the newest, as before.
    assert_eq!(ids, vec!["NBP:SPOT", "TTF:FWD:2024-03-01"]);
    assert_eq!(r.body[1]["ondate"]["curveDate"], "2024-03-01");
    assert_eq!(
        r.body[0]["data"],
        json!([{"time": "2024-07-02", "value": 2.0}])
    );
    let fx = c
        .get("/data/v1/all?_filter=%7B%22_objtype%22%3A%22%23FX%22%7D")
        .await;
    assert_eq!(fx.total(), 1);
    assert_eq!(fx.body[0]["_id"], "#FX.EURGBP:SPOT");
    let types = c.get("/data/v1/all?_distinct=_objtype").await;
    assert_eq!(types.body, json!(["#FX", "#GasHub"]));
    let many = c
        .get("/data/v1/all?_id=%23FX.EURGBP:SPOT&_id=NBP:SPOT&_id=NOPE:X&_range=last(1)")
        .await;
    assert_eq!(many.total(), 2);
}

#[actix_rt::test]
async fn a_data_list_without_range_is_a_catalogue_of_headers_and_extents() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_series(
        &c,
        json!([{"time": "2024-07-01", "value": 1}, {"time": "2024-07-02", "value": 2}, {"time": "2024-07-03", "value": 3}]),
    )
    .await;
    save_curve(&c, "2024-03-01", 0.0).await;
    save_curve(&c, "2024-03-04", 1.0).await;
    c.save(json!({"_id": "EMPTY", "S": {"_type": "VarTimeSeries", "calendar": "HOURLY"}}))
        .await;
    let r = c.get("/data/v1/private").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.total(), 3);
    let items = r.body.as_array().unwrap();
    let by_id = |id: &str| {
        items
            .iter()
            .find(|i| i["_id"] == id)
            .unwrap_or_else(|| panic!("{id} in {items:?}"))
    };
    let nbp = by_id("NBP:SPOT");
    assert!(nbp.get("data").is_none(), "{nbp}");
    assert_eq!(
        (
            nbp["calendar"].clone(),
            nbp["timezone"].clone(),
            nbp["units"].clone(),
            nbp["currency"].clone(),
            nbp["_version"].clone(),
            nbp["_objid"].clone(),
            nbp["_type"].clone()
        ),
        (
            json!("BUSINESS"),
            json!("Europe/London"),
            json!("therm"),
            json!("GBP"),
            json!(1),
            json!("NBP"),
            json!("VarTimeSeries")
        )
    );
    assert_eq!(
        (
            nbp["_count"].clone(),
            nbp["_first"].clone(),
            nbp["_last"].clone()
        ),
        (json!(3), json!("2024-07-01"), json!("2024-07-03"))
    );
    let ttf = by_id("TTF:FWD");
    assert!(
        ttf.get("contracts").is_none() && ttf.get("ondate").is_none(),
        "{ttf}"
    );
    assert_eq!(
        (
            ttf["_count"].clone(),
            ttf["_first"].clone(),
            ttf["_last"].clone(),
            ttf["_version"].clone()
        ),
        (json!(2), json!("2024-03-01"), json!("2024-03-04"), json!(2))
    );
    let empty = by_id("EMPTY:S");
    assert_eq!(
        (
            empty["_count"].clone(),
            empty["_first"].clone(),
            empty["_last"].clone()
        ),
        (json!(0), Value::Null, Value::Null)
    );
    // With _range each series carries its observations in the range; paging as before.
    let r = c
        .get("/data/v1/private?_range=from(2024-07-02)&_limit=1&_sort=_id")
        .await;
    assert_eq!(r.total(), 3);
    assert_eq!(r.body.as_array().unwrap().len(), 1);
    assert_eq!(r.body[0]["_id"], "EMPTY:S");
    let r = c
        .get("/data/v1/private?_range=from(2024-07-02)&_skip=1&_limit=1&_sort=_id")
        .await;
    assert_eq!(times(&r.body[0]), vec!["2024-07-02", "2024-07-03"]);
    // A rolled-back series shows the extent of the version that is current again.
    save_series(&c, json!([{"time": "2024-07-04", "value": 4}])).await;
    let nbp = c
        .get("/data/v1/private?_filter=%7B%22_objid%22%3A%22NBP%22%7D")
        .await;
    assert_eq!(
        (nbp.body[0]["_count"].clone(), nbp.body[0]["_last"].clone()),
        (json!(4), json!("2024-07-04"))
    );
    c.delete("/object/v1/private/NBP").await;
    let nbp = c
        .get("/data/v1/private?_filter=%7B%22_objid%22%3A%22NBP%22%7D")
        .await;
    assert_eq!(
        (nbp.body[0]["_count"].clone(), nbp.body[0]["_last"].clone()),
        (json!(3), json!("2024-07-03"))
    );
}

/// Business days of July 2024 in London, valued by their day of the month.
async fn july(c: &Client<'_>) {
    let data: Vec<Value> = (1..=31)
        .filter_map(|d| {
            let date = chrono::NaiveDate::from_ymd_opt(2024, 7, d).unwrap();
            let weekend = matches!(
                chrono::Datelike::weekday(&date),
                chrono::Weekday::Sat | chrono::Weekday::Sun
            );
            (!weekend).then(|| json!({"time": date.to_string(), "value": d}))
        })
        .collect();
    save_series(c, Value::Array(data)).await;
}

async fn range_times(c: &Client<'_>, id: &str, range: &str) -> Vec<String> {
    let r = c
        .get(&format!("/data/v1/private/{id}?_range={range}"))
        .await;
    assert_eq!(r.status, 200, "{range}: {:?}", r.body);
    times(&r.body)
}

#[actix_rt::test]
async fn date_rules_and_tenors_in_ranges_at_a_fixed_clock() {
    let s = TestServer::at("2024-07-31T12:00:00Z");
    let c = s.client(Role::Writer);
    july(&c).await;
    assert_eq!(
        range_times(&c, "NBP:SPOT", "from(T-2D)").await,
        vec!["2024-07-30", "2024-07-31"]
    );
    assert_eq!(
        range_times(&c, "NBP:SPOT", "from(t-1Bh0m0s0)").await,
        vec!["2024-07-30", "2024-07-31"]
    );
    // A date rule is an instant: London midnight of the 25th (23:00Z on the 24th) lies between.
    assert_eq!(
        range_times(&c, "NBP:SPOT", "between(T-1W,T-6D)").await,
        vec!["2024-07-25"]
    );
    assert_eq!(
        range_times(&c, "NBP:SPOT", "between(T-1Wh0m0s0,T-5Dh0m0s0)").await,
        vec!["2024-07-24", "2024-07-25", "2024-07-26"]
    );
    // The first day of the month, in the series zone.
    assert_eq!(
        range_times(&c, "NBP:SPOT", "between(t-D1h0m0s0,t-D2h0m0s0)").await,
        vec!["2024-07-01", "2024-07-02"]
    );
    // An absolute tenor names its delivery period.
    assert_eq!(
        range_times(&c, "NBP:SPOT", "2024W31").await,
        vec!["2024-07-29", "2024-07-30", "2024-07-31"]
    );
    assert_eq!(
        range_times(&c, "NBP:SPOT", "within(2024M07)").await.len(),
        23
    );
    assert_eq!(range_times(&c, "NBP:SPOT", "within(2024)").await.len(), 23);
    c.get("/data/v1/private/NBP:SPOT?_range=from(T-1X)")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn ranges_at_each_precision_on_an_intraday_series() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let data: Vec<Value> = (0..48)
        .map(|i| json!({"time": format!("2024-01-01T{:02}:{:02}:00Z", i / 2, (i % 2) * 30), "value": i}))
        .collect();
    c.save(json!({"_id": "PWR", "HH": {"_type": "VarTimeSeries", "calendar": "HALFHOURLY", "data": data}})).await;
    assert_eq!(
        range_times(&c, "PWR:HH", "within(2024-01-01T10)").await,
        vec!["2024-01-01T10:00:00Z", "2024-01-01T10:30:00Z"]
    );
    assert_eq!(
        range_times(&c, "PWR:HH", "within(2024-01-01T10:30)").await,
        vec!["2024-01-01T10:30:00Z"]
    );
    assert_eq!(
        range_times(&c, "PWR:HH", "within(2024-01-01T10:30:00)").await,
        vec!["2024-01-01T10:30:00Z"]
    );
    assert_eq!(
        range_times(&c, "PWR:HH", "between(2024-01-01T22,2024-01-01T23:00)")
            .await
            .len(),
        3
    );
    assert_eq!(
        range_times(&c, "PWR:HH", "within(2024-01-01)").await.len(),
        48
    );
    assert_eq!(range_times(&c, "PWR:HH", "within(2024-01)").await.len(), 48);
    // In Paris (UTC+1 in winter) the local day 2024-01-01 starts at 23:00 UTC the day before.
    assert_eq!(
        range_times(&c, "PWR:HH", "within(2024-01-01,Europe/Paris)")
            .await
            .len(),
        46
    );
    assert_eq!(
        range_times(&c, "PWR:HH", "from(2024-01-01T23:00,Europe/Paris)").await,
        vec![
            "2024-01-01T22:00:00Z",
            "2024-01-01T22:30:00Z",
            "2024-01-01T23:00:00Z",
            "2024-01-01T23:30:00Z"
        ]
    );
    c.post("/object/v1", json!({"_id": "PWR", "HH": {"_type": "VarTimeSeries", "data": [{"time": "2024-01-02T00:10:00Z", "value": 1}]}}))
        .await
        .assert_error(400, "INDEX_ALIGN");
}

#[actix_rt::test]
async fn units_and_currency_conversion() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    save_series(
        &c,
        json!([{"time": "2024-07-01", "value": 100.0}, {"time": "2024-07-02", "value": 50.0}]),
    )
    .await;
    // EURGBP 0.85 from July 1st: GBP to EUR divides by it (the inverse pair).
    c.save(json!({"_id": "#FX.EURGBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2024-06-28", "value": 0.8}, {"time": "2024-07-02", "value": 0.85}]}})).await;
    let per_mwh = c.get("/data/v1/private/NBP:SPOT?units=MWh").await.body;
    assert_eq!(per_mwh["units"], "MWh");
    let v = per_mwh["data"][0]["value"].as_f64().unwrap();
    assert!((v - 100.0 * 34.121_416_331_279).abs() < 1e-6, "{v}");
    assert_eq!(per_mwh["data"][0]["status"]["source"], "CONVERTED");
    let eur = c.get("/data/v1/private/NBP:SPOT?currency=EUR").await.body;
    assert_eq!(eur["currency"], "EUR");
    let (a, b) = (
        eur["data"][0]["value"].as_f64().unwrap(),
        eur["data"][1]["value"].as_f64().unwrap(),
    );
    assert!(
        (a - 100.0 / 0.8).abs() < 1e-9 && (b - 50.0 / 0.85).abs() < 1e-9,
        "{a} {b}"
    );
    // A quantity series in tonnes to barrels needs a density.
    c.save(json!({"_id": "GASOIL", "STOCK": {"_type": "VarTimeSeries", "units": "MT", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1.0}]}})).await;
    let bbl = c
        .get("/data/v1/private/GASOIL:STOCK?units=BBL&__density=845")
        .await
        .body;
    assert!(
        (bbl["data"][0]["value"].as_f64().unwrap() - 7.443_563).abs() < 1e-5,
        "{bbl}"
    );
    let m = c
        .get("/data/v1/private/GASOIL:STOCK?units=BBL")
        .await
        .assert_error(400, "CONVERSION_ERROR");
    assert!(m.contains("density"), "{m}");
    let m = c
        .get("/data/v1/private/GASOIL:STOCK?units=MWh")
        .await
        .assert_error(400, "CONVERSION_ERROR");
    assert!(m.contains("MWh"), "{m}");
    let m = c
        .get("/data/v1/private/NBP:SPOT?currency=JPY")
        .await
        .assert_error(400, "CONVERSION_ERROR");
    assert!(m.contains("JPY"), "{m}");
    c.get("/data/v1/private/NBP:SPOT?units=furlong")
        .await
        .assert_error(400, "CONVERSION_ERROR");
    c.get("/data/v1/private/GASOIL:STOCK?units=BBL&__density=-1")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn csv_and_xml_of_a_series_and_a_curve() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // A text value among the numbers: a series declared to hold text (a numeric one, with
    // units, refuses it).
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "BUSINESS",
        "timezone": "Europe/London", "dataType": "string",
        "data": [{"time": "2024-07-01", "value": 1.5, "status": {"quality": "FAILED:spike", "source": "CALCULATED"}}, {"time": "2024-07-02", "value": "n/a"}]}}))
        .await;
    save_curve(&c, "2024-03-01", 0.0).await;
    let series = s
        .send(
            actix_web::test::TestRequest::get()
                .uri("/data/v1/private/NBP:SPOT")
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", "text/csv")),
        )
        .await;
    assert_eq!(series.body.as_str().unwrap(), "time,value,quality,source,reliability\n2024-07-01,1.5,FAILED:spike,CALCULATED,\n2024-07-02,n/a,,,\n");
    let curve = s
        .send(
            actix_web::test::TestRequest::get()
                .uri("/data/v1/private/TTF:FWD:2024-03-01")
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", "text/csv")),
        )
        .await;
    assert_eq!(
        curve.body.as_str().unwrap(),
        "tenor,value,absolute,start,end,expiry\nM01,30.0,2024M04,2024-04-01,2024-04-30,2024-03-31\nM02,31.0,2024M05,2024-05-01,2024-05-31,2024-04-30\nQ01,32.0,2024Q02,2024-04-01,2024-06-30,2024-03-31\n2025Y,33.0,2025Y,2025-01-01,2025-12-31,2024-12-31\n"
    );
    let xml = s
        .send(
            actix_web::test::TestRequest::get()
                .uri("/data/v1/private/NBP:SPOT?_range=last(1)")
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", "application/xml")),
        )
        .await;
    let text = xml.body.as_str().unwrap();
    assert!(
        text.starts_with("<?xml")
            && text.contains("<time>2024-07-02</time>")
            && text.contains("<value>n/a</value>"),
        "{text}"
    );
}

#[actix_rt::test]
async fn data_with_an_access_role_is_only_for_users_holding_it() {
    use platform_core::auth::Grant;
    let s = TestServer::new();
    let writer = s.client_of("acme", "wendy", Role::Writer);
    writer
        .save(json!({"_id": "BOOK", "PNL": {"_type": "VarTimeSeries", "_access": "traders", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]},
                     "FWD": {"_type": "VarCurve", "_access": "traders", "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 1}]},
                     "OPEN": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 2}]}}))
        .await;
    let reader = s.client_of("acme", "rita", Role::Reader);
    for path in [
        "/data/v1/private/BOOK:PNL",
        "/data/v1/private/BOOK:FWD",
        "/data/v1/private/BOOK:FWD?tenor=M01",
        "/object/v1/private/BOOK?_profile=PNL",
    ] {
        reader.get(path).await.assert_error(404, "NOT_FOUND");
    }
    assert_eq!(reader.get("/data/v1/private/BOOK:OPEN").await.status, 200);
    let list = reader.get("/data/v1/private").await;
    assert_eq!(list.total(), 1);
    assert_eq!(list.body[0]["_id"], "BOOK:OPEN");
    assert_eq!(
        reader
            .get("/data/v1/all?_id=BOOK:PNL&_id=BOOK:OPEN")
            .await
            .total(),
        1
    );
    // The writer holds no grant either: the role decides, not who wrote it.
    writer
        .get("/data/v1/private/BOOK:PNL")
        .await
        .assert_error(404, "NOT_FOUND");
    // Granted, the data appears everywhere.
    assert!(s
        .platform
        .tenancy()
        .grant("acme", "rita", &Grant::Access("traders".into()))
        .unwrap());
    assert_eq!(
        reader.get("/data/v1/private/BOOK:PNL").await.body["_access"],
        "traders"
    );
    assert_eq!(
        reader.get("/data/v1/private/BOOK:FWD?tenor=M01").await.body["data"][0]["value"],
        1.0
    );
    assert_eq!(reader.get("/data/v1/private").await.total(), 3);
    assert!(s
        .platform
        .tenancy()
        .revoke_grant("acme", "rita", &Grant::Access("traders".into()))
        .unwrap());
    reader
        .get("/data/v1/private/BOOK:PNL")
        .await
        .assert_error(404, "NOT_FOUND");
    // A grant for a user that does not exist is refused.
    assert!(s
        .platform
        .tenancy()
        .grant("acme", "nobody", &Grant::Access("traders".into()))
        .is_err());
}

#[actix_rt::test]
async fn profile_on_an_object_list_returns_data_items() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    for (id, v) in [("#FX.EURGBP", 0.85), ("#FX.EURUSD", 1.08)] {
        c.save(json!({"_id": id, "_type": "#FX", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2024-07-01", "value": v}, {"time": "2024-07-02", "value": v + 0.01}]}})).await;
    }
    c.save(json!({"_id": "#NOFX", "_type": "#FX"})).await;
    let r = c.get("/object/v1/public?_filter=%7B%22_type%22%3A%22%23FX%22%7D&_profile=SPOT&_range=last(1)").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.total(), 3, "paging counts the matching objects");
    let items = r.body.as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["_id"], "#FX.EURGBP:SPOT");
    assert_eq!(
        items[0]["data"],
        json!([{"time": "2024-07-02", "value": 0.86}])
    );
    assert_eq!(items[1]["data"][0]["value"], 1.09);
}
