//! Migrations of the SQLite schema, each from a database of the schema before it (made out of
//! a new one by undoing the steps since), reading back what it held.

use super::*;

/// Saves each body as a private object in turn and tags version 2 of `A` `live`.
fn save_and_tag_a2_live(
    p: &crate::Platform,
    who: &crate::auth::Principal,
    bodies: impl IntoIterator<Item = serde_json::Value>,
) {
    let opts = crate::documents::SaveOptions::default();
    for body in bodies {
        p.objects()
            .save(who, Collection::Object, body, &opts)
            .unwrap();
    }
    p.objects()
        .tag(
            who,
            Collection::Object,
            crate::ids::Source::Private,
            "A",
            &"2".parse().unwrap(),
            "live",
        )
        .unwrap();
}

#[test]
fn migration_16_moves_the_system_fields_out_of_the_current_rows_body() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let p = crate::Platform::open(&path).unwrap();
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    let opts = crate::documents::SaveOptions::default();
    p.objects()
        .save(
            &who,
            Collection::Type,
            serde_json::json!({"_id": "T", "_indexes": ["_timestamp", "capacity"]}),
            &opts,
        )
        .unwrap();
    save_and_tag_a2_live(
        &p,
        &who,
        [
            serde_json::json!({"_id": "A", "_type": "T", "name": "West Hub", "capacity": 1}),
            serde_json::json!({"_id": "A", "_type": "T", "name": "West Hub", "description": "North", "capacity": 2}),
            serde_json::json!({"_id": "B", "_type": "T", "capacity": 3}),
        ],
    );
    let src = crate::ids::Source::Private;
    let list = |p: &crate::Platform, pairs: &[(&str, &str)]| -> Vec<serde_json::Value> {
        let req =
            crate::documents::ListRequest::from_params(&crate::query::Params::from_slice(pairs))
                .unwrap();
        p.objects()
            .list(&who, Collection::Object, src, &req)
            .unwrap()
            .items
    };
    let queries: &[&[(&str, &str)]] = &[
        &[],
        &[("_tag", "live")],
        &[("_user", "bob")],
        &[("_oid", "B")],
        &[("_version", "2")],
        &[("_timestamp", "gt(2000-01-01T00:00:00Z)")],
        &[("_search", "north")],
        &[("_search", "west")],
        &[("_search", "\"a\nwest\"")],
        &[("_type", "T"), ("_sort", "-_timestamp")],
        &[("_distinct", "_user")],
    ];
    let answers = |p: &crate::Platform| -> Vec<Vec<serde_json::Value>> {
        queries.iter().map(|q| list(p, q)).collect()
    };
    let before = answers(&p);
    assert_eq!(before[1].len(), 1, "{:?}", before[1]);
    assert_eq!(before[8].len(), 1, "{:?}", before[8]);
    let get = |p: &crate::Platform, id: &str| {
        p.objects()
            .get(&who, Collection::Object, src, id, None, None)
            .unwrap()
    };
    let (a, b) = (get(&p, "A"), get(&p, "B"));
    assert_eq!(a["_tag"], serde_json::json!(["live"]));
    let sizes = |path: &std::path::Path| -> Vec<i64> {
        let conn = Connection::open(path).unwrap();
        let layout_18: bool = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'scopes'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let mut stmt = conn
            .prepare(if layout_18 {
                "SELECT length(body) + length(search) FROM heads WHERE sk IN \
                 (SELECT sk FROM scopes WHERE coll = 'object') ORDER BY id"
            } else {
                "SELECT length(body) + length(search) FROM heads WHERE coll = 'object' ORDER BY id"
            })
            .unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    let index_sql = |path: &std::path::Path| -> Vec<String> {
        let conn = Connection::open(path).unwrap();
        let mut stmt = conn
            .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'heads_x_%' ORDER BY name")
            .unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap)
            .map(|sql| layout::scope_named(&conn, sql))
            .collect()
    };
    let (small, made) = (sizes(&path), index_sql(&path));
    p.close().unwrap();
    drop(p);
    // A database of schema 15: the system fields in the body, the id and name in the search
    // text, and the index on `_timestamp` over the body.
    let conn = Connection::open(&path).unwrap();
    layout::undo_18(&conn);
    let made_17 = index_sql(&path);
    assert!(
        made_17
            .iter()
            .any(|s| s.contains("jsonb_object('_timestamp', timestamp)")),
        "{made_17:?}"
    );
    let old_made: Vec<String> = made_17
        .iter()
        .map(|s| s.replace("jsonb_object('_timestamp', timestamp)", "body"))
        .collect();
    for sql in &made_17 {
        if sql.contains("jsonb_object") {
            let name = sql.split('"').nth(1).unwrap();
            conn.execute_batch(&format!("DROP INDEX \"{name}\""))
                .unwrap();
        }
    }
    conn.execute_batch(&format!("{UNDO_16} PRAGMA user_version = 15;"))
        .unwrap();
    for sql in &old_made {
        if sql.contains("body ->> '$.\"_timestamp\"'") {
            conn.execute_batch(sql).unwrap();
        }
    }
    drop(conn);
    let large = sizes(&path);
    for (s, l) in small.iter().zip(&large) {
        assert!(l - s > 60, "{small:?} {large:?}");
    }
    let p = crate::Platform::open(&path).unwrap();
    assert_eq!(sizes(&path), small);
    assert_eq!(index_sql(&path), made);
    assert_eq!(answers(&p), before);
    assert_eq!((get(&p, "A"), get(&p, "B")), (a, b));
    // The schema needs no function of the platform's: a plain SQLite connection rebuilds it.
    Connection::open(&path)
        .unwrap()
        .execute_batch("VACUUM")
        .unwrap();
    // Tags moved after the migration reach the current row.
    p.objects()
        .tag(
            &who,
            Collection::Object,
            src,
            "B",
            &"1".parse().unwrap(),
            "live",
        )
        .unwrap();
    assert_eq!(list(&p, &[("_tag", "live")]).len(), 2);
}

