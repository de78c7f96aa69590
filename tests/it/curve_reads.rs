//! A curve is never answered in place of another (decisions 13): `_range` on a curve id lists
//! the curves whose ondates lie in it (JSON, CSV, Arrow, lists), an ondate without a curve is
//! a 404 naming the nearest ondates, `_nearest=before|after` reads the nearest one; curve
//! writes say what they replaced and `_merge=true` merges contracts by tenor.

use crate::common::{Client, TestServer};
use arrow_array::cast::AsArray as _;
use arrow_array::types::{Date32Type, Float64Type};
use arrow_array::Array as _;
use chrono::NaiveDate;
use platform_core::auth::Role;
use serde_json::{json, Value};

/// The ondates of `DE:BASE`: a week in October (no curve on the weekend) and one in November.
const ONDATES: [&str; 6] = [
    "2024-10-01",
    "2024-10-02",
    "2024-10-03",
    "2024-10-04",
    "2024-10-07",
    "2024-11-25",
];

/// The price of a contract on an ondate: its month times 10 plus the ondate's day over 100,
/// so a value says which curve it came from.
fn price(month: u32, ondate: &str) -> f64 {
    let day: u32 = ondate[8..].parse().unwrap();
    f64::from(month) * 10.0 + f64::from(day) / 100.0
}

/// Saves each ondate's curve of `DE:BASE` (M01 and M02, in MWh and EUR).
async fn save_curves(c: &Client<'_>) {
    for ondate in ONDATES {
        let month: u32 = ondate[5..7].parse().unwrap();
        c.save(
            json!({"_id": "DE", "BASE": {"_type": "VarCurve", "units": "MWh",
            "currency": "EUR", "ondate": ondate, "contracts": [
                {"tenor": "M01", "value": price(month % 12 + 1, ondate)},
                {"tenor": "M02", "value": price((month + 1) % 12 + 1, ondate)}
            ]}}),
        )
        .await;
    }
}

/// `(ondate, _id, [values])` of each curve of a list answer.
fn curves(body: &Value) -> Vec<(String, String, Vec<f64>)> {
    body.as_array()
        .unwrap_or_else(|| panic!("a list: {body}"))
        .iter()
        .map(|c| {
            (
                c["ondate"]["curveDate"].as_str().unwrap().to_string(),
                c["_id"].as_str().unwrap().to_string(),
                c["contracts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k["value"].as_f64().unwrap())
                    .collect(),
            )
        })
        .collect()
}

fn want(ondates: &[&str]) -> Vec<(String, String, Vec<f64>)> {
    ondates
        .iter()
        .map(|d| {
            let month: u32 = d[5..7].parse().unwrap();
            (
                d.to_string(),
                format!("DE:BASE:{d}"),
                vec![price(month % 12 + 1, d), price((month + 1) % 12 + 1, d)],
            )
        })
        .collect()
}

/// A GET answered in `accept`: status and body bytes.
async fn get_as(c: &Client<'_>, path: &str, accept: &str) -> (u16, Vec<u8>) {
    let res = c
        .server
        .start(
            actix_web::test::TestRequest::get()
                .uri(path)
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", accept)),
        )
        .await;
    let status = res.status().as_u16();
    (status, actix_web::test::read_body(res).await.to_vec())
}

/// Days since 1970-01-01 of a date (Arrow's date32), counted here.
fn days(text: &str) -> i32 {
    let d = NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap();
    (d - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap()).num_days() as i32
}

#[actix_rt::test]
async fn a_range_on_a_curve_id_answers_the_curves_whose_ondates_lie_in_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_curves(&c).await;
    // The week the trial asked for: its four curves, never the newest (2024-11-25).
    let r = c
        .get("/data/v1/private/DE:BASE?_range=between(2024-10-01,2024-10-04)")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        curves(&r.body),
        want(&["2024-10-01", "2024-10-02", "2024-10-03", "2024-10-04"])
    );
    assert_eq!(r.body[0]["_type"], "VarCurve");
    assert_eq!(r.body[0]["units"], "MWh");
    let m01 = &r.body[3]["contracts"][0]["properties"];
    assert_eq!(
        (&m01["absolute"], &m01["start"], &m01["end"]),
        (
            &json!("2024M11"),
            &json!("2024-11-01"),
            &json!("2024-11-30")
        )
    );
    // A weekend holds none: an empty list, no curve in their place.
    let r = c
        .get("/data/v1/private/DE:BASE?_range=between(2024-10-05,2024-10-06)")
        .await;
    assert_eq!((r.status, &r.body), (200, &json!([])));
    // The newest n, oldest first; from a date on; converted like any read.
    let r = c.get("/data/v1/private/DE:BASE?_range=last(2)").await;
    assert_eq!(curves(&r.body), want(&["2024-10-07", "2024-11-25"]));
    let r = c
        .get("/data/v1/private/DE:BASE?_range=from(2024-10-04)&units=kWh")
        .await;
    let got = curves(&r.body);
    assert_eq!(got.len(), 3);
    for ((_, _, values), (_, _, stored)) in
        got.iter()
            .zip(want(&["2024-10-04", "2024-10-07", "2024-11-25"]))
    {
        for (v, s) in values.iter().zip(stored) {
            assert!((v - s / 1000.0).abs() < 1e-12, "{v} {s}");
        }
    }
    assert_eq!(r.body[0]["units"], "kWh");
    // One curve id still reads the newest, as the interface says.
    let newest = c.get("/data/v1/private/DE:BASE").await;
    assert_eq!(newest.body["ondate"]["curveDate"], "2024-11-25");
    assert_eq!(newest.body["_id"], "DE:BASE");
}

