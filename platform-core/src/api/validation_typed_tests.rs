//! Tests of the typed validation calls: each typed answer is the JSON call's answer read
//! with serde, each typed request is the JSON body the server would send, and bad input is
//! refused as the JSON call refuses it, nothing stored.

use super::validation_typed::{from_json, ValidationRecord};
use super::*;
use crate::clock::FixedClock;
use crate::error::{ErrorCode, Result};
use crate::store::sqlite::SqliteStore;
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use serde::de::DeserializeOwned;
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

/// The JSON records of the caller, all.
fn json_records(platform: &Platform, me: &Principal) -> Vec<Value> {
    let all = ListRequest::default();
    platform.validation().records(me, &all).unwrap().items
}

fn read<T: DeserializeOwned>(answer: Value) -> T {
    from_json("answer", answer).unwrap()
}

/// Sets every `ms` field of an answer to 0 (the time a call took differs between calls).
fn without_ms(mut v: Value) -> Value {
    match &mut v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                *x = if k == "ms" {
                    json!(0.0)
                } else {
                    without_ms(x.take())
                };
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| *x = without_ms(x.take())),
        _ => {}
    }
    v
}

fn failing_ids(platform: &Platform, me: &Principal) -> Vec<String> {
    let failing = ListRequest::from_params(&Params::from_slice(&[("status", "failing")])).unwrap();
    let page = platform
        .validation()
        .validation_records(me, &failing)
        .unwrap();
    page.items.into_iter().map(|r| r.id).collect()
}

/// Typed records are the JSON records read with serde, and write back as them.
#[test]
fn typed_records_are_the_json_records() {
    let (platform, me) = with_records();
    let validation = platform.validation();
    let json = json_records(&platform, &me);
    let typed = validation
        .validation_records(&me, &ListRequest::default())
        .unwrap();
    assert_eq!((typed.total, typed.items.len()), (28, 28));
    let read_back: Vec<ValidationRecord> = json.iter().cloned().map(read).collect();
    assert_eq!(typed.items, read_back);
    // Nothing of a record is lost: the typed record writes the JSON record.
    for (t, j) in typed.items.iter().zip(&json) {
        assert_eq!(serde_json::to_value(t).unwrap(), *j);
    }
    let negative = &typed.items[3];
    assert_eq!(negative.id, "NBP:SPOT:2024-02-04T00:00:00Z");
    assert_eq!(negative.id, json[3]["_id"]);
    assert_eq!(
        (negative.status, negative.checked_status),
        (ValidationStatus::Failed, ValidationStatus::Failed)
    );
    assert_eq!(negative.value, Some(json!(-3.0)));
    assert_eq!(
        negative.point_date,
        NaiveDate::from_ymd_opt(2024, 2, 4).unwrap()
    );
    assert_eq!(
        (negative.name.as_deref(), negative.group.as_deref()),
        (Some("spot"), Some("gas"))
    );
    assert_eq!(negative.tags, Some(vec!["uk".to_string()]));
    assert_eq!(
        (negative.kind, negative.runs),
        (ValidationKind::TimeSeries, 1)
    );
    let names: Vec<(&str, ValidationStatus)> = negative
        .checks
        .iter()
        .map(|c| (c.name.as_str(), c.status))
        .collect();
    assert_eq!(
        names,
        [
            ("positive", ValidationStatus::Failed),
            ("cap", ValidationStatus::Valid)
        ]
    );
    assert_eq!(
        (negative.first_run, negative.open_since),
        (now(), Some(now()))
    );
    assert_eq!(negative.last_run_by.as_deref(), Some("ann"));
    assert_eq!(negative.timeline.len(), 1);
    assert_eq!(negative.timeline[0].action, "run");
    assert_eq!(negative.timeline[0].previous, None);
    // One record, and a filtered list, as the JSON calls answer them.
    let one = validation.validation_record(&me, &negative.id).unwrap();
    assert_eq!(one, read(validation.record(&me, &negative.id).unwrap()));
    assert_eq!(one, *negative);
    let sorted = ListRequest::from_params(&Params::from_slice(&[
        ("status", "failing"),
        ("_sort", "-value"),
    ]))
    .unwrap();
    let typed = validation.validation_records(&me, &sorted).unwrap();
    let json = validation.records(&me, &sorted).unwrap();
    let ids: Vec<&str> = typed.items.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "NBP:SPOT:2024-02-06T00:00:00Z",
            "NBP:SPOT:2024-02-04T00:00:00Z"
        ]
    );
    assert_eq!(json.total, typed.total);
    let read_back: Vec<ValidationRecord> = json.items.into_iter().map(read).collect();
    assert_eq!(typed.items, read_back);
}

