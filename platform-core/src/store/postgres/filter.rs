//! Filters and sorts as SQL over the `jsonb` copy of each current document (`heads.body`).
//!
//! A filter runs in SQL only where PostgreSQL's meaning is exactly `Filter::matches`': the
//! `_id` and `_type` columns, text equality with strings and booleans, typed equality with a
//! string, boolean or null (array fields matching any element), text comparisons, presence,
//! `_search` (the folded search text the store computed in Rust). Numbers, dates, regular
//! expressions, distances and equality with arrays or objects run in memory, on the stored
//! body (whose text keeps field order and numbers as written): [`split`] separates the top-level
//! conjuncts that run in SQL from those that run in memory. The property test of the contract
//! suite holds the two together.
//!
//! Paths descend with `->` and text keys only, which never index into arrays (as `lookup` in
//! memory does not). Every leaf is true or false, never NULL, so `NOT` means what it means in
//! memory. Text keys and sorted text compare byte by byte (`COLLATE "C"`: code point order).

use crate::query::filter::{Bound, Filter};
use crate::query::SortSpec;
use serde_json::Value;
use tokio_postgres::types::ToSql;

/// An argument of a statement.
pub(crate) type Arg = Box<dyn ToSql + Sync + Send>;

/// Builds SQL, collecting arguments (`$1, $2, ...` in order).
pub(crate) struct SqlBuilder {
    pub(crate) args: Vec<Arg>,
}

/// The filterable body and the columns of `heads h`.
const BODY: &str = "h.body";

impl SqlBuilder {
    pub(crate) fn new(args: Vec<Arg>) -> Self {
        SqlBuilder { args }
    }

