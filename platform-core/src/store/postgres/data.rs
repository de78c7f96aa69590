//! Series chunks (`series_chunks`) and curves (`curves`) as `bytea` in the codec SQLite keeps,
//! visible at object versions `vfrom <= v < vto` (`vto` NULL while current).

use super::{get, Tx};
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{Chunk, DataKey, DataRead, DataWrite, Extent};
use tokio_postgres::Row;

fn chunk_row(row: &Row) -> Result<Chunk> {
    Ok(Chunk {
        start: get(row, 0)?,
        stop: get(row, 1)?,
        count: get::<i64>(row, 2)? as u32,
        payload: get(row, 3)?,
    })
}

/// The key columns' condition and the visibility at version `$5`.
const VISIBLE: &str = "tenant = $1 AND env = $2 AND obj = $3 AND prop = $4 \
     AND vfrom <= $5 AND (vto IS NULL OR vto > $5)";

impl DataRead for Tx<'_> {
    fn chunks(
        &self,
        key: &DataKey,
        version: u32,
        from: Option<i64>,
        to: Option<i64>,
    ) -> Result<Vec<Chunk>> {
        if let Some(all) = self.cached_chunks(key, version)? {
            let (from, to) = (from.unwrap_or(i64::MIN), to.unwrap_or(i64::MAX));
            return Ok(all
                .into_iter()
                .filter(|c| c.stop >= from && c.start <= to)
                .collect());
        }
        self.query(
            &format!(
                "SELECT start, stop, n, payload FROM series_chunks WHERE {VISIBLE} \
                 AND stop >= $6 AND start <= $7 ORDER BY start"
            ),
            &[
                &key.scope.tenant,
                &key.scope.env,
                &key.object,
                &key.prop,
                &i64::from(version),
                &from.unwrap_or(i64::MIN),
                &to.unwrap_or(i64::MAX),
            ],
        )?
        .iter()
        .map(chunk_row)
        .collect()
    }

    fn last_chunks(&self, key: &DataKey, version: u32, points: u64) -> Result<Vec<Chunk>> {
        if let Some(all) = self.cached_chunks(key, version)? {
            let mut out = Vec::new();
            let mut have = 0u64;
            for chunk in all.into_iter().rev() {
                if have >= points {
                    break;
                }
                have += u64::from(chunk.count);
                out.push(chunk);
            }
            return Ok(out);
        }
        // Read from the newest in pages of 1, 2, 4... chunks until enough points: most reads
        // of the last points need the last chunk only, and a chunk is large.
        let mut out = Vec::new();
        let mut have = 0u64;
        let mut before = i64::MAX;
        let mut page: i64 = 1;
        while have < points {
            let rows = self.query(
                &format!(
                    "SELECT start, stop, n, payload FROM series_chunks WHERE {VISIBLE} \
                     AND start < $6 ORDER BY start DESC LIMIT $7"
                ),
                &[
                    &key.scope.tenant,
                    &key.scope.env,
                    &key.object,
                    &key.prop,
                    &i64::from(version),
                    &before,
                    &page,
                ],
            )?;
            let full = rows.len() as i64 == page;
            for row in &rows {
                let chunk = chunk_row(row)?;
                before = chunk.start;
                have += u64::from(chunk.count);
                out.push(chunk);
                if have >= points {
                    break;
                }
            }
            if !full {
                break;
            }
            page = (page * 2).min(64);
        }
        Ok(out)
    }

    fn chunk_before(&self, key: &DataKey, version: u32, t: i64) -> Result<Option<Chunk>> {
        if let Some(all) = self.cached_chunks(key, version)? {
            return Ok(all.into_iter().rev().find(|c| c.start <= t));
        }
        self.query_opt(
            &format!(
                "SELECT start, stop, n, payload FROM series_chunks WHERE {VISIBLE} \
                 AND start <= $6 ORDER BY start DESC LIMIT 1"
            ),
            &[
                &key.scope.tenant,
                &key.scope.env,
                &key.object,
                &key.prop,
                &i64::from(version),
                &t,
            ],
        )?
        .map(|r| chunk_row(&r))
        .transpose()
    }

    fn series_extent(&self, key: &DataKey, version: u32) -> Result<Extent<i64>> {
        if let Some(all) = self.cached_chunks(key, version)? {
            return Ok(Extent {
                count: all.iter().map(|c| u64::from(c.count)).sum(),
                bounds: all.first().zip(all.last()).map(|(a, b)| (a.start, b.stop)),
            });
        }
        let row = self.query_one(
            &format!(
                "SELECT sum(n)::bigint, min(start), max(stop) FROM series_chunks WHERE {VISIBLE}"
            ),
            &[
                &key.scope.tenant,
                &key.scope.env,
                &key.object,
                &key.prop,
                &i64::from(version),
            ],
        )?;
        let count: Option<i64> = get(&row, 0)?;
        let first: Option<i64> = get(&row, 1)?;
        let last: Option<i64> = get(&row, 2)?;
        Ok(Extent {
            count: count.unwrap_or(0).max(0) as u64,
            bounds: first.zip(last),
        })
    }

    fn curve_extent(&self, key: &DataKey, version: u32) -> Result<Extent<String>> {
        let row = self.query_one(
            &format!("SELECT count(*), min(ondate), max(ondate) FROM curves WHERE {VISIBLE}"),
            &[
                &key.scope.tenant,
                &key.scope.env,
                &key.object,
                &key.prop,
                &i64::from(version),
            ],
        )?;
        let count: i64 = get(&row, 0)?;
        let first: Option<String> = get(&row, 1)?;
        let last: Option<String> = get(&row, 2)?;
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
        let row = self.query_one(
            &format!(
                "SELECT (SELECT max(ondate) FROM curves WHERE {VISIBLE} AND ondate < $6), \
                 (SELECT min(ondate) FROM curves WHERE {VISIBLE} AND ondate > $6)"
            ),
            &[
                &key.scope.tenant,
                &key.scope.env,
                &key.object,
                &key.prop,
                &i64::from(version),
                &ondate,
            ],
        )?;
        Ok((get(&row, 0)?, get(&row, 1)?))
    }

    fn curve(&self, key: &DataKey, version: u32, ondate: &str) -> Result<Option<Vec<u8>>> {
        self.query_opt(
            &format!("SELECT payload FROM curves WHERE {VISIBLE} AND ondate = $6"),
            &[
                &key.scope.tenant,
                &key.scope.env,
                &key.object,
                &key.prop,
                &i64::from(version),
                &ondate,
            ],
        )?
        .map(|r| get(&r, 0))
        .transpose()
    }

    fn curves(
        &self,
        key: &DataKey,
        version: u32,
        from: Option<&str>,
        to: Option<&str>,
        newest: Option<u64>,
    ) -> Result<Vec<(String, Vec<u8>)>> {
        let limit = newest.map_or("ALL".to_string(), |n| n.to_string());
        let mut out = self
            .query(
                &format!(
                    "SELECT ondate, payload FROM curves WHERE {VISIBLE} AND ($6::text IS NULL OR ondate >= $6) \
                     AND ($7::text IS NULL OR ondate <= $7) ORDER BY ondate DESC LIMIT {limit}"
                ),
                &[
                    &key.scope.tenant,
                    &key.scope.env,
                    &key.object,
                    &key.prop,
                    &i64::from(version),
                    &from,
                    &to,
                ],
            )?
            .iter()
            .map(|r| Ok((get(r, 0)?, get(r, 1)?)))
            .collect::<Result<Vec<_>>>()?;
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
        self.forget_series(&key.scope, &key.object);
        let k = &key.scope;
        let v = i64::from(version);
        if !old_starts.is_empty() {
            let sql = if keep_history {
                "UPDATE series_chunks SET vto = $6 WHERE tenant = $1 AND env = $2 AND obj = $3 AND prop = $4 \
                 AND start = ANY($5) AND vto IS NULL"
            } else {
                "DELETE FROM series_chunks WHERE tenant = $1 AND env = $2 AND obj = $3 AND prop = $4 \
                 AND start = ANY($5) AND vto IS NULL AND $6::bigint IS NOT NULL"
            };
            self.defer(
                sql,
                vec![
                    Box::new((k.tenant).to_owned()),
                    Box::new((k.env).to_owned()),
                    Box::new((key.object).to_owned()),
                    Box::new((key.prop).to_owned()),
                    Box::new((old_starts.to_vec()).to_owned()),
                    Box::new((v).to_owned()),
                ],
            );
        }
        if new.is_empty() {
            return Ok(());
        }
        // One statement for every new chunk (arrays unnested), not one a chunk.
        let starts: Vec<i64> = new.iter().map(|c| c.start).collect();
        let stops: Vec<i64> = new.iter().map(|c| c.stop).collect();
        let counts: Vec<i64> = new.iter().map(|c| i64::from(c.count)).collect();
        let payloads: Vec<Vec<u8>> = new.iter().map(|c| c.payload.clone()).collect();
        self.defer(
            "INSERT INTO series_chunks (tenant, env, obj, prop, start, vfrom, vto, stop, n, payload) \
             SELECT $1, $2, $3, $4, s, $5, NULL, e, n, p FROM unnest($6::bigint[], $7::bigint[], \
             $8::bigint[], $9::bytea[]) AS c(s, e, n, p)",
            vec![Box::new((k.tenant).to_owned()), Box::new((k.env).to_owned()), Box::new((key.object).to_owned()), Box::new((key.prop).to_owned()), Box::new((v).to_owned()), Box::new((starts).to_owned()), Box::new((stops).to_owned()), Box::new((counts).to_owned()), Box::new((payloads).to_owned())],
        );
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
        self.forget_series(&key.scope, &key.object);
        let k = &key.scope;
        let v = i64::from(version);
        let sql = if keep_history {
            "UPDATE curves SET vto = $6 WHERE tenant = $1 AND env = $2 AND obj = $3 AND prop = $4 AND ondate = $5 AND vto IS NULL"
        } else {
            "DELETE FROM curves WHERE tenant = $1 AND env = $2 AND obj = $3 AND prop = $4 AND ondate = $5 AND vto IS NULL AND $6::bigint IS NOT NULL"
        };
        self.defer(
            sql,
            vec![
                Box::new((k.tenant).to_owned()),
                Box::new((k.env).to_owned()),
                Box::new((key.object).to_owned()),
                Box::new((key.prop).to_owned()),
                Box::new((ondate).to_owned()),
                Box::new((v).to_owned()),
            ],
        );
        if let Some(payload) = payload {
            self.defer(
            "INSERT INTO curves (tenant, env, obj, prop, ondate, vfrom, vto, payload) VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)",
            vec![Box::new((k.tenant).to_owned()), Box::new((k.env).to_owned()), Box::new((key.object).to_owned()), Box::new((key.prop).to_owned()), Box::new((ondate).to_owned()), Box::new((v).to_owned()), Box::new((payload).to_owned())],
        );
        }
        Ok(())
    }

    fn end_data(&mut self, key: &DataKey, version: u32, keep_history: bool) -> Result<()> {
        self.holds.require(crate::store::Hold::Document(
            crate::store::Collection::Object,
            &key.scope,
            &key.object,
        ))?;
        self.forget_series(&key.scope, &key.object);
        let k = &key.scope;
        let v = i64::from(version);
        for table in ["series_chunks", "curves"] {
            let sql = if keep_history {
                format!("UPDATE {table} SET vto = $5 WHERE tenant = $1 AND env = $2 AND obj = $3 AND prop = $4 AND vto IS NULL")
            } else {
                format!("DELETE FROM {table} WHERE tenant = $1 AND env = $2 AND obj = $3 AND prop = $4 AND vto IS NULL AND $5::bigint IS NOT NULL")
            };
            self.defer(
                sql,
                vec![
                    Box::new(k.tenant.clone()),
                    Box::new(k.env.clone()),
                    Box::new(key.object.clone()),
                    Box::new(key.prop.clone()),
                    Box::new(v),
                ],
            );
        }
        Ok(())
    }

    fn prune_data(&mut self, scope: &Scope, object: &str, remaining: &[u32]) -> Result<()> {
        self.holds.require(crate::store::Hold::Document(
            crate::store::Collection::Object,
            scope,
            object,
        ))?;
        self.forget_series(scope, object);
        let versions: Vec<i64> = remaining.iter().map(|v| i64::from(*v)).collect();
        let top = remaining.iter().max().copied().map_or(0, i64::from);
        for table in ["series_chunks", "curves"] {
            self.defer(
            format!(
                    "DELETE FROM {table} WHERE tenant = $1 AND env = $2 AND obj = $3 AND NOT EXISTS \
                     (SELECT 1 FROM unnest($4::bigint[]) r(v) WHERE r.v >= vfrom AND (vto IS NULL OR r.v < vto))"
                ),
            vec![Box::new((scope.tenant).to_owned()), Box::new((scope.env).to_owned()), Box::new((object).to_owned()), Box::new((versions).to_owned())],
        );
            self.defer(
            format!(
                    "UPDATE {table} SET vto = NULL WHERE tenant = $1 AND env = $2 AND obj = $3 AND vto > $4"
                ),
            vec![Box::new((scope.tenant).to_owned()), Box::new((scope.env).to_owned()), Box::new((object).to_owned()), Box::new((top).to_owned())],
        );
        }
        Ok(())
    }
}
