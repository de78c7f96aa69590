//! Local time on series reads: `_timezone=ZONE` (or `series`) prints times in that zone with
//! their offsets in JSON, CSV and XML, names the zone on an Arrow answer's time column and reads
//! `_range` dates in it; without it times print in UTC as they always have.

use crate::common::{Client, Resp, TestServer};
use actix_web::http::header;
use actix_web::test::TestRequest;
use platform_core::auth::Role;
use serde_json::{json, Value};

/// Saves `id` (`OBJ:PROP`) as an hourly series in `zone` with these local times, valued 1, 2...
async fn save_hourly(c: &Client<'_>, id: &str, zone: &str, times: &[&str]) {
    let (object, prop) = id.split_once(':').unwrap();
    let data: Vec<Value> = times
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"time": t, "value": i + 1}))
        .collect();
    c.save(
        json!({"_id": object, prop: {"_type": "VarTimeSeries", "calendar": "HOURLY",
        "timezone": zone, "data": data}}),
    )
    .await;
}

/// Hourly Berlin power across the autumn change: 00:00 to 03:00 local, 02:00 twice.
async fn autumn(c: &Client<'_>) {
    save_hourly(
        c,
        "DE:POWER",
        "Europe/Berlin",
        &[
            "2024-10-27T00:00",
            "2024-10-27T01:00",
            "2024-10-27T02:00",
            "2024-10-27T02:00",
            "2024-10-27T03:00",
        ],
    )
    .await;
}

fn times(item: &Value) -> Vec<&str> {
    item["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|o| o["time"].as_str().unwrap())
        .collect()
}

async fn get_as(s: &TestServer, c: &Client<'_>, path: &str, accept: &str) -> Resp {
    let r = s
        .send(
            TestRequest::get()
                .uri(path)
                .insert_header((header::AUTHORIZATION, format!("Bearer {}", c.token)))
                .insert_header((header::ACCEPT, accept.to_string())),
        )
        .await;
    assert_eq!(r.status, 200, "{path}: {:?}", r.body);
    r
}

/// The text of each `<time>` element of an XML answer, in order.
fn xml_times(xml: &str) -> Vec<String> {
    xml.split("<time>")
        .skip(1)
        .map(|rest| rest[..rest.find("</time>").unwrap()].to_string())
        .collect()
}

const AUTUMN_LOCAL: [&str; 5] = [
    "2024-10-27T00:00:00+02:00",
    "2024-10-27T01:00:00+02:00",
    "2024-10-27T02:00:00+02:00",
    "2024-10-27T02:00:00+01:00",
    "2024-10-27T03:00:00+01:00",
];

#[actix_rt::test]
async fn local_time_shows_the_autumn_hour_twice_in_json_csv_and_xml() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    autumn(&c).await;
    let path = "/data/v1/private/DE:POWER?_timezone=Europe/Berlin";
    let r = c.get(path).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(times(&r.body), AUTUMN_LOCAL);
    // The header keeps the series' own zone.
    assert_eq!(r.body["timezone"], "Europe/Berlin");
    let csv = get_as(&s, &c, path, "text/csv").await;
    assert_eq!(
        csv.body.as_str().unwrap(),
        "time,value,quality,source,reliability\n\
         2024-10-27T00:00:00+02:00,1.0,,,\n\
         2024-10-27T01:00:00+02:00,2.0,,,\n\
         2024-10-27T02:00:00+02:00,3.0,,,\n\
         2024-10-27T02:00:00+01:00,4.0,,,\n\
         2024-10-27T03:00:00+01:00,5.0,,,\n"
    );
    let xml = get_as(&s, &c, path, "application/xml").await;
    assert_eq!(xml_times(xml.body.as_str().unwrap()), AUTUMN_LOCAL);
    // Another zone: the same instants on New York's clock (still on summer time then).
    let r = c
        .get("/data/v1/private/DE:POWER?_timezone=America/New_York")
        .await;
    assert_eq!(
        times(&r.body),
        [
            "2024-10-26T18:00:00-04:00",
            "2024-10-26T19:00:00-04:00",
            "2024-10-26T20:00:00-04:00",
            "2024-10-26T21:00:00-04:00",
            "2024-10-26T22:00:00-04:00"
        ]
    );
}

