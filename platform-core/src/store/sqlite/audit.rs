//! The audit trail of deletions (`audit`).

use super::{json_text, stored_time_value, time_value, Db, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{AuditEntry, AuditRead, AuditWrite, Collection};
use rusqlite::params;

impl AuditRead for Tx<'_> {
    fn audit(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<AuditEntry>> {
        let Some(sk) = self.scope_key(coll, scope)? else {
            return Ok(Vec::new());
        };
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT action, versions, user, timestamp, reason FROM audit WHERE sk = ?1 \
                 AND id = ?2 ORDER BY seq",
            )
            .db()?;
        let rows = stmt
            .query_map(params![sk, id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get(2)?,
                    r.get::<_, rusqlite::types::Value>(3)?,
                    r.get(4)?,
                ))
            })
            .db()?;
        rows.map(|r| {
            let (action, versions, user, timestamp, reason) = r.db()?;
            let what = format!("the audit trail of {id}");
            Ok(AuditEntry {
                id: id.to_string(),
                action,
                versions: serde_json::from_str(&versions)
                    .map_err(|e| Error::caused(format!("stored versions in {what}"), e))?,
                user,
                timestamp: stored_time_value((&timestamp).into(), &what)?,
                reason,
            })
        })
        .collect()
    }
}

impl AuditWrite for Tx<'_> {
    fn append_audit(&mut self, coll: Collection, scope: &Scope, e: &AuditEntry) -> Result<()> {
        self.holds
            .require(crate::store::Hold::Document(coll, scope, &e.id))?;
        let versions = json_text(&e.versions, "the versions of an audit entry")?;
        let sk = self.make_scope_key(coll, scope)?;
        self.conn
            .prepare_cached(
                "INSERT INTO audit (sk, id, action, versions, user, timestamp, reason) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .db()?
            .execute(params![
                sk,
                e.id,
                e.action,
                versions,
                e.user,
                time_value(e.timestamp),
                e.reason
            ])
            .db()?;
        Ok(())
    }
}
