//! The automations validation configurations own (`runOnUpdate`).

use super::*;
use serde::{Deserialize, Serialize};

/// What recreating the automations of validation configurations did. Its serde form is the
/// answer of `_function=automations`.
///
/// (See [`crate::api::validation::Validation::recreate_automations`] for an example.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutomationSync {
    /// Configurations looked at.
    pub checked: u64,
    /// Automations created (the missing ones).
    pub created: u64,
    /// The automation of each enabled `runOnUpdate` configuration.
    pub automations: Vec<String>,
}

/// The id of the automation a configuration of `data_id` owns (the same every time, so a
/// missing one can be recreated).
pub fn owned_id(data_id: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("validationconfig\n{data_id}").as_bytes());
    crate::auth::hex(&digest[..12])
}

/// Keeps the automation a validation configuration owns in step with it: present (service
/// data, action update, target platform.validation) while the configuration is enabled with
/// `runOnUpdate`, absent otherwise. Returns the automation id and whether it was created.
pub(crate) fn sync_owned(
    tx: &mut dyn WriteTx,
    p: &Principal,
    data_id: &str,
    config: Option<&Map<String, Value>>,
    now: &str,
) -> Result<Option<(String, bool)>> {
    let scope = p.private_scope();
    let id = owned_id(data_id);
    tx.hold(&[crate::store::Hold::Automation(&scope, &id)])?;
    let wanted = config.is_some_and(|c| {
        c.get("enabled").and_then(Value::as_bool) != Some(false)
            && c.get("runOnUpdate").and_then(Value::as_bool) == Some(true)
    });
    let existing = tx.automation(&scope, &id)?;
    if !wanted {
        if existing.is_some() {
            tx.delete_automation(&scope, &id)?;
        }
        return Ok(None);
    }
    let source = if data_id.starts_with('#') {
        "public"
    } else {
        "private"
    };
    let conditions =
        json!([{"source": source, "service": "data", "id": data_id, "action": "update"}]);
    if let Some(a) = &existing {
        let doc = a.body();
        if doc.get("conditions") == Some(&conditions) && doc.get("enabled") == Some(&json!(true)) {
            return Ok(Some((id, false)));
        }
    }
    let target = targets::find("platform.validation")
        .ok_or_else(|| Error::Internal("the platform.validation target is missing".into()))?;
    let Value::Object(doc) = json!({
        "_id": id, "_type": "VarAutomation",
        "name": format!("When data {data_id} is updated, run its validation checks"),
        "target": target.id, "template": target.template, "properties": {},
        "conditions": conditions, "enabled": true, "owner": p.user,
        "created": existing.as_ref().and_then(|a| a.body().get("created").cloned()).unwrap_or_else(|| json!(now)),
        "updated": now,
        "ownedBy": {"service": "validationconfig", "id": data_id},
        "_run": run_as(p),
    }) else {
        unreachable!("a json! object literal is an object")
    };
    tx.put_automation(&scope, &AutomationRow::from_body(doc)?)?;
    Ok(Some((id, existing.is_none())))
}