#[actix_rt::test]
async fn local_time_skips_the_spring_hour_in_json_csv_and_xml() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_hourly(
        &c,
        "DE:POWER",
        "Europe/Berlin",
        &[
            "2024-03-31T00:00",
            "2024-03-31T01:00",
            "2024-03-31T03:00",
            "2024-03-31T04:00",
        ],
    )
    .await;
    let want = [
        "2024-03-31T00:00:00+01:00",
        "2024-03-31T01:00:00+01:00",
        "2024-03-31T03:00:00+02:00",
        "2024-03-31T04:00:00+02:00",
    ];
    let path = "/data/v1/private/DE:POWER?_timezone=series";
    assert_eq!(times(&c.get(path).await.body), want);
    let csv = get_as(&s, &c, path, "text/csv").await;
    assert_eq!(
        csv.body.as_str().unwrap(),
        "time,value,quality,source,reliability\n\
         2024-03-31T00:00:00+01:00,1.0,,,\n\
         2024-03-31T01:00:00+01:00,2.0,,,\n\
         2024-03-31T03:00:00+02:00,3.0,,,\n\
         2024-03-31T04:00:00+02:00,4.0,,,\n"
    );
    let xml = get_as(&s, &c, path, "application/xml").await;
    assert_eq!(xml_times(xml.body.as_str().unwrap()), want);
}

#[actix_rt::test]
async fn without_timezone_times_print_in_utc_as_before() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    autumn(&c).await;
    let utc = [
        "2024-10-26T22:00:00Z",
        "2024-10-26T23:00:00Z",
        "2024-10-27T00:00:00Z",
        "2024-10-27T01:00:00Z",
        "2024-10-27T02:00:00Z",
    ];
    assert_eq!(times(&c.get("/data/v1/private/DE:POWER").await.body), utc);
    // UTC itself prints `Z`, as the default does.
    let r = c.get("/data/v1/private/DE:POWER?_timezone=UTC").await;
    assert_eq!(times(&r.body), utc);
    let csv = get_as(&s, &c, "/data/v1/private/DE:POWER", "text/csv").await;
    assert!(
        csv.body
            .as_str()
            .unwrap()
            .contains("\n2024-10-27T00:00:00Z,3.0,,,\n"),
        "{:?}",
        csv.body
    );
}

#[actix_rt::test]
async fn timezone_series_is_each_series_own_zone() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    autumn(&c).await;
    save_hourly(
        &c,
        "GB:POWER",
        "Europe/London",
        &["2024-10-27T01:00", "2024-10-27T01:00"],
    )
    .await;
    let r = c.get("/data/v1/private/GB:POWER?_timezone=series").await;
    assert_eq!(
        times(&r.body),
        ["2024-10-27T01:00:00+01:00", "2024-10-27T01:00:00+00:00"]
    );
    // A list with `_range`: each item in its own zone; without `_range` a catalogue whose first
    // and last times print in it too.
    let r = c
        .get("/data/v1/private?_range=from(2024-10-01)&_timezone=series&_sort=_objid")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(times(&r.body[0]), AUTUMN_LOCAL);
    assert_eq!(
        times(&r.body[1]),
        ["2024-10-27T01:00:00+01:00", "2024-10-27T01:00:00+00:00"]
    );
    let r = c
        .get("/data/v1/private?_timezone=series&_sort=_objid")
        .await;
    assert_eq!(
        (&r.body[0]["_first"], &r.body[0]["_last"]),
        (&json!(AUTUMN_LOCAL[0]), &json!(AUTUMN_LOCAL[4]))
    );
    // `_profile` on the object reads the same way.
    let r = c
        .get("/object/v1/private/DE?_profile=POWER&_timezone=series")
        .await;
    assert_eq!(times(&r.body), AUTUMN_LOCAL);
}

#[actix_rt::test]
async fn a_bad_zone_is_a_400_naming_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    autumn(&c).await;
    for (query, zone) in [
        ("_timezone=Mars/Base", "\"Mars/Base\""),
        ("_timezone=europe/berlin", "\"europe/berlin\""),
        ("_timezone=", "\"\""),
        ("_timezone=Series", "\"Series\""),
        (
            "_calendar=DAILY&_observed=summed&_timezone=Mars/Base",
            "\"Mars/Base\"",
        ),
    ] {
        let m = c
            .get(&format!("/data/v1/private/DE:POWER?{query}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains(zone) && m.contains("_timezone"), "{query}: {m}");
    }
}

#[actix_rt::test]
async fn range_dates_are_read_in_the_zone_asked_for() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // Every hour from 2024-10-26T20:00Z to 2024-10-28T01:00Z.
    let start = chrono::DateTime::parse_from_rfc3339("2024-10-26T20:00:00Z").unwrap();
    let data: Vec<Value> = (0..30)
        .map(|h| {
            let t = start + chrono::Duration::hours(h);
            json!({"time": t.to_rfc3339(), "value": h})
        })
        .collect();
    c.save(
        json!({"_id": "DE", "POWER": {"_type": "VarTimeSeries", "calendar": "HOURLY",
        "timezone": "Europe/Berlin", "data": data}}),
    )
    .await;
    let day = "_range=between(2024-10-27,2024-10-27)";
    // Without `_timezone` the day is the series' own (25 hours in Berlin), printed in UTC.
    let r = c.get(&format!("/data/v1/private/DE:POWER?{day}")).await;
    let t = times(&r.body);
    assert_eq!(
        (t.len(), t[0], t[24]),
        (25, "2024-10-26T22:00:00Z", "2024-10-27T22:00:00Z")
    );
    // With it, the day of that zone, printed in it: what is shown is the day asked for.
    let r = c
        .get(&format!(
            "/data/v1/private/DE:POWER?{day}&_timezone=Europe/Berlin"
        ))
        .await;
    let t = times(&r.body);
    assert_eq!(
        (t.len(), t[0], t[24]),
        (25, "2024-10-27T00:00:00+02:00", "2024-10-27T23:00:00+01:00")
    );
    let r = c
        .get(&format!("/data/v1/private/DE:POWER?{day}&_timezone=UTC"))
        .await;
    let t = times(&r.body);
    assert_eq!(
        (t.len(), t[0], t[23]),
        (24, "2024-10-27T00:00:00Z", "2024-10-27T23:00:00Z")
    );
    // A range naming its own zone keeps it.
    let r = c
        .get("/data/v1/private/DE:POWER?_range=between(2024-10-27,2024-10-27,UTC)&_timezone=Europe/Berlin")
        .await;
    let t = times(&r.body);
    assert_eq!(
        (t.len(), t[0], t[23]),
        (24, "2024-10-27T02:00:00+02:00", "2024-10-28T00:00:00+01:00")
    );
}

