//! Continuation series of curves over HTTP (`_continuation=M01`, `_roll=expiry|calendar`): the
//! roll around expiries before holidays and on weekends, `_range`, conversion, CSV, and bad
//! input.

use crate::common::{Client, TestServer};
use chrono::{Datelike, NaiveDate};
use platform_core::auth::Role;
use serde_json::{json, Value};

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

/// The value the curves below give a month contract on an ondate: its month, then the
/// ondate's day in hundredths (`2024M05` on the 2nd: 5.02), so a point says where it came from.
fn price(month: u32, ondate: &str) -> f64 {
    f64::from(month) + f64::from(day(ondate).day()) / 100.0
}

/// Saves, for each ondate, the contracts `M01`..`M03` of `NBP:{prop}` with the expiry
/// calendar `calendar`.
async fn save_months(c: &Client<'_>, prop: &str, calendar: &str, ondates: &[&str]) {
    for ondate in ondates {
        let d = day(ondate);
        let contracts: Vec<Value> = (1..=3)
            .map(|n| {
                let month = (d.month0() + n) % 12 + 1;
                json!({"tenor": format!("M{n:02}"), "value": price(month, ondate)})
            })
            .collect();
        c.save(
            json!({"_id": "NBP", prop: {"_type": "VarCurve", "currency": "GBP",
            "units": "MWh", "ondate": {"curveDate": ondate, "expiryCalendar": calendar},
            "contracts": contracts}}),
        )
        .await;
    }
}

