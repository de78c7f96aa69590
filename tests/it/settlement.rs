//! GB settlement dates and periods on read (`_settlement=GB`), and EFA blocks and days as a
//! series' own calendar, over HTTP: the spec's settlement vectors end to end, a whole settlement
//! day by its date, JSON, CSV and Arrow columns, and bad input.

use crate::common::{vectors, Client, Resp, TestServer};
use actix_web::http::header;
use actix_web::test::TestRequest;
use platform_core::auth::Role;
use serde_json::{json, Value};

/// The half-hours of the settlement days `first..=last` (UTC dates around them are covered:
/// each day's 48 half-hours from 22:00Z the day before to 02:00Z the day after), valued by
/// their index.
fn half_hours(from: &str, to: &str) -> Vec<Value> {
    let start = chrono::DateTime::parse_from_rfc3339(from).unwrap();
    let end = chrono::DateTime::parse_from_rfc3339(to).unwrap();
    let mut out = Vec::new();
    let mut t = start;
    while t < end {
        out.push(
            json!({"time": t.to_utc().format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            "value": out.len()}),
        );
        t += chrono::Duration::minutes(30);
    }
    out
}

async fn save_half_hours(c: &Client<'_>, id: &str, from: &str, to: &str) {
    c.save(json!({"_id": id, "P": {
        "_type": "VarTimeSeries", "calendar": "HALFHOURLY", "timezone": "Europe/London",
        "data": half_hours(from, to)}}))
        .await;
}

async fn get_as(s: &TestServer, c: &Client<'_>, path: &str, accept: &str) -> Resp {
    s.send(
        TestRequest::get()
            .uri(path)
            .insert_header((header::AUTHORIZATION, format!("Bearer {}", c.token)))
            .insert_header((header::ACCEPT, accept.to_string())),
    )
    .await
}

fn keys(body: &Value) -> Vec<(String, u64)> {
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["settlementDate"].as_str().unwrap().to_string(),
                p["settlementPeriod"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[actix_rt::test]
async fn every_settlement_vector_holds_on_a_data_get() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let file = vectors("settlement.json");
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 40);
    for (i, case) in cases.iter().enumerate() {
        let date = case["settlementDate"].as_str().unwrap();
        let day: chrono::NaiveDate = date.parse().unwrap();
        let id = format!("V{i}");
        save_half_hours(
            &c,
            &id,
            &format!("{}T20:00:00Z", day.pred_opt().unwrap()),
            &format!("{}T04:00:00Z", day.succ_opt().unwrap()),
        )
        .await;
        // The settlement day by its date: exactly its periods, numbered from 1.
        let r = c
            .get(&format!(
                "/data/v1/private/{id}:P?_settlement=GB&_range=between({date},{date})"
            ))
            .await;
        assert_eq!(r.status, 200, "{case}: {:?}", r.body);
        let n = case["periodsInDay"].as_u64().unwrap();
        let want: Vec<(String, u64)> = (1..=n).map(|p| (date.to_string(), p)).collect();
        assert_eq!(keys(&r.body), want, "{case}");
        let period = case["settlementPeriod"].as_u64().unwrap();
        let points = r.body["data"].as_array().unwrap();
        let at = points.iter().find(|p| p["settlementPeriod"] == period);
        match case["start"].as_str() {
            Some(start) => assert_eq!(at.unwrap()["time"], start, "{case}"),
            None => assert!(at.is_none(), "{case}: {at:?}"),
        }
    }
}

#[actix_rt::test]
async fn every_settlement_vector_holds_on_a_csv_import() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "W"})).await;
    let file = vectors("settlement.json");
    for (i, case) in file["cases"].as_array().unwrap().iter().enumerate() {
        let (date, period) = (&case["settlementDate"], &case["settlementPeriod"]);
        let date = date.as_str().unwrap();
        let path = format!("/data/v1/private/W:P{i}?calendar=HALFHOURLY&timezone=Europe/London");
        let csv = format!("settlementDate,settlementPeriod,value\n{date},{period},1\n");
        let r = c.post_bytes(&path, Some("text/csv"), csv).await;
        match case["start"].as_str() {
            Some(start) => {
                assert_eq!(r.status, 200, "{case}: {:?}", r.body);
                let stored = c.get(&format!("/data/v1/private/W:P{i}")).await;
                assert_eq!(stored.body["data"][0]["time"], start, "{case}");
            }
            None => {
                let message = r.assert_error(400, "INVALID_BODY");
                let n = case["periodsInDay"].as_u64().unwrap();
                for says in [format!("settlementPeriod {period}"), format!("1..{n}")] {
                    assert!(message.contains(&says), "{case}: {message}");
                }
            }
        }
    }
}

