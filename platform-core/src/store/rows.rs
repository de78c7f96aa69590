//! The rows the store keeps, typed. Document bodies, events and job payloads stay JSON; every
//! field a query or a rule reads is a typed field, and every time is an instant
//! (`DateTime<Utc>`, kept to the millisecond).
//!
//! Jobs, automation log entries and mail entries have a JSON form (the interface shows it);
//! `to_json` writes it and `from_json` reads it back, so a backend may keep that form as it is.

use crate::auth::Role;
use crate::clock::{format_instant, parse_instant};
use crate::error::{Error, Result};
use crate::ids::Scope;
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

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

impl StoredVersion {
    /// The `_type` of the document ("" when absent).
    pub fn type_name(&self) -> &str {
        self.body.get("_type").and_then(Value::as_str).unwrap_or("")
    }
}

/// A page of results with the total count before paging.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items of the page.
    pub items: Vec<T>,
    /// How many items matched in all.
    pub total: u64,
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
    /// The kind of a value.
    pub fn of(v: &Value) -> FieldKind {
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

/// A background worker serving the database (a server's job worker).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worker {
    /// A random id the worker chose at start.
    pub id: String,
    /// The host it runs on.
    pub host: String,
    /// Its process id.
    pub pid: u32,
    /// When it started.
    pub started: DateTime<Utc>,
    /// When it was last seen.
    pub seen: DateTime<Utc>,
}

/// Where a background job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobStatus {
    /// Waiting for a worker.
    Queued,
    /// A worker took it.
    Running,
    /// It finished with a result.
    Done,
    /// It finished with an error.
    Failed,
}

impl JobStatus {
    /// Every status.
    pub const ALL: [JobStatus; 4] = [
        JobStatus::Queued,
        JobStatus::Running,
        JobStatus::Done,
        JobStatus::Failed,
    ];

    /// The status's name (`queued`, `running`, `done`, `failed`).
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
        }
    }

    /// The status of a name.
    pub fn parse(name: &str) -> Option<JobStatus> {
        JobStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// A background job: large work kept in the database until a worker runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The job id (unique across scopes).
    pub id: String,
    /// `run` or `runMany`.
    pub kind: String,
    /// Where it is.
    pub status: JobStatus,
    /// Percent done.
    pub progress: u32,
    /// When it was queued.
    pub created: DateTime<Utc>,
    /// When a worker took it.
    pub started: Option<DateTime<Utc>>,
    /// When it finished.
    pub finished: Option<DateTime<Utc>>,
    /// What it is doing, or how it ended.
    pub message: String,
    /// Who queued it (it runs as this user).
    pub user: String,
    /// The user's role when it was queued.
    pub role: Role,
    /// The user's data-access grants when it was queued.
    pub access: Vec<String>,
    /// The user's view features when it was queued.
    pub features: Vec<String>,
    /// The work (the request as sent).
    pub payload: Value,
    /// No worker takes it before this instant.
    pub not_before: Option<DateTime<Utc>>,
    /// What it produced, once done.
    pub result: Option<Value>,
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

impl Job {
    /// The job's JSON form: `{_id, kind, status, progress, created, started, finished, message,
    /// user, role, access, features, payload, notBefore}`, and `result` once there is one.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut doc = object(json!({
            "_id": self.id, "kind": self.kind, "status": self.status.as_str(),
            "progress": self.progress, "created": format_instant(self.created),
            "started": time_json(self.started), "finished": time_json(self.finished),
            "message": self.message, "user": self.user, "role": self.role.as_str(),
            "access": self.access, "features": self.features, "payload": self.payload,
            "notBefore": time_json(self.not_before),
        }));
        if let Some(result) = &self.result {
            doc.insert("result".into(), result.clone());
        }
        doc
    }

    /// Reads the JSON form of [`Job::to_json`]. A role that is not one reads as `reader`.
    pub fn from_json(doc: &Map<String, Value>) -> Result<Job> {
        let id = text_field(doc, "_id");
        let what = format!("job {id}");
        let status = doc.get("status").and_then(Value::as_str).unwrap_or("");
        let status = JobStatus::parse(status)
            .ok_or_else(|| Error::Internal(format!("{what}: status \"{status}\"")))?;
        Ok(Job {
            kind: text_field(doc, "kind"),
            status,
            progress: doc
                .get("progress")
                .and_then(Value::as_u64)
                .map_or(0, |p| p.min(100) as u32),
            created: required_time(doc, &what, "created")?,
            started: time_field(doc, &what, "started")?,
            finished: time_field(doc, &what, "finished")?,
            message: text_field(doc, "message"),
            user: text_field(doc, "user"),
            role: text_field(doc, "role").parse().unwrap_or(Role::Reader),
            access: texts_field(doc, "access"),
            features: texts_field(doc, "features"),
            payload: doc.get("payload").cloned().unwrap_or(Value::Null),
            not_before: time_field(doc, &what, "notBefore")?,
            result: doc.get("result").cloned(),
            id,
        })
    }

    /// Sets a field of the job by its name in the JSON form, as `Map::insert` would on that
    /// form; answers the field's previous value. A value the field cannot hold (a status that
    /// is not one, a time that is not RFC 3339) leaves the job as it was and answers `None`.
    pub fn insert(&mut self, field: String, value: Value) -> Option<Value> {
        let mut doc = self.to_json();
        let old = doc.insert(field, value);
        match Job::from_json(&doc) {
            Ok(job) => {
                *self = job;
                old
            }
            Err(_) => None,
        }
    }
}

