//! The embedded SQLite backend: one file, WAL, one writer connection and a few readers.
//!
//! Transactions are plain `BEGIN` / `BEGIN IMMEDIATE` ... `COMMIT` on a connection held for the
//! transaction's life; dropping a transaction that was not committed rolls it back. An in-memory
//! store uses a single connection for reads and writes.

mod audit;
mod data;
mod documents;
mod jobs;
#[cfg(test)]
mod jsonb_tests;
mod keys;
mod layout;
mod migrations;
mod outbox;
mod records;
mod secrets;
mod sql;
mod stored;
mod tenancy;

// Named by the tests, benches and fuzz targets only.
#[cfg(any(test, feature = "internals"))]
pub use migrations::{current_version as schema_version, STEPS as MIGRATIONS};

use crate::clock::{format_instant, parse_instant};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{Collection, Holds, NoWait, ReadTx, Store, StoredVersion, WriteTx};
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OpenFlags};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// How many read connections a file-backed store keeps. The first is opened with the store,
/// the others when a read finds every open one busy: each open reads the schema (about 0.4 ms),
/// which a command-line call or a server's start-up need not pay for connections it may never
/// use.
const READERS: usize = 4;

/// A store in one SQLite database.
pub struct SqliteStore {
    writer: Mutex<Connection>,
    readers: Vec<std::sync::OnceLock<Mutex<Connection>>>,
    next_reader: AtomicUsize,
    path: Option<PathBuf>,
    /// The `-wal` file beside a database file.
    wal: Option<PathBuf>,
    /// Write transactions committed, to look at the WAL's size now and then.
    commits: std::sync::atomic::AtomicU64,
    /// The WAL's bound ([`WAL_LIMIT`]; smaller in tests).
    wal_limit: std::sync::atomic::AtomicU64,
    /// The scope keys seen committed (`keys`).
    keys: keys::Keys,
}

/// Every this many commits, the writer looks at the size of the WAL.
const WAL_CHECK_EVERY: u64 = 64;
/// A WAL larger than this is checkpointed and restarted (readers that never pause would
/// otherwise keep it growing), and truncated to this size when it restarts.
const WAL_LIMIT: u64 = 64 * 1024 * 1024;
/// SQLite's memory (page caches of every connection together) is kept near this.
const SQLITE_HEAP_LIMIT: i64 = 96 * 1024 * 1024;

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish()
    }
}

trait Db<T> {
    fn db(self) -> Result<T>;
}

impl<T> Db<T> for rusqlite::Result<T> {
    fn db(self) -> Result<T> {
        self.map_err(storage_error)
    }
}

/// A SQLite error as the platform's: a statement past SQLite's own limits (expression depth,
/// variables, terms, sizes) is a query too large, a 400; anything else is a storage failure.
fn storage_error(e: rusqlite::Error) -> Error {
    let failure = match &e {
        rusqlite::Error::SqliteFailure(failure, message) => {
            Some((failure, message.as_deref().unwrap_or_default()))
        }
        rusqlite::Error::SqlInputError { error, msg, .. } => Some((error, msg.as_str())),
        _ => None,
    };
    if let Some((failure, text)) = failure {
        let limits = [
            ("too large", "too large an expression"),
            ("too many", "too many terms"),
            ("parser stack overflow", "nested too deeply"),
            ("too deep", "nested too deeply"),
            ("variable number", "too many values"),
        ];
        let reason = limits
            .iter()
            .find(|(m, _)| text.contains(m))
            .map(|(_, why)| *why)
            .or((failure.code == rusqlite::ErrorCode::TooBig).then_some("too large"));
        if let Some(why) = reason {
            return Error::invalid_parameter(format!(
                "the query is larger than the store can run ({why}); make it smaller"
            ));
        }
    }
    Error::storage(e)
}

