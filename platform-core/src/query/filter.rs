//! Filters on list calls: query-parameter filters and the `_filter` JSON object, parsed into one
//! predicate tree ([`Filter`]) that a store evaluates where the data is (SQL over the stored
//! JSON) and that [`Filter::matches`] evaluates in memory with the same meaning.
//!
//! Query-parameter filters (`field=value`, several AND together):
//!
//! ```text
//! param    := path '=' (function | text)
//! path     := name ('.' name)*                 dotted path into nested fields
//! function := 'eq(' arg ')' | 'ne(' arg ')' | 'in(' arg (',' arg)* ')'
//!           | ('gt' | 'gte' | 'lt' | 'lte') '(' arg ')' | 'range(' arg ',' arg ')'
//!           | 'within(sphere([' number ',' number '],' number '))'
//! arg      := '"' chars '"' | chars-without-comma
//! ```
//!
//! `field=text` and `eq`, `ne`, `in` compare as text: a stored string equals the text, or a stored
//! number or boolean whose JSON text equals it (`n=2` matches `2` and `"2"`, `n=2.0` matches
//! neither). `gt gte lt lte range` compare numbers numerically when the argument is a number, dates
//! chronologically when it is an ISO date, and strings otherwise; `range` is inclusive at both
//! ends. `ne` and `in`'s negations match documents without the field. `within` keeps documents
//! whose `geolocation` (a GeoJSON point or `[lon, lat]`) lies within the given angle (radians)
//! of the centre on a sphere. A value that looks like `name(...)` with an unknown name is an
//! error; `eq("...")` matches such text literally.
//!
//! `_filter` (MongoDB style, ANDed with everything else):
//!
//! ```text
//! filter  := '{' (clause (',' clause)*)? '}'
//! clause  := '"$and"' ':' '[' filter, ... ']' | '"$or"' ':' [...] | '"$nor"' ':' [...]
//!          | path ':' value                        (equality)
//!          | path ':' '{' op ':' value, ... '}'    (every operator must hold)
//! op      := $eq $ne $gt $gte $lt $lte $in $nin $exists $regex $options $not
//! ```
//!
//! `_filter` values are typed JSON: `{"n": 2}` matches the number 2, not the string "2"; on an
//! array field, equality and `$in` match when any element matches. An array or object value
//! matches the same JSON exactly: the same elements, or the same fields in the same order (as
//! MongoDB compares embedded documents), `1` and `1.0` being different there.

