//! The SQLite backend on its own: schema versions, durability across reopen, rollback on drop.

use super::*;
use crate::auth::Role;
use crate::store::Store;

#[test]
fn every_migration_step_moves_user_version_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    drop(SqliteStore::open(&path).unwrap());
    let conn = Connection::open(&path).unwrap();
    let v: u32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(v as usize, MIGRATIONS.len());
    assert_eq!(v, schema_version());
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    drop(SqliteStore::open(&path).unwrap());
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", schema_version() + 1)
        .unwrap();
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(err.to_string().contains("newer"), "{err}");
}

#[test]
fn committed_writes_survive_a_reopen_and_dropped_ones_vanish() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    {
        let store = SqliteStore::open(&path).unwrap();
        let mut tx = store.write().unwrap();
        tx.ensure_tenant("t", "now").unwrap();
        tx.upsert_user("t", "u", Role::Writer, "now").unwrap();
        tx.commit().unwrap();
        let mut tx = store.write().unwrap();
        tx.ensure_tenant("dropped", "now").unwrap();
        drop(tx);
        store.close().unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    let tx = store.read().unwrap();
    assert_eq!(tx.tenant_count().unwrap(), 1);
    assert!(tx.environment_exists("t", "production").unwrap());
    assert!(!tx.environment_exists("dropped", "production").unwrap());
}
