//! The prior art's SDK over HTTP (decisions 13): the JSON its `types.TimeSeries` and
//! `types.Curve` produce is saved as the SDK saves it and read back as sent. `valueType` is the
//! wire shape of the points (`BASIC`, `TRACKED`), stored and answered as sent; `dataType` says
//! what the values are; `"NaN"` in a numeric series is a missing value. (The SDK itself, from
//! PyPI, runs against a served binary in `scripts/odsl-sdk.sh`.)

use crate::common::{Client, TestServer};
use chrono::{Datelike, Duration, NaiveDate, Weekday};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// `types.Object('AAA.PYTHON-EXAMPLE').set('name', 'Python Example')`, as the SDK's `update`
/// encodes it (`json.JSONEncoder().encode`).
const OBJECT: &str = r#"{"_id": "AAA.PYTHON-EXAMPLE", "name": "Python Example"}"#;

/// `types.Curve('2026-08-20', '#REOMHENG', id='CURVE').set_name('Example curve')
/// .set_currency('EUR').add('M01', 1.4).add('M02', 2.2).add('M03', 3.3)` (the SDK's README).
const CURVE: &str = r##"{"_type": "VarCurve", "ondate": {"expiryCalendar": "#REOMHENG", "curveDate": "2026-08-20"}, "contracts": [{"tenor": "M01", "value": 1.4}, {"tenor": "M02", "value": 2.2}, {"tenor": "M03", "value": 3.3}], "_id": "CURVE", "name": "Example curve", "currency": "EUR"}"##;

/// `types.TimeSeries(id='TIMESERIES', calendar='DAILY', start='2026-08-01').set_units('MWh')
/// .add('2026-08-01', 10.5).add('2026-08-02', 11.2)` (the SDK's README).
const TIMESERIES: &str = r#"{"_type": "VarTimeSeries", "data": [{"time": "2026-08-01", "value": 10.5}, {"time": "2026-08-02", "value": 11.2}], "valueType": "BASIC", "_id": "TIMESERIES", "calendar": "DAILY", "start": "2026-08-01", "units": "MWh"}"#;

/// `types.TimeSeries(id='ts1', calendar='BUSINESS', start='2021-01-01').set_data_type('any')
/// .add('2021-01-01', 21.5).add('2021-01-04', 'NaN').add('2021-01-05', 21.7)`: the prior art's
/// example series, its expected point without a value written `"NaN"`.
const TS1: &str = r#"{"_type": "VarTimeSeries", "data": [{"time": "2021-01-01", "value": 21.5}, {"time": "2021-01-04", "value": "NaN"}, {"time": "2021-01-05", "value": 21.7}], "valueType": "BASIC", "_id": "ts1", "calendar": "BUSINESS", "start": "2021-01-01", "dataType": "any"}"#;

/// The same series as the prior art answers it (`TRACKED`: each point with its `_type`, status
/// and links).
const TRACKED: &str = r#"{"_type":"VarTimeSeries","_id":"TRACKED","description":"","start":"2021-01-01","calendar":"BUSINESS","timezone":"UTC","valueType":"TRACKED","dataType":"any","properties":{},"data":[{"_type":"TimeValue","time":"2021-01-01","value":21.5,"status":{},"_links":{}},{"_type":"TimeValue","time":"2021-01-04","value":"NaN","status":{},"_links":{}},{"_type":"TimeValue","time":"2021-01-05","value":21.7,"status":{"quality":"VALID","source":"CALCULATED"},"_links":{}}]}"#;

/// What the SDK's `update` does with an object it read and gave a field: `POST {api}object`
/// with the object's JSON, the field's JSON as the type produced it.
async fn update_with(c: &Client<'_>, object: &Value, field: &str, raw: &str) {
    let text = object.to_string();
    let body = format!("{}, \"{field}\": {raw}}}", &text[..text.len() - 1]);
    let r = c.post_raw("/object", body).await;
    assert_eq!(r.status, 200, "{field}: {:?}", r.body);
}

