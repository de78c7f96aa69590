//! Versioned documents: `versions` (every version), `heads` (the current one, with a JSONB copy
//! of its body and system fields for filters, and folded search text) and `tags`.

use super::{json_text, sql, time_text, Db, Tx};
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

mod head;
mod list;

pub(super) use head::current_from_head;
pub(super) use list::{capped_count, list_statements, sampled_count};

use head::{
    current_fields_from_head, decode_version, raw_from_head, row_to_version, tags_of, type_column,
    BODY_OF_HEAD, HEAD_BODY, VERSION_COLUMNS,
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

    fn current_raw(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Option<RawVersion>> {
        let midway = self.store.is_some();
        raw_from_head(&self.conn, coll, scope, id, midway)
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
