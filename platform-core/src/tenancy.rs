//! Tenants, users, tokens and environments: who may call, and where their data lives.
//!
//! A fresh database gets tenant `default` with user `admin` (role `platform`) and one token for
//! it ([`crate::api::Tenancy::bootstrap`]). Every tenant has the `production` environment; others are created
//! explicitly and an unknown one is a 404. Tokens are stored as hashes only and can be revoked.

use crate::auth::{
    generate_token, hash_token, validate_name, Credentials, Grant, Grants, Principal, Role,
    DEFAULT_ENVIRONMENT,
};
use crate::error::{Error, ErrorCode, Result};
use crate::store::{ReadTx, TokenListing, TokenSelector};
use crate::Platform;

/// A user's role changed by a new token ([`crate::api::Tenancy::create_token_setting_role`]).
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

impl Platform {
    /// On a database without any `platform`-role user (a new one, or one first written by a
    /// program or a command that made no users), creates tenant `default`, user `admin` with
    /// role `platform` and a token for it, and returns the token (shown once). On any other
    /// database returns `None`: more tokens come from [`crate::api::Tenancy::create_token`].
    pub(crate) fn bootstrap(&self) -> Result<Option<String>> {
        let now = self.now();
        self.write(|tx| {
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

    /// Creates a token for a user (creating the tenant and user if absent). A role belongs to
    /// the user, not the token: for an existing user with another role and active tokens, the
    /// token is refused unless `set_role`, which changes the role of those tokens too (they
    /// are returned). Returns the token; only its hash is kept.
    pub(crate) fn create_token(
        &self,
        tenant: &str,
        user: &str,
        role: Role,
        set_role: bool,
    ) -> Result<(String, Option<RoleChange>)> {
        validate_name(tenant, "tenant")?;
        validate_name(user, "user")?;
        let now = self.now();
        let token = generate_token()?;
        let change = self.write(|tx| {
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
    pub(crate) fn tokens(&self, tenant: Option<&str>) -> Result<Vec<crate::store::TokenListing>> {
        self.read()?.tokens(tenant)
    }

    /// The environments of a tenant as (name, created), by name; the tenant must exist.
    pub(crate) fn environments(
        &self,
        tenant: &str,
    ) -> Result<Vec<(String, chrono::DateTime<chrono::Utc>)>> {
        let envs: Vec<_> = self
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
    pub(crate) fn revoke_token(&self, token: &str) -> Result<bool> {
        let now = self.now();
        self.write(|tx| Ok(tx.revoke_tokens(&TokenSelector::Hash(hash_token(token)), now)? > 0))
    }

    /// Revokes every token of a user; returns how many were active.
    pub(crate) fn revoke_user_tokens(&self, tenant: &str, user: &str) -> Result<u64> {
        let now = self.now();
        let which = TokenSelector::User {
            tenant: tenant.to_string(),
            user: user.to_string(),
        };
        self.write(|tx| tx.revoke_tokens(&which, now))
    }

    /// Grants a user a data-access role or a view feature (the user must exist); returns false
    /// when it was already granted.
    pub(crate) fn grant(&self, tenant: &str, user: &str, grant: &Grant) -> Result<bool> {
        let (kind, name) = grant.parts();
        validate_name(name, kind)?;
        self.write(|tx| {
            if !tx.user_exists(tenant, user)? {
                return Err(Error::not_found(format!(
                    "user \"{user}\" of tenant \"{tenant}\" does not exist"
                )));
            }
            tx.set_grant(tenant, user, grant, true)
        })
    }

    /// Takes a grant back; returns whether it was held.
    pub(crate) fn revoke_grant(&self, tenant: &str, user: &str, grant: &Grant) -> Result<bool> {
        self.write(|tx| tx.set_grant(tenant, user, grant, false))
    }

    /// Creates an environment of a tenant (the tenant must exist); returns false if it existed.
    pub(crate) fn create_environment(&self, tenant: &str, name: &str) -> Result<bool> {
        validate_name(tenant, "tenant")?;
        validate_name(name, "environment")?;
        let now = self.now();
        self.write(|tx| {
            if !tx.environment_exists(tenant, DEFAULT_ENVIRONMENT)? {
                return Err(Error::not_found(format!(
                    "tenant \"{tenant}\" does not exist"
                )));
            }
            tx.create_environment(tenant, name, now)
        })
    }

    /// Turns presented credentials and an environment name into a principal.
    ///
    /// No credentials, an unknown or revoked token, or a Basic user that is not the token's user
    /// is `NOT_AUTHENTICATED`; an environment the tenant does not have is `NOT_FOUND`. (The
    /// API's [`crate::api::Tenancy::authenticate`] reads in its handle's snapshot, if any.)
    #[cfg(test)]
    pub(crate) fn authenticate(
        &self,
        credentials: Option<&Credentials>,
        environment: Option<&str>,
    ) -> Result<Principal> {
        self.authenticate_at(None, credentials, environment)
    }

    /// See [`crate::api::Tenancy::read_authenticated`].
    pub(crate) fn read_authenticated<T>(
        &self,
        tx: &dyn ReadTx,
        credentials: Option<&Credentials>,
        environment: Option<&str>,
        read: impl Fn(&Principal) -> Result<T>,
    ) -> Result<(Principal, Result<T>)> {
        if let Some(credentials) = credentials {
            let hash = hash_token(credentials.token());
            let env = environment.unwrap_or(DEFAULT_ENVIRONMENT);
            let basic_ok = |p: &Principal| match credentials {
                Credentials::Basic { user, .. } => *user == p.user,
                Credentials::Bearer(_) => true,
            };
            if let Some((epoch, p)) = self.tokens.latest(&hash, env).filter(|(_, p)| basic_ok(p)) {
                tx.read_ahead(&[crate::store::Ahead::AuthEpoch])?;
                let out = read(&p);
                match tx.auth_epoch() {
                    Ok(now) if now == epoch => return Ok((p, out)),
                    Ok(_) => {}
                    // A read that failed the transaction fails the epoch's read after it.
                    Err(e) => return Ok((p, Err(out.err().unwrap_or(e)))),
                }
            }
        }
        let p = self.authenticate_at(Some(tx), credentials, environment)?;
        let out = read(&p);
        Ok((p, out))
    }

    /// [`authenticate`](Self::authenticate), reading in `tx` when given (the epoch, and on a
    /// miss of the cache the token's record), else each read on its own.
    pub(crate) fn authenticate_at(
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
            None => self.store.auth_epoch()?,
        };
        if let Some(p) = self.tokens.get(&hash, environment, epoch) {
            basic_user_matches(&p.user)?;
            return Ok(p);
        }
        let own;
        let (tx, epoch) = match tx {
            // The epoch above was read in this transaction.
            Some(tx) => (tx, epoch),
            None => {
                own = self.read()?;
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
        self.tokens
            .put(hash, environment.to_string(), epoch, p.clone());
        Ok(p)
    }

    /// A `platform`-role principal for local use (the CLI on a database file, embedding): the
    /// tenant is created if absent. Whoever can open the file has full rights over it.
    pub(crate) fn local_principal(&self, tenant: &str, user: &str) -> Result<Principal> {
        validate_name(tenant, "tenant")?;
        validate_name(user, "user")?;
        let now = self.now();
        self.write(|tx| tx.ensure_tenant(tenant, now))?;
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
    pub(crate) fn in_environment(&self, p: &Principal, environment: &str) -> Result<Principal> {
        if !self.read()?.environment_exists(&p.tenant, environment)? {
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
pub(crate) mod tests {
    use super::*;
    use crate::auth::Credentials;

    fn admin_of(p: &Platform, token: &str) -> Principal {
        p.authenticate(Some(&Credentials::Bearer(token.to_string())), None)
            .unwrap()
    }

    #[test]
    fn the_first_admin_is_made_once_on_a_database_without_one() {
        let p = Platform::in_memory().unwrap();
        let token = p
            .bootstrap()
            .unwrap()
            .expect("a fresh database gets its admin");
        let who = admin_of(&p, &token);
        assert_eq!(
            (who.tenant.as_str(), who.user.as_str(), who.role),
            (DEFAULT_TENANT, DEFAULT_ADMIN, Role::Platform)
        );
        assert_eq!(p.bootstrap().unwrap(), None, "only once");
    }

    #[test]
    fn a_database_first_written_without_an_admin_still_gets_one() {
        // A program (or a command) wrote first: a tenant, a writer, data, but no platform user.
        let p = Platform::in_memory().unwrap();
        p.local_principal("default", "cli").unwrap();
        p.create_token("acme", "ann", Role::Writer, false)
            .map(|(t, _)| t)
            .unwrap();
        let token = p.bootstrap().unwrap().expect("no platform user yet");
        assert_eq!(admin_of(&p, &token).role, Role::Platform);
        assert_eq!(p.bootstrap().unwrap(), None);
        // A database whose platform user was made by hand gets no second one.
        let q = Platform::in_memory().unwrap();
        q.create_token("ops", "root", Role::Platform, false)
            .map(|(t, _)| t)
            .unwrap();
        assert_eq!(q.bootstrap().unwrap(), None);
    }

    /// A token authenticated (and kept) by `a` is refused by `a` from the request after another
    /// platform of the same database (`b`, another process) revokes it; a role or grant that `b`
    /// changes is what `a` answers next; a Basic user other than the token's is refused from
    /// the kept entry too.
    pub(crate) fn changes_by_another_platform_reach_the_kept_tokens(a: &Platform, b: &Platform) {
        let bearer = |t: &str| Credentials::Bearer(t.to_string());
        let token = b
            .create_token("acme", "ann", Role::Reader, false)
            .map(|(t, _)| t)
            .unwrap();
        let other = b
            .create_token("acme", "bob", Role::Writer, false)
            .map(|(t, _)| t)
            .unwrap();
        for _ in 0..2 {
            assert_eq!(
                a.authenticate(Some(&bearer(&token)), None).unwrap().role,
                Role::Reader
            );
        }
        let basic = Credentials::Basic {
            user: "eve".into(),
            token: token.clone(),
        };
        assert_eq!(
            a.authenticate(Some(&basic), None).unwrap_err().code(),
            ErrorCode::NotAuthenticated
        );
        b.create_token("acme", "ann", Role::Admin, true).unwrap();
        assert_eq!(
            a.authenticate(Some(&bearer(&token)), None).unwrap().role,
            Role::Admin
        );
        b.grant("acme", "ann", &Grant::Access("traders".into()))
            .unwrap();
        assert_eq!(
            a.authenticate(Some(&bearer(&token)), None)
                .unwrap()
                .grants
                .access,
            ["traders"]
        );
        assert!(b.revoke_token(&token).unwrap());
        assert_eq!(
            a.authenticate(Some(&bearer(&token)), None)
                .unwrap_err()
                .code(),
            ErrorCode::NotAuthenticated
        );
        assert_eq!(
            a.authenticate(Some(&bearer(&other)), None).unwrap().user,
            "bob"
        );
    }

    #[test]
    fn a_token_kept_by_one_process_is_refused_once_another_revokes_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.db");
        let a = Platform::open(&path).unwrap();
        let b = Platform::open(&path).unwrap();
        changes_by_another_platform_reach_the_kept_tokens(&a, &b);
    }

    #[test]
    fn a_snapshot_authenticates_and_reads_in_one_committed_state() {
        use crate::ids::Source;
        use crate::store::Collection;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.db");
        let (a, b) = (
            Platform::open(&path).unwrap(),
            Platform::open(&path).unwrap(),
        );
        let bearer = |t: &str| Credentials::Bearer(t.to_string());
        let token = b
            .create_token("acme", "ann", Role::Writer, false)
            .map(|(t, _)| t)
            .unwrap();
        let ann = a.authenticate(Some(&bearer(&token)), None).unwrap();
        let save = |name: &str| {
            b.objects()
                .save(
                    &ann,
                    Collection::Object,
                    serde_json::json!({"_id": "X", "name": name}),
                    &Default::default(),
                )
                .unwrap();
        };
        save("first");
        let name = |v: serde_json::Value| v["name"].as_str().unwrap().to_string();
        let read_in = |s: &crate::Snapshot| {
            let who = s.tenancy().authenticate(Some(&bearer(&token)), None)?;
            s.objects()
                .get(&who, Collection::Object, Source::Private, "X", None, None)
                .map(name)
        };
        let before = a.snapshot().unwrap();
        assert_eq!(read_in(&before).unwrap(), "first");
        // Another process saves a version and revokes the token: the snapshot taken before
        // still reads the state it began with, as one read of it would have.
        save("second");
        b.revoke_token(&token).unwrap();
        assert_eq!(read_in(&before).unwrap(), "first");
        drop(before);
        // A snapshot taken after refuses the token, though this process has it kept.
        let after = a.snapshot().unwrap();
        assert_eq!(
            read_in(&after).unwrap_err().code(),
            ErrorCode::NotAuthenticated
        );
        // Another version is read through the snapshot by number as well.
        let v1 = after
            .objects()
            .get(
                &ann,
                Collection::Object,
                Source::Private,
                "X",
                Some(&crate::ids::VersionRef::Number(1)),
                None,
            )
            .unwrap();
        assert_eq!(name(v1), "first");
    }

    #[test]
    fn tokens_and_environments_are_listed_without_secrets() {
        let p = Platform::in_memory().unwrap();
        let t1 = p
            .create_token("acme", "ann", Role::Writer, false)
            .map(|(t, _)| t)
            .unwrap();
        p.create_token("acme", "bob", Role::Reader, false)
            .map(|(t, _)| t)
            .unwrap();
        p.create_token("zed", "zoe", Role::Admin, false)
            .map(|(t, _)| t)
            .unwrap();
        p.revoke_token(&t1).unwrap();
        let acme = p.tokens(Some("acme")).unwrap();
        assert_eq!(acme.len(), 2);
        assert_eq!((acme[0].user.as_str(), acme[0].role), ("ann", Role::Writer));
        assert!(acme[0].revoked.is_some() && acme[1].revoked.is_none());
        assert_eq!(acme[0].id.len(), 12);
        assert!(
            !t1.contains(&acme[0].id),
            "the listing id is not a part of the token"
        );
        assert_eq!(p.tokens(None).unwrap().len(), 3);
        p.create_environment("acme", "test").unwrap();
        let envs: Vec<String> = p
            .environments("acme")
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(envs, ["production", "test"]);
        assert_eq!(
            p.environments("nobody").unwrap_err().code(),
            ErrorCode::NotFound
        );
    }
}
