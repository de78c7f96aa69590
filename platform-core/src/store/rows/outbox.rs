//! Automations, their deliveries (the outbox of events), the automation log and the mail outbox.

use super::*;
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// The serde form of an entry, which is an object.
fn serialised(entry: &impl Serialize) -> Map<String, Value> {
    match serde_json::to_value(entry) {
        Ok(Value::Object(m)) => m,
        _ => unreachable!("an entry serialises to an object"),
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

/// The entry's JSON form (the automation log's items): `{_id: "<delivery>-<attempt>", _type:
/// "VarAutomationLogEntry", automation, target, owner, source, service, key, action, user,
/// eventTimestamp, delivery, attempt, status, message, timestamp}`.
impl Serialize for LogEntry {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("LogEntry", 15)?;
        s.serialize_field("_id", &format!("{}-{}", self.delivery, self.attempt))?;
        s.serialize_field("_type", "VarAutomationLogEntry")?;
        s.serialize_field("automation", &self.automation)?;
        s.serialize_field("target", &self.target)?;
        s.serialize_field("owner", &self.owner)?;
        s.serialize_field("source", &self.source)?;
        s.serialize_field("service", &self.service)?;
        s.serialize_field("key", &self.key)?;
        s.serialize_field("action", &self.action)?;
        s.serialize_field("user", &self.user)?;
        s.serialize_field("eventTimestamp", &format_instant(self.event_timestamp))?;
        s.serialize_field("delivery", &self.delivery)?;
        s.serialize_field("attempt", &self.attempt)?;
        s.serialize_field("status", self.status.as_str())?;
        s.serialize_field("message", &self.message)?;
        s.serialize_field("timestamp", &format_instant(self.timestamp))?;
        s.end()
    }
}

impl LogEntry {
    /// The entry's JSON form, as kept by a backend: its serde form.
    pub fn to_json(&self) -> Map<String, Value> {
        serialised(self)
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

/// A file attached to an email; its serde form is `{name, content}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
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

/// The entry's JSON form (the mail outbox's items): `{_id, from, to, subject, contentType, body,
/// attachment: null or {name, content}, automation, owner, timestamp}`.
impl Serialize for MailEntry {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("MailEntry", 10)?;
        s.serialize_field("_id", &self.id)?;
        s.serialize_field("from", &self.from)?;
        s.serialize_field("to", &self.to)?;
        s.serialize_field("subject", &self.subject)?;
        s.serialize_field("contentType", &self.content_type)?;
        s.serialize_field("body", &self.body)?;
        s.serialize_field("attachment", &self.attachment)?;
        s.serialize_field("automation", &self.automation)?;
        s.serialize_field("owner", &self.owner)?;
        s.serialize_field("timestamp", &format_instant(self.timestamp))?;
        s.end()
    }
}

impl MailEntry {
    /// The entry's JSON form, as kept by a backend: its serde form.
    pub fn to_json(&self) -> Map<String, Value> {
        serialised(self)
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
}
