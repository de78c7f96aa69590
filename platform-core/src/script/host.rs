//! Running stored rhai programs (extension lifecycle scripts) with the platform's functions.
//!
//! The program sees its inputs as variables (`extension`, `action`) and may call:
//!
//! | function | effect |
//! |---|---|
//! | `message(text)` | sends a realtime message on the extension's channel |
//! | `save_object(map)` | saves an object as the calling user (the usual rules and rights) and returns it |
//! | `get_object(id)` | the current object, or `()` when it does not exist |
//! | `secret(id)` | a secret's value; disabled, not-yet-valid or expired secrets throw |
//!
//! Every call runs in the sandboxed engine of `script::engine` with the stored-script limits.

use super::{compile_script, engine, Profile};
use crate::auth::Principal;
use crate::documents::SaveOptions;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::Source;
use crate::store::Collection;
use crate::Platform;
use rhai::{Dynamic, EvalAltResult, Map as RhaiMap, Scope};
use serde_json::Value;

fn to_dynamic(v: &Value) -> std::result::Result<Dynamic, Box<EvalAltResult>> {
    rhai::serde::to_dynamic(v)
}

fn thrown(e: Error) -> Box<EvalAltResult> {
    e.public_message().into()
}

/// Runs `source` (script `script_id`) for extension `ext_id` as `p`, with the entries of `inputs`
/// (a JSON object) as variables; returns the program's value as JSON.
pub fn run(
    platform: &Platform,
    p: &Principal,
    ext_id: &str,
    source: &str,
    script_id: &str,
    inputs: Value,
) -> Result<Value> {
    let mut engine = engine(Profile::Script);
    {
        let (pl, who, ext) = (platform.clone(), p.clone(), ext_id.to_string());
        engine.register_fn("message", move |text: &str| {
            pl.extension_message(&who, &ext, &format!("info {text}"))
        });
    }
    {
        let (pl, who) = (platform.clone(), p.clone());
        engine.register_fn(
            "save_object",
            move |obj: RhaiMap| -> std::result::Result<Dynamic, Box<EvalAltResult>> {
                let body: Value = rhai::serde::from_dynamic(&Dynamic::from_map(obj))?;
                let saved = pl
                    .save(&who, Collection::Object, body, &SaveOptions::default())
                    .map_err(thrown)?;
                to_dynamic(&saved)
            },
        );
    }
    {
        let (pl, who) = (platform.clone(), p.clone());
        engine.register_fn(
            "get_object",
            move |id: &str| -> std::result::Result<Dynamic, Box<EvalAltResult>> {
                match pl.get(&who, Collection::Object, Source::of_id(id), id, None, None) {
                    Ok(v) => to_dynamic(&v),
                    Err(e) if e.code() == ErrorCode::NotFound => Ok(Dynamic::UNIT),
                    Err(e) => Err(thrown(e)),
                }
            },
        );
    }
    {
        let (pl, who) = (platform.clone(), p.clone());
        engine.register_fn(
            "secret",
            move |id: &str| -> std::result::Result<String, Box<EvalAltResult>> {
                pl.secret_value(&who, id).map_err(thrown)
            },
        );
    }
    let ast = compile_script(&engine, script_id, source)?;
    let mut scope = Scope::new();
    if let Value::Object(vars) = &inputs {
        for (name, v) in vars {
            let d =
                to_dynamic(v).map_err(|e| Error::Internal(format!("script input {name}: {e}")))?;
            scope.push_dynamic(name.as_str(), d);
        }
    }
    let out: Dynamic = engine.eval_ast_with_scope(&mut scope, &ast).map_err(|e| {
        Error::new(
            ErrorCode::InvalidParameter,
            format!("script \"{script_id}\" failed: {e}"),
        )
    })?;
    rhai::serde::from_dynamic::<Value>(&out)
        .map_err(|e| Error::Internal(format!("script result: {e}")))
}