#[test]
fn migration_9_gives_existing_heads_their_system_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let p = crate::Platform::open(&path).unwrap();
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    save_and_tag_a2_live(
        &p,
        &who,
        [
            serde_json::json!({"_id": "A", "v": 1}),
            serde_json::json!({"_id": "A", "v": 2}),
        ],
    );
    p.close().unwrap();
    drop(p);
    // The heads as schema 8 wrote them: the body alone, and no sample bucket (step 12).
    let conn = Connection::open(&path).unwrap();
    layout::undo_18(&conn);
    conn.execute_batch(
        &format!("{UNDO_16} {UNDO_15} {UNDO_14} UPDATE heads SET body = (SELECT jsonb(v.body) FROM versions v WHERE v.coll = heads.coll \
         AND v.tenant = heads.tenant AND v.env = heads.env AND v.id = heads.id \
         AND v.version = heads.version); DROP INDEX heads_sample; \
         ALTER TABLE heads DROP COLUMN bucket; ALTER TABLE heads DROP COLUMN reason; PRAGMA user_version = 8;"),
    )
    .unwrap();
    drop(conn);
    let p = crate::Platform::open(&path).unwrap();
    let list = |pairs: &[(&str, &str)]| {
        let req =
            crate::documents::ListRequest::from_params(&crate::query::Params::from_slice(pairs))
                .unwrap();
        p.objects()
            .list(&who, Collection::Object, crate::ids::Source::Private, &req)
            .unwrap()
            .total
    };
    assert_eq!(list(&[("_user", "bob")]), 1);
    assert_eq!(list(&[("_version", "2")]), 1);
    assert_eq!(list(&[("_tag", "live")]), 1);
    assert_eq!(list(&[("_user", "ann")]), 0);
}

