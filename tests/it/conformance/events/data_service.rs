//! Data service events: `update` when data is saved, `invalid` when data starts failing its
//! checks, `validated` when data can be used; the update automation of a runOnUpdate
//! configuration; the public script `#email-validation-failed`.

use super::{hook_on, seen};
use crate::automation::{
    deliver, events_of, log, positive_config, record_id, run, series, server, set_value, Webhook,
};
use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// A webhook receiving `action` events of the data item `id`.
async fn on(c: &Client<'_>, id: &str, action: &str) -> Webhook {
    let hook = Webhook::start(vec![]);
    hook_on(
        c,
        &hook,
        json!([{"source": "private", "service": "data", "id": id, "action": action}]),
    )
    .await;
    hook
}

/// `NBP:SPOT` from 2024-07-01 with `values`, checked by Positive (failed) and Small (< 100,
/// a warning).
async fn checked(c: &Client<'_>, values: &[f64]) {
    series(c, values).await;
    positive_config(c).await;
}

fn range(to_day: u32) -> Value {
    json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": format!("2024-07-{to_day:02}")})
}

async fn override_(c: &Client<'_>, id: &str, reason: &str) {
    let r = c
        .post(
            "/validation/v1?_function=override",
            json!({"ids": [id], "reason": reason}),
        )
        .await;
    assert_eq!(r.body[0]["ok"], true, "{:?}", r.body);
}

async fn remove_override(c: &Client<'_>, id: &str) {
    let r = c
        .post(
            "/validation/v1?_function=removeOverride",
            json!({"ids": [id]}),
        )
        .await;
    assert_eq!(r.body[0]["ok"], true, "{:?}", r.body);
}

/// The days (`2024-07-DD` -> DD) of the points of each `invalid` event.
fn invalid_days(hook: &Webhook) -> Vec<Vec<u32>> {
    events_of(hook, "invalid")
        .iter()
        .map(|e| {
            e["data"]["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap()[8..10].parse().unwrap())
                .collect()
        })
        .collect()
}

/// The values sent by each `validated` event of a series.
fn validated_values(hook: &Webhook) -> Vec<Vec<f64>> {
    events_of(hook, "validated")
        .iter()
        .map(|e| {
            e["data"]["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["value"].as_f64().unwrap())
                .collect()
        })
        .collect()
}

async fn curve(c: &Client<'_>, ondate: &str, contracts: Value) {
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate, "contracts": contracts}}))
        .await;
}

async fn curve_config(c: &Client<'_>) {
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "TTF:FWD", "kind": "curve", "name": "TTF forward",
                   "checks": [{"name": "Positive", "expression": "value > 0"},
                              {"name": "Small", "expression": "value < 100", "severity": "warning"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

fn timeline_has(record: &Value, action: &str) -> bool {
    record["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["action"] == action)
}

// ---------------------------------------------------------------------------------------------
// update

#[actix_rt::test]
async fn update_is_raised_when_data_is_saved_and_sends_the_data() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "*", "update").await;
    series(&admin, &[1.0, 2.0]).await;
    curve(
        &admin,
        "2024-07-01",
        json!([{"tenor": "M01", "value": 30.0}]),
    )
    .await;
    // An object save that writes no data raises no data event.
    admin.save(json!({"_id": "NBP", "name": "NBP"})).await;
    deliver(&s);
    assert_eq!(
        seen(&hook),
        [
            (
                "data".into(),
                "private".into(),
                "NBP:SPOT".into(),
                "update".into()
            ),
            (
                "data".into(),
                "private".into(),
                "TTF:FWD".into(),
                "update".into()
            )
        ]
    );
    // decisions.md "Events and automations": the data header with what the save wrote.
    let got = events_of(&hook, "update");
    let series_data = &got[0]["data"];
    assert_eq!(
        (
            series_data["_id"].clone(),
            series_data["_objid"].clone(),
            series_data["_dataid"].clone(),
            series_data["_type"].clone()
        ),
        (
            json!("NBP:SPOT"),
            json!("NBP"),
            json!("SPOT"),
            json!("VarTimeSeries")
        )
    );
    assert_eq!(
        series_data["points"],
        json!(["2024-07-01T00:00:00.000Z", "2024-07-02T00:00:00.000Z"])
    );
    let curve_data = &got[1]["data"];
    assert_eq!(curve_data["_type"], "VarCurve");
    assert_eq!(curve_data["ondate"], "2024-07-01");
}

// ---------------------------------------------------------------------------------------------
// invalid

#[actix_rt::test]
async fn invalid_sends_target_kind_name_status_message_points_records_user_origin_and_timestamp() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "invalid").await;
    checked(&admin, &[10.0, -1.0, -2.0]).await;
    run(&admin, range(3)).await;
    deliver(&s);
    let got = events_of(&hook, "invalid");
    assert_eq!(got.len(), 1, "one event for the run");
    let d = &got[0]["data"];
    let mut keys: Vec<&String> = d.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "kind",
            "message",
            "name",
            "origin",
            "points",
            "records",
            "status",
            "target",
            "timestamp",
            "user"
        ]
    );
    assert_eq!(d["target"], "NBP:SPOT");
    assert_eq!(d["kind"], "timeseries");
    assert_eq!(d["name"], "NBP spot");
    assert_eq!(d["status"], "failed");
    assert!(d["message"].as_str().unwrap().contains("positive"), "{d}");
    assert_eq!(d["points"], json!(["2024-07-02", "2024-07-03"]));
    assert_eq!(
        d["records"],
        json!([record_id(&admin, 2).await, record_id(&admin, 3).await])
    );
    assert_eq!(d["user"], "admin-user");
    assert_eq!(d["origin"], "manual");
    assert_eq!(d["timestamp"], got[0]["timestamp"]);
}

