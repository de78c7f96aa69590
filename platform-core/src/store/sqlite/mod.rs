//! The embedded SQLite backend: one file, WAL, one writer connection and a few readers.
//!
//! Transactions are plain `BEGIN` / `BEGIN IMMEDIATE` ... `COMMIT` on a connection held for the
//! transaction's life; dropping a transaction that was not committed rolls it back. An in-memory
//! store uses a single connection for reads and writes.

mod migrations;
mod sql;

pub use migrations::{current_version as schema_version, STEPS as MIGRATIONS};

use crate::auth::Role;
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::query::{Filter, ListQuery};
use crate::store::{
    AuditEntry, Chunk, Collection, DataKey, DeliveryRow, Extent, LogQuery, Page, ReadTx,
    RecordChunkRow, SecretRow, Store, StoredVersion, TokenListing, TokenRecord, TokenSelector,
    WorkerRow, WriteTx,
};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// How many read connections a file-backed store keeps.
const READERS: usize = 4;

/// A store in one SQLite database.
pub struct SqliteStore {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
    path: Option<PathBuf>,
}

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
    // A statement SQLite refuses to prepare comes as `SqlInputError` (with the statement), a
    // failure while running as `SqliteFailure`.
    let (code, text) = match &e {
        rusqlite::Error::SqliteFailure(failure, message) => {
            (failure.code, message.as_deref().unwrap_or_default())
        }
        rusqlite::Error::SqlInputError { error, msg, .. } => (error.code, msg.as_str()),
        _ => return Error::storage(e),
    };
    let over_a_limit = code == rusqlite::ErrorCode::TooBig
        || [
            "too large",
            "too many",
            "parser stack overflow",
            "too deep",
            "variable number must be between",
        ]
        .iter()
        .any(|m| text.contains(m));
    if over_a_limit {
        return Error::invalid_parameter(format!(
            "the query is larger than the store can run ({text}); make it smaller"
        ));
    }
    Error::storage(e)
}

impl SqliteStore {
    /// Opens (creating if needed) the database file at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        create_private(path)?;
        let writer = Connection::open(path).db()?;
        configure(&writer)?;
        // Larger pages scan faster and keep a current document's row in one page; this only
        // takes effect on a new file.
        writer.pragma_update(None, "page_size", 8192).db()?;
        writer.pragma_update(None, "journal_mode", "WAL").db()?;
        migrate(&writer)?;
        let mut readers = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            let conn = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX
                    | OpenFlags::SQLITE_OPEN_URI,
            )
            .db()?;
            configure(&conn)?;
            readers.push(Mutex::new(conn));
        }
        Ok(SqliteStore {
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
            path: Some(path.to_path_buf()),
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
        })
    }

    /// The database file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
        if self.readers.is_empty() {
            return lock(&self.writer);
        }
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        for i in 0..self.readers.len() {
            if let Ok(guard) = self.readers[(start + i) % self.readers.len()].try_lock() {
                return guard;
            }
        }
        lock(&self.readers[start % self.readers.len()])
    }
}

fn lock(m: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    // A panic while holding a connection leaves no transaction open (the guard rolls back).
    m.lock().unwrap_or_else(|e| e.into_inner())
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
        Err(e) => Err(crate::error::Error::Internal(format!(
            "cannot create the database file {}: {e}",
            path.display()
        ))),
    }
}

fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(Duration::from_secs(10)).db()?;
    conn.pragma_update(None, "foreign_keys", "ON").db()?;
    conn.pragma_update(None, "synchronous", "NORMAL").db()?;
    // 32 MiB of page cache per connection: range reads of big series and full scans of a
    // tenant's objects stay in memory.
    conn.pragma_update(None, "cache_size", -32768).db()?;
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
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE;\n{step}\nPRAGMA user_version = {to};\nCOMMIT;"
        ))
        .map_err(|e| {
            let _ = conn.execute_batch("ROLLBACK");
            Error::Internal(format!("migration to schema version {to} failed: {e}"))
        })?;
    }
    Ok(())
}

impl Store for SqliteStore {
    fn read(&self) -> Result<Box<dyn ReadTx + '_>> {
        let conn = self.reader();
        conn.execute_batch("BEGIN").db()?;
        Ok(Box::new(Tx { conn, open: true }))
    }

    fn write(&self) -> Result<Box<dyn WriteTx + '_>> {
        let conn = lock(&self.writer);
        conn.execute_batch("BEGIN IMMEDIATE").db()?;
        Ok(Box::new(Tx { conn, open: true }))
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

/// The WHERE clause selecting current documents of a collection in some scopes that match a
/// filter, with its arguments; `None` when no scope is given (nothing can match).
fn where_clause(
    coll: Collection,
    scopes: &[Scope],
    filter: &Filter,
) -> Option<(String, Vec<SqlValue>)> {
    if scopes.is_empty() {
        return None;
    }
    let mut sb = sql::SqlBuilder::new(&sql::HEADS, Vec::new());
    let c = sb.bind(coll.as_str().to_string());
    let scope_sql: Vec<String> = scopes
        .iter()
        .map(|s| {
            format!(
                "(h.tenant = {} AND h.env = {})",
                sb.bind(s.tenant.clone()),
                sb.bind(s.env.clone())
            )
        })
        .collect();
    let mut clause = format!("h.coll = {c} AND ({})", scope_sql.join(" OR "));
    if !filter.is_all() {
        clause.push_str(" AND ");
        clause.push_str(&sb.filter(filter));
    }
    Some((clause, sb.args))
}

/// A transaction on one connection.
struct Tx<'a> {
    conn: MutexGuard<'a, Connection>,
    open: bool,
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            if let Err(e) = self.conn.execute_batch("ROLLBACK") {
                tracing::error!(error = %e, "rollback failed");
            }
        }
    }
}

const DELIVERY_COLUMNS: &str =
    "d.seq, d.tenant, d.env, d.automation, d.item, d.status, d.attempts, d.next_at, d.doc";

fn delivery_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<DeliveryRow>> {
    let tenant: String = r.get(1)?;
    let env: String = r.get(2)?;
    let doc: String = r.get(8)?;
    let (seq, automation, item, status, attempts, next_at) = (
        r.get(0)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
    );
    Ok(json_map(&doc).map(|event| DeliveryRow {
        seq,
        scope: Scope::private(&tenant, &env),
        automation,
        item,
        status,
        attempts,
        next_at,
        event,
    }))
}

