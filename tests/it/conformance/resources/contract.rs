//! Contract: tenor, value, status, ondate and properties (absolute, relative, expiry, start, end).

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn a_contract_keeps_the_tenor_code_it_was_sent_with() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [
        {"tenor": "2024Q3", "value": 1}, {"tenor": "2024M05", "value": 2}, {"tenor": "2025Y", "value": 3},
        {"tenor": "M01", "value": 4}]}}))
        .await;
    let curve = c.get("/data/v1/private/TTF:FWD:2024-03-01").await.body;
    let read: Vec<(String, String, String)> = curve["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
            (
                text(&k["tenor"]),
                text(&k["properties"]["absolute"]),
                text(&k["properties"]["relative"]),
            )
        })
        .collect();
    let want = [
        ("2024Q03", "2024Q03", "Q02"),
        ("2024M05", "2024M05", "M02"),
        ("2025Y", "2025Y", "Y01"),
        ("M01", "2024M04", "M01"),
    ];
    assert_eq!(
        read,
        want.map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    );
}