#[actix_rt::test]
async fn dates_stay_dates_and_scaled_reads_print_as_before() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "timezone": "Europe/London", "data": [{"time": "2024-10-26", "value": 1},
        {"time": "2024-10-27", "value": 2}]}}),
    )
    .await;
    for zone in ["series", "Asia/Tokyo", "UTC"] {
        let r = c
            .get(&format!("/data/v1/private/NBP:SPOT?_timezone={zone}"))
            .await;
        assert_eq!(times(&r.body), ["2024-10-26", "2024-10-27"], "{zone}");
    }
    // With `_calendar` the zone cuts the periods; they print as they always have.
    autumn(&c).await;
    let r = c
        .get("/data/v1/private/DE:POWER?_calendar=GASDAY&_observed=high&_timezone=Europe/Berlin")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(times(&r.body), ["2024-10-26T04:00:00Z"]);
    let r = c
        .get("/data/v1/private/DE:POWER?_calendar=DAILY&_observed=summed&_timezone=series")
        .await;
    assert_eq!(times(&r.body), ["2024-10-27"]);
    assert_eq!(r.body["data"][0]["value"], 15.0);
}

#[actix_rt::test]
async fn curves_have_no_instants_and_read_the_same() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (ondate, v) in [("2024-03-01", 30.1), ("2024-03-04", 31.0)] {
        c.save(
            json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate,
            "contracts": [{"tenor": "M01", "value": v}]}}),
        )
        .await;
    }
    for path in [
        "/data/v1/private/TTF:FWD?tenor=M01",
        "/data/v1/private/TTF:FWD?tenor=M01&_range=between(2024-03-04,2024-03-04)",
        "/data/v1/private/TTF:FWD:2024-03-01",
    ] {
        let plain = c.get(path).await;
        assert_eq!(plain.status, 200, "{:?}", plain.body);
        let sep = if path.contains('?') { '&' } else { '?' };
        let zoned = c
            .get(&format!("{path}{sep}_timezone=Pacific/Kiritimati"))
            .await;
        assert_eq!(zoned.body, plain.body, "{path}");
    }
}

/// The `time` column of an Arrow answer: the zone it names and its values.
async fn arrow_time(c: &Client<'_>, path: &str) -> (Option<String>, Vec<i64>) {
    use arrow_array::cast::AsArray as _;
    use arrow_array::types::TimestampMillisecondType;
    let batch = crate::common::arrow_batch(c, path).await;
    let time = batch.column_by_name("time").unwrap();
    let time = time.as_primitive::<TimestampMillisecondType>();
    (time.timezone().map(str::to_string), time.values().to_vec())
}

