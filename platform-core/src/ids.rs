//! Addresses: sources, scopes, ids, version references and tag names, parsed once at the edge.
//!
//! An `_id` that starts with `#` lives in the public source; any other id lives in the caller's
//! private source (its tenant and environment). Ids are 1..=256 characters, case-sensitive, with
//! no control characters, no `/` (it separates path segments and marks archived versions) and no
//! `:` (reserved for data ids `OBJ:PROP[:ONDATE]`).

use crate::error::{Error, ErrorCode, Result};
use std::fmt;
use std::str::FromStr;

/// Maximum length of an id, in characters.
pub const MAX_ID_CHARS: usize = 256;
/// Maximum length of a tag name, in characters.
pub const MAX_TAG_CHARS: usize = 64;

/// Where a caller reads from or writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// Shared data, readable by every tenant, written by the `platform` role.
    Public,
    /// The caller's tenant, in the selected environment.
    Private,
    /// Both, for reads (the union, or fetches by id).
    All,
}

impl Source {
    /// The source an id belongs to by the `#` rule.
    pub fn of_id(id: &str) -> Source {
        if id.starts_with('#') {
            Source::Public
        } else {
            Source::Private
        }
    }

    /// The name used in paths.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Public => "public",
            Source::Private => "private",
            Source::All => "all",
        }
    }
}

impl FromStr for Source {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "public" => Ok(Source::Public),
            "private" => Ok(Source::Private),
            "all" => Ok(Source::All),
            other => Err(Error::not_found(format!(
                "unknown source \"{other}\": expected public, private or all"
            ))),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The partition a stored entity lives in: public (shared), or one tenant's environment.
///
/// The public scope is written as empty tenant and environment; no tenant can be named "".
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Scope {
    /// Tenant name, empty for public.
    pub tenant: String,
    /// Environment name, empty for public.
    pub env: String,
}

impl Scope {
    /// The shared public scope.
    pub fn public() -> Scope {
        Scope {
            tenant: String::new(),
            env: String::new(),
        }
    }

    /// A tenant's environment.
    pub fn private(tenant: &str, env: &str) -> Scope {
        Scope {
            tenant: tenant.to_string(),
            env: env.to_string(),
        }
    }

    /// Whether this is the public scope.
    pub fn is_public(&self) -> bool {
        self.tenant.is_empty()
    }
}

/// Checks an entity id against the id rules; `what` names the field in messages.
pub fn validate_id(id: &str, what: &str) -> Result<()> {
    let bad = |why: &str| {
        Error::new(
            ErrorCode::InvalidId,
            format!("invalid {what} \"{}\": {why}", shorten(id)),
        )
    };
    if id.is_empty() || id == "#" {
        return Err(Error::new(
            ErrorCode::InvalidId,
            format!("{what} must not be empty"),
        ));
    }
    if id.chars().count() > MAX_ID_CHARS {
        return Err(bad("longer than 256 characters"));
    }
    if id.chars().any(char::is_control) {
        return Err(bad("contains a control character"));
    }
    if id.contains('/') {
        return Err(bad(
            "contains '/' (an archived version's _id is <id>/<version>; the object id is its _oid)",
        ));
    }
    if id.contains(':') {
        return Err(bad("contains ':', which is reserved for data ids"));
    }
    if id == "*" {
        return Err(bad("'*' is reserved for version lists"));
    }
    Ok(())
}

/// A reference to one version: its number, or a tag name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionRef {
    /// A version number, from 1.
    Number(u32),
    /// A tag name.
    Tag(String),
    /// The version that was current at an instant (`_asof`).
    AsOf(chrono::DateTime<chrono::Utc>),
}

