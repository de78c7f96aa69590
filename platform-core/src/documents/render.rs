//! A stored version as JSON (its fields plus the system fields), a version list entry, and
//! what of a document the caller may see.

use super::DataKind;
use crate::auth::Principal;
use crate::json::jsonb::FieldHeader;
use crate::store::{Collection, StoredVersion};
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