/// A record list the JSON call refuses is refused alike; a projection or `_distinct` (whole
/// records could not be answered) is refused; a missing record is not found.
#[test]
fn typed_record_reads_are_refused_as_the_json_reads() {
    let (platform, me) = with_records();
    let validation = platform.validation();
    let as_of = ListRequest::from_params(&Params::from_slice(&[("_asof", "2024-01-01")])).unwrap();
    let typed = validation.validation_records(&me, &as_of).unwrap_err();
    let json = validation.records(&me, &as_of).unwrap_err();
    assert_eq!(
        (typed.code(), json.code()),
        (ErrorCode::InvalidParameter, ErrorCode::InvalidParameter)
    );
    assert_eq!(typed.to_string(), json.to_string());
    for (k, v) in [("_project", "status"), ("_distinct", "status")] {
        let req = ListRequest::from_params(&Params::from_slice(&[(k, v)])).unwrap();
        assert!(validation.records(&me, &req).is_ok());
        let e = validation.validation_records(&me, &req).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidParameter);
        assert!(e.to_string().contains(k), "{e}");
    }
    let typed = validation
        .validation_record(&me, "NBP:SPOT:1999-01-01")
        .unwrap_err();
    let json = validation.record(&me, "NBP:SPOT:1999-01-01").unwrap_err();
    assert_eq!(
        (typed.code(), json.code()),
        (ErrorCode::NotFound, ErrorCode::NotFound)
    );
    // An answer that does not read as a record is the platform's fault.
    let e = from_json::<ValidationRecord>("record", json!({"_id": 1})).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Internal);
}

/// Override, comment and removal: the typed call on one platform answers what the JSON call
/// answers on another alike, and leaves the same records.
#[test]
fn typed_record_actions_answer_and_store_as_the_json_actions() {
    let (typed_side, me) = with_records();
    let (json_side, _) = with_records();
    let ids = failing_ids(&typed_side, &me);
    let mut asked: Vec<String> = ids.clone();
    asked.push("NBP:SPOT:2024-02-01T00:00:00Z".into());
    asked.push("NOPE:X:2024-02-01".into());
    let (t, j) = (typed_side.validation(), json_side.validation());
    let body = json!({"ids": asked, "reason": "known outage"});
    let typed = t.override_records(&me, &asked, "known outage").unwrap();
    let json = j.records_action(&me, "override", &body).unwrap();
    assert_eq!(typed, read::<Vec<RecordOutcome>>(json));
    let oks: Vec<(bool, Option<ValidationStatus>)> =
        typed.iter().map(|o| (o.ok, o.status)).collect();
    let over = Some(ValidationStatus::Overridden);
    assert_eq!(
        oks,
        [(true, over), (true, over), (false, None), (false, None)]
    );
    assert_eq!(typed[3].message, "no such record");
    let record = t.validation_record(&me, &ids[0]).unwrap();
    let by = record.overridden.as_ref().unwrap();
    assert_eq!(
        (by.reason.as_str(), by.status),
        ("known outage", ValidationStatus::Failed)
    );
    assert_eq!(record.resolution, Some(Resolution::Override));
    // A comment, then the overrides removed.
    let typed = t
        .comment_records(&me, &ids[..1], "checked with the desk")
        .unwrap();
    let body = json!({"ids": &ids[..1], "message": "checked with the desk"});
    assert_eq!(
        typed,
        read::<Vec<RecordOutcome>>(j.records_action(&me, "comment", &body).unwrap())
    );
    assert_eq!(typed[0].message, "comment added");
    let typed = t.remove_overrides(&me, &ids).unwrap();
    let json = j
        .records_action(&me, "removeOverride", &json!({"ids": ids}))
        .unwrap();
    assert_eq!(typed, read::<Vec<RecordOutcome>>(json));
    assert_eq!(typed[0].status, Some(ValidationStatus::Failed));
    // The same records on both sides.
    let typed = t
        .validation_records(&me, &ListRequest::default())
        .unwrap()
        .items;
    let json: Vec<ValidationRecord> = json_records(&json_side, &me)
        .into_iter()
        .map(read)
        .collect();
    // Each check keeps the time it took (`ms`), which differs between the two platforms.
    let timeless = |r: &[ValidationRecord]| without_ms(serde_json::to_value(r).unwrap());
    assert_eq!(timeless(&typed), timeless(&json));
    let actions: Vec<&str> = typed[3]
        .timeline
        .iter()
        .map(|e| e.action.as_str())
        .collect();
    assert_eq!(actions, ["run", "override", "comment", "override-removed"]);
    assert_eq!(typed[3].timeline[2].message, "checked with the desk");
}

