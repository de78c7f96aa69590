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

/// The fields of the Automation resource (Resources and their fields, Automation).
const AUTOMATION_FIELDS: [&str; 18] = [
    "_type",
    "publisher",
    "code",
    "name",
    "description",
    "icon",
    "script",
    "template",
    "allowTransformation",
    "allowPropertyChange",
    "tags",
    "inputs",
    "properties",
    "services",
    "actions",
    "target",
    "conditions",
    "active",
];

#[actix_rt::test]
async fn list_automations_returns_the_automations_for_the_item_shaped_as_the_automation_resource() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Admin);
    c.save(
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "data": [{"time": "2024-07-01", "value": 1}]}}),
    )
    .await;
    c.post(
        "/validationconfig/v1",
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]}),
    )
    .await;
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "NBP:SPOT"}),
    )
    .await;
    for (path, service, id) in [
        ("/object/v1/private/NBP", "object", "NBP"),
        ("/data/v1/private/NBP:SPOT", "data", "NBP:SPOT"),
        (
            "/validationconfig/v1/NBP:SPOT",
            "validationconfig",
            "NBP:SPOT",
        ),
        (
            "/validation/v1/NBP:SPOT:2024-07-01",
            "validation",
            "NBP:SPOT:2024-07-01",
        ),
    ] {
        let r = c.get(&format!("{path}?_function=listAutomations")).await;
        assert_eq!(r.status, 200, "{path}: {:?}", r.body);
        let items = r.body.as_array().unwrap();
        assert!(!items.is_empty(), "{path}");
        assert_eq!(r.total(), items.len() as u64, "{path}");
        for item in items {
            for field in AUTOMATION_FIELDS {
                assert!(item.get(field).is_some(), "{path}: {field} in {item}");
            }
            assert_eq!(item["_type"], "VarAutomation", "{path}");
            // Each is for this item: its condition names the service and the id.
            let condition = &item["conditions"][0];
            assert_eq!(
                (condition["service"].clone(), condition["id"].clone()),
                (json!(service), json!(id)),
                "{path}: {item}"
            );
        }
    }
    // The actions offered are the service's: data update, invalid, validated.
    let data = c
        .get("/data/v1/private/NBP:SPOT?_function=listAutomations")
        .await
        .body;
    let mut actions: Vec<&str> = data
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["conditions"][0]["action"].as_str().unwrap())
        .collect();
    actions.sort_unstable();
    actions.dedup();
    assert_eq!(actions, ["invalid", "update", "validated"]);
    // An item that does not exist has none.
    c.get("/object/v1/private/NOPE?_function=listAutomations")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn filling_the_inputs_into_properties_and_sending_it_with_conditions_creates_the_automation()
{
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    c.save(json!({"_id": "NBP"})).await;
    let templates = c
        .get("/object/v1/private/NBP?_function=listAutomations")
        .await
        .body;
    let mut email = templates
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["target"] == "platform.email" && t["conditions"][0]["action"] == "update")
        .expect("an email on update")
        .clone();
    let inputs: Vec<String> = email["inputs"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert!(
        inputs.contains(&"to".to_string()) && inputs.contains(&"subject".to_string()),
        "{inputs:?}"
    );
    email["properties"] = json!({"to": "ops@example.com", "subject": "NBP changed"});
    let r = c.post("/automation/v1", email).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (
            r.body["target"].clone(),
            r.body["properties"]["to"].clone(),
            r.body["conditions"][0]["id"].clone()
        ),
        (
            json!("platform.email"),
            json!("ops@example.com"),
            json!("NBP")
        )
    );
    let id = r.body["_id"].as_str().unwrap();
    assert_eq!(
        c.get(&format!("/automation/v1/{id}")).await.body["conditions"][0]["action"],
        "update"
    );
    // It works: a change of the item puts an email in the outbox.
    c.save(json!({"_id": "NBP", "v": 2})).await;
    s.platform.deliveries().run_due().unwrap();
    let mail = c.get("/automation/v1/mail").await;
    assert_eq!(mail.total(), 1, "{:?}", mail.body);
}
