//! Filters as SQL over the JSONB copy of each current document (`heads.body`), with the same
//! meaning as `Filter::matches` (a property test holds the two together). The system fields
//! (`_oid _version _timestamp _user _tag`) are columns of the current row, not part of its
//! body: a filter or sort on one reads it from a one-field JSONB object made of its column
//! ([`SqlBuilder::doc_of`]), so it means what a body field would.
//!
//! Every leaf yields 0 or 1, never NULL, so `NOT` behaves as in memory (a document without the
//! field matches `ne`). Dates, regular expressions, distances and case folding run in
//! functions registered on each connection ([`register_functions`]) that call the same Rust
//! code as the in-memory evaluation.

use crate::query::filter::{self, Bound, Filter};
use rusqlite::functions::FunctionFlags;
use rusqlite::types::Value as SqlValue;
use rusqlite::Connection;
use serde_json::Value;

/// Column names of the table being filtered.
pub struct Columns {
    /// The JSONB document.
    pub body: &'static str,
    /// The id column (used for `_id`).
    pub id: &'static str,
    /// The `_type` column (the type's key, `type_keys`).
    pub type_: &'static str,
    /// The folded search text column: the search fields after `_id` and `name`, which
    /// `id_fold` and `name_fold` hold folded.
    pub search: &'static str,
    /// The folded id (an expression of the columns, see `layout`).
    pub id_fold: &'static str,
    /// The folded name (NULL where the name is not text).
    pub name_fold: &'static str,
    /// The version number (`_version`).
    pub version: &'static str,
    /// The version's time as text (`_timestamp`; an expression of the column, see `layout`).
    pub timestamp: &'static str,
    /// The version's author (`_user`).
    pub user: &'static str,
    /// The version's tags as a JSON array, NULL for none (`_tag`).
    pub tags: &'static str,
    /// Which leading fields the body keeps in the row's columns (`lead`, see `layout`); empty
    /// in an index's expressions, which may not read another table (a type's own indexes are
    /// not made on `_type`).
    pub lead: &'static str,
}

/// The columns of `heads h`.
pub const HEADS: Columns = Columns {
    body: "h.body",
    id: "h.id",
    type_: "h.type",
    search: "h.search",
    id_fold: super::stored::ID_FOLD,
    name_fold: "h.name_fold",
    version: "h.version",
    timestamp: super::stored::TIME_TEXT,
    user: "h.user",
    tags: "h.tags",
    lead: "h.lead",
};

/// The columns of `heads` unqualified (in index definitions).
pub const HEADS_BARE: Columns = Columns {
    body: "body",
    id: "id",
    type_: "type",
    search: "search",
    id_fold: super::stored::ID_FOLD_BARE,
    name_fold: "name_fold",
    version: "version",
    timestamp: super::stored::TIME_TEXT_BARE,
    user: "user",
    tags: "tags",
    lead: "",
};

/// The JSONB document a field's path is read from: the body, or for a path into a system
/// field (kept in a column of its own) a one-field object of that column.
pub fn doc_of(cols: &Columns, field: &str) -> String {
    let root = field.split('.').next().unwrap_or(field);
    let column = match root {
        "_oid" => cols.id.to_string(),
        "_version" => cols.version.to_string(),
        "_timestamp" => cols.timestamp.to_string(),
        "_user" => cols.user.to_string(),
        // `json()` marks the text as JSON, so the object holds the array, not a string.
        "_tag" => format!("json(coalesce({}, '[]'))", cols.tags),
        // The body's `_id` is the document's id (where the body has one: where it has none,
        // the document is shown with its id as `_id`).
        "_id" => cols.id.to_string(),
        // Where the row keeps the body's `_type` apart (`lead` 1), the type its key names.
        "_type" if cols.lead.is_empty() => return cols.body.to_string(),
        "_type" => {
            return format!(
                "CASE {lead} WHEN 1 THEN (SELECT jsonb_object('_type', k.type) FROM type_keys k \
                 WHERE k.tk = {ty}) ELSE {body} END",
                lead = cols.lead,
                ty = cols.type_,
                body = cols.body
            )
        }
        _ => return cols.body.to_string(),
    };
    format!("jsonb_object('{root}', {column})")
}

