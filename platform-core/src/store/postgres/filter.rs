//! Filters and sorts as SQL over each current document: its fields read from its filterable
//! `jsonb` form (`heads.body`: [`filter_copy`]), and the system fields from the columns of its
//! row and version (`_oid`, `_version`, `_timestamp`, `_user`, `_tag`), as
//! `StoredVersion::filter_doc` adds them.
//!
//! A filter runs in SQL only where PostgreSQL's meaning is exactly `Filter::matches`': the
//! `_id` and `_type` columns, text equality with strings and booleans, typed equality with a
//! string, boolean or null (array fields matching any element), text and number comparisons,
//! presence, `_search` (the folded search text the store computed in Rust). Dates, regular
//! expressions, distances and equality with arrays or objects run in memory, on the stored
//! body (whose text keeps field order and numbers as written): [`split`] separates the top-level
//! conjuncts that run in SQL from those that run in memory. The property test of the contract
//! suite holds the two together.
//!
//! Paths descend with `->` and text keys only, which never index into arrays (as `lookup` in
//! memory does not). Every leaf is true or false, never NULL, so `NOT` means what it means in
//! memory. Text keys and sorted text compare byte by byte (`COLLATE "C"`: code point order).

use crate::query::filter::{Bound, CmpOp, Filter, SearchTerm};
use crate::query::SortSpec;
use serde_json::Value;
use tokio_postgres::types::ToSql;

/// An argument of a statement.
pub(crate) type Arg = Box<dyn ToSql + Sync + Send>;

/// Builds SQL, collecting arguments (`$1, $2, ...` in order).
pub(crate) struct SqlBuilder {
    pub(crate) args: Vec<Arg>,
}

/// The columns of `heads h` filters read.
const ROW: &str = "h.";

/// The fields a document's filterable form takes from its row and version, not its body.
const SYSTEM: [&str; 5] = ["_oid", "_version", "_timestamp", "_user", "_tag"];