#[actix_rt::test]
async fn the_curves_of_a_range_are_a_contract_a_row_in_csv_and_arrow() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_curves(&c).await;
    let path = "/data/v1/private/DE:BASE?_range=between(2024-10-03,2024-10-04)";
    let (status, csv) = get_as(&c, path, "text/csv").await;
    assert_eq!(status, 200);
    let mut expected = String::from("ondate,tenor,value,absolute,start,end,expiry\n");
    for d in ["2024-10-03", "2024-10-04"] {
        expected.push_str(&format!(
            "{d},M01,{},2024M11,2024-11-01,2024-11-30,2024-10-31\n\
             {d},M02,{},2024M12,2024-12-01,2024-12-31,2024-11-30\n",
            json!(price(11, d)),
            json!(price(12, d))
        ));
    }
    assert_eq!(String::from_utf8(csv).unwrap(), expected);
    // Arrow: ondates and delivery days as date32, which pandas reads as the days.
    let batch = crate::common::arrow_batch(&c, path).await;
    assert_eq!(batch.num_rows(), 4);
    let date = |name: &str| -> Vec<i32> {
        let col = batch.column_by_name(name).unwrap();
        col.as_primitive_opt::<Date32Type>()
            .unwrap_or_else(|| panic!("{name}: date32, not {}", col.data_type()))
            .values()
            .to_vec()
    };
    let (d3, d4) = (days("2024-10-03"), days("2024-10-04"));
    assert_eq!(date("ondate"), [d3, d3, d4, d4]);
    let (nov, dec) = (days("2024-11-01"), days("2024-12-01"));
    assert_eq!(date("start"), [nov, dec, nov, dec]);
    assert_eq!(date("end")[0], days("2024-11-30"));
    assert_eq!(date("expiry")[1], days("2024-11-30"));
    let values = batch.column_by_name("value").unwrap();
    assert_eq!(
        values.as_primitive::<Float64Type>().values().to_vec(),
        [
            price(11, "2024-10-03"),
            price(12, "2024-10-03"),
            price(11, "2024-10-04"),
            price(12, "2024-10-04")
        ]
    );
    let absolute = batch.column_by_name("absolute").unwrap();
    assert_eq!(absolute.as_string::<i32>().value(2), "2024M11");
    // The chart of the curves of a range draws each (its text alternative names the first).
    let (status, svg) = get_as(&c, path, "image/svg+xml").await;
    let svg = String::from_utf8(svg).unwrap();
    assert_eq!(status, 200, "{svg}");
    assert!(
        svg.contains("<svg") && svg.contains("DE:BASE:2024-10-03"),
        "{svg}"
    );
    // An empty range: the columns, no rows.
    let path = "/data/v1/private/DE:BASE?_range=between(2024-10-05,2024-10-06)";
    let (status, csv) = get_as(&c, path, "text/csv").await;
    assert_eq!(
        (status, String::from_utf8(csv).unwrap().as_str()),
        (200, "ondate,tenor,value,absolute,start,end,expiry\n")
    );
    assert_eq!(get_as(&c, path, "image/svg+xml").await.0, 200);
    let batch = crate::common::arrow_batch(&c, path).await;
    assert_eq!(batch.num_rows(), 0);
    assert!(batch.column_by_name("ondate").is_some());
    // One curve in Arrow: the same columns, its dates date32.
    let batch = crate::common::arrow_batch(&c, "/data/v1/private/DE:BASE:2024-10-04").await;
    assert_eq!(batch.num_rows(), 2);
    let ondate = batch.column_by_name("ondate").unwrap();
    assert_eq!(
        ondate.as_primitive::<Date32Type>().values().to_vec(),
        [d4, d4]
    );
    let expiry = batch.column_by_name("expiry").unwrap();
    assert_eq!(
        expiry.as_primitive::<Date32Type>().value(0),
        days("2024-10-31")
    );
}

