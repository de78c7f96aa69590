//! The rows the store keeps, typed. Document bodies, events and job payloads stay JSON; every
//! field a query or a rule reads is a typed field, and every time is an instant
//! (`DateTime<Utc>`, kept to the millisecond).
//!
//! Jobs, automation log entries and mail entries have a JSON form (the interface shows it: the
//! log and mail entries are their serde forms); `to_json` writes it and `from_json` reads it
//! back, so a backend may keep that form as it is.

use crate::auth::Role;
use crate::clock::{format_instant, parse_instant};
use crate::error::{Error, Result};
use crate::ids::Scope;
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

mod jobs;
mod outbox;

pub use jobs::{Job, JobStatus, Worker};
pub use outbox::{
    Automation, Delivery, DeliveryStatus, LogEntry, LogFilter, LogStatus, MailAttachment, MailEntry,
};

/// One stored version of a document.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVersion {
    /// The document id (`_oid`).
    pub id: String,
    /// The version number, from 1.
    pub version: u32,
    /// The document's own fields, `_id` and `_type` included, system fields excluded.
    pub body: Map<String, Value>,
    /// When this version was written.
    pub timestamp: DateTime<Utc>,
    /// Who wrote it.
    pub user: String,
    /// The `_reason` given when it was written.
    pub reason: Option<String>,
    /// Tags this version carries, sorted (filled on reads; ignored on writes).
    pub tags: Vec<String>,
}

impl crate::ids::Dated for StoredVersion {
    fn number(&self) -> u32 {
        self.version
    }
    fn written(&self) -> DateTime<Utc> {
        self.timestamp
    }
}

impl StoredVersion {
    /// The `_type` of the document ("" when absent).
    pub fn type_name(&self) -> &str {
        self.body.get("_type").and_then(Value::as_str).unwrap_or("")
    }

    /// What filters and sorts of lists read: the body with the version's system fields
    /// `_oid _version _timestamp _user _tag` (what a rendered document carries).
    pub fn filter_doc(&self) -> Map<String, Value> {
        let mut doc = self.body.clone();
        doc.insert("_oid".into(), Value::String(self.id.clone()));
        doc.insert("_version".into(), Value::from(self.version));
        doc.insert(
            "_timestamp".into(),
            Value::String(crate::clock::format_instant(self.timestamp)),
        );
        doc.insert("_user".into(), Value::String(self.user.clone()));
        doc.insert(
            "_tag".into(),
            Value::Array(self.tags.iter().cloned().map(Value::String).collect()),
        );
        doc
    }
}

/// The kind of a JSON value found at a field of stored documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FieldKind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number written without fraction or exponent.
    Integer,
    /// Any other number.
    Real,
    /// A string.
    Text,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl FieldKind {
    internal! {
        /// The kind of a value.
        fn of(v: &Value) -> FieldKind {
            match v {
                Value::Null => FieldKind::Null,
                Value::Bool(_) => FieldKind::Bool,
                Value::Number(n) if n.is_i64() || n.is_u64() => FieldKind::Integer,
                Value::Number(_) => FieldKind::Real,
                Value::String(_) => FieldKind::Text,
                Value::Array(_) => FieldKind::Array,
                Value::Object(_) => FieldKind::Object,
            }
        }
    }

    /// Whether values of this kind are numbers.
    pub fn is_number(self) -> bool {
        matches!(self, FieldKind::Integer | FieldKind::Real)
    }
}

/// A line of the audit trail of deletions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// The document id.
    pub id: String,
    /// `rollback`, `delete-version` or `delete-all`.
    pub action: String,
    /// The versions removed.
    pub versions: Vec<u32>,
    /// Who did it.
    pub user: String,
    /// When.
    pub timestamp: DateTime<Utc>,
    /// The `_reason` given.
    pub reason: Option<String>,
}

/// A data property of an object (a time series or a curve).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DataKey {
    /// Where the owning object lives.
    pub scope: Scope,
    /// The owning object's id.
    pub object: String,
    /// The property name (the data name).
    pub prop: String,
}

/// A stored chunk of observations of a series.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// Time of the first observation (UTC ms).
    pub start: i64,
    /// Time of the last observation (UTC ms).
    pub stop: i64,
    /// Number of observations.
    pub count: u32,
    /// The encoded observations (`data::codec`).
    pub payload: Vec<u8>,
}

