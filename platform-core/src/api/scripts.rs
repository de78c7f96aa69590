//! The script service: [`Scripts`].

use crate::auth::Principal;
use crate::error::Result;
use crate::Platform;
use serde_json::Value;

/// Scripts stored in the script service (saved and read as documents through
/// [`Platform::objects`] with [`crate::api::Collection::Script`]); this handle renders
/// mustache templates. From [`Platform::scripts`].
///
/// ```
/// use platform_core::api::Collection;
/// use serde_json::json;
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// platform.objects().save(&me, Collection::Script, json!({
///     "_id": "hello", "scriptType": "mustache", "script": "Hello {{name}}!"
/// }), &Default::default())?;
/// let text = platform.scripts().render_template(&me, "hello", &json!({"name": "NBP"}))?;
/// assert_eq!(text, "Hello NBP!");
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Scripts<'p> {
    pub(super) platform: &'p Platform,
}

impl Scripts<'_> {
    /// Renders `data` with the mustache template script `template_id`.
    ///
    /// A template that does not exist is `NOT_FOUND`; one that is not a mustache script or does
    /// not compile is `INVALID_PARAMETER`, naming `_template`.
    pub fn render_template(
        &self,
        p: &Principal,
        template_id: &str,
        data: &Value,
    ) -> Result<String> {
        self.platform.render_template(p, template_id, data)
    }
}