/// What migration 16 did undone: the current row's JSONB copy carries the system fields and
/// its search text the folded id and name, for tests that make a database of an older schema
/// out of a new one (with no function of the platform's).
const UNDO_16: &str = "UPDATE heads SET body = jsonb_set(body, '$._oid', id, '$._version', \
     version, '$._timestamp', timestamp, '$._user', user, '$._tag', json(coalesce(tags, '[]'))), \
     search = coalesce(id_fold, id) || char(10) || coalesce(name_fold, '') || char(10) || search; \
     ALTER TABLE heads DROP COLUMN timestamp; ALTER TABLE heads DROP COLUMN user; \
     ALTER TABLE heads DROP COLUMN tags;";

/// What migration 15 did undone: the index of the whole search text, for tests that make a
/// database of an older schema out of a new one.
const UNDO_15: &str = "DROP INDEX heads_id_fold; ALTER TABLE heads DROP COLUMN id_fold; \
     CREATE INDEX heads_search ON heads(coll, tenant, env, search);";

#[test]
fn migration_15_completes_ids_from_an_index_of_folded_ids() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let p = crate::Platform::open(&path).unwrap();
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    for (id, name) in [
        ("ÄRGER-1", "Trouble"),
        ("ärger-2", "More"),
        ("Other", "Ärmel"),
        ("Arm", "Limb"),
    ] {
        p.objects()
            .save(
                &who,
                Collection::Object,
                serde_json::json!({"_id": id, "name": name}),
                &Default::default(),
            )
            .unwrap();
    }
    let complete = |p: &crate::Platform, prefix: &str| -> Vec<String> {
        let params = crate::query::Params::from_slice(&[("_searchinfo", prefix)]);
        let req = crate::documents::ListRequest::from_params(&params).unwrap();
        p.objects()
            .list(&who, Collection::Object, crate::ids::Source::Private, &req)
            .unwrap()
            .items
            .iter()
            .map(|i| i["_id"].as_str().unwrap().to_string())
            .collect()
    };
    let indexes = |path: &std::path::Path| -> Vec<String> {
        let conn = Connection::open(path).unwrap();
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('heads_search', 'heads_id_fold')")
            .unwrap();
        let names = stmt.query_map([], |r| r.get(0)).unwrap();
        names.map(Result::unwrap).collect()
    };
    // Unicode case folding, ids before names, each group in folded order.
    let expected = ["ÄRGER-1", "ärger-2", "Other"];
    assert_eq!(complete(&p, "ÄR"), expected);
    assert_eq!(complete(&p, "är"), expected);
    assert_eq!(complete(&p, "ar"), ["Arm"]);
    assert_eq!(indexes(&path), ["heads_id_fold"]);
    p.close().unwrap();
    drop(p);
    // A database of schema 14 has the index of the search text; migration 15 replaces it.
    let conn = Connection::open(&path).unwrap();
    layout::undo_18(&conn);
    conn.execute_batch(&format!("{UNDO_16} {UNDO_15} PRAGMA user_version = 14;"))
        .unwrap();
    drop(conn);
    assert_eq!(indexes(&path), ["heads_search"]);
    let p = crate::Platform::open(&path).unwrap();
    assert_eq!(indexes(&path), ["heads_id_fold"]);
    assert_eq!(complete(&p, "är"), expected);
    // The folded id is kept only where it differs from the id.
    let folds: Vec<(String, Option<String>)> = {
        let conn = Connection::open(&path).unwrap();
        let mut stmt = conn
            .prepare("SELECT id, id_fold FROM heads WHERE sk IN (SELECT sk FROM scopes WHERE coll = 'object') ORDER BY id")
            .unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.map(Result::unwrap).collect()
    };
    // (Schema 18: only where it differs from what SQLite's `lower()` makes of the id.)
    let fold = |id: &str, f: Option<&str>| (id.to_string(), f.map(str::to_string));
    assert_eq!(
        folds,
        [
            fold("Arm", None),
            fold("Other", None),
            fold("ÄRGER-1", Some("ärger-1")),
            fold("ärger-2", None)
        ]
    );
    // The schema needs no function of the platform's: a plain SQLite connection rebuilds it.
    Connection::open(&path)
        .unwrap()
        .execute_batch("VACUUM")
        .unwrap();
    // The new index is kept by saves and deletes.
    p.objects()
        .save(
            &who,
            Collection::Object,
            serde_json::json!({"_id": "Ärmchen", "name": "x"}),
            &Default::default(),
        )
        .unwrap();
    assert_eq!(complete(&p, "ärm"), ["Ärmchen", "Other"]);
}