/// A typed action's body is the JSON body; bad input is refused with the JSON call's code,
/// and no record changes.
#[test]
fn typed_record_actions_refuse_bad_input_as_the_json_actions_and_store_nothing() {
    let (platform, me) = with_records();
    let v = platform.validation();
    let ids = failing_ids(&platform, &me);
    assert_eq!(
        super::validation_typed::action_body(&ids, Some(("reason", "r"))),
        json!({"ids": ids, "reason": "r"})
    );
    let before = json_records(&platform, &me);
    let e = v.override_records(&me, &ids, "  ").unwrap_err();
    let j = v
        .records_action(&me, "override", &json!({"ids": ids, "reason": "  "}))
        .unwrap_err();
    assert_eq!(
        (e.code(), j.code()),
        (ErrorCode::MissingParameter, ErrorCode::MissingParameter)
    );
    let e = v.comment_records(&me, &ids, "").unwrap_err();
    let j = v
        .records_action(&me, "comment", &json!({"ids": ids, "message": ""}))
        .unwrap_err();
    assert_eq!(
        (e.code(), j.code()),
        (ErrorCode::MissingParameter, ErrorCode::MissingParameter)
    );
    let many: Vec<String> = (0..501).map(|i| format!("NBP:SPOT:{i}")).collect();
    let e = v.remove_overrides(&me, &many).unwrap_err();
    let j = v
        .records_action(&me, "removeOverride", &json!({"ids": many}))
        .unwrap_err();
    assert_eq!(
        (e.code(), j.code()),
        (ErrorCode::InvalidParameter, ErrorCode::InvalidParameter)
    );
    assert_eq!(e.to_string(), j.to_string());
    assert_eq!(json_records(&platform, &me), before);
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
    let typed_records: Vec<Value> = json_records(&platform, &me);
    assert_eq!(typed_records[3]["runs"], 2);
}

