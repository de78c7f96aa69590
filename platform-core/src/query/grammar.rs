//! The error shared by the grammars of this module (date rules, period codes, ranges).
//!
//! Every message names the offending input, e.g.
//! `invalid range "last(-1)": count must be a non-negative integer`; in the
//! platform such an error maps to a 400 `INVALID_PARAMETER`.

use std::fmt;

/// A parse or evaluation error of a date rule, period code or range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrammarError {
    /// Human-readable message naming the offending input.
    pub message: String,
}

impl GrammarError {
    /// An error with the given message, used as is.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// `invalid <what> "<input>": <reason>`.
    pub(crate) fn invalid(what: &str, input: &str, reason: impl fmt::Display) -> Self {
        Self::new(format!("invalid {what} \"{input}\": {reason}"))
    }
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GrammarError {}

impl From<GrammarError> for crate::Error {
    fn from(e: GrammarError) -> Self {
        crate::Error::invalid_parameter(e.message)
    }
}