#[actix_rt::test]
async fn the_autumn_settlement_day_reads_as_fifty_periods_in_json_csv_and_arrow() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_half_hours(&c, "GB", "2025-10-25T20:00:00Z", "2025-10-27T04:00:00Z").await;
    let path = "/data/v1/private/GB:P?_settlement=GB&_range=between(2025-10-26,2025-10-26)";
    let r = c.get(path).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let points = r.body["data"].as_array().unwrap();
    assert_eq!(points.len(), 50);
    // The fields follow the time, in this order.
    let first: Vec<&String> = points[0].as_object().unwrap().keys().collect();
    assert_eq!(
        first,
        ["time", "settlementDate", "settlementPeriod", "value"]
    );
    assert_eq!(points[0]["time"], "2025-10-25T23:00:00Z");
    // 01:00 BST to 01:00 GMT is periods 5 to 6; the repeated hour is periods 5 to 8.
    assert_eq!(points[4]["time"], "2025-10-26T01:00:00Z");
    assert_eq!(points[49]["time"], "2025-10-26T23:30:00Z");
    assert_eq!(points[49]["settlementPeriod"], 50);

    let csv = get_as(&s, &c, path, "text/csv").await;
    assert_eq!(csv.status, 200);
    let text = csv.body.as_str().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "time,settlementDate,settlementPeriod,value,quality,source,reliability"
    );
    assert_eq!(lines.len(), 51);
    assert_eq!(lines[1], "2025-10-25T23:00:00Z,2025-10-26,1,6.0,,,");
    assert_eq!(lines[50], "2025-10-26T23:30:00Z,2025-10-26,50,55.0,,,");

    let (dates, periods) = arrow_keys(&c, path).await;
    assert_eq!(periods, (1..=50).collect::<Vec<u8>>());
    let day = (chrono::NaiveDate::from_ymd_opt(2025, 10, 26).unwrap()
        - chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap())
    .num_days() as i32;
    assert_eq!(dates, vec![day; 50]);

    // Without `_settlement` the same read has no such fields, and its dates are the series'
    // own (London here too): the same 50 instants.
    let plain = c
        .get("/data/v1/private/GB:P?_range=between(2025-10-26,2025-10-26)")
        .await;
    assert_eq!(plain.body["data"].as_array().unwrap().len(), 50);
    assert!(plain.body["data"][0].get("settlementPeriod").is_none());
}

/// The settlement columns of an Arrow answer: dates (days since 1970-01-01) and periods.
async fn arrow_keys(c: &Client<'_>, path: &str) -> (Vec<i32>, Vec<u8>) {
    use arrow_array::cast::AsArray as _;
    use arrow_array::types::{Date32Type, UInt8Type};
    let batch = crate::common::arrow_batch(c, path).await;
    let names: Vec<String> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(
        names,
        ["time", "settlementDate", "settlementPeriod", "value"]
    );
    let dates = batch.column_by_name("settlementDate").unwrap();
    let periods = batch.column_by_name("settlementPeriod").unwrap();
    (
        dates.as_primitive::<Date32Type>().values().to_vec(),
        periods.as_primitive::<UInt8Type>().values().to_vec(),
    )
}

#[actix_rt::test]
async fn a_series_stored_in_utc_is_keyed_and_ranged_by_london_settlement_days() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let data = half_hours("2025-03-29T20:00:00Z", "2025-03-31T04:00:00Z");
    c.save(
        json!({"_id": "U", "P": {"_type": "VarTimeSeries", "calendar": "HALFHOURLY",
        "timezone": "UTC", "data": data}}),
    )
    .await;
    let r = c
        .get("/data/v1/private/U:P?_settlement=GB&_range=between(2025-03-30,2025-03-30)")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let got = keys(&r.body);
    assert_eq!(got.len(), 46);
    assert_eq!(got[45], ("2025-03-30".to_string(), 46));
    assert_eq!(r.body["data"][0]["time"], "2025-03-30T00:00:00Z");
    // `_timezone` names the zone of the range's dates (and of the times) instead.
    let r = c
        .get("/data/v1/private/U:P?_settlement=GB&_timezone=UTC&_range=between(2025-03-30,2025-03-30)")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let got = keys(&r.body);
    assert_eq!(got.len(), 48);
    // 23:30Z on 30 March is 00:30 BST on the 31st: that settlement day's second period.
    assert_eq!(got[47], ("2025-03-31".to_string(), 2));
}

