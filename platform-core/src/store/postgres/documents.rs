//! Versioned documents: `versions` (every version, its body as text, the current one's too),
//! `heads` (the current version: its body's filterable `jsonb` form; the folded search text,
//! id and name) and `tags`.

use super::filter::{self, Arg, SqlBuilder};
use super::gathered::{HeadRow, VersionRow};
use super::pool::Owned;
use super::scopes::KEY_OF_PARAMS;
use super::tx::Sink;
use super::{get, get_u32, json_text, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::query::filter::{fold, search_text};
use crate::query::{Cursor, Filter, ListQuery};
use crate::store::{
    type_index_name, type_index_prefix, Collection, DocumentRead, DocumentWrite, FieldKind, Page,
    StoredVersion,
};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use tokio_postgres::types::ToSql;
use tokio_postgres::Row;

#[cfg(test)]
mod explain;

/// The columns of a version row `v` with its tags, sorted.
pub(super) const VERSION_COLUMNS: &str = "v.id, v.version, v.body, v.timestamp, \
     v.\"user\", v.reason, \
     ARRAY(SELECT t.tag FROM tags t WHERE t.scope = v.scope AND t.id = v.id \
     AND t.version = v.version ORDER BY t.tag)";

/// The columns of a current row `h`'s version row `v` with its tags, sorted.
pub(super) const CURRENT_COLUMNS: &str =
    "v.id, v.version, v.body, v.timestamp, v.\"user\", v.reason, \
     ARRAY(SELECT t.tag FROM tags t WHERE t.scope = v.scope AND t.id = v.id \
     AND t.version = v.version ORDER BY t.tag)";

/// The folded id of a current row `h`, as `heads_id_fold` holds it.
const ID_FOLD: &str = "coalesce(h.id_fold, h.id)";

/// Version rows `v`.
const VERSIONS: &str = "versions v";

/// The version row `v` of a current row `h`, found by its whole key. A plain join on the three
/// columns let the planner range over all the versions of the document (the scope known only
/// when the statement runs, through `scopes`), filtering them by number: a read of a document
/// grew with its history. The subquery that cannot be pulled up (`OFFSET 0`) looks up the one
/// row for each current row.
macro_rules! version_of_head {
    () => {
        "JOIN LATERAL (SELECT * FROM versions v WHERE v.scope = h.scope AND v.id = h.id \
         AND v.version = h.version OFFSET 0) v ON true"
    };
}
pub(super) const VERSION_OF_HEAD: &str = version_of_head!();

/// Current rows `h` with their version rows `v` ([`VERSION_OF_HEAD`]).
const CURRENT: &str = concat!("heads h ", version_of_head!());

fn decode_version(row: &Row) -> Result<StoredVersion> {
    decode_version_at(row, 0)
}

fn params(args: &[Arg]) -> Vec<&(dyn ToSql + Sync)> {
    args.iter()
        .map(|a| a.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

/// The current documents a query selects: a WHERE clause over `heads h` and its arguments.
struct Selection {
    clause: String,
    args: Vec<Arg>,
    /// The clause of the documents the selection reads: its collection and scopes (the same
    /// arguments; the clause itself where it names the documents by id).
    base: String,
}

impl Tx<'_> {
    /// The current documents of a collection in some scopes that match a filter; `None` when
    /// no scope is given (nothing can match). The conjuncts that run in SQL narrow the rows;
    /// the others are evaluated here on each remaining document, and the selection is then
    /// the keys that passed.
    fn select(
        &self,
        coll: Collection,
        scopes: &[Scope],
        filter: &Filter,
    ) -> Result<Option<Selection>> {
        if scopes.is_empty() {
            return Ok(None);
        }
        // The scopes' keys are written in the statement, as a per-type index's WHERE says
        // them; a scope without a key holds no document.
        let keys = self.scope_keys(coll, scopes)?;
        if keys.is_empty() {
            return Ok(None);
        }
        let mut sb = SqlBuilder::new(Vec::new());
        let mut clause = match keys.as_slice() {
            [one] => format!("h.scope = {one}"),
            many => format!(
                "h.scope IN ({})",
                many.iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let base = clause.clone();
        let (in_sql, in_memory) = filter::split(filter);
        for part in &in_sql {
            clause.push_str(" AND ");
            clause.push_str(&sb.filter(part));
        }
        let typed = in_sql
            .iter()
            .any(|p| matches!(p, Filter::TypeIn(types) if types.len() == 1));
        if coll == Collection::Object && typed {
            for part in in_sql {
                for term in sb.index_terms(part) {
                    clause.push_str(" AND ");
                    clause.push_str(&term);
                }
            }
        }
        if in_memory.is_empty() {
            return Ok(Some(Selection {
                clause,
                args: sb.args,
                base,
            }));
        }
        let sql = format!("SELECT h.scope, {CURRENT_COLUMNS} FROM {CURRENT} WHERE {clause}");
        let rows = self.query(&sql, &params(&sb.args))?;
        let (mut keys, mut ids) = (Vec::new(), Vec::new());
        for row in &rows {
            let key: i32 = get(row, 0)?;
            let v = decode_version_at(row, 1)?;
            let doc = v.filter_doc();
            if in_memory.iter().all(|f| f.matches(&doc)) {
                keys.push(key);
                ids.push(v.id);
            }
        }
        let mut sb = SqlBuilder::new(Vec::new());
        let (k, i) = (sb.bind(keys), sb.bind(ids));
        let clause =
            format!("(h.scope, h.id) IN (SELECT * FROM unnest({k}::integer[], {i}::text[]))");
        Ok(Some(Selection {
            base: clause.clone(),
            clause,
            args: sb.args,
        }))
    }

    fn one_version(
        &self,
        sql_where: &str,
        args: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<StoredVersion>> {
        let sql = format!("SELECT {VERSION_COLUMNS} FROM {VERSIONS} WHERE {sql_where}");
        self.query_opt(&sql, args)?
            .map(|r| decode_version(&r))
            .transpose()
    }

    /// Makes `v` the current row of its document (gathered with the other current rows the
    /// transaction writes), and the cache's current version of it.
    fn write_head(&mut self, coll: Collection, scope: &Scope, v: &StoredVersion) -> Result<()> {
        let row = HeadRow {
            key: (coll, scope.tenant.clone(), scope.env.clone(), v.id.clone()),
            version: i64::from(v.version),
            kind: v
                .body
                .get("_type")
                .and_then(Value::as_str)
                .map(str::to_string),
            body: filter::filter_copy(Value::Object(v.body.clone())),
            search: search_text(&v.body),
            id_fold: Some(fold(&v.id)).filter(|f| *f != v.id),
            name_fold: v.body.get("name").and_then(Value::as_str).map(fold),
        };
        let key = row.key.clone();
        self.note_scope(coll, scope);
        self.gather(|g| g.heads.push(row));
        self.cache.get_mut().docs.insert(key, Some(v.clone()));
        Ok(())
    }
}

/// The statement of one group of a completion (by the folded id or name `key`) over a
/// selection of one scope, with its arguments: a range of the key's index, in its order.
fn complete_statement(
    Selection { clause, args, .. }: Selection,
    key: &str,
    prefix: &str,
    limit: Option<u64>,
) -> (String, Vec<Arg>) {
    let sql_limit = limit.map_or("ALL".to_string(), |l| l.to_string());
    let mut sb = SqlBuilder::new(args);
    let lo = sb.bind(prefix.to_string());
    let hi = sb.bind(format!("{prefix}\u{10FFFF}"));
    let sql = format!(
        "SELECT {key}, h.id, CASE jsonb_typeof(h.body -> 'name') WHEN 'string' \
         THEN h.body ->> 'name' END FROM heads h \
         WHERE {clause} AND {key} >= {lo}::text AND {key} < {hi}::text \
         ORDER BY {key} LIMIT {sql_limit}"
    );
    (sql, sb.args)
}

/// The statement of a list's page over its selection, with its arguments.
fn page_statement(
    selection: Selection,
    query: &ListQuery,
    after: Option<&Cursor>,
) -> (String, Vec<Arg>) {
    let Selection { clause, args, .. } = selection;
    let mut sb = SqlBuilder::new(args);
    let clause = match after {
        Some(cursor) => format!("{clause} AND {}", sb.after(&query.sort, cursor)),
        None => clause,
    };
    let order = sb.order_by(&query.sort);
    let limit = query
        .paging
        .limit
        .map_or("ALL".to_string(), |l| l.to_string());
    let sql = format!(
        "SELECT {CURRENT_COLUMNS} FROM (SELECT h.scope, h.id, h.version, \
         row_number() OVER () AS n FROM (SELECT h.scope, h.id, h.version FROM heads h \
         WHERE {clause} ORDER BY {order} LIMIT {limit} OFFSET {}) h) h {VERSION_OF_HEAD} ORDER BY h.n",
        query.paging.skip
    );
    (sql, sb.args)
}

pub(super) fn decode_version_at(row: &Row, at: usize) -> Result<StoredVersion> {
    let id: String = get(row, at)?;
    let version = get_u32(row, at + 1)?;
    let body: String = get(row, at + 2)?;
    let what = format!("{id} v{version}");
    let body: Map<String, Value> = serde_json::from_str(&body)
        .map_err(|e| Error::caused(format!("stored body of {what} is not a JSON object"), e))?;
    let timestamp: DateTime<Utc> = get(row, at + 3)?;
    Ok(StoredVersion {
        id,
        version,
        body,
        timestamp,
        user: get(row, at + 4)?,
        reason: get(row, at + 5)?,
        tags: get(row, at + 6)?,
    })
}

impl DocumentRead for Tx<'_> {
    fn current(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Option<StoredVersion>> {
        let key = (
            coll,
            scope.tenant.clone(),
            scope.env.clone(),
            id.to_string(),
        );
        if let Some(kept) = self.cache.borrow().docs.get(&key) {
            return Ok(kept.clone());
        }
        let on_its_way = |sink: &Sink| match sink {
            Sink::Documents(c, keys) => {
                *c == coll
                    && keys
                        .iter()
                        .any(|(t, e, i)| *t == key.1 && *e == key.2 && *i == key.3)
            }
            Sink::EachDocument { keys, .. } => keys.contains(&key),
            Sink::Types(_) => coll == Collection::Type,
            _ => false,
        };
        if self.settle(on_its_way)? {
            if let Some(kept) = self.cache.borrow().docs.get(&key) {
                return Ok(kept.clone());
            }
        }
        // A join on the head's key, so that both rows are found by their primary keys.
        let sql = format!(
            "SELECT {CURRENT_COLUMNS} FROM {CURRENT} WHERE h.scope = {KEY_OF_PARAMS} AND h.id = $4"
        );
        let found = self
            .query_opt(&sql, &[&coll.as_str(), &scope.tenant, &scope.env, &id])?
            .map(|r| decode_version(&r))
            .transpose()?;
        self.cache.borrow_mut().docs.insert(key, found.clone());
        Ok(found)
    }

    fn version(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        version: u32,
    ) -> Result<Option<StoredVersion>> {
        self.one_version(
            &format!("v.scope = {KEY_OF_PARAMS} AND v.id = $4 AND v.version = $5"),
            &[
                &coll.as_str(),
                &scope.tenant,
                &scope.env,
                &id,
                &i64::from(version),
            ],
        )
    }

    fn tagged(&self, coll: Collection, scope: &Scope, id: &str, tag: &str) -> Result<Option<u32>> {
        self.query_opt(
            &format!(
                "SELECT version FROM tags WHERE scope = {KEY_OF_PARAMS} AND id = $4 AND tag = $5"
            ),
            &[&coll.as_str(), &scope.tenant, &scope.env, &id, &tag],
        )?
        .map(|r| get_u32(&r, 0))
        .transpose()
    }

    fn versions(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<StoredVersion>> {
        let sql = format!(
            "SELECT {VERSION_COLUMNS} FROM {VERSIONS} WHERE v.scope = {KEY_OF_PARAMS} \
             AND v.id = $4 ORDER BY v.version"
        );
        self.query(&sql, &[&coll.as_str(), &scope.tenant, &scope.env, &id])?
            .iter()
            .map(decode_version)
            .collect()
    }

    fn list_after(
        &self,
        coll: Collection,
        scopes: &[Scope],
        query: &ListQuery,
        after: Option<&Cursor>,
    ) -> Result<Page<StoredVersion>> {
        let Some(Selection { clause, args, base }) = self.select(coll, scopes, &query.filter)?
        else {
            return Ok(Page {
                items: Vec::new(),
                total: 0,
                estimated: false,
            });
        };
        let count_of = |sql: &str| -> Result<u64> {
            let n: i64 = get(&self.query_one(sql, &params(&args))?, 0)?;
            Ok(n.max(0) as u64)
        };
        let (lo, hi) = (args.len() + 1, args.len() + 2);
        let sample = format!(
            "SELECT count(*), count(*) FILTER (WHERE {clause}) FROM heads h \
             WHERE {base} AND h.bucket >= ${lo}::integer AND h.bucket < ${hi}::integer"
        );
        let (total, estimated) = crate::query::total::list_total(
            query.total,
            crate::query::total::filters_past_type(&query.filter),
            || count_of(&format!("SELECT count(*) FROM heads h WHERE {clause}")),
            |n| {
                count_of(&format!(
                    "SELECT count(*) FROM (SELECT 1 FROM heads h WHERE {clause} LIMIT {n}) s"
                ))
            },
            |lo, hi| {
                let mut with_bucket = params(&args);
                let (lo, hi) = (
                    i32::try_from(lo).unwrap_or(i32::MAX),
                    i32::try_from(hi).unwrap_or(i32::MAX),
                );
                with_bucket.push(&lo);
                with_bucket.push(&hi);
                let row = self.query_one(&sample, &with_bucket)?;
                let (rows, matches): (i64, i64) = (get(&row, 0)?, get(&row, 1)?);
                Ok((rows.max(0) as u64, matches.max(0) as u64))
            },
        )?;
        let (sql, args) = page_statement(Selection { clause, args, base }, query, after);
        let items = self
            .query(&sql, &params(&args))?
            .iter()
            .map(decode_version)
            .collect::<Result<Vec<_>>>()?;
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
        let Some(Selection { clause, args, .. }) = self.select(coll, scopes, filter)? else {
            return Ok(Vec::new());
        };
        let mut sb = SqlBuilder::new(args);
        let x = sb.path(path);
        let sql = format!(
            "SELECT DISTINCT ({x} #>> '{{}}') COLLATE \"C\" AS v FROM heads h WHERE {clause} \
             AND jsonb_typeof({x}) = 'string' ORDER BY v"
        );
        self.query(&sql, &params(&sb.args))?
            .iter()
            .map(|r| get(r, 0))
            .collect()
    }

    fn complete(
        &self,
        coll: Collection,
        scopes: &[Scope],
        filter: &Filter,
        prefix: &str,
        limit: Option<u64>,
    ) -> Result<Vec<(String, Option<String>)>> {
        // Two index range scans per scope: folded ids (`heads_id_fold`, the id where it is its
        // own folding), then folded names (`heads_name_fold`). Id matches come first, each
        // group in folded order.
        let mut out: Vec<(String, Option<String>)> = Vec::new();
        for key in [ID_FOLD, "h.name_fold"] {
            let mut group: Vec<(String, String, Option<String>)> = Vec::new();
            for scope in scopes {
                let Some(selection) = self.select(coll, std::slice::from_ref(scope), filter)?
                else {
                    continue;
                };
                let (sql, args) = complete_statement(selection, key, prefix, limit);
                for row in self.query(&sql, &params(&args))? {
                    group.push((get(&row, 0)?, get(&row, 1)?, get(&row, 2)?));
                }
            }
            group.sort();
            for (_, id, name) in group {
                if !out.iter().any(|(seen, _)| *seen == id) {
                    out.push((id, name));
                }
            }
        }
        if let Some(l) = limit {
            out.truncate(l as usize);
        }
        Ok(out)
    }

    fn field_kinds(
        &self,
        coll: Collection,
        scopes: &[Scope],
        path: &str,
    ) -> Result<Vec<FieldKind>> {
        let Some(Selection { clause, args, .. }) = self.select(coll, scopes, &Filter::all())?
        else {
            return Ok(Vec::new());
        };
        let mut sb = SqlBuilder::new(args);
        let x = sb.path(path);
        let sql = format!(
            "SELECT DISTINCT CASE jsonb_typeof({x}) WHEN 'number' THEN \
             (CASE WHEN ({x})::text ~ '^-?[0-9]+$' THEN 'integer' ELSE 'real' END) \
             ELSE jsonb_typeof({x}) END FROM heads h WHERE {clause} AND {x} IS NOT NULL"
        );
        let mut kinds = self
            .query(&sql, &params(&sb.args))?
            .iter()
            .map(|r| {
                let name: String = get(r, 0)?;
                match name.as_str() {
                    "null" => Ok(FieldKind::Null),
                    "boolean" => Ok(FieldKind::Bool),
                    "integer" => Ok(FieldKind::Integer),
                    "real" => Ok(FieldKind::Real),
                    "string" => Ok(FieldKind::Text),
                    "array" => Ok(FieldKind::Array),
                    "object" => Ok(FieldKind::Object),
                    other => Err(Error::Internal(format!(
                        "jsonb_typeof answered \"{other}\""
                    ))),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        kinds.sort();
        kinds.dedup();
        Ok(kinds)
    }
}

impl Tx<'_> {
    /// Stores a version: a new number (`in_place` false) is inserted, and a row of that number
    /// already there is a concurrent writer's ([`crate::Error::is_write_conflict`], from the
    /// versions' primary key); `in_place` rewrites the row of the number.
    fn insert_version(
        &mut self,
        coll: Collection,
        scope: &Scope,
        v: &StoredVersion,
        in_place: bool,
    ) -> Result<()> {
        self.holds
            .require(crate::store::Hold::Document(coll, scope, &v.id))?;
        self.forget_document(coll, scope, &v.id);
        self.note_scope(coll, scope);
        let row = VersionRow {
            key: (coll, scope.tenant.clone(), scope.env.clone(), v.id.clone()),
            version: i64::from(v.version),
            body: json_text(&v.body, "a document body")?,
            timestamp: v.timestamp,
            user: v.user.clone(),
            reason: v.reason.clone(),
        };
        self.gather(|g| match in_place {
            true => g.versions_in_place.push(row),
            false => g.new_versions.push(row),
        });
        self.cache.get_mut().last_put = Some((coll, scope.clone(), v.clone()));
        Ok(())
    }
}

impl DocumentWrite for Tx<'_> {
    fn put_version(&mut self, coll: Collection, scope: &Scope, v: &StoredVersion) -> Result<()> {
        self.insert_version(coll, scope, v, true)
    }

    fn put_current(
        &mut self,
        coll: Collection,
        scope: &Scope,
        v: &StoredVersion,
        replaces: Option<u32>,
    ) -> Result<()> {
        // A version of a new number is another than any stored: a row of that number is a
        // writer that did not hold the document (the contract's safety net, never the rule).
        self.insert_version(coll, scope, v, replaces == Some(v.version))?;
        self.set_current(coll, scope, &v.id, Some(v.version))
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
        self.forget_document(coll, scope, id);
        let key = || -> Vec<Owned> {
            vec![
                Box::new(coll.as_str()),
                Box::new(scope.tenant.clone()),
                Box::new(scope.env.clone()),
                Box::new(id.to_string()),
                Box::new(i64::from(version)),
            ]
        };
        self.defer(
            format!("DELETE FROM tags WHERE scope = {KEY_OF_PARAMS} AND id = $4 AND version = $5"),
            key(),
        );
        self.defer(
            format!(
                "DELETE FROM versions WHERE scope = {KEY_OF_PARAMS} AND id = $4 AND version = $5"
            ),
            key(),
        );
        Ok(())
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
        // The version just put (a save's), without reading it back.
        let just_put = match (&self.cache.get_mut().last_put, version) {
            (Some((c, s, v)), Some(n))
                if *c == coll && s == scope && v.id == id && v.version == n =>
            {
                Some(v.clone())
            }
            _ => None,
        };
        self.forget_document(coll, scope, id);
        match version {
            None => {
                self.defer(
                    format!("DELETE FROM heads WHERE scope = {KEY_OF_PARAMS} AND id = $4"),
                    vec![
                        Box::new(coll.as_str()),
                        Box::new(scope.tenant.clone()),
                        Box::new(scope.env.clone()),
                        Box::new(id.to_string()),
                    ],
                );
                self.cache.get_mut().docs.insert(
                    (
                        coll,
                        scope.tenant.clone(),
                        scope.env.clone(),
                        id.to_string(),
                    ),
                    None,
                );
            }
            Some(_) if just_put.is_some() => {
                if let Some(v) = &just_put {
                    self.write_head(coll, scope, v)?;
                }
            }
            Some(n) => {
                let Some(v) = self.version(coll, scope, id, n)? else {
                    return Err(Error::Internal(format!(
                        "set_current: {id} has no version {n}"
                    )));
                };
                self.write_head(coll, scope, &v)?;
            }
        }
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
        let existing: Vec<String> = self
            .query(
                "SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema() \
                 AND tablename = 'heads' AND left(indexname, length($1::text)) = $1::text",
                &[&prefix],
            )?
            .iter()
            .map(|r| get(r, 0))
            .collect::<Result<_>>()?;
        let wanted: Vec<(String, &String)> = fields
            .iter()
            .map(|f| (type_index_name(scope, type_name, f), f))
            .collect();
        for name in &existing {
            if !wanted.iter().any(|(w, _)| w == name) {
                self.execute(&format!("DROP INDEX \"{name}\""), &[])?;
            }
        }
        // The objects of a type of the public scope are found in every scope: its index is
        // keyed by their scope first.
        let key = match scope.tenant.is_empty() && scope.env.is_empty() {
            true => None,
            false if wanted.iter().all(|(w, _)| existing.contains(w)) => None,
            false => Some(self.make_scope_key(Collection::Object, scope)?),
        };
        for (name, field) in wanted {
            if existing.contains(&name) {
                continue;
            }
            if let Some(sql) = type_index_statement(&name, key, type_name, field) {
                self.execute(&sql, &[])?;
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
        self.holds
            .require(crate::store::Hold::Document(coll, scope, id))?;
        self.forget_document(coll, scope, id);
        self.defer(
            "INSERT INTO tags (scope, id, tag, version) SELECT key, $4, $5, $6 FROM scopes \
             WHERE coll = $1 AND tenant = $2 AND env = $3 \
             ON CONFLICT (scope, id, tag) DO UPDATE SET version = excluded.version",
            vec![
                Box::new(coll.as_str()),
                Box::new(scope.tenant.clone()),
                Box::new(scope.env.clone()),
                Box::new(id.to_string()),
                Box::new(tag.to_string()),
                Box::new(i64::from(version)),
            ],
        );
        Ok(())
    }
}

/// The statement that makes the per-type index `name` of a field of a type, of the objects of
/// the scope of key `scope` (`None`: the public scope's type, for objects of every scope, keyed
/// by their scope first); `None` for a system field read from another table, which no index
/// holds. Over the sort terms lists sort and compare the field by (`filter::sort_terms`), then
/// the id, as the WHERE of a list says them.
pub(super) fn type_index_statement(
    name: &str,
    scope: Option<i32>,
    type_name: &str,
    field: &str,
) -> Option<String> {
    let first = field.split('.').next().unwrap_or_default();
    if ["_timestamp", "_user", "_tag"].contains(&first) {
        return None;
    }
    let terms: Vec<String> = filter::sort_terms(&SqlBuilder::literal_path("", field))
        .into_iter()
        .map(|t| format!("({t})"))
        .collect();
    let (key, only) = match scope {
        None => ("scope, ", String::new()),
        Some(k) => ("", format!("scope = {k} AND ")),
    };
    Some(format!(
        "CREATE INDEX \"{name}\" ON heads ({key}{}, id) WHERE {only}type = {}",
        terms.join(", "),
        filter::quote(type_name)
    ))
}