/// A JSON path for a dotted field path (segments quoted; field names never hold quotes).
pub fn json_path(field: &str) -> String {
    let mut path = String::from("$");
    for seg in field.split('.') {
        path.push_str(".\"");
        path.push_str(seg);
        path.push('"');
    }
    path
}

/// Builds SQL for filters, collecting bound arguments.
pub struct SqlBuilder<'a> {
    /// Arguments, bound as `?1, ?2, ...` in order.
    pub args: Vec<SqlValue>,
    cols: &'a Columns,
    /// The keys of the types the filter names (a type without one matches nothing; none
    /// given, no type has one).
    types: Option<&'a super::keys::TypeKeys>,
}

impl<'a> SqlBuilder<'a> {
    /// A builder continuing after `args` already bound.
    pub fn new(cols: &'a Columns, args: Vec<SqlValue>) -> Self {
        SqlBuilder {
            args,
            cols,
            types: None,
        }
    }

    /// A builder of filters on `_type`, given the keys of the types they name.
    pub fn with_types(
        cols: &'a Columns,
        args: Vec<SqlValue>,
        types: &'a super::keys::TypeKeys,
    ) -> Self {
        SqlBuilder {
            args,
            cols,
            types: Some(types),
        }
    }

    /// Binds a value and returns its placeholder.
    pub fn bind(&mut self, v: impl Into<SqlValue>) -> String {
        self.args.push(v.into());
        format!("?{}", self.args.len())
    }

    /// The ORDER BY terms of a sort spec; the id always breaks ties.
    pub fn order_by(&mut self, sort: &crate::query::SortSpec) -> String {
        let mut terms: Vec<String> = Vec::with_capacity(sort.0.len() + 1);
        for k in &sort.0 {
            let expr = if k.field == "_id" {
                self.cols.id.to_string()
            } else {
                self.sort_expr(&k.field)
            };
            terms.push(format!(
                "{expr} {}",
                if k.descending { "DESC" } else { "ASC" }
            ));
        }
        terms.push(format!("{} ASC", self.cols.id));
        terms.join(", ")
    }

    /// The condition selecting the rows that sort after a cursor in the order of
    /// [`order_by`](Self::order_by) (`NULL` first ascending, last descending; `_id` breaking
    /// ties). An ascending order whose cursor has no null key is one row-value comparison
    /// `(k1, ..., id) > (?, ..., ?)` (with `k1 >= ?` beside it, the range an index on `k1` is
    /// read by); any other is the same comparison written out key by key.
    pub fn after(
        &mut self,
        sort: &crate::query::SortSpec,
        cursor: &crate::query::Cursor,
    ) -> String {
        let exprs: Vec<String> = sort
            .0
            .iter()
            .map(|k| {
                if k.field == "_id" {
                    self.cols.id.to_string()
                } else {
                    self.sort_expr(&k.field)
                }
            })
            .collect();
        let values: Vec<SqlValue> = cursor.keys.iter().map(sort_value).collect();
        if sort.0.iter().all(|k| !k.descending) && values.iter().all(|v| *v != SqlValue::Null) {
            let mut left = exprs.clone();
            left.push(self.cols.id.to_string());
            let mut right: Vec<String> = values.into_iter().map(|v| self.bind(v)).collect();
            right.push(self.bind(cursor.id.clone()));
            let vector = format!("(({}) > ({}))", left.join(", "), right.join(", "));
            // SQLite searches an index by a row value only when its first term is a column;
            // for an expression the first key's own bound is what the index range is read by.
            return match sort.0.first() {
                Some(k) if k.field != "_id" => {
                    format!("({} >= {} AND {vector})", left[0], right[0])
                }
                _ => vector,
            };
        }
        let mut rest = format!("({} > {})", self.cols.id, self.bind(cursor.id.clone()));
        for ((key, expr), value) in sort.0.iter().zip(&exprs).zip(values).rev() {
            rest = match (value, key.descending) {
                (SqlValue::Null, false) => {
                    format!("({expr} IS NOT NULL OR ({expr} IS NULL AND {rest}))")
                }
                (SqlValue::Null, true) => format!("({expr} IS NULL AND {rest})"),
                (v, false) => {
                    let v = self.bind(v);
                    format!("({expr} > {v} OR ({expr} = {v} AND {rest}))")
                }
                (v, true) => {
                    let v = self.bind(v);
                    format!("({expr} < {v} OR {expr} IS NULL OR ({expr} = {v} AND {rest}))")
                }
            };
        }
        rest
    }

