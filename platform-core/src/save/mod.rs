//! Saving documents, with everything a save sets off: one or an array in one transaction;
//! each checked by the rules of its collection (`checks`), merged with the current version or
//! replacing it, its data properties' payloads written apart, versioned or overwritten in
//! place, its type's indexes and retention applied (`retention`), with its events; and the
//! other changes of versions (`change`: tags, rollbacks, deletes).
//!
//! This is the top of the engine: a save reaches the data, type, calendar, script, validation,
//! extension and event services, and none of them reaches back here by import.
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
mod change;
mod checks;
pub mod csv_import;
#[cfg(test)]
mod import_tests;
mod retention;
#[cfg(test)]
mod tests;

use crate::auth::Principal;
use crate::clock::format_instant;
use crate::data::{self, DataKind};
use crate::documents::access::require_write;
use crate::documents::render::{hidden_from, render, render_owned, visible};
use crate::documents::Objects;
use crate::documents::{SaveOptions, PLATFORM_FIELDS, SYSTEM_FIELDS};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{validate_id, Scope, Source};
use crate::json::json_kind;
use crate::store::{Ahead, Collection, DataKey, Hold, StoredVersion, WriteTx};
use serde_json::{Map, Value};

impl Objects<'_> {
    /// JSON: saves one document (a JSON object) or several (an array) in one transaction.
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
        let saved = self.save_items(p, coll, items, is_array, opts, |stored, changes| {
            let id = stored.id.clone();
            let mut answer = visible(p, coll, render_owned(stored, true));
            data::note_replaced_curves(&mut answer, &id, &changes);
            Value::Object(answer)
        })?;
        Ok(if is_array {
            Value::Array(saved)
        } else {
            saved.into_iter().next().unwrap_or(Value::Null)
        })
    }

    /// [`Objects::save`] of one document (a JSON object), answering the number of the version
    /// stored (the current one when nothing differed) rather than the rendered document.
    pub(crate) fn save_version(
        &self,
        p: &Principal,
        coll: Collection,
        item: Value,
        opts: &SaveOptions,
    ) -> Result<u32> {
        let saved =
            self.save_items(p, coll, vec![item], false, opts, |stored, _| stored.version)?;
        saved
            .into_iter()
            .next()
            .ok_or_else(|| Error::Internal("a save of one document stored none".into()))
    }

    /// Saves `items` in one transaction, each answered by `answer` (from what was stored and
    /// what the save changed in its data); an error of one item of an array names it.
    fn save_items<T>(
        &self,
        p: &Principal,
        coll: Collection,
        items: Vec<Value>,
        is_array: bool,
        opts: &SaveOptions,
        answer: impl Fn(StoredVersion, Vec<data::DataChange>) -> T,
    ) -> Result<Vec<T>> {
        let now = format_instant(self.platform.now());
        let mut items = crate::EachTry::new(self.platform, items);
        self.platform.write(|tx| {
            let items = items.get()?;
            // Every document of the body held at once, in one order (two arrays that share
            // documents never wait for each other).
            let keys: Vec<(Scope, String)> = items
                .iter()
                .filter_map(|item| document_key(p, coll, item, opts))
                .collect();
            let holds: Vec<Hold<'_>> = keys
                .iter()
                .map(|(scope, id)| Hold::Document(coll, scope, id))
                .collect();
            tx.hold(&holds)?;
            read_ahead(tx, p, coll, &items, opts)?;
            let mut saved = Vec::with_capacity(items.len());
            for (index, item) in items.into_iter().enumerate() {
                let at = |e: Error| if is_array { prefix_item(e, index) } else { e };
                let (stored, changes) = self
                    .save_one_noting(tx, p, coll, item, opts, &now, Vec::new())
                    .map_err(at)?;
                saved.push(answer(stored, changes));
            }
            Ok(saved)
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
        self.save_one_noting(tx, p, coll, item, opts, now, typed)
            .map(|(stored, _)| stored)
    }

    /// [`Objects::save_one`], with what the save changed in the document's data (for an
    /// answer that says what a curve write replaced: `data::note_replaced_curves`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn save_one_noting(
        &self,
        tx: &mut dyn WriteTx,
        p: &Principal,
        coll: Collection,
        item: Value,
        opts: &SaveOptions,
        now: &str,
        typed: Vec<(String, data::DataPayload)>,
    ) -> Result<(StoredVersion, Vec<data::DataChange>)> {
        let Value::Object(mut fields) = item else {
            return Err(Error::invalid_body(format!(
                "each item must be a JSON object, not {}",
                json_kind(&item)
            )));
        };
        let id = item_id(coll, &fields)?;
        let scope = Scope::for_source(home_source(coll, &id, opts)?, p);
        require_write(p, coll, &scope)?;
        strip_fields(&mut fields)?;
        let payloads = split_payloads(coll, &mut fields, typed)?;
        tx.hold(&[Hold::Document(coll, &scope, &id)])?;
        let current = tx.current(coll, &scope, &id)?;
        let body = match (&current, opts.replace) {
            (Some(cur), false) => merged(&cur.body, fields),
            _ => replaced(p, coll, &id, current.as_ref(), fields),
        };
        let body = normalised(coll, body)?;
        let body_changed = current.as_ref().is_none_or(|cur| cur.body != body);
        if body_changed {
            self.check_document(tx, p, coll, &body)?;
        }
        let type_name = body
            .get("_type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        // The type's rules, read before the write (a save of an object never changes its
        // type's definition).
        let rules = self.platform.version_rules(tx, p, coll, &type_name)?;
        let versioned = rules.versioned;
        let version = match &current {
            None => 1,
            Some(cur) if versioned => cur.version + 1,
            Some(cur) => cur.version,
        };
        let target = Target {
            scope: &scope,
            id: &id,
            current: current.as_ref(),
            version,
            versioned,
        };
        let data_changes = write_data(tx, p, &target, &body, payloads, opts)?;
        if let Some(cur) = &current {
            if !body_changed && data_changes.is_empty() {
                return Ok((cur.clone(), data_changes));
            }
        }
        let stored = target.stored(p, body, opts, now)?;
        tx.put_current(coll, &scope, &stored, current.as_ref().map(|c| c.version))?;
        if coll == Collection::Type {
            crate::types::sync_type_indexes(tx, &scope, &id)?;
        }
        if let Some(policy) = rules.retention {
            // The type's retention policy, in the save's own transaction.
            retention::prune_versions(tx, p, coll, &scope, &id, &policy, stored.timestamp)?;
        }
        let change = Saved {
            scope: &scope,
            coll,
            stored: &stored,
            created: current.is_none(),
            body_changed,
            data_changes: &data_changes,
        };
        change.emit(tx, p, now)?;
        Ok((stored, data_changes))
    }
}

/// The document a save writes: where it lives, its current version, and the version the save
/// stores (a new number, or the current one rewritten in place for an unversioned type).
struct Target<'a> {
    scope: &'a Scope,
    id: &'a str,
    current: Option<&'a StoredVersion>,
    version: u32,
    versioned: bool,
}

