//! A data item opened for a read: its object version, its stored header, and the JSON header
//! its answer prints (the stored header with the item's system fields).

use super::conversion::{Conversion, Converter};
use super::DataKind;
use crate::error::Result;
use crate::store::{DataKey, ReadTx, StoredVersion};
use serde_json::{json, Map, Value};

/// A data item opened for a read ([`Platform::open_item`]).
pub(crate) struct Opened {
    /// Series or curve.
    pub(crate) kind: DataKind,
    /// Where its data is stored.
    pub(crate) key: DataKey,
    /// Whether the object version read is the current one.
    pub(crate) is_current: bool,
    /// The item's JSON so far (its header and system fields), once made or changed: see
    /// [`Opened::json`]; a plain read prints it without making it.
    pub(super) json: Option<Map<String, Value>>,
    /// The header as stored on the object.
    pub(crate) header: Map<String, Value>,
    /// The object version read (of its body, the item's property and `_type` where it is
    /// the current one; see `open_item`).
    pub(crate) object: StoredVersion,
}

impl Opened {
    /// The item's JSON so far: its header and system fields, made on first use.
    pub(crate) fn json(&mut self) -> &mut Map<String, Value> {
        let Opened {
            json,
            object,
            key,
            header,
            is_current,
            ..
        } = self;
        json.get_or_insert_with(|| item_header(object, &key.prop, header, *is_current))
    }

    /// [`Opened::json`], taken out of the item.
    pub(crate) fn take_json(&mut self) -> Map<String, Value> {
        self.json();
        self.json.take().unwrap_or_default()
    }

    /// [`Opened::take_json`] of a series, without a `data` field of the stored header (the
    /// points take its place, last).
    pub(crate) fn take_series_json(&mut self) -> Map<String, Value> {
        let mut json = self.take_json();
        json.shift_remove("data");
        json
    }

    /// The converter `c` asks for (`None` when nothing is asked), the item's `units` and
    /// `currency` changed to its targets.
    pub(super) fn converter<'a>(
        &mut self,
        tx: &'a dyn ReadTx,
        c: &Conversion,
    ) -> Result<Option<Converter<'a>>> {
        if c.is_none() {
            return Ok(None);
        }
        Converter::new(tx, self.json(), c)
    }

    /// Writes the JSON text of [`Opened::take_series_json`] of an item whose JSON is not made,
    /// without making it: the fields in the order and with the values `item_header` gives them.
    pub(super) fn write_header_json(&self, out: &mut Vec<u8>) {
        let (object, prop, header) = (&self.object, self.key.prop.as_str(), &self.header);
        let data_id = format!("{}:{prop}", object.id);
        let null = Value::Null;
        // What `item_header` inserts after the stored header, and so wins over its fields.
        let system = |out: &mut Vec<u8>, name: &str| {
            let _ = match name {
                "_objid" => serde_json::to_writer(&mut *out, &object.id),
                "_dataid" => serde_json::to_writer(&mut *out, prop),
                "_access" => {
                    serde_json::to_writer(&mut *out, header.get("_access").unwrap_or(&null))
                }
                "_objtype" => {
                    serde_json::to_writer(&mut *out, object.body.get("_type").unwrap_or(&null))
                }
                "_oid" => serde_json::to_writer(&mut *out, &data_id),
                "_timestamp" => serde_json::to_writer(
                    &mut *out,
                    &crate::clock::format_instant(object.timestamp),
                ),
                "_user" => serde_json::to_writer(&mut *out, &object.user),
                "_tag" => serde_json::to_writer(&mut *out, &object.tags),
                _ => serde_json::to_writer(&mut *out, &object.version),
            };
        };
        let mut first = true;
        let mut key = |out: &mut Vec<u8>, k: &str| {
            if !first {
                out.push(b',');
            }
            first = false;
            let _ = serde_json::to_writer(&mut *out, k);
            out.push(b':');
        };
        out.push(b'{');
        // `_id` first, as the stored header's `_id` where it has one (inserted after).
        key(out, "_id");
        let _ = match header.get("_id") {
            Some(v) => serde_json::to_writer(&mut *out, v),
            None if self.is_current => serde_json::to_writer(&mut *out, &data_id),
            None => serde_json::to_writer(
                &mut *out,
                &format!("{}/{}:{prop}", object.id, object.version),
            ),
        };
        for (k, v) in header {
            if k == "_id" || k == "data" {
                continue;
            }
            key(out, k);
            if ITEM_SYSTEM_FIELDS.contains(&k.as_str()) {
                system(out, k);
            } else {
                let _ = serde_json::to_writer(&mut *out, v);
            }
        }
        for name in ITEM_SYSTEM_FIELDS {
            if !header.contains_key(name) {
                key(out, name);
                system(out, name);
            }
        }
        out.push(b'}');
    }
}

/// The system fields `item_header` adds after a data item's stored header, in their order.
const ITEM_SYSTEM_FIELDS: [&str; 9] = [
    "_objid",
    "_dataid",
    "_access",
    "_objtype",
    "_oid",
    "_timestamp",
    "_user",
    "_tag",
    "_version",
];

