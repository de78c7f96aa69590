//! The script service's rules: a script is a versioned document
//! `{_id, _type: "VarScript", scriptType: "rhai" | "mustache", script, category, description}`,
//! public (`#`) or private. A script that does not compile is refused when it is saved.
//!
//! `host` runs stored programs with the platform's functions.

pub mod host;

use crate::error::{Error, Result};
use crate::json::json_kind;
use crate::script::{compile_script, engine, Profile};
use serde_json::{Map, Value};

/// The kinds of script.
pub const SCRIPT_TYPES: [&str; 2] = ["rhai", "mustache"];

/// Checks a script document: its type, its source, and that the source compiles.
pub fn check_script(fields: &Map<String, Value>) -> Result<()> {
    let id = fields
        .get("_id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let source = match fields.get("script") {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "script must be a string, not {}",
                json_kind(other)
            )))
        }
        None => {
            return Err(Error::new(
                crate::ErrorCode::MissingParameter,
                format!("script \"{id}\" has no script field"),
            ))
        }
    };
    match fields.get("scriptType") {
        None | Some(Value::Null) => compile_rhai(id, source),
        Some(Value::String(t)) if t == "rhai" => compile_rhai(id, source),
        Some(Value::String(t)) if t == "mustache" => crate::format::template::compile(source)
            .map(|_| ())
            .map_err(|e| {
                Error::invalid_body(format!(
                    "template \"{id}\" does not compile: {}",
                    e.public_message()
                ))
            }),
        Some(other) => Err(Error::invalid_body(format!(
            "scriptType must be one of {}, not {other}",
            SCRIPT_TYPES.join(", ")
        ))),
    }
}

fn compile_rhai(id: &str, source: &str) -> Result<()> {
    compile_script(&engine(Profile::Script), id, source).map(|_| ())
}

/// The source and type of a stored script document.
pub fn source_of(doc: &Map<String, Value>) -> (&str, &str) {
    let source = doc
        .get("script")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let kind = doc
        .get("scriptType")
        .and_then(Value::as_str)
        .unwrap_or("rhai");
    (source, kind)
}
