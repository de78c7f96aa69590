//! The REST CSV import (`POST /data/v1/{source}/{OBJ:PROP}`, `Content-Type: text/csv`): the
//! CSV `platform data import` reads, into a series (or curve) of an object that exists, merged
//! like a JSON save or replacing the series' observations; GB settlement-keyed rows become
//! half-hours; every bad row, and every bad request, is a clear error that writes nothing.

use crate::common::{Client, Resp, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

const CSV: Option<&str> = Some("text/csv");

async fn import(c: &Client<'_>, path: &str, text: &str) -> Resp {
    c.post_bytes(path, CSV, text).await
}

/// The observations of a data read as (time, value).
async fn points(c: &Client<'_>, path: &str) -> Vec<(String, Value)> {
    let r = c.get(path).await;
    assert_eq!(r.status, 200, "{path}: {:?}", r.body);
    r.body["data"]
        .as_array()
        .unwrap_or_else(|| panic!("{path}: {:?}", r.body))
        .iter()
        .map(|o| (o["time"].as_str().unwrap().to_string(), o["value"].clone()))
        .collect()
}

/// The current version of an object.
async fn version(c: &Client<'_>, id: &str) -> Value {
    let r = c.get(&format!("/object/v1/private/{id}")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["_version"].clone()
}

/// The settlement days of 2025 with their number of periods.
fn days_of_2025() -> Vec<(String, u32)> {
    let lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut days = Vec::new();
    for (m, len) in lengths.iter().enumerate() {
        for d in 1..=*len {
            let date = format!("2025-{:02}-{d:02}", m + 1);
            let n = match date.as_str() {
                "2025-03-30" => 46,
                "2025-10-26" => 50,
                _ => 48,
            };
            days.push((date, n));
        }
    }
    days
}

/// The values of a read, as numbers.
fn values(read: &[(String, Value)]) -> Vec<f64> {
    read.iter().map(|(_, v)| v.as_f64().unwrap()).collect()
}

#[actix_rt::test]
async fn a_year_of_settlement_periods_imports_with_46_and_50_on_the_change_days() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB", "name": "Great Britain"})).await;
    // Elexon's column names; each value is its period's number.
    let mut text = String::from("SettlementDate,SettlementPeriod,value\n");
    for (date, n) in days_of_2025() {
        for p in 1..=n {
            text.push_str(&format!("{date},{p},{p}\n"));
        }
    }
    let path = "/data/v1/private/GB:IMBALANCE?calendar=HALFHOURLY&timezone=Europe/London";
    let r = import(&c, path, &text).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // Answered like a save of the object, with the observations read.
    assert_eq!(r.body["_id"], "GB");
    assert_eq!(r.body["name"], "Great Britain");
    assert_eq!(r.body["_version"], 2);
    assert_eq!(r.body["IMBALANCE"]["_type"], "VarTimeSeries");
    assert_eq!(r.body["IMBALANCE"]["calendar"], "HALFHOURLY");
    assert_eq!(r.body["IMBALANCE"]["timezone"], "Europe/London");
    assert_eq!(
        (r.body["_read"].clone(), r.body["_dropped"].clone()),
        (json!(17_520), json!(0))
    );

    let all = points(&c, "/data/v1/private/GB:IMBALANCE").await;
    assert_eq!(all.len(), 17_520);
    assert_eq!(all[0].0, "2025-01-01T00:00:00Z");
    assert_eq!(all[17_519].0, "2025-12-31T23:30:00Z");
    // between() runs from the start of its first date to the end of its last (here hours, in
    // UTC). Settlement day 2025-03-30 runs from midnight GMT (00:00Z) to midnight BST
    // (23:00Z): 46 periods.
    let spring = "/data/v1/private/GB:IMBALANCE?_range=between(2025-03-30T00,2025-03-30T22,UTC)";
    let spring = points(&c, spring).await;
    assert_eq!(values(&spring), (1..=46).map(f64::from).collect::<Vec<_>>());
    assert_eq!(spring[0].0, "2025-03-30T00:00:00Z");
    // Settlement day 2025-10-26 runs from midnight BST (2025-10-25T23:00Z) to midnight GMT
    // (2025-10-27T00:00Z): 50 periods, the 50th starting at 23:30Z.
    let autumn = "/data/v1/private/GB:IMBALANCE?_range=between(2025-10-25T23,2025-10-26T23,UTC)";
    let autumn = points(&c, autumn).await;
    assert_eq!(values(&autumn), (1..=50).map(f64::from).collect::<Vec<_>>());
    assert_eq!(autumn[0].0, "2025-10-25T23:00:00Z");
    assert_eq!(autumn[49].0, "2025-10-26T23:30:00Z");
    // A summer day: 48, from 23:00Z the day before.
    let june = "/data/v1/private/GB:IMBALANCE?_range=between(2025-06-20T23,2025-06-21T22,UTC)";
    assert_eq!(points(&c, june).await.len(), 48);
}

#[actix_rt::test]
async fn a_bad_settlement_row_is_a_400_naming_its_line_and_writes_nothing() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "GB"})).await;
    let path = "/data/v1/private/GB:SP?calendar=HALFHOURLY&timezone=Europe/London";
    let r = import(
        &c,
        path,
        "settlementDate,settlementPeriod,value\n2025-10-26,1,7\n",
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let (before, stored) = (
        version(&c, "GB").await,
        points(&c, "/data/v1/private/GB:SP").await,
    );
    for (rows, says) in [
        (
            "2025-10-26,50,1\n2025-10-26,51,2\n",
            &[
                "line 3",
                "settlementPeriod 51",
                "settlement day 2025-10-26",
                "50 periods",
                "1..50",
            ][..],
        ),
        (
            "2025-10-26,0,1\n",
            &["line 2", "settlementPeriod 0", "1..50"][..],
        ),
        (
            "2025-01-15,49,1\n",
            &["line 2", "settlementPeriod 49", "48 periods", "1..48"][..],
        ),
        (
            "2025-02-30,1,1\n",
            &["line 2", "\"2025-02-30\"", "is not a date", "YYYY-MM-DD"][..],
        ),
        (
            "26/10/2025,1,1\n",
            &["line 2", "\"26/10/2025\"", "YYYY-MM-DD"][..],
        ),
        ("2025-10-26,one,1\n", &["line 2", "\"one\"", "1..50"][..]),
    ] {
        let text = format!("settlementDate,settlementPeriod,value\n{rows}");
        let m = import(&c, "/data/v1/private/GB:SP", &text)
            .await
            .assert_error(400, "INVALID_BODY");
        for part in says {
            assert!(m.contains(part), "{rows}: {m}");
        }
        assert_eq!(version(&c, "GB").await, before, "{rows}");
        assert_eq!(points(&c, "/data/v1/private/GB:SP").await, stored, "{rows}");
    }
    // Settlement periods are half-hours: an hourly series refuses them.
    let m = import(
        &c,
        "/data/v1/private/GB:H?calendar=HOURLY",
        "settlementDate,settlementPeriod,value\n2025-01-15,1,1\n",
    )
    .await
    .assert_error(400, "INVALID_BODY");
    assert!(m.contains("line 2") && m.contains("not HALFHOURLY"), "{m}");
    assert_eq!(version(&c, "GB").await, before);
}

