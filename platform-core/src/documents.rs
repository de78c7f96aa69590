//! Versioned documents: the rules shared by every versioned service (objects, types...).
//!
//! | Call | Rule |
//! |---|---|
//! | save, id absent | stored as version 1 |
//! | save (merge) | each top-level field sent replaces the stored one, fields not sent stay; when the result equals the stored document nothing is written |
//! | save `_replace` | the document becomes exactly what was sent |
//! | save, unversioned type | the document is overwritten in place and keeps `_version` 1 |
//! | tag | the tag moves to the named version |
//! | delete latest | the previous version becomes current (rollback); the only version: absent |
//! | delete a version | removed; if it was current, the previous becomes current |
//! | delete all | every version removed |
//!
//! The current version is always the highest remaining number, and a new version takes the
//! current number plus one. System fields (`_oid _timestamp _user _tag _version _reason`) are
//! computed on read and ignored on write. A non-current version is shown with
//! `_id = "<id>/<version>"` (its address) and `_oid = "<id>"`.

use crate::auth::Principal;
use crate::clock::format_instant;
use crate::data::{self, DataKind};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{validate_id, validate_tag, Scope, Source, VersionRef};
use crate::query::sort::check_field;
use crate::query::{filter, search, Filter, ListQuery, Paging, Params, Projection, SortSpec};
use crate::store::{AuditEntry, Collection, DataKey, Page, ReadTx, StoredVersion, WriteTx};
use crate::types::ROOT_TYPE;
use crate::Platform;
use serde_json::{json, Map, Value};

/// Fields only the platform writes (extension bookkeeping); ignored when sent.
pub const PLATFORM_FIELDS: [&str; 3] = ["_bundle", "_installedVersion", "_publishedBy"];

/// Fields the platform computes; ignored when sent.
pub const SYSTEM_FIELDS: [&str; 6] = ["_oid", "_timestamp", "_user", "_tag", "_version", "_reason"];

/// Options of a save.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SaveOptions {
    /// Replace instead of merge (`_replace=true`).
    pub replace: bool,
    /// The `_reason` to store with the new version.
    pub reason: Option<String>,
    /// The source named in the path, if any; every id must belong to it.
    pub source: Option<Source>,
    /// What a series payload holding one instant twice does (`_onDuplicate`).
    pub on_duplicate: crate::data::series::OnDuplicate,
}

impl SaveOptions {
    /// Reads `_replace`, `_reason` and `_onDuplicate`.
    pub fn from_params(params: &Params, source: Option<Source>) -> Result<SaveOptions> {
        Ok(SaveOptions {
            replace: params.flag("_replace")?,
            reason: params.get("_reason").map(str::to_string),
            source,
            on_duplicate: params
                .get("_onDuplicate")
                .map(crate::data::series::OnDuplicate::parse)
                .transpose()?
                .unwrap_or_default(),
        })
    }
}

/// What to delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeleteTarget {
    /// The current version (a rollback).
    Latest,
    /// One version, by number or tag.
    Version(VersionRef),
    /// Every version.
    All,
}

/// The fields a `_search` result carries (with `_id`), before `_project` adds more.
pub const SEARCH_RESULT_FIELDS: [&str; 4] =
    ["name", "description", "classification", "geolocation"];

/// A parsed list request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListRequest {
    /// What the store evaluates (filters, order, page).
    pub query: ListQuery,
    /// Fields to return.
    pub project: Option<Projection>,
    /// `#type=T`: T and every type that extends it (resolved when the list runs).
    pub type_tree: Option<String>,
    /// `_distinct=field`: return the distinct string values of the field instead of items.
    pub distinct: Option<String>,
    /// `_searchinfo=text`: return `{_id, name}` of items whose id or name starts with the text.
    pub searchinfo: Option<String>,
}