impl Target<'_> {
    /// The key of one of its data properties.
    fn data_key(&self, name: &str) -> DataKey {
        DataKey {
            scope: self.scope.clone(),
            object: self.id.to_string(),
            prop: name.to_string(),
        }
    }

    /// The version to store: `body`, written by `p` at `now` (a version rewritten in place
    /// keeps its tags).
    fn stored(
        &self,
        p: &Principal,
        body: Map<String, Value>,
        opts: &SaveOptions,
        now: &str,
    ) -> Result<StoredVersion> {
        Ok(StoredVersion {
            id: self.id.to_string(),
            version: self.version,
            body,
            timestamp: crate::clock::parse_instant(now)
                .map_err(|e| Error::caused(format!("the time of a save \"{now}\""), e))?,
            user: p.user.clone(),
            reason: opts.reason.clone(),
            tags: match self.current {
                Some(cur) if cur.version == self.version => cur.tags.clone(),
                _ => Vec::new(),
            },
        })
    }
}

/// Writes the data payloads of a save at the target's version, and ends the data of every
/// data property the new body drops (or that is no longer of its kind); what changed.
fn write_data(
    tx: &mut dyn WriteTx,
    p: &Principal,
    target: &Target<'_>,
    body: &Map<String, Value>,
    payloads: Vec<(String, data::DataPayload)>,
    opts: &SaveOptions,
) -> Result<Vec<data::DataChange>> {
    let cur_version = target.current.map(|c| c.version);
    let refs = data::CalendarRefs::load(tx, p, body, &payloads)?;
    let mut data_changes = data::write_payloads(
        tx,
        &|name| target.data_key(name),
        body,
        payloads,
        cur_version,
        target.version,
        target.versioned,
        opts,
        &refs,
    )?;
    if let Some(cur) = target.current {
        // A data property removed, or no longer of its kind: its data ends here.
        for name in dropped_data(&cur.body, body) {
            tx.end_data(&target.data_key(&name), target.version, target.versioned)?;
            data_changes.push(data::DataChange {
                name,
                ondate: None,
                times: None,
                replaced: true,
                curve: None,
            });
        }
    }
    Ok(data_changes)
}

