//! The database's record of its secret key: the fingerprint of the key its first server or
//! command opened it with (`platform init`), so that every later one checks its own key against
//! it at start ([`PgStore::check_key`]). The key itself is never a row of the database.
//!
//! The record is read and made under an advisory lock of its own, so that nodes starting
//! together on a new database record one key: the first records its own, the others find it.

use super::{get, PgStore, LOCK_CLASS};
use crate::error::Result;

/// The second key of the key record's lock is the schema's hash plus this.
const KEY_LOCK: i32 = 2;

/// What the database says of a key's fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRecord {
    /// The database had no key recorded: this one is now its key.
    Recorded,
    /// It is the database's key.
    Matches,
    /// The database's key is another: its fingerprint.
    Differs(String),
}

impl PgStore {
    /// Checks `fingerprint` against the key the database recorded, recording it when the
    /// database has none yet (one transaction under the key record's lock).
    pub fn check_key(&self, fingerprint: &str) -> Result<KeyRecord> {
        let mut conn = self.shared.pool.get()?;
        let schema = &self.shared.schema;
        // The transaction opens with its first statement (as the pool sends it, behind a
        // transaction pooler too).
        conn.begin_with_first(format!(
            "BEGIN; SELECT pg_advisory_xact_lock({LOCK_CLASS}, hashtext('{schema}') + {KEY_LOCK})"
        ));
        let outcome = (|| {
            let rows = conn.query("SELECT fingerprint FROM platform_key WHERE id = 1", &[])?;
            let record = match rows.first() {
                Some(row) => {
                    let stored: String = get(row, 0)?;
                    if stored == fingerprint {
                        KeyRecord::Matches
                    } else {
                        KeyRecord::Differs(stored)
                    }
                }
                None => {
                    conn.execute(
                        "INSERT INTO platform_key (id, fingerprint) VALUES (1, $1)",
                        &[&fingerprint],
                    )?;
                    KeyRecord::Recorded
                }
            };
            conn.batch("COMMIT")?;
            Ok(record)
        })();
        if outcome.is_err() {
            let _ = conn.batch("ROLLBACK");
        }
        outcome
    }
}
