//! Data service: `{base_url}/data` (read-only): lists, one item, `all` with `_id`, and the query
//! parameters `tenor`, `listTenors`, `_range`, `_id`, `currency`, `units`, `__density`,
//! `_distinct=_objtype` and `_filter`.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn tenor_accepts_every_form_accepted_on_input() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (ondate, value) in [("2024-03-01", 29.8), ("2024-04-01", 30.2)] {
        c.save(
            json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": ondate,
            "contracts": [{"tenor": "2024Q3", "value": value}]}}),
        )
        .await;
    }
    for code in ["2024Q3", "2024Q03", "2024q3"] {
        let r = c
            .get(&format!("/data/v1/private/TTF:FWD?tenor={code}"))
            .await;
        assert_eq!(r.status, 200, "{code}: {:?}", r.body);
        assert_eq!(
            r.body["data"],
            json!([{"time": "2024-03-01", "value": 29.8}, {"time": "2024-04-01", "value": 30.2}]),
            "{code}"
        );
    }
    // The relative code rolls: Q02 is 2024Q3 on 2024-03-01 and 2024Q4 on 2024-04-01.
    let r = c.get("/data/v1/private/TTF:FWD?tenor=Q2").await;
    assert_eq!(
        r.body["data"],
        json!([{"time": "2024-03-01", "value": 29.8}])
    );
    c.get("/data/v1/private/TTF:FWD?tenor=2024X9")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}
