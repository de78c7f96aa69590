//! Tenants, users, tokens and environments: who may call, and where their data lives.
//!
//! A fresh database gets tenant `default` with user `admin` (role `platform`) and one token for
//! it ([`Tenancy::bootstrap`]). Every tenant has the `production` environment; others are created
//! explicitly and an unknown one is a 404. Tokens are stored as hashes only and can be revoked.

use crate::auth::{
    generate_token, hash_token, validate_name, Credentials, Grant, Grants, Principal, Role,
    DEFAULT_ENVIRONMENT,
};
use crate::error::{Error, ErrorCode, Result};
use crate::store::expected_epoch as checked;
use crate::store::{ReadTx, TokenListing, TokenSelector};
use crate::Platform;

/// A user's role changed by a new token ([`Tenancy::create_token_setting_role`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleChange {
    /// The role before.
    pub from: Role,
    /// The role now.
    pub to: Role,
    /// The user's active tokens before the new one: each now acts with the new role.
    pub tokens: Vec<TokenListing>,
}

/// The tenant a fresh database starts with.
pub const DEFAULT_TENANT: &str = "default";
/// The first user of a fresh database.
pub const DEFAULT_ADMIN: &str = "admin";

/// Tenants, users, tokens, grants and environments, and the [`Principal`] every other call
/// runs as. From [`Platform::tenancy`].
///
/// The service holds the platform it runs on (the store tenants, users and tokens are rows of,
/// the clock, and the cache of authenticated tokens) and, for a snapshot's handle, the
/// snapshot its authentication reads in.
///
/// A program that embeds the platform usually acts as one local principal:
///
/// ```
/// use platform_core::api::Role;
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "loader")?;
/// assert_eq!(me.role, Role::Platform);
///
/// // A token for a reader of tenant acme, and the principal it authenticates as.
/// let token = platform.tenancy().create_token("acme", "ann", Role::Reader)?;
/// let creds = platform_core::api::Credentials::Bearer(token);
/// let ann = platform.tenancy().authenticate(Some(&creds), None)?;
/// assert_eq!((ann.tenant.as_str(), ann.role), ("acme", Role::Reader));
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Tenancy<'p> {
    platform: &'p Platform,
    /// The snapshot its one-item reads are made in, for a handle of [`crate::Snapshot`].
    snapshot: Option<&'p crate::Snapshot<'p>>,
}

impl<'p> Tenancy<'p> {
    pub(crate) fn of(platform: &'p Platform, snapshot: Option<&'p crate::Snapshot<'p>>) -> Self {
        Tenancy { platform, snapshot }
    }

    /// The read transaction of its snapshot, if it has one.
    fn tx(&self) -> Option<&'p dyn crate::store::ReadTx> {
        self.snapshot.map(|s| s.tx())
    }
}

