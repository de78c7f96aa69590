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

/// The plan SQLite makes for a statement with its arguments, one step a line.
fn explain(conn: &Connection, text: &str, args: &[rusqlite::types::Value]) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {text}")).unwrap();
    let rows = stmt
        .query_map(rusqlite::params_from_iter(args.iter()), |r| {
            r.get::<_, String>(3)
        })
        .unwrap();
    rows.map(|r| r.unwrap() + "\n").collect()
}

/// The plans SQLite makes for the count and the page of a list of objects of `acme`.
fn list_plans(
    path: &std::path::Path,
    query: &crate::query::ListQuery,
    after: Option<&crate::query::Cursor>,
) -> String {
    let conn = Connection::open(path).unwrap();
    let sk: i64 = conn
        .query_row(
            "SELECT sk FROM scopes WHERE coll = 'object' AND tenant = 'acme' AND env = 'production'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let statements = documents::list_statements(Collection::Object, &[sk], query, after).unwrap();
    sql::register_functions(&conn).unwrap();
    let mut out = String::new();
    for (text, args) in [statements.count, statements.page] {
        out.push_str(&explain(&conn, &text, &args));
    }
    out
}

#[test]
fn lists_of_one_type_search_its_per_type_indexes() {
    use crate::query::filter::parse_param;
    use crate::query::{Cursor, Filter, ListQuery, Paging, SortSpec};
    use crate::store::{type_index_name, StoredVersion};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plans.db");
    let store = SqliteStore::open(&path).unwrap();
    let acme = Scope::private("acme", "production");
    let mut tx = store.write().unwrap();
    for i in 0..400 {
        let country = ["NL", "GB", "DE", "FR"][i % 4];
        let body = serde_json::json!({
            "_type": if i % 2 == 0 { "Plant" } else { "Other" },
            "country": country,
            "capacity": (i * 37) % 1000,
        });
        let v = StoredVersion {
            id: format!("O{i:03}"),
            version: 1,
            body: body.as_object().unwrap().clone(),
            timestamp: now(),
            user: "u".into(),
            reason: None,
            tags: Vec::new(),
        };
        tx.hold(&[crate::store::Hold::Document(
            Collection::Object,
            &acme,
            &v.id,
        )])
        .unwrap();
        tx.put_version(Collection::Object, &acme, &v).unwrap();
        tx.set_current(Collection::Object, &acme, &v.id, Some(1))
            .unwrap();
    }
    tx.commit().unwrap();
    let typed = |more: &[(&str, &str)], sort: &str| ListQuery {
        total: crate::query::Total::Exact,
        filter: Filter::and(
            std::iter::once(Filter::TypeIn(vec!["Plant".into()]))
                .chain(more.iter().map(|(k, v)| parse_param(k, v).unwrap()))
                .collect(),
        ),
        sort: if sort.is_empty() {
            SortSpec::default()
        } else {
            SortSpec::parse(sort).unwrap()
        },
        paging: Paging {
            skip: 0,
            limit: Some(10),
        },
    };
    let country = type_index_name(&acme, "Plant", "country");
    let capacity = type_index_name(&acme, "Plant", "capacity");
    let by_capacity = typed(&[], "capacity");
    let cursor = Cursor {
        keys: vec![serde_json::json!(500)],
        id: "O100".into(),
    };
    let cases: [(ListQuery, Option<&Cursor>, &str); 5] = [
        (typed(&[("country", "NL")], ""), None, &country),
        (typed(&[("capacity", "gt(900)")], ""), None, &capacity),
        (
            typed(&[("capacity", "range(10,20)")], "-capacity"),
            None,
            &capacity,
        ),
        (by_capacity.clone(), None, &capacity),
        (by_capacity.clone(), Some(&cursor), &capacity),
    ];
    // Without the indexes no plan names them.
    for (q, after, _) in &cases {
        let plan = list_plans(&path, q, *after);
        assert!(!plan.contains("heads_x_"), "{plan}");
    }
    let mut tx = store.write().unwrap();
    tx.hold(&[crate::store::Hold::Document(
        crate::store::Collection::Type,
        &acme,
        "Plant",
    )])
    .unwrap();
    tx.set_type_indexes(&acme, "Plant", &["country".into(), "capacity".into()])
        .unwrap();
    tx.commit().unwrap();
    for (q, after, index) in &cases {
        let plan = list_plans(&path, q, *after);
        // The count and the page each search the index, and nothing else reads the heads but
        // the lookup of each page item's body by its key (a current body is kept in its row).
        let by_key = "SEARCH h USING PRIMARY KEY (sk=? AND id=?)";
        let heads: Vec<&str> = plan
            .lines()
            .filter(|l| l.starts_with("SEARCH h ") || l.starts_with("SCAN heads"))
            .filter(|l| *l != by_key)
            .collect();
        assert_eq!(heads.len(), 2, "{q:?}: {plan}");
        assert!(
            heads.iter().all(|l| l.contains(&format!("INDEX {index} "))),
            "{q:?}: {plan}"
        );
    }
    // A sort on an indexed field reads the index in order: no sort of the matches.
    for (q, after) in [(&by_capacity, None), (&by_capacity, Some(&cursor))] {
        let plan = list_plans(&path, q, after);
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
        assert!(
            plan.contains(&format!("SEARCH h USING INDEX {capacity}")),
            "{plan}"
        );
    }
    // The keyset page is a range of the index.
    let plan = list_plans(&path, &by_capacity, Some(&cursor));
    assert!(plan.contains(">?"), "{plan}");
    // Changed to one field, then dropped with the list.
    let names = || -> Vec<String> {
        let conn = Connection::open(&path).unwrap();
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'heads_x_%' ORDER BY name")
            .unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.map(|r| r.unwrap()).collect()
    };
    let mut both = vec![country.clone(), capacity.clone()];
    both.sort();
    assert_eq!(names(), both);
    let mut tx = store.write().unwrap();
    tx.hold(&[crate::store::Hold::Document(
        crate::store::Collection::Type,
        &acme,
        "Plant",
    )])
    .unwrap();
    tx.set_type_indexes(&acme, "Plant", &["capacity".into()])
        .unwrap();
    tx.commit().unwrap();
    assert_eq!(names(), std::slice::from_ref(&capacity));
    let mut tx = store.write().unwrap();
    tx.hold(&[crate::store::Hold::Document(
        crate::store::Collection::Type,
        &acme,
        "Plant",
    )])
    .unwrap();
    tx.set_type_indexes(&acme, "Plant", &[]).unwrap();
    tx.commit().unwrap();
    assert!(names().is_empty());
}

#[test]
fn a_types_indexes_follow_its_current_version() {
    use crate::documents::{DeleteTarget, SaveOptions};
    use crate::ids::Source;
    use crate::store::type_index_name;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("types.db");
    let platform = crate::Platform::open(&path).unwrap();
    let me = platform.tenancy().local_principal("acme", "alice").unwrap();
    let scope = me.private_scope();
    let names = || -> Vec<String> {
        let conn = Connection::open(&path).unwrap();
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'heads_x_%' ORDER BY name")
            .unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.map(|r| r.unwrap()).collect()
    };
    let of = |scope: &Scope, fields: &[&str]| -> Vec<String> {
        let mut out: Vec<String> = fields
            .iter()
            .map(|f| type_index_name(scope, "Plant", f))
            .collect();
        out.sort();
        out
    };
    let save = |body: serde_json::Value| {
        platform
            .objects()
            .save(&me, Collection::Type, body, &SaveOptions::default())
            .unwrap();
    };
    // Objects stored before the type are indexed when it is saved.
    platform
        .objects()
        .save(
            &me,
            Collection::Object,
            serde_json::json!({"_id": "A", "_type": "Plant", "country": "NL"}),
            &SaveOptions::default(),
        )
        .unwrap();
    save(serde_json::json!({"_id": "Plant", "_indexes": ["country"]}));
    assert_eq!(names(), of(&scope, &["country"]));
    save(serde_json::json!({"_id": "Plant", "_indexes": ["capacity", "country"]}));
    assert_eq!(names(), of(&scope, &["capacity", "country"]));
    // A refused definition changes nothing.
    assert!(platform
        .objects()
        .save(
            &me,
            Collection::Type,
            serde_json::json!({"_id": "Plant", "_indexes": ["ok", "not ok"]}),
            &SaveOptions::default(),
        )
        .is_err());
    assert_eq!(names(), of(&scope, &["capacity", "country"]));
    // A rollback brings back the indexes of the version now current.
    platform
        .objects()
        .delete(
            &me,
            Collection::Type,
            Source::Private,
            "Plant",
            &DeleteTarget::Latest,
            None,
        )
        .unwrap();
    assert_eq!(names(), of(&scope, &["country"]));
    // A save merges: an empty list drops them.
    save(serde_json::json!({"_id": "Plant", "_indexes": []}));
    assert!(names().is_empty());
    save(serde_json::json!({"_id": "Plant", "_indexes": ["meta.tier"]}));
    assert_eq!(names(), of(&scope, &["meta.tier"]));
    // Deleted with the type.
    platform
        .objects()
        .delete(
            &me,
            Collection::Type,
            Source::Private,
            "Plant",
            &DeleteTarget::All,
            None,
        )
        .unwrap();
    assert!(names().is_empty());
}

/// The sample of an estimated total reads a bounded part of the collection: the sample index
/// by a range of buckets in each scope (a list of `all` reads two, one at a time), whichever
/// filter, type and per-type index the list has; the probe of a filtered first page reads the
/// documents of its scope and type in id order.
#[test]
fn estimated_totals_read_the_sample_index_by_bucket_in_each_scope() {
    use crate::query::filter::parse_param;
    use crate::query::{Filter, ListQuery};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.db");
    let store = SqliteStore::open(&path).unwrap();
    let acme = Scope::private("acme", "production");
    let mut tx = store.write().unwrap();
    tx.hold(&[crate::store::Hold::Document(
        crate::store::Collection::Type,
        &acme,
        "Plant",
    )])
    .unwrap();
    tx.set_type_indexes(&acme, "Plant", &["country".into()])
        .unwrap();
    tx.commit().unwrap();
    let conn = Connection::open(&path).unwrap();
    sql::register_functions(&conn).unwrap();
    let plan = |scopes: &[Scope], filter: Filter| {
        let query = ListQuery {
            filter,
            ..ListQuery::default()
        };
        // (The scopes' keys as the store would have made them.)
        let keys: Vec<i64> = (1..=scopes.len() as i64).collect();
        let statements =
            documents::list_statements(Collection::Object, &keys, &query, None).unwrap();
        let (_, args) = &statements.count;
        let mut out = String::new();
        for key in keys {
            // The sample reads each scope alone.
            let mut with_scope = args.clone();
            with_scope.extend([
                rusqlite::types::Value::Integer(key),
                rusqlite::types::Value::Integer(4),
                rusqlite::types::Value::Integer(8),
            ]);
            let text =
                documents::sampled_count(&statements.filter, &statements.base, args.len() + 1);
            out.push_str(&explain(&conn, &text, &with_scope));
        }
        // The probe of a first page in id order reads the documents in that order.
        if let Some(text) = &statements.probe {
            out.push_str(&explain(&conn, text, &statements.page.1));
        }
        out
    };
    let typed = Filter::and(vec![
        Filter::TypeIn(vec!["Plant".into()]),
        parse_param("country", "NL").unwrap(),
    ]);
    let sampled = "INDEX heads_sample (sk=? AND bucket>? AND bucket<?)";
    for (scopes, filter, sample_scans, in_order) in [
        (
            vec![acme.clone()],
            typed,
            1,
            Some("USING PRIMARY KEY (sk=?)"),
        ),
        (
            vec![acme.clone()],
            parse_param("country", "NL").unwrap(),
            1,
            Some("USING PRIMARY KEY (sk=?)"),
        ),
        (vec![acme.clone(), Scope::public()], Filter::all(), 2, None),
    ] {
        let plan = plan(&scopes, filter);
        assert_eq!(plan.matches(sampled).count(), sample_scans, "{plan}");
        match in_order {
            Some(read) => {
                assert!(plan.contains(read), "{plan}");
                // No sort of the documents read, only of the page's few matches at most.
                assert!(plan.matches("TEMP B-TREE").count() <= 1, "{plan}");
            }
            None => assert!(!plan.contains("CO-ROUTINE"), "no probe: {plan}"),
        }
    }
}

/// A type with a NUL (bound, not written in the statement) lists like any other, counted
/// either way.
#[test]
fn a_type_with_a_nul_lists_and_counts() {
    use crate::query::filter::parse_param;
    use crate::query::{Filter, ListQuery, Total};
    let store = SqliteStore::open_in_memory().unwrap();
    let acme = Scope::private("acme", "production");
    let mut tx = store.write().unwrap();
    for (id, t) in [("A", "x\0y"), ("B", "x\0y"), ("C", "x")] {
        let v = stored_version(id, 1, serde_json::json!({"_type": t, "n": 1}));
        tx.hold(&[crate::store::Hold::Document(
            Collection::Object,
            &acme,
            &v.id,
        )])
        .unwrap();
        tx.put_version(Collection::Object, &acme, &v).unwrap();
        tx.hold(&[crate::store::Hold::Document(Collection::Object, &acme, id)])
            .unwrap();
        tx.set_current(Collection::Object, &acme, id, Some(1))
            .unwrap();
    }
    tx.commit().unwrap();
    for total in [Total::Exact, Total::Estimated] {
        let query = ListQuery {
            filter: Filter::and(vec![
                Filter::TypeIn(vec!["x\0y".into()]),
                parse_param("n", "1").unwrap(),
            ]),
            total,
            ..ListQuery::default()
        };
        let page = store
            .read()
            .unwrap()
            .list(Collection::Object, std::slice::from_ref(&acme), &query)
            .unwrap();
        assert_eq!((page.items.len(), page.total), (2, 2), "{total:?}");
    }
}

/// A list of several scopes (`all`: the tenant's and the public source) reads each scope by
/// its key, never the whole collection of every tenant: its count, its page and its sample.
#[test]
fn lists_of_two_scopes_read_each_scope_by_its_key() {
    use crate::query::filter::parse_param;
    use crate::query::{Filter, ListQuery, SortSpec};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.db");
    let _store = SqliteStore::open(&path).unwrap();
    // (The keys of the tenant's scope and the public source, 1 and 2.)
    for (filter, sort) in [
        (Filter::all(), ""),
        (parse_param("country", "NL").unwrap(), ""),
        (Filter::TypeIn(vec!["Plant".into()]), "name"),
    ] {
        let query = ListQuery {
            filter,
            sort: if sort.is_empty() {
                SortSpec::default()
            } else {
                SortSpec::parse(sort).unwrap()
            },
            ..ListQuery::default()
        };
        let statements =
            documents::list_statements(Collection::Object, &[1, 2], &query, None).unwrap();
        let conn = Connection::open(&path).unwrap();
        sql::register_functions(&conn).unwrap();
        for (text, args) in [
            (&statements.count.0, &statements.count.1),
            (
                &documents::capped_count(&statements.filter, 10_001),
                &statements.count.1,
            ),
            (&statements.page.0, &statements.page.1),
        ] {
            let plan: Vec<String> = explain(&conn, text, args)
                .lines()
                .map(str::to_string)
                .collect();
            // Each read of the table is a search by the scope's key (a plain `SCAN h` is
            // the page's subquery, named `h` too).
            let subquery = plan.iter().any(|s| s == "CO-ROUTINE h");
            let reads: Vec<&String> = plan
                .iter()
                .filter(|s| s.starts_with("SEARCH h ") || s.starts_with("SCAN h"))
                .filter(|s| !(subquery && *s == "SCAN h"))
                .collect();
            assert!(!reads.is_empty(), "{plan:#?}");
            for step in reads {
                assert!(
                    step.starts_with("SEARCH h ") && step.contains("sk=?"),
                    "{step} reads every tenant: {plan:#?}"
                );
            }
        }
    }
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
