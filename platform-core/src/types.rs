//! The type service's rules: type definitions, their hierarchy, and which types are versioned.
//!
//! A type is a document `{_id, _extends, _versioned, description, properties}` in the public
//! (`#`) or private source. `_extends` names the parent (default `#Object`); `_versioned: false`
//! makes objects of the type overwrite in place. A `_type` that has no definition is versioned,
//! with `#Object` as its only ancestor.

use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::ids::{validate_id, Scope, Source};
use crate::json::json_kind;
use crate::query::{ListQuery, Paging};
use crate::store::{Collection, DocumentRead};
use crate::Platform;
use serde_json::{Map, Value};

/// The root of every type hierarchy.
pub const ROOT_TYPE: &str = "#Object";

/// What an object's type says of its versions: whether each save keeps a new one, and how
/// many are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VersionRules {
    pub(crate) versioned: bool,
    pub(crate) retention: Option<Retention>,
}

impl Platform {
    /// The version rules of documents of `type_name` in `coll`, read from its type definition
    /// in one look-up (an object whose type has no definition, and any other document, keep
    /// every version without a retention policy).
    pub(crate) fn version_rules(
        &self,
        tx: &dyn DocumentRead,
        p: &Principal,
        coll: Collection,
        type_name: &str,
    ) -> Result<VersionRules> {
        let mut rules = VersionRules {
            versioned: true,
            retention: None,
        };
        if coll != Collection::Object
            || type_name.is_empty()
            || validate_id(type_name, "_type").is_err()
        {
            return Ok(rules);
        }
        let scope = Scope::for_source(Source::of_id(type_name), p);
        if let Some(def) = tx.current(Collection::Type, &scope, type_name)? {
            rules.versioned = def
                .body
                .get("_versioned")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            rules.retention = Retention::of(&def.body)?;
        }
        Ok(rules)
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

/// The most fields a type's `_indexes` may name.
pub const MAX_TYPE_INDEXES: usize = 8;

/// The fields a type definition indexes for its objects (`_indexes`, empty without it): a
/// list of at most [`MAX_TYPE_INDEXES`] distinct dotted field paths of letters, digits, `_`
/// and `-`. A malformed list is a 400 naming the entry.
pub fn indexes_of(def: &Map<String, Value>) -> Result<Vec<String>> {
    let list = match def.get("_indexes") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "_indexes must be a list of field paths, not {}",
                json_kind(other)
            )))
        }
    };
    if list.len() > MAX_TYPE_INDEXES {
        return Err(Error::invalid_body(format!(
            "_indexes names {} fields; a type indexes at most {MAX_TYPE_INDEXES}",
            list.len()
        )));
    }
    let mut fields: Vec<String> = Vec::with_capacity(list.len());
    for entry in list {
        let Value::String(field) = entry else {
            return Err(Error::invalid_body(format!(
                "_indexes entry {entry} is not a field path (a string)"
            )));
        };
        let bad = |why: &str| {
            Error::invalid_body(format!(
                "_indexes entry \"{}\" {why}",
                crate::ids::shorten(field)
            ))
        };
        let segment_ok = |seg: &str| {
            !seg.is_empty()
                && seg.len() <= 64
                && seg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        if field.len() > 200 || !field.split('.').all(segment_ok) {
            return Err(bad(
                "is not a field path: dot-separated names of letters, digits, _ and -",
            ));
        }
        if field == "_id" {
            return Err(bad("is always indexed"));
        }
        if fields.contains(field) {
            return Err(bad("is listed twice"));
        }
        fields.push(field.clone());
    }
    Ok(fields)
}

/// Makes the store's per-type indexes of objects of the type `id` of `scope` those its
/// current definition names (none once the type is gone): called after every change to which
/// version of a type is current.
pub(crate) fn sync_type_indexes(
    tx: &mut dyn crate::store::DocumentWrite,
    scope: &Scope,
    id: &str,
) -> Result<()> {
    let fields = match tx.current(Collection::Type, scope, id)? {
        Some(def) => indexes_of(&def.body)?,
        None => Vec::new(),
    };
    tx.set_type_indexes(scope, id, &fields)
}

/// How many versions objects of a type keep (`_retention` on the type definition).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// The newest versions kept (the current one among them), at least 1.
    pub keep_versions: Option<u32>,
    /// Tagged versions are kept whatever their age or rank.
    pub keep_tagged: bool,
    /// Versions older than this many days go (never the current one).
    pub max_age_days: Option<u32>,
}

impl Retention {
    /// The policy of a type definition (`None` without `_retention`); a malformed one is a
    /// 400 naming its field.
    pub fn of(def: &Map<String, Value>) -> Result<Option<Retention>> {
        let Some(spec) = def.get("_retention") else {
            return Ok(None);
        };
        let Value::Object(spec) = spec else {
            return Err(Error::invalid_body(format!(
                "_retention must be an object {{keepVersions, keepTagged, maxAgeDays}}, not {}",
                json_kind(spec)
            )));
        };
        if let Some(k) = spec
            .keys()
            .find(|k| !["keepVersions", "keepTagged", "maxAgeDays"].contains(&k.as_str()))
        {
            return Err(Error::invalid_body(format!(
                "_retention.{k} is not a field: use keepVersions, keepTagged, maxAgeDays"
            )));
        }
        let count = |name: &str| -> Result<Option<u32>> {
            match spec.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_u64()
                    .filter(|n| *n >= 1 && *n <= u64::from(u32::MAX))
                    .map(|n| Some(n as u32))
                    .ok_or_else(|| {
                        Error::invalid_body(format!(
                            "_retention.{name} must be a whole number of at least 1, not {v}"
                        ))
                    }),
            }
        };
        let keep_tagged = match spec.get("keepTagged") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "_retention.keepTagged must be a boolean, not {}",
                    json_kind(other)
                )))
            }
        };
        let policy = Retention {
            keep_versions: count("keepVersions")?,
            keep_tagged,
            max_age_days: count("maxAgeDays")?,
        };
        if policy.keep_versions.is_none() && policy.max_age_days.is_none() {
            return Err(Error::invalid_body(
                "_retention needs keepVersions or maxAgeDays",
            ));
        }
        Ok(Some(policy))
    }

    /// The versions (oldest first, the last current) this policy removes at `now`.
    pub fn doomed(
        &self,
        versions: &[crate::store::StoredVersion],
        now: chrono::DateTime<chrono::Utc>,
    ) -> Vec<u32> {
        let Some(current) = versions.iter().map(|v| v.version).max() else {
            return Vec::new();
        };
        let n = versions.len();
        versions
            .iter()
            .enumerate()
            .filter(|(_, v)| v.version != current)
            .filter(|(_, v)| !self.keep_tagged || v.tags.is_empty())
            .filter(|(i, v)| {
                let beyond = self.keep_versions.is_some_and(|k| n - i > k as usize);
                let old = self
                    .max_age_days
                    .is_some_and(|d| v.timestamp < now - chrono::TimeDelta::days(i64::from(d)));
                beyond || old
            })
            .map(|(_, v)| v.version)
            .collect()
    }
}

pub(crate) fn check_type_definition(
    tx: &dyn DocumentRead,
    p: &Principal,
    fields: &Map<String, Value>,
) -> Result<()> {
    Retention::of(fields)?;
    indexes_of(fields)?;
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