    /// The value a list sorts a field by, `(body ->> '<path>')` with the path written in the
    /// statement (not bound), so that it is the expression of a per-type index on the field.
    pub fn sort_expr(&mut self, field: &str) -> String {
        let p = self.path(field);
        format!("({} ->> {})", doc_of(self.cols, field), p)
    }

    /// Terms implied by the top-level conjuncts of a filter on fields that a per-type index may
    /// hold, written so that SQLite can search such an index: `(body ->> '<path>')` compared
    /// with the bound values (text equality with plain texts and canonical integers, number
    /// and text comparisons). Each is true wherever its conjunct is, so adding them changes no
    /// answer; the conjunct itself still decides. They are marked `unlikely` (selective): the
    /// planner, which has no statistics, then searches the index rather than walking the
    /// collection in `_id` order in the hope of filling the page early.
    pub fn index_terms(&mut self, f: &Filter) -> Vec<String> {
        let parts: Vec<&Filter> = match f {
            Filter::And(parts) => parts.iter().collect(),
            other => vec![other],
        };
        let mut terms = Vec::new();
        for part in parts {
            match part {
                Filter::TextIn { path, texts }
                    if path != "_id"
                        && texts.iter().all(|t| {
                            plain_text(t) || t.parse::<i64>().is_ok_and(|i| i.to_string() == *t)
                        }) =>
                {
                    let expr = self.sort_expr(path);
                    let mut marks: Vec<String> = Vec::new();
                    for t in texts {
                        marks.push(self.bind(t.clone()));
                        if let Ok(i) = t.parse::<i64>() {
                            marks.push(self.bind(i));
                        }
                    }
                    terms.push(format!("unlikely({expr} IN ({}))", marks.join(", ")));
                }
                Filter::Cmp {
                    path,
                    op,
                    bound: Bound::Number(n),
                } if path != "_id" => {
                    let expr = self.sort_expr(path);
                    let v = self.bind(*n);
                    terms.push(format!("unlikely({expr} {} {v})", op.sql()));
                }
                Filter::Cmp {
                    path,
                    op,
                    bound: Bound::Text(t),
                } if path != "_id" => {
                    let expr = self.sort_expr(path);
                    let v = self.bind(t.clone());
                    terms.push(format!("unlikely({expr} {} {v})", op.sql()));
                }
                _ => {}
            }
        }
        terms
    }

    /// The JSON path of a field, written in the statement: a bound path next to the literal
    /// one of an indexed expression keeps SQLite from using a per-type index (a NUL, which
    /// would end the statement's text, is bound instead).
    fn path(&mut self, field: &str) -> String {
        if field.contains('\0') {
            return self.bind(json_path(field));
        }
        quote(&json_path(field))
    }

