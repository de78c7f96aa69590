//! The exact JSON of the automation service's answers: each answer type's serde form is the
//! text the interface has always answered, field order and all.

use super::tests::platform;
use crate::api::{Collection, Paging, Source};

const ALL: Paging = Paging {
    skip: 0,
    limit: None,
};

/// The wire text of an answer.
fn text(answer: &impl serde::Serialize) -> String {
    serde_json::to_string(answer).unwrap()
}

/// The four targets of the catalogue, as `GET /action/v1/public` lists them.
const TARGETS: [&str; 4] = [
    r#"{"_id":"platform.validation","_type":"VarAutomationTarget","publisher":"platform","code":"validation","name":"Run validation checks","description":"Runs the validation checks of the data item on the data that was saved","icon":"check2-square","template":"run the validation checks","tags":["Quality"],"inputs":{},"properties":{},"services":["data"],"actions":["update"],"allowTransformation":false,"allowPropertyChange":true}"#,
    r#"{"_id":"platform.email","_type":"VarAutomationTarget","publisher":"platform","code":"email","name":"Send an email","description":"Sends an email (through the configured SMTP server, or to the mail outbox)","icon":"envelope-paper","template":"send an email to [to] with subject [subject]","tags":["Communication"],"inputs":{"to":{"description":"Recipients, separated by comma, semicolon or space","type":"email","required":true},"subject":{"description":"The subject line","type":"string","required":true},"attachment":{"description":"Attach the event data as a JSON file","type":"boolean","required":false},"attachmentName":{"description":"File name of the attachment (default data.json)","type":"string","required":false},"@transformer":{"description":"A script (rhai, or a mustache template) that turns the event into what is sent","type":"script","required":false,"filter":{"category":"automation"}}},"properties":{},"services":["*"],"actions":["*"],"allowTransformation":true,"allowPropertyChange":true}"#,
    r#"{"_id":"platform.webhook","_type":"VarAutomationTarget","publisher":"platform","code":"webhook","name":"Call a webhook","description":"POSTs the event as JSON to a URL, signed with HMAC-SHA256 when a secret is given","icon":"broadcast","template":"post it to [url]","tags":["Integration"],"inputs":{"url":{"description":"The http or https URL to POST to","type":"url","required":true},"secret":{"description":"Id of a secret whose value keys the x-platform-signature header","type":"secret","required":false},"@transformer":{"description":"A script (rhai, or a mustache template) that turns the event into what is sent","type":"script","required":false,"filter":{"category":"automation"}}},"properties":{},"services":["*"],"actions":["*"],"allowTransformation":true,"allowPropertyChange":true}"#,
    r#"{"_id":"platform.script","_type":"VarAutomationTarget","publisher":"platform","code":"script","name":"Run a script","description":"Runs a rhai script with the event in scope (variables event, data, properties)","icon":"code-slash","template":"run the script [script]","tags":["Scripting"],"inputs":{"script":{"description":"Id of a rhai script","type":"script","required":true,"filter":{"scriptType":"rhai"}}},"properties":{},"services":["*"],"actions":["*"],"allowTransformation":false,"allowPropertyChange":true}"#,
];

#[test]
fn targets_answer_the_catalogue_entities() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let page = automations.targets(&ann, &ALL).unwrap();
    assert_eq!((page.total, page.estimated), (4, false));
    assert_eq!(text(&page.items), format!("[{}]", TARGETS.join(",")));
    let webhook = automations.target(&ann, "webhook").unwrap();
    assert_eq!(text(&webhook), TARGETS[2]);
}

/// The email template on creations of an object.
const EMAIL_ON_CREATE: &str = r#"{"_type":"VarAutomation","publisher":"platform","code":"email","name":"Send an email","description":"Sends an email (through the configured SMTP server, or to the mail outbox)","icon":"envelope-paper","script":"platform.email","template":"When object PLANT1 raises create, send an email to [to] with subject [subject]","allowTransformation":true,"allowPropertyChange":true,"tags":["Communication"],"inputs":{"to":{"description":"Recipients, separated by comma, semicolon or space","type":"email","required":true},"subject":{"description":"The subject line","type":"string","required":true},"attachment":{"description":"Attach the event data as a JSON file","type":"boolean","required":false},"attachmentName":{"description":"File name of the attachment (default data.json)","type":"string","required":false},"@transformer":{"description":"A script (rhai, or a mustache template) that turns the event into what is sent","type":"script","required":false,"filter":{"category":"automation"}}},"properties":{},"services":["*"],"actions":["*"],"target":"platform.email","conditions":[{"source":"private","service":"object","id":"PLANT1","action":"create"}],"active":true}"#;

/// The script template on deletions of an object: its target's entity with the sentence of
/// the automation, the condition on the item and `active`.
const SCRIPT_ON_DELETE: &str = r#"{"_type":"VarAutomation","publisher":"platform","code":"script","name":"Run a script","description":"Runs a rhai script with the event in scope (variables event, data, properties)","icon":"code-slash","script":"platform.script","template":"When object PLANT1 raises delete, run the script [script]","allowTransformation":false,"allowPropertyChange":true,"tags":["Scripting"],"inputs":{"script":{"description":"Id of a rhai script","type":"script","required":true,"filter":{"scriptType":"rhai"}}},"properties":{},"services":["*"],"actions":["*"],"target":"platform.script","conditions":[{"source":"private","service":"object","id":"PLANT1","action":"delete"}],"active":true}"#;

#[test]
fn templates_answer_the_targets_with_the_condition_on_the_item() {
    let (platform, ann) = platform();
    let body = serde_json::json!({"_id": "PLANT1"});
    platform
        .objects()
        .save(&ann, Collection::Object, body, &Default::default())
        .unwrap();
    let templates = platform
        .automations()
        .templates(&ann, "object", Source::All, "PLANT1")
        .unwrap();
    let texts: Vec<String> = templates.iter().map(text).collect();
    assert_eq!(texts[8], SCRIPT_ON_DELETE);
    assert_eq!(texts[0], EMAIL_ON_CREATE);
    let made: Vec<(&str, &str)> = templates
        .iter()
        .map(|t| (t.code.as_str(), t.conditions[0].action.as_str()))
        .collect();
    assert_eq!(
        made,
        [
            ("email", "create"),
            ("email", "update"),
            ("email", "delete"),
            ("webhook", "create"),
            ("webhook", "update"),
            ("webhook", "delete"),
            ("script", "create"),
            ("script", "update"),
            ("script", "delete"),
        ]
    );
}