use crate::error::{Error, Result};
use crate::query::sort::check_field;
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
    /// The SQL operator.
    pub fn sql(self) -> &'static str {
        match self {
            CmpOp::Gt => ">",
            CmpOp::Gte => ">=",
            CmpOp::Lt => "<",
            CmpOp::Lte => "<=",
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

// ---------------------------------------------------------------------------------------------
// Query-parameter filters

const FUNCTIONS: [&str; 10] = [
    "eq", "ne", "in", "gt", "gte", "lt", "lte", "range", "within", "sphere",
];

/// Parses one query-parameter filter `path=value`.
pub fn parse_param(path: &str, value: &str) -> Result<Filter> {
    check_field(path).map_err(|why| {
        Error::invalid_parameter(format!("invalid filter parameter \"{path}\": {why}"))
    })?;
    let bad =
        |why: String| Error::invalid_parameter(format!("invalid filter {path}={value}: {why}"));
    let Some((name, args)) = split_call(value) else {
        return Ok(Filter::TextIn {
            path: path.to_string(),
            texts: vec![value.to_string()],
        });
    };
    let path = path.to_string();
    match name {
        "eq" | "ne" | "in" => {
            let texts = split_args(args).map_err(bad)?;
            if texts.is_empty() || (name != "in" && texts.len() != 1) {
                return Err(bad(format!("{name}() takes {}", if name == "in" { "one or more values" } else { "one value" })));
            }
            let f = Filter::TextIn { path, texts };
            Ok(if name == "ne" { Filter::Not(Box::new(f)) } else { f })
        }
        "gt" | "gte" | "lt" | "lte" => {
            let args = split_args(args).map_err(bad)?;
            let [arg] = args.as_slice() else {
                return Err(bad(format!("{name}() takes one value")));
            };
            let op = match name {
                "gt" => CmpOp::Gt,
                "gte" => CmpOp::Gte,
                "lt" => CmpOp::Lt,
                _ => CmpOp::Lte,
            };
            Ok(Filter::Cmp { path, op, bound: bound_of(arg) })
        }
        "range" => {
            let args = split_args(args).map_err(bad)?;
            let [a, b] = args.as_slice() else {
                return Err(bad("range() takes two values".into()));
            };
            let (lo, hi) = (bound_of(a), bound_of(b));
            if std::mem::discriminant(&lo) != std::mem::discriminant(&hi) {
                return Err(bad("both bounds of range() must be numbers, or dates, or text".into()));
            }
            Ok(Filter::and(vec![
                Filter::Cmp { path: path.clone(), op: CmpOp::Gte, bound: lo },
                Filter::Cmp { path, op: CmpOp::Lte, bound: hi },
            ]))
        }
        "within" => {
            let usage = || bad("within() takes sphere([longitude,latitude],radians)".into());
            let sphere = split_call(args.trim())
                .filter(|(n, _)| *n == "sphere")
                .map(|(_, a)| a)
                .ok_or_else(usage)?;
            let parsed: Vec<Value> = serde_json::from_str(&format!("[{sphere}]")).map_err(|_| usage())?;
            let [Value::Array(centre), r] = parsed.as_slice() else {
                return Err(usage());
            };
            let (2, Some(lon), Some(lat), Some(radius)) = (
                centre.len(),
                centre.first().and_then(Value::as_f64),
                centre.get(1).and_then(Value::as_f64),
                r.as_f64(),
            ) else {
                return Err(usage());
            };
            if !(-180.0..=180.0).contains(&lon) || !(-90.0..=90.0).contains(&lat) || !radius.is_finite() || radius < 0.0 {
                return Err(bad("longitude must be in -180..180, latitude in -90..90, distance >= 0".into()));
            }
            Ok(Filter::Within { path, lon, lat, radius })
        }
        other => Err(bad(format!(
            "unknown filter function \"{other}\"; use one of eq, ne, in, gt, gte, lt, lte, range, within (eq(\"...\") matches text literally)"
        ))),
    }
}

/// `name(args)` when the whole value has that shape with an identifier name.
fn split_call(value: &str) -> Option<(&str, &str)> {
    let open = value.find('(')?;
    let name = &value[..open];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphabetic()) || !value.ends_with(')') {
        return None;
    }
    // A known function name always parses as a call; an unknown identifier only when it is a
    // plain lower-case word (so ordinary text such as "Q1(est)" is not mistaken for one).
    if !FUNCTIONS.contains(&name) && !name.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    Some((name, &value[open + 1..value.len() - 1]))
}

/// Splits `a,"b,c",d` into values (quotes keep commas; `\"` inside quotes is a quote).
fn split_args(args: &str) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = args.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ' ') {
            chars.next();
        }
        let mut cur = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' if chars.peek() == Some(&'"') => {
                        chars.next();
                        cur.push('"');
                    }
                    '"' => {
                        closed = true;
                        break;
                    }
                    c => cur.push(c),
                }
            }
            if !closed {
                return Err("unbalanced quote".into());
            }
            while chars.peek().is_some_and(|c| *c == ' ') {
                chars.next();
            }
            match chars.next() {
                None => {
                    out.push(cur);
                    return Ok(out);
                }
                Some(',') => out.push(cur),
                Some(c) => return Err(format!("unexpected '{c}' after a quoted value")),
            }
        } else {
            let mut ended = true;
            for c in chars.by_ref() {
                if c == ',' {
                    ended = false;
                    break;
                }
                cur.push(c);
            }
            let trimmed = cur.trim().to_string();
            if trimmed.is_empty() && !(ended && out.is_empty()) {
                return Err("empty value".into());
            }
            if !trimmed.is_empty() {
                out.push(trimmed);
            }
            if ended {
                return Ok(out);
            }
        }
    }
}

