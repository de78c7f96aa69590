//! Versioned documents: the rules shared by every versioned service (objects, types...).
//!
//! | Call | Rule |
//! |---|---|
//! | save, id absent | stored as version 1 |
//! | save (merge) | each top-level field sent replaces the stored one, fields not sent stay; when the result equals the stored document nothing is written |
//! | save `_replace` | the document becomes exactly what was sent |
//! | save, unversioned type | the document is overwritten in place and keeps `_version` 1 |
//! | tag | the tag moves to the named version |
//! | delete latest | the previous version becomes current (rollback); the only version: absent |
//! | delete a version | removed; if it was current, the previous becomes current |
//! | delete all | every version removed |
//!
//! The current version is always the highest remaining number, and a new version takes the
//! current number plus one. System fields (`_oid _timestamp _user _tag _version _reason`) are
//! computed on read and ignored on write. A non-current version is shown with
//! `_id = "<id>/<version>"` (its address) and `_oid = "<id>"`.
//!
//! Here the options and what documents are called; `save` writes a document (merged or
//! replaced, its data apart), `change` tags and deletes versions, `read` gets, lists and
//! audits, `request` reads a list request, `render` shapes a stored version as the caller may
//! see it, `access` says where an id lives and who may write there.

mod access;
mod change;
pub(crate) mod read;
mod render;
mod request;
mod retention;
mod save;
#[cfg(test)]
mod tests;

pub(crate) use access::require_write;
pub use render::render;
pub(crate) use render::visible;
pub use request::{ListRequest, SEARCH_RESULT_FIELDS};

use crate::error::Result;
use crate::ids::{Source, VersionRef};
use crate::query::Params;
use crate::store::Collection;

/// Fields only the platform writes (extension bookkeeping); ignored when sent.
pub const PLATFORM_FIELDS: [&str; 3] = ["_bundle", "_installedVersion", "_publishedBy"];

/// Fields the platform computes; ignored when sent.
pub const SYSTEM_FIELDS: [&str; 6] = ["_oid", "_timestamp", "_user", "_tag", "_version", "_reason"];

/// Options of a save.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SaveOptions {
    /// Replace instead of merge (`_replace=true`).
    pub replace: bool,
    /// The `_reason` to store with the new version.
    pub reason: Option<String>,
    /// The source named in the path, if any; every id must belong to it.
    pub source: Option<Source>,
    /// What a series payload holding one instant twice does (`_onDuplicate`).
    pub on_duplicate: crate::data::series::OnDuplicate,
    /// The observations of each series sent replace the stored ones, while the document
    /// merges (`_replaceData=true`); with `replace` they are replaced anyway.
    pub replace_data: bool,
}

impl SaveOptions {
    /// Reads `_replace`, `_replaceData`, `_reason` and `_onDuplicate`.
    pub fn from_params(params: &Params, source: Option<Source>) -> Result<SaveOptions> {
        Ok(SaveOptions {
            replace: params.flag("_replace")?,
            replace_data: params.flag("_replaceData")?,
            reason: params.get("_reason").map(str::to_string),
            source,
            on_duplicate: params
                .get("_onDuplicate")
                .map(crate::data::series::OnDuplicate::parse)
                .transpose()?
                .unwrap_or_default(),
        })
    }
}

/// What to delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeleteTarget {
    /// The current version (a rollback).
    Latest,
    /// One version, by number or tag.
    Version(VersionRef),
    /// Every version.
    All,
}

impl Collection {
    /// The `_type` given to documents saved without one.
    pub fn default_type(self) -> &'static str {
        match self {
            Collection::Object => "#Object",
            Collection::Type => "VarType",
            Collection::Script => "VarScript",
            Collection::Extension => "VarExtension",
            Collection::ValidationConfig => "VarValidationConfig",
            Collection::Calendar => crate::calendars::CALENDAR_TYPE,
        }
    }

    /// What the documents are called in messages.
    pub fn noun(self) -> &'static str {
        match self {
            Collection::Object => "object",
            Collection::Type => "type",
            Collection::Script => "script",
            Collection::Extension => "extension",
            Collection::ValidationConfig => "validation configuration",
            Collection::Calendar => "calendar",
        }
    }

    /// Whether ids choose the source (`#` public, else private); extensions are addressed by
    /// the source in the path instead.
    pub fn sourced_by_hash(self) -> bool {
        !matches!(self, Collection::Extension | Collection::ValidationConfig)
    }
}
