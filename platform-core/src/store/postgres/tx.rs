//! A transaction on one pooled connection, and how it spends round trips.
//!
//! A statement whose answer the transaction does not need at once is held back and sent with
//! the next one whose answer it needs, or with `COMMIT` ([`pool::Conn`]): holds (row locks),
//! writes, and reads named ahead ([`ReadAhead`]), whose rows go to the transaction's cache for
//! the reads that follow. Rows written to `versions`, `heads` and `deliveries` are gathered
//! and sent as one statement per table over arrays (`UNNEST`), however many a call writes. So
//! a save of one object is two round trips (its holds and reads named ahead with the first
//! read, its writes with `COMMIT`), and an array of objects as many.

use super::gathered::{DocKey, Gathered};
use super::pool::{owned, Answer, Conn, Last, Owned, Params};
use super::replicas::Replica;
use super::Shared;
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{parse_position, set_commit_position};
use crate::store::{Automation, Chunk, Claim, Collection, Hold, Holds, StoredVersion, WriteTx};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use tokio_postgres::Row;

/// A series' key in the cache: tenant, environment, object, property.
pub(crate) type SeriesKey = (String, String, String, String);

/// The row lock of one document's current row (collection, tenant, environment, id).
pub(super) const LOCK_ONE: &str = "SELECT 1 FROM heads WHERE scope = (SELECT key FROM scopes \
     WHERE coll = $1 AND tenant = $2 AND env = $3) AND id = $4 FOR UPDATE";

/// [`LOCK_ONE`] of a document, with its parameters.
fn lock_one(key: &DocKey) -> (&'static str, Vec<Owned>) {
    let (coll, tenant, env, id) = key;
    (
        LOCK_ONE,
        vec![
            owned(coll.as_str()),
            owned(tenant.clone()),
            owned(env.clone()),
            owned(id.clone()),
        ],
    )
}

/// The read of the authentication epoch.
pub(super) const EPOCH: &str = "SELECT n FROM auth_epoch WHERE id = 1";

/// Where the rows of a read named ahead go.
pub(crate) enum Sink {
    /// Current versions (tenant, env, then the version's columns) of documents of a collection;
    /// the keys asked for and not found have none.
    Documents(Collection, Vec<(String, String, String)>),
    /// Current versions (the key's place in this list, tenant, env, then the version's
    /// columns) of one document of each key; the keys not found have none. With them, in the
    /// same statement, the authentication epoch (`epoch`: place -2, `n` in the version's
    /// column) and the automations of a scope (place -1, the automation's id and `doc` in the
    /// version's id and text columns).
    EachDocument {
        keys: Vec<super::gathered::DocKey>,
        /// The key whose row lock the statement took first (its `xmin` at place -3).
        locked: Option<usize>,
        epoch: bool,
        automations: Option<(String, String)>,
    },
    /// The type definitions (the type id, then tenant, env and the version's columns where
    /// one exists) named by a document, in these scopes; where none exists, none.
    Types(Vec<(String, String)>),
    /// The automations of a scope (`doc`), or of every scope (`tenant, env, doc`).
    Automations(Option<(String, String)>),
    /// The chunks (tenant, env, obj, prop, start, stop, n, payload) of series at their current
    /// versions; the keys asked for and not found have none.
    Series(Vec<SeriesKey>),
    /// The authentication epoch (`n`).
    AuthEpoch,
}

/// A transaction on one pooled connection.
pub(crate) struct Tx<'a> {
    pub(super) conn: RefCell<Conn<'a>>,
    /// The statements that open it (sent again on the primary when a replica fails it).
    begin: &'static str,
    /// The read replica it reads from, while it does (a read transaction).
    replica: std::cell::Cell<Option<&'a Replica>>,
    pub(super) open: bool,
    /// A read transaction (`READ ONLY`): its end is sent without waiting for the answer.
    pub(super) read_only: bool,
    pub(super) shared: &'a Shared,
    /// What this transaction read, or read ahead, that it will likely ask for again. A reader
    /// sees one snapshot; a writer holds what it changes, and its own writes update or drop
    /// the entries; what a writer reads without holding it (a type definition, say) it sees as
    /// it first read it.
    pub(super) cache: RefCell<TxCache>,
    /// What this transaction holds.
    pub(super) holds: Holds,
    /// The jobs and deliveries it claimed: the store's once it commits.
    pub(super) claims: Vec<Claim>,
    /// Rows gathered for multi-row writes, sent before any other statement.
    pub(super) rows: RefCell<Gathered>,
    /// Where the rows of each tagged read go (by tag).
    pub(super) sinks: RefCell<Vec<Sink>>,
    /// How many rows of documents it wrote (a large write has the tables analyzed).
    pub(super) written: std::cell::Cell<usize>,
    /// The authentication epoch named ahead and not sent yet: it goes with the next read of
    /// documents named ahead (one statement for both), else with the next statement whose
    /// answer is needed.
    pub(super) epoch_ahead: std::cell::Cell<bool>,
    /// The row lock of one document held back: it goes with the next read of that document
    /// named ahead (a part of its statement, `ahead::each_document_ahead`), else alone before
    /// the next statement.
    pub(super) lock_ahead: RefCell<Option<DocKey>>,
}

