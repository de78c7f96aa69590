//! Tests of the typed validation configuration: its serde form is the JSON body a client
//! sends, [`Validation::save_config`] saves it as that body is saved (the same rules, the same
//! errors), and a configuration with a field the rules do not read is refused, never kept and
//! ignored.

use super::*;
use super::{data::*, validation::*};
use crate::clock::FixedClock;
use crate::error::{Error, ErrorCode};
use crate::store::sqlite::SqliteStore;
use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::{json, Value};
use std::sync::Arc;

/// The first hour of the series of these tests.
fn hour(h: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 2, 1, 0, 0, 0).unwrap() + Duration::hours(h)
}

/// A platform on a fixed clock with the hourly series DE:SPOT (hours 0 to 4, hour 2 at -5),
/// and its user.
fn platform() -> (Platform, Principal) {
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    let now = Utc.with_ymd_and_hms(2024, 3, 1, 12, 0, 0).unwrap();
    let platform = Platform::over(store, Arc::new(FixedClock::new(now)));
    let me = platform.tenancy().local_principal("acme", "ann").unwrap();
    let points: Vec<Point> = (0..5)
        .map(|h| Point::new(hour(h), if h == 2 { -5.0 } else { 40.0 + h as f64 }))
        .collect();
    platform
        .data()
        .write_series(&me, "DE:SPOT", &points, &Default::default())
        .unwrap();
    (platform, me)
}

fn save_json(platform: &Platform, me: &Principal, body: Value) -> Result<Value, Error> {
    let objects = platform.objects();
    objects.save(me, Collection::ValidationConfig, body, &Default::default())
}

/// The stored configuration of `target`, without the fields that differ between saves.
fn stored(platform: &Platform, me: &Principal, target: &str) -> Result<Value, Error> {
    let coll = Collection::ValidationConfig;
    let mut doc = platform
        .objects()
        .get(me, coll, Source::Private, target, None, None)?;
    if let Value::Object(m) = &mut doc {
        m.retain(|k, _| !["_timestamp", "_user"].contains(&k.as_str()));
    }
    Ok(doc)
}

/// Hours 0 to `last` of DE:SPOT.
fn hours(last: i64) -> ValidationRequest {
    ValidationRequest::new("DE:SPOT").between(hour(0), hour(last))
}

#[test]
fn a_typed_config_is_the_hand_written_body_and_runs_as_it() {
    let typed = ValidationConfig::timeseries("DE:SPOT")
        .check(Check::new("positive", "value > 0"))
        .check(Check::new("cap", "value < 100").severity(Severity::Warning))
        .max_points(2);
    let body = json!({"_id": "DE:SPOT", "kind": "timeseries", "options": {"maxPoints": 2},
        "checks": [{"name": "positive", "expression": "value > 0"},
                   {"name": "cap", "expression": "value < 100", "severity": "warning"}]});
    assert_eq!(serde_json::to_value(&typed).unwrap(), body);

    // Saved typed, and saved as JSON on another platform: the same stored document.
    let (other, them) = platform();
    let (platform, me) = platform();
    assert_eq!(platform.validation().save_config(&me, &typed).unwrap(), 1);
    save_json(&other, &them, body).unwrap();
    let typed_doc = stored(&platform, &me, "DE:SPOT").unwrap();
    assert_eq!(typed_doc, stored(&other, &them, "DE:SPOT").unwrap());
    assert_eq!(typed_doc["checks"][1]["severity"], "warning");

    // A run checks with it: hour 2 fails `positive`.
    let checked = platform.validation().run_and_wait(&me, &hours(4)).unwrap();
    assert_eq!((checked.points, checked.counts.valid), (5, 4));
    assert_eq!(checked.counts.failed, 1);
    assert_eq!(checked.results[2].checks[0].name, "positive");
    assert_eq!(checked.results[2].status, ValidationStatus::Failed);
}

