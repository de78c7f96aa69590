//! The typed record writes the bytes of the JSON record: every field in its place, present or
//! left out as the JSON record has it.

use super::record::{Event, Override, Resolved};
use super::*;
use crate::data::calendar::Calendar;
use crate::error::ErrorCode;
use serde_json::{json, Map, Value};

/// 2024-07-01T10:00:00Z plus `minutes`, in milliseconds.
fn at(minutes: i64) -> i64 {
    1_719_828_000_000 + minutes * 60_000
}

fn check(status: u8, message: &str, tenors_failed: Option<u32>) -> CheckResult {
    CheckResult {
        status,
        message: message.into(),
        tenors_failed,
    }
}

fn run(minute: i64, name: Value, group: Value, tags: Value) -> RunInfo {
    RunInfo {
        at: at(minute),
        user: "ann".into(),
        origin: "manual".into(),
        name,
        group,
        tags,
        ms: vec![0.123, 1.005],
    }
}

fn meta(id: &str, scope: &str, severity: &str) -> CheckMeta {
    CheckMeta {
        id: id.into(),
        name: id.to_uppercase(),
        scope: scope.into(),
        severity: severity.into(),
    }
}

fn record(key: i64, value: Option<CheckedValue>, status: u8) -> Record {
    Record {
        key,
        explicit: None,
        value,
        status,
        checked: status,
        set: 0,
        checks: vec![check(status, "", None), check(VALID, "", None)],
        message: Summary::AllPassed(2),
        runs: 1,
        first_run: at(0),
        last_run: 0,
        open_since: None,
        resolved: None,
        overridden: None,
        timeline: vec![Event::Run {
            run: 0,
            status,
            previous: 255,
            message: Summary::AllPassed(2),
        }],
        hash: None,
        extra: None,
    }
}

/// A chunk of an hourly series with two runs and a check list.
fn series_chunk() -> Chunk {
    let format = PointFormat {
        calendar: Calendar::Intraday(3600),
        tz: chrono_tz::Europe::London,
    };
    let mut chunk = Chunk::new("NBP:SPOT", 0, "timeseries", Some(format));
    chunk.runs = vec![
        run(0, json!("spot"), json!("gas"), json!(["uk", "gas"])),
        run(5, Value::Null, Value::Null, Value::Null),
    ];
    chunk.sets = vec![vec![
        meta("positive", "point", "failed"),
        meta("cap", "point", "severe"),
    ]];
    chunk
}

/// The typed record of `r` in `chunk`, written, and the JSON record.
fn both(chunk: &Chunk, r: &Record) -> (String, String) {
    let typed = chunk.record(r).unwrap();
    (
        serde_json::to_string(&typed).unwrap(),
        serde_json::to_string(&chunk.materialize(r)).unwrap(),
    )
}