    /// The SQL of a filter (an expression that is 0 or 1).
    ///
    /// Long `AND`/`OR` lists are parenthesised as balanced trees: SQLite parses `a OR b OR c`
    /// into a chain as deep as the list is long, and its expression depth is bounded (1,000).
    pub fn filter(&mut self, f: &Filter) -> String {
        match f {
            Filter::And(parts) if parts.is_empty() => "1".into(),
            Filter::And(parts) => {
                let sql: Vec<String> = parts.iter().map(|p| self.filter(p)).collect();
                balanced(&sql, " AND ")
            }
            Filter::Or(parts) if parts.is_empty() => "0".into(),
            Filter::Or(parts) => {
                let sql: Vec<String> = parts.iter().map(|p| self.filter(p)).collect();
                balanced(&sql, " OR ")
            }
            Filter::Not(inner) => format!("(NOT {})", self.filter(inner)),
            Filter::TextIn { path, texts } => self.text_in(path, texts),
            Filter::Eq { path, value } => self.eq(path, value),
            Filter::Cmp { path, op, bound } => self.cmp(path, op.sql(), bound),
            Filter::Exists { path, present } => {
                let p = self.path(path);
                let b = doc_of(self.cols, path);
                format!(
                    "(json_type({b}, {p}) IS {}NULL)",
                    if *present { "NOT " } else { "" }
                )
            }
            Filter::Regex {
                path,
                pattern,
                ignore_case,
            } => {
                let p = self.path(path);
                let b = doc_of(self.cols, path);
                let pat = self.bind(if *ignore_case {
                    format!("(?i){pattern}")
                } else {
                    pattern.clone()
                });
                format!(
                    "coalesce(json_type({b}, {p}) = 'text' AND pf_regex({pat}, {b} ->> {p}), 0)"
                )
            }
            Filter::Within {
                path,
                lon,
                lat,
                radius,
            } => {
                let p = self.path(path);
                let b = doc_of(self.cols, path);
                let (x, y, r) = (self.bind(*lon), self.bind(*lat), self.bind(*radius));
                format!("coalesce(pf_within({b} -> {p}, {x}, {y}, {r}), 0)")
            }
            Filter::TypeIn(types) => self.type_in(types),
            Filter::Search(terms) => {
                let parts: Vec<String> = terms
                    .iter()
                    .map(|t| {
                        let alts: Vec<String> =
                            t.any_of.iter().map(|a| self.search_word(a)).collect();
                        format!(
                            "({}({}))",
                            if t.negated { "NOT " } else { "" },
                            alts.join(" OR ")
                        )
                    })
                    .collect();
                format!("({})", parts.join(" AND "))
            }
        }
    }

    /// `_id` among texts; any other field a string equal to one of them (when no number,
    /// boolean or JSON text can equal them, a string comparison suffices: `->>` gives numbers
    /// as numbers, which never equal text), or a number or boolean whose JSON text is one.
    fn text_in(&mut self, path: &str, texts: &[String]) -> String {
        if path == "_id" {
            let marks: Vec<String> = texts.iter().map(|t| self.bind(t.clone())).collect();
            return format!("({} IN ({}))", self.cols.id, marks.join(", "));
        }
        let p = self.path(path);
        let b = doc_of(self.cols, path);
        let marks: Vec<String> = texts.iter().map(|t| self.bind(t.clone())).collect();
        if texts.iter().all(|t| plain_text(t)) {
            return format!("coalesce(({b} ->> {p}) IN ({}), 0)", marks.join(", "));
        }
        format!(
            "coalesce((CASE json_type({b}, {p}) WHEN 'text' THEN {b} ->> {p} \
             WHEN 'integer' THEN {b} -> {p} WHEN 'real' THEN {b} -> {p} \
             WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END) IN ({}), 0)",
            marks.join(", ")
        )
    }

    /// A comparison (`o`, its SQL operator) of a field with a number, a date or a text, each
    /// only against values of its own kind.
    fn cmp(&mut self, path: &str, o: &str, bound: &Bound) -> String {
        let p = self.path(path);
        let b = doc_of(self.cols, path);
        match bound {
            Bound::Number(n) => {
                let v = self.bind(*n);
                format!("coalesce(json_type({b}, {p}) IN ('integer', 'real') AND ({b} ->> {p}) {o} {v}, 0)")
            }
            Bound::Date(secs) => {
                let v = self.bind(*secs);
                format!(
                    "coalesce(json_type({b}, {p}) = 'text' AND pf_date({b} ->> {p}) {o} {v}, 0)"
                )
            }
            Bound::Text(t) => {
                let v = self.bind(t.clone());
                format!("coalesce(json_type({b}, {p}) = 'text' AND ({b} ->> {p}) {o} {v}, 0)")
            }
        }
    }

