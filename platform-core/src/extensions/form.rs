//! The JSON forms of the extension types: how each writes itself (the bytes the wire carries)
//! and how a stored extension document reads into them, field for field and in the order it is
//! stored. A stored value that is not of its field's type (a null, a number for a name) is kept
//! among the other fields as it is, so what is written is what was stored.

use super::types::{
    Extension, ExtensionResources, ExtensionView, LifecycleRun, Order, Permission, ResourceIds,
    StoredExtension,
};
use super::EXTENSION_TYPE;
use crate::clock::format_instant;
use crate::documents::SYSTEM_FIELDS;
use crate::store::StoredVersion;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{Map, Value};

/// One field's value as its JSON form writes it.
enum Field<'a> {
    Text(&'a str),
    Flag(bool),
    Number(u32),
    Views(&'a [ExtensionView]),
    Resources(&'a ExtensionResources),
    Permissions(&'a [Permission]),
    Json(&'a Value),
}

impl Serialize for Field<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Text(text) => s.serialize_str(text),
            Field::Flag(flag) => s.serialize_bool(*flag),
            Field::Number(n) => s.serialize_u32(*n),
            Field::Views(views) => s.collect_seq(views.iter()),
            Field::Resources(resources) => resources.serialize(s),
            Field::Permissions(permissions) => s.collect_seq(permissions.iter()),
            Field::Json(value) => value.serialize(s),
        }
    }
}

/// A typed document with free-form fields beside its own.
trait Fields {
    /// The names of its own fields, in the order a new one writes them.
    const OWN: &'static [&'static str];
    /// The typed value of its own field `name`, where it has one.
    fn own(&self, name: &str) -> Option<Field<'_>>;
    /// Its other fields.
    fn other(&self) -> &Map<String, Value>;
    /// The order of its fields as stored (empty for one a program made).
    fn order(&self) -> &Order;
}

/// Writes `fields` into `map`: those named in its stored order first, then its own, then its
/// other ones; each once, with its typed value where it has one, else its value among the
/// other fields.
fn write_fields<M: SerializeMap, F: Fields>(map: &mut M, fields: &F) -> Result<(), M::Error> {
    let other = fields.other();
    let names = (fields.order().0.iter().map(String::as_str))
        .chain(F::OWN.iter().copied())
        .chain(other.keys().map(String::as_str));
    let mut written: Vec<&str> = Vec::new();
    for name in names {
        if written.contains(&name) {
            continue;
        }
        if let Some(value) = fields
            .own(name)
            .or_else(|| other.get(name).map(Field::Json))
        {
            map.serialize_entry(name, &value)?;
            written.push(name);
        }
    }
    Ok(())
}

/// A required text field: absent when it was stored as something else (kept among the other
/// fields).
fn required<'a>(text: &'a str, name: &str, other: &Map<String, Value>) -> Option<Field<'a>> {
    (!text.is_empty() || !other.contains_key(name)).then_some(Field::Text(text))
}

fn text(value: &Option<String>) -> Option<Field<'_>> {
    value.as_deref().map(Field::Text)
}

impl Fields for Extension {
    const OWN: &'static [&'static str] = &[
        "_id",
        "publisher",
        "code",
        "name",
        "description",
        "icon",
        "views",
        "resources",
        "permissions",
    ];

    fn own(&self, name: &str) -> Option<Field<'_>> {
        match name {
            "_id" => required(&self.id, name, &self.other),
            "publisher" => required(&self.publisher, name, &self.other),
            "code" => required(&self.code, name, &self.other),
            "name" => text(&self.name),
            "description" => text(&self.description),
            "icon" => text(&self.icon),
            "views" => self.views.as_deref().map(Field::Views),
            "resources" => self.resources.as_ref().map(Field::Resources),
            "permissions" => self.permissions.as_deref().map(Field::Permissions),
            _ => None,
        }
    }

    fn other(&self) -> &Map<String, Value> {
        &self.other
    }

    fn order(&self) -> &Order {
        &self.order
    }
}

