//! The one error type of the core, and its closed set of stable codes.
//!
//! Every failure a caller can see carries an [`ErrorCode`]. The code decides the HTTP status (in
//! the server's single table) and is shown to clients by its stable `SCREAMING_SNAKE` name. The
//! core knows nothing of HTTP: failures only HTTP knows (a method a path lacks, a body too
//! large, too slow or not JSON, a URL too long) are the server's own codes.

use std::fmt;

/// Stable, client-visible error codes.
///
/// New codes may come in a later release (the enum is `#[non_exhaustive]`): a `match` on it
/// outside this crate ends with a `_` arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A body of the wrong shape (not an object or array, a field of the wrong type...).
    InvalidBody,
    /// A missing or malformed id.
    InvalidId,
    /// A query or path parameter that does not parse or is out of bounds.
    InvalidParameter,
    /// A required field or parameter is absent.
    MissingParameter,
    /// No credentials, or an unknown or revoked token.
    NotAuthenticated,
    /// The caller's role does not allow the call.
    NotAuthorized,
    /// An unknown service, release, source, id, version, tag or environment.
    NotFound,
    /// A time that is not on its series' calendar.
    IndexAlign,
    /// Units or currencies that cannot be converted (no path, no FX rate).
    ConversionError,
    /// The write conflicts with stored state.
    Conflict,
    /// The endpoint cannot produce any of the accepted formats.
    NotAcceptable,
    /// Something failed inside the platform; details go to the log only.
    Internal,
    /// The database cannot be reached for now (a lost connection); the call may be retried.
    Unavailable,
}

impl ErrorCode {
    /// Every code, in declaration order (for tables and tests).
    pub const ALL: [ErrorCode; 13] = [
        ErrorCode::InvalidBody,
        ErrorCode::InvalidId,
        ErrorCode::InvalidParameter,
        ErrorCode::MissingParameter,
        ErrorCode::IndexAlign,
        ErrorCode::ConversionError,
        ErrorCode::NotAuthenticated,
        ErrorCode::NotAuthorized,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::NotAcceptable,
        ErrorCode::Internal,
        ErrorCode::Unavailable,
    ];

    /// The stable name clients see.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::InvalidBody => "INVALID_BODY",
            ErrorCode::InvalidId => "INVALID_ID",
            ErrorCode::InvalidParameter => "INVALID_PARAMETER",
            ErrorCode::MissingParameter => "MISSING_PARAMETER",
            ErrorCode::IndexAlign => "INDEX_ALIGN",
            ErrorCode::ConversionError => "CONVERSION_ERROR",
            ErrorCode::NotAuthenticated => "NOT_AUTHENTICATED",
            ErrorCode::NotAuthorized => "NOT_AUTHORIZED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::NotAcceptable => "NOT_ACCEPTABLE",
            ErrorCode::Internal => "INTERNAL_ERROR",
            ErrorCode::Unavailable => "UNAVAILABLE",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `text` with every `word` that stands alone (no letter, digit or `_` on either side)
/// replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let part_of_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(part_of_word) || after.is_some_and(part_of_word) {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

/// A failure of a core call.
///
/// Match on [`Error::code`] for what kind of failure it is; the variants say where it came
/// from, and new ones may come in a later release (`#[non_exhaustive]`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A problem the caller can fix; the message names the offending input.
    #[error("{message}")]
    User {
        /// What kind of problem.
        code: ErrorCode,
        /// A sentence naming the problem.
        message: String,
    },
    /// The storage backend failed. The source never reaches clients.
    #[error("storage failure: {0}")]
    Storage(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The storage backend cannot be reached for now (its connection was lost, it does not
    /// answer). The source never reaches clients; nothing of the call was stored.
    #[error("storage unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// An invariant of the platform broke. The message never reaches clients.
    #[error("internal failure: {0}")]
    Internal(String),
    /// An internal failure caused by another error (stored data that does not decode, a file
    /// that cannot be created...), which is kept as the source. Never reaches clients.
    #[error("internal failure: {context}: {source}")]
    Caused {
        /// What was being done.
        context: String,
        /// The error that caused it.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl Error {
    /// A user error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error::User {
            code,
            message: message.into(),
        }
    }

    /// The failure of a store call that would have waited under `crate::store::NoWait`.
    pub fn would_wait() -> Self {
        Error::Caused {
            context: "a call that must not wait".into(),
            source: Box::new(WouldWait),
        }
    }

    /// Whether this is [`Error::would_wait`].
    pub fn is_would_wait(&self) -> bool {
        matches!(self, Error::Caused { source, .. } if source.is::<WouldWait>())
    }

    /// The failure of a write transaction that met a concurrent one (see
    /// `WriteConflict`): nothing was stored, and the work may run again.
    pub fn write_conflict(what: impl Into<String>) -> Self {
        Error::Caused {
            context: "a write transaction".into(),
            source: Box::new(WriteConflict(what.into())),
        }
    }

    /// The failure of a write whose commit was sent but whose answer never came (the connection
    /// was lost during `COMMIT`): it may or may not have been stored (see `OutcomeUnknown`).
    pub fn outcome_unknown(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Error::Unavailable(Box::new(OutcomeUnknown(cause.into())))
    }

    /// Whether this is [`Error::outcome_unknown`].
    pub fn is_outcome_unknown(&self) -> bool {
        matches!(self, Error::Unavailable(source) if source.is::<OutcomeUnknown>())
    }

    /// Whether this is [`Error::write_conflict`].
    pub fn is_write_conflict(&self) -> bool {
        matches!(self, Error::Caused { source, .. } if source.is::<WriteConflict>())
    }

    /// Shorthand for [`ErrorCode::InvalidParameter`].
    pub fn invalid_parameter(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidParameter, message)
    }