#[actix_rt::test]
async fn a_time_value_csv_merges_or_replaces_like_a_save() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "DE", "name": "kept", "OTHER": {"_type": "VarTimeSeries",
        "data": [{"time": "2024-01-01T00:00:00Z", "value": 7}]}}),
    )
    .await;
    let path = "/data/v1/private/DE:SPOT?calendar=DAILY&timezone=Europe/Berlin";
    let r = import(
        &c,
        path,
        "time,value\n2024-01-01,1\n2024-01-02,2\n2024-01-03,3\n",
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (r.body["_version"].clone(), r.body["_read"].clone()),
        (json!(2), json!(3))
    );
    let read = "/data/v1/private/DE:SPOT";
    // Dates are days of the series' zone: midnight in Berlin.
    assert_eq!(points(&c, read).await[0].0, "2024-01-01");
    // Without _replaceData the rows merge into the series (no header; the zone is the series').
    let r = import(&c, read, "2024-01-02,20\n2024-01-04,40\n").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_version"], 3);
    assert_eq!(values(&points(&c, read).await), [1.0, 20.0, 3.0, 40.0]);
    // A ';' file may write decimal commas; a changed value loses its quality (as a save).
    let r = import(&c, read, "Datum;Preis;Status\n2024-01-05;\"80,5\";VALID\n").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let item = c.get(read).await.body;
    assert_eq!(item["data"][4]["value"], 80.5);
    assert_eq!(item["data"][4]["status"]["quality"], "VALID");
    import(&c, read, "2024-01-05,81\n").await;
    let item = c.get(read).await.body;
    assert_eq!(item["data"][4]["status"]["source"], "CHANGED");
    // The same rows again: nothing changes, no version is made.
    let again = version(&c, "DE").await;
    let r = import(&c, read, "2024-01-05,81\n").await;
    assert_eq!((r.status, r.body["_version"].clone()), (200, again.clone()));
    assert_eq!(version(&c, "DE").await, again);
    // _replaceData: the text's observations are the series; the object's other fields and
    // data stay; _reason goes with the version.
    let replace = "/data/v1/private/DE:SPOT?_replaceData=true&_reason=reload";
    let r = import(&c, replace, "time,value\n2024-01-01,1\n2024-01-02,2\n").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(values(&points(&c, read).await), [1.0, 2.0]);
    assert_eq!(
        values(&points(&c, "/data/v1/private/DE:OTHER").await),
        [7.0]
    );
    let versions = c.get("/object/v1/private/DE/*").await.body;
    let last = versions.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["_reason"], "reload");
    assert_eq!(c.get("/object/v1/private/DE").await.body["name"], "kept");
    // A time the text holds twice: refused naming both lines, or one kept by _onDuplicate.
    let twice = "time,value\n2024-01-08,1\n2024-01-08,2\n";
    let m = import(&c, read, twice)
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(
        m.contains("line 2 and line 3") && m.contains("_onDuplicate"),
        "{m}"
    );
    let r = import(&c, "/data/v1/private/DE:SPOT?_onDuplicate=last", twice).await;
    assert_eq!(
        (r.body["_read"].clone(), r.body["_dropped"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(values(&points(&c, read).await), [1.0, 2.0, 2.0]);
}

#[actix_rt::test]
async fn curves_import_by_ondate() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TTF"})).await;
    let text =
        "ondate,tenor,value\n2024-03-04,M01,30.4\n2024-03-04,2024Q3,29.9\n2024-03-05,M01,30.6\n";
    let r = import(&c, "/data/v1/private/TTF:FWD", text).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (r.body["_read"].clone(), r.body["FWD"]["_type"].clone()),
        (json!(3), json!("VarCurve"))
    );
    let first = c.get("/data/v1/private/TTF:FWD:2024-03-04").await;
    assert_eq!(
        first.body["contracts"].as_array().unwrap().len(),
        2,
        "{:?}",
        first.body
    );
    let newest = c.get("/data/v1/private/TTF:FWD").await;
    assert_eq!(newest.body["contracts"][0]["value"], 30.6);
    // A series text into the curve, and a curve text into a series, are refused.
    let m = import(&c, "/data/v1/private/TTF:FWD", "time,value\n2024-03-06,1\n")
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("curve") && m.contains("time series"), "{m}");
    let bad = "ondate,tenor,value\n2024-03-06,M01,1\n2024-03-06,X9,2\n";
    let m = import(&c, "/data/v1/private/TTF:FWD", bad)
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.starts_with("line 3: "), "{m}");
    assert_eq!(version(&c, "TTF").await, 2);
}

