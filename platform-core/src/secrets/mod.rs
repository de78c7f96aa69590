//! The secret service: company secrets, encrypted at rest.
//!
//! A secret is `{_id, _type: "VarSecret", value, enabled (default true), notBefore?, expires?}`,
//! private to a tenant and environment, read and written by `admin` and above. The value is
//! sealed with AES-256-GCM under the platform's secret key, with the tenant, environment and id
//! as associated data (a sealed value cannot be moved to another secret); everything else is
//! stored in clear. Lists never show values. A secret that is disabled or outside
//! `notBefore..=expires` is returned with `"active": false`, and scripts asking for its value
//! get an error saying why.
//!
//! The key ([`crate::seal::SecretKey`]) comes from the server's configuration or a file beside
//! the database; an in-memory platform uses a random key.

use crate::auth::{Principal, Role};
use crate::clock::format_instant;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::Scope;
use crate::json::json_kind;
use crate::seal::SecretKey;
use crate::store::SecretRow;
use crate::Platform;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use serde_json::{json, Map, Value};

/// `_type` of a secret.
pub const SECRET_TYPE: &str = "VarSecret";

fn aad(scope: &Scope, id: &str) -> Vec<u8> {
    format!("{}\n{}\n{id}", scope.tenant, scope.env).into_bytes()
}

/// Parses a bound (`notBefore`, `expires`): a date (the whole day counts, so an `end` date
/// ends with the next day's start) or an instant.
fn checked_bound(name: &str, text: &str, end: bool) -> Result<DateTime<Utc>> {
    if let Ok(d) = DateTime::parse_from_rfc3339(text) {
        return Ok(d.with_timezone(&Utc));
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| {
        Error::invalid_body(format!(
            "{name} \"{text}\" is not a date (YYYY-MM-DD) or an RFC 3339 instant"
        ))
    })?;
    let day = if end {
        date.succ_opt().unwrap_or(date)
    } else {
        date
    };
    Ok(day.and_time(NaiveTime::MIN).and_utc())
}

/// Parses a bound as sent or stored: absent or null (none), or a date or instant.
fn bound_of(name: &str, v: Option<&Value>, end: bool) -> Result<Option<DateTime<Utc>>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => checked_bound(name, s, end).map(Some),
        Some(other) => Err(Error::invalid_body(format!(
            "{name} must be a date string, not {}",
            json_kind(other)
        ))),
    }
}

/// Why a secret is not usable at `now`, if it is not.
pub fn inactive_reason(meta: &Map<String, Value>, now: DateTime<Utc>) -> Option<String> {
    let id = meta.get("_id").and_then(Value::as_str).unwrap_or_default();
    if meta.get("enabled").and_then(Value::as_bool) == Some(false) {
        return Some(format!("secret \"{id}\" is disabled"));
    }
    if let Ok(Some(nb)) = bound_of("notBefore", meta.get("notBefore"), false) {
        if now < nb {
            return Some(format!(
                "secret \"{id}\" is not valid before {}",
                meta["notBefore"].as_str().unwrap_or_default()
            ));
        }
    }
    if let Ok(Some(ex)) = bound_of("expires", meta.get("expires"), true) {
        if now >= ex {
            return Some(format!(
                "secret \"{id}\" expired on {}",
                meta["expires"].as_str().unwrap_or_default()
            ));
        }
    }
    None
}

mod secret;
#[cfg(test)]
mod tests;

pub use secret::{DeletedSecret, Secret, StoredSecret};

/// Sealed values (AES-256-GCM) that scripts, webhooks and extensions use, kept per tenant
/// and environment; every call needs role `admin`. From `Platform::secrets`.
///
/// The service holds the platform it runs on: its store (secrets are rows of their own, and a
/// write emits its event in the same transaction), its clock (whether a secret is active) and
/// the key values are sealed with.
///
/// ```
/// use platform_core::api::secrets::Secret;
/// let platform = platform_core::Platform::in_memory()?;
/// let admin = platform.tenancy().local_principal("default", "admin")?;
/// let saved = platform.secrets().save(&admin, &Secret::new("hook", "s3cret"))?;
/// assert!(saved.active && saved.secret.value.is_none());
/// assert_eq!(platform.secrets().value(&admin, "hook")?, "s3cret");
/// let read = platform.secrets().secret(&admin, "hook")?;
/// assert_eq!(read.secret.value.as_deref(), Some("s3cret"));
/// assert_eq!(platform.secrets().secrets(&admin)?.len(), 1);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Secrets<'p> {
    platform: &'p Platform,
}

impl<'p> Secrets<'p> {
    /// The secret service of `platform`.
    pub(crate) fn of(platform: &'p Platform) -> Self {
        Secrets { platform }
    }

