//! The extension service's rules: drafts, publishing, installing, upgrading, uninstalling and
//! views.
//!
//! | State | Call | Next state |
//! |---|---|---|
//! | draft (private) | `POST public?_publish=true` | published: the public copy carries a snapshot of every listed resource |
//! | published | `POST private?_publish=true` | installed: the resources are copied into the tenant's private source in one transaction, then the `install` script runs (`upgrade` when an older version was installed) |
//! | installed | `DELETE private/{key}` | uninstalled: the copied resources and the installed extension are removed in one transaction, then the `uninstall` script runs |
//!
//! An extension's `_id` is `<publisher>.<code>` (409 otherwise). `resources` maps service names
//! to an array of ids or a name-to-id map; under `script` the names `install`, `upgrade` and
//! `uninstall` name the lifecycle scripts. Public resources (`#` ids) are shared and not copied.
//! Only the `platform` role, or a tenant whose name is the extension's publisher, may publish it.
//! A script failure after a committed copy is reported in the answer and in the realtime
//! messages; the copy stays. Each step sends `{"message": "<timestamp> <text>"}` to the
//! extension's realtime channel.
//!
//! **Another publisher's code runs confined.** The lifecycle scripts and views of an extension
//! published by another tenant run with a principal of their own (user `extension:<id>`, role
//! writer, no access roles or features), reach only the installing tenant's private source, and
//! read a secret only when the extension declares it in `permissions` (`["secret:<id>", ...]`)
//! and the installer accepted it (`_accept=secret:<id>` on the install call). Publishing states
//! the permissions an extension asks for; the catalogue shows them. A script call is one
//! transaction with a write and a time budget (`scripts::host`); no secret value appears in what
//! a script answers or says.

use crate::auth::{Grants, Principal, Role};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{validate_id, Scope};
use crate::json::json_kind;
use crate::scripts::host::Confinement;
use crate::store::{Collection, WriteTx};
use crate::Platform;
use serde_json::{json, Map, Value};

mod form;
mod service;
#[cfg(test)]
mod tests;
mod types;
#[cfg(test)]
mod wire_tests;

pub use types::{
    Acceptance, Extension, ExtensionResources, ExtensionView, InstalledExtension, Lifecycle,
    LifecycleRun, Permission, ResourceIds, StoredExtension, UninstalledExtension,
};

/// `_type` of an extension.
pub const EXTENSION_TYPE: &str = "VarExtension";
/// The names of lifecycle scripts under `resources.script`.
#[cfg(feature = "internals")]
pub const LIFECYCLE: [&str; 3] = ["install", "upgrade", "uninstall"];
/// Services whose resources an extension can carry.
const COPYABLE: [(&str, Collection); 3] = [
    ("object", Collection::Object),
    ("type", Collection::Type),
    ("script", Collection::Script),
];

/// Checks an extension document before it is saved.
pub fn check_extension(fields: &Map<String, Value>) -> Result<()> {
    let text = |f: &str| -> Result<String> {
        match fields.get(f) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            Some(other) if !other.is_string() => Err(Error::invalid_body(format!(
                "{f} must be a string, not {}",
                json_kind(other)
            ))),
            _ => Err(Error::new(
                ErrorCode::MissingParameter,
                format!("an extension needs a {f}"),
            )),
        }
    };
    let id = fields
        .get("_id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (publisher, code) = (text("publisher")?, text("code")?);
    if id != format!("{publisher}.{code}") {
        return Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "extension _id \"{id}\" must be <publisher>.<code>, here \"{publisher}.{code}\""
            ),
        ));
    }
    match fields.get("views") {
        None | Some(Value::Null) => {}
        Some(Value::Array(views)) => {
            for (i, v) in views.iter().enumerate() {
                let name = v.get("name").and_then(Value::as_str).unwrap_or_default();
                if name.is_empty() {
                    return Err(Error::invalid_body(format!("views[{i}] needs a name")));
                }
                for f in ["script", "feature", "section", "tabname", "appname", "icon"] {
                    if v.get(f).is_some_and(|x| !x.is_string() && !x.is_null()) {
                        return Err(Error::invalid_body(format!(
                            "views[{i}].{f} must be a string"
                        )));
                    }
                }
                for f in ["excel", "insights"] {
                    if v.get(f).is_some_and(|x| !x.is_boolean()) {
                        return Err(Error::invalid_body(format!(
                            "views[{i}].{f} must be true or false"
                        )));
                    }
                }
            }
        }
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "views must be an array, not {}",
                json_kind(other)
            )))
        }
    }
    permissions(fields)?;
    resource_ids(fields).map(|_| ())
}

/// The kinds of permission an extension may ask for.
const PERMISSION_FORM: &str = "secret:<id>";

/// The permissions an extension declares (`permissions`: an array of `secret:<id>`).
pub fn permissions(fields: &Map<String, Value>) -> Result<Vec<String>> {
    let items = match fields.get("permissions") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "permissions must be an array of {PERMISSION_FORM}, not {}",
                json_kind(other)
            )))
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let text = item.as_str().unwrap_or_default();
        let Some(secret) = text.strip_prefix("secret:") else {
            return Err(Error::invalid_body(format!(
                "permissions[{i}] {item} is not a permission: expected {PERMISSION_FORM}"
            )));
        };
        validate_id(secret, &format!("permissions[{i}] secret id"))?;
        if !out.iter().any(|p| p == text) {
            out.push(text.to_string());
        }
    }
    Ok(out)
}

/// The secret ids among permissions.
fn secret_ids(permissions: &[String]) -> Vec<String> {
    permissions
        .iter()
        .filter_map(|p| p.strip_prefix("secret:"))
        .map(str::to_string)
        .collect()
}

