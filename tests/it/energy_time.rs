//! Energy time over HTTP: scaling on read (the spec's scaling vectors, end to end), and its
//! bad input.

use crate::common::{vectors, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

fn ms(text: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap()
        .timestamp_millis()
}

#[actix_rt::test]
async fn every_scaling_vector_holds_on_a_data_get() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let file = vectors("scaling.json");
    let cases = file["cases"].as_array().unwrap();
    for (i, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let series = &case["series"];
        let id = format!("V{i}");
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
        if let Some(observed) = q.get("observed") {
            assert_eq!(&r.body["observed"], observed, "{name}");
        }
        let got = r.body["data"].as_array().unwrap();
        let want = case["result"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{name}");
        for (g, w) in got.iter().zip(want) {
            let t = g["time"].as_str().unwrap();
            // Dated calendars print dates in the zone; instants otherwise.
            let at = if t.len() == 10 {
                let tz: chrono_tz::Tz = series["timezone"].as_str().unwrap().parse().unwrap();
                let d = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").unwrap();
                use chrono::TimeZone as _;
                tz.from_local_datetime(&d.and_hms_opt(0, 0, 0).unwrap())
                    .earliest()
                    .unwrap()
                    .timestamp_millis()
            } else {
                ms(t)
            };
            assert_eq!(at, ms(w["time"].as_str().unwrap()), "{name}: {g} vs {w}");
            let v = g["value"].as_f64().unwrap();
            assert!(
                (v - w["value"].as_f64().unwrap()).abs() < 1e-9,
                "{name}: {g} vs {w}"
            );
            assert_eq!(g["status"]["source"], "CALCULATED", "{name}");
        }
    }
}

#[actix_rt::test]
async fn daily_peak_averages_follow_the_range_and_the_other_formats() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // Two Berlin days of hourly prices: the hour's number as its value.
    let data: Vec<Value> = (0..48)
        .map(|h| {
            json!({"time": format!("2024-06-{:02}T{:02}:00", 3 + h / 24, h % 24), "value": h % 24})
        })
        .collect();
    c.save(
        json!({"_id": "DE", "POWER": {"_type": "VarTimeSeries", "timezone": "Europe/Berlin",
        "calendar": "HOURLY", "data": data}}),
    )
    .await;
    let r = c
        .get("/data/v1/private/DE:POWER?_calendar=DAILY&_observed=averaged&_block=PEAK")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // Peak hours 08..20: the mean of 8..=19 is 13.5, each day.
    assert_eq!(
        r.body["data"],
        json!([
            {"time": "2024-06-03", "value": 13.5, "status": {"source": "CALCULATED"}},
            {"time": "2024-06-04", "value": 13.5, "status": {"source": "CALCULATED"}}
        ])
    );
    // The range applies to the observations before scaling.
    let r = c
        .get("/data/v1/private/DE:POWER?_range=last(24)&_calendar=DAILY&_observed=summed")
        .await;
    assert_eq!(r.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(r.body["data"][0]["value"], 276.0);
    // Another zone cuts other days.
    let r = c
        .get("/data/v1/private/DE:POWER?_calendar=DAILY&_observed=summed&_timezone=UTC")
        .await;
    assert_eq!(r.body["timezone"], "UTC");
    assert_eq!(r.body["data"].as_array().unwrap().len(), 3);
    // CSV of the scaled series.
    let csv = s
        .send(
            actix_web::test::TestRequest::get()
                .uri("/data/v1/private/DE:POWER?_calendar=GASDAY&_observed=high")
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", "text/csv")),
        )
        .await;
    let text = csv.body.as_str().unwrap().to_string();
    assert!(
        text.starts_with("time,value,quality,source,reliability"),
        "{text}"
    );
    assert!(text.contains("2024-06-03T04:00:00Z,23"), "{text}");
}

#[actix_rt::test]
async fn bad_scaling_input_is_a_400_naming_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "D", "S": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "data": [{"time": "2024-01-01", "value": 1}]}}),
    )
    .await;
    for (query, says) in [
        ("_observed=averaged", "_observed needs _calendar"),
        ("_block=PEAK", "_block needs _calendar"),
        ("_calendar=FORTNIGHTLY&_observed=averaged", "FORTNIGHTLY"),
        ("_calendar=MONTHLY&_observed=mean", "\"mean\""),
        (
            "_calendar=MONTHLY&_observed=averaged&_block=NIGHT",
            "\"NIGHT\"",
        ),
        ("_calendar=MONTHLY", "_observed"),
        ("_calendar=HOURLY&_observed=averaged", "coarser"),
        ("_calendar=MONTHLY&_distribution=constant", "finer"),
        (
            "_calendar=MONTHLY&_observed=summed&_timezone=Mars/Base",
            "Mars/Base",
        ),
        ("_timezone=Europe/Atlantis", "\"Europe/Atlantis\""),
    ] {
        let m = c
            .get(&format!("/data/v1/private/D:S?{query}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains(says), "{query}: {m}");
    }
}

#[actix_rt::test]
async fn as_of_reads_answer_the_version_current_then_with_its_data() {
    let s = TestServer::at("2024-05-01T09:00:00Z");
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "NBP", "name": "first", "SPOT": {"_type": "VarTimeSeries",
        "calendar": "DAILY", "data": [{"time": "2024-04-30", "value": 10}]}}),
    )
    .await;
    s.advance(3600);
    c.save(
        json!({"_id": "NBP", "name": "second", "SPOT": {"_type": "VarTimeSeries",
        "calendar": "DAILY", "data": [{"time": "2024-04-30", "value": 11},
                                       {"time": "2024-05-01", "value": 12}]}}),
    )
    .await;
    let at = |t: &str| format!("/object/v1/private/NBP?_asof={t}");
    let r = c.get(&at("2024-05-01T09:30:00Z")).await;
    assert_eq!((r.status, r.body["name"].clone()), (200, json!("first")));
    assert_eq!(r.body["_version"], 1);
    // At the instant of a save, that save is current.
    let r = c.get(&at("2024-05-01T10:00:00Z")).await;
    assert_eq!(r.body["name"], "second");
    assert_eq!(c.get(&at("2030-01-01")).await.body["_version"], 2);
    // Before it existed: not found.
    c.get(&at("2024-05-01T08:59:59Z"))
        .await
        .assert_error(404, "NOT_FOUND");
    // The all source too.
    let r = c.get("/object/v1/all/NBP?_asof=2024-05-01T09:30:00Z").await;
    assert_eq!(r.body["name"], "first");
    // Data as of then: the data of that version.
    let r = c
        .get("/data/v1/private/NBP:SPOT?_asof=2024-05-01T09:30:00Z")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.body["data"],
        json!([{"time": "2024-04-30", "value": 10.0}])
    );
    let r = c.get("/data/v1/private/NBP:SPOT?_asof=2024-05-02").await;
    assert_eq!(r.body["data"].as_array().unwrap().len(), 2);
    c.get("/data/v1/private/NBP:SPOT?_asof=2024-04-01")
        .await
        .assert_error(404, "NOT_FOUND");
    // Bad input.
    for (path, says) in [
        ("/object/v1/private/NBP?_asof=yesterday", "\"yesterday\""),
        ("/data/v1/private/NBP:SPOT?_asof=soon", "\"soon\""),
        (
            "/data/v1/private/NBP:SPOT?_asof=2024-05-02&_version=1",
            "send one",
        ),
        ("/object/v1/private?_asof=2024-05-02x", "\"2024-05-02x\""),
        (
            "/object/v1/private?_asof=2024-05-02&_distinct=name",
            "_asof",
        ),
    ] {
        let m = c.get(path).await.assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains(says), "{path}: {m}");
    }
}

