//! Tagging a version, and deleting the latest version (a rollback), one version or all of a
//! document, with the audit entry and events.

use crate::auth::Principal;
use crate::clock::format_instant;
use crate::documents::access::{
    not_found, refuse_all, require_write, resolve_version, scope_for_key,
};
use crate::documents::DeleteTarget;
use crate::documents::Objects;
use crate::error::Result;
use crate::ids::{validate_tag, Source, VersionRef};
use crate::store::{AuditEntry, Collection, Hold};
use serde_json::{json, Value};

impl Objects<'_> {
    /// Tags a version; the tag leaves any other version of the document.
    pub fn tag(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
        which: &VersionRef,
        tag: &str,
    ) -> Result<Value> {
        validate_tag(tag)?;
        refuse_all(source)?;
        let scope = scope_for_key(p, coll, source, id)?;
        require_write(p, coll, &scope)?;
        self.platform.write(|tx| {
            tx.hold(&[Hold::Document(coll, &scope, id)])?;
            tx.current(coll, &scope, id)?
                .ok_or_else(|| not_found(coll, id, source))?;
            let n = resolve_version(&*tx, coll, &scope, id, which)?;
            tx.set_tag(coll, &scope, id, tag, n)?;
            let v = tx
                .version(coll, &scope, id, n)?
                .ok_or_else(|| not_found(coll, id, source))?;
            Ok(json!({"_id": id, "_version": n, "_tag": v.tags}))
        })
    }

    /// Deletes the latest version (a rollback), one version, or all of a document.
    ///
    /// Returns `{"_id", "deleted": [versions], "current": version or null}`.
    pub fn delete(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
        target: &DeleteTarget,
        reason: Option<&str>,
    ) -> Result<Value> {
        refuse_all(source)?;
        let scope = scope_for_key(p, coll, source, id)?;
        require_write(p, coll, &scope)?;
        let at = self.platform.now();
        let now = format_instant(at);
        self.platform.write(|tx| {
            tx.hold(&[Hold::Document(coll, &scope, id)])?;
            let current = tx
                .current(coll, &scope, id)?
                .ok_or_else(|| not_found(coll, id, source))?;
            let (action, doomed) = match target {
                DeleteTarget::Latest => ("rollback", vec![current.version]),
                DeleteTarget::Version(which) => (
                    "delete-version",
                    vec![resolve_version(&*tx, coll, &scope, id, which)?],
                ),
                DeleteTarget::All => (
                    "delete-all",
                    tx.versions(coll, &scope, id)?
                        .iter()
                        .map(|v| v.version)
                        .collect(),
                ),
            };
            for &n in &doomed {
                tx.delete_version(coll, &scope, id, n)?;
            }
            let remaining = if doomed.contains(&current.version) {
                tx.versions(coll, &scope, id)?.last().map(|v| v.version)
            } else {
                Some(current.version)
            };
            tx.set_current(coll, &scope, id, remaining)?;
            if coll == Collection::Type {
                crate::types::sync_type_indexes(tx, &scope, id)?;
            }
            if coll == Collection::Object {
                let left: Vec<u32> = tx
                    .versions(coll, &scope, id)?
                    .iter()
                    .map(|v| v.version)
                    .collect();
                tx.prune_data(&scope, id, &left)?;
            }
            tx.append_audit(
                coll,
                &scope,
                &AuditEntry {
                    id: id.to_string(),
                    action: action.to_string(),
                    versions: doomed.clone(),
                    user: p.user.clone(),
                    timestamp: at,
                    reason: reason.map(str::to_string),
                },
            )?;
            let outcome =
                json!({"_id": id, "deleted": doomed, "current": remaining, "action": action});
            crate::events::emit(tx, p, &scope, coll.as_str(), id, "delete", &now, outcome)?;
            if coll == Collection::ValidationConfig {
                let now_current = tx.current(coll, &scope, id)?;
                let body = now_current.as_ref().map(|c| &c.body);
                crate::events::automations::sync_owned(tx, p, id, body, &now)?;
            }
            Ok(json!({"_id": id, "deleted": doomed, "current": remaining}))
        })
    }
}
