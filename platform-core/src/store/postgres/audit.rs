//! The audit trail of deletions (`audit`).

use super::{get, json_text, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{AuditEntry, AuditRead, AuditWrite, Collection};

impl AuditRead for Tx<'_> {
    fn audit(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<AuditEntry>> {
        let rows = self.query(
            "SELECT action, versions, \"user\", timestamp, reason FROM audit WHERE coll = $1 AND tenant = $2 \
             AND env = $3 AND id = $4 ORDER BY seq",
            &[&coll.as_str(), &scope.tenant, &scope.env, &id],
        )?;
        rows.iter()
            .map(|r| {
                let versions: String = get(r, 1)?;
                Ok(AuditEntry {
                    id: id.to_string(),
                    action: get(r, 0)?,
                    versions: serde_json::from_str(&versions).map_err(|e| {
                        Error::caused(format!("stored versions in the audit trail of {id}"), e)
                    })?,
                    user: get(r, 2)?,
                    timestamp: get(r, 3)?,
                    reason: get(r, 4)?,
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
        self.defer(
            "INSERT INTO audit (coll, tenant, env, id, action, versions, \"user\", timestamp, reason) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            vec![Box::new((coll.as_str()).to_owned()), Box::new((scope.tenant).to_owned()), Box::new((scope.env).to_owned()), Box::new((e.id).to_owned()), Box::new((e.action).to_owned()), Box::new((versions).to_owned()), Box::new((e.user).to_owned()), Box::new((e.timestamp).to_owned()), Box::new((e.reason).to_owned())],
        );
        Ok(())
    }
}
