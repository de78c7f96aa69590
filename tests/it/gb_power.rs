//! GB power time over HTTP: EFA blocks and days on read (the spec's EFA vectors, end to end),
//! block calendars past midnight, settlement dates and periods, and their bad input.

use crate::common::{vectors, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

#[actix_rt::test]
async fn every_efa_vector_holds_on_a_data_get() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let file = vectors("efa.json");
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 5);
    for (i, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let series = &case["series"];
        let id = format!("GB{i}");
        c.save(json!({"_id": id, "S": {
            "_type": "VarTimeSeries",
            "timezone": series["timezone"], "calendar": series["calendar"],
            "data": series["data"]}}))
            .await;
        let q = case["query"].as_object().unwrap();
        let query: Vec<String> = q
            .iter()
            .map(|(k, v)| format!("_{k}={}", v.as_str().unwrap()))
            .collect();
        let r = c
            .get(&format!("/data/v1/private/{id}:S?{}", query.join("&")))
            .await;
        assert_eq!(r.status, 200, "{name}: {:?}", r.body);
        assert_eq!(r.body["calendar"], q["calendar"], "{name}");
        assert_eq!(r.body["observed"], q["observed"], "{name}");
        let got = r.body["data"].as_array().unwrap();
        let want = case["result"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{name}: {got:?}");
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g["time"], w["time"], "{name}: {g} vs {w}");
            let v = g["value"].as_f64().unwrap();
            assert!(
                (v - w["value"].as_f64().unwrap()).abs() < 1e-9,
                "{name}: {g} vs {w}"
            );
            // Complete, or partial with the vector's count (a block cut by the data's ends).
            let source = g["status"]["source"].as_str().unwrap();
            if source != "CALCULATED" {
                let n = source
                    .strip_prefix("CALCULATED:")
                    .and_then(|s| s.split_once(" of "))
                    .map(|(n, _)| n.parse::<u64>().unwrap());
                assert_eq!(n, w["count"].as_u64(), "{name}: {g}");
            }
        }
    }
}

#[actix_rt::test]
async fn efa_is_cut_in_london_time_whatever_the_series_zone() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // A summer day of half-hours stored in UTC: EFA blocks still start at 22:00Z (23:00 BST).
    let data: Vec<Value> = (0..48)
        .map(|h| json!({"time": format!("2025-06-21T{:02}:{:02}:00Z", h / 2, h % 2 * 30), "value": 1}))
        .collect();
    c.save(
        json!({"_id": "U", "S": {"_type": "VarTimeSeries", "timezone": "UTC",
        "calendar": "HALFHOURLY", "data": data}}),
    )
    .await;
    let r = c
        .get("/data/v1/private/U:S?_calendar=EFA&_observed=summed")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let times: Vec<&str> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["time"].as_str().unwrap())
        .collect();
    assert_eq!(
        times,
        [
            "2025-06-20T22:00:00Z",
            "2025-06-21T02:00:00Z",
            "2025-06-21T06:00:00Z",
            "2025-06-21T10:00:00Z",
            "2025-06-21T14:00:00Z",
            "2025-06-21T18:00:00Z",
            "2025-06-21T22:00:00Z"
        ]
    );
    assert_eq!(r.body["data"][0]["value"], 4.0);
    assert_eq!(r.body["data"][6]["value"], 4.0);
    // EFA6 per day: 18:00Z to 22:00Z, 8 half-hours.
    let r = c
        .get("/data/v1/private/U:S?_calendar=DAILY&_observed=summed&_block=efa6")
        .await;
    assert_eq!(r.body["data"][0]["value"], 8.0, "{:?}", r.body);
}

#[actix_rt::test]
async fn bad_efa_input_is_a_400_naming_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "H", "S": {"_type": "VarTimeSeries", "timezone": "Europe/London",
        "calendar": "HALFHOURLY", "data": [{"time": "2025-01-15T00:00:00Z", "value": 1}]}}),
    )
    .await;
    for (query, says) in [
        (
            "_calendar=EFADAY&_observed=averaged&_block=EFA7",
            "\"EFA7\"",
        ),
        ("_calendar=EFA&_observed=averaged&_block=EFA0", "EFA1"),
        ("_calendar=EFADAY&_observed=averaged&_block=EFA7", "EFA6"),
        ("_calendar=EFB&_observed=averaged", "EFADAY"),
        ("_calendar=EFA&_distribution=constant", "finer"),
    ] {
        let m = c
            .get(&format!("/data/v1/private/H:S?{query}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains(says), "{query}: {m}");
    }
}

#[actix_rt::test]
async fn a_block_calendar_past_midnight_counts_each_night_on_the_day_it_starts() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c
        .post(
            "/calendar/v1",
            json!({"_id": "NIGHT", "block": {"days": ["MON", "TUE", "WED", "THU", "FRI"],
                   "hours": [23, 3]}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // Hourly values equal to the London hour, Friday 2025-01-10 to Monday 2025-01-13.
    let data: Vec<Value> = (0..96)
        .map(|h| json!({"time": format!("2025-01-{:02}T{:02}:00:00Z", 10 + h / 24, h % 24), "value": h % 24}))
        .collect();
    c.save(
        json!({"_id": "N", "S": {"_type": "VarTimeSeries", "timezone": "Europe/London",
        "calendar": "HOURLY", "data": data}}),
    )
    .await;
    let r = c
        .get("/data/v1/private/N:S?_calendar=DAILY&_observed=summed&_block=NIGHT")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // Friday 00:00-03:00 is Thursday's night (0 + 1 + 2, on Thursday: 3 of its 4 hours);
    // Friday's night is 23 + 0 + 1 + 2 on Friday; the weekend's nights are off; Monday's has
    // only its 23:00 here (1 of 4).
    assert_eq!(
        r.body["data"],
        json!([
            {"time": "2025-01-09", "value": 3.0, "status": {"source": "CALCULATED:3 of 4"}},
            {"time": "2025-01-10", "value": 26.0, "status": {"source": "CALCULATED"}},
            {"time": "2025-01-13", "value": 23.0, "status": {"source": "CALCULATED:1 of 4"}}
        ])
    );
    // from == to, or to == 0, is no block: a 400 naming the hours, nothing stored.
    for hours in [json!([3, 3]), json!([23, 0])] {
        let m = c
            .post(
                "/calendar/v1",
                json!({"_id": "BAD", "block": {"days": ["MON"], "hours": hours}}),
            )
            .await
            .assert_error(400, "INVALID_BODY");
        assert!(
            m.contains("block.hours") && m.contains("past midnight"),
            "{m}"
        );
    }
    c.get("/calendar/v1/private/BAD")
        .await
        .assert_error(404, "NOT_FOUND");
}
