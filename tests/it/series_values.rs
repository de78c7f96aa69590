//! What a series keeps over HTTP: numbers stay numbers (text in a numeric series is refused,
//! nothing written), text series keep text, and an unchanged write keeps the qualities a
//! validation wrote and makes no new version.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// Saves `PRICE` of `DE` with `header` fields and `data`; the raw answer.
async fn save(c: &Client<'_>, header: Value, data: Value) -> crate::common::Resp {
    let mut prop = json!({"_type": "VarTimeSeries", "calendar": "HOURLY",
        "timezone": "Europe/Berlin", "data": data});
    if let (Value::Object(p), Value::Object(h)) = (&mut prop, header) {
        p.extend(h);
    }
    c.post("/object/v1", json!({"_id": "DE", "PRICE": prop}))
        .await
}

fn hours(values: &[Value]) -> Value {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"time": format!("2024-01-01T{i:02}:00:00Z"), "value": v}))
        .collect()
}

async fn stored(c: &Client<'_>) -> Value {
    let r = c.get("/data/v1/private/DE:PRICE").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

#[actix_rt::test]
async fn text_in_a_numeric_series_is_refused_naming_it_and_nothing_is_written() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let units = json!({"units": "EUR/MWh"});
    let r = save(&c, units.clone(), hours(&[json!(80.5), json!(81.0)])).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // A text value among numbers, in a series with units: refused, naming place and value.
    let m = save(
        &c,
        units.clone(),
        hours(&[json!(1.0), json!(2.0), json!("abc")]),
    )
    .await
    .assert_error(400, "INVALID_BODY");
    assert!(
        m.contains("PRICE.data[2]: the value \"abc\" is not a number")
            && m.contains("it has units EUR/MWh"),
        "{m}"
    );
    // A number written with a thousands separator gets a hint.
    let m = save(&c, units.clone(), hours(&[json!("1,234.5")]))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(
        m.contains("\"1,234.5\" is not a number (a thousands separator? write 1234.5)"),
        "{m}"
    );
    // Undeclared and without units, a series that holds numbers is numeric.
    let z = |v: Value| json!({"_id": "Z", "P": {"_type": "VarTimeSeries", "data": hours(&[v])}});
    assert_eq!(c.post("/object/v1", z(json!(7.5))).await.status, 200);
    let m = c
        .post("/object/v1", z(json!("80,5")))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(
        m.contains("(a decimal comma? write 80.5)") && m.contains("(it holds only numbers)"),
        "{m}"
    );
    // Nothing of those writes was kept.
    let item = stored(&c).await;
    assert_eq!(item["_version"], 1);
    assert_eq!(item["data"].as_array().unwrap().len(), 2);
    assert_eq!(item["data"][0]["value"], 80.5);
    // Declared numbers without units, and a currency alone, are numeric too.
    for header in [json!({"dataType": "Numeric"}), json!({"currency": "EUR"})] {
        let mut prop = json!({"_type": "VarTimeSeries",
            "data": [{"time": "2024-01-01T00:00:00Z", "value": "n/a"}]});
        prop.as_object_mut()
            .unwrap()
            .extend(header.as_object().unwrap().clone());
        let m = c
            .post("/object/v1", json!({"_id": "X", "P": prop}))
            .await
            .assert_error(400, "INVALID_BODY");
        assert!(m.contains("P.data[0]: the value \"n/a\""), "{m}");
        assert_eq!(c.get("/object/v1/private/X").await.status, 404);
    }
    // A new undeclared series may hold numbers and text (the interface allows string
    // values); holding text, it takes more.
    let mixed = |t: &str, v: Value| {
        json!({"_id": "Y", "P": {"_type": "VarTimeSeries",
        "data": [{"time": t, "value": v}, {"time": "2024-02-01T00:00:00Z", "value": 1}]}})
    };
    let r = c
        .post("/object/v1", mixed("2024-01-01T00:00:00Z", json!("two")))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = c
        .post("/object/v1", mixed("2024-01-02T00:00:00Z", json!("n/a")))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // A bad dataType is refused.
    let m = save(&c, json!({"dataType": "float"}), hours(&[json!(1.0)]))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(
        m.contains("dataType \"float\" is not one of any, Numeric, string"),
        "{m}"
    );
}

