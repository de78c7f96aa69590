//! Who is calling: roles, principals, tokens and credentials.
//!
//! Tokens are 256 random bits shown once as `pt_<64 hex>` and stored only as their SHA-256 hash.
//! A request authenticates with `Authorization: Bearer <token>` or
//! `Authorization: Basic base64(<user>:<token>)`; with Basic the user part must name the token's
//! user. Roles are ordered: `reader` < `writer` < `admin` < `platform`.

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// The environment every tenant has and that requests use by default.
pub const DEFAULT_ENVIRONMENT: &str = "production";

/// What a user may do; each role includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// GET only.
    Reader,
    /// Reader plus writes to private objects, data, types, scripts, validation.
    Writer,
    /// Writer plus secrets, extensions, automations and the tenant's tokens.
    Admin,
    /// Admin plus writes to the public source and publishing.
    Platform,
}

impl Role {
    /// The role's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Reader => "reader",
            Role::Writer => "writer",
            Role::Admin => "admin",
            Role::Platform => "platform",
        }
    }
}

impl FromStr for Role {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "reader" => Ok(Role::Reader),
            "writer" => Ok(Role::Writer),
            "admin" => Ok(Role::Admin),
            "platform" => Ok(Role::Platform),
            other => Err(Error::invalid_parameter(format!(
                "unknown role \"{other}\": expected reader, writer, admin or platform"
            ))),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An authenticated caller in one environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The caller's tenant (company).
    pub tenant: String,
    /// The caller's user id.
    pub user: String,
    /// The caller's role.
    pub role: Role,
    /// The selected environment.
    pub environment: String,
    /// Data-access roles and view features granted to the user.
    pub grants: Grants,
}

/// Named data-access roles and view features a user holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Grants {
    /// Data-access roles (`_access` of data properties).
    pub access: Vec<String>,
    /// View features (`feature` of extension views).
    pub features: Vec<String>,
    /// Holds every role and feature (local use of a database file).
    pub everything: bool,
}

impl Grants {
    /// Whether data whose `_access` is `role` (or none) may be read.
    pub fn may_read(&self, role: Option<&str>) -> bool {
        match role {
            None | Some("") => true,
            Some(r) => self.everything || self.access.iter().any(|a| a == r),
        }
    }
}

/// What an admin grants a user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// A data-access role.
    Access(String),
    /// A view feature.
    Feature(String),
}

impl Grant {
    /// The stored kind (`access` or `feature`) and name.
    pub fn parts(&self) -> (&'static str, &str) {
        match self {
            Grant::Access(n) => ("access", n),
            Grant::Feature(n) => ("feature", n),
        }
    }
}

impl Principal {
    internal! {
        /// The caller's private scope.
        fn private_scope(&self) -> Scope {
            Scope::private(&self.tenant, &self.environment)
        }
    }

    /// Fails unless the caller holds at least `role`; `action` names what was attempted.
    pub fn require(&self, role: Role, action: &str) -> Result<()> {
        if self.role >= role {
            Ok(())
        } else {
            Err(Error::forbidden(format!(
                "{action} needs the {role} role; user \"{}\" has {}",
                self.user, self.role
            )))
        }
    }

    internal! {
        /// Fails unless the caller may write to `scope` (private: writer; public: platform).
        fn require_write(&self, scope: &Scope, what: &str) -> Result<()> {
            if scope.is_public() {
                self.require(
                    Role::Platform,
                    &format!("writing {what} to the public source"),
                )
            } else {
                self.require(Role::Writer, &format!("writing {what}"))
            }
        }
    }
}

impl Scope {
    /// The scope of a single source (not `All`) for a caller.
    pub fn for_source(source: Source, principal: &Principal) -> Scope {
        match source {
            Source::Public => Scope::public(),
            Source::Private | Source::All => principal.private_scope(),
        }
    }

    /// The scopes a source reads (both for `All`).
    pub fn read_scopes(source: Source, principal: &Principal) -> Vec<Scope> {
        match source {
            Source::Public => vec![Scope::public()],
            Source::Private => vec![principal.private_scope()],
            Source::All => vec![Scope::public(), principal.private_scope()],
        }
    }
}

/// Credentials as presented by a caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// A bare token.
    Bearer(String),
    /// A user name and a token.
    Basic {
        /// The claimed user.
        user: String,
        /// The token.
        token: String,
    },
}