impl ListRequest {
    /// Reads every list parameter: `field=value` filters (system fields such as `_user` or
    /// `_objid` included), `_filter`, `_type`, `#type`, `_search`, `_searchinfo`, `_distinct`,
    /// `_sort`, `_project`, `_limit`, `_skip`. Other standard parameters belong to other
    /// features and are left alone; an unknown one starting with `_` is refused, and so is
    /// `_function` (a list that has functions answers them before it reads a list request).
    pub fn from_params(params: &Params) -> Result<ListRequest> {
        params.check_names()?;
        if let Some(function) = params.get("_function") {
            return Err(Error::invalid_parameter(format!(
                "unknown _function \"{function}\" on a list"
            )));
        }
        let mut parts = Vec::new();
        let mut type_tree = None;
        for (key, value) in params.pairs() {
            match key.as_str() {
                "#type" => type_tree = Some(value.clone()),
                // `_id` fetches by id (`all`) and `_type` is the type filter below.
                "_id" | "_type" => {}
                // The tags of the current version: a document carrying the tag matches.
                "_tag" if !value.ends_with(')') => parts.push(Filter::Eq {
                    path: key.clone(),
                    value: Value::String(value.clone()),
                }),
                k if crate::query::params::SYSTEM_FIELDS.contains(&k) => {
                    parts.push(filter::parse_param(k, value)?)
                }
                k if k.starts_with('_') => {}
                k => parts.push(filter::parse_param(k, value)?),
            }
        }
        if let Some(t) = params.get("_type") {
            parts.push(Filter::TypeIn(vec![t.to_string()]));
        }
        if let Some(f) = params.get("_filter") {
            parts.push(filter::parse_json_filter(f)?);
        }
        let mut project = Projection::from_params(params)?;
        if let Some(text) = params.get("_search") {
            parts.push(search::parse(text)?);
            project = Some(match project {
                Some(p) if p.is_include() => p.with_fields(&SEARCH_RESULT_FIELDS),
                _ => Projection::include(&SEARCH_RESULT_FIELDS),
            });
        }
        let distinct = match params.get("_distinct") {
            Some(field) => {
                check_field(field)
                    .map_err(|why| Error::invalid_parameter(format!("invalid _distinct: {why}")))?;
                Some(field.to_string())
            }
            None => None,
        };
        let sort = params
            .get("_sort")
            .map(SortSpec::parse)
            .transpose()?
            .unwrap_or_default();
        let filter = Filter::and(parts);
        filter.check_size()?;
        Ok(ListRequest {
            query: ListQuery {
                filter,
                sort,
                paging: Paging::from_params(params)?,
            },
            project,
            type_tree,
            distinct,
            searchinfo: params.get("_searchinfo").map(filter::fold),
        })
    }
}

impl Collection {
    /// The `_type` given to documents saved without one.
    pub fn default_type(self) -> &'static str {
        match self {
            Collection::Object => "#Object",
            Collection::Type => "VarType",
            Collection::Script => "VarScript",
            Collection::Extension => "VarExtension",
            Collection::ValidationConfig => "VarValidationConfig",
        }
    }

    /// What the documents are called in messages.
    pub fn noun(self) -> &'static str {
        match self {
            Collection::Object => "object",
            Collection::Type => "type",
            Collection::Script => "script",
            Collection::Extension => "extension",
            Collection::ValidationConfig => "validation configuration",
        }
    }

    /// Whether ids choose the source (`#` public, else private); extensions are addressed by
    /// the source in the path instead.
    pub fn sourced_by_hash(self) -> bool {
        !matches!(self, Collection::Extension | Collection::ValidationConfig)
    }
}

/// Whether `value` is a data property whose access role (`_access`) the caller does not hold.
pub(crate) fn hidden_from(p: &Principal, value: &Value) -> bool {
    DataKind::of(value).is_some()
        && !p
            .grants
            .may_read(value.get("_access").and_then(Value::as_str))
}

/// A document as the caller may see it: an object's data properties of an access role the
/// caller does not hold are left out entirely (name and header alike).
pub(crate) fn visible(
    p: &Principal,
    coll: Collection,
    mut item: Map<String, Value>,
) -> Map<String, Value> {
    if coll == Collection::Object {
        item.retain(|_, v| !hidden_from(p, v));
    }
    item
}

