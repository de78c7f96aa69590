//! A save of a document that is there updates its current row in place: the indexes whose
//! keys did not change are not written (a save of a changed body writes few pages), and those
//! whose keys did (its type, its name, a declared field) find it by the new value only.

use crate::api::objects::SaveOptions;
use crate::store::Collection;
use crate::Platform;
use serde_json::{json, Value};

/// Pages the database's log holds (each a page written since the last checkpoint).
fn frames_since_checkpoint(path: &std::path::Path, then: impl FnOnce()) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    let checkpoint = |conn: &rusqlite::Connection| -> (i64, i64) {
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap()
    };
    assert_eq!(checkpoint(&conn).0, 0, "the checkpoint was not held up");
    then();
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
        .unwrap()
}

fn ids(platform: &Platform, who: &crate::api::Principal, query: &str) -> Vec<String> {
    super::lead::list(platform, who, query)
        .iter()
        .map(|o| o["_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_save_in_place_writes_few_pages_and_keeps_every_index_true() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let platform = Platform::open(&path).unwrap();
    let who = platform.tenancy().local_principal("acme", "ann").unwrap();
    let save = |body: Value| {
        platform
            .objects()
            .save(&who, Collection::Object, body, &SaveOptions::default())
            .unwrap();
    };
    platform
        .objects()
        .save(
            &who,
            Collection::Type,
            json!({"_id": "Meter", "_indexes": ["capacity"]}),
            &SaveOptions::default(),
        )
        .unwrap();
    for i in 0..500 {
        save(
            json!({"_id": format!("M{i:04}"), "_type": "Plain", "name": format!("meter {i}"), "v": 0}),
        );
    }
    // A changed body, the same type and name: the row's page and the version it keeps.
    let frames = frames_since_checkpoint(&path, || {
        save(json!({"_id": "M0250", "_type": "Plain", "name": "meter 250", "v": 1}))
    });
    assert!(frames <= 3, "a save in place wrote {frames} pages");
    // A new name, then a new type, then a declared field: each index finds the new value
    // only.
    save(json!({"_id": "M0250", "_type": "Plain", "name": "gauge 250", "v": 2}));
    assert_eq!(ids(&platform, &who, "_searchinfo=gauge"), ["M0250"]);
    assert!(!ids(&platform, &who, "_searchinfo=meter 250").contains(&"M0250".to_string()));
    save(json!({"_id": "M0250", "_type": "Meter", "name": "gauge 250", "capacity": 7}));
    assert_eq!(ids(&platform, &who, "_type=Meter"), ["M0250"]);
    assert_eq!(ids(&platform, &who, "_type=Plain&_limit=1000").len(), 499);
    save(json!({"_id": "M0250", "_type": "Meter", "name": "gauge 250", "capacity": 9}));
    assert_eq!(ids(&platform, &who, "_type=Meter&capacity=9"), ["M0250"]);
    assert!(ids(&platform, &who, "_type=Meter&capacity=7").is_empty());
    // Every index holds exactly what its rows say.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}