/// The filterable copy of a version's body in `heads`: the body as JSONB with the version's
/// system fields (`_oid _version _timestamp _user _tag`), so filters and sorts on them run in
/// SQL with the in-memory meaning (rendered documents carry the same fields). Reads `v`, a row
/// of `versions`.
pub(crate) const HEAD_BODY: &str = "jsonb_set(jsonb(v.body), '$._oid', v.id, '$._version', v.version, \
     '$._timestamp', v.timestamp, '$._user', v.user, '$._tag', json((SELECT json_group_array(tag) \
     FROM (SELECT t.tag FROM tags t WHERE t.coll = v.coll AND t.tenant = v.tenant AND t.env = v.env \
     AND t.id = v.id AND t.version = v.version ORDER BY t.tag))))";

const VERSION_COLUMNS: &str = "v.id, v.version, v.body, v.timestamp, v.user, v.reason, \
     (SELECT json_group_array(tag) FROM (SELECT t.tag FROM tags t WHERE t.coll = v.coll \
      AND t.tenant = v.tenant AND t.env = v.env AND t.id = v.id AND t.version = v.version ORDER BY t.tag))";

fn json_map(text: &str) -> Result<Map<String, Value>> {
    serde_json::from_str(text).map_err(|e| Error::Internal(format!("stored JSON: {e}")))
}

fn secret_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<SecretRow>> {
    let meta: String = row.get(1)?;
    let id: String = row.get(0)?;
    let nonce: Vec<u8> = row.get(2)?;
    let ciphertext: Vec<u8> = row.get(3)?;
    let updated: String = row.get(4)?;
    let user: String = row.get(5)?;
    Ok(serde_json::from_str(&meta)
        .map_err(|e| Error::Internal(format!("stored secret {id}: {e}")))
        .map(|meta| SecretRow {
            id,
            meta,
            nonce,
            ciphertext,
            updated,
            user,
        }))
}

fn chunk_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Chunk> {
    Ok(Chunk {
        start: row.get(0)?,
        stop: row.get(1)?,
        count: row.get(2)?,
        payload: row.get(3)?,
    })
}

/// A version row as read, before its JSON is decoded.
struct RawVersion {
    id: String,
    version: u32,
    body: String,
    timestamp: String,
    user: String,
    reason: Option<String>,
    tags: String,
}

fn row_to_version(row: &rusqlite::Row<'_>) -> rusqlite::Result<RawVersion> {
    Ok(RawVersion {
        id: row.get(0)?,
        version: row.get(1)?,
        body: row.get(2)?,
        timestamp: row.get(3)?,
        user: row.get(4)?,
        reason: row.get(5)?,
        tags: row.get(6)?,
    })
}

fn decode_version(raw: RawVersion) -> Result<StoredVersion> {
    let RawVersion {
        id,
        version,
        body,
        timestamp,
        user,
        reason,
        tags,
    } = raw;
    let body: Map<String, Value> = serde_json::from_str(&body).map_err(|e| {
        Error::Internal(format!(
            "stored body of {id} v{version} is not a JSON object: {e}"
        ))
    })?;
    let tags: Vec<String> = serde_json::from_str(&tags)
        .map_err(|e| Error::Internal(format!("tags of {id} v{version}: {e}")))?;
    Ok(StoredVersion {
        id,
        version,
        body,
        timestamp,
        user,
        reason,
        tags,
    })
}

impl Tx<'_> {
    /// `SELECT DISTINCT <rest>` over the current documents, where `{p}` in `rest` stands for the
    /// bound JSON path of `path`; the first column as text.
    fn distinct_strings(&self, args: Vec<SqlValue>, path: &str, rest: &str) -> Result<Vec<String>> {
        let mut sb = sql::SqlBuilder::new(&sql::HEADS, args);
        let p = sb.bind(sql::json_path(path));
        let sql = format!("SELECT DISTINCT {}", rest.replace("{p}", &p));
        let mut stmt = self.conn.prepare_cached(&sql).db()?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(sb.args.iter()), |r| r.get(0))
            .db()?;
        rows.map(|r| r.db()).collect()
    }

    fn one_version(
        &self,
        sql_where: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Option<StoredVersion>> {
        let sql = format!("SELECT {VERSION_COLUMNS} FROM versions v WHERE {sql_where}");
        let raw = self
            .conn
            .prepare_cached(&sql)
            .db()?
            .query_row(args, row_to_version)
            .optional()
            .db()?;
        raw.map(decode_version).transpose()
    }
}

