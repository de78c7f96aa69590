//! A transaction on one pooled connection, and how it spends round trips.
//!
//! A statement whose answer the transaction does not need at once is held back and sent with
//! the next one whose answer it needs, or with `COMMIT` ([`pool::Conn`]): holds (row locks),
//! writes, and reads named ahead ([`ReadAhead`]), whose rows go to the transaction's cache for
//! the reads that follow. Rows written to `versions`, `heads` and `deliveries` are gathered
//! and sent as one statement per table over arrays (`UNNEST`), however many a call writes. So
//! a save of one object is two round trips (its holds and reads named ahead with the first
//! read, its writes with `COMMIT`), and an array of objects as many.

use super::pool::{Answer, Conn, Last, Owned};
use super::replicas::Replica;
use super::{get, Shared};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{parse_position, set_commit_position};
use crate::store::{
    Ahead, Automation, Chunk, Claim, Collection, DataKey, Hold, Holds, ReadAhead, StoredVersion,
    WriteTx,
};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use tokio_postgres::types::ToSql;
use tokio_postgres::Row;

pub(crate) type Params<'p> = [&'p (dyn ToSql + Sync)];

/// A document's key in the cache: collection, tenant, environment, id.
pub(crate) type DocKey = (Collection, String, String, String);

/// A series' key in the cache: tenant, environment, object, property.
pub(crate) type SeriesKey = (String, String, String, String);

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
    rows: RefCell<Gathered>,
    /// Where the rows of each tagged read go (by tag).
    sinks: RefCell<Vec<Sink>>,
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
}

/// Where the rows of a read named ahead go.
enum Sink {
    /// Current versions (tenant, env, then the version's columns) of documents of a collection;
    /// the keys asked for and not found have none.
    Documents(Collection, Vec<(String, String, String)>),
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

/// A row of `versions` to write.
pub(crate) struct VersionRow {
    pub(crate) key: DocKey,
    pub(crate) version: i64,
    pub(crate) body: String,
    pub(crate) timestamp: chrono::DateTime<chrono::Utc>,
    pub(crate) user: String,
    pub(crate) reason: Option<String>,
}

/// A row of `heads` to write.
pub(crate) struct HeadRow {
    pub(crate) key: DocKey,
    pub(crate) version: i64,
    pub(crate) kind: Option<String>,
    pub(crate) body: serde_json::Value,
    pub(crate) search: String,
    pub(crate) name_fold: Option<String>,
}

/// A row of `deliveries` to write.
pub(crate) struct DeliveryRow {
    pub(crate) tenant: String,
    pub(crate) env: String,
    pub(crate) automation: String,
    pub(crate) item: String,
    pub(crate) status: String,
    pub(crate) attempts: i64,
    pub(crate) next_at: chrono::DateTime<chrono::Utc>,
    pub(crate) doc: String,
}

/// Rows gathered for multi-row writes ([`Tx::gather`]).
#[derive(Default)]
pub(crate) struct Gathered {
    /// Versions of new numbers (a row of the number already there is a write conflict).
    pub(crate) new_versions: Vec<VersionRow>,
    /// Versions rewritten in place (unversioned types).
    pub(crate) versions_in_place: Vec<VersionRow>,
    /// Current rows, the last of each key kept.
    pub(crate) heads: Vec<HeadRow>,
    /// Deliveries, in the order they were added.
    pub(crate) deliveries: Vec<DeliveryRow>,
}

impl Gathered {
    fn is_empty(&self) -> bool {
        self.new_versions.is_empty()
            && self.versions_in_place.is_empty()
            && self.heads.is_empty()
            && self.deliveries.is_empty()
    }
}

fn owned<T: ToSql + Sync + Send + 'static>(value: T) -> Owned {
    Box::new(value)
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

    /// A statement whose answer is not needed: sent with the next one that is.
    pub(super) fn defer(&self, sql: impl Into<String>, params: Vec<Owned>) {
        self.seal();
        self.conn.borrow_mut().defer(sql.into(), params, None);
    }

