//! The plans PostgreSQL makes for the statements of lists and completions (`EXPLAIN`), for
//! tests to check which indexes they search.

use super::{complete_statement, page_statement, params, Selection, ID_FOLD};
use crate::error::Result;
use crate::ids::Scope;
use crate::query::{Cursor, Filter, ListQuery};
use crate::store::postgres::{get, Tx};
use crate::store::Collection;

impl Tx<'_> {
    /// The plans PostgreSQL makes for the count and the page of a list (`EXPLAIN`).
    pub(in crate::store::postgres) fn explain_list(
        &self,
        coll: Collection,
        scopes: &[Scope],
        query: &ListQuery,
        after: Option<&Cursor>,
    ) -> Result<String> {
        let mut out = String::new();
        let Some(Selection { clause, args, .. }) = self.select(coll, scopes, &query.filter)? else {
            return Ok(out);
        };
        let count = format!("EXPLAIN SELECT count(*) FROM heads h WHERE {clause}");
        for row in self.query(&count, &params(&args))? {
            out.push_str(&get::<String>(&row, 0)?);
            out.push('\n');
        }
        let Some(selection) = self.select(coll, scopes, &query.filter)? else {
            return Ok(out);
        };
        let (sql, args) = page_statement(selection, query, after);
        for row in self.query(&format!("EXPLAIN {sql}"), &params(&args))? {
            out.push_str(&get::<String>(&row, 0)?);
            out.push('\n');
        }
        Ok(out)
    }

    /// The plans PostgreSQL makes for the statements of a completion in one scope, by id then
    /// by name (`EXPLAIN`), with sequential scans priced out: which index each can range over.
    pub(in crate::store::postgres) fn explain_complete(
        &self,
        coll: Collection,
        scope: &Scope,
        prefix: &str,
    ) -> Result<Vec<String>> {
        self.execute("SET LOCAL enable_seqscan = off", &[])?;
        let mut out = Vec::new();
        for key in [ID_FOLD, "h.name_fold"] {
            let scopes = std::slice::from_ref(scope);
            let Some(selection) = self.select(coll, scopes, &Filter::all())? else {
                continue;
            };
            let (sql, args) = complete_statement(selection, key, prefix, Some(10));
            let mut plan = String::new();
            for row in self.query(&format!("EXPLAIN {sql}"), &params(&args))? {
                plan.push_str(&get::<String>(&row, 0)?);
                plan.push('\n');
            }
            out.push(plan);
        }
        Ok(out)
    }
}
