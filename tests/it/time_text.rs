//! Observation times as users send them: clock changes, repeated instants, every ISO 8601 form,
//! date rules to the millisecond, and error headers in ASCII.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// Saves an hourly Europe/Berlin series `PWR:DA` with these (time, value) observations.
async fn save_berlin(c: &Client<'_>, query: &str, data: &[(&str, f64)]) -> crate::common::Resp {
    let data: Vec<Value> = data
        .iter()
        .map(|(t, v)| json!({"time": t, "value": v}))
        .collect();
    c.post(
        &format!("/object/v1{query}"),
        json!({"_id": "PWR", "DA": {"_type": "VarTimeSeries", "calendar": "HOURLY",
               "timezone": "Europe/Berlin", "units": "MWh", "data": data}}),
    )
    .await
}

fn observations(item: &Value) -> Vec<(String, f64)> {
    item["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|o| {
            (
                o["time"].as_str().unwrap().to_string(),
                o["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[actix_rt::test]
async fn the_repeated_autumn_hour_is_two_hours_in_payload_order() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = save_berlin(
        &c,
        "",
        &[
            ("2024-10-27T00:00", 1.0),
            ("2024-10-27T01:00", 2.0),
            ("2024-10-27T02:00", 3.0),
            ("2024-10-27T02:00", 4.0),
            ("2024-10-27T03:00", 5.0),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let item = c.get("/data/v1/private/PWR:DA").await.body;
    assert_eq!(
        observations(&item),
        vec![
            ("2024-10-26T22:00:00Z".to_string(), 1.0),
            ("2024-10-26T23:00:00Z".to_string(), 2.0),
            ("2024-10-27T00:00:00Z".to_string(), 3.0),
            ("2024-10-27T01:00:00Z".to_string(), 4.0),
            ("2024-10-27T02:00:00Z".to_string(), 5.0),
        ]
    );
    // A later save of the lone 02:00 is the earlier instant; an offset names the later one.
    let r = save_berlin(
        &c,
        "",
        &[("2024-10-27T02:00", 30.0), ("2024-10-27T02:00+01:00", 40.0)],
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let item = c.get("/data/v1/private/PWR:DA").await.body;
    let values: Vec<f64> = observations(&item).into_iter().map(|(_, v)| v).collect();
    assert_eq!(values, vec![1.0, 2.0, 30.0, 40.0, 5.0]);
}

#[actix_rt::test]
async fn a_time_in_the_spring_gap_is_refused_by_name_and_nothing_is_stored() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = save_berlin(
        &c,
        "",
        &[("2024-03-31T01:00", 1.0), ("2024-03-31T02:30", 2.0)],
    )
    .await;
    let message = r.assert_error(400, "INVALID_PARAMETER");
    assert!(
        message.contains("DA.data[1]") && message.contains("\"2024-03-31T02:30\""),
        "{message}"
    );
    assert!(message.contains("Europe/Berlin"), "{message}");
    c.get("/object/v1/private/PWR")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn one_instant_twice_in_a_save_is_refused_unless_the_caller_picks_one() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let body = |first: f64, second: f64| {
        json!({"_id": "GAS", "DA": {"_type": "VarTimeSeries", "calendar": "DAILY",
               "data": [{"time": "2023-12-31", "value": 0},
                        {"time": "2024-01-01", "value": first},
                        {"time": "2024-01-01T00:00:00Z", "value": second}]}})
    };
    let message = c
        .post("/object/v1", body(1.0, 2.0))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(
        message.contains("DA.data[1] and DA.data[2]") && message.contains("2024-01-01"),
        "{message}"
    );
    assert!(message.contains("_onDuplicate=first|last"), "{message}");
    c.get("/object/v1/private/GAS")
        .await
        .assert_error(404, "NOT_FOUND");
    // Nothing of a refused save reaches a series that exists either.
    c.post("/object/v1", json!({"_id": "GAS", "DA": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2023-12-30", "value": 9}]}}))
        .await;
    c.post("/object/v1", body(1.0, 2.0))
        .await
        .assert_error(400, "INVALID_BODY");
    let stored = c.get("/data/v1/private/GAS:DA").await.body;
    assert_eq!(observations(&stored), vec![("2023-12-30".to_string(), 9.0)]);
    assert_eq!(stored["_version"], 1);
    // The caller may keep the first or the last of a repeat.
    for (policy, want) in [("first", 1.0), ("last", 2.0), ("LAST", 2.0)] {
        let r = c
            .post(&format!("/object/v1?_onDuplicate={policy}"), body(1.0, 2.0))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let stored = c.get("/data/v1/private/GAS:DA").await.body;
        assert_eq!(
            observations(&stored),
            vec![
                ("2023-12-30".to_string(), 9.0),
                ("2023-12-31".to_string(), 0.0),
                ("2024-01-01".to_string(), want)
            ],
            "{policy}"
        );
    }
    let message = c
        .post("/object/v1?_onDuplicate=average", body(1.0, 2.0))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(message.contains("average"), "{message}");
}

#[actix_rt::test]
async fn every_iso_form_people_send_is_read_and_a_refusal_lists_them() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // Local times are read in Europe/Paris (UTC+1 in winter).
    let sent = [
        "2020-01-01T00:00Z",
        "2020-01-01 02:00",
        "2020-01-01T03:00:00.250+01:00",
        "2020-01-01T04:00+01:00",
        "2020-01-02",
    ];
    let data: Vec<Value> = sent
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"time": t, "value": i}))
        .collect();
    let r = c
        .post("/object/v1", json!({"_id": "P", "S": {"_type": "VarTimeSeries", "timezone": "Europe/Paris", "data": data}}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let item = c.get("/data/v1/private/P:S").await.body;
    assert_eq!(
        observations(&item),
        vec![
            ("2020-01-01T00:00:00Z".to_string(), 0.0),
            ("2020-01-01T01:00:00Z".to_string(), 1.0),
            ("2020-01-01T02:00:00.250Z".to_string(), 2.0),
            ("2020-01-01T03:00:00Z".to_string(), 3.0),
            ("2020-01-01T23:00:00Z".to_string(), 4.0),
        ]
    );
    // A refusal lists the accepted forms, and each form it lists is accepted.
    let message = c
        .post("/object/v1", json!({"_id": "P", "S": {"_type": "VarTimeSeries", "data": [{"time": "01/02/2020", "value": 1}]}}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(message.contains("\"01/02/2020\""), "{message}");
    for (i, form) in platform_core::data::timetext::ACCEPTED_FORMS
        .iter()
        .enumerate()
    {
        assert!(message.contains(form), "{message} lists {form}");
        let r = c
            .post("/object/v1", json!({"_id": format!("F{i}"), "S": {"_type": "VarTimeSeries", "data": [{"time": form, "value": 1}]}}))
            .await;
        assert_eq!(r.status, 200, "{form}: {:?}", r.body);
    }
}

#[actix_rt::test]
async fn a_date_rule_field_starts_at_the_exact_midnight() {
    // The clock stands at a time with milliseconds.
    let s = TestServer::at("2024-07-08T16:23:07.250Z");
    let c = s.client(Role::Writer);
    c.post("/object/v1", json!({"_id": "M", "S": {"_type": "VarTimeSeries", "calendar": "HOURLY",
            "data": [{"time": "2024-07-04T23:00:00Z", "value": 1}, {"time": "2024-07-05T00:00:00Z", "value": 2},
                     {"time": "2024-07-05T01:00:00Z", "value": 3}]}}))
        .await;
    let item = c
        .get("/data/v1/private/M:S?_range=from(T-3Dh0m0s0)")
        .await
        .body;
    assert_eq!(
        observations(&item),
        vec![
            ("2024-07-05T00:00:00Z".to_string(), 2.0),
            ("2024-07-05T01:00:00Z".to_string(), 3.0)
        ]
    );
}

#[actix_rt::test]
async fn error_headers_are_ascii_and_the_body_keeps_the_text() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c
        .post(
            "/object/v1",
            json!({"_id": "Z", "S": {"_type": "VarTimeSeries", "timezone": "Europe/Zürich ±1"}}),
        )
        .await;
    let message = r.assert_error(400, "INVALID_PARAMETER");
    assert!(message.contains("Europe/Zürich ±1"), "{message}");
    let header = r.header("x-platform-error").unwrap();
    assert!(header.is_ascii(), "{header}");
    assert!(header.contains("Europe/Z\\u00fcrich \\u00b11"), "{header}");
}
