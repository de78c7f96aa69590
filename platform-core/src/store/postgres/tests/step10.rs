//! Schema step 10: a database of step 9's layout (the current version's body kept in the
//! `text` column of its current row, its row of `versions` without one) migrates in place:
//! every version, tag, audit entry and list reads back the same, every body is in its version's
//! row, and saves, rollbacks and deletions after the migration keep them there.

use super::super::testing::{admin, Admin, TestSchema};
use super::layout::{assert_current_schema, delete, list, read_back, save};
use crate::documents::DeleteTarget;
use crate::ids::{Scope, Source, VersionRef};
use crate::store::Collection;
use crate::Platform;
use serde_json::{json, Value};
use std::sync::Arc;

/// Turns a schema of this build's layout back into step 9's, recorded as step 9: the current
/// bodies in a `text` column of `heads`, their rows of `versions` without them.
fn to_step_9(client: &mut Admin, schema: &str) {
    client
        .batch_execute(&format!(
            "BEGIN; SET LOCAL search_path TO \"{schema}\";
             ALTER TABLE heads ADD COLUMN text TEXT;
             UPDATE heads h SET text = v.body FROM versions v
                 WHERE v.scope = h.scope AND v.id = h.id AND v.version = h.version;
             ALTER TABLE heads ALTER COLUMN text SET NOT NULL;
             ALTER TABLE versions ALTER COLUMN body DROP NOT NULL;
             UPDATE versions v SET body = NULL FROM heads h
                 WHERE v.scope = h.scope AND v.id = h.id AND v.version = h.version;
             UPDATE platform_schema SET version = 9;
             COMMIT;"
        ))
        .unwrap();
}

#[test]
fn a_database_of_step_9_moves_the_current_bodies_to_their_versions_and_reads_back_the_same() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let clock: Arc<dyn crate::clock::Clock> = Arc::new(crate::clock::SystemClock);
    let p = Platform::over(Arc::new(schema.store()), clock.clone());
    let ann = p.tenancy().local_principal("acme", "ann").unwrap();
    let acme = Scope::for_source(Source::Private, &ann);
    save(
        &p,
        &ann,
        Collection::Type,
        json!({"_id": "Plant", "_indexes": ["capacity"]}),
    );
    for round in 0..3 {
        for i in 0..10 {
            let body = json!({"_id": format!("P{i}"), "_type": "Plant", "name": format!("Plant {i}"),
                              "capacity": i * 100 + round, "price": 1.5});
            save(&p, &ann, Collection::Object, body);
        }
    }
    let batch: Vec<Value> = (0..4)
        .map(|i| json!({"_id": format!("B{i}"), "_type": "Plant", "capacity": i}))
        .collect();
    save(&p, &ann, Collection::Object, Value::Array(batch));
    let gold = VersionRef::Number(2);
    p.objects()
        .tag(
            &ann,
            Collection::Object,
            Source::Private,
            "P3",
            &gold,
            "gold",
        )
        .unwrap();
    delete(&p, &ann, "P4", DeleteTarget::Latest);
    delete(&p, &ann, "P5", DeleteTarget::All);
    let docs: Vec<(Collection, Scope, &str)> = ["P0", "P3", "P4", "P5", "B1"]
        .into_iter()
        .map(|id| (Collection::Object, acme.clone(), id))
        .chain([(Collection::Type, acme.clone(), "Plant")])
        .collect();
    let lists = |p: &Platform| {
        let mut out = list(p, &acme, &[("capacity", "gt(250)")], "-capacity");
        out.extend(list(p, &acme, &[("_search", "plant 3")], ""));
        out.extend(list(p, &acme, &[("_tag", "gold")], ""));
        out
    };
    let (before, listed) = (read_back(&p, &docs), lists(&p));
    assert!(before[1].contains("gold Some(2)"), "{}", before[1]);
    assert!(before[2].contains("version: 2"), "{}", before[2]);
    assert!(before[3].contains("current None"), "{}", before[3]);
    drop(p);

    let mut client = admin(&schema.url).unwrap();
    to_step_9(&mut client, &schema.schema);
    let s = &schema.schema;
    let without_body =
        format!("SELECT count(*) FILTER (WHERE body IS NULL)::text FROM \"{s}\".versions");
    // One a document: its current version's.
    let heads = format!("SELECT count(*)::text FROM \"{s}\".heads");
    let current = client.texts(&heads).unwrap();
    assert_eq!(client.texts(&without_body).unwrap(), current);
    assert!(current[0].parse::<u32>().unwrap() >= 14, "{current:?}");
    let text_column = format!(
        "SELECT count(*)::text FROM pg_attribute WHERE attrelid = '\"{s}\".heads'::regclass \
         AND attname = 'text' AND NOT attisdropped"
    );
    assert_eq!(client.texts(&text_column).unwrap(), vec!["1"]);

    let p = Platform::over(Arc::new(schema.store()), clock);
    assert_current_schema(&mut client, s);
    assert_eq!(client.texts(&text_column).unwrap(), vec!["0"]);
    assert_eq!(client.texts(&without_body).unwrap(), vec!["0"]);
    assert_eq!(read_back(&p, &docs), before);
    assert_eq!(lists(&p), listed);

    // After it: a save, a rollback to the version before, an array's save, a deletion.
    let saved = json!({"_id": "P0", "_type": "Plant", "capacity": 7});
    save(&p, &ann, Collection::Object, saved);
    delete(&p, &ann, "P0", DeleteTarget::Latest);
    let batch: Vec<Value> = (0..4)
        .map(|i| json!({"_id": format!("B{i}"), "_type": "Plant", "capacity": i + 10}))
        .collect();
    save(&p, &ann, Collection::Object, Value::Array(batch));
    delete(&p, &ann, "P1", DeleteTarget::All);
    assert_eq!(client.texts(&without_body).unwrap(), vec!["0"]);
    let tx = p.read().unwrap();
    let p0 = tx
        .current(Collection::Object, &acme, "P0")
        .unwrap()
        .unwrap();
    assert_eq!((p0.version, &p0.body["capacity"]), (3, &json!(2)));
    let b2 = tx
        .current(Collection::Object, &acme, "B2")
        .unwrap()
        .unwrap();
    assert_eq!((b2.version, &b2.body["capacity"]), (2, &json!(12)));
    let versions = tx.versions(Collection::Object, &acme, "B2").unwrap();
    let capacities: Vec<&Value> = versions.iter().map(|v| &v.body["capacity"]).collect();
    assert_eq!(capacities, [&json!(2), &json!(12)]);
    assert!(tx
        .current(Collection::Object, &acme, "P1")
        .unwrap()
        .is_none());
}
