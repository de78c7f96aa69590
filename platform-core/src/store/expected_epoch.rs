//! Writes made as a caller authenticated from the token cache alone, the authentication epoch
//! checked inside the write's own transaction ([`crate::tenancy::Tenancy::write_authenticated`]).
//!
//! A token kept by an earlier request names its principal and the epoch it was found at. A
//! request that writes runs its call at once as that principal, with the epoch expected on
//! this thread; the first write transaction of the call ([`crate::Platform::write`]) reads the
//! epoch with its first reads and, before it commits, finds it unchanged or rolls back with
//! [`CredentialsMoved`]. So the epoch costs no read of its own: one round trip fewer on a
//! database server, and no read transaction on an embedded one. Once a transaction of the call
//! committed with the epoch found unchanged, the call's later transactions are as fresh as an
//! authentication made before the call; a call that committed none is checked after it.

use crate::error::Error;
use std::cell::Cell;
use std::fmt;

thread_local! {
    /// The epoch the running call's principal was found at, and whether a write transaction
    /// of the call found it unchanged and committed.
    static EXPECTED: Cell<Option<(u64, bool)>> = const { Cell::new(None) };
}

/// While alive, this thread's calls write as a principal found at `epoch` (see the module).
pub(crate) struct Expected {
    before: Option<(u64, bool)>,
}

impl Expected {
    pub(crate) fn enter(epoch: u64) -> Expected {
        Expected {
            before: EXPECTED.with(|e| e.replace(Some((epoch, false)))),
        }
    }

    /// Whether a write transaction of the call found the epoch unchanged and committed.
    pub(crate) fn confirmed(&self) -> bool {
        EXPECTED.with(|e| matches!(e.get(), Some((_, true))))
    }
}

impl Drop for Expected {
    fn drop(&mut self) {
        EXPECTED.with(|e| e.set(self.before));
    }
}

/// The epoch a write transaction beginning on this thread must find, if any.
pub(crate) fn pending() -> Option<u64> {
    EXPECTED.with(|e| match e.get() {
        Some((epoch, false)) => Some(epoch),
        _ => None,
    })
}

/// A write transaction found the epoch `pending` named unchanged, and committed.
pub(crate) fn confirm() {
    EXPECTED.with(|e| {
        if let Some((epoch, _)) = e.get() {
            e.set(Some((epoch, true)));
        }
    })
}

/// Refuses a transaction whose epoch (`now`) is not the one expected: it rolls back.
pub(crate) fn verify(now: u64, expected: u64) -> Result<(), Error> {
    match now == expected {
        true => Ok(()),
        false => Err(Error::Unavailable(Box::new(CredentialsMoved))),
    }
}

/// The cause of a write rolled back because tenants, users, grants or tokens changed since
/// the caller's token was kept: the caller is authenticated afresh and the call made again.
#[derive(Debug)]
pub struct CredentialsMoved;

impl fmt::Display for CredentialsMoved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "the caller's credentials changed while the request was made; nothing was changed",
        )
    }
}

impl std::error::Error for CredentialsMoved {}

/// Whether `e` is a write rolled back by [`verify`].
pub(crate) fn is_moved(e: &Error) -> bool {
    matches!(e, Error::Unavailable(source) if source.is::<CredentialsMoved>())
}
