//! An automation as sent, checked against its target: conditions, properties, name and switch.

use super::*;

/// Checks the conditions of an automation against its target; returns them normalised.
pub(super) fn check_conditions(v: Option<&Value>, target: &Target) -> Result<Vec<Value>> {
    let items = match v {
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) | None | Some(Value::Null) => {
            return Err(Error::new(
                ErrorCode::MissingParameter,
                "an automation needs conditions: [{source, service, id, action}]",
            ))
        }
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "conditions must be an array, not {}",
                json_kind(other)
            )))
        }
    };
    if items.len() > MAX_CONDITIONS {
        return Err(invalid(format!(
            "an automation takes at most {MAX_CONDITIONS} conditions, not {}",
            items.len()
        )));
    }
    let services: Vec<&str> = EVENT_SERVICES.iter().map(|(s, _)| *s).collect();
    let mut out = Vec::with_capacity(items.len());
    for (i, c) in items.iter().enumerate() {
        let Value::Object(c) = c else {
            return Err(Error::invalid_body(format!(
                "conditions[{i}] must be an object, not {}",
                json_kind(c)
            )));
        };
        let text = |k: &str, default: Option<&str>| -> Result<String> {
            match (c.get(k), default) {
                (Some(Value::String(s)), _) if !s.is_empty() => Ok(s.clone()),
                (None | Some(Value::Null), Some(d)) => Ok(d.to_string()),
                (None | Some(Value::Null), None) => Err(Error::new(
                    ErrorCode::MissingParameter,
                    format!("conditions[{i}] has no {k}"),
                )),
                (Some(other), _) => Err(Error::invalid_body(format!(
                    "conditions[{i}].{k} must be a non-empty string, not {other}"
                ))),
            }
        };
        let service = text("service", None)?;
        let Some(actions) = actions_of(&service) else {
            return Err(invalid(format!(
                "conditions[{i}].service \"{service}\" raises no events; use one of {}",
                services.join(", ")
            )));
        };
        let action = text("action", Some("*"))?;
        if action != "*" && !actions.contains(&action.as_str()) {
            return Err(invalid(format!(
                "conditions[{i}].action \"{action}\" is not an action of the {service} service; use * or one of {}",
                actions.join(", ")
            )));
        }
        let source = text("source", Some("private"))?;
        if !["private", "public", "*"].contains(&source.as_str()) {
            return Err(invalid(format!(
                "conditions[{i}].source must be private, public or *, not \"{source}\""
            )));
        }
        let id = text("id", Some("*"))?;
        let fits = if action == "*" {
            actions.iter().any(|a| target.accepts(&service, a))
        } else {
            target.accepts(&service, &action)
        };
        if !fits {
            return Err(invalid(format!(
                "target {} ({}) does not take {service} {action} events; it takes services {} and actions {}",
                target.id,
                target.name,
                target.services.join(", "),
                target.actions.join(", ")
            )));
        }
        out.push(json!({"source": source, "service": service, "id": id, "action": action}));
    }
    Ok(out)
}

/// The script document `id` as `p` sees it, with its kind (`rhai` or `mustache`).
fn script_kind(tx: &dyn DocumentRead, p: &Principal, id: &str) -> Result<Option<String>> {
    let scope = Scope::for_source(Source::of_id(id), p);
    Ok(tx
        .current(Collection::Script, &scope, id)?
        .map(|d| source_of(&d.body).1.to_string()))
}

/// Checks the properties of an automation against its target's inputs.
pub(super) fn check_properties(
    platform: &Platform,
    tx: &dyn ReadTx,
    p: &Principal,
    target: &Target,
    props: &Map<String, Value>,
) -> Result<()> {
    for input in target.inputs {
        let v = props.get(input.name);
        let missing = matches!(v, None | Some(Value::Null))
            || v.and_then(Value::as_str)
                .is_some_and(|s| s.trim().is_empty());
        if missing {
            if input.required {
                return Err(Error::new(
                    ErrorCode::MissingParameter,
                    format!(
                        "target {} needs properties.{} ({})",
                        target.id, input.name, input.description
                    ),
                ));
            }
            continue;
        }
        let v = v.unwrap_or(&Value::Null);
        let name = input.name;
        if input.kind == "boolean" {
            if !v.is_boolean() {
                return Err(invalid(format!(
                    "properties.{name} must be a boolean, not {v}"
                )));
            }
            continue;
        }
        let Some(text) = v.as_str() else {
            return Err(invalid(format!(
                "properties.{name} must be a string, not {v}"
            )));
        };
        match input.kind {
            "email" => {
                let addresses = crate::outbound::split_addresses(text);
                if let Some(bad) = addresses.iter().find(|a| !crate::outbound::is_address(a)) {
                    return Err(invalid(format!(
                        "properties.{name}: \"{bad}\" is not an email address"
                    )));
                }
            }
            "url" => {
                platform.deliveries().check_webhook_url(text)?;
            }
            "secret" if tx.secret(&p.private_scope(), text)?.is_none() => {
                return Err(invalid(format!(
                    "properties.{name}: secret \"{text}\" does not exist"
                )));
            }
            "script" => {
                let kind = script_kind(tx, p, text)?.ok_or_else(|| {
                    invalid(format!(
                        "properties.{name}: script \"{text}\" does not exist"
                    ))
                })?;
                let allowed: &[&str] = if name == "@transformer" {
                    &["rhai", "mustache"]
                } else {
                    &["rhai"]
                };
                if !allowed.contains(&kind.as_str()) {
                    return Err(invalid(format!(
                        "properties.{name}: script \"{text}\" is a {kind} script; {} needs {}",
                        name,
                        allowed.join(" or ")
                    )));
                }
            }
            _ => {}
        }
    }
    if props.contains_key("@transformer") && !target.transform {
        return Err(invalid(format!(
            "target {} does not take a @transformer",
            target.id
        )));
    }
    Ok(())
}