/// What migration 14 did undone: every version row holds its body (as schemas before 14 kept
/// them), for tests that make a database of an older schema out of a new one.
const UNDO_14: &str = "UPDATE versions SET body = (SELECT json(jsonb_remove(h.body, '$._oid', \
     '$._version', '$._timestamp', '$._user', '$._tag')) FROM heads h WHERE h.coll = versions.coll \
     AND h.tenant = versions.tenant AND h.env = versions.env AND h.id = versions.id \
     AND h.version = versions.version) WHERE body = '';";

#[test]
fn a_current_body_is_kept_once_in_its_current_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let p = crate::Platform::open(&path).unwrap();
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    let save = |p: &crate::Platform, body: serde_json::Value| {
        p.objects()
            .save(&who, Collection::Object, body, &Default::default())
            .unwrap();
    };
    save(
        &p,
        serde_json::json!({"_id": "A", "v": 1, "s": "a \"quoted\"\n line é"}),
    );
    save(
        &p,
        serde_json::json!({"_id": "A", "v": 2, "n": [1.5, -0.0001, 12345678901234567890u64]}),
    );
    save(&p, serde_json::json!({"_id": "B", "v": 1}));
    // Each document's versions, and whether each is kept in its current row alone (schema 18:
    // the current one has no version row; before, its version row's text was empty).
    let stored = |path: &std::path::Path| -> Vec<(String, u32, bool)> {
        let conn = Connection::open(path).unwrap();
        let layout_18: bool = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'scopes'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let sql = if layout_18 {
            "SELECT id, version, 0 FROM versions WHERE sk IN (SELECT sk FROM scopes WHERE coll = 'object') \
             UNION ALL SELECT id, version, 1 FROM heads h WHERE sk IN (SELECT sk FROM scopes WHERE \
             coll = 'object') AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.sk = h.sk AND v.id = h.id \
             AND v.version = h.version) ORDER BY 1, 2"
        } else {
            "SELECT id, version, body = '' FROM versions WHERE coll = 'object' ORDER BY id, version"
        };
        let mut stmt = conn.prepare(sql).unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap();
        rows.map(Result::unwrap).collect()
    };
    let kept = |rows: &[(&str, u32, bool)]| -> Vec<(String, u32, bool)> {
        rows.iter()
            .map(|(id, v, e)| (id.to_string(), *v, *e))
            .collect()
    };
    assert_eq!(
        stored(&path),
        kept(&[("A", 1, false), ("A", 2, true), ("B", 1, true)])
    );
    let src = crate::ids::Source::Private;
    let version = |p: &crate::Platform, id: &str, n: &str| {
        p.objects()
            .get(
                &who,
                Collection::Object,
                src,
                id,
                Some(&n.parse().unwrap()),
                None,
            )
            .unwrap()
    };
    let versions = |p: &crate::Platform| {
        [
            version(p, "A", "1"),
            version(p, "A", "2"),
            version(p, "B", "1"),
        ]
    };
    let before = versions(&p);
    assert_eq!(before[0]["s"], "a \"quoted\"\n line é");
    assert_eq!(
        before[1]["n"],
        serde_json::json!([1.5, -0.0001, 12345678901234567890u64])
    );
    let list = |p: &crate::Platform| {
        let req =
            crate::documents::ListRequest::from_params(&crate::query::Params::from_slice(&[]))
                .unwrap();
        p.objects()
            .list(&who, Collection::Object, src, &req)
            .unwrap()
            .items
    };
    assert_eq!(list(&p), [before[1].clone(), before[2].clone()]);
    // Rolled back, version 1 is current and its text moves to the current row.
    let latest = crate::documents::DeleteTarget::Latest;
    p.objects()
        .delete(&who, Collection::Object, src, "A", &latest, None)
        .unwrap();
    assert_eq!(stored(&path), kept(&[("A", 1, true), ("B", 1, true)]));
    let mut current = before[0].clone();
    current["_id"] = "A".into();
    assert_eq!(version(&p, "A", "1"), current);
    // A new version gives the one before its text back.
    save(&p, serde_json::json!({"_id": "A", "v": 3}));
    assert_eq!(
        stored(&path),
        kept(&[("A", 1, false), ("A", 2, true), ("B", 1, true)])
    );
    assert_eq!(version(&p, "A", "1"), before[0]);
    p.close().unwrap();
    drop(p);
    // A database of schema 13 keeps every body in its version row; migration 14 empties the
    // current ones, and every version reads as before.
    let conn = Connection::open(&path).unwrap();
    layout::undo_18(&conn);
    conn.execute_batch(&format!(
        "{UNDO_16} {UNDO_15} {UNDO_14} PRAGMA user_version = 13;"
    ))
    .unwrap();
    drop(conn);
    assert_eq!(
        stored(&path),
        kept(&[("A", 1, false), ("A", 2, false), ("B", 1, false)])
    );
    let p = crate::Platform::open(&path).unwrap();
    assert_eq!(
        stored(&path),
        kept(&[("A", 1, false), ("A", 2, true), ("B", 1, true)])
    );
    assert_eq!(version(&p, "A", "1"), before[0]);
    assert_eq!(version(&p, "B", "1"), before[2]);
}

