//! The standard expiry calendars (`#REOMHENG`, `#REOMB`, `#REOD`, `#RDCEM`, `#FEXPESTR`): built
//! in, public, and what the prior art's Python SDK sends with them saves and reads back; errors
//! carry their text in `x-odsl-error` too.

use crate::common::TestServer;
use actix_web::http::header;
use actix_web::test::TestRequest;
use platform_core::auth::Role;
use serde_json::{json, Value};

/// `(tenor, absolute, start, end, expiry)` of each contract of a curve answer.
fn contracts(curve: &Value) -> Vec<(String, String, String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    curve["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let p = &c["properties"];
            (
                text(&c["tenor"]),
                text(&p["absolute"]),
                text(&p["start"]),
                text(&p["end"]),
                text(&p["expiry"]),
            )
        })
        .collect()
}

fn rows(want: &[[&str; 5]]) -> Vec<(String, String, String, String, String)> {
    want.iter()
        .map(|r| {
            (
                r[0].into(),
                r[1].into(),
                r[2].into(),
                r[3].into(),
                r[4].into(),
            )
        })
        .collect()
}

#[actix_rt::test]
async fn the_sdks_curve_example_saves_and_reads_back_with_england_and_wales_expiries() {
    // The SDK's base URL ends in /api/; `update('object', 'private', obj)` posts the object to
    // `{url}object` as JSON text without a content type, with the Authorization header only.
    let s = TestServer::with_config(platform_server::ServerConfig {
        base_path: "/api".into(),
        ..Default::default()
    });
    let c = s.client(Role::Writer);
    // types.Curve("2024-03-01", "#REOMHENG", id="CURVE") with set_name, set_currency,
    // set_units and add(tenor, value), as Python's JSON encoder writes it.
    let body = r##"{"_id": "AAA.PYTHON", "name": "Python Example", "CURVE": {"_type": "VarCurve", "ondate": {"expiryCalendar": "#REOMHENG", "curveDate": "2024-03-01"}, "contracts": [{"tenor": "M01", "value": 1.4}, {"tenor": "M02", "value": 2.2}, {"tenor": "Q01", "value": 2.5}, {"tenor": "Y01", "value": 3.1}, {"tenor": "2024M07", "value": 2.9}, {"tenor": "2024D1227", "value": 4.0}], "_id": "CURVE", "name": "Example curve", "currency": "EUR", "units": "MWh"}}"##;
    let req = TestRequest::post()
        .uri("/api/object")
        .insert_header((header::AUTHORIZATION, c.auth.clone().unwrap()))
        .insert_header((header::USER_AGENT, "python-requests/2.32.3"))
        .insert_header((header::ACCEPT, "*/*"))
        .set_payload(body);
    let r = s.send(req).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // `get('data', 'private', 'AAA.PYTHON:CURVE:2024-03-01')`.
    let r = c
        .get("/api/data/v1/private/AAA.PYTHON%3ACURVE%3A2024-03-01")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.body["ondate"],
        json!({"curveDate": "2024-03-01", "expiryCalendar": "#REOMHENG"})
    );
    assert_eq!(
        (&r.body["currency"], &r.body["units"]),
        (&json!("EUR"), &json!("MWh"))
    );
    // Expiry: the last England-and-Wales business day before delivery starts. April 2024 starts
    // on Easter Monday after Good Friday (29 March) and a weekend; July on a Monday after a
    // weekend; 27 December after Christmas and Boxing Day.
    assert_eq!(
        contracts(&r.body),
        rows(&[
            ["M01", "2024M04", "2024-04-01", "2024-04-30", "2024-03-28"],
            ["M02", "2024M05", "2024-05-01", "2024-05-31", "2024-04-30"],
            ["Q01", "2024Q02", "2024-04-01", "2024-06-30", "2024-03-28"],
            ["Y01", "2025Y", "2025-01-01", "2025-12-31", "2024-12-31"],
            [
                "2024M07",
                "2024M07",
                "2024-07-01",
                "2024-07-31",
                "2024-06-28"
            ],
            [
                "2024D1227",
                "2024D1227",
                "2024-12-27",
                "2024-12-27",
                "2024-12-24"
            ],
        ])
    );
    assert_eq!(r.body["contracts"][0]["value"], 1.4);
    assert_eq!(r.body["contracts"][0]["properties"]["relative"], "M01");
    assert_eq!(r.body["contracts"][4]["properties"]["relative"], "M04");
    // The SDK prints x-odsl-error on a failure: an ondate naming no calendar says so there.
    let req = TestRequest::post()
        .uri("/api/object")
        .insert_header((header::AUTHORIZATION, c.auth.clone().unwrap()))
        .set_payload(body.replace("#REOMHENG", "#REOMX"));
    let r = s.send(req).await;
    let m = r.assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("#REOMX") && m.contains("expiryCalendar"), "{m}");
    assert!(r.header("x-odsl-error").unwrap().contains("#REOMX"));
}

