//! One check's evaluation, shared by point and curve runs: rhai's verdict on it, and the
//! message of a failure.

use super::compile::Compiled;
use super::lack::Stop;
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

/// One rhai evaluation: the status and its message (None on a pass, and on a failure whose
/// message the caller builds from the terms). A built-in that stopped the evaluation decides
/// it: history it lacks is [`CheckStatus::Skipped`], a text value where it needs a number is
/// [`CheckStatus::Fail`], each with the built-in's message.
pub(super) fn eval_rhai(check: &Compiled, scope: &mut Scope) -> (CheckStatus, Option<String>) {
    functions::take_stop();
    let out = functions::engine().eval_ast_with_scope::<Dynamic>(scope, &check.ast);
    let stop = functions::take_stop();
    match out {
        Ok(d) => match d.as_bool() {
            Ok(true) => (CheckStatus::Pass, None),
            Ok(false) => (CheckStatus::Fail, None),
            Err(_) => (CheckStatus::Error, Some(not_boolean(&d))),
        },
        Err(e) => {
            let text = e.to_string();
            // The stop decides only when its error is the one that ended the evaluation (a
            // library function may have caught it and failed otherwise since).
            match stop {
                Some(Stop::Lacking(m)) if text.contains(&m) => (CheckStatus::Skipped, Some(m)),
                Some(Stop::NotANumber(m)) if text.contains(&m) => (CheckStatus::Fail, Some(m)),
                _ => (CheckStatus::Error, Some(text)),
            }
        }
    }
}

pub(super) const MISSING: &str = "value is missing";
