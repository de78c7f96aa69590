//! The typed [`Object`] and the object service's typed calls over its JSON calls.

use crate::auth::Principal;
use crate::documents::Objects;
use crate::documents::{DeleteTarget, SaveOptions};
use crate::error::{Error, Result};
use crate::ids::{Source, VersionRef};
use crate::store::Collection;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One version of an object: its id, type and properties, and the system fields the platform
/// keeps with each version.
///
/// Its serde form is the object's JSON (`_id`, `_type`, `_version`, `_timestamp`, `_user`,
/// `_tag`, `_reason` and the properties), so an `Object` reads from and writes to the JSON the
/// server speaks. Saving sends the id, the type and the properties; the system fields are the
/// platform's and are not sent.
///
/// ```
/// use platform_core::api::objects::Object;
/// use serde_json::json;
/// let gb = Object::new("GB").with_type("#Country").with("name", "Great Britain");
/// assert_eq!(serde_json::to_value(&gb)?, json!({"_id": "GB", "_type": "#Country", "name": "Great Britain"}));
/// let back: Object = serde_json::from_value(json!({"_id": "GB", "_version": 3, "name": "Britain"}))?;
/// assert_eq!((back.version, back.properties["name"].as_str()), (Some(3), Some("Britain")));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Object {
    /// The id (`_id`); ids starting with `#` are public, others private to the tenant.
    #[serde(rename = "_id")]
    pub id: String,
    /// The type (`_type`); `None` leaves it to the platform (`#Object`) or to the stored
    /// version when merging.
    #[serde(rename = "_type", default, skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    /// The version number (`_version`), from 1; `None` for an object not saved yet.
    #[serde(rename = "_version", default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// When the version was saved (`_timestamp`).
    #[serde(
        rename = "_timestamp",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub timestamp: Option<DateTime<Utc>>,
    /// Who saved the version (`_user`).
    #[serde(rename = "_user", default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The tags on the version (`_tag`).
    #[serde(rename = "_tag", default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The reason stored with the version (`_reason`).
    #[serde(rename = "_reason", default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The properties: every other field, data properties (series and curve headers) included.
    #[serde(flatten)]
    pub properties: Map<String, Value>,
}

impl Object {
    /// A new object with this id, no type and no properties.
    ///
    /// ```
    /// let o = platform_core::api::objects::Object::new("NBP");
    /// assert_eq!((o.id.as_str(), o.version), ("NBP", None));
    /// ```
    pub fn new(id: impl Into<String>) -> Object {
        Object {
            id: id.into(),
            ..Object::default()
        }
    }

    /// The same object with this type.
    ///
    /// ```
    /// let o = platform_core::api::objects::Object::new("NBP").with_type("#Hub");
    /// assert_eq!(o.type_name.as_deref(), Some("#Hub"));
    /// ```
    pub fn with_type(self, type_name: impl Into<String>) -> Object {
        Object {
            type_name: Some(type_name.into()),
            ..self
        }
    }

    /// The same object with one more property (or that property replaced).
    ///
    /// ```
    /// let o = platform_core::api::objects::Object::new("NBP").with("currency", "GBP").with("lots", 5);
    /// assert_eq!(o.properties["lots"], 5);
    /// ```
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Value>) -> Object {
        self.properties.insert(name.into(), value.into());
        self
    }

    /// An object from the JSON of a stored version (an answer of [`Objects::get`]): the id of
    /// an old version (`ID/N`) is read from `_oid`, and `_oid` is not a property.
    ///
    /// ```
    /// use serde_json::json;
    /// let old = json!({"_id": "NBP/1", "_oid": "NBP", "_version": 1, "name": "hub"});
    /// let o = platform_core::api::objects::Object::from_json(old)?;
    /// assert_eq!((o.id.as_str(), o.version), ("NBP", Some(1)));
    /// assert!(!o.properties.contains_key("_oid"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn from_json(value: Value) -> Result<Object> {
        match value {
            Value::Object(map) => Object::from_document(map),
            other => Err(Error::invalid_body(format!(
                "an object is a JSON object, not {}",
                crate::json::json_kind(&other)
            ))),
        }
    }

    /// An object from a stored document: the system fields are taken out by name and every
    /// other field is a property (see [`Object::from_json`]). A system field of the wrong
    /// kind is refused, naming it.
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// let doc = |v: Value| v.as_object().unwrap().clone();
    /// let o = platform_core::api::objects::Object::from_document(doc(json!({
    ///     "_id": "NBP", "_version": 2, "_tag": ["eod"], "_timestamp": "2024-05-14T08:30:00.000Z",
    ///     "zone": "UK"})))?;
    /// assert_eq!((o.version, o.tags.as_slice(), o.properties.len()), (Some(2), &["eod".to_string()][..], 1));
    /// let e = platform_core::api::objects::Object::from_document(doc(json!({"_id": "NBP", "_version": "2"}))).unwrap_err();
    /// assert_eq!(e.public_message(), "not an object: _version is not a version number");
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn from_document(mut map: Map<String, Value>) -> Result<Object> {
        let bad = |field: &str, what: &str| {
            Error::invalid_body(format!("not an object: {field} is not {what}"))
        };
        let mut text = |field: &str| match map.remove(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(bad(field, "a string")),
        };
        let oid = text("_oid")?;
        let id = text("_id")?;
        let type_name = text("_type")?;
        let user = text("_user")?;
        let reason = text("_reason")?;
        let timestamp = text("_timestamp")?
            .map(|t| crate::clock::parse_instant(&t).map_err(|_| bad("_timestamp", "an instant")))
            .transpose()?;
        let version = match map.remove("_version") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| bad("_version", "a version number"))?,
            ),
        };
        let tags = match map.remove("_tag") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(tags)) => tags
                .into_iter()
                .map(|t| match t {
                    Value::String(s) => Ok(s),
                    _ => Err(bad("_tag", "a list of strings")),
                })
                .collect::<Result<_>>()?,
            Some(_) => Err(bad("_tag", "a list of strings"))?,
        };
        Ok(Object {
            id: oid
                .or(id)
                .ok_or_else(|| Error::invalid_body("not an object: _id is missing"))?,
            type_name,
            version,
            timestamp,
            user,
            tags,
            reason,
            properties: map,
        })
    }

    /// The body a save sends: `_id`, `_type` when set, and the properties.
    fn to_body(&self) -> Value {
        let mut body = Map::with_capacity(self.properties.len() + 2);
        body.insert("_id".into(), Value::String(self.id.clone()));
        if let Some(t) = &self.type_name {
            body.insert("_type".into(), Value::String(t.clone()));
        }
        for (k, v) in &self.properties {
            body.insert(k.clone(), v.clone());
        }
        Value::Object(body)
    }
}

