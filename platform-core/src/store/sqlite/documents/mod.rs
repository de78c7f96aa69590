//! Versioned documents: `versions` (every version), `heads` (the current one, with a JSONB copy
//! of its body and system fields for filters, and folded search text) and `tags`.

use super::{json_text, sql, time_value, Db, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::query::{Cursor, Filter, ListQuery};
use crate::store::{
    type_index_name, type_index_prefix, Collection, DocumentRead, DocumentWrite, FieldKind, Page,
    RawVersion, StoredVersion,
};
use rusqlite::types::Value as SqlValue;
use rusqlite::{params, OptionalExtension};
use serde_json::Value;

pub(crate) mod head;
mod list;

pub(super) use head::current_from_head;
pub(super) use list::{capped_count, list_statements, sampled_count};

use head::{
    all_versions, current_fields_from_head, decode_version, raw_from_head, row_to_version, tags_of,
    type_column, BODY_OF_HEAD, HEAD_BODY, TYPE_OF_VERSION,
};
use list::where_clause;

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

    /// The versions of a document, in order (`version`: one of them).
    fn versions_of(&self, sk: i64, id: &str, version: Option<u32>) -> Result<Vec<StoredVersion>> {
        let mut stmt = match version {
            None => self.conn.prepare_cached(all_versions!("")),
            Some(_) => self.conn.prepare_cached(all_versions!("AND version = ?3")),
        }
        .db()?;
        let rows = match version {
            None => stmt.query_map(params![sk, id], row_to_version),
            Some(n) => stmt.query_map(params![sk, id, n], row_to_version),
        }
        .db()?;
        rows.map(|r| r.db().and_then(decode_version)).collect()
    }
}

