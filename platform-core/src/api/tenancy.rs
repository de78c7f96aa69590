//! Tenants, users, tokens, grants and environments: [`Tenancy`].

use crate::auth::{Credentials, Grant, Principal, Role};
use crate::error::Result;
use crate::store::TokenListing;
use crate::Platform;
use chrono::{DateTime, Utc};

/// Tenants, users, tokens, grants and environments, and the [`Principal`] every other call
/// runs as. From [`Platform::tenancy`].
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
    pub(super) platform: &'p Platform,
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
    /// On a database without any `platform`-role user, creates tenant `default`, user `admin`
    /// with role `platform` and a token for it, and returns the token (shown once). On any
    /// other database returns `None`: more tokens come from [`Tenancy::create_token`].
    pub fn bootstrap(&self) -> Result<Option<String>> {
        self.platform.bootstrap()
    }

    /// Creates a token for a user (creating the tenant and user if absent, with `role`).
    /// Returns the token; only its hash is kept. A role belongs to the user: for an existing
    /// user with another role and active tokens this is refused (CONFLICT, naming them);
    /// [`Tenancy::create_token_setting_role`] changes it.
    pub fn create_token(&self, tenant: &str, user: &str, role: Role) -> Result<String> {
        Ok(self.platform.create_token(tenant, user, role, false)?.0)
    }

    /// Creates a token for a user and sets the user's role to `role`: the user's other active
    /// tokens act with that role from then on (returned, when the role changed).
    pub fn create_token_setting_role(
        &self,
        tenant: &str,
        user: &str,
        role: Role,
    ) -> Result<(String, Option<crate::tenancy::RoleChange>)> {
        self.platform.create_token(tenant, user, role, true)
    }

    /// The tokens of a tenant (of every tenant when `None`): who they are for and their
    /// state, never the token itself.
    pub fn tokens(&self, tenant: Option<&str>) -> Result<Vec<TokenListing>> {
        self.platform.tokens(tenant)
    }

    /// The tokens of the caller's tenant, for an admin (or a platform-role user) of it; a
    /// `tenant` other than the caller's is not found (another tenant's tokens are never
    /// listed). Never the tokens themselves.
    pub fn tokens_of(&self, p: &Principal, tenant: Option<&str>) -> Result<Vec<TokenListing>> {
        p.require(Role::Admin, "listing tokens")?;
        if let Some(t) = tenant.filter(|t| *t != p.tenant) {
            return Err(crate::error::Error::not_found(format!(
                "tenant \"{t}\" is not found: a token lists the tokens of its own tenant"
            )));
        }
        self.platform.tokens(Some(&p.tenant))
    }

    /// Revokes one token (given in full); returns whether it was active.
    pub fn revoke_token(&self, token: &str) -> Result<bool> {
        self.platform.revoke_token(token)
    }

    /// Revokes every token of a user; returns how many were active.
    pub fn revoke_user_tokens(&self, tenant: &str, user: &str) -> Result<u64> {
        self.platform.revoke_user_tokens(tenant, user)
    }

    /// Grants a user a data-access role or a view feature (the user must exist); returns false
    /// when it was already granted.
    pub fn grant(&self, tenant: &str, user: &str, grant: &Grant) -> Result<bool> {
        self.platform.grant(tenant, user, grant)
    }

    /// Takes a grant back; returns whether it was held.
    pub fn revoke_grant(&self, tenant: &str, user: &str, grant: &Grant) -> Result<bool> {
        self.platform.revoke_grant(tenant, user, grant)
    }

    /// The environments of a tenant as (name, created), by name; the tenant must exist.
    pub fn environments(&self, tenant: &str) -> Result<Vec<(String, DateTime<Utc>)>> {
        self.platform.environments(tenant)
    }

    /// Creates an environment of a tenant (the tenant must exist); returns false if it existed.
    pub fn create_environment(&self, tenant: &str, name: &str) -> Result<bool> {
        self.platform.create_environment(tenant, name)
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
        self.platform
            .authenticate_at(self.tx(), credentials, environment)
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
            Some(tx) => self
                .platform
                .read_authenticated(tx, credentials, environment, read),
            None => {
                let snapshot = self.platform.snapshot()?;
                self.platform
                    .read_authenticated(snapshot.tx(), credentials, environment, read)
            }
        }
    }

    /// A `platform`-role principal for local use (the CLI on a database file, embedding): the
    /// tenant is created if absent. Whoever can open the file has full rights over it.
    pub fn local_principal(&self, tenant: &str, user: &str) -> Result<Principal> {
        self.platform.local_principal(tenant, user)
    }

    /// The same principal in another environment, which must exist.
    pub fn in_environment(&self, p: &Principal, environment: &str) -> Result<Principal> {
        self.platform.in_environment(p, environment)
    }
}