/// The JSON shape of a stored version: its fields plus the system fields.
pub fn render(v: &StoredVersion, current: bool) -> Map<String, Value> {
    let mut out = Map::with_capacity(v.body.len() + 6);
    for (k, val) in &v.body {
        if k == "_bundle" {
            continue;
        }
        if k == "_id" && !current {
            out.insert(k.clone(), Value::String(format!("{}/{}", v.id, v.version)));
        } else {
            out.insert(k.clone(), val.clone());
        }
    }
    if !out.contains_key("_id") {
        out.insert("_id".into(), Value::String(v.id.clone()));
    }
    out.insert("_oid".into(), Value::String(v.id.clone()));
    out.insert(
        "_timestamp".into(),
        Value::String(format_instant(v.timestamp)),
    );
    out.insert("_user".into(), Value::String(v.user.clone()));
    out.insert("_tag".into(), json!(v.tags));
    out.insert("_version".into(), json!(v.version));
    if let Some(reason) = &v.reason {
        out.insert("_reason".into(), Value::String(reason.clone()));
    }
    out
}

/// One entry of a version list.
fn version_header(v: &StoredVersion, current: bool) -> Value {
    let mut out = Map::new();
    out.insert(
        "_id".into(),
        Value::String(if current {
            v.id.clone()
        } else {
            format!("{}/{}", v.id, v.version)
        }),
    );
    out.insert("_oid".into(), Value::String(v.id.clone()));
    out.insert("_type".into(), Value::String(v.type_name().to_string()));
    out.insert("_version".into(), json!(v.version));
    out.insert(
        "_timestamp".into(),
        Value::String(format_instant(v.timestamp)),
    );
    out.insert("_user".into(), Value::String(v.user.clone()));
    out.insert("_tag".into(), json!(v.tags));
    out.insert("_current".into(), Value::Bool(current));
    out.insert(
        "_reason".into(),
        v.reason.clone().map_or(Value::Null, Value::String),
    );
    Value::Object(out)
}

/// Resolves a version reference to an existing version number.
fn resolve_version(
    tx: &dyn ReadTx,
    coll: Collection,
    scope: &Scope,
    id: &str,
    which: &VersionRef,
) -> Result<u32> {
    let missing = || Error::not_found(format!("{} \"{id}\" has no {which}", coll.noun()));
    let number = match which {
        VersionRef::Number(n) => *n,
        VersionRef::Tag(tag) => tx.tagged(coll, scope, id, tag)?.ok_or_else(missing)?,
    };
    tx.version(coll, scope, id, number)?.ok_or_else(missing)?;
    Ok(number)
}

/// The scope of an id read through a named source (an id of the other source is not there).
fn scope_for_key(p: &Principal, coll: Collection, source: Source, id: &str) -> Result<Scope> {
    if !coll.sourced_by_hash() {
        return match source {
            Source::All => Err(Error::not_found(format!(
                "the all source is for objects and data; read {}s from public or private",
                coll.noun()
            ))),
            s => Ok(Scope::for_source(s, p)),
        };
    }
    let home = Source::of_id(id);
    match source {
        Source::All => Ok(Scope::for_source(home, p)),
        s if s == home => Ok(Scope::for_source(s, p)),
        s => Err(Error::not_found(format!(
            "{} \"{id}\" not found in the {s} source",
            coll.noun()
        ))),
    }
}

/// Writes name their source: `all` is for reading from both.
fn refuse_all(source: Source) -> Result<()> {
    if source == Source::All {
        return Err(Error::invalid_parameter(
            "cannot write to the all source: use public or private",
        ));
    }
    Ok(())
}

/// Fails unless the caller may write documents of a collection to a scope.
pub(crate) fn require_write(p: &Principal, coll: Collection, scope: &Scope) -> Result<()> {
    p.require_write(scope, coll.noun())?;
    if coll == Collection::Extension {
        p.require(crate::auth::Role::Admin, "writing extensions")?;
    }
    Ok(())
}

fn not_found(coll: Collection, id: &str, source: Source) -> Error {
    Error::not_found(format!(
        "{} \"{id}\" not found in the {source} source",
        coll.noun()
    ))
}