#[actix_rt::test]
async fn invalid_of_a_curve_names_the_ondate_and_its_failed_tenors() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "TTF:FWD", "invalid").await;
    curve(
        &admin,
        "2024-07-01",
        json!([{"tenor": "M01", "value": 30.0}, {"tenor": "Q01", "value": 31.0}]),
    )
    .await;
    curve(
        &admin,
        "2024-07-02",
        json!([{"tenor": "M01", "value": 30.0}, {"tenor": "Q01", "value": -5.0}]),
    )
    .await;
    curve_config(&admin).await;
    run(
        &admin,
        json!({"target": "TTF:FWD", "from": "2024-07-01", "to": "2024-07-02"}),
    )
    .await;
    deliver(&s);
    let got = events_of(&hook, "invalid");
    assert_eq!(got.len(), 1);
    let d = &got[0]["data"];
    let mut keys: Vec<&String> = d.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "failedTenors",
            "kind",
            "message",
            "name",
            "origin",
            "points",
            "records",
            "status",
            "target",
            "timestamp",
            "user"
        ]
    );
    assert_eq!(d["kind"], "curve");
    assert_eq!(d["name"], "TTF forward");
    assert_eq!(d["points"], json!(["2024-07-02"]));
    assert_eq!(d["records"], json!(["TTF:FWD:2024-07-02"]));
    let failed = d["failedTenors"].to_string();
    assert!(
        failed.contains("Q01") && !failed.contains("M01"),
        "{failed}"
    );
}

#[actix_rt::test]
async fn invalid_is_raised_when_a_record_starts_failing_and_the_timeline_shows_sent_as_failing() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "invalid").await;
    checked(&admin, &[10.0, 11.0]).await;
    run(&admin, range(2)).await;
    deliver(&s);
    assert!(hook.received().is_empty(), "nothing fails");
    set_value(&admin, 2, -1.0).await;
    run(&admin, range(2)).await;
    deliver(&s);
    assert_eq!(invalid_days(&hook), [vec![2]]);
    let rec = admin
        .get(&format!("/validation/v1/{}", record_id(&admin, 2).await))
        .await
        .body;
    assert!(timeline_has(&rec, "sent-as-failing"), "{rec}");
    let rec = admin
        .get(&format!("/validation/v1/{}", record_id(&admin, 1).await))
        .await
        .body;
    assert!(!timeline_has(&rec, "sent-as-failing"), "{rec}");
}

