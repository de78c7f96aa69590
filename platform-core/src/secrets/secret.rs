//! A secret as a program or a request writes it ([`Secret`], read from a request's body by
//! [`Secret::from_body`]), as stored and answered ([`StoredSecret`]), and the answer of a
//! deletion ([`DeletedSecret`]).

use super::{bound_of, checked_bound, SECRET_TYPE};
use crate::clock::format_instant;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::validate_id;
use crate::json::json_kind;
use crate::store::SecretRow;
use chrono::{DateTime, Utc};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// Fields only the platform writes; ignored when a request sends them.
const SYSTEM: [&str; 6] = ["active", "_timestamp", "_user", "_oid", "_version", "_tag"];

/// The secret's own fields, never among its properties.
const OWN: [&str; 6] = ["_id", "_type", "value", "enabled", "notBefore", "expires"];

/// A secret as a program or a request writes it: what is `None` is not sent, and stays as
/// stored (a new secret is enabled; it needs a value).
///
/// Built with [`Secret::new`] or read from a request's body with [`Secret::from_body`]; its
/// fields are stored in the order the body gave them (a program's: `enabled`, `notBefore`,
/// `expires`, then its properties), which the answers keep.
#[derive(Debug, Clone, Default)]
pub struct Secret {
    /// Its id (`_id`), unique in the tenant and environment; not starting with `#`.
    pub id: String,
    /// The value, sealed when stored.
    pub value: Option<String>,
    /// Whether it may be used (`enabled`).
    pub enabled: Option<bool>,
    /// The first day (`YYYY-MM-DD`) or instant it may be used (`notBefore`); `Some(None)` is
    /// sent as `null`, which removes a stored bound.
    pub not_before: Option<Option<String>>,
    /// The last day it may be used, or the instant it stops (`expires`); `Some(None)` is sent
    /// as `null`, which removes a stored bound.
    pub expires: Option<Option<String>>,
    /// Its other fields (a description...), kept as sent; the names above and the system
    /// fields (`active`, `_timestamp`, `_user`...) are not among them.
    pub properties: Map<String, Value>,
    /// The names of its fields in the order it was read in (a body, a stored secret); empty
    /// for a secret a program builds.
    order: Vec<String>,
}

impl PartialEq for Secret {
    /// Secrets are equal when their fields are, whatever order they were read in.
    fn eq(&self, other: &Secret) -> bool {
        (
            &self.id,
            &self.value,
            self.enabled,
            &self.not_before,
            &self.expires,
            &self.properties,
        ) == (
            &other.id,
            &other.value,
            other.enabled,
            &other.not_before,
            &other.expires,
            &other.properties,
        )
    }
}

/// Refuses an id a secret cannot have.
pub(super) fn check_id(id: &str) -> Result<()> {
    validate_id(id, "_id")?;
    if id.starts_with('#') {
        return Err(Error::new(
            ErrorCode::InvalidId,
            format!("secret \"{id}\": secrets are private, their ids cannot start with '#'"),
        ));
    }
    Ok(())
}

