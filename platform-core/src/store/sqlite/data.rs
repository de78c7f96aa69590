//! Series chunks (`series_chunks`) and curves (`curves`), visible at object versions
//! `vfrom <= v < vto` (`vto` NULL while current).

use super::{json_text, Db, Tx};
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{Chunk, DataKey, DataRead, DataWrite, Extent};
use rusqlite::{params, OptionalExtension};

fn chunk_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Chunk> {
    Ok(Chunk {
        start: row.get(0)?,
        stop: row.get(1)?,
        count: row.get(2)?,
        payload: row.get(3)?,
    })
}

impl DataRead for Tx<'_> {
    fn chunks(
        &self,
        key: &DataKey,
        version: u32,
        from: Option<i64>,
        to: Option<i64>,
    ) -> Result<Vec<Chunk>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT start, stop, n, payload FROM series_chunks WHERE tenant = ?1 AND env = ?2 AND obj = ?3 \
                 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) AND stop >= ?6 AND start <= ?7 \
                 ORDER BY start",
            )
            .db()?;
        let rows = stmt
            .query_map(
                params![
                    key.scope.tenant,
                    key.scope.env,
                    key.object,
                    key.prop,
                    version,
                    from.unwrap_or(i64::MIN),
                    to.unwrap_or(i64::MAX)
                ],
                chunk_row,
            )
            .db()?;
        rows.map(|r| r.db()).collect()
    }

    fn last_chunks(&self, key: &DataKey, version: u32, points: u64) -> Result<Vec<Chunk>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT start, stop, n, payload FROM series_chunks WHERE tenant = ?1 AND env = ?2 AND obj = ?3 \
                 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) ORDER BY start DESC",
            )
            .db()?;
        let mut rows = stmt
            .query(params![
                key.scope.tenant,
                key.scope.env,
                key.object,
                key.prop,
                version
            ])
            .db()?;
        let mut out = Vec::new();
        let mut have = 0u64;
        while have < points {
            let Some(row) = rows.next().db()? else { break };
            let chunk = chunk_row(row).db()?;
            have += u64::from(chunk.count);
            out.push(chunk);
        }
        Ok(out)
    }

    fn chunk_before(&self, key: &DataKey, version: u32, t: i64) -> Result<Option<Chunk>> {
        self.conn
            .prepare_cached(
                "SELECT start, stop, n, payload FROM series_chunks WHERE tenant = ?1 AND env = ?2 AND obj = ?3 \
                 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) AND start <= ?6 \
                 ORDER BY start DESC LIMIT 1",
            )
            .db()?
            .query_row(params![key.scope.tenant, key.scope.env, key.object, key.prop, version, t], chunk_row)
            .optional()
            .db()
    }

    fn series_extent(&self, key: &DataKey, version: u32) -> Result<Extent<i64>> {
        let (count, first, last): (Option<i64>, Option<i64>, Option<i64>) = self
            .conn
            .prepare_cached(
                "SELECT sum(n), min(start), max(stop) FROM series_chunks WHERE tenant = ?1 AND env = ?2 \
                 AND obj = ?3 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5)",
            )
            .db()?
            .query_row(params![key.scope.tenant, key.scope.env, key.object, key.prop, version], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .db()?;
        Ok(Extent {
            count: count.unwrap_or(0).max(0) as u64,
            bounds: first.zip(last),
        })
    }

    fn curve_extent(&self, key: &DataKey, version: u32) -> Result<Extent<String>> {
        let (count, first, last): (i64, Option<String>, Option<String>) = self
            .conn
            .prepare_cached(
                "SELECT count(*), min(ondate), max(ondate) FROM curves WHERE tenant = ?1 AND env = ?2 \
                 AND obj = ?3 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5)",
            )
            .db()?
            .query_row(params![key.scope.tenant, key.scope.env, key.object, key.prop, version], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .db()?;
        Ok(Extent {
            count: count.max(0) as u64,
            bounds: first.zip(last),
        })
    }

    fn nearest_ondates(
        &self,
        key: &DataKey,
        version: u32,
        ondate: &str,
    ) -> Result<(Option<String>, Option<String>)> {
        self.conn
            .prepare_cached(
                "SELECT (SELECT max(ondate) FROM curves WHERE tenant = ?1 AND env = ?2 AND obj = ?3 \
                 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) AND ondate < ?6), \
                 (SELECT min(ondate) FROM curves WHERE tenant = ?1 AND env = ?2 AND obj = ?3 \
                 AND prop = ?4 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) AND ondate > ?6)",
            )
            .db()?
            .query_row(params![key.scope.tenant, key.scope.env, key.object, key.prop, version, ondate], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .db()
    }

    fn curve(&self, key: &DataKey, version: u32, ondate: &str) -> Result<Option<Vec<u8>>> {
        self.conn
            .prepare_cached(
                "SELECT payload FROM curves WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 \
                 AND ondate = ?5 AND vfrom <= ?6 AND (vto IS NULL OR vto > ?6)",
            )
            .db()?
            .query_row(params![key.scope.tenant, key.scope.env, key.object, key.prop, ondate, version], |r| r.get(0))
            .optional()
            .db()
    }

    fn curves(
        &self,
        key: &DataKey,
        version: u32,
        from: Option<&str>,
        to: Option<&str>,
        newest: Option<u64>,
    ) -> Result<Vec<(String, Vec<u8>)>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT ondate, payload FROM curves WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 \
                 AND vfrom <= ?5 AND (vto IS NULL OR vto > ?5) AND ondate >= ?6 AND ondate <= ?7 \
                 ORDER BY ondate DESC LIMIT ?8",
            )
            .db()?;
        let rows = stmt
            .query_map(
                params![
                    key.scope.tenant,
                    key.scope.env,
                    key.object,
                    key.prop,
                    version,
                    from.unwrap_or(""),
                    to.unwrap_or("\u{10FFFF}"),
                    newest.map_or(-1, |n| n as i64)
                ],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .db()?;
        let mut out = rows.map(|r| r.db()).collect::<Result<Vec<_>>>()?;
        out.reverse();
        Ok(out)
    }
}

impl DataWrite for Tx<'_> {
    fn replace_chunks(
        &mut self,
        key: &DataKey,
        version: u32,
        keep_history: bool,
        old_starts: &[i64],
        new: &[Chunk],
    ) -> Result<()> {
        self.holds.require(crate::store::Hold::Document(
            crate::store::Collection::Object,
            &key.scope,
            &key.object,
        ))?;
        let k = &key.scope;
        for start in old_starts {
            let sql = if keep_history {
                "UPDATE series_chunks SET vto = ?6 WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 \
                 AND start = ?5 AND vto IS NULL"
            } else {
                "DELETE FROM series_chunks WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 \
                 AND start = ?5 AND vto IS NULL AND ?6 IS NOT NULL"
            };
            self.conn
                .prepare_cached(sql)
                .db()?
                .execute(params![
                    k.tenant, k.env, key.object, key.prop, start, version
                ])
                .db()?;
        }
        let mut insert = self
            .conn
            .prepare_cached(
                "INSERT INTO series_chunks (tenant, env, obj, prop, start, vfrom, vto, stop, n, payload) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8, ?9)",
            )
            .db()?;
        for c in new {
            insert
                .execute(params![
                    k.tenant, k.env, key.object, key.prop, c.start, version, c.stop, c.count,
                    c.payload
                ])
                .db()?;
        }
        Ok(())
    }

    fn put_curve(
        &mut self,
        key: &DataKey,
        version: u32,
        keep_history: bool,
        ondate: &str,
        payload: Option<&[u8]>,
    ) -> Result<()> {
        self.holds.require(crate::store::Hold::Document(
            crate::store::Collection::Object,
            &key.scope,
            &key.object,
        ))?;
        let k = &key.scope;
        let sql = if keep_history {
            "UPDATE curves SET vto = ?6 WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 AND ondate = ?5 AND vto IS NULL"
        } else {
            "DELETE FROM curves WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 AND ondate = ?5 AND vto IS NULL AND ?6 IS NOT NULL"
        };
        self.conn
            .prepare_cached(sql)
            .db()?
            .execute(params![
                k.tenant, k.env, key.object, key.prop, ondate, version
            ])
            .db()?;
        if let Some(payload) = payload {
            self.conn
                .prepare_cached(
                    "INSERT INTO curves (tenant, env, obj, prop, ondate, vfrom, vto, payload) VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7)",
                )
                .db()?
                .execute(params![k.tenant, k.env, key.object, key.prop, ondate, version, payload])
                .db()?;
        }
        Ok(())
    }

    fn end_data(&mut self, key: &DataKey, version: u32, keep_history: bool) -> Result<()> {
        self.holds.require(crate::store::Hold::Document(
            crate::store::Collection::Object,
            &key.scope,
            &key.object,
        ))?;
        let k = &key.scope;
        for table in ["series_chunks", "curves"] {
            let sql = if keep_history {
                format!("UPDATE {table} SET vto = ?5 WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 AND vto IS NULL")
            } else {
                format!("DELETE FROM {table} WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND prop = ?4 AND vto IS NULL AND ?5 IS NOT NULL")
            };
            self.conn
                .prepare_cached(&sql)
                .db()?
                .execute(params![k.tenant, k.env, key.object, key.prop, version])
                .db()?;
        }
        Ok(())
    }

    fn prune_data(&mut self, scope: &Scope, object: &str, remaining: &[u32]) -> Result<()> {
        self.holds.require(crate::store::Hold::Document(
            crate::store::Collection::Object,
            scope,
            object,
        ))?;
        let versions = json_text(&remaining, "the remaining versions")?;
        let top = remaining.iter().max().copied().unwrap_or(0);
        for table in ["series_chunks", "curves"] {
            self.conn
                .prepare_cached(&format!(
                    "DELETE FROM {table} WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND NOT EXISTS \
                     (SELECT 1 FROM json_each(?4) r WHERE r.value >= vfrom AND (vto IS NULL OR r.value < vto))"
                ))
                .db()?
                .execute(params![scope.tenant, scope.env, object, versions])
                .db()?;
            self.conn
                .prepare_cached(&format!(
                    "UPDATE {table} SET vto = NULL WHERE tenant = ?1 AND env = ?2 AND obj = ?3 AND vto > ?4"
                ))
                .db()?
                .execute(params![scope.tenant, scope.env, object, top])
                .db()?;
        }
        Ok(())
    }
}
