//! Validation records in chunks (`vchunks`).

use super::filter::Arg;
use super::{get, Tx};
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{RecordChunkRow, RecordRead, RecordWrite};
use tokio_postgres::types::ToSql;

impl RecordRead for Tx<'_> {
    fn record_chunks(
        &self,
        scope: &Scope,
        targets: Option<&[String]>,
        keys: Option<(i64, i64)>,
        buckets: Option<(i64, i64)>,
    ) -> Result<Vec<RecordChunkRow>> {
        let mut args: Vec<Arg> = vec![Box::new(scope.tenant.clone()), Box::new(scope.env.clone())];
        let mut sql = String::from(
            "SELECT target, seq, first, last, count, statuses, body FROM vchunks \
             WHERE tenant = $1 AND env = $2",
        );
        if let Some(targets) = targets {
            args.push(Box::new(targets.to_vec()));
            sql.push_str(&format!(" AND target = ANY(${}::text[])", args.len()));
        }
        let mut ranges = Vec::new();
        if let Some((lo, hi)) = keys {
            args.push(Box::new(hi));
            args.push(Box::new(lo));
            ranges.push(format!(
                "(first <= ${} AND last >= ${})",
                args.len() - 1,
                args.len()
            ));
        }
        if let Some((lo, hi)) = buckets {
            args.push(Box::new(lo));
            args.push(Box::new(hi));
            ranges.push(format!(
                "(seq BETWEEN ${} AND ${})",
                args.len() - 1,
                args.len()
            ));
        }
        if !ranges.is_empty() {
            sql.push_str(&format!(" AND ({})", ranges.join(" OR ")));
        }
        sql.push_str(" ORDER BY target, seq");
        let params: Vec<&(dyn ToSql + Sync)> = args
            .iter()
            .map(|a| a.as_ref() as &(dyn ToSql + Sync))
            .collect();
        self.query(&sql, &params)?
            .iter()
            .map(|r| {
                Ok(RecordChunkRow {
                    target: get(r, 0)?,
                    seq: get(r, 1)?,
                    first: get(r, 2)?,
                    last: get(r, 3)?,
                    count: get::<i64>(r, 4)? as u64,
                    statuses: get::<i64>(r, 5)? as u64,
                    body: get(r, 6)?,
                })
            })
            .collect()
    }

    fn record_targets_of(&self, scope: &Scope, id: &str) -> Result<Vec<String>> {
        self.query(
            "SELECT DISTINCT target FROM vchunks WHERE tenant = $1 AND env = $2 \
             AND left($3::text, length(target) + 1) = target || ':' ORDER BY target",
            &[&scope.tenant, &scope.env, &id],
        )?
        .iter()
        .map(|r| get(r, 0))
        .collect()
    }
}

impl RecordWrite for Tx<'_> {
    fn put_record_chunk(&mut self, scope: &Scope, row: &RecordChunkRow) -> Result<()> {
        self.holds
            .require(crate::store::Hold::Records(scope, &row.target))?;
        if row.count == 0 {
            self.defer(
                "DELETE FROM vchunks WHERE tenant = $1 AND env = $2 AND target = $3 AND seq = $4",
                vec![
                    Box::new((scope.tenant).to_owned()),
                    Box::new((scope.env).to_owned()),
                    Box::new((row.target).to_owned()),
                    Box::new((row.seq).to_owned()),
                ],
            );
            return Ok(());
        }
        self.defer(
            "INSERT INTO vchunks (tenant, env, target, seq, first, last, count, statuses, body) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (tenant, env, target, seq) DO UPDATE SET first = excluded.first, \
             last = excluded.last, count = excluded.count, statuses = excluded.statuses, \
             body = excluded.body",
            vec![
                Box::new((scope.tenant).to_owned()),
                Box::new((scope.env).to_owned()),
                Box::new((row.target).to_owned()),
                Box::new((row.seq).to_owned()),
                Box::new((row.first).to_owned()),
                Box::new((row.last).to_owned()),
                Box::new((row.count as i64).to_owned()),
                Box::new((row.statuses as i64).to_owned()),
                Box::new((row.body).to_owned()),
            ],
        );
        Ok(())
    }
}
