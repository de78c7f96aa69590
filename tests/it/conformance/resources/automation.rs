//! Automation: the fields of an automation definition (as `listAutomations` offers them) and of
//! an automation to be saved (`active`); its required fields and rules are not shown, so the
//! project's decisions settle them.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// The automation definitions offered for the private object `GB`.
async fn definitions(c: &Client<'_>) -> Vec<Value> {
    c.save(json!({"_id": "GB"})).await;
    let r = c
        .get("/object/v1/private/GB?_function=listAutomations")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body.as_array().unwrap().clone()
}

fn email_on_create(defs: &[Value]) -> Value {
    defs.iter()
        .find(|d| d["target"] == "platform.email" && d["conditions"][0]["action"] == "create")
        .expect("an email definition")
        .clone()
}

#[actix_rt::test]
async fn a_definition_carries_the_fields_of_the_interface() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let defs = definitions(&c).await;
    assert!(!defs.is_empty());
    for d in &defs {
        assert_eq!(d["_type"], "VarAutomation", "{d}");
        for k in [
            "publisher",
            "code",
            "name",
            "description",
            "icon",
            "script",
            "template",
            "target",
        ] {
            assert!(d[k].as_str().is_some_and(|v| !v.is_empty()), "{k} in {d}");
        }
        for k in ["allowTransformation", "allowPropertyChange", "active"] {
            assert!(d[k].is_boolean(), "{k} in {d}");
        }
        for k in ["tags", "services", "actions", "conditions"] {
            assert!(d[k].is_array(), "{k} in {d}");
        }
        assert!(
            d["tags"].as_array().unwrap().iter().all(Value::is_string),
            "{d}"
        );
        for k in ["inputs", "properties"] {
            assert!(d[k].is_object(), "{k} in {d}");
        }
    }
}

#[actix_rt::test]
async fn publisher_and_code_identify_a_catalog_entry_and_target_is_its_id() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    for d in definitions(&c).await {
        let entry = format!(
            "{}.{}",
            d["publisher"].as_str().unwrap(),
            d["code"].as_str().unwrap()
        );
        assert_eq!(d["target"], entry.as_str(), "{d}");
        let r = c.get(&format!("/action/v1/public/{entry}")).await;
        assert_eq!(r.status, 200, "{entry}: {:?}", r.body);
        assert_eq!(
            (
                r.body["_id"].clone(),
                r.body["publisher"].clone(),
                r.body["code"].clone()
            ),
            (json!(entry), d["publisher"].clone(), d["code"].clone())
        );
    }
}

#[actix_rt::test]
async fn template_is_a_sentence_with_the_bracketed_input_names() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let email = email_on_create(&definitions(&c).await);
    let template = email["template"].as_str().unwrap();
    assert!(
        template.contains("[to]") && template.contains("[subject]"),
        "{template}"
    );
    // Every bracketed name is an input.
    for part in template.split('[').skip(1) {
        let name = part.split(']').next().unwrap();
        assert!(
            email["inputs"].get(name).is_some(),
            "[{name}] of {template}"
        );
    }
}

#[actix_rt::test]
async fn inputs_map_each_input_name_to_its_description_type_and_filter() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let email = email_on_create(&definitions(&c).await);
    let inputs = email["inputs"].as_object().unwrap();
    for name in ["to", "subject", "@transformer"] {
        let spec = &inputs[name];
        assert!(
            spec["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name}: {spec}"
        );
        assert!(spec["type"].is_string(), "{name}: {spec}");
    }
    assert_eq!(
        (
            inputs["@transformer"]["type"].clone(),
            inputs["@transformer"]["filter"].clone()
        ),
        (json!("script"), json!({"category": "automation"}))
    );
}

#[actix_rt::test]
async fn services_and_actions_list_what_is_allowed_with_a_star_for_any() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    c.save(json!({"_id": "NBP", "S": {"_type": "VarTimeSeries", "data": []}}))
        .await;
    let r = c
        .get("/data/v1/private/NBP:S?_function=listAutomations")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let defs = r.body.as_array().unwrap();
    let validation = defs
        .iter()
        .find(|d| d["target"] == "platform.validation")
        .unwrap();
    assert_eq!(
        (
            validation["services"].clone(),
            validation["actions"].clone()
        ),
        (json!(["data"]), json!(["update"]))
    );
    assert_eq!(validation["conditions"][0]["action"], "update");
    let email = defs
        .iter()
        .find(|d| d["target"] == "platform.email")
        .unwrap();
    assert_eq!(
        (email["services"].clone(), email["actions"].clone()),
        (json!(["*"]), json!(["*"]))
    );
    // An automation outside what its target allows is refused (docs/decisions.md, "Automations").
    let m = c
        .post(
            "/automation/v1",
            json!({"target": "platform.validation",
            "conditions": [{"service": "object", "id": "GB", "action": "update"}]}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("platform.validation"), "{m}");
}

