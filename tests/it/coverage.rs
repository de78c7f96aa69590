//! Aggregates a desk can trust, over HTTP: a monthly EFA block counts the EFA days of its
//! month (EFA1 of 1 April starts at 23:00 on 31 March and is April's), and a point made of
//! fewer observations than its period holds says `CALCULATED:<n> of <m>`; each number computed
//! here from the data another way (London's wall clock for EFA days, the clock changes for
//! the expected counts).

use crate::common::TestServer;
use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Timelike, Utc};
use platform_core::auth::Role;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const HALF_HOUR: i64 = 1_800_000;

fn ms(text: &str) -> i64 {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .timestamp_millis()
}

fn utc(t: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t).unwrap()
}

/// A value per half-hour that its neighbours do not share.
fn value_at(t: i64) -> f64 {
    ((t / HALF_HOUR) * 37 % 101) as f64 + 0.25
}

/// Half-hours from `from` to `to` (UTC, `to` left out) as a save's observations.
fn half_hours(from: &str, to: &str) -> (Vec<i64>, Vec<Value>) {
    let times: Vec<i64> = (ms(from)..ms(to)).step_by(HALF_HOUR as usize).collect();
    let data = times
        .iter()
        .map(|t| json!({"time": utc(*t).to_rfc3339(), "value": value_at(*t)}))
        .collect();
    (times, data)
}

/// The EFA day and block of an instant from London's wall clock.
fn efa_day_and_block(t: i64) -> (NaiveDate, u32) {
    let local = utc(t).with_timezone(&chrono_tz::Europe::London);
    let (date, hour) = (local.date_naive(), local.hour());
    match hour {
        23 => (date.succ_opt().unwrap(), 1),
        0..=2 => (date, 1),
        h => (date, (h - 3) / 4 + 2),
    }
}

