//! Tenants, environments, users, grants and tokens.

use super::{stored_time, time_text, Db, Tx};
use crate::auth::{Grant, Role};
use crate::error::{Error, Result};
use crate::store::{
    Environment, TenancyRead, TenancyWrite, TokenListing, TokenRecord, TokenSelector,
};
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

impl TenancyRead for Tx<'_> {
    fn tenant_count(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT count(*) FROM tenants", [], |r| r.get(0))
            .db()
    }

    fn users_with_role(&self, role: Role) -> Result<u64> {
        self.conn
            .prepare_cached("SELECT count(*) FROM users WHERE role = ?1")
            .db()?
            .query_row(params![role.as_str()], |r| r.get(0))
            .db()
    }

    fn tokens(&self, tenant: Option<&str>) -> Result<Vec<TokenListing>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT substr(t.hash, 1, 12), t.tenant, t.user, u.role, t.created, t.revoked FROM tokens t \
                 JOIN users u ON u.tenant = t.tenant AND u.name = t.user \
                 WHERE ?1 IS NULL OR t.tenant = ?1 ORDER BY t.tenant, t.user, t.created, t.hash",
            )
            .db()?;
        let rows = stmt
            .query_map(params![tenant], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                ))
            })
            .db()?;
        let mut out = Vec::new();
        for row in rows {
            let (id, tenant, user, role, created, revoked) = row.db()?;
            let role: Role = role
                .parse()
                .map_err(|e| Error::caused(format!("stored role of {tenant}/{user}"), e))?;
            let what = format!("a token of {tenant}/{user}");
            out.push(TokenListing {
                created: stored_time(&created, &what)?,
                revoked: revoked.map(|t| stored_time(&t, &what)).transpose()?,
                id,
                tenant,
                user,
                role,
            });
        }
        Ok(out)
    }

    fn environments(&self, tenant: &str) -> Result<Vec<Environment>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT name, created FROM environments WHERE tenant = ?1 ORDER BY name",
            )
            .db()?;
        let rows = stmt
            .query_map(params![tenant], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .db()?;
        rows.map(|r| {
            let (name, created) = r.db()?;
            Ok(Environment {
                created: stored_time(&created, &format!("environment {tenant}/{name}"))?,
                name,
            })
        })
        .collect()
    }

    fn auth_epoch(&self) -> Result<u64> {
        auth_epoch(&self.conn)
    }

    fn environment_exists(&self, tenant: &str, env: &str) -> Result<bool> {
        self.conn
            .prepare_cached("SELECT 1 FROM environments WHERE tenant = ?1 AND name = ?2")
            .db()?
            .exists(params![tenant, env])
            .db()
    }

    fn token(&self, hash: &str) -> Result<Option<TokenRecord>> {
        let row = self
            .conn
            .prepare_cached(
                "SELECT t.tenant, t.user, u.role, t.revoked IS NOT NULL FROM tokens t \
                 JOIN users u ON u.tenant = t.tenant AND u.name = t.user WHERE t.hash = ?1",
            )
            .db()?
            .query_row(params![hash], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, bool>(3)?,
                ))
            })
            .optional()
            .db()?;
        row.map(|(tenant, user, role, revoked)| {
            let role: Role = role
                .parse()
                .map_err(|e| Error::caused(format!("stored role of {tenant}/{user}"), e))?;
            Ok(TokenRecord {
                tenant,
                user,
                role,
                revoked,
            })
        })
        .transpose()
    }

    fn user_exists(&self, tenant: &str, user: &str) -> Result<bool> {
        self.conn
            .prepare_cached("SELECT 1 FROM users WHERE tenant = ?1 AND name = ?2")
            .db()?
            .exists(params![tenant, user])
            .db()
    }

    fn grants(&self, tenant: &str, user: &str) -> Result<Vec<Grant>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT kind, name FROM grants WHERE tenant = ?1 AND user = ?2 ORDER BY kind, name",
            )
            .db()?;
        let rows = stmt
            .query_map(params![tenant, user], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .db()?;
        rows.map(|r| {
            let (kind, name) = r.db()?;
            match kind.as_str() {
                "access" => Ok(Grant::Access(name)),
                "feature" => Ok(Grant::Feature(name)),
                _ => Err(Error::Internal(format!(
                    "stored grant of {tenant}/{user} has kind \"{kind}\""
                ))),
            }
        })
        .collect()
    }
}

impl TenancyWrite for Tx<'_> {
    fn ensure_tenant(&mut self, tenant: &str, now: DateTime<Utc>) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO tenants (name, created) VALUES (?1, ?2)")
            .db()?
            .execute(params![tenant, time_text(now)])
            .db()?;
        self.create_environment(tenant, crate::auth::DEFAULT_ENVIRONMENT, now)?;
        Ok(())
    }

    fn create_environment(&mut self, tenant: &str, env: &str, now: DateTime<Utc>) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO environments (tenant, name, created) VALUES (?1, ?2, ?3)",
            )
            .db()?
            .execute(params![tenant, env, time_text(now)])
            .db()?;
        Ok(n == 1)
    }

    fn upsert_user(
        &mut self,
        tenant: &str,
        user: &str,
        role: Role,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO users (tenant, name, role, created) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (tenant, name) DO UPDATE SET role = excluded.role",
            )
            .db()?
            .execute(params![tenant, user, role.as_str(), time_text(now)])
            .db()?;
        Ok(())
    }

    fn set_grant(&mut self, tenant: &str, user: &str, grant: &Grant, on: bool) -> Result<bool> {
        let (kind, name) = grant.parts();
        let sql = if on {
            "INSERT OR IGNORE INTO grants (tenant, user, kind, name) VALUES (?1, ?2, ?3, ?4)"
        } else {
            "DELETE FROM grants WHERE tenant = ?1 AND user = ?2 AND kind = ?3 AND name = ?4"
        };
        let n = self
            .conn
            .prepare_cached(sql)
            .db()?
            .execute(params![tenant, user, kind, name])
            .db()?;
        Ok(n > 0)
    }

    fn insert_token(
        &mut self,
        hash: &str,
        tenant: &str,
        user: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO tokens (hash, tenant, user, created) VALUES (?1, ?2, ?3, ?4)",
            )
            .db()?
            .execute(params![hash, tenant, user, time_text(now)])
            .db()?;
        Ok(())
    }

    fn revoke_tokens(&mut self, which: &TokenSelector, now: DateTime<Utc>) -> Result<u64> {
        let now = time_text(now);
        let n = match which {
            TokenSelector::Hash(hash) => self
                .conn
                .prepare_cached("UPDATE tokens SET revoked = ?2 WHERE hash = ?1 AND revoked IS NULL")
                .db()?
                .execute(params![hash, now])
                .db()?,
            TokenSelector::User { tenant, user } => self
                .conn
                .prepare_cached("UPDATE tokens SET revoked = ?3 WHERE tenant = ?1 AND user = ?2 AND revoked IS NULL")
                .db()?
                .execute(params![tenant, user, now])
                .db()?,
        };
        Ok(n as u64)
    }
}

/// The authentication epoch, read on `conn` (in its transaction, or in one of its own).
pub(super) fn auth_epoch(conn: &rusqlite::Connection) -> Result<u64> {
    let n: i64 = conn
        .prepare_cached("SELECT n FROM auth_epoch WHERE id = 1")
        .db()?
        .query_row([], |r| r.get(0))
        .db()?;
    Ok(n as u64)
}
