//! Sort order of lists.
//!
//! ```text
//! _sort := json | short
//! json  := '{' field ':' (1 | -1) (',' field ':' (1 | -1))* '}'
//! short := key (',' key)*
//! key   := ['-'] field                 ('-' = descending)
//! field := name ('.' name)*            (dotted path into nested fields)
//! ```
//! The default order is `_id` ascending; `_id` always breaks ties so pages are stable. A sort has
//! at most [`MAX_SORT_FIELDS`] keys.

use crate::error::{Error, Result};
use serde_json::Value;

/// One sort key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    /// The dotted field path.
    pub field: String,
    /// Descending when true.
    pub descending: bool,
}

/// The most keys a `_sort` may have.
pub const MAX_SORT_FIELDS: usize = 32;

/// An ordered list of sort keys.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SortSpec(pub Vec<SortKey>);

impl SortSpec {
    /// Parses `_sort` in either form.
    pub fn parse(text: &str) -> Result<SortSpec> {
        let bad =
            |why: String| Error::invalid_parameter(format!("invalid _sort \"{text}\": {why}"));
        let trimmed = text.trim();
        let mut keys = Vec::new();
        if trimmed.starts_with('{') {
            let map: serde_json::Map<String, Value> = serde_json::from_str(trimmed)
                .map_err(|e| bad(format!("not a JSON object ({e})")))?;
            for (field, dir) in map {
                let descending = match dir.as_i64() {
                    Some(1) => false,
                    Some(-1) => true,
                    _ => return Err(bad(format!("direction of \"{field}\" must be 1 or -1"))),
                };
                check_field(&field).map_err(bad)?;
                keys.push(SortKey { field, descending });
            }
        } else {
            for part in trimmed.split(',') {
                let part = part.trim();
                let (field, descending) = match part.strip_prefix('-') {
                    Some(f) => (f, true),
                    None => (part.strip_prefix('+').unwrap_or(part), false),
                };
                check_field(field).map_err(bad)?;
                keys.push(SortKey {
                    field: field.to_string(),
                    descending,
                });
            }
        }
        if keys.is_empty() {
            return Err(bad("no fields".into()));
        }
        if keys.len() > MAX_SORT_FIELDS {
            return Err(Error::invalid_parameter(format!(
                "_sort has {} fields; a sort takes at most {MAX_SORT_FIELDS}",
                keys.len()
            )));
        }
        Ok(SortSpec(keys))
    }
}

/// Checks a dotted field path: non-empty segments of printable characters, no quotes.
pub fn check_field(field: &str) -> std::result::Result<(), String> {
    if field.is_empty() {
        return Err("empty field name".into());
    }
    if field.split('.').any(str::is_empty) {
        return Err(format!("field \"{field}\" has an empty path segment"));
    }
    if field
        .chars()
        .any(|c| c.is_control() || c == '"' || c == '\\' || c == '$' && field.starts_with('$'))
    {
        return Err(format!(
            "field \"{field}\" contains a character that is not allowed"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_parse_to_the_same_keys() {
        let a = SortSpec::parse("name,-age").unwrap();
        let b = SortSpec::parse(r#"{"name":1,"age":-1}"#).unwrap();
        assert_eq!(a, b);
        assert!(a.0[1].descending);
        for bad in ["", "a,,b", r#"{"a":2}"#, "{", "a..b"] {
            assert!(SortSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
