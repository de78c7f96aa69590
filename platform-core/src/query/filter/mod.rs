//! Filters on list calls: query-parameter filters and the `_filter` JSON object, parsed into one
//! predicate tree ([`Filter`]) that a store evaluates where the data is (SQL over the stored
//! JSON) and that [`Filter::matches`] evaluates in memory with the same meaning.
//!
//! Two grammars give filters: query parameters (`field=value`, several AND together; the
//! `param` module) and the `_filter` JSON object (MongoDB style, ANDed with everything else; the
//! `json` module). Here the tree and what it means.

mod json;
mod param;

pub use json::parse_json_filter;
pub use param::parse_param;

use crate::error::{Error, Result};
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use serde_json::{Map, Value};

/// A predicate over a document.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// Every part holds (true when empty).
    And(Vec<Filter>),
    /// At least one part holds.
    Or(Vec<Filter>),
    /// The part does not hold.
    Not(Box<Filter>),
    /// Text equality of a field with any of these texts (query-parameter semantics).
    TextIn {
        /// Dotted path.
        path: String,
        /// Texts to match.
        texts: Vec<String>,
    },
    /// Typed JSON equality (array fields match any element).
    Eq {
        /// Dotted path.
        path: String,
        /// The value.
        value: Value,
    },
    /// An ordered comparison.
    Cmp {
        /// Dotted path.
        path: String,
        /// The operator.
        op: CmpOp,
        /// What the field is compared with.
        bound: Bound,
    },
    /// The field is present (or absent).
    Exists {
        /// Dotted path.
        path: String,
        /// True for present.
        present: bool,
    },
    /// A string field matches a regular expression.
    Regex {
        /// Dotted path.
        path: String,
        /// The pattern (already checked to compile).
        pattern: String,
        /// Case-insensitive.
        ignore_case: bool,
    },
    /// `geolocation` lies within `radius` radians of a point.
    Within {
        /// Dotted path of the location.
        path: String,
        /// Longitude of the centre, degrees.
        lon: f64,
        /// Latitude of the centre, degrees.
        lat: f64,
        /// Angular radius, radians.
        radius: f64,
    },
    /// `_type` is one of these names.
    TypeIn(Vec<String>),
    /// Every term group matches the searchable text (see `query::search`).
    Search(Vec<SearchTerm>),
}

/// One term of a search: any of the alternatives is contained (or, negated, none is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchTerm {
    /// Alternatives, case-folded.
    pub any_of: Vec<String>,
    /// True for `-term`.
    pub negated: bool,
}

/// An ordered comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// Greater than.
    Gt,
    /// Greater or equal.
    Gte,
    /// Less than.
    Lt,
    /// Less or equal.
    Lte,
}

impl CmpOp {
    internal! {
        /// The SQL operator.
        fn sql(self) -> &'static str {
            match self {
                CmpOp::Gt => ">",
                CmpOp::Gte => ">=",
                CmpOp::Lt => "<",
                CmpOp::Lte => "<=",
            }
        }
    }

    fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CmpOp::Gt => ord == Greater,
            CmpOp::Gte => ord != Less,
            CmpOp::Lt => ord == Less,
            CmpOp::Lte => ord != Greater,
        }
    }
}

/// What an ordered comparison compares with; the kind decides how stored values compare.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// Stored JSON numbers, numerically.
    Number(f64),
    /// Stored ISO-date strings, chronologically (seconds since the epoch).
    Date(f64),
    /// Stored strings, by code point.
    Text(String),
}

/// The most conditions one list query may hold: every comparison counts one, and every value of
/// an `in(...)`, `$in` or `$nin` list counts one (query parameters and `_filter` together).
pub const MAX_FILTER_TERMS: usize = 1_000;

impl Filter {
    /// How many conditions the filter holds (see [`MAX_FILTER_TERMS`]).
    pub fn terms(&self) -> usize {
        match self {
            Filter::And(parts) | Filter::Or(parts) => parts.iter().map(Filter::terms).sum(),
            Filter::Not(inner) => inner.terms(),
            Filter::TextIn { texts, .. } => texts.len().max(1),
            Filter::TypeIn(types) => types.len().max(1),
            Filter::Search(terms) => terms.iter().map(|t| t.any_of.len()).sum(),
            _ => 1,
        }
    }

    /// Refuses a filter of more than [`MAX_FILTER_TERMS`] conditions.
    pub fn check_size(&self) -> Result<()> {
        let n = self.terms();
        if n > MAX_FILTER_TERMS {
            return Err(Error::invalid_parameter(format!(
                "the filter holds {n} conditions (values of in-lists included); a query takes at most {MAX_FILTER_TERMS}"
            )));
        }
        Ok(())
    }

    /// The filter that keeps everything.
    pub fn all() -> Filter {
        Filter::And(Vec::new())
    }