/// The size and bounds of a data item: observations of a series, or ondates of a curve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extent<T> {
    /// How many.
    pub count: u64,
    /// The first and the last (`None` when there are none).
    pub bounds: Option<(T, T)>,
}

/// A stored chunk of validation records (see `validation::records`).
#[derive(Debug, Clone, PartialEq)]
pub struct RecordChunkRow {
    /// The data id.
    pub target: String,
    /// The bucket (start key).
    pub seq: i64,
    /// The first and last key held.
    pub first: i64,
    /// See `first`.
    pub last: i64,
    /// Records held.
    pub count: u64,
    /// A bit per record status present (1 << code).
    pub statuses: u64,
    /// The encoded chunk.
    pub body: Vec<u8>,
}

/// A token as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRecord {
    /// The tenant of the token's user.
    pub tenant: String,
    /// The token's user.
    pub user: String,
    /// The user's role.
    pub role: Role,
    /// Whether the token was revoked.
    pub revoked: bool,
}

/// A token as listed: who it is for and its state, never the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenListing {
    /// The first 12 hex digits of the token's hash: tells tokens apart.
    pub id: String,
    /// The tenant of the token's user.
    pub tenant: String,
    /// The token's user.
    pub user: String,
    /// The user's role.
    pub role: Role,
    /// When it was created.
    pub created: DateTime<Utc>,
    /// When it was revoked, if it was.
    pub revoked: Option<DateTime<Utc>>,
}

impl TokenListing {
    /// Its JSON form: `{id, tenant, user, role, created, revoked}` (what `platform token list`
    /// prints and `GET /token/v1` answers).
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "tenant": self.tenant,
            "user": self.user,
            "role": self.role.as_str(),
            "created": format_instant(self.created),
            "revoked": self.revoked.map(format_instant),
        })
    }
}

/// Which tokens to revoke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSelector {
    /// The token with this hash.
    Hash(String),
    /// Every token of a user.
    User {
        /// Tenant.
        tenant: String,
        /// User.
        user: String,
    },
}

/// An environment of a tenant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// Its name.
    pub name: String,
    /// When it was created.
    pub created: DateTime<Utc>,
}

/// A stored secret: metadata in clear, the value sealed.
#[derive(Debug, Clone, PartialEq)]
pub struct SecretRow {
    /// The secret id.
    pub id: String,
    /// Every field but the value.
    pub meta: Map<String, Value>,
    /// The sealing nonce.
    pub nonce: Vec<u8>,
    /// The sealed value.
    pub ciphertext: Vec<u8>,
    /// When it was last written.
    pub updated: DateTime<Utc>,
    /// Who wrote it last.
    pub user: String,
}

/// Reads a time of a JSON form: text in RFC 3339, or `null` when `optional`.
fn time_field(doc: &Map<String, Value>, what: &str, key: &str) -> Result<Option<DateTime<Utc>>> {
    match doc.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => parse_instant(text)
            .map(Some)
            .map_err(|e| Error::caused(format!("{what}: {key} \"{text}\""), e)),
        Some(other) => Err(Error::Internal(format!(
            "{what}: {key} is {other}, not a time"
        ))),
    }
}

fn required_time(doc: &Map<String, Value>, what: &str, key: &str) -> Result<DateTime<Utc>> {
    time_field(doc, what, key)?.ok_or_else(|| Error::Internal(format!("{what} has no {key}")))
}

fn text_field(doc: &Map<String, Value>, key: &str) -> String {
    doc.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn texts_field(doc: &Map<String, Value>, key: &str) -> Vec<String> {
    doc.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("a json! object literal is an object"),
    }
}

fn time_json(t: Option<DateTime<Utc>>) -> Value {
    t.map_or(Value::Null, |t| Value::String(format_instant(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_kinds_of_values() {
        assert_eq!(FieldKind::of(&json!(2)), FieldKind::Integer);
        assert_eq!(FieldKind::of(&json!(2.5)), FieldKind::Real);
        assert_eq!(FieldKind::of(&json!(true)), FieldKind::Bool);
        assert!(FieldKind::of(&json!(-1)).is_number());
        assert!(!FieldKind::of(&json!("2")).is_number());
    }
}