#[actix_rt::test]
async fn lists_with_a_range_hold_each_curve_in_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_curves(&c).await;
    let week = "_range=between(2024-10-03,2024-10-07)";
    let wanted = want(&["2024-10-03", "2024-10-04", "2024-10-07"]);
    for path in [
        format!("/data/v1/private?_dataid=BASE&{week}"),
        format!("/data/v1/all?_id=DE:BASE&{week}"),
        format!("/object/v1/private?_profile=BASE&{week}"),
    ] {
        let r = c.get(&path).await;
        assert_eq!(r.status, 200, "{path}: {:?}", r.body);
        assert_eq!(curves(&r.body), wanted, "{path}");
    }
    // A single object's profile is the read of its data item.
    let r = c
        .get(&format!("/object/v1/private/DE?_profile=BASE&{week}"))
        .await;
    assert_eq!(curves(&r.body), wanted);
    // Nothing in range: no curve.
    let r = c
        .get("/data/v1/all?_id=DE:BASE&_range=between(2024-10-05,2024-10-06)")
        .await;
    assert_eq!(r.body, json!([]));
}

#[actix_rt::test]
async fn an_ondate_without_a_curve_is_a_404_naming_the_nearest_and_nearest_reads_them() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_curves(&c).await;
    let m = c
        .get("/data/v1/private/DE:BASE:2024-10-05")
        .await
        .assert_error(404, "NOT_FOUND");
    for part in [
        "DE:BASE:2024-10-05",
        "Saturday",
        "2024-10-04 before",
        "2024-10-07 after",
        "_nearest=before",
    ] {
        assert!(m.contains(part), "{part}: {m}");
    }
    let r = c
        .get("/data/v1/private/DE:BASE:2024-10-05?_nearest=before")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["ondate"]["curveDate"], "2024-10-04");
    assert_eq!(r.body["_id"], "DE:BASE:2024-10-04");
    assert_eq!(
        r.body["contracts"][0]["value"],
        json!(price(11, "2024-10-04"))
    );
    let r = c
        .get("/data/v1/private/DE:BASE:2024-10-05?_nearest=after")
        .await;
    assert_eq!(r.body["ondate"]["curveDate"], "2024-10-07");
    assert_eq!(
        r.body["contracts"][1]["value"],
        json!(price(12, "2024-10-07"))
    );
    // A day with a curve is its own nearest; conversion applies.
    let r = c
        .get("/data/v1/private/DE:BASE:2024-10-02?_nearest=after&units=kWh")
        .await;
    assert_eq!(r.body["ondate"]["curveDate"], "2024-10-02");
    let v = r.body["contracts"][0]["value"].as_f64().unwrap();
    assert!((v - price(11, "2024-10-02") / 1000.0).abs() < 1e-12);
    // Nothing that side: a 404 naming the other.
    let m = c
        .get("/data/v1/private/DE:BASE:2024-09-30?_nearest=before")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(
        m.contains("on or before 2024-09-30") && m.contains("2024-10-01 (_nearest=after"),
        "{m}"
    );
    let m = c
        .get("/data/v1/private/DE:BASE:2025-01-06?_nearest=after")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("2024-11-25 (_nearest=before"), "{m}");
    let m = c
        .get("/data/v1/private/DE:BASE:2024-01-01")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("2024-10-01 after it (none before it)"), "{m}");
    // An object version read finds the ondates that version holds (the third save held the
    // curves up to 2024-10-03).
    let r = c
        .get("/data/v1/private/DE:BASE:2024-10-05?_version=3&_nearest=before")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["ondate"]["curveDate"], "2024-10-03");
}