    fn key(&self) -> Result<&'p SecretKey> {
        self.platform
            .secret_key
            .as_deref()
            .ok_or_else(|| Error::Internal("no secret key: the platform could not make one".into()))
    }

    /// A stored secret as answered, its value given where read.
    fn stored(&self, row: &SecretRow, value: Option<String>) -> StoredSecret {
        let active = inactive_reason(&row.meta, self.platform.now()).is_none();
        StoredSecret::of_row(row, value, active)
    }

    /// Refuses a caller who may not write secrets (an admin may), as [`Secrets::save`] does
    /// first: a front end asks it before it reads a body, so a caller who may not write is
    /// told so whatever the body holds.
    pub fn may_write(&self, p: &Principal) -> Result<()> {
        p.require(Role::Admin, "writing secrets")
    }

    /// Creates or updates a secret: what is `None` stays as stored, the value included (a new
    /// secret needs one; a new value starts the secret's fields afresh). Returns it without
    /// its value.
    pub fn save(&self, p: &Principal, secret: &Secret) -> Result<StoredSecret> {
        self.may_write(p)?;
        secret.check()?;
        let (scope, id) = (p.private_scope(), &secret.id);
        let at = self.platform.now();
        let now = format_instant(at);
        let row = self.platform.write(|tx| {
            tx.hold(&[crate::store::Hold::Secret(&scope, id)])?;
            let old = tx.secret(&scope, id)?;
            let action = if old.is_some() { "update" } else { "create" };
            let (mut meta, nonce, ciphertext) = match (old, &secret.value) {
                (_, Some(v)) => {
                    let (n, c) = self.key()?.seal(v.as_bytes(), &aad(&scope, id))?;
                    (Map::new(), n, c)
                }
                (Some(old), None) => (old.meta, old.nonce, old.ciphertext),
                (None, None) => {
                    return Err(Error::new(
                        ErrorCode::MissingParameter,
                        format!("secret \"{id}\" has no value"),
                    ));
                }
            };
            if meta.is_empty() {
                meta.insert("_id".into(), Value::String(id.clone()));
                meta.insert("_type".into(), Value::String(SECRET_TYPE.into()));
                meta.insert("enabled".into(), Value::Bool(true));
            }
            secret.write_into(&mut meta);
            let row = SecretRow {
                id: id.clone(),
                meta,
                nonce,
                ciphertext,
                updated: at,
                user: p.user.clone(),
            };
            tx.put_secret(&scope, &row)?;
            // The event carries the metadata only, never the value.
            crate::events::emit(
                tx,
                p,
                &scope,
                "secret",
                id,
                action,
                &now,
                Value::Object(row.meta.clone()),
            )?;
            Ok(row)
        })?;
        Ok(self.stored(&row, None))
    }

    /// One secret with its value.
    pub fn secret(&self, p: &Principal, id: &str) -> Result<StoredSecret> {
        p.require(Role::Admin, "reading secrets")?;
        let scope = p.private_scope();
        let row = self
            .platform
            .read()?
            .secret(&scope, id)?
            .ok_or_else(|| Error::not_found(format!("secret \"{id}\" not found")))?;
        let value = self
            .key()?
            .open(&row.nonce, &row.ciphertext, &aad(&scope, id))?;
        Ok(self.stored(&row, Some(String::from_utf8_lossy(&value).into_owned())))
    }

    /// Every secret of the caller's tenant and environment, by id, without values.
    pub fn secrets(&self, p: &Principal) -> Result<Vec<StoredSecret>> {
        p.require(Role::Admin, "listing secrets")?;
        let rows = self.platform.read()?.secrets(&p.private_scope())?;
        Ok(rows.iter().map(|r| self.stored(r, None)).collect())
    }

    /// Deletes a secret.
    pub fn delete(&self, p: &Principal, id: &str) -> Result<DeletedSecret> {
        p.require(Role::Admin, "deleting secrets")?;
        let scope = p.private_scope();
        let now = format_instant(self.platform.now());
        let gone = self.platform.write(|tx| {
            tx.hold(&[crate::store::Hold::Secret(&scope, id)])?;
            let gone = tx.delete_secret(&scope, id)?;
            if gone {
                crate::events::emit(
                    tx,
                    p,
                    &scope,
                    "secret",
                    id,
                    "delete",
                    &now,
                    json!({"_id": id}),
                )?;
            }
            Ok(gone)
        })?;
        if !gone {
            return Err(Error::not_found(format!("secret \"{id}\" not found")));
        }
        Ok(DeletedSecret {
            id: id.to_string(),
            deleted: true,
        })
    }

    /// The value of a secret for a script running as `p`: refused (with the reason) when the
    /// secret is disabled, not yet valid or expired.
    pub fn value(&self, p: &Principal, id: &str) -> Result<String> {
        self.value_in(self.platform.read()?.as_ref(), p, id)
    }

    /// [`Secrets::value`] inside a transaction the caller holds.
    pub(crate) fn value_in(
        &self,
        tx: &dyn crate::store::ReadTx,
        p: &Principal,
        id: &str,
    ) -> Result<String> {
        let scope = p.private_scope();
        let row = tx
            .secret(&scope, id)?
            .ok_or_else(|| Error::not_found(format!("secret \"{id}\" not found")))?;
        if let Some(why) = inactive_reason(&row.meta, self.platform.now()) {
            return Err(Error::forbidden(why));
        }
        let value = self
            .key()?
            .open(&row.nonce, &row.ciphertext, &aad(&scope, id))?;
        Ok(String::from_utf8_lossy(&value).into_owned())
    }
}
