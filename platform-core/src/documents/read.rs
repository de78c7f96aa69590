//! Reading documents: one (current or a version), its versions, lists (filters, `#type`,
//! `_distinct`, `_searchinfo`, projection), several by id, and the audit trail.

use super::access::{not_found, resolve_version, scope_for_key};
use super::printed::{print, print_current, Shown};
use super::render::{header_hidden_from, render, render_owned, visible};
use super::version::ObjectVersion;
use super::ListRequest;
use super::Objects;
use crate::auth::Principal;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{validate_id, Scope, Source, VersionRef};
use crate::json::jsonb::FieldHeader;
use crate::query::{Cursor, Filter, ListQuery, Projection};
use crate::store::{AuditEntry, Collection, Page, ReadTx};
use crate::types::ROOT_TYPE;
use serde_json::{json, Value};

impl Objects<'_> {
    /// JSON: the current version of a document, or one version of it, optionally projected.
    /// Through a snapshot's handle ([`crate::Snapshot::objects`]) it reads in the snapshot.
    pub fn get(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
        version: Option<&VersionRef>,
        project: Option<&Projection>,
    ) -> Result<Value> {
        self.get_at(self.tx(), p, coll, source, id, version, project)
    }

    /// [`get`](Self::get), reading the current version in `tx` when given.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn get_at(
        &self,
        tx: Option<&dyn ReadTx>,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
        version: Option<&VersionRef>,
        project: Option<&Projection>,
    ) -> Result<Value> {
        let scope = scope_for_key(p, coll, source, id)?;
        let item = match version {
            None => {
                let current = match tx {
                    Some(tx) => tx.current(coll, &scope, id)?,
                    None => self.platform.store.current_document(coll, &scope, id)?,
                }
                .ok_or_else(|| not_found(coll, id, source))?;
                visible(p, coll, render_owned(current, true))
            }
            Some(which) => {
                let tx = self.platform.read_in(tx)?;
                let current = tx
                    .current(coll, &scope, id)?
                    .ok_or_else(|| not_found(coll, id, source))?;
                let n = resolve_version(&*tx, coll, &scope, id, which)?;
                let v = tx
                    .version(coll, &scope, id, n)?
                    .ok_or_else(|| not_found(coll, id, source))?;
                let is_current = n == current.version;
                visible(p, coll, render_owned(v, is_current))
            }
        };
        Ok(Value::Object(match project {
            Some(pr) => pr.apply(&item, false),
            None => item,
        }))
    }

    /// [`get`](Self::get) of a current document (no version, no projection) as JSON bytes with
    /// its `_timestamp`, printed from the body as stored where it can be (the bytes `get`'s
    /// answer prints as); `None` where it cannot, for `get` to answer. Through a snapshot's
    /// handle ([`crate::Snapshot::objects`]) it reads in the snapshot.
    pub fn get_printed(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
    ) -> Result<Option<(Vec<u8>, String)>> {
        match self.tx() {
            Some(tx) => self.get_printed_in(tx, p, coll, source, id),
            None => {
                let snapshot = self.platform.snapshot()?;
                self.get_printed_in(snapshot.tx(), p, coll, source, id)
            }
        }
    }

    /// The JSON answer [`get_at`](Self::get_at) gives of a current document without a
    /// version or projection, printed from the body as stored where it can be (the same
    /// bytes): `None` where it cannot (a body the store leaves to `get_at`).
    fn get_printed_in(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
    ) -> Result<Option<(Vec<u8>, String)>> {
        let scope = scope_for_key(p, coll, source, id)?;
        // As `visible` leaves them out: an object's data properties of an access role the
        // caller does not hold.
        let hide = |h: FieldHeader<'_>| coll == Collection::Object && header_hidden_from(p, h);
        let shown = Shown {
            omit: &["_bundle"],
            refuse: &super::SYSTEM_FIELDS,
            hide: &hide,
        };
        let current = tx
            .current_raw(coll, &scope, id)?
            .ok_or_else(|| not_found(coll, id, source))?;
        let Some(printed) = print(current, &shown)? else {
            return Ok(None);
        };
        let timestamp = crate::clock::format_instant(printed.version.timestamp);
        Ok(print_current(printed).map(|bytes| (bytes, timestamp)))
    }

    /// Every version of a document (its system fields, [`ObjectVersion`]), oldest first.
    ///
    /// ```
    /// use platform_core::api::{Collection, objects::Object, objects::SaveOptions, Source};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// platform.objects().save_object(&me, &Object::new("NBP").with("lots", 1), &Default::default())?;
    /// let why = SaveOptions { reason: Some("more lots".into()), ..Default::default() };
    /// platform.objects().save_object(&me, &Object::new("NBP").with("lots", 2), &why)?;
    /// let versions = platform.objects().versions(&me, Collection::Object, Source::Private, "NBP")?;
    /// assert_eq!((versions[0].version, versions[0].current), (1, false));
    /// assert_eq!((versions[1].reason.as_deref(), versions[1].current), (Some("more lots"), true));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn versions(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
    ) -> Result<Vec<ObjectVersion>> {
        let scope = scope_for_key(p, coll, source, id)?;
        let tx = self.platform.read()?;
        let all = tx.versions(coll, &scope, id)?;
        let current = all
            .iter()
            .map(|v| v.version)
            .max()
            .ok_or_else(|| not_found(coll, id, source))?;
        Ok(all
            .iter()
            .map(|v| ObjectVersion::of(v, v.version == current))
            .collect())
    }

    /// JSON: current documents of a source, filtered, sorted and paged, with the total before
    /// paging. With `_distinct` the items are the distinct values, with `_searchinfo` they are
    /// `{_id, name}`.
    pub fn list(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        req: &ListRequest,
    ) -> Result<Page<Value>> {
        self.list_with_next(p, coll, source, req)
            .map(|(page, _)| page)
    }

    /// JSON: [`list`](Self::list), with the cursor of the next page: `Some` when items follow
    /// a plain list's page (the value of `_after` that reads them), `None` for the last page
    /// and for `_distinct`, `_searchinfo`, `_asof` and `_id` lists.
    pub fn list_with_next(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        req: &ListRequest,
    ) -> Result<(Page<Value>, Option<String>)> {
        if source == Source::All && !coll.sourced_by_hash() {
            return Err(Error::invalid_parameter(format!(
                "all is not a source of {}s: list them from public or private",
                coll.noun()
            )));
        }
        if !req.ids.is_empty() {
            return Ok((self.list_by_ids(p, coll, source, req)?, None));
        }
        let scopes = Scope::read_scopes(source, p);
        let tx = self.platform.read()?;
        let query = self.list_query(tx.as_ref(), p, coll, &scopes, req)?;
        if let Some(at) = req.as_of {
            if req.distinct.is_some() || req.searchinfo.is_some() {
                return Err(Error::invalid_parameter(
                    "_asof lists documents as they were: not with _distinct or _searchinfo",
                ));
            }
            let page = list_as_of(tx.as_ref(), p, coll, &scopes, &query, req, at)?;
            return Ok((page, None));
        }
        if let Some(field) = &req.distinct {
            let values = tx.distinct(coll, &scopes, &query.filter, field)?;
            return Ok((whole(values.into_iter().map(Value::String).collect()), None));
        }
        if let Some(prefix) = &req.searchinfo {
            let hits = tx.complete(coll, &scopes, &query.filter, prefix, query.paging.limit)?;
            let items = hits
                .into_iter()
                .map(|(id, name)| json!({"_id": id, "name": name}))
                .collect();
            return Ok((whole(items), None));
        }
        list_current(tx.as_ref(), p, coll, &scopes, query, req)
    }

    /// The documents `_id` parameters name, each from its own source (only through `all`).
    fn list_by_ids(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        req: &ListRequest,
    ) -> Result<Page<Value>> {
        if source != Source::All {
            return Err(Error::invalid_parameter(format!(
                "_id parameters fetch by id from the all source, not from {source}"
            )));
        }
        let ids: Vec<&str> = req.ids.iter().map(String::as_str).collect();
        let items = self.get_many_at(p, coll, &ids, req.project.as_ref(), req.as_of)?;
        Ok(whole(items))
    }

    /// The store query of a list: the request's, narrowed to a type and its descendants
    /// (`_typetree`); a text comparison on a field that holds only numbers is refused.
    fn list_query(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        coll: Collection,
        scopes: &[Scope],
        req: &ListRequest,
    ) -> Result<ListQuery> {
        let mut query = req.query.clone();
        if let Some(root) = &req.type_tree {
            if root != ROOT_TYPE {
                let family = self.platform.type_family(tx, p, root)?;
                query.filter = Filter::and(vec![query.filter, Filter::TypeIn(family)]);
            }
        }
        for (path, call) in query.filter.text_comparisons() {
            let kinds = tx.field_kinds(coll, scopes, &path)?;
            let numeric = kinds.iter().any(|k| k.is_number());
            if numeric && !kinds.contains(&crate::store::FieldKind::Text) {
                return Err(Error::invalid_parameter(format!(
                    "invalid filter {path}={call}: \"{path}\" holds numbers, so the argument must be a number"
                )));
            }
        }
        Ok(query)
    }

    /// Current documents with these ids, each from its own source, as JSON; missing ids are
    /// left out. [`Objects::objects_by_id`] is its public, typed call.
    pub(crate) fn get_many(
        &self,
        p: &Principal,
        coll: Collection,
        ids: &[&str],
        project: Option<&Projection>,
    ) -> Result<Vec<Value>> {
        self.get_many_at(p, coll, ids, project, None)
    }

    /// Documents with these ids, each from its own source, current or as they were at `as_of`;
    /// ids missing (then) are left out.
    pub(crate) fn get_many_at(
        &self,
        p: &Principal,
        coll: Collection,
        ids: &[&str],
        project: Option<&Projection>,
        as_of: Option<chrono::DateTime<chrono::Utc>>,
    ) -> Result<Vec<Value>> {
        if ids.is_empty() {
            return Err(Error::new(
                ErrorCode::MissingParameter,
                "the all source needs at least one _id parameter",
            ));
        }
        let tx = self.platform.read()?;
        if as_of.is_none() {
            // Every document in the round trip of the first read.
            let keys: Vec<(Scope, &str)> = ids
                .iter()
                .filter(|id| validate_id(id, "_id").is_ok())
                .map(|id| (Scope::for_source(Source::of_id(id), p), *id))
                .collect();
            let ahead: Vec<crate::store::Ahead<'_>> = keys
                .iter()
                .map(|(scope, id)| crate::store::Ahead::Document(coll, scope, id))
                .collect();
            tx.read_ahead(&ahead)?;
        }
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            validate_id(id, "_id")?;
            let scope = Scope::for_source(Source::of_id(id), p);
            let found = match as_of {
                None => tx.current(coll, &scope, id)?.map(|v| (v, true)),
                Some(at) => version_at(tx.as_ref(), coll, &scope, id, at)?,
            };
            if let Some((v, is_current)) = found {
                let item = visible(p, coll, render_owned(v, is_current));
                out.push(Value::Object(match project {
                    Some(pr) => pr.apply(&item, true),
                    None => item,
                }));
            }
        }
        Ok(out)
    }

    /// The audit trail of deletions (rollbacks included) of one document.
    pub fn audit(
        &self,
        p: &Principal,
        coll: Collection,
        source: Source,
        id: &str,
    ) -> Result<Vec<AuditEntry>> {
        let scope = scope_for_key(p, coll, source, id)?;
        self.platform.read()?.audit(coll, &scope, id)
    }
}

