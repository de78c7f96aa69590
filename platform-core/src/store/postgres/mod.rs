//! The PostgreSQL backend: several servers over one database.
//!
//! A [`PgStore`] keeps a small pool of connections (the synchronous `postgres` client). A read
//! transaction is `REPEATABLE READ, READ ONLY` (one snapshot, taken when it starts); a write
//! transaction is `READ COMMITTED` and first takes the database's write lock (a transaction
//! advisory lock), so write transactions serialise across every process on the database as
//! they do on SQLite's one writer: a writer sees every commit made before it, versions stay
//! contiguous, and the outbox order holds. Reads never wait for the lock.
//!
//! Jobs and deliveries are claimed with `FOR UPDATE SKIP LOCKED` and carry a lease: the claim
//! records which store (node) holds it until when, a thread of each store renews its leases,
//! and a running job or delivery whose lease ran out (its node was killed) is claimed again by
//! another node. Where several processes share the database ([`Store::shared`]), work left
//! running comes back through leases only, never through a requeue at start.
//!
//! Realtime messages go through `LISTEN/NOTIFY` ([`PgStore::bus`]): a message published on one
//! node reaches the subscribers of every node.
//!
//! Documents: every version's body is kept as text (field order and numbers as written), the
//! current version's in its current row only, beside its filterable `jsonb` form (the system
//! fields are read from the columns). Filters run in SQL
//! where the SQL means exactly what `Filter::matches` means, and in memory otherwise
//! (`store::postgres::filter`). Series chunks and curves are `bytea` in the codec SQLite uses.
//!
//! Schema changes are numbered steps ([`MIGRATIONS`]) recorded in `platform_schema`, applied
//! at open under a lock; a database with a newer schema is refused.
//!
//! **Invariant:** only `store::postgres` names the `postgres` crate.

mod ahead;
mod audit;
#[cfg(any(test, feature = "contract-tests"))]
pub mod bouncer;
mod bus;
#[cfg(any(test, feature = "contract-tests"))]
pub mod cluster;
mod connect;
mod data;
mod documents;
mod failure;
mod filter;
mod gathered;
mod health;
mod jobs;
mod key;
mod migrations;
mod outbox;
mod pgpass;
mod pool;
mod records;
mod replicas;
mod scopes;
mod secrets;
mod tenancy;
#[cfg(any(test, feature = "contract-tests"))]
pub mod testing;
mod tls;
mod tx;

pub use bus::PgBus;
pub use key::KeyRecord;
// Named by the tests, benches and fuzz targets only.
#[cfg(any(test, feature = "internals"))]
pub use migrations::{current_version as schema_version, STEPS as MIGRATIONS};

use crate::error::{Error, Result};
use crate::store::{ReadTx, Store, WriteTx};
use pool::Pool;
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::Row;
use tx::Tx;

/// The first key of the advisory locks the platform takes (`'plat'`); the second is a hash of
/// the schema, so that platforms in different schemas of one database do not share locks.
const LOCK_CLASS: i32 = 0x706c_6174;
/// The second key of the migration lock is the schema's hash plus this.
const MIGRATION_LOCK: i32 = 1;

/// How long a claim of a job or delivery lasts without renewal, by default.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// Whether a text is a PostgreSQL connection URL (`postgres://` or `postgresql://`).
pub fn is_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

pub use replicas::DEFAULT_MAX_LAG;
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use replicas::SAMPLE_EVERY;