    /// Shorthand for [`ErrorCode::InvalidBody`].
    pub fn invalid_body(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidBody, message)
    }

    /// Shorthand for [`ErrorCode::NotFound`].
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// Shorthand for [`ErrorCode::NotAuthorized`].
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotAuthorized, message)
    }

    /// An internal failure while doing `context`, keeping the error that caused it.
    pub fn caused(
        context: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Error::Caused {
            context: context.into(),
            source: source.into(),
        }
    }

    /// The same error, its message naming what a Rust call was given rather than the HTTP
    /// parameters the engine's rules name: each `(parameter, Rust name)` of `names` replaced
    /// where it stands as a word (`_range` in `_range: ...`, not in `_ranges`). Errors that
    /// are not the caller's (storage, internal) are left as they are.
    pub(crate) fn in_rust_terms(self, names: &[(&str, &str)]) -> Self {
        let Error::User { code, message } = self else {
            return self;
        };
        let mut out = message;
        for (parameter, rust) in names {
            out = replace_word(&out, parameter, rust);
        }
        Error::User { code, message: out }
    }

    /// Wraps a backend error.
    pub fn storage(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Error::Storage(Box::new(e))
    }

    /// The code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::User { code, .. } => *code,
            Error::Storage(_) | Error::Internal(_) | Error::Caused { .. } => ErrorCode::Internal,
            Error::Unavailable(_) => ErrorCode::Unavailable,
        }
    }

    /// The message a client may see: the user message, or a generic text for internal failures.
    pub fn public_message(&self) -> String {
        match self {
            Error::User { message, .. } => message.clone(),
            Error::Storage(_) | Error::Internal(_) | Error::Caused { .. } => {
                "internal error".to_string()
            }
            Error::Unavailable(source) if source.is::<OutcomeUnknown>() => {
                "the connection to the database was lost while the write was being committed: \
                 whether it was stored is unknown; sending the same request again is safe (a \
                 save of what is already stored makes no new version)"
                    .to_string()
            }
            Error::Unavailable(_) => {
                "the database is unavailable for now; nothing was changed, try again".to_string()
            }
        }
    }
}

/// The core's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The cause of the error a store call gives when it would have to wait under
/// [`crate::store::NoWait`].
#[derive(Debug)]
pub struct WouldWait;

impl fmt::Display for WouldWait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the call would wait for the database")
    }
}

impl std::error::Error for WouldWait {}

/// The cause of the error of a write whose `COMMIT` was sent and whose answer was lost with the
/// connection ([`Error::outcome_unknown`]): the database may have stored it or not, and no
/// client can tell from the error. A save of the same body again is safe (one equal to the
/// stored document makes no new version).
#[derive(Debug)]
pub struct OutcomeUnknown(pub Box<dyn std::error::Error + Send + Sync>);

impl fmt::Display for OutcomeUnknown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the connection was lost during COMMIT, whether it was stored is unknown: {}",
            self.0
        )
    }
}

impl std::error::Error for OutcomeUnknown {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.0.as_ref())
    }
}

/// The cause of the error of a write transaction that met a concurrent one it cannot be ordered
/// with (a deadlock, a serialization failure, a version another writer stored first): nothing
/// of it was stored, and the same work may be tried again from the start
/// ([`Error::is_write_conflict`]).
#[derive(Debug)]
pub struct WriteConflict(pub String);

impl fmt::Display for WriteConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a concurrent write: {}", self.0)
    }
}

impl std::error::Error for WriteConflict {}

#[cfg(test)]
mod rust_terms_tests {
    use super::*;

    #[test]
    fn parameters_are_renamed_as_words_only() {
        let e = Error::invalid_parameter(
            "_observed needs a _calendar coarser; _observedx and x_calendar stay",
        )
        .in_rust_terms(&[
            ("_observed", "Scaling::aggregate"),
            ("_calendar", "target calendar"),
        ]);
        assert_eq!(
            e.to_string(),
            "Scaling::aggregate needs a target calendar coarser; _observedx and x_calendar stay"
        );
        assert_eq!(e.code(), ErrorCode::InvalidParameter);
        let internal = Error::Internal("_range".into()).in_rust_terms(&[("_range", "r")]);
        assert_eq!(internal.to_string(), "internal failure: _range");
    }
}
