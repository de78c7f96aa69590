//! The calendar service over HTTP: holiday calendars (built in and saved, their functions, the
//! spec's calendar vectors), series on a holiday calendar, expiry calendars on curves (the
//! spec's expiry vectors), block calendars as `_block`, and their bad input.

use crate::common::{vectors, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

fn enc(id: &str) -> String {
    id.replace('#', "%23")
}

#[actix_rt::test]
async fn a_fresh_database_carries_the_built_in_holiday_calendars_and_their_vectors_hold() {
    let s = TestServer::new();
    let c = s.client(Role::Reader);
    let list = c.get("/calendar/v1/public").await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    let ids: Vec<&str> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["_id"].as_str().unwrap())
        .collect();
    // The holiday calendars, and the standard expiry calendars (tests/it/expiry_calendars.rs).
    assert_eq!(
        ids,
        [
            "#FEXPESTR",
            "#HDEU",
            "#HENG",
            "#RDCEM",
            "#REOD",
            "#REOMB",
            "#REOMHENG",
            "#TARGET",
            "#WEEKDAYS"
        ]
    );
    let file = vectors("calendars.json");
    for case in file["calendars"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        let doc = c.get(&format!("/calendar/v1/public/{}", enc(id))).await;
        assert_eq!(doc.status, 200, "{:?}", doc.body);
        assert_eq!(doc.body["_type"], "VarCalendar");
        assert_eq!(doc.body["rules"], case["rules"], "{id}");
        let years = case["years"].as_array().unwrap();
        let r = c
            .get(&format!(
                "/calendar/v1/public/{}?_function=holidays&from={}-01-01&to={}-12-31",
                enc(id),
                years[0],
                years[1]
            ))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let dates: Vec<&Value> = r
            .body
            .as_array()
            .unwrap()
            .iter()
            .map(|h| &h["date"])
            .collect();
        let want: Vec<&Value> = case["holidays"].as_array().unwrap().iter().collect();
        assert_eq!(dates, want, "{id}");
        assert!(r
            .body
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["name"].is_string()));
    }
    for case in file["business"].as_array().unwrap() {
        let r = c
            .get(&format!(
                "/calendar/v1/public/{}?_function=businessDays&date={}&n={}",
                enc(case["calendar"].as_str().unwrap()),
                case["date"].as_str().unwrap(),
                case["n"]
            ))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body, json!({"date": case["result"]}), "{case}");
    }
    // Names: the rule's named text, or the rule.
    let r = c
        .get("/calendar/v1/public/%23HENG?_function=holidays&from=2024-12-01&to=2024-12-31")
        .await;
    assert_eq!(
        r.body,
        json!([{"date": "2024-12-25", "name": "Christmas"}, {"date": "2024-12-26", "name": "Boxing Day"}])
    );
    // The all source reads them too.
    let r = c
        .get("/calendar/v1/all/%23TARGET?_function=businessDays&date=2024-12-24&n=1")
        .await;
    assert_eq!(r.body, json!({"date": "2024-12-27"}));
}