/// Names ahead what the saves of `items` (under `keys`) read: each document, the type
/// definitions the items name, and the automations their events may reach (a store a network
/// away reads them all in one round trip, with the holds).
fn read_ahead(
    tx: &mut dyn WriteTx,
    p: &Principal,
    coll: Collection,
    items: &[Value],
    opts: &SaveOptions,
) -> Result<()> {
    // Each item's key, and whether it names its type.
    let keys: Vec<(Scope, String, bool)> = items
        .iter()
        .filter_map(|item| {
            let (scope, id) = document_key(p, coll, item, opts)?;
            Some((scope, id, item.get("_type").is_some_and(Value::is_string)))
        })
        .collect();
    let mut types: Vec<(Scope, &str)> = match coll {
        Collection::Object => items
            .iter()
            .filter_map(|item| item.get("_type").and_then(Value::as_str))
            .filter(|t| validate_id(t, "_type").is_ok())
            .map(|t| (Scope::for_source(Source::of_id(t), p), t))
            .collect(),
        _ => Vec::new(),
    };
    // An object that names no type and has none stored takes the default one, whose definition
    // its save reads.
    let default = coll.default_type();
    if coll == Collection::Object
        && keys.iter().any(|(_, _, typed)| !typed)
        && !types.iter().any(|(_, t)| *t == default)
    {
        types.push((Scope::for_source(Source::of_id(default), p), default));
    }
    let mut ahead: Vec<Ahead<'_>> = keys
        .iter()
        .map(|(scope, id, _)| Ahead::Document(coll, scope, id))
        .collect();
    ahead.extend(
        types
            .iter()
            .map(|(scope, t)| Ahead::Document(Collection::Type, scope, t)),
    );
    // An object merged without its `_type`: the type its stored version names.
    let type_scopes = [Scope::public(), p.private_scope()];
    if coll == Collection::Object {
        for (scope, id, _) in keys.iter().filter(|(_, _, typed)| !typed) {
            ahead.push(Ahead::TypeOf(coll, scope, id, &type_scopes));
        }
    }
    // Each scope's automations once (a save of 1,000 objects has one scope, seldom more).
    let mut automations: Vec<Option<&Scope>> = Vec::new();
    for (scope, _, _) in &keys {
        let of = (!scope.is_public()).then_some(scope);
        if !automations.contains(&of) {
            automations.push(of);
            ahead.push(Ahead::Automations(of));
        }
    }
    tx.read_ahead(&ahead)
}

/// The scope and id a body item would be saved under, where it names them well (an item that
/// does not fails in its save).
fn document_key(
    p: &Principal,
    coll: Collection,
    item: &Value,
    opts: &SaveOptions,
) -> Option<(Scope, String)> {
    let id = item_id(coll, item.as_object()?).ok()?;
    let scope = Scope::for_source(home_source(coll, &id, opts).ok()?, p);
    Some((scope, id))
}

/// The `_id` of an item: a string, following the id rules (a validation configuration's is a
/// data id without an ondate).
fn item_id(coll: Collection, fields: &Map<String, Value>) -> Result<String> {
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
    Ok(id)
}

/// A body with the defaults and rules of its collection applied (validation configurations,
/// extensions).
fn normalised(coll: Collection, body: Map<String, Value>) -> Result<Map<String, Value>> {
    Ok(match coll {
        Collection::ValidationConfig => crate::validation::config::normalise(body)?,
        Collection::Extension => crate::extensions::normalise(body),
        _ => body,
    })
}

/// Drops the fields only the platform writes, and checks `_type`.
fn strip_fields(fields: &mut Map<String, Value>) -> Result<()> {
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
    Ok(())
}

