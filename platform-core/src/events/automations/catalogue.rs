//! The targets automations call ([`AutomationTarget`], with their [`TargetInput`]s) and the
//! automation templates offered for an item ([`AutomationTemplate`]), made from the built-in
//! targets; their serde forms are the action service's entities.

use super::automation::{Automation, Condition, ConditionSource};
use crate::events::actions_of;
use crate::events::targets::{Input, Target, TARGETS, TRANSFORMER_CATEGORY};
use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::{Map, Value};

/// One input of a target: a property automations calling it give.
///
/// Its serde form is its entry under its name in a target's `inputs`: `description`, `type`,
/// `required`, and `filter` where it has one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TargetInput {
    /// The property name (`to`, `url`, `@transformer`...).
    #[serde(skip)]
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its kind (`type`): `string`, `boolean`, `script`, `secret`, `email` or `url`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether an automation must give it.
    pub required: bool,
    /// Which items fit it, for an input naming one (`{"scriptType": "rhai"}`,
    /// `{"category": "automation"}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<Map<String, Value>>,
}

impl TargetInput {
    /// The input as a target of the catalogue declares it; a script input lists rhai scripts,
    /// a transformer the scripts of the transformers' category.
    fn of(input: &Input) -> TargetInput {
        let filter = |key: &str, value: &str| {
            let mut filter = Map::new();
            filter.insert(key.into(), Value::String(value.into()));
            Some(filter)
        };
        TargetInput {
            name: input.name.into(),
            description: input.description.into(),
            kind: input.kind.into(),
            required: input.required,
            filter: match input.name {
                "@transformer" => filter("category", TRANSFORMER_CATEGORY),
                "script" => filter("scriptType", "rhai"),
                _ => None,
            },
        }
    }
}

/// The inputs of a target as its entity writes them: an object of the inputs by name.
struct Inputs<'a>(&'a [TargetInput]);

impl Serialize for Inputs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for input in self.0 {
            map.serialize_entry(&input.name, input)?;
        }
        map.end()
    }
}