/// An automation: a target that receives the events its conditions match. The body is the
/// document as saved; its indexed fields are read from it once, when the row is made.
#[derive(Debug, Clone, PartialEq)]
pub struct Automation {
    id: String,
    enabled: bool,
    owner: String,
    target: String,
    body: Map<String, Value>,
}

impl Automation {
    /// The automation stored as `body`, which must have a string `_id`; `enabled` is true unless
    /// the body says `false`.
    pub fn from_body(body: Map<String, Value>) -> Result<Automation> {
        let id = body
            .get("_id")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::Internal("an automation without a string _id".into()))?
            .to_string();
        Ok(Automation {
            enabled: body.get("enabled").and_then(Value::as_bool) != Some(false),
            owner: text_field(&body, "owner"),
            target: text_field(&body, "target"),
            id,
            body,
        })
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether it receives events.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The user that saved it.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The id of its target.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The document as saved.
    pub fn body(&self) -> &Map<String, Value> {
        &self.body
    }

    /// The document as saved, owned.
    pub fn into_body(self) -> Map<String, Value> {
        self.body
    }
}

/// Where a delivery is. A finished delivery is removed (the automation log keeps its history).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    /// Waiting for its time and for the deliveries of its item before it.
    Pending,
    /// A worker is attempting it.
    Running,
}

impl DeliveryStatus {
    /// The status's name (`pending`, `running`).
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Running => "running",
        }
    }

    /// The status of a name.
    pub fn parse(name: &str) -> Option<DeliveryStatus> {
        [DeliveryStatus::Pending, DeliveryStatus::Running]
            .into_iter()
            .find(|s| s.as_str() == name)
    }
}

/// One event on its way to one automation (the outbox of events: written with the change
/// that raised it).
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// Order of creation, assigned by the store (ignored when adding).
    pub seq: i64,
    /// The scope of the automation.
    pub scope: Scope,
    /// The automation id.
    pub automation: String,
    /// The item the event is about (`service/source/id`).
    pub item: String,
    /// Where it is.
    pub status: DeliveryStatus,
    /// Attempts made so far.
    pub attempts: u32,
    /// When the next attempt is due.
    pub next_at: DateTime<Utc>,
    /// The event.
    pub event: Map<String, Value>,
}

/// The outcome of one delivery attempt, as the automation log shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogStatus {
    /// The target did its work.
    Success,
    /// The target failed (the delivery is retried or given up).
    Failed,
    /// The automation was deleted or disabled: nothing was done.
    Skipped,
}

impl LogStatus {
    /// Every status.
    pub const ALL: [LogStatus; 3] = [LogStatus::Success, LogStatus::Failed, LogStatus::Skipped];

    /// The status's name (`success`, `failed`, `skipped`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogStatus::Success => "success",
            LogStatus::Failed => "failed",
            LogStatus::Skipped => "skipped",
        }
    }

    /// The status of a name.
    pub fn parse(name: &str) -> Option<LogStatus> {
        LogStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// One attempt of a delivery, in the automation log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    /// The automation id.
    pub automation: String,
    /// Its target id ("" when the automation was deleted).
    pub target: String,
    /// The user it ran as ("" when the automation was deleted).
    pub owner: String,
    /// The event's source (`private` or `public`).
    pub source: String,
    /// The event's service.
    pub service: String,
    /// The id of the event's item.
    pub key: String,
    /// The event's action.
    pub action: String,
    /// Who raised the event.
    pub user: String,
    /// When the event was raised.
    pub event_timestamp: DateTime<Utc>,
    /// The delivery.
    pub delivery: i64,
    /// Which attempt of the delivery this was.
    pub attempt: u32,
    /// How it went.
    pub status: LogStatus,
    /// What happened.
    pub message: String,
    /// When the attempt finished.
    pub timestamp: DateTime<Utc>,
}

