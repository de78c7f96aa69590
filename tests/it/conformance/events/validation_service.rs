//! Validation service events (source private): `failed`, `warning` and `success` when a
//! record's status changes, with the record as data; only a change raises one, and a new record
//! that passes raises none.

use super::{hook_on, seen};
use crate::automation::{deliver, events_of, record_id, run, server, set_value, Webhook};
use crate::common::Client;
use platform_core::auth::Role;
use serde_json::{json, Value};

/// `NBP:SPOT` from 2024-07-01: 10 (valid), -1 (failed), 5000 (severe), 7 (error), 150
/// (warning), with checks of each severity.
async fn checked_series(c: &Client<'_>) {
    crate::automation::series(c, &[10.0, -1.0, 5000.0, 7.0, 150.0]).await;
    let lib = c
        .post(
            "/script/v1",
            json!({"_id": "seven", "script": "fn odd(v) { if v == 7.0 { throw \"seven is not a price\" } true }"}),
        )
        .await;
    assert_eq!(lib.status, 200, "{:?}", lib.body);
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "NBP:SPOT", "kind": "timeseries", "name": "NBP spot", "scripts": ["seven"],
               "checks": [{"name": "Positive", "expression": "value > 0"},
                          {"name": "Cap", "expression": "value < 1000", "severity": "severe"},
                          {"name": "Small", "expression": "value < 100", "severity": "warning"},
                          {"name": "Seven", "expression": "odd(value)"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

fn whole_range() -> Value {
    json!({"target": "NBP:SPOT", "from": "2024-07-01", "to": "2024-07-05"})
}

/// (day of the point, status of the record sent) of each event of `action`.
fn sent(hook: &Webhook, action: &str) -> Vec<(String, String)> {
    events_of(hook, action)
        .iter()
        .map(|e| {
            (
                e["data"]["point"].as_str().unwrap()[..10].to_string(),
                e["data"]["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[actix_rt::test]
async fn failed_is_raised_when_a_record_changes_to_failed_severe_or_error_with_the_record() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    hook_on(
        &admin,
        &hook,
        json!([{"source": "private", "service": "validation", "id": "*", "action": "failed"}]),
    )
    .await;
    checked_series(&admin).await;
    run(&admin, whole_range()).await;
    deliver(&s);
    assert_eq!(
        sent(&hook, "failed"),
        pairs(&[
            ("2024-07-02", "failed"),
            ("2024-07-03", "severe"),
            ("2024-07-04", "error")
        ])
    );
    // The data sent is the validation record, and the event's id is the record's.
    for e in events_of(&hook, "failed") {
        let id = e["data"]["_id"].as_str().unwrap();
        assert_eq!(e["id"], id);
        let stored = admin.get(&format!("/validation/v1/{id}")).await.body;
        assert_eq!(e["data"], stored, "{id}");
    }
    // A valid record that changes to failed.
    set_value(&admin, 1, -2.0).await;
    run(&admin, whole_range()).await;
    deliver(&s);
    assert_eq!(
        sent(&hook, "failed")[3..],
        pairs(&[("2024-07-01", "failed")])
    );
    assert_eq!(seen(&hook).len(), 4, "nothing else: {:?}", seen(&hook));
}

#[actix_rt::test]
async fn warning_is_raised_when_a_record_changes_to_warning_with_the_record() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    hook_on(
        &admin,
        &hook,
        json!([{"source": "private", "service": "validation", "id": "*", "action": "warning"}]),
    )
    .await;
    checked_series(&admin).await;
    run(&admin, whole_range()).await;
    deliver(&s);
    assert_eq!(sent(&hook, "warning"), pairs(&[("2024-07-05", "warning")]));
    // A valid record that changes to warning.
    set_value(&admin, 1, 120.0).await;
    run(&admin, whole_range()).await;
    deliver(&s);
    assert_eq!(
        sent(&hook, "warning"),
        pairs(&[("2024-07-05", "warning"), ("2024-07-01", "warning")])
    );
    let e = &events_of(&hook, "warning")[1];
    assert_eq!(e["data"]["checkedStatus"], "warning");
    assert_eq!(e["data"]["value"], 120.0);
    assert_eq!(seen(&hook).len(), 2);
}

#[actix_rt::test]
async fn success_is_raised_when_a_record_changes_to_valid_skipped_or_overridden() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    hook_on(
        &admin,
        &hook,
        json!([{"source": "private", "service": "validation", "id": "*", "action": "success"}]),
    )
    .await;
    checked_series(&admin).await;
    run(&admin, whole_range()).await;
    deliver(&s);
    assert!(seen(&hook).is_empty(), "new passing records raise nothing");
    // failed -> valid: the data is fixed and checked again.
    set_value(&admin, 2, 20.0).await;
    run(&admin, whole_range()).await;
    // severe -> overridden.
    let severe = record_id(&admin, 3).await;
    let r = admin
        .post(
            "/validation/v1?_function=override",
            json!({"ids": [severe], "reason": "a real spike"}),
        )
        .await;
    assert_eq!(r.body[0]["ok"], true, "{:?}", r.body);
    // error -> skipped: the observation has no value any more, so no check applies.
    admin
        .save(json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-04", "value": null}]}}))
        .await;
    run(&admin, whole_range()).await;
    deliver(&s);
    assert_eq!(
        sent(&hook, "success"),
        pairs(&[
            ("2024-07-02", "valid"),
            ("2024-07-03", "overridden"),
            ("2024-07-04", "skipped")
        ])
    );
}

#[actix_rt::test]
async fn only_a_change_of_status_raises_a_validation_event() {
    let s = server();
    let admin = s.client(Role::Admin);
    let hook = Webhook::start(vec![]);
    hook_on(
        &admin,
        &hook,
        json!([{"source": "private", "service": "validation", "id": "*", "action": "*"}]),
    )
    .await;
    checked_series(&admin).await;
    run(&admin, whole_range()).await;
    deliver(&s);
    // The new passing record (the 1st) raised nothing; the four others did.
    let first: Vec<String> = events_of(&hook, "failed")
        .iter()
        .chain(events_of(&hook, "warning").iter())
        .map(|e| e["data"]["point"].as_str().unwrap()[..10].to_string())
        .collect();
    assert_eq!(
        first,
        ["2024-07-02", "2024-07-03", "2024-07-04", "2024-07-05"]
    );
    assert_eq!(seen(&hook).len(), 4);
    // Checked again unchanged; changed but with the same status; commented: no change.
    run(&admin, whole_range()).await;
    set_value(&admin, 2, -3.0).await;
    set_value(&admin, 1, 11.0).await;
    run(&admin, whole_range()).await;
    let id = record_id(&admin, 2).await;
    admin
        .post(
            "/validation/v1?_function=comment",
            json!({"ids": [id], "message": "looking"}),
        )
        .await;
    deliver(&s);
    assert_eq!(seen(&hook).len(), 4, "{:?}", seen(&hook));
}

#[actix_rt::test]
async fn validation_events_are_raised_in_the_private_source_also_for_public_data() {
    let s = server();
    let admin = s.client(Role::Admin);
    let platform = s.client_of("acme", "root", Role::Platform);
    platform
        .save(
            json!({"_id": "#HUB", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
                     "data": [{"time": "2024-07-01", "value": -1}]}}),
        )
        .await;
    let r = admin
        .post(
            "/validationconfig/v1",
            json!({"_id": "#HUB:SPOT", "kind": "timeseries", "checks": [{"name": "Positive", "expression": "value > 0"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let private = Webhook::start(vec![]);
    let public = Webhook::start(vec![]);
    hook_on(
        &admin,
        &private,
        json!([{"source": "private", "service": "validation", "id": "*", "action": "*"}]),
    )
    .await;
    hook_on(
        &admin,
        &public,
        json!([{"source": "public", "service": "validation", "id": "*", "action": "*"}]),
    )
    .await;
    run(&admin, json!({"target": "#HUB:SPOT"})).await;
    deliver(&s);
    let got = seen(&private);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1.as_str(), got[0].3.as_str()),
        ("validation", "private", "failed")
    );
    assert_eq!(got[0].2, "#HUB:SPOT:2024-07-01");
    assert!(public.received().is_empty());
}