/// The permissions an installed copy was granted (`_accepted`).
fn accepted(ext: &Map<String, Value>) -> Vec<String> {
    ext.get("_accepted")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Who runs an extension's code for `p`, and within which bounds: the caller itself for an
/// extension its own tenant published, a confined principal of the extension's own otherwise.
fn runner(p: &Principal, id: &str, ext: &Map<String, Value>) -> (Principal, Confinement) {
    let publisher = ext
        .get("_publishedBy")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if publisher == p.tenant {
        let confinement = Confinement {
            scrub_secrets: true,
            ..Confinement::none()
        };
        return (p.clone(), confinement);
    }
    let principal = Principal {
        tenant: p.tenant.clone(),
        user: format!("extension:{id}"),
        role: Role::Writer,
        environment: p.environment.clone(),
        grants: Grants::default(),
    };
    let confinement = Confinement {
        private_only: true,
        secrets: Some(secret_ids(&accepted(ext))),
        holder: format!("extension {id}"),
        scrub_secrets: true,
    };
    (principal, confinement)
}

/// Sets `_type` to `VarExtension` (the interface: always), whatever was sent, and fills the
/// defaults of each view (`section` Extension, `tabname` Main, `excel` and `insights` false)
/// where a view leaves them out or sends null.
pub fn normalise(mut fields: Map<String, Value>) -> Map<String, Value> {
    fields.insert("_type".into(), Value::String(EXTENSION_TYPE.into()));
    if let Some(Value::Array(views)) = fields.get_mut("views") {
        for view in views.iter_mut().filter_map(Value::as_object_mut) {
            let defaults = [
                ("section", json!("Extension")),
                ("tabname", json!("Main")),
                ("excel", json!(false)),
                ("insights", json!(false)),
            ];
            for (field, default) in defaults {
                if view.get(field).is_none_or(Value::is_null) {
                    view.insert(field.into(), default);
                }
            }
        }
    }
    fields
}

/// The resources of an extension as `(service, name, id)` (name is empty in array form).
pub fn resource_ids(fields: &Map<String, Value>) -> Result<Vec<(String, String, String)>> {
    let mut out = Vec::new();
    let resources = match fields.get("resources") {
        None | Some(Value::Null) => return Ok(out),
        Some(Value::Object(r)) => r,
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "resources must be an object, not {}",
                json_kind(other)
            )))
        }
    };
    for (service, ids) in resources {
        if crate::services::find(service).is_none() {
            return Err(Error::invalid_body(format!(
                "resources key \"{service}\" is not a service"
            )));
        }
        let bad = || {
            Error::invalid_body(format!(
                "resources.{service} must be an array of ids or an object of name to id"
            ))
        };
        match ids {
            Value::Array(items) => {
                for item in items {
                    out.push((
                        service.clone(),
                        String::new(),
                        item.as_str().ok_or_else(bad)?.to_string(),
                    ));
                }
            }
            Value::Object(map) => {
                for (name, item) in map {
                    out.push((
                        service.clone(),
                        name.clone(),
                        item.as_str().ok_or_else(bad)?.to_string(),
                    ));
                }
            }
            _ => return Err(bad()),
        }
    }
    for (service, _, id) in &out {
        validate_id(id, &format!("resources.{service} id"))?;
    }
    Ok(out)
}

/// The id of a lifecycle script of an extension.
fn lifecycle_script(ext: &Map<String, Value>, which: &str) -> Option<String> {
    ext.get("resources")?
        .get("script")?
        .get(which)?
        .as_str()
        .map(str::to_string)
}

fn collection_of(service: &str) -> Result<Collection> {
    COPYABLE
        .iter()
        .find(|(s, _)| *s == service)
        .map(|(_, c)| *c)
        .ok_or_else(|| {
            Error::invalid_body(format!(
                "resources of the {service} service cannot be carried by an extension yet"
            ))
        })
}

/// Extensions: drafts with their resources, published to the public catalogue, installed by
/// tenants (granting the permissions they ask for), their views and realtime messages. From
/// [`Platform::extensions`].
///
/// The service holds the platform it runs on: the store its drafts, catalogue and copies are
/// documents of, the clock, and the realtime sink its messages go to. Its rules are in
/// `service`.
///
/// ```
/// use platform_core::api::extensions::Extension;
/// let platform = platform_core::Platform::in_memory()?;
/// let admin = platform.tenancy().local_principal("default", "admin")?;
/// let draft = platform.extensions().save(&admin, &Extension::new("acme", "hello").with_name("Hello"))?;
/// assert_eq!(draft.version, 1);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Extensions<'p> {
    platform: &'p Platform,
}

impl<'p> Extensions<'p> {
    /// The extension service of `platform`.
    pub(crate) fn of(platform: &'p Platform) -> Self {
        Extensions { platform }
    }
}

/// Removes every version of a document (and its data rows), if present.
fn remove_document(tx: &mut dyn WriteTx, coll: Collection, scope: &Scope, id: &str) -> Result<()> {
    tx.hold(&[crate::store::Hold::Document(coll, scope, id)])?;
    let versions: Vec<u32> = tx
        .versions(coll, scope, id)?
        .iter()
        .map(|v| v.version)
        .collect();
    for v in &versions {
        tx.delete_version(coll, scope, id, *v)?;
    }
    if !versions.is_empty() {
        tx.set_current(coll, scope, id, None)?;
        if coll == Collection::Object {
            tx.prune_data(scope, id, &[])?;
        }
        if coll == Collection::Type {
            crate::types::sync_type_indexes(tx, scope, id)?;
        }
    }
    Ok(())
}

/// An extension without its resource snapshot (which only the platform reads).
pub fn strip_bundle(mut doc: Map<String, Value>) -> Value {
    doc.shift_remove("_bundle");
    Value::Object(doc)
}
