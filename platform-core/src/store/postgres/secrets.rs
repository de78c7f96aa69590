//! Secrets (`secrets`): metadata as JSON text, the value sealed.

use super::{get, json_map, json_text, Tx};
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{SecretRead, SecretRow, SecretWrite};
use tokio_postgres::Row;

fn secret_row(row: &Row) -> Result<SecretRow> {
    let id: String = get(row, 0)?;
    let meta: String = get(row, 1)?;
    Ok(SecretRow {
        meta: json_map(&meta, &format!("secret {id}"))?,
        id,
        nonce: get(row, 2)?,
        ciphertext: get(row, 3)?,
        updated: get(row, 4)?,
        user: get(row, 5)?,
    })
}

impl SecretRead for Tx<'_> {
    fn secret(&self, scope: &Scope, id: &str) -> Result<Option<SecretRow>> {
        self.query_opt(
            "SELECT id, meta, nonce, ciphertext, updated, \"user\" FROM secrets WHERE tenant = $1 AND env = $2 AND id = $3",
            &[&scope.tenant, &scope.env, &id],
        )?
        .map(|r| secret_row(&r))
        .transpose()
    }

    fn secrets(&self, scope: &Scope) -> Result<Vec<SecretRow>> {
        self.query(
            "SELECT id, meta, nonce, ciphertext, updated, \"user\" FROM secrets WHERE tenant = $1 AND env = $2 ORDER BY id",
            &[&scope.tenant, &scope.env],
        )?
        .iter()
        .map(secret_row)
        .collect()
    }
}

impl SecretWrite for Tx<'_> {
    fn put_secret(&mut self, scope: &Scope, row: &SecretRow) -> Result<()> {
        self.holds
            .require(crate::store::Hold::Secret(scope, &row.id))?;
        let meta = json_text(&row.meta, "the metadata of a secret")?;
        self.defer(
            "INSERT INTO secrets (tenant, env, id, meta, nonce, ciphertext, updated, \"user\") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (tenant, env, id) DO UPDATE SET \
             meta = excluded.meta, nonce = excluded.nonce, ciphertext = excluded.ciphertext, \
             updated = excluded.updated, \"user\" = excluded.\"user\"",
            vec![
                Box::new((scope.tenant).to_owned()),
                Box::new((scope.env).to_owned()),
                Box::new((row.id).to_owned()),
                Box::new((meta).to_owned()),
                Box::new((row.nonce).to_owned()),
                Box::new((row.ciphertext).to_owned()),
                Box::new((row.updated).to_owned()),
                Box::new((row.user).to_owned()),
            ],
        );
        Ok(())
    }

    fn delete_secret(&mut self, scope: &Scope, id: &str) -> Result<bool> {
        self.holds.require(crate::store::Hold::Secret(scope, id))?;
        self.delete_scoped("secrets", scope, id)
    }
}