#[actix_rt::test]
async fn conditions_carry_source_service_id_and_action() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let email = email_on_create(&definitions(&c).await);
    assert_eq!(
        email["conditions"],
        json!([{"source": "private", "service": "object", "id": "GB", "action": "create"}])
    );
}

#[actix_rt::test]
async fn a_definition_with_its_inputs_filled_into_properties_saves_as_an_automation() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let mut def = email_on_create(&definitions(&c).await);
    def["properties"] = json!({"to": "ops@example.com", "subject": "GB created"});
    let r = c.post("/automation/v1", def).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let saved = r.body;
    assert_eq!(
        (
            saved["_type"].clone(),
            saved["target"].clone(),
            saved["enabled"].clone()
        ),
        (json!("VarAutomation"), json!("platform.email"), json!(true))
    );
    assert_eq!(
        saved["properties"],
        json!({"to": "ops@example.com", "subject": "GB created"})
    );
    assert_eq!(
        saved["conditions"],
        json!([{"source": "private", "service": "object", "id": "GB", "action": "create"}])
    );
    assert_eq!(c.get("/automation/v1").await.total(), 1);
    // Required inputs left out are refused (docs/decisions.md, "Automations").
    let bare = email_on_create(&definitions(&c).await);
    let m = c
        .post("/automation/v1", bare)
        .await
        .assert_error(400, "MISSING_PARAMETER");
    assert!(m.contains("properties.to"), "{m}");
}

#[actix_rt::test]
async fn active_on_an_automation_to_be_saved_switches_it_on_or_off() {
    // docs/decisions.md, "Automations": `enabled` (or `active`) defaults to true.
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let body = |active: Option<bool>| {
        let mut b = json!({"target": "platform.email", "properties": {"to": "ops@example.com", "subject": "s"},
            "conditions": [{"service": "object", "id": "GB", "action": "update"}]});
        if let Some(a) = active {
            b["active"] = json!(a);
        }
        b
    };
    let off = c.post("/automation/v1", body(Some(false))).await;
    assert_eq!(off.body["enabled"], false, "{:?}", off.body);
    let on = c.post("/automation/v1", body(Some(true))).await;
    assert_eq!(on.body["enabled"], true, "{:?}", on.body);
    let default = c.post("/automation/v1", body(None)).await;
    assert_eq!(default.body["enabled"], true, "{:?}", default.body);
}

#[actix_rt::test]
async fn target_conditions_and_the_targets_required_inputs_are_required() {
    // Not shown; docs/decisions.md, "Automations": required are `target`, `conditions` (1 to
    // 20, each with a service) and the target's required inputs in `properties`.
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let props = json!({"to": "ops@example.com", "subject": "s"});
    let condition = json!({"service": "object", "id": "GB", "action": "update"});
    let cases = [
        (
            json!({"properties": props, "conditions": [condition]}),
            "MISSING_PARAMETER",
            "target",
        ),
        (
            json!({"target": "platform.email", "properties": props}),
            "MISSING_PARAMETER",
            "conditions",
        ),
        (
            json!({"target": "platform.email", "properties": props, "conditions": [{"id": "GB"}]}),
            "MISSING_PARAMETER",
            "service",
        ),
        (
            json!({"target": "platform.email", "properties": {"to": "ops@example.com"}, "conditions": [condition]}),
            "MISSING_PARAMETER",
            "properties.subject",
        ),
        (
            json!({"target": "platform.email", "properties": props, "conditions": vec![condition.clone(); 21]}),
            "INVALID_PARAMETER",
            "20",
        ),
    ];
    for (body, code, mention) in cases {
        let m = c
            .post("/automation/v1", body.clone())
            .await
            .assert_error(400, code);
        assert!(m.contains(mention), "{body}: {m}");
    }
    assert_eq!(c.get("/automation/v1").await.total(), 0);
    let ok = c
        .post("/automation/v1", json!({"target": "platform.email", "properties": props, "conditions": vec![condition; 20]}))
        .await;
    assert_eq!(ok.status, 200, "{:?}", ok.body);
}
