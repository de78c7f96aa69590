//! A current row keeps the `_id` its body starts with, and the `_type` right after it, in its
//! columns only (`heads.lead`, see `layout`): every read puts them back where they were, and
//! filters and sorts on them find them.

use crate::api::objects::SaveOptions;
use crate::store::Collection;
use crate::Platform;
use serde_json::{json, Value};

/// The objects a private list answers (`query` as `name=value&...`).
pub(super) fn list(platform: &Platform, who: &crate::api::Principal, query: &str) -> Vec<Value> {
    let pairs: Vec<(&str, &str)> = query
        .split('&')
        .map(|pair| pair.split_once('=').unwrap())
        .collect();
    let params = crate::api::Params::from_slice(&pairs);
    let request = crate::api::ListRequest::from_params(&params).unwrap();
    platform
        .objects()
        .list(
            who,
            Collection::Object,
            crate::api::Source::Private,
            &request,
        )
        .unwrap()
        .items
}

/// Saves an object through the platform (which puts `_id` and `_type` first).
fn save(platform: &Platform, who: &crate::api::Principal, body: Value) {
    platform
        .objects()
        .save(who, Collection::Object, body, &SaveOptions::default())
        .unwrap();
}

fn ids(items: &[Value]) -> Vec<&str> {
    items.iter().map(|o| o["_id"].as_str().unwrap()).collect()
}

/// The text of an answer's item up to its system fields: the body as written.
fn own_text(item: &Value, body: &Value) -> String {
    let text = item.to_string();
    let own = body.to_string();
    let open = &own[..own.len() - 1];
    assert!(text.starts_with(open), "{text} does not start with {open}");
    own
}