#[test]
fn a_series_record_writes_the_json_record_through_its_life() {
    let mut chunk = series_chunk();
    let key = at(0);
    // New and failing, open; then overridden; then passing again on new data.
    let mut failing = record(key, Some(CheckedValue::Num(-3.5)), FAILED);
    failing.checks[0] = check(FAILED, "value -3.5, expected > 0", None);
    failing.message = Summary::Text("1 of 2 checks did not pass: positive".into());
    failing.open_since = Some(at(0));
    let mut overridden = failing.clone();
    overridden.status = OVERRIDDEN;
    overridden.overridden = Some(Override {
        reason: "outage".into(),
        user: "bob".into(),
        at: at(3),
        status: FAILED,
    });
    overridden.open_since = None;
    overridden.resolved = Some(Resolved {
        at: at(3),
        by_override: true,
        minutes: Some(3),
    });
    overridden.timeline.push(Event::Other {
        at: at(3),
        action: "override".into(),
        user: "bob".into(),
        origin: "manual".into(),
        status: OVERRIDDEN,
        previous: FAILED,
        message: "outage".into(),
    });
    let mut rerun = overridden.clone();
    rerun.last_run = 1;
    rerun.runs = 2;
    rerun.value = Some(CheckedValue::Text("n/a".into()));
    rerun.status = VALID;
    rerun.checked = VALID;
    rerun.overridden = None;
    rerun.timeline.push(Event::Run {
        run: 1,
        status: VALID,
        previous: OVERRIDDEN,
        message: Summary::PassedSkipping {
            passed: 1,
            skipped: 1,
        },
    });
    let mut missing = record(key + 3_600_000, Some(CheckedValue::Null), SKIPPED);
    missing.explicit = Some(Box::new(("2024-07-01 12:00".into(), "2024-07-01".into())));
    // Resolved without knowing since when it failed: its minutes are null, not left out.
    missing.resolved = Some(Resolved {
        at: at(9),
        by_override: false,
        minutes: None,
    });
    missing.extra = Some(Box::new(Map::from_iter([(
        SENT_KEY.to_string(),
        json!("Some(Null)"),
    )])));
    for r in [failing, overridden, rerun, missing] {
        chunk.records = vec![r.clone()];
        let (typed, json) = both(&chunk, &r);
        assert_eq!(typed, json);
    }
    let (typed, _) = both(&chunk, &chunk.records[0]);
    assert!(
        typed.contains(r#""resolvedAt":"2024-07-01T10:09:00.000Z","resolution":"rerun","resolveMinutes":null,"timeline""#),
        "{typed}"
    );
    assert!(typed.contains(r#""value":null"#), "{typed}");
}

#[test]
fn a_curve_record_writes_its_tenors_then_what_was_sent_as_the_json_record() {
    let mut chunk = Chunk::new("TTF:FWD", 0, "curve", None);
    chunk.runs = vec![run(0, json!("fwd"), Value::Null, json!([]))];
    chunk.sets = vec![vec![
        meta("positive", "tenor", "failed"),
        meta("sorted", "curve", "warning"),
    ]];
    let mut r = record(
        date_key(chrono::NaiveDate::from_ymd_opt(2024, 2, 28).unwrap()),
        None,
        FAILED,
    );
    r.checks = vec![
        check(FAILED, "M02: value -1, expected > 0", Some(1)),
        check(WARNING, "not sorted", None),
    ];
    let tenors = json!([
        {"tenor": "M01", "value": 30.5, "status": "valid", "message": "",
         "checks": [{"id": "positive", "status": "valid", "message": ""}]},
        {"tenor": "M02", "value": -1, "status": "failed", "message": "value -1, expected > 0",
         "checks": [{"id": "positive", "status": "failed", "message": "value -1, expected > 0"}]}
    ]);
    let extra: Map<String, Value> = serde_json::from_value(json!({
        "tenors": tenors,
        "failedTenors": ["M02"],
        "warningTenors": [],
        "tenorCounts": {"valid": 1, "failed": 1},
        "contracts": 2,
        SENT_KEY: "abc"
    }))
    .unwrap();
    r.extra = Some(Box::new(extra));
    chunk.records = vec![r.clone()];
    let (typed, json) = both(&chunk, &r);
    assert_eq!(typed, json);
    assert!(
        typed.contains(r#""contracts":2,"sentAsValidated":"abc","runs":1"#),
        "{typed}"
    );
    let read = chunk.record(&r).unwrap();
    assert_eq!(read.failed_tenors, Some(vec!["M02".to_string()]));
    assert_eq!(read.other.len(), 1);
}

#[test]
fn a_record_whose_last_run_is_gone_has_no_run_fields() {
    let mut chunk = series_chunk();
    let mut r = record(at(0), Some(CheckedValue::Num(1.0)), VALID);
    r.last_run = 7;
    r.timeline.clear();
    chunk.records = vec![r.clone()];
    let (typed, json) = both(&chunk, &r);
    assert_eq!(typed, json);
    assert!(
        typed.contains(r#""name":null,"group":null,"tags":null"#),
        "{typed}"
    );
    // A timeline entry of a run the chunk does not hold is not the platform's.
    r.timeline.push(Event::Run {
        run: 9,
        status: VALID,
        previous: 255,
        message: Summary::AllPassed(2),
    });
    let e = chunk.record(&r).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Internal);
}