    /// Combines filters with AND, flattening and dropping trivial parts.
    pub fn and(parts: Vec<Filter>) -> Filter {
        let mut flat = Vec::new();
        for p in parts {
            match p {
                Filter::And(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        if flat.len() == 1 {
            flat.pop().unwrap_or_else(Filter::all)
        } else {
            Filter::And(flat)
        }
    }

    /// Whether this filter keeps everything.
    pub fn is_all(&self) -> bool {
        matches!(self, Filter::And(parts) if parts.is_empty())
    }

    /// The ordered comparisons on text, as (path, operator) pairs: the caller checks the fields
    /// hold text, since comparing a number field with text is a mistake worth reporting.
    pub fn text_comparisons(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        self.walk(&mut |f| {
            if let Filter::Cmp {
                path,
                op,
                bound: Bound::Text(t),
            } = f
            {
                out.push((path.clone(), format!("{}({t})", op_name(*op))));
            }
        });
        out
    }

    fn walk(&self, visit: &mut dyn FnMut(&Filter)) {
        visit(self);
        match self {
            Filter::And(parts) | Filter::Or(parts) => parts.iter().for_each(|p| p.walk(visit)),
            Filter::Not(inner) => inner.walk(visit),
            _ => {}
        }
    }

    /// Evaluates the filter on a document in memory (the reference meaning).
    pub fn matches(&self, doc: &Map<String, Value>) -> bool {
        match self {
            Filter::And(parts) => parts.iter().all(|p| p.matches(doc)),
            Filter::Or(parts) => parts.iter().any(|p| p.matches(doc)),
            Filter::Not(inner) => !inner.matches(doc),
            Filter::TextIn { path, texts } => {
                lookup(doc, path).is_some_and(|v| texts.iter().any(|t| text_equals(v, t)))
            }
            Filter::Eq { path, value } => lookup(doc, path).is_some_and(|v| json_equals(v, value)),
            Filter::Cmp { path, op, bound } => {
                lookup(doc, path).is_some_and(|v| compare(v, bound).is_some_and(|o| op.holds(o)))
            }
            Filter::Exists { path, present } => lookup(doc, path).is_some() == *present,
            Filter::Regex {
                path,
                pattern,
                ignore_case,
            } => match lookup(doc, path) {
                Some(Value::String(s)) => {
                    build_regex(pattern, *ignore_case).is_ok_and(|r| r.is_match(s))
                }
                _ => false,
            },
            Filter::Within {
                path,
                lon,
                lat,
                radius,
            } => lookup(doc, path)
                .and_then(point_of)
                .is_some_and(|(plon, plat)| central_angle(*lon, *lat, plon, plat) <= *radius),
            Filter::TypeIn(types) => doc
                .get("_type")
                .and_then(Value::as_str)
                .is_some_and(|t| types.iter().any(|x| x == t)),
            Filter::Search(terms) => {
                let text = search_text(doc);
                terms
                    .iter()
                    .all(|t| t.any_of.iter().any(|a| text.contains(a.as_str())) != t.negated)
            }
        }
    }
}

fn op_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Gt => "gt",
        CmpOp::Gte => "gte",
        CmpOp::Lt => "lt",
        CmpOp::Lte => "lte",
    }
}

/// The fields `_search` looks in.
pub const SEARCH_FIELDS: [&str; 4] = ["_id", "name", "description", "classification"];

/// The case-folded text `_search` looks in: the search fields joined by newlines.
pub fn search_text(doc: &Map<String, Value>) -> String {
    folded_fields(doc, &SEARCH_FIELDS)
}

/// The folded search fields after `_id` and `name` joined by newlines: `search_text` is the
/// folded id, the folded name (empty where it is not text) and this, joined by newlines.
pub fn search_text_after_name(doc: &Map<String, Value>) -> String {
    folded_fields(doc, &SEARCH_FIELDS[2..])
}

/// The folded text fields of a document joined by newlines (an empty line for a field that
/// is not text).
fn folded_fields(doc: &Map<String, Value>, fields: &[&str]) -> String {
    fields
        .iter()
        .map(|f| match doc.get(*f) {
            Some(Value::String(s)) => fold(s),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Case folding used by search and auto-complete.
pub fn fold(text: &str) -> String {
    text.to_lowercase()
}

/// The value at a dotted path.
pub fn lookup<'a>(doc: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut cur = doc.get(parts.next()?)?;
    for p in parts {
        cur = cur.as_object()?.get(p)?;
    }
    Some(cur)
}

/// Query-parameter equality: a string equal to the text, or a number or boolean whose JSON text
/// equals it.
pub fn text_equals(v: &Value, text: &str) -> bool {
    match v {
        Value::String(s) => s == text,
        Value::Number(n) => n.to_string() == text,
        Value::Bool(b) => (if *b { "true" } else { "false" }) == text,
        _ => false,
    }
}

fn json_equals(stored: &Value, wanted: &Value) -> bool {
    let same = |a: &Value, b: &Value| match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            compare_numbers(SqlNumber::of(x), SqlNumber::of(y)) == Some(std::cmp::Ordering::Equal)
        }
        _ => same_json(a, b),
    };
    if same(stored, wanted) {
        return true;
    }
    match stored {
        Value::Array(items) if !wanted.is_array() => items.iter().any(|i| same(i, wanted)),
        _ => false,
    }
}

/// The same JSON: arrays element by element, objects field by field in order (the stores
/// compare the JSON text), numbers as written (`1` is not `1.0`).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same_json(vx, vy))
        }
        _ => a == b,
    }
}

