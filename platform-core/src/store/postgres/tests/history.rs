//! A document's reads do not grow with its history: the current version's row of `versions` is
//! looked up by its whole key, whatever the number of versions before it (counted by
//! PostgreSQL's own statistics of the transaction: the index entries of `versions_pkey` its
//! scans returned).

use super::super::testing::TestSchema;
use super::super::{PgStore, Tx};
use crate::documents::SaveOptions;
use crate::ids::Scope;
use crate::query::ListQuery;
use crate::store::{Ahead, Collection, DocumentRead, ReadAhead};
use crate::Platform;
use serde_json::json;
use std::sync::Arc;

/// The entries of `versions_pkey` the transaction's scans returned so far.
fn version_entries(tx: &Tx<'_>) -> i64 {
    let row = tx
        .query_one(
            "SELECT pg_stat_get_xact_tuples_returned('versions_pkey'::regclass)",
            &[],
        )
        .unwrap();
    row.get(0)
}

#[test]
fn reads_of_a_document_do_not_grow_with_its_history() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let store = Arc::new(schema.store());
    let platform = Platform::over(store.clone(), Arc::new(crate::clock::SystemClock));
    let p = platform.tenancy().local_principal("acme", "ann").unwrap();
    let objects = platform.objects();
    let save = |coll: Collection, body: serde_json::Value| {
        objects
            .save(&p, coll, body, &SaveOptions::default())
            .unwrap();
    };
    // A type and two of its objects, each with 40 versions.
    for n in 0..40 {
        save(
            Collection::Type,
            json!({"_id": "Plant", "description": format!("v{n}")}),
        );
        for id in ["a", "b"] {
            save(
                Collection::Object,
                json!({"_id": id, "_type": "Plant", "n": n}),
            );
        }
    }
    let acme = Scope::private("acme", "production");
    let stored: &PgStore = &store;
    let counted = |read: &dyn Fn(&Tx<'_>)| {
        let tx = stored.read_tx().unwrap();
        // The tables hold a few pages, which a sequential scan reads whole whatever the
        // statement: priced out, the plan is the one a large table gets.
        tx.execute("SET LOCAL enable_seqscan = off", &[]).unwrap();
        let before = version_entries(&tx);
        read(&tx);
        version_entries(&tx) - before
    };
    let current = |tx: &Tx<'_>, id: &str| {
        let v = tx.current(Collection::Object, &acme, id).unwrap().unwrap();
        assert_eq!((v.version, &v.body["n"]), (40, &json!(39)), "{id}");
    };
    // A document by id.
    assert_eq!(counted(&|tx| current(tx, "a")), 1, "a document by id");
    // One document named ahead (a single save's read), and two of one scope (an array's).
    let one = counted(&|tx| {
        tx.read_ahead(&[Ahead::Document(Collection::Object, &acme, "a")])
            .unwrap();
        current(tx, "a");
    });
    assert_eq!(one, 1, "one document read ahead");
    let two = counted(&|tx| {
        tx.read_ahead(&[
            Ahead::Document(Collection::Object, &acme, "a"),
            Ahead::Document(Collection::Object, &acme, "b"),
        ])
        .unwrap();
        current(tx, "a");
        current(tx, "b");
    });
    assert_eq!(two, 2, "two documents read ahead");
    // The type a stored document names, read ahead with it.
    let scopes = [acme.clone()];
    let typed = counted(&|tx| {
        tx.read_ahead(&[Ahead::TypeOf(Collection::Object, &acme, "a", &scopes)])
            .unwrap();
        let t = tx
            .current(Collection::Type, &acme, "Plant")
            .unwrap()
            .unwrap();
        assert_eq!((t.version, &t.body["description"]), (40, &json!("v39")));
    });
    assert!(typed <= 1, "the type read ahead: {typed} entries");
    // A page of a list.
    let listed = counted(&|tx| {
        let page = tx
            .list(
                Collection::Object,
                std::slice::from_ref(&acme),
                &ListQuery::default(),
            )
            .unwrap();
        assert_eq!(page.items.len(), 2);
    });
    assert_eq!(listed, 2, "a page of two documents");
}
