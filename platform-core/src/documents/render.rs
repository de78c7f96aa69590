//! A stored version as JSON (its fields plus the system fields), a version list entry, and
//! what of a document the caller may see.

use super::DataKind;
use crate::auth::Principal;
use crate::store::{Collection, FieldHeader, StoredVersion};
use serde_json::{json, Map, Value};

/// Whether `value` is a data property whose access role (`_access`) the caller does not hold.
pub(crate) fn hidden_from(p: &Principal, value: &Value) -> bool {
    value.is_object() && header_hidden_from(p, FieldHeader::of(value))
}

/// [`hidden_from`] of an object told by its header.
pub(crate) fn header_hidden_from(p: &Principal, header: FieldHeader<'_>) -> bool {
    DataKind::of_type(header.kind).is_some() && !p.grants.may_read(header.access)
}

/// A document as the caller may see it: an object's data properties of an access role the
/// caller does not hold are left out entirely (name and header alike).
pub(crate) fn visible(
    p: &Principal,
    coll: Collection,
    mut item: Map<String, Value>,
) -> Map<String, Value> {
    if coll == Collection::Object {
        item.retain(|_, v| !hidden_from(p, v));
    }
    item
}

/// The JSON shape of a stored version: its fields plus the system fields.
pub fn render(v: &StoredVersion, current: bool) -> Map<String, Value> {
    render_owned(v.clone(), current)
}

/// [`render`] of a version read for this answer alone: its body becomes the answer (no field
/// is moved or hashed again), `_bundle` left out, `_id` of an old version `ID/N`, and the
/// system fields after the document's own.
pub fn render_owned(v: StoredVersion, current: bool) -> Map<String, Value> {
    let StoredVersion {
        id,
        version,
        body: mut out,
        timestamp,
        user,
        reason,
        tags,
    } = v;
    out.shift_remove("_bundle");
    match out.get_mut("_id") {
        Some(own) if !current => *own = Value::String(format!("{id}/{version}")),
        Some(_) => {}
        None => {
            out.insert("_id".into(), Value::String(id.clone()));
        }
    }
    out.insert("_oid".into(), Value::String(id));
    out.insert(
        "_timestamp".into(),
        Value::String(crate::clock::format_instant(timestamp)),
    );
    out.insert("_user".into(), Value::String(user));
    out.insert("_tag".into(), json!(tags));
    out.insert("_version".into(), json!(version));
    if let Some(reason) = reason {
        out.insert("_reason".into(), Value::String(reason));
    }
    out
}

/// The JSON answer [`render_owned`] gives of a current version (the same bytes as
/// `serde_json` prints it), from its body printed as stored
/// ([`crate::store::DocumentRead::current_printed`], `_bundle` and the system fields left out):
/// the system fields follow the body's. `None` where the body has no `_id` (`render_owned`
/// adds one).
pub(crate) fn print_current(v: crate::store::PrintedVersion) -> Option<Vec<u8>> {
    if !v.has_id {
        return None;
    }
    let mut out = v.open;
    // A body with an `_id` has a field printed already: each system field follows a comma.
    put(&mut out, "_oid", &v.id);
    put(
        &mut out,
        "_timestamp",
        &crate::clock::format_instant(v.timestamp),
    );
    put(&mut out, "_user", &v.user);
    put(&mut out, "_tag", &v.tags);
    put(&mut out, "_version", &v.version);
    if let Some(reason) = &v.reason {
        put(&mut out, "_reason", reason);
    }
    out.push(b'}');
    Some(out)
}

/// `,"name":value`, the value as `serde_json` prints it.
fn put(out: &mut Vec<u8>, name: &str, value: &impl serde::Serialize) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    // Strings, a list of strings and an integer, into memory: their printing cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
}

/// One entry of a version list.
pub(crate) fn version_header(v: &StoredVersion, current: bool) -> Value {
    let mut out = Map::new();
    out.insert(
        "_id".into(),
        Value::String(if current {
            v.id.clone()
        } else {
            format!("{}/{}", v.id, v.version)
        }),
    );
    out.insert("_oid".into(), Value::String(v.id.clone()));
    out.insert("_type".into(), Value::String(v.type_name().to_string()));
    out.insert("_version".into(), json!(v.version));
    out.insert(
        "_timestamp".into(),
        Value::String(crate::clock::format_instant(v.timestamp)),
    );
    out.insert("_user".into(), Value::String(v.user.clone()));
    out.insert("_tag".into(), json!(v.tags));
    out.insert("_current".into(), Value::Bool(current));
    out.insert(
        "_reason".into(),
        v.reason.clone().map_or(Value::Null, Value::String),
    );
    Value::Object(out)
}