impl LogEntry {
    /// The entry's JSON form: `{_id: "<delivery>-<attempt>", _type: "VarAutomationLogEntry",
    /// automation, target, owner, source, service, key, action, user, eventTimestamp, delivery,
    /// attempt, status, message, timestamp}`.
    pub fn to_json(&self) -> Map<String, Value> {
        object(json!({
            "_id": format!("{}-{}", self.delivery, self.attempt),
            "_type": "VarAutomationLogEntry",
            "automation": self.automation, "target": self.target, "owner": self.owner,
            "source": self.source, "service": self.service, "key": self.key,
            "action": self.action, "user": self.user,
            "eventTimestamp": format_instant(self.event_timestamp),
            "delivery": self.delivery, "attempt": self.attempt,
            "status": self.status.as_str(), "message": self.message,
            "timestamp": format_instant(self.timestamp),
        }))
    }

    /// Reads the JSON form of [`LogEntry::to_json`].
    pub fn from_json(doc: &Map<String, Value>) -> Result<LogEntry> {
        let what = format!("automation log entry {}", text_field(doc, "_id"));
        let status = text_field(doc, "status");
        Ok(LogEntry {
            automation: text_field(doc, "automation"),
            target: text_field(doc, "target"),
            owner: text_field(doc, "owner"),
            source: text_field(doc, "source"),
            service: text_field(doc, "service"),
            key: text_field(doc, "key"),
            action: text_field(doc, "action"),
            user: text_field(doc, "user"),
            event_timestamp: required_time(doc, &what, "eventTimestamp")?,
            delivery: doc.get("delivery").and_then(Value::as_i64).unwrap_or(0),
            attempt: doc
                .get("attempt")
                .and_then(Value::as_u64)
                .and_then(|a| u32::try_from(a).ok())
                .unwrap_or(0),
            status: LogStatus::parse(&status)
                .ok_or_else(|| Error::Internal(format!("{what}: status \"{status}\"")))?,
            message: text_field(doc, "message"),
            timestamp: required_time(doc, &what, "timestamp")?,
        })
    }
}

/// Which automation log entries to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogFilter {
    /// Only this automation.
    pub automation: Option<String>,
    /// Only this status.
    pub status: Option<LogStatus>,
    /// Entries at or after this instant.
    pub from: Option<DateTime<Utc>>,
    /// Entries at or before this instant.
    pub to: Option<DateTime<Utc>>,
    /// Items to skip.
    pub skip: u64,
    /// Most items (all when `None`).
    pub limit: Option<u64>,
}

/// A file attached to an email.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailAttachment {
    /// The file name.
    pub name: String,
    /// The file's content.
    pub content: String,
}

/// An email kept in the mail outbox (no SMTP server was configured).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailEntry {
    /// `mail-<delivery>`.
    pub id: String,
    /// Sender address.
    pub from: String,
    /// Recipient addresses.
    pub to: Vec<String>,
    /// Subject line.
    pub subject: String,
    /// `text/html` or `text/plain`.
    pub content_type: String,
    /// Body text.
    pub body: String,
    /// An attached file.
    pub attachment: Option<MailAttachment>,
    /// The automation that sent it.
    pub automation: String,
    /// The user it ran as.
    pub owner: String,
    /// When it was kept.
    pub timestamp: DateTime<Utc>,
}

impl MailEntry {
    /// The entry's JSON form: `{_id, from, to, subject, contentType, body, attachment: null or
    /// {name, content}, automation, owner, timestamp}`.
    pub fn to_json(&self) -> Map<String, Value> {
        object(json!({
            "_id": self.id,
            "from": self.from, "to": self.to, "subject": self.subject,
            "contentType": self.content_type, "body": self.body,
            "attachment": self.attachment.as_ref().map(|a| json!({"name": a.name, "content": a.content})),
            "automation": self.automation, "owner": self.owner,
            "timestamp": format_instant(self.timestamp),
        }))
    }

