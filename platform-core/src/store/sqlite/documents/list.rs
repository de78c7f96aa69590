//! The statements of a document list: the WHERE clause of its collection, scopes and filter,
//! its page, and the counts its total is read from (exact, capped, sampled).

use super::super::keys::TypeKeys;
use super::super::sql;
use super::head::HEAD_VERSION_COLUMNS;
use crate::query::{Cursor, Filter, ListQuery};
use crate::store::Collection;
use rusqlite::types::Value as SqlValue;

/// The WHERE clause selecting current documents of a collection in some scopes (`keys`, the
/// keys of the collection and scopes) that match a filter (`types`: the keys of the types it
/// names), with its arguments; `None` when no scope is given (nothing can match).
pub(crate) fn where_clause(
    coll: Collection,
    scopes: &[i64],
    types: &TypeKeys,
    filter: &Filter,
) -> Option<(String, Vec<SqlValue>)> {
    where_clauses(coll, scopes, types, filter).map(|(clause, _, args)| (clause, args))
}

/// [`where_clause`], and beside it the clause of the documents the filter is read over: the
/// collection, the scopes and, for a list of one type, the type (the same arguments).
pub(crate) fn where_clauses(
    coll: Collection,
    scopes: &[i64],
    types: &TypeKeys,
    filter: &Filter,
) -> Option<(String, String, Vec<SqlValue>)> {
    if scopes.is_empty() {
        return None;
    }
    let mut sb = sql::SqlBuilder::with_types(&sql::HEADS, Vec::new(), types);
    // The keys are written in the statement, as a private type's index's WHERE says its
    // scope (`layout::type_index_sql`); several scopes as a list, which SQLite reads scope by
    // scope through the keys.
    let scope_sql = match scopes {
        [one] => format!("h.sk = {one}"),
        many => {
            let keys: Vec<String> = many.iter().map(i64::to_string).collect();
            format!("h.sk IN ({})", keys.join(", "))
        }
    };
    let mut clause = format!("({scope_sql})");
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
    // The type as the statement writes it (its key: never an argument).
    if let Some(one) = one_type(filter) {
        base.push_str(" AND ");
        base.push_str(&sb.filter(one));
    }
    Some((clause, base, sb.args))
}

/// The top-level `_type` condition of a filter of one type.
pub(crate) fn one_type(filter: &Filter) -> Option<&Filter> {
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
pub(crate) struct ListStatements {
    pub(crate) count: (String, Vec<SqlValue>),
    pub(crate) page: (String, Vec<SqlValue>),
    pub(crate) filter: String,
    /// The WHERE clause of the documents the list reads (its scopes, and its one type), with
    /// the count's arguments.
    pub(crate) base: String,
    /// For a filtered first page in id order: the page read from the first
    /// [`PROBE_ROWS`] documents of the list's scopes and type in id order (same arguments as
    /// `page`); see [`list_statements`].
    pub(crate) probe: Option<String>,
}

/// The documents a probe reads (see [`ListStatements::probe`]).
pub(crate) const PROBE_ROWS: u64 = 10_000;

/// The statements of a list (`types`: the keys of the types its filter names); `None` when no
/// scope is given.
pub(crate) fn list_statements(
    coll: Collection,
    scopes: &[i64],
    types: &TypeKeys,
    query: &ListQuery,
    after: Option<&Cursor>,
) -> Option<ListStatements> {
    let (filter, base, args) = where_clauses(coll, scopes, types, &query.filter)?;
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
            "SELECT {HEAD_VERSION_COLUMNS} FROM (SELECT h.sk, h.id FROM {from} \
             WHERE {filter} ORDER BY {order} LIMIT {limit} OFFSET {skip}) p CROSS JOIN heads h \
             ON h.sk = p.sk AND h.id = p.id"
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
pub(crate) fn capped_count(filter: &str, n: u64) -> String {
    format!("SELECT count(*) FROM (SELECT 1 FROM heads h WHERE {filter} LIMIT {n})")
}

/// The documents a list reads in one of its scopes among those of sample buckets `lo..hi`,
/// and the matches among them, from its WHERE clauses (`filter`, and `base`: its scopes and
/// type); the scope's key, `lo` and `hi` are the arguments numbered from `first_arg`. It reads the sample index whatever other index the filter could use: the
/// sample is a range of buckets in the scope, the same share of its documents at any size.
pub(crate) fn sampled_count(filter: &str, base: &str, first_arg: usize) -> String {
    let (k, lo, hi) = (first_arg, first_arg + 1, first_arg + 2);
    format!(
        "SELECT count(*), coalesce(sum(CASE WHEN {filter} THEN 1 ELSE 0 END), 0) FROM heads h \
         INDEXED BY heads_sample WHERE {base} AND h.sk = ?{k} \
         AND h.bucket >= ?{lo} AND h.bucket < ?{hi}"
    )
}