#[actix_rt::test]
async fn text_series_keep_text_when_declared_or_text_only() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // Declared text, with units even: text and numbers are kept as sent.
    let r = save(
        &c,
        json!({"dataType": "string", "units": "code"}),
        hours(&[json!("ok"), json!(2.0), json!(null)]),
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let item = stored(&c).await;
    assert_eq!(item["dataType"], "string");
    let values: Vec<Value> = item["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].clone())
        .collect();
    assert_eq!(values, vec![json!("ok"), json!(2.0), json!(null)]);
    // Undeclared and text only: a text series, that takes more text.
    let text = |t: &str, v: &str| json!({"time": t, "value": v});
    let r = c
        .post(
            "/object/v1",
            json!({"_id": "FLAGS", "STATE": {"_type": "VarTimeSeries",
            "data": [text("2024-01-01T00:00:00Z", "open"), text("2024-01-02T00:00:00Z", "shut")]}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = c
        .post(
            "/object/v1",
            json!({"_id": "FLAGS", "STATE": {"_type": "VarTimeSeries",
            "data": [text("2024-01-03T00:00:00Z", "open")]}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let item = c.get("/data/v1/private/FLAGS:STATE").await.body;
    assert_eq!(item["data"][2]["value"], "open");
}

#[actix_rt::test]
async fn an_unchanged_write_keeps_the_qualities_a_validation_wrote() {
    let s = TestServer::at("2024-01-02T12:00:00Z");
    let c = s.client(Role::Writer);
    let units = json!({"units": "EUR/MWh"});
    let sent = hours(&[json!(50.0), json!(51.0), json!(-5.0), json!(52.0)]);
    assert_eq!(save(&c, units.clone(), sent.clone()).await.status, 200);
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "DE:PRICE", "kind": "timeseries",
            "checks": [{"name": "Positive", "expression": "value > 0"}],
            "options": {"writeStatus": true}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "DE:PRICE",
            "from": "2024-01-01T00:00:00Z", "to": "2024-01-01T03:00:00Z"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let quality = |item: &Value| -> Vec<Value> {
        item["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["status"]["quality"].clone())
            .collect()
    };
    let validated = stored(&c).await;
    let version = validated["_version"].clone();
    assert_eq!(
        quality(&validated),
        vec![
            json!("VALID"),
            json!("VALID"),
            json!("FAILED"),
            json!("VALID")
        ]
    );
    // The same file again: no new version, the qualities stay.
    let r = save(&c, units.clone(), sent).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.body["_version"], version,
        "an unchanged write makes no version"
    );
    assert_eq!(stored(&c).await, validated);
    // A write that changes one point: that point is CHANGED and unchecked, the others keep
    // their qualities.
    let edit = hours(&[json!(50.0), json!(51.0), json!(5.0), json!(52.0)]);
    let r = save(&c, units, edit).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let item = stored(&c).await;
    assert_ne!(item["_version"], version);
    assert_eq!(
        quality(&item),
        vec![json!("VALID"), json!("VALID"), Value::Null, json!("VALID")]
    );
    assert_eq!(item["data"][2]["status"]["source"], "CHANGED");
    // A replacing write of the same values keeps them too.
    let same = item["data"].clone();
    let plain: Value = same
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!({"time": p["time"], "value": p["value"]}))
        .collect();
    let r = c
        .post(
            "/object/v1?_replace=true",
            json!({"_id": "DE", "PRICE": {
            "_type": "VarTimeSeries", "calendar": "HOURLY", "timezone": "Europe/Berlin",
            "units": "EUR/MWh", "data": plain}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_version"], item["_version"]);
    assert_eq!(stored(&c).await["data"], same);
}
