//! The one place where rhai engines are built: every user script runs in a sandbox made here.
//!
//! Two profiles share the same limits: [`Profile::Script`] for stored scripts (libraries,
//! automation and extension scripts: statements, functions and bounded loops) and
//! [`Profile::Check`] for one-line check expressions (no loops, no closures, strict variables).
//! No engine can reach files, the network or the clock except through functions the platform
//! registers; `eval` is disabled; operations, call depth, expression depth and string, array and
//! map sizes are capped, so a hostile script ends with an error instead of hanging the server.

use crate::error::{Error, ErrorCode, Result};
use rhai::packages::{
    ArithmeticPackage, BasicArrayPackage, BasicMapPackage, BasicMathPackage, BasicStringPackage,
    LogicPackage, MoreStringPackage, Package,
};
use rhai::{Engine, AST};
use std::time::Duration;

/// The budgets of one script call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptLimits {
    /// Objects one call may save.
    pub writes: usize,
    /// How long one call may run, its reads and writes included.
    pub time: Duration,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits {
            writes: 1_000,
            time: Duration::from_secs(10),
        }
    }
}

/// Longest script source accepted, in bytes.
pub const MAX_SCRIPT_BYTES: usize = 256 * 1024;

/// What an engine is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Stored scripts: statements, functions, bounded loops.
    Script,
    /// One-line check expressions: no loops, no closures.
    Check,
}

/// A sandboxed engine for a profile.
pub fn engine(profile: Profile) -> Engine {
    let mut engine = Engine::new_raw();
    engine.register_global_module(ArithmeticPackage::new().as_shared_module());
    engine.register_global_module(LogicPackage::new().as_shared_module());
    engine.register_global_module(BasicMathPackage::new().as_shared_module());
    engine.register_global_module(BasicStringPackage::new().as_shared_module());
    engine.register_global_module(MoreStringPackage::new().as_shared_module());
    engine.register_global_module(BasicArrayPackage::new().as_shared_module());
    engine.register_global_module(BasicMapPackage::new().as_shared_module());
    engine.disable_symbol("eval");
    engine.set_max_string_size(64 * 1024);
    engine.set_max_array_size(10_000);
    engine.set_max_map_size(1_000);
    engine.set_max_call_levels(16);
    engine.set_max_expr_depths(64, 32);
    engine.set_max_variables(256);
    match profile {
        Profile::Script => {
            engine.set_max_operations(1_000_000);
            engine.set_max_functions(256);
        }
        Profile::Check => {
            engine.set_max_operations(10_000);
            engine.set_max_functions(0);
            engine.set_allow_looping(false);
            engine.set_allow_anonymous_fn(false);
            engine.set_strict_variables(true);
            engine.set_max_expr_depths(32, 16);
        }
    }
    engine
}

/// Compiles a stored rhai script (a syntax check, and the AST for running it).
pub fn compile_script(engine: &Engine, id: &str, source: &str) -> Result<AST> {
    if source.len() > MAX_SCRIPT_BYTES {
        return Err(Error::invalid_body(format!(
            "script \"{id}\" is longer than {MAX_SCRIPT_BYTES} bytes"
        )));
    }
    engine.compile(source).map_err(|e| {
        Error::new(
            ErrorCode::InvalidBody,
            format!("script \"{id}\" does not compile: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_compile_or_name_the_error() {
        let e = engine(Profile::Script);
        assert!(compile_script(&e, "ok", "fn twice(x) { x * 2 } let y = twice(2);").is_ok());
        let err = compile_script(&e, "bad", "let = ;").unwrap_err();
        assert!(
            err.to_string().contains("script \"bad\" does not compile"),
            "{err}"
        );
        assert!(compile_script(&e, "evil", "eval(\"1\")").is_err());
    }

    #[test]
    fn runaway_scripts_stop_at_the_limits() {
        let e = engine(Profile::Script);
        let err = e.eval::<i64>("let x = 0; loop { x += 1; }").unwrap_err();
        assert!(err.to_string().contains("operations"), "{err}");
        let err = e
            .eval::<String>("let s = \"x\"; loop { s += s; }")
            .unwrap_err();
        assert!(
            err.to_string().to_lowercase().contains("length") || err.to_string().contains("size"),
            "{err}"
        );
        let c = engine(Profile::Check);
        assert!(c.compile_expression("while true {}").is_err());
    }
}
