//! Secrets (`secrets`): metadata as JSON text, the value sealed.

use super::{json_map, json_text, stored_time, time_text, Db, Tx};
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{SecretRead, SecretRow, SecretWrite};
use rusqlite::{params, OptionalExtension};

fn secret_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<SecretRow>> {
    let meta: String = row.get(1)?;
    let id: String = row.get(0)?;
    let nonce: Vec<u8> = row.get(2)?;
    let ciphertext: Vec<u8> = row.get(3)?;
    let updated: String = row.get(4)?;
    let user: String = row.get(5)?;
    let what = format!("secret {id}");
    Ok(json_map(&meta, &what).and_then(|meta| {
        Ok(SecretRow {
            updated: stored_time(&updated, &what)?,
            id,
            meta,
            nonce,
            ciphertext,
            user,
        })
    }))
}

impl SecretRead for Tx<'_> {
    fn secret(&self, scope: &Scope, id: &str) -> Result<Option<SecretRow>> {
        self.conn
            .prepare_cached(
                "SELECT id, meta, nonce, ciphertext, updated, user FROM secrets WHERE tenant = ?1 AND env = ?2 AND id = ?3",
            )
            .db()?
            .query_row(params![scope.tenant, scope.env, id], secret_row)
            .optional()
            .db()?
            .transpose()
    }

    fn secrets(&self, scope: &Scope) -> Result<Vec<SecretRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, meta, nonce, ciphertext, updated, user FROM secrets WHERE tenant = ?1 AND env = ?2 ORDER BY id",
            )
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env], secret_row)
            .db()?;
        rows.map(|r| r.db().and_then(|x| x)).collect()
    }
}

impl SecretWrite for Tx<'_> {
    fn put_secret(&mut self, scope: &Scope, row: &SecretRow) -> Result<()> {
        self.holds
            .require(crate::store::Hold::Secret(scope, &row.id))?;
        let meta = json_text(&row.meta, "the metadata of a secret")?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO secrets (tenant, env, id, meta, nonce, ciphertext, updated, user) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .db()?
            .execute(params![scope.tenant, scope.env, row.id, meta, row.nonce, row.ciphertext, time_text(row.updated), row.user])
            .db()?;
        Ok(())
    }

    fn delete_secret(&mut self, scope: &Scope, id: &str) -> Result<bool> {
        self.holds.require(crate::store::Hold::Secret(scope, id))?;
        self.delete_scoped("secrets", scope, id)
    }
}