    /// A read whose rows go to the cache, sent with the next statement whose answer is needed.
    fn defer_read(&self, sql: impl Into<String>, params: Vec<Owned>, sink: Sink) {
        self.seal();
        let mut sinks = self.sinks.borrow_mut();
        let tag = sinks.len();
        sinks.push(sink);
        self.conn.borrow_mut().defer(sql.into(), params, Some(tag));
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

    /// Turns the gathered rows into statements held back: new versions, versions in place,
    /// current rows, deliveries (each table apart; nothing else in between).
    fn seal(&self) {
        let mut rows = self.rows.borrow_mut();
        if rows.is_empty() {
            return;
        }
        let rows = std::mem::take(&mut *rows);
        let mut conn = self.conn.borrow_mut();
        for (versions, in_place) in [(rows.new_versions, false), (rows.versions_in_place, true)] {
            if versions.is_empty() {
                continue;
            }
            let versions = if in_place {
                last_of_each(versions, |v| (v.key.clone(), v.version))
            } else {
                versions
            };
            let conflict = if in_place {
                " ON CONFLICT (coll, tenant, env, id, version) DO UPDATE SET body = excluded.body, \
                 timestamp = excluded.timestamp, \"user\" = excluded.\"user\", reason = excluded.reason"
            } else {
                ""
            };
            let sql = format!(
                "INSERT INTO versions (coll, tenant, env, id, version, body, timestamp, \"user\", reason) \
                 SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], \
                 $6::text[], $7::timestamptz[], $8::text[], $9::text[]){conflict}"
            );
            let mut c = Columns9::default();
            for v in versions {
                c.0.push(v.key.0.as_str().to_string());
                c.1.push(v.key.1);
                c.2.push(v.key.2);
                c.3.push(v.key.3);
                c.4.push(v.version);
                c.5.push(v.body);
                c.6.push(v.timestamp);
                c.7.push(v.user);
                c.8.push(v.reason);
            }
            conn.defer(sql, c.params(), None);
        }
        if !rows.heads.is_empty() {
            let heads = last_of_each(rows.heads, |h| h.key.clone());
            let (mut coll, mut tenant, mut env, mut id) = (vec![], vec![], vec![], vec![]);
            let (mut version, mut kind, mut body, mut search, mut name_fold) =
                (vec![], vec![], vec![], vec![], vec![]);
            for h in heads {
                coll.push(h.key.0.as_str().to_string());
                tenant.push(h.key.1);
                env.push(h.key.2);
                id.push(h.key.3);
                version.push(h.version);
                kind.push(h.kind);
                body.push(h.body);
                search.push(h.search);
                name_fold.push(h.name_fold);
            }
            conn.defer(
                "INSERT INTO heads (coll, tenant, env, id, version, type, body, search, name_fold) \
                 SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], \
                 $6::text[], $7::jsonb[], $8::text[], $9::text[]) ON CONFLICT (coll, tenant, env, id) \
                 DO UPDATE SET version = excluded.version, type = excluded.type, body = excluded.body, \
                 search = excluded.search, name_fold = excluded.name_fold"
                    .into(),
                vec![
                    owned(coll),
                    owned(tenant),
                    owned(env),
                    owned(id),
                    owned(version),
                    owned(kind),
                    owned(body),
                    owned(search),
                    owned(name_fold),
                ],
                None,
            );
        }
        if !rows.deliveries.is_empty() {
            let mut c: [Vec<String>; 5] = Default::default();
            let (mut attempts, mut next_at, mut doc) = (vec![], vec![], vec![]);
            for d in rows.deliveries {
                c[0].push(d.tenant);
                c[1].push(d.env);
                c[2].push(d.automation);
                c[3].push(d.item);
                c[4].push(d.status);
                attempts.push(d.attempts);
                next_at.push(d.next_at);
                doc.push(d.doc);
            }
            let [tenant, env, automation, item, status] = c;
            // Numbered in the order they were added (`seq` is given row by row, in this order).
            conn.defer(
                "INSERT INTO deliveries (tenant, env, automation, item, status, attempts, next_at, doc) \
                 SELECT t, e, a, i, s, n, at, d FROM unnest($1::text[], $2::text[], $3::text[], \
                 $4::text[], $5::text[], $6::bigint[], $7::timestamptz[], $8::text[]) \
                 WITH ORDINALITY AS u(t, e, a, i, s, n, at, d, o) ORDER BY o"
                    .into(),
                vec![
                    owned(tenant),
                    owned(env),
                    owned(automation),
                    owned(item),
                    owned(status),
                    owned(attempts),
                    owned(next_at),
                    owned(doc),
                ],
                None,
            );
        }
    }

    /// Fills the cache from the rows of the reads named ahead.
    fn absorb(&self, tagged: Vec<(usize, Vec<Row>)>) -> Result<()> {
        if tagged.is_empty() {
            return Ok(());
        }
        let sinks = std::mem::take(&mut *self.sinks.borrow_mut());
        let mut cache = self.cache.borrow_mut();
        for (tag, rows) in tagged {
            let Some(sink) = sinks.get(tag) else {
                return Err(Error::Internal(format!("rows for an unknown read {tag}")));
            };
            match sink {
                Sink::Documents(coll, keys) => {
                    for (t, e, i) in keys {
                        cache
                            .docs
                            .insert((*coll, t.clone(), e.clone(), i.clone()), None);
                    }
                    for row in &rows {
                        let (t, e): (String, String) = (get(row, 0)?, get(row, 1)?);
                        let v = super::documents::decode_version_at(row, 2)?;
                        cache.docs.insert((*coll, t, e, v.id.clone()), Some(v));
                    }
                }
                Sink::Types(scopes) => {
                    for row in &rows {
                        let Some(kind) = get::<Option<String>>(row, 0)? else {
                            continue;
                        };
                        for (t, e) in scopes {
                            cache
                                .docs
                                .entry((Collection::Type, t.clone(), e.clone(), kind.clone()))
                                .or_insert(None);
                        }
                        if get::<Option<String>>(row, 1)?.is_some() {
                            let (t, e): (String, String) = (get(row, 1)?, get(row, 2)?);
                            let v = super::documents::decode_version_at(row, 3)?;
                            cache.docs.insert((Collection::Type, t, e, kind), Some(v));
                        }
                    }
                }
                Sink::Automations(Some(scope)) => {
                    let found = rows
                        .iter()
                        .map(|r| super::outbox::decode_automation(r, 0))
                        .collect::<Result<Vec<_>>>()?;
                    cache.automations.insert(scope.clone(), found);
                }
                Sink::Automations(None) => {
                    let found = rows
                        .iter()
                        .map(|r| {
                            let (t, e): (String, String) = (get(r, 0)?, get(r, 1)?);
                            Ok((
                                Scope::private(&t, &e),
                                super::outbox::decode_automation(r, 2)?,
                            ))
                        })
                        .collect::<Result<Vec<_>>>()?;
                    cache.all_automations = Some(found);
                }
                Sink::AuthEpoch => {
                    if let Some(row) = rows.first() {
                        cache.auth_epoch = Some(get::<i64>(row, 0)? as u64);
                    }
                }
                Sink::Series(keys) => {
                    for key in keys {
                        cache.series.insert(key.clone(), Vec::new());
                    }
                    for row in &rows {
                        let key: SeriesKey =
                            (get(row, 0)?, get(row, 1)?, get(row, 2)?, get(row, 3)?);
                        let chunk = Chunk {
                            start: get(row, 4)?,
                            stop: get(row, 5)?,
                            count: get::<i64>(row, 6)? as u32,
                            payload: get(row, 7)?,
                        };
                        cache.series.entry(key).or_default().push(chunk);
                    }
                }
            }
        }
        Ok(())
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

/// Ten columns of version rows (nine, in order).
#[derive(Default)]
struct Columns9(
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<i64>,
    Vec<String>,
    Vec<chrono::DateTime<chrono::Utc>>,
    Vec<String>,
    Vec<Option<String>>,
);

impl Columns9 {
    fn params(self) -> Vec<Owned> {
        vec![
            owned(self.0),
            owned(self.1),
            owned(self.2),
            owned(self.3),
            owned(self.4),
            owned(self.5),
            owned(self.6),
            owned(self.7),
            owned(self.8),
        ]
    }
}

/// The last row of each key, in the order of those last rows.
fn last_of_each<T, K: std::hash::Hash + Eq>(rows: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut seen = HashSet::new();
    let mut out: Vec<T> = rows
        .into_iter()
        .rev()
        .filter(|r| seen.insert(key(r)))
        .collect();
    out.reverse();
    out
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
                tracing::warn!(error = %e, "rollback failed; the connection is dropped");
                conn.discard();
            }
        }
    }
}

