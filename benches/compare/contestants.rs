//! The contestants: the platform (`Core`, its Rust API over SQLite or PostgreSQL) and plain
//! rusqlite (`Sqlite`: series as blobs, curves as rows, objects as JSONB rows).

use crate::timing::on_postgres;
use crate::{BLOB_POINTS, MINUTE, T0};
use platform_core::auth::Principal;
use platform_core::data::columns::Columns;
use platform_core::data::model::Point;
use platform_core::data::series::Window;
use platform_core::documents::SaveOptions;
use platform_core::ids::Source;
use platform_core::Platform;
use rusqlite::Connection;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

pub(crate) struct Core {
    pub(crate) platform: Platform,
    pub(crate) who: Principal,
    pub(crate) path: PathBuf,
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) _pg: Option<platform_core::store::postgres::testing::TestDatabase>,
}

pub(crate) fn open_core() -> Core {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    let (platform, pg) = if on_postgres() {
        let db = platform_core::store::postgres::testing::TestDatabase::new()
            .expect("PLATFORM_COMPARE_BACKEND=postgres needs PLATFORM_TEST_PG");
        // A new database: this open initialises it, making its key.
        let options = platform_core::store::postgres::PgOptions {
            init: true,
            ..Default::default()
        };
        let platform =
            Platform::open_postgres_with(&db.url, dir.path().join("bench.key"), &options).unwrap();
        (platform, Some(db))
    } else {
        (Platform::open(&path).unwrap(), None)
    };
    let who = platform
        .tenancy()
        .local_principal("bench", "bench")
        .unwrap();
    Core {
        platform,
        who,
        path,
        _dir: dir,
        _pg: pg,
    }
}

pub(crate) fn header() -> Map<String, Value> {
    let mut h = Map::new();
    h.insert("calendar".into(), Value::String("#PT1M".into()));
    h
}

/// The observations of [`points`] as columns.
pub(crate) fn columns(first: usize, values: &[f64]) -> Columns {
    let mut c = Columns::with_capacity(values.len());
    c.times
        .extend((0..values.len()).map(|i| T0 + (first + i) as i64 * MINUTE));
    c.values.extend_from_slice(values);
    c
}

pub(crate) fn points(first: usize, values: &[f64]) -> Vec<Point> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| Point::num(T0 + (first + i) as i64 * MINUTE, v))
        .collect()
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

    pub(crate) fn save_columns(&self, object: &str, columns: Columns) {
        self.platform
            .data()
            .save_columns(
                &self.who,
                object,
                "price",
                header(),
                columns,
                &SaveOptions::default(),
            )
            .unwrap();
    }

    /// A read as columns (times and values in two arrays, as the peers' frames and blobs).
    pub(crate) fn read(&self, id: &str, window: Window, version: Option<u32>) -> Columns {
        self.platform
            .data()
            .read_columns(&self.who, Source::Private, id, window, version)
            .unwrap()
    }

    /// A read with a [`Point`] per observation.
    pub(crate) fn read_points(&self, id: &str, window: Window, version: Option<u32>) -> Vec<Point> {
        self.platform
            .data()
            .read_points(&self.who, Source::Private, id, window, version)
            .unwrap()
    }

    /// The database file and its WAL after a checkpoint.
    pub(crate) fn file_size(&self) -> u64 {
        self.platform.close().unwrap();
        db_size(&self.path)
    }
}

pub(crate) fn db_size(db: &Path) -> u64 {
    let wal = db.with_extension("db-wal");
    [db, wal.as_path()]
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}

/// Plain rusqlite: series as blobs of up to 10,000 `(i64, f64)` pairs, curves as rows, objects
/// as JSONB rows; WAL and `synchronous=NORMAL` as in the core.
pub(crate) struct Sqlite {
    pub(crate) conn: Connection,
    pub(crate) _dir: tempfile::TempDir,
}

pub(crate) fn open_sqlite() -> Sqlite {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
         CREATE TABLE series (id TEXT NOT NULL, start INTEGER NOT NULL, stop INTEGER NOT NULL,
                              payload BLOB NOT NULL, PRIMARY KEY (id, start));
         CREATE TABLE curve (ondate TEXT NOT NULL, tenor TEXT NOT NULL, value REAL);
         CREATE INDEX curve_tenor ON curve(tenor, ondate);
         CREATE TABLE docs (id TEXT PRIMARY KEY, body BLOB NOT NULL);",
    )
    .unwrap();
    Sqlite { conn, _dir: dir }
}

pub(crate) fn encode_blob(first: usize, values: &[f64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 16);
    for (i, v) in values.iter().enumerate() {
        out.extend_from_slice(&(T0 + (first + i) as i64 * MINUTE).to_le_bytes());
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

impl Sqlite {
    /// One series, in one transaction.
    pub(crate) fn write(&self, id: &str, first: usize, values: &[f64]) {
        let tx = self.conn.unchecked_transaction().unwrap();
        {
            let mut insert = tx
                .prepare_cached("INSERT OR REPLACE INTO series VALUES (?1, ?2, ?3, ?4)")
                .unwrap();
            for (c, blob) in values.chunks(BLOB_POINTS).enumerate() {
                let at = first + c * BLOB_POINTS;
                insert
                    .execute((
                        id,
                        T0 + at as i64 * MINUTE,
                        T0 + (at + blob.len() - 1) as i64 * MINUTE,
                        encode_blob(at, blob),
                    ))
                    .unwrap();
            }
        }
        tx.commit().unwrap();
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

    pub(crate) fn read_all(&self, id: &str) -> Vec<(i64, f64)> {
        self.between(id, i64::MIN, i64::MAX)
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
}