#[actix_rt::test]
async fn asking_for_a_curve_in_two_ways_at_once_is_a_400() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save_curves(&c).await;
    c.save(json!({"_id": "DE", "SPOT": {"_type": "VarTimeSeries",
        "data": [{"time": "2024-10-01", "value": 1}]}}))
        .await;
    for (path, says) in [
        (
            "DE:BASE?_nearest=before",
            &["_nearest=before needs a date", "DE:BASE:YYYY-MM-DD"][..],
        ),
        (
            "DE:BASE:2024-10-05?_nearest=sideways",
            &["_nearest \"sideways\"", "before", "after"],
        ),
        (
            "DE:BASE:2024-10-04?_range=last(2)",
            &["names the ondate 2024-10-04", "DE:BASE?_range="],
        ),
        (
            "DE:BASE:2024-10-04?_nearest=before&_range=last(2)",
            &["_nearest", "_range", "send one"],
        ),
        (
            "DE:BASE:2024-10-04?_nearest=before&tenor=M01",
            &["_nearest", "tenor=", "send one"],
        ),
        (
            "DE:BASE?_range=last(2)&_shape=MONTHLY",
            &["_shape=MONTHLY", "_range", "OBJ:PROP:ONDATE"],
        ),
        ("DE:SPOT?_nearest=after", &["time series", "_nearest"]),
    ] {
        let m = c
            .get(&format!("/data/v1/private/{path}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        for part in says {
            assert!(m.contains(part), "{path}: {m}");
        }
    }
}

/// 22 monthly contracts, M01..M22, each worth its index plus `base`.
fn months(base: f64) -> Vec<Value> {
    (1..=22)
        .map(|n| json!({"tenor": format!("M{n:02}"), "value": base + f64::from(n)}))
        .collect()
}

/// `(tenor, value)` of each contract of the curve of one ondate.
async fn stored(c: &Client<'_>, id: &str) -> Vec<(String, f64)> {
    let r = c.get(&format!("/data/v1/private/{id}")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["tenor"].as_str().unwrap().to_string(),
                k["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[actix_rt::test]
async fn a_curve_write_says_what_it_dropped_and_merge_keeps_the_other_contracts() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let curve = |contracts: Vec<Value>| {
        json!({"_id": "DE", "BASE": {"_type": "VarCurve", "ondate": "2024-10-01",
            "contracts": contracts}})
    };
    // A new ondate replaces nothing.
    let r = c.post("/object/v1", curve(months(50.0))).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.body.get("_replacedCurves").is_none(), "{:?}", r.body);
    // Correcting one contract by sending it alone replaces the curve, as the interface says,
    // and the answer counts the 21 contracts it dropped.
    let r = c
        .post(
            "/object/v1",
            curve(vec![json!({"tenor": "M01", "value": 60.0})]),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let dropped: Vec<String> = (2..=22).map(|n| format!("M{n:02}")).collect();
    assert_eq!(
        r.body["_replacedCurves"],
        json!([{"_id": "DE:BASE:2024-10-01", "stored": 22, "written": 1, "dropped": 21,
            "droppedTenors": dropped, "merged": false}])
    );
    assert_eq!(
        stored(&c, "DE:BASE:2024-10-01").await,
        [("M01".into(), 60.0)]
    );
    // With _merge=true the contracts sent replace theirs by tenor (M02 sent as its absolute
    // code on this ondate, 2024M12) and the others stay; a new one (Y02) is added.
    c.save(curve(months(50.0))).await;
    let r = c
        .post(
            "/object/v1?_merge=true",
            curve(vec![
                json!({"tenor": "2024M12", "value": 99.5}),
                json!({"tenor": "Y02", "value": 70.0}),
            ]),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.body["_replacedCurves"],
        json!([{"_id": "DE:BASE:2024-10-01", "stored": 22, "written": 23, "dropped": 0,
            "droppedTenors": [], "merged": true}])
    );
    let mut expected: Vec<(String, f64)> = (1..=22)
        .map(|n| (format!("M{n:02}"), 50.0 + f64::from(n)))
        .collect();
    expected[1] = ("2024M12".into(), 99.5);
    expected.push(("Y02".into(), 70.0));
    assert_eq!(stored(&c, "DE:BASE:2024-10-01").await, expected);
    // The same merge again changes nothing: no version, no note.
    let version = c.get("/object/v1/private/DE").await.body["_version"].clone();
    let r = c
        .post(
            "/object/v1?_merge=true",
            curve(vec![json!({"tenor": "2024M12", "value": 99.5})]),
        )
        .await;
    assert_eq!(
        (r.body["_version"].clone(), r.body.get("_replacedCurves")),
        (version, None)
    );
}

#[actix_rt::test]
async fn bad_merges_are_refused_and_change_nothing() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "DE", "BASE": {"_type": "VarCurve",
        "ondate": {"curveDate": "2024-10-01", "expiryCalendar": "#REOMB"},
        "contracts": months(50.0)}}))
        .await;
    let before = stored(&c, "DE:BASE:2024-10-01").await;
    let m = c
        .post(
            "/object/v1?_merge=true",
            json!({"_id": "DE", "BASE": {"_type": "VarCurve", "ondate": "2024-10-01",
                "contracts": [{"tenor": "M01", "value": 1}]}}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("#REOMB") && m.contains("no expiry calendar") && m.contains("_merge"),
        "{m}"
    );
    let m = c
        .post(
            "/object/v1?_merge=true",
            json!({"_id": "DE", "BASE": {"_type": "VarCurve",
                "ondate": {"curveDate": "2024-10-01", "expiryCalendar": "#REOMB"},
                "contracts": [{"tenor": "M01", "value": 1}, {"tenor": "2024M11", "value": 2}]}}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("2024M11") && m.contains("twice"), "{m}");
    let m = c
        .post("/object/v1?_merge=yes", json!({"_id": "DE"}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("_merge"), "{m}");
    assert_eq!(stored(&c, "DE:BASE:2024-10-01").await, before);
    assert_eq!(c.get("/object/v1/private/DE").await.body["_version"], 1);
}

#[actix_rt::test]
async fn a_csv_import_of_curves_merges_or_says_what_it_dropped() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "DE", "BASE": {"_type": "VarCurve", "ondate": "2024-10-01",
        "contracts": months(50.0)}}),
    )
    .await;
    let csv = "ondate,tenor,value\n2024-10-01,M02,80\n2024-10-02,M01,81\n";
    let r = c
        .post_bytes(
            "/data/v1/private/DE:BASE?_merge=true",
            Some("text/csv"),
            csv,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.body["_replacedCurves"],
        json!([{"_id": "DE:BASE:2024-10-01", "stored": 22, "written": 22, "dropped": 0,
            "droppedTenors": [], "merged": true}])
    );
    let first = stored(&c, "DE:BASE:2024-10-01").await;
    assert_eq!((first.len(), first[1].1, first[2].1), (22, 80.0, 53.0));
    let r = c
        .post_bytes(
            "/data/v1/private/DE:BASE",
            Some("text/csv"),
            "ondate,tenor,value\n2024-10-01,M01,1\n",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_replacedCurves"][0]["dropped"], 21);
    assert_eq!(r.body["_read"], 1);
}

