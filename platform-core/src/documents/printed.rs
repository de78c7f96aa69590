//! A current document printed as JSON from its body as stored, without building it: what the
//! caller may see of it (the fields left out, the data properties hidden from them) is decided
//! here, above the storage seam, which hands back the body as it keeps it
//! ([`crate::store::DocumentRead::current_raw`]).

use crate::error::{Error, Result};
use crate::json::jsonb::{self, FieldHeader};
use crate::store::{RawVersion, StoredBody};

/// A version with its body printed as JSON text: `{` and its fields, without the closing
/// brace (so that fields can follow).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PrintedVersion {
    /// `{` and the printed fields.
    pub open: Vec<u8>,
    /// Whether the body has an `_id`.
    pub has_id: bool,
    /// The version, its body left behind.
    pub version: RawVersion,
}

/// What to leave out of a printed body.
pub(crate) struct Shown<'a> {
    /// Top-level fields left out.
    pub omit: &'a [&'a str],
    /// Top-level fields a printed body may not hold (the version is then not printed).
    pub refuse: &'a [&'a str],
    /// Whether a top-level field whose value is an object is left out, by that object's header.
    pub hide: &'a dyn Fn(FieldHeader<'_>) -> bool,
}

/// `v`'s body printed as `serde_json` prints the map it holds (the same bytes), leaving out
/// what `shown` says; `None` where a top-level field is one `shown` refuses, or the body is
/// JSONB of a form [`jsonb::print_object`] leaves to a read of the whole version.
pub(crate) fn print(mut v: RawVersion, shown: &Shown<'_>) -> Result<Option<PrintedVersion>> {
    let mut open = Vec::new();
    let has_id = match &mut v.body {
        StoredBody::Jsonb(blob) => {
            open.reserve(blob.len() + 256);
            let printed =
                jsonb::print_object(blob, shown.omit, shown.refuse, shown.hide, &mut open);
            // The bytes are printed: the version keeps an empty body.
            blob.clear();
            match printed {
                Some(has_id) => has_id,
                None => return Ok(None),
            }
        }
        StoredBody::Map(body) => {
            if body.keys().any(|k| shown.refuse.contains(&k.as_str())) {
                return Ok(None);
            }
            print_map(body, shown, &mut open)?;
            body.contains_key("_id")
        }
    };
    Ok(Some(PrintedVersion {
        open,
        has_id,
        version: v,
    }))
}

/// A JSON object's fields as `serde_json` prints them, after `{`, without those `shown` leaves
/// out.
fn print_map(
    body: &serde_json::Map<String, serde_json::Value>,
    shown: &Shown<'_>,
    open: &mut Vec<u8>,
) -> Result<()> {
    open.push(b'{');
    let kept = body.iter().filter(|(k, value)| {
        !(shown.omit.contains(&k.as_str())
            || value.is_object() && (shown.hide)(FieldHeader::of(value)))
    });
    for (k, value) in kept {
        if open.len() > 1 {
            open.push(b',');
        }
        serde_json::to_writer(&mut *open, k)
            .and_then(|()| {
                open.push(b':');
                serde_json::to_writer(&mut *open, value)
            })
            .map_err(|e| Error::caused("a printed body", e))?;
    }
    Ok(())
}