/// A data id and the scope of its object, read through a source.
/// The header and system fields of a data item.
pub(super) fn item_header(
    object: &StoredVersion,
    prop: &str,
    header: &Map<String, Value>,
    is_current: bool,
) -> Map<String, Value> {
    let data_id = format!("{}:{prop}", object.id);
    let mut out = Map::new();
    out.insert(
        "_id".into(),
        Value::String(if is_current {
            data_id.clone()
        } else {
            format!("{}/{}:{prop}", object.id, object.version)
        }),
    );
    for (k, v) in header {
        out.insert(k.clone(), v.clone());
    }
    out.insert("_objid".into(), Value::String(object.id.clone()));
    out.insert("_dataid".into(), Value::String(prop.to_string()));
    out.insert(
        "_access".into(),
        header.get("_access").cloned().unwrap_or(Value::Null),
    );
    out.insert(
        "_objtype".into(),
        object.body.get("_type").cloned().unwrap_or(Value::Null),
    );
    out.insert("_oid".into(), Value::String(data_id));
    // The object's system fields as `render` prints them (without rendering the whole object).
    out.insert(
        "_timestamp".into(),
        Value::String(crate::clock::format_instant(object.timestamp)),
    );
    out.insert("_user".into(), Value::String(object.user.clone()));
    out.insert("_tag".into(), json!(object.tags));
    out.insert("_version".into(), json!(object.version));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::SERIES_TYPE;
    use crate::ids::Scope;

    #[test]
    fn a_data_header_carries_the_objects_system_fields_as_the_object_prints_them() {
        let object = StoredVersion {
            id: "NBP".into(),
            version: 3,
            body: json!({"_id": "NBP", "_type": "#Hub", "_bundle": "b", "name": "n",
                         "SPOT": {"_type": SERIES_TYPE, "_access": "traders"}})
            .as_object()
            .unwrap()
            .clone(),
            timestamp: chrono::DateTime::from_timestamp_millis(1_700_000_000_123).unwrap(),
            user: "ann".into(),
            reason: Some("why".into()),
            tags: vec!["a".into(), "live".into()],
        };
        let header = object.body["SPOT"].as_object().unwrap().clone();
        for current in [true, false] {
            let printed = crate::documents::render(&object, current);
            let h = item_header(&object, "SPOT", &header, current);
            for (field, of_object) in [
                ("_objtype", "_type"),
                ("_timestamp", "_timestamp"),
                ("_user", "_user"),
                ("_tag", "_tag"),
                ("_version", "_version"),
            ] {
                assert_eq!(h[field], printed[of_object], "{field}");
            }
            assert_eq!(h["_access"], "traders");
            assert_eq!(h["_id"], if current { "NBP:SPOT" } else { "NBP/3:SPOT" });
            assert_eq!(
                (&h["_oid"], &h["_objid"], &h["_dataid"]),
                (&json!("NBP:SPOT"), &json!("NBP"), &json!("SPOT"))
            );
        }
    }
    /// A series' header printed without making its JSON is, byte for byte, the JSON made and
    /// printed: for stored headers with and without an access role, with fields of the names
    /// the system fields take (their values replaced in place, `_id` kept from the header as
    /// the map keeps it), with a `data` field (dropped), escaped names and values, any `_type`
    /// of the object, at the current version and an earlier one.
    #[test]
    fn a_header_printed_unmade_is_the_header_made_and_printed() {
        let headers = [
            json!({"_type": SERIES_TYPE}),
            json!({"_type": SERIES_TYPE, "_access": "traders", "units": "MWh", "calendar": "#PT1H"}),
            json!({"calendar": "#PT1M", "_type": SERIES_TYPE, "_version": 99, "_user": "x",
                   "data": [1, 2], "nested": {"a": [null, true, 1.5e300], "b\"q": "\u{1}é"}}),
            json!({"_id": "mine", "_type": SERIES_TYPE, "_timestamp": "t", "_tag": 1, "z": null}),
            json!({"data": {"x": 1}, "_objid": 7, "_oid": false, "_dataid": [], "_objtype": {},
                   "_access": null, "_type": SERIES_TYPE}),
        ];
        for (n, header) in headers.iter().enumerate() {
            for object_type in [json!("#Hub"), json!(null), json!(3)] {
                let mut body = json!({"_id": "NBP", "name": "n"});
                if !object_type.is_null() {
                    body["_type"] = object_type.clone();
                }
                body["SPOT"] = header.clone();
                let object = StoredVersion {
                    id: "NBP".into(),
                    version: 3,
                    body: body.as_object().unwrap().clone(),
                    timestamp: chrono::DateTime::from_timestamp_millis(
                        1_700_000_000_120 + n as i64,
                    )
                    .unwrap(),
                    user: "a\"nn".into(),
                    reason: None,
                    tags: if n % 2 == 0 {
                        vec![]
                    } else {
                        vec!["a".into(), "live".into()]
                    },
                };
                for is_current in [true, false] {
                    let item = Opened {
                        kind: DataKind::Series,
                        key: DataKey {
                            scope: Scope::public(),
                            object: "NBP".into(),
                            prop: "SPOT".into(),
                        },
                        is_current,
                        json: None,
                        header: header.as_object().unwrap().clone(),
                        object: object.clone(),
                    };
                    let mut printed = Vec::new();
                    item.write_header_json(&mut printed);
                    let mut made = item;
                    let made = serde_json::to_vec(&made.take_series_json()).unwrap();
                    assert_eq!(
                        String::from_utf8(printed).unwrap(),
                        String::from_utf8(made).unwrap(),
                        "header {n}, object type {object_type}, current {is_current}"
                    );
                }
            }
        }
    }
}