impl Credentials {
    /// Parses an `Authorization` header value.
    pub fn from_authorization(header: &str) -> Result<Credentials> {
        let unauthenticated = |m: &str| Error::new(ErrorCode::NotAuthenticated, m.to_string());
        let (scheme, rest) = header.trim().split_once(' ').ok_or_else(|| {
            unauthenticated(
                "Authorization header must be \"Bearer <token>\" or \"Basic <base64 user:token>\"",
            )
        })?;
        let rest = rest.trim();
        if scheme.eq_ignore_ascii_case("bearer") {
            return Ok(Credentials::Bearer(rest.to_string()));
        }
        if scheme.eq_ignore_ascii_case("basic") {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(rest)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| {
                    unauthenticated("Basic credentials are not valid base64 of user:token")
                })?;
            let (user, token) = decoded
                .split_once(':')
                .ok_or_else(|| unauthenticated("Basic credentials must be user:token"))?;
            return Ok(Credentials::Basic {
                user: user.to_string(),
                token: token.to_string(),
            });
        }
        Err(unauthenticated(&format!(
            "unsupported authorization scheme \"{scheme}\": use Bearer or Basic"
        )))
    }

    /// The token part.
    pub fn token(&self) -> &str {
        match self {
            Credentials::Bearer(t) => t,
            Credentials::Basic { token, .. } => token,
        }
    }
}

/// A fresh random token (256 bits), as shown to its owner once.
pub fn generate_token() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).map_err(|e| Error::caused("no randomness", e))?;
    Ok(format!("pt_{}", hex(&bytes)))
}

/// The stored form of a token: SHA-256, hex.
pub fn hash_token(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Lower-case hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    // Two digits per byte from a table: this runs for every request (the token's hash, the
    // request id), where `write!` per byte cost more than the hash.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    s
}

/// Checks a tenant, user or environment name: 1..=64 of `A-Z a-z 0-9 . _ - @`.
pub fn validate_name(name: &str, what: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'@'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_parameter(format!(
            "invalid {what} \"{name}\": use 1 to 64 of letters, digits, '.', '_', '-', '@'"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_ordered() {
        assert!(
            Role::Reader < Role::Writer
                && Role::Writer < Role::Admin
                && Role::Admin < Role::Platform
        );
        assert_eq!("admin".parse::<Role>().unwrap(), Role::Admin);
        assert!("root".parse::<Role>().is_err());
    }

    #[test]
    fn tokens_are_random_and_hashed() {
        let a = generate_token().unwrap();
        let b = generate_token().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 3 + 64);
        assert_eq!(hash_token(&a).len(), 64);
        assert_ne!(hash_token(&a), hash_token(&b));
        assert_eq!(hash_token(&a), hash_token(&a));
    }

    #[test]
    fn hex_is_two_lower_case_digits_per_byte() {
        assert_eq!(hex(&[]), "");
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff, 0x5c]), "000fa0ff5c");
        // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        assert_eq!(
            hash_token("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn credentials_parse_bearer_and_basic() {
        assert_eq!(
            Credentials::from_authorization("Bearer abc").unwrap(),
            Credentials::Bearer("abc".into())
        );
        let basic = base64::engine::general_purpose::STANDARD.encode("bob:tok");
        assert_eq!(
            Credentials::from_authorization(&format!("Basic {basic}")).unwrap(),
            Credentials::Basic {
                user: "bob".into(),
                token: "tok".into()
            }
        );
        for bad in ["Token x", "Basic !!!", "Bearer", ""] {
            assert_eq!(
                Credentials::from_authorization(bad).unwrap_err().code(),
                ErrorCode::NotAuthenticated,
                "{bad}"
            );
        }
    }
}

/// Authenticated tokens kept by a platform: (token hash, environment) to the principal, each
/// entry stamped with the store's authentication epoch when it was made.
///
/// The epoch ([`crate::store::Store::auth_epoch`]) is a counter the database raises in the
/// transaction of every change to tenants, environments, users, grants and tokens (triggers of
/// its schema), whichever process made it: an entry of another epoch is never used, so a
/// revoked token or a changed role is refused or applied from the next request on, by every
/// server of the database. A hit costs one read of the epoch instead of the token, its user,
/// its environment and its grants.
#[derive(Debug, Default)]
pub(crate) struct TokenCache {
    entries: std::sync::Mutex<std::collections::HashMap<(String, String), (u64, Principal)>>,
}

/// The most entries kept; the cache is emptied when it is full.
const TOKEN_CACHE_ENTRIES: usize = 10_000;

impl TokenCache {
    /// The principal kept for a token hash and environment at this epoch.
    pub(crate) fn get(&self, hash: &str, environment: &str, epoch: u64) -> Option<Principal> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match entries.get(&(hash.to_string(), environment.to_string())) {
            Some((at, p)) if *at == epoch => Some(p.clone()),
            _ => None,
        }
    }

    /// The principal kept for a token hash and environment, with the epoch it was found at.
    pub(crate) fn latest(&self, hash: &str, environment: &str) -> Option<(u64, Principal)> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .get(&(hash.to_string(), environment.to_string()))
            .cloned()
    }

    /// Keeps a principal found at this epoch.
    pub(crate) fn put(&self, hash: String, environment: String, epoch: u64, p: Principal) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= TOKEN_CACHE_ENTRIES {
            entries.clear();
        }
        entries.insert((hash, environment), (epoch, p));
    }
}