impl SqliteStore {
    /// Opens (creating if needed) the database file at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        create_private(path)?;
        let writer = Connection::open(path).db()?;
        configure(&writer)?;
        // The writer's temporary files in memory: a statement of a save inside a transaction
        // of many keeps the pages it changes in a statement journal, which past 64 KiB (eight
        // pages) went to a file, a write system call for each page (a fifth of W10's load).
        // Readers keep the default, so a sort larger than the cache goes to disk.
        writer.pragma_update(None, "temp_store", "MEMORY").db()?;
        // Larger pages scan faster and keep a current document's row in one page; this only
        // takes effect on a new file.
        writer.pragma_update(None, "page_size", 8192).db()?;
        writer.pragma_update(None, "journal_mode", "WAL").db()?;
        migrate(&writer)?;
        let readers: Vec<_> = (0..READERS).map(|_| std::sync::OnceLock::new()).collect();
        // The first reader at once: a file that cannot be read fails here, not at a request.
        let _ = readers[0].set(Mutex::new(open_reader(path)?));
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        Ok(SqliteStore {
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
            path: Some(path.to_path_buf()),
            wal: Some(PathBuf::from(wal)),
            commits: std::sync::atomic::AtomicU64::new(0),
            wal_limit: std::sync::atomic::AtomicU64::new(WAL_LIMIT),
            keys: keys::Keys::default(),
        })
    }

    /// A fresh private in-memory database (for tests and throwaway runs).
    pub fn open_in_memory() -> Result<SqliteStore> {
        let conn = Connection::open_in_memory().db()?;
        configure(&conn)?;
        migrate(&conn)?;
        Ok(SqliteStore {
            writer: Mutex::new(conn),
            readers: Vec::new(),
            next_reader: AtomicUsize::new(0),
            path: None,
            wal: None,
            commits: std::sync::atomic::AtomicU64::new(0),
            wal_limit: std::sync::atomic::AtomicU64::new(WAL_LIMIT),
            keys: keys::Keys::default(),
        })
    }

    /// The database file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// A reader connection that is free now (the writer's, for an in-memory database), if any.
    /// Only open readers are looked at: opening one is left to a caller that may wait.
    fn free_reader(&self) -> Option<MutexGuard<'_, Connection>> {
        if self.readers.is_empty() {
            return self.writer.try_lock().ok();
        }
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        (0..self.readers.len()).find_map(|i| {
            self.readers[(start + i) % self.readers.len()]
                .get()?
                .try_lock()
                .ok()
        })
    }

    /// A connection to read on: a free one at once where the caller must not wait
    /// ([`NoWait`]), else the next free one (the wait is measured).
    fn read_connection(&self) -> Result<MutexGuard<'_, Connection>> {
        let waited = std::time::Instant::now();
        let conn = if NoWait::active() {
            self.free_reader().ok_or_else(Error::would_wait)?
        } else {
            self.reader()?
        };
        metrics::histogram!("platform_db_wait_seconds", "tx" => "read")
            .record(waited.elapsed().as_secs_f64());
        Ok(conn)
    }

    /// The next free reader, opening one when every open one is busy, else the next one once
    /// it is free.
    fn reader(&self) -> Result<MutexGuard<'_, Connection>> {
        let (Some(path), false) = (&self.path, self.readers.is_empty()) else {
            return Ok(lock(&self.writer));
        };
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        let slot = |i: usize| &self.readers[(start + i) % self.readers.len()];
        for i in 0..self.readers.len() {
            if let Some(Ok(guard)) = slot(i).get().map(Mutex::try_lock) {
                return Ok(guard);
            }
        }
        for i in 0..self.readers.len() {
            if slot(i).get().is_none() {
                // Two callers may open one at once: the second's connection is dropped.
                let _ = slot(i).set(Mutex::new(open_reader(path)?));
                return Ok(lock(slot(i).get().expect("set above")));
            }
        }
        Ok(lock(slot(0).get().expect("every reader is open")))
    }
}

/// Runs a transaction statement (`BEGIN`, `COMMIT`, `ROLLBACK`) from the connection's cache of
/// prepared statements: every request begins and ends one, and a parse each time showed in
/// profiles.
fn control(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

fn lock(m: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    // A panic while holding a connection leaves no transaction open (the guard rolls back).
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// SQLite's `PRAGMA integrity_check` of the database file at `path`, opened read-only: `["ok"]`,
/// or the problems it found.
pub fn integrity_check(path: &Path) -> Result<Vec<String>> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| Error::caused(format!("cannot open {}", path.display()), e))?;
    let mut stmt = conn.prepare("PRAGMA integrity_check").db()?;
    let rows = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .db()?
        .collect::<std::result::Result<Vec<_>, _>>()
        .db()?;
    Ok(rows)
}