/// Writers merging contracts into one ondate at once, each in a transaction of its own on
/// threads of their own: every contract ends in the curve (a merge reads the stored curve in
/// the transaction that writes it, and writes of one object serialise), and the object's
/// versions stay contiguous.
#[actix_rt::test]
async fn writers_merging_into_one_ondate_at_once_lose_no_contract() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "DE", "BASE": {"_type": "VarCurve", "ondate": "2024-10-01",
        "contracts": [{"tenor": "2024M11", "value": 1.0}]}}),
    )
    .await;
    let who = s.platform.tenancy().local_principal("acme", "ann").unwrap();
    let merge = platform_core::api::objects::SaveOptions {
        merge_contracts: true,
        ..Default::default()
    };
    std::thread::scope(|scope| {
        for month in 1..=8 {
            let (platform, who, merge) = (&s.platform, &who, &merge);
            scope.spawn(move || {
                let body = json!({"_id": "DE", "BASE": {"_type": "VarCurve", "ondate": "2024-10-01",
                    "contracts": [{"tenor": format!("2025M{month:02}"), "value": f64::from(month)}]}});
                platform
                    .objects()
                    .save(who, platform_core::api::Collection::Object, body, merge)
                    .unwrap();
            });
        }
    });
    let curve = c.get("/data/v1/private/DE:BASE:2024-10-01").await.body;
    let mut held: Vec<(String, f64)> = curve["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["properties"]["absolute"].as_str().unwrap().to_string(),
                k["value"].as_f64().unwrap(),
            )
        })
        .collect();
    held.sort_by(|a, b| a.0.cmp(&b.0));
    let mut want: Vec<(String, f64)> = (1..=8)
        .map(|m| (format!("2025M{m:02}"), f64::from(m)))
        .collect();
    want.insert(0, ("2024M11".to_string(), 1.0));
    assert_eq!(held, want);
    let versions = c.get("/object/v1/private/DE/*").await.body;
    let numbers: Vec<u64> = versions
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["_version"].as_u64().unwrap())
        .collect();
    let mut sorted = numbers.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (1..=9).collect::<Vec<u64>>(), "{numbers:?}");
}