#[actix_rt::test]
async fn invalid_is_raised_when_a_record_fails_again_with_different_data() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "invalid").await;
    checked(&admin, &[-1.0, -2.0]).await;
    run(&admin, range(2)).await;
    set_value(&admin, 2, -5.0).await;
    run(&admin, range(2)).await;
    deliver(&s);
    assert_eq!(invalid_days(&hook), [vec![1, 2], vec![2]]);
}

#[actix_rt::test]
async fn invalid_is_raised_when_a_record_fails_again_because_its_override_was_removed_or_cleared() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "invalid").await;
    checked(&admin, &[10.0, -1.0]).await;
    run(&admin, range(2)).await;
    let id = record_id(&admin, 2).await;
    // Removed.
    override_(&admin, &id, "fine").await;
    remove_override(&admin, &id).await;
    deliver(&s);
    assert_eq!(invalid_days(&hook), [vec![2], vec![2]]);
    let by_removal = &events_of(&hook, "invalid")[1]["data"];
    assert_eq!(by_removal["records"], json!([id]));
    // Cleared: a run on changed data that still fails clears the override.
    override_(&admin, &id, "fine").await;
    set_value(&admin, 2, -7.0).await;
    run(&admin, range(2)).await;
    deliver(&s);
    assert_eq!(invalid_days(&hook), [vec![2], vec![2], vec![2]]);
    let rec = admin.get(&format!("/validation/v1/{id}")).await.body;
    assert_eq!(rec["status"], "failed");
    assert!(timeline_has(&rec, "override-cleared"), "{rec}");
}

#[actix_rt::test]
async fn rerunning_the_checks_on_the_same_failing_data_raises_no_invalid() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "invalid").await;
    checked(&admin, &[10.0, -1.0]).await;
    for _ in 0..3 {
        run(&admin, range(2)).await;
    }
    deliver(&s);
    assert_eq!(invalid_days(&hook), [vec![2]]);
}

#[actix_rt::test]
async fn only_full_runs_raise_invalid_not_tests() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "invalid").await;
    checked(&admin, &[10.0, -1.0]).await;
    let t = admin.post("/validation/v1?_function=test", range(2)).await;
    assert_eq!(t.body["counts"]["failed"], 1, "{:?}", t.body);
    // decisions.md "invalid": a run of only some checks is not a full run either.
    let mut some = range(2);
    some["checks"] = json!(["positive"]);
    run(&admin, some).await;
    deliver(&s);
    assert!(hook.received().is_empty(), "{:?}", seen(&hook));
    // A full run on other failing data raises it.
    set_value(&admin, 1, -3.0).await;
    run(&admin, range(2)).await;
    deliver(&s);
    assert_eq!(invalid_days(&hook), [vec![1]]);
}

#[actix_rt::test]
async fn automations_on_all_actions_do_not_get_invalid() {
    let s = server();
    let admin = s.client(Role::Admin);
    let all = on(&admin, "NBP:SPOT", "*").await;
    let invalid = on(&admin, "NBP:SPOT", "invalid").await;
    checked(&admin, &[10.0, -1.0]).await;
    run(&admin, range(2)).await;
    deliver(&s);
    assert_eq!(invalid_days(&invalid), [vec![2]]);
    let actions: Vec<String> = seen(&all).into_iter().map(|e| e.3).collect();
    assert_eq!(actions, ["update"], "the save only");
}

// ---------------------------------------------------------------------------------------------
// validated

#[actix_rt::test]
async fn validated_sends_the_time_series_of_the_observations_with_range_set_and_validation() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "validated").await;
    checked(&admin, &[1.0, 2.0, 3.0]).await;
    run(
        &admin,
        json!({"target": "NBP:SPOT", "from": "2024-07-02", "to": "2024-07-03"}),
    )
    .await;
    deliver(&s);
    let got = events_of(&hook, "validated");
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["id"], "NBP:SPOT");
    let d = &got[0]["data"];
    assert_eq!(d["_id"], "NBP:SPOT");
    assert_eq!(d["_type"], "VarTimeSeries");
    assert_eq!(
        d["data"],
        json!([{"time": "2024-07-02", "value": 2.0}, {"time": "2024-07-03", "value": 3.0}])
    );
    assert_eq!(
        d["range"],
        json!({"from": "2024-07-02", "to": "2024-07-03"})
    );
    assert_eq!(d["calendar"], "DAILY", "the series header");
    assert_eq!(d["_validation"]["status"], "valid");
}