/// A bound of a body (`notBefore`, `expires`): absent, `null`, or a date or instant.
fn bound_field(
    fields: &Map<String, Value>,
    name: &str,
    end: bool,
) -> Result<Option<Option<String>>> {
    bound_of(name, fields.get(name), end)?;
    Ok(match fields.get(name) {
        None => None,
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => Some(None),
    })
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

    /// The secret a request's body (`POST secret/v1`) sends, checked as the service checks it:
    /// an object with a valid `_id`, a string `value`, a boolean `enabled`, `notBefore` and
    /// `expires` dates or instants (or `null`). `active`, `_timestamp`, `_user`, `_oid`,
    /// `_version`, `_tag` and `_type` are ignored.
    ///
    /// ```
    /// use platform_core::api::secrets::Secret;
    /// let body = serde_json::json!({"_id": "hook", "value": "s3cret", "expires": "2999-12-31"});
    /// let secret = Secret::from_body(&body)?;
    /// assert_eq!(secret.expires, Some(Some("2999-12-31".to_string())));
    /// let e = Secret::from_body(&serde_json::json!({"_id": "hook", "value": 1})).unwrap_err();
    /// assert_eq!(e.to_string(), "value must be a string, not a number");
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn from_body(body: &Value) -> Result<Secret> {
        let Value::Object(fields) = body else {
            return Err(Error::invalid_body(format!(
                "a secret must be a JSON object, not {}",
                json_kind(body)
            )));
        };
        let id = match fields.get("_id") {
            Some(Value::String(id)) => id.clone(),
            _ => return Err(Error::new(ErrorCode::InvalidId, "missing _id (a string)")),
        };
        check_id(&id)?;
        let value = match fields.get("value") {
            None => None,
            Some(Value::String(v)) => Some(v.clone()),
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "value must be a string, not {}",
                    json_kind(other)
                )))
            }
        };
        let enabled = match fields.get("enabled") {
            None => None,
            Some(Value::Bool(on)) => Some(*on),
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "enabled must be a boolean, not {}",
                    json_kind(other)
                )))
            }
        };
        let not_before = bound_field(fields, "notBefore", false)?;
        let expires = bound_field(fields, "expires", true)?;
        let kept = fields.iter().filter(|(k, _)| !SYSTEM.contains(&k.as_str()));
        Ok(Secret {
            id,
            value,
            enabled,
            not_before,
            expires,
            properties: kept
                .clone()
                .filter(|(k, _)| !OWN.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            order: kept.map(|(k, _)| k.clone()).collect(),
        })
    }

    /// Refuses what no secret may hold: an invalid id, a bound that is not a date.
    pub(super) fn check(&self) -> Result<()> {
        check_id(&self.id)?;
        for (name, bound, end) in [
            ("notBefore", &self.not_before, false),
            ("expires", &self.expires, true),
        ] {
            if let Some(Some(text)) = bound {
                checked_bound(name, text, end)?;
            }
        }
        Ok(())
    }

    /// The names of its fields, each once: in the order it was read in, then the rest.
    fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::with_capacity(self.order.len() + OWN.len());
        let all = (self.order.iter().map(String::as_str))
            .chain(OWN)
            .chain(self.properties.keys().map(String::as_str));
        for name in all {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }

    /// What it stores under `name` of its stored fields (its own or a property), if anything.
    fn field(&self, name: &str) -> Option<Field<'_>> {
        fn bound(b: &Option<Option<String>>) -> Option<Field<'_>> {
            b.as_ref().map(|d| Field::Bound(d.as_deref()))
        }
        match name {
            "_id" => Some(Field::Text(&self.id)),
            "_type" => Some(Field::Text(SECRET_TYPE)),
            "enabled" => self.enabled.map(Field::Bool),
            "notBefore" => bound(&self.not_before),
            "expires" => bound(&self.expires),
            "value" => None,
            name if SYSTEM.contains(&name) => None,
            name => self.properties.get(name).map(Field::Property),
        }
    }

    /// Writes its fields into the stored metadata `meta` (a field stored already keeps its
    /// place; a new one goes last), in its order.
    pub(super) fn write_into(&self, meta: &mut Map<String, Value>) {
        for name in self.names() {
            if let Some(field) = self.field(name) {
                meta.insert(name.to_string(), field.to_value());
            }
        }
    }

    /// The secret stored as `meta`, with its value if read.
    fn of_meta(id: &str, meta: &Map<String, Value>, value: Option<String>) -> Secret {
        let bound = |name: &str| match meta.get(name) {
            None => None,
            Some(Value::String(s)) => Some(Some(s.clone())),
            Some(_) => Some(None),
        };
        Secret {
            id: id.to_string(),
            value,
            enabled: meta.get("enabled").and_then(Value::as_bool),
            not_before: bound("notBefore"),
            expires: bound("expires"),
            properties: meta
                .iter()
                .filter(|(k, _)| !OWN.contains(&k.as_str()) && !SYSTEM.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            order: meta.keys().cloned().collect(),
        }
    }
}

/// One stored field of a secret.
enum Field<'a> {
    /// `_id`, `_type`.
    Text(&'a str),
    /// `enabled`.
    Bool(bool),
    /// `notBefore`, `expires`: a date or instant, or null.
    Bound(Option<&'a str>),
    /// One of its properties.
    Property(&'a Value),
}

impl Field<'_> {
    fn to_value(&self) -> Value {
        match *self {
            Field::Text(t) | Field::Bound(Some(t)) => Value::String(t.to_string()),
            Field::Bool(on) => Value::Bool(on),
            Field::Bound(None) => Value::Null,
            Field::Property(v) => v.clone(),
        }
    }
}

impl Serialize for Field<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            Field::Text(t) | Field::Bound(Some(t)) => serializer.serialize_str(t),
            Field::Bool(on) => serializer.serialize_bool(on),
            Field::Bound(None) => serializer.serialize_unit(),
            Field::Property(v) => v.serialize(serializer),
        }
    }
}

/// A secret as stored: its fields (the value only where the call reads it), whether it may be
/// used now, and its last write.
///
/// Its serde form is the answer of `GET secret/v1/{id}`: the stored fields in their stored
/// order (`_id`, `_type`, `enabled`, then as sent), then `value` where read, `active`,
/// `_timestamp` and `_user`.
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
    /// The secret of a stored row, its value given where read, `active` at the time asked.
    pub(super) fn of_row(row: &SecretRow, value: Option<String>, active: bool) -> StoredSecret {
        StoredSecret {
            secret: Secret::of_meta(&row.id, &row.meta, value),
            active,
            timestamp: row.updated,
            user: row.user.clone(),
        }
    }
}

impl Serialize for StoredSecret {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let secret = &self.secret;
        let mut map = serializer.serialize_map(None)?;
        for name in secret.names() {
            if let Some(field) = secret.field(name) {
                map.serialize_entry(name, &field)?;
            }
        }
        if let Some(value) = &secret.value {
            map.serialize_entry("value", value)?;
        }
        map.serialize_entry("active", &self.active)?;
        map.serialize_entry("_timestamp", &format_instant(self.timestamp))?;
        map.serialize_entry("_user", &self.user)?;
        map.end()
    }
}

/// The answer of a deletion of a secret: `{"_id": ..., "deleted": true}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeletedSecret {
    /// The id of the deleted secret (`_id`).
    #[serde(rename = "_id")]
    pub id: String,
    /// Whether it was deleted (always true: an unknown secret is not found).
    pub deleted: bool,
}
