//! Versioned documents: `versions` (every version), `heads` (the current one, with a JSONB copy
//! of its body and system fields for filters, and folded search text) and `tags`.

use super::{json_text, sql, time_text, Db, Tx};
use crate::clock::parse_instant;
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::query::{Cursor, Filter, ListQuery};
use crate::store::{
    type_index_name, type_index_prefix, Collection, DocumentRead, DocumentWrite, FieldHeader,
    FieldKind, Page, Printed, PrintedVersion, StoredVersion,
};
use chrono::{DateTime, Utc};
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{params, OptionalExtension};
use serde_json::{Map, Value};

/// The WHERE clause selecting current documents of a collection in some scopes that match a
/// filter, with its arguments; `None` when no scope is given (nothing can match).
fn where_clause(
    coll: Collection,
    scopes: &[Scope],
    filter: &Filter,
) -> Option<(String, Vec<SqlValue>)> {
    where_clauses(coll, scopes, filter).map(|(clause, _, args)| (clause, args))
}

/// [`where_clause`], and beside it the clause of the documents the filter is read over: the
/// collection, the scopes and, for a list of one type, the type (the same arguments).
fn where_clauses(
    coll: Collection,
    scopes: &[Scope],
    filter: &Filter,
) -> Option<(String, String, Vec<SqlValue>)> {
    if scopes.is_empty() {
        return None;
    }
    let mut sb = sql::SqlBuilder::new(&sql::HEADS, Vec::new());
    // The collection is written in the statement, as a per-type index's WHERE says it.
    let c = sql::quote(coll.as_str());
    // Several scopes as one row-value list, which SQLite reads scope by scope through the
    // keys (an OR of scopes it would read as a scan of the collection of every tenant).
    let scope_sql = match scopes {
        [one] => format!(
            "h.tenant = {} AND h.env = {}",
            sb.bind(one.tenant.clone()),
            sb.bind(one.env.clone())
        ),
        many => {
            let pairs: Vec<String> = many
                .iter()
                .map(|s| {
                    format!(
                        "({}, {})",
                        sb.bind(s.tenant.clone()),
                        sb.bind(s.env.clone())
                    )
                })
                .collect();
            format!("(h.tenant, h.env) IN (VALUES {})", pairs.join(", "))
        }
    };
    let mut clause = format!("h.coll = {c} AND ({scope_sql})");
    let mut base = clause.clone();
    if !filter.is_all() {
        clause.push_str(" AND ");
        clause.push_str(&sb.filter(filter));
    }
    // A list of one type (a top-level `_type`) is what a per-type index can serve.
    if coll == Collection::Object && one_type(filter).is_some() {
        for term in sb.index_terms(filter) {
            clause.push_str(" AND ");
            clause.push_str(&term);
        }
    }
    // The type as the statement writes it (a type with a NUL would be bound: an argument the
    // clause does not have, so the base reads every type then).
    if let Some(one @ Filter::TypeIn(types)) = one_type(filter) {
        if !types[0].contains('\0') {
            base.push_str(" AND ");
            base.push_str(&sb.filter(one));
        }
    }
    Some((clause, base, sb.args))
}

/// The top-level `_type` condition of a filter of one type.
fn one_type(filter: &Filter) -> Option<&Filter> {
    let parts: &[Filter] = match filter {
        Filter::And(parts) => parts,
        other => std::slice::from_ref(other),
    };
    parts
        .iter()
        .find(|p| matches!(p, Filter::TypeIn(types) if types.len() == 1))
}

/// The statements of a list: its count, and its page (with their arguments), and the WHERE
/// clause of the count (with the count's arguments) for the capped and sampled counts.
pub(super) struct ListStatements {
    pub(super) count: (String, Vec<SqlValue>),
    pub(super) page: (String, Vec<SqlValue>),
    pub(super) filter: String,
    /// The WHERE clause of the documents the list reads (its scopes, and its one type), with
    /// the count's arguments.
    pub(super) base: String,
    /// For a filtered first page in id order: the page read from the first
    /// [`PROBE_ROWS`] documents of the list's scopes and type in id order (same arguments as
    /// `page`); see [`list_statements`].
    pub(super) probe: Option<String>,
}