#[test]
fn every_field_of_a_typed_config_is_saved_under_its_wire_name() {
    let (platform, me) = platform();
    let lib = json!({"_id": "bounds", "script": "fn cap() { 100.0 }"});
    let objects = platform.objects();
    objects
        .save(&me, Collection::Script, lib, &Default::default())
        .unwrap();
    let config = ValidationConfig::timeseries("DE:SPOT")
        .name("German spot")
        .description("hourly day-ahead")
        .group("power")
        .tag("de")
        .script("bounds")
        .enabled(true)
        .run_on_update(true)
        .lookback(24)
        .write_status(true)
        .check(Check::new("under the cap", "value < cap()").id("cap"))
        .check(Check::new("old", "value > -100").enabled(false));
    platform.validation().save_config(&me, &config).unwrap();
    let doc = stored(&platform, &me, "DE:SPOT").unwrap();
    let fields = |keys: &[&str]| -> Vec<Value> { keys.iter().map(|k| doc[*k].clone()).collect() };
    assert_eq!(
        fields(&["name", "description", "group", "tags", "scripts"]),
        [
            json!("German spot"),
            json!("hourly day-ahead"),
            json!("power"),
            json!(["de"]),
            json!(["bounds"])
        ]
    );
    assert_eq!(
        (&doc["enabled"], &doc["runOnUpdate"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(
        doc["options"],
        json!({"lookback": 24, "writeStatus": true, "curveHistory": 0, "maxPoints": 1000})
    );
    assert_eq!(doc["checks"][0]["id"], "cap");
    assert_eq!(doc["checks"][1]["enabled"], false);
    // The library's function is called; the disabled check does not run.
    let checked = platform.validation().run_and_wait(&me, &hours(4)).unwrap();
    assert_eq!((checked.counts.valid, checked.counts.failed), (5, 0));
    assert_eq!(checked.results[0].checks.len(), 1);
}

#[test]
fn a_curve_config_keeps_its_scopes() {
    let (platform, me) = platform();
    let config = ValidationConfig::curve("TTF:FWD")
        .check(Check::new("positive", "value > 0"))
        .check(Check::new("enough", "contracts >= 2").scope(CheckScope::Curve))
        .curve_history(3);
    platform.validation().save_config(&me, &config).unwrap();
    let doc = stored(&platform, &me, "TTF:FWD").unwrap();
    assert_eq!(
        (&doc["kind"], &doc["options"]["curveHistory"]),
        (&json!("curve"), &json!(3))
    );
    let scopes: Vec<&Value> = (0..2).map(|i| &doc["checks"][i]["scope"]).collect();
    assert_eq!(scopes, [&json!("tenor"), &json!("curve")]);
    // A curve scope on a series configuration is refused as over JSON.
    let point = ValidationConfig::timeseries("DE:SPOT")
        .check(Check::new("enough", "contracts >= 2").scope(CheckScope::Curve));
    let err = platform.validation().save_config(&me, &point).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidBody);
    assert!(
        err.to_string().contains("does not apply to a timeseries"),
        "{err}"
    );
}

#[test]
fn max_points_of_the_typed_options_is_honoured() {
    let (platform, me) = platform();
    let config = ValidationConfig::timeseries("DE:SPOT")
        .check(Check::new("positive", "value > 0"))
        .max_points(2);
    platform.validation().save_config(&me, &config).unwrap();
    // Three points, over maxPoints 2: queued, nothing checked.
    match platform.validation().run(&me, &hours(2)).unwrap() {
        RunOutcome::Queued(run) => assert!(!run.job.is_empty()),
        RunOutcome::Done(done) => panic!("over maxPoints, checked now: {done:?}"),
    }
    assert_eq!(
        platform
            .validation()
            .records(&me, &Default::default())
            .unwrap()
            .total,
        0
    );
    // Two points are checked now.
    let done = platform.validation().run(&me, &hours(1)).unwrap().done();
    assert_eq!(done.map(|d| d.points), Some(2));
    // Raised to 5000, the three points are checked now.
    let raised = config.max_points(5000);
    assert_eq!(platform.validation().save_config(&me, &raised).unwrap(), 2);
    let done = platform.validation().run(&me, &hours(2)).unwrap().done();
    assert_eq!(done.map(|d| d.counts.failed), Some(1));
}

#[test]
fn an_out_of_bounds_option_is_refused_as_over_json_and_nothing_is_stored() {
    let (platform, me) = platform();
    let base = ValidationConfig::timeseries("DE:SPOT").check(Check::new("positive", "value > 0"));
    for (config, says) in [
        (
            base.clone().max_points(0),
            "options.maxPoints must be an integer from 1 to 5000, not 0",
        ),
        (
            base.clone().max_points(5001),
            "options.maxPoints must be an integer from 1 to 5000",
        ),
        (
            base.clone().lookback(1001),
            "options.lookback must be an integer from 0 to 1000",
        ),
        (
            base.clone().curve_history(31),
            "options.curveHistory must be an integer from 0 to 30",
        ),
    ] {
        let typed = platform.validation().save_config(&me, &config).unwrap_err();
        let body = serde_json::to_value(&config).unwrap();
        let over_json = save_json(&platform, &me, body).unwrap_err();
        assert_eq!(typed.code(), ErrorCode::InvalidParameter, "{typed}");
        assert_eq!(
            (typed.code(), typed.to_string()),
            (over_json.code(), over_json.to_string())
        );
        assert!(typed.to_string().contains(says), "{typed}");
        let absent = stored(&platform, &me, "DE:SPOT").unwrap_err();
        assert_eq!(absent.code(), ErrorCode::NotFound);
    }
    // A check that does not compile, and too many checks: the JSON save's errors too.
    let typo = base.clone().check(Check::new("typo", "value >"));
    let typed = platform.validation().save_config(&me, &typo).unwrap_err();
    let over_json = save_json(&platform, &me, serde_json::to_value(&typo).unwrap()).unwrap_err();
    assert_eq!(
        (typed.code(), typed.to_string()),
        (over_json.code(), over_json.to_string())
    );
    let many = base.checks((0..50).map(|i| Check::new(format!("c{i}"), "value > 0")));
    let err = platform.validation().save_config(&me, &many).unwrap_err();
    assert!(
        err.to_string()
            .contains("at most 50 checks, this one has 51"),
        "{err}"
    );
}

#[test]
fn save_config_replaces_the_stored_configuration() {
    let (platform, me) = platform();
    let body = json!({"_id": "DE:SPOT", "kind": "timeseries", "description": "old",
        "runOnUpdate": true, "options": {"maxPoints": 2}, "checks": [{"name": "a", "expression": "value > 0"}]});
    save_json(&platform, &me, body).unwrap();
    let config = ValidationConfig::timeseries("DE:SPOT").check(Check::new("b", "value < 100"));
    assert_eq!(platform.validation().save_config(&me, &config).unwrap(), 2);
    let doc = stored(&platform, &me, "DE:SPOT").unwrap();
    // What the typed value leaves unset is the default, not what was stored before.
    assert!(doc.get("description").is_none(), "{doc}");
    assert_eq!(
        (&doc["runOnUpdate"], &doc["options"]["maxPoints"]),
        (&json!(false), &json!(1000))
    );
    assert_eq!(doc["checks"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["checks"][0]["name"], "b");
}

#[test]
fn an_unknown_top_level_field_is_refused_naming_it_and_the_fields() {
    let (platform, me) = platform();
    let with = |field: &str| {
        let mut body = json!({"_id": "DE:SPOT", "kind": "timeseries",
            "checks": [{"name": "positive", "expression": "value > 0"}]});
        body[field] = json!(2);
        save_json(&platform, &me, body).unwrap_err()
    };
    let fields = "its fields are _id, kind, name, description, group, tags, enabled, \
                  runOnUpdate, scripts, checks, options";
    // An option at the top level: it would limit nothing.
    let err = with("maxPoints");
    assert_eq!(err.code(), ErrorCode::InvalidBody);
    assert_eq!(
        err.to_string(),
        format!(
            "unknown field \"maxPoints\" in a validation configuration (maxPoints is an option: \
             it belongs under options, as {{\"options\": {{\"maxPoints\": ...}}}}); {fields}"
        )
    );
    for option in ["lookback", "curveHistory", "writeStatus"] {
        assert!(with(option).to_string().contains("belongs under options"));
    }
    // A check's field at the top level.
    let err = with("expression");
    assert!(
        err.to_string().contains("expression is a field of a check"),
        "{err}"
    );
    // Another field: named, with the fields there are.
    let err = with("colour");
    assert_eq!(err.code(), ErrorCode::InvalidBody);
    assert_eq!(
        err.to_string(),
        format!("unknown field \"colour\" in a validation configuration; {fields}")
    );
    // Nothing is stored.
    let absent = stored(&platform, &me, "DE:SPOT").unwrap_err();
    assert_eq!(absent.code(), ErrorCode::NotFound);
    // Nor merged into a stored configuration.
    save_json(
        &platform,
        &me,
        json!({"_id": "DE:SPOT", "kind": "timeseries"}),
    )
    .unwrap();
    let merged = save_json(&platform, &me, json!({"_id": "DE:SPOT", "maxPoints": 2}));
    assert_eq!(merged.unwrap_err().code(), ErrorCode::InvalidBody);
    assert_eq!(stored(&platform, &me, "DE:SPOT").unwrap()["_version"], 1);
}

#[test]
fn an_unknown_field_of_a_check_is_refused() {
    let (platform, me) = platform();
    let body = json!({"_id": "DE:SPOT", "kind": "timeseries", "checks": [
        {"name": "positive", "expression": "value > 0"},
        {"name": "cap", "expression": "value < 100", "severty": "warning"}]});
    let err = save_json(&platform, &me, body).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidBody);
    assert_eq!(
        err.to_string(),
        "checks[1]: unknown field \"severty\" in a check: its fields are id, name, expression, \
         scope, severity, enabled"
    );
    assert_eq!(
        stored(&platform, &me, "DE:SPOT").unwrap_err().code(),
        ErrorCode::NotFound
    );
}

#[test]
fn every_documented_field_and_the_platform_fields_pass() {
    let (platform, me) = platform();
    let body = json!({"_id": "DE:SPOT", "_type": "VarValidationConfig", "kind": "timeseries",
        "name": "spot", "description": "d", "group": "g", "tags": ["t"], "enabled": true,
        "runOnUpdate": false, "scripts": [],
        "checks": [{"id": "p", "name": "positive", "expression": "value > 0", "scope": "point",
                    "severity": "severe", "enabled": true}],
        "options": {"lookback": 1, "curveHistory": 0, "writeStatus": false, "maxPoints": 10}});
    save_json(&platform, &me, body).unwrap();
    // A configuration as read back, system fields and all, saves again unchanged.
    let read = stored(&platform, &me, "DE:SPOT").unwrap();
    assert!(
        read.get("_version").is_some() && read.get("_type").is_some(),
        "{read}"
    );
    let again = save_json(&platform, &me, read.clone()).unwrap();
    assert_eq!(again["_version"], 1);
    // And as a test's inline configuration.
    let mut test = hours(4);
    test.config = Some(read);
    assert_eq!(
        platform
            .validation()
            .test(&me, &test)
            .unwrap()
            .counts
            .severe,
        1
    );
}

#[test]
fn a_tests_inline_config_with_an_unknown_field_is_refused() {
    let (platform, me) = platform();
    let mut test = hours(4);
    test.config = Some(json!({"kind": "timeseries", "maxPoints": 2,
        "checks": [{"name": "positive", "expression": "value > 0"}]}));
    let err = platform.validation().test(&me, &test).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidBody);
    assert!(err.to_string().contains("\"maxPoints\""), "{err}");
}