impl Objects<'_> {
    /// Saves an object: merges its properties into the current version (or replaces them with
    /// `opts.replace`), making a new version when anything changed. Returns the stored version
    /// (the current one, unchanged, when nothing differed).
    ///
    /// ```
    /// use platform_core::api::{objects::Object, objects::SaveOptions};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let objects = platform.objects();
    /// objects.save_object(&me, &Object::new("TTF").with("name", "Dutch hub").with("zone", "NL"), &Default::default())?;
    /// let replace = SaveOptions { replace: true, reason: Some("cleanup".into()), ..Default::default() };
    /// let v2 = objects.save_object(&me, &Object::new("TTF").with("name", "Title Transfer Facility"), &replace)?;
    /// assert_eq!((v2.version, v2.reason.as_deref()), (Some(2), Some("cleanup")));
    /// assert!(!v2.properties.contains_key("zone"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn save_object(
        &self,
        p: &Principal,
        object: &Object,
        opts: &SaveOptions,
    ) -> Result<Object> {
        let saved = self.save(p, Collection::Object, object.to_body(), opts)?;
        Object::from_json(saved)
    }

    /// The current version of an object (from the source its id names).
    ///
    /// ```
    /// use platform_core::{api::objects::Object, ErrorCode};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// platform.objects().save_object(&me, &Object::new("PEG").with("country", "FR"), &Default::default())?;
    /// assert_eq!(platform.objects().object(&me, "PEG")?.properties["country"], "FR");
    /// assert_eq!(platform.objects().object(&me, "ZEE").unwrap_err().code(), ErrorCode::NotFound);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn object(&self, p: &Principal, id: &str) -> Result<Object> {
        let got = self.get(p, Collection::Object, Source::of_id(id), id, None, None)?;
        Object::from_json(got)
    }

    /// One version of an object, by number or tag.
    ///
    /// ```
    /// use platform_core::api::{objects::Object, VersionRef};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let objects = platform.objects();
    /// objects.save_object(&me, &Object::new("NBP").with("lots", 1), &Default::default())?;
    /// objects.save_object(&me, &Object::new("NBP").with("lots", 2), &Default::default())?;
    /// objects.tag(&me, platform_core::api::Collection::Object, platform_core::api::Source::Private, "NBP", &VersionRef::Number(1), "first")?;
    /// let first = objects.object_at(&me, "NBP", &VersionRef::Tag("first".into()))?;
    /// assert_eq!((first.version, first.properties["lots"].as_i64()), (Some(1), Some(1)));
    /// assert_eq!(first.tags, ["first"]);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn object_at(&self, p: &Principal, id: &str, version: &VersionRef) -> Result<Object> {
        let got = self.get(
            p,
            Collection::Object,
            Source::of_id(id),
            id,
            Some(version),
            None,
        )?;
        Object::from_json(got)
    }

    /// Rolls an object back: deletes its latest version, so the one before becomes current
    /// (its series and curves with it). Returns the version now current (`None` when the
    /// object had one version, which is now gone).
    ///
    /// ```
    /// use platform_core::api::objects::Object;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// platform.objects().save_object(&me, &Object::new("ZTP"), &Default::default())?;
    /// assert_eq!(platform.objects().roll_back(&me, "ZTP", None)?, None);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn roll_back(&self, p: &Principal, id: &str, reason: Option<&str>) -> Result<Option<u32>> {
        let done = self.delete(
            p,
            Collection::Object,
            Source::of_id(id),
            id,
            &DeleteTarget::Latest,
            reason,
        )?;
        Ok(done.current)
    }
}
