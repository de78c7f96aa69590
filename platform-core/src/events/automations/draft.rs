//! An automation as sent, checked against its target: a request's body read into an
//! [`Automation`] (with the interface's texts), the checks a program's automation passes
//! alike, and the stored document made of it.

use super::*;

/// No conditions.
fn no_conditions() -> Error {
    Error::new(
        ErrorCode::MissingParameter,
        "an automation needs conditions: [{source, service, id, action}]",
    )
}

/// Refuses more conditions than an automation takes.
fn check_count(n: usize) -> Result<()> {
    if n > MAX_CONDITIONS {
        return Err(invalid(format!(
            "an automation takes at most {MAX_CONDITIONS} conditions, not {n}"
        )));
    }
    Ok(())
}

/// The actions of the service of condition `i`, which must raise events.
fn actions_for(i: usize, service: &str) -> Result<&'static [&'static str]> {
    actions_of(service).ok_or_else(|| {
        let services: Vec<&str> = EVENT_SERVICES.iter().map(|(s, _)| *s).collect();
        invalid(format!(
            "conditions[{i}].service \"{service}\" raises no events; use one of {}",
            services.join(", ")
        ))
    })
}

/// Refuses an action of condition `i` that its service does not raise.
fn check_action(i: usize, service: &str, actions: &[&str], action: &str) -> Result<()> {
    if action != "*" && !actions.contains(&action) {
        return Err(invalid(format!(
            "conditions[{i}].action \"{action}\" is not an action of the {service} service; use * or one of {}",
            actions.join(", ")
        )));
    }
    Ok(())
}

/// Refuses a condition whose events the target does not take.
fn check_fits(target: &Target, service: &str, actions: &[&str], action: &str) -> Result<()> {
    let fits = if action == "*" {
        actions.iter().any(|a| target.accepts(service, a))
    } else {
        target.accepts(service, action)
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
    Ok(())
}

/// Reads the conditions of a body against its target; returns them normalised.
fn conditions_of(v: Option<&Value>, target: &Target) -> Result<Vec<Condition>> {
    let items = match v {
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) | None | Some(Value::Null) => return Err(no_conditions()),
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "conditions must be an array, not {}",
                json_kind(other)
            )))
        }
    };
    check_count(items.len())?;
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
        let actions = actions_for(i, &service)?;
        let action = text("action", Some("*"))?;
        check_action(i, &service, actions, &action)?;
        let source = text("source", Some("private"))?;
        let source = ConditionSource::parse(&source).ok_or_else(|| {
            invalid(format!(
                "conditions[{i}].source must be private, public or *, not \"{source}\""
            ))
        })?;
        let id = text("id", Some("*"))?;
        check_fits(target, &service, actions, &action)?;
        out.push(Condition {
            source,
            service,
            id,
            action,
        });
    }
    Ok(out)
}

/// Checks the conditions of a program's automation against its target, as a body's are.
fn check_conditions(conditions: &[Condition], target: &Target) -> Result<()> {
    if conditions.is_empty() {
        return Err(no_conditions());
    }
    check_count(conditions.len())?;
    for (i, c) in conditions.iter().enumerate() {
        let non_empty = |k: &str, v: &str| {
            if v.is_empty() {
                return Err(Error::invalid_body(format!(
                    "conditions[{i}].{k} must be a non-empty string, not \"\""
                )));
            }
            Ok(())
        };
        non_empty("service", &c.service)?;
        let actions = actions_for(i, &c.service)?;
        non_empty("action", &c.action)?;
        check_action(i, &c.service, actions, &c.action)?;
        non_empty("id", &c.id)?;
        check_fits(target, &c.service, actions, &c.action)?;
    }
    Ok(())
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

fn generated_name(target: &Target, props: &Map<String, Value>, conditions: &[Condition]) -> String {
    let mut sentence = target.template.to_string();
    for input in target.inputs {
        let shown = match props.get(input.name) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => continue,
            Some(other) => other.to_string(),
        };
        sentence = sentence.replace(&format!("[{}]", input.name), &shown);
    }
    let (service, id, action) = conditions
        .first()
        .map_or(("*", "*", "*"), |c| (&c.service, &c.id, &c.action));
    format!("When {service} {id} raises {action}, {sentence}")
}

/// No target.
fn no_target() -> Error {
    Error::new(
        ErrorCode::MissingParameter,
        "an automation needs a target (GET /action/v1/public lists them)",
    )
}

