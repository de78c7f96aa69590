//! Reads named ahead ([`ReadAhead`]): held back with the transaction's other statements and
//! sent with the next one it needs answered, their rows kept in its cache for the reads that
//! follow (current versions of documents, the types stored documents name, automations, the
//! chunks of series at their current versions, the authentication epoch).

use super::gathered::DocKey;
use super::get;
use super::pool::{owned, Owned};
use super::tx::{SeriesKey, Sink, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{Ahead, Chunk, Collection, DataKey, ReadAhead};
use std::collections::HashMap;
use tokio_postgres::Row;

impl Tx<'_> {
    /// A read whose rows go to the cache, sent with the next statement whose answer is needed.
    pub(super) fn defer_read(&self, sql: impl Into<String>, params: Vec<Owned>, sink: Sink) {
        self.seal();
        let mut sinks = self.sinks.borrow_mut();
        let tag = sinks.len();
        sinks.push(sink);
        self.conn.borrow_mut().defer(sql.into(), params, Some(tag));
    }
}

impl Tx<'_> {
    /// Fills the cache from the rows of the reads named ahead.
    pub(super) fn absorb(&self, tagged: Vec<(usize, Vec<Row>)>) -> Result<()> {
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
                Sink::EachDocument {
                    keys,
                    locked,
                    epoch,
                    automations,
                } => {
                    let (rows, lock) = with_each_document(&mut cache, *epoch, automations, rows)?;
                    each_document(&mut cache, keys, &rows)?;
                    if let Some(at) = *locked {
                        locked_as_read(&mut cache, keys, at, lock, &rows)?;
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
}

/// Keeps what a read of [`Sink::EachDocument`] read with the documents (the rows at places
/// below 0): the epoch, and the automations of a scope in the order of their ids (as their own
/// read orders them); the documents' rows.
fn with_each_document(
    cache: &mut super::tx::TxCache,
    epoch: bool,
    automations: &Option<(String, String)>,
    rows: Vec<Row>,
) -> Result<(Vec<Row>, Option<String>)> {
    let mut docs = Vec::with_capacity(rows.len());
    let mut found: Vec<(String, String)> = Vec::new();
    let mut lock = None;
    for row in rows {
        match get::<i32>(&row, 0)? {
            LOCKED_PLACE => lock = Some(get::<String>(&row, XMIN_COLUMN)?),
            EPOCH_PLACE if epoch => cache.auth_epoch = Some(get::<i64>(&row, 4)? as u64),
            AUTOMATIONS_PLACE if automations.is_some() => {
                found.push((get(&row, 3)?, get(&row, 5)?));
            }
            _ => docs.push(row),
        }
    }
    if let Some(scope) = automations {
        found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let found = found
            .iter()
            .map(|(_, doc)| super::outbox::decode_automation_text(doc))
            .collect::<Result<Vec<_>>>()?;
        cache.automations.insert(scope.clone(), found);
    }
    Ok((docs, lock))
}

/// Keeps the version read of the document at `at` only where it is the row the statement
/// locked (`lock`, its `xmin`; none where no row was there to lock). The statement's snapshot
/// was taken before it waited for the lock: a writer that committed meanwhile left a newer row
/// (or none, or one where there was none), which the lock sees and the read does not; the
/// cache then forgets the read, and the document is read again, after the lock (a version
/// rewritten in place keeps its number, not its `xmin`).
fn locked_as_read(
    cache: &mut super::tx::TxCache,
    keys: &[DocKey],
    at: usize,
    lock: Option<String>,
    rows: &[Row],
) -> Result<()> {
    let mut read = None;
    for row in rows {
        if usize::try_from(get::<i32>(row, 0)?).ok() == Some(at) {
            read = Some(get::<String>(row, XMIN_COLUMN)?);
        }
    }
    if read != lock {
        cache.docs.remove(&keys[at]);
    }
    Ok(())
}

/// The place of the locked row's `xmin` in a read of [`Sink::EachDocument`].
const LOCKED_PLACE: i32 = -3;
/// The column of the rows' `xmin` in a read of [`Sink::EachDocument`].
const XMIN_COLUMN: usize = 10;
/// The place of the epoch's row in a read of [`Sink::EachDocument`].
const EPOCH_PLACE: i32 = -2;
/// The place of the automations' rows in a read of [`Sink::EachDocument`].
const AUTOMATIONS_PLACE: i32 = -1;

/// Keeps the rows of [`Sink::EachDocument`]: each the current version of the key at its place.
fn each_document(cache: &mut super::tx::TxCache, keys: &[DocKey], rows: &[Row]) -> Result<()> {
    for key in keys {
        cache.docs.insert(key.clone(), None);
    }
    for row in rows {
        let place = get::<i32>(row, 0)?;
        let Some(&(coll, ..)) = usize::try_from(place).ok().and_then(|p| keys.get(p)) else {
            return Err(Error::Internal(format!("a row for an unknown key {place}")));
        };
        let (t, e): (String, String) = (get(row, 1)?, get(row, 2)?);
        let v = super::documents::decode_version_at(row, 3)?;
        cache.docs.insert((coll, t, e, v.id.clone()), Some(v));
    }
    Ok(())
}

/// What a read ahead asks for that the transaction's cache does not hold yet.
#[derive(Default)]
struct Wanted<'w> {
    /// Documents by collection: (tenant, env, id).
    docs: HashMap<Collection, Vec<(String, String, String)>>,
    /// The type definitions documents name: (collection, scope and id of the document, the
    /// scopes the type is looked for in).
    types: Vec<(Collection, &'w Scope, &'w str, &'w [Scope])>,
    /// The automations of these scopes (tenant, env).
    scopes: Vec<(String, String)>,
    /// The automations of every scope.
    all: bool,
    /// The current chunks of these series.
    series: Vec<SeriesKey>,
    /// The authentication epoch.
    epoch: bool,
}

impl ReadAhead for Tx<'_> {
    fn read_ahead(&self, what: &[Ahead<'_>]) -> Result<()> {
        let mut wanted = self.wanted(what);
        if wanted.epoch {
            // Sent with the documents read below, or with the next statement answered.
            self.epoch_ahead.set(true);
        }
        let alone = self.documents_ahead(wanted.docs);
        // The documents read one by one, the epoch and one scope's automations: one statement.
        if !alone.is_empty() && !wanted.scopes.is_empty() {
            let scope = wanted.scopes.remove(0);
            self.each_document_ahead(alone, Some(scope));
        } else {
            self.each_document_ahead(alone, None);
        }
        self.types_ahead(wanted.types);
        self.automations_ahead(wanted.scopes, wanted.all);
        self.series_ahead(wanted.series);
        Ok(())
    }
}

impl Tx<'_> {
    /// What of `what` the cache does not hold, each asked once.
    fn wanted<'w>(&self, what: &'w [Ahead<'w>]) -> Wanted<'w> {
        let cache = self.cache.borrow();
        let mut wanted = Wanted::default();
        for a in what {
            match a {
                Ahead::AuthEpoch => {
                    wanted.epoch |= cache.auth_epoch.is_none() && !self.epoch_ahead.get()
                }
                Ahead::TypeOf(coll, scope, id, scopes) => {
                    wanted.types.push((*coll, scope, id, scopes))
                }
                Ahead::Document(coll, scope, id) => {
                    let key = (
                        *coll,
                        scope.tenant.clone(),
                        scope.env.clone(),
                        id.to_string(),
                    );
                    if !cache.docs.contains_key(&key) {
                        let (_, t, e, i) = key;
                        let keys = wanted.docs.entry(*coll).or_default();
                        if !keys.contains(&(t.clone(), e.clone(), i.clone())) {
                            keys.push((t, e, i));
                        }
                    }
                }
                Ahead::Automations(Some(scope)) => {
                    let key = (scope.tenant.clone(), scope.env.clone());
                    if !cache.automations.contains_key(&key) && !wanted.scopes.contains(&key) {
                        wanted.scopes.push(key);
                    }
                }
                Ahead::Automations(None) => wanted.all |= cache.all_automations.is_none(),
                Ahead::Series(key) => {
                    let k = (
                        key.scope.tenant.clone(),
                        key.scope.env.clone(),
                        key.object.clone(),
                        key.prop.clone(),
                    );
                    if !cache.series.contains_key(&k) && !wanted.series.contains(&k) {
                        wanted.series.push(k);
                    }
                }
            }
        }
        wanted
    }

    /// Current versions of documents. The documents of one id in their collection and scope
    /// (a save's document and its type, say) are read by one statement together, each by
    /// equalities on the primary key (the one plan the planner makes of it, statistics or
    /// not, is kept for every call); several ids of one collection and scope by a statement
    /// of their own, a look-up of each (planned for its ids: with an array of unknown length,
    /// and without statistics yet, the planner may read a whole scope). Answers the keys of
    /// the former, for [`Tx::each_document_ahead`] (which may add other reads to their
    /// statement).
    fn documents_ahead(
        &self,
        docs: HashMap<Collection, Vec<(String, String, String)>>,
    ) -> Vec<DocKey> {
        let mut alone: Vec<DocKey> = Vec::new();
        let mut docs: Vec<_> = docs.into_iter().collect();
        docs.sort_by_key(|(coll, _)| coll.as_str());
        for (coll, keys) in docs {
            for ((tenant, env), ids) in by_scope(keys.iter().map(|(t, e, i)| (t, e, i.clone()))) {
                if let [one] = ids.as_slice() {
                    alone.push((coll, tenant, env, one.clone()));
                    continue;
                }
                let id = owned(ids.clone());
                self.defer_read(
                    format!(
                        "SELECT $2::text, $3::text, {} FROM heads h {} \
                         WHERE h.scope = {} AND h.id IN (SELECT unnest($4::text[]))",
                        super::documents::CURRENT_COLUMNS,
                        super::documents::VERSION_OF_HEAD,
                        super::scopes::KEY_OF_PARAMS
                    ),
                    vec![
                        owned(coll.as_str()),
                        owned(tenant.clone()),
                        owned(env.clone()),
                        id,
                    ],
                    Sink::Documents(
                        coll,
                        ids.into_iter()
                            .map(|i| (tenant.clone(), env.clone(), i))
                            .collect(),
                    ),
                );
            }
        }
        alone
    }

    /// The current versions of documents of one id each: one statement, a part for each; with
    /// them the epoch, when named ahead and not sent yet, and the automations of `automations`.
    fn each_document_ahead(&self, keys: Vec<DocKey>, automations: Option<(String, String)>) {
        if keys.is_empty() {
            return;
        }
        let mut parts = Vec::with_capacity(keys.len() + 3);
        let mut params = Vec::with_capacity(keys.len() * 4 + 6);
        // The row lock of one of them, held back: taken by this statement first (a part that
        // reads the locked row's `xmin`; the parts that read the documents see the statement's
        // snapshot, taken before any wait for the lock, and the two are compared in `absorb`).
        let held = self.lock_ahead.borrow_mut().take_if(|k| keys.contains(k));
        let locked = held
            .as_ref()
            .and_then(|k| keys.iter().position(|key| key == k));
        let mut with = String::new();
        if let Some((coll, tenant, env, id)) = &held {
            with = "WITH locked AS MATERIALIZED (SELECT h.xmin::text AS xmin FROM heads h \
                    WHERE h.scope = (SELECT key FROM scopes WHERE coll = $1 AND tenant = $2 \
                    AND env = $3) AND h.id = $4 FOR UPDATE) "
                .to_string();
            parts.push(format!(
                "SELECT {LOCKED_PLACE}::integer, NULL::text, NULL::text, NULL::text, NULL::bigint, \
                 NULL::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text[], xmin \
                 FROM locked"
            ));
            params.extend([
                owned(coll.as_str()),
                owned(tenant.clone()),
                owned(env.clone()),
                owned(id.clone()),
            ]);
        }
        let epoch = self.epoch_ahead.take();
        if epoch {
            parts.push(format!(
                "SELECT {EPOCH_PLACE}::integer, NULL::text, NULL::text, NULL::text, n::bigint, \
                 NULL::text, NULL::timestamptz, NULL::text, NULL::text, NULL::text[], NULL::text \
                 FROM auth_epoch WHERE id = 1"
            ));
        }
        if let Some((tenant, env)) = &automations {
            let (t, e) = (params.len() + 1, params.len() + 2);
            parts.push(format!(
                "SELECT {AUTOMATIONS_PLACE}::integer, ${t}::text, ${e}::text, a.id::text, \
                 NULL::bigint, a.doc, NULL::timestamptz, NULL::text, NULL::text, NULL::text[], \
                 NULL::text FROM automations a WHERE a.tenant = ${t} AND a.env = ${e}"
            ));
            params.extend([owned(tenant.clone()), owned(env.clone())]);
        }
        for (place, (coll, tenant, env, id)) in keys.iter().enumerate() {
            let n = params.len();
            parts.push(format!(
                "SELECT {place}::integer, ${t}::text, ${e}::text, {}, h.xmin::text FROM heads h \
                 {} WHERE h.scope = (SELECT key FROM scopes WHERE coll = ${c} AND tenant = ${t} \
                 AND env = ${e}) AND h.id = ${i}",
                super::documents::CURRENT_COLUMNS,
                super::documents::VERSION_OF_HEAD,
                c = n + 1,
                t = n + 2,
                e = n + 3,
                i = n + 4,
            ));
            params.extend([
                owned(coll.as_str()),
                owned(tenant.clone()),
                owned(env.clone()),
                owned(id.clone()),
            ]);
        }
        self.defer_read(
            with + parts.join(" UNION ALL ").as_str(),
            params,
            Sink::EachDocument {
                keys,
                locked,
                epoch,
                automations,
            },
        );
    }

    /// The types the stored documents name, one statement per collection and scope of the
    /// documents and per set of scopes the types are looked for in.
    fn types_ahead(&self, types: Vec<(Collection, &Scope, &str, &[Scope])>) {
        let mut named: HashMap<(Collection, &Scope, &[Scope]), Vec<String>> = HashMap::new();
        for (coll, scope, id, in_scopes) in types {
            let ids = named.entry((coll, scope, in_scopes)).or_default();
            if !ids.iter().any(|i| i == id) {
                ids.push(id.to_string());
            }
        }
        for ((coll, scope, in_scopes), ids) in named {
            let (which, id) = match ids.as_slice() {
                [one] => ("o.id = $4", owned(one.clone())),
                _ => ("o.id IN (SELECT unnest($4::text[]))", owned(ids)),
            };
            let mut params = vec![
                owned(coll.as_str()),
                owned(scope.tenant.clone()),
                owned(scope.env.clone()),
                id,
            ];
            let mut places = Vec::new();
            for s in in_scopes {
                let n = params.len();
                places.push(format!("(s.tenant = ${} AND s.env = ${})", n + 1, n + 2));
                params.push(owned(s.tenant.clone()));
                params.push(owned(s.env.clone()));
            }
            let places = if places.is_empty() {
                "false".to_string()
            } else {
                places.join(" OR ")
            };
            self.defer_read(
                format!(
                    "SELECT o.type, x.* FROM heads o LEFT JOIN LATERAL (SELECT s.tenant, s.env, {} \
                     FROM scopes s JOIN heads h ON h.scope = s.key {} \
                     WHERE s.coll = 'type' AND h.id = o.type AND ({places})) AS x ON true \
                     WHERE o.scope = {} AND {which}",
                    super::documents::CURRENT_COLUMNS,
                    super::documents::VERSION_OF_HEAD,
                    super::scopes::KEY_OF_PARAMS
                ),
                params,
                Sink::Types(
                    in_scopes
                        .iter()
                        .map(|s| (s.tenant.clone(), s.env.clone()))
                        .collect(),
                ),
            );
        }
    }

    /// The automations of some scopes, and (`all`) of every scope.
    fn automations_ahead(&self, scopes: Vec<(String, String)>, all: bool) {
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
    }

    /// The current chunks of the series, one statement per scope (for one series,
    /// equalities on the index of current chunks; for several, a look-up of each).
    fn series_ahead(&self, series: Vec<SeriesKey>) {
        for ((tenant, env), pairs) in by_scope(series.iter().map(|(t, e, o, p)| (t, e, (o, p)))) {
            let (objects, props): (Vec<String>, Vec<String>) = pairs
                .iter()
                .map(|(o, p)| ((*o).clone(), (*p).clone()))
                .unzip();
            let keys: Vec<SeriesKey> = pairs
                .into_iter()
                .map(|(o, p)| (tenant.clone(), env.clone(), o.clone(), p.clone()))
                .collect();
            let sql = match objects.len() {
                1 => "SELECT tenant, env, obj, prop, start, stop, n, payload FROM series_chunks \
                      WHERE tenant = $1 AND env = $2 AND obj = ($3::text[])[1] AND prop = ($4::text[])[1] \
                      AND vto IS NULL ORDER BY start",
                _ => "SELECT s.tenant, s.env, s.obj, s.prop, s.start, s.stop, s.n, s.payload \
                      FROM unnest($3::text[], $4::text[]) AS k(o, p) CROSS JOIN LATERAL \
                      (SELECT * FROM series_chunks c WHERE c.tenant = $1 AND c.env = $2 \
                      AND c.obj = k.o AND c.prop = k.p AND c.vto IS NULL ORDER BY c.start) AS s",
            };
            self.defer_read(
                sql,
                vec![owned(tenant), owned(env), owned(objects), owned(props)],
                Sink::Series(keys),
            );
        }
    }
}

impl Tx<'_> {
    /// The chunks of a series at `version`, from the cache, when it holds them: read ahead at
    /// the current version of the object, which the cache knows to be `version`.
    pub(super) fn cached_chunks(&self, key: &DataKey, version: u32) -> Result<Option<Vec<Chunk>>> {
        let wanted = (
            key.scope.tenant.clone(),
            key.scope.env.clone(),
            key.object.clone(),
            key.prop.clone(),
        );
        self.settle(|sink| matches!(sink, Sink::Series(keys) if keys.contains(&wanted)))?;
        let cache = self.cache.borrow();
        let doc = (
            Collection::Object,
            key.scope.tenant.clone(),
            key.scope.env.clone(),
            key.object.clone(),
        );
        match cache.docs.get(&doc) {
            Some(Some(v)) if v.version == version => {}
            _ => return Ok(None),
        }
        Ok(cache
            .series
            .get(&(
                key.scope.tenant.clone(),
                key.scope.env.clone(),
                key.object.clone(),
                key.prop.clone(),
            ))
            .cloned())
    }
}

/// Items grouped by their scope (tenant and environment), each group in the order met.
fn by_scope<'k, T: Clone>(
    items: impl Iterator<Item = (&'k String, &'k String, T)>,
) -> Vec<((String, String), Vec<T>)> {
    let mut groups: Vec<((String, String), Vec<T>)> = Vec::new();
    for (t, e, item) in items {
        match groups.iter_mut().find(|((gt, ge), _)| gt == t && ge == e) {
            Some((_, list)) => list.push(item),
            None => groups.push(((t.clone(), e.clone()), vec![item])),
        }
    }
    groups
}
