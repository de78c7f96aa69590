//! Status: the allowed values of quality, source and reliability, each optionally followed by
//! ':' and free text.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// Saves one observation with `status` and answers the response.
async fn save_status(c: &Client<'_>, status: Value) -> crate::common::Resp {
    c.post(
        "/object/v1",
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
            "data": [{"time": "2024-07-01", "value": 1, "status": status}]}}),
    )
    .await
}

async fn read_status(c: &Client<'_>) -> Value {
    c.get("/data/v1/private/NBP:SPOT").await.body["data"][0]["status"].clone()
}

const FIELDS: [(&str, &[&str]); 3] = [
    ("quality", &["UNCHECKED", "VALID", "FAILED"]),
    (
        "source",
        &[
            "NEW",
            "CHANGED",
            "IMPLIED",
            "FILLED",
            "CONVERTED",
            "CALCULATED",
        ],
    ),
    (
        "reliability",
        &["UNKNOWN", "QUOTED", "OBSERVED", "UNOBSERVED"],
    ),
];

#[actix_rt::test]
async fn each_field_takes_exactly_its_allowed_values() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for (field, allowed) in FIELDS {
        for value in allowed {
            let r = save_status(&c, json!({ field: value })).await;
            assert_eq!(r.status, 200, "{field} {value}: {:?}", r.body);
            assert_eq!(read_status(&c).await, json!({ field: value }));
        }
        // A value of another field, or none of them, is refused and nothing changes.
        let last = json!({ field: allowed[allowed.len() - 1] });
        for bad in ["GREAT", "OK", "QUOTEDX"] {
            let m = save_status(&c, json!({ field: bad }))
                .await
                .assert_error(400, "INVALID_BODY");
            assert!(m.contains(bad), "{field} {bad}: {m}");
        }
        assert_eq!(read_status(&c).await, last);
    }
    // Values of one field are not values of another.
    save_status(&c, json!({"quality": "QUOTED"}))
        .await
        .assert_error(400, "INVALID_BODY");
    save_status(&c, json!({"reliability": "VALID"}))
        .await
        .assert_error(400, "INVALID_BODY");
    save_status(&c, json!({"source": "FAILED"}))
        .await
        .assert_error(400, "INVALID_BODY");
}

#[actix_rt::test]
async fn a_value_may_carry_a_colon_and_free_text_about_the_status() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let status = json!({"quality": "FAILED:spike of 40% at 10:00", "source": "CALCULATED:from hourly",
        "reliability": "QUOTED:broker A"});
    let r = save_status(&c, status.clone()).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(read_status(&c).await, status);
    // The part before the colon must still be an allowed value.
    save_status(&c, json!({"quality": "GREAT:really"}))
        .await
        .assert_error(400, "INVALID_BODY");
}