/// The documents a probe reads (see [`ListStatements::probe`]).
pub(super) const PROBE_ROWS: u64 = 10_000;

/// The statements of a list; `None` when no scope is given.
pub(super) fn list_statements(
    coll: Collection,
    scopes: &[Scope],
    query: &ListQuery,
    after: Option<&Cursor>,
) -> Option<ListStatements> {
    let (filter, base, args) = where_clauses(coll, scopes, &query.filter)?;
    let count = (
        format!("SELECT count(*) FROM heads h WHERE {filter}"),
        args.clone(),
    );
    let (count_filter, count_base) = (filter.clone(), base.clone());
    let mut sb = sql::SqlBuilder::new(&sql::HEADS, args);
    let (filter, base) = match after {
        Some(cursor) => {
            let after = sb.after(&query.sort, cursor);
            (
                format!("{filter} AND {after}"),
                format!("{base} AND {after}"),
            )
        }
        None => (filter, base),
    };
    let order = sb.order_by(&query.sort);
    let limit = query.paging.limit.map_or(-1, |l| l as i64);
    let skip = query.paging.skip;
    let page = |from: &str| {
        format!(
            "SELECT {VERSION_COLUMNS} FROM (SELECT h.coll, h.tenant, h.env, h.id, h.version FROM {from} \
             WHERE {filter} ORDER BY {order} LIMIT {limit} OFFSET {skip}) h JOIN versions v ON v.coll = h.coll \
             AND v.tenant = h.tenant AND v.env = h.env AND v.id = h.id AND v.version = h.version"
        )
    };
    // A first page in id order, filtered past the type: where many documents match, the
    // page is among the first documents in id order, read by the primary key (or the type's
    // index); the planner, which knows nothing of how many match, would rather read the
    // index of a filtered field, all of its matches, and sort them.
    let filtered = crate::query::total::filters_past_type(&query.filter);
    // (One scope: the documents of several are not kept in one id order.)
    let probe = (query.sort.0.is_empty()
        && filtered
        && scopes.len() == 1
        && limit > 0
        && (skip + limit as u64) * 4 <= PROBE_ROWS)
        .then(|| {
            page(&format!(
                "(SELECT * FROM heads h WHERE {base} ORDER BY h.id LIMIT {PROBE_ROWS}) h"
            ))
        });
    Some(ListStatements {
        count,
        page: (page("heads h"), sb.args),
        filter: count_filter,
        base: count_base,
        probe,
    })
}

/// The count of a list's matches up to `n` (it stops at the `n`th), from its WHERE clause.
pub(super) fn capped_count(filter: &str, n: u64) -> String {
    format!("SELECT count(*) FROM (SELECT 1 FROM heads h WHERE {filter} LIMIT {n})")
}

/// The documents a list reads in one of its scopes among those of sample buckets `lo..hi`,
/// and the matches among them, from its WHERE clauses (`filter`, and `base`: its scopes and
/// type); the scope's tenant, its environment, `lo` and `hi` are the arguments numbered from
/// `first_arg`. It reads the sample index whatever other index the filter could use: the
/// sample is a range of buckets in the scope, the same share of its documents at any size.
pub(super) fn sampled_count(filter: &str, base: &str, first_arg: usize) -> String {
    let (t, e, lo, hi) = (first_arg, first_arg + 1, first_arg + 2, first_arg + 3);
    format!(
        "SELECT count(*), coalesce(sum(CASE WHEN {filter} THEN 1 ELSE 0 END), 0) FROM heads h \
         INDEXED BY heads_sample WHERE {base} AND h.tenant = ?{t} AND h.env = ?{e} \
         AND h.bucket >= ?{lo} AND h.bucket < ?{hi}"
    )
}

/// The filterable copy of a version's body in `heads`: the body as JSONB. The version's
/// system fields are columns beside it (`version`, `timestamp`, `user`, `tags`, and `id` for
/// `_oid`), which filters and sorts read as `sql::doc_of` says. Reads `v`, a row of
/// `versions`.
const HEAD_BODY: &str = "jsonb(v.body)";