/// How a `PgStore` is opened, past its URL.
#[derive(Debug, Clone)]
pub struct PgOptions {
    /// The schema of the platform's tables (created if absent).
    pub schema: String,
    /// How long a claim of a job or delivery lasts without renewal.
    pub lease: Duration,
    /// The URLs of streaming replicas of the database that serve the reads a caller allows them
    /// ([`crate::store::ReplicaReads`]).
    pub read_replicas: Vec<String>,
    /// The longest a replica may lag behind the primary and still serve reads.
    pub replica_max_lag: Duration,
    /// Whether a database without the platform's tables may be made one (its tables created);
    /// else it is refused, naming it, and nothing is created.
    pub create: bool,
    /// Whether this open initialises the database (`platform init`): only then is a missing
    /// key file made ([`crate::Platform::open_postgres_with`]).
    pub init: bool,
    /// The connection pooler between the servers and PostgreSQL, if any.
    pub pooler: PgPooler,
    /// A direct connection (no pooler) for the listener of the realtime bus (`LISTEN`);
    /// without it, the listener uses the database's URL, which a transaction pooler cannot
    /// serve.
    pub listen_url: Option<String>,
}

/// The connection pooler between the servers and PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PgPooler {
    /// None: each connection is a session of PostgreSQL's (settings made at connection start,
    /// prepared statements kept per connection).
    #[default]
    None,
    /// A pooler in transaction mode (pgbouncer's `pool_mode = transaction`): a connection is
    /// a session only within a transaction, so the settings are made in each transaction and
    /// no prepared statement outlives one.
    Transaction,
}

impl PgPooler {
    /// The pooler a word names (`none`, `transaction`).
    pub fn parse(text: &str) -> Result<PgPooler> {
        match text.trim().to_ascii_lowercase().as_str() {
            "none" | "" => Ok(PgPooler::None),
            "transaction" => Ok(PgPooler::Transaction),
            other => Err(Error::invalid_parameter(format!(
                "\"{other}\" is not a pooler mode: none or transaction (pgbouncer's \
                 pool_mode = transaction; session pooling needs none)"
            ))),
        }
    }

    /// Its word.
    pub fn as_str(self) -> &'static str {
        match self {
            PgPooler::None => "none",
            PgPooler::Transaction => "transaction",
        }
    }
}

impl Default for PgOptions {
    fn default() -> Self {
        PgOptions {
            schema: "public".into(),
            lease: DEFAULT_LEASE,
            read_replicas: Vec::new(),
            replica_max_lag: DEFAULT_MAX_LAG,
            create: true,
            init: false,
            pooler: PgPooler::None,
            listen_url: None,
        }
    }
}

/// A write of at least this many rows of documents has the tables analyzed in the background
/// ([`analyze_soon`]).
const ANALYZE_AFTER: usize = 1_000;

/// So do the first this many rows of documents a store writes (a new database: none has
/// statistics, and autovacuum analyzes a table a minute or so after its first rows).
const ANALYZE_FIRST: usize = 100;

/// Counts the rows of documents a committed write wrote, and has the tables analyzed past
/// [`ANALYZE_FIRST`] rows written since the store opened (once) or [`ANALYZE_AFTER`] in one
/// write.
fn wrote_rows(shared: &Shared, rows: usize) {
    if rows == 0 {
        return;
    }
    let before = shared
        .written_rows
        .fetch_add(rows, std::sync::atomic::Ordering::Relaxed);
    if rows >= ANALYZE_AFTER || (before < ANALYZE_FIRST && before + rows >= ANALYZE_FIRST) {
        analyze_soon(shared);
    }
}

/// How often at most the store analyzes the tables after large writes.
const ANALYZE_EVERY: Duration = Duration::from_secs(60);