/// `(time, absolute, value)` of each point of a series answer.
fn points(r: &Value) -> Vec<(String, String, f64)> {
    r["data"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|p| {
            (
                p["time"].as_str().unwrap().to_string(),
                p["properties"]["absolute"].as_str().unwrap().to_string(),
                p["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn want(rows: &[(&str, &str, u32)]) -> Vec<(String, String, f64)> {
    rows.iter()
        .map(|(t, a, m)| (t.to_string(), a.to_string(), price(*m, t)))
        .collect()
}

#[actix_rt::test]
async fn the_front_month_rolls_the_day_after_its_expiry_across_easter_and_weekends() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // #REOMHENG: April 2024 expires on Thursday 28 March (Good Friday and Easter Monday are
    // holidays), May on 30 April, June on Friday 31 May (1 June is a Saturday). Curves are
    // published every day around Easter, weekend included.
    let ondates = [
        "2024-03-27",
        "2024-03-28",
        "2024-03-29",
        "2024-03-30",
        "2024-03-31",
        "2024-04-01",
        "2024-04-02",
        "2024-04-30",
        "2024-05-01",
        "2024-05-31",
        "2024-06-03",
    ];
    save_months(&c, "FWD", "#REOMHENG", &ondates).await;
    let r = c.get("/data/v1/private/NBP:FWD?_continuation=M01").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_type"], "VarTimeSeries");
    assert_eq!(r.body["calendar"], "SPARSE");
    assert_eq!(r.body["properties"]["continuation"], "M01");
    assert_eq!(r.body["properties"]["roll"], "expiry");
    assert_eq!(
        points(&r.body),
        want(&[
            ("2024-03-27", "2024M04", 4),
            ("2024-03-28", "2024M04", 4),
            ("2024-03-29", "2024M05", 5),
            ("2024-03-30", "2024M05", 5),
            ("2024-03-31", "2024M05", 5),
            ("2024-04-01", "2024M05", 5),
            ("2024-04-02", "2024M05", 5),
            ("2024-04-30", "2024M05", 5),
            ("2024-05-01", "2024M06", 6),
            ("2024-05-31", "2024M06", 6),
            ("2024-06-03", "2024M07", 7),
        ])
    );
    // `_roll=expiry` is the default; `_roll=calendar` rolls on the first of the month.
    let r2 = c
        .get("/data/v1/private/NBP:FWD?_continuation=M01&_roll=expiry")
        .await;
    assert_eq!(r2.body["data"], r.body["data"]);
    let r = c
        .get("/data/v1/private/NBP:FWD?_continuation=M01&_roll=calendar")
        .await;
    assert_eq!(r.body["properties"]["roll"], "calendar");
    let calendar = points(&r.body);
    assert_eq!(
        &calendar[..6],
        &want(&[
            ("2024-03-27", "2024M04", 4),
            ("2024-03-28", "2024M04", 4),
            ("2024-03-29", "2024M04", 4),
            ("2024-03-30", "2024M04", 4),
            ("2024-03-31", "2024M04", 4),
            ("2024-04-01", "2024M05", 5),
        ])[..]
    );
    // As the tenor history of M01 does.
    let tenor = c.get("/data/v1/private/NBP:FWD?tenor=M01").await;
    let values: Vec<f64> = calendar.iter().map(|p| p.2).collect();
    let tenor_values: Vec<f64> = tenor.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, tenor_values);
    // The month after the front one.
    let r = c.get("/data/v1/private/NBP:FWD?_continuation=M02").await;
    assert_eq!(
        points(&r.body)[1..4],
        want(&[
            ("2024-03-28", "2024M05", 5),
            ("2024-03-29", "2024M06", 6),
            ("2024-03-30", "2024M06", 6),
        ])[..]
    );
    // M03 after the roll in March is past those curves' last contract (June): no point there.
    let r = c.get("/data/v1/private/NBP:FWD?_continuation=M03").await;
    let times: Vec<String> = points(&r.body).into_iter().map(|p| p.0).collect();
    assert_eq!(
        times,
        [
            "2024-03-27",
            "2024-03-28",
            "2024-04-01",
            "2024-04-02",
            "2024-04-30",
            "2024-05-01",
            "2024-05-31",
            "2024-06-03"
        ]
    );
    // `_range` picks ondates.
    let r = c
        .get("/data/v1/private/NBP:FWD?_continuation=M01&_range=between(2024-03-28,2024-03-29)")
        .await;
    assert_eq!(
        points(&r.body),
        want(&[("2024-03-28", "2024M04", 4), ("2024-03-29", "2024M05", 5)])
    );
    let r = c
        .get("/data/v1/private/NBP:FWD?_continuation=M01&_range=last(1)")
        .await;
    assert_eq!(points(&r.body), want(&[("2024-06-03", "2024M07", 7)]));
}

#[actix_rt::test]
async fn an_expiry_on_a_weekend_or_a_holiday_holds_the_contract_through_that_day() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // #RDCEM: July 2024 expires on Sunday 30 June, April on Easter Sunday 31 March. The curve
    // of Friday 28 June still holds July; Monday 1 July holds August.
    save_months(
        &c,
        "CAL",
        "#RDCEM",
        &[
            "2024-03-29",
            "2024-03-31",
            "2024-04-01",
            "2024-06-28",
            "2024-07-01",
        ],
    )
    .await;
    let r = c.get("/data/v1/private/NBP:CAL?_continuation=M01").await;
    assert_eq!(
        points(&r.body),
        want(&[
            ("2024-03-29", "2024M04", 4),
            ("2024-03-31", "2024M04", 4),
            ("2024-04-01", "2024M05", 5),
            ("2024-06-28", "2024M07", 7),
            ("2024-07-01", "2024M08", 8),
        ])
    );
    // Day-ahead on #REOD: Saturday, Sunday and Monday all expire on Friday 31 May, so Friday's
    // front day is Saturday and Saturday's (a curve published that day) is Tuesday.
    for (ondate, days) in [
        (
            "2024-05-31",
            ["2024DA0601", "2024DA0602", "2024DA0603", "2024DA0604"],
        ),
        (
            "2024-06-01",
            ["2024DA0602", "2024DA0603", "2024DA0604", "2024DA0605"],
        ),
    ] {
        let contracts: Vec<Value> = days
            .iter()
            .enumerate()
            .map(|(i, d)| json!({"tenor": d, "value": i as f64 + 1.0}))
            .collect();
        c.save(json!({"_id": "NBP", "DA": {"_type": "VarCurve",
            "ondate": {"curveDate": ondate, "expiryCalendar": "#REOD"}, "contracts": contracts}}))
            .await;
    }
    let r = c.get("/data/v1/private/NBP:DA?_continuation=DA01").await;
    let got: Vec<(String, String)> = points(&r.body).into_iter().map(|p| (p.0, p.1)).collect();
    assert_eq!(
        got,
        [
            ("2024-05-31".to_string(), "2024DA0601".to_string()),
            ("2024-06-01".to_string(), "2024DA0604".to_string())
        ]
    );
    let r = c
        .get("/data/v1/private/NBP:DA?_continuation=DA01&_roll=calendar")
        .await;
    let got: Vec<String> = points(&r.body).into_iter().map(|p| p.1).collect();
    assert_eq!(got, ["2024DA0601", "2024DA0602"]);
}

#[actix_rt::test]
async fn a_continuation_converts_and_prints_as_csv_with_its_contracts() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_months(&c, "FWD", "#REOMHENG", &["2024-03-28", "2024-03-29"]).await;
    // GBP/MWh to GBP/kWh: a thousandth.
    let r = c
        .get("/data/v1/private/NBP:FWD?_continuation=M01&units=kWh")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["units"], "kWh");
    let got: Vec<f64> = points(&r.body).into_iter().map(|p| p.2).collect();
    assert!(
        (got[0] - 0.00428).abs() < 1e-12 && (got[1] - 0.00529).abs() < 1e-12,
        "{got:?}"
    );
    assert_eq!(r.body["data"][0]["status"]["source"], "CONVERTED");
    let csv = s
        .send(
            actix_web::test::TestRequest::get()
                .uri("/data/v1/private/NBP:FWD?_continuation=M01")
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", "text/csv")),
        )
        .await;
    assert_eq!(csv.status, 200);
    assert_eq!(
        csv.body.as_str().unwrap(),
        format!(
            "time,value,absolute,quality,source,reliability\n2024-03-28,{},2024M04,,,\n\
             2024-03-29,{},2024M05,,,\n",
            json!(price(4, "2024-03-28")),
            json!(price(5, "2024-03-29"))
        )
    );
}