    /// Reads the JSON form of [`MailEntry::to_json`].
    pub fn from_json(doc: &Map<String, Value>) -> Result<MailEntry> {
        let id = text_field(doc, "_id");
        let what = format!("mail {id}");
        let attachment = doc
            .get("attachment")
            .and_then(Value::as_object)
            .map(|a| MailAttachment {
                name: text_field(a, "name"),
                content: text_field(a, "content"),
            });
        Ok(MailEntry {
            from: text_field(doc, "from"),
            to: texts_field(doc, "to"),
            subject: text_field(doc, "subject"),
            content_type: text_field(doc, "contentType"),
            body: text_field(doc, "body"),
            attachment,
            automation: text_field(doc, "automation"),
            owner: text_field(doc, "owner"),
            timestamp: required_time(doc, &what, "timestamp")?,
            id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        parse_instant(text).unwrap()
    }

    #[test]
    fn a_job_reads_back_its_json_form() {
        let job = Job {
            id: "job-1".into(),
            kind: "run".into(),
            status: JobStatus::Done,
            progress: 100,
            created: at("2024-01-01T00:00:00.000Z"),
            started: Some(at("2024-01-01T00:00:01.000Z")),
            finished: Some(at("2024-01-01T00:00:02.500Z")),
            message: "checked 3 points".into(),
            user: "ann".into(),
            role: Role::Writer,
            access: vec!["a".into()],
            features: vec![],
            payload: json!({"request": {"target": "A:S"}}),
            not_before: None,
            result: Some(json!({"points": 3})),
        };
        let doc = job.to_json();
        let keys: Vec<&str> = doc.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "_id",
                "kind",
                "status",
                "progress",
                "created",
                "started",
                "finished",
                "message",
                "user",
                "role",
                "access",
                "features",
                "payload",
                "notBefore",
                "result"
            ]
        );
        assert_eq!(doc["finished"], "2024-01-01T00:00:02.500Z");
        assert_eq!(Job::from_json(&doc).unwrap(), job);
    }

    #[test]
    fn setting_a_job_field_by_its_json_name_moves_the_typed_field() {
        let mut job = Job::from_json(&object(json!({
            "_id": "j", "kind": "run", "status": "queued", "created": "2024-01-01T00:00:00.000Z",
        })))
        .unwrap();
        assert_eq!(job.role, Role::Reader);
        assert_eq!(
            job.insert("status".into(), json!("running")),
            Some(json!("queued"))
        );
        assert_eq!(job.status, JobStatus::Running);
        assert_eq!(job.insert("status".into(), json!("lost")), None);
        assert_eq!(job.status, JobStatus::Running);
        job.insert("notBefore".into(), json!("2024-01-02T00:00:00Z"));
        assert_eq!(job.not_before, Some(at("2024-01-02T00:00:00Z")));
    }

    #[test]
    fn log_and_mail_entries_read_back_their_json_forms() {
        let entry = LogEntry {
            automation: "a1".into(),
            target: "platform.webhook".into(),
            owner: "ann".into(),
            source: "private".into(),
            service: "object".into(),
            key: "GB".into(),
            action: "update".into(),
            user: "bob".into(),
            event_timestamp: at("2024-01-01T00:00:00.000Z"),
            delivery: 7,
            attempt: 2,
            status: LogStatus::Failed,
            message: "POST answered 500".into(),
            timestamp: at("2024-01-01T00:00:05.000Z"),
        };
        let doc = entry.to_json();
        assert_eq!(doc["_id"], "7-2");
        assert_eq!(LogEntry::from_json(&doc).unwrap(), entry);
        let mail = MailEntry {
            id: "mail-7".into(),
            from: "platform@localhost".into(),
            to: vec!["ops@example.com".into()],
            subject: "s".into(),
            content_type: "text/plain".into(),
            body: "b".into(),
            attachment: Some(MailAttachment {
                name: "data.json".into(),
                content: "{}".into(),
            }),
            automation: "a1".into(),
            owner: "ann".into(),
            timestamp: at("2024-01-01T00:00:05.000Z"),
        };
        assert_eq!(MailEntry::from_json(&mail.to_json()).unwrap(), mail);
    }

    #[test]
    fn an_automation_reads_its_indexed_fields_from_its_body() {
        let a = Automation::from_body(object(
            json!({"_id": "x", "target": "platform.email", "owner": "ann"}),
        ))
        .unwrap();
        assert_eq!(
            (a.id(), a.target(), a.owner(), a.enabled()),
            ("x", "platform.email", "ann", true)
        );
        let off = Automation::from_body(object(json!({"_id": "y", "enabled": false}))).unwrap();
        assert!(!off.enabled());
        assert!(Automation::from_body(object(json!({"enabled": true}))).is_err());
    }

    #[test]
    fn field_kinds_of_values() {
        assert_eq!(FieldKind::of(&json!(2)), FieldKind::Integer);
        assert_eq!(FieldKind::of(&json!(2.5)), FieldKind::Real);
        assert_eq!(FieldKind::of(&json!(true)), FieldKind::Bool);
        assert!(FieldKind::of(&json!(-1)).is_number());
        assert!(!FieldKind::of(&json!("2")).is_number());
    }
}