#[actix_rt::test]
async fn settlement_keys_need_half_hours_and_a_known_market() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_half_hours(&c, "GB", "2025-01-15T00:00:00Z", "2025-01-16T00:00:00Z").await;
    c.save(
        json!({"_id": "H", "P": {"_type": "VarTimeSeries", "calendar": "HOURLY",
        "timezone": "Europe/London", "data": [{"time": "2025-01-15T00:00:00Z", "value": 1}]}}),
    )
    .await;
    c.save(
        json!({"_id": "C", "F": {"_type": "VarCurve", "ondate": "2025-01-15",
        "contracts": [{"tenor": "2025M02", "value": 80}]}}),
    )
    .await;
    let cases = [
        ("GB:P?_settlement=FR", "_settlement \"FR\": use GB"),
        ("H:P?_settlement=GB", "the series is read on HOURLY"),
        (
            "GB:P?_settlement=GB&_calendar=DAILY&_observed=averaged",
            "the series is read on DAILY",
        ),
        (
            "GB:P?_settlement=GB&_calendar=EFA&_observed=averaged",
            "the series is read on EFA",
        ),
        ("C:F?_settlement=GB", "is a curve"),
    ];
    for (path, says) in cases {
        let r = c.get(&format!("/data/v1/private/{path}")).await;
        let message = r.assert_error(400, "INVALID_PARAMETER");
        assert!(message.contains(says), "{path}: {message}");
    }
    // A finer series is keyed by the half-hour holding each point.
    let quarters: Vec<Value> = (0..4)
        .map(|q| json!({"time": format!("2025-01-15T00:{:02}:00Z", q * 15), "value": q}))
        .collect();
    c.save(
        json!({"_id": "Q", "P": {"_type": "VarTimeSeries", "calendar": "QUARTERHOURLY",
        "timezone": "Europe/London", "data": quarters}}),
    )
    .await;
    let r = c.get("/data/v1/private/Q:P?_settlement=GB").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let periods: Vec<u64> = keys(&r.body).into_iter().map(|(_, p)| p).collect();
    assert_eq!(periods, [1, 1, 2, 2]);
}

/// Blocks of the EFA days 2025-03-30 (spring change: EFA1 is 3 hours) and 2025-03-31.
fn efa_blocks() -> Vec<Value> {
    [
        "2025-03-29T23:00:00Z",
        "2025-03-30T02:00:00Z",
        "2025-03-30T06:00:00Z",
        "2025-03-30T10:00:00Z",
        "2025-03-30T14:00:00Z",
        "2025-03-30T18:00:00Z",
        "2025-03-30T22:00:00Z",
        "2025-03-31T02:00:00Z",
        "2025-03-31T06:00:00Z",
        "2025-03-31T10:00:00Z",
        "2025-03-31T14:00:00Z",
        "2025-03-31T18:00:00Z",
    ]
    .iter()
    .enumerate()
    .map(|(i, t)| json!({"time": t, "value": (i + 1) as f64}))
    .collect()
}