impl Tenancy<'_> {
    /// On a database without any `platform`-role user (a new one, or one first written by a
    /// program or a command that made no users), creates tenant `default`, user `admin` with
    /// role `platform` and a token for it, and returns the token (shown once). On any other
    /// database returns `None`: more tokens come from [`Tenancy::create_token`].
    pub fn bootstrap(&self) -> Result<Option<String>> {
        let now = self.platform.now();
        self.platform.write(|tx| {
            // Held first: of servers starting together on a new database, one makes the admin
            // and the others find it.
            tx.hold(&[crate::store::Hold::Initialisation])?;
            if tx.users_with_role(Role::Platform)? > 0 {
                return Ok(None);
            }
            let token = generate_token()?;
            tx.ensure_tenant(DEFAULT_TENANT, now)?;
            tx.upsert_user(DEFAULT_TENANT, DEFAULT_ADMIN, Role::Platform, now)?;
            tx.insert_token(&hash_token(&token), DEFAULT_TENANT, DEFAULT_ADMIN, now)?;
            Ok(Some(token))
        })
    }

    /// Whether the database was initialised: it has its admin (a `platform`-role user), made by
    /// `platform init`, by the first server on it, or by [`Tenancy::bootstrap`].
    pub fn initialised(&self) -> Result<bool> {
        Ok(self.platform.read()?.users_with_role(Role::Platform)? > 0)
    }

    /// Creates a token for a user (creating the tenant and user if absent, with `role`).
    /// Returns the token; only its hash is kept. A role belongs to the user: for an existing
    /// user with another role and active tokens this is refused (CONFLICT, naming them);
    /// [`Tenancy::create_token_setting_role`] changes it.
    pub fn create_token(&self, tenant: &str, user: &str, role: Role) -> Result<String> {
        Ok(self.make_token(tenant, user, role, false)?.0)
    }

    /// Creates a token for a user and sets the user's role to `role`: the user's other active
    /// tokens act with that role from then on (returned, when the role changed).
    pub fn create_token_setting_role(
        &self,
        tenant: &str,
        user: &str,
        role: Role,
    ) -> Result<(String, Option<RoleChange>)> {
        self.make_token(tenant, user, role, true)
    }

    /// Creates a token for a user (creating the tenant and user if absent). A role belongs to
    /// the user, not the token: for an existing user with another role and active tokens, the
    /// token is refused unless `set_role`, which changes the role of those tokens too (they
    /// are returned). Returns the token; only its hash is kept.
    pub(crate) fn make_token(
        &self,
        tenant: &str,
        user: &str,
        role: Role,
        set_role: bool,
    ) -> Result<(String, Option<RoleChange>)> {
        validate_name(tenant, "tenant")?;
        validate_name(user, "user")?;
        let now = self.platform.now();
        let token = generate_token()?;
        let change = self.platform.write(|tx| {
            tx.ensure_tenant(tenant, now)?;
            let theirs: Vec<TokenListing> = tx
                .tokens(Some(tenant))?
                .into_iter()
                .filter(|t| t.user == user)
                .collect();
            let change = match theirs.first() {
                Some(t) if t.role != role => Some(RoleChange {
                    from: t.role,
                    to: role,
                    tokens: theirs
                        .iter()
                        .filter(|t| t.revoked.is_none())
                        .cloned()
                        .collect(),
                }),
                _ => None,
            };
            if let Some(c) = change
                .as_ref()
                .filter(|c| !set_role && !c.tokens.is_empty())
            {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "user \"{user}\" of tenant \"{tenant}\" has the role {}, and a role \
                         belongs to the user, not the token: a {role} token would make its {} \
                         active token{} ({}) {role} too; set the role to do so (platform token \
                         create --set-role), or make the token for another user",
                        c.from,
                        c.tokens.len(),
                        if c.tokens.len() == 1 { "" } else { "s" },
                        c.tokens
                            .iter()
                            .map(|t| t.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            tx.upsert_user(tenant, user, role, now)?;
            tx.insert_token(&hash_token(&token), tenant, user, now)?;
            Ok(change)
        })?;
        Ok((token, change))
    }

    /// The tokens of a tenant (of every tenant when `None`): who they are for and their
    /// state, never the token itself.
    pub fn tokens(&self, tenant: Option<&str>) -> Result<Vec<TokenListing>> {
        self.platform.read()?.tokens(tenant)
    }

    /// The tokens of the caller's tenant, for an admin (or a platform-role user) of it; a
    /// `tenant` other than the caller's is not found (another tenant's tokens are never
    /// listed). Never the tokens themselves.
    pub fn tokens_of(&self, p: &Principal, tenant: Option<&str>) -> Result<Vec<TokenListing>> {
        p.require(Role::Admin, "listing tokens")?;
        if let Some(t) = tenant.filter(|t| *t != p.tenant) {
            return Err(Error::not_found(format!(
                "tenant \"{t}\" is not found: a token lists the tokens of its own tenant"
            )));
        }
        self.tokens(Some(&p.tenant))
    }

    /// The environments of a tenant as (name, created), by name; the tenant must exist.
    pub fn environments(
        &self,
        tenant: &str,
    ) -> Result<Vec<(String, chrono::DateTime<chrono::Utc>)>> {
        let envs: Vec<_> = self
            .platform
            .read()?
            .environments(tenant)?
            .into_iter()
            .map(|e| (e.name, e.created))
            .collect();
        if envs.is_empty() {
            return Err(Error::not_found(format!(
                "tenant \"{tenant}\" does not exist"
            )));
        }
        Ok(envs)
    }

    /// Revokes one token (given in full); returns whether it was active.
    pub fn revoke_token(&self, token: &str) -> Result<bool> {
        let now = self.platform.now();
        self.platform
            .write(|tx| Ok(tx.revoke_tokens(&TokenSelector::Hash(hash_token(token)), now)? > 0))
    }

    /// Revokes every token of a user; returns how many were active.
    pub fn revoke_user_tokens(&self, tenant: &str, user: &str) -> Result<u64> {
        let now = self.platform.now();
        let which = TokenSelector::User {
            tenant: tenant.to_string(),
            user: user.to_string(),
        };
        self.platform.write(|tx| tx.revoke_tokens(&which, now))
    }

    /// Grants a user a data-access role or a view feature (the user must exist); returns false
    /// when it was already granted.
    pub fn grant(&self, tenant: &str, user: &str, grant: &Grant) -> Result<bool> {
        let (kind, name) = grant.parts();
        validate_name(name, kind)?;
        self.platform.write(|tx| {
            if !tx.user_exists(tenant, user)? {
                return Err(Error::not_found(format!(
                    "user \"{user}\" of tenant \"{tenant}\" does not exist"
                )));
            }
            tx.set_grant(tenant, user, grant, true)
        })
    }

    /// Takes a grant back; returns whether it was held.
    pub fn revoke_grant(&self, tenant: &str, user: &str, grant: &Grant) -> Result<bool> {
        self.platform
            .write(|tx| tx.set_grant(tenant, user, grant, false))
    }

    /// Creates an environment of a tenant (the tenant must exist); returns false if it existed.
    pub fn create_environment(&self, tenant: &str, name: &str) -> Result<bool> {
        validate_name(tenant, "tenant")?;
        validate_name(name, "environment")?;
        let now = self.platform.now();
        self.platform.write(|tx| {
            if !tx.environment_exists(tenant, DEFAULT_ENVIRONMENT)? {
                return Err(Error::not_found(format!(
                    "tenant \"{tenant}\" does not exist"
                )));
            }
            tx.create_environment(tenant, name, now)
        })
    }

    /// Turns presented credentials and an environment name into a principal. Through a
    /// snapshot's handle ([`crate::Snapshot::tenancy`]) it reads in the snapshot, where the
    /// request's other reads are made too.
    ///
    /// No credentials, an unknown or revoked token, or a Basic user that is not the token's
    /// user is `NOT_AUTHENTICATED`; an environment the tenant does not have is `NOT_FOUND`.
    pub fn authenticate(
        &self,
        credentials: Option<&Credentials>,
        environment: Option<&str>,
    ) -> Result<Principal> {
        self.authenticate_at(self.tx(), credentials, environment)
    }

    /// Authenticates the caller and makes `read` as them, in one snapshot: a request's reads
    /// (in the handle's snapshot, [`crate::Snapshot::tenancy`], or in one of its own). Where
    /// the caller's token is kept from an earlier request, `read` runs before the
    /// authentication epoch is known, the epoch read with its first read (one round trip for
    /// both, on a database server); if the epoch moved since the token was kept, what `read`
    /// answered is dropped, the caller authenticated afresh, and `read` made again. So `read`
    /// must only read. The outer error is the authentication's; the caller's, with what
    /// `read` answered, inside.
    pub fn read_authenticated<T>(
        &self,
        credentials: Option<&Credentials>,
        environment: Option<&str>,
        read: impl Fn(&Principal) -> Result<T>,
    ) -> Result<(Principal, Result<T>)> {
        match self.tx() {
            Some(tx) => self.read_authenticated_in(tx, credentials, environment, read),
            None => {
                let snapshot = self.platform.snapshot()?;
                self.read_authenticated_in(snapshot.tx(), credentials, environment, read)
            }
        }
    }

    /// Authenticates the caller and makes `write` as them, the authentication epoch checked in
    /// `write`'s first write transaction: where the caller's token is kept from an earlier
    /// request, `write` runs at once as the principal kept, and the epoch is read with that
    /// transaction's first reads (no read of its own; see `store::expected_epoch`). If the
    /// epoch moved since the token was kept, that transaction rolls back, the caller is
    /// authenticated afresh and `write` made again; a `write` that committed no transaction
    /// has the epoch checked after it, and is made again the same way if it moved. So `write`
    /// must do the same work on every run. The outer error is the authentication's; the
    /// caller's, with what `write` answered, inside.
    pub fn write_authenticated<T>(
        &self,
        credentials: Option<&Credentials>,
        environment: Option<&str>,
        write: impl Fn(&Principal) -> Result<T>,
    ) -> Result<(Principal, Result<T>)> {
        if let Some((epoch, p)) = self.kept(credentials, environment) {
            let expected = checked::Expected::enter(epoch);
            let out = write(&p);
            let confirmed = expected.confirmed();
            drop(expected);
            match out {
                Err(e) if checked::is_moved(&e) => {}
                out if confirmed => return Ok((p, out)),
                out => {
                    if self.platform.store.auth_epoch()? == epoch {
                        return Ok((p, out));
                    }
                }
            }
        }
        let p = self.authenticate_at(None, credentials, environment)?;
        let out = write(&p);
        Ok((p, out))
    }

    /// The principal kept for these credentials from an earlier request, with the epoch it was
    /// found at (a Basic user must be the token's).
    fn kept(
        &self,
        credentials: Option<&Credentials>,
        environment: Option<&str>,
    ) -> Option<(u64, Principal)> {
        let credentials = credentials?;
        let hash = hash_token(credentials.token());
        let env = environment.unwrap_or(DEFAULT_ENVIRONMENT);
        self.platform
            .tokens
            .latest(&hash, env)
            .filter(|(_, p)| match credentials {
                Credentials::Basic { user, .. } => *user == p.user,
                Credentials::Bearer(_) => true,
            })
    }

    /// Whether a principal is kept for these credentials from an earlier request (it may
    /// have been revoked since: [`Tenancy::write_authenticated`] finds out in its write). A
    /// server reads a request's body for such a caller without authenticating first.
    pub fn kept_principal(
        &self,
        credentials: Option<&Credentials>,
        environment: Option<&str>,
    ) -> Option<Principal> {
        self.kept(credentials, environment).map(|(_, p)| p)
    }

    /// [`Tenancy::read_authenticated`] in `tx`.
    fn read_authenticated_in<T>(
        &self,
        tx: &dyn ReadTx,
        credentials: Option<&Credentials>,
        environment: Option<&str>,
        read: impl Fn(&Principal) -> Result<T>,
    ) -> Result<(Principal, Result<T>)> {
        if let Some((epoch, p)) = self.kept(credentials, environment) {
            tx.read_ahead(&[crate::store::Ahead::AuthEpoch])?;
            let out = read(&p);
            match tx.auth_epoch() {
                Ok(now) if now == epoch => return Ok((p, out)),
                Ok(_) => {}
                // A read that failed the transaction fails the epoch's read after it.
                Err(e) => return Ok((p, Err(out.err().unwrap_or(e)))),
            }
        }
        let p = self.authenticate_at(Some(tx), credentials, environment)?;
        let out = read(&p);
        Ok((p, out))
    }

    /// [`Tenancy::authenticate`], reading in `tx` when given (the epoch, and on a
    /// miss of the cache the token's record), else each read on its own.
    fn authenticate_at(
        &self,
        tx: Option<&dyn ReadTx>,
        credentials: Option<&Credentials>,
        environment: Option<&str>,
    ) -> Result<Principal> {
        let credentials = credentials.ok_or_else(|| {
            Error::new(
                ErrorCode::NotAuthenticated,
                "missing Authorization header: send \"Bearer <token>\" or Basic user:token",
            )
        })?;
        let hash = hash_token(credentials.token());
        let environment = environment.unwrap_or(DEFAULT_ENVIRONMENT);
        let basic_user_matches = |user: &str| match credentials {
            Credentials::Basic { user: named, .. } if named != user => Err(Error::new(
                ErrorCode::NotAuthenticated,
                format!("the token does not belong to user \"{named}\""),
            )),
            _ => Ok(()),
        };
        let epoch = match tx {
            Some(tx) => tx.auth_epoch()?,
            None => self.platform.store.auth_epoch()?,
        };
        if let Some(p) = self.platform.tokens.get(&hash, environment, epoch) {
            basic_user_matches(&p.user)?;
            return Ok(p);
        }
        let own;
        let (tx, epoch) = match tx {
            // The epoch above was read in this transaction.
            Some(tx) => (tx, epoch),
            None => {
                own = self.platform.read()?;
                // Read in the transaction: a change made since the epoch was read makes a new
                // epoch, so what is kept below is at worst kept under an epoch already gone.
                let epoch = own.auth_epoch()?;
                (own.as_ref(), epoch)
            }
        };
        let record = tx
            .token(&hash)?
            .filter(|r| !r.revoked)
            .ok_or_else(|| Error::new(ErrorCode::NotAuthenticated, "unknown or revoked token"))?;
        basic_user_matches(&record.user)?;
        if !tx.environment_exists(&record.tenant, environment)? {
            return Err(Error::not_found(format!(
                "environment \"{environment}\" does not exist for tenant \"{}\"",
                record.tenant
            )));
        }
        let mut grants = Grants::default();
        for grant in tx.grants(&record.tenant, &record.user)? {
            match grant {
                Grant::Access(name) => grants.access.push(name),
                Grant::Feature(name) => grants.features.push(name),
            }
        }
        let p = Principal {
            tenant: record.tenant,
            user: record.user,
            role: record.role,
            environment: environment.to_string(),
            grants,
        };
        self.platform
            .tokens
            .put(hash, environment.to_string(), epoch, p.clone());
        Ok(p)
    }

    /// A `platform`-role principal for local use (the CLI on a database file, embedding): the
    /// tenant is created if absent. Whoever can open the file has full rights over it.
    pub fn local_principal(&self, tenant: &str, user: &str) -> Result<Principal> {
        validate_name(tenant, "tenant")?;
        validate_name(user, "user")?;
        let now = self.platform.now();
        self.platform.write(|tx| tx.ensure_tenant(tenant, now))?;
        Ok(Principal {
            tenant: tenant.to_string(),
            user: user.to_string(),
            role: Role::Platform,
            environment: DEFAULT_ENVIRONMENT.to_string(),
            grants: Grants {
                everything: true,
                ..Grants::default()
            },
        })
    }

    /// The same principal in another environment, which must exist.
    pub fn in_environment(&self, p: &Principal, environment: &str) -> Result<Principal> {
        if !self
            .platform
            .read()?
            .environment_exists(&p.tenant, environment)?
        {
            return Err(Error::not_found(format!(
                "environment \"{environment}\" does not exist for tenant \"{}\"",
                p.tenant
            )));
        }
        Ok(Principal {
            environment: environment.to_string(),
            ..p.clone()
        })
    }
}

#[cfg(test)]
pub(crate) mod tests;