/// The `type` column of a current row, as `coalesce(json_extract(body, '$._type'), '')` gives
/// it from the body's text (a save checks that `_type` is text; other values as SQLite would
/// store them in the text column).
fn type_column(body: &Map<String, Value>) -> String {
    match body.get("_type") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(t)) => t.clone(),
        Some(Value::Bool(b)) => u8::from(*b).to_string(),
        Some(other) => other.to_string(),
    }
}

/// The tags of the version of `row` (a row with `coll tenant env id version`) as a JSON array
/// in tag order, NULL for none: the `tags` of a current row.
macro_rules! tags_of {
    ($row:literal) => {
        concat!(
            "nullif((SELECT json_group_array(tag) FROM (SELECT t.tag FROM tags t WHERE t.coll = ",
            $row,
            ".coll AND t.tenant = ",
            $row,
            ".tenant AND t.env = ",
            $row,
            ".env AND t.id = ",
            $row,
            ".id AND t.version = ",
            $row,
            ".version ORDER BY t.tag)), '[]')"
        )
    };
}

/// The body of a current row's version as text. Reads `h`, a row of `heads`.
macro_rules! body_of_head {
    () => {
        "json(h.body)"
    };
}
const BODY_OF_HEAD: &str = body_of_head!();

/// A version row's columns as [`row_to_version`] reads them. The current version's body is
/// kept once, in its current row (its `versions.body` is empty text, never valid JSON): read
/// from there.
const VERSION_COLUMNS: &str = concat!(
    "v.id, v.version, CASE WHEN v.body <> '' THEN v.body ELSE (SELECT ",
    body_of_head!(),
    " FROM heads h WHERE h.coll = v.coll AND h.tenant = v.tenant AND h.env = v.env \
     AND h.id = v.id AND h.version = v.version) END, v.timestamp, v.user, v.reason, \
     (SELECT json_group_array(tag) FROM (SELECT t.tag FROM tags t WHERE t.coll = v.coll \
      AND t.tenant = v.tenant AND t.env = v.env AND t.id = v.id AND t.version = v.version ORDER BY t.tag))"
);

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

/// The current version of a document from its current row alone: the row keeps the body as
/// JSONB, and the version's time, author, tags and reason beside it. One statement (one b-tree
/// descent), on a connection outside a transaction or in a read transaction.
pub(super) fn current_from_head(
    conn: &rusqlite::Connection,
    coll: Collection,
    scope: &Scope,
    id: &str,
    midway: bool,
) -> Result<Option<StoredVersion>> {
    current_fields_from_head(conn, coll, scope, id, midway, None)
}

/// [`current_from_head`], the body's fields only those named in `fields` where given.
pub(super) fn current_fields_from_head(
    conn: &rusqlite::Connection,
    coll: Collection,
    scope: &Scope,
    id: &str,
    midway: bool,
    fields: Option<&[&str]>,
) -> Result<Option<StoredVersion>> {
    // The body is read from its JSONB (`super::jsonb`); a form that reader leaves alone comes
    // back as bytes for SQLite's `json()` to print.
    let read = |blob: &[u8]| match fields {
        None => super::jsonb::to_map(blob),
        Some(fields) => super::jsonb::to_map_fields(blob, fields),
    };
    let Some(row) = read_head(conn, coll, scope, id, midway, read)? else {
        return Ok(None);
    };
    let version = row.version;
    let what = || format!("the current row of {id} (v{version})");
    let (timestamp, tags) = row.meta(id)?;
    let body: Map<String, Value> = match row.body {
        Ok(map) => map,
        Err(stored) => {
            let text: String = conn
                .prepare_cached("SELECT json(?1)")
                .db()?
                .query_row([stored], |r| r.get(0))
                .db()?;
            let mut body: Map<String, Value> = serde_json::from_str(&text)
                .map_err(|e| Error::caused(format!("{} is not a JSON object", what()), e))?;
            if let Some(fields) = fields {
                body.retain(|k, _| fields.contains(&k.as_str()));
            }
            body
        }
    };
    Ok(Some(StoredVersion {
        timestamp,
        id: id.to_string(),
        version,
        body,
        user: row.user,
        reason: row.reason,
        tags,
    }))
}