#[actix_rt::test]
async fn arrow_names_the_zone_on_its_time_column() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    autumn(&c).await;
    c.save(
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "timezone": "Europe/London", "data": [{"time": "2024-10-27", "value": 2}]}}),
    )
    .await;
    let ms = |t: &str| {
        chrono::DateTime::parse_from_rfc3339(t)
            .unwrap()
            .timestamp_millis()
    };
    let instants: Vec<i64> = AUTUMN_LOCAL.iter().map(|t| ms(t)).collect();
    // The values are the instants either way; the zone rides beside them.
    assert_eq!(
        arrow_time(&c, "/data/v1/private/DE:POWER").await,
        (Some("UTC".into()), instants.clone())
    );
    assert_eq!(
        arrow_time(&c, "/data/v1/private/DE:POWER?_timezone=Europe/Berlin").await,
        (Some("Europe/Berlin".into()), instants.clone())
    );
    assert_eq!(
        arrow_time(&c, "/object/v1/private/DE?_profile=POWER&_timezone=series").await,
        (Some("Europe/Berlin".into()), instants)
    );
    // A date series: its date's midnight in UTC as before; in a zone, the local date itself
    // (date32: decisions 13), which pandas reads as that day in any zone.
    assert_eq!(
        arrow_time(&c, "/data/v1/private/NBP:SPOT").await,
        (Some("UTC".into()), vec![ms("2024-10-27T00:00:00Z")])
    );
    let batch = crate::common::arrow_batch(&c, "/data/v1/private/NBP:SPOT?_timezone=series").await;
    let time = batch.column_by_name("time").unwrap();
    use arrow_array::cast::AsArray as _;
    let days = time
        .as_primitive_opt::<arrow_array::types::Date32Type>()
        .unwrap_or_else(|| panic!("date32, not {}", time.data_type()));
    let day = chrono::NaiveDate::from_ymd_opt(2024, 10, 27).unwrap();
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
    assert_eq!(days.values().to_vec(), [(day - epoch).num_days() as i32]);
}

/// Daily and monthly reads in a zone are local dates in Arrow (date32), which pandas reads as
/// the days themselves (a UTC midnight moved by an hour in Berlin); values as in JSON.
#[actix_rt::test]
async fn daily_or_coarser_reads_in_a_zone_are_local_dates_in_arrow() {
    use arrow_array::cast::AsArray as _;
    use arrow_array::types::{Date32Type, Float64Type, TimestampMillisecondType};
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // 72 hours from Berlin midnight of 30 October: values 1..72, a day's hours 24k+1..24k+24.
    let start = chrono::NaiveDate::from_ymd_opt(2024, 10, 30)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap();
    let times: Vec<String> = (0..72)
        .map(|h| {
            (start + chrono::Duration::hours(h))
                .format("%Y-%m-%dT%H:%M")
                .to_string()
        })
        .collect();
    let times: Vec<&str> = times.iter().map(String::as_str).collect();
    save_hourly(&c, "DE:LOAD", "Europe/Berlin", &times).await;
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
    let day =
        |y, m, d| (chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap() - epoch).num_days() as i32;
    let dated = |batch: &arrow_array::RecordBatch| -> (Vec<i32>, Vec<f64>) {
        let time = batch.column_by_name("time").unwrap();
        let time = time
            .as_primitive_opt::<Date32Type>()
            .unwrap_or_else(|| panic!("date32, not {}", time.data_type()));
        let value = batch.column_by_name("value").unwrap();
        (
            time.values().to_vec(),
            value.as_primitive::<Float64Type>().values().to_vec(),
        )
    };
    let mean = |from: i32, to: i32| f64::from((from..=to).sum::<i32>()) / f64::from(to - from + 1);
    let daily =
        "/data/v1/private/DE:LOAD?_calendar=DAILY&_observed=averaged&_timezone=Europe/Berlin";
    assert_eq!(
        dated(&crate::common::arrow_batch(&c, daily).await),
        (
            vec![day(2024, 10, 30), day(2024, 10, 31), day(2024, 11, 1)],
            vec![mean(1, 24), mean(25, 48), mean(49, 72)]
        )
    );
    let monthly = "/data/v1/private/DE:LOAD?_calendar=MONTHLY&_observed=averaged&_timezone=series";
    assert_eq!(
        dated(&crate::common::arrow_batch(&c, monthly).await),
        (
            vec![day(2024, 10, 1), day(2024, 11, 1)],
            vec![mean(1, 48), mean(49, 72)]
        )
    );
    // The JSON answer prints the same dates.
    let r = c.get(monthly).await;
    assert_eq!(r.body["data"][0]["time"], "2024-10-01");
    assert_eq!(r.body["data"][1]["time"], "2024-11-01");
    // Without _timezone the times stay instants, as before; hourly reads in a zone too.
    let batch = crate::common::arrow_batch(
        &c,
        "/data/v1/private/DE:LOAD?_calendar=DAILY&_observed=averaged",
    )
    .await;
    let time = batch.column_by_name("time").unwrap();
    assert!(time
        .as_primitive_opt::<TimestampMillisecondType>()
        .is_some());
    let batch =
        crate::common::arrow_batch(&c, "/data/v1/private/DE:LOAD?_timezone=Europe/Berlin").await;
    let time = batch.column_by_name("time").unwrap();
    assert!(time
        .as_primitive_opt::<TimestampMillisecondType>()
        .is_some());
}
