//! Extension: its fields, the fields of an ExtensionView and their defaults, and resources.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn a_view_reads_back_with_the_defaults_the_interface_names() {
    let s = TestServer::new();
    let c = s.client_of("acme", "ann", Role::Admin);
    let r = c
        .post("/extension/v1", json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": "Prices",
            "views": [{"name": "main", "script": "v"},
                      {"name": "sheet", "script": "v", "section": "Data", "tabname": "Curves", "excel": true, "insights": true}]}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let saved = c.get("/extension/v1/private/acme.prices").await.body;
    let main = &saved["views"][0];
    assert_eq!(
        (
            main["section"].clone(),
            main["tabname"].clone(),
            main["excel"].clone(),
            main["insights"].clone()
        ),
        (
            json!("Extension"),
            json!("Main"),
            json!(false),
            json!(false)
        )
    );
    let sheet = &saved["views"][1];
    assert_eq!(
        (
            sheet["section"].clone(),
            sheet["tabname"].clone(),
            sheet["excel"].clone(),
            sheet["insights"].clone()
        ),
        (json!("Data"), json!("Curves"), json!(true), json!(true))
    );
    let message = c
        .post(
            "/extension/v1",
            json!({"_id": "acme.bad", "publisher": "acme", "code": "bad",
            "views": [{"name": "main", "excel": "yes"}]}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(message.contains("views[0].excel"), "{message}");
}
