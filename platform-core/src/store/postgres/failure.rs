//! PostgreSQL's errors as operators read them: the SQLSTATE and message the server sent (with
//! its detail and hint), or what failed on the way to it, never the client library's bare
//! `db error`.

use std::fmt;

/// A PostgreSQL error whose text says why: `PostgreSQL 42501: permission denied for schema
/// public`, with `; detail: ...` and `; hint: ...` when the server sent them; an error that
/// did not come from the server (a lost connection, a refused one) names what failed and its
/// cause, `error connecting to server: Connection refused (os error 111)`.
#[derive(Debug)]
pub(crate) struct PgFailure(pub(crate) tokio_postgres::Error);

impl PgFailure {
    /// The SQLSTATE the server answered, when it answered one.
    #[cfg(test)]
    pub(crate) fn sqlstate(&self) -> Option<&str> {
        self.0.as_db_error().map(|db| db.code().code())
    }
}

impl fmt::Display for PgFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(db) = self.0.as_db_error() {
            write!(f, "PostgreSQL {}: {}", db.code().code(), db.message())?;
            if let Some(detail) = db.detail() {
                write!(f, "; detail: {detail}")?;
            }
            if let Some(hint) = db.hint() {
                write!(f, "; hint: {hint}")?;
            }
            return Ok(());
        }
        // The library's text names the kind of failure; its causes say what happened.
        write!(f, "{}", self.0)?;
        let mut cause = std::error::Error::source(&self.0);
        while let Some(c) = cause {
            write!(f, ": {c}")?;
            cause = c.source();
        }
        Ok(())
    }
}

/// The whole text is in [`fmt::Display`]; no source repeats it.
impl std::error::Error for PgFailure {}

impl From<tokio_postgres::Error> for PgFailure {
    fn from(e: tokio_postgres::Error) -> Self {
        PgFailure(e)
    }
}