#[actix_rt::test]
async fn validated_sends_the_curve_for_the_ondate_with_validation() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "TTF:FWD", "validated").await;
    let contracts = json!([{"tenor": "M01", "value": 30.0}, {"tenor": "Q01", "value": 31.0}]);
    curve(&admin, "2024-07-01", contracts.clone()).await;
    curve(
        &admin,
        "2024-07-02",
        json!([{"tenor": "M01", "value": 40.0}]),
    )
    .await;
    curve_config(&admin).await;
    run(&admin, json!({"target": "TTF:FWD", "ondate": "2024-07-01"})).await;
    deliver(&s);
    let got = events_of(&hook, "validated");
    assert_eq!(got.len(), 1);
    let d = &got[0]["data"];
    assert_eq!(d["_id"], "TTF:FWD");
    assert_eq!(d["_type"], "VarCurve");
    assert_eq!(d["ondate"], "2024-07-01");
    assert_eq!(d["contracts"], contracts);
    assert_eq!(d["_validation"]["status"], "valid");
}

#[actix_rt::test]
async fn each_version_of_the_data_is_sent_once_and_changed_data_that_passes_again_is_sent_again() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "validated").await;
    checked(&admin, &[1.0, 2.0]).await;
    for _ in 0..3 {
        run(&admin, range(2)).await;
    }
    deliver(&s);
    assert_eq!(validated_values(&hook), [vec![1.0, 2.0]]);
    set_value(&admin, 2, 5.0).await;
    run(&admin, range(2)).await;
    run(&admin, range(2)).await;
    deliver(&s);
    assert_eq!(validated_values(&hook), [vec![1.0, 2.0], vec![5.0]]);
}

#[actix_rt::test]
async fn without_a_validated_automation_nothing_is_remembered_and_the_next_run_or_override_sends_it(
) {
    let s = server();
    let admin = s.client(Role::Admin);
    checked(&admin, &[1.0, 2.0, -1.0]).await;
    run(&admin, range(3)).await;
    let hook = on(&admin, "NBP:SPOT", "validated").await;
    deliver(&s);
    assert!(hook.received().is_empty());
    // The next run sends what passed before the automation existed.
    run(&admin, range(3)).await;
    deliver(&s);
    assert_eq!(validated_values(&hook), [vec![1.0, 2.0]]);
    // So does an override (of a failure checked before the automation existed).
    let s2 = server();
    let admin = s2.client(Role::Admin);
    checked(&admin, &[-1.0]).await;
    run(&admin, range(1)).await;
    let hook = on(&admin, "NBP:SPOT", "validated").await;
    override_(&admin, &record_id(&admin, 1).await, "known").await;
    deliver(&s2);
    assert_eq!(validated_values(&hook), [vec![-1.0]]);
}

#[actix_rt::test]
async fn the_validated_automation_is_on_the_series_or_curve_itself() {
    let s = server();
    let admin = s.client(Role::Admin);
    let on_series = on(&admin, "NBP:SPOT", "validated").await;
    let on_object = on(&admin, "NBP", "validated").await;
    let on_curve = on(&admin, "TTF:FWD", "validated").await;
    checked(&admin, &[1.0]).await;
    curve(
        &admin,
        "2024-07-01",
        json!([{"tenor": "M01", "value": 30.0}]),
    )
    .await;
    curve_config(&admin).await;
    run(&admin, range(1)).await;
    run(&admin, json!({"target": "TTF:FWD"})).await;
    deliver(&s);
    assert_eq!(events_of(&on_series, "validated").len(), 1);
    assert_eq!(events_of(&on_curve, "validated").len(), 1);
    assert_eq!(events_of(&on_curve, "validated")[0]["id"], "TTF:FWD");
    assert!(on_object.received().is_empty());
}

