//! Version retention: a type's `_retention` policy applied when an object of it is saved, and
//! to everything stored ([`Platform::prune_retained`], `platform prune`).

use crate::auth::Principal;
use crate::documents::Objects;
use crate::error::Result;
use crate::ids::{Scope, Source};
use crate::query::{Filter, ListQuery, Paging};
use crate::store::{Collection, WriteTx};
use crate::types::Retention;

/// Removes the versions of an object a retention policy gives up, with the data rows only
/// they saw, and records it in the audit trail; returns the versions removed.
pub(crate) fn prune_versions(
    tx: &mut dyn WriteTx,
    p: &Principal,
    coll: Collection,
    scope: &crate::ids::Scope,
    id: &str,
    policy: &crate::types::Retention,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<u32>> {
    tx.hold(&[crate::store::Hold::Document(coll, scope, id)])?;
    let versions = tx.versions(coll, scope, id)?;
    let doomed = policy.doomed(&versions, now);
    if doomed.is_empty() {
        return Ok(doomed);
    }
    for &n in &doomed {
        tx.delete_version(coll, scope, id, n)?;
    }
    let left: Vec<u32> = versions
        .iter()
        .map(|v| v.version)
        .filter(|v| !doomed.contains(v))
        .collect();
    if coll == Collection::Object {
        tx.prune_data(scope, id, &left)?;
    }
    tx.append_audit(
        coll,
        scope,
        &crate::store::AuditEntry {
            id: id.to_string(),
            action: "retention".to_string(),
            versions: doomed.clone(),
            user: p.user.clone(),
            timestamp: now,
            reason: Some("the type's retention policy".to_string()),
        },
    )?;
    Ok(doomed)
}

impl Objects<'_> {
    /// Applies the `_retention` policies of the types `p` sees to the objects already stored
    /// (a save applies them to its own object): returns `(object id, versions removed)` for
    /// each object pruned. Removals are in the audit trail (action `retention`).
    ///
    /// ```
    /// # use platform_core::{Platform, api::Collection};
    /// # use serde_json::json;
    /// # let platform = Platform::in_memory()?;
    /// # let me = platform.tenancy().local_principal("acme", "ann")?;
    /// let objects = platform.objects();
    /// for v in 1..=3 {
    ///     objects.save(&me, Collection::Object, json!({"_id": "A", "_type": "Quote", "v": v}), &Default::default())?;
    /// }
    /// // A policy set later applies to what is stored when asked.
    /// objects.save(&me, Collection::Type, json!({"_id": "Quote", "_retention": {"keepVersions": 1}}), &Default::default())?;
    /// assert_eq!(objects.prune_retained(&me)?, [("A".to_string(), vec![1, 2])]);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn prune_retained(&self, p: &Principal) -> Result<Vec<(String, Vec<u32>)>> {
        let everything = ListQuery {
            paging: Paging {
                skip: 0,
                limit: None,
            },
            ..ListQuery::default()
        };
        let types = self.platform.read()?.list(
            Collection::Type,
            &Scope::read_scopes(Source::All, p),
            &everything,
        )?;
        let mut out = Vec::new();
        for def in types.items {
            let Some(policy) = Retention::of(&def.body)? else {
                continue;
            };
            let scopes = if p.role >= crate::auth::Role::Platform {
                Scope::read_scopes(Source::All, p)
            } else {
                vec![p.private_scope()]
            };
            for scope in scopes {
                let query = ListQuery {
                    filter: Filter::TypeIn(vec![def.id.clone()]),
                    ..everything.clone()
                };
                let objects = self.platform.read()?.list(
                    Collection::Object,
                    std::slice::from_ref(&scope),
                    &query,
                )?;
                for object in objects.items {
                    let now = self.platform.now();
                    let removed = self.platform.write(|tx| {
                        prune_versions(tx, p, Collection::Object, &scope, &object.id, &policy, now)
                    })?;
                    if !removed.is_empty() {
                        out.push((object.id.clone(), removed));
                    }
                }
            }
        }
        Ok(out)
    }
}
