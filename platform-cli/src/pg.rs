//! The PostgreSQL connection options every command that takes `--db` shares: the connection
//! pooler in between, and the listener's direct connection.

use clap::Args;
use platform_core::api::stores::{PgOptions, PgPooler};

/// How a PostgreSQL `--db` is reached.
#[derive(Args, Clone, Debug, Default)]
pub struct PgArgs {
    /// With a PostgreSQL --db: the connection pooler between this process and PostgreSQL:
    /// none (a direct connection, or pgbouncer in session pooling), or transaction (pgbouncer
    /// with pool_mode = transaction: the search path and time zone are set in each
    /// transaction, and no prepared statement outlives one). Not detected: say it.
    #[arg(long = "pg-pooler", env = "PLATFORM_PG_POOLER", default_value = "none",
          value_parser = parse_pooler)]
    pub pg_pooler: PgPooler,
    /// With --pg-pooler transaction: a URL of the same database that reaches PostgreSQL
    /// directly (not through the pooler), for the listener of the realtime messages between
    /// servers (LISTEN needs a session of its own); `serve` refuses the pooler without it.
    #[arg(long = "pg-listen-db", env = "PLATFORM_PG_LISTEN_DB")]
    pub pg_listen_db: Option<String>,
}

fn parse_pooler(text: &str) -> Result<PgPooler, String> {
    PgPooler::parse(text).map_err(|e| e.to_string())
}

impl PgArgs {
    /// `options` with these settings.
    pub fn apply(&self, options: PgOptions) -> PgOptions {
        PgOptions {
            pooler: self.pg_pooler,
            listen_url: self
                .pg_listen_db
                .as_deref()
                .map(str::trim)
                .filter(|u| !u.is_empty())
                .map(str::to_string),
            ..options
        }
    }

    /// For `serve`: a transaction pooler without a direct listener is refused (the realtime
    /// messages of one server would reach no other).
    pub fn check_for_serving(&self, db: &str) -> platform_core::Result<()> {
        let url = db.starts_with("postgres://") || db.starts_with("postgresql://");
        if url
            && self.pg_pooler == PgPooler::Transaction
            && self.apply(PgOptions::default()).listen_url.is_none()
        {
            return Err(platform_core::Error::invalid_parameter(
                "--pg-pooler transaction needs --pg-listen-db (PLATFORM_PG_LISTEN_DB): a URL \
                 that reaches PostgreSQL directly, for the listener of the realtime messages \
                 between servers (LISTEN cannot work through a transaction pooler)",
            ));
        }
        Ok(())
    }
}