#[actix_rt::test]
async fn consecutive_passing_observations_are_sent_together_and_a_failing_one_splits_them() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "validated").await;
    checked(&admin, &[1.0, 2.0, -1.0, 4.0, 5.0, -2.0, 7.0]).await;
    run(&admin, range(7)).await;
    deliver(&s);
    assert_eq!(
        validated_values(&hook),
        [vec![1.0, 2.0], vec![4.0, 5.0], vec![7.0]]
    );
    let ranges: Vec<Value> = events_of(&hook, "validated")
        .iter()
        .map(|e| e["data"]["range"].clone())
        .collect();
    assert_eq!(
        ranges,
        [
            json!({"from": "2024-07-01", "to": "2024-07-02"}),
            json!({"from": "2024-07-04", "to": "2024-07-05"}),
            json!({"from": "2024-07-07", "to": "2024-07-07"})
        ]
    );
}

#[actix_rt::test]
async fn validation_holds_status_checked_status_records_user_origin_timestamp_override_and_warning_tenors(
) {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "validated").await;
    checked(&admin, &[1.0, 150.0, -1.0]).await;
    run(&admin, range(3)).await;
    override_(&admin, &record_id(&admin, 3).await, "holiday").await;
    deliver(&s);
    let got = events_of(&hook, "validated");
    assert_eq!(got.len(), 2);
    let v = &got[0]["data"]["_validation"];
    let mut keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "checkedStatus",
            "origin",
            "records",
            "status",
            "timestamp",
            "user"
        ]
    );
    assert_eq!(v["status"], "warning", "150 warns");
    assert_eq!(v["checkedStatus"], "warning");
    assert_eq!(
        v["records"],
        json!([record_id(&admin, 1).await, record_id(&admin, 2).await])
    );
    assert_eq!(v["user"], "admin-user");
    assert_eq!(v["origin"], "manual");
    assert_eq!(v["timestamp"], got[0]["timestamp"]);
    let v = &got[1]["data"]["_validation"];
    assert_eq!(v["status"], "overridden");
    assert_eq!(v["checkedStatus"], "failed");
    assert_eq!(v["records"], json!([record_id(&admin, 3).await]));
    assert_eq!(
        v["override"],
        json!({"reason": "holiday", "user": "admin-user"})
    );
    // Curves: warningTenors.
    let on_curve = on(&admin, "TTF:FWD", "validated").await;
    curve(
        &admin,
        "2024-07-01",
        json!([{"tenor": "M01", "value": 30.0}, {"tenor": "Q01", "value": 150.0}]),
    )
    .await;
    curve_config(&admin).await;
    run(&admin, json!({"target": "TTF:FWD"})).await;
    deliver(&s);
    let v = &events_of(&on_curve, "validated")[0]["data"]["_validation"];
    assert_eq!(v["status"], "warning");
    let warned = v["warningTenors"].to_string();
    assert!(
        warned.contains("Q01") && !warned.contains("M01"),
        "{warned}"
    );
}

#[actix_rt::test]
async fn tests_and_runs_of_only_some_checks_or_tenors_send_nothing() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "validated").await;
    let on_curve = on(&admin, "TTF:FWD", "validated").await;
    checked(&admin, &[1.0, 2.0]).await;
    let t = admin.post("/validation/v1?_function=test", range(2)).await;
    assert_eq!(t.body["counts"]["valid"], 2, "{:?}", t.body);
    let mut some = range(2);
    some["checks"] = json!(["positive"]);
    run(&admin, some).await;
    curve(
        &admin,
        "2024-07-01",
        json!([{"tenor": "M01", "value": 30.0}, {"tenor": "Q01", "value": 31.0}]),
    )
    .await;
    curve_config(&admin).await;
    run(&admin, json!({"target": "TTF:FWD", "tenors": ["M01"]})).await;
    deliver(&s);
    assert!(hook.received().is_empty(), "{:?}", seen(&hook));
    assert!(on_curve.received().is_empty(), "{:?}", seen(&on_curve));
    // The full runs send them.
    run(&admin, range(2)).await;
    run(&admin, json!({"target": "TTF:FWD"})).await;
    deliver(&s);
    assert_eq!(validated_values(&hook), [vec![1.0, 2.0]]);
    assert_eq!(events_of(&on_curve, "validated").len(), 1);
}

