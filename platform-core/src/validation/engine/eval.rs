//! One check's evaluation, shared by point and curve runs: rhai's verdict on it, and the
//! message of a failure.

use super::compile::Compiled;
use super::native::{self, Env};
use super::{functions, CheckStatus};
use rhai::{Dynamic, Scope};

/// The message of a failed check: from its tree when it has one, else its terms' values.
pub(super) fn fail_message<E: Env>(check: &Compiled, env: &E) -> String {
    match &check.tree {
        Some(tree) => tree
            .explain(env)
            .unwrap_or_else(|| native::generic_message(&tree.terms, env)),
        None => native::generic_message(&check.terms, env),
    }
}

fn not_boolean(d: &Dynamic) -> String {
    format!(
        "the expression returned {} ({d}), not true or false",
        d.type_name()
    )
}

/// One rhai evaluation: the status and, on an error, its message (None on pass/fail).
pub(super) fn eval_rhai(check: &Compiled, scope: &mut Scope) -> (CheckStatus, Option<String>) {
    match functions::engine().eval_ast_with_scope::<Dynamic>(scope, &check.ast) {
        Ok(d) => match d.as_bool() {
            Ok(true) => (CheckStatus::Pass, None),
            Ok(false) => (CheckStatus::Fail, None),
            Err(_) => (CheckStatus::Error, Some(not_boolean(&d))),
        },
        Err(e) => (CheckStatus::Error, Some(e.to_string())),
    }
}

pub(super) const MISSING: &str = "value is missing";
