//! The SQLite backend on its own: schema versions, durability across reopen, rollback on drop;
//! and the store's contract suite on an in-memory database and on a file.

use super::*;
use crate::auth::Role;
use crate::store::{Collection, Store};

mod contract_in_memory {
    use super::*;

    fn open() -> (std::sync::Arc<dyn Store>, ()) {
        (
            std::sync::Arc::new(SqliteStore::open_in_memory().unwrap()),
            (),
        )
    }

    crate::store_contract!(open());
}

mod contract_on_a_file {
    use super::*;

    fn open() -> (std::sync::Arc<dyn Store>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("contract.db")).unwrap();
        (std::sync::Arc::new(store), dir)
    }

    crate::store_contract!(open());
}

mod layout;
mod lead;
mod migrations;
mod plans;
mod saves;
use plans::explain;

fn now() -> DateTime<Utc> {
    crate::clock::parse_instant("2024-01-01T00:00:00Z").unwrap()
}

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
        tx.ensure_tenant("t", now()).unwrap();
        tx.upsert_user("t", "u", Role::Writer, now()).unwrap();
        tx.commit().unwrap();
        let mut tx = store.write().unwrap();
        tx.ensure_tenant("dropped", now()).unwrap();
        drop(tx);
        store.close().unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    let tx = store.read().unwrap();
    assert_eq!(tx.tenant_count().unwrap(), 1);
    assert!(tx.environment_exists("t", "production").unwrap());
    assert!(!tx.environment_exists("dropped", "production").unwrap());
}