impl ReadAhead for Tx<'_> {
    fn read_ahead(&self, what: &[Ahead<'_>]) -> Result<()> {
        let cache = self.cache.borrow();
        let mut docs: HashMap<Collection, Vec<(String, String, String)>> = HashMap::new();
        let mut scopes: Vec<(String, String)> = Vec::new();
        let mut all = false;
        let mut series: Vec<SeriesKey> = Vec::new();
        let mut types: Vec<(Collection, &Scope, &str, &[Scope])> = Vec::new();
        let mut epoch = false;
        for a in what {
            match a {
                Ahead::AuthEpoch => epoch |= self.read_only && cache.auth_epoch.is_none(),
                Ahead::TypeOf(coll, scope, id, scopes) => types.push((*coll, scope, id, scopes)),
                Ahead::Document(coll, scope, id) => {
                    let key = (
                        *coll,
                        scope.tenant.clone(),
                        scope.env.clone(),
                        id.to_string(),
                    );
                    if !cache.docs.contains_key(&key) {
                        let (_, t, e, i) = key;
                        let keys = docs.entry(*coll).or_default();
                        if !keys.contains(&(t.clone(), e.clone(), i.clone())) {
                            keys.push((t, e, i));
                        }
                    }
                }
                Ahead::Automations(Some(scope)) => {
                    let key = (scope.tenant.clone(), scope.env.clone());
                    if !cache.automations.contains_key(&key) && !scopes.contains(&key) {
                        scopes.push(key);
                    }
                }
                Ahead::Automations(None) => all |= cache.all_automations.is_none(),
                Ahead::Series(key) => {
                    let k = (
                        key.scope.tenant.clone(),
                        key.scope.env.clone(),
                        key.object.clone(),
                        key.prop.clone(),
                    );
                    if !cache.series.contains_key(&k) && !series.contains(&k) {
                        series.push(k);
                    }
                }
            }
        }
        drop(cache);
        for (coll, keys) in docs {
            let (t, e, i): (Vec<String>, Vec<String>, Vec<String>) = keys.iter().cloned().fold(
                (vec![], vec![], vec![]),
                |(mut t, mut e, mut i), (a, b, c)| {
                    t.push(a);
                    e.push(b);
                    i.push(c);
                    (t, e, i)
                },
            );
            self.defer_read(
                format!(
                    "SELECT k.t, k.e, x.* FROM unnest($1::text[], $2::text[], $3::text[]) AS k(t, e, i) \
                     CROSS JOIN LATERAL (SELECT {} FROM heads h JOIN versions v ON v.coll = h.coll \
                     AND v.tenant = h.tenant AND v.env = h.env AND v.id = h.id AND v.version = h.version \
                     WHERE h.coll = $4 AND h.tenant = k.t AND h.env = k.e AND h.id = k.i) AS x",
                    super::documents::VERSION_COLUMNS
                ),
                vec![owned(t), owned(e), owned(i), owned(coll.as_str())],
                Sink::Documents(coll, keys),
            );
        }
        if epoch {
            self.defer_read(
                "SELECT n FROM auth_epoch WHERE id = 1",
                vec![],
                Sink::AuthEpoch,
            );
        }
        for (coll, scope, id, in_scopes) in types {
            let (t, e): (Vec<String>, Vec<String>) = in_scopes
                .iter()
                .map(|s| (s.tenant.clone(), s.env.clone()))
                .unzip();
            self.defer_read(
                format!(
                    "SELECT o.type, x.* FROM heads o LEFT JOIN LATERAL (SELECT h.tenant, h.env, {} \
                     FROM unnest($5::text[], $6::text[]) AS s(t, e) JOIN heads h ON h.coll = 'type' \
                     AND h.tenant = s.t AND h.env = s.e AND h.id = o.type JOIN versions v \
                     ON v.coll = h.coll AND v.tenant = h.tenant AND v.env = h.env AND v.id = h.id \
                     AND v.version = h.version) AS x ON true \
                     WHERE o.coll = $1 AND o.tenant = $2 AND o.env = $3 AND o.id = $4",
                    super::documents::VERSION_COLUMNS
                ),
                vec![
                    owned(coll.as_str()),
                    owned(scope.tenant.clone()),
                    owned(scope.env.clone()),
                    owned(id.to_string()),
                    owned(t.clone()),
                    owned(e.clone()),
                ],
                Sink::Types(t.into_iter().zip(e).collect()),
            );
        }
        for (tenant, env) in scopes {
            self.defer_read(
                "SELECT doc FROM automations WHERE tenant = $1 AND env = $2 ORDER BY id",
                vec![owned(tenant.clone()), owned(env.clone())],
                Sink::Automations(Some((tenant, env))),
            );
        }
        if all {
            self.defer_read(
                "SELECT tenant, env, doc FROM automations ORDER BY tenant, env, id",
                vec![],
                Sink::Automations(None),
            );
        }
        if !series.is_empty() {
            let mut cols: (Vec<String>, Vec<String>, Vec<String>, Vec<String>) = Default::default();
            for (t, e, o, p) in &series {
                cols.0.push(t.clone());
                cols.1.push(e.clone());
                cols.2.push(o.clone());
                cols.3.push(p.clone());
            }
            self.defer_read(
                "SELECT k.t, k.e, k.o, k.p, c.start, c.stop, c.n, c.payload \
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS k(t, e, o, p) \
                 CROSS JOIN LATERAL (SELECT start, stop, n, payload FROM series_chunks s \
                 WHERE s.tenant = k.t AND s.env = k.e AND s.obj = k.o AND s.prop = k.p \
                 AND s.vto IS NULL ORDER BY s.start) AS c",
                vec![owned(cols.0), owned(cols.1), owned(cols.2), owned(cols.3)],
                Sink::Series(series),
            );
        }
        Ok(())
    }
}