/// The comparison kind an argument asks for: a number, an ISO date, or text.
fn bound_of(arg: &str) -> Bound {
    if let Ok(n) = arg.parse::<f64>() {
        if n.is_finite() && !arg.starts_with('+') && !arg.eq_ignore_ascii_case("nan") {
            return Bound::Number(n);
        }
    }
    match parse_date(arg) {
        Some(secs) => Bound::Date(secs),
        None => Bound::Text(arg.to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// _filter

/// Parses `_filter` text.
pub fn parse_json_filter(text: &str) -> Result<Filter> {
    let bad = |why: String| Error::invalid_parameter(format!("invalid _filter: {why}"));
    let value: Value =
        serde_json::from_str(text).map_err(|e| bad(format!("not valid JSON ({e})")))?;
    let Value::Object(map) = value else {
        return Err(bad("must be a JSON object".into()));
    };
    json_object(&map, 0).map_err(bad)
}

const MAX_DEPTH: usize = 32;

fn json_object(map: &Map<String, Value>, depth: usize) -> std::result::Result<Filter, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    let mut parts = Vec::new();
    for (key, value) in map {
        match key.as_str() {
            "$and" | "$or" | "$nor" => {
                let items = value
                    .as_array()
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| format!("{key} takes a non-empty array of filters"))?;
                let mut subs = Vec::with_capacity(items.len());
                for item in items {
                    let obj = item
                        .as_object()
                        .ok_or_else(|| format!("each {key} item must be an object"))?;
                    subs.push(json_object(obj, depth + 1)?);
                }
                parts.push(match key.as_str() {
                    "$and" => Filter::And(subs),
                    "$or" => Filter::Or(subs),
                    _ => Filter::Not(Box::new(Filter::Or(subs))),
                });
            }
            k if k.starts_with('$') => {
                return Err(format!("unknown operator \"{k}\" at the top level"))
            }
            path => {
                check_field(path)?;
                parts.push(field_condition(path, value, depth)?);
            }
        }
    }
    Ok(Filter::and(parts))
}

fn field_condition(path: &str, value: &Value, depth: usize) -> std::result::Result<Filter, String> {
    let Value::Object(ops) = value else {
        return Ok(Filter::Eq {
            path: path.to_string(),
            value: value.clone(),
        });
    };
    if !ops.keys().any(|k| k.starts_with('$')) {
        return Ok(Filter::Eq {
            path: path.to_string(),
            value: value.clone(),
        });
    }
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    let p = || path.to_string();
    let mut parts = Vec::new();
    let ignore_case = match ops.get("$options") {
        None => false,
        Some(Value::String(o)) if o.chars().all(|c| c == 'i') => !o.is_empty(),
        Some(other) => {
            return Err(format!(
                "$options on \"{path}\" supports only \"i\", not {other}"
            ))
        }
    };
    for (op, arg) in ops {
        let cmp = |op: CmpOp| -> std::result::Result<Filter, String> {
            let bound = match arg {
                Value::Number(n) => Bound::Number(n.as_f64().ok_or("bad number")?),
                Value::String(s) => match parse_date(s) {
                    Some(secs) => Bound::Date(secs),
                    None => Bound::Text(s.clone()),
                },
                other => {
                    return Err(format!(
                        "{} on \"{path}\" takes a number or a string, not {other}",
                        op_name(op)
                    ))
                }
            };
            Ok(Filter::Cmp {
                path: p(),
                op,
                bound,
            })
        };
        parts.push(match op.as_str() {
            "$eq" => Filter::Eq { path: p(), value: arg.clone() },
            "$ne" => Filter::Not(Box::new(Filter::Eq { path: p(), value: arg.clone() })),
            "$gt" => cmp(CmpOp::Gt)?,
            "$gte" => cmp(CmpOp::Gte)?,
            "$lt" => cmp(CmpOp::Lt)?,
            "$lte" => cmp(CmpOp::Lte)?,
            "$in" | "$nin" => {
                let items = arg.as_array().ok_or_else(|| format!("{op} on \"{path}\" takes an array"))?;
                let any = Filter::Or(items.iter().map(|v| Filter::Eq { path: p(), value: v.clone() }).collect());
                if op == "$in" {
                    any
                } else {
                    Filter::Not(Box::new(any))
                }
            }
            "$exists" => {
                let present = arg.as_bool().ok_or_else(|| format!("$exists on \"{path}\" takes true or false"))?;
                Filter::Exists { path: p(), present }
            }
            "$regex" => {
                let pattern = arg.as_str().ok_or_else(|| format!("$regex on \"{path}\" takes a string"))?;
                build_regex(pattern, ignore_case).map_err(|e| e.to_string())?;
                Filter::Regex { path: p(), pattern: pattern.to_string(), ignore_case }
            }
            "$options" => continue,
            "$not" => {
                let inner = field_condition(path, arg, depth + 1)?;
                if !arg.is_object() {
                    return Err(format!("$not on \"{path}\" takes an operator object"));
                }
                Filter::Not(Box::new(inner))
            }
            other => {
                return Err(format!(
                    "unknown operator \"{other}\" on \"{path}\"; use $eq $ne $gt $gte $lt $lte $in $nin $exists $regex $not"
                ))
            }
        });
    }
    Ok(Filter::and(parts))
}

#[cfg(test)]
mod tests;
