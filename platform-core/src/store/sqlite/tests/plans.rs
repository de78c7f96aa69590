//! The plans SQLite makes for lists: per-type indexes, the sample of an estimated total, the
//! keys of several scopes.

use super::*;

/// The plan SQLite makes for a statement with its arguments, one step a line.
pub(super) fn explain(conn: &Connection, text: &str, args: &[rusqlite::types::Value]) -> String {
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
    let statements = documents::list_statements(
        Collection::Object,
        &[sk],
        &keys::stored_type_keys(&conn, &query.filter),
        query,
        after,
    )
    .unwrap();
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
        let statements = documents::list_statements(
            Collection::Object,
            &keys,
            &keys::stored_type_keys(&conn, &query.filter),
            &query,
            None,
        )
        .unwrap();
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

/// A type with a NUL (written in the statement by its key, as any type) lists like any
/// other, counted either way.
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

/// A filter on `_type` means what it says whatever the types' names (a NUL, a quote, none, a
/// type no document has), and wherever it sits in the filter (`types`: by their keys); a type's
/// key made by a write that rolls back is not taken for another type's.
#[test]
fn filters_on_the_type_read_the_types_keys() {
    use crate::query::{Filter, ListQuery};
    let store = SqliteStore::open_in_memory().unwrap();
    let acme = Scope::private("acme", "production");
    let save = |tx: &mut Box<dyn crate::store::WriteTx + '_>, id: &str, t: Option<&str>| {
        let body = match t {
            Some(t) => serde_json::json!({"_type": t}),
            None => serde_json::json!({}),
        };
        let v = stored_version(id, 1, body);
        tx.hold(&[crate::store::Hold::Document(Collection::Object, &acme, id)])
            .unwrap();
        tx.put_current(Collection::Object, &acme, &v, None).unwrap();
    };
    fn ids<T: crate::store::DocumentRead + ?Sized>(tx: &T, filter: Filter) -> Vec<String> {
        let query = ListQuery {
            filter,
            ..ListQuery::default()
        };
        let acme = Scope::private("acme", "production");
        let page = tx
            .list(Collection::Object, std::slice::from_ref(&acme), &query)
            .unwrap();
        page.items.into_iter().map(|v| v.id).collect()
    }
    let one = |t: &str| Filter::TypeIn(vec![t.into()]);
    // A key made in a write that rolls back, then the same number made for another type.
    let mut tx = store.write().unwrap();
    save(&mut tx, "Z", Some("gone"));
    assert_eq!(ids(&*tx, one("gone")), ["Z"]);
    drop(tx);
    let mut tx = store.write().unwrap();
    for (id, t) in [
        ("A", Some("x\0y")),
        ("B", Some("x")),
        ("C", Some("it's")),
        ("D", None),
        ("E", Some("x")),
    ] {
        save(&mut tx, id, t);
    }
    tx.commit().unwrap();
    let tx = store.read().unwrap();
    let cases: Vec<(Filter, &[&str])> = vec![
        (one("gone"), &[]),
        (one("x\0y"), &["A"]),
        (one("x"), &["B", "E"]),
        (one("it's"), &["C"]),
        (one(""), &["D"]),
        (one("nope"), &[]),
        (
            Filter::TypeIn(vec!["x".into(), "it's".into(), "nope".into()]),
            &["B", "C", "E"],
        ),
        (Filter::Not(Box::new(one("x"))), &["A", "C", "D"]),
        (
            Filter::Not(Box::new(one("nope"))),
            &["A", "B", "C", "D", "E"],
        ),
        (
            Filter::Or(vec![
                one("x\0y"),
                Filter::Not(Box::new(Filter::TypeIn(vec![]))),
            ]),
            &["A", "B", "C", "D", "E"],
        ),
        (Filter::Or(vec![one("x\0y"), one("")]), &["A", "D"]),
    ];
    for (filter, want) in cases {
        assert_eq!(ids(&*tx, filter.clone()), want, "{filter:?}");
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
    // (The keys of the tenant's scope and the public source, 1 and 2; the type's key.)
    Connection::open(&path)
        .unwrap()
        .execute_batch("INSERT INTO type_keys (type) VALUES ('Plant')")
        .unwrap();
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
        let conn = Connection::open(&path).unwrap();
        let statements = documents::list_statements(
            Collection::Object,
            &[1, 2],
            &keys::stored_type_keys(&conn, &query.filter),
            &query,
            None,
        )
        .unwrap();
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