impl Tx<'_> {
    /// Rewrites the tags of a document's current row after its tags moved (a head whose
    /// version was just deleted is left to `set_current`).
    fn refresh_head(&mut self, sk: i64, id: &str) -> Result<()> {
        self.conn
            .prepare_cached(concat!(
                "UPDATE heads SET tags = ",
                tags_of!("heads"),
                " WHERE sk = ?1 AND id = ?2"
            ))
            .db()?
            .execute(params![sk, id])
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
        // write of them): it is read alone.
        let Some(sk) = self.scope_key(coll, scope)? else {
            return Ok(None);
        };
        current_from_head(&self.conn, sk, id)
    }

    /// Forgets the type definitions read, after a write to `coll` (see `Tx::type_defs`).
    fn wrote(&mut self, coll: Collection) {
        if coll == Collection::Type {
            self.type_defs.get_mut().clear();
        }
    }

    /// The version current until now becomes a row of `versions` (where it has none), from
    /// its current row, before the row changes or goes.
    fn keep_current_version(&mut self, sk: i64, id: &str) -> Result<()> {
        self.conn
            .prepare_cached(&format!(
                "INSERT OR IGNORE INTO versions (sk, id, version, timestamp, user, reason, body) \
                 SELECT h.sk, h.id, h.version, h.timestamp, h.user, h.reason, {BODY_OF_HEAD} \
                 FROM heads h WHERE h.sk = ?1 AND h.id = ?2"
            ))
            .db()?
            .execute(params![sk, id])
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
        let Some(sk) = self.scope_key(coll, scope)? else {
            return Ok(None);
        };
        current_fields_from_head(&self.conn, sk, id, Some(fields))
    }

    fn current_raw(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Option<RawVersion>> {
        let Some(sk) = self.scope_key(coll, scope)? else {
            return Ok(None);
        };
        raw_from_head(&self.conn, sk, id)
    }

    fn version(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        version: u32,
    ) -> Result<Option<StoredVersion>> {
        let Some(sk) = self.scope_key(coll, scope)? else {
            return Ok(None);
        };
        Ok(self.versions_of(sk, id, Some(version))?.pop())
    }

    fn tagged(&self, coll: Collection, scope: &Scope, id: &str, tag: &str) -> Result<Option<u32>> {
        let Some(sk) = self.scope_key(coll, scope)? else {
            return Ok(None);
        };
        self.conn
            .prepare_cached("SELECT version FROM tags WHERE sk = ?1 AND id = ?2 AND tag = ?3")
            .db()?
            .query_row(params![sk, id, tag], |r| r.get(0))
            .optional()
            .db()
    }

    fn versions(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<StoredVersion>> {
        let Some(sk) = self.scope_key(coll, scope)? else {
            return Ok(Vec::new());
        };
        self.versions_of(sk, id, None)
    }

    fn list_after(
        &self,
        coll: Collection,
        scopes: &[Scope],
        query: &ListQuery,
        after: Option<&Cursor>,
    ) -> Result<Page<StoredVersion>> {
        let keys = self.scope_keys(coll, scopes)?;
        let types = self.type_keys(&query.filter)?;
        let Some(statements) = list_statements(coll, &keys, &types, query, after) else {
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
                for &sk in &keys {
                    let more = [
                        SqlValue::Integer(sk),
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
        let keys = self.scope_keys(coll, scopes)?;
        let types = self.type_keys(filter)?;
        let Some((filter, args)) = where_clause(coll, &keys, &types, filter) else {
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
        let keys = self.scope_keys(coll, scopes)?;
        let types = self.type_keys(filter)?;
        for (key, index) in [
            (super::stored::ID_FOLD, "heads_id_fold"),
            ("h.name_fold", "heads_name_fold"),
        ] {
            let mut group: Vec<(String, String, Option<String>)> = Vec::new();
            for sk in &keys {
                let Some((clause, args)) =
                    where_clause(coll, std::slice::from_ref(sk), &types, filter)
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
        let keys = self.scope_keys(coll, scopes)?;
        let Some((filter, args)) = where_clause(coll, &keys, &Default::default(), &Filter::all())
        else {
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
        let sk = self.make_scope_key(coll, scope)?;
        let body = json_text(&v.body, "a document body")?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO versions (sk, id, version, timestamp, user, reason, body) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .db()?
            .execute(params![
                sk,
                v.id,
                v.version,
                time_value(v.timestamp),
                v.user,
                v.reason,
                body
            ])
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
        let Some(sk) = self.scope_key(coll, scope)? else {
            return Ok(());
        };
        for sql in [
            "DELETE FROM tags WHERE sk = ?1 AND id = ?2 AND version = ?3",
            "DELETE FROM versions WHERE sk = ?1 AND id = ?2 AND version = ?3",
            // The current version goes with its current row: until `set_current` makes
            // another, the document has none.
            "DELETE FROM heads WHERE sk = ?1 AND id = ?2 AND version = ?3",
        ] {
            self.conn
                .prepare_cached(sql)
                .db()?
                .execute(params![sk, id, version])
                .db()?;
        }
        // A tag moved off the current version changes its `_tag`.
        self.refresh_head(sk, id)
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
        let sk = self.make_scope_key(coll, scope)?;
        self.keep_current_version(sk, id)?;
        let Some(v) = version else {
            self.conn
                .prepare_cached("DELETE FROM heads WHERE sk = ?1 AND id = ?2")
                .db()?
                .execute(params![sk, id])
                .db()?;
            return Ok(());
        };
        // The type's key, made where the type has none.
        self.conn
            .prepare_cached(&format!(
                "INSERT OR IGNORE INTO type_keys (type) SELECT {TYPE_OF_VERSION} \
                 FROM versions v WHERE v.sk = ?1 AND v.id = ?2 AND v.version = ?3"
            ))
            .db()?
            .execute(params![sk, id, v])
            .db()?;
        let changed = self
            .conn
            .prepare_cached(&format!(
                "INSERT OR REPLACE INTO heads (sk, id, version, type, bucket, timestamp, user, reason, \
                 tags, id_fold, name_fold, search, body) \
                 SELECT v.sk, v.id, v.version, \
                 (SELECT k.tk FROM type_keys k WHERE k.type = {TYPE_OF_VERSION}), pf_bucket(v.id), v.timestamp, v.user, v.reason, {}, pf_fold_kept(v.id), \
                 pf_fold(json_extract(v.body, '$.name')), pf_search_rest(v.body), {HEAD_BODY} \
                 FROM versions v WHERE v.sk = ?1 AND v.id = ?2 AND v.version = ?3",
                tags_of!("v")
            ))
            .db()?
            .execute(params![sk, id, v])
            .db()?;
        if changed == 0 {
            return Err(Error::Internal(format!(
                "set_current: {id} has no version {v}"
            )));
        }
        // The version is kept once, in the current row, where its text reads back as written
        // (a text that would not keeps its version row).
        self.conn
            .prepare_cached(&format!(
                "DELETE FROM versions WHERE sk = ?1 AND id = ?2 AND version = ?3 \
                 AND body = (SELECT {BODY_OF_HEAD} FROM heads h WHERE h.sk = ?1 AND h.id = ?2)"
            ))
            .db()?
            .execute(params![sk, id, v])
            .db()?;
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
        let sk = self.make_scope_key(coll, scope)?;
        let kind = type_column(&v.body);
        let tk = self.make_type_key(&kind)?;
        // What `put_version` and `set_current` do, with the current row's columns taken from
        // the version in memory: its text is parsed once (into the row's JSONB), which is where
        // the version is kept (its text reads back as the same JSON). The version current until
        // now becomes a row of `versions` only if it stays a version apart (a rewrite in place
        // replaces it).
        if replaces.is_some_and(|r| r != v.version) {
            self.keep_current_version(sk, &v.id)?;
        }
        let text = json_text(&v.body, "a document body")?;
        let (body, lead) = head::lead_kept_apart(&text, &v.id, &kind);
        let name_fold = v
            .body
            .get("name")
            .and_then(Value::as_str)
            .map(crate::query::filter::fold);
        // A row already there is updated in place, setting only what no index of `heads`
        // but the per-type ones holds (the version, its time, author, reason and tags, the
        // search text and the body), then the type's key and folded name (which `heads_type`,
        // `heads_sample` and `heads_name_fold` hold) only where they changed: an index whose
        // key stays is not rewritten, and a save of a changed body writes the row's page and
        // its per-type indexes' alone. (The id, and with it the bucket and the folded id, is
        // the row's key.)
        self.conn
            .prepare_cached(
                "INSERT INTO heads (sk, id, version, type, bucket, timestamp, user, \
                 reason, id_fold, name_fold, search, body, lead, tags) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, jsonb(?12), ?13, \
                 nullif((SELECT json_group_array(tag) FROM (SELECT t.tag FROM tags t \
                 WHERE t.sk = ?1 AND t.id = ?2 AND t.version = ?3 ORDER BY t.tag)), '[]')) \
                 ON CONFLICT (sk, id) DO UPDATE SET version = excluded.version, \
                 timestamp = excluded.timestamp, user = excluded.user, reason = excluded.reason, \
                 search = excluded.search, body = excluded.body, lead = excluded.lead, \
                 tags = excluded.tags",
            )
            .db()?
            .execute(params![
                sk,
                v.id,
                v.version,
                tk,
                crate::query::total::sample_bucket(&v.id),
                time_value(v.timestamp),
                v.user,
                v.reason,
                super::stored::fold_kept(&v.id),
                name_fold,
                crate::query::filter::search_text_after_name(&v.body),
                body,
                lead,
            ])
            .db()?;
        // A document with no current version had no row: the insert above wrote its type and
        // folded name.
        if replaces.is_some() {
            self.conn
                .prepare_cached(
                    "UPDATE heads SET type = ?3, name_fold = ?4 WHERE sk = ?1 AND id = ?2 \
                     AND (type IS NOT ?3 OR name_fold IS NOT ?4)",
                )
                .db()?
                .execute(params![sk, v.id, tk, name_fold])
                .db()?;
        }
        self.conn
            .prepare_cached("DELETE FROM versions WHERE sk = ?1 AND id = ?2 AND version = ?3")
            .db()?
            .execute(params![sk, v.id, v.version])
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
        // A private type's objects are those of its scope (`layout::type_index_sql`).
        let sk = match scope.is_public() {
            true => None,
            false => Some(self.make_scope_key(Collection::Object, scope)?),
        };
        let tk = self.make_type_key(type_name)?;
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
        // No index is made on `_id` (lists order and find ids by the row's key) nor on
        // `_type` (one value in a type's index, read from another table where the row keeps
        // it apart).
        let wanted: Vec<(String, &String)> = fields
            .iter()
            .filter(|f| !matches!(f.as_str(), "_id" | "_type"))
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
                .execute_batch(&super::layout::type_index_sql(
                    &name,
                    &sb.sort_expr(field),
                    tk,
                    sk,
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
        let sk = self.make_scope_key(coll, scope)?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO tags (sk, id, tag, version) VALUES (?1, ?2, ?3, ?4)",
            )
            .db()?
            .execute(params![sk, id, tag, version])
            .db()?;
        self.refresh_head(sk, id)
    }
}
