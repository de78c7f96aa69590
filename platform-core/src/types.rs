//! The type service's rules: type definitions, their hierarchy, and which types are versioned.
//!
//! A type is a document `{_id, _extends, _versioned, description, properties}` in the public
//! (`#`) or private source. `_extends` names the parent (default `#Object`); `_versioned: false`
//! makes objects of the type overwrite in place. A `_type` that has no definition is versioned,
//! with `#Object` as its only ancestor.

use crate::auth::Principal;
use crate::documents::json_kind;
use crate::error::{Error, Result};
use crate::ids::{validate_id, Scope, Source};
use crate::query::{ListQuery, Paging};
use crate::store::{Collection, DocumentRead};
use crate::Platform;
use serde_json::{Map, Value};

/// The root of every type hierarchy.
pub const ROOT_TYPE: &str = "#Object";

impl Platform {
    /// Checks the fields of a document before it is saved (rules that depend on the collection).
    pub(crate) fn check_document(
        &self,
        tx: &dyn DocumentRead,
        p: &Principal,
        coll: Collection,
        fields: &Map<String, Value>,
    ) -> Result<()> {
        match coll {
            Collection::Object => Ok(()),
            Collection::Type => check_type_definition(tx, p, fields),
            Collection::Script => crate::scripts::check_script(fields),
            Collection::Extension => crate::extensions::check_extension(fields),
            Collection::ValidationConfig => crate::validation::check_config(tx, p, fields),
        }
    }

    /// Whether documents of `type_name` keep every version.
    pub(crate) fn is_versioned(
        &self,
        tx: &dyn DocumentRead,
        p: &Principal,
        coll: Collection,
        type_name: &str,
    ) -> Result<bool> {
        if coll != Collection::Object
            || type_name.is_empty()
            || validate_id(type_name, "_type").is_err()
        {
            return Ok(true);
        }
        let scope = Scope::for_source(Source::of_id(type_name), p);
        let Some(def) = tx.current(Collection::Type, &scope, type_name)? else {
            return Ok(true);
        };
        Ok(def
            .body
            .get("_versioned")
            .and_then(Value::as_bool)
            .unwrap_or(true))
    }
}

impl Platform {
    /// A type and every type that extends it, directly or not (types visible to the caller).
    pub(crate) fn type_family(
        &self,
        tx: &dyn DocumentRead,
        p: &Principal,
        root: &str,
    ) -> Result<Vec<String>> {
        let query = ListQuery {
            paging: Paging {
                skip: 0,
                limit: None,
            },
            ..ListQuery::default()
        };
        let types = tx.list(
            Collection::Type,
            &Scope::read_scopes(Source::All, p),
            &query,
        )?;
        let mut family = vec![root.to_string()];
        let mut i = 0;
        while i < family.len() {
            for t in &types.items {
                let parent = t
                    .body
                    .get("_extends")
                    .and_then(Value::as_str)
                    .unwrap_or(ROOT_TYPE);
                if parent == family[i] && !family.contains(&t.id) {
                    family.push(t.id.clone());
                }
            }
            i += 1;
        }
        Ok(family)
    }
}

fn check_type_definition(
    tx: &dyn DocumentRead,
    p: &Principal,
    fields: &Map<String, Value>,
) -> Result<()> {
    match fields.get("_versioned") {
        None | Some(Value::Bool(_)) => {}
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "_versioned must be a boolean, not {}",
                json_kind(other)
            )))
        }
    }
    match fields.get("properties") {
        None | Some(Value::Object(_)) | Some(Value::Null) => {}
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "properties must be an object, not {}",
                json_kind(other)
            )))
        }
    }
    match fields.get("_extends") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(parent)) => {
            validate_id(parent, "_extends")?;
            let own = fields
                .get("_id")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if parent == own {
                return Err(Error::invalid_body(format!(
                    "type \"{own}\" cannot extend itself"
                )));
            }
            // A cycle would make "#type=T" never end: walk the parent chain once.
            let mut seen = vec![own.to_string()];
            let mut next = Some(parent.clone());
            while let Some(t) = next {
                if seen.contains(&t) {
                    return Err(Error::invalid_body(format!(
                        "_extends \"{parent}\" would make a cycle: {} -> {t}",
                        seen.join(" -> ")
                    )));
                }
                let scope = Scope::for_source(Source::of_id(&t), p);
                next = tx.current(Collection::Type, &scope, &t)?.and_then(|d| {
                    d.body
                        .get("_extends")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
                seen.push(t);
            }
            Ok(())
        }
        Some(other) => Err(Error::invalid_body(format!(
            "_extends must be a string, not {}",
            json_kind(other)
        ))),
    }
}
