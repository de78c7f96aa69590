//! The extension service's calls: [`Extensions`] with the rules of its states (see the
//! module above for the table).

use crate::auth::{Principal, Role};
use crate::clock::format_instant;
use crate::documents::access::{not_found, scope_for_key};
use crate::documents::{render, SaveOptions};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::query::Params;
use crate::realtime::{Channel, Subscription};
use crate::store::{Collection, WriteTx};
use serde_json::{json, Map, Value};

use super::form::listed_permissions;
use super::{
    collection_of, lifecycle_script, permissions, remove_document, resource_ids, runner,
    strip_bundle, Acceptance, Extension, Extensions, InstalledExtension, Lifecycle, LifecycleRun,
    Permission, StoredExtension, UninstalledExtension,
};

/// What `accept` grants extension `id`, which asks for `asked`: each permission once, in the
/// order sent; refused when one is not asked for.
fn granted(id: &str, asked: &[String], accept: &Acceptance) -> Result<Vec<String>> {
    let mut granted: Vec<String> = Vec::new();
    for a in &accept.accepted {
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
    Ok(granted)
}

/// What an install copied: the extension as installed (its stored body), the published version
/// it is of, whether it replaced an older one, and the permissions granted.
struct Copied {
    installed: Map<String, Value>,
    version: u32,
    upgrade: bool,
    granted: Vec<String>,
}

impl Extensions<'_> {
    /// A subscription of `p` to the messages of extension `topic` (or of every extension),
    /// in the caller's tenant and environment; `_limit=N` ends it after N messages.
    pub fn subscribe(
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
    pub fn send_message(&self, p: &Principal, ext: &str, text: &str) {
        if let Some(rt) = &self.platform.realtime {
            let payload =
                json!({"message": format!("{} {text}", format_instant(self.platform.now()))});
            rt.publish(&self.channel(p, ext), &payload);
        }
    }

    /// Publishes the caller's draft `id` to the public catalogue, with a snapshot of its
    /// resources; answers the catalogue entry. Only the `platform` role or the publisher's
    /// tenant may publish it.
    ///
    /// ```
    /// use platform_core::api::{extensions::Extension, extensions::Permission};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let ann = platform.tenancy().local_principal("acme", "ann")?;
    /// let draft = Extension::new("acme", "hello").with_permission(Permission::secret("feed"));
    /// platform.extensions().save(&ann, &draft)?;
    /// let published = platform.extensions().publish(&ann, "acme.hello")?;
    /// assert_eq!(published.published_by.as_deref(), Some("acme"));
    /// assert_eq!(published.extension.permissions, Some(vec![Permission::secret("feed")]));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn publish(&self, p: &Principal, id: &str) -> Result<StoredExtension> {
        p.require(Role::Admin, "publishing extensions")?;
        let now = format_instant(self.platform.now());
        let (private, public) = (p.private_scope(), Scope::public());
        let stored = self.platform.write(|tx| {
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
        Ok(StoredExtension::from_stored(stored))
    }

    /// Installs the published extension `id` into the caller's private source (an upgrade when
    /// an older version is installed), granting it `accept`, each a permission it asks for;
    /// then runs its `install` (or `upgrade`) script.
    ///
    /// ```
    /// use platform_core::api::{extensions::Acceptance, extensions::Extension, extensions::Lifecycle};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let ann = platform.tenancy().local_principal("acme", "ann")?;
    /// let gus = platform.tenancy().local_principal("globex", "gus")?;
    /// let extensions = platform.extensions();
    /// extensions.save(&ann, &Extension::new("acme", "hello"))?;
    /// extensions.publish(&ann, "acme.hello")?;
    /// let installed = extensions.install(&gus, "acme.hello", &Acceptance::default())?;
    /// assert_eq!((installed.action, installed.version), (Lifecycle::Install, 1));
    /// assert_eq!(installed.script, None);
    /// let gone = extensions.uninstall(&gus, "acme.hello")?;
    /// assert!(!gone.installed);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn install(
        &self,
        p: &Principal,
        id: &str,
        accept: &Acceptance,
    ) -> Result<InstalledExtension> {
        p.require(Role::Admin, "installing extensions")?;
        let now = format_instant(self.platform.now());
        let copied = self
            .platform
            .write(|tx| self.copy_published(tx, p, id, accept, &now))?;
        let Copied {
            installed,
            version,
            upgrade,
            granted,
        } = copied;
        let step = if upgrade {
            Lifecycle::Upgrade
        } else {
            Lifecycle::Install
        };
        let verb = if upgrade { "Upgraded" } else { "Installed" };
        self.send_message(
            p,
            id,
            &format!(
                "info {verb} extension {id} in environment {}",
                p.environment
            ),
        );
        let script = self.run_lifecycle(p, id, &installed, step)?;
        let accepted = granted
            .iter()
            .map(|g| g.parse())
            .collect::<Result<Vec<Permission>>>()?;
        Ok(InstalledExtension {
            id: id.to_string(),
            action: step,
            installed: true,
            version,
            permissions: listed_permissions(&installed),
            accepted,
            script,
        })
    }

    /// The copy of an install: the published extension's resources and the extension itself,
    /// as installed, into the caller's private source, with the permissions `accept` grants
    /// (each one it asks for).
    fn copy_published(
        &self,
        tx: &mut dyn WriteTx,
        p: &Principal,
        id: &str,
        accept: &Acceptance,
        now: &str,
    ) -> Result<Copied> {
        let private_scope = p.private_scope();
        tx.hold(&[crate::store::Hold::Document(
            Collection::Extension,
            &private_scope,
            id,
        )])?;
        let published = tx
            .current(Collection::Extension, &Scope::public(), id)?
            .ok_or_else(|| {
                Error::not_found(format!("extension \"{id}\" has not been published"))
            })?;
        let private = tx.current(Collection::Extension, &private_scope, id)?;
        if private
            .as_ref()
            .is_some_and(|e| !e.body.contains_key("_installedVersion"))
        {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("extension \"{id}\" is a draft of this tenant, not an installed copy; delete the draft first"),
            ));
        }
        let upgrade = private.is_some();
        let granted = granted(id, &permissions(&published.body)?, accept)?;
        let bundle = published
            .body
            .get("_bundle")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for (service, docs) in &bundle {
            let coll = collection_of(service)?;
            for doc in docs.as_array().into_iter().flatten() {
                let Value::Object(body) = doc else { continue };
                let rid = body
                    .get("_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                self.put_document(
                    tx,
                    coll,
                    &private_scope,
                    &rid,
                    body.clone(),
                    &p.user,
                    now,
                    None,
                )?;
            }
        }
        let mut installed = published.body.clone();
        installed.shift_remove("_bundle");
        installed.insert("_installedVersion".into(), json!(published.version));
        installed.insert("_accepted".into(), json!(granted));
        self.put_document(
            tx,
            Collection::Extension,
            &private_scope,
            id,
            installed.clone(),
            &p.user,
            now,
            None,
        )?;
        let action = if upgrade { "upgrade" } else { "install" };
        crate::events::emit(
            tx,
            p,
            &private_scope,
            "extension",
            id,
            action,
            now,
            Value::Object(installed.clone()),
        )?;
        Ok(Copied {
            installed,
            version: published.version,
            upgrade,
            granted,
        })
    }

    /// Uninstalls the installed extension `id`: removes its copied resources and the
    /// installed copy, then runs its `uninstall` script.
    pub fn uninstall(&self, p: &Principal, id: &str) -> Result<UninstalledExtension> {
        p.require(Role::Admin, "uninstalling extensions")?;
        let scope = p.private_scope();
        let now = format_instant(self.platform.now());
        // The uninstall script must be read before its copy is removed.
        let installed = {
            let tx = self.platform.read()?;
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
        let step = Lifecycle::Uninstall;
        let script = match lifecycle_script(&installed, step.as_str()) {
            Some(sid) => self
                .platform
                .read()?
                .current(
                    Collection::Script,
                    &Scope::for_source(Source::of_id(&sid), p),
                    &sid,
                )?
                .map(|d| d.body),
            None => None,
        };
        let published =
            self.platform
                .read()?
                .current(Collection::Extension, &Scope::public(), id)?;
        let bundle = published
            .and_then(|e| e.body.get("_bundle").and_then(Value::as_object).cloned())
            .unwrap_or_default();
        self.platform.write(|tx| {
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
        self.send_message(
            p,
            id,
            &format!(
                "info Uninstalled extension {id} from environment {}",
                p.environment
            ),
        );
        let script =
            script.map(|doc| self.run_extension_script(p, id, &installed, step.as_str(), &doc));
        Ok(UninstalledExtension {
            id: id.to_string(),
            action: step,
            installed: false,
            script,
        })
    }

    fn run_lifecycle(
        &self,
        p: &Principal,
        id: &str,
        ext: &Map<String, Value>,
        step: Lifecycle,
    ) -> Result<Option<LifecycleRun>> {
        let which = step.as_str();
        let Some(sid) = lifecycle_script(ext, which) else {
            return Ok(None);
        };
        let doc = self
            .platform
            .read()?
            .current(
                Collection::Script,
                &Scope::for_source(Source::of_id(&sid), p),
                &sid,
            )?
            .map(|d| d.body);
        Ok(Some(match doc {
            Some(doc) => self.run_extension_script(p, id, ext, which, &doc),
            None => {
                let msg =
                    format!("error the {which} script \"{sid}\" of extension {id} does not exist");
                self.send_message(p, id, &msg);
                LifecycleRun {
                    script: sid,
                    outcome: Err(msg),
                }
            }
        }))
    }

    fn run_extension_script(
        &self,
        p: &Principal,
        id: &str,
        ext: &Map<String, Value>,
        which: &str,
        doc: &Map<String, Value>,
    ) -> LifecycleRun {
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
        let outcome = match crate::scripts::host::run_confined(
            self.platform,
            &who,
            id,
            source,
            &sid,
            json!({"extension": public_ext, "action": which}),
            &confinement,
        ) {
            Ok(result) => {
                self.send_message(p, id, &format!("info {which} script {sid} finished"));
                Ok(result)
            }
            Err(e) => {
                let msg = e.public_message();
                self.send_message(p, id, &format!("error {which} script {sid} failed: {msg}"));
                Err(msg)
            }
        };
        LifecycleRun {
            script: sid,
            outcome,
        }
    }

    /// Renders a view of an extension in the caller's private source (`Accept: text/html`).
    pub fn render_view(
        &self,
        p: &Principal,
        id: &str,
        view_name: &str,
        params: &crate::query::Params,
    ) -> Result<String> {
        let ext = self
            .platform
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
        self.platform
            .scripts()
            .render_template_from(p, script, &data, holder)
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

    /// Creates or updates an extension draft in the caller's private source (what is `None`
    /// stays as stored); answers the draft as stored. Refused as any extension document is
    /// refused (an id other than `<publisher>.<code>`, a resource of an unknown service, a bad
    /// secret id...).
    ///
    /// ```
    /// use platform_core::api::{extensions::Extension, Source};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let admin = platform.tenancy().local_principal("acme", "ann")?;
    /// let draft = Extension::new("acme", "hello").with_name("Hello");
    /// let saved = platform.extensions().save(&admin, &draft)?;
    /// assert_eq!((saved.version, saved.user.as_str()), (1, "ann"));
    /// assert_eq!(saved.extension, draft);
    /// let read = platform.extensions().extension(&admin, Source::Private, "acme.hello")?;
    /// assert_eq!(read, saved);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn save(&self, p: &Principal, extension: &Extension) -> Result<StoredExtension> {
        let body = serde_json::to_value(extension)
            .map_err(|e| Error::Internal(format!("an extension does not write: {e}")))?;
        let opts = SaveOptions {
            source: Some(Source::Private),
            ..SaveOptions::default()
        };
        let now = format_instant(self.platform.now());
        let objects = self.platform.objects();
        let stored = self.platform.write(|tx| {
            let body = body.clone();
            objects.save_one(tx, p, Collection::Extension, body, &opts, &now, Vec::new())
        })?;
        Ok(StoredExtension::from_stored(stored))
    }

    /// The current version of extension `id` in `source`: a draft or an installed copy
    /// (private), or a catalogue entry (public).
    pub fn extension(&self, p: &Principal, source: Source, id: &str) -> Result<StoredExtension> {
        let coll = Collection::Extension;
        let scope = scope_for_key(p, coll, source, id)?;
        let stored = self
            .platform
            .store
            .current_document(coll, &scope, id)?
            .ok_or_else(|| not_found(coll, id, source))?;
        Ok(StoredExtension::from_stored(stored))
    }
}
