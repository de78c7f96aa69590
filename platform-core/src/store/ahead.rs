//! Reads named ahead ([`ReadAhead`]): a transaction that knows what it will read says so, for a
//! backend a network away to make those reads in one round trip.

use super::{Collection, DataKey, Scope};
use crate::error::Result;

/// A read a transaction will make soon ([`ReadAhead::read_ahead`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ahead<'a> {
    /// The current version of a document ([`super::DocumentRead::current`]).
    Document(Collection, &'a Scope, &'a str),
    /// The current versions of the type definitions, in each of the scopes given, whose id is
    /// the `_type` of a document's current version (an object merged without its `_type`).
    TypeOf(Collection, &'a Scope, &'a str, &'a [Scope]),
    /// The automations of a scope ([`super::OutboxRead::automations`]), or of every scope with `None`
    /// ([`super::OutboxRead::all_automations`]).
    Automations(Option<&'a Scope>),
    /// The chunks of a series at its object's current version ([`super::DataRead::chunks`] and the
    /// other series reads).
    Series(&'a DataKey),
    /// The authentication epoch ([`super::TenancyRead::auth_epoch`]).
    AuthEpoch,
}

/// Reads named ahead: a transaction that knows what it will read (the documents of an array it
/// saves, the series a request asks for) says so first, and a backend a network away makes
/// those reads together, in the round trip of the transaction's next statement, keeping their
/// answers for the reads that follow. An embedded backend, whose reads cost no round trip,
/// does nothing.
pub trait ReadAhead {
    /// Names reads this transaction will make.
    fn read_ahead(&self, what: &[Ahead<'_>]) -> Result<()> {
        let _ = what;
        Ok(())
    }
}
