//! Data status values: the states of quality are UNCHECKED, VALID and FAILED. Transitions are
//! not shown; the decisions settle them: a save that sends an observation sets its status
//! (decisions.md 5), a changed value sent without a status loses the old one and is marked
//! source CHANGED (README, "Time series and curves"), and validation with writeStatus sets the quality
//! (docs/decisions.md, "Validation").

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

async fn save(c: &Client<'_>, value: f64, status: Option<Value>) -> crate::common::Resp {
    let mut obs = json!({"time": "2024-07-01", "value": value});
    if let Some(s) = status {
        obs["status"] = s;
    }
    c.post(
        "/object/v1",
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": [obs]}}),
    )
    .await
}

async fn status(c: &Client<'_>) -> Value {
    c.get("/data/v1/private/NBP:SPOT").await.body["data"][0]
        .get("status")
        .cloned()
        .unwrap_or(Value::Null)
}

#[actix_rt::test]
async fn the_states_of_quality_are_unchecked_valid_and_failed() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (i, q) in ["UNCHECKED", "VALID", "FAILED"].iter().enumerate() {
        let r = save(&c, i as f64, Some(json!({"quality": q, "source": "NEW"}))).await;
        assert_eq!(r.status, 200, "{q}: {:?}", r.body);
        assert_eq!(status(&c).await["quality"], *q);
    }
    let m = save(&c, 9.0, Some(json!({"quality": "CHECKED"})))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("UNCHECKED, VALID, FAILED"), "{m}");
    assert_eq!(status(&c).await["quality"], "FAILED");
}

#[actix_rt::test]
async fn a_save_that_sends_a_status_moves_the_observation_to_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save(&c, 1.0, Some(json!({"quality": "UNCHECKED"}))).await;
    // The same value with another status: the status changes, the source is not marked.
    save(&c, 1.0, Some(json!({"quality": "VALID"}))).await;
    assert_eq!(status(&c).await, json!({"quality": "VALID"}));
    save(&c, 1.0, Some(json!({"quality": "FAILED:stale"}))).await;
    assert_eq!(status(&c).await, json!({"quality": "FAILED:stale"}));
    save(
        &c,
        2.0,
        Some(json!({"quality": "UNCHECKED", "source": "CALCULATED"})),
    )
    .await;
    assert_eq!(
        status(&c).await,
        json!({"quality": "UNCHECKED", "source": "CALCULATED"})
    );
}

#[actix_rt::test]
async fn a_changed_value_sent_without_a_status_loses_its_quality_and_is_marked_changed() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    save(&c, 1.0, Some(json!({"quality": "FAILED"}))).await;
    save(&c, 2.0, None).await;
    assert_eq!(status(&c).await, json!({"source": "CHANGED"}));
    // decisions.md 12 (settled after the second trial): a write whose values equal the stored
    // ones makes no new version and changes no status, so the same value sent again without a
    // status keeps the one stored.
    let version = c.get("/object/v1/private/NBP").await.body["_version"].clone();
    save(&c, 2.0, None).await;
    assert_eq!(status(&c).await, json!({"source": "CHANGED"}));
    assert_eq!(
        c.get("/object/v1/private/NBP").await.body["_version"],
        version
    );
    // A status sent with it replaces the stored one (decisions.md 5).
    save(&c, 2.0, Some(json!({"quality": "VALID"}))).await;
    assert_eq!(status(&c).await, json!({"quality": "VALID"}));
}

#[actix_rt::test]
async fn validation_with_write_status_moves_the_quality_to_valid_or_failed() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    save(
        &c,
        -1.0,
        Some(json!({"quality": "UNCHECKED", "reliability": "QUOTED"})),
    )
    .await;
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "NBP:SPOT", "kind": "timeseries", "options": {"writeStatus": true},
            "checks": [{"name": "Positive", "expression": "value > 0"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "NBP:SPOT"}),
    )
    .await;
    // UNCHECKED -> FAILED; the rest of the status stays.
    assert_eq!(
        status(&c).await,
        json!({"quality": "FAILED", "reliability": "QUOTED"})
    );
    // Corrected and run again: FAILED -> VALID.
    save(&c, 5.0, None).await;
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "NBP:SPOT"}),
    )
    .await;
    assert_eq!(status(&c).await["quality"], "VALID");
}