/// Rows a transaction keeps (see [`Tx::cache`]).
#[derive(Default)]
pub(crate) struct TxCache {
    /// Current versions of documents (`None`: none).
    pub(crate) docs: HashMap<DocKey, Option<StoredVersion>>,
    /// The automations of a scope: every saved item asks for them.
    pub(crate) automations: HashMap<(String, String), Vec<Automation>>,
    /// The automations of every scope (events on public items).
    pub(crate) all_automations: Option<Vec<(Scope, Automation)>>,
    /// The chunks of series at their objects' current versions, in time order.
    pub(crate) series: HashMap<SeriesKey, Vec<Chunk>>,
    /// The version this transaction put last (a save makes it current next).
    pub(crate) last_put: Option<(Collection, Scope, StoredVersion)>,
    /// The authentication epoch, once read (a reader's; a writer changes it).
    pub(crate) auth_epoch: Option<u64>,
    /// The scopes whose keys this transaction may have made (kept by the store only once
    /// read committed, by a later transaction).
    pub(crate) made_scopes: HashSet<super::gathered::ScopeName>,
    /// The keys of scopes this transaction made, for its own reads.
    pub(crate) own_scopes: HashMap<super::gathered::ScopeName, i32>,
}

impl Tx<'_> {
    /// Turns the gathered rows into statements held back: new versions, versions in place,
    /// current rows, deliveries (each table apart; nothing else in between).
    pub(super) fn seal(&self) {
        if let Some(key) = self.lock_ahead.borrow_mut().take() {
            let (sql, params) = lock_one(&key);
            self.conn.borrow_mut().defer(sql.to_string(), params, None);
        }
        let rows = std::mem::take(&mut *self.rows.borrow_mut());
        if rows.is_empty() {
            return;
        }
        self.written.set(self.written.get() + rows.document_rows());
        let mut conn = self.conn.borrow_mut();
        for (sql, params) in rows.into_statements() {
            conn.defer(sql, params, None);
        }
    }
}

impl<'a> Tx<'a> {
    /// A transaction on `conn` (a connection to `replica`, when given), opened by `begin`
    /// with its first statement.
    pub(super) fn new(
        mut conn: Conn<'a>,
        begin: &'static str,
        read_only: bool,
        shared: &'a Shared,
        replica: Option<&'a Replica>,
    ) -> Self {
        conn.begin_with_first(begin.to_string());
        Tx {
            conn: RefCell::new(conn),
            begin,
            replica: std::cell::Cell::new(replica),
            open: true,
            read_only,
            shared,
            cache: RefCell::default(),
            holds: Holds::default(),
            claims: Vec::new(),
            rows: RefCell::default(),
            sinks: RefCell::default(),
            written: std::cell::Cell::new(0),
            epoch_ahead: std::cell::Cell::new(false),
            lock_ahead: RefCell::new(None),
        }
    }
}

