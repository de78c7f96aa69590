//! Tests of the validation service's typed calls: records and their values, the actions on
//! them, batches, the dashboard, suggestions, tunings and the automations of configurations.
//! Each answer's serde form is checked byte for byte against the JSON the interface answers
//! (the `ms` a call took set to 0), each request read from a body or parameters is the typed
//! request, and bad input is refused with the interface's texts, nothing stored.

use super::*;
use super::{data::*, validation::*};
use crate::clock::FixedClock;
use crate::error::{ErrorCode, Result};
use crate::store::sqlite::SqliteStore;
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use serde_json::{json, Value};
use std::sync::Arc;

/// Now, on the platforms of these tests.
fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 3, 1, 12, 0, 0).unwrap()
}

/// The first of the days of the series (at midnight UTC).
fn day(d: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 2, 1, 0, 0, 0).unwrap() + Duration::days(d)
}

/// A platform on a fixed clock, and its user.
fn platform() -> (Platform, Principal) {
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    let platform = Platform::over(store, Arc::new(FixedClock::new(now())));
    let me = platform.tenancy().local_principal("acme", "ann").unwrap();
    (platform, me)
}

/// The user as a reader.
fn reader(me: &Principal) -> Principal {
    let mut reader = me.clone();
    reader.role = crate::auth::Role::Reader;
    reader
}

/// A platform with the daily series NBP:SPOT (days 0 to 27, day 3 at -3, day 5 at 500) and
/// its configuration (`positive`: value > 0; `cap`: value < 100), run over every point: two
/// failing records.
fn with_records() -> (Platform, Principal) {
    let (platform, me) = platform();
    let points: Vec<Point> = (0..28)
        .map(|d| {
            let v = match d {
                3 => -3.0,
                5 => 500.0,
                _ => 50.0 + (d % 7) as f64,
            };
            Point::new(day(d), v)
        })
        .collect();
    platform
        .data()
        .write_series(&me, "NBP:SPOT", &points, &Default::default())
        .unwrap();
    save_config(
        &platform,
        &me,
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": "spot", "group": "gas",
               "tags": ["uk"], "checks": [
                   {"name": "positive", "expression": "value > 0"},
                   {"name": "cap", "expression": "value < 100"}]}),
    );
    let run = ValidationRequest::new("NBP:SPOT").between(day(0), day(27));
    let done = platform
        .validation()
        .run(&me, &run)
        .unwrap()
        .done()
        .expect("checked now");
    assert_eq!((done.points, done.counts.failed), (28, 2));
    (platform, me)
}

fn save_config(platform: &Platform, me: &Principal, config: Value) {
    platform
        .objects()
        .save(
            me,
            Collection::ValidationConfig,
            config,
            &Default::default(),
        )
        .unwrap();
}

/// The records of the caller, all.
fn all_records(platform: &Platform, me: &Principal) -> Vec<ValidationRecord> {
    let all = ListRequest::default();
    platform.validation().records(me, &all).unwrap().items
}

fn list(pairs: &[(&str, &str)]) -> ListRequest {
    ListRequest::from_params(&Params::from_slice(pairs)).unwrap()
}

