//! Whether the database answers, as the connections of the primary's pool find it: one log line
//! when it is lost (the first request that cannot reach it) and one when it is back (the first
//! that reaches it again, with how long it was away), however many requests fail between; the
//! same state is what `/metrics` reports as `platform_db_up`.

use crate::error::Error;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The database's state as the last connection attempt or statement found it.
#[derive(Debug)]
pub(crate) struct Health {
    /// Whether it answered at the last check (a statement, or a connection made).
    up: AtomicBool,
    /// Since when it has been lost, while it is.
    lost_at: Mutex<Option<Instant>>,
}

impl Default for Health {
    fn default() -> Self {
        // The store opened: the database answered.
        Health {
            up: AtomicBool::new(true),
            lost_at: Mutex::new(None),
        }
    }
}

impl Health {
    /// Whether the database answered at the last check.
    pub(crate) fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    /// The database answered (a statement's answer came back, a connection was made).
    pub(crate) fn answered(&self) {
        if self.is_up() {
            return;
        }
        let mut lost_at = self.lost_at.lock().unwrap_or_else(|e| e.into_inner());
        if self.up.swap(true, Ordering::Relaxed) {
            return;
        }
        let away = lost_at.take().map_or(0.0, |at| at.elapsed().as_secs_f64());
        crate::store::set_lost(false);
        let text = seconds(away);
        tracing::warn!(away_s = %text, "the database is back after {text} s");
    }

    /// A statement or a connection failed: when the failure says the database cannot be
    /// reached ([`Error::Unavailable`]) and it was up, it is lost from now.
    pub(crate) fn failed(&self, e: &Error) {
        if !matches!(e, Error::Unavailable(_)) || !self.is_up() {
            return;
        }
        let mut lost_at = self.lost_at.lock().unwrap_or_else(|e| e.into_inner());
        if !self.up.swap(false, Ordering::Relaxed) {
            return;
        }
        *lost_at = Some(Instant::now());
        crate::store::set_lost(true);
        tracing::error!(
            error = %e,
            "the database is lost: requests that need it answer 503 until it is back"
        );
    }
}

/// Seconds with one decimal (`0.4`, `12.0`).
fn seconds(s: f64) -> String {
    format!("{s:.1}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many failures make one loss, many answers one return, and only a failure that says the
    /// database cannot be reached is a loss.
    #[test]
    fn one_loss_and_one_return_however_many_failures_and_answers() {
        let health = Health::default();
        assert!(health.is_up());
        health.answered();
        health.failed(&Error::Internal("a bug".into()));
        assert!(health.is_up(), "an internal failure is not a lost database");
        for _ in 0..5 {
            health.failed(&Error::Unavailable("connection refused".into()));
        }
        assert!(!health.is_up());
        assert!(health.lost_at.lock().unwrap().is_some());
        for _ in 0..5 {
            health.answered();
        }
        assert!(health.is_up());
        assert!(health.lost_at.lock().unwrap().is_none());
        assert_eq!(seconds(0.04), "0.0");
        assert_eq!(seconds(12.0), "12.0");
    }
}
