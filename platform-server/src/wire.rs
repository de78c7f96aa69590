//! The one adapter from the core's answer types to the JSON the interface speaks: serde, with
//! the wire names and order the types carry (`HttpResponse::json` writes them the same way
//! where an answer needs no other rendering).

use platform_core::{Error, Result};
use serde::Serialize;
use serde_json::Value;

/// An answer of the core as the JSON the renderings (JSON, CSV, XML, HTML) start from.
pub fn to_wire<T: Serialize + ?Sized>(answer: &T) -> Result<Value> {
    serde_json::to_value(answer)
        .map_err(|e| Error::Internal(format!("an answer does not write as JSON: {e}")))
}