/// Data properties: the header stays on the object, the payload is written apart (after
/// those already parsed, `typed`).
fn split_payloads(
    coll: Collection,
    fields: &mut Map<String, Value>,
    typed: Vec<(String, data::DataPayload)>,
) -> Result<Vec<(String, data::DataPayload)>> {
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
    Ok(payloads)
}

/// The data properties of the current body that the new body drops or changes the kind of.
fn dropped_data(current: &Map<String, Value>, body: &Map<String, Value>) -> Vec<String> {
    current
        .iter()
        .filter(|(name, old)| {
            let old_kind = DataKind::of(old);
            old_kind.is_some() && body.get(*name).and_then(DataKind::of) != old_kind
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// The source a document lives in: its id's (`#` public, else private) or the one in the
/// path; an id sent to the other source is refused.
pub(crate) fn home_source(coll: Collection, id: &str, opts: &SaveOptions) -> Result<Source> {
    let home = if coll.sourced_by_hash() {
        Source::of_id(id)
    } else {
        opts.source.unwrap_or(Source::Private)
    };
    if opts.source == Some(Source::All) {
        return Err(Error::invalid_parameter(
            "cannot write to the all source: use public or private",
        ));
    }
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
    Ok(home)
}

/// A merge: each top-level field sent replaces the stored one; a data property's header
/// merges like the object's own fields.
fn merged(current: &Map<String, Value>, fields: Map<String, Value>) -> Map<String, Value> {
    let mut merged = current.clone();
    for (k, v) in fields {
        // A data property's header merges like the object's own fields.
        let merged_header = match (merged.get(&k), &v) {
            (Some(old @ Value::Object(o)), Value::Object(n))
                if DataKind::of(old).is_some() && DataKind::of(old) == DataKind::of(&v) =>
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

/// A new document, or a replace: exactly the fields sent (with `_id` and a default `_type`),
/// keeping the data properties the caller may not read.
fn replaced(
    p: &Principal,
    coll: Collection,
    id: &str,
    current: Option<&StoredVersion>,
    fields: Map<String, Value>,
) -> Map<String, Value> {
    let mut keys = fields.keys().map(String::as_str);
    let (first, second) = (keys.next(), keys.next());
    let mut body = if first == Some("_id") && second == Some("_type") {
        // Already `_id` first and `_type` second (as most items are sent): kept as it is.
        fields
    } else if first == Some("_id") && !fields.contains_key("_type") {
        let mut body = fields;
        body.shift_insert(1, "_type".into(), Value::String(coll.default_type().into()));
        body
    } else {
        let mut body = Map::with_capacity(fields.len() + 2);
        body.insert("_id".into(), Value::String(id.to_string()));
        body.insert("_type".into(), Value::String(coll.default_type().into()));
        for (k, v) in fields {
            body.insert(k, v);
        }
        body
    };
    // A replace removes the fields the caller can see and did not send; a data
    // property the caller may not read stays as it was.
    for (k, v) in current.iter().flat_map(|cur| &cur.body) {
        if hidden_from(p, v) && !body.contains_key(k) {
            body.insert(k.clone(), v.clone());
        }
    }
    body
}

/// A stored save, for its events.
struct Saved<'a> {
    scope: &'a Scope,
    coll: Collection,
    stored: &'a StoredVersion,
    /// No version existed before.
    created: bool,
    body_changed: bool,
    data_changes: &'a [data::DataChange],
}

impl Saved<'_> {
    /// The document's event (when it changed), one per data change, and, for a validation
    /// configuration, its owned automations brought in line.
    fn emit(&self, tx: &mut dyn WriteTx, p: &Principal, now: &str) -> Result<()> {
        let (scope, coll, stored) = (self.scope, self.coll, self.stored);
        let id = &stored.id;
        let action = if !self.created { "update" } else { "create" };
        if self.body_changed || self.created {
            let data = || Value::Object(render(stored, true));
            crate::events::emit_with(tx, p, scope, coll.as_str(), id, action, now, data)?;
        }
        for change in self.data_changes {
            let event = || crate::events::data_update(stored, change);
            let data_id = format!("{id}:{}", change.name);
            crate::events::emit_with(tx, p, scope, "data", &data_id, "update", now, event)?;
        }
        if coll == Collection::ValidationConfig {
            crate::events::automations::sync_owned(tx, p, id, Some(&stored.body), now)?;
        }
        Ok(())
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