impl VersionRef {
    /// The `_asof` parameter: an RFC 3339 instant, or a date (its midnight UTC).
    pub fn as_of(text: &str) -> Result<VersionRef> {
        crate::clock::parse_instant(text)
            .or_else(|_| {
                chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                    .map(|d| d.and_time(chrono::NaiveTime::MIN).and_utc())
            })
            .map(VersionRef::AsOf)
            .map_err(|_| {
                Error::invalid_parameter(format!(
                    "_asof \"{}\" is not an instant (2024-10-27T10:00:00Z) or a date",
                    shorten(text)
                ))
            })
    }

    internal! {
        /// The version of these (oldest first) it names: for `AsOf`, the newest written at or
        /// before the instant.
        fn pick_as_of<V: Dated>(at: chrono::DateTime<chrono::Utc>, versions: &[V]) -> Option<u32> {
            versions
                .iter()
                .filter(|v| v.written() <= at)
                .map(Dated::number)
                .max()
        }
    }
}

/// A stored version as a version reference sees it: its number and when it was written.
pub trait Dated {
    /// The version number (from 1).
    fn number(&self) -> u32;
    /// When it was written.
    fn written(&self) -> chrono::DateTime<chrono::Utc>;
}

impl FromStr for VersionRef {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            return match s.parse::<u32>() {
                Ok(n) if n >= 1 => Ok(VersionRef::Number(n)),
                _ => Err(Error::not_found(format!("version {s} does not exist"))),
            };
        }
        validate_tag(s)?;
        Ok(VersionRef::Tag(s.to_string()))
    }
}

impl fmt::Display for VersionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionRef::Number(n) => write!(f, "version {n}"),
            VersionRef::Tag(t) => write!(f, "tag \"{t}\""),
            VersionRef::AsOf(t) => {
                write!(f, "version current at {}", crate::clock::format_instant(*t))
            }
        }
    }
}

/// Checks a tag name: 1..=64 characters, not all digits (those are version numbers), no `/`,
/// no control characters, not `*`.
pub fn validate_tag(tag: &str) -> Result<()> {
    let bad =
        |why: &str| Error::invalid_parameter(format!("invalid tag \"{}\": {why}", shorten(tag)));
    if tag.is_empty() {
        return Err(Error::invalid_parameter("tag name must not be empty"));
    }
    if tag.chars().count() > MAX_TAG_CHARS {
        return Err(bad("longer than 64 characters"));
    }
    if tag.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(
            "a tag cannot be a number (numbers are version numbers)",
        ));
    }
    if tag == "*" || tag.contains('/') || tag.chars().any(char::is_control) {
        return Err(bad("'*', '/' and control characters are not allowed"));
    }
    Ok(())
}

/// The first 80 characters of a text, for messages.
pub(crate) fn shorten(text: &str) -> String {
    if text.chars().count() <= 80 {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(80).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_rules() {
        for good in ["A", "#A", "AB.CD_1", "é", &"x".repeat(256)] {
            assert!(validate_id(good, "_id").is_ok(), "{good}");
        }
        for bad in ["", "#", "a/b", "a:b", "*", "a\nb", &"x".repeat(257)] {
            let err = validate_id(bad, "_id").unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidId, "{bad}");
        }
    }

    #[test]
    fn version_refs_parse_numbers_and_tags() {
        assert_eq!("3".parse::<VersionRef>().unwrap(), VersionRef::Number(3));
        assert_eq!(
            "gold".parse::<VersionRef>().unwrap(),
            VersionRef::Tag("gold".into())
        );
        assert_eq!(
            "0".parse::<VersionRef>().unwrap_err().code(),
            ErrorCode::NotFound
        );
        assert_eq!(
            "".parse::<VersionRef>().unwrap_err().code(),
            ErrorCode::InvalidParameter
        );
        assert!(validate_tag("12").is_err());
    }

    #[test]
    fn source_of_id_follows_the_hash_rule() {
        assert_eq!(Source::of_id("#X"), Source::Public);
        assert_eq!(Source::of_id("X"), Source::Private);
        assert_eq!(
            "nope".parse::<Source>().unwrap_err().code(),
            ErrorCode::NotFound
        );
    }
}