#[actix_rt::test]
async fn a_series_stored_by_efa_block_is_aligned_on_write_and_scales() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "B", "P": {"_type": "VarTimeSeries", "calendar": "EFA",
        "timezone": "Europe/London", "data": efa_blocks()}}),
    )
    .await;
    let r = c.get("/data/v1/private/B:P").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["calendar"], "EFA");
    assert_eq!(r.body["data"][1]["time"], "2025-03-30T02:00:00Z");
    // EFA days from blocks: the mean of each day's six blocks.
    let r = c
        .get("/data/v1/private/B:P?_calendar=EFADAY&_observed=averaged")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let days = r.body["data"].as_array().unwrap();
    assert_eq!(days.len(), 2);
    assert_eq!(days[0]["time"], "2025-03-29T23:00:00Z");
    assert_eq!(days[0]["value"], 3.5);
    assert_eq!(days[1]["time"], "2025-03-30T22:00:00Z");
    assert_eq!(days[1]["value"], 9.5);
    // Blocks spread into hours: the spring EFA1 holds 3 hours, the next 4.
    let r = c
        .get("/data/v1/private/B:P?_calendar=HOURLY&_distribution=constant&_range=between(2025-03-29T23:00,2025-03-30T05:00,UTC)")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let values: Vec<f64> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0]);
    // A time that starts no block (00:00 London is inside EFA1) is refused, nothing stored.
    let r = c
        .post(
            "/object/v1",
            json!({"_id": "B", "P": {"_type": "VarTimeSeries", "calendar": "EFA",
                "timezone": "Europe/London",
                "data": [{"time": "2025-04-01T23:00:00Z", "value": 1}]}}),
        )
        .await;
    let message = r.assert_error(400, "INDEX_ALIGN");
    assert!(message.contains("not on the calendar EFA"), "{message}");
    let r = c.get("/data/v1/private/B:P").await;
    assert_eq!(r.body["data"].as_array().unwrap().len(), 12);
}

#[actix_rt::test]
async fn a_series_stored_by_efa_day_is_aligned_on_write_and_scales() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // EFA days start at 23:00 London the day before: 23:00Z in winter, 22:00Z in summer.
    let days = json!([
        {"time": "2025-03-28T23:00:00Z", "value": 10},
        {"time": "2025-03-29T23:00:00Z", "value": 20},
        {"time": "2025-03-30T22:00:00Z", "value": 30},
        {"time": "2025-03-31T22:00:00Z", "value": 40}
    ]);
    c.save(
        json!({"_id": "D", "P": {"_type": "VarTimeSeries", "calendar": "EFADAY",
        "timezone": "Europe/London", "data": days}}),
    )
    .await;
    let r = c
        .get("/data/v1/private/D:P?_calendar=EFA&_distribution=constant")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let points = r.body["data"].as_array().unwrap();
    assert_eq!(points.len(), 24);
    assert_eq!(points[6]["time"], "2025-03-29T23:00:00Z");
    assert_eq!(points[7]["time"], "2025-03-30T02:00:00Z");
    assert_eq!(points[7]["value"], 20.0);
    assert_eq!(points[12]["time"], "2025-03-30T22:00:00Z");
    // Monthly from EFA days: each counts in the month of its date, so the EFA day of
    // 1 April, which starts at 23:00 on 31 March, is April's.
    let r = c
        .get("/data/v1/private/D:P?_calendar=MONTHLY&_observed=summed")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let months: Vec<(&str, f64)> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["time"].as_str().unwrap(), p["value"].as_f64().unwrap()))
        .collect();
    assert_eq!(months, [("2025-03-01", 60.0), ("2025-04-01", 40.0)]);
    // Daily from EFA blocks: a block counts on its EFA day.
    c.save(
        json!({"_id": "B", "P": {"_type": "VarTimeSeries", "calendar": "EFA",
        "timezone": "Europe/London", "data": efa_blocks()}}),
    )
    .await;
    let r = c
        .get("/data/v1/private/B:P?_calendar=DAILY&_observed=summed")
        .await;
    let days: Vec<(&str, f64)> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["time"].as_str().unwrap(), p["value"].as_f64().unwrap()))
        .collect();
    assert_eq!(days, [("2025-03-30", 21.0), ("2025-03-31", 57.0)]);
    for bad in ["2025-03-30T23:00:00Z", "2025-03-30T00:00:00Z"] {
        let r = c
            .post(
                "/object/v1",
                json!({"_id": "D", "P": {"_type": "VarTimeSeries", "calendar": "EFADAY",
                    "timezone": "Europe/London", "data": [{"time": bad, "value": 1}]}}),
            )
            .await;
        let message = r.assert_error(400, "INDEX_ALIGN");
        assert!(message.contains("EFADAY"), "{bad}: {message}");
    }
    // The calendar's code is checked like any other.
    let r = c
        .post(
            "/object/v1",
            json!({"_id": "X", "P": {"_type": "VarTimeSeries", "calendar": "EFA7",
                "data": []}}),
        )
        .await;
    let message = r.assert_error(400, "INVALID_PARAMETER");
    assert!(message.contains("EFA, EFADAY, SPARSE"), "{message}");
}