async fn get_object(c: &Client<'_>) -> Value {
    let r = c.get("/object/v1/private/AAA.PYTHON-EXAMPLE").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

async fn read(c: &Client<'_>, id: &str) -> Value {
    let r = c.get(&format!("/data/v1/private/{id}")).await;
    assert_eq!(r.status, 200, "{id}: {:?}", r.body);
    r.body
}

fn values(item: &Value) -> Vec<(String, Value)> {
    item["data"]
        .as_array()
        .unwrap_or_else(|| panic!("{item}"))
        .iter()
        .map(|p| (p["time"].as_str().unwrap().to_string(), p["value"].clone()))
        .collect()
}

/// The last England-and-Wales business day before `start` (`#REOMHENG`), counted here from
/// the bank holidays of 2026 that fall near these deliveries.
fn reomheng(start: NaiveDate) -> NaiveDate {
    let bank_holidays = [NaiveDate::from_ymd_opt(2026, 8, 31).unwrap()];
    let mut day = start - Duration::days(1);
    while matches!(day.weekday(), Weekday::Sat | Weekday::Sun) || bank_holidays.contains(&day) {
        day -= Duration::days(1);
    }
    day
}

#[actix_rt::test]
async fn the_sdks_series_and_curve_examples_round_trip() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c.post_raw("/object", OBJECT).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    update_with(&c, &get_object(&c).await, "CURVE", CURVE).await;
    update_with(&c, &get_object(&c).await, "TIMESERIES", TIMESERIES).await;
    update_with(&c, &get_object(&c).await, "ts1", TS1).await;
    update_with(&c, &get_object(&c).await, "TRACKED", TRACKED).await;

    // The series: the header as sent (valueType BASIC among it), the values as sent.
    let ts = read(&c, "AAA.PYTHON-EXAMPLE:TIMESERIES").await;
    for (field, value) in [
        ("_type", json!("VarTimeSeries")),
        ("valueType", json!("BASIC")),
        ("calendar", json!("DAILY")),
        ("start", json!("2026-08-01")),
        ("units", json!("MWh")),
    ] {
        assert_eq!(ts[field], value, "{field}: {ts}");
    }
    assert_eq!(
        values(&ts),
        vec![
            ("2026-08-01".to_string(), json!(10.5)),
            ("2026-08-02".to_string(), json!(11.2))
        ]
    );
    // "NaN" is the missing value of 4 January, answered as null; dataType any is kept.
    for id in ["ts1", "TRACKED"] {
        let item = read(&c, &format!("AAA.PYTHON-EXAMPLE:{id}")).await;
        assert_eq!(
            values(&item),
            vec![
                ("2021-01-01".to_string(), json!(21.5)),
                ("2021-01-04".to_string(), Value::Null),
                ("2021-01-05".to_string(), json!(21.7))
            ],
            "{id}"
        );
        assert_eq!(item["dataType"], "any", "{item}");
    }
    let tracked = read(&c, "AAA.PYTHON-EXAMPLE:TRACKED").await;
    assert_eq!(tracked["valueType"], "TRACKED");
    assert_eq!(tracked["data"][2]["status"]["quality"], "VALID");
    assert_eq!(tracked["data"][2]["status"]["source"], "CALCULATED");
    assert_eq!(
        read(&c, "AAA.PYTHON-EXAMPLE:ts1").await["valueType"],
        "BASIC"
    );

    // The curve: its ondate object as sent, each contract's period and its expiry by the
    // calendar the ondate names.
    let curve = read(&c, "AAA.PYTHON-EXAMPLE:CURVE:2026-08-20").await;
    assert_eq!(
        curve["ondate"],
        json!({"curveDate": "2026-08-20", "expiryCalendar": "#REOMHENG"})
    );
    assert_eq!(
        (&curve["name"], &curve["currency"]),
        (&json!("Example curve"), &json!("EUR"))
    );
    let contracts = curve["contracts"].as_array().unwrap();
    let months = [(2026, 9, 1.4), (2026, 10, 2.2), (2026, 11, 3.3)];
    assert_eq!(contracts.len(), months.len());
    for (i, (contract, (y, m, value))) in contracts.iter().zip(months).enumerate() {
        let start = NaiveDate::from_ymd_opt(y, m, 1).unwrap();
        let end = NaiveDate::from_ymd_opt(y, m + 1, 1).unwrap() - Duration::days(1);
        let p = &contract["properties"];
        assert_eq!(contract["tenor"], format!("M0{}", i + 1));
        assert_eq!(contract["value"], json!(value));
        assert_eq!(p["absolute"], format!("{y}M{m:02}"));
        assert_eq!(p["start"], start.to_string());
        assert_eq!(p["end"], end.to_string());
        assert_eq!(p["expiry"], reomheng(start).to_string(), "{contract}");
    }
    // M01 (September) expires on Friday 28 August: Monday 31 August is a bank holiday.
    assert_eq!(contracts[0]["properties"]["expiry"], "2026-08-28");

    // The object as the SDK reads it, sent back unchanged, is no change.
    let object = get_object(&c).await;
    assert_eq!(object["TIMESERIES"]["valueType"], "BASIC");
    let r = c.post_raw("/object", object.to_string()).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_version"], object["_version"], "{:?}", r.body);
}

