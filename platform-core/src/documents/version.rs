//! One entry of a document's version list ([`ObjectVersion`]): what
//! `GET /{service}/v1/{source}/{id}/*` answers for each version, made from the stored version,
//! and written by serde as that answer is.

use crate::store::StoredVersion;
use chrono::{DateTime, Utc};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde::Serialize as DeriveSerialize;

/// One version of a document (an object, a type, a script, a validation configuration...):
/// its system fields, without its properties ([`super::Objects::versions`]).
///
/// Its serde form is the entry of the version list on the wire: `_id` (the id for the current
/// version, `ID/N` for an older one), `_oid`, `_type`, `_version`, `_timestamp`, `_user`,
/// `_tag`, `_current` and `_reason` (null when none), in that order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectVersion {
    /// The document's id (`_oid`).
    pub id: String,
    /// The version number (`_version`), from 1.
    pub version: u32,
    /// The type of the version (`_type`).
    pub type_name: String,
    /// When the version was saved (`_timestamp`).
    pub timestamp: DateTime<Utc>,
    /// Who saved it (`_user`).
    pub user: String,
    /// The tags on the version (`_tag`).
    pub tags: Vec<String>,
    /// The reason stored with it (`_reason`).
    pub reason: Option<String>,
    /// Whether it is the current version (`_current`).
    pub current: bool,
}

impl ObjectVersion {
    /// The entry of a stored version, current or not.
    pub(crate) fn of(v: &StoredVersion, current: bool) -> ObjectVersion {
        ObjectVersion {
            id: v.id.clone(),
            version: v.version,
            type_name: v.type_name().to_string(),
            timestamp: v.timestamp,
            user: v.user.clone(),
            tags: v.tags.clone(),
            reason: v.reason.clone(),
            current,
        }
    }
}

impl Serialize for ObjectVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(9))?;
        if self.current {
            map.serialize_entry("_id", &self.id)?;
        } else {
            map.serialize_entry("_id", &format!("{}/{}", self.id, self.version))?;
        }
        map.serialize_entry("_oid", &self.id)?;
        map.serialize_entry("_type", &self.type_name)?;
        map.serialize_entry("_version", &self.version)?;
        map.serialize_entry("_timestamp", &crate::clock::format_instant(self.timestamp))?;
        map.serialize_entry("_user", &self.user)?;
        map.serialize_entry("_tag", &self.tags)?;
        map.serialize_entry("_current", &self.current)?;
        map.serialize_entry("_reason", &self.reason)?;
        map.end()
    }
}

/// The version a tag was set on ([`super::Objects::tag`]), with every tag it now carries.
///
/// Its serde form is the answer on the wire (`_id`, `_version`, `_tag`).
#[derive(Debug, Clone, PartialEq, Eq, DeriveSerialize)]
pub struct TaggedVersion {
    /// The object's id (`_id`).
    #[serde(rename = "_id")]
    pub id: String,
    /// The version tagged (`_version`).
    #[serde(rename = "_version")]
    pub version: u32,
    /// The tags the version carries now (`_tag`), the new one among them.
    #[serde(rename = "_tag")]
    pub tags: Vec<String>,
}

/// What a deletion ([`super::Objects::delete`]) removed, and the version current after it.
///
/// Its serde form is the answer on the wire (`_id`, `deleted`, `current`).
#[derive(Debug, Clone, PartialEq, Eq, DeriveSerialize)]
pub struct Deletion {
    /// The object's id (`_id`).
    #[serde(rename = "_id")]
    pub id: String,
    /// The version numbers deleted.
    pub deleted: Vec<u32>,
    /// The version current now; `None` when no version is left.
    pub current: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn an_entry_is_written_as_the_version_list_answers_it() {
        let entry = ObjectVersion {
            id: "NBP".into(),
            version: 2,
            type_name: "#Object".into(),
            timestamp: Utc.with_ymd_and_hms(2024, 5, 14, 8, 30, 0).unwrap(),
            user: "ann".into(),
            tags: vec!["eod".into()],
            reason: None,
            current: false,
        };
        assert_eq!(
            serde_json::to_string(&entry).unwrap(),
            r##"{"_id":"NBP/2","_oid":"NBP","_type":"#Object","_version":2,"_timestamp":"2024-05-14T08:30:00.000Z","_user":"ann","_tag":["eod"],"_current":false,"_reason":null}"##
        );
        let current = ObjectVersion {
            current: true,
            reason: Some("fix".into()),
            ..entry
        };
        let text = serde_json::to_string(&current).unwrap();
        assert!(text.starts_with(r#"{"_id":"NBP","_oid":"NBP""#), "{text}");
        assert!(
            text.ends_with(r#""_current":true,"_reason":"fix"}"#),
            "{text}"
        );
    }
}