#[actix_rt::test]
async fn a_failure_not_overridden_is_never_sent_and_removing_an_override_takes_nothing_back() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = on(&admin, "NBP:SPOT", "validated").await;
    let all = on(&admin, "NBP:SPOT", "*").await;
    checked(&admin, &[-1.0, -2.0]).await;
    for _ in 0..2 {
        run(&admin, range(2)).await;
    }
    deliver(&s);
    assert!(hook.received().is_empty());
    let id = record_id(&admin, 1).await;
    override_(&admin, &id, "known").await;
    remove_override(&admin, &id).await;
    deliver(&s);
    // Sent once on the override; the removal sent nothing more (no retraction either).
    assert_eq!(validated_values(&hook), [vec![-1.0]]);
    assert_eq!(hook.received().len(), 1);
    assert!(events_of(&all, "validated").is_empty());
}

#[actix_rt::test]
async fn validated_goes_only_to_automations_on_validated_and_the_timeline_shows_sent_as_validated()
{
    let s = server();
    let admin = s.client(Role::Admin);
    let all = on(&admin, "NBP:SPOT", "*").await;
    let validated = on(&admin, "NBP:SPOT", "validated").await;
    checked(&admin, &[1.0]).await;
    run(&admin, range(1)).await;
    deliver(&s);
    assert_eq!(events_of(&validated, "validated").len(), 1);
    let actions: Vec<String> = seen(&all).into_iter().map(|e| e.3).collect();
    assert_eq!(actions, ["update"]);
    let rec = admin
        .get(&format!("/validation/v1/{}", record_id(&admin, 1).await))
        .await
        .body;
    assert!(timeline_has(&rec, "sent-as-validated"), "{rec}");
}

// ---------------------------------------------------------------------------------------------
// The update automation of a runOnUpdate configuration

fn run_on_update(extra: Value) -> Value {
    let mut body = json!({"_id": "NBP:SPOT", "kind": "timeseries", "enabled": true, "runOnUpdate": true,
                          "checks": [{"name": "Positive", "expression": "value > 0"}]});
    if let (Value::Object(b), Value::Object(e)) = (&mut body, extra) {
        b.extend(e);
    }
    body
}

async fn owned(c: &Client<'_>) -> Vec<Value> {
    c.get("/automation/v1")
        .await
        .body
        .as_array()
        .unwrap()
        .clone()
}

#[actix_rt::test]
async fn an_enabled_run_on_update_configuration_gets_an_update_automation_running_its_checks() {
    let s = server();
    let w = s.client(Role::Writer);
    series(&w, &[10.0, 11.0]).await;
    let r = w
        .post("/validationconfig/v1", run_on_update(json!({})))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let list = owned(&w).await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["target"], "platform.validation");
    assert_eq!(
        list[0]["conditions"],
        json!([{"source": "private", "service": "data", "id": "NBP:SPOT", "action": "update"}])
    );
    let target = w.get("/action/v1/public/platform.validation").await;
    assert_eq!(target.body["name"], "Run validation checks");
    // Saving the data runs the checks on what was saved.
    deliver(&s);
    set_value(&w, 3, -5.0).await;
    deliver(&s);
    let records = w.get("/validation/v1").await;
    assert_eq!(records.total(), 1, "{:?}", records.body);
    assert_eq!(records.body[0]["status"], "failed");
    assert_eq!(records.body[0]["lastOrigin"], "update");
}