#[test]
fn a_current_row_with_damaged_system_fields_is_an_internal_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let p = crate::Platform::open(&path).unwrap();
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    let get = |p: &crate::Platform| {
        p.objects().get(
            &who,
            Collection::Object,
            crate::ids::Source::Private,
            "A",
            None,
            None,
        )
    };
    p.objects()
        .save(
            &who,
            Collection::Object,
            serde_json::json!({"_id": "A"}),
            &Default::default(),
        )
        .unwrap();
    assert!(get(&p).is_ok());
    let conn = Connection::open(&path).unwrap();
    let (stored, stored_time): (Vec<u8>, i64) = conn
        .query_row(
            "SELECT body, timestamp FROM heads WHERE id = 'A'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    for (damage, says) in [
        ("tags = '[1]'", "has tags [1]"),
        ("tags = 'live'", "has tags live"),
        ("user = x'ff'", "user"),
        ("timestamp = 'yesterday'", "\"yesterday\""),
        ("body = json('[1]')", "not a JSON object"),
    ] {
        conn.execute_batch(&format!("UPDATE heads SET {damage} WHERE id = 'A'"))
            .unwrap();
        let e = get(&p).unwrap_err();
        assert_eq!(e.code(), crate::error::ErrorCode::Internal, "{damage}");
        assert!(e.to_string().contains(says), "{damage}: {e}");
        // Printed from the stored body: the same error, or (a body that is no JSONB) left to
        // the read above.
        let printed = {
            let snapshot = p.snapshot().unwrap();
            let source = crate::ids::Source::Private;
            snapshot
                .objects()
                .get_printed(&who, Collection::Object, source, "A")
        };
        match printed {
            Err(e) => {
                assert_eq!(e.code(), crate::error::ErrorCode::Internal, "{damage}");
                assert!(e.to_string().contains(says), "{damage}: {e}");
            }
            Ok(none) => assert!(none.is_none() && damage.starts_with("body"), "{damage}"),
        }
        // The row as the store wrote it reads again.
        conn.execute_batch(&format!(
            "UPDATE heads SET body = x'{}', tags = NULL, user = 'bob', \
             timestamp = {stored_time} WHERE id = 'A'",
            stored
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        ))
        .unwrap();
        assert!(get(&p).is_ok(), "{damage}");
        let snapshot = p.snapshot().unwrap();
        let printed = snapshot.objects().get_printed(
            &who,
            Collection::Object,
            crate::ids::Source::Private,
            "A",
        );
        assert!(printed.unwrap().is_some(), "{damage}");
    }
}

