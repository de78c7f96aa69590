//! The exact JSON of the automation service's answers: each answer type's serde form is the
//! text the interface has always answered, field order and all.

use super::tests::platform;
use crate::api::{Automation, Collection, Condition, LogQuery, Paging, Source};
use serde_json::json;

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

/// The log entry of the delivery of the mail with an attachment (automation `MID`).
const LOGGED: &str = r##"{"_id":"1-1","_type":"VarAutomationLogEntry","automation":"MID","target":"platform.email","owner":"ann","source":"private","service":"object","key":"PLANT1","action":"update","user":"ann","eventTimestamp":"2024-03-01T09:00:00.000Z","delivery":1,"attempt":1,"status":"success","message":"email \"changed\" to ops@acme.example, b@acme.example kept in the mail outbox (no SMTP server configured)","timestamp":"2024-03-01T09:00:00.000Z"}"##;

/// The mail with an attachment (automation `MID`).
const MAILED: &str = r##"{"_id":"mail-1","from":"platform@localhost","to":["ops@acme.example","b@acme.example"],"subject":"changed","contentType":"text/plain","body":"{\n  \"service\": \"object\",\n  \"source\": \"private\",\n  \"id\": \"PLANT1\",\n  \"action\": \"update\",\n  \"timestamp\": \"2024-03-01T09:00:00.000Z\",\n  \"user\": \"ann\",\n  \"tenant\": \"acme\",\n  \"environment\": \"production\",\n  \"data\": {\n    \"_id\": \"PLANT1\",\n    \"_type\": \"#Object\",\n    \"capacity\": 2,\n    \"_oid\": \"PLANT1\",\n    \"_timestamp\": \"2024-03-01T09:00:00.000Z\",\n    \"_user\": \"ann\",\n    \"_tag\": [],\n    \"_version\": 2\n  }\n}","attachment":{"name":"d.json","content":"{\n  \"_id\": \"PLANT1\",\n  \"_type\": \"#Object\",\n  \"capacity\": 2,\n  \"_oid\": \"PLANT1\",\n  \"_timestamp\": \"2024-03-01T09:00:00.000Z\",\n  \"_user\": \"ann\",\n  \"_tag\": [],\n  \"_version\": 2\n}"},"automation":"MID","owner":"ann","timestamp":"2024-03-01T09:00:00.000Z"}"##;

/// Two mail automations, each on updates of its own object, one attaching the data; each
/// object saved twice and the deliveries run: the log entries and the mails, newest first.
#[test]
fn log_entries_and_mails_answer_what_was_delivered() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let on = |id: &str| vec![Condition::new("object", id, "update")];
    let attached = Automation::new("email", on("PLANT1"))
        .with_property("to", "ops@acme.example; b@acme.example")
        .with_property("subject", "changed")
        .with_property("attachment", true)
        .with_property("attachmentName", "d.json");
    let plain = Automation::new("email", on("PLANT2"))
        .with_property("to", "ops@acme.example")
        .with_property("subject", "plain");
    let mid = automations.save_automation(&ann, &attached).unwrap();
    let nid = automations.save_automation(&ann, &plain).unwrap();
    let (mid, nid) = (mid.id(), nid.id());
    for id in ["PLANT1", "PLANT2"] {
        for capacity in [1, 2] {
            let body = json!({"_id": id, "capacity": capacity});
            platform
                .objects()
                .save(&ann, Collection::Object, body, &Default::default())
                .unwrap();
        }
        while platform.deliveries().run_next().unwrap() {}
    }
    let logged = LOGGED.replace("MID", mid);
    let plain_logged = logged
        .replace("\"1-1\"", "\"2-1\"")
        .replace(mid, nid)
        .replace("PLANT1", "PLANT2")
        .replace(r#""delivery":1"#, r#""delivery":2"#)
        .replace(
            r#"\"changed\" to ops@acme.example, b@acme.example"#,
            r#"\"plain\" to ops@acme.example"#,
        );
    let log = automations.log(&ann, &LogQuery::default()).unwrap();
    assert_eq!((log.total, log.estimated), (2, false));
    assert_eq!(text(&log.items), format!("[{plain_logged},{logged}]"));
    let mailed = MAILED.replace("MID", mid);
    let body_at = mailed.find(r#","body":"#).unwrap();
    let body_end = mailed.find(r#","attachment":"#).unwrap();
    let plain_mailed = format!(
        r#"{{"_id":"mail-2","from":"platform@localhost","to":["ops@acme.example"],"subject":"plain","contentType":"text/plain"{},"attachment":null,"automation":"{nid}","owner":"ann","timestamp":"2024-03-01T09:00:00.000Z"}}"#,
        mailed[body_at..body_end].replace("PLANT1", "PLANT2")
    );
    let mails = automations.mails(&ann, 0, None).unwrap();
    assert_eq!((mails.total, mails.estimated), (2, false));
    assert_eq!(text(&mails.items), format!("[{plain_mailed},{mailed}]"));
    let second = automations.mails(&ann, 1, Some(1)).unwrap();
    assert_eq!(
        (second.total, text(&second.items)),
        (2, format!("[{mailed}]"))
    );
}
