//! Reading documents: one (current or a version), its versions, lists (filters, `#type`,
//! `_distinct`, `_searchinfo`, projection), several by id, and the audit trail.

use super::access::{not_found, resolve_version, scope_for_key};
use super::render::{render, version_header, visible};
use super::ListRequest;
use crate::auth::Principal;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{validate_id, Scope, Source, VersionRef};
use crate::query::{Filter, Projection};
use crate::store::{AuditEntry, Collection, Page};
use crate::types::ROOT_TYPE;
use crate::Platform;
use serde_json::{json, Value};

impl Platform {
    /// The current version of a document, or one version of it.
    pub(crate) fn get(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
        version: Option<&VersionRef>,
        project: Option<&Projection>,
    ) -> Result<Value> {
        let scope = scope_for_key(p, coll, source, id)?;
        let tx = self.read()?;
        let current = tx
            .current(coll, &scope, id)?
            .ok_or_else(|| not_found(coll, id, source))?;
        let item = match version {
            None => visible(p, coll, render(&current, true)),
            Some(which) => {
                let n = resolve_version(tx.as_ref(), coll, &scope, id, which)?;
                let v = tx
                    .version(coll, &scope, id, n)?
                    .ok_or_else(|| not_found(coll, id, source))?;
                visible(p, coll, render(&v, n == current.version))
            }
        };
        Ok(Value::Object(match project {
            Some(pr) => pr.apply(&item, false),
            None => item,
        }))
    }

    /// Every version of a document, oldest first.
    pub(crate) fn versions(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
    ) -> Result<Vec<Value>> {
        let scope = scope_for_key(p, coll, source, id)?;
        let tx = self.read()?;
        let all = tx.versions(coll, &scope, id)?;
        let current = all
            .iter()
            .map(|v| v.version)
            .max()
            .ok_or_else(|| not_found(coll, id, source))?;
        Ok(all
            .iter()
            .map(|v| version_header(v, v.version == current))
            .collect())
    }

    /// Lists current documents of a source, paged, with the total before paging. With
    /// `_distinct` the items are the distinct values, with `_searchinfo` they are `{_id, name}`.
    pub(crate) fn list(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        req: &ListRequest,
    ) -> Result<Page<Value>> {
        if source == Source::All && !coll.sourced_by_hash() {
            return Err(Error::invalid_parameter(format!(
                "all is not a source of {}s: list them from public or private",
                coll.noun()
            )));
        }
        if !req.ids.is_empty() {
            // `_id` parameters fetch by id, each from its own source: only through `all`.
            if source != Source::All {
                return Err(Error::invalid_parameter(format!(
                    "_id parameters fetch by id from the all source, not from {source}"
                )));
            }
            let ids: Vec<&str> = req.ids.iter().map(String::as_str).collect();
            let items = self.get_many(p, coll, &ids, req.project.as_ref())?;
            return Ok(Page {
                total: items.len() as u64,
                items,
            });
        }
        let scopes = Scope::read_scopes(source, p);
        let tx = self.read()?;
        let mut query = req.query.clone();
        if let Some(root) = &req.type_tree {
            if root != ROOT_TYPE {
                let family = self.type_family(tx.as_ref(), p, root)?;
                query.filter = Filter::and(vec![query.filter, Filter::TypeIn(family)]);
            }
        }
        for (path, call) in query.filter.text_comparisons() {
            let kinds = tx.field_kinds(coll, &scopes, &path)?;
            let numeric = kinds.iter().any(|k| k.is_number());
            if numeric && !kinds.contains(&crate::store::FieldKind::Text) {
                return Err(Error::invalid_parameter(format!(
                    "invalid filter {path}={call}: \"{path}\" holds numbers, so the argument must be a number"
                )));
            }
        }
        if let Some(field) = &req.distinct {
            let values = tx.distinct(coll, &scopes, &query.filter, field)?;
            return Ok(Page {
                total: values.len() as u64,
                items: values.into_iter().map(Value::String).collect(),
            });
        }
        if let Some(prefix) = &req.searchinfo {
            let hits = tx.complete(coll, &scopes, &query.filter, prefix, query.paging.limit)?;
            return Ok(Page {
                total: hits.len() as u64,
                items: hits
                    .into_iter()
                    .map(|(id, name)| json!({"_id": id, "name": name}))
                    .collect(),
            });
        }
        let page = tx.list(coll, &scopes, &query)?;
        Ok(Page {
            total: page.total,
            items: page
                .items
                .iter()
                .map(|v| {
                    let item = visible(p, coll, render(v, true));
                    Value::Object(match &req.project {
                        Some(pr) => pr.apply(&item, true),
                        None => item,
                    })
                })
                .collect(),
        })
    }

    /// Current documents with these ids, each from its own source; missing ids are left out.
    pub(crate) fn get_many(
        &self,
        p: &Principal,
        coll: Collection,
        ids: &[&str],
        project: Option<&Projection>,
    ) -> Result<Vec<Value>> {
        if ids.is_empty() {
            return Err(Error::new(
                ErrorCode::MissingParameter,
                "the all source needs at least one _id parameter",
            ));
        }
        let tx = self.read()?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            validate_id(id, "_id")?;
            let scope = Scope::for_source(Source::of_id(id), p);
            if let Some(v) = tx.current(coll, &scope, id)? {
                let item = visible(p, coll, render(&v, true));
                out.push(Value::Object(match project {
                    Some(pr) => pr.apply(&item, true),
                    None => item,
                }));
            }
        }
        Ok(out)
    }

    /// The audit trail of deletions of one document.
    pub(crate) fn audit(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
    ) -> Result<Vec<AuditEntry>> {
        let scope = scope_for_key(p, coll, source, id)?;
        self.read()?.audit(coll, &scope, id)
    }
}