#[actix_rt::test]
async fn bad_requests_are_clear_errors_and_write_nothing() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "NBP", "label": "plain", "SPOT": {"_type": "VarTimeSeries",
        "calendar": "DAILY", "timezone": "Europe/London", "units": "therm", "currency": "GBP",
        "data": [{"time": "2024-01-01", "value": 70}]}}),
    )
    .await;
    let path = "/data/v1/private/NBP:SPOT";
    let rows = "time,value\n2024-01-02,71\n";
    // The body must be text/csv (in UTF-8). JSON (or no type: JSON by default) is a write of
    // data through the data service, which has none (405); another type is 415.
    for kind in [Some("application/json"), None] {
        let m = c
            .post_bytes(path, kind, rows)
            .await
            .assert_error(405, "METHOD_NOT_ALLOWED");
        assert!(
            m.contains("POST /object/v1") && m.contains("text/csv"),
            "{kind:?}: {m}"
        );
    }
    for kind in [
        "text/plain",
        "text/csv; charset=iso-8859-1",
        "application/xml",
    ] {
        let m = c
            .post_bytes(path, Some(kind), rows)
            .await
            .assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
        assert!(m.contains("text/csv") && m.contains(kind), "{kind:?}: {m}");
    }
    let r = c
        .post_bytes(path, Some("text/csv; charset=utf-8"), rows)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let before = version(&c, "NBP").await;
    let cases: &[(&str, &str, u16, &str, &[&str])] = &[
        (
            "/data/v1/private/NOPE:SPOT",
            rows,
            404,
            "NOT_FOUND",
            &["\"NOPE\"", "save the object first"],
        ),
        (
            "/data/v1/private/NBP",
            rows,
            400,
            "INVALID_PARAMETER",
            &["OBJECT:DATA"],
        ),
        (
            "/data/v1/private/NBP:SPOT:2024-01-01",
            rows,
            400,
            "INVALID_PARAMETER",
            &["OBJECT:PROPERTY"],
        ),
        (
            "/data/v1/all/NBP:SPOT",
            rows,
            400,
            "INVALID_PARAMETER",
            &["all source"],
        ),
        (
            "/data/v1/public/NBP:SPOT",
            rows,
            400,
            "INVALID_ID",
            &["private source"],
        ),
        (
            "/data/v1/private/NBP:SPOT?calendar=HOURLY",
            rows,
            400,
            "INVALID_PARAMETER",
            &["calendar=HOURLY", "DAILY"],
        ),
        (
            "/data/v1/private/NBP:SPOT?timezone=UTC",
            rows,
            400,
            "INVALID_PARAMETER",
            &["timezone=UTC", "Europe/London"],
        ),
        (
            "/data/v1/private/NBP:SPOT?_replace=true",
            rows,
            400,
            "INVALID_PARAMETER",
            &["_replaceData"],
        ),
        (
            "/data/v1/private/NBP:SPOT?delimiter=ab",
            rows,
            400,
            "INVALID_PARAMETER",
            &["\"ab\""],
        ),
        (
            "/data/v1/private/NBP:label",
            rows,
            400,
            "INVALID_PARAMETER",
            &["label", "not a series"],
        ),
        (path, "", 400, "INVALID_BODY", &["no observations"]),
        (
            path,
            "time,value\n",
            400,
            "INVALID_BODY",
            &["no observations"],
        ),
        (
            path,
            "[{\"time\": \"2024-01-02\", \"value\": 1}]",
            400,
            "INVALID_BODY",
            &["JSON", "POST /object/v1"],
        ),
        (
            path,
            "time,value\n2024-01-03,72\n2024-01-04,abc\n",
            400,
            "INVALID_BODY",
            &["line 3", "\"abc\"", "therm"],
        ),
        (
            path,
            "time,value\n2024-01-03T12:00,72\n",
            400,
            "INDEX_ALIGN",
            &["line 2"],
        ),
        (
            path,
            "time,value,price\n2024-01-03,72,1\n",
            400,
            "INVALID_BODY",
            &["line 1", "\"price\""],
        ),
        (
            path,
            "time,value\n2024-01-03,\"72\n2024-01-04,73\n",
            400,
            "INVALID_BODY",
            &["line 2", "not closed"],
        ),
    ];
    for (path, text, status, code, says) in cases {
        let r = import(&c, path, text).await;
        assert_eq!(r.status, *status, "{path} {text:?}: {:?}", r.body);
        let m = r.assert_error(*status, code);
        for part in *says {
            assert!(m.contains(part), "{path} {text:?}: {m}");
        }
        assert_eq!(version(&c, "NBP").await, before, "{path} {text:?}");
    }
    let m = c
        .post_bytes(path, CSV, b"time,value\n2024-01-03,\xff\n".to_vec())
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.starts_with("line 2: ") && m.contains("UTF-8"), "{m}");
    // Another service's item has no POST.
    c.post_bytes("/object/v1/private/NBP", CSV, rows)
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    assert_eq!(version(&c, "NBP").await, before);
    assert_eq!(values(&points(&c, path).await), [70.0, 71.0]);
}

