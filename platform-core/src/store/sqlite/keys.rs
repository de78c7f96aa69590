//! The small integer key of each collection and scope (`scopes`, see `layout`), which the rows
//! and indexes of the document tables carry. A key is made inside the write transaction that
//! first needs it (`INSERT OR IGNORE`, then read back: another process on the same file makes
//! it the same way) and never changes once committed; the store remembers the keys it has seen
//! committed. A read of a scope without a key finds nothing, and writes nothing.

use super::{Db, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::Collection;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashMap;
use std::sync::Mutex;

/// A key no scope has (SQLite numbers the keys from 1).
pub(super) const NO_KEY: i64 = 0;

/// A collection and scope, as keyed.
type Named = (&'static str, String, String);

/// The keys a store has seen committed.
#[derive(Default)]
pub(super) struct Keys(Mutex<HashMap<Named, i64>>);

impl Keys {
    fn known(&self, coll: Collection, scope: &Scope) -> Option<i64> {
        let keys = self.0.lock().unwrap_or_else(|e| e.into_inner());
        keys.get(&(coll.as_str(), scope.tenant.clone(), scope.env.clone()))
            .copied()
    }

    /// Remembers keys seen committed.
    pub(super) fn remember(&self, seen: impl IntoIterator<Item = (Named, i64)>) {
        let mut keys = self.0.lock().unwrap_or_else(|e| e.into_inner());
        keys.extend(seen);
    }
}

/// The key of a collection and scope as stored, if it has one (read on `conn`).
fn stored_key(conn: &Connection, coll: Collection, scope: &Scope) -> Result<Option<i64>> {
    conn.prepare_cached("SELECT sk FROM scopes WHERE coll = ?1 AND tenant = ?2 AND env = ?3")
        .db()?
        .query_row(params![coll.as_str(), scope.tenant, scope.env], |r| {
            r.get(0)
        })
        .optional()
        .db()
}

/// The key of a collection and scope, read on a connection outside a transaction or in a read
/// transaction (what it sees is committed): remembered.
pub(super) fn committed_key(
    conn: &Connection,
    keys: &Keys,
    coll: Collection,
    scope: &Scope,
) -> Result<Option<i64>> {
    if let Some(key) = keys.known(coll, scope) {
        return Ok(Some(key));
    }
    let key = stored_key(conn, coll, scope)?;
    if let Some(key) = key {
        keys.remember([(
            (coll.as_str(), scope.tenant.clone(), scope.env.clone()),
            key,
        )]);
    }
    Ok(key)
}

impl Tx<'_> {
    /// The key of a collection and scope, if it has one. A write transaction keeps the keys it
    /// reads (which may be its own, not yet committed) until it commits.
    pub(super) fn scope_key(&self, coll: Collection, scope: &Scope) -> Result<Option<i64>> {
        if self.store.is_none() {
            return committed_key(&self.conn, self.keys, coll, scope);
        }
        if let Some(key) = self.keys.known(coll, scope) {
            return Ok(Some(key));
        }
        let named = (coll.as_str(), scope.tenant.clone(), scope.env.clone());
        if let Some((_, key)) = self.seen_keys.borrow().iter().find(|(n, _)| *n == named) {
            return Ok(Some(*key));
        }
        let key = stored_key(&self.conn, coll, scope)?;
        if let Some(key) = key {
            self.seen_keys.borrow_mut().push((named, key));
        }
        Ok(key)
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
