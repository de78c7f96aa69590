//! Hardening: the holes an attack pass found, each attacked the same way.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn bad_input_the_attack_pass_found_accepted_is_refused() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Admin);
    c.save(json!({"_id": "PWR", "S": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]},
                  "F": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 1}]}}))
        .await;
    let before = c.get("/object/v1/private/PWR/*").await.body;

    // A contract's value is a number.
    let m = c
        .post(
            "/object/v1",
            json!({"_id": "PWR", "F": {"_type": "VarCurve", "ondate": "2024-03-02", "contracts": [{"tenor": "M01", "value": "abc"}]}}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("abc"), "{m}");

    // background is true or false.
    c.post(
        "/validationconfig/v1",
        json!({"_id": "PWR:S", "kind": "timeseries", "checks": [{"expression": "value < 10"}]}),
    )
    .await;
    let m = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "PWR:S", "from": "2024-07-01", "to": "2024-07-02", "background": "yes"}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("background"), "{m}");

    // A statistics range is made of dates.
    let m = c
        .get("/validation/v1?_function=stats&from=garbage")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("garbage"), "{m}");
    c.get("/validation/v1?_function=stats&to=2024-13-01")
        .await
        .assert_error(400, "INVALID_PARAMETER");

    // A tenor code refused on a save is refused on a read.
    let m = c
        .get("/data/v1/private/PWR:F?tenor=M99999999")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("M99999999"), "{m}");

    // Extensions have no `all` source.
    c.get("/extension/v1/all")
        .await
        .assert_error(400, "INVALID_PARAMETER");

    assert_eq!(c.get("/object/v1/private/PWR/*").await.body, before);
    assert_eq!(
        c.get("/validation/v1").await.total(),
        0,
        "no run started"
    );
}