#[actix_rt::test]
async fn bad_continuation_input_is_a_400_naming_the_parameter_and_the_values_allowed() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_months(&c, "FWD", "#REOMHENG", &["2024-03-28"]).await;
    c.save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-03-28", "value": 1}]}}))
        .await;
    for (query, says) in [
        ("_continuation=X7", ["_continuation \"X7\"", "M01", "DA01"]),
        ("_continuation=M00", ["_continuation \"M00\"", "M01", "Q01"]),
        (
            "_continuation=2024M04",
            ["_continuation", "relative", "Y01"],
        ),
        (
            "_continuation=M01&_roll=sometimes",
            ["_roll \"sometimes\"", "expiry", "calendar"],
        ),
        ("_roll=calendar", ["_roll", "_continuation", "M01"]),
        (
            "_continuation=M01&tenor=M01",
            ["_continuation", "tenor", "one"],
        ),
    ] {
        let m = c
            .get(&format!("/data/v1/private/NBP:FWD?{query}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        for part in says {
            assert!(m.contains(part), "{query}: {m}");
        }
    }
    let m = c
        .get("/data/v1/private/NBP:SPOT?_continuation=M01")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("time series") && m.contains("_continuation"),
        "{m}"
    );
    let m = c
        .get("/data/v1/private/NBP:FWD:2024-03-28?_continuation=M01")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("2024-03-28") && m.contains("_range"), "{m}");
    // Reads change nothing: the curve is as saved.
    let r = c.get("/data/v1/private/NBP:FWD:2024-03-28").await;
    assert_eq!(r.body["contracts"][0]["value"], 4.28);
}

/// The curves of `NBP:ADJ` (absolute codes, `#REOMHENG`: April expires on 28 March, May on
/// 30 April): the roll to May on 29 March, whose curve still quotes April, and the roll to June
/// on 1 May, whose curve quotes May no more.
async fn save_rolls(c: &Client<'_>, prop: &str, curves: &[(&str, &[(&str, f64)])]) {
    for (ondate, contracts) in curves {
        let contracts: Vec<Value> = contracts
            .iter()
            .map(|(code, v)| json!({"tenor": code, "value": v}))
            .collect();
        c.save(
            json!({"_id": "NBP", prop: {"_type": "VarCurve", "currency": "GBP",
            "units": "MWh", "ondate": {"curveDate": ondate, "expiryCalendar": "#REOMHENG"},
            "contracts": contracts}}),
        )
        .await;
    }
}

