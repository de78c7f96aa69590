//! The typed automations a program writes and reads: [`Automation`] and [`StoredAutomation`],
//! their [`Condition`]s, and the automation service's typed calls, which run its JSON calls
//! with typed values on either side (the request's serde form is the JSON body; the JSON
//! answer reads into the typed answer, and one that does not read is an internal error).
//! The typed targets and templates are in `typed_targets`.

use super::Automations;
use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::query::Paging;
use crate::store::Page;
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::Duration;

/// Reads a JSON answer of the automation service as its typed form; one that does not read is
/// an internal error.
pub(super) fn from_json<T: DeserializeOwned>(what: &str, answer: Value) -> Result<T> {
    crate::json::typed_answer("an automation", what, answer)
}

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

/// One condition of an automation: the events it receives.
///
/// ```
/// use platform_core::api::{Condition, ConditionSource};
/// let c = Condition::new("object", "PLANT1", "update");
/// assert_eq!(c.source, ConditionSource::Private);
/// assert_eq!(
///     serde_json::to_value(&c).unwrap(),
///     serde_json::json!({"source": "private", "service": "object", "id": "PLANT1", "action": "update"})
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
}

/// An automation as a program writes it: what is `None` is not sent (a new automation without
/// a name gets one made from its target and first condition; one without `enabled` is
/// enabled). The service checks it as it checks the JSON body, so an automation without a
/// target or conditions is refused.
///
/// ```
/// use platform_core::api::{Automation, Condition};
/// let a = Automation::new("platform.email", vec![Condition::new("object", "*", "update")])
///     .with_property("to", "ops@acme.example")
///     .with_property("subject", "changed");
/// assert_eq!(a.target.as_deref(), Some("platform.email"));
/// assert_eq!(a.properties["to"], "ops@acme.example");
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Automation {
    /// Its id (`_id`): `None` for a new automation (the server assigns one), the id of a
    /// stored one to update it.
    #[serde(rename = "_id", default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icon name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// The target it calls: a built-in target id (`platform.email`) or its bare code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The values of the target's inputs (`to`, `subject`, `url`, `@transformer`...).
    #[serde(default)]
    pub properties: Map<String, Value>,
    /// The events it receives: 1 to 20 conditions.
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Whether it receives events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Its other fields, sent as they are (the service keeps the fields it knows).
    #[serde(flatten)]
    pub other: Map<String, Value>,
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

    /// The JSON body of the automation service's save.
    fn to_body(&self) -> Result<Value> {
        serde_json::to_value(self)
            .map_err(|e| Error::Internal(format!("an automation does not write: {e}")))
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
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
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
    #[serde(default)]
    pub owned_by: Option<AutomationOwner>,
    /// The automation.
    #[serde(flatten)]
    pub automation: Automation,
}

impl StoredAutomation {
    /// The typed form of the automation service's JSON answer.
    pub(super) fn from_json(answer: Value) -> Result<StoredAutomation> {
        let Value::Object(mut fields) = answer else {
            return Err(Error::Internal(format!("an automation answered {answer}")));
        };
        fields.shift_remove("_type");
        let stored: StoredAutomation = from_json("answer", Value::Object(fields))?;
        let a = &stored.automation;
        if a.id.is_none() || a.target.is_none() || a.enabled.is_none() {
            return Err(Error::Internal(format!(
                "automation {:?} answered without its id, target or enabled",
                a.id
            )));
        }
        Ok(stored)
    }

    /// Its id.
    pub fn id(&self) -> &str {
        self.automation.id.as_deref().unwrap_or_default()
    }
}

/// The answer of a deletion of an automation.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DeletedAutomation {
    /// The id of the deleted automation (`_id`).
    #[serde(rename = "_id")]
    pub id: String,
    /// Whether it was deleted (always true: an unknown automation is not found).
    pub deleted: bool,
}

/// An event as deliveries receive it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    #[serde(default)]
    pub chain: Option<u32>,
    /// Whether it is a test event.
    #[serde(default)]
    pub test: bool,
}

/// The answer of a test-firing of an automation: the delivery queued.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TestFiring {
    /// The automation (`_id`).
    #[serde(rename = "_id")]
    pub id: String,
    /// Whether a delivery was queued (always true).
    pub queued: bool,
    /// When the delivery is due.
    pub due: DateTime<Utc>,
    /// The test event it delivers (`data: {"_test": true}`, `test: true`).
    pub event: AutomationEvent,
}

impl Automations<'_> {
    /// Typed: creates an automation (`id` `None`) or updates the stored one with its `id`; the
    /// caller becomes its owner. Refused as the JSON save refuses its body (no target, no
    /// conditions, a service that raises no events, a webhook URL not allowed...).
    ///
    /// ```
    /// use platform_core::api::{Automation, Condition};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let admin = platform.tenancy().local_principal("default", "admin")?;
    /// let email = Automation::new("email", vec![Condition::new("object", "PLANT1", "update")])
    ///     .with_property("to", "ops@acme.example")
    ///     .with_property("subject", "PLANT1 changed");
    /// let saved = platform.automations().save_automation(&admin, &email)?;
    /// assert_eq!(saved.automation.target.as_deref(), Some("platform.email"));
    /// assert_eq!(saved.automation.enabled, Some(true));
    /// assert_eq!(saved.owner, "admin");
    /// let read = platform.automations().automation(&admin, saved.id())?;
    /// assert_eq!(read, saved);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn save_automation(
        &self,
        p: &Principal,
        automation: &Automation,
    ) -> Result<StoredAutomation> {
        StoredAutomation::from_json(self.save(p, automation.to_body()?)?)
    }

    /// Typed: one automation of the caller's tenant and environment.
    pub fn automation(&self, p: &Principal, id: &str) -> Result<StoredAutomation> {
        StoredAutomation::from_json(self.get(p, id)?)
    }

    /// Typed: the caller's automations, by id, one page of them.
    pub fn automations(&self, p: &Principal, paging: &Paging) -> Result<Page<StoredAutomation>> {
        let page = self.list(p, paging)?;
        Ok(Page {
            items: page
                .items
                .into_iter()
                .map(StoredAutomation::from_json)
                .collect::<Result<_>>()?,
            total: page.total,
            estimated: page.estimated,
        })
    }

    /// Typed: enables (`on`) or disables an automation; answers it as stored.
    pub fn enable_automation(&self, p: &Principal, id: &str, on: bool) -> Result<StoredAutomation> {
        StoredAutomation::from_json(self.set_enabled(p, id, on)?)
    }

    /// Typed: deletes an automation; its pending deliveries are skipped.
    pub fn delete_automation(&self, p: &Principal, id: &str) -> Result<DeletedAutomation> {
        from_json("deletion", self.delete(p, id)?)
    }

    /// Typed: test-fires an automation, queuing one delivery of a test event due after
    /// `delay` (whole milliseconds; at most 60 seconds), or now.
    pub fn test_automation(
        &self,
        p: &Principal,
        id: &str,
        delay: Option<Duration>,
    ) -> Result<TestFiring> {
        let delay = delay.map(|d| d.as_millis().to_string());
        from_json("test-firing", self.test(p, id, delay.as_deref())?)
    }
}
