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

#[cfg(test)]
mod tests {
    use super::super::testing::{admin, server_url};
    use super::PgFailure;
    use crate::error::Error;

    /// An error PostgreSQL sent reads as its SQLSTATE and message, with its detail and hint;
    /// one that never reached it names what failed and why.
    #[test]
    fn a_postgresql_error_reads_as_its_sqlstate_message_detail_and_hint() {
        let target =
            super::super::connect::target("postgres://postgres@127.0.0.1:1/nowhere").unwrap();
        let e = super::super::pool::connect(&target.config, &target.tls, false)
            .err()
            .unwrap();
        let text = e.to_string();
        assert!(
            text.starts_with("storage unavailable: error connecting to server: ")
                && text.contains("refused"),
            "{text}"
        );
        let Some(url) = server_url() else {
            return;
        };
        let mut client = admin(&url).unwrap();
        let e = client.batch_execute("SELECT 1/0").unwrap_err();
        assert_eq!(
            e.to_string(),
            "storage failure: PostgreSQL 22012: division by zero"
        );
        let e = client
            .batch_execute(
                "DO $$ BEGIN RAISE EXCEPTION 'permission denied for schema public' \
                 USING ERRCODE = '42501', DETAIL = 'the role has no CREATE', \
                 HINT = 'GRANT CREATE ON SCHEMA public'; END $$",
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "storage failure: PostgreSQL 42501: permission denied for schema public; \
             detail: the role has no CREATE; hint: GRANT CREATE ON SCHEMA public"
        );
        let Error::Storage(source) = &e else {
            panic!("{e:?}");
        };
        let failure = source.downcast_ref::<PgFailure>().unwrap();
        assert_eq!(failure.sqlstate(), Some("42501"));
        assert!(!format!("{e}").contains("db error"));
    }

    /// A write refused by a read-only server (25006, a demoted primary) is unavailable, and is
    /// known as such through the failure that carries it (the pool then drops its idle
    /// connections, so a URL of several hosts finds the new primary).
    #[test]
    fn a_write_refused_as_read_only_is_known_through_its_failure() {
        let Some(url) = server_url() else {
            return;
        };
        let mut client = admin(&url).unwrap();
        let e = client
            .batch_execute("BEGIN READ ONLY; CREATE TABLE platform_never (x int); COMMIT")
            .unwrap_err();
        let Error::Unavailable(cause) = &e else {
            panic!("{e:?}");
        };
        assert!(cause.is::<PgFailure>(), "{e:?}");
        assert!(super::super::read_only(cause.as_ref()), "{e}");
        assert!(e.to_string().contains("PostgreSQL 25006"), "{e}");
    }
}
