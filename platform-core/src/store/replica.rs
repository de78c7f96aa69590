//! Reads a read replica may serve ([`ReplicaReads`]), and the commit positions writes answer
//! so that a client reads its own writes wherever its reads are served.

use std::cell::Cell;

thread_local! {
    /// Whether this thread's reads may go to a read replica, and from which commit position
    /// on ([`ReplicaReads`]).
    static REPLICA_READS: Cell<Option<u64>> = const { Cell::new(None) };
    /// The commit position of this thread's last write ([`take_commit_position`]).
    static COMMITTED_AT: Cell<Option<u64>> = const { Cell::new(None) };
}

/// While alive, this thread's read transactions may be served by a read replica of the
/// database (one that follows it from a little behind), by one that has replayed at least the
/// commit position `after` (0: any): a request reads its own writes, or the writes it was told
/// of, and nothing older. Without it every read goes to the primary (a read that leads to a
/// write, a worker's). A store without replicas reads as it always does.
pub struct ReplicaReads {
    before: Option<u64>,
}

impl ReplicaReads {
    /// Allows replica reads from position `after` on, until the value is dropped.
    pub fn allow(after: u64) -> ReplicaReads {
        ReplicaReads {
            before: REPLICA_READS.with(|r| r.replace(Some(after))),
        }
    }

    /// The position this thread's reads must see when a replica serves them, or `None`
    /// when they must go to the primary.
    pub fn after() -> Option<u64> {
        REPLICA_READS.with(Cell::get)
    }
}

impl Drop for ReplicaReads {
    fn drop(&mut self) {
        REPLICA_READS.with(|r| r.set(self.before));
    }
}

/// The commit position (in the primary's write-ahead log) of the last write this thread
/// committed, once: a store with read replicas records it, so that a server can hand it to
/// the client, whose later reads then see that write wherever they are served.
pub fn take_commit_position() -> Option<u64> {
    COMMITTED_AT.with(Cell::take)
}

/// Records the commit position of this thread's write (see [`take_commit_position`]).
#[cfg(feature = "postgres")]
pub(crate) fn set_commit_position(at: u64) {
    COMMITTED_AT.with(|c| c.set(Some(at)));
}

/// A commit position as PostgreSQL prints a log position: two hexadecimal numbers, the high
/// and low 32 bits (`16/B374D848`).
pub fn format_position(at: u64) -> String {
    format!("{:X}/{:X}", at >> 32, at & 0xFFFF_FFFF)
}

/// A commit position printed by [`format_position`] (either case), or `None`.
pub fn parse_position(text: &str) -> Option<u64> {
    let (high, low) = text.trim().split_once('/')?;
    let ok = |p: &str| !p.is_empty() && p.len() <= 8 && p.chars().all(|c| c.is_ascii_hexdigit());
    if !ok(high) || !ok(low) {
        return None;
    }
    Some((u64::from_str_radix(high, 16).ok()? << 32) | u64::from_str_radix(low, 16).ok()?)
}

/// How a read replica of the database is doing (`Platform::replicas` lists them).
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaStatus {
    /// What names it (its URL without a password).
    pub name: String,
    /// Whether it serves reads now: it answers, is a replica, and is not too far behind.
    pub serving: bool,
    /// How far behind the primary it is, when it answers.
    pub lag: Option<std::time::Duration>,
    /// Why it does not serve, when it does not.
    pub reason: Option<String>,
}
