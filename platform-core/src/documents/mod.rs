//! Versioned documents: what every versioned service (objects, types, scripts, calendars,
//! validation configurations, extensions) shares below its own rules.
//!
//! Here the options of a save, what documents are called and which of their properties hold
//! data ([`DataKind`]); `read` gets, lists and audits, `request` reads a list request, `render`
//! shapes a stored version as the caller may see it, `access` says where an id lives and who
//! may write there. Saving a document, with everything a save sets off, is `crate::save`.

pub(crate) mod access;
mod printed;
pub(crate) mod read;
pub(crate) mod render;
mod request;
mod service;
pub(crate) mod version;

pub(crate) use access::require_write;
pub use render::render;
pub(crate) use render::{render_owned, visible};
pub use request::ListRequest;
pub use service::Objects;
pub use version::{Deletion, ObjectVersion, TaggedVersion};
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use request::SEARCH_RESULT_FIELDS;

use crate::error::{Error, Result};
use crate::ids::{Source, VersionRef};
use crate::query::Params;
use crate::store::Collection;
use serde_json::Value;

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
    pub on_duplicate: OnDuplicate,
    /// The observations of each series sent replace the stored ones, while the document
    /// merges (`_replaceData=true`); with `replace` they are replaced anyway.
    pub replace_data: bool,
    /// The contracts of each curve sent are merged into the stored curve of their ondate by
    /// contract, instead of replacing it (`_merge=true`).
    pub merge_contracts: bool,
}

impl SaveOptions {
    /// Reads `_replace`, `_replaceData`, `_merge`, `_reason` and `_onDuplicate`.
    pub fn from_params(params: &Params, source: Option<Source>) -> Result<SaveOptions> {
        Ok(SaveOptions {
            replace: params.flag("_replace")?,
            replace_data: params.flag("_replaceData")?,
            merge_contracts: params.flag("_merge")?,
            reason: params.get("_reason").map(str::to_string),
            source,
            on_duplicate: params
                .get("_onDuplicate")
                .map(OnDuplicate::parse)
                .transpose()?
                .unwrap_or_default(),
        })
    }
}

/// What a save does with a payload that holds one instant more than once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnDuplicate {
    /// Refuse the payload, naming the instant and where it repeats (the default: nothing is
    /// merged silently).
    #[default]
    Reject,
    /// Keep the first observation of the instant in payload order.
    First,
    /// Keep the last observation of the instant in payload order.
    Last,
}

impl OnDuplicate {
    /// `reject`, `first` or `last` (case-insensitive).
    pub fn parse(text: &str) -> Result<OnDuplicate> {
        match text.trim().to_ascii_lowercase().as_str() {
            "reject" => Ok(OnDuplicate::Reject),
            "first" => Ok(OnDuplicate::First),
            "last" => Ok(OnDuplicate::Last),
            _ => Err(Error::invalid_parameter(format!(
                "on-duplicate \"{text}\" is not one of reject, first, last"
            ))),
        }
    }
}

/// `_type` of a time series.
pub const SERIES_TYPE: &str = "VarTimeSeries";
/// `_type` of a curve.
pub const CURVE_TYPE: &str = "VarCurve";
/// What kind of data a property holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataKind {
    /// A time series.
    Series,
    /// A curve (one per ondate).
    Curve,
}

impl DataKind {
    /// The kind of a property value, if it is a data property.
    pub fn of(value: &Value) -> Option<DataKind> {
        value.as_object().and_then(DataKind::of_header)
    }

    /// The kind of a data property's header (its fields), if it is one.
    pub fn of_header(header: &serde_json::Map<String, Value>) -> Option<DataKind> {
        DataKind::of_type(header.get("_type").and_then(Value::as_str))
    }

    /// The kind a data property's `_type` names, if it names one.
    pub fn of_type(kind: Option<&str>) -> Option<DataKind> {
        match kind {
            Some(SERIES_TYPE) => Some(DataKind::Series),
            Some(CURVE_TYPE) => Some(DataKind::Curve),
            _ => None,
        }
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
