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

use super::{build_regex, op_name, parse_date, Bound, CmpOp, Filter};
use crate::error::{Error, Result};
use crate::query::sort::check_field;
use serde_json::{Map, Value};

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
