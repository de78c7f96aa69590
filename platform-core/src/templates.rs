//! Rendering items with mustache templates stored in the script service (`Accept: text/html`
//! with `_template=<script id>`). Partials (`{{> id}}`) are other template scripts, loaded by id
//! from the same sources, to any depth.

use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::format::template;
use crate::ids::{validate_id, Scope, Source};
use crate::scripts::source_of;
use crate::store::{Collection, DocumentRead};
use crate::Platform;
use serde_json::Value;
use std::collections::HashMap;

/// Most partials one rendering may load.
const MAX_PARTIALS: usize = 64;

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
    platform: &'p Platform,
}

impl<'p> Scripts<'p> {
    /// The script service of `platform`.
    pub(crate) fn of(platform: &'p Platform) -> Self {
        Scripts { platform }
    }

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
        self.render_template_from(p, template_id, data, None)
    }

    /// [`Scripts::render_template`] for a program confined to the private source: `holder`
    /// names it in the refusal of a public (`#`) template or partial.
    pub(crate) fn render_template_from(
        &self,
        p: &Principal,
        template_id: &str,
        data: &Value,
        private_only: Option<&str>,
    ) -> Result<String> {
        validate_id(template_id, "_template")?;
        let tx = self.platform.read()?;
        let load = |id: &str| {
            if let Some(holder) = private_only {
                if Source::of_id(id) == Source::Public {
                    return Err(Error::forbidden(format!(
                        "{holder} renders only the tenant's private scripts, not \"{id}\""
                    )));
                }
            }
            load_template(tx.as_ref(), p, id)
        };
        let main = load(template_id)?.ok_or_else(|| {
            Error::not_found(format!("_template \"{template_id}\": no such script"))
        })?;
        let mut partials = HashMap::new();
        let mut pending = template::partial_names(&main);
        while let Some(name) = pending.pop() {
            if partials.contains_key(&name) || validate_id(&name, "partial").is_err() {
                continue;
            }
            if partials.len() >= MAX_PARTIALS {
                return Err(Error::invalid_parameter(format!(
                    "_template \"{template_id}\" uses more than {MAX_PARTIALS} partials"
                )));
            }
            let source = load(&name)?.unwrap_or_default();
            pending.extend(template::partial_names(&source));
            partials.insert(name, source);
        }
        template::render(&main, data, &partials).map_err(|e| {
            Error::invalid_parameter(format!(
                "_template \"{template_id}\": {}",
                e.public_message()
            ))
        })
    }
}

/// The source of a mustache template script, if it exists.
fn load_template(tx: &dyn DocumentRead, p: &Principal, id: &str) -> Result<Option<String>> {
    let scope = Scope::for_source(Source::of_id(id), p);
    let Some(doc) = tx.current(Collection::Script, &scope, id)? else {
        return Ok(None);
    };
    let (source, kind) = source_of(&doc.body);
    if kind != "mustache" {
        return Err(Error::invalid_parameter(format!(
            "_template \"{id}\" is a {kind} script, not a mustache template"
        )));
    }
    Ok(Some(source.to_string()))
}