    /// The type among `types`, by their keys written in the statement: `type = <key>` is what
    /// a per-type index's WHERE says, and SQLite uses such an index only where the query says
    /// it too. A type without a key is that of no document.
    fn type_in(&mut self, types: &[String]) -> String {
        let mut keys: Vec<String> = Vec::with_capacity(types.len());
        for key in types.iter().filter_map(|t| self.types?.get(t)) {
            let key = key.to_string();
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        match keys.as_slice() {
            [] => "0".into(),
            [one] => format!("({} = {one})", self.cols.type_),
            many => format!("({} IN ({}))", self.cols.type_, many.join(", ")),
        }
    }

    /// Whether the folded search text (`filter::search_text`: the folded id, name,
    /// description and classification joined by newlines) holds a word. The text is kept in
    /// three columns: a word without a newline is looked for in each, one with a newline (a
    /// quoted phrase) in the three joined again as the text is.
    fn search_word(&mut self, word: &str) -> String {
        let c = self.cols;
        let id = c.id_fold;
        let w = self.bind(word.to_string());
        if word.contains('\n') {
            format!(
                "(instr({id} || char(10) || coalesce({}, '') || char(10) || {}, {w}) > 0)",
                c.name_fold, c.search
            )
        } else {
            format!(
                "(instr({id}, {w}) > 0 OR coalesce(instr({}, {w}), 0) > 0 OR instr({}, {w}) > 0)",
                c.name_fold, c.search
            )
        }
    }

    fn eq(&mut self, path: &str, value: &Value) -> String {
        let p = self.path(path);
        let b = doc_of(self.cols, path);
        // The element test for arrays, and the test for the value itself.
        let (own, element) = match value {
            Value::String(s) => {
                let v = self.bind(s.clone());
                (
                    format!("json_type({b}, {p}) = 'text' AND ({b} ->> {p}) = {v}"),
                    format!("e.type = 'text' AND e.value = {v}"),
                )
            }
            Value::Number(n) => {
                // An integer is bound as one, so SQLite compares it exactly (2^53 + 1 is not
                // 2^53), as `Filter::matches` does.
                let v = match filter::SqlNumber::of(n) {
                    filter::SqlNumber::Int(i) => self.bind(i),
                    filter::SqlNumber::Real(x) => self.bind(x),
                };
                (
                    format!("json_type({b}, {p}) IN ('integer', 'real') AND ({b} ->> {p}) = {v}"),
                    format!("e.type IN ('integer', 'real') AND e.value = {v}"),
                )
            }
            Value::Bool(x) => {
                let kind = if *x { "'true'" } else { "'false'" };
                (
                    format!("json_type({b}, {p}) = {kind}"),
                    format!("e.type = {kind}"),
                )
            }
            Value::Null => (
                format!("json_type({b}, {p}) = 'null'"),
                "e.type = 'null'".into(),
            ),
            Value::Array(_) => {
                let v = self.bind(value.to_string());
                return format!(
                    "coalesce(json_type({b}, {p}) = 'array' AND ({b} -> {p}) = json({v}), 0)"
                );
            }
            Value::Object(_) => {
                let v = self.bind(value.to_string());
                (
                    format!("json_type({b}, {p}) = 'object' AND ({b} -> {p}) = json({v})"),
                    format!("e.type = 'object' AND e.value = json({v})"),
                )
            }
        };
        format!(
            "coalesce(({own}) OR (json_type({b}, {p}) = 'array' AND \
             EXISTS (SELECT 1 FROM json_each({b}, {p}) e WHERE {element})), 0)"
        )
    }
}

/// An SQL string literal of a text (quotes doubled; SQLite literals hold any other character).
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// A JSON value as `->>` gives it, which is what lists sort by: NULL for null, booleans as 1
/// and 0, numbers as numbers, strings as text, arrays and objects as their JSON text.
fn sort_value(v: &Value) -> SqlValue {
    match v {
        Value::Null => SqlValue::Null,
        Value::Bool(b) => SqlValue::Integer(i64::from(*b)),
        Value::Number(n) => match filter::SqlNumber::of(n) {
            filter::SqlNumber::Int(i) => SqlValue::Integer(i),
            filter::SqlNumber::Real(x) => SqlValue::Real(x),
        },
        Value::String(s) => SqlValue::Text(s.clone()),
        other => SqlValue::Text(other.to_string()),
    }
}

/// Whether a text can only ever equal a stored string: it is not the JSON text of a number or
/// boolean, and does not look like JSON an array or object could render as.
fn plain_text(t: &str) -> bool {
    !(t == "true"
        || t == "false"
        || t.starts_with(['{', '['])
        || serde_json::from_str::<serde_json::Number>(t).is_ok())
}

/// Registers the platform's SQL functions on a connection.
pub fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("pf_date", 1, flags, |ctx| {
        // SQLite may call this on non-text values too (AND does not always short-circuit).
        Ok(text_arg(ctx, 0).and_then(filter::parse_date))
    })?;
    conn.create_scalar_function("pf_regex", 2, flags, |ctx| {
        let Some(text) = text_arg(ctx, 1) else {
            return Ok(false);
        };
        // Compiled once per statement and pattern.
        let re = ctx.get_or_create_aux(
            0,
            |v| -> Result<regex::Regex, Box<dyn std::error::Error + Send + Sync>> {
                Ok(filter::build_regex(v.as_str()?, false)?)
            },
        )?;
        Ok(re.is_match(text))
    })?;
    conn.create_scalar_function("pf_within", 4, flags, |ctx| {
        let Some(json) = text_arg(ctx, 0) else {
            return Ok(false);
        };
        let (lon, lat, r): (f64, f64, f64) = (ctx.get(1)?, ctx.get(2)?, ctx.get(3)?);
        let point = serde_json::from_str::<Value>(json)
            .ok()
            .and_then(|v| filter::point_of(&v));
        Ok(point.is_some_and(|(x, y)| filter::central_angle(lon, lat, x, y) <= r))
    })?;
    conn.create_scalar_function("pf_search_text", 1, flags, |ctx| {
        let body: String = ctx.get(0)?;
        let doc: serde_json::Map<String, Value> = serde_json::from_str(&body).unwrap_or_default();
        Ok(filter::search_text(&doc))
    })?;
    // The search text after the folded id and name (the current row keeps those apart).
    conn.create_scalar_function("pf_search_rest", 1, flags, |ctx| {
        let body: String = ctx.get(0)?;
        let doc: serde_json::Map<String, Value> = serde_json::from_str(&body).unwrap_or_default();
        Ok(filter::search_text_after_name(&doc))
    })?;
    conn.create_scalar_function("pf_fold", 1, flags, |ctx| {
        Ok(text_arg(ctx, 0).map(filter::fold))
    })?;
    // The folding a current row keeps (`layout`): NULL where `lower()` gives it.
    conn.create_scalar_function("pf_fold_kept", 1, flags, |ctx| {
        Ok(text_arg(ctx, 0).and_then(super::stored::fold_kept))
    })?;
    conn.create_scalar_function("pf_bucket", 1, flags, |ctx| {
        Ok(text_arg(ctx, 0).map_or(0, crate::query::total::sample_bucket))
    })?;
    Ok(())
}

/// A text argument of a function call, or `None` for any other type.
fn text_arg<'a>(ctx: &'a rusqlite::functions::Context<'_>, i: usize) -> Option<&'a str> {
    match ctx.get_raw(i) {
        rusqlite::types::ValueRef::Text(bytes) => std::str::from_utf8(bytes).ok(),
        _ => None,
    }
}

/// `parts` joined by `op` (`" AND "` or `" OR "`), nested in halves so that the expression is
/// about log2(n) deep rather than n.
fn balanced(parts: &[String], op: &str) -> String {
    const FLAT: usize = 8;
    if parts.len() <= FLAT {
        return format!("({})", parts.join(op));
    }
    let (left, right) = parts.split_at(parts.len() / 2);
    format!("({}{op}{})", balanced(left, op), balanced(right, op))
}
