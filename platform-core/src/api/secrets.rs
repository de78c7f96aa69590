//! The secret service: [`Secrets`].

use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::Platform;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// A secret as a program writes it: what is `None` is not sent, and stays as stored (a new
/// secret is enabled; it needs a value).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Secret {
    /// Its id (`_id`), unique in the tenant and environment; not starting with `#`.
    pub id: String,
    /// The value, sealed when stored.
    pub value: Option<String>,
    /// Whether it may be used (`enabled`).
    pub enabled: Option<bool>,
    /// The first day (`YYYY-MM-DD`) or instant it may be used (`notBefore`).
    pub not_before: Option<String>,
    /// The last day it may be used, or the instant it stops (`expires`).
    pub expires: Option<String>,
    /// Its other fields (a description...), kept as sent.
    pub properties: Map<String, Value>,
}

impl Secret {
    /// A secret with an id and a value.
    pub fn new(id: impl Into<String>, value: impl Into<String>) -> Secret {
        Secret {
            id: id.into(),
            value: Some(value.into()),
            ..Secret::default()
        }
    }

    /// The JSON body of the secret service's save.
    fn to_body(&self) -> Value {
        let mut body = self.properties.clone();
        body.insert("_id".into(), Value::String(self.id.clone()));
        let mut put = |name: &str, value: Option<Value>| {
            if let Some(v) = value {
                body.insert(name.into(), v);
            }
        };
        put("value", self.value.clone().map(Value::String));
        put("enabled", self.enabled.map(Value::Bool));
        put("notBefore", self.not_before.clone().map(Value::String));
        put("expires", self.expires.clone().map(Value::String));
        Value::Object(body)
    }
}

/// A secret as stored: its fields (the value only where the call reads it), whether it may be
/// used now, and its last write.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSecret {
    /// The secret; `enabled` is always given.
    pub secret: Secret,
    /// Whether it may be used now (enabled, and now within `notBefore` and `expires`).
    pub active: bool,
    /// When it was last written.
    pub timestamp: DateTime<Utc>,
    /// Who last wrote it.
    pub user: String,
}

impl StoredSecret {
    /// The typed form of the secret service's JSON answer.
    fn from_json(answer: Value) -> Result<StoredSecret> {
        let Value::Object(mut fields) = answer else {
            return Err(Error::Internal(format!("a secret answered {answer}")));
        };
        let mut text = |name: &str| match fields.shift_remove(name) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let id = text("_id").unwrap_or_default();
        let (value, not_before, expires) = (text("value"), text("notBefore"), text("expires"));
        let (timestamp, user) = (text("_timestamp"), text("_user").unwrap_or_default());
        let timestamp = timestamp
            .as_deref()
            .and_then(|t| crate::clock::parse_instant(t).ok())
            .ok_or_else(|| Error::Internal(format!("secret \"{id}\" answered no _timestamp")))?;
        let enabled = fields.shift_remove("enabled").and_then(|v| v.as_bool());
        let active = fields.shift_remove("active").and_then(|v| v.as_bool()) == Some(true);
        fields.shift_remove("_type");
        Ok(StoredSecret {
            secret: Secret {
                id,
                value,
                enabled,
                not_before,
                expires,
                properties: fields,
            },
            active,
            timestamp,
            user,
        })
    }
}

/// Sealed values (AES-256-GCM) that scripts, webhooks and extensions use, kept per tenant
/// and environment; every call needs role `admin`. From [`Platform::secrets`].
///
/// ```
/// use serde_json::json;
/// let platform = platform_core::Platform::in_memory()?;
/// let admin = platform.tenancy().local_principal("default", "admin")?;
/// platform.secrets().save(&admin, json!({"_id": "hook", "value": "s3cret"}))?;
/// assert_eq!(platform.secrets().value(&admin, "hook")?, "s3cret");
/// assert_eq!(platform.secrets().list(&admin)?.len(), 1);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Secrets<'p> {
    pub(super) platform: &'p Platform,
}

impl Secrets<'_> {
    /// Typed: creates or updates a secret (what is `None` stays as stored). Returns it without
    /// its value.
    ///
    /// ```
    /// use platform_core::api::Secret;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let admin = platform.tenancy().local_principal("default", "admin")?;
    /// let saved = platform.secrets().save_secret(&admin, &Secret::new("hook", "s3cret"))?;
    /// assert!(saved.active && saved.secret.value.is_none());
    /// let read = platform.secrets().secret(&admin, "hook")?;
    /// assert_eq!(read.secret.value.as_deref(), Some("s3cret"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn save_secret(&self, p: &Principal, secret: &Secret) -> Result<StoredSecret> {
        StoredSecret::from_json(self.platform.save_secret(p, secret.to_body())?)
    }

    /// Typed: one secret with its value.
    pub fn secret(&self, p: &Principal, id: &str) -> Result<StoredSecret> {
        StoredSecret::from_json(self.platform.get_secret(p, id)?)
    }

    /// Typed: every secret of the caller's tenant and environment, without values.
    pub fn secrets(&self, p: &Principal) -> Result<Vec<StoredSecret>> {
        let all = self.platform.list_secrets(p)?;
        all.into_iter().map(StoredSecret::from_json).collect()
    }

    /// JSON: creates or updates a secret (fields not sent stay, the value included). Returns it
    /// without its value.
    pub fn save(&self, p: &Principal, body: Value) -> Result<Value> {
        self.platform.save_secret(p, body)
    }

    /// JSON: one secret with its value.
    pub fn get(&self, p: &Principal, id: &str) -> Result<Value> {
        self.platform.get_secret(p, id)
    }

    /// JSON: every secret of the caller's tenant and environment, without values.
    pub fn list(&self, p: &Principal) -> Result<Vec<Value>> {
        self.platform.list_secrets(p)
    }

    /// Deletes a secret (JSON: `{"_id": ..., "deleted": true}`).
    pub fn delete(&self, p: &Principal, id: &str) -> Result<Value> {
        self.platform.delete_secret(p, id)
    }

    /// The value of a secret for a script running as `p`: refused (with the reason) when the
    /// secret is disabled, not yet valid or expired.
    pub fn value(&self, p: &Principal, id: &str) -> Result<String> {
        self.platform.secret_value(p, id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
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
}