impl Platform {
    /// Saves one document (a JSON object) or several (an array) in one transaction.
    ///
    /// Returns what was stored: the saved document (or the unchanged current one when nothing
    /// differed), or an array of them for an array body. One bad item stores nothing.
    pub fn save(
        &self,
        p: &Principal,
        coll: Collection,
        body: Value,
        opts: &SaveOptions,
    ) -> Result<Value> {
        let (items, is_array) = match body {
            Value::Array(items) => (items, true),
            obj @ Value::Object(_) => (vec![obj], false),
            other => {
                return Err(Error::invalid_body(format!(
                    "the body must be a JSON object or an array of objects, not {}",
                    json_kind(&other)
                )))
            }
        };
        if is_array && items.is_empty() {
            return Err(Error::invalid_body("the body is an empty array"));
        }
        let now = format_instant(self.now());
        let saved = self.write(|tx| {
            let mut saved = Vec::with_capacity(items.len());
            for (index, item) in items.into_iter().enumerate() {
                let at = |e: Error| if is_array { prefix_item(e, index) } else { e };
                let stored = self
                    .save_one(tx, p, coll, item, opts, &now, Vec::new())
                    .map_err(at)?;
                saved.push(Value::Object(visible(p, coll, render(&stored, true))));
            }
            Ok(saved)
        })?;
        Ok(if is_array {
            Value::Array(saved)
        } else {
            saved.into_iter().next().unwrap_or(Value::Null)
        })
    }

