//! The secret service: [`Secrets`].

use crate::auth::Principal;
use crate::error::Result;
use crate::Platform;
use serde_json::Value;

/// Sealed values (AES-256-GCM) that scripts, webhooks and extensions use, kept per tenant
/// and environment; every call needs role `admin`. From [`Platform::secrets`].
///
/// ```
/// use serde_json::json;
/// let platform = platform_core::Platform::in_memory()?;
/// let admin = platform.tenancy().local_principal("default", "admin")?;
/// platform.secrets().save(&admin, json!({"_id": "hook", "value": "s3cret"}))?;
/// assert_eq!(platform.secrets().value(&admin, "hook")?, "s3cret");
/// assert_eq!(platform.secrets().list(&admin)?.len(), 1);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Secrets<'p> {
    pub(super) platform: &'p Platform,
}

impl Secrets<'_> {
    /// Creates or updates a secret (fields not sent stay, the value included). Returns it
    /// without its value.
    pub fn save(&self, p: &Principal, body: Value) -> Result<Value> {
        self.platform.save_secret(p, body)
    }

    /// One secret with its value.
    pub fn get(&self, p: &Principal, id: &str) -> Result<Value> {
        self.platform.get_secret(p, id)
    }

    /// Every secret of the caller's tenant and environment, without values.
    pub fn list(&self, p: &Principal) -> Result<Vec<Value>> {
        self.platform.list_secrets(p)
    }

    /// Deletes a secret.
    pub fn delete(&self, p: &Principal, id: &str) -> Result<Value> {
        self.platform.delete_secret(p, id)
    }

    /// The value of a secret for a script running as `p`: refused (with the reason) when the
    /// secret is disabled, not yet valid or expired.
    pub fn value(&self, p: &Principal, id: &str) -> Result<String> {
        self.platform.secret_value(p, id)
    }
}