/// An answer as the interface writes it, every `ms` (the time a call or a check took) 0.
fn wire<T: serde::Serialize>(answer: &T) -> String {
    let text = serde_json::to_string(answer).unwrap();
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("\"ms\":") {
        out.push_str(&rest[..i + 5]);
        rest = &rest[i + 5..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
            .unwrap_or(rest.len());
        out.push('0');
        rest = &rest[end..];
    }
    out + rest
}

fn failing_ids(platform: &Platform, me: &Principal) -> Vec<String> {
    let page = platform
        .validation()
        .records(me, &list(&[("status", "failing")]))
        .unwrap();
    page.items.into_iter().map(|r| r.id).collect()
}

/// A record as the interface writes it: the day 3 record, failing its first check.
const NEGATIVE: &str = concat!(
    r#"{"_id":"NBP:SPOT:2024-02-04T00:00:00Z","target":"NBP:SPOT","name":"spot","group":"gas","#,
    r#""tags":["uk"],"kind":"timeseries","point":"2024-02-04T00:00:00Z","pointDate":"2024-02-04","#,
    r#""value":-3.0,"status":"failed","checkedStatus":"failed","#,
    r#""message":"1 of 2 checks did not pass: positive","checks":[{"id":"positive","#,
    r#""name":"positive","scope":"point","severity":"failed","status":"failed","#,
    r#""message":"value -3, expected > 0","failures":1,"log":["value -3, expected > 0"],"ms":0},"#,
    r#"{"id":"cap","name":"cap","scope":"point","severity":"failed","status":"valid","message":"","#,
    r#""failures":0,"log":[],"ms":0}],"runs":1,"firstRun":"2024-03-01T12:00:00.000Z","#,
    r#""lastRun":"2024-03-01T12:00:00.000Z","lastRunBy":"ann","lastOrigin":"manual","#,
    r#""openSince":"2024-03-01T12:00:00.000Z","timeline":[{"timestamp":"2024-03-01T12:00:00.000Z","#,
    r#""action":"run","user":"ann","origin":"manual","status":"failed","previous":null,"#,
    r#""message":"1 of 2 checks did not pass: positive"}]}"#
);

/// Records answer whole records, typed, written as the JSON records; one record is the one a
/// list has; a filtered and sorted list keeps the list's order.
#[test]
fn records_are_typed_and_written_as_the_interface_answers_them() {
    let (platform, me) = with_records();
    let validation = platform.validation();
    let page = validation.records(&me, &ListRequest::default()).unwrap();
    assert_eq!((page.total, page.items.len()), (28, 28));
    let negative = &page.items[3];
    assert_eq!(wire(negative), NEGATIVE);
    assert_eq!(
        (negative.status, negative.checked_status, negative.runs),
        (ValidationStatus::Failed, ValidationStatus::Failed, 1)
    );
    assert_eq!(negative.value, Some(json!(-3.0)));
    assert_eq!(
        negative.point_date,
        NaiveDate::from_ymd_opt(2024, 2, 4).unwrap()
    );
    assert_eq!(negative.tags, Some(vec!["uk".to_string()]));
    assert_eq!(
        (negative.first_run, negative.open_since),
        (now(), Some(now()))
    );
    assert_eq!(negative.timeline[0].previous, None);
    assert!(negative.other.is_empty() && negative.resolved.is_none());
    assert_eq!(validation.record(&me, &negative.id).unwrap(), *negative);
    let paged = validation
        .records(&me, &list(&[("_skip", "3"), ("_limit", "1")]))
        .unwrap();
    assert_eq!(
        (paged.total, &paged.items[..]),
        (28, std::slice::from_ref(negative))
    );
    let sorted = list(&[("status", "failing"), ("_sort", "-value")]);
    let page = validation.records(&me, &sorted).unwrap();
    let ids: Vec<&str> = page.items.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "NBP:SPOT:2024-02-06T00:00:00Z",
            "NBP:SPOT:2024-02-04T00:00:00Z"
        ]
    );
    assert_eq!(
        (page.total, wire(&page.items[1])),
        (2, NEGATIVE.to_string())
    );
}

/// A projection or `_distinct` answers values of records as JSON, through `record_values`;
/// `records` refuses them, `record_values` refuses a request with neither; the options of
/// documents are refused by both; a missing record is not found.
#[test]
fn record_values_answer_projections_and_reads_refuse_what_they_do_not_answer() {
    let (platform, me) = with_records();
    let validation = platform.validation();
    let projected = list(&[("_project", "status,value"), ("status", "failing")]);
    let page = validation.record_values(&me, &projected).unwrap();
    assert_eq!(
        (page.total, wire(&page.items)),
        (
            2,
            concat!(
                r#"[{"_id":"NBP:SPOT:2024-02-04T00:00:00Z","status":"failed","value":-3.0},"#,
                r#"{"_id":"NBP:SPOT:2024-02-06T00:00:00Z","status":"failed","value":500.0}]"#
            )
            .to_string()
        )
    );
    let page = validation
        .record_values(&me, &list(&[("_project", "status"), ("_limit", "1")]))
        .unwrap();
    assert_eq!(page.total, 28);
    assert_eq!(
        wire(&page.items),
        r#"[{"_id":"NBP:SPOT:2024-02-01T00:00:00Z","status":"valid"}]"#
    );
    let page = validation
        .record_values(&me, &list(&[("_distinct", "status")]))
        .unwrap();
    assert_eq!(
        (page.total, wire(&page.items)),
        (2, r#"["failed","valid"]"#.into())
    );
    for (k, v) in [("_project", "status"), ("_distinct", "status")] {
        let e = validation.records(&me, &list(&[(k, v)])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidParameter);
        assert_eq!(
            e.to_string(),
            format!("{k} does not answer whole records: ask record_values")
        );
    }
    let e = validation
        .record_values(&me, &ListRequest::default())
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidParameter);
    let as_of = list(&[("_asof", "2024-01-01"), ("_distinct", "status")]);
    let text = "_asof does not apply to validation records: filter them by their fields \
                (target, status, point...), _id, _sort and _skip/_limit";
    assert_eq!(
        validation
            .record_values(&me, &as_of)
            .unwrap_err()
            .to_string(),
        text
    );
    let as_of = list(&[("_asof", "2024-01-01")]);
    assert_eq!(
        validation.records(&me, &as_of).unwrap_err().to_string(),
        text
    );
    let e = validation.record(&me, "NBP:SPOT:1999-01-01").unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert_eq!(
        e.to_string(),
        "validation record \"NBP:SPOT:1999-01-01\" not found"
    );
}