/// [`DocumentRead::current_printed`] from a current row: its JSONB printed as the map
/// [`current_from_head`] reads of it would be (`super::jsonb::print_object`).
#[allow(clippy::too_many_arguments)]
pub(super) fn printed_from_head(
    conn: &rusqlite::Connection,
    coll: Collection,
    scope: &Scope,
    id: &str,
    midway: bool,
    omit: &[&str],
    refuse: &[&str],
    hide: &dyn Fn(FieldHeader<'_>) -> bool,
) -> Result<Printed> {
    let print = |blob: &[u8]| {
        let mut open = Vec::with_capacity(blob.len() + 256);
        super::jsonb::print_object(blob, omit, refuse, hide, &mut open).map(|f| (open, f))
    };
    let Some(row) = read_head(conn, coll, scope, id, midway, print)? else {
        return Ok(Printed::Missing);
    };
    let (timestamp, tags) = row.meta(id)?;
    let Ok((open, has_id)) = row.body else {
        return Ok(Printed::Unprintable);
    };
    Ok(Printed::Version(PrintedVersion {
        open,
        has_id,
        id: id.to_string(),
        version: row.version,
        timestamp,
        user: row.user,
        reason: row.reason,
        tags,
    }))
}

/// The current row of a document, its body as `body` makes it of the JSONB (or its bytes,
/// where `body` leaves it or it is no blob). Midway through a write, a current row whose
/// version was just deleted (until `set_current` moves it) is no current version.
fn read_head<B>(
    conn: &rusqlite::Connection,
    coll: Collection,
    scope: &Scope,
    id: &str,
    midway: bool,
    body: impl Fn(&[u8]) -> Option<B>,
) -> Result<Option<HeadRow<B>>> {
    macro_rules! head_row {
        () => {
            "SELECT h.version, h.body, h.reason, h.timestamp, h.user, h.tags FROM heads h \
             WHERE h.coll = ?1 AND h.tenant = ?2 AND h.env = ?3 AND h.id = ?4"
        };
    }
    let sql = if midway {
        concat!(
            head_row!(),
            " AND EXISTS (SELECT 1 FROM versions v WHERE v.coll = h.coll AND v.tenant = h.tenant \
             AND v.env = h.env AND v.id = h.id AND v.version = h.version)"
        )
    } else {
        head_row!()
    };
    conn.prepare_cached(sql)
        .db()?
        .query_row(params![coll.as_str(), scope.tenant, scope.env, id], |r| {
            let body = match r.get_ref(1)? {
                ValueRef::Blob(b) => body(b).ok_or_else(|| b.to_vec()),
                other => Err(other.as_bytes()?.to_vec()),
            };
            Ok(HeadRow {
                version: r.get(0)?,
                body,
                reason: r.get(2)?,
                timestamp: r.get(3)?,
                user: r.get(4)?,
                tags: r.get(5)?,
            })
        })
        .optional()
        .db()
}

/// A current row as [`read_head`] reads it.
struct HeadRow<B> {
    version: u32,
    body: std::result::Result<B, Vec<u8>>,
    reason: Option<String>,
    timestamp: String,
    user: String,
    tags: Option<String>,
}

impl<B> HeadRow<B> {
    /// The row's time and tags, read from their columns.
    fn meta(&self, id: &str) -> Result<(DateTime<Utc>, Vec<String>)> {
        let what = || format!("the current row of {id} (v{})", self.version);
        let tags: Vec<String> = match &self.tags {
            None => Vec::new(),
            Some(tags) => serde_json::from_str(tags)
                .map_err(|e| Error::caused(format!("{} has tags {tags}", what()), e))?,
        };
        let timestamp = parse_instant(&self.timestamp)
            .map_err(|e| Error::caused(format!("{} has time \"{}\"", what(), self.timestamp), e))?;
        Ok((timestamp, tags))
    }
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
    // (The row's name is only written out for an error.)
    let what = || format!("{id} v{version}");
    let body: Map<String, Value> = serde_json::from_str(&body)
        .map_err(|e| Error::caused(format!("stored body of {} is not a JSON object", what()), e))?;
    // Most versions carry no tag.
    let tags: Vec<String> = if tags == "[]" {
        Vec::new()
    } else {
        serde_json::from_str(&tags)
            .map_err(|e| Error::caused(format!("stored tags of {}", what()), e))?
    };
    Ok(StoredVersion {
        timestamp: parse_instant(&timestamp)
            .map_err(|e| Error::caused(format!("stored time of {} \"{timestamp}\"", what()), e))?,
        id,
        version,
        body,
        user,
        reason,
        tags,
    })
}

impl Tx<'_> {
    /// `SELECT DISTINCT <rest>` over the current documents, where `{p}` in `rest` stands for the
    /// bound JSON path of `path` and `{b}` for the document it is read from (`sql::doc_of`);
    /// the first column as text.
    fn distinct_strings(&self, args: Vec<SqlValue>, path: &str, rest: &str) -> Result<Vec<String>> {
        let mut sb = sql::SqlBuilder::new(&sql::HEADS, args);
        let p = sb.bind(sql::json_path(path));
        let b = sql::doc_of(&sql::HEADS, path);
        let sql = format!(
            "SELECT DISTINCT {}",
            rest.replace("{p}", &p).replace("{b}", &b)
        );
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

impl Tx<'_> {
    /// Rewrites the tags of a document's current row after its tags moved (a head whose
    /// version was just deleted is left to `set_current`).
    fn refresh_head(&mut self, coll: Collection, scope: &Scope, id: &str) -> Result<()> {
        self.conn
            .prepare_cached(concat!(
                "UPDATE heads SET tags = ",
                tags_of!("heads"),
                " \
                 WHERE coll = ?1 AND tenant = ?2 AND env = ?3 AND id = ?4 AND EXISTS (SELECT 1 \
                 FROM versions v WHERE v.coll = heads.coll AND v.tenant = heads.tenant \
                 AND v.env = heads.env AND v.id = heads.id AND v.version = heads.version)"
            ))
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, id])
            .db()?;
        Ok(())
    }

    /// The current version of a document as the store holds it (`current` keeps the type
    /// definitions read).
    fn current_uncached(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
    ) -> Result<Option<StoredVersion>> {
        // The current row holds the current version whole (its tags kept in step by every
        // write of them): it is read alone. A write may be midway (a current row whose version
        // it just deleted), so there the version's row is checked to exist.
        current_from_head(&self.conn, coll, scope, id, self.store.is_some())
    }

    /// Forgets the type definitions read, after a write to `coll` (see `Tx::type_defs`).
    fn wrote(&mut self, coll: Collection) {
        if coll == Collection::Type {
            self.type_defs.get_mut().clear();
        }
    }

    /// The version current until now takes its body back from the current row (before the
    /// row changes or goes).
    fn restore_current_body(&mut self, coll: Collection, scope: &Scope, id: &str) -> Result<()> {
        self.conn
            .prepare_cached(&format!(
                "UPDATE versions SET body = (SELECT {BODY_OF_HEAD} FROM heads h WHERE h.coll = versions.coll \
                 AND h.tenant = versions.tenant AND h.env = versions.env AND h.id = versions.id \
                 AND h.version = versions.version) \
                 WHERE coll = ?1 AND tenant = ?2 AND env = ?3 AND id = ?4 AND body = ''"
            ))
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, id])
            .db()?;
        Ok(())
    }
}