impl ReadTx for Tx<'_> {
    fn tenant_count(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT count(*) FROM tenants", [], |r| r.get(0))
            .db()
    }

    fn workers_seen_since(&self, since: &str) -> Result<Vec<WorkerRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, host, pid, started, seen FROM workers WHERE seen >= ?1 ORDER BY id",
            )
            .db()?;
        let rows = stmt
            .query_map(params![since], |r| {
                Ok(WorkerRow {
                    id: r.get(0)?,
                    host: r.get(1)?,
                    pid: r.get(2)?,
                    started: r.get(3)?,
                    seen: r.get(4)?,
                })
            })
            .db()?;
        rows.map(|r| r.db()).collect()
    }

    fn users_with_role(&self, role: Role) -> Result<u64> {
        self.conn
            .prepare_cached("SELECT count(*) FROM users WHERE role = ?1")
            .db()?
            .query_row(params![role.as_str()], |r| r.get(0))
            .db()
    }

    fn tokens(&self, tenant: Option<&str>) -> Result<Vec<TokenListing>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT substr(t.hash, 1, 12), t.tenant, t.user, u.role, t.created, t.revoked FROM tokens t \
                 JOIN users u ON u.tenant = t.tenant AND u.name = t.user \
                 WHERE ?1 IS NULL OR t.tenant = ?1 ORDER BY t.tenant, t.user, t.created, t.hash",
            )
            .db()?;
        let rows = stmt
            .query_map(params![tenant], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                ))
            })
            .db()?;
        let mut out = Vec::new();
        for row in rows {
            let (id, tenant, user, role, created, revoked) = row.db()?;
            let role: Role = role.parse().map_err(|_| {
                Error::Internal(format!("user {tenant}/{user} has role \"{role}\""))
            })?;
            out.push(TokenListing {
                id,
                tenant,
                user,
                role,
                created,
                revoked,
            });
        }
        Ok(out)
    }

    fn environments(&self, tenant: &str) -> Result<Vec<(String, String)>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT name, created FROM environments WHERE tenant = ?1 ORDER BY name",
            )
            .db()?;
        let rows = stmt
            .query_map(params![tenant], |r| Ok((r.get(0)?, r.get(1)?)))
            .db()?;
        rows.map(|r| r.db()).collect()
    }

    fn environment_exists(&self, tenant: &str, env: &str) -> Result<bool> {
        self.conn
            .prepare_cached("SELECT 1 FROM environments WHERE tenant = ?1 AND name = ?2")
            .db()?
            .exists(params![tenant, env])
            .db()
    }

    fn token(&self, hash: &str) -> Result<Option<TokenRecord>> {
        let row = self
            .conn
            .prepare_cached(
                "SELECT t.tenant, t.user, u.role, t.revoked IS NOT NULL FROM tokens t \
                 JOIN users u ON u.tenant = t.tenant AND u.name = t.user WHERE t.hash = ?1",
            )
            .db()?
            .query_row(params![hash], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, bool>(3)?,
                ))
            })
            .optional()
            .db()?;
        row.map(|(tenant, user, role, revoked)| {
            let role: Role = role.parse().map_err(|_| {
                Error::Internal(format!(
                    "stored role \"{role}\" of {tenant}/{user} is unknown"
                ))
            })?;
            Ok(TokenRecord {
                tenant,
                user,
                role,
                revoked,
            })
        })
        .transpose()
    }

    fn user_exists(&self, tenant: &str, user: &str) -> Result<bool> {
        self.conn
            .prepare_cached("SELECT 1 FROM users WHERE tenant = ?1 AND name = ?2")
            .db()?
            .exists(params![tenant, user])
            .db()
    }

    fn grants(&self, tenant: &str, user: &str) -> Result<Vec<(String, String)>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT kind, name FROM grants WHERE tenant = ?1 AND user = ?2 ORDER BY kind, name",
            )
            .db()?;
        let rows = stmt
            .query_map(params![tenant, user], |r| Ok((r.get(0)?, r.get(1)?)))
            .db()?;
        rows.map(|r| r.db()).collect()
    }

    fn current(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Option<StoredVersion>> {
        self.one_version(
            "(v.coll, v.tenant, v.env, v.id, v.version) = (SELECT coll, tenant, env, id, version FROM heads \
             WHERE coll = ?1 AND tenant = ?2 AND env = ?3 AND id = ?4)",
            &[&coll.as_str(), &scope.tenant, &scope.env, &id],
        )
    }

    fn version(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        version: u32,
    ) -> Result<Option<StoredVersion>> {
        self.one_version(
            "v.coll = ?1 AND v.tenant = ?2 AND v.env = ?3 AND v.id = ?4 AND v.version = ?5",
            &[&coll.as_str(), &scope.tenant, &scope.env, &id, &version],
        )
    }

    fn tagged(&self, coll: Collection, scope: &Scope, id: &str, tag: &str) -> Result<Option<u32>> {
        self.conn
            .prepare_cached("SELECT version FROM tags WHERE coll = ?1 AND tenant = ?2 AND env = ?3 AND id = ?4 AND tag = ?5")
            .db()?
            .query_row(params![coll.as_str(), scope.tenant, scope.env, id, tag], |r| r.get(0))
            .optional()
            .db()
    }

    fn versions(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<StoredVersion>> {
        let sql = format!(
            "SELECT {VERSION_COLUMNS} FROM versions v WHERE v.coll = ?1 AND v.tenant = ?2 AND v.env = ?3 \
             AND v.id = ?4 ORDER BY v.version"
        );
        let mut stmt = self.conn.prepare_cached(&sql).db()?;
        let rows = stmt
            .query_map(
                params![coll.as_str(), scope.tenant, scope.env, id],
                row_to_version,
            )
            .db()?;
        rows.map(|r| r.db().and_then(decode_version)).collect()
    }

    fn list(
        &self,
        coll: Collection,
        scopes: &[Scope],
        query: &ListQuery,
    ) -> Result<Page<StoredVersion>> {
        let Some((filter, args)) = where_clause(coll, scopes, &query.filter) else {
            return Ok(Page {
                items: Vec::new(),
                total: 0,
            });
        };
        let total: u64 = self
            .conn
            .prepare_cached(&format!("SELECT count(*) FROM heads h WHERE {filter}"))
            .db()?
            .query_row(rusqlite::params_from_iter(args.iter()), |r| r.get(0))
            .db()?;
        let mut sb = sql::SqlBuilder::new(&sql::HEADS, args);
        let order = sb.order_by(&query.sort);
        let limit = query.paging.limit.map_or(-1, |l| l as i64);
        let sql = format!(
            "SELECT {VERSION_COLUMNS} FROM (SELECT h.coll, h.tenant, h.env, h.id, h.version FROM heads h \
             WHERE {filter} ORDER BY {order} LIMIT {limit} OFFSET {}) h JOIN versions v ON v.coll = h.coll \
             AND v.tenant = h.tenant AND v.env = h.env AND v.id = h.id AND v.version = h.version",
            query.paging.skip
        );
        let mut stmt = self.conn.prepare_cached(&sql).db()?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(sb.args.iter()), row_to_version)
            .db()?;
        let items = rows
            .map(|r| r.db().and_then(decode_version))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page { items, total })
    }

    fn distinct(
        &self,
        coll: Collection,
        scopes: &[Scope],
        filter: &Filter,
        path: &str,
    ) -> Result<Vec<String>> {
        let Some((filter, args)) = where_clause(coll, scopes, filter) else {
            return Ok(Vec::new());
        };
        self.distinct_strings(
            args,
            path,
            &format!("h.body ->> {{p}} FROM heads h WHERE {filter} AND json_type(h.body, {{p}}) = 'text' ORDER BY 1"),
        )
    }

    fn complete(
        &self,
        coll: Collection,
        scopes: &[Scope],
        filter: &Filter,
        prefix: &str,
        limit: Option<u64>,
    ) -> Result<Vec<(String, Option<String>)>> {
        // Two index range scans per scope: ids (the search text starts with the folded id), then
        // names. Id matches come first, each group in folded order.
        let limit = limit.map_or(-1, |l| l as i64);
        let mut out: Vec<(String, Option<String>)> = Vec::new();
        for column in ["search", "name_fold"] {
            let mut group: Vec<(String, String, Option<String>)> = Vec::new();
            for scope in scopes {
                let Some((clause, args)) = where_clause(coll, std::slice::from_ref(scope), filter)
                else {
                    continue;
                };
                let mut sb = sql::SqlBuilder::new(&sql::HEADS, args);
                let lo = sb.bind(prefix.to_string());
                let hi = sb.bind(format!("{prefix}\u{10FFFF}"));
                let sql = format!(
                    "SELECT h.{column}, h.id, h.body ->> '$.name' FROM heads h INDEXED BY heads_{column} \
                     WHERE {clause} AND h.{column} >= {lo} AND h.{column} < {hi} ORDER BY h.{column} LIMIT {limit}"
                );
                let mut stmt = self.conn.prepare_cached(&sql).db()?;
                let rows = stmt
                    .query_map(rusqlite::params_from_iter(sb.args.iter()), |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })
                    .db()?;
                for row in rows {
                    group.push(row.db()?);
                }
            }
            group.sort();
            for (_, id, name) in group {
                if !out.iter().any(|(seen, _)| *seen == id) {
                    out.push((id, name));
                }
            }
        }
        if limit >= 0 {
            out.truncate(limit as usize);
        }
        Ok(out)
    }

    fn field_kinds(&self, coll: Collection, scopes: &[Scope], path: &str) -> Result<Vec<String>> {
        let Some((filter, args)) = where_clause(coll, scopes, &Filter::all()) else {
            return Ok(Vec::new());
        };
        self.distinct_strings(
            args,
            path,
            &format!("json_type(h.body, {{p}}) FROM heads h WHERE {filter} AND json_type(h.body, {{p}}) IS NOT NULL"),
        )
    }

    fn chunks(
        &self,
        key: &DataKey,
        version: u32,
        from: Option<i64>,
        to: Option<i64>,
    ) -> Result<Vec<Chunk>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT start, stop, n, payload FROM series_chunks WHERE tenant = ?1 AND env = ?2 AND obj = ?3 \
                 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) AND stop >= ?6 AND start <= ?7 \
                 ORDER BY start",
            )
            .db()?;
        let rows = stmt
            .query_map(
                params![
                    key.scope.tenant,
                    key.scope.env,
                    key.object,
                    key.prop,
                    version,
                    from.unwrap_or(i64::MIN),
                    to.unwrap_or(i64::MAX)
                ],
                chunk_row,
            )
            .db()?;
        rows.map(|r| r.db()).collect()
    }

    fn last_chunks(&self, key: &DataKey, version: u32, points: u64) -> Result<Vec<Chunk>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT start, stop, n, payload FROM series_chunks WHERE tenant = ?1 AND env = ?2 AND obj = ?3 \
                 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) ORDER BY start DESC",
            )
            .db()?;
        let mut rows = stmt
            .query(params![
                key.scope.tenant,
                key.scope.env,
                key.object,
                key.prop,
                version
            ])
            .db()?;
        let mut out = Vec::new();
        let mut have = 0u64;
        while have < points {
            let Some(row) = rows.next().db()? else { break };
            let chunk = chunk_row(row).db()?;
            have += u64::from(chunk.count);
            out.push(chunk);
        }
        Ok(out)
    }

    fn chunk_before(&self, key: &DataKey, version: u32, t: i64) -> Result<Option<Chunk>> {
        self.conn
            .prepare_cached(
                "SELECT start, stop, n, payload FROM series_chunks WHERE tenant = ?1 AND env = ?2 AND obj = ?3 \
                 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) AND start <= ?6 \
                 ORDER BY start DESC LIMIT 1",
            )
            .db()?
            .query_row(params![key.scope.tenant, key.scope.env, key.object, key.prop, version, t], chunk_row)
            .optional()
            .db()
    }

    fn series_extent(&self, key: &DataKey, version: u32) -> Result<Extent<i64>> {
        let (count, first, last): (Option<i64>, Option<i64>, Option<i64>) = self
            .conn
            .prepare_cached(
                "SELECT sum(n), min(start), max(stop) FROM series_chunks WHERE tenant = ?1 AND env = ?2 \
                 AND obj = ?3 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5)",
            )
            .db()?
            .query_row(params![key.scope.tenant, key.scope.env, key.object, key.prop, version], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .db()?;
        Ok(Extent {
            count: count.unwrap_or(0).max(0) as u64,
            bounds: first.zip(last),
        })
    }

    fn curve_extent(&self, key: &DataKey, version: u32) -> Result<Extent<String>> {
        let (count, first, last): (i64, Option<String>, Option<String>) = self
            .conn
            .prepare_cached(
                "SELECT count(*), min(ondate), max(ondate) FROM curves WHERE tenant = ?1 AND env = ?2 \
                 AND obj = ?3 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5)",
            )
            .db()?
            .query_row(params![key.scope.tenant, key.scope.env, key.object, key.prop, version], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .db()?;
        Ok(Extent {
            count: count.max(0) as u64,
            bounds: first.zip(last),
        })
    }

    fn curve(&self, key: &DataKey, version: u32, ondate: &str) -> Result<Option<Vec<u8>>> {
        self.conn
            .prepare_cached(
                "SELECT payload FROM curves WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 \
                 AND ondate = ?5 AND vfrom <= ?6 AND (vto IS NULL OR vto > ?6)",
            )
            .db()?
            .query_row(params![key.scope.tenant, key.scope.env, key.object, key.prop, ondate, version], |r| r.get(0))
            .optional()
            .db()
    }

    fn curves(
        &self,
        key: &DataKey,
        version: u32,
        from: Option<&str>,
        to: Option<&str>,
        newest: Option<u64>,
    ) -> Result<Vec<(String, Vec<u8>)>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT ondate, payload FROM curves WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 \
                 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) AND ondate >= ?6 AND ondate <= ?7 \
                 ORDER BY ondate DESC LIMIT ?8",
            )
            .db()?;
        let rows = stmt
            .query_map(
                params![
                    key.scope.tenant,
                    key.scope.env,
                    key.object,
                    key.prop,
                    version,
                    from.unwrap_or(""),
                    to.unwrap_or("\u{10FFFF}"),
                    newest.map_or(-1, |n| n as i64)
                ],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .db()?;
        let mut out = rows.map(|r| r.db()).collect::<Result<Vec<_>>>()?;
        out.reverse();
        Ok(out)
    }

    fn record_chunks(
        &self,
        scope: &Scope,
        targets: Option<&[String]>,
        keys: Option<(i64, i64)>,
        buckets: Option<(i64, i64)>,
    ) -> Result<Vec<RecordChunkRow>> {
        let mut args: Vec<SqlValue> = vec![scope.tenant.clone().into(), scope.env.clone().into()];
        let mut sql = String::from(
            "SELECT target, seq, first, last, count, statuses, body FROM vchunks \
             WHERE tenant = ?1 AND env = ?2",
        );
        if let Some(targets) = targets {
            let marks: Vec<String> = targets
                .iter()
                .map(|t| {
                    args.push(t.clone().into());
                    format!("?{}", args.len())
                })
                .collect();
            sql.push_str(&format!(" AND target IN ({})", marks.join(", ")));
        }
        let mut ranges = Vec::new();
        if let Some((lo, hi)) = keys {
            args.push(hi.into());
            args.push(lo.into());
            ranges.push(format!(
                "(first <= ?{} AND last >= ?{})",
                args.len() - 1,
                args.len()
            ));
        }
        if let Some((lo, hi)) = buckets {
            args.push(lo.into());
            args.push(hi.into());
            ranges.push(format!(
                "(seq BETWEEN ?{} AND ?{})",
                args.len() - 1,
                args.len()
            ));
        }
        if !ranges.is_empty() {
            sql.push_str(&format!(" AND ({})", ranges.join(" OR ")));
        }
        sql.push_str(" ORDER BY target, seq");
        let mut stmt = self.conn.prepare_cached(&sql).db()?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                Ok(RecordChunkRow {
                    target: r.get(0)?,
                    seq: r.get(1)?,
                    first: r.get(2)?,
                    last: r.get(3)?,
                    count: r.get::<_, i64>(4)? as u64,
                    statuses: r.get::<_, i64>(5)? as u64,
                    body: r.get(6)?,
                })
            })
            .db()?;
        rows.map(|r| r.db()).collect()
    }

    fn record_targets_of(&self, scope: &Scope, id: &str) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT target FROM vchunks WHERE tenant = ?1 AND env = ?2 \
                 AND substr(?3, 1, length(target) + 1) = target || ':'",
            )
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env, id], |r| r.get(0))
            .db()?;
        rows.map(|r| r.db()).collect()
    }

    fn job(&self, scope: &Scope, id: &str) -> Result<Option<Map<String, Value>>> {
        let text: Option<String> = self
            .conn
            .prepare_cached("SELECT doc FROM jobs WHERE tenant = ?1 AND env = ?2 AND id = ?3")
            .db()?
            .query_row(params![scope.tenant, scope.env, id], |r| r.get(0))
            .optional()
            .db()?;
        text.map(|t| json_map(&t)).transpose()
    }

    fn jobs(&self, scope: &Scope) -> Result<Vec<Map<String, Value>>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT doc FROM jobs WHERE tenant = ?1 AND env = ?2 ORDER BY seq DESC")
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env], |r| r.get::<_, String>(0))
            .db()?;
        rows.map(|r| r.db().and_then(|t| json_map(&t))).collect()
    }

    fn next_job(&self, status: &str, now: &str) -> Result<Option<(Scope, Map<String, Value>)>> {
        let row: Option<(String, String, String)> = self
            .conn
            .prepare_cached(
                "SELECT tenant, env, doc FROM jobs WHERE status = ?1 \
                 AND coalesce(json_extract(doc, '$.notBefore'), '') <= ?2 ORDER BY seq LIMIT 1",
            )
            .db()?
            .query_row(params![status, now], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()
            .db()?;
        row.map(|(t, e, d)| Ok((Scope::private(&t, &e), json_map(&d)?)))
            .transpose()
    }

    fn secret(&self, scope: &Scope, id: &str) -> Result<Option<SecretRow>> {
        self.conn
            .prepare_cached(
                "SELECT id, meta, nonce, ciphertext, updated, user FROM secrets WHERE tenant = ?1 AND env = ?2 AND id = ?3",
            )
            .db()?
            .query_row(params![scope.tenant, scope.env, id], secret_row)
            .optional()
            .db()?
            .transpose()
    }

    fn secrets(&self, scope: &Scope) -> Result<Vec<SecretRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, meta, nonce, ciphertext, updated, user FROM secrets WHERE tenant = ?1 AND env = ?2 ORDER BY id",
            )
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env], secret_row)
            .db()?;
        rows.map(|r| r.db().and_then(|x| x)).collect()
    }

    fn audit(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<AuditEntry>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT action, versions, user, timestamp, reason FROM audit WHERE coll = ?1 AND tenant = ?2 \
                 AND env = ?3 AND id = ?4 ORDER BY seq",
            )
            .db()?;
        let rows = stmt
            .query_map(params![coll.as_str(), scope.tenant, scope.env, id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                ))
            })
            .db()?;
        rows.map(|r| {
            let (action, versions, user, timestamp, reason) = r.db()?;
            Ok(AuditEntry {
                id: id.to_string(),
                action,
                versions: serde_json::from_str(&versions)
                    .map_err(|e| Error::Internal(e.to_string()))?,
                user,
                timestamp,
                reason,
            })
        })
        .collect()
    }

    fn automation(&self, scope: &Scope, id: &str) -> Result<Option<Map<String, Value>>> {
        let text: Option<String> = self
            .conn
            .prepare_cached(
                "SELECT doc FROM automations WHERE tenant = ?1 AND env = ?2 AND id = ?3",
            )
            .db()?
            .query_row(params![scope.tenant, scope.env, id], |r| r.get(0))
            .optional()
            .db()?;
        text.map(|t| json_map(&t)).transpose()
    }

    fn automations(&self, scope: &Scope) -> Result<Vec<Map<String, Value>>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT doc FROM automations WHERE tenant = ?1 AND env = ?2 ORDER BY id",
            )
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env], |r| r.get::<_, String>(0))
            .db()?;
        rows.map(|r| r.db().and_then(|t| json_map(&t))).collect()
    }

    fn all_automations(&self) -> Result<Vec<(Scope, Map<String, Value>)>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT tenant, env, doc FROM automations ORDER BY tenant, env, id")
            .db()?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .db()?;
        rows.map(|r| {
            let (t, e, d) = r.db()?;
            Ok((Scope::private(&t, &e), json_map(&d)?))
        })
        .collect()
    }

    fn next_delivery(&self, now: &str) -> Result<Option<DeliveryRow>> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE d.status = 'pending' AND d.next_at <= ?1 \
                 AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.tenant = d.tenant AND e.env = d.env \
                 AND e.automation = d.automation AND e.item = d.item AND e.seq < d.seq \
                 AND e.status IN ('pending', 'running')) ORDER BY d.next_at, d.seq LIMIT 1"
            ))
            .db()?
            .query_row(params![now], delivery_row)
            .optional()
            .db()?
            .transpose()
    }

    fn deliveries(&self, status: &str) -> Result<Vec<DeliveryRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE d.status = ?1 ORDER BY d.seq"
            ))
            .db()?;
        let rows = stmt.query_map(params![status], delivery_row).db()?;
        rows.map(|r| r.db().and_then(|x| x)).collect()
    }

    fn automation_log(&self, scope: &Scope, q: &LogQuery) -> Result<Page<Map<String, Value>>> {
        let clause = "tenant = ?1 AND env = ?2 AND (?3 IS NULL OR automation = ?3) \
                      AND (?4 IS NULL OR status = ?4) AND (?5 IS NULL OR timestamp >= ?5) \
                      AND (?6 IS NULL OR timestamp <= ?6)";
        let args = params![
            scope.tenant,
            scope.env,
            q.automation,
            q.status,
            q.from,
            q.to
        ];
        let total: i64 = self
            .conn
            .prepare_cached(&format!(
                "SELECT count(*) FROM automation_log WHERE {clause}"
            ))
            .db()?
            .query_row(args, |r| r.get(0))
            .db()?;
        let limit = q.limit.map_or(-1, |l| l as i64);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT doc FROM automation_log WHERE {clause} ORDER BY seq DESC LIMIT {limit} OFFSET {}",
                q.skip
            ))
            .db()?;
        let rows = stmt.query_map(args, |r| r.get::<_, String>(0)).db()?;
        let items = rows
            .map(|r| r.db().and_then(|t| json_map(&t)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page {
            items,
            total: total as u64,
        })
    }

    fn mails(
        &self,
        scope: &Scope,
        skip: u64,
        limit: Option<u64>,
    ) -> Result<Page<Map<String, Value>>> {
        let total: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM mail WHERE tenant = ?1 AND env = ?2")
            .db()?
            .query_row(params![scope.tenant, scope.env], |r| r.get(0))
            .db()?;
        let limit = limit.map_or(-1, |l| l as i64);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT doc FROM mail WHERE tenant = ?1 AND env = ?2 ORDER BY seq DESC LIMIT {limit} OFFSET {skip}"
            ))
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env], |r| r.get::<_, String>(0))
            .db()?;
        let items = rows
            .map(|r| r.db().and_then(|t| json_map(&t)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page {
            items,
            total: total as u64,
        })
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

impl Tx<'_> {
    /// Rewrites the filterable copy of a document's current version after its tags moved (a
    /// head whose version was just deleted is left to `set_current`).
    fn refresh_head(&mut self, coll: Collection, scope: &Scope, id: &str) -> Result<()> {
        self.conn
            .prepare_cached(&format!(
                "UPDATE heads SET body = (SELECT {HEAD_BODY} FROM versions v WHERE v.coll = heads.coll \
                 AND v.tenant = heads.tenant AND v.env = heads.env AND v.id = heads.id \
                 AND v.version = heads.version) \
                 WHERE coll = ?1 AND tenant = ?2 AND env = ?3 AND id = ?4 AND EXISTS (SELECT 1 \
                 FROM versions v WHERE v.coll = heads.coll AND v.tenant = heads.tenant \
                 AND v.env = heads.env AND v.id = heads.id AND v.version = heads.version)"
            ))
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, id])
            .db()?;
        Ok(())
    }
}