#[actix_rt::test]
async fn the_update_automation_is_created_updated_and_removed_with_the_configuration() {
    let s = server();
    let w = s.client(Role::Writer);
    let admin = s.client(Role::Admin);
    series(&w, &[10.0]).await;
    // Created with it.
    w.post("/validationconfig/v1", run_on_update(json!({})))
        .await;
    let id = owned(&w).await[0]["_id"].as_str().unwrap().to_string();
    // Updated with it: switched off by hand, saving the configuration switches it on again.
    let off = admin
        .put_json(&format!("/automation/v1/{id}"), json!({"enabled": false}))
        .await;
    assert_eq!(off.body["enabled"], false, "{:?}", off.body);
    w.post(
        "/validationconfig/v1",
        run_on_update(json!({"description": "checked on update"})),
    )
    .await;
    let list = owned(&w).await;
    assert_eq!((list.len(), list[0]["enabled"].clone()), (1, json!(true)));
    assert_eq!(list[0]["_id"], id.as_str());
    // Removed with it: without runOnUpdate, disabled, or deleted.
    for body in [
        run_on_update(json!({"runOnUpdate": false})),
        run_on_update(json!({"enabled": false})),
    ] {
        w.post("/validationconfig/v1", run_on_update(json!({})))
            .await;
        assert_eq!(owned(&w).await.len(), 1);
        let r = w.post("/validationconfig/v1", body.clone()).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert!(owned(&w).await.is_empty(), "{body}");
    }
    w.post("/validationconfig/v1", run_on_update(json!({})))
        .await;
    assert_eq!(owned(&w).await.len(), 1);
    assert_eq!(w.delete("/validationconfig/v1/NBP:SPOT").await.status, 200);
    assert!(owned(&w).await.is_empty());
}

#[actix_rt::test]
async fn for_public_data_the_update_automation_belongs_to_the_callers_tenant() {
    let s = server();
    let platform = s.client_of("acme", "root", Role::Platform);
    platform
        .save(json!({"_id": "#HUB", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [{"time": "2024-07-01", "value": 1}]}}))
        .await;
    let acme = s.client(Role::Writer);
    let mut body = run_on_update(json!({}));
    body["_id"] = json!("#HUB:SPOT");
    let r = acme.post("/validationconfig/v1", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let list = owned(&acme).await;
    assert_eq!(list.len(), 1);
    assert_eq!(
        list[0]["conditions"],
        json!([{"source": "public", "service": "data", "id": "#HUB:SPOT", "action": "update"}])
    );
    let globex = s.client_of("globex", "gus", Role::Admin);
    assert!(owned(&globex).await.is_empty());
    // The public save runs acme's checks, into acme's records.
    deliver(&s);
    platform
        .save(json!({"_id": "#HUB", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-02", "value": -1}]}}))
        .await;
    deliver(&s);
    let records = acme.get("/validation/v1").await;
    assert_eq!(records.total(), 1, "{:?}", log(&acme, "").await);
    assert_eq!(records.body[0]["status"], "failed");
    assert_eq!(globex.get("/validation/v1").await.total(), 0);
}

// ---------------------------------------------------------------------------------------------
// #email-validation-failed

#[actix_rt::test]
async fn the_email_validation_failed_script_turns_invalid_data_into_an_html_email() {
    let s = server();
    let admin = s.client(Role::Admin);
    let r = admin
        .post(
            "/automation/v1",
            json!({"target": "platform.email",
                   "properties": {"to": "desk@example.com", "subject": "Data failed validation",
                                  "attachment": false, "@transformer": "#email-validation-failed"},
                   "conditions": [{"source": "private", "service": "data", "id": "*", "action": "invalid"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    checked(&admin, &[10.0, -1.0]).await;
    run(&admin, range(2)).await;
    deliver(&s);
    let mail = admin.get("/automation/v1/mail").await;
    assert_eq!(mail.total(), 1, "{:?}", log(&admin, "").await);
    let m = &mail.body[0];
    assert_eq!(m["to"], json!(["desk@example.com"]));
    assert_eq!(m["subject"], "Data failed validation");
    assert_eq!(m["contentType"], "text/html");
    assert!(m["attachment"].is_null(), "attachment false: {m}");
    let html = m["body"].as_str().unwrap();
    assert!(html.starts_with('<'), "{html}");
    for part in ["NBP:SPOT", "NBP spot", "failed", "2024-07-02"] {
        assert!(html.contains(part), "{part} in {html}");
    }
}

#[actix_rt::test]
async fn the_email_validation_failed_script_is_a_public_script() {
    let s = TestServer::new();
    let r = s
        .client_of("anyco", "ann", Role::Reader)
        .get("/script/v1/public/%23email-validation-failed")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_id"], "#email-validation-failed");
}