fn generated_name(target: &Target, props: &Map<String, Value>, conditions: &[Value]) -> String {
    let mut sentence = target.template.to_string();
    for input in target.inputs {
        let shown = match props.get(input.name) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => continue,
            Some(other) => other.to_string(),
        };
        sentence = sentence.replace(&format!("[{}]", input.name), &shown);
    }
    let c = &conditions[0];
    let field = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("*");
    format!(
        "When {} {} raises {}, {sentence}",
        field("service"),
        field("id"),
        field("action")
    )
}

/// The target an automation names (`target`), one of the built-in targets.
pub(super) fn target_of(fields: &Map<String, Value>) -> Result<&'static Target> {
    let target_id = match fields.get("target") {
        Some(Value::String(t)) => t.clone(),
        None | Some(Value::Null) => {
            return Err(Error::new(
                ErrorCode::MissingParameter,
                "an automation needs a target (GET /action/v1/public lists them)",
            ))
        }
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "target must be a string, not {}",
                json_kind(other)
            )))
        }
    };
    targets::find(&target_id).ok_or_else(|| {
        invalid(format!(
            "target \"{target_id}\" does not exist; GET /action/v1/public lists the targets ({})",
            targets::TARGETS
                .iter()
                .map(|t| t.id)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// The `properties` of an automation (none: empty).
pub(super) fn properties_of(fields: &Map<String, Value>) -> Result<Map<String, Value>> {
    match fields.get("properties") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(other) => Err(Error::invalid_body(format!(
            "properties must be an object, not {}",
            json_kind(other)
        ))),
    }
}

/// Whether an automation is enabled (`enabled`, or `active`; true when neither is sent).
pub(super) fn enabled_of(fields: &Map<String, Value>) -> Result<bool> {
    match (fields.get("enabled"), fields.get("active")) {
        (Some(Value::Bool(b)), _) | (None, Some(Value::Bool(b))) => Ok(*b),
        (None | Some(Value::Null), None | Some(Value::Null)) => Ok(true),
        (Some(other), _) | (_, Some(other)) => Err(Error::invalid_body(format!(
            "enabled must be a boolean, not {other}"
        ))),
    }
}

/// An automation as sent, checked: what its stored document is made of.
pub(super) struct Draft<'a> {
    pub(super) fields: &'a Map<String, Value>,
    pub(super) target: &'static Target,
    pub(super) props: &'a Map<String, Value>,
    pub(super) conditions: &'a [Value],
    pub(super) enabled: bool,
}

impl Draft<'_> {
    /// The stored document, `id` given (an update keeps when it was created and whose owned
    /// automation it is); the caller becomes its owner.
    pub(super) fn doc(
        &self,
        id: &str,
        existing: Option<&Map<String, Value>>,
        p: &Principal,
        now: &str,
    ) -> Map<String, Value> {
        let (fields, target) = (self.fields, self.target);
        let mut doc = Map::new();
        doc.insert("_id".into(), json!(id));
        doc.insert("_type".into(), json!("VarAutomation"));
        let name = match fields.get("name") {
            Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
            _ => generated_name(target, self.props, self.conditions),
        };
        doc.insert("name".into(), json!(name));
        for k in ["description", "icon"] {
            if let Some(v) = fields.get(k) {
                doc.insert(k.into(), v.clone());
            }
        }
        doc.insert("target".into(), json!(target.id));
        doc.insert("template".into(), json!(target.template));
        doc.insert("properties".into(), Value::Object(self.props.clone()));
        doc.insert("conditions".into(), Value::Array(self.conditions.to_vec()));
        doc.insert("enabled".into(), json!(self.enabled));
        doc.insert("owner".into(), json!(p.user));
        let created = existing
            .and_then(|d| d.get("created").cloned())
            .unwrap_or_else(|| json!(now));
        doc.insert("created".into(), created);
        doc.insert("updated".into(), json!(now));
        if let Some(owned) = existing.and_then(|d| d.get("ownedBy")) {
            doc.insert("ownedBy".into(), owned.clone());
        }
        doc.insert("_run".into(), run_as(p));
        doc
    }
}
