//! Tenants, environments, users, grants and tokens.

use super::{get, Tx};
use crate::auth::{Grant, Role};
use crate::error::{Error, Result};
use crate::store::{
    Environment, TenancyRead, TenancyWrite, TokenListing, TokenRecord, TokenSelector,
};
use chrono::{DateTime, Utc};

fn role_of(text: &str, tenant: &str, user: &str) -> Result<Role> {
    text.parse()
        .map_err(|e| Error::caused(format!("stored role of {tenant}/{user}"), e))
}

impl TenancyRead for Tx<'_> {
    fn tenant_count(&self) -> Result<u64> {
        let n: i64 = get(&self.query_one("SELECT count(*) FROM tenants", &[])?, 0)?;
        Ok(n.max(0) as u64)
    }

    fn users_with_role(&self, role: Role) -> Result<u64> {
        let n: i64 = get(
            &self.query_one(
                "SELECT count(*) FROM users WHERE role = $1",
                &[&role.as_str()],
            )?,
            0,
        )?;
        Ok(n.max(0) as u64)
    }

    fn tokens(&self, tenant: Option<&str>) -> Result<Vec<TokenListing>> {
        self.query(
            "SELECT left(t.hash, 12), t.tenant, t.\"user\", u.role, t.created, t.revoked FROM tokens t \
             JOIN users u ON u.tenant = t.tenant AND u.name = t.\"user\" \
             WHERE $1::text IS NULL OR t.tenant = $1 ORDER BY t.tenant, t.\"user\", t.created, t.hash",
            &[&tenant],
        )?
        .iter()
        .map(|r| {
            let tenant: String = get(r, 1)?;
            let user: String = get(r, 2)?;
            let role: String = get(r, 3)?;
            Ok(TokenListing {
                id: get(r, 0)?,
                role: role_of(&role, &tenant, &user)?,
                created: get(r, 4)?,
                revoked: get(r, 5)?,
                tenant,
                user,
            })
        })
        .collect()
    }

    fn environments(&self, tenant: &str) -> Result<Vec<Environment>> {
        self.query(
            "SELECT name, created FROM environments WHERE tenant = $1 ORDER BY name",
            &[&tenant],
        )?
        .iter()
        .map(|r| {
            Ok(Environment {
                name: get(r, 0)?,
                created: get(r, 1)?,
            })
        })
        .collect()
    }

    fn auth_epoch(&self) -> Result<u64> {
        // A reader sees one snapshot and keeps the epoch as read; a writer's read named ahead
        // (`Platform::write` for a caller authenticated from the token cache) is answered
        // once, as of that read.
        let kept = |tx: &Self| match tx.read_only {
            true => tx.cache.borrow().auth_epoch,
            false => tx.cache.borrow_mut().auth_epoch.take(),
        };
        if let Some(n) = kept(self) {
            return Ok(n);
        }
        use super::tx::Sink;
        // Named ahead and not sent yet: read here, once.
        self.epoch_ahead.set(false);
        if self.settle(|sink| {
            matches!(
                sink,
                Sink::AuthEpoch | Sink::EachDocument { epoch: true, .. }
            )
        })? {
            if let Some(n) = kept(self) {
                return Ok(n);
            }
        }
        let n: i64 = get(&self.query_one(super::tx::EPOCH, &[])?, 0)?;
        // A reader sees one snapshot: the epoch stays as read.
        if self.read_only {
            self.cache.borrow_mut().auth_epoch = Some(n as u64);
        }
        Ok(n as u64)
    }

    fn environment_exists(&self, tenant: &str, env: &str) -> Result<bool> {
        Ok(self
            .query_opt(
                "SELECT 1 FROM environments WHERE tenant = $1 AND name = $2",
                &[&tenant, &env],
            )?
            .is_some())
    }

    fn token(&self, hash: &str) -> Result<Option<TokenRecord>> {
        self.query_opt(
            "SELECT t.tenant, t.\"user\", u.role, t.revoked IS NOT NULL FROM tokens t \
             JOIN users u ON u.tenant = t.tenant AND u.name = t.\"user\" WHERE t.hash = $1",
            &[&hash],
        )?
        .map(|r| {
            let tenant: String = get(&r, 0)?;
            let user: String = get(&r, 1)?;
            let role: String = get(&r, 2)?;
            Ok(TokenRecord {
                role: role_of(&role, &tenant, &user)?,
                revoked: get(&r, 3)?,
                tenant,
                user,
            })
        })
        .transpose()
    }

    fn user_exists(&self, tenant: &str, user: &str) -> Result<bool> {
        Ok(self
            .query_opt(
                "SELECT 1 FROM users WHERE tenant = $1 AND name = $2",
                &[&tenant, &user],
            )?
            .is_some())
    }

    fn grants(&self, tenant: &str, user: &str) -> Result<Vec<Grant>> {
        self.query(
            "SELECT kind, name FROM grants WHERE tenant = $1 AND \"user\" = $2 ORDER BY kind, name",
            &[&tenant, &user],
        )?
        .iter()
        .map(|r| {
            let kind: String = get(r, 0)?;
            let name: String = get(r, 1)?;
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
        self.execute(
            "INSERT INTO tenants (name, created) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&tenant, &now],
        )?;
        self.create_environment(tenant, crate::auth::DEFAULT_ENVIRONMENT, now)?;
        Ok(())
    }

    fn create_environment(&mut self, tenant: &str, env: &str, now: DateTime<Utc>) -> Result<bool> {
        let n = self.execute(
            "INSERT INTO environments (tenant, name, created) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            &[&tenant, &env, &now],
        )?;
        Ok(n == 1)
    }

    fn upsert_user(
        &mut self,
        tenant: &str,
        user: &str,
        role: Role,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO users (tenant, name, role, created) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (tenant, name) DO UPDATE SET role = excluded.role",
            &[&tenant, &user, &role.as_str(), &now],
        )?;
        Ok(())
    }

    fn set_grant(&mut self, tenant: &str, user: &str, grant: &Grant, on: bool) -> Result<bool> {
        let (kind, name) = grant.parts();
        let sql = if on {
            "INSERT INTO grants (tenant, \"user\", kind, name) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING"
        } else {
            "DELETE FROM grants WHERE tenant = $1 AND \"user\" = $2 AND kind = $3 AND name = $4"
        };
        Ok(self.execute(sql, &[&tenant, &user, &kind, &name])? > 0)
    }

    fn insert_token(
        &mut self,
        hash: &str,
        tenant: &str,
        user: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.execute(
            "INSERT INTO tokens (hash, tenant, \"user\", created) VALUES ($1, $2, $3, $4)",
            &[&hash, &tenant, &user, &now],
        )?;
        Ok(())
    }

    fn revoke_tokens(&mut self, which: &TokenSelector, now: DateTime<Utc>) -> Result<u64> {
        match which {
            TokenSelector::Hash(hash) => self.execute(
                "UPDATE tokens SET revoked = $2 WHERE hash = $1 AND revoked IS NULL",
                &[hash, &now],
            ),
            TokenSelector::User { tenant, user } => self.execute(
                "UPDATE tokens SET revoked = $3 WHERE tenant = $1 AND \"user\" = $2 AND revoked IS NULL",
                &[tenant, user, &now],
            ),
        }
    }
}