const ROLLS: [(&str, &[(&str, f64)]); 6] = [
    ("2024-03-27", &[("2024M04", 40.0), ("2024M05", 50.0)]),
    ("2024-03-28", &[("2024M04", 41.0), ("2024M05", 51.0)]),
    (
        "2024-03-29",
        &[("2024M04", 41.5), ("2024M05", 52.0), ("2024M06", 62.0)],
    ),
    ("2024-04-30", &[("2024M05", 53.0), ("2024M06", 63.0)]),
    ("2024-05-01", &[("2024M06", 64.0), ("2024M07", 74.0)]),
    ("2024-05-02", &[("2024M06", 65.0), ("2024M07", 75.0)]),
];

/// `(time, value)` of each point, and each point's `adjustment`.
fn adjusted(r: &Value) -> (Vec<(String, f64)>, Vec<f64>) {
    let data = r["data"].as_array().unwrap_or_else(|| panic!("{r}"));
    (
        data.iter()
            .map(|p| {
                (
                    p["time"].as_str().unwrap().to_string(),
                    p["value"].as_f64().unwrap(),
                )
            })
            .collect(),
        data.iter()
            .map(|p| p["properties"]["adjustment"].as_f64().unwrap())
            .collect(),
    )
}

fn close(got: &[(String, f64)], want: &[(&str, f64)]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((t, v), (wt, wv)) in got.iter().zip(want) {
        assert_eq!(t, wt);
        assert!((v - wv).abs() < 1e-9, "{t}: {v} != {wv}");
    }
}

#[actix_rt::test]
async fn a_back_adjusted_continuation_moves_earlier_prices_by_each_roll() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_rolls(&c, "ADJ", &ROLLS).await;
    // The rolls, priced by hand: on 29 March May 52 against April 41.5 on that day's curve;
    // on 1 May the curve has no May, so the day before: June 63 against May 53.
    let (first, second) = (52.0 - 41.5, 63.0 - 53.0);
    let r = c
        .get("/data/v1/private/NBP:ADJ?_continuation=M01&_adjust=difference")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["properties"]["adjust"], "difference");
    let (points, by) = adjusted(&r.body);
    close(
        &points,
        &[
            ("2024-03-27", 40.0 + first + second),
            ("2024-03-28", 41.0 + first + second),
            ("2024-03-29", 52.0 + second),
            ("2024-04-30", 53.0 + second),
            ("2024-05-01", 64.0),
            ("2024-05-02", 65.0),
        ],
    );
    assert_eq!(by[0], first + second);
    assert_eq!(by[5], 0.0);
    let contracts: Vec<&str> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["properties"]["absolute"].as_str().unwrap())
        .collect();
    assert_eq!(
        contracts,
        ["2024M04", "2024M04", "2024M05", "2024M05", "2024M06", "2024M06"]
    );
    assert_eq!(
        r.body["rolls"],
        json!([
            {"ondate": "2024-03-29", "from": "2024M04", "to": "2024M05", "priced": "2024-03-29",
             "old": 41.5, "new": 52.0, "difference": first},
            {"ondate": "2024-05-01", "from": "2024M05", "to": "2024M06", "priced": "2024-04-30",
             "old": 53.0, "new": 63.0, "difference": second}
        ])
    );
    // Ratios multiply; the newest segment keeps its prices.
    let r = c
        .get("/data/v1/private/NBP:ADJ?_continuation=M01&_adjust=ratio")
        .await;
    let (first, second) = (52.0 / 41.5, 63.0 / 53.0);
    close(
        &adjusted(&r.body).0,
        &[
            ("2024-03-27", 40.0 * first * second),
            ("2024-03-28", 41.0 * first * second),
            ("2024-03-29", 52.0 * second),
            ("2024-04-30", 53.0 * second),
            ("2024-05-01", 64.0),
            ("2024-05-02", 65.0),
        ],
    );
    // A range: only the rolls between its points; its newest point keeps its price.
    let r = c
        .get("/data/v1/private/NBP:ADJ?_continuation=M01&_adjust=difference&_range=between(2024-03-29,2024-05-01)")
        .await;
    close(
        &adjusted(&r.body).0,
        &[
            ("2024-03-29", 52.0 + 10.0),
            ("2024-04-30", 53.0 + 10.0),
            ("2024-05-01", 64.0),
        ],
    );
    // Converted first (GBP/MWh to GBP/kWh), then adjusted in the units read.
    let r = c
        .get("/data/v1/private/NBP:ADJ?_continuation=M01&_adjust=difference&units=kWh")
        .await;
    let (points, _) = adjusted(&r.body);
    assert!(
        (points[0].1 - (40.0 + 10.5 + 10.0) / 1000.0).abs() < 1e-12,
        "{points:?}"
    );
    // The plain continuation is as quoted.
    let r = c.get("/data/v1/private/NBP:ADJ?_continuation=M01").await;
    assert_eq!(r.body["data"][0]["value"], 40.0);
    assert!(r.body.get("rolls").is_none());
}