    /// Saves one document; `typed` carries data payloads already parsed (typed observations).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn save_one(
        &self,
        tx: &mut dyn WriteTx,
        p: &Principal,
        coll: Collection,
        item: Value,
        opts: &SaveOptions,
        now: &str,
        typed: Vec<(String, data::DataPayload)>,
    ) -> Result<StoredVersion> {
        let Value::Object(mut fields) = item else {
            return Err(Error::invalid_body(format!(
                "each item must be a JSON object, not {}",
                json_kind(&item)
            )));
        };
        let id = match fields.get("_id") {
            Some(Value::String(id)) => id.clone(),
            Some(other) => {
                return Err(Error::new(
                    ErrorCode::InvalidId,
                    format!("_id must be a string, not {}", json_kind(other)),
                ))
            }
            None => return Err(Error::new(ErrorCode::InvalidId, "missing _id")),
        };
        if coll == Collection::ValidationConfig {
            if crate::data::read::DataId::parse(&id)?.ondate.is_some() {
                return Err(Error::new(
                    ErrorCode::InvalidId,
                    format!(
                        "invalid _id \"{id}\": a validation configuration is one per data item \
                         (OBJECT:DATA), for every ondate of a curve"
                    ),
                ));
            }
        } else {
            validate_id(&id, "_id")?;
        }
        let home = if coll.sourced_by_hash() {
            Source::of_id(&id)
        } else {
            opts.source.unwrap_or(Source::Private)
        };
        if let Some(source) = opts.source {
            if source != home {
                return Err(Error::new(
                    ErrorCode::InvalidId,
                    format!(
                        "_id \"{id}\" belongs to the {home} source ('#' ids are public, others private) but was sent to {source}"
                    ),
                ));
            }
        }
        let scope = Scope::for_source(home, p);
        require_write(p, coll, &scope)?;
        for f in SYSTEM_FIELDS.iter().chain(&PLATFORM_FIELDS) {
            fields.shift_remove(*f);
        }
        match fields.get("_type") {
            None => {}
            // A type name follows the id rules (types are documents with ids).
            Some(Value::String(t)) => validate_id(t, "_type")?,
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "_type must be a string, not {}",
                    json_kind(other)
                )))
            }
        }

        // Data properties: the header stays on the object, the payload is written apart.
        let mut payloads = typed;
        if coll == Collection::Object {
            for (name, value) in fields.iter_mut() {
                if DataKind::of(value).is_some() {
                    let Value::Object(map) = std::mem::take(value) else {
                        continue;
                    };
                    let (header, payload) = data::split_property(name, map)?;
                    *value = Value::Object(header);
                    payloads.push((name.clone(), payload));
                }
            }
        }
        let current = tx.current(coll, &scope, &id)?;
        let body = match (&current, opts.replace) {
            (Some(cur), false) => {
                let mut merged = cur.body.clone();
                for (k, v) in fields {
                    // A data property's header merges like the object's own fields.
                    let merged_header = match (merged.get(&k), &v) {
                        (Some(old @ Value::Object(o)), Value::Object(n))
                            if DataKind::of(old).is_some()
                                && DataKind::of(old) == DataKind::of(&v) =>
                        {
                            let mut h = o.clone();
                            for (hk, hv) in n {
                                h.insert(hk.clone(), hv.clone());
                            }
                            Some(Value::Object(h))
                        }
                        _ => None,
                    };
                    merged.insert(k, merged_header.unwrap_or(v));
                }
                merged
            }
            _ => {
                let mut body = Map::with_capacity(fields.len() + 2);
                body.insert("_id".into(), Value::String(id.clone()));
                body.insert("_type".into(), Value::String(coll.default_type().into()));
                for (k, v) in fields {
                    body.insert(k, v);
                }
                // A replace removes the fields the caller can see and did not send; a data
                // property the caller may not read stays as it was.
                for (k, v) in current.iter().flat_map(|cur| &cur.body) {
                    if hidden_from(p, v) && !body.contains_key(k) {
                        body.insert(k.clone(), v.clone());
                    }
                }
                body
            }
        };
        let body = match coll {
            Collection::ValidationConfig => crate::validation::config::normalise(body)?,
            Collection::Extension => crate::extensions::normalise(body),
            _ => body,
        };
        let body_changed = current.as_ref().is_none_or(|cur| cur.body != body);
        if body_changed {
            self.check_document(tx, p, coll, &body)?;
        }
        let type_name = body
            .get("_type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let versioned = self.is_versioned(tx, p, coll, &type_name)?;
        let version = match &current {
            None => 1,
            Some(cur) if versioned => cur.version + 1,
            Some(cur) => cur.version,
        };
        let key_of = |name: &str| DataKey {
            scope: scope.clone(),
            object: id.clone(),
            prop: name.to_string(),
        };
        let cur_version = current.as_ref().map(|c| c.version);
        let mut data_changes = data::write_payloads(
            tx,
            &key_of,
            &body,
            payloads,
            cur_version,
            version,
            versioned,
            opts,
        )?;
        if let Some(cur) = &current {
            for (name, old) in &cur.body {
                let old_kind = DataKind::of(old);
                if old_kind.is_some() && body.get(name).and_then(DataKind::of) != old_kind {
                    tx.end_data(&key_of(name), version, versioned)?;
                    data_changes.push(data::DataChange {
                        name: name.clone(),
                        ondate: None,
                        times: Vec::new(),
                        replaced: true,
                    });
                }
            }
        }
        if let Some(cur) = &current {
            if !body_changed && data_changes.is_empty() {
                return Ok(cur.clone());
            }
        }
        let stored = StoredVersion {
            id: id.clone(),
            version,
            body,
            timestamp: crate::clock::parse_instant(now)
                .map_err(|e| Error::caused(format!("the time of a save \"{now}\""), e))?,
            user: p.user.clone(),
            reason: opts.reason.clone(),
            tags: match &current {
                Some(cur) if cur.version == version => cur.tags.clone(),
                _ => Vec::new(),
            },
        };
        tx.put_version(coll, &scope, &stored)?;
        tx.set_current(coll, &scope, &id, Some(version))?;
        let action = if current.is_some() {
            "update"
        } else {
            "create"
        };
        if body_changed || current.is_none() {
            let data = || Value::Object(render(&stored, true));
            crate::events::emit_with(tx, p, &scope, coll.as_str(), &id, action, now, data)?;
        }
        for change in &data_changes {
            let event = || crate::events::data_update(&stored, change);
            let data_id = format!("{id}:{}", change.name);
            crate::events::emit_with(tx, p, &scope, "data", &data_id, "update", now, event)?;
        }
        if coll == Collection::ValidationConfig {
            crate::events::automations::sync_owned(tx, p, &id, Some(&stored.body), now)?;
        }
        Ok(stored)
    }

    /// The current version of a document, or one version of it.
    pub fn get(
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
    pub fn versions(
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
        self.write(|tx| {
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

    /// Deletes the latest version, one version, or all of a document.
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
        let at = self.now();
        let now = format_instant(at);
        self.write(|tx| {
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

    /// Lists current documents of a source, paged, with the total before paging. With
    /// `_distinct` the items are the distinct values, with `_searchinfo` they are `{_id, name}`.
    pub fn list(
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
    pub fn get_many(
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
    pub fn audit(
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

/// Names a value's JSON kind for messages.
pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn prefix_item(e: Error, index: usize) -> Error {
    match e {
        Error::User { code, message } => Error::User {
            code,
            message: format!("item {index}: {message}; nothing was stored"),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests;
