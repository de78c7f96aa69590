//! How a store's connections to a database server are doing, for monitoring (`/metrics`).

/// The connections of a store that reaches its database over the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatabaseStatus {
    /// Whether the database answered at the last check (the last statement sent, or the last
    /// connection attempt).
    pub up: bool,
    /// The pool of connections to the primary.
    pub pool: PoolStatus,
}

/// A pool of connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStatus {
    /// The most connections it opens.
    pub max: usize,
    /// Connections open now (idle or in use).
    pub open: usize,
    /// Connections in use by a transaction now.
    pub in_use: usize,
    /// Callers waiting for a connection now.
    pub waiting: usize,
}

/// Stores of this process whose database is lost now (the lines that say so were logged).
static LOST: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether a store of this process has lost its database now: its loss was logged once, so a
/// failed request need not say it again.
pub fn database_lost() -> bool {
    LOST.load(std::sync::atomic::Ordering::Relaxed) > 0
}

/// A store lost its database (`true`) or has it back (`false`).
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) fn set_lost(lost: bool) {
    use std::sync::atomic::Ordering;
    if lost {
        LOST.fetch_add(1, Ordering::Relaxed);
    } else {
        let _ = LOST.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
}
