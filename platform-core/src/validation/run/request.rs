//! The request of a run or test: its points, range, checks and tenors, read and checked
//! before anything runs.

use crate::error::{Error, Result};
use crate::json::json_kind;
use crate::validation::shared::{object, strings};
use serde_json::Value;

/// A parsed run or test request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunRequest {
    /// The data id.
    pub target: Option<String>,
    /// A configuration to try (test only).
    pub config: Option<Value>,
    /// Points by text.
    pub points: Vec<String>,
    /// Range start (date or time).
    pub from: Option<String>,
    /// Range end (inclusive).
    pub to: Option<String>,
    /// Only these checks.
    pub checks: Option<Vec<String>>,
    /// Only these tenors.
    pub tenors: Option<Vec<String>>,
    /// Run in the background.
    pub background: bool,
}

impl RunRequest {
    /// Reads a request body.
    pub fn from_json(body: &Value) -> Result<RunRequest> {
        let m = object(body)?;
        let text = |k: &str| -> Result<Option<String>> {
            match m.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(Error::invalid_body(format!(
                    "{k} must be a string, not {}",
                    json_kind(other)
                ))),
            }
        };
        let mut points = strings(m.get("points"), "points")?.unwrap_or_default();
        for one in ["point", "ondate"] {
            if let Some(p) = text(one)? {
                points.push(p);
            }
        }
        let (from, to) = (text("from")?, text("to")?);
        // Every time of the request is a time, whatever the data: checked here, a malformed
        // request is refused before it runs, is queued as a job, or fans out to data items.
        for t in points.iter().chain(&from).chain(&to) {
            crate::data::timetext::parse_time_text(t)?;
        }
        Ok(RunRequest {
            target: text("target")?,
            config: m.get("config").cloned(),
            points,
            from,
            to,
            checks: strings(m.get("checks"), "checks")?,
            tenors: strings(m.get("tenors"), "tenors")?,
            background: match m.get("background") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(Error::invalid_body(format!(
                        "background must be true or false, not {}",
                        json_kind(other)
                    )))
                }
            },
        })
    }
}
