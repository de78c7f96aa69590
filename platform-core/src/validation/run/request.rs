//! The request of a run or test: its points, range, checks and tenors, read and checked
//! before anything runs: typed ([`ValidationRequest`], its points [`When`]) and as the runner
//! reads it ([`RunRequest`], its points the texts of the body).

use crate::clock::{format_instant, parse_instant};
use crate::error::{Error, Result};
use crate::json::json_kind;
use crate::validation::shared::{object, strings};
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{json, Map, Value};

/// A point of a data item a validation request names: an observation time (series), or a
/// date (a curve's ondate, or a day of a series read in its zone), or a time as the interface
/// writes it (a time without an offset is read in the series' zone).
///
/// ```
/// use platform_core::api::validation::When;
/// use chrono::{NaiveDate, TimeZone, Utc};
/// let day: When = NaiveDate::from_ymd_opt(2024, 5, 14).unwrap().into();
/// let hour: When = Utc.with_ymd_and_hms(2024, 5, 14, 7, 0, 0).unwrap().into();
/// assert!(matches!((day, hour), (When::Date(_), When::Time(_))));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum When {
    /// An instant.
    Time(DateTime<Utc>),
    /// A date.
    Date(NaiveDate),
    /// A time as a request body writes it, kept as written (`2024-07-01T10:00`, read in the
    /// series' zone; `2024-07-01 10:00:00+01:00`...): what [`ValidationRequest::from_body`]
    /// reads a text that is not a date or an instant in the platform's form as.
    Text(String),
}

impl When {
    /// The point as a request body writes it.
    pub(crate) fn text(&self) -> String {
        match self {
            When::Time(t) => format_instant(*t),
            When::Date(d) => d.format("%Y-%m-%d").to_string(),
            When::Text(t) => t.clone(),
        }
    }

    /// A point of a request body: a date or an instant when the text is the one they write,
    /// else the text as it is (so that it reads, and is quoted in messages, as written).
    pub(crate) fn of_text(text: &str) -> When {
        if let Ok(d) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            if d.format("%Y-%m-%d").to_string() == text {
                return When::Date(d);
            }
        }
        match parse_instant(text) {
            Ok(t) if format_instant(t) == text => When::Time(t),
            _ => When::Text(text.to_string()),
        }
    }
}

/// A point is written as a request body writes it.
impl serde::Serialize for When {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl From<DateTime<Utc>> for When {
    fn from(t: DateTime<Utc>) -> When {
        When::Time(t)
    }
}

impl From<NaiveDate> for When {
    fn from(d: NaiveDate) -> When {
        When::Date(d)
    }
}

/// What a run or test checks: one data item, at some points or over a range (the latest
/// point, or a curve's newest ondate, when neither is given), all checks or some.
///
/// ```
/// use platform_core::api::validation::ValidationRequest;
/// use chrono::NaiveDate;
/// let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
/// let req = ValidationRequest::new("TTF:FWD").between(d(1), d(14)).only_checks(["monotone"]);
/// assert_eq!(req.checks.as_deref(), Some(&["monotone".to_string()][..]));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidationRequest {
    /// The data id (`OBJ:PROP`); a test of a configuration given (`config`) without it checks
    /// the configuration's `_id`.
    pub target: Option<String>,
    /// These points.
    pub points: Vec<When>,
    /// Points at or after this one.
    pub from: Option<When>,
    /// Points at or before this one.
    pub to: Option<When>,
    /// Only the checks with these names.
    pub checks: Option<Vec<String>>,
    /// Curves: only these tenors.
    pub tenors: Option<Vec<String>>,
    /// A test only: a configuration (JSON, as saved) to try instead of the stored one.
    pub config: Option<Value>,
    /// A run only: send it to a background job (it needs a range, `from`/`to`).
    pub background: bool,
    /// A run only: milliseconds (at most 60,000) before its background job starts (`_delay`).
    pub delay_ms: Option<u64>,
    /// Who asked, as records keep it (`manual` when `None`); not part of the body.
    pub origin: Option<String>,
}

impl ValidationRequest {
    /// A request for the latest point of `target` (a curve: its newest ondate), every check.
    ///
    /// ```
    /// let req = platform_core::api::validation::ValidationRequest::new("NBP:SPOT");
    /// assert!(req.points.is_empty() && req.from.is_none() && req.checks.is_none());
    /// ```
    pub fn new(target: impl Into<String>) -> ValidationRequest {
        ValidationRequest {
            target: Some(target.into()),
            ..ValidationRequest::default()
        }
    }

    /// The same request over the points from `from` to `to`, both included.
    ///
    /// ```
    /// use platform_core::api::{validation::ValidationRequest, validation::When};
    /// use chrono::NaiveDate;
    /// let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
    /// let req = ValidationRequest::new("TTF:FWD").between(d(1), d(31));
    /// assert_eq!(req.to, Some(When::Date(d(31))));
    /// ```
    pub fn between(self, from: impl Into<When>, to: impl Into<When>) -> ValidationRequest {
        ValidationRequest {
            from: Some(from.into()),
            to: Some(to.into()),
            ..self
        }
    }

