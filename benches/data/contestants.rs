//! What the data benches compare: the platform's core (`Core`) and plain rusqlite (`Baseline`),
//! and the seeded points both are given.

use crate::{corpus, BLOB_POINTS, MINUTE, T0};
use platform_core::auth::Principal;
use platform_core::data::model::Point;
use platform_core::data::series::Window;
use platform_core::documents::SaveOptions;
use platform_core::ids::Source;
use platform_core::Platform;
use rusqlite::Connection;
use serde_json::{Map, Value};
use std::path::Path;
use std::time::Instant;

/// `n` one-minute points from `T0 + first * MINUTE`, values a seeded random walk.
pub(crate) fn walk(first: usize, n: usize, seed: u64) -> Vec<(i64, f64)> {
    let mut rng = corpus::Rng::new(seed);
    let mut v = 50.0;
    (first..first + n)
        .map(|i| {
            v += rng.unit() - 0.5;
            (T0 + i as i64 * MINUTE, (v * 100.0_f64).round() / 100.0)
        })
        .collect()
}

pub(crate) fn points(raw: &[(i64, f64)]) -> Vec<Point> {
    raw.iter().map(|&(t, v)| Point::num(t, v)).collect()
}

pub(crate) fn header() -> Map<String, Value> {
    let mut h = Map::new();
    h.insert("calendar".into(), Value::String("#PT1M".into()));
    h
}

// ---------------------------------------------------------------------------------------------
// Core helpers

pub(crate) struct Core {
    pub(crate) platform: Platform,
    pub(crate) who: Principal,
    pub(crate) _dir: tempfile::TempDir,
}

pub(crate) fn open_core() -> Core {
    let dir = tempfile::tempdir().unwrap();
    let platform = Platform::open(dir.path().join("bench.db")).unwrap();
    let who = platform
        .tenancy()
        .local_principal("bench", "bench")
        .unwrap();
    Core {
        platform,
        who,
        _dir: dir,
    }
}

impl Core {
    pub(crate) fn save(&self, object: &str, pts: Vec<Point>) {
        self.platform
            .data()
            .save_series(
                &self.who,
                object,
                "price",
                header(),
                pts,
                &SaveOptions::default(),
            )
            .unwrap();
    }

    pub(crate) fn read(&self, id: &str, window: Window, version: Option<u32>) -> Vec<Point> {
        self.platform
            .data()
            .read_points(&self.who, Source::Private, id, window, version)
            .unwrap()
    }

    /// Size of the database file and its WAL after a checkpoint.
    pub(crate) fn file_size(&self) -> u64 {
        self.platform.close().unwrap();
        db_size(&self._dir.path().join("bench.db"))
    }
}

pub(crate) fn db_size(db: &Path) -> u64 {
    let wal = db.with_extension("db-wal");
    [db, wal.as_path()]
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}

/// A platform holding one series `BIG:price` of `n` points.
pub(crate) fn core_with_big_series(n: usize) -> Core {
    let core = open_core();
    let started = Instant::now();
    core.save("BIG", points(&walk(0, n, 1)));
    eprintln!(
        "saved a series of {n} points through the core in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    core
}

// ---------------------------------------------------------------------------------------------
// Baseline helpers

pub(crate) struct Baseline {
    pub(crate) conn: Connection,
    pub(crate) _dir: tempfile::TempDir,
}

pub(crate) fn open_baseline() -> Baseline {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join("baseline.db")).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
         CREATE TABLE series (id TEXT NOT NULL, start INTEGER NOT NULL, stop INTEGER NOT NULL,
                              payload BLOB NOT NULL, PRIMARY KEY (id, start));
         CREATE TABLE curve (ondate TEXT NOT NULL, tenor TEXT NOT NULL, value REAL);
         CREATE INDEX curve_tenor ON curve(tenor, ondate);",
    )
    .unwrap();
    Baseline { conn, _dir: dir }
}

pub(crate) fn encode_blob(points: &[(i64, f64)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(points.len() * 16);
    for (t, v) in points {
        out.extend_from_slice(&t.to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

pub(crate) fn decode_blob(bytes: &[u8], out: &mut Vec<(i64, f64)>) {
    out.reserve(bytes.len() / 16);
    for pair in bytes.chunks_exact(16) {
        let t = i64::from_le_bytes(pair[..8].try_into().unwrap());
        let v = f64::from_le_bytes(pair[8..].try_into().unwrap());
        out.push((t, v));
    }
}

impl Baseline {
    /// Writes series (id, points) as blobs of `BLOB_POINTS`, all in one transaction.
    pub(crate) fn write(&self, series: &[(String, Vec<(i64, f64)>)]) {
        let tx = self.conn.unchecked_transaction().unwrap();
        {
            let mut insert = tx
                .prepare_cached("INSERT INTO series VALUES (?1, ?2, ?3, ?4)")
                .unwrap();
            for (id, pts) in series {
                for blob in pts.chunks(BLOB_POINTS) {
                    insert
                        .execute((id, blob[0].0, blob[blob.len() - 1].0, encode_blob(blob)))
                        .unwrap();
                }
            }
        }
        tx.commit().unwrap();
    }

    pub(crate) fn read_all(&self, id: &str) -> Vec<(i64, f64)> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT payload FROM series WHERE id = ?1 ORDER BY start")
            .unwrap();
        let mut rows = stmt.query([id]).unwrap();
        let mut out = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            decode_blob(row.get_ref(0).unwrap().as_blob().unwrap(), &mut out);
        }
        out
    }

    pub(crate) fn last(&self, id: &str, n: usize) -> Vec<(i64, f64)> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT payload FROM series WHERE id = ?1 ORDER BY start DESC")
            .unwrap();
        let mut rows = stmt.query([id]).unwrap();
        let mut blobs: Vec<Vec<u8>> = Vec::new();
        let mut have = 0;
        while have < n {
            let Some(row) = rows.next().unwrap() else {
                break;
            };
            let blob: Vec<u8> = row.get(0).unwrap();
            have += blob.len() / 16;
            blobs.push(blob);
        }
        let mut out = Vec::with_capacity(have);
        for b in blobs.iter().rev() {
            decode_blob(b, &mut out);
        }
        out.drain(..out.len().saturating_sub(n));
        out
    }

    pub(crate) fn between(&self, id: &str, start: i64, end: i64) -> Vec<(i64, f64)> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT payload FROM series WHERE id = ?1 AND stop >= ?2 AND start < ?3 \
                 ORDER BY start",
            )
            .unwrap();
        let mut rows = stmt.query((id, start, end)).unwrap();
        let mut out = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            decode_blob(row.get_ref(0).unwrap().as_blob().unwrap(), &mut out);
        }
        out.retain(|&(t, _)| t >= start && t < end);
        out
    }

    pub(crate) fn file_size(&self) -> u64 {
        self.conn
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .unwrap();
        db_size(&self._dir.path().join("baseline.db"))
    }
}
