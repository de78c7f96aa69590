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
use crate::clock::format_instant;
use crate::documents::{render, SaveOptions};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{validate_id, Scope, Source};
use crate::json::json_kind;
use crate::query::Params;
use crate::realtime::{Channel, Subscription};
use crate::scripts::host::Confinement;
use crate::store::{Collection, WriteTx};
use crate::Platform;
use serde_json::{json, Map, Value};

/// `_type` of an extension.
pub const EXTENSION_TYPE: &str = "VarExtension";
/// The names of lifecycle scripts under `resources.script`.
#[cfg(any(test, feature = "internals"))]
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

/// What an install, upgrade or uninstall did.
#[derive(Debug, Clone, PartialEq)]
#[cfg(any(test, feature = "internals"))]
pub struct Outcome {
    /// The answer to the call.
    pub body: Value,
}

impl Platform {
    /// A subscription of `p` to the messages of extension `topic` (or of every extension),
    /// in the caller's tenant and environment; `_limit=N` ends it after N messages.
    pub(crate) fn subscribe_extension_messages(
        &self,
        p: &Principal,
        topic: Option<&str>,
        params: &Params,
    ) -> Result<Subscription> {
        let limit = match params.get("_limit") {
            None => None,
            Some(t) => Some(t.trim().parse::<usize>().map_err(|_| {
                Error::invalid_parameter(format!("_limit must be a positive integer, not \"{t}\""))
            })?),
        };
        Ok(Subscription::new(
            &p.tenant,
            &p.environment,
            "extension",
            topic,
            limit,
        ))
    }

    fn channel(&self, p: &Principal, ext: &str) -> Channel {
        Channel {
            tenant: p.tenant.clone(),
            env: p.environment.clone(),
            service: "extension".into(),
            topic: ext.to_string(),
        }
    }

    /// Sends `{"message": "<timestamp> <text>"}` to an extension's realtime channel.
    pub(crate) fn extension_message(&self, p: &Principal, ext: &str, text: &str) {
        if let Some(rt) = &self.realtime {
            let payload = json!({"message": format!("{} {text}", format_instant(self.now()))});
            rt.publish(&self.channel(p, ext), &payload);
        }
    }