fn compare(v: &Value, bound: &Bound) -> Option<std::cmp::Ordering> {
    match (v, bound) {
        (Value::Number(n), Bound::Number(b)) => {
            compare_numbers(SqlNumber::of(n), SqlNumber::Real(*b))
        }
        (Value::String(s), Bound::Date(b)) => parse_date(s)?.partial_cmp(b),
        (Value::String(s), Bound::Text(t)) => Some(s.as_str().cmp(t.as_str())),
        _ => None,
    }
}

/// A JSON number as SQLite reads it: an integer that fits in 64 bits is an integer, any other
/// number a double. Comparisons are exact, as SQLite's: `9007199254740993` (2^53 + 1) is
/// greater than the double `9007199254740992.0`, and equals only the integer itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SqlNumber {
    /// An integer of 64 bits.
    Int(i64),
    /// A double.
    Real(f64),
}

impl SqlNumber {
    /// The number as SQLite reads its JSON text.
    pub fn of(n: &serde_json::Number) -> SqlNumber {
        match n.as_i64() {
            Some(i) => SqlNumber::Int(i),
            None => SqlNumber::Real(n.as_f64().unwrap_or(f64::NAN)),
        }
    }
}

/// Orders two numbers exactly (an integer against a double without rounding the integer).
pub fn compare_numbers(a: SqlNumber, b: SqlNumber) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (SqlNumber::Int(x), SqlNumber::Int(y)) => Some(x.cmp(&y)),
        (SqlNumber::Real(x), SqlNumber::Real(y)) => x.partial_cmp(&y),
        (SqlNumber::Int(i), SqlNumber::Real(r)) => compare_int_real(i, r),
        (SqlNumber::Real(r), SqlNumber::Int(i)) => {
            compare_int_real(i, r).map(std::cmp::Ordering::reverse)
        }
    }
}

fn compare_int_real(i: i64, r: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    // -2^63 is exact as a double; 2^63 is the first double above every i64.
    const LOW: f64 = -9_223_372_036_854_775_808.0;
    if r.is_nan() {
        None
    } else if r < LOW {
        Some(Ordering::Greater)
    } else if r >= -LOW {
        Some(Ordering::Less)
    } else {
        // `r` truncated is a whole number in i64's range, so the cast is exact.
        let whole = r.trunc();
        match i.cmp(&(whole as i64)) {
            // Equal whole parts: `r`'s fraction decides.
            Ordering::Equal => 0f64.partial_cmp(&(r - whole)),
            other => Some(other),
        }
    }
}

/// Seconds since the epoch of an ISO date or date-time (`YYYY-MM-DD`, with optional
/// `THH:MM[:SS[.fff]]` and `Z` or `±HH:MM`; no zone means UTC).
pub fn parse_date(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.len() < 10 || !t.as_bytes()[..4].iter().all(u8::is_ascii_digit) || t.as_bytes()[4] != b'-'
    {
        return None;
    }
    let to_secs =
        |d: DateTime<Utc>| d.timestamp() as f64 + f64::from(d.timestamp_subsec_millis()) / 1000.0;
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Some(to_secs(d.with_timezone(&Utc)));
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
    ] {
        if let Ok(d) = NaiveDateTime::parse_from_str(t.trim_end_matches('Z'), fmt) {
            return Some(to_secs(d.and_utc()));
        }
    }
    NaiveDate::parse_from_str(t, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| to_secs(d.and_utc()))
}

/// A point from a GeoJSON point or a `[lon, lat]` array.
pub fn point_of(v: &Value) -> Option<(f64, f64)> {
    let coords = match v {
        Value::Array(_) => v,
        Value::Object(m) => m.get("coordinates")?,
        _ => return None,
    };
    let arr = coords.as_array()?;
    if arr.len() < 2 {
        return None;
    }
    Some((arr[0].as_f64()?, arr[1].as_f64()?))
}

/// The angle (radians) between two points given in degrees, on a sphere (haversine).
pub fn central_angle(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = p2 - p1;
    let dl = (lon2 - lon1).to_radians();
    let h = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * h.sqrt().min(1.0).asin()
}

/// Compiles a `$regex` pattern (size-limited).
pub fn build_regex(pattern: &str, ignore_case: bool) -> Result<regex::Regex> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| Error::invalid_parameter(format!("invalid $regex \"{pattern}\": {e}")))
}

#[cfg(test)]
mod tests;
