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
