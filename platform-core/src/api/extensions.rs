//! The extension service: [`Extensions`].

use crate::auth::Principal;
use crate::error::Result;
use crate::query::Params;
use crate::realtime::Subscription;
use crate::Platform;
use serde_json::Value;

/// Extensions: drafts with their resources, published to the public catalogue, installed by
/// tenants (granting the permissions they ask for), their views and realtime messages. From
/// [`Platform::extensions`].
///
/// ```
/// use serde_json::json;
/// let platform = platform_core::Platform::in_memory()?;
/// let admin = platform.tenancy().local_principal("default", "admin")?;
/// let draft = platform.extensions().save(&admin, json!({"_id": "acme.hello", "publisher": "acme", "code": "hello", "name": "Hello"}))?;
/// assert_eq!(draft["_version"], 1);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Extensions<'p> {
    pub(super) platform: &'p Platform,
}

impl Extensions<'_> {
    /// Saves an extension draft to the caller's private source (like any versioned document).
    pub fn save(&self, p: &Principal, body: Value) -> Result<Value> {
        self.platform.save_extension(p, body)
    }

    /// Publishes the caller's private extension `id` to the public catalogue, with a snapshot
    /// of its resources.
    pub fn publish(&self, p: &Principal, id: &str) -> Result<Value> {
        self.platform.publish_extension(p, id)
    }

    /// Installs or upgrades a published extension into the caller's private source, granting
    /// it the permissions in `accept` (each must be one the extension declares).
    pub fn install(&self, p: &Principal, id: &str, accept: &[String]) -> Result<Value> {
        self.platform.install_extension(p, id, accept)
    }

    /// Uninstalls an installed extension: removes its copied resources, then runs `uninstall`.
    pub fn uninstall(&self, p: &Principal, id: &str) -> Result<Value> {
        self.platform.uninstall_extension(p, id)
    }

    /// Renders a view of an extension in the caller's private source (`Accept: text/html`).
    pub fn render_view(
        &self,
        p: &Principal,
        id: &str,
        view_name: &str,
        params: &Params,
    ) -> Result<String> {
        self.platform.render_view(p, id, view_name, params)
    }

    /// Sends `{"message": "<timestamp> <text>"}` to an extension's realtime channel.
    pub fn message(&self, p: &Principal, ext: &str, text: &str) {
        self.platform.extension_message(p, ext, text)
    }

    /// A subscription of `p` to the messages of extension `topic` (or of every extension),
    /// in the caller's tenant and environment; `_limit=N` ends it after N messages.
    pub fn subscribe(
        &self,
        p: &Principal,
        topic: Option<&str>,
        params: &Params,
    ) -> Result<Subscription> {
        self.platform.subscribe_extension_messages(p, topic, params)
    }
}
