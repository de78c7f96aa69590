//! A candidate check: the check proposed and why.

use crate::validation::engine::{CheckDef, CheckScope, Severity};

/// A proposed check and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The check.
    pub def: CheckDef,
    /// Why, with the numbers behind it.
    pub reason: String,
    /// A threshold fitted from a distribution (kept in `config` unless it fails often);
    /// otherwise a structural check (kept only when it passes on the fitted part).
    pub fitted: bool,
}

pub(super) fn candidate(
    id: &str,
    name: &str,
    expression: String,
    scope: CheckScope,
    reason: String,
    fitted: bool,
) -> Candidate {
    Candidate {
        def: CheckDef {
            id: id.into(),
            name: name.into(),
            expression,
            scope,
            severity: Severity::Failed,
        },
        reason,
        fitted,
    }
}