/// Override, comment and removal answer an outcome per id, written as the interface answers
/// them, and leave the records' overrides, resolutions and timelines.
#[test]
fn record_actions_answer_their_outcomes_and_change_the_records() {
    let (platform, me) = with_records();
    let v = platform.validation();
    let ids = failing_ids(&platform, &me);
    let mut asked: Vec<String> = ids.clone();
    asked.push("NBP:SPOT:2024-02-01T00:00:00Z".into());
    asked.push("NOPE:X:2024-02-01".into());
    let body = json!({"ids": asked, "reason": " known outage "});
    let RecordsAction::Override { ids: read, reason } =
        RecordsAction::from_body("override", &body).unwrap()
    else {
        panic!("an override")
    };
    assert_eq!((&read, reason.as_str()), (&asked, " known outage "));
    let outcomes = v.override_records(&me, &read, &reason).unwrap();
    assert_eq!(
        wire(&outcomes),
        concat!(
            r#"[{"id":"NBP:SPOT:2024-02-04T00:00:00Z","ok":true,"message":"overridden","status":"overridden"},"#,
            r#"{"id":"NBP:SPOT:2024-02-06T00:00:00Z","ok":true,"message":"overridden","status":"overridden"},"#,
            r#"{"id":"NBP:SPOT:2024-02-01T00:00:00Z","ok":false,"message":"status valid is not failing: nothing to override"},"#,
            r#"{"id":"NOPE:X:2024-02-01","ok":false,"message":"no such record"}]"#
        )
    );
    let record = v.record(&me, &ids[0]).unwrap();
    let by = record.overridden.as_ref().unwrap();
    assert_eq!(
        (by.reason.as_str(), by.status),
        ("known outage", ValidationStatus::Failed)
    );
    let resolved = record.resolved.unwrap();
    assert_eq!(
        (resolved.by, resolved.minutes),
        (Resolution::Override, Some(0))
    );
    let said = v
        .comment_records(&me, &ids[..1], "checked with the desk")
        .unwrap();
    assert_eq!(
        wire(&said),
        r#"[{"id":"NBP:SPOT:2024-02-04T00:00:00Z","ok":true,"message":"comment added","status":"overridden"}]"#
    );
    let undone = v.remove_overrides(&me, &ids).unwrap();
    assert_eq!(undone[0].message, "override removed; status failed");
    assert_eq!(undone[0].status, Some(ValidationStatus::Failed));
    let record = v.record(&me, &ids[0]).unwrap();
    let actions: Vec<&str> = record.timeline.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["run", "override", "comment", "override-removed"]);
    assert_eq!(record.timeline[2].message, "checked with the desk");
    assert!(record.overridden.is_none());
}

