//! The typed secrets a program writes and reads: [`Secret`] and [`StoredSecret`], and the
//! secret service's typed calls, which run its JSON calls with typed values on either side.

use super::Secrets;
use crate::auth::Principal;
use crate::error::{Error, Result};
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
    pub(crate) fn from_json(answer: Value) -> Result<StoredSecret> {
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
        StoredSecret::from_json(self.save(p, secret.to_body())?)
    }

    /// Typed: one secret with its value.
    pub fn secret(&self, p: &Principal, id: &str) -> Result<StoredSecret> {
        StoredSecret::from_json(self.get(p, id)?)
    }

    /// Typed: every secret of the caller's tenant and environment, without values.
    pub fn secrets(&self, p: &Principal) -> Result<Vec<StoredSecret>> {
        let all = self.list(p)?;
        all.into_iter().map(StoredSecret::from_json).collect()
    }
}