impl Tx<'_> {
    /// A query, sent with every statement held back: its rows.
    pub(super) fn query(&self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>> {
        match self.send(Last::Query(sql, params))? {
            Answer::Rows(rows) => Ok(rows),
            _ => Err(Error::Internal("a query answered no rows".into())),
        }
    }

    pub(super) fn query_opt(&self, sql: &str, params: &Params<'_>) -> Result<Option<Row>> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    pub(super) fn query_one(&self, sql: &str, params: &Params<'_>) -> Result<Row> {
        self.query_opt(sql, params)?
            .ok_or_else(|| Error::Internal(format!("no row from {sql}")))
    }

    /// A statement whose count of changed rows is needed, sent with every statement held back.
    pub(super) fn execute(&self, sql: &str, params: &Params<'_>) -> Result<u64> {
        match self.send(Last::Execute(sql, params))? {
            Answer::Count(n) => Ok(n),
            _ => Err(Error::Internal("a statement answered no count".into())),
        }
    }

    /// Sends what is held back when a read named ahead among it answers what `covers` says,
    /// so that its rows are in the cache (a read the cache misses comes here before reading on
    /// its own: what it misses may be on its way); whether anything was sent.
    pub(super) fn settle(&self, covers: impl Fn(&Sink) -> bool) -> Result<bool> {
        if !self.sinks.borrow().iter().any(covers) {
            return Ok(false);
        }
        self.send(Last::Held)?;
        Ok(true)
    }

    /// A statement whose answer is not needed: sent with the next one that is.
    pub(super) fn defer(&self, sql: impl Into<String>, params: Vec<Owned>) {
        self.seal();
        self.conn.borrow_mut().defer(sql.into(), params, None);
    }

    /// Adds rows to the multi-row writes (sent before any other statement).
    pub(super) fn gather(&self, add: impl FnOnce(&mut Gathered)) {
        add(&mut self.rows.borrow_mut());
    }

    /// Sends `last` with everything held back, and keeps the rows of the reads named ahead.
    /// A read replica that fails the transaction's first round trip (stopped since it was last
    /// sampled) is marked down, and the same statements go to the primary: nothing was
    /// answered yet, so the caller sees no error.
    fn send(&self, last: Last<'_>) -> Result<Answer> {
        self.seal();
        if self.epoch_ahead.take() {
            self.defer_read(EPOCH, vec![], Sink::AuthEpoch);
        }
        let first = !self.conn.borrow().begun();
        let sent = self.conn.borrow_mut().send(last);
        let (answer, tagged) = match sent {
            Ok(done) => done,
            Err(e) => match (self.replica.get(), first, &e) {
                (Some(replica), true, Error::Unavailable(_)) => {
                    replica.down(&format!("a read failed: {e}"));
                    tracing::warn!(replica = %replica.name, error = %e, "a read replica failed; reading from the primary");
                    metrics::counter!("platform_db_replica_fallbacks_total").increment(1);
                    let mut primary = self.shared.pool.get()?;
                    primary.begin_with_first(self.begin.to_string());
                    primary.put_deferred(self.conn.borrow_mut().take_deferred());
                    *self.conn.borrow_mut() = primary;
                    self.replica.set(None);
                    let resent = self.conn.borrow_mut().send(last);
                    resent.inspect_err(|_| self.conn.borrow_mut().drop_deferred())?
                }
                _ => {
                    self.conn.borrow_mut().drop_deferred();
                    return Err(e);
                }
            },
        };
        self.absorb(tagged)?;
        Ok(answer)
    }

    /// Deletes the row `id` of a scope from a table keyed by (tenant, env, id); whether it
    /// existed.
    pub(super) fn delete_scoped(&mut self, table: &str, scope: &Scope, id: &str) -> Result<bool> {
        let n = self.execute(
            &format!("DELETE FROM {table} WHERE tenant = $1 AND env = $2 AND id = $3"),
            &[&scope.tenant, &scope.env, &id],
        )?;
        Ok(n > 0)
    }

    /// Forgets what the cache holds of a document (a write changed it otherwise than a save).
    pub(super) fn forget_document(&self, coll: Collection, scope: &Scope, id: &str) {
        let mut cache = self.cache.borrow_mut();
        cache.docs.remove(&(
            coll,
            scope.tenant.clone(),
            scope.env.clone(),
            id.to_string(),
        ));
        cache.last_put = None;
    }

    /// Forgets what the cache holds of an object's series (its data was written).
    pub(super) fn forget_series(&self, scope: &Scope, object: &str) {
        self.cache
            .borrow_mut()
            .series
            .retain(|(t, e, o, _), _| !(*t == scope.tenant && *e == scope.env && o == object));
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        let conn = self.conn.get_mut();
        // What was held back is not sent: the transaction ends without it.
        conn.drop_deferred();
        if self.open && self.read_only && conn.begun() {
            // Nothing to undo: the ROLLBACK is sent, and the connection goes back to the pool
            // at once; its next transaction runs after it (one connection runs its requests in
            // order), and a connection lost meanwhile fails that one's first statement.
            conn.send_unawaited("ROLLBACK");
        } else if self.open && conn.begun() {
            if let Err(e) = conn.batch("ROLLBACK") {
                if crate::store::database_lost() {
                    // The database's loss was logged once.
                    tracing::debug!(error = %e, "rollback failed; the connection is dropped");
                } else {
                    tracing::warn!(error = %e, "rollback failed; the connection is dropped");
                }
                conn.discard();
            }
        }
    }
}

impl Tx<'_> {}

