//! Time as an input: every rule that needs "now" asks a [`Clock`].

use chrono::{DateTime, Utc};
use std::sync::Mutex;

/// A source of the current instant.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;
}

/// The machine's clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that stands still until moved; for tests and replays.
#[derive(Debug)]
pub struct FixedClock(Mutex<DateTime<Utc>>);

impl FixedClock {
    /// A clock showing `at`.
    pub fn new(at: DateTime<Utc>) -> Self {
        FixedClock(Mutex::new(at))
    }

    /// Moves the clock to `at`.
    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = at;
    }
}

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The canonical text of an instant: RFC 3339, UTC, milliseconds, `Z`.
pub fn format_instant(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Reads an RFC 3339 time (the canonical text of [`format_instant`] among others) as UTC.
pub fn parse_instant(text: &str) -> Result<DateTime<Utc>, chrono::ParseError> {
    DateTime::parse_from_rfc3339(text).map(|t| t.with_timezone(&Utc))
}

/// Longest `_delay` accepted, in milliseconds.
pub const MAX_DELAY_MS: u64 = 60_000;

/// The `_delay` (milliseconds) of a request body, if any, checked against its bound: how long
/// queued work (a validation job, a test-fired delivery) waits before it is due.
pub fn delay_of(request: &serde_json::Value) -> crate::error::Result<Option<chrono::TimeDelta>> {
    match request.get("_delay") {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(v) => match v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        {
            Some(ms) if ms <= MAX_DELAY_MS => Ok(chrono::TimeDelta::try_milliseconds(ms as i64)),
            _ => Err(delay_refused(&v.to_string())),
        },
    }
}

/// The refusal of a `_delay` out of its bound; `shown` is how the request wrote it.
pub(crate) fn delay_refused(shown: &str) -> crate::error::Error {
    crate::error::Error::invalid_parameter(format!(
        "_delay must be 0 to {MAX_DELAY_MS} milliseconds, not {shown}"
    ))
}

/// The `_delay` of a request's query (milliseconds, as text), checked against its bound.
///
/// ```
/// use platform_core::api::time::delay_param;
/// assert_eq!(delay_param(Some("1500"))?, Some(std::time::Duration::from_millis(1500)));
/// assert_eq!(delay_param(None)?, None);
/// let e = delay_param(Some("61000")).unwrap_err();
/// assert_eq!(e.to_string(), "_delay must be 0 to 60000 milliseconds, not \"61000\"");
/// # Ok::<(), platform_core::Error>(())
/// ```
pub fn delay_param(text: Option<&str>) -> crate::error::Result<Option<std::time::Duration>> {
    match text.map(|t| (t, t.parse::<u64>())) {
        None => Ok(None),
        Some((_, Ok(ms))) if ms <= MAX_DELAY_MS => Ok(Some(std::time::Duration::from_millis(ms))),
        Some((t, _)) => Err(delay_refused(&serde_json::Value::from(t).to_string())),
    }
}

/// Instants in serde forms as the answers write them ([`format_instant`]): RFC 3339 in UTC, to
/// the millisecond (`#[serde(with = "crate::clock::serde_instant")]`, `...::option` for null).
pub(crate) mod serde_instant {
    use crate::clock::{format_instant, parse_instant};
    use chrono::{DateTime, Utc};
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    /// Writes an instant.
    pub fn serialize<S: Serializer>(at: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_instant(*at))
    }

    /// Reads an instant.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(d)?;
        parse_instant(&text).map_err(|e| D::Error::custom(format!("\"{text}\": {e}")))
    }

    /// An instant that may be null.
    pub mod option {
        use crate::clock::parse_instant;
        use chrono::{DateTime, Utc};
        use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

        /// Writes an instant, or null.
        pub fn serialize<S: Serializer>(
            at: &Option<DateTime<Utc>>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match at {
                Some(at) => crate::clock::serde_instant::serialize(at, s),
                None => s.serialize_none(),
            }
        }

        /// Reads an instant, or null.
        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<DateTime<Utc>>, D::Error> {
            match Option::<String>::deserialize(d)? {
                Some(text) => parse_instant(&text)
                    .map(Some)
                    .map_err(|e| D::Error::custom(format!("\"{text}\": {e}"))),
                None => Ok(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Stamped {
        #[serde(with = "serde_instant")]
        at: DateTime<Utc>,
        #[serde(default, with = "serde_instant::option")]
        until: Option<DateTime<Utc>>,
    }

    /// Instants read and write as the answers print them; a text that is no instant is refused
    /// with the text named, and null reads as none.
    #[test]
    fn serde_instants_are_the_answers_texts() {
        let text = r#"{"at":"2024-03-31T01:00:00.250Z","until":null}"#;
        let read: Stamped = serde_json::from_str(text).unwrap();
        assert_eq!(format_instant(read.at), "2024-03-31T01:00:00.250Z");
        assert_eq!(read.until, None);
        assert_eq!(serde_json::to_string(&read).unwrap(), text);
        let both = r#"{"at":"2024-03-31T01:00:00.000Z","until":"2024-04-01T00:00:00.000Z"}"#;
        let read: Stamped = serde_json::from_str(both).unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), both);
        let e = serde_json::from_str::<Stamped>(r#"{"at":"tomorrow"}"#).unwrap_err();
        assert!(e.to_string().contains("\"tomorrow\""), "{e}");
        let e = serde_json::from_str::<Stamped>(r#"{"at":"2024-01-01T00:00:00Z","until":"soon"}"#)
            .unwrap_err();
        assert!(e.to_string().contains("\"soon\""), "{e}");
    }
}