#[actix_rt::test]
async fn each_standard_expiry_calendar_is_public_and_gives_the_expiry_of_its_name() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // Contracts whose first delivery day follows a holiday of one calendar and not another:
    // 2024-04-01 (Easter Monday, after Good Friday and a weekend), 2024-05-02 (after 1 May, a
    // TARGET holiday), 2024-12-27 (after Christmas and Boxing Day), 2024-06-03 (a Monday).
    let tenors = ["2024M04", "2024D0502", "2024DA1227", "2024D0603"];
    let cases = [
        // Last England-and-Wales business day before delivery.
        (
            "#REOMHENG",
            ["2024-03-28", "2024-05-01", "2024-12-24", "2024-05-31"],
        ),
        // Last weekday before delivery.
        (
            "#REOMB",
            ["2024-03-29", "2024-05-01", "2024-12-26", "2024-05-31"],
        ),
        // Day-ahead: the weekday before the delivery day.
        (
            "#REOD",
            ["2024-03-29", "2024-05-01", "2024-12-26", "2024-05-31"],
        ),
        // The calendar day before delivery (the end of the month before a month).
        (
            "#RDCEM",
            ["2024-03-31", "2024-05-01", "2024-12-26", "2024-06-02"],
        ),
        // Last TARGET business day before delivery.
        (
            "#FEXPESTR",
            ["2024-03-28", "2024-04-30", "2024-12-24", "2024-05-31"],
        ),
    ];
    for (i, (calendar, expiries)) in cases.iter().enumerate() {
        let doc = c
            .get(&format!(
                "/calendar/v1/public/{}",
                calendar.replace('#', "%23")
            ))
            .await;
        assert_eq!(doc.status, 200, "{calendar}: {:?}", doc.body);
        assert!(doc.body["expiry"].is_object(), "{:?}", doc.body);
        let name = format!("F{i}");
        let sent: Vec<Value> = tenors
            .iter()
            .map(|t| json!({"tenor": t, "value": 1}))
            .collect();
        c.save(json!({"_id": "EXP", name.clone(): {"_type": "VarCurve",
            "ondate": {"curveDate": "2024-03-01", "expiryCalendar": calendar},
            "contracts": sent}}))
            .await;
        let r = c
            .get(&format!("/data/v1/private/EXP:{name}:2024-03-01"))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let got: Vec<String> = contracts(&r.body).into_iter().map(|c| c.4).collect();
        assert_eq!(got, expiries, "{calendar}");
    }
    // The public list: the holiday calendars and the expiry calendars.
    let list = c.get("/calendar/v1/public").await;
    let ids: Vec<&str> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["_id"].as_str().unwrap())
        .collect();
    for (id, _) in cases {
        assert!(ids.contains(&id), "{ids:?}");
    }
    // A built-in calendar deleted comes back at the next start, not before.
    let admin = s.client(Role::Platform);
    assert_eq!(
        admin.delete("/calendar/v1/public/%23REOD").await.status,
        200
    );
    c.get("/calendar/v1/public/%23REOD")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn an_expiry_calendar_of_calendar_days_is_saved_and_refused_when_it_mixes_both_kinds() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c
        .post(
            "/calendar/v1",
            json!({"_id": "CAL3", "expiry": {"calendarDaysBefore": 3}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.save(json!({"_id": "EXP", "FWD": {"_type": "VarCurve",
        "ondate": {"curveDate": "2024-03-01", "expiryCalendar": "CAL3"},
        "contracts": [{"tenor": "M01", "value": 1}]}}))
        .await;
    let r = c.get("/data/v1/private/EXP:FWD:2024-03-01").await;
    assert_eq!(r.body["contracts"][0]["properties"]["expiry"], "2024-03-29");
    for (expiry, says) in [
        (
            json!({"calendarDaysBefore": 1, "holidays": "#HENG"}),
            "expiry.holidays",
        ),
        (
            json!({"calendarDaysBefore": 1, "businessDaysBefore": 1}),
            "expiry.businessDaysBefore",
        ),
        (json!({"calendarDaysBefore": -1}), "calendarDaysBefore -1"),
        (
            json!({"calendarDaysBefore": "1"}),
            "calendarDaysBefore must be a number",
        ),
    ] {
        let r = c
            .post("/calendar/v1", json!({"_id": "BAD", "expiry": expiry}))
            .await;
        let m = r.assert_error(400, "INVALID_BODY");
        assert!(m.contains(says), "{m}");
    }
    c.get("/calendar/v1/private/BAD")
        .await
        .assert_error(404, "NOT_FOUND");
}

/// The (absolute code, expiry) of each contract of a curve answer.
fn expiries(curve: &Value) -> Vec<(String, String)> {
    contracts(curve)
        .into_iter()
        .map(|(_, absolute, _, _, expiry)| (absolute, expiry))
        .collect()
}

fn owned(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[actix_rt::test]
async fn a_curves_header_expiry_calendar_sets_the_expiries_of_its_saves_and_csv_imports() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    // December 2024 starts on Sunday 1 December: #REOMHENG (the last England-and-Wales
    // business day before it) is Friday 29 November; without a calendar the expiry is the
    // calendar day before, Saturday 30 November. September 2026 starts on Tuesday 1 September,
    // after the bank holiday of Monday 31 August: #REOMHENG gives Friday 28 August, #REOMB (any
    // weekday) Monday 31 August.
    let contracts =
        json!([{"tenor": "2024M12", "value": 96.5}, {"tenor": "2026M09", "value": 80.0}]);
    let saved = c
        .save(json!({"_id": "DEPWR", "BASE": {"_type": "VarCurve",
            "expiryCalendar": "#REOMHENG", "ondate": "2024-11-25", "contracts": contracts}}))
        .await;
    assert_eq!(saved["BASE"]["expiryCalendar"], "#REOMHENG");
    let r = c.get("/data/v1/private/DEPWR:BASE:2024-11-25").await;
    assert_eq!(
        r.body["ondate"],
        json!({"curveDate": "2024-11-25", "expiryCalendar": "#REOMHENG"})
    );
    assert_eq!(
        expiries(&r.body),
        owned(&[("2024M12", "2024-11-29"), ("2026M09", "2026-08-28")])
    );
    // Without any calendar: the calendar day before delivery starts.
    c.save(
        json!({"_id": "PLAIN", "BASE": {"_type": "VarCurve", "ondate": "2024-11-25",
        "contracts": contracts}}),
    )
    .await;
    let r = c.get("/data/v1/private/PLAIN:BASE:2024-11-25").await;
    assert_eq!(
        expiries(&r.body),
        owned(&[("2024M12", "2024-11-30"), ("2026M09", "2026-08-31")])
    );
    // The CSV import: expiryCalendar sets the curve's calendar, which later imports keep.
    c.save(json!({"_id": "TTF"})).await;
    let csv = Some("text/csv");
    let rows = "ondate,tenor,value\n2024-11-25,2024M12,45.1\n2024-11-25,2026M09,30.2\n";
    let r = c
        .post_bytes(
            "/data/v1/private/TTF:FWD?expiryCalendar=%23REOMHENG",
            csv,
            rows,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["FWD"]["expiryCalendar"], "#REOMHENG");
    let r = c
        .post_bytes(
            "/data/v1/private/TTF:FWD",
            csv,
            "ondate,tenor,value\n2024-11-26,2026M09,30.4\n",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    for (ondate, want) in [
        (
            "2024-11-25",
            owned(&[("2024M12", "2024-11-29"), ("2026M09", "2026-08-28")]),
        ),
        ("2024-11-26", owned(&[("2026M09", "2026-08-28")])),
    ] {
        let r = c.get(&format!("/data/v1/private/TTF:FWD:{ondate}")).await;
        assert_eq!(expiries(&r.body), want, "{ondate}");
    }
    // Another calendar for the ondates written from then on; the stored ones keep theirs.
    let r = c
        .post_bytes(
            "/data/v1/private/TTF:FWD?expiryCalendar=%23REOMB",
            csv,
            "ondate,tenor,value\n2024-11-27,2026M09,30.6\n",
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = c.get("/data/v1/private/TTF:FWD:2024-11-27").await;
    assert_eq!(expiries(&r.body), owned(&[("2026M09", "2026-08-31")]));
    let r = c.get("/data/v1/private/TTF:FWD:2024-11-26").await;
    assert_eq!(expiries(&r.body), owned(&[("2026M09", "2026-08-28")]));
    // A calendar that does not exist, in a header or an import: a 400 naming it, nothing kept.
    let version = c.get("/object/v1/private/TTF").await.body["_version"].clone();
    let m = c
        .post_bytes(
            "/data/v1/private/TTF:FWD?expiryCalendar=%23NOPE",
            csv,
            "ondate,tenor,value\n2024-11-28,M01,1\n",
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("FWD.expiryCalendar") && m.contains("#NOPE"),
        "{m}"
    );
    let m = c
        .post(
            "/object/v1",
            json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "expiryCalendar": "#NOPE"}}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("FWD.expiryCalendar") && m.contains("#NOPE"),
        "{m}"
    );
    let object = c.get("/object/v1/private/TTF").await.body;
    assert_eq!(object["_version"], version);
    assert_eq!(object["FWD"]["expiryCalendar"], "#REOMB");
    assert_eq!(
        c.get("/data/v1/private/TTF:FWD:2024-11-28").await.status,
        404
    );
    // On a series it is refused.
    c.save(json!({"_id": "S"})).await;
    let m = c
        .post_bytes(
            "/data/v1/private/S:P?expiryCalendar=%23REOMB",
            csv,
            "time,value\n2024-01-01,1\n",
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("expiryCalendar sets when a curve's contracts expire"),
        "{m}"
    );
}