#[actix_rt::test]
async fn as_of_lists_answer_each_version_current_then_through_all_and_profile() {
    let s = TestServer::at("2024-05-01T09:00:00Z");
    let c = s.client(Role::Writer);
    let series = |v: f64| {
        json!({"_type": "VarTimeSeries", "calendar": "DAILY",
               "data": [{"time": "2024-04-30", "value": v}]})
    };
    c.save(json!({"_id": "A", "zone": "north", "n": 1, "SPOT": series(1.0)}))
        .await;
    c.save(json!({"_id": "B", "zone": "south", "n": 5, "SPOT": series(5.0)}))
        .await;
    s.advance(3600);
    c.save(json!({"_id": "A", "zone": "south", "n": 9, "SPOT": series(9.0)}))
        .await;
    c.save(json!({"_id": "C", "zone": "south", "n": 3, "SPOT": series(3.0)}))
        .await;
    let then = "2024-05-01T09:30:00Z";
    // Now: A, B and C are south.
    let r = c.get("/object/v1/private?zone=south").await;
    assert_eq!(r.total(), 3);
    // Then: C did not exist and A was north.
    let r = c
        .get(&format!("/object/v1/private?zone=south&_asof={then}"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let ids: Vec<&str> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["_oid"].as_str().unwrap_or(o["_id"].as_str().unwrap()))
        .collect();
    assert_eq!((ids, r.total()), (vec!["B"], 1));
    // Sorted and paged in memory as the store would.
    let r = c
        .get(&format!(
            "/object/v1/private?_asof={then}&_sort=-n&_limit=1"
        ))
        .await;
    assert_eq!(r.total(), 2);
    assert_eq!(r.body[0]["n"], 5);
    let r = c
        .get(&format!("/object/v1/private?_asof={then}&_sort=n"))
        .await;
    let ns: Vec<&Value> = r.body.as_array().unwrap().iter().map(|o| &o["n"]).collect();
    assert_eq!(ns, [&json!(1), &json!(5)]);
    // An older version is shown at its address, as a single as-of read shows it.
    assert_eq!(r.body[0]["_id"], "A/1");
    assert_eq!(r.body[0]["_version"], 1);
    assert_eq!(r.body[1]["_id"], "B");
    // The all source by id.
    let r = c
        .get(&format!("/object/v1/all?_id=A&_id=C&_asof={then}"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.total(), 1);
    assert_eq!(r.body[0]["zone"], "north");
    // `_profile`: each object's data as it was.
    let r = c
        .get(&format!("/object/v1/private?_profile=SPOT&_asof={then}"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let values: Vec<&Value> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["data"][0]["value"])
        .collect();
    assert_eq!(values, [&json!(1.0), &json!(5.0)]);
    let r = c
        .get(&format!("/object/v1/private/A?_profile=SPOT&_asof={then}"))
        .await;
    assert_eq!(r.body["data"][0]["value"], 1.0);
    // Data items by id through all.
    let r = c
        .get(&format!("/data/v1/all?_id=A:SPOT&_id=C:SPOT&_asof={then}"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.total(), 1);
    // The data list: the catalogue as it was (C absent, A's item at version 1), and with a
    // range each item's data as that version saw it.
    let r = c
        .get(&format!("/data/v1/private?_asof={then}&_sort=_id"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let items: Vec<(&Value, &Value, &Value)> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (&d["_oid"], &d["_version"], &d["_count"]))
        .collect();
    assert_eq!(
        items,
        [
            (&json!("A:SPOT"), &json!(1), &json!(1)),
            (&json!("B:SPOT"), &json!(1), &json!(1))
        ],
        "{:?}",
        r.body
    );
    let r = c
        .get(&format!(
            "/data/v1/private?_asof={then}&_range=last(10)&_objid=A"
        ))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.total(), 1);
    assert_eq!(r.body[0]["_id"], "A/1:SPOT");
    assert_eq!(r.body[0]["data"][0]["value"], 1.0);
    let r = c.get("/data/v1/private?_range=last(10)&_objid=A").await;
    assert_eq!(r.body[0]["data"][0]["value"], 9.0, "now: {:?}", r.body);
    let r = c
        .get(&format!("/data/v1/private?_asof={then}&_objid=C"))
        .await;
    assert_eq!((r.status, r.total()), (200, 0), "C did not exist then");
    // Before anything existed: an empty list.
    let r = c.get("/object/v1/private?_asof=2024-01-01").await;
    assert_eq!((r.status, r.total()), (200, 0));
}

#[actix_rt::test]
async fn a_types_retention_prunes_old_versions_with_their_data_at_each_save() {
    let s = TestServer::at("2024-01-01T00:00:00Z");
    let c = s.client(Role::Writer);
    let t = c
        .post(
            "/type/v1",
            json!({"_id": "Quote", "_retention": {"keepVersions": 2, "keepTagged": true}}),
        )
        .await;
    assert_eq!(t.status, 200, "{:?}", t.body);
    let save = |v: i64| {
        json!({"_id": "Q", "_type": "Quote", "v": v, "P": {"_type": "VarTimeSeries",
            "calendar": "DAILY", "data": [{"time": format!("2024-01-{:02}", v), "value": v}]}})
    };
    c.save(save(1)).await;
    assert_eq!(c.put("/object/v1/private/Q/1/keep").await.status, 200);
    for v in 2..=4 {
        s.advance(86_400);
        c.save(save(v)).await;
    }
    let versions = c.get("/object/v1/private/Q/*").await;
    let numbers: Vec<i64> = versions
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["_version"].as_i64().unwrap())
        .collect();
    // The two newest, and the tagged first one.
    assert_eq!(numbers, [1, 3, 4]);
    c.get("/object/v1/private/Q/2")
        .await
        .assert_error(404, "NOT_FOUND");
    // The data of version 1 is still there; version 2's is gone with it.
    let v1 = c.get("/data/v1/private/Q:P?_version=1").await;
    assert_eq!(v1.body["data"].as_array().unwrap().len(), 1);
    c.get("/data/v1/private/Q:P?_version=2")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(
        c.get("/data/v1/private/Q:P").await.body["data"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    // An age limit: versions older than a day go, the current one never.
    let t = c
        .post(
            "/type/v1",
            json!({"_id": "Aged", "_retention": {"maxAgeDays": 1}}),
        )
        .await;
    assert_eq!(t.status, 200, "{:?}", t.body);
    c.save(json!({"_id": "A", "_type": "Aged", "v": 1})).await;
    s.advance(2 * 86_400);
    c.save(json!({"_id": "A", "_type": "Aged", "v": 2})).await;
    let list = c.get("/object/v1/private/A/*").await;
    assert_eq!(list.body.as_array().unwrap().len(), 1);
    assert_eq!(list.body[0]["_version"], 2);
    s.advance(30 * 86_400);
    assert_eq!(c.get("/object/v1/private/A").await.body["v"], 2);
}

#[actix_rt::test]
async fn a_bad_retention_policy_is_a_400_and_nothing_is_stored() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (policy, says) in [
        (json!({"keepVersions": 0}), "keepVersions"),
        (json!({"keepVersions": -3}), "keepVersions"),
        (json!({"keepVersions": "2"}), "keepVersions"),
        (json!({"maxAgeDays": 1.5}), "maxAgeDays"),
        (json!({"keepTagged": "yes"}), "keepTagged"),
        (json!({"keep": 2}), "_retention.keep"),
        (json!({}), "keepVersions or maxAgeDays"),
        (json!(5), "must be an object"),
    ] {
        let r = c
            .post("/type/v1", json!({"_id": "Bad", "_retention": policy}))
            .await;
        let m = r.assert_error(400, "INVALID_BODY");
        assert!(m.contains(says), "{policy}: {m}");
    }
    c.get("/type/v1/private/Bad")
        .await
        .assert_error(404, "NOT_FOUND");
}