/// The JSON value of a top-level field `quoted` (an SQL text) of the row with columns prefixed
/// `row` (`h.`, or none in an index expression): a system field from its columns (its
/// version's row and tags read by key), any other from the filterable `jsonb` body.
pub(crate) fn top_field(row: &str, field: &str, quoted: &str) -> String {
    let version = format!("v.scope = {row}scope AND v.id = {row}id AND v.version = {row}version");
    match field {
        "_oid" => format!("to_jsonb({row}id)"),
        "_version" => format!("to_jsonb({row}version)"),
        "_timestamp" => format!(
            "(SELECT to_jsonb(to_char(v.timestamp AT TIME ZONE 'UTC', \
             'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')) FROM versions v WHERE {version})"
        ),
        "_user" => format!("(SELECT to_jsonb(v.\"user\") FROM versions v WHERE {version})"),
        "_tag" => {
            format!("to_jsonb(ARRAY(SELECT v.tag FROM tags v WHERE {version} ORDER BY v.tag))")
        }
        _ => format!("({row}body -> {quoted})"),
    }
}

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
        let mut segs = field.split('.');
        let first = segs.next().unwrap_or_default();
        let mut expr = match SYSTEM.contains(&first) {
            true => top_field(ROW, first, ""),
            false => {
                let p = self.bind(first.to_string());
                top_field(ROW, first, &format!("{p}::text"))
            }
        };
        for seg in segs {
            let p = self.bind(seg.to_string());
            expr = format!("({expr} -> {p}::text)");
        }
        expr
    }

    /// The JSON value at a dotted path of the row with columns prefixed `row` (`h.`, or none
    /// in an index expression), with the path written in the statement (not bound): the
    /// expression of a per-type index on the field.
    pub(crate) fn literal_path(row: &str, field: &str) -> String {
        let mut segs = field.split('.');
        let first = segs.next().unwrap_or_default();
        let mut expr = top_field(row, first, &quote(first));
        for seg in segs {
            expr = format!("({expr} -> {})", quote(seg));
        }
        expr
    }

    /// The ORDER BY terms of a sort: each field in SQLite's order of `->>` values (null and
    /// absent first, then numbers and booleans as 1 and 0 by value, then strings, arrays and
    /// objects by their text, byte by byte), as the three terms of [`sort_terms`]; the id
    /// breaks ties.
    pub(crate) fn order_by(&mut self, sort: &SortSpec) -> String {
        let mut terms: Vec<String> = Vec::with_capacity(sort.0.len() * 3 + 1);
        for k in &sort.0 {
            let dir = if k.descending { "DESC" } else { "ASC" };
            if k.field == "_id" {
                terms.push(format!("h.id {dir}"));
                continue;
            }
            for term in sort_terms(&Self::literal_path(ROW, &k.field)) {
                terms.push(format!("{term} {dir}"));
            }
        }
        terms.push("h.id ASC".into());
        terms.join(", ")
    }

    /// The condition selecting the rows that sort after a cursor in the order of
    /// [`order_by`](Self::order_by). Every term is non-null, so an ascending order is one
    /// row-value comparison `(terms..., id) > (values..., id)`, which an index on the terms
    /// answers as a range; any other order is the same comparison written out term by term.
    pub(crate) fn after(&mut self, sort: &SortSpec, cursor: &crate::query::Cursor) -> String {
        // (row term, cursor term, descending)
        let mut terms: Vec<(String, String, bool)> = Vec::new();
        for (k, value) in sort.0.iter().zip(&cursor.keys) {
            if k.field == "_id" {
                let v = self.bind(value.as_str().unwrap_or_default().to_string());
                terms.push(("h.id".into(), format!("{v}::text"), k.descending));
                continue;
            }
            let v = format!("{}::jsonb", self.bind(filter_copy(value.clone())));
            let row = sort_terms(&Self::literal_path(ROW, &k.field));
            for (r, c) in row.into_iter().zip(sort_terms(&v)) {
                terms.push((r, c, k.descending));
            }
        }
        let id = format!("{}::text", self.bind(cursor.id.clone()));
        if terms.iter().all(|(_, _, desc)| !desc) {
            let (rows, values): (Vec<String>, Vec<String>) = terms
                .into_iter()
                .map(|(r, c, _)| (r, c))
                .chain([("h.id".to_string(), id)])
                .unzip();
            return format!("(({}) > ({}))", rows.join(", "), values.join(", "));
        }
        let mut rest = format!("(h.id > {id})");
        for (r, c, desc) in terms.into_iter().rev() {
            let op = if desc { "<" } else { ">" };
            rest = format!("({r} {op} {c} OR ({r} = {c} AND {rest}))");
        }
        rest
    }

    /// Terms implied by the top-level conjuncts of a filter, written over the sort terms of
    /// their fields so that a per-type index on a field can be searched: text equality with
    /// plain texts, text comparisons, and number comparisons (inclusive, against the whole
    /// number past the double next to the bound, which every number the conjunct keeps
    /// passes, exact or rounded to a double). Each is true
    /// wherever its conjunct is, so adding them changes no answer.
    pub(crate) fn index_terms(&mut self, f: &Filter) -> Vec<String> {
        let parts: Vec<&Filter> = match f {
            Filter::And(parts) => parts.iter().collect(),
            other => vec![other],
        };
        let mut out = Vec::new();
        for part in parts {
            match part {
                Filter::TextIn { path, texts }
                    if path != "_id"
                        && texts
                            .iter()
                            .all(|t| plain_text(t) && t != "true" && t != "false") =>
                {
                    let [class, number, text] = sort_terms(&Self::literal_path(ROW, path));
                    // One text as an equality: PostgreSQL (before 17) searches a column after
                    // the first by `= ANY` only in bitmap scans.
                    let equal = match texts.as_slice() {
                        [one] => format!("= {}::text", self.bind(one.clone())),
                        many => format!("= ANY({}::text[])", self.bind(many.to_vec())),
                    };
                    out.push(format!("({class} = 2 AND {number} = 0 AND {text} {equal})"));
                }
                Filter::Cmp {
                    path,
                    op,
                    bound: Bound::Text(t),
                } if path != "_id" => {
                    let [class, number, text] = sort_terms(&Self::literal_path(ROW, path));
                    let v = self.bind(t.clone());
                    out.push(format!(
                        "({class} = 2 AND {number} = 0 AND {text} {} {v}::text)",
                        op.sql()
                    ));
                }
                Filter::Cmp {
                    path,
                    op,
                    bound: Bound::Number(b),
                } if path != "_id" && b.is_finite() => {
                    let [class, number, _] = sort_terms(&Self::literal_path(ROW, path));
                    // A number the conjunct keeps lies beyond the double next to the bound
                    // (one it compares as a double may round onto the bound itself), so the
                    // whole number past that double is a bound it always passes.
                    let (whole, o) = match op {
                        CmpOp::Gt | CmpOp::Gte => (b.next_down().floor(), ">="),
                        CmpOp::Lt | CmpOp::Lte => (b.next_up().ceil(), "<="),
                    };
                    // The whole number exactly, however large (`{:.0}` prints a double's
                    // exact value).
                    let k = self.bind(format!("{whole:.0}"));
                    out.push(format!("({class} = 1 AND {number} {o} {k}::text::numeric)"));
                }
                _ => {}
            }
        }
        out
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
            Filter::TextIn { path, texts } => self.text_in(path, texts),
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
            Filter::Cmp {
                path,
                op,
                bound: Bound::Number(b),
            } => self.number_cmp(path, *op, *b),
            Filter::Exists { path, present } => {
                let x = self.path(path);
                format!("({x} IS {}NULL)", if *present { "NOT " } else { "" })
            }
            Filter::TypeIn(types) => self.type_in(types),
            Filter::Search(terms) => self.search(terms),
            // Never called for these (see `runs_in_sql`); false keeps the SQL valid.
            Filter::Cmp { .. } | Filter::Regex { .. } | Filter::Within { .. } => "false".into(),
        }
    }

    /// `_id` among texts; any other field a string equal to one of them, or a boolean whose
    /// JSON text is one (no text here is the JSON text of a number).
    fn text_in(&mut self, path: &str, texts: &[String]) -> String {
        if path == "_id" {
            let t = self.bind(texts.to_vec());
            return format!("(h.id = ANY({t}::text[]))");
        }
        let x = self.path(path);
        let t = self.bind(texts.to_vec());
        format!(
            "coalesce(jsonb_typeof({x}) IN ('string', 'boolean') AND ({x} #>> '{{}}') = ANY({t}::text[]), false)"
        )
    }

    /// A comparison with a number, as `compare` in memory: a number written as an integer of
    /// 64 bits compares exactly with the bound (as an integer against the bound's floor or
    /// ceiling, which is the same order), any other number as a double (PostgreSQL reads its
    /// text to the nearest double, as serde_json does). The heads' copy writes every double so
    /// that its text reads back to itself ([`filter_copy`]).
    fn number_cmp(&mut self, path: &str, op: CmpOp, b: f64) -> String {
        let x = self.path(path);
        let t = format!("({x} #>> '{{}}')");
        let whole = match op {
            CmpOp::Gt | CmpOp::Lte => b.floor(),
            CmpOp::Gte | CmpOp::Lt => b.ceil(),
        };
        let k = self.bind(clamped_whole(whole).to_string());
        let r = self.bind(b);
        let o = op.sql();
        // An integer of at most 18 digits is one of 64 bits without reading it as a number.
        format!(
            "(CASE WHEN jsonb_typeof({x}) = 'number' THEN (CASE WHEN {t} ~ '^-?[0-9]{{1,18}}$' \
             OR ({t} ~ '^-?[0-9]{{19}}$' \
             AND {t}::numeric BETWEEN -9223372036854775808 AND 9223372036854775807) \
             THEN {t}::numeric {o} {k}::text::numeric ELSE {t}::float8 {o} {r}::float8 END) \
             ELSE false END)"
        )
    }

    /// The type among `types`. One type is written in the statement, as a per-type index's
    /// WHERE says it (a NUL, which no text of the database holds, cannot be written: bound).
    fn type_in(&mut self, types: &[String]) -> String {
        match types {
            [] => "false".into(),
            [one] if !one.contains('\0') => {
                format!("(h.type IS NOT NULL AND h.type = {})", quote(one))
            }
            _ => {
                let t = self.bind(types.to_vec());
                format!("coalesce(h.type = ANY({t}::text[]), false)")
            }
        }
    }

    /// `_search`: every term (one of its alternatives) found in the search text, or not found
    /// where negated.
    fn search(&mut self, terms: &[SearchTerm]) -> String {
        let parts: Vec<String> = terms
            .iter()
            .map(|t| {
                let alts: Vec<String> = t
                    .any_of
                    .iter()
                    .map(|a| format!("strpos(h.search, {}::text) > 0", self.bind(a.clone())))
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
}

/// The three sort terms of a JSON value `x` (an expression, NULL when absent), never NULL: its
/// class (0 null or absent, 1 number or boolean, 2 string, array or object), its number
/// (booleans as 1 and 0; 0 outside class 1), its text (byte order; empty outside class 2).
/// Within a class the other two terms are constant, so they order as the class's own value.
pub(crate) fn sort_terms(x: &str) -> [String; 3] {
    [
        format!(
            "(CASE jsonb_typeof({x}) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 \
             WHEN 'string' THEN 2 WHEN 'array' THEN 2 WHEN 'object' THEN 2 ELSE 0 END)"
        ),
        format!(
            "coalesce(CASE jsonb_typeof({x}) WHEN 'number' THEN ({x} #>> '{{}}')::numeric \
             WHEN 'boolean' THEN (CASE WHEN {x} = 'true'::jsonb THEN 1 ELSE 0 END) END, 0)"
        ),
        format!(
            "(coalesce(CASE jsonb_typeof({x}) WHEN 'string' THEN {x} #>> '{{}}' \
             WHEN 'array' THEN {x}::text WHEN 'object' THEN {x}::text END, '') COLLATE \"C\")"
        ),
    ]
}

/// An SQL string literal (quotes doubled; the store's connections keep
/// `standard_conforming_strings` on, PostgreSQL's default).
pub(crate) fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// A whole number (a double's floor or ceiling) as an integer, held just outside the range of
/// 64-bit integers when beyond it: against any stored integer of 64 bits it orders the same.
fn clamped_whole(whole: f64) -> i128 {
    const LOW: f64 = -9_223_372_036_854_775_808.0;
    if whole < LOW {
        i128::from(i64::MIN) - 1
    } else if whole >= -LOW {
        i128::from(i64::MAX) + 1
    } else {
        whole as i128
    }
}

/// The heads' `jsonb` copy of a document: the document with each double that is a whole
/// number from 2^53 up to 2^63 (in size) written as its exact integer. `jsonb` keeps a number's
/// decimal value, and serde_json writes a double as its shortest round-trip text
/// (`1.2345678901234568e18`), whose decimal value is not the double's; in that range such a
/// text would read in SQL as an integer other than the double. Every other double's text reads
/// back to itself as a double, and an integer as written stays an integer.
pub(crate) fn filter_copy(v: Value) -> Value {
    match v {
        Value::Number(n) if n.as_i64().is_none() && n.as_u64().is_none() => {
            let f = n.as_f64().unwrap_or(0.0);
            const TWO_53: f64 = 9_007_199_254_740_992.0;
            const TWO_63: f64 = 9_223_372_036_854_775_808.0;
            if f.abs() >= TWO_53 && f.abs() < TWO_63 {
                Value::from(f as i64)
            } else {
                Value::Number(n)
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(filter_copy).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, filter_copy(v))).collect())
        }
        other => other,
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
        Filter::Cmp { bound, .. } => matches!(bound, Bound::Text(_) | Bound::Number(_)),
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
