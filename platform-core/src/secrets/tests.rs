//! The secret calls: what a save stores and answers, and the exact JSON of each answer.

use super::{Secret, StoredSecret};
use crate::auth::{Principal, Role};
use crate::clock::FixedClock;
use crate::error::ErrorCode;
use crate::Platform;
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};
use std::sync::Arc;

fn admin(platform: &Platform) -> Principal {
    platform.tenancy().local_principal("acme", "ann").unwrap()
}

/// A platform on a clock fixed at 2024-07-10 12:00 UTC.
fn platform() -> Platform {
    let at = Utc.with_ymd_and_hms(2024, 7, 10, 12, 0, 0).unwrap();
    Platform::in_memory()
        .unwrap()
        .with_clock(Arc::new(FixedClock::new(at)))
}

/// The wire text of an answer.
fn text(answer: &impl serde::Serialize) -> String {
    serde_json::to_string(answer).unwrap()
}

/// A save of a request's body, as the server makes it.
fn save_body(platform: &Platform, body: Value) -> crate::Result<StoredSecret> {
    platform
        .secrets()
        .save(&admin(platform), &Secret::from_body(&body)?)
}

/// A save stores what was sent (the value only where read), and what is not sent stays.
#[test]
fn secrets_read_back_as_sent() {
    let platform = Platform::in_memory().unwrap();
    let (me, secrets) = (admin(&platform), platform.secrets());
    let mut hook = Secret::new("hook", "s3cret");
    hook.expires = Some(Some("2999-12-31".into()));
    hook.properties
        .insert("description".into(), json!("the webhook's key"));
    let saved = secrets.save(&me, &hook).unwrap();
    assert!(saved.active, "{saved:?}");
    assert_eq!(saved.user, "ann");
    let mut want = hook.clone();
    (want.value, want.enabled) = (None, Some(true));
    assert_eq!(saved.secret, want);
    let read = secrets.secret(&me, "hook").unwrap();
    assert_eq!(read.secret.value.as_deref(), Some("s3cret"));
    // Disabled, its value and the rest kept.
    let mut off = Secret::default();
    (off.id, off.enabled) = ("hook".into(), Some(false));
    let saved = secrets.save(&me, &off).unwrap();
    assert!(!saved.active && saved.secret.enabled == Some(false));
    let read = secrets.secret(&me, "hook").unwrap();
    assert_eq!(read.secret.value.as_deref(), Some("s3cret"));
    assert_eq!(read.secret.expires, Some(Some("2999-12-31".into())));
    assert_eq!(read.secret.properties["description"], "the webhook's key");
    // A bound sent as null is removed.
    let mut open = Secret::default();
    (open.id, open.enabled, open.expires) = ("hook".into(), Some(true), Some(None));
    assert!(secrets.save(&me, &open).unwrap().active);
    // An expired one is stored, and not active.
    let mut old = Secret::new("old", "x");
    old.expires = Some(Some("2001-01-01".into()));
    assert!(!secrets.save(&me, &old).unwrap().active);
    let all = secrets.secrets(&me).unwrap();
    let ids: Vec<&str> = all.iter().map(|s| s.secret.id.as_str()).collect();
    assert_eq!(ids, ["hook", "old"]);
    assert!(all.iter().all(|s| s.secret.value.is_none()));
    let deleted = secrets.delete(&me, "old").unwrap();
    assert_eq!((deleted.id.as_str(), deleted.deleted), ("old", true));
    assert_eq!(
        secrets.delete(&me, "old").unwrap_err().code(),
        ErrorCode::NotFound
    );
}

/// A secret with bad fields is refused, nothing stored; the role is checked first.
#[test]
fn a_secret_with_bad_fields_is_refused_and_nothing_is_stored() {
    let platform = Platform::in_memory().unwrap();
    let (me, secrets) = (admin(&platform), platform.secrets());
    let mut bad_date = Secret::new("a", "v");
    bad_date.expires = Some(Some("tomorrow".into()));
    let e = secrets.save(&me, &bad_date).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidBody);
    assert!(e.to_string().contains("\"tomorrow\""), "{e}");
    let e = secrets.save(&me, &Secret::new("#public", "v")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidId);
    let mut no_value = Secret::default();
    no_value.id = "b".into();
    let e = secrets.save(&me, &no_value).unwrap_err();
    assert_eq!(e.code(), ErrorCode::MissingParameter);
    let writer = Principal {
        role: Role::Writer,
        ..me.clone()
    };
    let e = secrets
        .save(&writer, &Secret::new("#public", "v"))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "writing secrets needs the admin role; user \"ann\" has writer"
    );
    assert!(secrets.secrets(&me).unwrap().is_empty());
    let e = secrets.secret(&me, "a").unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
}