/// `(time, value, status source)` of each point of a read.
fn points(body: &Value) -> Vec<(String, f64, String)> {
    body["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data: {body}"))
        .iter()
        .map(|p| {
            (
                p["time"].as_str().unwrap().to_string(),
                p["value"].as_f64().unwrap(),
                p["status"]["source"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[actix_rt::test]
async fn a_monthly_efa_block_counts_the_efa_days_of_each_month_over_month_ends_and_a_clock_change()
{
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // GB half-hours as published, from EFA1 of 1 March 2025 (23:00 GMT on 28 February) to
    // 01:00 BST on 1 May, over the spring change of 30 March.
    let (times, data) = half_hours("2025-02-28T23:00:00Z", "2025-05-01T00:00:00Z");
    c.save(
        json!({"_id": "GB", "SYS": {"_type": "VarTimeSeries", "calendar": "HALFHOURLY",
        "timezone": "Europe/London", "currency": "GBP", "units": "MWh", "data": data}}),
    )
    .await;
    for block in [1u32, 6] {
        let r = c
            .get(&format!(
                "/data/v1/private/GB:SYS?_calendar=MONTHLY&_observed=averaged&_block=EFA{block}"
            ))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        // The months of each half-hour's EFA day, averaged here.
        let mut months: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for t in &times {
            let (day, b) = efa_day_and_block(*t);
            if b == block {
                let e = months
                    .entry(format!("{}-{:02}-01", day.year(), day.month()))
                    .or_default();
                e.0 += value_at(*t);
                e.1 += 1;
            }
        }
        let got = points(&r.body);
        let want: Vec<(String, f64)> = months
            .iter()
            .map(|(m, (sum, n))| (m.clone(), sum / *n as f64))
            .collect();
        assert_eq!(got.len(), want.len(), "EFA{block}: {got:?}");
        for ((time, value, _), (month, avg)) in got.iter().zip(&want) {
            assert_eq!(time, month);
            assert!(
                (value - avg).abs() < 1e-9,
                "EFA{block} {month}: {value} vs {avg}"
            );
        }
        let sources: Vec<&str> = got.iter().map(|(_, _, s)| s.as_str()).collect();
        if block == 1 {
            // March: 31 EFA1 of 8 half-hours but 6 on the spring change day, all there; April:
            // 30 of 8; May: EFA1 of 1 May (from 23:00 BST on 30 April) has 4 of its 8 here, of
            // the month's 31 x 8.
            let counts: Vec<usize> = months.values().map(|m| m.1).collect();
            assert_eq!(counts, [246, 240, 4]);
            assert_eq!(sources, ["CALCULATED", "CALCULATED", "CALCULATED:4 of 248"]);
        } else {
            // EFA6 (19:00-23:00) stays in its day: 31 and 30 blocks of 8, none in May.
            assert_eq!(sources, ["CALCULATED", "CALCULATED"]);
        }
    }
    // Monthly EFA1 in CSV: the coverage is the source column.
    let csv = s
        .send(
            actix_web::test::TestRequest::get()
                .uri("/data/v1/private/GB:SYS?_calendar=MONTHLY&_observed=summed&_block=EFA1")
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", "text/csv")),
        )
        .await;
    let text = csv.body.as_str().unwrap();
    assert!(
        text.lines()
            .last()
            .unwrap()
            .ends_with(",CALCULATED:4 of 248,"),
        "{text}"
    );
}

#[actix_rt::test]
async fn a_point_from_fewer_observations_than_its_period_holds_says_how_many() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let berlin = chrono_tz::Europe::Berlin;
    // Hourly Berlin prices: 30 March 2024 (24 hours) without 13:00, 31 March (23 hours: the
    // spring change) whole, 27 October (25 hours) without its second 02:00, and a missing
    // value (null) on 28 October.
    let day = |d: NaiveDate| {
        berlin
            .from_local_datetime(&d.and_hms_opt(0, 0, 0).unwrap())
            .unwrap()
    };
    let mut data = Vec::new();
    let mut expected_hours = Vec::new();
    for (y, m, d) in [(2024, 3, 30), (2024, 3, 31), (2024, 10, 27), (2024, 10, 28)] {
        let date = NaiveDate::from_ymd_opt(y, m, d).unwrap();
        let (start, end) = (day(date), day(date.succ_opt().unwrap()));
        let hours = (end - start).num_hours();
        expected_hours.push(hours);
        for h in 0..hours {
            let t = start.with_timezone(&Utc) + chrono::Duration::hours(h);
            let local = t.with_timezone(&berlin);
            if (d == 30 && local.hour() == 13) || t == utc(ms("2024-10-27T01:00:00Z")) {
                continue;
            }
            let value = if d == 28 && h == 5 {
                Value::Null
            } else {
                json!(h as f64 + 0.5)
            };
            data.push(json!({"time": t.to_rfc3339(), "value": value}));
        }
    }
    assert_eq!(expected_hours, [24, 23, 25, 24]);
    c.save(
        json!({"_id": "DE", "PRICE": {"_type": "VarTimeSeries", "calendar": "HOURLY",
        "timezone": "Europe/Berlin", "data": data}}),
    )
    .await;
    let r = c
        .get("/data/v1/private/DE:PRICE?_calendar=DAILY&_observed=averaged")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let got = points(&r.body);
    let sources: Vec<&str> = got.iter().map(|(_, _, s)| s.as_str()).collect();
    assert_eq!(
        sources,
        [
            "CALCULATED:23 of 24",
            "CALCULATED",
            "CALCULATED:24 of 25",
            "CALCULATED:23 of 24"
        ]
    );
    // The first day's average is of the 23 hours there.
    let first: f64 = (0..24)
        .filter(|h| *h != 13)
        .map(|h| h as f64 + 0.5)
        .sum::<f64>()
        / 23.0;
    assert!((got[0].1 - first).abs() < 1e-9, "{got:?}");
    // Cut in UTC (`_timezone`): 29 March UTC holds only 23:00 (midnight in Berlin), 30 March
    // 23 of its 24 hours (12:00 UTC is the missing 13:00).
    let r = c
        .get("/data/v1/private/DE:PRICE?_calendar=DAILY&_observed=summed&_timezone=UTC&_range=between(2024-03-29T00:00,2024-03-30T23:59)")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let sources: Vec<String> = points(&r.body).into_iter().map(|p| p.2).collect();
    assert_eq!(sources, ["CALCULATED:1 of 24", "CALCULATED:23 of 24"]);
    // A SPARSE series expects no count: its aggregates say CALCULATED alone.
    c.save(json!({"_id": "TRADES", "PRICE": {"_type": "VarTimeSeries", "timezone": "UTC",
        "data": [{"time": "2024-07-01T09:13:00Z", "value": 1}, {"time": "2024-07-01T15:02:00Z", "value": 3}]}}))
        .await;
    let r = c
        .get("/data/v1/private/TRADES:PRICE?_calendar=DAILY&_observed=averaged")
        .await;
    assert_eq!(
        points(&r.body),
        [("2024-07-01".into(), 2.0, "CALCULATED".into())]
    );
}

#[actix_rt::test]
async fn half_hours_into_days_count_half_hours_and_a_partial_efa_block_at_the_end_says_so() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // London's spring change day (46 half-hours) whole, then the autumn one (50) and the
    // first hour of the day after it: the series ends at 00:30 on 27 October, inside EFA1 of
    // 27 October (23:00 on the 26th to 03:00 GMT).
    let (_, mut data) = half_hours("2025-03-30T00:00:00Z", "2025-03-30T23:00:00Z");
    data.extend(half_hours("2025-10-25T23:00:00Z", "2025-10-27T01:00:00Z").1);
    c.save(
        json!({"_id": "GB", "SYS": {"_type": "VarTimeSeries", "calendar": "HALFHOURLY",
        "timezone": "Europe/London", "data": data}}),
    )
    .await;
    let daily = c
        .get("/data/v1/private/GB:SYS?_calendar=DAILY&_observed=averaged")
        .await;
    let sources: Vec<String> = points(&daily.body).into_iter().map(|p| p.2).collect();
    assert_eq!(sources, ["CALCULATED", "CALCULATED", "CALCULATED:2 of 48"]);
    let efa = c
        .get("/data/v1/private/GB:SYS?_calendar=EFA&_observed=averaged&_range=between(2025-10-26T19:00,2025-10-27T03:00)")
        .await;
    let got = points(&efa.body);
    let (time, value, source) = got.last().unwrap();
    assert_eq!(
        (time.as_str(), source.as_str()),
        ("2025-10-26T23:00:00Z", "CALCULATED:4 of 8")
    );
    // EFA6 of 26 October before it is whole.
    assert_eq!(got[0].0, "2025-10-26T19:00:00Z");
    assert_eq!(got[0].2, "CALCULATED");
    let want: f64 = (0..4)
        .map(|i| value_at(ms("2025-10-26T23:00:00Z") + i * HALF_HOUR))
        .sum::<f64>()
        / 4.0;
    assert!((value - want).abs() < 1e-9);
}

#[actix_rt::test]
async fn a_series_on_a_holiday_calendar_expects_its_business_days_only() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // December 2024 on #TARGET: 22 weekdays, of which 25 and 26 December are closing days.
    let days: Vec<NaiveDate> = NaiveDate::from_ymd_opt(2024, 12, 1)
        .unwrap()
        .iter_days()
        .take(31)
        .filter(|d| d.weekday().number_from_monday() <= 5 && ![25, 26].contains(&d.day()))
        .collect();
    assert_eq!(days.len(), 20);
    let data: Vec<Value> = days
        .iter()
        .map(|d| json!({"time": d.to_string(), "value": 3.16}))
        .collect();
    c.save(
        json!({"_id": "ESTR", "RATE": {"_type": "VarTimeSeries", "calendar": "#TARGET",
        "timezone": "Europe/Berlin", "data": data}}),
    )
    .await;
    let read = |q: &'static str| {
        let c = &c;
        async move {
            let r = c.get(&format!("/data/v1/private/ESTR:RATE?{q}")).await;
            assert_eq!(r.status, 200, "{:?}", r.body);
            points(&r.body)
        }
    };
    let month = read("_calendar=MONTHLY&_observed=averaged").await;
    assert_eq!(
        (month[0].0.as_str(), month[0].2.as_str()),
        ("2024-12-01", "CALCULATED")
    );
    assert!((month[0].1 - 3.16).abs() < 1e-9, "{month:?}");
    // Up to Christmas Eve: the business days read, of the month's 20.
    let read_days = days.iter().filter(|d| d.day() <= 24).count();
    assert_eq!(read_days, 17);
    let short =
        read("_calendar=MONTHLY&_observed=averaged&_range=between(2024-12-01,2024-12-24)").await;
    assert_eq!(short[0].2, "CALCULATED:17 of 20");
    // The week of Christmas holds three business days (23, 24, 27).
    let weeks = read("_calendar=WEEKLY&_observed=summed").await;
    let christmas = weeks.iter().find(|w| w.0 == "2024-12-23").unwrap();
    assert_eq!(christmas.2, "CALCULATED");
    assert!((christmas.1 - 3.0 * 3.16).abs() < 1e-9);
}