/// A read connection to the database file at `path`, configured.
fn open_reader(path: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )
    .db()?;
    configure(&conn)?;
    Ok(conn)
}

/// Creates a database file that does not exist yet readable by its owner only (0600); SQLite
/// gives the `-wal` and `-shm` files it makes beside it the same mode. An existing file keeps
/// the mode its owner chose.
fn create_private(path: &Path) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Error::caused(
            format!("cannot create the database file {}", path.display()),
            e,
        )),
    }
}

/// The bytes of the database file reads map: SQLite's compile-time ceiling (`SQLITE_MAX_MMAP_SIZE`
/// of the bundled build); a file past it is read the usual way beyond that offset.
const MMAP_LIMIT: i64 = 0x7fff_0000;

fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(Duration::from_secs(10)).db()?;
    conn.pragma_update(None, "foreign_keys", "ON").db()?;
    conn.pragma_update(None, "synchronous", "NORMAL").db()?;
    // 32 MiB of page cache per connection: range reads of big series and full scans of a
    // tenant's objects stay in memory.
    conn.pragma_update(None, "cache_size", -32768).db()?;
    // The caches of all connections together stay near one bound (SQLite recycles pages past
    // it), so memory under load does not grow with the number of connections and tables.
    conn.pragma_update(None, "soft_heap_limit", SQLITE_HEAP_LIMIT)
        .db()?;
    conn.pragma_update(None, "journal_size_limit", WAL_LIMIT as i64)
        .db()?;
    // Reads map the file (up to SQLite's ceiling for it) instead of copying each page into the
    // connection's cache: a random lookup in a large file takes about a third less time, and
    // the pages are the kernel's, shared by every connection and process.
    conn.pragma_update(None, "mmap_size", MMAP_LIMIT).db()?;
    conn.set_prepared_statement_cache_capacity(64);
    sql::register_functions(conn).db()?;
    Ok(())
}

fn migrate(conn: &Connection) -> Result<()> {
    let have: u32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .db()?;
    let want = migrations::current_version();
    if have > want {
        return Err(Error::Internal(format!(
            "the database has schema version {have}, newer than this build's {want}; use a newer platform"
        )));
    }
    for (i, step) in migrations::STEPS.iter().enumerate().skip(have as usize) {
        let to = i + 1;
        conn.execute_batch(&format!("BEGIN IMMEDIATE;\n{step}"))
            .and_then(|()| migrations::fix_up(conn, to))
            .and_then(|()| conn.execute_batch(&format!("PRAGMA user_version = {to};\nCOMMIT;")))
            .map_err(|e| {
                let _ = conn.execute_batch("ROLLBACK");
                Error::caused(format!("migration to schema version {to} failed"), e)
            })?;
    }
    Ok(())
}

impl Store for SqliteStore {
    fn in_process(&self) -> bool {
        true
    }