impl WriteTx for Tx<'_> {
    fn put_automation(&mut self, scope: &Scope, doc: &Map<String, Value>) -> Result<()> {
        let id = doc.get("_id").and_then(Value::as_str).unwrap_or_default();
        let text = serde_json::to_string(doc).map_err(|e| Error::Internal(e.to_string()))?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO automations (tenant, env, id, doc) VALUES (?1, ?2, ?3, ?4)",
            )
            .db()?
            .execute(params![scope.tenant, scope.env, id, text])
            .db()?;
        Ok(())
    }

    fn delete_automation(&mut self, scope: &Scope, id: &str) -> Result<bool> {
        self.delete_scoped("automations", scope, id)
    }

    fn put_delivery(&mut self, row: &DeliveryRow) -> Result<()> {
        let text = serde_json::to_string(&row.event).map_err(|e| Error::Internal(e.to_string()))?;
        if row.seq == 0 {
            self.conn
                .prepare_cached(
                    "INSERT INTO deliveries (tenant, env, automation, item, status, attempts, next_at, doc) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .db()?
                .execute(params![
                    row.scope.tenant,
                    row.scope.env,
                    row.automation,
                    row.item,
                    row.status,
                    row.attempts,
                    row.next_at,
                    text
                ])
                .db()?;
        } else {
            self.conn
                .prepare_cached(
                    "UPDATE deliveries SET status = ?2, attempts = ?3, next_at = ?4, doc = ?5 WHERE seq = ?1",
                )
                .db()?
                .execute(params![row.seq, row.status, row.attempts, row.next_at, text])
                .db()?;
        }
        Ok(())
    }

    fn delete_delivery(&mut self, seq: i64) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM deliveries WHERE seq = ?1")
            .db()?
            .execute(params![seq])
            .db()?;
        Ok(())
    }

    fn append_log(&mut self, scope: &Scope, entry: &Map<String, Value>) -> Result<()> {
        let field = |k: &str| {
            entry
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let text = serde_json::to_string(entry).map_err(|e| Error::Internal(e.to_string()))?;
        self.conn
            .prepare_cached(
                "INSERT INTO automation_log (tenant, env, automation, status, timestamp, doc) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .db()?
            .execute(params![
                scope.tenant,
                scope.env,
                field("automation"),
                field("status"),
                field("timestamp"),
                text
            ])
            .db()?;
        Ok(())
    }

    fn append_mail(&mut self, scope: &Scope, mail: &Map<String, Value>) -> Result<()> {
        let text = serde_json::to_string(mail).map_err(|e| Error::Internal(e.to_string()))?;
        self.conn
            .prepare_cached("INSERT INTO mail (tenant, env, doc) VALUES (?1, ?2, ?3)")
            .db()?
            .execute(params![scope.tenant, scope.env, text])
            .db()?;
        Ok(())
    }
    fn put_version(&mut self, coll: Collection, scope: &Scope, v: &StoredVersion) -> Result<()> {
        let body = serde_json::to_string(&v.body).map_err(|e| Error::Internal(e.to_string()))?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO versions (coll, tenant, env, id, version, body, timestamp, user, reason) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, v.id, v.version, body, v.timestamp, v.user, v.reason])
            .db()?;
        Ok(())
    }

    fn delete_version(
        &mut self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        version: u32,
    ) -> Result<()> {
        let args = params![coll.as_str(), scope.tenant, scope.env, id, version];
        self.conn
            .prepare_cached("DELETE FROM tags WHERE coll = ?1 AND tenant = ?2 AND env = ?3 AND id = ?4 AND version = ?5")
            .db()?
            .execute(args)
            .db()?;
        self.conn
            .prepare_cached("DELETE FROM versions WHERE coll = ?1 AND tenant = ?2 AND env = ?3 AND id = ?4 AND version = ?5")
            .db()?
            .execute(args)
            .db()?;
        // A tag moved off the current version changes its `_tag`.
        self.refresh_head(coll, scope, id)
    }

    fn set_current(
        &mut self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        version: Option<u32>,
    ) -> Result<()> {
        match version {
            None => {
                self.conn
                    .prepare_cached("DELETE FROM heads WHERE coll = ?1 AND tenant = ?2 AND env = ?3 AND id = ?4")
                    .db()?
                    .execute(params![coll.as_str(), scope.tenant, scope.env, id])
                    .db()?;
            }
            Some(v) => {
                let changed = self
                    .conn
                    .prepare_cached(&format!(
                        "INSERT OR REPLACE INTO heads (coll, tenant, env, id, version, type, body, search, name_fold) \
                         SELECT v.coll, v.tenant, v.env, v.id, v.version, coalesce(json_extract(v.body, '$._type'), ''), \
                         {HEAD_BODY}, pf_search_text(v.body), pf_fold(json_extract(v.body, '$.name')) \
                         FROM versions v WHERE v.coll = ?1 AND v.tenant = ?2 AND v.env = ?3 AND v.id = ?4 AND v.version = ?5",
                    ))
                    .db()?
                    .execute(params![coll.as_str(), scope.tenant, scope.env, id, v])
                    .db()?;
                if changed == 0 {
                    return Err(Error::Internal(format!(
                        "set_current: {id} has no version {v}"
                    )));
                }
            }
        }
        Ok(())
    }

    fn set_tag(
        &mut self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        tag: &str,
        version: u32,
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO tags (coll, tenant, env, id, tag, version) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, id, tag, version])
            .db()?;
        self.refresh_head(coll, scope, id)
    }

    fn append_audit(&mut self, coll: Collection, scope: &Scope, e: &AuditEntry) -> Result<()> {
        let versions =
            serde_json::to_string(&e.versions).map_err(|e| Error::Internal(e.to_string()))?;
        self.conn
            .prepare_cached(
                "INSERT INTO audit (coll, tenant, env, id, action, versions, user, timestamp, reason) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, e.id, e.action, versions, e.user, e.timestamp, e.reason])
            .db()?;
        Ok(())
    }

    fn ensure_tenant(&mut self, tenant: &str, now: &str) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO tenants (name, created) VALUES (?1, ?2)")
            .db()?
            .execute(params![tenant, now])
            .db()?;
        self.create_environment(tenant, crate::auth::DEFAULT_ENVIRONMENT, now)?;
        Ok(())
    }

    fn create_environment(&mut self, tenant: &str, env: &str, now: &str) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO environments (tenant, name, created) VALUES (?1, ?2, ?3)",
            )
            .db()?
            .execute(params![tenant, env, now])
            .db()?;
        Ok(n == 1)
    }

    fn worker_seen(&mut self, w: &WorkerRow) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO workers (id, host, pid, started, seen) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (id) DO UPDATE SET seen = excluded.seen",
            )
            .db()?
            .execute(params![w.id, w.host, w.pid, w.started, w.seen])
            .db()?;
        Ok(())
    }

    fn worker_gone(&mut self, id: &str) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM workers WHERE id = ?1")
            .db()?
            .execute(params![id])
            .db()?;
        Ok(())
    }

    fn upsert_user(&mut self, tenant: &str, user: &str, role: Role, now: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO users (tenant, name, role, created) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (tenant, name) DO UPDATE SET role = excluded.role",
            )
            .db()?
            .execute(params![tenant, user, role.as_str(), now])
            .db()?;
        Ok(())
    }

    fn put_record_chunk(&mut self, scope: &Scope, row: &RecordChunkRow) -> Result<()> {
        if row.count == 0 {
            self.conn
                .prepare_cached(
                    "DELETE FROM vchunks WHERE tenant = ?1 AND env = ?2 AND target = ?3 AND seq = ?4",
                )
                .db()?
                .execute(params![scope.tenant, scope.env, row.target, row.seq])
                .db()?;
            return Ok(());
        }
        self.conn
            .prepare_cached(
                "INSERT INTO vchunks (tenant, env, target, seq, first, last, count, statuses, body) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
                 ON CONFLICT (tenant, env, target, seq) DO UPDATE SET first = excluded.first, \
                 last = excluded.last, count = excluded.count, statuses = excluded.statuses, \
                 body = excluded.body",
            )
            .db()?
            .execute(params![
                scope.tenant,
                scope.env,
                row.target,
                row.seq,
                row.first,
                row.last,
                row.count as i64,
                row.statuses as i64,
                row.body
            ])
            .db()?;
        Ok(())
    }

    fn put_job(&mut self, scope: &Scope, job: &Map<String, Value>) -> Result<()> {
        let id = job.get("_id").and_then(Value::as_str).unwrap_or_default();
        let status = job
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let doc = serde_json::to_string(job).map_err(|e| Error::Internal(e.to_string()))?;
        self.conn
            .prepare_cached(
                "INSERT INTO jobs (tenant, env, id, status, doc) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (id) DO UPDATE SET status = excluded.status, doc = excluded.doc",
            )
            .db()?
            .execute(params![scope.tenant, scope.env, id, status, doc])
            .db()?;
        Ok(())
    }

    fn put_secret(&mut self, scope: &Scope, row: &SecretRow) -> Result<()> {
        let meta = serde_json::to_string(&row.meta).map_err(|e| Error::Internal(e.to_string()))?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO secrets (tenant, env, id, meta, nonce, ciphertext, updated, user) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .db()?
            .execute(params![scope.tenant, scope.env, row.id, meta, row.nonce, row.ciphertext, row.updated, row.user])
            .db()?;
        Ok(())
    }

    fn delete_secret(&mut self, scope: &Scope, id: &str) -> Result<bool> {
        self.delete_scoped("secrets", scope, id)
    }

    fn set_grant(
        &mut self,
        tenant: &str,
        user: &str,
        kind: &str,
        name: &str,
        on: bool,
    ) -> Result<bool> {
        let sql = if on {
            "INSERT OR IGNORE INTO grants (tenant, user, kind, name) VALUES (?1, ?2, ?3, ?4)"
        } else {
            "DELETE FROM grants WHERE tenant = ?1 AND user = ?2 AND kind = ?3 AND name = ?4"
        };
        let n = self
            .conn
            .prepare_cached(sql)
            .db()?
            .execute(params![tenant, user, kind, name])
            .db()?;
        Ok(n > 0)
    }

    fn insert_token(&mut self, hash: &str, tenant: &str, user: &str, now: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO tokens (hash, tenant, user, created) VALUES (?1, ?2, ?3, ?4)",
            )
            .db()?
            .execute(params![hash, tenant, user, now])
            .db()?;
        Ok(())
    }

    fn revoke_tokens(&mut self, which: &TokenSelector, now: &str) -> Result<u64> {
        let n = match which {
            TokenSelector::Hash(hash) => self
                .conn
                .prepare_cached("UPDATE tokens SET revoked = ?2 WHERE hash = ?1 AND revoked IS NULL")
                .db()?
                .execute(params![hash, now])
                .db()?,
            TokenSelector::User { tenant, user } => self
                .conn
                .prepare_cached("UPDATE tokens SET revoked = ?3 WHERE tenant = ?1 AND user = ?2 AND revoked IS NULL")
                .db()?
                .execute(params![tenant, user, now])
                .db()?,
        };
        Ok(n as u64)
    }

    fn replace_chunks(
        &mut self,
        key: &DataKey,
        version: u32,
        keep_history: bool,
        old_starts: &[i64],
        new: &[Chunk],
    ) -> Result<()> {
        let k = &key.scope;
        for start in old_starts {
            let sql = if keep_history {
                "UPDATE series_chunks SET vto = ?6 WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 \
                 AND start = ?5 AND vto IS NULL"
            } else {
                "DELETE FROM series_chunks WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 \
                 AND start = ?5 AND vto IS NULL AND ?6 IS NOT NULL"
            };
            self.conn
                .prepare_cached(sql)
                .db()?
                .execute(params![
                    k.tenant, k.env, key.object, key.prop, start, version
                ])
                .db()?;
        }
        let mut insert = self
            .conn
            .prepare_cached(
                "INSERT INTO series_chunks (tenant, env, obj, prop, start, vfrom, vto, stop, n, payload) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8, ?9)",
            )
            .db()?;
        for c in new {
            insert
                .execute(params![
                    k.tenant, k.env, key.object, key.prop, c.start, version, c.stop, c.count,
                    c.payload
                ])
                .db()?;
        }
        Ok(())
    }

    fn put_curve(
        &mut self,
        key: &DataKey,
        version: u32,
        keep_history: bool,
        ondate: &str,
        payload: Option<&[u8]>,
    ) -> Result<()> {
        let k = &key.scope;
        let sql = if keep_history {
            "UPDATE curves SET vto = ?6 WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 AND ondate = ?5 AND vto IS NULL"
        } else {
            "DELETE FROM curves WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 AND ondate = ?5 AND vto IS NULL AND ?6 IS NOT NULL"
        };
        self.conn
            .prepare_cached(sql)
            .db()?
            .execute(params![
                k.tenant, k.env, key.object, key.prop, ondate, version
            ])
            .db()?;
        if let Some(payload) = payload {
            self.conn
                .prepare_cached(
                    "INSERT INTO curves (tenant, env, obj, prop, ondate, vfrom, vto, payload) VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7)",
                )
                .db()?
                .execute(params![k.tenant, k.env, key.object, key.prop, ondate, version, payload])
                .db()?;
        }
        Ok(())
    }

    fn end_data(&mut self, key: &DataKey, version: u32, keep_history: bool) -> Result<()> {
        let k = &key.scope;
        for table in ["series_chunks", "curves"] {
            let sql = if keep_history {
                format!("UPDATE {table} SET vto = ?5 WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 AND vto IS NULL")
            } else {
                format!("DELETE FROM {table} WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 AND vto IS NULL AND ?5 IS NOT NULL")
            };
            self.conn
                .prepare_cached(&sql)
                .db()?
                .execute(params![k.tenant, k.env, key.object, key.prop, version])
                .db()?;
        }
        Ok(())
    }

    fn prune_data(&mut self, scope: &Scope, object: &str, remaining: &[u32]) -> Result<()> {
        let versions =
            serde_json::to_string(remaining).map_err(|e| Error::Internal(e.to_string()))?;
        let top = remaining.iter().max().copied().unwrap_or(0);
        for table in ["series_chunks", "curves"] {
            self.conn
                .prepare_cached(&format!(
                    "DELETE FROM {table} WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND NOT EXISTS \
                     (SELECT 1 FROM json_each(?4) r WHERE r.value >= vfrom AND (vto IS NULL OR r.value < vto))"
                ))
                .db()?
                .execute(params![scope.tenant, scope.env, object, versions])
                .db()?;
            self.conn
                .prepare_cached(&format!(
                    "UPDATE {table} SET vto = NULL WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND vto > ?4"
                ))
                .db()?
                .execute(params![scope.tenant, scope.env, object, top])
                .db()?;
        }
        Ok(())
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        self.conn.execute_batch("COMMIT").db()?;
        self.open = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