    /// The same request on these points.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// let at = |h| Utc.with_ymd_and_hms(2024, 5, 14, h, 0, 0).unwrap();
    /// let req = platform_core::api::validation::ValidationRequest::new("DE:POWER").at([at(7), at(8)]);
    /// assert_eq!(req.points.len(), 2);
    /// ```
    pub fn at<W: Into<When>>(self, points: impl IntoIterator<Item = W>) -> ValidationRequest {
        ValidationRequest {
            points: points.into_iter().map(Into::into).collect(),
            ..self
        }
    }

    /// The same request running only the checks with these names (see
    /// [`ValidationRequest`] for an example).
    pub fn only_checks<S: Into<String>>(
        self,
        names: impl IntoIterator<Item = S>,
    ) -> ValidationRequest {
        ValidationRequest {
            checks: Some(names.into_iter().map(Into::into).collect()),
            ..self
        }
    }

    /// The request a body of `run` or `test` (`POST validation/v1?_function=run`) asks for:
    /// `target`, `points` (or one `point` or `ondate`), `from`, `to`, `checks`, `tenors`,
    /// `config`, `background` and `_delay`, each checked (a field of the wrong type, a time
    /// that is not one, a delay out of bounds is refused).
    ///
    /// ```
    /// use platform_core::api::{validation::ValidationRequest, validation::When};
    /// let req = ValidationRequest::from_body(&serde_json::json!({
    ///     "target": "TTF:FWD", "from": "2024-05-01", "to": "2024-05-31T10:00", "checks": ["cap"]}))?;
    /// assert_eq!(req.target.as_deref(), Some("TTF:FWD"));
    /// assert_eq!(req.to, Some(When::Text("2024-05-31T10:00".into())));
    /// assert!(ValidationRequest::from_body(&serde_json::json!({"points": "now"})).is_err());
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn from_body(body: &Value) -> Result<ValidationRequest> {
        RunRequest::from_json(body).map(|r| ValidationRequest::of(&r))
    }

    /// The request as the runner reads it.
    pub(crate) fn of(r: &RunRequest) -> ValidationRequest {
        let when = |t: &Option<String>| t.as_deref().map(When::of_text);
        ValidationRequest {
            target: r.target.clone(),
            points: r.points.iter().map(|t| When::of_text(t)).collect(),
            from: when(&r.from),
            to: when(&r.to),
            checks: r.checks.clone(),
            tenors: r.tenors.clone(),
            config: r.config.clone(),
            background: r.background,
            delay_ms: r.delay_ms,
            origin: None,
        }
    }

    /// The request as the runner reads it, its points checked (a text that is not a time is
    /// refused, as in a body).
    pub(crate) fn run_request(&self) -> Result<RunRequest> {
        let req = RunRequest {
            target: self.target.clone(),
            config: self.config.clone(),
            points: self.points.iter().map(When::text).collect(),
            from: self.from.as_ref().map(When::text),
            to: self.to.as_ref().map(When::text),
            checks: self.checks.clone(),
            tenors: self.tenors.clone(),
            background: self.background,
            delay_ms: self.delay_ms,
        };
        req.check()?;
        Ok(req)
    }

    pub(super) fn origin(&self) -> &str {
        self.origin.as_deref().unwrap_or("manual")
    }
}

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
    /// Milliseconds before its background job starts (`_delay`).
    pub delay_ms: Option<u64>,
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
        for t in points.iter().chain(&from).chain(&to) {
            crate::data::timetext::parse_time_text(t)?;
        }
        let target = text("target")?;
        let checks = strings(m.get("checks"), "checks")?;
        let tenors = strings(m.get("tenors"), "tenors")?;
        let background = match m.get("background") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "background must be true or false, not {}",
                    json_kind(other)
                )))
            }
        };
        // The delay is checked after the rest of the body.
        let delay_ms = crate::clock::delay_of(body)?.map(|d| d.num_milliseconds().unsigned_abs());
        Ok(RunRequest {
            target,
            config: m.get("config").cloned(),
            points,
            from,
            to,
            checks,
            tenors,
            background,
            delay_ms,
        })
    }

    /// Every time of the request is a time, whatever the data, and its delay in bounds:
    /// checked before it runs, a malformed request is refused before it is queued as a job or
    /// fans out to data items.
    pub(crate) fn check(&self) -> Result<()> {
        for t in self.points.iter().chain(&self.from).chain(&self.to) {
            crate::data::timetext::parse_time_text(t)?;
        }
        crate::clock::delay_of(&json!({"_delay": self.delay_ms}))?;
        Ok(())
    }

    /// The body of the request, as a background job keeps it (it reads back as the request).
    pub fn body(&self) -> Value {
        let mut m = Map::new();
        if let Some(t) = &self.target {
            m.insert("target".into(), json!(t));
        }
        if let Some(c) = &self.config {
            m.insert("config".into(), c.clone());
        }
        if !self.points.is_empty() {
            m.insert("points".into(), json!(self.points));
        }
        for (k, v) in [("from", &self.from), ("to", &self.to)] {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        }
        for (k, v) in [("checks", &self.checks), ("tenors", &self.tenors)] {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        }
        if self.background {
            m.insert("background".into(), json!(true));
        }
        if let Some(d) = self.delay_ms {
            m.insert("_delay".into(), json!(d));
        }
        Value::Object(m)
    }
}