    /// Publishes the caller's private extension `id` to the public catalogue, with a snapshot of
    /// its resources.
    pub(crate) fn publish_extension(&self, p: &Principal, id: &str) -> Result<Value> {
        p.require(Role::Admin, "publishing extensions")?;
        let now = format_instant(self.now());
        let (private, public) = (p.private_scope(), Scope::public());
        let stored = self.write(|tx| {
            tx.hold(&[
                crate::store::Hold::Document(Collection::Extension, &private, id),
                crate::store::Hold::Document(Collection::Extension, &public, id),
            ])?;
            let draft = tx
                .current(Collection::Extension, &p.private_scope(), id)?
                .ok_or_else(|| {
                    Error::not_found(format!("extension \"{id}\" is not in the private source"))
                })?;
            let publisher = draft
                .body
                .get("publisher")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if p.role < Role::Platform && publisher != p.tenant {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "tenant \"{}\" cannot publish extensions of publisher \"{publisher}\"",
                        p.tenant
                    ),
                ));
            }
            let mut bundle: Map<String, Value> = Map::new();
            for (service, _, rid) in resource_ids(&draft.body)? {
                let coll = collection_of(&service)?;
                let scope = Scope::for_source(Source::of_id(&rid), p);
                let doc = tx.current(coll, &scope, &rid)?.ok_or_else(|| {
                    Error::not_found(format!(
                        "resource {service} \"{rid}\" of extension \"{id}\" does not exist"
                    ))
                })?;
                if !rid.starts_with('#') {
                    let list = bundle.entry(service.clone()).or_insert_with(|| json!([]));
                    if let Value::Array(items) = list {
                        items.push(Value::Object(doc.body));
                    }
                }
            }
            let mut body = draft.body.clone();
            // What an installed copy records of its own installation is not published.
            body.shift_remove("_installedVersion");
            body.shift_remove("_accepted");
            body.insert("permissions".into(), json!(permissions(&draft.body)?));
            body.insert("_bundle".into(), Value::Object(bundle));
            body.insert("_publishedBy".into(), Value::String(p.tenant.clone()));
            let before = tx.current(Collection::Extension, &Scope::public(), id)?;
            let stored = self.put_document(
                tx,
                Collection::Extension,
                &Scope::public(),
                id,
                body,
                &p.user,
                &now,
                None,
            )?;
            if before.as_ref().map(|b| b.version) != Some(stored.version) {
                let action = if before.is_some() { "update" } else { "create" };
                let data = strip_bundle(render(&stored, true));
                crate::events::emit(tx, p, &Scope::public(), "extension", id, action, &now, data)?;
            }
            Ok(stored)
        })?;
        Ok(strip_bundle(render(&stored, true)))
    }

    /// Installs or upgrades a published extension into the caller's private source, granting it
    /// the permissions in `accept` (each must be one the extension declares).
    pub(crate) fn install_extension(
        &self,
        p: &Principal,
        id: &str,
        accept: &[String],
    ) -> Result<Value> {
        p.require(Role::Admin, "installing extensions")?;
        let now = format_instant(self.now());
        let private_scope = p.private_scope();
        let (published, upgrade) = self.write(|tx| {
            tx.hold(&[crate::store::Hold::Document(
                Collection::Extension,
                &private_scope,
                id,
            )])?;
            let published = tx
                .current(Collection::Extension, &Scope::public(), id)?
                .ok_or_else(|| Error::not_found(format!("extension \"{id}\" has not been published")))?;
            let private = tx.current(Collection::Extension, &p.private_scope(), id)?;
            if private.as_ref().is_some_and(|e| !e.body.contains_key("_installedVersion")) {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!("extension \"{id}\" is a draft of this tenant, not an installed copy; delete the draft first"),
                ));
            }
            let upgrade = private.is_some();
            let asked = permissions(&published.body)?;
            let mut granted: Vec<String> = Vec::new();
            for a in accept {
                if !asked.contains(a) {
                    return Err(Error::invalid_parameter(format!(
                        "_accept: extension \"{id}\" does not ask for \"{a}\"; it asks for [{}]",
                        asked.join(", ")
                    )));
                }
                if !granted.contains(a) {
                    granted.push(a.clone());
                }
            }
            let bundle = published.body.get("_bundle").and_then(Value::as_object).cloned().unwrap_or_default();
            for (service, docs) in &bundle {
                let coll = collection_of(service)?;
                for doc in docs.as_array().into_iter().flatten() {
                    let Value::Object(body) = doc else { continue };
                    let rid = body.get("_id").and_then(Value::as_str).unwrap_or_default().to_string();
                    self.put_document(tx, coll, &p.private_scope(), &rid, body.clone(), &p.user, &now, None)?;
                }
            }
            let mut installed = published.body.clone();
            installed.shift_remove("_bundle");
            installed.insert("_installedVersion".into(), json!(published.version));
            installed.insert("_accepted".into(), json!(granted));
            self.put_document(tx, Collection::Extension, &p.private_scope(), id, installed.clone(), &p.user, &now, None)?;
            let action = if upgrade { "upgrade" } else { "install" };
            crate::events::emit(tx, p, &p.private_scope(), "extension", id, action, &now, Value::Object(installed.clone()))?;
            Ok((installed, upgrade))
        })?;
        let (verb, which) = if upgrade {
            ("Upgraded", "upgrade")
        } else {
            ("Installed", "install")
        };
        self.extension_message(
            p,
            id,
            &format!(
                "info {verb} extension {id} in environment {}",
                p.environment
            ),
        );
        let script = self.run_lifecycle(p, id, &published, which)?;
        Ok(json!({
            "_id": id,
            "action": which,
            "installed": true,
            "version": published["_installedVersion"],
            "permissions": published.get("permissions").cloned().unwrap_or_else(|| json!([])),
            "accepted": published["_accepted"],
            "script": script,
        }))
    }

    /// Uninstalls an installed extension: removes its copied resources, then runs `uninstall`.
    pub(crate) fn uninstall_extension(&self, p: &Principal, id: &str) -> Result<Value> {
        p.require(Role::Admin, "uninstalling extensions")?;
        let scope = p.private_scope();
        let now = format_instant(self.now());
        // The uninstall script must be read before its copy is removed.
        let installed = {
            let tx = self.read()?;
            let ext = tx
                .current(Collection::Extension, &scope, id)?
                .ok_or_else(|| Error::not_found(format!("extension \"{id}\" is not installed")))?;
            if !ext.body.contains_key("_installedVersion") {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!("extension \"{id}\" is a draft, not an installed copy"),
                ));
            }
            ext.body
        };
        let script = match lifecycle_script(&installed, "uninstall") {
            Some(sid) => self
                .read()?
                .current(
                    Collection::Script,
                    &Scope::for_source(Source::of_id(&sid), p),
                    &sid,
                )?
                .map(|d| d.body),
            None => None,
        };
        let published = self
            .read()?
            .current(Collection::Extension, &Scope::public(), id)?;
        let bundle = published
            .and_then(|e| e.body.get("_bundle").and_then(Value::as_object).cloned())
            .unwrap_or_default();
        self.write(|tx| {
            for (service, docs) in &bundle {
                let coll = collection_of(service)?;
                for doc in docs.as_array().into_iter().flatten() {
                    if let Some(rid) = doc.get("_id").and_then(Value::as_str) {
                        remove_document(tx, coll, &scope, rid)?;
                    }
                }
            }
            remove_document(tx, Collection::Extension, &scope, id)?;
            let data = Value::Object(installed.clone());
            crate::events::emit(tx, p, &scope, "extension", id, "uninstall", &now, data)
        })?;
        self.extension_message(
            p,
            id,
            &format!(
                "info Uninstalled extension {id} from environment {}",
                p.environment
            ),
        );
        let outcome = match script {
            Some(doc) => self.run_extension_script(p, id, &installed, "uninstall", &doc),
            None => json!(null),
        };
        Ok(json!({"_id": id, "action": "uninstall", "installed": false, "script": outcome}))
    }

    fn run_lifecycle(
        &self,
        p: &Principal,
        id: &str,
        ext: &Map<String, Value>,
        which: &str,
    ) -> Result<Value> {
        let Some(sid) = lifecycle_script(ext, which) else {
            return Ok(Value::Null);
        };
        let doc = self
            .read()?
            .current(
                Collection::Script,
                &Scope::for_source(Source::of_id(&sid), p),
                &sid,
            )?
            .map(|d| d.body);
        Ok(match doc {
            Some(doc) => self.run_extension_script(p, id, ext, which, &doc),
            None => {
                let msg =
                    format!("error the {which} script \"{sid}\" of extension {id} does not exist");
                self.extension_message(p, id, &msg);
                json!({"id": sid, "ok": false, "error": msg})
            }
        })
    }

    fn run_extension_script(
        &self,
        p: &Principal,
        id: &str,
        ext: &Map<String, Value>,
        which: &str,
        doc: &Map<String, Value>,
    ) -> Value {
        let sid = doc
            .get("_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let source = doc
            .get("script")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut public_ext = ext.clone();
        public_ext.shift_remove("_bundle");
        let (who, confinement) = runner(p, id, ext);
        match crate::scripts::host::run_confined(
            self,
            &who,
            id,
            source,
            &sid,
            json!({"extension": public_ext, "action": which}),
            &confinement,
        ) {
            Ok(result) => {
                self.extension_message(p, id, &format!("info {which} script {sid} finished"));
                json!({"id": sid, "ok": true, "result": result})
            }
            Err(e) => {
                let msg = e.public_message();
                self.extension_message(p, id, &format!("error {which} script {sid} failed: {msg}"));
                json!({"id": sid, "ok": false, "error": msg})
            }
        }
    }

    /// Renders a view of an extension in the caller's private source (`Accept: text/html`).
    pub(crate) fn render_view(
        &self,
        p: &Principal,
        id: &str,
        view_name: &str,
        params: &crate::query::Params,
    ) -> Result<String> {
        let ext = self
            .read()?
            .current(Collection::Extension, &p.private_scope(), id)?
            .ok_or_else(|| {
                Error::not_found(format!(
                    "extension \"{id}\" not found in the private source"
                ))
            })?;
        let view = ext
            .body
            .get("views")
            .and_then(Value::as_array)
            .and_then(|views| {
                views
                    .iter()
                    .find(|v| v.get("name").and_then(Value::as_str) == Some(view_name))
            })
            .cloned()
            .ok_or_else(|| {
                Error::not_found(format!("extension \"{id}\" has no view \"{view_name}\""))
            })?;
        if let Some(feature) = view
            .get("feature")
            .and_then(Value::as_str)
            .filter(|f| !f.is_empty())
        {
            if !p.grants.everything && !p.grants.features.iter().any(|f| f == feature) {
                return Err(Error::forbidden(format!(
                    "view \"{view_name}\" needs the feature \"{feature}\", which user \"{}\" has not been granted",
                    p.user
                )));
            }
        }
        let script = view.get("script").and_then(Value::as_str).ok_or_else(|| {
            Error::invalid_parameter(format!("view \"{view_name}\" has no script"))
        })?;
        let query: Map<String, Value> = params
            .pairs()
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let mut ext_body = render(&ext, true);
        ext_body.shift_remove("_bundle");
        let (_, confinement) = runner(p, id, &ext.body);
        let data = json!({
            "extension": ext_body,
            "view": view,
            "user": {"id": p.user, "tenant": p.tenant, "role": p.role.as_str(), "environment": p.environment},
            "params": query,
        });
        let holder = confinement
            .private_only
            .then_some(confinement.holder.as_str());
        self.render_template_from(p, script, &data, holder)
    }

    /// Writes a document version without permission checks (the caller decided), with the usual
    /// versioning: nothing when unchanged, else the next version.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn put_document(
        &self,
        tx: &mut dyn WriteTx,
        coll: Collection,
        scope: &Scope,
        id: &str,
        mut body: Map<String, Value>,
        user: &str,
        now: &str,
        reason: Option<String>,
    ) -> Result<crate::store::StoredVersion> {
        for f in crate::documents::SYSTEM_FIELDS {
            body.shift_remove(f);
        }
        body.insert("_id".into(), Value::String(id.to_string()));
        if !body.contains_key("_type") {
            body.insert("_type".into(), Value::String(coll.default_type().into()));
        }
        tx.hold(&[crate::store::Hold::Document(coll, scope, id)])?;
        let current = tx.current(coll, scope, id)?;
        if let Some(cur) = &current {
            if cur.body == body {
                return Ok(cur.clone());
            }
        }
        let version = current.as_ref().map_or(1, |c| c.version + 1);
        let stored = crate::store::StoredVersion {
            id: id.to_string(),
            version,
            body,
            timestamp: crate::clock::parse_instant(now)
                .map_err(|e| Error::caused(format!("the time of a write \"{now}\""), e))?,
            user: user.to_string(),
            reason,
            tags: Vec::new(),
        };
        tx.put_current(coll, scope, &stored, current.as_ref().map(|c| c.version))?;
        if coll == Collection::Type {
            crate::types::sync_type_indexes(tx, scope, id)?;
        }
        Ok(stored)
    }

    /// Saves an extension draft to the caller's private source (like any versioned document).
    pub(crate) fn save_extension(&self, p: &Principal, body: Value) -> Result<Value> {
        self.save(
            p,
            Collection::Extension,
            body,
            &SaveOptions {
                source: Some(Source::Private),
                ..SaveOptions::default()
            },
        )
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
