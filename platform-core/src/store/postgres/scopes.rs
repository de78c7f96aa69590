//! The keys of scopes of documents (`scopes`: a collection, tenant and environment as a small
//! integer). A key is made by the first write into its scope, inside the write's transaction
//! (an insert that does nothing where the row exists, then the row read back), so servers
//! making the same scope at once make one row. Keys found by reads are kept for the store's
//! life, once committed: a write transaction does not keep the keys it made itself.

use super::pool::Conn;
use super::{get, Tx};
use crate::error::Result;
use crate::ids::Scope;
use crate::store::Collection;

/// Makes the key of a scope where it has none, on a connection in a transaction; its key.
pub(super) fn make_key(conn: &mut Conn<'_>, coll: Collection, scope: &Scope) -> Result<i32> {
    conn.query(MAKE, &[&coll.as_str(), &scope.tenant, &scope.env])?;
    let rows = conn.query(KEY, &[&coll.as_str(), &scope.tenant, &scope.env])?;
    match rows.first() {
        Some(row) => get(row, 0),
        None => Err(crate::Error::Internal("a scope made has no key".into())),
    }
}

/// Makes the key of one scope (nothing where it has one).
const MAKE: &str = "INSERT INTO scopes (coll, tenant, env) SELECT $1::text, $2::text, $3::text \
     WHERE NOT EXISTS (SELECT 1 FROM scopes WHERE coll = $1 AND tenant = $2 AND env = $3) \
     ON CONFLICT DO NOTHING RETURNING key";

/// The key of one scope.
const KEY: &str = "SELECT key FROM scopes WHERE coll = $1 AND tenant = $2 AND env = $3";

pub(super) use super::gathered::KEY_OF_PARAMS;

impl Tx<'_> {
    /// The keys of those of the scopes that have one, in their order.
    pub(super) fn scope_keys(&self, coll: Collection, scopes: &[Scope]) -> Result<Vec<i32>> {
        let name = |s: &Scope| (coll, s.tenant.clone(), s.env.clone());
        let mut missing: Vec<&Scope> = Vec::new();
        {
            let known = self.shared.scope_keys();
            for s in scopes {
                if !known.contains_key(&name(s)) {
                    missing.push(s);
                }
            }
        }
        if !missing.is_empty() {
            let tenants: Vec<String> = missing.iter().map(|s| s.tenant.clone()).collect();
            let envs: Vec<String> = missing.iter().map(|s| s.env.clone()).collect();
            let rows = self.query(
                "SELECT s.key, s.tenant, s.env FROM scopes s JOIN unnest($2::text[], $3::text[]) \
                 AS u(t, e) ON s.tenant = u.t AND s.env = u.e WHERE s.coll = $1",
                &[&coll.as_str(), &tenants, &envs],
            )?;
            let mut local = self.cache.borrow_mut();
            for row in &rows {
                let (key, tenant, env): (i32, String, String) =
                    (get(row, 0)?, get(row, 1)?, get(row, 2)?);
                let n = (coll, tenant, env);
                if local.made_scopes.contains(&n) {
                    local.own_scopes.insert(n, key);
                } else {
                    self.shared.scope_keys().insert(n, key);
                }
            }
        }
        let known = self.shared.scope_keys();
        let local = self.cache.borrow();
        Ok(scopes
            .iter()
            .filter_map(|s| {
                let n = name(s);
                known.get(&n).or_else(|| local.own_scopes.get(&n)).copied()
            })
            .collect())
    }

    /// The key of a scope, made where it has none (a write; sent at once).
    pub(super) fn make_scope_key(&mut self, coll: Collection, scope: &Scope) -> Result<i32> {
        let n = (coll, scope.tenant.clone(), scope.env.clone());
        if let Some(key) = self.shared.scope_keys().get(&n) {
            return Ok(*key);
        }
        let made = self.query(MAKE, &[&coll.as_str(), &scope.tenant, &scope.env])?;
        let key: i32 = get(
            &self.query_one(KEY, &[&coll.as_str(), &scope.tenant, &scope.env])?,
            0,
        )?;
        if made.is_empty() && !self.cache.borrow().made_scopes.contains(&n) {
            self.shared.scope_keys().insert(n, key);
        } else {
            let mut cache = self.cache.borrow_mut();
            cache.made_scopes.insert(n.clone());
            cache.own_scopes.insert(n, key);
        }
        Ok(key)
    }

    /// Has the rows gathered next make the key of a scope a write needs, unless it is known.
    pub(super) fn note_scope(&self, coll: Collection, scope: &Scope) {
        let n = (coll, scope.tenant.clone(), scope.env.clone());
        if self.shared.scope_keys().contains_key(&n) || self.shared.scopes_made().contains(&n) {
            return;
        }
        let mut cache = self.cache.borrow_mut();
        if cache.made_scopes.insert(n.clone()) {
            self.rows.borrow_mut().scopes.push(n);
        }
    }
}