#[test]
fn bodies_read_back_as_written_whatever_their_lead() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let platform = Platform::open(&path).unwrap();
    let who = platform.tenancy().local_principal("acme", "ann").unwrap();
    // Each body as stored (a save puts `_id` and `_type` first, `#Object` where none is
    // given), and what its row keeps apart (`lead`).
    let saved: Vec<(Value, Option<i64>)> = vec![
        (
            json!({"_id": "A1", "_type": "Meter", "name": "a", "n": 1}),
            Some(1),
        ),
        (json!({"_id": "A2", "_type": "Meter", "name": "b"}), Some(1)),
        (json!({"_id": "A3", "_type": "Meter"}), Some(0)),
        (json!({"_id": "A4", "_type": "#Object"}), Some(0)),
        (
            json!({"_id": "A7", "_type": "Pipe", "x": {"_id": "in", "_type": "T"}}),
            Some(1),
        ),
        (
            json!({"_id": "A8", "_type": "Méter€😀", "x": [1.5e300, "\"q\"\n"]}),
            Some(1),
        ),
        (json!({"_id": "B1", "_type": "#Object", "n": 2}), Some(1)),
    ];
    for (body, _) in &saved {
        save(&platform, &who, body.clone());
    }
    // Bodies in other orders, as the store's other writers (and earlier releases) keep them.
    let written: Vec<(Value, Option<i64>)> = vec![
        (json!({"_id": "A5", "name": "c", "_type": "Meter"}), Some(0)),
        (json!({"_id": "A6", "x": 1}), Some(0)),
        (json!({"name": "d", "_id": "A9", "_type": "Meter"}), None),
        (json!({"_type": "Meter", "_id": "B2", "n": 3}), None),
        (json!({"_id": "B3", "_type": 7, "n": 3}), Some(0)),
        (json!({"_id": "B4"}), None),
    ];
    let scope = crate::ids::Scope::private("acme", crate::auth::DEFAULT_ENVIRONMENT);
    let mut tx = platform.store.write().unwrap();
    for (body, _) in &written {
        let id = body["_id"].as_str().unwrap();
        tx.hold(&[crate::store::Hold::Document(Collection::Object, &scope, id)])
            .unwrap();
        let version = crate::store::StoredVersion {
            id: id.to_string(),
            version: 1,
            body: body.as_object().unwrap().clone(),
            timestamp: chrono::Utc::now(),
            user: "ann".into(),
            reason: None,
            tags: Vec::new(),
        };
        tx.put_current(Collection::Object, &scope, &version, None)
            .unwrap();
    }
    tx.commit().unwrap();
    let bodies: Vec<(Value, Option<i64>)> = saved.into_iter().chain(written).collect();
    let conn = rusqlite::Connection::open(&path).unwrap();
    for (body, lead) in &bodies {
        let id = body["_id"].as_str().unwrap();
        let kept: Option<i64> = conn
            .query_row("SELECT lead FROM heads WHERE id = ?1", [id], |r| r.get(0))
            .unwrap();
        assert_eq!(kept, *lead, "{id}");
        // By id (the JSONB read here, as a map and printed) and in a list (printed by
        // SQLite).
        let objects = platform.objects();
        let private = crate::api::Source::Private;
        let one = objects
            .get(&who, Collection::Object, private, id, None, None)
            .unwrap();
        own_text(&one, body);
        let (printed, _) = objects
            .get_printed(&who, Collection::Object, private, id)
            .unwrap()
            .unwrap();
        let printed: Value = serde_json::from_slice(&printed).unwrap();
        own_text(&printed, body);
        let listed = list(&platform, &who, &format!("_oid={id}"));
        own_text(&listed[0], body);
        // Its fields read by name.
        let fields = list(&platform, &who, &format!("_oid={id}&_project=_id,_type"));
        assert_eq!(fields[0].get("_type"), body.get("_type"), "{id}");
    }
    // Filters and sorts on `_type` and on the id (types: none for A6 and B4, 7 for B3).
    for (query, expected) in [
        ("_type=Meter", &["A1", "A2", "A3", "A5", "A9", "B2"][..]),
        (r#"_filter={"_type":{"$gt":"N"}}"#, &["A7"]),
        (
            r#"_filter={"_type":{"$lte":"Meter"}}"#,
            &["A1", "A2", "A3", "A4", "A5", "A9", "B1", "B2"],
        ),
        (
            r#"_filter={"_type":{"$ne":"Meter"}}"#,
            &["A4", "A6", "A7", "A8", "B1", "B3", "B4"],
        ),
        (r#"_filter={"_type":{"$exists":false}}"#, &["A6", "B4"]),
        (
            r#"_filter={"_type":{"$regex":"^M"}}"#,
            &["A1", "A2", "A3", "A5", "A8", "A9", "B2"],
        ),
        (r#"_filter={"_type":7}"#, &["B3"]),
        (
            "_sort=_type",
            &[
                "A6", "B4", "B3", "A4", "B1", "A1", "A2", "A3", "A5", "A9", "B2", "A8", "A7",
            ],
        ),
        ("_oid=gt(A6)", &["A7", "A8", "A9", "B1", "B2", "B3", "B4"]),
    ] {
        assert_eq!(ids(&list(&platform, &who, query)), expected, "{query}");
    }
    // A new version keeps the one before as written.
    save(
        &platform,
        &who,
        json!({"_id": "A1", "_type": "Meter", "n": 2}),
    );
    let first = platform
        .objects()
        .get(
            &who,
            Collection::Object,
            crate::api::Source::Private,
            "A1",
            Some(&crate::api::VersionRef::Number(1)),
            None,
        )
        .unwrap();
    assert_eq!(first["name"], "a");
    assert!(
        first
            .to_string()
            .starts_with(r#"{"_id":"A1/1","_type":"Meter","name":"a","n":1"#),
        "{first}"
    );
    let kept: String = conn
        .query_row(
            "SELECT body FROM versions WHERE id = 'A1' AND version = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kept, bodies[0].0.to_string());
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}

/// Migration 19 keeps the leading fields of the current rows of schema 18 apart where their
/// text starts with them, and every read answers as before.
#[test]
fn migration_19_keeps_the_leading_fields_apart_and_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let bodies = [
        json!({"_id": "A", "_type": "Meter", "name": "Öst", "n": [1.5, {"_id": "x"}]}),
        json!({"_id": "B", "v": 1}),
        json!({"_id": "C", "_type": "Meter"}),
        json!({"_id": "D", "_type": "Typ"}),
    ];
    let reads = |platform: &Platform| -> Vec<String> {
        let who = platform.tenancy().local_principal("acme", "ann").unwrap();
        let mut out: Vec<String> = list(platform, &who, "_sort=_type")
            .iter()
            .map(Value::to_string)
            .collect();
        for id in ["A", "B", "C", "D"] {
            let one = platform
                .objects()
                .get(
                    &who,
                    Collection::Object,
                    crate::api::Source::Private,
                    id,
                    None,
                    None,
                )
                .unwrap();
            out.push(one.to_string());
        }
        out
    };
    let before = {
        let platform = Platform::open(&path).unwrap();
        let who = platform.tenancy().local_principal("acme", "ann").unwrap();
        for body in &bodies {
            save(&platform, &who, body.clone());
        }
        // D's second version: its first is kept as written.
        save(&platform, &who, json!({"_id": "D", "_type": "Typ", "w": 2}));
        let before = reads(&platform);
        platform.close().unwrap();
        before
    };
    let leads = || -> Vec<(String, Option<i64>)> {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let mut stmt = conn
            .prepare("SELECT id, lead FROM heads WHERE id IN ('A', 'B', 'C', 'D') ORDER BY id")
            .unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.map(Result::unwrap).collect()
    };
    let expected = |a: Option<i64>, b: Option<i64>, d: Option<i64>| {
        vec![
            ("A".to_string(), a),
            ("B".into(), b),
            ("C".into(), Some(0)),
            ("D".into(), d),
        ]
    };
    assert_eq!(leads(), expected(Some(1), Some(1), Some(1)));
    let conn = rusqlite::Connection::open(&path).unwrap();
    super::layout::undo_19(&conn);
    drop(conn);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let whole: i64 = conn
        .query_row(
            "SELECT count(*) FROM heads WHERE json_type(body, '$._id') = 'text'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(whole >= 4, "{whole}");
    drop(conn);
    let platform = Platform::open(&path).unwrap();
    assert_eq!(leads(), expected(Some(1), Some(1), Some(1)));
    assert_eq!(reads(&platform), before);
}
