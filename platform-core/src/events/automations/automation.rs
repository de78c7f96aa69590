//! The automations a program or a request writes ([`Automation`], with its [`Condition`]s;
//! read from a request's body by [`Automation::from_body`]) and the service's answers about
//! them: [`StoredAutomation`], [`DeletedAutomation`], [`TestFiring`] with its
//! [`AutomationEvent`]. Each answer's serde form is the interface's.

use crate::clock::{format_instant, parse_instant};
use crate::error::{Error, Result};
use chrono::{DateTime, Utc};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Which source's items a [`Condition`] is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum ConditionSource {
    /// The tenant's own items (`private`).
    #[default]
    #[serde(rename = "private")]
    Private,
    /// Shared items (`public`).
    #[serde(rename = "public")]
    Public,
    /// Either (`*`).
    #[serde(rename = "*")]
    Any,
}

impl ConditionSource {
    /// Its name (`private`, `public`, `*`).
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionSource::Private => "private",
            ConditionSource::Public => "public",
            ConditionSource::Any => "*",
        }
    }

    /// The source of a name.
    pub fn parse(name: &str) -> Option<ConditionSource> {
        [
            ConditionSource::Private,
            ConditionSource::Public,
            ConditionSource::Any,
        ]
        .into_iter()
        .find(|s| s.as_str() == name)
    }
}

/// One condition of an automation: the events it receives.
///
/// ```
/// use platform_core::api::{automations::Condition, automations::ConditionSource};
/// let c = Condition::new("object", "PLANT1", "update");
/// assert_eq!(c.source, ConditionSource::Private);
/// assert_eq!(
///     serde_json::to_string(&c).unwrap(),
///     r#"{"source":"private","service":"object","id":"PLANT1","action":"update"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Condition {
    /// The source of the items (`source`).
    pub source: ConditionSource,
    /// A service that raises events (`object`, `data`, `validation`...).
    pub service: String,
    /// The item's id, `*` for any.
    pub id: String,
    /// One of the service's actions, `*` for any (`invalid` and `validated` reach only the
    /// conditions that name them).
    pub action: String,
}

impl Condition {
    /// A condition on events `action` of item `id` of `service` in the private source.
    pub fn new(
        service: impl Into<String>,
        id: impl Into<String>,
        action: impl Into<String>,
    ) -> Condition {
        Condition {
            source: ConditionSource::Private,
            service: service.into(),
            id: id.into(),
            action: action.into(),
        }
    }

    /// The same condition on items of `source`.
    pub fn in_source(self, source: ConditionSource) -> Condition {
        Condition { source, ..self }
    }

    /// The condition as an automation stores it.
    pub(super) fn to_json(&self) -> Value {
        let mut c = Map::new();
        c.insert("source".into(), Value::String(self.source.as_str().into()));
        c.insert("service".into(), Value::String(self.service.clone()));
        c.insert("id".into(), Value::String(self.id.clone()));
        c.insert("action".into(), Value::String(self.action.clone()));
        Value::Object(c)
    }

    /// The condition an automation stores (its fields as text; what is missing is empty).
    fn of_json(c: &Value) -> Condition {
        let text = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or_default();
        Condition {
            source: ConditionSource::parse(text("source")).unwrap_or_default(),
            service: text("service").into(),
            id: text("id").into(),
            action: text("action").into(),
        }
    }
}

/// An automation as a program or a request writes it: what is `None` is not sent (a new
/// automation without a name gets one made from its target and first condition; one without
/// `enabled` is enabled). The service checks it as it checks a request's body
/// ([`Automation::from_body`]), so an automation without a target or conditions is refused.
///
/// ```
/// use platform_core::api::{automations::Automation, automations::Condition};
/// let a = Automation::new("platform.email", vec![Condition::new("object", "*", "update")])
///     .with_property("to", "ops@acme.example")
///     .with_property("subject", "changed");
/// assert_eq!(a.target.as_deref(), Some("platform.email"));
/// assert_eq!(a.properties["to"], "ops@acme.example");
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Automation {
    /// Its id (`_id`): `None` for a new automation (the server assigns one), the id of a
    /// stored one to update it.
    pub id: Option<String>,
    /// Display name; a blank one is made from the target and the first condition.
    pub name: Option<String>,
    /// What it is for; `Some(None)` is sent (and kept) as `null`.
    pub description: Option<Option<String>>,
    /// Icon name; `Some(None)` is sent (and kept) as `null`.
    pub icon: Option<Option<String>>,
    /// The target it calls: a built-in target id (`platform.email`) or its bare code.
    pub target: Option<String>,
    /// The values of the target's inputs (`to`, `subject`, `url`, `@transformer`...).
    pub properties: Map<String, Value>,
    /// The events it receives: 1 to 20 conditions.
    pub conditions: Vec<Condition>,
    /// Whether it receives events.
    pub enabled: Option<bool>,
}

