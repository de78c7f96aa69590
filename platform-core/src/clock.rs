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
            _ => Err(crate::error::Error::invalid_parameter(format!(
                "_delay must be 0 to {MAX_DELAY_MS} milliseconds, not {v}"
            ))),
        },
    }
}