/// Every item, on one page.
fn whole<T>(items: Vec<T>) -> Page<T> {
    Page {
        estimated: false,
        total: items.len() as u64,
        items,
    }
}

/// A plain list of current documents: one page, as the caller may see them, with the cursor
/// of the next page when items follow it (one item past the page says whether one does).
fn list_current(
    tx: &dyn ReadTx,
    p: &Principal,
    coll: Collection,
    scopes: &[Scope],
    mut query: ListQuery,
    req: &ListRequest,
) -> Result<(Page<Value>, Option<String>)> {
    let limit = query.paging.limit.filter(|&l| l > 0);
    if let Some(l) = limit {
        query.paging.limit = Some(l + 1);
    }
    let mut page = tx.list_after(coll, scopes, &query, req.after.as_ref())?;
    let next = match limit {
        Some(l) if page.items.len() as u64 > l => {
            page.items.truncate(l as usize);
            page.items.last().map(|last| {
                Cursor::after(&query.sort, &last.id, &last.filter_doc()).encode(&query.sort)
            })
        }
        _ => None,
    };
    let items = page
        .items
        .into_iter()
        .map(|v| {
            let item = visible(p, coll, render_owned(v, true));
            Value::Object(match &req.project {
                Some(pr) => pr.apply(&item, true),
                None => item,
            })
        })
        .collect();
    let page = Page {
        estimated: page.estimated,
        total: page.total,
        items,
    };
    Ok((page, next))
}

