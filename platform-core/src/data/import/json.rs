//! JSON files of a series: the header fields and the observations, each still raw so its line
//! can be named.

use crate::data::{DATA_SYSTEM_FIELDS, SERIES_TYPE};
use crate::error::{Error, ErrorCode, Result};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Splits a JSON file into its header fields and its observations (each still raw, so its
/// line can be named; see [`super::PointReader::json`]).
pub fn json_file(text: &str) -> Result<(Map<String, Value>, Vec<&RawValue>)> {
    let bad = |e: serde_json::Error| {
        Error::new(
            ErrorCode::InvalidBody,
            format!("the file is not valid JSON: {e}"),
        )
    };
    if text.trim_start().starts_with('[') {
        return Ok((Map::new(), serde_json::from_str(text).map_err(bad)?));
    }
    // The header fields in the file's order; a field given twice is refused.
    let fields = raw_fields(text).map_err(bad)?;
    let mut header = Map::new();
    let mut data = None;
    for (name, raw) in fields {
        if name == "data" {
            data = Some(
                serde_json::from_str::<Vec<&RawValue>>(raw.get()).map_err(|e| {
                    Error::invalid_body(format!(
                        "line {}: data must be an array of observations ({e})",
                        line_of(text, offset(text, raw))
                    ))
                })?,
            );
            continue;
        }
        let value: Value = crate::json::from_str(raw.get()).map_err(bad)?;
        match name.as_str() {
            "_type" if value != SERIES_TYPE => {
                return Err(Error::invalid_body(format!(
                    "the file holds a {value}: JSON files hold time series ({SERIES_TYPE}); \
                     curves import from CSV files of ondate,tenor,value"
                )))
            }
            "_type" => {}
            "_access" if value.is_null() => {}
            n if DATA_SYSTEM_FIELDS.contains(&n) => {}
            _ => {
                header.insert(name, value);
            }
        }
    }
    let data = data.ok_or_else(|| {
        Error::new(
            ErrorCode::MissingParameter,
            "the JSON object has no \"data\" array of observations",
        )
    })?;
    Ok((header, data))
}

/// Where a raw JSON value starts in the text it was read from.
pub(super) fn offset(text: &str, raw: &RawValue) -> usize {
    (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
}

/// The fields of a JSON object as raw text, in order; a field given twice is an error.
fn raw_fields(text: &str) -> serde_json::Result<Vec<(String, &RawValue)>> {
    use serde::de::{Deserializer as _, Error as _, MapAccess, Visitor};
    struct Fields;
    impl<'de> Visitor<'de> for Fields {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(
            self,
            mut access: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut out: Vec<(String, &'de RawValue)> = Vec::new();
            while let Some(key) = access.next_key::<String>()? {
                if out.iter().any(|(k, _)| *k == key) {
                    return Err(A::Error::custom(format!(
                        "the key \"{key}\" is given twice in one object"
                    )));
                }
                out.push((key, access.next_value()?));
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = (&mut de).deserialize_map(Fields)?;
    de.end()?;
    Ok(fields)
}