/// Has PostgreSQL's statistics of the documents and series tables made again, on a thread of
/// its own, unless that ran in the last [`ANALYZE_EVERY`] or runs now: after a large write
/// (a bulk load into a new database above all) the planner would otherwise plan with the
/// statistics of the tables as they were, or with none until autovacuum comes by (a list that
/// reads an index, without them, read a whole scope: 8.4 ms against 0.7 ms for `_searchinfo`).
fn analyze_soon(shared: &Shared) {
    let mut last = shared.analyzed.lock().unwrap_or_else(|e| e.into_inner());
    if last.is_some_and(|at| at.elapsed() < ANALYZE_EVERY) {
        return;
    }
    *last = Some(std::time::Instant::now());
    drop(last);
    let pool = shared.pool.clone();
    // The tables named with their schema: a connection through a pooler has no search path.
    let analyze = format!(
        "ANALYZE \"{0}\".heads, \"{0}\".versions, \"{0}\".series_chunks",
        shared.schema
    );
    let spawned = std::thread::Builder::new()
        .name("pg-analyze".into())
        .spawn(move || {
            // A connection of its own, outside the pool (the calls' round trips stay theirs).
            let done = pool
                .connect(false)
                .and_then(|mut c| c.batch_execute(&analyze));
            if let Err(e) = done {
                tracing::warn!(error = %e, "cannot analyze the tables after a large write");
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start analyzing the tables");
    }
}

/// The statements that open a read transaction.
const BEGIN_READ: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";

/// Opens a write transaction. A write's statements find their rows by key, and a connection
/// keeps the plan it made of a statement: PostgreSQL plans a read of a small table (a new
/// database's) as a walk through the table, cheaper there than an index, and keeps walking
/// the table as it grows (a save of the 4,000th document read every version row, 1.5 ms).
/// Planned without walks where an index serves, each keeps reading by its key at any size.
/// (`SET LOCAL` ends with the transaction, as a pooler in transaction mode needs.)
const BEGIN_WRITE: &str = "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL enable_seqscan = off";

/// A store in one PostgreSQL database (in one schema of it).
pub struct PgStore {
    shared: Arc<Shared>,
}

/// What the store, its transactions and its background threads share.
pub(crate) struct Shared {
    pool: Pool,
    /// The schema the platform's tables live in.
    schema: String,
    /// This store's id in claims (random, chosen at open).
    node: String,
    /// How long a claim lasts without renewal.
    lease: Duration,
    /// The claims this store made (committed) whose work has not ended
    /// ([`Store::claim_ended`]): the only ones its renewal thread renews.
    claims: std::sync::Mutex<std::collections::HashSet<crate::store::Claim>>,
    /// The read replicas, when any.
    replicas: Option<replicas::Replicas>,
    /// When the tables were last analyzed after a large write ([`analyze_soon`]).
    analyzed: std::sync::Mutex<Option<std::time::Instant>>,
    /// Rows of documents written since the store opened ([`wrote_rows`]).
    written_rows: std::sync::atomic::AtomicUsize,
    /// The keys of scopes of documents, as committed (`scopes`).
    scope_keys: std::sync::Mutex<std::collections::HashMap<gathered::ScopeName, i32>>,
    /// Scopes of documents known to have a key, committed (their keys not read yet): a write
    /// into them need not make one.
    scopes_made: std::sync::Mutex<std::collections::HashSet<gathered::ScopeName>>,
}

impl Shared {
    fn scope_keys(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<gathered::ScopeName, i32>> {
        self.scope_keys.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn scopes_made(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashSet<gathered::ScopeName>> {
        self.scopes_made.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn claims(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<crate::store::Claim>> {
        self.claims.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("schema", &self.shared.schema)
            .field("node", &self.shared.node)
            .finish()
    }
}

/// A PostgreSQL error as the platform's: a lost or refused connection is
/// [`Error::Unavailable`], anything else a storage failure; either says why in PostgreSQL's
/// words (its SQLSTATE and message, [`failure::PgFailure`]).
pub(crate) fn pg_error(e: tokio_postgres::Error) -> Error {
    if e.is_closed() || e.as_db_error().is_none() {
        return Error::Unavailable(Box::new(failure::PgFailure(e)));
    }
    if let Some(db) = e.as_db_error() {
        let code = db.code().code();
        // Administrator shutdown, crash shutdown, cannot connect now: the server went away.
        // A write refused as read-only (25006): the server is no primary now (a fail-over
        // demoted it, or its sessions are read-only); nothing was written, and the connection
        // is dropped so that the next one finds the primary.
        if code.starts_with("08")
            || code == "57P01"
            || code == "57P02"
            || code == "57P03"
            || code == READ_ONLY
        {
            return Error::Unavailable(Box::new(failure::PgFailure(e)));
        }
        // Transactions that cannot be ordered: a serialization failure, a deadlock; or a row
        // of a version another writer stored first. Nothing of this one is kept: it may run
        // again.
        let version_taken =
            code == "23505" && matches!(db.constraint(), Some("versions_pkey" | "heads_pkey"));
        if code == "40001" || code == "40P01" || version_taken {
            return Error::write_conflict(db.message().to_string());
        }
        // Statement too complex for the server: stack depth, too many arguments.
        if code == "54001" || code == "54000" || code == "54023" {
            return Error::invalid_parameter(
                "the query is larger than the store can run; make it smaller",
            );
        }
    }
    Error::storage(failure::PgFailure(e))
}

/// The SQLSTATE of a write refused because the transaction is read-only.
const READ_ONLY: &str = "25006";

/// Whether an error is a write refused because the server is read-only (no primary).
pub(crate) fn read_only(e: &(dyn std::error::Error + 'static)) -> bool {
    let client = e
        .downcast_ref::<failure::PgFailure>()
        .map(|f| &f.0)
        .or_else(|| e.downcast_ref::<tokio_postgres::Error>());
    client
        .and_then(tokio_postgres::Error::code)
        .is_some_and(|c| c.code() == READ_ONLY)
}

trait Db<T> {
    fn db(self) -> Result<T>;
}

impl<T> Db<T> for std::result::Result<T, tokio_postgres::Error> {
    fn db(self) -> Result<T> {
        self.map_err(pg_error)
    }
}

/// A schema name as an SQL identifier (letters, digits and `_` only).
fn check_schema(schema: &str) -> Result<()> {
    if schema.is_empty()
        || schema.len() > 60
        || !schema
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        || schema.starts_with(|c: char| c.is_ascii_digit())
    {
        return Err(Error::invalid_parameter(format!(
            "\"{schema}\" is not a schema name the platform uses (letters, digits and _)"
        )));
    }
    Ok(())
}

impl PgStore {
    /// Opens the platform's tables in the `public` schema of the database at `url`
    /// (`postgres://user@host:port/database`), bringing the schema up to date. An unreachable
    /// database is [`Error::Unavailable`].
    #[cfg(any(test, feature = "internals"))]
    pub fn open(url: &str) -> Result<PgStore> {
        PgStore::open_in_schema(url, "public", DEFAULT_LEASE)
    }

    /// Opens the platform's tables in `schema` (created if absent) with claims lasting `lease`.
    #[cfg(any(test, feature = "internals"))]
    pub fn open_in_schema(url: &str, schema: &str, lease: Duration) -> Result<PgStore> {
        PgStore::open_with(
            url,
            &PgOptions {
                schema: schema.to_string(),
                lease,
                ..PgOptions::default()
            },
        )
    }

    /// Opens the platform's tables as `options` say. A read replica that does not answer, or
    /// is not a replica (it accepts writes), is skipped with a warning until it serves; one
    /// whose URL does not parse is an error naming it.
    pub fn open_with(url: &str, options: &PgOptions) -> Result<PgStore> {
        let (schema, lease) = (options.schema.as_str(), options.lease);
        check_schema(schema)?;
        let config = connect::target(url)?;
        let mut pool = Pool::new(config, schema, 16, options.pooler)?.with_health();
        if let Some(url) = &options.listen_url {
            pool.listen_at(connect::target(url)?);
        }
        {
            let mut conn = pool.get().map_err(|e| pooler_hint(e, options.pooler))?;
            if !options.create && !migrations::made(&mut conn, schema)? {
                return Err(Error::not_found(format!(
                    "{} has no platform tables (in its schema \"{schema}\"): it was never \
                     initialised",
                    redact(url)
                )));
            }
            migrations::migrate(&mut conn, schema)?;
        }
        let replicas = match options.read_replicas.as_slice() {
            [] => None,
            urls => Some(replicas::Replicas::open(
                urls,
                schema,
                options.replica_max_lag,
                &pool,
            )?),
        };
        let node = format!(
            "{}-{}",
            std::process::id(),
            &crate::auth::generate_token()?[3..15]
        );
        let shared = Arc::new(Shared {
            pool,
            schema: schema.to_string(),
            node,
            lease,
            claims: Default::default(),
            replicas,
            analyzed: Default::default(),
            written_rows: Default::default(),
            scope_keys: Default::default(),
            scopes_made: Default::default(),
        });
        jobs::start_lease_renewal(&shared);
        if shared.replicas.is_some() {
            replicas::start_sampling(&shared);
        }
        Ok(PgStore { shared })
    }

    /// The schema the tables live in.
    #[cfg(feature = "internals")]
    pub fn schema(&self) -> &str {
        &self.shared.schema
    }

    /// How many round trips this store's connections made to the database so far, and how
    /// many statements they sent (a round trip carries several when they are pipelined).
    #[cfg(any(test, feature = "internals"))]
    pub fn round_trips(&self) -> (u64, u64) {
        self.shared.pool.counts()
    }

    /// This store's id in the claims it makes.
    #[cfg(feature = "internals")]
    pub fn node(&self) -> &str {
        &self.shared.node
    }

    /// The message bus of this database (`LISTEN/NOTIFY`), for realtime messages and cache
    /// invalidation across the nodes.
    pub fn bus(&self) -> PgBus {
        PgBus::new(self.shared.clone())
    }
}

/// A connection refused for the settings the platform sends at its start says what to do:
/// pgbouncer refuses them (`unsupported startup parameter: options`).
fn pooler_hint(e: Error, pooler: PgPooler) -> Error {
    let Error::Unavailable(cause) = &e else {
        return e;
    };
    let mut why = Vec::new();
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(cause.as_ref());
    while let Some(at) = next {
        why.push(at.to_string());
        next = at.source();
    }
    let why = why.join(": ");
    if !why.contains("unsupported startup parameter") || pooler != PgPooler::None {
        return e;
    }
    Error::Unavailable(
        format!(
            "{why}: the connection pooler refuses the settings sent at connection start \
             (unsupported startup parameter); behind pgbouncer in transaction pooling, \
             use --pg-pooler transaction"
        )
        .into(),
    )
}

/// A URL with any password hidden (for messages): the user part's password (of a multi-host
/// URL too) and a `password` parameter's value.
pub fn redact(url: &str) -> String {
    connect::redact(url)
}

impl PgStore {
    /// A read transaction (what [`Store::read`] boxes).
    fn read_tx(&self) -> Result<Tx<'_>> {
        // The snapshot is taken by the transaction's first statement. A read the caller allows
        // a replica goes to one that may serve it ([`replicas::Replicas::pick`]), when any.
        if let (Some(after), Some(replicas)) =
            (crate::store::ReplicaReads::after(), &self.shared.replicas)
        {
            if let Some(replica) = replicas.pick(after) {
                match replica.pool.get() {
                    Ok(conn) => {
                        metrics::counter!("platform_db_reads_total", "server" => "replica")
                            .increment(1);
                        return Ok(Tx::new(conn, BEGIN_READ, true, &self.shared, Some(replica)));
                    }
                    Err(e) => replica.down(&format!("no connection: {e}")),
                }
            }
            metrics::counter!("platform_db_reads_total", "server" => "primary").increment(1);
        }
        self.primary_answers()?;
        let conn = self.shared.pool.get()?;
        Ok(Tx::new(conn, BEGIN_READ, true, &self.shared, None))
    }
}

impl PgStore {
    /// Fails at once, for a read meant for the primary, when the samples of a store with
    /// read replicas find the primary gone ([`replicas::Replicas::primary_down`]).
    fn primary_answers(&self) -> Result<()> {
        match &self.shared.replicas {
            Some(replicas) if replicas.primary_down() => Err(Error::Unavailable(
                "the primary database did not answer its last check (a tenth of a second ago)"
                    .into(),
            )),
            _ => Ok(()),
        }
    }
}

impl Store for PgStore {
    fn read(&self) -> Result<Box<dyn ReadTx + '_>> {
        Ok(Box::new(self.read_tx()?))
    }

    fn write(&self) -> Result<Box<dyn WriteTx + '_>> {
        let conn = self.shared.pool.get()?;
        // Sent with the transaction's first statement. No lock of the whole database: a write
        // holds what it changes ([`WriteTx::hold`]).
        Ok(Box::new(Tx::new(
            conn,
            BEGIN_WRITE,
            false,
            &self.shared,
            None,
        )))
    }

    fn shared(&self) -> bool {
        true
    }

    fn replicas(&self) -> Vec<crate::store::ReplicaStatus> {
        self.shared
            .replicas
            .as_ref()
            .map(replicas::Replicas::statuses)
            .unwrap_or_default()
    }

    fn status(&self) -> Option<crate::store::DatabaseStatus> {
        let pool = &self.shared.pool;
        Some(crate::store::DatabaseStatus {
            up: pool.is_up().unwrap_or(true),
            pool: pool.status(),
        })
    }

    fn claim_ended(&self, claim: &crate::store::Claim) {
        self.shared.claims().remove(claim);
    }

    fn auth_epoch(&self) -> Result<u64> {
        // Where a replica may serve the reads (the primary does not answer, say), in a read
        // transaction, on one that has replayed the last change of the epoch seen.
        if self.shared.replicas.is_some() && crate::store::ReplicaReads::after().is_some() {
            let tx: Box<dyn ReadTx + '_> = Box::new(self.read_tx()?);
            return tx.auth_epoch();
        }
        self.primary_answers()?;
        // One statement on its own (no transaction around it): one round trip.
        let mut conn = self.shared.pool.get()?;
        let rows = conn.query("SELECT n FROM auth_epoch WHERE id = 1", &[])?;
        let row = rows
            .first()
            .ok_or_else(|| Error::Internal("the authentication epoch has no row".into()))?;
        Ok(get::<i64>(row, 0)? as u64)
    }

    fn backup(&self, _to: &std::path::Path) -> Result<()> {
        Err(Error::invalid_parameter(
            "a PostgreSQL database is backed up with PostgreSQL's own tools: \
             `pg_dump --format=custom --file=platform.dump <database>` while the servers run, \
             and a copy of the key file beside it, both kept 0600 (docs/operations.md, \
             \"Scaling out\")",
        ))
    }

    fn realtime_across(
        &self,
        local: Arc<dyn crate::realtime::Realtime>,
    ) -> Arc<dyn crate::realtime::Realtime> {
        match self.bus().realtime(local.clone()) {
            Ok(sink) => sink,
            Err(e) => {
                tracing::error!(error = %e, "realtime messages stay on this node: the listener cannot start");
                local
            }
        }
    }
}

/// A column of a row, typed.
fn get<'r, T: tokio_postgres::types::FromSql<'r>>(row: &'r Row, i: usize) -> Result<T> {
    row.try_get(i).db()
}

/// An unsigned number kept in a `bigint` column.
fn get_u32(row: &Row, i: usize) -> Result<u32> {
    let n: i64 = get(row, i)?;
    u32::try_from(n).map_err(|_| Error::Internal(format!("stored number {n} out of range")))
}

/// A JSON object kept as text (`what` names the row, for the error).
fn json_map(text: &str, what: &str) -> Result<serde_json::Map<String, serde_json::Value>> {
    serde_json::from_str(text).map_err(|e| Error::caused(format!("stored JSON of {what}"), e))
}

/// The text of a value kept as JSON (`what` names the row, for the error).
fn json_text(value: &impl serde::Serialize, what: &str) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::caused(format!("encoding {what} as JSON"), e))
}

#[cfg(test)]
mod tests;
