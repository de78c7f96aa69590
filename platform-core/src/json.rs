//! Reading JSON that people send: a key given twice in one object is refused rather than
//! silently resolved (`{"_id": "X", "_id": "Y"}` would otherwise save `Y`).
//!
//! The text is read once, by serde_json, into the same [`Value`] as `serde_json::from_slice`
//! gives; only the handling of objects differs.
//!
//! Messages about what was sent name a value's kind with [`json_kind`].
//!
//! [`jsonb`] reads and prints SQLite's binary JSON, the form the embedded store keeps document
//! bodies in: the store hands the bytes back, and what of them a caller sees is printed above
//! it.

pub mod jsonb;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Names a value's JSON kind for messages (`a string`, `an array`, `null`...).
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parses `text` as JSON, refusing an object that holds one key twice (the error names the
/// key and where the second one ends).
pub fn from_slice(text: &[u8]) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(text);
    let value = Strict.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// [`from_slice`] for text.
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    from_slice(text.as_bytes())
}

/// A JSON value whose objects may not repeat a key.
struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format!("{v} is not a finite number")))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Strict.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(Strict)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            if map.contains_key(&key) {
                let shown: String = key.chars().take(100).collect();
                return Err(A::Error::custom(format!(
                    "the key \"{shown}\" is given twice in one object"
                )));
            }
            let value = access.next_value_seed(Strict)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a": [1, -2, 3.5, 1e300, "x", null, true, {"b": {}}], "c": 18446744073709551615}"#,
            "[]",
            "\"\\u00e9\"",
            "  7 ",
        ] {
            assert_eq!(
                from_str(text).unwrap(),
                serde_json::from_str::<Value>(text).unwrap(),
                "{text}"
            );
        }
        // Key order is kept.
        assert_eq!(
            from_str(r#"{"z": 1, "a": 2}"#).unwrap().to_string(),
            r#"{"z":1,"a":2}"#
        );
    }

    #[test]
    fn a_key_given_twice_is_refused_at_any_depth() {
        for text in [
            r#"{"_id": "X", "_id": "Y"}"#,
            r#"[{"a": 1}, {"b": {"c": 1, "c": 2}}]"#,
        ] {
            let err = from_str(text).unwrap_err().to_string();
            assert!(err.contains("given twice"), "{text}: {err}");
        }
        assert_eq!(
            from_str(r#"{"a": {"x": 1}, "b": {"x": 2}}"#).unwrap()["b"]["x"],
            json!(2)
        );
    }

    #[test]
    fn trailing_text_and_bad_json_are_refused() {
        for text in ["{} x", "{\"a\": }", "", "[1,]", "NaN"] {
            assert!(from_str(text).is_err(), "{text}");
        }
    }
}
