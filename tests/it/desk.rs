//! A desk's day over HTTP, each number checked against a computation made here another way:
//!
//! - a German power forward curve of every product kind (day-ahead, weekend, Saturday, Sunday,
//!   balance of the month, week, months, quarters, seasons over year ends, years) on 60
//!   ondates, quoted as a desk quotes (hour-weighted averages of a daily price model, rounded
//!   to cents), expiring by a private expiry calendar: every contract's delivery and expiry,
//!   the curve shaped into months (every quote met within a cent, nothing called arbitrage),
//!   the front month rolled at expiry and back-adjusted at each roll;
//! - Elexon's system prices imported as published (every column, the value column named) and
//!   averaged by month over EFA1 blocks of EFA days, saying how many half-hours each holds;
//! - German hourly prices with an hour missing, averaged by month over peak hours and by day,
//!   with their coverage;
//! - the answers read as Arrow in local time: months, ondates and deliveries as `date32`, the
//!   continuation's contract beside its price.

use crate::common::{arrow_batch, Client, TestServer};
use arrow_array::{Array, Date32Array, Float64Array, StringArray};
use chrono::{DateTime, Datelike, Days, Months, NaiveDate, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use platform_core::auth::Role;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const BERLIN: Tz = chrono_tz::Europe::Berlin;
const LONDON: Tz = chrono_tz::Europe::London;

fn date(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

fn plus(d: NaiveDate, n: u64) -> NaiveDate {
    d + Days::new(n)
}

/// The first instant of a local day.
fn midnight(tz: Tz, d: NaiveDate) -> DateTime<Utc> {
    tz.from_local_datetime(&d.and_hms_opt(0, 0, 0).unwrap())
        .earliest()
        .unwrap()
        .with_timezone(&Utc)
}

/// The hours of a Berlin day (23 and 25 on the clock changes).
fn hours(d: NaiveDate) -> f64 {
    (midnight(BERLIN, d.succ_opt().unwrap()) - midnight(BERLIN, d)).num_hours() as f64
}

fn month_end(first: NaiveDate) -> NaiveDate {
    (first + Months::new(1)).pred_opt().unwrap()
}

fn first_of(d: NaiveDate) -> NaiveDate {
    d.with_day(1).unwrap()
}

fn days_from_epoch(d: NaiveDate) -> i32 {
    (d - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap()).num_days() as i32
}

/// A product the desk quotes: its code as sent, its absolute code (none for the balance of the
/// month) and its delivery days.
struct Product {
    code: String,
    absolute: String,
    start: NaiveDate,
    end: NaiveDate,
}

fn product(code: &str, absolute: String, start: NaiveDate, end: NaiveDate) -> Product {
    Product {
        code: code.to_string(),
        absolute,
        start,
        end,
    }
}

/// What each code delivers on a weekday ondate, worked out from the calendar.
fn products(ondate: NaiveDate) -> Vec<Product> {
    let weekday = u64::from(ondate.weekday().num_days_from_monday());
    let saturday = plus(ondate, 5 - weekday);
    let monday = plus(ondate, 7 - weekday);
    let day = |d: NaiveDate| format!("{}D{:02}{:02}", d.year(), d.month(), d.day());
    let mut out = vec![
        product(
            "DA01",
            format!(
                "{}DA{:02}{:02}",
                ondate.year(),
                plus(ondate, 1).month(),
                plus(ondate, 1).day()
            ),
            plus(ondate, 1),
            plus(ondate, 1),
        ),
        product(
            "WKD01",
            format!(
                "{}WKD{:02}",
                saturday.iso_week().year(),
                saturday.iso_week().week()
            ),
            saturday,
            plus(saturday, 1),
        ),
        product("SAT", day(saturday), saturday, saturday),
        product(
            "SUN",
            day(plus(saturday, 1)),
            plus(saturday, 1),
            plus(saturday, 1),
        ),
        product(
            "W01",
            format!(
                "{}W{:02}",
                monday.iso_week().year(),
                monday.iso_week().week()
            ),
            monday,
            plus(monday, 6),
        ),
    ];
    if ondate != month_end(first_of(ondate)) {
        out.push(product(
            "BOM",
            String::new(),
            plus(ondate, 1),
            month_end(first_of(ondate)),
        ));
    }
    let this_month = first_of(ondate);
    for i in 1..=6u32 {
        let m = this_month + Months::new(i);
        out.push(product(
            &format!("M{i:02}"),
            format!("{}M{:02}", m.year(), m.month()),
            m,
            month_end(m),
        ));
    }
    let quarter =
        NaiveDate::from_ymd_opt(ondate.year(), (ondate.month() - 1) / 3 * 3 + 1, 1).unwrap();
    for i in 1..=4u32 {
        let q = quarter + Months::new(3 * i);
        out.push(product(
            &format!("Q{i:02}"),
            format!("{}Q{:02}", q.year(), (q.month() - 1) / 3 + 1),
            q,
            (q + Months::new(3)).pred_opt().unwrap(),
        ));
    }
    // Seasons: April to September, October to March (named by the year it starts).
    let season = match ondate.month() {
        4..=9 => NaiveDate::from_ymd_opt(ondate.year(), 4, 1),
        10..=12 => NaiveDate::from_ymd_opt(ondate.year(), 10, 1),
        _ => NaiveDate::from_ymd_opt(ondate.year() - 1, 10, 1),
    }
    .unwrap();
    for i in 1..=2u32 {
        let s = season + Months::new(6 * i);
        let n = if s.month() == 4 { 1 } else { 2 };
        out.push(product(
            &format!("S{i:02}"),
            format!("{}S{n:02}", s.year()),
            s,
            (s + Months::new(6)).pred_opt().unwrap(),
        ));
    }
    for i in 1..=2 {
        let y = ondate.year() + i;
        out.push(product(
            &format!("Y{i:02}"),
            format!("{y}Y"),
            NaiveDate::from_ymd_opt(y, 1, 1).unwrap(),
            NaiveDate::from_ymd_opt(y, 12, 31).unwrap(),
        ));
    }
    out
}

/// The desk's price of one delivery day on the `k`-th ondate: a level that drifts, a winter
/// premium, a weekday premium and a contango.
fn model(k: usize, ondate: NaiveDate, day: NaiveDate) -> f64 {
    let winter = matches!(day.month(), 10..=12 | 1..=3);
    let weekday = day.weekday().num_days_from_monday() < 5;
    70.0 + 0.1 * k as f64
        + if winter { 25.0 } else { 0.0 }
        + if weekday { 6.0 } else { -4.0 }
        + 0.01 * (day - ondate).num_days() as f64
}

/// The hour-weighted average of a price over delivery days.
fn weighted(from: NaiveDate, to: NaiveDate, price: impl Fn(NaiveDate) -> f64) -> f64 {
    let (mut sum, mut weight) = (0.0, 0.0);
    for d in from.iter_days().take_while(|d| *d <= to) {
        sum += price(d) * hours(d);
        weight += hours(d);
    }
    sum / weight
}

/// The 60 weekday ondates from Monday 14 September 2026 (over the October and November month
/// ends and into December).
fn ondates() -> Vec<NaiveDate> {
    date("2026-09-14")
        .iter_days()
        .filter(|d| d.weekday().num_days_from_monday() < 5)
        .take(60)
        .collect()
}

/// The expiry of a contract delivering from `start` under the desk's calendar: three weekdays
/// before delivery starts.
fn expiry(start: NaiveDate) -> NaiveDate {
    start
        .iter_days()
        .rev()
        .skip(1)
        .filter(|d| d.weekday().num_days_from_monday() < 5)
        .nth(2)
        .unwrap()
}

/// Each ondate's quotes by code, rounded to cents.
type Quotes = Vec<(NaiveDate, Vec<(Product, f64)>)>;

async fn load_curves(c: &Client<'_>) -> Quotes {
    let r = c
        .post(
            "/calendar/v1",
            json!({"_id": "EXP3", "expiry": {"holidays": "#WEEKDAYS", "businessDaysBefore": 3}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let mut quotes = Vec::new();
    for (k, ondate) in ondates().into_iter().enumerate() {
        let quoted: Vec<(Product, f64)> = products(ondate)
            .into_iter()
            .map(|p| {
                let v = weighted(p.start, p.end, |d| model(k, ondate, d));
                (p, (v * 100.0).round() / 100.0)
            })
            .collect();
        let contracts: Vec<Value> = quoted
            .iter()
            .map(|(p, v)| json!({"tenor": p.code, "value": v}))
            .collect();
        c.save(
            json!({"_id": "DE", "FWD": {"_type": "VarCurve", "timezone": "Europe/Berlin",
            "currency": "EUR", "units": "MWh", "expiryCalendar": "EXP3",
            "ondate": ondate.to_string(), "contracts": contracts}}),
        )
        .await;
        quotes.push((ondate, quoted));
    }
    quotes
}

#[actix_rt::test]
async fn a_desks_forward_curve_is_delivered_shaped_rolled_and_back_adjusted_as_computed_here() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let quotes = load_curves(&c).await;
    for (ondate, quoted) in &quotes {
        // Every contract's delivery and expiry, as the calendar gives them.
        let curve = c
            .get(&format!("/data/v1/private/DE:FWD:{ondate}"))
            .await
            .body;
        let contracts = curve["contracts"].as_array().unwrap();
        assert_eq!(contracts.len(), quoted.len(), "{ondate}");
        for (got, (p, v)) in contracts.iter().zip(quoted) {
            let props = &got["properties"];
            assert_eq!(
                (
                    got["tenor"].as_str(),
                    got["value"].as_f64(),
                    props["absolute"].as_str()
                ),
                (
                    Some(p.code.as_str()),
                    Some(*v),
                    Some(p.absolute.as_str()).filter(|a| !a.is_empty())
                ),
                "{ondate}: {got}"
            );
            assert_eq!(props["start"], p.start.to_string(), "{ondate} {}", p.code);
            assert_eq!(props["end"], p.end.to_string(), "{ondate} {}", p.code);
            // (A balance of the month is traded through its delivery: no expiry checked.)
            if p.code != "BOM" {
                assert_eq!(
                    props["expiry"],
                    expiry(p.start).to_string(),
                    "{ondate} {}",
                    p.code
                );
            }
        }
        // Shaped into months: every quote of whole months met within a cent (rounding alone),
        // nothing called arbitrage, each quoted month its quote.
        let shaped = c
            .get(&format!("/data/v1/private/DE:FWD:{ondate}?_shape=MONTHLY"))
            .await
            .body;
        assert_eq!(
            shaped["arbitrage"],
            json!([]),
            "{ondate}: {}",
            shaped["message"]
        );
        let months: BTreeMap<NaiveDate, f64> = shaped["contracts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let first = date(m["properties"]["start"].as_str().unwrap());
                (first_of(first), m["value"].as_f64().unwrap())
            })
            .collect();
        for (p, v) in quoted
            .iter()
            .filter(|(p, _)| p.start.day() == 1 && p.end == month_end(first_of(p.end)))
        {
            let (mut sum, mut weight) = (0.0, 0.0);
            let mut m = p.start;
            while m <= p.end {
                let w: f64 = m
                    .iter_days()
                    .take_while(|d| *d <= month_end(m))
                    .map(hours)
                    .sum();
                sum += months[&m] * w;
                weight += w;
                m = m + Months::new(1);
            }
            let fitted = sum / weight;
            assert!(
                (fitted - v).abs() <= 0.01,
                "{ondate} {}: {fitted} vs {v}",
                p.code
            );
            if p.code.starts_with('M') {
                assert!((months[&p.start] - v).abs() <= 0.01, "{ondate} {}", p.code);
            }
        }
    }
    continuation_rolls_and_back_adjusts(&c, &quotes).await;
}

/// An ondate's front month: the ondate, its contract, its price and the ondate's quotes.
type Front<'a> = (NaiveDate, String, f64, &'a Vec<(Product, f64)>);

/// The front month over the 60 ondates: the earliest month not yet expired, its price, and
/// the same back-adjusted at each roll; JSON and Arrow.
async fn continuation_rolls_and_back_adjusts(c: &Client<'_>, quotes: &Quotes) {
    // Worked out here: each ondate's front month and price.
    let front: Vec<Front> = quotes
        .iter()
        .map(|(ondate, quoted)| {
            let (p, v) = quoted
                .iter()
                .find(|(p, _)| p.code.starts_with('M') && expiry(p.start) >= *ondate)
                .unwrap();
            (*ondate, p.absolute.clone(), *v, quoted)
        })
        .collect();
    // Each roll priced on its day's curve (which still quotes the old month): the new front
    // month's price less the old one's; every earlier point moves by the rolls after it.
    let price_of = |quoted: &Vec<(Product, f64)>, absolute: &str| {
        quoted
            .iter()
            .find(|(p, _)| p.absolute == absolute)
            .map(|(_, v)| *v)
            .unwrap()
    };
    let mut adjustment = vec![0.0; front.len()];
    for i in (1..front.len()).rev() {
        let roll = if front[i].1 != front[i - 1].1 {
            price_of(front[i].3, &front[i].1) - price_of(front[i].3, &front[i - 1].1)
        } else {
            0.0
        };
        adjustment[i - 1] = adjustment[i] + roll;
    }
    let rolls = front.windows(2).filter(|w| w[0].1 != w[1].1).count();
    assert_eq!(rolls, 3, "the October, November and December expiries roll");

    let plain = c
        .get("/data/v1/private/DE:FWD?_continuation=M01")
        .await
        .body;
    let adjusted = c
        .get("/data/v1/private/DE:FWD?_continuation=M01&_adjust=difference")
        .await
        .body;
    for (body, adjust) in [(&plain, false), (&adjusted, true)] {
        let points = body["data"].as_array().unwrap_or_else(|| panic!("{body}"));
        assert_eq!(points.len(), front.len());
        for (i, (p, (ondate, absolute, v, _))) in points.iter().zip(&front).enumerate() {
            assert_eq!(&p["time"].as_str().unwrap()[..10], ondate.to_string());
            assert_eq!(p["properties"]["absolute"], absolute.as_str(), "{ondate}");
            let want = if adjust { v + adjustment[i] } else { *v };
            let got = p["value"].as_f64().unwrap();
            assert!((got - want).abs() < 1e-9, "{ondate}: {got} vs {want}");
        }
    }
    assert_eq!(adjusted["rolls"].as_array().unwrap().len(), rolls);
    // Arrow: the ondates as dates, each price beside its contract.
    let batch = arrow_batch(
        c,
        "/data/v1/private/DE:FWD?_continuation=M01&_adjust=difference",
    )
    .await;
    let time = batch.column_by_name("time").unwrap();
    let time = time
        .as_any()
        .downcast_ref::<Date32Array>()
        .expect("ondates are date32");
    let absolute = batch.column_by_name("absolute").unwrap();
    let absolute = absolute.as_any().downcast_ref::<StringArray>().unwrap();
    let value = batch.column_by_name("value").unwrap();
    let value = value.as_any().downcast_ref::<Float64Array>().unwrap();
    for (i, (ondate, contract, v, _)) in front.iter().enumerate() {
        assert_eq!(time.value(i), days_from_epoch(*ondate));
        assert_eq!(absolute.value(i), contract);
        assert!((value.value(i) - (v + adjustment[i])).abs() < 1e-9);
    }
    // A curve in Arrow: its ondate, deliveries and expiries as dates.
    let (ondate, quoted) = &quotes[0];
    let batch = arrow_batch(c, &format!("/data/v1/private/DE:FWD:{ondate}")).await;
    for (column, want) in [
        ("ondate", quoted.iter().map(|_| *ondate).collect::<Vec<_>>()),
        ("start", quoted.iter().map(|(p, _)| p.start).collect()),
        ("end", quoted.iter().map(|(p, _)| p.end).collect()),
    ] {
        let dates = batch.column_by_name(column).unwrap();
        let dates = dates.as_any().downcast_ref::<Date32Array>().expect(column);
        let got: Vec<i32> = (0..dates.len()).map(|i| dates.value(i)).collect();
        let want: Vec<i32> = want.into_iter().map(days_from_epoch).collect();
        assert_eq!(got, want, "{column}");
    }
}

/// The settlement periods of a London day: their start instants (46 on the spring change day).
fn periods(day: NaiveDate) -> Vec<DateTime<Utc>> {
    let (from, to) = (
        midnight(LONDON, day),
        midnight(LONDON, day.succ_opt().unwrap()),
    );
    let mut out = Vec::new();
    let mut t = from;
    while t < to {
        out.push(t);
        t += chrono::Duration::minutes(30);
    }
    out
}

/// The EFA day and block of a half-hour, from London's wall clock: the EFA day runs from
/// 23:00 the evening before, EFA1 is 23:00 to 03:00.
fn efa(t: DateTime<Utc>) -> (NaiveDate, u32) {
    let local = t.with_timezone(&LONDON);
    match local.hour() {
        23 => (local.date_naive().succ_opt().unwrap(), 1),
        0..=2 => (local.date_naive(), 1),
        h => (local.date_naive(), (h - 3) / 4 + 2),
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

/// A month's average over the kept half-hours or hours, and its status source: `CALCULATED`,
/// or `CALCULATED:<n> of <m>` when fewer than the `m` its period holds are there.
fn average(values: &[f64], expected: usize) -> (f64, String) {
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let source = if values.len() < expected {
        format!("CALCULATED:{} of {expected}", values.len())
    } else {
        "CALCULATED".to_string()
    };
    (mean, source)
}

#[actix_rt::test]
async fn a_settlement_file_as_published_averages_by_efa_month_with_its_coverage() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "name": "Great Britain"})).await;
    // Elexon's system prices of 28 March to 1 April 2025, every column as published.
    let mut file = format!("{}\n", crate::published_files::ELEXON_HEADER);
    let mut published: Vec<(DateTime<Utc>, f64)> = Vec::new();
    for day in date("2025-03-28").iter_days().take(5) {
        for (i, start) in periods(day).into_iter().enumerate() {
            let sell =
                ((40.0 + 0.37 * i as f64 + 3.0 * f64::from(day.day())) * 100.0).round() / 100.0;
            file.push_str(&format!(
                "{day},{},{},{},{sell:.2},{:.2},False,N,,-12.500,0,0,,,1.000,-2.000,0,0,3.000,-4.000,0,0\n",
                i + 1,
                start.format("%Y-%m-%dT%H:%M:%SZ"),
                (start + chrono::Duration::minutes(95)).format("%Y-%m-%dT%H:%M:%SZ"),
                sell + 1.5,
            ));
            published.push((start, sell));
        }
    }
    assert_eq!(published.len(), 48 * 4 + 46);
    let r = c
        .post_bytes(
            "/data/v1/private/GB:SSP?calendar=HALFHOURLY&timezone=Europe/London&valueColumn=systemSellPrice",
            Some("text/csv"),
            file,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // EFA1 by month of EFA day: the half-hours of each month's EFA days, counted here from
    // the wall clock over the whole month (31 March's 23:00 opens April's first EFA day).
    let r = c
        .get("/data/v1/private/GB:SSP?_calendar=MONTHLY&_observed=averaged&_block=EFA1")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let mut want = Vec::new();
    for (month, next) in [("2025-03-01", "2025-04-01"), ("2025-04-01", "2025-05-01")] {
        let (first, after) = (date(month), date(next));
        let in_month = |t: DateTime<Utc>| {
            let (day, block) = efa(t);
            block == 1 && day >= first && day < after
        };
        let mut expected = 0;
        let mut t = midnight(LONDON, plus(first, 0)) - chrono::Duration::hours(2);
        while t < midnight(LONDON, after) {
            expected += usize::from(in_month(t));
            t += chrono::Duration::minutes(30);
        }
        let values: Vec<f64> = published
            .iter()
            .filter(|(t, _)| in_month(*t))
            .map(|(_, v)| *v)
            .collect();
        want.push((month.to_string(), average(&values, expected)));
    }
    assert_eq!(
        want[0].1 .1, "CALCULATED:28 of 246",
        "March: 6 + 8 + 6 + 8 of 30 x 8 + 6"
    );
    assert_eq!(want[1].1 .1, "CALCULATED:10 of 240");
    let got = points(&r.body);
    assert_eq!(got.len(), 2, "{got:?}");
    for ((t, v, source), (month, (mean, status))) in got.iter().zip(&want) {
        assert_eq!(&t[..10], month);
        assert!((v - mean).abs() < 1e-9, "{month}: {v} vs {mean}");
        assert_eq!(source, status, "{month}");
    }
}

#[actix_rt::test]
async fn hourly_prices_average_by_peak_month_and_by_day_with_coverage_and_read_as_local_dates() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // German hourly prices for January to April 2025, 10:00 on Wednesday 12 February missing.
    let price = |t: DateTime<Utc>| {
        let local = t.with_timezone(&BERLIN);
        40.0 + f64::from(local.hour()) * 1.5 + f64::from(local.ordinal()) * 0.1
    };
    let missing = BERLIN
        .with_ymd_and_hms(2025, 2, 12, 10, 0, 0)
        .unwrap()
        .with_timezone(&Utc);
    let mut hours_held = Vec::new();
    let mut t = midnight(BERLIN, date("2025-01-01"));
    while t < midnight(BERLIN, date("2025-05-01")) {
        if t != missing {
            hours_held.push(t);
        }
        t += chrono::Duration::hours(1);
    }
    let data: Vec<Value> = hours_held
        .iter()
        .map(|t| json!({"time": t.format("%Y-%m-%dT%H:%M:%SZ").to_string(), "value": price(*t)}))
        .collect();
    c.save(
        json!({"_id": "DE", "SPOT": {"_type": "VarTimeSeries", "calendar": "HOURLY",
        "timezone": "Europe/Berlin", "currency": "EUR", "units": "MWh", "data": data}}),
    )
    .await;
    // Peak hours (Monday to Friday, 08:00 to 20:00 local) by local month.
    let is_peak = |t: DateTime<Utc>| {
        let local = t.with_timezone(&BERLIN);
        local.weekday().num_days_from_monday() < 5 && (8..20).contains(&local.hour())
    };
    let month_of = |t: DateTime<Utc>| first_of(t.with_timezone(&BERLIN).date_naive());
    let mut want: BTreeMap<NaiveDate, (Vec<f64>, usize)> = BTreeMap::new();
    let mut t = midnight(BERLIN, date("2025-01-01"));
    while t < midnight(BERLIN, date("2025-05-01")) {
        if is_peak(t) {
            let e = want.entry(month_of(t)).or_default();
            e.1 += 1;
            if t != missing {
                e.0.push(price(t));
            }
        }
        t += chrono::Duration::hours(1);
    }
    let path = "/data/v1/private/DE:SPOT?_calendar=MONTHLY&_observed=averaged&_block=PEAK&_timezone=Europe/Berlin";
    let r = c.get(path).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let got = points(&r.body);
    assert_eq!(got.len(), 4);
    let mut wanted = Vec::new();
    for ((t, v, source), (month, (values, expected))) in got.iter().zip(&want) {
        let (mean, status) = average(values, *expected);
        assert_eq!(&t[..10], month.to_string());
        assert!((v - mean).abs() < 1e-9, "{month}: {v} vs {mean}");
        assert_eq!(source, &status, "{month}");
        wanted.push((*month, mean));
    }
    assert_eq!(
        got[1].2,
        format!("CALCULATED:{} of {}", 20 * 12 - 1, 20 * 12)
    );
    // The same in Arrow: each month a local date (date32), as pandas reads it.
    let batch = arrow_batch(&c, path).await;
    let time = batch.column_by_name("time").unwrap();
    let time = time
        .as_any()
        .downcast_ref::<Date32Array>()
        .expect("months are date32");
    let value = batch.column_by_name("value").unwrap();
    let value = value.as_any().downcast_ref::<Float64Array>().unwrap();
    for (i, (month, mean)) in wanted.iter().enumerate() {
        assert_eq!(time.value(i), days_from_epoch(*month));
        assert!((value.value(i) - mean).abs() < 1e-9);
    }
    // By day: 12 February holds 23 of its 24 hours; 30 March, the spring change, all 23.
    let r = c
        .get("/data/v1/private/DE:SPOT?_calendar=DAILY&_observed=averaged&_range=between(2025-02-12,2025-02-12)")
        .await;
    let got = points(&r.body);
    let day: Vec<f64> = hours_held
        .iter()
        .filter(|t| t.with_timezone(&BERLIN).date_naive() == date("2025-02-12"))
        .map(|t| price(*t))
        .collect();
    let (mean, status) = average(&day, 24);
    assert_eq!((got.len(), got[0].2.as_str()), (1, status.as_str()));
    assert!((got[0].1 - mean).abs() < 1e-9);
    let r = c
        .get("/data/v1/private/DE:SPOT?_calendar=DAILY&_observed=averaged&_range=between(2025-03-30,2025-03-30)")
        .await;
    assert_eq!(
        points(&r.body)[0].2,
        "CALCULATED",
        "the 23-hour day is whole"
    );
}