impl Fields for ExtensionView {
    const OWN: &'static [&'static str] = &[
        "name",
        "description",
        "script",
        "feature",
        "section",
        "tabname",
        "appname",
        "icon",
        "excel",
        "insights",
    ];

    fn own(&self, name: &str) -> Option<Field<'_>> {
        match name {
            "name" => required(&self.name, name, &self.other),
            "description" => text(&self.description),
            "script" => text(&self.script),
            "feature" => text(&self.feature),
            "section" => text(&self.section),
            "tabname" => text(&self.tabname),
            "appname" => text(&self.appname),
            "icon" => text(&self.icon),
            "excel" => self.excel.map(Field::Flag),
            "insights" => self.insights.map(Field::Flag),
            _ => None,
        }
    }

    fn other(&self) -> &Map<String, Value> {
        &self.other
    }

    fn order(&self) -> &Order {
        &self.order
    }
}

/// A stored extension's fields: the extension's, `_type`, and what the platform records of
/// its publication and installation.
struct Stored<'a>(&'a StoredExtension);

impl Fields for Stored<'_> {
    const OWN: &'static [&'static str] = &[
        "_id",
        "_type",
        "publisher",
        "code",
        "name",
        "description",
        "icon",
        "views",
        "resources",
        "permissions",
        "_publishedBy",
        "_installedVersion",
        "_accepted",
    ];

    fn own(&self, name: &str) -> Option<Field<'_>> {
        let stored = self.0;
        match name {
            "_type" => (!self.other().contains_key(name)).then_some(Field::Text(EXTENSION_TYPE)),
            "_publishedBy" => text(&stored.published_by),
            "_installedVersion" => stored.installed_version.map(Field::Number),
            "_accepted" => stored.accepted.as_deref().map(Field::Permissions),
            _ => stored.extension.own(name),
        }
    }

    fn other(&self) -> &Map<String, Value> {
        &self.0.extension.other
    }

    fn order(&self) -> &Order {
        &self.0.extension.order
    }
}

impl Serialize for Extension {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        write_fields(&mut map, self)?;
        map.end()
    }
}

impl Serialize for ExtensionView {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        write_fields(&mut map, self)?;
        map.end()
    }
}

/// The stored document's fields in their order, then the system fields as every document
/// answer writes them (`_oid`, `_timestamp`, `_user`, `_tag`, `_version`, `_reason` when told).
impl Serialize for StoredExtension {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        write_fields(&mut map, &Stored(self))?;
        map.serialize_entry("_oid", &self.extension.id)?;
        map.serialize_entry("_timestamp", &format_instant(self.timestamp))?;
        map.serialize_entry("_user", &self.user)?;
        map.serialize_entry("_tag", &self.tags)?;
        map.serialize_entry("_version", &self.version)?;
        if let Some(reason) = &self.reason {
            map.serialize_entry("_reason", reason)?;
        }
        map.end()
    }
}

impl Serialize for ExtensionResources {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(&self.services)
    }
}

impl Serialize for ResourceIds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ResourceIds::List(ids) => s.collect_seq(ids),
            ResourceIds::Named(names) => s.collect_map(names),
        }
    }
}