impl Automation {
    /// A new automation calling `target` on events meeting `conditions`.
    pub fn new(target: impl Into<String>, conditions: Vec<Condition>) -> Automation {
        Automation {
            target: Some(target.into()),
            conditions,
            ..Automation::default()
        }
    }

    /// The same automation with the input `name` of its target set to `value`.
    pub fn with_property(mut self, name: &str, value: impl Into<Value>) -> Automation {
        self.properties.insert(name.into(), value.into());
        self
    }

    /// The automation a request's body (`POST automation/v1`) sends, checked as the service
    /// checks it, with the same texts: a `target` of the catalogue, 1 to 20 `conditions` each
    /// on a service that raises events and that the target takes (their `source`, `id` and
    /// `action` defaulting to `private`, `*` and `*`), `properties` an object, `enabled` (or
    /// `active`) a boolean, `name`, `description` and `icon` strings or `null`, `_id` a string
    /// or `null`. The target is named by its id, whichever form was sent; the fields only the
    /// platform writes (`owner`, `created`, `updated`, `ownedBy`) and unknown ones are ignored.
    /// The properties are checked against the target's inputs when it is saved.
    ///
    /// ```
    /// use platform_core::api::automations::Automation;
    /// let body = serde_json::json!({"target": "email", "properties": {"to": "ops@acme.example"},
    ///     "conditions": [{"service": "object", "id": "PLANT1", "action": "update"}]});
    /// let a = Automation::from_body(&body)?;
    /// assert_eq!(a.target.as_deref(), Some("platform.email"));
    /// assert_eq!(a.conditions[0].id, "PLANT1");
    /// let e = Automation::from_body(&serde_json::json!({"target": "fax"})).unwrap_err();
    /// assert!(e.to_string().starts_with("target \"fax\" does not exist"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn from_body(body: &Value) -> Result<Automation> {
        super::draft::automation_of(body)
    }
}

/// The configuration that owns an automation (`ownedBy`): a validation configuration with
/// `runOnUpdate` owns the automation that runs its checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutomationOwner {
    /// The owning service (`validationconfig`).
    pub service: String,
    /// The owning item (the data id of the configuration).
    pub id: String,
}

/// An automation as stored: its fields as saved (id, name, target id and `enabled` always
/// given), the target's sentence, who saved it and when.
///
/// Its serde form is the answer of `GET automation/v1/{id}`: `_id`, `_type`
/// (`VarAutomation`), `name`, `description` and `icon` where saved, `target`, `template`,
/// `properties`, `conditions`, `enabled`, `owner`, `created`, `updated`, and `ownedBy` where
/// a configuration owns it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAutomation {
    /// The target's sentence with bracketed input names (`template`), set from the target.
    pub template: String,
    /// The user that saved it last (`owner`); deliveries run with that user's rights as they
    /// were at the save.
    pub owner: String,
    /// When it was created.
    pub created: DateTime<Utc>,
    /// When it was last written.
    pub updated: DateTime<Utc>,
    /// The configuration that owns it (`ownedBy`), if one does.
    pub owned_by: Option<AutomationOwner>,
    /// The automation.
    pub automation: Automation,
}