impl WriteTx for Tx<'_> {
    fn hold(&mut self, what: &[Hold<'_>]) -> Result<()> {
        // Row locks, which PostgreSQL keeps in the rows themselves (no bound on how many one
        // transaction holds, unlike advisory locks), each set taken in key order; sent with
        // the next statement (a read of what is held comes after them, in the same round
        // trip).
        let new: HashSet<String> = self.holds.take(what).into_iter().collect();
        if new.is_empty() {
            return Ok(());
        }
        // One document (a single save): its lock waits for the read of its row named ahead.
        if let ([Hold::Document(coll, scope, id)], 1) = (what, new.len()) {
            self.seal();
            let key = (
                *coll,
                scope.tenant.clone(),
                scope.env.clone(),
                id.to_string(),
            );
            *self.lock_ahead.borrow_mut() = Some(key);
            return Ok(());
        }
        let mut keys: Vec<(&str, &str, &str, &str)> = Vec::new();
        let mut others: Vec<String> = Vec::new();
        for h in what.iter().filter(|h| new.contains(&h.key())) {
            match h {
                // A document's current row. A document with none (new, or all deleted) has
                // nothing to lock: a second writer creating it at once stores the same version
                // number, which the versions' primary key refuses (a write conflict: it runs
                // again, and finds the first one's row).
                Hold::Document(coll, scope, id) => {
                    keys.push((coll.as_str(), &scope.tenant, &scope.env, id));
                }
                // A row of `holds`, made by the first hold of its key.
                _ => others.push(h.key()),
            }
        }
        keys.sort_unstable();
        keys.dedup();
        // One statement per collection and scope, the rows locked in id order (for one id,
        // equalities on the primary key, the one plan kept for every call; for several, a
        // look-up of each); the groups in key order.
        type Group<'k> = ((&'k str, &'k str, &'k str), Vec<String>);
        let mut groups: Vec<Group<'_>> = Vec::new();
        for (coll, tenant, env, id) in keys {
            match groups.last_mut() {
                Some((g, ids)) if *g == (coll, tenant, env) => ids.push(id.to_string()),
                _ => groups.push(((coll, tenant, env), vec![id.to_string()])),
            }
        }
        for ((coll, tenant, env), ids) in groups {
            let (sql, id) = match ids.as_slice() {
                [one] => (LOCK_ONE, owned(one.clone())),
                _ => (
                    "SELECT 1 FROM heads WHERE scope = (SELECT key FROM scopes WHERE coll = $1 \
                     AND tenant = $2 AND env = $3) AND id IN (SELECT unnest($4::text[])) \
                     ORDER BY id FOR UPDATE",
                    owned(ids),
                ),
            };
            self.defer(
                sql,
                vec![
                    owned(coll.to_string()),
                    owned(tenant.to_string()),
                    owned(env.to_string()),
                    id,
                ],
            );
        }
        if !others.is_empty() {
            others.sort_unstable();
            self.defer(
                "INSERT INTO holds (key) SELECT k FROM unnest($1::text[]) AS u(k) ORDER BY k \
                 ON CONFLICT (key) DO NOTHING",
                vec![owned(others.clone())],
            );
            self.defer(
                "SELECT 1 FROM holds WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE",
                vec![owned(others)],
            );
        }
        Ok(())
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        self.seal();
        let conn = self.conn.get_mut();
        if !conn.begun() && !conn.has_deferred() {
            // No statement ran: nothing was opened, nothing to commit.
            self.open = false;
            return Ok(());
        }
        // With read replicas, the commit's position in the log comes back with it (a client's
        // later reads then see this write wherever they are served).
        let outcome = match &self.shared.replicas {
            None => conn.batch("COMMIT"),
            Some(_) => conn
                .send(Last::Simple("COMMIT; SELECT pg_current_wal_lsn()::text"))
                .map(|(answer, _)| {
                    if let Answer::Texts(texts) = answer {
                        if let Some(at) = texts.first().and_then(|t| parse_position(t)) {
                            set_commit_position(at);
                        }
                    }
                }),
        };
        self.open = false;
        // A write's connection lost during COMMIT: the database may have committed it or not,
        // and the caller is told that it cannot know (never "nothing was changed").
        let outcome = outcome.map_err(|e| match e {
            Error::Unavailable(cause) if !self.read_only => Error::outcome_unknown(cause),
            e => e,
        });
        if outcome.is_err() {
            // Whether it committed is not known: a claim it made, if it did, is renewed by no
            // one and runs out.
            self.conn.get_mut().discard();
        } else {
            if !self.claims.is_empty() {
                self.shared.claims().extend(self.claims.drain(..));
            }
            // The scopes it made keys for have them, committed.
            let made = std::mem::take(&mut self.cache.get_mut().made_scopes);
            if !made.is_empty() {
                self.shared.scopes_made().extend(made);
            }
            super::wrote_rows(self.shared, self.written.get());
        }
        outcome
    }
}