#[actix_rt::test]
async fn value_type_is_stored_as_sent_and_data_type_says_what_the_values_are() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let series = |header: Value, values: Value| {
        let mut prop = json!({"_type": "VarTimeSeries", "calendar": "DAILY"});
        prop.as_object_mut()
            .unwrap()
            .extend(header.as_object().unwrap().clone());
        let data: Vec<Value> = values
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, v)| json!({"time": format!("2024-01-{:02}", i + 1), "value": v}))
            .collect();
        prop["data"] = Value::Array(data);
        prop
    };
    // BASIC and TRACKED, in any case, say nothing of the values: text and numbers alike.
    for (id, shape, sent) in [
        ("A", "BASIC", json!([1.5, 2.5])),
        ("B", "TRACKED", json!(["open", "shut"])),
        ("C", "tracked", json!([3.5])),
    ] {
        let body = json!({"_id": id, "P": series(json!({"valueType": shape}), sent.clone())});
        let saved = c.save(body).await;
        assert_eq!(saved["P"]["valueType"], shape);
        let item = read(&c, &format!("{id}:P")).await;
        assert_eq!(item["valueType"], shape);
        let got: Vec<Value> = values(&item).into_iter().map(|(_, v)| v).collect();
        assert_eq!(Value::Array(got), sent, "{id}");
    }
    // The earlier reading's number and text are refused, naming dataType; nothing is stored.
    for (shape, instead) in [("number", "Numeric"), ("text", "string")] {
        let m = c
            .post(
                "/object/v1",
                json!({"_id": "D", "P": series(json!({"valueType": shape}), json!([1]))}),
            )
            .await
            .assert_error(400, "INVALID_BODY");
        assert!(
            m.contains(&format!("P.valueType \"{shape}\" names the values' type, which is dataType: send \"dataType\": \"{instead}\"")),
            "{m}"
        );
    }
    let m = c
        .post(
            "/object/v1",
            json!({"_id": "D", "P": series(json!({"valueType": "FLAT"}), json!([1]))}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("is not one of BASIC, TRACKED"), "{m}");
    assert_eq!(c.get("/object/v1/private/D").await.status, 404);
    // dataType Numeric in any case (number too) refuses text, naming it.
    for numeric in ["Numeric", "NUMERIC", "number"] {
        let m = c
            .post(
                "/object/v1",
                json!({"_id": "E", "P": series(json!({"dataType": numeric}), json!([1, "n/a"]))}),
            )
            .await
            .assert_error(400, "INVALID_BODY");
        assert!(
            m.contains("P.data[1]: the value \"n/a\" is not a number")
                && m.contains("its dataType is Numeric"),
            "{numeric}: {m}"
        );
    }
    assert_eq!(c.get("/object/v1/private/E").await.status, 404);
    // dataType string (text too) keeps text beside units, and "NaN" as the text it is.
    for (id, text) in [("F", "string"), ("G", "TEXT")] {
        let header = json!({"dataType": text, "units": "code", "valueType": "BASIC"});
        c.save(json!({"_id": id, "P": series(header, json!(["A1", "NaN", 2.5]))}))
            .await;
        let item = read(&c, &format!("{id}:P")).await;
        let got: Vec<Value> = values(&item).into_iter().map(|(_, v)| v).collect();
        assert_eq!(got, vec![json!("A1"), json!("NaN"), json!(2.5)], "{id}");
        assert_eq!(item["dataType"], text);
    }
    // dataType any leaves it to the values: a series of numbers then refuses text.
    c.save(json!({"_id": "H", "P": series(json!({"dataType": "any"}), json!([1, 2]))}))
        .await;
    let m = c
        .post(
            "/object/v1",
            json!({"_id": "H", "P": {"_type": "VarTimeSeries", "data": [{"time": "2024-01-03", "value": "x"}]}}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("(it holds only numbers)"), "{m}");
}

#[actix_rt::test]
async fn nan_is_a_missing_value_in_a_numeric_series() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let day = |d: u32, v: Value| json!({"time": format!("2024-01-{d:02}"), "value": v});
    let price = |data: Vec<Value>| {
        json!({"_id": "DE", "PRICE": {"_type": "VarTimeSeries", "calendar": "DAILY",
            "units": "EUR/MWh", "data": data}})
    };
    let saved = c
        .save(price(vec![
            day(1, json!(50.5)),
            day(2, json!("NaN")),
            day(3, json!("nan")),
            day(4, json!(" NAN ")),
            day(5, json!(51.0)),
        ]))
        .await;
    let version = saved["_version"].clone();
    let got = values(&read(&c, "DE:PRICE").await);
    let expect: Vec<Value> = vec![
        json!(50.5),
        Value::Null,
        Value::Null,
        Value::Null,
        json!(51.0),
    ];
    assert_eq!(got.into_iter().map(|(_, v)| v).collect::<Vec<_>>(), expect);
    // Stored as null is: sending null (or "NaN") again makes no version.
    let again = c
        .save(price(vec![day(2, Value::Null), day(3, json!("NaN"))]))
        .await;
    assert_eq!(again["_version"], version);
    // Other text is still refused, and nothing of that write is kept.
    let m = c
        .post(
            "/object/v1",
            price(vec![day(6, json!("NaN")), day(7, json!("n/a"))]),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("PRICE.data[1]: the value \"n/a\""), "{m}");
    assert_eq!(values(&read(&c, "DE:PRICE").await).len(), 5);
    // An undeclared series of numbers and "NaN"s is numeric; one of text keeps "NaN" as text.
    c.save(json!({"_id": "U", "P": {"_type": "VarTimeSeries",
        "data": [day(1, json!(1)), day(2, json!("NaN"))]}}))
        .await;
    assert_eq!(values(&read(&c, "U:P").await)[1].1, Value::Null);
    c.save(json!({"_id": "FLAGS", "P": {"_type": "VarTimeSeries",
        "data": [day(1, json!("open")), day(2, json!("NaN"))]}}))
        .await;
    assert_eq!(values(&read(&c, "FLAGS:P").await)[1].1, json!("NaN"));
    c.save(
        json!({"_id": "FLAGS", "P": {"_type": "VarTimeSeries", "data": [day(3, json!("NaN"))]}}),
    )
    .await;
    assert_eq!(values(&read(&c, "FLAGS:P").await)[2].1, json!("NaN"));
    // The CSV import reads "NaN" the same way.
    let r = c
        .post_bytes(
            "/data/v1/private/DE:PRICE",
            Some("text/csv"),
            "time,value\n2024-01-06,NaN\n2024-01-07,52.25\n",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let got = values(&read(&c, "DE:PRICE").await);
    assert_eq!(got[5], ("2024-01-06".to_string(), Value::Null));
    assert_eq!(got[6], ("2024-01-07".to_string(), json!(52.25)));
    // A curve's contract "NaN" is a contract without a value.
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01",
        "contracts": [{"tenor": "M01", "value": 30.5}, {"tenor": "M02", "value": "NaN"}]}}),
    )
    .await;
    let curve = read(&c, "TTF:FWD:2024-03-01").await;
    assert_eq!(curve["contracts"][1]["value"], Value::Null);
    assert_eq!(curve["contracts"][0]["value"], json!(30.5));
}