/// A body is read as the interface reads it; bad input is refused with its texts, the role
/// before anything of the body, the count of ids before a missing reason; nothing changes.
#[test]
fn record_actions_refuse_bad_input_and_store_nothing() {
    let (platform, me) = with_records();
    let v = platform.validation();
    let ids = failing_ids(&platform, &me);
    let before = all_records(&platform, &me);
    for (body, text) in [
        (json!({"reason": "x"}), "ids is missing"),
        (json!({"ids": null}), "ids is missing"),
        (json!([1]), "ids is missing"),
        (json!({"ids": "x"}), "ids must be an array, not a string"),
        (json!({"ids": [1]}), "ids must be an array of strings"),
    ] {
        let e = RecordsAction::from_body("override", &body).unwrap_err();
        assert_eq!(e.to_string(), text, "{body}");
    }
    let reader = reader(&me);
    let e = v.may_act_on_records(&reader, "comment").unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotAuthorized);
    assert_eq!(
        e.to_string(),
        "comment on validation records needs the writer role; user \"ann\" has reader"
    );
    let e = v.comment_records(&reader, &ids, "seen").unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotAuthorized);
    assert!(v.may_act_on_records(&me, "override").is_ok());
    for (e, text) in [
        (
            v.override_records(&me, &ids, "  ").unwrap_err(),
            "override needs a reason",
        ),
        (
            v.comment_records(&me, &ids, "").unwrap_err(),
            "comment needs a message",
        ),
    ] {
        assert_eq!(
            (e.code(), e.to_string()),
            (ErrorCode::MissingParameter, text.into())
        );
    }
    let body = json!({"ids": ids, "reason": 3});
    let RecordsAction::Override { reason, .. } =
        RecordsAction::from_body("override", &body).unwrap()
    else {
        panic!("an override")
    };
    assert_eq!(reason, "");
    let many: Vec<String> = (0..501).map(|i| format!("NBP:SPOT:{i}")).collect();
    let e = v.override_records(&me, &many, "").unwrap_err();
    assert_eq!(
        (e.code(), e.to_string()),
        (
            ErrorCode::InvalidParameter,
            "at most 500 ids; 501 were given".into()
        )
    );
    assert_eq!(all_records(&platform, &me), before);
}

/// A batch's body reads as the batch; each item answers how its run went (checked, disabled,
/// without a configuration), and the records are stored.
#[test]
fn a_batch_runs_each_item_and_answers_each() {
    let (platform, me) = with_records();
    let point = [Point::new(day(3), 1.0), Point::new(day(4), 1.0)];
    platform
        .data()
        .write_series(&me, "NBP:OFF", &point, &Default::default())
        .unwrap();
    save_config(
        &platform,
        &me,
        json!({"_id": "NBP:OFF", "kind": "timeseries", "enabled": false,
        "checks": [{"name": "positive", "expression": "value > 0"}]}),
    );
    let batch = ValidationBatch::new(["NBP:SPOT", "NBP:OFF", "NOPE:X"]).at([day(3), day(4)]);
    let body = json!({"targets": ["NBP:SPOT", "NBP:OFF", "NOPE:X"],
        "points": ["2024-02-04T00:00:00.000Z", "2024-02-05T00:00:00.000Z"]});
    assert_eq!(serde_json::to_value(&batch).unwrap(), body);
    assert_eq!(ValidationBatch::from_body(&body).unwrap(), batch);
    let typed = platform.validation().run_batch(&me, &batch).unwrap();
    assert_eq!(
        (typed.targets, typed.background, typed.job.as_deref()),
        (3, false, None)
    );
    let spot = &typed.results[0];
    assert_eq!(
        (spot.status, spot.points, spot.counts.failed),
        (ValidationStatus::Failed, 2, 1)
    );
    assert_eq!(
        spot.ids,
        [
            "NBP:SPOT:2024-02-04T00:00:00Z",
            "NBP:SPOT:2024-02-05T00:00:00Z"
        ]
    );
    assert_eq!(spot.kind, Some(ValidationKind::TimeSeries));
    assert_eq!(spot.name.as_deref(), Some("spot"));
    let off = &typed.results[1];
    assert_eq!(
        (off.status, off.error.as_deref()),
        (ValidationStatus::Skipped, Some("disabled"))
    );
    assert_eq!(typed.results[2].status, ValidationStatus::Error);
    assert_eq!(typed.results[2].error.as_deref(), Some("no validation"));
    assert_eq!(
        (
            typed.counts.failed,
            typed.counts.skipped,
            typed.counts.error
        ),
        (1, 1, 1)
    );
    assert_eq!(all_records(&platform, &me)[3].runs, 2);
}

