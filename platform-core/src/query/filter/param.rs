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

use super::{parse_date, Bound, CmpOp, Filter};
use crate::error::{Error, Result};
use crate::query::sort::check_field;
use serde_json::Value;

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