/// The built-in target named by id or bare code.
fn target_named(target_id: &str) -> Result<&'static Target> {
    targets::find(target_id).ok_or_else(|| {
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

/// The target a body names (`target`), one of the built-in targets.
fn target_of(fields: &Map<String, Value>) -> Result<&'static Target> {
    match fields.get("target") {
        Some(Value::String(t)) => target_named(t),
        None | Some(Value::Null) => Err(no_target()),
        Some(other) => Err(Error::invalid_body(format!(
            "target must be a string, not {}",
            json_kind(other)
        ))),
    }
}

/// The `properties` of a body (none: empty).
fn properties_of(fields: &Map<String, Value>) -> Result<Map<String, Value>> {
    match fields.get("properties") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(other) => Err(Error::invalid_body(format!(
            "properties must be an object, not {}",
            json_kind(other)
        ))),
    }
}

/// Whether a body enables its automation (`enabled`, or `active`), if it says.
fn enabled_of(fields: &Map<String, Value>) -> Result<Option<bool>> {
    match (fields.get("enabled"), fields.get("active")) {
        (Some(Value::Bool(b)), _) | (None, Some(Value::Bool(b))) => Ok(Some(*b)),
        (None | Some(Value::Null), None | Some(Value::Null)) => Ok(None),
        (Some(other), _) | (_, Some(other)) => Err(Error::invalid_body(format!(
            "enabled must be a boolean, not {other}"
        ))),
    }
}

/// A text field of a body: absent, `null` or a string.
fn text_of(fields: &Map<String, Value>, k: &str) -> Result<Option<Option<String>>> {
    match fields.get(k) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) => Ok(Some(Some(s.clone()))),
        Some(v) => Err(Error::invalid_body(format!(
            "{k} must be a string, not {}",
            json_kind(v)
        ))),
    }
}

/// Reads an automation from a request's body ([`Automation::from_body`]).
pub(super) fn automation_of(body: &Value) -> Result<Automation> {
    let Value::Object(fields) = body else {
        return Err(Error::invalid_body(format!(
            "an automation must be a JSON object, not {}",
            json_kind(body)
        )));
    };
    let target = target_of(fields)?;
    let conditions = conditions_of(fields.get("conditions"), target)?;
    let properties = properties_of(fields)?;
    let enabled = enabled_of(fields)?;
    let name = text_of(fields, "name")?.flatten();
    let description = text_of(fields, "description")?;
    let icon = text_of(fields, "icon")?;
    let id = match fields.get("_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id.clone()),
        Some(other) => {
            return Err(Error::new(
                ErrorCode::InvalidId,
                format!("_id must be a string, not {}", json_kind(other)),
            ))
        }
    };
    Ok(Automation {
        id,
        name,
        description,
        icon,
        target: Some(target.id.into()),
        properties,
        conditions,
        enabled,
    })
}

/// The target of an automation to save, which it is checked against (its conditions here,
/// its properties in the write, where the items they name are read).
pub(super) fn checked_target(automation: &Automation) -> Result<&'static Target> {
    let target = target_named(automation.target.as_deref().ok_or_else(no_target)?)?;
    check_conditions(&automation.conditions, target)?;
    Ok(target)
}

/// The stored document of `automation` (checked, its target `target`), `id` given: an update
/// keeps when it was created and whose owned automation it is; the caller becomes its owner.
pub(super) fn doc(
    automation: &Automation,
    target: &Target,
    id: &str,
    existing: Option<&Map<String, Value>>,
    p: &Principal,
    now: &str,
) -> Map<String, Value> {
    let text = |t: &str| Value::String(t.to_string());
    let mut doc = Map::new();
    doc.insert("_id".into(), text(id));
    doc.insert("_type".into(), text("VarAutomation"));
    let name = match &automation.name {
        Some(n) if !n.trim().is_empty() => n.clone(),
        _ => generated_name(target, &automation.properties, &automation.conditions),
    };
    doc.insert("name".into(), Value::String(name));
    for (k, v) in [
        ("description", &automation.description),
        ("icon", &automation.icon),
    ] {
        if let Some(v) = v {
            doc.insert(k.into(), v.as_deref().map_or(Value::Null, text));
        }
    }
    doc.insert("target".into(), text(target.id));
    doc.insert("template".into(), text(target.template));
    let properties = Value::Object(automation.properties.clone());
    doc.insert("properties".into(), properties);
    let conditions = automation.conditions.iter().map(Condition::to_json);
    doc.insert("conditions".into(), Value::Array(conditions.collect()));
    doc.insert(
        "enabled".into(),
        Value::Bool(automation.enabled != Some(false)),
    );
    doc.insert("owner".into(), text(&p.user));
    let created = existing
        .and_then(|d| d.get("created").cloned())
        .unwrap_or_else(|| text(now));
    doc.insert("created".into(), created);
    doc.insert("updated".into(), text(now));
    if let Some(owned) = existing.and_then(|d| d.get("ownedBy")) {
        doc.insert("ownedBy".into(), owned.clone());
    }
    doc.insert("_run".into(), run_as(p));
    doc
}