    fn read(&self) -> Result<Box<dyn ReadTx + '_>> {
        let conn = self.read_connection()?;
        control(&conn, "BEGIN").db()?;
        Ok(Box::new(Tx {
            conn,
            open: true,
            store: None,
            keys: &self.keys,
            seen_keys: keys::SeenKeys::default(),
            type_defs: TypeDefs::default(),
            holds: Holds::default(),
        }))
    }

    // The reads below are one statement each, which SQLite runs in a transaction of its own:
    // no BEGIN and ROLLBACK around them (two statements fewer on every request).

    fn auth_epoch(&self) -> Result<u64> {
        tenancy::auth_epoch(&*self.read_connection()?)
    }

    fn current_document(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
    ) -> Result<Option<StoredVersion>> {
        let conn = self.read_connection()?;
        let Some(sk) = keys::committed_key(&conn, &self.keys, coll, scope)? else {
            return Ok(None);
        };
        documents::current_from_head(&conn, sk, id)
    }

    fn write(&self) -> Result<Box<dyn WriteTx + '_>> {
        if NoWait::active() {
            return Err(Error::would_wait());
        }
        let waited = std::time::Instant::now();
        let conn = lock(&self.writer);
        control(&conn, "BEGIN IMMEDIATE").db()?;
        metrics::histogram!("platform_db_wait_seconds", "tx" => "write")
            .record(waited.elapsed().as_secs_f64());
        Ok(Box::new(Tx {
            conn,
            open: true,
            store: Some(self),
            keys: &self.keys,
            seen_keys: keys::SeenKeys::default(),
            type_defs: TypeDefs::default(),
            holds: Holds::default(),
        }))
    }

    fn backup(&self, to: &Path) -> Result<()> {
        if self.path.is_none() {
            return Err(Error::invalid_parameter(
                "an in-memory database has no file to back up",
            ));
        }
        // The copy starts as a new private file: VACUUM INTO fills an empty file and keeps its
        // mode. It reads one snapshot, so it holds exactly what was committed when it began.
        // The reader first: nothing is created when none can be had.
        let conn = self.reader()?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options
            .open(to)
            .map_err(|e| Error::caused(format!("cannot create the backup {}", to.display()), e))?;
        let target = to.to_str().ok_or_else(|| {
            Error::invalid_parameter(format!("{} is not a UTF-8 path", to.display()))
        })?;
        if let Err(e) = conn.execute("VACUUM INTO ?1", [target]) {
            let _ = std::fs::remove_file(to);
            return Err(Error::caused(format!("backup to {}", to.display()), e));
        }
        drop(conn);
        // The copy has no live worker: the ones its rows name heartbeat in the original (a
        // command run on the copy would wait for them to go silent).
        if let Err(e) = Connection::open(to).and_then(|c| c.execute("DELETE FROM workers", [])) {
            let _ = std::fs::remove_file(to);
            return Err(Error::caused(format!("backup to {}", to.display()), e));
        }
        // The copy is checked before it is called a backup.
        let problems = integrity_check(to)?;
        if problems != ["ok"] {
            let _ = std::fs::remove_file(to);
            return Err(Error::Internal(format!(
                "the backup {} does not pass its integrity check: {}",
                to.display(),
                problems.join("; ")
            )));
        }
        Ok(())
    }

    fn close(&self) -> Result<()> {
        if self.path.is_some() {
            let conn = lock(&self.writer);
            conn.execute_batch("PRAGMA optimize; PRAGMA wal_checkpoint(TRUNCATE);")
                .db()?;
        }
        Ok(())
    }
}

/// A transaction on one connection.
struct Tx<'a> {
    conn: MutexGuard<'a, Connection>,
    open: bool,
    /// The store of a write transaction (for the WAL's upkeep after a commit).
    store: Option<&'a SqliteStore>,
    /// The scope keys the store has seen committed.
    keys: &'a keys::Keys,
    /// The scope keys a write transaction read, remembered once it commits.
    seen_keys: keys::SeenKeys,
    /// Type definitions read in this transaction, by tenant, environment and id: a save of
    /// many objects reads the definition of their type several times for each (its checks,
    /// whether it is versioned, its retention). Emptied by every write of a type.
    type_defs: TypeDefs,
    /// What this transaction holds: the one writer holds everything, but writes still check
    /// that the core named what they change ([`crate::store::WriteTx::hold`]).
    holds: Holds,
}

/// See [`Tx::type_defs`].
type TypeDefs = std::cell::RefCell<
    std::collections::HashMap<(String, String, String), Option<crate::store::StoredVersion>>,
>;

impl SqliteStore {
    /// Bounds the WAL at `bytes` instead of [`WAL_LIMIT`] (tests use a small bound).
    #[cfg(test)]
    fn set_wal_limit(&self, bytes: u64) {
        self.wal_limit
            .store(bytes, std::sync::atomic::Ordering::Relaxed);
        let _ = lock(&self.writer).pragma_update(None, "journal_size_limit", bytes as i64);
    }

