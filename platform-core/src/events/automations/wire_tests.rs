//! The exact JSON of the automation service's answers: each answer type's serde form is the
//! text the interface has always answered, field order and all.

use super::tests::platform;
use super::{sync_owned, Automations};
use crate::api::time::delay_param;
use crate::api::{
    automations::Automation, automations::Condition, automations::LogQuery, Collection, Paging,
    Principal, Source,
};
use serde_json::{json, Value};

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
    let mid = automations.save(&ann, &attached).unwrap();
    let nid = automations.save(&ann, &plain).unwrap();
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

/// The saves, reads, switches, test-firings and deletion of the interface's examples: each
/// answer's exact text (`@ID1@`, `@ID2@`: the ids the saves were given).
#[test]
fn stored_automations_firings_and_deletions_answer_their_fields_in_order() {
    let (platform, ann) = platform();
    let bob = platform.tenancy().local_principal("acme", "bob").unwrap();
    let automations = platform.automations();
    let save = |who: &Principal, body: Value| {
        automations
            .save(who, &Automation::from_body(&body).unwrap())
            .unwrap()
    };
    let first = save(
        &ann,
        json!({"note": "x", "icon": "bell", "description": "tells ops",
        "name": "plant alert", "target": "email", "active": false, "owner": "zed", "_run": 1,
        "properties": {"subject": "PLANT1 changed", "to": "ops@acme.example", "attachment": true,
            "extra": [1, 2.5]},
        "conditions": [{"service": "object", "id": "PLANT1", "action": "update"},
            {"source": "*", "service": "data"}]}),
    );
    let second = save(
        &ann,
        json!({"description": null, "icon": null, "name": "  ",
        "target": "platform.webhook", "enabled": true,
        "properties": {"url": "https://hooks.example.com/x"},
        "conditions": [{"service": "object", "action": "*", "id": "*", "source": "public"}]}),
    );
    let (id1, id2) = (first.id().to_string(), second.id().to_string());
    let wire = |t: &str| t.replace("@ID1@", &id1).replace("@ID2@", &id2);
    assert_eq!(text(&first), wire(SAVED));
    assert_eq!(text(&second), wire(NULLS));
    let update = json!({"_id": id1, "target": "email",
        "properties": {"to": "ops@acme.example", "subject": "s", "attachment": true},
        "conditions": [{"service": "object", "id": "PLANT1", "action": "update"}]});
    assert_eq!(text(&save(&bob, update)), wire(UPDATED));
    assert_eq!(
        text(&automations.automation(&ann, &id1).unwrap()),
        wire(UPDATED)
    );
    let page = automations.automations(&ann, &ALL).unwrap();
    let mut listed = [wire(NULLS), wire(UPDATED)];
    if id1 < id2 {
        listed.reverse();
    }
    assert_eq!(text(&page.items), format!("[{}]", listed.join(",")));
    let off = wire(NULLS).replace(r#""enabled":true"#, r#""enabled":false"#);
    assert_eq!(
        text(&automations.set_enabled(&ann, &id2, false).unwrap()),
        off
    );
    let on = Automations::enabled_from_body(&json!({"active": true})).unwrap();
    assert_eq!(
        text(&automations.set_enabled(&ann, &id2, on).unwrap()),
        wire(NULLS)
    );
    let delay = delay_param(Some("1500")).unwrap();
    assert_eq!(
        text(&automations.test(&ann, &id1, delay).unwrap()),
        wire(FIRED)
    );
    assert_eq!(
        text(&automations.test(&ann, &id2, None).unwrap()),
        wire(FIRED_NOW)
    );
    assert_eq!(
        text(&automations.delete(&ann, &id2).unwrap()),
        wire(DELETED)
    );
    let config = json!({"runOnUpdate": true});
    let owned = platform
        .write(|tx| {
            sync_owned(
                tx,
                &ann,
                "PLANT1:SPOT",
                config.as_object(),
                "2024-03-01T09:00:00.000Z",
            )
        })
        .unwrap()
        .unwrap();
    assert_eq!(
        text(&automations.automation(&ann, &owned.0).unwrap()),
        OWNED
    );
}

/// A save: the name, description and icon sent, the target by its id, the properties in
/// their order, the conditions with their defaults, `active` read as `enabled`.
const SAVED: &str = r#"{"_id":"@ID1@","_type":"VarAutomation","name":"plant alert","description":"tells ops","icon":"bell","target":"platform.email","template":"send an email to [to] with subject [subject]","properties":{"subject":"PLANT1 changed","to":"ops@acme.example","attachment":true,"extra":[1,2.5]},"conditions":[{"source":"private","service":"object","id":"PLANT1","action":"update"},{"source":"*","service":"data","id":"*","action":"*"}],"enabled":false,"owner":"ann","created":"2024-03-01T09:00:00.000Z","updated":"2024-03-01T09:00:00.000Z"}"#;

/// A save with a null description and icon (kept) and a blank name (made).
const NULLS: &str = r#"{"_id":"@ID2@","_type":"VarAutomation","name":"When object * raises *, post it to https://hooks.example.com/x","description":null,"icon":null,"target":"platform.webhook","template":"post it to [url]","properties":{"url":"https://hooks.example.com/x"},"conditions":[{"source":"public","service":"object","id":"*","action":"*"}],"enabled":true,"owner":"ann","created":"2024-03-01T09:00:00.000Z","updated":"2024-03-01T09:00:00.000Z"}"#;

/// An update by another user: a new document, its owner the user.
const UPDATED: &str = r#"{"_id":"@ID1@","_type":"VarAutomation","name":"When object PLANT1 raises update, send an email to ops@acme.example with subject s","target":"platform.email","template":"send an email to [to] with subject [subject]","properties":{"to":"ops@acme.example","subject":"s","attachment":true},"conditions":[{"source":"private","service":"object","id":"PLANT1","action":"update"}],"enabled":true,"owner":"bob","created":"2024-03-01T09:00:00.000Z","updated":"2024-03-01T09:00:00.000Z"}"#;

/// A test-firing due in 1.5 seconds.
const FIRED: &str = r#"{"_id":"@ID1@","queued":true,"due":"2024-03-01T09:00:01.500Z","event":{"service":"object","source":"private","id":"PLANT1","action":"update","timestamp":"2024-03-01T09:00:00.000Z","user":"ann","tenant":"acme","environment":"production","data":{"_test":true},"test":true}}"#;

/// A test-firing of an automation on any public object, due now.
const FIRED_NOW: &str = r#"{"_id":"@ID2@","queued":true,"due":"2024-03-01T09:00:00.000Z","event":{"service":"object","source":"public","id":"test","action":"create","timestamp":"2024-03-01T09:00:00.000Z","user":"ann","tenant":"acme","environment":"production","data":{"_test":true},"test":true}}"#;

const DELETED: &str = r#"{"_id":"@ID2@","deleted":true}"#;

/// The automation a validation configuration owns.
const OWNED: &str = r#"{"_id":"40f7b942e4fca792b3d80911","_type":"VarAutomation","name":"When data PLANT1:SPOT is updated, run its validation checks","target":"platform.validation","template":"run the validation checks","properties":{},"conditions":[{"source":"private","service":"data","id":"PLANT1:SPOT","action":"update"}],"enabled":true,"owner":"ann","created":"2024-03-01T09:00:00.000Z","updated":"2024-03-01T09:00:00.000Z","ownedBy":{"service":"validationconfig","id":"PLANT1:SPOT"}}"#;

/// Bodies refused, each with the code and text the interface has always given: the first
/// fault in the order the fields are read (the body, its target and conditions, properties,
/// `enabled`, names; then, in the write, the items its properties name and the automation its
/// `_id` names).
#[test]
fn bodies_are_refused_with_their_texts() {
    let (platform, ann) = platform();
    let automations = platform.automations();
    let props = json!({"to": "ops@acme.example", "subject": "s"});
    let on = |service: &str, action: &str| json!([{"source": "private", "service": service, "id": "*", "action": action}]);
    let cases = [
        (
            json!([]),
            "INVALID_BODY",
            "an automation must be a JSON object, not an array",
        ),
        (
            json!({"properties": props, "conditions": on("object", "update")}),
            "MISSING_PARAMETER",
            "an automation needs a target (GET /action/v1/public lists them)",
        ),
        (
            json!({"target": 3}),
            "INVALID_BODY",
            "target must be a string, not a number",
        ),
        (
            json!({"target": "fax", "conditions": on("object", "*")}),
            "INVALID_PARAMETER",
            "target \"fax\" does not exist; GET /action/v1/public lists the targets (platform.validation, platform.email, platform.webhook, platform.script)",
        ),
        (
            json!({"target": "email"}),
            "MISSING_PARAMETER",
            "an automation needs conditions: [{source, service, id, action}]",
        ),
        (
            json!({"target": "email", "conditions": []}),
            "MISSING_PARAMETER",
            "an automation needs conditions: [{source, service, id, action}]",
        ),
        (
            json!({"target": "email", "conditions": {}}),
            "INVALID_BODY",
            "conditions must be an array, not an object",
        ),
        (
            json!({"target": "email", "conditions": [3]}),
            "INVALID_BODY",
            "conditions[0] must be an object, not a number",
        ),
        (
            json!({"target": "email", "conditions": [{}]}),
            "MISSING_PARAMETER",
            "conditions[0] has no service",
        ),
        (
            json!({"target": "email", "conditions": [{"service": ""}]}),
            "INVALID_BODY",
            "conditions[0].service must be a non-empty string, not \"\"",
        ),
        (
            json!({"target": "email", "conditions": [{"service": "weather"}]}),
            "INVALID_PARAMETER",
            "conditions[0].service \"weather\" raises no events; use one of object, type, script, secret, validationconfig, calendar, data, validation, extension",
        ),
        (
            json!({"target": "email", "conditions": [{"service": "object", "action": "fly"}]}),
            "INVALID_PARAMETER",
            "conditions[0].action \"fly\" is not an action of the object service; use * or one of create, update, delete",
        ),
        (
            json!({"target": "email", "conditions": [{"service": "object", "source": "both"}]}),
            "INVALID_PARAMETER",
            "conditions[0].source must be private, public or *, not \"both\"",
        ),
        (
            json!({"target": "email", "conditions": [{"service": "object", "id": 4}]}),
            "INVALID_BODY",
            "conditions[0].id must be a non-empty string, not 4",
        ),
        (
            json!({"target": "validation", "conditions": on("object", "update")}),
            "INVALID_PARAMETER",
            "target platform.validation (Run validation checks) does not take object update events; it takes services data and actions update",
        ),
        (
            json!({"target": "email", "conditions": vec![on("object", "*")[0].clone(); 21]}),
            "INVALID_PARAMETER",
            "an automation takes at most 20 conditions, not 21",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "properties": 3}),
            "INVALID_BODY",
            "properties must be an object, not a number",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "enabled": "yes"}),
            "INVALID_BODY",
            "enabled must be a boolean, not \"yes\"",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "active": 1}),
            "INVALID_BODY",
            "enabled must be a boolean, not 1",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "name": 1}),
            "INVALID_BODY",
            "name must be a string, not a number",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "icon": true}),
            "INVALID_BODY",
            "icon must be a string, not a boolean",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "properties": {"to": "ops@acme.example"}}),
            "MISSING_PARAMETER",
            "target platform.email needs properties.subject (The subject line)",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "properties": {"to": "bad", "subject": "s"}}),
            "INVALID_PARAMETER",
            "properties.to: \"bad\" is not an email address",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "properties": {"to": "a@b.c", "subject": 5}}),
            "INVALID_PARAMETER",
            "properties.subject must be a string, not 5",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "properties": {"to": "a@b.c", "subject": "s", "attachment": "y"}}),
            "INVALID_PARAMETER",
            "properties.attachment must be a boolean, not \"y\"",
        ),
        (
            json!({"target": "webhook", "conditions": on("object", "*"), "properties": {"url": "ftp://x/y"}}),
            "INVALID_PARAMETER",
            "properties.url \"ftp://x/y\" must start with http:// or https://",
        ),
        (
            json!({"target": "webhook", "conditions": on("object", "*"), "properties": {"url": "https://x.example/y", "secret": "nope"}}),
            "INVALID_PARAMETER",
            "properties.secret: secret \"nope\" does not exist",
        ),
        (
            json!({"target": "script", "conditions": on("object", "*"), "properties": {"script": "nope"}}),
            "INVALID_PARAMETER",
            "properties.script: script \"nope\" does not exist",
        ),
        (
            json!({"target": "script", "conditions": on("object", "*"), "properties": {"script": "x", "@transformer": "y"}}),
            "INVALID_PARAMETER",
            "properties.script: script \"x\" does not exist",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "properties": props, "_id": 5}),
            "INVALID_ID",
            "_id must be a string, not a number",
        ),
        (
            json!({"target": "email", "conditions": on("object", "*"), "properties": props, "_id": "0123456789abcdef01234567"}),
            "NOT_FOUND",
            "automation \"0123456789abcdef01234567\" not found",
        ),
    ];
    for (body, code, message) in cases {
        let e = Automation::from_body(&body)
            .and_then(|a| automations.save(&ann, &a))
            .unwrap_err();
        assert_eq!(
            (e.code().name(), e.to_string()),
            (code, message.into()),
            "{body}"
        );
    }
    // A wrong `_id` is a fault of the body, found before the items its properties name.
    let body = json!({"target": "email", "conditions": on("object", "*"),
        "properties": {"to": "bad"}, "_id": 5});
    let e = Automation::from_body(&body).unwrap_err();
    assert_eq!(e.to_string(), "_id must be a string, not a number");
    for text in ["61000", "-1", "abc", "", "1.5"] {
        let e = delay_param(Some(text)).unwrap_err();
        assert_eq!(
            (e.code().name(), e.to_string()),
            (
                "INVALID_PARAMETER",
                format!("_delay must be 0 to 60000 milliseconds, not \"{text}\"")
            )
        );
    }
    assert_eq!(automations.automations(&ann, &ALL).unwrap().total, 0);
}