impl StoredAutomation {
    /// The automation stored as `doc`.
    pub(super) fn of_doc(doc: &Map<String, Value>) -> Result<StoredAutomation> {
        let text = |k: &str| doc.get(k).and_then(Value::as_str).map(str::to_string);
        let nullable = |k: &str| doc.get(k).map(|v| v.as_str().map(str::to_string));
        let id = text("_id").unwrap_or_default();
        let time = |k: &str| {
            text(k)
                .and_then(|t| parse_instant(&t).ok())
                .ok_or_else(|| Error::Internal(format!("automation \"{id}\" has no {k} time")))
        };
        let owned_by = doc.get("ownedBy").and_then(Value::as_object).map(|o| {
            let text = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or_default();
            AutomationOwner {
                service: text("service").into(),
                id: text("id").into(),
            }
        });
        let conditions = doc.get("conditions").and_then(Value::as_array);
        Ok(StoredAutomation {
            template: text("template").unwrap_or_default(),
            owner: text("owner").unwrap_or_default(),
            created: time("created")?,
            updated: time("updated")?,
            owned_by,
            automation: Automation {
                name: text("name"),
                description: nullable("description"),
                icon: nullable("icon"),
                target: text("target"),
                properties: doc
                    .get("properties")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
                conditions: conditions
                    .map(|c| c.iter().map(Condition::of_json).collect())
                    .unwrap_or_default(),
                enabled: Some(doc.get("enabled").and_then(Value::as_bool) != Some(false)),
                id: Some(id),
            },
        })
    }

    /// Its id.
    pub fn id(&self) -> &str {
        self.automation.id.as_deref().unwrap_or_default()
    }
}

impl Serialize for StoredAutomation {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let a = &self.automation;
        let mut map = serializer.serialize_map(None)?;
        if let Some(id) = &a.id {
            map.serialize_entry("_id", id)?;
        }
        map.serialize_entry("_type", "VarAutomation")?;
        if let Some(name) = &a.name {
            map.serialize_entry("name", name)?;
        }
        if let Some(description) = &a.description {
            map.serialize_entry("description", description)?;
        }
        if let Some(icon) = &a.icon {
            map.serialize_entry("icon", icon)?;
        }
        if let Some(target) = &a.target {
            map.serialize_entry("target", target)?;
        }
        map.serialize_entry("template", &self.template)?;
        map.serialize_entry("properties", &a.properties)?;
        map.serialize_entry("conditions", &a.conditions)?;
        if let Some(enabled) = a.enabled {
            map.serialize_entry("enabled", &enabled)?;
        }
        map.serialize_entry("owner", &self.owner)?;
        map.serialize_entry("created", &format_instant(self.created))?;
        map.serialize_entry("updated", &format_instant(self.updated))?;
        if let Some(owner) = &self.owned_by {
            map.serialize_entry("ownedBy", owner)?;
        }
        map.end()
    }
}

/// The answer of a deletion of an automation: `{"_id": ..., "deleted": true}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeletedAutomation {
    /// The id of the deleted automation (`_id`).
    #[serde(rename = "_id")]
    pub id: String,
    /// Whether it was deleted (always true: an unknown automation is not found).
    pub deleted: bool,
}

/// An event as deliveries receive it.
///
/// Its serde form is the event: `service`, `source`, `id`, `action`, `timestamp`, `user`,
/// `tenant`, `environment`, `data`, then `chain` where a delivery raised it and `test` where it
/// is a test event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AutomationEvent {
    /// The service that raised it.
    pub service: String,
    /// The source of the item (`private` or `public`).
    pub source: String,
    /// The item's id.
    pub id: String,
    /// What happened (`update`, `invalid`...).
    pub action: String,
    /// When.
    #[serde(with = "crate::clock::serde_instant")]
    pub timestamp: DateTime<Utc>,
    /// Who made the change.
    pub user: String,
    /// The tenant of the change.
    pub tenant: String,
    /// The environment of the change.
    pub environment: String,
    /// What the event carries (the saved item, the validation result...).
    pub data: Value,
    /// How many deliveries led to it, when a delivery raised it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<u32>,
    /// Whether it is a test event.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub test: bool,
}

/// The answer of a test-firing of an automation: the delivery queued.
///
/// Its serde form is `{"_id", "queued": true, "due", "event"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestFiring {
    /// The automation (`_id`).
    #[serde(rename = "_id")]
    pub id: String,
    /// Whether a delivery was queued (always true).
    pub queued: bool,
    /// When the delivery is due.
    #[serde(with = "crate::clock::serde_instant")]
    pub due: DateTime<Utc>,
    /// The test event it delivers (`data: {"_test": true}`, `test: true`).
    pub event: AutomationEvent,
}