    /// After a commit, now and then: a WAL grown past [`WAL_LIMIT`] is checkpointed and
    /// restarted. SQLite's own checkpoints copy pages but cannot restart a WAL while some
    /// reader is always inside it, so under steady reads it would grow without end. The writer
    /// waits briefly for readers to move to the newest snapshot, and tries again later if they
    /// do not.
    fn bound_wal(&self, conn: &Connection) {
        let n = self
            .commits
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if n % WAL_CHECK_EVERY != WAL_CHECK_EVERY - 1 {
            return;
        }
        let Some(wal) = &self.wal else { return };
        let size = std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0);
        if size <= self.wal_limit.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let _ = conn.busy_timeout(Duration::from_millis(250));
        match conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        }) {
            Ok((busy, frames, done)) => {
                tracing::debug!(wal_bytes = size, busy, frames, done, "WAL checkpoint")
            }
            Err(e) => tracing::warn!(error = %e, "WAL checkpoint failed"),
        }
        let _ = conn.busy_timeout(Duration::from_secs(10));
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            if let Err(e) = control(&self.conn, "ROLLBACK") {
                tracing::error!(error = %e, "rollback failed");
            }
        }
    }
}

impl Tx<'_> {
    /// Deletes the row `id` of a scope from a table keyed by (tenant, env, id); whether it
    /// existed.
    fn delete_scoped(&mut self, table: &str, scope: &Scope, id: &str) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached(&format!(
                "DELETE FROM {table} WHERE tenant = ?1 AND env = ?2 AND id = ?3"
            ))
            .db()?
            .execute(params![scope.tenant, scope.env, id])
            .db()?;
        Ok(n > 0)
    }
}

/// Reads cost no round trip here: nothing to name ahead.
impl crate::store::ReadAhead for Tx<'_> {}

impl WriteTx for Tx<'_> {
    fn hold(&mut self, what: &[crate::store::Hold<'_>]) -> Result<()> {
        // One writer at a time: nothing else can hold it.
        self.holds.take(what);
        Ok(())
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        control(&self.conn, "COMMIT").db()?;
        self.open = false;
        self.keys_committed();
        if let Some(store) = self.store {
            store.bound_wal(&self.conn);
        }
        Ok(())
    }
}

/// The stored text of an instant: RFC 3339 in UTC with milliseconds, so that text order is time
/// order.
fn time_text(t: DateTime<Utc>) -> String {
    format_instant(t)
}

/// The stored form of a document's or audit entry's time (`layout`): integer milliseconds
/// since 1970 where they read back as the same text (years 1970 to 9999), else the text.
fn time_value(t: DateTime<Utc>) -> rusqlite::types::Value {
    let ms = t.timestamp_millis();
    if (0..253_402_300_800_000).contains(&ms) {
        rusqlite::types::Value::Integer(ms)
    } else {
        rusqlite::types::Value::Text(time_text(t))
    }
}

/// A time stored by [`time_value`] (`what` names the row, for the error).
fn stored_time_value(v: rusqlite::types::ValueRef<'_>, what: &str) -> Result<DateTime<Utc>> {
    match v {
        rusqlite::types::ValueRef::Integer(ms) => DateTime::from_timestamp_millis(ms)
            .ok_or_else(|| Error::Internal(format!("stored time of {what} {ms} is out of range"))),
        rusqlite::types::ValueRef::Text(bytes) => {
            let text = std::str::from_utf8(bytes)
                .map_err(|e| Error::caused(format!("stored time of {what} is not UTF-8"), e))?;
            stored_time(text, what)
        }
        other => Err(Error::Internal(format!(
            "stored time of {what} is {:?}",
            other.data_type()
        ))),
    }
}

/// An instant stored by [`time_text`] (`what` names the row, for the error).
fn stored_time(text: &str, what: &str) -> Result<DateTime<Utc>> {
    parse_instant(text).map_err(|e| Error::caused(format!("stored time of {what} \"{text}\""), e))
}

/// A JSON object stored as text (`what` names the row, for the error).
fn json_map(text: &str, what: &str) -> Result<Map<String, Value>> {
    serde_json::from_str(text).map_err(|e| Error::caused(format!("stored JSON of {what}"), e))
}

/// The text of a value stored as JSON (`what` names the row, for the error).
fn json_text(value: &impl serde::Serialize, what: &str) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::caused(format!("encoding {what} as JSON"), e))
}

#[cfg(test)]
mod tests;