impl Serialize for LifecycleRun {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("id", &self.script)?;
        map.serialize_entry("ok", &self.ok())?;
        match &self.outcome {
            Ok(result) => map.serialize_entry("result", result)?,
            Err(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

/// The permissions a catalogue entry asks for, as it lists them (none when it has no list);
/// `None` when it holds something else (null).
pub(super) fn listed_permissions(entry: &Map<String, Value>) -> Option<Vec<Permission>> {
    match entry.get("permissions") {
        None => Some(Vec::new()),
        Some(listed) => read_permissions(listed),
    }
}

/// Sets `slot` to `value` read by `read`; answers the value when it does not read.
fn keep<T>(slot: &mut Option<T>, value: Value, read: fn(&Value) -> Option<T>) -> Option<Value> {
    match read(&value) {
        Some(typed) => {
            *slot = Some(typed);
            None
        }
        None => Some(value),
    }
}

/// [`keep`] for a required text.
fn keep_text(slot: &mut String, value: Value) -> Option<Value> {
    match value {
        Value::String(text) => {
            *slot = text;
            None
        }
        other => Some(other),
    }
}

fn read_text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_string)
}

fn read_flag(value: &Value) -> Option<bool> {
    value.as_bool()
}

fn read_number(value: &Value) -> Option<u32> {
    value.as_u64().and_then(|n| u32::try_from(n).ok())
}

fn read_permissions(value: &Value) -> Option<Vec<Permission>> {
    value
        .as_array()?
        .iter()
        .map(|p| p.as_str()?.parse().ok())
        .collect()
}

fn read_ids(value: &Value) -> Option<ResourceIds> {
    match value {
        Value::Array(ids) => ids
            .iter()
            .map(read_text)
            .collect::<Option<_>>()
            .map(ResourceIds::List),
        Value::Object(names) => names
            .iter()
            .map(|(name, id)| Some((name.clone(), read_text(id)?)))
            .collect::<Option<_>>()
            .map(ResourceIds::Named),
        _ => None,
    }
}

fn read_resources(value: &Value) -> Option<ExtensionResources> {
    let services = value
        .as_object()?
        .iter()
        .map(|(service, ids)| Some((service.clone(), read_ids(ids)?)))
        .collect::<Option<_>>()?;
    Some(ExtensionResources { services })
}

fn read_view(value: &Value) -> Option<ExtensionView> {
    let mut view = ExtensionView::default();
    for (name, value) in value.as_object()?.clone() {
        view.order.0.push(name.clone());
        let unread = match name.as_str() {
            "name" => keep_text(&mut view.name, value),
            "description" => keep(&mut view.description, value, read_text),
            "script" => keep(&mut view.script, value, read_text),
            "feature" => keep(&mut view.feature, value, read_text),
            "section" => keep(&mut view.section, value, read_text),
            "tabname" => keep(&mut view.tabname, value, read_text),
            "appname" => keep(&mut view.appname, value, read_text),
            "icon" => keep(&mut view.icon, value, read_text),
            "excel" => keep(&mut view.excel, value, read_flag),
            "insights" => keep(&mut view.insights, value, read_flag),
            _ => Some(value),
        };
        if let Some(value) = unread {
            view.other.insert(name, value);
        }
    }
    (!view.name.is_empty()).then_some(view)
}

fn read_views(value: &Value) -> Option<Vec<ExtensionView>> {
    value.as_array()?.iter().map(read_view).collect()
}

impl StoredExtension {
    /// The stored extension `v` (a current version): each field read as its type, any other
    /// value kept as it is among the other fields, in the stored order; the catalogue's
    /// snapshot of the resources (`_bundle`) left out.
    pub(super) fn from_stored(v: StoredVersion) -> StoredExtension {
        let mut e = Extension::default();
        let (mut published_by, mut installed_version, mut accepted) = (None, None, None);
        for (name, value) in v.body {
            if name == "_bundle" || SYSTEM_FIELDS.contains(&name.as_str()) {
                continue;
            }
            e.order.0.push(name.clone());
            let unread = match name.as_str() {
                "_id" => keep_text(&mut e.id, value),
                "publisher" => keep_text(&mut e.publisher, value),
                "code" => keep_text(&mut e.code, value),
                "name" => keep(&mut e.name, value, read_text),
                "description" => keep(&mut e.description, value, read_text),
                "icon" => keep(&mut e.icon, value, read_text),
                "views" => keep(&mut e.views, value, read_views),
                "resources" => keep(&mut e.resources, value, read_resources),
                "permissions" => keep(&mut e.permissions, value, read_permissions),
                "_type" if value == EXTENSION_TYPE => None,
                "_publishedBy" => keep(&mut published_by, value, read_text),
                "_installedVersion" => keep(&mut installed_version, value, read_number),
                "_accepted" => keep(&mut accepted, value, read_permissions),
                _ => Some(value),
            };
            if let Some(value) = unread {
                e.other.insert(name, value);
            }
        }
        if e.id.is_empty() && !e.other.contains_key("_id") {
            e.id = v.id;
        }
        StoredExtension {
            extension: e,
            version: v.version,
            timestamp: v.timestamp,
            user: v.user,
            tags: v.tags,
            reason: v.reason,
            published_by,
            installed_version,
            accepted,
        }
    }
}
