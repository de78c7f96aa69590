//! Tagging a version, and deleting the latest version (a rollback), one version or all of a
//! document, with the audit entry and events.

use crate::auth::Principal;
use crate::clock::format_instant;
use crate::documents::access::{
    not_found, refuse_all, require_write, resolve_version, scope_for_key,
};
use crate::documents::version::{Deletion, TaggedVersion};
use crate::documents::DeleteTarget;
use crate::documents::Objects;
use crate::error::Result;
use crate::ids::{validate_tag, Source, VersionRef};
use crate::store::{AuditEntry, Collection, Hold};
use serde_json::json;

impl Objects<'_> {
    /// Tags a version (by number or tag); the tag leaves any other version of the document.
    /// Answers the version tagged with every tag it now carries.
    ///
    /// ```
    /// use platform_core::api::{Collection, objects::Object, Source, VersionRef};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let objects = platform.objects();
    /// objects.save_object(&me, &Object::new("NBP").with("lots", 1), &Default::default())?;
    /// objects.save_object(&me, &Object::new("NBP").with("lots", 2), &Default::default())?;
    /// let tagged = objects.tag(&me, Collection::Object, Source::Private, "NBP", &VersionRef::Number(1), "first")?;
    /// assert_eq!((tagged.version, tagged.tags), (1, vec!["first".to_string()]));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn tag(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
        which: &VersionRef,
        tag: &str,
    ) -> Result<TaggedVersion> {
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
            Ok(TaggedVersion {
                id: id.to_string(),
                version: n,
                tags: v.tags,
            })
        })
    }

    /// Deletes the latest version (a rollback), one version, or all of a document, with its
    /// series and curves of those versions; `reason` goes to the audit trail. Answers the
    /// versions deleted and the version current after it.
    ///
    /// ```
    /// use platform_core::api::{Collection, objects::DeleteTarget, objects::Object, Source, VersionRef};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// for lots in 1..=3 {
    ///     platform.objects().save_object(&me, &Object::new("NBP").with("lots", lots), &Default::default())?;
    /// }
    /// let objects = platform.objects();
    /// let one = DeleteTarget::Version(VersionRef::Number(2));
    /// let gone = objects.delete(&me, Collection::Object, Source::Private, "NBP", &one, Some("typo"))?;
    /// assert_eq!((gone.deleted, gone.current), (vec![2], Some(3)));
    /// let gone = objects.delete(&me, Collection::Object, Source::Private, "NBP", &DeleteTarget::All, None)?;
    /// assert_eq!((gone.deleted, gone.current), (vec![1, 3], None));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn delete(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
        target: &DeleteTarget,
        reason: Option<&str>,
    ) -> Result<Deletion> {
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
            Ok(Deletion {
                id: id.to_string(),
                deleted: doomed,
                current: remaining,
            })
        })
    }
}
