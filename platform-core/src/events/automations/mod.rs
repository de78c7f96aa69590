//! The automation service: automations of a tenant and environment, who owns them, and the
//! automations a `runOnUpdate` validation configuration owns.
//!
//! An automation is `{_id, _type: "VarAutomation", name, description, icon, target, template,
//! properties, conditions: [{source, service, id, action}], enabled, owner, created, updated}`.
//!
//! | Field | Rule |
//! |---|---|
//! | `_id` | assigned by the server on create (24 hex digits); a POST with the `_id` of an existing automation updates it, an unknown one is 404 |
//! | `target` | required: a built-in target id or its bare code (stored as the id) |
//! | `conditions` | required, 1 to 20; `service` required and one that raises events; `action` one of its actions or `*` (default); `source` `private` (default), `public` or `*`; `id` a string, `*` (default) for any; the target must accept the service and action |
//! | `properties` | the target's inputs: required ones must be given; `to` holds addresses, `url` an http(s) URL (allowed by `--webhook-allow`), `secret` an existing secret, `script` an existing rhai script, `@transformer` an existing rhai or mustache script; `attachment` a boolean |
//! | `enabled` (or `active`) | boolean, default true |
//! | `owner` | the user that saved it (read-only); deliveries run with that user's rights as they were at the save |
//!
//! Saving, deleting and enabling automations needs the `admin` role; reading them `reader`.

use super::targets::{self, Target};
use super::{actions_of, EVENT_SERVICES};
use crate::auth::{Principal, Role};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::json::json_kind;
use crate::scripts::source_of;
use crate::store::{Automation as AutomationRow, Collection, DocumentRead, ReadTx, WriteTx};
use crate::Platform;
use serde_json::{json, Map, Value};

pub mod automation;
mod catalogue;
mod draft;
mod owned;
mod service;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_tests;

// `automation::Automation` is named by its path: the store's row is an `Automation` too.
use automation::Automation;
pub use automation::{
    AutomationEvent, AutomationOwner, Condition, ConditionSource, DeletedAutomation,
    StoredAutomation, TestFiring,
};
pub use catalogue::{AutomationTarget, AutomationTemplate, TargetInput};
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use owned::owned_id;
pub(crate) use owned::sync_owned;
pub use owned::AutomationSync;

/// Most conditions of one automation.
pub const MAX_CONDITIONS: usize = 20;

/// The statuses of automation log entries (the `status` filter of the log).
pub const LOG_STATUSES: [&str; 3] = ["success", "failed", "skipped"];

/// Which automation log entries to list, as a caller asks: times are text, a date or an
/// RFC 3339 time (see [`crate::api::automations::Automations::log`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogQuery {
    /// Only this automation.
    pub automation: Option<String>,
    /// Only this status (one of [`LOG_STATUSES`]).
    pub status: Option<String>,
    /// Entries at or after this time.
    pub from: Option<String>,
    /// Entries at or before this time.
    pub to: Option<String>,
    /// Items to skip.
    pub skip: u64,
    /// Most items (all when `None`).
    pub limit: Option<u64>,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_parameter(message)
}

fn new_id() -> Result<String> {
    // 12 random bytes as 24 hex digits, like the ids of the comparable platform.
    let mut bytes = [0u8; 12];
    getrandom::getrandom(&mut bytes).map_err(|e| Error::caused("no randomness", e))?;
    Ok(crate::auth::hex(&bytes))
}

fn run_as(p: &Principal) -> Value {
    json!({"role": p.role.as_str(), "access": p.grants.access, "features": p.grants.features})
}

/// The principal an automation runs as: its owner with the rights recorded at its save.
pub fn owner_principal(scope: &Scope, doc: &Map<String, Value>) -> Principal {
    let run = doc.get("_run").cloned().unwrap_or(Value::Null);
    let list = |k: &str| -> Vec<String> {
        run.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    Principal {
        tenant: scope.tenant.clone(),
        user: doc
            .get("owner")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        role: run
            .get("role")
            .and_then(Value::as_str)
            .and_then(|r| r.parse().ok())
            .unwrap_or(Role::Reader),
        environment: scope.env.clone(),
        grants: crate::auth::Grants {
            access: list("access"),
            features: list("features"),
            everything: false,
        },
    }
}

/// Automations: conditions on events (data saved, data invalid, records failed...) and the
/// targets they call (validation, webhook, email, script), owned by the caller's tenant and
/// environment; their delivery log and the mail outbox. Deliveries run through
/// [`Platform::deliveries`]. From [`Platform::automations`].
///
/// The service holds the platform it runs on: the store automations, deliveries, the log and
/// the outbox are kept in, the clock, and the delivery settings its webhook targets are
/// checked against. Its calls are in `service`.
///
/// ```
/// use platform_core::api::{automations::Automation, automations::Condition, Paging};
/// let platform = platform_core::Platform::in_memory()?;
/// let admin = platform.tenancy().local_principal("default", "admin")?;
/// let paging = Paging { skip: 0, limit: None };
/// let targets = platform.automations().targets(&admin, &paging)?;
/// assert!(targets.items.iter().any(|t| t.id == "platform.webhook"));
/// let email = Automation::new("email", vec![Condition::new("object", "PLANT1", "update")])
///     .with_property("to", "ops@acme.example")
///     .with_property("subject", "PLANT1 changed");
/// let saved = platform.automations().save(&admin, &email)?;
/// assert_eq!(saved.automation.target.as_deref(), Some("platform.email"));
/// assert_eq!((saved.automation.enabled, saved.owner.as_str()), (Some(true), "admin"));
/// assert_eq!(platform.automations().automation(&admin, saved.id())?, saved);
/// assert_eq!(platform.automations().automations(&admin, &paging)?.total, 1);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Automations<'p> {
    platform: &'p Platform,
}

impl<'p> Automations<'p> {
    /// The automation service of `platform`.
    pub(crate) fn of(platform: &'p Platform) -> Self {
        Automations { platform }
    }
}
