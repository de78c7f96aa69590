//! The audit trail of deletions (`audit`).

use super::{json_text, stored_time, time_text, Db, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{AuditEntry, AuditRead, AuditWrite, Collection};
use rusqlite::params;

impl AuditRead for Tx<'_> {
    fn audit(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<AuditEntry>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT action, versions, user, timestamp, reason FROM audit WHERE coll = ?1 AND tenant = ?2 \
                 AND env = ?3 AND id = ?4 ORDER BY seq",
            )
            .db()?;
        let rows = stmt
            .query_map(params![coll.as_str(), scope.tenant, scope.env, id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get(2)?,
                    r.get::<_, String>(3)?,
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
                timestamp: stored_time(&timestamp, &what)?,
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
        self.conn
            .prepare_cached(
                "INSERT INTO audit (coll, tenant, env, id, action, versions, user, timestamp, reason) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .db()?
            .execute(params![coll.as_str(), scope.tenant, scope.env, e.id, e.action, versions, e.user, time_text(e.timestamp), e.reason])
            .db()?;
        Ok(())
    }
}
