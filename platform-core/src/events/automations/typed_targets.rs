//! The typed targets automations call ([`AutomationTarget`], with their [`TargetInput`]s) and
//! the automation templates offered for an item ([`AutomationTemplate`]), with the automation
//! service's typed calls that answer them.

use super::typed::{from_json, Automation, Condition};
use super::Automations;
use crate::auth::Principal;
use crate::error::Result;
use crate::ids::Source;
use crate::query::Paging;
use crate::store::Page;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// One input of a target: a property automations calling it give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetInput {
    /// The property name (`to`, `url`, `@transformer`...).
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its kind (`type`): `string`, `boolean`, `script`, `secret`, `email` or `url`.
    pub kind: String,
    /// Whether an automation must give it.
    pub required: bool,
    /// Which items fit it, for an input naming one (`{"scriptType": "rhai"}`,
    /// `{"category": "automation"}`).
    pub filter: Option<Map<String, Value>>,
}

/// An input as the catalogue writes it, under its name.
#[derive(Deserialize)]
struct InputSpec {
    description: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    filter: Option<Map<String, Value>>,
}

/// Reads the `inputs` object (name to spec) as a list in its order.
fn inputs<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<TargetInput>, D::Error> {
    let specs = serde_json::Map::<String, Value>::deserialize(d)?;
    specs
        .into_iter()
        .map(|(name, spec)| {
            let spec: InputSpec = serde_json::from_value(spec).map_err(serde::de::Error::custom)?;
            Ok(TargetInput {
                name,
                description: spec.description,
                kind: spec.kind,
                required: spec.required,
                filter: spec.filter,
            })
        })
        .collect()
}

/// A target automations can call (an entry of the action service's catalogue).
///
/// ```
/// use platform_core::api::Paging;
/// let platform = platform_core::Platform::in_memory()?;
/// let admin = platform.tenancy().local_principal("default", "admin")?;
/// let webhook = platform.automations().automation_target(&admin, "webhook")?;
/// assert_eq!(webhook.id, "platform.webhook");
/// let url = webhook.inputs.iter().find(|i| i.name == "url").unwrap();
/// assert!(url.required && url.kind == "url");
/// assert!(webhook.accepts("object", "update"));
/// let all = platform.automations().automation_targets(&admin, &Paging { skip: 0, limit: None })?;
/// assert!(all.items.contains(&webhook));
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AutomationTarget {
    /// Its id (`_id`, `platform.<code>`), what an automation's `target` names.
    #[serde(rename = "_id")]
    pub id: String,
    /// Its bare code (`email`), also accepted as an automation's `target`.
    pub code: String,
    /// Who publishes it (`platform`).
    pub publisher: String,
    /// Display name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Icon name.
    pub icon: String,
    /// Sentence with bracketed input names.
    pub template: String,
    /// Catalogue tags.
    pub tags: Vec<String>,
    /// The properties automations calling it give, in order.
    #[serde(deserialize_with = "inputs")]
    pub inputs: Vec<TargetInput>,
    /// Fixed properties.
    pub properties: Map<String, Value>,
    /// The services whose events it takes (`*` any).
    pub services: Vec<String>,
    /// The actions whose events it takes (`*` any).
    pub actions: Vec<String>,
    /// Whether an `@transformer` script may shape what it is given.
    pub allow_transformation: bool,
    /// Whether its properties may be changed.
    pub allow_property_change: bool,
}

impl AutomationTarget {
    /// Whether it takes events `action` of `service`.
    pub fn accepts(&self, service: &str, action: &str) -> bool {
        let any_or = |list: &[String], v: &str| list.iter().any(|x| x == "*" || x == v);
        any_or(&self.services, service) && any_or(&self.actions, action)
    }
}

/// An automation that can be created for an item (`listAutomations`): a target with the
/// condition on the item's events. Filled in ([`AutomationTemplate::automation`]), it saves.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AutomationTemplate {
    /// The target's id (`target`, also `script`).
    pub target: String,
    /// The target's bare code.
    pub code: String,
    /// Who publishes the target.
    pub publisher: String,
    /// The target's name.
    pub name: String,
    /// What the target does.
    pub description: String,
    /// Icon name.
    pub icon: String,
    /// The sentence of the automation (`When object A raises update, send an email to [to]
    /// with subject [subject]`).
    pub template: String,
    /// Catalogue tags.
    pub tags: Vec<String>,
    /// The target's inputs, to fill into `properties`.
    #[serde(deserialize_with = "inputs")]
    pub inputs: Vec<TargetInput>,
    /// Fixed properties.
    pub properties: Map<String, Value>,
    /// The services whose events the target takes.
    pub services: Vec<String>,
    /// The actions whose events the target takes.
    pub actions: Vec<String>,
    /// Whether an `@transformer` script may shape what the target is given.
    pub allow_transformation: bool,
    /// Whether its properties may be changed.
    pub allow_property_change: bool,
    /// The condition on the item's events.
    pub conditions: Vec<Condition>,
    /// Whether the automation is to be enabled (`active`).
    pub active: bool,
}

impl AutomationTemplate {
    /// The automation it describes, with the given input values added to its properties,
    /// ready to save.
    pub fn automation(&self, values: Map<String, Value>) -> Automation {
        let mut properties = self.properties.clone();
        properties.extend(values);
        Automation {
            target: Some(self.target.clone()),
            properties,
            conditions: self.conditions.clone(),
            enabled: Some(self.active),
            ..Automation::default()
        }
    }
}

impl Automations<'_> {
    /// Typed: the targets automations can call, one page of them.
    pub fn automation_targets(
        &self,
        p: &Principal,
        paging: &Paging,
    ) -> Result<Page<AutomationTarget>> {
        let page = self.targets(p, paging)?;
        Ok(Page {
            items: page
                .items
                .into_iter()
                .map(|t| from_json("target", t))
                .collect::<Result<_>>()?,
            total: page.total,
            estimated: page.estimated,
        })
    }

    /// Typed: one target, by id or bare code.
    pub fn automation_target(&self, p: &Principal, id: &str) -> Result<AutomationTarget> {
        from_json("target", self.target(p, id)?)
    }

    /// Typed: the automation templates that fit item `key` of `service` in `source` (the item
    /// must exist and be readable by the caller).
    ///
    /// ```
    /// use platform_core::api::{Collection, Source};
    /// use serde_json::{json, Map};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let admin = platform.tenancy().local_principal("default", "admin")?;
    /// platform.objects().save(&admin, Collection::Object, json!({"_id": "PLANT1"}), &Default::default())?;
    /// let automations = platform.automations();
    /// let offered = automations.automation_templates(&admin, "object", Source::Private, "PLANT1")?;
    /// let mail = offered.iter().find(|t| t.code == "email" && t.conditions[0].action == "update").unwrap();
    /// assert_eq!(mail.conditions[0].id, "PLANT1");
    /// let mut values = Map::new();
    /// values.insert("to".into(), json!("ops@acme.example"));
    /// values.insert("subject".into(), json!("PLANT1 changed"));
    /// let saved = automations.save_automation(&admin, &mail.automation(values))?;
    /// assert_eq!(saved.automation.conditions, mail.conditions);
    /// assert_eq!(saved.automation.target.as_deref(), Some("platform.email"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn automation_templates(
        &self,
        p: &Principal,
        service: &str,
        source: Source,
        key: &str,
    ) -> Result<Vec<AutomationTemplate>> {
        self.templates(p, service, source, key)?
            .into_iter()
            .map(|t| from_json("template", t))
            .collect()
    }
}