#[test]
fn migration_13_keeps_each_current_versions_reason_in_its_current_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let p = crate::Platform::open(&path).unwrap();
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    let with_reason = |reason: Option<&str>| crate::documents::SaveOptions {
        reason: reason.map(str::to_string),
        ..Default::default()
    };
    for (id, v, reason) in [
        ("A", 1, Some("first load")),
        ("A", 2, None),
        ("B", 1, None),
        ("B", 2, Some("fixed")),
    ] {
        let body = serde_json::json!({"_id": id, "v": v});
        p.objects()
            .save(&who, Collection::Object, body, &with_reason(reason))
            .unwrap();
    }
    let get = |p: &crate::Platform, id: &str| {
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
    let before = [get(&p, "A"), get(&p, "B")];
    assert_eq!(before[1]["_reason"], "fixed");
    assert!(before[0].get("_reason").is_none());
    p.close().unwrap();
    drop(p);
    // The heads as schema 12 wrote them: no reason beside the body.
    let conn = Connection::open(&path).unwrap();
    layout::undo_18(&conn);
    conn.execute_batch(&format!(
        "{UNDO_16} {UNDO_15} {UNDO_14} ALTER TABLE heads DROP COLUMN reason; PRAGMA user_version = 12;"
    ))
    .unwrap();
    drop(conn);
    let p = crate::Platform::open(&path).unwrap();
    assert_eq!([get(&p, "A"), get(&p, "B")], before);
    // Rolled back to version 1, A carries its reason again.
    let latest = crate::documents::DeleteTarget::Latest;
    p.objects()
        .delete(
            &who,
            Collection::Object,
            crate::ids::Source::Private,
            "A",
            &latest,
            None,
        )
        .unwrap();
    assert_eq!(get(&p, "A")["_reason"], "first load");
}

#[test]
fn migration_12_gives_existing_heads_their_sample_buckets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let p = crate::Platform::open(&path).unwrap();
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    for id in ["A", "B", "C", "a-much-longer-id"] {
        let body = serde_json::json!({"_id": id});
        p.objects()
            .save(&who, Collection::Object, body, &Default::default())
            .unwrap();
    }
    p.close().unwrap();
    drop(p);
    let conn = Connection::open(&path).unwrap();
    layout::undo_18(&conn);
    conn.execute_batch(
        &format!("{UNDO_16} {UNDO_15} {UNDO_14} DROP INDEX heads_sample; ALTER TABLE heads DROP COLUMN bucket; ALTER TABLE heads DROP COLUMN reason; PRAGMA user_version = 11;"),
    )
    .unwrap();
    drop(conn);
    let store = SqliteStore::open(&path).unwrap();
    store.close().unwrap();
    let conn = Connection::open(&path).unwrap();
    let rows: Vec<(String, u32)> = conn
        .prepare("SELECT id, bucket FROM heads WHERE sk IN (SELECT sk FROM scopes WHERE coll = 'object') ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), 4);
    for (id, bucket) in rows {
        assert_eq!(bucket, crate::query::total::sample_bucket(&id), "{id}");
    }
    assert!(crate::query::total::sample_bucket("A") != crate::query::total::sample_bucket("B"));
}

