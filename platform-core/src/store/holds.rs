//! What a write transaction holds ([`crate::store::WriteTx::hold`]), and the error of one that
//! met a concurrent write it could not be ordered with.

use super::{Collection, Scope};
use crate::error::Result;

/// What a write transaction holds ([`super::WriteTx::hold`]): until it ends, no other write
/// transaction, on any server of the database, holds the same thing, so what it reads of it
/// stays as it read it until it commits. A write names what it changes before it reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hold<'a> {
    /// A document: its versions, tags, current version and audit trail, and for an object the
    /// series and curves of its data properties.
    Document(Collection, &'a Scope, &'a str),
    /// The validation records of a target (a data id).
    Records(&'a Scope, &'a str),
    /// An automation.
    Automation(&'a Scope, &'a str),
    /// A secret.
    Secret(&'a Scope, &'a str),
    /// The first initialisation of the database (its first tenant, admin and token): servers
    /// starting together on a new database make one admin.
    Initialisation,
}

impl Hold<'_> {
    /// The text that names what is held (unit separators between the parts): equal texts,
    /// the same thing.
    pub fn key(&self) -> String {
        let (kind, coll, scope, id) = match self {
            Hold::Document(coll, scope, id) => ("d", coll.as_str(), scope, id),
            Hold::Records(scope, target) => ("r", "", scope, target),
            Hold::Automation(scope, id) => ("a", "", scope, id),
            Hold::Secret(scope, id) => ("s", "", scope, id),
            Hold::Initialisation => return "i".to_string(),
        };
        // Pushed, not formatted: every write of a document makes this text, twice.
        let parts = [kind, coll, &scope.tenant, &scope.env, id];
        let mut key = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                key.push('\u{1f}');
            }
            key.push_str(part);
        }
        key
    }
}

/// What a write transaction holds (the keys of its [`Hold`]s), for a backend to keep beside it:
/// which holds are new, and that a write changes only what was held.
#[derive(Debug, Default)]
pub struct Holds {
    keys: std::collections::HashSet<String>,
}

impl Holds {
    /// Records `what` as held; answers the keys not held before, sorted (every transaction
    /// that takes several holds at once takes them in the same order, so two never wait for
    /// each other).
    pub fn take(&mut self, what: &[Hold<'_>]) -> Vec<String> {
        let mut new: Vec<String> = what
            .iter()
            .map(Hold::key)
            .filter(|k| !self.keys.contains(k))
            .collect();
        new.sort_unstable();
        new.dedup();
        self.keys.extend(new.iter().cloned());
        new
    }

    /// Fails unless `what` is held: a write of something the transaction did not hold is a
    /// defect of the core (concurrent writers could interleave on it).
    pub fn require(&self, what: Hold<'_>) -> Result<()> {
        if self.keys.contains(&what.key()) {
            Ok(())
        } else {
            Err(crate::error::Error::Internal(format!(
                "{what:?} was written without being held first"
            )))
        }
    }

    /// Forgets every hold (the transaction ended).
    #[cfg(feature = "internals")]
    pub fn clear(&mut self) {
        self.keys.clear();
    }
}