/// The answers of saves, reads and lists, byte for byte: the stored fields in the order the
/// bodies sent them (an update keeps a field's place and puts new ones last; a new value
/// starts afresh), nulls and numbers as sent, then the value where read, `active`,
/// `_timestamp` and `_user`.
#[test]
fn the_answers_are_the_stored_fields_in_their_order() {
    let platform = platform();
    let (me, secrets) = (admin(&platform), platform.secrets());
    let stamp = r#""_timestamp":"2024-07-10T12:00:00.000Z","_user":"ann""#;
    let saved = save_body(&platform, json!({"_id": "hook", "value": "s3cret"})).unwrap();
    assert_eq!(
        text(&saved),
        format!(r#"{{"_id":"hook","_type":"VarSecret","enabled":true,"active":true,{stamp}}}"#)
    );
    let body = json!({"note": "n", "_id": "api", "expires": "2999-12-31", "value": "v",
        "notBefore": "2024-01-01", "enabled": false, "_type": "X", "active": true, "_user": "zed",
        "count": 1.50, "big": 12345678901234567890u64, "neg": -3,
        "nested": {"b": 1, "a": [1, 2.0, null]}});
    let fields = r#""note":"n","expires":"2999-12-31","notBefore":"2024-01-01","count":1.5,"big":12345678901234567890,"neg":-3,"nested":{"b":1,"a":[1,2.0,null]}"#;
    assert_eq!(
        text(&save_body(&platform, body).unwrap()),
        format!(
            r#"{{"_id":"api","_type":"VarSecret","enabled":false,{fields},"active":false,{stamp}}}"#
        )
    );
    let update = json!({"_id": "api", "description": "d", "enabled": true, "expires": null});
    let fields = fields.replace(r#""2999-12-31""#, "null");
    let updated =
        format!(r#"{{"_id":"api","_type":"VarSecret","enabled":true,{fields},"description":"d""#);
    assert_eq!(
        text(&save_body(&platform, update).unwrap()),
        format!(r#"{updated},"active":true,{stamp}}}"#)
    );
    assert_eq!(
        text(&secrets.secret(&me, "api").unwrap()),
        format!(r#"{updated},"value":"v","active":true,{stamp}}}"#)
    );
    let fresh =
        json!({"_id": "hook", "value": "new", "description": "x", "notBefore": "2024-07-11"});
    let hook = r#"{"_id":"hook","_type":"VarSecret","enabled":true,"description":"x","notBefore":"2024-07-11""#;
    assert_eq!(
        text(&save_body(&platform, fresh).unwrap()),
        format!(r#"{hook},"active":false,{stamp}}}"#)
    );
    assert_eq!(
        text(&secrets.secret(&me, "hook").unwrap()),
        format!(r#"{hook},"value":"new","active":false,{stamp}}}"#)
    );
    let body = json!({"_id": "nb", "value": "v\"q\u{e9}", "notBefore": null,
        "expires": "2024-07-10T13:00:00+02:00"});
    let nb = r#"{"_id":"nb","_type":"VarSecret","enabled":true,"notBefore":null,"expires":"2024-07-10T13:00:00+02:00""#;
    assert_eq!(
        text(&save_body(&platform, body).unwrap()),
        format!(r#"{nb},"active":false,{stamp}}}"#)
    );
    assert_eq!(
        text(&secrets.secret(&me, "nb").unwrap()),
        format!("{nb},\"value\":\"v\\\"q\u{e9}\",\"active\":false,{stamp}}}")
    );
    assert_eq!(
        text(&secrets.secrets(&me).unwrap()),
        format!(
            r#"[{updated},"active":true,{stamp}}},{hook},"active":false,{stamp}}},{nb},"active":false,{stamp}}}]"#
        )
    );
    assert_eq!(
        text(&secrets.delete(&me, "hook").unwrap()),
        r#"{"_id":"hook","deleted":true}"#
    );
}

/// A body is refused with the texts and codes the interface has always given, the first
/// fault found in the order the fields are checked.
#[test]
fn bodies_are_refused_with_their_texts() {
    let platform = platform();
    let cases = [
        (
            json!([]),
            "INVALID_BODY",
            "a secret must be a JSON object, not an array",
        ),
        (
            json!({"value": "v"}),
            "INVALID_ID",
            "missing _id (a string)",
        ),
        (json!({"_id": 3}), "INVALID_ID", "missing _id (a string)"),
        (
            json!({"_id": "#p", "value": 1}),
            "INVALID_ID",
            "secret \"#p\": secrets are private, their ids cannot start with '#'",
        ),
        (
            json!({"_id": "", "value": "v"}),
            "INVALID_ID",
            "_id must not be empty",
        ),
        (
            json!({"_id": "a", "value": 1, "enabled": 2}),
            "INVALID_BODY",
            "value must be a string, not a number",
        ),
        (
            json!({"_id": "a", "value": "v", "enabled": "yes"}),
            "INVALID_BODY",
            "enabled must be a boolean, not a string",
        ),
        (
            json!({"_id": "a", "value": "v", "notBefore": 5}),
            "INVALID_BODY",
            "notBefore must be a date string, not a number",
        ),
        (
            json!({"_id": "a", "value": "v", "expires": "soon"}),
            "INVALID_BODY",
            "expires \"soon\" is not a date (YYYY-MM-DD) or an RFC 3339 instant",
        ),
        (
            json!({"_id": "a"}),
            "MISSING_PARAMETER",
            "secret \"a\" has no value",
        ),
    ];
    for (body, code, message) in cases {
        let e = save_body(&platform, body.clone()).unwrap_err();
        assert_eq!(
            (e.code().name(), e.to_string()),
            (code, message.into()),
            "{body}"
        );
    }
    assert!(platform
        .secrets()
        .secrets(&admin(&platform))
        .unwrap()
        .is_empty());
}