    /// Binds a value and returns its placeholder.
    pub(crate) fn bind<T: ToSql + Sync + Send + 'static>(&mut self, v: T) -> String {
        self.args.push(Box::new(v));
        format!("${}", self.args.len())
    }

    /// The JSON value at a dotted path of the body (SQL NULL when absent), descending through
    /// objects only.
    pub(crate) fn path(&mut self, field: &str) -> String {
        let mut expr = BODY.to_string();
        for seg in field.split('.') {
            let p = self.bind(seg.to_string());
            expr = format!("({expr} -> {p}::text)");
        }
        expr
    }

    /// The ORDER BY terms of a sort: each field in SQLite's order of `->>` values (null and
    /// absent first, then numbers and booleans as 1 and 0 by value, then strings, arrays and
    /// objects by their text, byte by byte); the id breaks ties.
    pub(crate) fn order_by(&mut self, sort: &SortSpec) -> String {
        let mut terms: Vec<String> = Vec::with_capacity(sort.0.len() * 3 + 1);
        for k in &sort.0 {
            let dir = if k.descending { "DESC" } else { "ASC" };
            if k.field == "_id" {
                terms.push(format!("h.id {dir}"));
                continue;
            }
            let x = self.path(&k.field);
            terms.push(format!(
                "(CASE jsonb_typeof({x}) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 \
                 WHEN 'string' THEN 2 WHEN 'array' THEN 2 WHEN 'object' THEN 2 ELSE 0 END) {dir}"
            ));
            terms.push(format!(
                "(CASE jsonb_typeof({x}) WHEN 'number' THEN ({x} #>> '{{}}')::numeric \
                 WHEN 'boolean' THEN (CASE WHEN {x} = 'true'::jsonb THEN 1 ELSE 0 END) END) {dir}"
            ));
            terms.push(format!(
                "(CASE jsonb_typeof({x}) WHEN 'string' THEN {x} #>> '{{}}' \
                 WHEN 'array' THEN {x}::text WHEN 'object' THEN {x}::text END) COLLATE \"C\" {dir}"
            ));
        }
        terms.push("h.id ASC".into());
        terms.join(", ")
    }

    /// The SQL of a filter that [`runs_in_sql`] (true or false, never NULL).
    pub(crate) fn filter(&mut self, f: &Filter) -> String {
        match f {
            Filter::And(parts) if parts.is_empty() => "true".into(),
            Filter::And(parts) => {
                let sql: Vec<String> = parts.iter().map(|p| self.filter(p)).collect();
                format!("({})", sql.join(" AND "))
            }
            Filter::Or(parts) if parts.is_empty() => "false".into(),
            Filter::Or(parts) => {
                let sql: Vec<String> = parts.iter().map(|p| self.filter(p)).collect();
                format!("({})", sql.join(" OR "))
            }
            Filter::Not(inner) => format!("(NOT {})", self.filter(inner)),
            Filter::TextIn { path, texts } if path == "_id" => {
                let t = self.bind(texts.clone());
                format!("(h.id = ANY({t}::text[]))")
            }
            Filter::TextIn { path, texts } => {
                // Strings equal to a text, or booleans whose JSON text is one (no text here is
                // the JSON text of a number).
                let x = self.path(path);
                let t = self.bind(texts.clone());
                format!(
                    "coalesce(jsonb_typeof({x}) IN ('string', 'boolean') AND ({x} #>> '{{}}') = ANY({t}::text[]), false)"
                )
            }
            Filter::Eq { path, value } => {
                let x = self.path(path);
                let v = self.bind(value.clone());
                format!(
                    "coalesce({x} = {v}::jsonb OR (jsonb_typeof({x}) = 'array' AND \
                     EXISTS (SELECT 1 FROM jsonb_array_elements({x}) e WHERE e = {v}::jsonb)), false)"
                )
            }
            Filter::Cmp {
                path,
                op,
                bound: Bound::Text(t),
            } => {
                let x = self.path(path);
                let v = self.bind(t.clone());
                format!(
                    "coalesce(jsonb_typeof({x}) = 'string' AND ({x} #>> '{{}}') COLLATE \"C\" {} {v}::text, false)",
                    op.sql()
                )
            }
            Filter::Exists { path, present } => {
                let x = self.path(path);
                format!("({x} IS {}NULL)", if *present { "NOT " } else { "" })
            }
            Filter::TypeIn(types) => {
                if types.is_empty() {
                    return "false".into();
                }
                let t = self.bind(types.clone());
                format!("coalesce(h.type = ANY({t}::text[]), false)")
            }
            Filter::Search(terms) => {
                let parts: Vec<String> = terms
                    .iter()
                    .map(|t| {
                        let alts: Vec<String> = t
                            .any_of
                            .iter()
                            .map(|a| {
                                format!("strpos(h.search, {}::text) > 0", self.bind(a.clone()))
                            })
                            .collect();
                        let any = if alts.is_empty() {
                            "false".to_string()
                        } else {
                            alts.join(" OR ")
                        };
                        format!("({}({any}))", if t.negated { "NOT " } else { "" })
                    })
                    .collect();
                if parts.is_empty() {
                    "true".into()
                } else {
                    format!("({})", parts.join(" AND "))
                }
            }
            // Never called for these (see `runs_in_sql`); false keeps the SQL valid.
            Filter::Cmp { .. } | Filter::Regex { .. } | Filter::Within { .. } => "false".into(),
        }
    }
}

/// Whether a text can only equal a stored string or boolean: it is not the JSON text of a
/// number, and does not look like JSON an array or object could render as.
fn plain_text(t: &str) -> bool {
    !(t.starts_with(['{', '[']) || serde_json::from_str::<serde_json::Number>(t).is_ok())
}

/// Whether PostgreSQL evaluates the filter exactly as `Filter::matches` does.
pub(crate) fn runs_in_sql(f: &Filter) -> bool {
    match f {
        Filter::And(parts) | Filter::Or(parts) => parts.iter().all(runs_in_sql),
        Filter::Not(inner) => runs_in_sql(inner),
        Filter::TextIn { path, texts } => path == "_id" || texts.iter().all(|t| plain_text(t)),
        Filter::Eq { value, .. } => {
            matches!(value, Value::String(_) | Value::Bool(_) | Value::Null)
        }
        Filter::Cmp { bound, .. } => matches!(bound, Bound::Text(_)),
        Filter::Exists { .. } | Filter::TypeIn(_) | Filter::Search(_) => true,
        Filter::Regex { .. } | Filter::Within { .. } => false,
    }
}

/// The top-level conjuncts of a filter: those that run in SQL, and the rest (run in memory).
pub(crate) fn split(f: &Filter) -> (Vec<&Filter>, Vec<&Filter>) {
    let parts: Vec<&Filter> = match f {
        Filter::And(parts) => parts.iter().collect(),
        other => vec![other],
    };
    parts.into_iter().partition(|p| runs_in_sql(p))
}