#[actix_rt::test]
async fn a_csv_import_respects_roles_and_tenants() {
    let s = TestServer::new();
    let writer = s.client(Role::Writer);
    writer.save(json!({"_id": "NBP"})).await;
    let path = "/data/v1/private/NBP:SPOT?calendar=DAILY";
    let rows = "2024-01-02,71\n";
    // A read-only token cannot write; without a token nothing is read.
    let m = import(&s.client(Role::Reader), path, rows)
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("writing"), "{m}");
    import(&s.anonymous(), path, rows)
        .await
        .assert_error(401, "NOT_AUTHENTICATED");
    // Another tenant does not see the object.
    let other = s.client_of("other", "them", Role::Admin);
    import(&other, path, rows)
        .await
        .assert_error(404, "NOT_FOUND");
    // Public objects take the platform role.
    let platform = s.client(Role::Platform);
    platform.save(json!({"_id": "#FX"})).await;
    let public = "/data/v1/public/%23FX:EURGBP?calendar=DAILY";
    import(&writer, public, rows)
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert_eq!(version(&writer, "NBP").await, 1);
    let r = import(&platform, public, rows).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        points(&writer, "/data/v1/public/%23FX:EURGBP").await.len(),
        1
    );
    let r = import(&writer, path, rows).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(points(&writer, "/data/v1/private/NBP:SPOT").await.len(), 1);
}
