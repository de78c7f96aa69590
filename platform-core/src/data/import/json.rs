//! JSON files: a series' header fields and observations, each still raw so its line can be
//! named; or a curve's header fields and curves, as the object save (and the prior art's SDK)
//! sends a curve.

use crate::data::{CURVE_TYPE, DATA_SYSTEM_FIELDS, SERIES_TYPE};
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
                    "the file holds a {value}: JSON files hold a time series ({SERIES_TYPE}) or \
                     a curve ({CURVE_TYPE}); curves import from CSV files of ondate,tenor,value \
                     too"
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

/// The curves of a JSON file whose `_type` is `VarCurve`: its header fields (`expiryCalendar`,
/// `currency`, `units`...) and its curves (`{ondate, contracts}` each). The file is one curve
/// as the object save sends it (`ondate` and `contracts` beside the header, the prior art's
/// SDK's `types.Curve`), or several in `curves`. `None` for any other file (a series).
///
/// ```
/// use platform_core::api::import::json_curve_file;
/// let text = r##"{"_type": "VarCurve", "expiryCalendar": "#REOMB", "currency": "EUR",
///     "curves": [{"ondate": "2024-11-28", "contracts": [{"tenor": "M01", "value": 96.5}]},
///                {"ondate": "2024-11-29", "contracts": [{"tenor": "M01", "value": 97.0}]}]}"##;
/// let (header, curves) = json_curve_file(text)?.expect("a curve file");
/// assert_eq!((header["expiryCalendar"].as_str(), curves.len()), (Some("#REOMB"), 2));
/// assert!(json_curve_file(r#"{"data": []}"#)?.is_none());
/// # Ok::<(), platform_core::Error>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn json_curve_file(
    text: &str,
) -> Result<Option<(Map<String, Value>, Vec<Map<String, Value>>)>> {
    if !text.trim_start().starts_with('{') {
        return Ok(None);
    }
    let value: Value = crate::json::from_str(text).map_err(|e| {
        Error::new(
            ErrorCode::InvalidBody,
            format!("the file is not valid JSON: {e}"),
        )
    })?;
    let Value::Object(mut header) = value else {
        return Ok(None);
    };
    if header.get("_type").and_then(Value::as_str) != Some(CURVE_TYPE) {
        return Ok(None);
    }
    header.shift_remove("_type");
    for f in DATA_SYSTEM_FIELDS {
        header.shift_remove(f);
    }
    let one = match (
        header.shift_remove("ondate"),
        header.shift_remove("contracts"),
    ) {
        (None, None) => None,
        (ondate, contracts) => {
            let mut curve = Map::new();
            curve.insert("ondate".into(), ondate.unwrap_or(Value::Null));
            curve.insert("contracts".into(), contracts.unwrap_or(Value::Null));
            Some(curve)
        }
    };
    let curves = match (one, header.shift_remove("curves")) {
        (Some(curve), None) => vec![curve],
        (None, Some(Value::Array(items))) if !items.is_empty() => items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Object(curve) => Ok(curve),
                other => Err(Error::invalid_body(format!(
                    "curves[{i}] must be an object {{ondate, contracts}}, not {}",
                    crate::json::json_kind(&other)
                ))),
            })
            .collect::<Result<_>>()?,
        (Some(_), Some(_)) => {
            return Err(Error::invalid_body(
                "the file holds ondate and contracts and curves: send one curve (ondate, \
                 contracts) or several (curves), not both",
            ))
        }
        _ => {
            return Err(Error::new(
                ErrorCode::MissingParameter,
                "the curve file has no curve: send ondate and contracts, or curves: \
                 [{ondate, contracts}...]",
            ))
        }
    };
    Ok(Some((header, curves)))
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
