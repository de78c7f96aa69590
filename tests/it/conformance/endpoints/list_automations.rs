//! Special function listAutomations: `GET <service>/{release}/{source}/{key}?_function=listAutomations`.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn the_transformer_input_is_a_script_filtered_on_its_category() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    c.save(json!({"_id": "GB"})).await;
    let r = c
        .get("/object/v1/private/GB?_function=listAutomations")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let email = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["target"] == "platform.email")
        .expect("an email template")
        .clone();
    let transformer = &email["inputs"]["@transformer"];
    assert_eq!(transformer["type"], "script");
    assert_eq!(transformer["filter"], json!({"category": "automation"}));
    // The platform's own transformer is in that category.
    let script = c
        .get("/script/v1/public/%23email-validation-failed")
        .await
        .body;
    assert_eq!(script["category"], "automation");
}