#[actix_rt::test]
async fn an_adjusted_continuation_keeps_its_contracts_in_csv_and_arrow() {
    use arrow_array::cast::AsArray as _;
    use arrow_array::types::{Date32Type, Float64Type};
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_rolls(&c, "ADJ", &ROLLS[..3]).await;
    let path = "/data/v1/private/NBP:ADJ?_continuation=M01&_adjust=difference";
    let csv = s
        .send(
            actix_web::test::TestRequest::get()
                .uri(path)
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", "text/csv")),
        )
        .await;
    assert_eq!(
        csv.body.as_str().unwrap(),
        format!(
            "time,value,absolute,adjustment,quality,source,reliability\n\
             2024-03-27,{},2024M04,10.5,,,\n2024-03-28,{},2024M04,10.5,,,\n\
             2024-03-29,52.0,2024M05,0.0,,,\n",
            json!(40.0 + 10.5),
            json!(41.0 + 10.5)
        )
    );
    let batch = crate::common::arrow_batch(&c, path).await;
    let time = batch.column_by_name("time").unwrap();
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
    assert_eq!(
        time.as_primitive::<Date32Type>().values().to_vec(),
        ["2024-03-27", "2024-03-28", "2024-03-29"].map(|d| (day(d) - epoch).num_days() as i32)
    );
    let absolute = batch.column_by_name("absolute").unwrap();
    assert_eq!(absolute.as_string::<i32>().value(2), "2024M05");
    let moved = batch.column_by_name("adjustment").unwrap();
    assert_eq!(
        moved.as_primitive::<Float64Type>().values().to_vec(),
        [10.5, 10.5, 0.0]
    );
    // Without adjustment the contract column stays, in Arrow too.
    let batch = crate::common::arrow_batch(&c, "/data/v1/private/NBP:ADJ?_continuation=M01").await;
    let absolute = batch.column_by_name("absolute").unwrap();
    assert_eq!(absolute.as_string::<i32>().value(0), "2024M04");
    assert!(batch.column_by_name("adjustment").is_none());
}

#[actix_rt::test]
async fn a_roll_that_cannot_be_priced_is_refused_naming_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // 1 May quotes no May, 30 April no June: neither day prices both.
    save_rolls(
        &c,
        "GAP",
        &[
            ("2024-04-30", &[("2024M05", 53.0)]),
            ("2024-05-01", &[("2024M06", 64.0)]),
        ],
    )
    .await;
    let m = c
        .get("/data/v1/private/NBP:GAP?_continuation=M01&_adjust=difference")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    for part in [
        "roll of 2024-05-01",
        "2024M05 to 2024M06",
        "2024-04-30",
        "_range",
    ] {
        assert!(m.contains(part), "{part}: {m}");
    }
    // A ratio of a negative price has no meaning.
    save_rolls(
        &c,
        "NEG",
        &[
            ("2024-04-30", &[("2024M05", -5.0), ("2024M06", 20.0)]),
            ("2024-05-01", &[("2024M05", -6.0), ("2024M06", 21.0)]),
        ],
    )
    .await;
    let m = c
        .get("/data/v1/private/NBP:NEG?_continuation=M01&_adjust=ratio")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("two positive prices") && m.contains("difference"),
        "{m}"
    );
    let r = c
        .get("/data/v1/private/NBP:NEG?_continuation=M01&_adjust=difference")
        .await;
    assert_eq!(r.body["data"][0]["value"], json!(-5.0 + (21.0 + 6.0)));
    for (query, says) in [
        ("_adjust=ratio", ["_adjust", "_continuation", "M01"]),
        (
            "_continuation=M01&_adjust=panama",
            ["_adjust \"panama\"", "difference", "ratio"],
        ),
    ] {
        let m = c
            .get(&format!("/data/v1/private/NBP:GAP?{query}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        for part in says {
            assert!(m.contains(part), "{query}: {m}");
        }
    }
}