#[actix_rt::test]
async fn calendars_are_versioned_documents_public_for_the_platform_role_and_private_per_tenant() {
    let s = TestServer::new();
    let writer = s.client(Role::Writer);
    let platform = s.client(Role::Platform);
    // Public ids are written by the platform role only.
    writer
        .post(
            "/calendar/v1",
            json!({"_id": "#HX", "rules": ["Good Friday"]}),
        )
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    let r = platform
        .post(
            "/calendar/v1",
            json!({"_id": "#HX", "rules": ["Good Friday"]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_type"], "VarCalendar");
    // Private calendars: versions, tags, rollback.
    let mine = json!({"_id": "MINE", "rules": ["Every Friday"]});
    assert_eq!(writer.post("/calendar/v1", mine).await.body["_version"], 1);
    let r = writer
        .post(
            "/calendar/v1",
            json!({"_id": "MINE", "rules": ["Every Friday", "2024-07-04 named 'Picnic'"]}),
        )
        .await;
    assert_eq!(r.body["_version"], 2);
    let r = writer
        .get("/calendar/v1/private/MINE?_function=holidays&from=2024-07-01&to=2024-07-07")
        .await;
    assert_eq!(
        r.body,
        json!([{"date": "2024-07-04", "name": "Picnic"}, {"date": "2024-07-05", "name": "Every Friday"}])
    );
    assert_eq!(writer.get("/calendar/v1/private/MINE/*").await.total(), 2);
    assert_eq!(
        writer.put("/calendar/v1/private/MINE/1/first").await.status,
        200
    );
    let r = writer.get("/calendar/v1/private/MINE/first").await;
    assert_eq!(r.body["rules"], json!(["Every Friday"]));
    // Thursday 2024-07-04 plus one business day: the Monday (Friday is off, then the weekend).
    let r = writer
        .get("/calendar/v1/private/MINE?_function=businessDays&date=2024-07-03&n=1")
        .await;
    assert_eq!(r.body, json!({"date": "2024-07-08"}));
    // Another tenant does not see it.
    let other = s.client_of("globex", "gus", Role::Admin);
    other
        .get("/calendar/v1/private/MINE")
        .await
        .assert_error(404, "NOT_FOUND");
    other
        .get("/calendar/v1/private/MINE?_function=holidays&from=2024-01-01&to=2024-12-31")
        .await
        .assert_error(404, "NOT_FOUND");
    // Deleting the latest version rolls back.
    assert_eq!(
        writer.delete("/calendar/v1/private/MINE").await.body["current"],
        1
    );
}

#[actix_rt::test]
async fn bad_calendars_and_bad_function_calls_are_400s_naming_the_input_and_store_nothing() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (body, code, says) in [
        (
            json!({"_id": "BAD", "rules": ["Good Friday", "32nd of May named 'x'"]}),
            "INVALID_BODY",
            "rules[1]",
        ),
        (
            json!({"_id": "BAD", "rules": ["1st of Smarch"]}),
            "INVALID_BODY",
            "\"Smarch\"",
        ),
        (json!({"_id": "BAD"}), "MISSING_PARAMETER", "rules"),
        (
            json!({"_id": "BAD", "expiry": {"holidays": "NOPE", "businessDaysBefore": 2}}),
            "INVALID_PARAMETER",
            "\"NOPE\"",
        ),
        (
            json!({"_id": "BAD", "expiry": {"holidays": "#HENG", "businessDaysBefore": "two"}}),
            "INVALID_BODY",
            "businessDaysBefore",
        ),
        (
            json!({"_id": "BAD", "block": {"days": ["MON"], "hours": [9, 9]}}),
            "INVALID_BODY",
            "block.hours",
        ),
        (
            json!({"_id": "BAD", "block": {"days": ["MON"], "holidays": "GHOST"}}),
            "INVALID_PARAMETER",
            "\"GHOST\"",
        ),
        (
            json!({"_id": "BAD", "_type": "VarThing", "rules": []}),
            "INVALID_BODY",
            "VarCalendar",
        ),
    ] {
        let m = c
            .post("/calendar/v1", body.clone())
            .await
            .assert_error(400, code);
        assert!(m.contains(says), "{body}: {m}");
    }
    // The rule that does not parse is named with where it stopped.
    let m = c
        .post(
            "/calendar/v1",
            json!({"_id": "BAD", "rules": ["1st of May on Sunday shift x days"]}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(
        m.contains("\"1st of May on Sunday shift x days\"") && m.contains("\"x\""),
        "{m}"
    );
    c.get("/calendar/v1/private/BAD")
        .await
        .assert_error(404, "NOT_FOUND");
    // An array with one bad calendar stores none.
    c.post(
        "/calendar/v1",
        json!([{"_id": "OK1", "rules": ["Good Friday"]}, {"_id": "OK2", "rules": ["Bad Friday"]}]),
    )
    .await
    .assert_error(400, "INVALID_BODY");
    c.get("/calendar/v1/private/OK1")
        .await
        .assert_error(404, "NOT_FOUND");
    // Functions.
    c.post(
        "/calendar/v1",
        json!({"_id": "EXP", "expiry": {"holidays": "#HENG", "businessDaysBefore": 2}}),
    )
    .await;
    let base = "/calendar/v1/public/%23HENG?_function=";
    for (query, code, says) in [
        ("holidays&to=2024-12-31", "MISSING_PARAMETER", "from"),
        ("holidays&from=2024-01-01", "MISSING_PARAMETER", "to"),
        (
            "holidays&from=2024-13-01&to=2024-12-31",
            "INVALID_PARAMETER",
            "\"2024-13-01\"",
        ),
        (
            "holidays&from=2024-12-31&to=2024-01-01",
            "INVALID_PARAMETER",
            "after",
        ),
        (
            "holidays&from=1000-01-01&to=3000-01-01",
            "INVALID_PARAMETER",
            "years",
        ),
        ("businessDays&n=1", "MISSING_PARAMETER", "date"),
        ("businessDays&date=2024-01-01", "MISSING_PARAMETER", "n"),
        (
            "businessDays&date=2024-01-01&n=one",
            "INVALID_PARAMETER",
            "\"one\"",
        ),
        (
            "businessDays&date=2024-01-01&n=99999999",
            "INVALID_PARAMETER",
            "99999999",
        ),
        ("easter", "INVALID_PARAMETER", "\"easter\""),
    ] {
        let m = c
            .get(&format!("{base}{query}"))
            .await
            .assert_error(400, code);
        assert!(m.contains(says), "{query}: {m}");
    }
    let m = c
        .get("/calendar/v1/private/EXP?_function=holidays&from=2024-01-01&to=2024-12-31")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("expiry calendar"), "{m}");
    c.get("/calendar/v1/private/GHOST?_function=holidays&from=2024-01-01&to=2024-12-31")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get("/object/v1/private/X?_function=holidays")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn a_series_on_a_holiday_calendar_is_indexed_by_its_business_days() {
    // Tuesday after Easter Monday 2024.
    let s = TestServer::at("2024-04-02T12:00:00Z");
    let c = s.client(Role::Writer);
    let series = |data: Value| {
        json!({"_id": "UK", "S": {"_type": "VarTimeSeries", "calendar": "#HENG",
               "timezone": "Europe/London", "data": data}})
    };
    let r = c
        .post(
            "/object/v1",
            series(
                json!([{"time": "2024-03-27", "value": 1}, {"time": "2024-03-28", "value": 2},
                          {"time": "2024-04-02", "value": 3}]),
            ),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // Good Friday and Easter Monday are off the calendar; so is a weekend.
    for day in ["2024-03-29", "2024-04-01", "2024-03-30"] {
        let m = c
            .post("/object/v1", series(json!([{"time": day, "value": 9}])))
            .await
            .assert_error(400, "INDEX_ALIGN");
        assert!(m.contains(day) && m.contains("#HENG"), "{m}");
    }
    let r = c.get("/data/v1/private/UK:S").await;
    assert_eq!(r.body["data"].as_array().unwrap().len(), 3, "{:?}", r.body);
    // `B` counts the calendar's business days: one back from Tuesday is Maundy Thursday.
    let r = c.get("/data/v1/private/UK:S?_range=from(T-1Bh0)").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let times: Vec<&Value> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["time"])
        .collect();
    assert_eq!(times, [&json!("2024-03-28"), &json!("2024-04-02")]);
    // On a plain BUSINESS series one business day back is Easter Monday.
    c.save(json!({"_id": "PLAIN", "S": {"_type": "VarTimeSeries", "calendar": "BUSINESS",
                  "data": [{"time": "2024-03-28", "value": 2}, {"time": "2024-04-01", "value": 3}]}}))
        .await;
    let r = c.get("/data/v1/private/PLAIN:S?_range=from(T-1Bh0)").await;
    assert_eq!(
        r.body["data"],
        json!([{"time": "2024-04-01", "value": 3.0}])
    );
    // A private holiday calendar works the same.
    c.post(
        "/calendar/v1",
        json!({"_id": "MYHOL", "rules": ["2024-04-03"]}),
    )
    .await;
    let r = c
        .post(
            "/object/v1",
            json!({"_id": "P", "S": {"_type": "VarTimeSeries", "calendar": "MYHOL",
                                    "data": [{"time": "2024-04-03", "value": 1}]}}),
        )
        .await;
    r.assert_error(400, "INDEX_ALIGN");
    // A calendar that is neither a code nor a holiday calendar: 400 naming it, nothing stored.
    let m = c
        .post(
            "/object/v1",
            json!({"_id": "NEW", "S": {"_type": "VarTimeSeries", "calendar": "#HFRA",
                                    "data": [{"time": "2024-04-03", "value": 1}]}}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("\"#HFRA\"") && m.contains("S.calendar"), "{m}");
    c.get("/object/v1/private/NEW")
        .await
        .assert_error(404, "NOT_FOUND");
    // An expiry calendar is not a holiday calendar.
    c.post(
        "/calendar/v1",
        json!({"_id": "EXP", "expiry": {"holidays": "#HENG", "businessDaysBefore": 2}}),
    )
    .await;
    let m = c
        .post(
            "/object/v1",
            json!({"_id": "NEW", "S": {"_type": "VarTimeSeries", "calendar": "EXP"}}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("\"EXP\""), "{m}");
}

#[actix_rt::test]
async fn an_expiry_calendar_on_a_curve_ondate_sets_each_contracts_expiry() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let file = vectors("expiry.json");
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() > 10);
    let mut by_calendar: Vec<(String, u64, Vec<&Value>)> = Vec::new();
    for case in cases {
        let key = (
            case["calendar"].as_str().unwrap().to_string(),
            case["before"].as_u64().unwrap(),
        );
        match by_calendar
            .iter_mut()
            .find(|(c, b, _)| (c, b) == (&key.0, &key.1))
        {
            Some((_, _, list)) => list.push(case),
            None => by_calendar.push((key.0, key.1, vec![case])),
        }
    }
    for (i, (holidays, before, cases)) in by_calendar.iter().enumerate() {
        let id = format!("EXP{i}");
        let r = c
            .post(
                "/calendar/v1",
                json!({"_id": id, "expiry": {"holidays": holidays, "businessDaysBefore": before}}),
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let contracts: Vec<Value> = cases
            .iter()
            .map(|c| json!({"tenor": c["delivery"], "value": 1}))
            .collect();
        let r = c
            .post(
                "/object/v1",
                json!({"_id": "FUT", "FWD": {"_type": "VarCurve",
                       "ondate": {"curveDate": "2023-11-15", "expiryCalendar": id},
                       "contracts": contracts}}),
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = c.get("/data/v1/private/FUT:FWD:2023-11-15").await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let got = r.body["contracts"].as_array().unwrap();
        assert_eq!(got.len(), cases.len());
        for (g, w) in got.iter().zip(cases) {
            assert_eq!(g["properties"]["expiry"], w["expiry"], "{g} vs {w}");
        }
    }
    // Without an expiry calendar: the day before delivery.
    c.save(
        json!({"_id": "FUT", "PLAIN": {"_type": "VarCurve", "ondate": "2023-11-15",
                  "contracts": [{"tenor": "2024M01", "value": 1}]}}),
    )
    .await;
    let r = c.get("/data/v1/private/FUT:PLAIN:2023-11-15").await;
    assert_eq!(r.body["contracts"][0]["properties"]["expiry"], "2023-12-31");
    // A contract sent with its own expiry keeps it.
    c.save(json!({"_id": "FUT", "OWN": {"_type": "VarCurve",
                  "ondate": {"curveDate": "2023-11-15", "expiryCalendar": "EXP0"},
                  "contracts": [{"tenor": "2024M01", "value": 1, "properties": {"expiry": "2023-12-01"}},
                                {"tenor": "2024M02", "value": 1}]}}))
        .await;
    let r = c.get("/data/v1/private/FUT:OWN:2023-11-15").await;
    assert_eq!(r.body["contracts"][0]["properties"]["expiry"], "2023-12-01");
    assert_eq!(r.body["contracts"][1]["properties"]["expiry"], "2024-01-30");
    // A missing expiry calendar, or a holiday calendar named as one: 400, nothing stored.
    for (cal, says) in [("GHOST", "\"GHOST\""), ("#HENG", "not an expiry calendar")] {
        let m = c
            .post(
                "/object/v1",
                json!({"_id": "FUT2", "FWD": {"_type": "VarCurve",
                       "ondate": {"curveDate": "2023-11-15", "expiryCalendar": cal},
                       "contracts": [{"tenor": "M01", "value": 1}]}}),
            )
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains(says) && m.contains("expiryCalendar"), "{m}");
    }
    c.get("/object/v1/private/FUT2")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn a_block_calendar_is_a_block_of_its_own_hours_days_and_holidays() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c
        .post(
            "/calendar/v1",
            json!({"_id": "EXT", "description": "Extended peak, UK working days",
                   "block": {"days": ["MON", "TUE", "WED", "THU", "FRI"], "hours": [7, 22],
                             "holidays": "#HENG"}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // Hourly values equal to the UTC hour, Thursday 2024-03-28 to Monday 2024-04-01 (UTC).
    let mut data = Vec::new();
    for day in [
        "2024-03-28",
        "2024-03-29",
        "2024-03-30",
        "2024-03-31",
        "2024-04-01",
        "2024-04-02",
    ] {
        for h in 0..24 {
            data.push(json!({"time": format!("{day}T{h:02}:00:00Z"), "value": h}));
        }
    }
    c.save(
        json!({"_id": "H", "S": {"_type": "VarTimeSeries", "calendar": "HOURLY", "data": data}}),
    )
    .await;
    let r = c
        .get("/data/v1/private/H:S?_calendar=DAILY&_observed=averaged&_block=EXT")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // Good Friday, the weekend and Easter Monday are off; hours 7..=21 average 14.
    let got: Vec<(Value, Value)> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["time"].clone(), p["value"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (json!("2024-03-28"), json!(14.0)),
            (json!("2024-04-02"), json!(14.0))
        ]
    );
    // PEAK keeps Good Friday (holidays included) with hours 8..=19.
    let r = c
        .get("/data/v1/private/H:S?_calendar=DAILY&_observed=averaged&_block=PEAK")
        .await;
    assert_eq!(r.body["data"].as_array().unwrap().len(), 4, "{:?}", r.body);
    // A block that is no code and no block calendar; a holiday calendar as a block.
    for (block, says) in [("NIGHT", "\"NIGHT\""), ("%23HENG", "not a block calendar")] {
        let m = c
            .get(&format!(
                "/data/v1/private/H:S?_calendar=DAILY&_observed=averaged&_block={block}"
            ))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains(says) && m.contains("_block"), "{m}");
    }
}