/// The version of a document current at `at`, and whether it is the current one.
pub(crate) fn version_at(
    tx: &dyn crate::store::ReadTx,
    coll: Collection,
    scope: &Scope,
    id: &str,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<Option<(crate::store::StoredVersion, bool)>> {
    let versions = tx.versions(coll, scope, id)?;
    let newest = versions.iter().map(|v| v.version).max();
    let Some(n) = VersionRef::pick_as_of(at, &versions) else {
        return Ok(None);
    };
    Ok(versions
        .into_iter()
        .find(|v| v.version == n)
        .map(|v| (v, Some(n) == newest)))
}

/// A list as it was at `at`: each document's version current then (documents that did not
/// exist then are left out), filtered, sorted and paged in memory with the same meaning as the
/// store's (`Filter::matches`; values ordered null < booleans < numbers < strings, `_id`
/// breaking ties). Documents deleted with all their versions are gone from every list.
fn list_as_of(
    tx: &dyn crate::store::ReadTx,
    p: &Principal,
    coll: Collection,
    scopes: &[Scope],
    query: &crate::query::ListQuery,
    req: &ListRequest,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<Page<Value>> {
    let everything = crate::query::ListQuery {
        total: crate::query::Total::Exact,
        filter: Filter::all(),
        sort: crate::query::SortSpec::default(),
        paging: crate::query::Paging::everything(),
    };
    let mut found = Vec::new();
    for scope in scopes {
        let ids: Vec<String> = tx
            .list(coll, std::slice::from_ref(scope), &everything)?
            .items
            .into_iter()
            .map(|v| v.id)
            .collect();
        for id in ids {
            if let Some((v, is_current)) = version_at(tx, coll, scope, &id, at)? {
                // Filtered and sorted as the document (its plain id), shown at its address.
                let shown = visible(p, coll, render(&v, true));
                if query.filter.matches(&shown) {
                    found.push((shown, v, is_current));
                }
            }
        }
    }
    found.sort_by(|(a, _, _), (b, _, _)| {
        for key in &query.sort.0 {
            let o = order_values(
                crate::query::filter::lookup(a, &key.field),
                crate::query::filter::lookup(b, &key.field),
            );
            let o = if key.descending { o.reverse() } else { o };
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        order_values(a.get("_id"), b.get("_id"))
    });
    let page = query.paging.page(found);
    Ok(Page {
        estimated: false,
        total: page.total,
        items: page
            .items
            .into_iter()
            .map(|(_, v, is_current)| {
                let item = visible(p, coll, render(&v, is_current));
                Value::Object(match &req.project {
                    Some(pr) => pr.apply(&item, true),
                    None => item,
                })
            })
            .collect(),
    })
}

fn order_values(a: Option<&Value>, b: Option<&Value>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn rank(v: Option<&Value>) -> u8 {
        match v {
            None | Some(Value::Null) => 0,
            Some(Value::Bool(_)) => 1,
            Some(Value::Number(_)) => 2,
            Some(Value::String(_)) => 3,
            Some(_) => 4,
        }
    }
    match (a, b) {
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x.cmp(y),
        (Some(Value::Number(x)), Some(Value::Number(y))) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        (Some(Value::String(x)), Some(Value::String(y))) => x.cmp(y),
        (Some(x), Some(y)) if rank(a) == 4 && rank(b) == 4 => x.to_string().cmp(&y.to_string()),
        _ => rank(a).cmp(&rank(b)),
    }
}