/// A target automations can call (an entry of the action service's catalogue).
///
/// Its serde form is the answer of `GET /action/v1/public/{id}`: `_id`, `_type`
/// (`VarAutomationTarget`), `publisher`, `code`, `name`, `description`, `icon`, `template`,
/// `tags`, `inputs` (by name), `properties`, `services`, `actions`, `allowTransformation`,
/// `allowPropertyChange`.
///
/// ```
/// use platform_core::api::Paging;
/// let platform = platform_core::Platform::in_memory()?;
/// let admin = platform.tenancy().local_principal("default", "admin")?;
/// let webhook = platform.automations().target(&admin, "webhook")?;
/// assert_eq!(webhook.id, "platform.webhook");
/// let url = webhook.inputs.iter().find(|i| i.name == "url").unwrap();
/// assert!(url.required && url.kind == "url");
/// assert!(webhook.accepts("object", "update"));
/// let all = platform.automations().targets(&admin, &Paging { skip: 0, limit: None })?;
/// assert!(all.items.contains(&webhook));
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutomationTarget {
    /// Its id (`_id`, `platform.<code>`), what an automation's `target` names.
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

fn texts(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

impl AutomationTarget {
    /// The entity of a built-in target.
    pub(super) fn of(target: &Target) -> AutomationTarget {
        AutomationTarget {
            id: target.id.into(),
            code: target.code.into(),
            publisher: "platform".into(),
            name: target.name.into(),
            description: target.description.into(),
            icon: target.icon.into(),
            template: target.template.into(),
            tags: texts(target.tags),
            inputs: target.inputs.iter().map(TargetInput::of).collect(),
            properties: Map::new(),
            services: texts(target.services),
            actions: texts(target.actions),
            allow_transformation: target.transform,
            allow_property_change: true,
        }
    }

    /// Whether it takes events `action` of `service`.
    pub fn accepts(&self, service: &str, action: &str) -> bool {
        let any_or = |list: &[String], v: &str| list.iter().any(|x| x == "*" || x == v);
        any_or(&self.services, service) && any_or(&self.actions, action)
    }
}

impl Serialize for AutomationTarget {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("AutomationTarget", 15)?;
        s.serialize_field("_id", &self.id)?;
        s.serialize_field("_type", "VarAutomationTarget")?;
        s.serialize_field("publisher", &self.publisher)?;
        s.serialize_field("code", &self.code)?;
        s.serialize_field("name", &self.name)?;
        s.serialize_field("description", &self.description)?;
        s.serialize_field("icon", &self.icon)?;
        s.serialize_field("template", &self.template)?;
        s.serialize_field("tags", &self.tags)?;
        s.serialize_field("inputs", &Inputs(&self.inputs))?;
        s.serialize_field("properties", &self.properties)?;
        s.serialize_field("services", &self.services)?;
        s.serialize_field("actions", &self.actions)?;
        s.serialize_field("allowTransformation", &self.allow_transformation)?;
        s.serialize_field("allowPropertyChange", &self.allow_property_change)?;
        s.end()
    }
}

/// An automation that can be created for an item (`listAutomations`): a target with the
/// condition on the item's events. Filled in ([`AutomationTemplate::automation`]), it saves.
///
/// Its serde form is an item of `_function=listAutomations`: `_type` (`VarAutomation`),
/// `publisher`, `code`, `name`, `description`, `icon`, `script` (the target's id), `template`,
/// `allowTransformation`, `allowPropertyChange`, `tags`, `inputs`, `properties`, `services`,
/// `actions`, `target`, `conditions`, `active`.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// The template of `target` for events `action` of item `id` of `service` in `source`.
    fn of(target: &Target, source: ConditionSource, service: &str, id: &str, action: &str) -> Self {
        let entity = AutomationTarget::of(target);
        AutomationTemplate {
            target: entity.id,
            code: entity.code,
            publisher: entity.publisher,
            name: entity.name,
            description: entity.description,
            icon: entity.icon,
            template: format!("When {service} {id} raises {action}, {}", target.template),
            tags: entity.tags,
            inputs: entity.inputs,
            properties: entity.properties,
            services: entity.services,
            actions: entity.actions,
            allow_transformation: entity.allow_transformation,
            allow_property_change: entity.allow_property_change,
            conditions: vec![Condition::new(service, id, action).in_source(source)],
            active: true,
        }
    }

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

impl Serialize for AutomationTemplate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("AutomationTemplate", 18)?;
        s.serialize_field("_type", "VarAutomation")?;
        s.serialize_field("publisher", &self.publisher)?;
        s.serialize_field("code", &self.code)?;
        s.serialize_field("name", &self.name)?;
        s.serialize_field("description", &self.description)?;
        s.serialize_field("icon", &self.icon)?;
        s.serialize_field("script", &self.target)?;
        s.serialize_field("template", &self.template)?;
        s.serialize_field("allowTransformation", &self.allow_transformation)?;
        s.serialize_field("allowPropertyChange", &self.allow_property_change)?;
        s.serialize_field("tags", &self.tags)?;
        s.serialize_field("inputs", &Inputs(&self.inputs))?;
        s.serialize_field("properties", &self.properties)?;
        s.serialize_field("services", &self.services)?;
        s.serialize_field("actions", &self.actions)?;
        s.serialize_field("target", &self.target)?;
        s.serialize_field("conditions", &self.conditions)?;
        s.serialize_field("active", &self.active)?;
        s.end()
    }
}

/// The automation templates that fit item `id` of `service` in `source`: one per target and
/// action the target accepts.
pub(super) fn templates(
    source: ConditionSource,
    service: &str,
    id: &str,
) -> Vec<AutomationTemplate> {
    let Some(actions) = actions_of(service) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in TARGETS {
        for action in actions {
            if t.accepts(service, action) {
                out.push(AutomationTemplate::of(t, source, service, id, action));
            }
        }
    }
    out
}
