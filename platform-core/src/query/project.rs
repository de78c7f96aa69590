//! Projection: which fields of each item to return.
//!
//! ```text
//! _project := list | json
//! list     := field (',' field)*                 include these (plus _id)
//! json     := '{' field ':' (1 | 0) (',' ...)* '}'  all 1s: include; all 0s: exclude
//! ```
//! `_id` is always returned, except when the JSON form sets `"_id": 0` on a list. A field may be
//! a dotted path; including `a.b` keeps only `b` inside `a`. Mixing 1 and 0 (other than on
//! `_id`) is an error.

use crate::error::{Error, Result};
use crate::query::sort::check_field;
use serde_json::{Map, Value};

/// A parsed `_project`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projection {
    fields: Vec<String>,
    exclude: bool,
    keep_id: bool,
}

impl Projection {
    /// Parses `_project` in either form.
    pub fn parse(text: &str) -> Result<Projection> {
        let bad =
            |why: String| Error::invalid_parameter(format!("invalid _project \"{text}\": {why}"));
        let trimmed = text.trim();
        if !trimmed.starts_with('{') {
            let mut fields = Vec::new();
            for f in trimmed.split(',').map(str::trim) {
                check_field(f).map_err(bad)?;
                fields.push(f.to_string());
            }
            return Ok(Projection {
                fields,
                exclude: false,
                keep_id: true,
            });
        }
        let map: Map<String, Value> =
            serde_json::from_str(trimmed).map_err(|e| bad(format!("not a JSON object ({e})")))?;
        let mut keep_id = true;
        let mut include = Vec::new();
        let mut exclude = Vec::new();
        for (field, flag) in map {
            check_field(&field).map_err(bad)?;
            let on = match &flag {
                Value::Number(n) if n.as_i64() == Some(1) => true,
                Value::Number(n) if n.as_i64() == Some(0) => false,
                Value::Bool(b) => *b,
                _ => return Err(bad(format!("\"{field}\" must be 1 or 0"))),
            };
            if field == "_id" {
                keep_id = on;
            } else if on {
                include.push(field);
            } else {
                exclude.push(field);
            }
        }
        if !include.is_empty() && !exclude.is_empty() {
            return Err(bad("mixes included (1) and excluded (0) fields".into()));
        }
        // With no field set to 1, the projection removes the 0 fields (possibly none but `_id`).
        let exclude_mode = include.is_empty();
        Ok(Projection {
            fields: if exclude_mode { exclude } else { include },
            exclude: exclude_mode,
            keep_id,
        })
    }

    /// Reads `_project` from parameters, if given.
    pub fn from_params(params: &crate::query::Params) -> Result<Option<Projection>> {
        params.get("_project").map(Projection::parse).transpose()
    }

    /// The projection that keeps only these fields (and `_id`).
    pub fn include(fields: &[&str]) -> Projection {
        Projection {
            fields: fields.iter().map(|f| f.to_string()).collect(),
            exclude: false,
            keep_id: true,
        }
    }

    /// Whether this projection names the fields to keep (rather than to drop).
    pub fn is_include(&self) -> bool {
        !self.exclude
    }

    /// This projection with more fields included (for search results).
    pub fn with_fields(mut self, more: &[&str]) -> Projection {
        if !self.exclude {
            for f in more {
                if !self.fields.iter().any(|x| x == f) {
                    self.fields.push(f.to_string());
                }
            }
        }
        self
    }

    /// Applies the projection to one item. `on_list` allows dropping `_id`.
    pub fn apply(&self, item: &Map<String, Value>, on_list: bool) -> Map<String, Value> {
        let mut out = if self.exclude {
            let mut out = item.clone();
            for f in &self.fields {
                remove_path(&mut out, f);
            }
            out
        } else {
            let mut out = Map::new();
            if let Some(id) = item.get("_id") {
                out.insert("_id".into(), id.clone());
            }
            for f in &self.fields {
                copy_path(item, &mut out, f);
            }
            out
        };
        if !self.keep_id && on_list {
            out.remove("_id");
        }
        out
    }
}

fn copy_path(from: &Map<String, Value>, to: &mut Map<String, Value>, path: &str) {
    match path.split_once('.') {
        None => {
            if let Some(v) = from.get(path) {
                to.insert(path.to_string(), v.clone());
            }
        }
        Some((head, rest)) => {
            if let Some(Value::Object(inner)) = from.get(head) {
                let slot = to
                    .entry(head.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(slot) = slot {
                    copy_path(inner, slot, rest);
                }
            }
        }
    }
}

fn remove_path(map: &mut Map<String, Value>, path: &str) {
    match path.split_once('.') {
        None => {
            map.shift_remove(path);
        }
        Some((head, rest)) => {
            if let Some(Value::Object(inner)) = map.get_mut(head) {
                remove_path(inner, rest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item() -> Map<String, Value> {
        json!({"_id": "A", "name": "n", "x": 1, "nested": {"a": 1, "b": 2}})
            .as_object()
            .cloned()
            .unwrap()
    }

    #[test]
    fn list_form_keeps_id_and_named_fields() {
        let p = Projection::parse("name,nested.b").unwrap();
        assert_eq!(
            Value::Object(p.apply(&item(), true)),
            json!({"_id": "A", "name": "n", "nested": {"b": 2}})
        );
    }

    #[test]
    fn json_form_includes_or_excludes() {
        let inc = Projection::parse(r#"{"name":1,"_id":0}"#).unwrap();
        assert_eq!(
            Value::Object(inc.apply(&item(), true)),
            json!({"name": "n"})
        );
        assert_eq!(
            Value::Object(inc.apply(&item(), false)),
            json!({"_id": "A", "name": "n"})
        );
        let exc = Projection::parse(r#"{"x":0,"nested.a":0}"#).unwrap();
        assert_eq!(
            Value::Object(exc.apply(&item(), true)),
            json!({"_id": "A", "name": "n", "nested": {"b": 2}})
        );
        let no_id = Projection::parse(r#"{"_id":0}"#).unwrap();
        assert_eq!(
            Value::Object(no_id.apply(&item(), true)),
            json!({"name": "n", "x": 1, "nested": {"a": 1, "b": 2}})
        );
    }

    #[test]
    fn bad_projections_are_errors() {
        for bad in ["", "a,", r#"{"a":1,"b":0}"#, r#"{"a":2}"#, "{"] {
            assert!(Projection::parse(bad).is_err(), "{bad}");
        }
    }
}