/// The JSON answer `render::render_owned` gives of a current version (the same bytes as
/// `serde_json` prints it), from its body printed by [`print`] (`_bundle` and the system fields
/// left out): the system fields follow the body's. `None` where the body has no `_id`
/// (`render_owned` adds one).
pub(crate) fn print_current(printed: PrintedVersion) -> Option<Vec<u8>> {
    if !printed.has_id {
        return None;
    }
    let (mut out, v) = (printed.open, printed.version);
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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::{json, Map, Value};

    /// The body in both stored forms: as a map, and as the embedded store keeps it (JSONB).
    fn both_forms(body: &Value) -> [StoredBody; 2] {
        use crate::store::{sqlite::SqliteStore, Collection, Hold, Store, StoredVersion};
        let store = SqliteStore::open_in_memory().unwrap();
        let scope = crate::ids::Scope::private("acme", "production");
        let coll = Collection::Object;
        let mut tx = store.write().unwrap();
        tx.hold(&[Hold::Document(coll, &scope, "P")]).unwrap();
        let v = StoredVersion {
            body: body.as_object().unwrap().clone(),
            ..raw_version_row()
        };
        tx.put_version(coll, &scope, &v).unwrap();
        tx.set_current(coll, &scope, "P", Some(1)).unwrap();
        let stored = tx.current_raw(coll, &scope, "P").unwrap().unwrap().body;
        assert!(matches!(stored, StoredBody::Jsonb(_)), "{stored:?}");
        [StoredBody::Map(v.body), stored]
    }

    fn raw_version_row() -> crate::store::StoredVersion {
        crate::store::StoredVersion {
            body: Map::new(),
            id: "P".into(),
            version: 1,
            timestamp: chrono::Utc.with_ymd_and_hms(2025, 3, 30, 1, 0, 0).unwrap(),
            user: "ann".into(),
            reason: None,
            tags: Vec::new(),
        }
    }

    fn raw(body: StoredBody) -> RawVersion {
        RawVersion {
            body,
            id: "P".into(),
            version: 3,
            timestamp: chrono::Utc.with_ymd_and_hms(2025, 3, 30, 1, 0, 0).unwrap(),
            user: "ann".into(),
            reason: Some("checked \"twice\"".into()),
            tags: vec!["live".into()],
        }
    }

    /// A body printed from either stored form is the map `serde_json` prints, byte for byte,
    /// with the fields asked left out and the hidden objects gone; a body holding a refused
    /// field is not printed; the version's fields come through.
    #[test]
    fn a_printed_body_is_the_body_printed_less_what_is_not_shown() {
        let hide = |h: FieldHeader<'_>| h.access.is_some();
        let shown = Shown {
            omit: &["_bundle"],
            refuse: &["_oid"],
            hide: &hide,
        };
        let bodies = [
            json!({"_id": "P", "_type": "T", "z": 1, "a": [1.5, {"b": null}], "m": "é\"\n\u{1}",
                   "big": 12345678901234567890u64}),
            json!({"_type": "T", "_bundle": "b", "n": -0.0001,
                   "s": {"_type": "TimeSeries", "_access": "secret"},
                   "o": {"_type": "TimeSeries", "unit": "MW"}, "e": {}, "l": []}),
        ];
        for body in &bodies {
            let kept: Map<String, Value> = body
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, v)| *k != "_bundle" && !(v.is_object() && hide(FieldHeader::of(v))))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for form in both_forms(body) {
                let jsonb = matches!(form, StoredBody::Jsonb(_));
                let p = print(raw(form), &shown).unwrap().expect("printed");
                let mut whole = p.open.clone();
                whole.push(b'}');
                assert_eq!(
                    String::from_utf8(whole).unwrap(),
                    serde_json::to_string(&kept).unwrap(),
                    "jsonb: {jsonb}"
                );
                assert_eq!(p.has_id, body.get("_id").is_some());
                let v = p.version;
                assert_eq!((v.id.as_str(), v.version, v.user.as_str()), ("P", 3, "ann"));
            }
        }
        for form in both_forms(&json!({"_type": "T", "_oid": "refused"})) {
            assert_eq!(print(raw(form), &shown).unwrap(), None);
        }
    }

    /// The answer printed of a version is the system fields after the body's, as the map
    /// rendering prints them; a body without `_id` is left to that rendering.
    #[test]
    fn the_current_answer_carries_the_system_fields_after_the_body() {
        let shown = Shown {
            omit: &[],
            refuse: &[],
            hide: &|_| false,
        };
        let body = json!({"_id": "P", "x": 1, "_bundle": "b"});
        let rendered = super::super::render::render_owned(
            crate::store::StoredVersion {
                body: body.as_object().unwrap().clone(),
                id: "P".into(),
                version: 3,
                timestamp: raw(StoredBody::Map(Map::new())).timestamp,
                user: "ann".into(),
                reason: Some("checked \"twice\"".into()),
                tags: vec!["live".into()],
            },
            true,
        );
        let shown = Shown {
            omit: &["_bundle"],
            ..shown
        };
        for form in both_forms(&body) {
            let p = print(raw(form), &shown).unwrap().unwrap();
            let text = String::from_utf8(print_current(p).unwrap()).unwrap();
            assert_eq!(text, serde_json::to_string(&rendered).unwrap());
            assert!(
                text.contains(r#""_timestamp":"2025-03-30T01:00:00.000Z""#),
                "{text}"
            );
        }
        for form in both_forms(&json!({"x": 1})) {
            let p = print(raw(form), &shown).unwrap().unwrap();
            assert_eq!(print_current(p), None);
        }
    }
}