impl Tx<'_> {
    /// The chunks of a series at `version`, from the cache, when it holds them: read ahead at
    /// the current version of the object, which the cache knows to be `version`.
    pub(super) fn cached_chunks(&self, key: &DataKey, version: u32) -> Option<Vec<Chunk>> {
        let cache = self.cache.borrow();
        let doc = (
            Collection::Object,
            key.scope.tenant.clone(),
            key.scope.env.clone(),
            key.object.clone(),
        );
        match cache.docs.get(&doc) {
            Some(Some(v)) if v.version == version => {}
            _ => return None,
        }
        cache
            .series
            .get(&(
                key.scope.tenant.clone(),
                key.scope.env.clone(),
                key.object.clone(),
                key.prop.clone(),
            ))
            .cloned()
    }
}

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
        if !keys.is_empty() {
            let column = |i: usize| -> Vec<String> {
                keys.iter()
                    .map(|k| [k.0, k.1, k.2, k.3][i].to_string())
                    .collect()
            };
            // Each key looked up by the primary key, in key order.
            self.defer(
                "SELECT 1 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) \
                 WITH ORDINALITY AS k(c, t, e, i, o) CROSS JOIN LATERAL (SELECT 1 FROM heads h \
                 WHERE h.coll = k.c AND h.tenant = k.t AND h.env = k.e AND h.id = k.i FOR UPDATE) \
                 AS locked ORDER BY k.o",
                vec![
                    owned(column(0)),
                    owned(column(1)),
                    owned(column(2)),
                    owned(column(3)),
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
        if outcome.is_err() {
            // Whether it committed is not known: a claim it made, if it did, is renewed by no
            // one and runs out.
            self.conn.get_mut().discard();
        } else if !self.claims.is_empty() {
            self.shared.claims().extend(self.claims.drain(..));
        }
        outcome
    }
}
