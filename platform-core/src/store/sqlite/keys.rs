//! The small integer key of each collection and scope (`scopes`, see `layout`), which the rows
//! and indexes of the document tables carry. A key is made inside the write transaction that
//! first needs it (`INSERT OR IGNORE`, then read back: another process on the same file makes
//! it the same way) and never changes once committed; the store remembers the keys it has seen
//! committed. A read of a scope without a key finds nothing, and writes nothing.
//!
//! Each value of a current row's type has its key alike (`type_keys`), made by the write that
//! first stores it: a filter on `_type` writes the keys of its types in its statement (a type
//! without one matches nothing), as a per-type index's WHERE says its type.

use super::{Db, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::Collection;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashMap;
use std::sync::Mutex;

/// A key no scope has (SQLite numbers the keys from 1).
pub(super) const NO_KEY: i64 = 0;

/// A collection and scope, or a type, as keyed.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) enum Named {
    Scope(&'static str, String, String),
    Type(String),
}

impl Named {
    fn scope(coll: Collection, scope: &Scope) -> Named {
        Named::Scope(coll.as_str(), scope.tenant.clone(), scope.env.clone())
    }
}

/// The keys of types, by type (a type without a key is not in it).
pub(crate) type TypeKeys = HashMap<String, i64>;

/// The keys a store has seen committed.
#[derive(Default)]
pub(super) struct Keys(Mutex<HashMap<Named, i64>>);

impl Keys {
    fn known(&self, named: &Named) -> Option<i64> {
        let keys = self.0.lock().unwrap_or_else(|e| e.into_inner());
        keys.get(named).copied()
    }

    /// Remembers keys seen committed.
    pub(super) fn remember(&self, seen: impl IntoIterator<Item = (Named, i64)>) {
        let mut keys = self.0.lock().unwrap_or_else(|e| e.into_inner());
        keys.extend(seen);
    }
}

/// The key of a collection and scope, or of a type, as stored, if it has one (read on `conn`).
fn stored_key(conn: &Connection, named: &Named) -> Result<Option<i64>> {
    match named {
        Named::Scope(coll, tenant, env) => conn
            .prepare_cached("SELECT sk FROM scopes WHERE coll = ?1 AND tenant = ?2 AND env = ?3")
            .db()?
            .query_row(params![coll, tenant, env], |r| r.get(0)),
        Named::Type(name) => conn
            .prepare_cached("SELECT tk FROM type_keys WHERE type = ?1")
            .db()?
            .query_row([name], |r| r.get(0)),
    }
    .optional()
    .db()
}

/// The keys of the types a filter names (`_type`), as stored (read on `conn`): for plans.
#[cfg(test)]
pub(crate) fn stored_type_keys(conn: &Connection, filter: &crate::query::Filter) -> TypeKeys {
    let mut out = TypeKeys::new();
    for name in filter_types(filter) {
        if let Some(key) = stored_key(conn, &Named::Type(name.clone())).unwrap() {
            out.insert(name, key);
        }
    }
    out
}

/// The types a filter names (`_type`), anywhere in it.
fn filter_types(filter: &crate::query::Filter) -> Vec<String> {
    use crate::query::Filter;
    let mut out = Vec::new();
    let mut stack = vec![filter];
    while let Some(f) = stack.pop() {
        match f {
            Filter::And(parts) | Filter::Or(parts) => stack.extend(parts),
            Filter::Not(inner) => stack.push(inner),
            Filter::TypeIn(types) => out.extend(types.iter().cloned()),
            _ => {}
        }
    }
    out
}

/// The key of a collection and scope, read on a connection outside a transaction or in a read
/// transaction (what it sees is committed): remembered.
pub(super) fn committed_key(
    conn: &Connection,
    keys: &Keys,
    coll: Collection,
    scope: &Scope,
) -> Result<Option<i64>> {
    let named = Named::scope(coll, scope);
    if let Some(key) = keys.known(&named) {
        return Ok(Some(key));
    }
    let key = stored_key(conn, &named)?;
    if let Some(key) = key {
        keys.remember([(named, key)]);
    }
    Ok(key)
}

impl Tx<'_> {
    /// The key of a collection and scope, if it has one. A write transaction keeps the keys it
    /// reads (which may be its own, not yet committed) until it commits.
    pub(super) fn scope_key(&self, coll: Collection, scope: &Scope) -> Result<Option<i64>> {
        self.key(Named::scope(coll, scope))
    }

    /// The key of a collection and scope or of a type, if it has one.
    fn key(&self, named: Named) -> Result<Option<i64>> {
        if let Some(key) = self.keys.known(&named) {
            return Ok(Some(key));
        }
        if self.store.is_none() {
            // (What a read transaction sees is committed.)
            let key = stored_key(&self.conn, &named)?;
            if let Some(key) = key {
                self.keys.remember([(named, key)]);
            }
            return Ok(key);
        }
        if let Some((_, key)) = self.seen_keys.borrow().iter().find(|(n, _)| *n == named) {
            return Ok(Some(*key));
        }
        let key = stored_key(&self.conn, &named)?;
        if let Some(key) = key {
            self.seen_keys.borrow_mut().push((named, key));
        }
        Ok(key)
    }

    /// The keys of the types a filter names, those that have one.
    pub(super) fn type_keys(&self, filter: &crate::query::Filter) -> Result<TypeKeys> {
        let mut out = TypeKeys::new();
        for name in filter_types(filter) {
            if let Some(key) = self.key(Named::Type(name.clone()))? {
                out.insert(name, key);
            }
        }
        Ok(out)
    }

    /// The key of a type, made if it has none yet (in a write transaction).
    pub(super) fn make_type_key(&self, name: &str) -> Result<i64> {
        let named = Named::Type(name.to_string());
        if let Some(key) = self.key(named.clone())? {
            return Ok(key);
        }
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO type_keys (type) VALUES (?1)")
            .db()?
            .execute([name])
            .db()?;
        self.key(named)?
            .ok_or_else(|| Error::Internal(format!("no key made for the type {name:?}")))
    }

    /// The keys of scopes, in order: [`NO_KEY`] for those without one (which hold nothing:
    /// a list of them reads nothing, but its statement is made, and refused alike if SQLite
    /// refuses it).
    pub(super) fn scope_keys(&self, coll: Collection, scopes: &[Scope]) -> Result<Vec<i64>> {
        let mut out = Vec::with_capacity(scopes.len());
        for scope in scopes {
            let key = self.scope_key(coll, scope)?.unwrap_or(NO_KEY);
            if !out.contains(&key) {
                out.push(key);
            }
        }
        Ok(out)
    }

    /// The key of a collection and scope, made if it has none yet (in a write transaction).
    pub(super) fn make_scope_key(&self, coll: Collection, scope: &Scope) -> Result<i64> {
        if let Some(key) = self.scope_key(coll, scope)? {
            return Ok(key);
        }
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO scopes (coll, tenant, env) VALUES (?1, ?2, ?3)")
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env])
            .db()?;
        self.scope_key(coll, scope)?
            .ok_or_else(|| Error::Internal(format!("no key made for the scope {scope:?}")))
    }

    /// After a commit: the keys this transaction read are committed.
    pub(super) fn keys_committed(&self) {
        self.keys.remember(self.seen_keys.borrow_mut().drain(..));
    }
}

/// Keys read in a write transaction, kept until it commits.
pub(super) type SeenKeys = std::cell::RefCell<Vec<(Named, i64)>>;