impl DocumentRead for Tx<'_> {
    fn current(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Option<StoredVersion>> {
        if coll != Collection::Type {
            return self.current_uncached(coll, scope, id);
        }
        let key = (scope.tenant.clone(), scope.env.clone(), id.to_string());
        if let Some(known) = self.type_defs.borrow().get(&key) {
            return Ok(known.clone());
        }
        let def = self.current_uncached(coll, scope, id)?;
        self.type_defs.borrow_mut().insert(key, def.clone());
        Ok(def)
    }

    fn current_fields(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        fields: &[&str],
    ) -> Result<Option<StoredVersion>> {
        let midway = self.store.is_some();
        current_fields_from_head(&self.conn, coll, scope, id, midway, Some(fields))
    }

    fn current_printed(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        omit: &[&str],
        refuse: &[&str],
        hide: &dyn Fn(FieldHeader<'_>) -> bool,
    ) -> Result<Printed> {
        let midway = self.store.is_some();
        printed_from_head(&self.conn, coll, scope, id, midway, omit, refuse, hide)
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

    fn list_after(
        &self,
        coll: Collection,
        scopes: &[Scope],
        query: &ListQuery,
        after: Option<&Cursor>,
    ) -> Result<Page<StoredVersion>> {
        let Some(statements) = list_statements(coll, scopes, query, after) else {
            return Ok(Page {
                items: Vec::new(),
                total: 0,
                estimated: false,
            });
        };
        let (count, args) = &statements.count;
        let count_of = |sql: &str| -> Result<u64> {
            self.conn
                .prepare_cached(sql)
                .db()?
                .query_row(rusqlite::params_from_iter(args.iter()), |r| r.get(0))
                .db()
        };
        let (filter, base) = (&statements.filter, &statements.base);
        let sample = sampled_count(filter, base, args.len() + 1);
        let (total, estimated) = crate::query::total::list_total(
            query.total,
            crate::query::total::filters_past_type(&query.filter),
            || count_of(count),
            |n| count_of(&capped_count(filter, n)),
            // Scope by scope: each is one range of the sample index.
            |lo, hi| {
                let mut stmt = self.conn.prepare_cached(&sample).db()?;
                let (mut rows, mut matches) = (0, 0);
                for scope in scopes {
                    let more = [
                        SqlValue::Text(scope.tenant.clone()),
                        SqlValue::Text(scope.env.clone()),
                        SqlValue::Integer(lo.into()),
                        SqlValue::Integer(hi.into()),
                    ];
                    let (r, m): (u64, u64) = stmt
                        .query_row(
                            rusqlite::params_from_iter(args.iter().chain(more.iter())),
                            |r| Ok((r.get(0)?, r.get(1)?)),
                        )
                        .db()?;
                    rows += r;
                    matches += m;
                }
                Ok((rows, matches))
            },
        )?;
        let (sql, args) = statements.page;
        let read = |sql: &str| -> Result<Vec<StoredVersion>> {
            let mut stmt = self.conn.prepare_cached(sql).db()?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(args.iter()), row_to_version)
                .db()?;
            rows.map(|r| r.db().and_then(decode_version)).collect()
        };
        // Past the threshold of exact totals the matches are many: the probe finds the page
        // among the first documents unless they hold too few matches; then the page is read
        // the planner's way.
        let want = query.paging.limit.unwrap_or(u64::MAX);
        let probed = match &statements.probe {
            Some(probe) if estimated => Some(read(probe)?),
            _ => None,
        };
        let items = match probed {
            Some(items) if items.len() as u64 >= want => items,
            _ => read(&sql)?,
        };
        // An estimate is never below what the page shows there is.
        let total = if estimated {
            total.max(query.paging.skip + items.len() as u64)
        } else {
            total
        };
        Ok(Page {
            items,
            total,
            estimated,
        })
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
            &format!("{{b}} ->> {{p}} FROM heads h WHERE {filter} AND json_type({{b}}, {{p}}) = 'text' ORDER BY 1"),
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
        // Two index range scans per scope: folded ids (the id where it is its own folding),
        // then folded names. Id matches come first, each group in folded order.
        let limit = limit.map_or(-1, |l| l as i64);
        let mut out: Vec<(String, Option<String>)> = Vec::new();
        for (key, index) in [
            ("coalesce(h.id_fold, h.id)", "heads_id_fold"),
            ("h.name_fold", "heads_name_fold"),
        ] {
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
                    "SELECT {key}, h.id, h.body ->> '$.name' FROM heads h INDEXED BY {index} \
                     WHERE {clause} AND {key} >= {lo} AND {key} < {hi} ORDER BY {key} LIMIT {limit}"
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

    fn field_kinds(
        &self,
        coll: Collection,
        scopes: &[Scope],
        path: &str,
    ) -> Result<Vec<FieldKind>> {
        let Some((filter, args)) = where_clause(coll, scopes, &Filter::all()) else {
            return Ok(Vec::new());
        };
        let names = self.distinct_strings(
            args,
            path,
            &format!("json_type({{b}}, {{p}}) FROM heads h WHERE {filter} AND json_type({{b}}, {{p}}) IS NOT NULL"),
        )?;
        let mut kinds: Vec<FieldKind> = names
            .iter()
            .map(|name| match name.as_str() {
                "null" => Ok(FieldKind::Null),
                "true" | "false" => Ok(FieldKind::Bool),
                "integer" => Ok(FieldKind::Integer),
                "real" => Ok(FieldKind::Real),
                "text" => Ok(FieldKind::Text),
                "array" => Ok(FieldKind::Array),
                "object" => Ok(FieldKind::Object),
                other => Err(Error::Internal(format!("json_type answered \"{other}\""))),
            })
            .collect::<Result<_>>()?;
        kinds.sort();
        kinds.dedup();
        Ok(kinds)
    }
}

impl DocumentWrite for Tx<'_> {
    fn put_version(&mut self, coll: Collection, scope: &Scope, v: &StoredVersion) -> Result<()> {
        self.holds
            .require(crate::store::Hold::Document(coll, scope, &v.id))?;
        self.wrote(coll);
        let body = json_text(&v.body, "a document body")?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO versions (coll, tenant, env, id, version, body, timestamp, user, reason) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, v.id, v.version, body, time_text(v.timestamp), v.user, v.reason])
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
        self.holds
            .require(crate::store::Hold::Document(coll, scope, id))?;
        self.wrote(coll);
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
        self.holds
            .require(crate::store::Hold::Document(coll, scope, id))?;
        self.wrote(coll);
        self.restore_current_body(coll, scope, id)?;
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
                        "INSERT OR REPLACE INTO heads (coll, tenant, env, id, version, type, body, search, name_fold, bucket, reason, id_fold, \
                         timestamp, user, tags) \
                         SELECT v.coll, v.tenant, v.env, v.id, v.version, coalesce(json_extract(v.body, '$._type'), ''), \
                         {HEAD_BODY}, pf_search_rest(v.body), pf_fold(json_extract(v.body, '$.name')), pf_bucket(v.id), v.reason, \
                         nullif(pf_fold(v.id), v.id), v.timestamp, v.user, {} \
                         FROM versions v WHERE v.coll = ?1 AND v.tenant = ?2 AND v.env = ?3 AND v.id = ?4 AND v.version = ?5",
                        tags_of!("v")
                    ))
                    .db()?
                    .execute(params![coll.as_str(), scope.tenant, scope.env, id, v])
                    .db()?;
                if changed == 0 {
                    return Err(Error::Internal(format!(
                        "set_current: {id} has no version {v}"
                    )));
                }
                // The body is kept once, in the current row, where it reads back as written
                // (a body that would not is left in its version row too).
                self.conn
                    .prepare_cached(&format!(
                        "UPDATE versions SET body = '' WHERE coll = ?1 AND tenant = ?2 AND env = ?3 \
                         AND id = ?4 AND version = ?5 AND body = (SELECT {BODY_OF_HEAD} FROM heads h \
                         WHERE h.coll = ?1 AND h.tenant = ?2 AND h.env = ?3 AND h.id = ?4)"
                    ))
                    .db()?
                    .execute(params![coll.as_str(), scope.tenant, scope.env, id, v])
                    .db()?;
            }
        }
        Ok(())
    }

    fn put_current(
        &mut self,
        coll: Collection,
        scope: &Scope,
        v: &StoredVersion,
        replaces: Option<u32>,
    ) -> Result<()> {
        self.holds
            .require(crate::store::Hold::Document(coll, scope, &v.id))?;
        self.wrote(coll);
        // What `put_version` and `set_current` do, with the current row's columns taken from
        // the version in memory: its text is parsed once (into the row's JSONB), and the
        // version row is written once, with empty text (its body is the current row's). The
        // version current until now takes its text back only if it stays a version apart (a
        // rewrite in place replaces its row).
        if replaces.is_some_and(|r| r != v.version) {
            self.restore_current_body(coll, scope, &v.id)?;
        }
        let body = json_text(&v.body, "a document body")?;
        let folded = crate::query::filter::fold(&v.id);
        let name_fold = v
            .body
            .get("name")
            .and_then(Value::as_str)
            .map(crate::query::filter::fold);
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO heads (coll, tenant, env, id, version, type, body, search, \
                 name_fold, bucket, reason, id_fold, timestamp, user, tags) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, jsonb(?7), ?8, ?9, ?10, ?11, ?12, ?13, ?14, \
                 nullif((SELECT json_group_array(tag) FROM (SELECT t.tag FROM tags t WHERE t.coll = ?1 \
                 AND t.tenant = ?2 AND t.env = ?3 AND t.id = ?4 AND t.version = ?5 ORDER BY t.tag)), '[]'))",
            )
            .db()?
            .execute(params![
                coll.as_str(),
                scope.tenant,
                scope.env,
                v.id,
                v.version,
                type_column(&v.body),
                body,
                crate::query::filter::search_text_after_name(&v.body),
                name_fold,
                crate::query::total::sample_bucket(&v.id),
                v.reason,
                (folded != v.id).then_some(&folded),
                time_text(v.timestamp),
                v.user,
            ])
            .db()?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO versions (coll, tenant, env, id, version, body, timestamp, user, reason) \
                 VALUES (?1, ?2, ?3, ?4, ?5, '', ?6, ?7, ?8)",
            )
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, v.id, v.version, time_text(v.timestamp), v.user, v.reason])
            .db()?;
        Ok(())
    }

    fn set_type_indexes(
        &mut self,
        scope: &Scope,
        type_name: &str,
        fields: &[String],
    ) -> Result<()> {
        self.holds.require(crate::store::Hold::Document(
            crate::store::Collection::Type,
            scope,
            type_name,
        ))?;
        let prefix = type_index_prefix(scope, type_name);
        let existing: Vec<String> = {
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'heads' \
                     AND substr(name, 1, length(?1)) = ?1",
                )
                .db()?;
            let rows = stmt.query_map([&prefix], |r| r.get(0)).db()?;
            rows.collect::<rusqlite::Result<_>>().db()?
        };
        let wanted: Vec<(String, &String)> = fields
            .iter()
            .map(|f| (type_index_name(scope, type_name, f), f))
            .collect();
        for name in &existing {
            if !wanted.iter().any(|(w, _)| w == name) {
                self.conn
                    .execute_batch(&format!("DROP INDEX \"{name}\""))
                    .db()?;
            }
        }
        for (name, field) in wanted {
            if existing.contains(&name) {
                continue;
            }
            // The expression is the one lists sort and compare the field by
            // (`SqlBuilder::sort_expr`), and the WHERE what a list of the type says.
            let mut sb = sql::SqlBuilder::new(&sql::HEADS_BARE, Vec::new());
            self.conn
                .execute_batch(&format!(
                    "CREATE INDEX \"{name}\" ON heads(coll, tenant, env, type, {}, id, version) \
                     WHERE coll = {} AND type = {}",
                    sb.sort_expr(field),
                    sql::quote(Collection::Object.as_str()),
                    sql::quote(type_name)
                ))
                .db()?;
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
        self.holds
            .require(crate::store::Hold::Document(coll, scope, id))?;
        self.wrote(coll);
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO tags (coll, tenant, env, id, tag, version) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, id, tag, version])
            .db()?;
        self.refresh_head(coll, scope, id)
    }
}
