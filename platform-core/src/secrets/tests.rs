//! The typed secret calls against the JSON ones.

use super::{Secret, StoredSecret};
use crate::auth::Principal;
use crate::error::ErrorCode;
use crate::Platform;
use serde_json::json;

fn admin(platform: &Platform) -> Principal {
    platform.tenancy().local_principal("acme", "ann").unwrap()
}

/// A typed save stores what the JSON save stores, a typed read gives back what was sent
/// (the value only where read), and what is not sent stays.
#[test]
fn typed_secrets_read_back_as_sent_and_as_the_json_calls_answer() {
    let platform = Platform::in_memory().unwrap();
    let (me, secrets) = (admin(&platform), platform.secrets());
    let mut hook = Secret::new("hook", "s3cret");
    hook.expires = Some("2999-12-31".into());
    hook.properties
        .insert("description".into(), json!("the webhook's key"));
    let saved = secrets.save_secret(&me, &hook).unwrap();
    assert!(saved.active, "{saved:?}");
    assert_eq!(saved.user, "ann");
    let want = Secret {
        value: None,
        enabled: Some(true),
        ..hook.clone()
    };
    assert_eq!(saved.secret, want);
    let read = secrets.secret(&me, "hook").unwrap();
    assert_eq!(read.secret.value.as_deref(), Some("s3cret"));
    let json = StoredSecret::from_json(secrets.get(&me, "hook").unwrap()).unwrap();
    assert_eq!(read, json);
    // Disabled, its value and the rest kept.
    let off = Secret {
        id: "hook".into(),
        enabled: Some(false),
        ..Secret::default()
    };
    let saved = secrets.save_secret(&me, &off).unwrap();
    assert!(!saved.active && saved.secret.enabled == Some(false));
    let read = secrets.secret(&me, "hook").unwrap();
    assert_eq!(read.secret.value.as_deref(), Some("s3cret"));
    assert_eq!(read.secret.expires.as_deref(), Some("2999-12-31"));
    assert_eq!(read.secret.properties["description"], "the webhook's key");
    // An expired one is stored, and not active.
    let mut old = Secret::new("old", "x");
    old.expires = Some("2001-01-01".into());
    assert!(!secrets.save_secret(&me, &old).unwrap().active);
    let all = secrets.secrets(&me).unwrap();
    let ids: Vec<&str> = all.iter().map(|s| s.secret.id.as_str()).collect();
    assert_eq!(ids, ["hook", "old"]);
    assert!(all.iter().all(|s| s.secret.value.is_none()));
}

/// A typed save with bad fields is refused as the JSON save refuses it, nothing stored.
#[test]
fn a_typed_secret_with_bad_fields_is_refused_and_nothing_is_stored() {
    let platform = Platform::in_memory().unwrap();
    let (me, secrets) = (admin(&platform), platform.secrets());
    let mut bad_date = Secret::new("a", "v");
    bad_date.expires = Some("tomorrow".into());
    let e = secrets.save_secret(&me, &bad_date).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidBody);
    assert!(e.to_string().contains("\"tomorrow\""), "{e}");
    let e = secrets
        .save_secret(&me, &Secret::new("#public", "v"))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidId);
    let no_value = Secret {
        id: "b".into(),
        ..Secret::default()
    };
    let e = secrets.save_secret(&me, &no_value).unwrap_err();
    assert_eq!(e.code(), ErrorCode::MissingParameter);
    assert!(secrets.secrets(&me).unwrap().is_empty());
    let e = secrets.secret(&me, "a").unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
}