#[test]
fn migration_10_takes_when_each_job_may_start_from_its_document() {
    use crate::store::{Job, JobStatus};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let scope = Scope::private("acme", "production");
    let job = |id: &str, not_before: Option<DateTime<Utc>>| Job {
        id: id.into(),
        kind: "run".into(),
        status: JobStatus::Queued,
        progress: 0,
        created: now(),
        started: None,
        finished: None,
        message: "queued".into(),
        user: "ann".into(),
        role: Role::Writer,
        access: Vec::new(),
        features: Vec::new(),
        payload: serde_json::json!({"request": {"target": "A:S"}}),
        not_before,
        result: None,
    };
    let later = now() + chrono::TimeDelta::minutes(5);
    let (waiting, due) = (job("waiting", Some(later)), job("due", None));
    {
        let store = SqliteStore::open(&path).unwrap();
        let mut tx = store.write().unwrap();
        tx.put_job(&scope, &waiting).unwrap();
        tx.put_job(&scope, &due).unwrap();
        tx.commit().unwrap();
        store.close().unwrap();
    }
    // The jobs as schema 9 kept them: the document alone says when a job may start (and the
    // heads had no sample bucket, step 12).
    let conn = Connection::open(&path).unwrap();
    layout::undo_18(&conn);
    conn.execute_batch(
        &format!("{UNDO_16} {UNDO_15} {UNDO_14} ALTER TABLE jobs DROP COLUMN not_before; DROP INDEX heads_sample; \
         ALTER TABLE heads DROP COLUMN bucket; ALTER TABLE heads DROP COLUMN reason; PRAGMA user_version = 9;"),
    )
    .unwrap();
    drop(conn);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(
        store.read().unwrap().job(&scope, "waiting").unwrap(),
        Some(waiting)
    );
    let claim = |at: DateTime<Utc>| {
        let mut tx = store.write().unwrap();
        let claimed = tx.claim_job(at).unwrap().map(|(_, j)| j.id);
        tx.commit().unwrap();
        claimed
    };
    assert_eq!(claim(now()).as_deref(), Some("due"));
    assert_eq!(claim(now()), None, "the other job waits for its time");
    assert_eq!(claim(later).as_deref(), Some("waiting"));
}

#[test]
fn migration_17_moves_the_series_value_type_of_the_earlier_reading_to_data_type() {
    use crate::store::upgrade::earlier_reading;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let p = crate::Platform::open(&path).unwrap();
    earlier_reading::save(&p);
    p.close().unwrap();
    drop(p);
    // A database of schema 16, its series declared as the earlier reading wrote them: in the
    // current row and in the row of version 1 (the current version's row holds no body).
    let conn = Connection::open(&path).unwrap();
    layout::undo_18(&conn);
    conn.execute_batch(
        "UPDATE heads SET body = jsonb_set(body, '$.PRICE.valueType', 'number', \
             '$.FLAGS.valueType', 'text') WHERE coll = 'object' AND id = 'DE'; \
         UPDATE versions SET body = json_set(body, '$.PRICE.valueType', 'number', \
             '$.FLAGS.valueType', 'text') WHERE coll = 'object' AND id = 'DE' AND body != ''; \
         PRAGMA user_version = 16;",
    )
    .unwrap();
    let old = |conn: &Connection| -> i64 {
        conn.query_row(
            "SELECT (SELECT count(*) FROM heads WHERE json(body) LIKE '%\"valueType\":\"number\"%') \
             + (SELECT count(*) FROM versions WHERE body LIKE '%\"valueType\":\"number\"%')",
            [],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(
        old(&conn),
        2,
        "the current row and version 1 say valueType number"
    );
    drop(conn);
    let p = crate::Platform::open(&path).unwrap();
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    assert_eq!(old(&Connection::open(&path).unwrap()), 0);
    earlier_reading::assert_migrated(&p, &who);
}
