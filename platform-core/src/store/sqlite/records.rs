//! Validation records in chunks (`vchunks`).

use super::{Db, Tx};
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{RecordChunkRow, RecordRead, RecordWrite};
use rusqlite::params;
use rusqlite::types::Value as SqlValue;

impl RecordRead for Tx<'_> {
    fn record_chunks(
        &self,
        scope: &Scope,
        targets: Option<&[String]>,
        keys: Option<(i64, i64)>,
        buckets: Option<(i64, i64)>,
    ) -> Result<Vec<RecordChunkRow>> {
        let mut args: Vec<SqlValue> = vec![scope.tenant.clone().into(), scope.env.clone().into()];
        let mut sql = String::from(
            "SELECT target, seq, first, last, count, statuses, body FROM vchunks \
             WHERE tenant = ?1 AND env = ?2",
        );
        if let Some(targets) = targets {
            let marks: Vec<String> = targets
                .iter()
                .map(|t| {
                    args.push(t.clone().into());
                    format!("?{}", args.len())
                })
                .collect();
            sql.push_str(&format!(" AND target IN ({})", marks.join(", ")));
        }
        let mut ranges = Vec::new();
        if let Some((lo, hi)) = keys {
            args.push(hi.into());
            args.push(lo.into());
            ranges.push(format!(
                "(first <= ?{} AND last >= ?{})",
                args.len() - 1,
                args.len()
            ));
        }
        if let Some((lo, hi)) = buckets {
            args.push(lo.into());
            args.push(hi.into());
            ranges.push(format!(
                "(seq BETWEEN ?{} AND ?{})",
                args.len() - 1,
                args.len()
            ));
        }
        if !ranges.is_empty() {
            sql.push_str(&format!(" AND ({})", ranges.join(" OR ")));
        }
        sql.push_str(" ORDER BY target, seq");
        let mut stmt = self.conn.prepare_cached(&sql).db()?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                Ok(RecordChunkRow {
                    target: r.get(0)?,
                    seq: r.get(1)?,
                    first: r.get(2)?,
                    last: r.get(3)?,
                    count: r.get::<_, i64>(4)? as u64,
                    statuses: r.get::<_, i64>(5)? as u64,
                    body: r.get(6)?,
                })
            })
            .db()?;
        rows.map(|r| r.db()).collect()
    }

    fn record_targets_of(&self, scope: &Scope, id: &str) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT target FROM vchunks WHERE tenant = ?1 AND env = ?2 \
                 AND substr(?3, 1, length(target) + 1) = target || ':'",
            )
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env, id], |r| r.get(0))
            .db()?;
        rows.map(|r| r.db()).collect()
    }
}

impl RecordWrite for Tx<'_> {
    fn put_record_chunk(&mut self, scope: &Scope, row: &RecordChunkRow) -> Result<()> {
        self.holds
            .require(crate::store::Hold::Records(scope, &row.target))?;
        if row.count == 0 {
            self.conn
                .prepare_cached(
                    "DELETE FROM vchunks WHERE tenant = ?1 AND env = ?2 AND target = ?3 AND seq = ?4",
                )
                .db()?
                .execute(params![scope.tenant, scope.env, row.target, row.seq])
                .db()?;
            return Ok(());
        }
        self.conn
            .prepare_cached(
                "INSERT INTO vchunks (tenant, env, target, seq, first, last, count, statuses, body) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
                 ON CONFLICT (tenant, env, target, seq) DO UPDATE SET first = excluded.first, \
                 last = excluded.last, count = excluded.count, statuses = excluded.statuses, \
                 body = excluded.body",
            )
            .db()?
            .execute(params![
                scope.tenant,
                scope.env,
                row.target,
                row.seq,
                row.first,
                row.last,
                row.count as i64,
                row.statuses as i64,
                row.body
            ])
            .db()?;
        Ok(())
    }
}