#[test]
fn integers_past_2_pow_53_filter_exactly_and_as_in_memory() {
    // Found by fuzzing: `{"n": 9007199254740993}` bound the number as a double (2^53), so the
    // document holding 2^53 + 1 did not match, and memory rounded both sides.
    use crate::documents::{ListRequest, SaveOptions};
    use crate::query::filter::{parse_json_filter, parse_param};
    let p = crate::Platform::in_memory().unwrap();
    let who = p.tenancy().local_principal("t", "u").unwrap();
    let docs = serde_json::json!([
        {"_id": "A", "n": 9_007_199_254_740_993_u64},
        {"_id": "B", "n": 9_007_199_254_740_992_u64},
        {"_id": "C", "n": [9_007_199_254_740_993_u64]}
    ]);
    p.objects()
        .save(&who, Collection::Object, docs, &SaveOptions::default())
        .unwrap();
    let all = p
        .objects()
        .list(
            &who,
            Collection::Object,
            crate::ids::Source::Private,
            &ListRequest::default(),
        )
        .unwrap()
        .items;
    for filter in [
        parse_json_filter(r#"{"n": 9007199254740993}"#).unwrap(),
        parse_json_filter(r#"{"n": 9007199254740992}"#).unwrap(),
        parse_json_filter(r#"{"n": {"$in": [9007199254740992.0]}}"#).unwrap(),
        parse_param("n", "gt(9007199254740992)").unwrap(),
    ] {
        let mut req = ListRequest::default();
        req.query.filter = filter.clone();
        let ids = |items: Vec<&serde_json::Value>| -> Vec<String> {
            items
                .iter()
                .map(|v| v["_id"].as_str().unwrap().to_string())
                .collect()
        };
        let got = p
            .objects()
            .list(&who, Collection::Object, crate::ids::Source::Private, &req)
            .unwrap()
            .items;
        let want = ids(all
            .iter()
            .filter(|v| filter.matches(v.as_object().unwrap()))
            .collect());
        assert_eq!(ids(got.iter().collect()), want, "{filter:?}");
    }
    let mut req = ListRequest::default();
    req.query.filter = parse_json_filter(r#"{"n": 9007199254740993}"#).unwrap();
    let got = p
        .objects()
        .list(&who, Collection::Object, crate::ids::Source::Private, &req)
        .unwrap()
        .items;
    assert_eq!(got.len(), 2, "A and the array of C: {got:?}");
}

/// Saves `docs` as private objects of a new in-memory platform and checks that each filter
/// (parsed from its text by `parse`) selects the wanted ids both in SQL and in memory.
fn filters_select_in_sql_and_in_memory(
    docs: serde_json::Value,
    parse: impl Fn(&str) -> crate::query::filter::Filter,
    cases: &[(&str, Vec<&str>)],
) {
    use crate::documents::{ListRequest, SaveOptions};
    let p = crate::Platform::in_memory().unwrap();
    let who = p.tenancy().local_principal("t", "u").unwrap();
    p.objects()
        .save(&who, Collection::Object, docs, &SaveOptions::default())
        .unwrap();
    let list = |req: &ListRequest| -> Vec<serde_json::Value> {
        p.objects()
            .list(&who, Collection::Object, crate::ids::Source::Private, req)
            .unwrap()
            .items
    };
    let ids = |items: &[&serde_json::Value]| -> Vec<String> {
        items
            .iter()
            .map(|v| v["_id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = list(&ListRequest::default());
    for (text, want) in cases {
        let filter = parse(text);
        let mut req = ListRequest::default();
        req.query.filter = filter.clone();
        let got = list(&req);
        let in_memory: Vec<&serde_json::Value> = all
            .iter()
            .filter(|v| filter.matches(v.as_object().unwrap()))
            .collect();
        assert_eq!(ids(&got.iter().collect::<Vec<_>>()), *want, "{text}");
        assert_eq!(ids(&in_memory), *want, "{text}");
    }
}

#[test]
fn object_values_filter_by_field_order_in_sql_and_in_memory() {
    // Found by fuzzing: memory ignored the order of an object's fields, SQL compares the text.
    filters_select_in_sql_and_in_memory(
        serde_json::json!([
            {"_id": "A", "o": {"p": 1, "q": [1, 2.5]}},
            {"_id": "B", "o": {"q": [1, 2.5], "p": 1}},
            {"_id": "C", "o": [{"q": [1, 2.5], "p": 1}]}
        ]),
        |text| crate::query::filter::parse_json_filter(text).unwrap(),
        &[
            (r#"{"o": {"p": 1, "q": [1, 2.5]}}"#, vec!["A"]),
            (r#"{"o": {"q": [1, 2.5], "p": 1}}"#, vec!["B", "C"]),
        ],
    );
}

#[test]
fn search_words_match_in_sql_as_in_memory_across_the_kept_columns() {
    // The current row keeps the folded id, the folded name and the rest of the search text in
    // three columns; a word is found in any of them, a phrase with a newline across them.
    filters_select_in_sql_and_in_memory(
        serde_json::json!([
            {"_id": "Ärger-1", "name": "West Hub", "description": "North sea", "classification": "Gas"},
            {"_id": "b", "name": 7, "description": "ärger", "classification": "power"},
            {"_id": "c", "description": "x"},
            {"_id": "d", "name": "hub", "classification": "gas"}
        ]),
        |text| crate::query::search::parse(text).unwrap(),
        &[
            ("ärger", vec!["b", "Ärger-1"]),
            ("west", vec!["Ärger-1"]),
            ("gas", vec!["d", "Ärger-1"]),
            ("7", vec![]),
            ("\"-1\nwest\"", vec!["Ärger-1"]),
            ("\"hub\nnorth sea\ngas\"", vec!["Ärger-1"]),
            ("\"c\n\nx\"", vec!["c"]),
            ("\"b\n\närger\npower\"", vec!["b"]),
            ("\"hub\n\ngas\"", vec!["d"]),
            ("\"hub\ngas\"", vec![]),
            ("-hub", vec!["b", "c"]),
            ("hub|x", vec!["c", "d", "Ärger-1"]),
        ],
    );
}

#[cfg(unix)]
#[test]
fn a_new_database_and_its_wal_and_shm_files_are_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let store = SqliteStore::open(&path).unwrap();
    let mut tx = store.write().unwrap();
    tx.ensure_tenant("acme", now()).unwrap();
    tx.commit().unwrap();
    for suffix in ["", "-wal", "-shm"] {
        let file = dir.path().join(format!("p.db{suffix}"));
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}: {mode:o}", file.display());
    }
}

#[test]
fn a_statement_past_sqlites_own_limits_is_a_query_too_large_not_a_storage_failure() {
    use crate::query::{Filter, ListQuery};
    let store = SqliteStore::open_in_memory().unwrap();
    // More bound values than SQLite takes in one statement, past the parser's own limit on
    // purpose.
    let filter = Filter::Or(
        (0..40_000)
            .map(|i| Filter::Eq {
                path: format!("f{i}"),
                value: serde_json::json!(i),
            })
            .collect(),
    );
    let query = ListQuery {
        filter,
        ..ListQuery::default()
    };
    let tx = store.read().unwrap();
    let err = tx
        .list(crate::store::Collection::Object, &[Scope::public()], &query)
        .unwrap_err();
    let text: String = err.to_string().chars().take(300).collect();
    assert_eq!(
        err.code(),
        crate::error::ErrorCode::InvalidParameter,
        "{text}"
    );
    assert!(
        err.public_message().contains("larger than the store"),
        "{text}"
    );
    assert!(err.public_message().len() < 200, "{text}");
}

/// Writes `commits` transactions of about 16 KiB each while a reader thread is always inside a
/// read transaction; answers the WAL's size at the end.
fn wal_after_steady_reads(limit: Option<u64>, commits: usize) -> u64 {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let store = std::sync::Arc::new(SqliteStore::open(&path).unwrap());
    if let Some(bytes) = limit {
        store.set_wal_limit(bytes);
    }
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    // A reader that is never outside a read transaction: each new one starts before the last
    // one ends, and each lasts a while (as list queries under load do).
    let readers: Vec<_> = (0..1)
        .map(|_| {
            let (store, stop) = (store.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut tx = store.read().unwrap();
                while !stop.load(Ordering::Relaxed) {
                    let next = store.read().unwrap();
                    next.tenant_count().unwrap();
                    drop(std::mem::replace(&mut tx, next));
                    // Long enough that SQLite's own checkpoints never catch up with the
                    // oldest snapshot in use.
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            })
        })
        .collect();
    let scope = Scope::private("t", "production");
    for i in 0..commits {
        let mut tx = store.write().unwrap();
        let mut body = serde_json::Map::new();
        body.insert("_id".into(), serde_json::json!(format!("D{}", i % 50)));
        body.insert("pad".into(), serde_json::json!("x".repeat(16 * 1024)));
        tx.hold(&[crate::store::Hold::Document(
            crate::store::Collection::Object,
            &scope,
            &format!("D{}", i % 50),
        )])
        .unwrap();
        tx.put_version(
            crate::store::Collection::Object,
            &scope,
            &crate::store::StoredVersion {
                id: format!("D{}", i % 50),
                version: (i / 50 + 1) as u32,
                body,
                timestamp: now(),
                user: "u".into(),
                reason: None,
                tags: Vec::new(),
            },
        )
        .unwrap();
        tx.commit().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    std::fs::metadata(dir.path().join("p.db-wal"))
        .unwrap()
        .len()
}

#[test]
fn the_wal_stays_bounded_while_readers_never_pause() {
    // Without a bound within reach, steady readers keep the WAL growing; with one, it is
    // checkpointed, restarted and truncated.
    let unbounded = wal_after_steady_reads(None, 1_500);
    let bounded = wal_after_steady_reads(Some(2 * 1024 * 1024), 1_500);
    assert!(unbounded > 20 * 1024 * 1024, "{unbounded}");
    assert!(
        bounded < 6 * 1024 * 1024,
        "{bounded} (unbounded: {unbounded})"
    );
}

#[test]
fn a_call_that_must_not_wait_reads_on_a_free_connection_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("w.db")).unwrap();
    assert!(store.in_process());
    {
        let _no_wait = NoWait::enter();
        assert!(NoWait::active());
        // A read with a free reader runs; a write is refused before it takes the writer.
        store.read().unwrap().auth_epoch().unwrap();
        let refused = store.write().err().expect("a write must wait");
        assert!(refused.is_would_wait(), "{refused}");
    }
    assert!(!NoWait::active(), "the mark ends with its value");
    // Every reader busy: a read that must not wait fails at once, and waits otherwise.
    let busy: Vec<_> = (0..READERS).map(|_| store.read().unwrap()).collect();
    {
        let _no_wait = NoWait::enter();
        let refused = store.read().err().expect("no reader is free");
        assert!(refused.is_would_wait(), "{refused}");
    }
    drop(busy);
    let _no_wait = NoWait::enter();
    store.read().unwrap();
    // In memory the one connection is the writer's: busy while a write is open.
    let memory = SqliteStore::open_in_memory().unwrap();
    drop(_no_wait);
    let write = memory.write().unwrap();
    let _no_wait = NoWait::enter();
    assert!(memory
        .read()
        .err()
        .expect("the writer is busy")
        .is_would_wait());
    drop(write);
    assert!(memory.read().is_ok());
    // Other failures are not mistaken for it.
    assert!(!crate::Error::Internal("x".into()).is_would_wait());
}

#[test]
fn a_current_row_in_forms_the_jsonb_reader_leaves_alone_reads_through_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let p = crate::Platform::open(&path).unwrap();
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    let get = |id: &str| {
        p.objects()
            .get(
                &who,
                Collection::Object,
                crate::ids::Source::Private,
                id,
                None,
                None,
            )
            .unwrap()
    };
    for id in ["A", "B", "C"] {
        p.objects().save(
            &who,
            Collection::Object,
            serde_json::json!({"_id": id, "name": "n\u{e9}\n\"q\"", "n": 1, "list": [1.5, null]}),
            &Default::default(),
        )
        .unwrap();
    }
    let read_alone = get("A");
    assert_eq!(read_alone["name"], "n\u{e9}\n\"q\"");
    assert_eq!(read_alone["list"], serde_json::json!([1.5, null]));
    // A JSON5 number (hexadecimal) in one row, a body kept as JSON text in another: both read
    // as SQLite prints them.
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "UPDATE heads SET body = jsonb_set(body, '$.n', jsonb('0x10')) WHERE id = 'B'; \
         UPDATE heads SET body = json(body) WHERE id = 'C';",
    )
    .unwrap();
    let kind: String = conn
        .query_row("SELECT typeof(body) FROM heads WHERE id = 'C'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(kind, "text");
    assert_eq!(get("B")["n"], 16);
    // Read in part, the same way: the named fields as the whole read holds them.
    let store = SqliteStore::open(&path).unwrap();
    let tx = store.read().unwrap();
    let scope = crate::ids::Scope::private("acme", "production");
    for id in ["B", "C"] {
        let whole = tx.current(Collection::Object, &scope, id).unwrap().unwrap();
        let part = tx
            .current_fields(Collection::Object, &scope, id, &["n", "list"])
            .unwrap()
            .unwrap();
        assert_eq!(part.body.len(), 2, "{id}");
        assert_eq!(
            (&part.body["n"], &part.body["list"]),
            (&whole.body["n"], &whole.body["list"]),
            "{id}"
        );
    }
    drop(tx);
    let c = get("C");
    assert_eq!(c, {
        let mut a = read_alone.clone();
        a["_id"] = "C".into();
        a["_oid"] = "C".into();
        a["_timestamp"] = c["_timestamp"].clone();
        a
    });
}

#[test]
fn a_transaction_reads_each_write_of_a_type_definition_it_made() {
    // Type definitions read in a transaction are kept for it; every write of a type in it
    // (a version, a tag, a rollback, a delete) is read back at once, in a write transaction
    // and in the reads after it.
    use crate::ids::Scope;
    let store = SqliteStore::open_in_memory().unwrap();
    let scope = Scope::private("acme", "production");
    let coll = Collection::Type;
    let def = |n: u32, versioned: bool| {
        stored_version(
            "T",
            n,
            serde_json::json!({"_id": "T", "_versioned": versioned}),
        )
    };
    let current = |tx: &dyn crate::store::WriteTx| tx.current(coll, &scope, "T").unwrap();
    let mut tx = store.write().unwrap();
    assert_eq!(current(tx.as_ref()), None);
    tx.hold(&[crate::store::Hold::Document(coll, &scope, "T")])
        .unwrap();
    tx.put_current(coll, &scope, &def(1, false), None).unwrap();
    assert_eq!(current(tx.as_ref()), Some(def(1, false)));
    tx.hold(&[crate::store::Hold::Document(coll, &scope, "T")])
        .unwrap();
    tx.put_current(coll, &scope, &def(2, true), Some(1))
        .unwrap();
    assert_eq!(current(tx.as_ref()), Some(def(2, true)));
    tx.hold(&[crate::store::Hold::Document(coll, &scope, "T")])
        .unwrap();
    tx.set_tag(coll, &scope, "T", "live", 2).unwrap();
    let mut tagged = def(2, true);
    tagged.tags = vec!["live".into()];
    assert_eq!(current(tx.as_ref()), Some(tagged));
    tx.delete_version(coll, &scope, "T", 2).unwrap();
    tx.set_current(coll, &scope, "T", Some(1)).unwrap();
    assert_eq!(current(tx.as_ref()), Some(def(1, false)));
    tx.hold(&[crate::store::Hold::Document(coll, &scope, "T")])
        .unwrap();
    tx.put_version(coll, &scope, &def(3, true)).unwrap();
    tx.hold(&[crate::store::Hold::Document(coll, &scope, "T")])
        .unwrap();
    tx.set_current(coll, &scope, "T", Some(3)).unwrap();
    assert_eq!(current(tx.as_ref()), Some(def(3, true)));
    tx.commit().unwrap();
    let tx = store.read().unwrap();
    assert_eq!(tx.current(coll, &scope, "T").unwrap(), Some(def(3, true)));
    drop(tx);
    let mut tx = store.write().unwrap();
    assert_eq!(current(tx.as_ref()), Some(def(3, true)));
    tx.hold(&[crate::store::Hold::Document(coll, &scope, "T")])
        .unwrap();
    tx.delete_version(coll, &scope, "T", 3).unwrap();
    tx.delete_version(coll, &scope, "T", 1).unwrap();
    tx.set_current(coll, &scope, "T", None).unwrap();
    assert_eq!(current(tx.as_ref()), None);
}

/// A version by user `u` at [`now`], without reason or tags.
fn stored_version(id: &str, version: u32, body: serde_json::Value) -> crate::store::StoredVersion {
    crate::store::StoredVersion {
        id: id.into(),
        version,
        body: body.as_object().unwrap().clone(),
        timestamp: now(),
        user: "u".into(),
        reason: None,
        tags: Vec::new(),
    }
}

/// A file's store opens one reader with it and another only when a read finds every open one
/// busy; a read that must not wait takes an open one or waits for none (it never opens one),
/// and the readers opened later read what the first one does.
#[test]
fn readers_are_opened_when_a_read_finds_every_open_one_busy() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("p.db")).unwrap();
    let open = |s: &SqliteStore| s.readers.iter().filter(|r| r.get().is_some()).count();
    assert_eq!(open(&store), 1);
    let mut tx = store.write().unwrap();
    tx.ensure_tenant("t", now()).unwrap();
    tx.commit().unwrap();
    // Reads one after another keep to the one reader.
    for _ in 0..READERS * 2 {
        assert_eq!(store.read().unwrap().tenant_count().unwrap(), 1);
    }
    assert_eq!(open(&store), 1);
    // Held at once, each read opens the next reader.
    let held: Vec<_> = (0..READERS).map(|_| store.read().unwrap()).collect();
    assert_eq!(open(&store), READERS);
    for tx in &held {
        assert_eq!(tx.tenant_count().unwrap(), 1);
    }
    drop(held);
    // Under NoWait, with the only open reader busy in a fresh store: would wait, nothing opened.
    let fresh = SqliteStore::open(&dir.path().join("p.db")).unwrap();
    let busy = fresh.read().unwrap();
    {
        let _no_wait = crate::store::NoWait::enter();
        let err = fresh.read().err().expect("no reader free at once");
        assert!(err.is_would_wait(), "{err}");
    }
    assert_eq!(open(&fresh), 1);
    drop(busy);
    let _no_wait = crate::store::NoWait::enter();
    assert_eq!(fresh.read().unwrap().tenant_count().unwrap(), 1);
}

/// A reader that cannot be opened when one is needed is an error of that read, and the open
/// ones go on reading.
#[test]
fn a_reader_that_cannot_be_opened_fails_its_read_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let store = SqliteStore::open(&path).unwrap();
    let busy = store.read().unwrap();
    // The file is gone from its directory: the open connections keep it, a new one cannot.
    for suffix in ["", "-wal", "-shm"] {
        let mut f = path.as_os_str().to_owned();
        f.push(suffix);
        let _ = std::fs::remove_file(&f);
    }
    assert!(store.read().is_err(), "no reader could be opened");
    assert_eq!(
        store.readers.iter().filter(|r| r.get().is_some()).count(),
        1
    );
    assert_eq!(busy.tenant_count().unwrap(), 0);
    drop(busy);
    assert_eq!(store.read().unwrap().tenant_count().unwrap(), 0);
}