/// A batch over a range goes to a background job; a bad delay is refused (in a body, and in a
/// typed batch), nothing queued or stored.
#[test]
fn a_batch_goes_to_the_background_and_a_bad_delay_is_refused() {
    let (platform, me) = with_records();
    let v = platform.validation();
    let before = all_records(&platform, &me);
    let mut batch = ValidationBatch::new(["NBP:SPOT"]).between(day(0), day(1));
    batch.delay_ms = Some(60_001);
    let body = json!({"targets": ["NBP:SPOT"], "from": "2024-02-01T00:00:00.000Z",
        "to": "2024-02-02T00:00:00.000Z", "_delay": 60_001});
    assert_eq!(serde_json::to_value(&batch).unwrap(), body);
    let e = v.run_batch(&me, &batch).unwrap_err();
    let j = ValidationBatch::from_body(&body).unwrap_err();
    assert_eq!(
        (e.code(), j.code()),
        (ErrorCode::InvalidParameter, ErrorCode::InvalidParameter)
    );
    assert_eq!(e.to_string(), j.to_string());
    assert!(platform.jobs().jobs(&me).unwrap().is_empty());
    assert_eq!(all_records(&platform, &me), before);
    batch.delay_ms = None;
    let queued = v.run_batch(&me, &batch).unwrap();
    let job = queued.job.clone().unwrap();
    assert!(queued.background && queued.results.is_empty());
    assert!(queued.message.as_deref().unwrap().contains(&job));
    let ranged =
        ValidationBatch::from_body(&json!({"targets": ["NBP:SPOT"], "from": "2024-02-01"}));
    let other = v.run_batch(&me, &ranged.unwrap()).unwrap();
    assert!(other.background && other.job.is_some());
    let jobs: Vec<String> = platform
        .jobs()
        .jobs(&me)
        .unwrap()
        .into_iter()
        .map(|j| j.id)
        .collect();
    assert!(jobs.contains(&job) && jobs.len() == 2, "{jobs:?}");
}

/// A curve's record has its tenors typed, after its checks, as the interface writes them.
#[test]
fn a_curve_record_has_its_tenors() {
    let (platform, me) = platform();
    let ondate = NaiveDate::from_ymd_opt(2024, 2, 28).unwrap();
    let contracts = [Contract::new("M01", 30.0), Contract::new("M02", -1.0)];
    platform
        .data()
        .write_curve(&me, "TTF:FWD", ondate, &contracts, &Default::default())
        .unwrap();
    save_config(
        &platform,
        &me,
        json!({"_id": "TTF:FWD", "kind": "curve",
               "checks": [{"name": "positive", "expression": "value > 0"}]}),
    );
    let v = platform.validation();
    let batch = v
        .run_batch(&me, &ValidationBatch::new(["TTF:FWD"]).at([ondate]))
        .unwrap();
    assert_eq!(
        batch.results[0].failed_tenors,
        Some(vec!["M02".to_string()])
    );
    let record = v.record(&me, "TTF:FWD:2024-02-28").unwrap();
    assert_eq!(
        (record.kind, record.status),
        (ValidationKind::Curve, ValidationStatus::Failed)
    );
    assert_eq!((record.value.as_ref(), record.contracts), (None, Some(2)));
    assert_eq!(record.warning_tenors, Some(vec![]));
    let counts = record.tenor_counts.clone().unwrap();
    assert_eq!((counts.valid, counts.failed), (1, 1));
    assert_eq!(record.checks[0].tenors_failed, Some(1));
    assert!(record.other.is_empty(), "{:?}", record.other);
    let text = wire(&record);
    assert!(text.contains(concat!(
        r#""checks":[{"id":"positive","name":"positive","scope":"tenor","severity":"failed","#,
        r#""status":"failed","message":"M02: value -1, expected > 0","failures":1,"#,
        r#""log":["M02: value -1, expected > 0"],"ms":0,"tenorsFailed":1}],"#,
        r#""tenors":[{"tenor":"M01","value":30.0,"status":"valid","message":"","#,
        r#""checks":[{"id":"positive","status":"valid","message":""}]},"#,
        r#"{"tenor":"M02","value":-1.0,"status":"failed","message":"value -1, expected > 0","#,
        r#""checks":[{"id":"positive","status":"failed","message":"value -1, expected > 0"}]}],"#,
        r#""failedTenors":["M02"],"warningTenors":[],"tenorCounts":{"valid":1,"failed":1},"#,
        r#""contracts":2,"runs":1,"#
    )), "{text}");
}

mod insights;
