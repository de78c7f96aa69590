//! Keyset paging of document lists: `_after=<cursor>`.
//!
//! ```text
//! _after  := cursor                      (as answered in x-platform-next by the page before)
//! cursor  := base64url(json)             (no padding)
//! json    := [sort, [key, ...], id]      (sort: the canonical _sort the cursor was made for;
//!                                         key: the last item's value of each sort key, null
//!                                         when absent; id: the last item's stored id)
//! ```
//! A cursor is opaque to clients: the next page is the items that sort after the last one of
//! the page that answered it, in the same order (`_id` breaking ties). It is bound to the sort
//! it was made for: used with another `_sort`, or not a cursor at all, it is a 400. A page by
//! cursor costs about the page: the stores turn it into a comparison on the sort keys (a
//! row-value comparison where the order allows), not a count of the items before it.

use crate::error::{Error, Result};
use crate::query::filter;
use crate::query::SortSpec;
use base64::Engine as _;
use serde_json::{Map, Value};

/// The longest `_after` text read (a cursor carries the sort values of one item).
pub const MAX_CURSOR_CHARS: usize = 16_384;

/// Where a keyset page starts: after the item with these sort values and this id.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor {
    /// The value of each sort key of the last item (`Value::Null` when absent), in sort order;
    /// a `_id` key holds the id as a string.
    pub keys: Vec<Value>,
    /// The stored id of the last item.
    pub id: String,
}

/// The canonical text of a sort (`f,-g`; empty for the default order), which a cursor is
/// bound to.
pub fn sort_text(sort: &SortSpec) -> String {
    sort.0
        .iter()
        .map(|k| {
            if k.descending {
                format!("-{}", k.field)
            } else {
                k.field.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

impl Cursor {
    /// The cursor after a document: `doc` is what filters and sorts read (the body with the
    /// system fields), `id` its stored id.
    pub fn after(sort: &SortSpec, id: &str, doc: &Map<String, Value>) -> Cursor {
        let keys = sort
            .0
            .iter()
            .map(|k| {
                if k.field == "_id" {
                    Value::String(id.to_string())
                } else {
                    filter::lookup(doc, &k.field)
                        .cloned()
                        .unwrap_or(Value::Null)
                }
            })
            .collect();
        Cursor {
            keys,
            id: id.to_string(),
        }
    }

    /// The opaque text of the cursor for a sort.
    pub fn encode(&self, sort: &SortSpec) -> String {
        let json = Value::Array(vec![
            Value::String(sort_text(sort)),
            Value::Array(self.keys.clone()),
            Value::String(self.id.clone()),
        ]);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json.to_string())
    }

    /// Reads `_after` for a list sorted by `sort`: a 400 when it is not a cursor, or was made
    /// for another sort.
    pub fn decode(text: &str, sort: &SortSpec) -> Result<Cursor> {
        let bad = || {
            Error::invalid_parameter(format!(
                "invalid _after \"{}\": not a cursor answered in x-platform-next",
                crate::ids::shorten(text)
            ))
        };
        if text.len() > MAX_CURSOR_CHARS {
            return Err(bad());
        }
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text.trim())
            .map_err(|_| bad())?;
        let json: Value = serde_json::from_slice(&bytes).map_err(|_| bad())?;
        let Value::Array(mut parts) = json else {
            return Err(bad());
        };
        if parts.len() != 3 {
            return Err(bad());
        }
        let (Value::String(made_for), Value::Array(keys), Value::String(id)) =
            (parts.remove(0), parts.remove(0), parts.remove(0))
        else {
            return Err(bad());
        };
        let wanted = sort_text(sort);
        if made_for != wanted {
            let name = |s: &str| {
                if s.is_empty() {
                    "the default order (_id)".to_string()
                } else {
                    format!("_sort={}", crate::ids::shorten(s))
                }
            };
            return Err(Error::invalid_parameter(format!(
                "invalid _after: the cursor was made for {}, not {}",
                name(&made_for),
                name(&wanted)
            )));
        }
        if keys.len() != sort.0.len() {
            return Err(bad());
        }
        for (key, value) in sort.0.iter().zip(&keys) {
            if key.field == "_id" && !value.is_string() {
                return Err(bad());
            }
        }
        Ok(Cursor { keys, id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_cursor_reads_back_for_its_sort_only() {
        let sort = SortSpec::parse("country,-capacity,_id").unwrap();
        let doc = json!({"country": "NL", "meta": {"tier": 1}});
        let c = Cursor::after(&sort, "TTF", doc.as_object().unwrap());
        assert_eq!(c.keys, vec![json!("NL"), Value::Null, json!("TTF")]);
        let text = c.encode(&sort);
        assert!(text
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_'));
        assert_eq!(Cursor::decode(&text, &sort).unwrap(), c);
        // Another sort, or the default order, refuses it.
        let other = SortSpec::parse("country,capacity,_id").unwrap();
        let e = Cursor::decode(&text, &other).unwrap_err();
        assert!(e
            .to_string()
            .contains("made for _sort=country,-capacity,_id"));
        assert!(Cursor::decode(&text, &SortSpec::default()).is_err());
    }

    #[test]
    fn malformed_cursors_are_refused() {
        let sort = SortSpec::default();
        let enc = |v: Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
        for bad in [
            String::new(),
            "!!".to_string(),
            "x".repeat(MAX_CURSOR_CHARS + 1),
            enc(json!({"a": 1})),
            enc(json!(["", [], 5])),
            enc(json!(["", ["extra"], "A"])),
            enc(json!(["", [], "A", 1])),
        ] {
            assert!(Cursor::decode(&bad, &sort).is_err(), "{bad}");
        }
        let by_id = SortSpec::parse("-_id").unwrap();
        assert!(Cursor::decode(&enc(json!(["-_id", [3], "A"])), &by_id).is_err());
        assert!(Cursor::decode(&enc(json!(["", [], "A"])), &sort).is_ok());
    }
}