/// A batch over a range goes to a background job; a bad delay is refused (in a body, and in a
/// typed batch), nothing queued or stored.
#[test]
fn a_batch_goes_to_the_background_and_a_bad_delay_is_refused() {
    let (platform, me) = with_records();
    let v = platform.validation();
    let before = json_records(&platform, &me);
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
    assert_eq!(json_records(&platform, &me), before);
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

/// The typed dashboard is the JSON one read with serde, its query the JSON query parameters.
#[test]
fn typed_statistics_are_the_json_statistics() {
    let (platform, me) = with_records();
    let v = platform.validation();
    let ids = failing_ids(&platform, &me);
    v.override_records(&me, &ids[..1], "known").unwrap();
    let all = v.statistics(&me, &StatsQuery::default()).unwrap();
    assert_eq!(
        all,
        read::<ValidationStats>(v.stats(&me, &Params::default()).unwrap())
    );
    assert_eq!(
        (all.totals.records, all.totals.open, all.totals.resolved),
        (28, 1, 1)
    );
    assert_eq!(
        (
            all.by_status.valid,
            all.by_status.failed,
            all.by_status.overridden
        ),
        (26, 1, 1)
    );
    assert_eq!(all.by_kind[&ValidationKind::TimeSeries].valid, 26);
    assert_eq!(all.resolved.by_resolution[&Resolution::Override], 1);
    assert_eq!(all.resolved.mean_minutes, Some(0.0));
    assert_eq!(all.by_target[0].status, ValidationStatus::Failed);
    let checks: Vec<(&str, u64, u64)> = all
        .by_check
        .iter()
        .map(|c| (c.id.as_str(), c.runs, c.failures))
        .collect();
    assert_eq!(checks, [("cap", 28, 1), ("positive", 28, 1)]);
    assert_eq!(all.open[0].id, "NBP:SPOT:2024-02-06T00:00:00Z");
    let overrides: Vec<&str> = all
        .activity
        .iter()
        .filter(|a| a.event.action == "override")
        .map(|a| a.id.as_str())
        .collect();
    assert_eq!(overrides, [ids[0].as_str()]);
    assert_eq!((all.configs.count, all.configs.enabled), (1, 1));
    let d = |day| NaiveDate::from_ymd_opt(2024, 2, day).unwrap();
    let some = StatsQuery {
        from: Some(d(2)),
        to: Some(d(4)),
        target: Some("NBP:SPOT".into()),
        kind: Some(ValidationKind::TimeSeries),
        group: Some("gas".into()),
    };
    let params = Params::from_slice(&[
        ("from", "2024-02-02"),
        ("to", "2024-02-04"),
        ("target", "NBP:SPOT"),
        ("kind", "timeseries"),
        ("group", "gas"),
    ]);
    assert_eq!(some.params(), params);
    let typed = v.statistics(&me, &some).unwrap();
    assert_eq!(
        typed,
        read::<ValidationStats>(v.stats(&me, &params).unwrap())
    );
    let days: Vec<NaiveDate> = typed.by_day.iter().map(|c| c.day).collect();
    assert_eq!(days, [d(2), d(3), d(4)]);
    let curves = StatsQuery {
        kind: Some(ValidationKind::Curve),
        ..StatsQuery::default()
    };
    assert_eq!(v.statistics(&me, &curves).unwrap().totals.records, 0);
}

/// Typed suggestions are the JSON ones read with serde; bad requests are refused alike.
#[test]
fn typed_suggestions_are_the_json_suggestions() {
    let (platform, me) = with_records();
    let v = platform.validation();
    // 40 days of positive prices, the last one negative (in the part not fitted).
    let first = Utc.with_ymd_and_hms(2024, 1, 15, 0, 0, 0).unwrap();
    let points: Vec<Point> = (0..40)
        .map(|d| {
            let value = if d == 39 { -5.0 } else { 50.0 + (d % 7) as f64 };
            Point::new(first + Duration::days(d), value)
        })
        .collect();
    platform
        .data()
        .write_series(&me, "NBP:LONG", &points, &Default::default())
        .unwrap();
    let req = SuggestionRequest {
        days: Some(60),
        ..SuggestionRequest::new(["NBP:LONG", "NOPE:X"])
    };
    let body = json!({"targets": ["NBP:LONG", "NOPE:X"], "kind": "timeseries", "days": 60});
    assert_eq!(serde_json::to_value(&req).unwrap(), body);
    let typed = v.suggest_checks(&me, &req).unwrap();
    let mut zeroed = typed.clone();
    zeroed.results.iter_mut().for_each(|r| r.ms = 0.0);
    assert_eq!(
        zeroed,
        read::<Suggestions>(without_ms(v.suggest(&me, &body).unwrap()))
    );
    assert_eq!((typed.days, typed.to), (60, now().date_naive()));
    let long = &typed.results[0];
    let stats = long.stats.as_ref().unwrap();
    assert_eq!((long.points, stats.values, stats.negatives), (40, 40, 1));
    assert_eq!((stats.min, stats.max), (Some(-5.0), Some(56.0)));
    assert_eq!((stats.longest_gap, stats.longest_run), (None, Some(1)));
    let positive = long
        .checks
        .iter()
        .find(|c| c.expression == "value > 0")
        .unwrap();
    assert_eq!((positive.runs, positive.failures), (40, 1));
    assert_eq!((positive.holdout.runs, positive.holdout.failures), (8, 1));
    let example = positive.example.as_ref().unwrap();
    assert_eq!(
        (example.point.as_str(), example.value),
        ("2024-02-23T00:00:00Z", Some(-5.0))
    );
    assert!(!positive.suggested);
    let config = long.config.as_ref().unwrap();
    assert_eq!(config["_id"], "NBP:LONG");
    let kept = long.checks.iter().filter(|c| c.in_config).count();
    assert_eq!(config["checks"].as_array().unwrap().len(), kept);
    assert!(typed.results[1].error.is_some() && typed.results[1].checks.is_empty());
    for (bad, code) in [
        (
            SuggestionRequest::new(Vec::<String>::new()),
            ErrorCode::MissingParameter,
        ),
        (
            SuggestionRequest::new((0..26).map(|i| format!("A:{i}"))),
            ErrorCode::InvalidParameter,
        ),
        (
            SuggestionRequest {
                days: Some(0),
                ..SuggestionRequest::new(["NBP:SPOT"])
            },
            ErrorCode::InvalidParameter,
        ),
    ] {
        let e = v.suggest_checks(&me, &bad).unwrap_err();
        let j = v
            .suggest(&me, &serde_json::to_value(&bad).unwrap())
            .unwrap_err();
        assert_eq!((e.code(), j.code()), (code, code));
        assert_eq!(e.to_string(), j.to_string());
    }
}

/// Typed tunings are the JSON ones read with serde; bad requests are refused alike.
#[test]
fn typed_tunings_are_the_json_tunings() {
    let (platform, me) = with_records();
    let v = platform.validation();
    let ids = failing_ids(&platform, &me);
    // The spike of day 5 is a false alarm; the negative of day 3 stands.
    v.override_records(&me, &ids[1..], "a real spike").unwrap();
    let item = TuningItem {
        target: "NBP:SPOT".into(),
        points: vec![day(5).into()],
        tenors: None,
    };
    let req = TuningRequest {
        days: Some(60),
        ..TuningRequest::new([item])
    };
    let body = json!({"items": [{"target": "NBP:SPOT", "points": ["2024-02-06T00:00:00.000Z"]}],
        "days": 60});
    assert_eq!(serde_json::to_value(&req).unwrap(), body);
    let typed = v.tune_checks(&me, &req).unwrap();
    let mut zeroed = typed.clone();
    zeroed.results.iter_mut().for_each(|r| r.ms = 0.0);
    assert_eq!(
        zeroed,
        read::<Tunings>(without_ms(v.tune(&me, &body).unwrap()))
    );
    let spot = &typed.results[0];
    assert_eq!(
        (spot.kind, spot.points),
        (Some(ValidationKind::TimeSeries), 28)
    );
    let cap = &spot.checks[0];
    assert_eq!(
        (cap.id.as_str(), cap.failing, cap.false_alarms),
        ("cap", 1, 1)
    );
    assert_eq!(cap.failing_points[0].value, Some(500.0));
    let suggested = cap.suggested.as_deref().unwrap();
    assert!(
        suggested.starts_with("value < ") && suggested != "value < 100",
        "{suggested}"
    );
    assert_eq!((cap.window.before, cap.window.after), (1, 0));
    let no_points = TuningRequest::new([TuningItem {
        target: "NBP:SPOT".into(),
        ..TuningItem::default()
    }]);
    for (bad, code) in [
        (TuningRequest::default(), ErrorCode::MissingParameter),
        (no_points, ErrorCode::MissingParameter),
        (
            TuningRequest {
                max_curves: Some(61),
                ..req.clone()
            },
            ErrorCode::InvalidParameter,
        ),
    ] {
        let e = v.tune_checks(&me, &bad).unwrap_err();
        let j = v
            .tune(&me, &serde_json::to_value(&bad).unwrap())
            .unwrap_err();
        assert_eq!((e.code(), j.code()), (code, code));
        assert_eq!(e.to_string(), j.to_string());
    }
}

/// Recreating automations answers as the JSON call on a platform alike, and recreates the
/// automation that was deleted.
#[test]
fn typed_automation_sync_is_the_json_sync() -> Result<()> {
    let mut answers = Vec::new();
    for typed in [true, false] {
        let (platform, me) = platform();
        save_config(
            &platform,
            &me,
            json!({"_id": "NBP:SPOT", "kind": "timeseries",
            "runOnUpdate": true, "checks": [{"name": "positive", "expression": "value > 0"}]}),
        );
        save_config(
            &platform,
            &me,
            json!({"_id": "NBP:DAY", "kind": "timeseries",
            "checks": [{"name": "positive", "expression": "value > 0"}]}),
        );
        let paging = Paging {
            skip: 0,
            limit: None,
        };
        let made = platform.automations().automations(&me, &paging)?.items;
        assert_eq!(made.len(), 1);
        platform.automations().delete(&me, made[0].id())?;
        let sync = if typed {
            platform.validation().recreate_automations(&me)?
        } else {
            read(platform.validation().sync_automations(&me)?)
        };
        assert_eq!(platform.automations().automations(&me, &paging)?.total, 1);
        answers.push(sync);
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!((answers[0].checked, answers[0].created), (2, 1));
    assert_eq!(answers[0].automations.len(), 1);
    Ok(())
}

/// A curve's record has its tenors typed, read from the JSON record; a batch names the
/// tenors that failed.
#[test]
fn a_typed_curve_record_has_its_tenors() {
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
    let item = &batch.results[0];
    assert_eq!(item.kind, Some(ValidationKind::Curve));
    assert_eq!(item.failed_tenors, Some(vec!["M02".to_string()]));
    // A typed test of the curve answers its contracts, as the JSON test does.
    let tried = v
        .test(&me, &ValidationRequest::new("TTF:FWD").at([ondate]))
        .unwrap();
    assert_eq!(tried.kind, ValidationKind::Curve);
    let point = &tried.results[0];
    assert_eq!(point.id, "TTF:FWD:2024-02-28");
    assert_eq!(point.point_date, ondate);
    assert_eq!(point.failed_tenors, Some(vec!["M02".to_string()]));
    let counts = point.tenor_counts.clone().unwrap();
    assert_eq!((counts.valid, counts.failed), (1, 1));
    let tenors: Vec<(&str, ValidationStatus)> = point
        .tenors
        .iter()
        .flatten()
        .map(|t| (t.tenor.as_str(), t.status))
        .collect();
    assert_eq!(
        tenors,
        [
            ("M01", ValidationStatus::Valid),
            ("M02", ValidationStatus::Failed)
        ]
    );
    let json = v.record(&me, "TTF:FWD:2024-02-28").unwrap();
    let record = v.validation_record(&me, "TTF:FWD:2024-02-28").unwrap();
    assert_eq!(record, read::<ValidationRecord>(json.clone()));
    assert_eq!(
        (record.kind, record.status),
        (ValidationKind::Curve, ValidationStatus::Failed)
    );
    assert_eq!((record.value.as_ref(), record.contracts), (None, Some(2)));
    assert_eq!(record.failed_tenors, Some(vec!["M02".to_string()]));
    assert_eq!(record.warning_tenors, Some(vec![]));
    let counts = record.tenor_counts.unwrap();
    assert_eq!((counts.valid, counts.failed), (1, 1));
    let tenors = record.tenors.as_ref().unwrap();
    let statuses: Vec<(&str, ValidationStatus)> = tenors
        .iter()
        .map(|t| (t.tenor.as_str(), t.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("M01", ValidationStatus::Valid),
            ("M02", ValidationStatus::Failed)
        ]
    );
    assert_eq!(tenors[1].checks[0].id, "positive");
    assert_eq!(tenors[1].value, json!(-1.0));
    assert_eq!(record.checks[0].tenors_failed, Some(1));
    assert_eq!(record.checks[0].scope, "tenor");
    assert!(record.other.is_empty(), "{:?}", record.other);
}
