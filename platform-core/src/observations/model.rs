//! Observations of time series: values, statuses and their JSON form.
//!
//! ```text
//! observation := {"time": time, "value": number | string | null, "status"?: status}
//! status      := {"quality"?: Q, "source"?: S, "reliability"?: R}     each optionally ":info"
//! Q := UNCHECKED | VALID | FAILED
//! S := NEW | CHANGED | IMPLIED | FILLED | CONVERTED | CALCULATED
//! R := UNKNOWN | QUOTED | OBSERVED | UNOBSERVED
//! ```

use crate::error::{Error, Result};
use crate::json::json_kind;
use serde_json::{Map, Value};

/// Allowed quality values.
pub const QUALITY: [&str; 3] = ["UNCHECKED", "VALID", "FAILED"];
/// Allowed source values.
pub const SOURCE: [&str; 6] = [
    "NEW",
    "CHANGED",
    "IMPLIED",
    "FILLED",
    "CONVERTED",
    "CALCULATED",
];
/// Allowed reliability values.
pub const RELIABILITY: [&str; 4] = ["UNKNOWN", "QUOTED", "OBSERVED", "UNOBSERVED"];

/// An observed value.
#[derive(Debug, Clone, PartialEq)]
pub enum PointValue {
    /// A number.
    Num(f64),
    /// A text value.
    Text(String),
    /// No value.
    Null,
}

impl PointValue {
    /// From JSON (a number, a string or null).
    pub fn from_json(v: &Value) -> Result<PointValue> {
        match v {
            Value::Number(n) => n
                .as_f64()
                .map(PointValue::Num)
                .ok_or_else(|| Error::invalid_body(format!("value {n} is not a finite number"))),
            Value::String(s) => Ok(PointValue::Text(s.clone())),
            Value::Null => Ok(PointValue::Null),
            other => Err(Error::invalid_body(format!(
                "value must be a number, a string or null, not {}",
                json_kind(other)
            ))),
        }
    }

    /// To JSON.
    pub fn to_json(&self) -> Value {
        match self {
            PointValue::Num(n) => {
                serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number)
            }
            PointValue::Text(s) => Value::String(s.clone()),
            PointValue::Null => Value::Null,
        }
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            PointValue::Num(n) => Some(*n),
            _ => None,
        }
    }
}

/// Quality, source and reliability of an observation, each `VALUE` or `VALUE:info`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Status {
    /// Quality.
    pub quality: Option<String>,
    /// Source.
    pub source: Option<String>,
    /// Reliability.
    pub reliability: Option<String>,
}

impl Status {
    /// From JSON, checking each value against its allowed set.
    pub fn from_json(v: &Value) -> Result<Option<Status>> {
        let obj = match v {
            Value::Null => return Ok(None),
            Value::Object(m) => m,
            other => {
                return Err(Error::invalid_body(format!(
                    "status must be an object, not {}",
                    json_kind(other)
                )))
            }
        };
        let field = |name: &str, allowed: &[&str]| -> Result<Option<String>> {
            match obj.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => {
                    let head = s.split_once(':').map_or(s.as_str(), |(h, _)| h);
                    let upper = head.to_ascii_uppercase();
                    if !allowed.contains(&upper.as_str()) {
                        return Err(Error::invalid_body(format!(
                            "status {name} \"{s}\" is not one of {}",
                            allowed.join(", ")
                        )));
                    }
                    Ok(Some(match s.split_once(':') {
                        Some((_, info)) => format!("{upper}:{info}"),
                        None => upper,
                    }))
                }
                Some(other) => Err(Error::invalid_body(format!(
                    "status {name} must be a string, not {}",
                    json_kind(other)
                ))),
            }
        };
        for key in obj.keys() {
            if !matches!(key.as_str(), "quality" | "source" | "reliability") {
                return Err(Error::invalid_body(format!(
                    "unknown status field \"{key}\": use quality, source, reliability"
                )));
            }
        }
        let status = Status {
            quality: field("quality", &QUALITY)?,
            source: field("source", &SOURCE)?,
            reliability: field("reliability", &RELIABILITY)?,
        };
        Ok((status != Status::default()).then_some(status))
    }

    /// To JSON (fields that are set).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        for (k, v) in [
            ("quality", &self.quality),
            ("source", &self.source),
            ("reliability", &self.reliability),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), Value::String(v.clone()));
            }
        }
        Value::Object(m)
    }

    /// The compact stored form `quality|source|reliability`.
    pub fn encode(&self) -> String {
        [&self.quality, &self.source, &self.reliability]
            .map(|f| f.as_deref().unwrap_or(""))
            .join("|")
    }

    /// From the compact stored form.
    pub fn decode(text: &str) -> Status {
        let mut parts = text
            .splitn(3, '|')
            .map(|p| (!p.is_empty()).then(|| p.to_string()));
        Status {
            quality: parts.next().flatten(),
            source: parts.next().flatten(),
            reliability: parts.next().flatten(),
        }
    }
}

/// One observation: a UTC time in milliseconds, a value, and an optional status.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Milliseconds since the epoch, UTC.
    pub t: i64,
    /// The value.
    pub v: PointValue,
    /// The status, when not all defaults (boxed: most observations have none, and a small
    /// point keeps million-point reads cheap).
    pub status: Option<Box<Status>>,
}

impl Point {
    /// A numeric observation without status.
    pub fn num(t: i64, v: f64) -> Point {
        Point {
            t,
            v: PointValue::Num(v),
            status: None,
        }
    }

    /// The JSON form, with the time already formatted.
    pub fn to_json(&self, time: String) -> Value {
        let mut m = Map::with_capacity(3);
        m.insert("time".into(), Value::String(time));
        m.insert("value".into(), self.v.to_json());
        if let Some(s) = &self.status {
            m.insert("status".into(), s.to_json());
        }
        Value::Object(m)
    }
}

/// Marks a status source CHANGED (keeping its quality and reliability).
pub fn mark_changed(status: Option<Box<Status>>) -> Option<Box<Status>> {
    let mut s = status.unwrap_or_default();
    s.source = Some("CHANGED".into());
    Some(s)
}

/// The JSON of a list of observations with a time formatter.
pub fn points_json(points: &[Point], time: impl Fn(i64) -> String) -> Value {
    Value::Array(points.iter().map(|p| p.to_json(time(p.t))).collect())
}
