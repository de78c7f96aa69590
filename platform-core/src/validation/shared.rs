//! Small pieces the validation service functions share: reading a request body (the body as an
//! object, arrays of strings), and in answers, counts by name and the milliseconds spent.

use crate::error::{Error, Result};
use crate::json::json_kind;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// The request body as an object.
pub(crate) fn object(body: &Value) -> Result<&Map<String, Value>> {
    body.as_object()
        .ok_or_else(|| Error::invalid_body("the request must be a JSON object"))
}

/// A field that is an array of strings, when given.
pub(crate) fn strings(v: Option<&Value>, name: &str) -> Result<Option<Vec<String>>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str().map(str::to_string).ok_or_else(|| {
                    Error::invalid_body(format!("{name} must be an array of strings"))
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(other) => Err(Error::invalid_body(format!(
            "{name} must be an array, not {}",
            json_kind(other)
        ))),
    }
}

/// Counts one more under `key`.
pub(crate) fn bump(map: &mut Map<String, Value>, key: &str) {
    let n = map.get(key).and_then(Value::as_u64).unwrap_or(0) + 1;
    map.insert(key.to_string(), json!(n));
}

/// Milliseconds since `since`, to a hundredth.
pub(crate) fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e5).round() / 100.0
}
