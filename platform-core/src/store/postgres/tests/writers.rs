//! Writers in parallel on several nodes (stores over one schema): what the database-wide lock
//! kept true holds without it, and a write that meets a concurrent one it cannot be ordered
//! with runs again, or answers UNAVAILABLE with nothing changed.

use super::super::testing::TestSchema;
use crate::api::data::Point;
use crate::data::series::Window;
use crate::documents::SaveOptions;
use crate::store::Collection;
use crate::{ErrorCode, Platform};
use serde_json::{json, Value};
use std::sync::Arc;

/// Two nodes: platforms over two stores of one schema.
fn two_nodes(schema: &TestSchema) -> (Platform, Platform) {
    let clock: Arc<dyn crate::clock::Clock> = Arc::new(crate::clock::SystemClock);
    (
        Platform::over(Arc::new(schema.store()), clock.clone()),
        Platform::over(Arc::new(schema.store()), clock),
    )
}

fn save(platform: &Platform, who: &crate::auth::Principal, body: Value) -> crate::Result<Value> {
    platform
        .objects()
        .save(who, Collection::Object, body, &SaveOptions::default())
}

/// The current version of the private object `id`.
fn get(platform: &Platform, who: &crate::auth::Principal, id: &str) -> Value {
    platform
        .objects()
        .get(
            who,
            Collection::Object,
            crate::ids::Source::Private,
            id,
            None,
            None,
        )
        .unwrap()
}

/// Merges of different fields into one object, from eight threads over two nodes: every field
/// is there at the end, and the versions are numbered without gaps (each merge read the one
/// before it).
#[test]
fn concurrent_merges_on_two_nodes_lose_no_field() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let (a, b) = two_nodes(&schema);
    let who = a.tenancy().local_principal("acme", "ann").unwrap();
    const EACH: usize = 6;
    std::thread::scope(|s| {
        for t in 0..8 {
            let (node, who) = (if t % 2 == 0 { &a } else { &b }, &who);
            s.spawn(move || {
                for i in 0..EACH {
                    save(node, who, json!({"_id": "X", format!("f{t}_{i}"): i})).unwrap();
                }
            });
        }
    });
    let x = get(&a, &who, "X");
    for t in 0..8 {
        for i in 0..EACH {
            assert_eq!(x[format!("f{t}_{i}")], i, "f{t}_{i} lost: {x}");
        }
    }
    assert_eq!(x["_version"], 8 * EACH);
    let versions = b
        .objects()
        .versions(&who, Collection::Object, crate::ids::Source::Private, "X")
        .unwrap();
    let numbers: Vec<u64> = versions.iter().map(|v| u64::from(v.version)).collect();
    assert_eq!(numbers, (1..=(8 * EACH) as u64).collect::<Vec<_>>());
}

/// Points written to one series from two nodes at once, each writer its own hours: every point
/// is read back (no writer's chunk replaced another's points).
#[test]
fn concurrent_series_writes_on_two_nodes_keep_every_point() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let (a, b) = two_nodes(&schema);
    let who = a.tenancy().local_principal("acme", "ann").unwrap();
    let start = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    const WRITERS: i64 = 4;
    const EACH: i64 = 30;
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let (node, who) = (if w % 2 == 0 { &a } else { &b }, &who);
            s.spawn(move || {
                for i in 0..EACH {
                    // Hours interleaved between writers: every write touches the same chunk.
                    let at = start + chrono::TimeDelta::hours(i * WRITERS + w);
                    node.data()
                        .write_series(
                            who,
                            "GB:power",
                            &[Point::new(at, (w * 1000 + i) as f64)],
                            &Default::default(),
                        )
                        .unwrap();
                }
            });
        }
    });
    let read = a
        .data()
        .read_columns(
            &who,
            crate::ids::Source::Private,
            "GB:power",
            Window::All,
            None,
        )
        .unwrap();
    assert_eq!(read.times.len(), (WRITERS * EACH) as usize);
    for (k, (t, v)) in read.times.iter().zip(&read.values).enumerate() {
        let k = k as i64;
        assert_eq!(*t, (start + chrono::TimeDelta::hours(k)).timestamp_millis());
        assert_eq!(*v, ((k % WRITERS) * 1000 + k / WRITERS) as f64);
    }
}

/// Arrays that create the same new objects in opposite orders, on two nodes at once: a new
/// document has no row to hold, so the second to store one of them finds the first's version
/// in its way (a write conflict) and runs again; every save succeeds, each version numbered
/// once.
#[test]
fn saves_creating_the_same_objects_on_two_nodes_all_succeed() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let (a, b) = two_nodes(&schema);
    let who = a.tenancy().local_principal("acme", "ann").unwrap();
    const ROUNDS: usize = 12;
    std::thread::scope(|s| {
        for (node, forward) in [(&a, true), (&b, false)] {
            let who = &who;
            s.spawn(move || {
                for r in 0..ROUNDS {
                    let mut ids: Vec<String> = (0..6).map(|i| format!("R{r}_{i}")).collect();
                    if !forward {
                        ids.reverse();
                    }
                    let body: Vec<Value> = ids
                        .iter()
                        .map(|id| json!({"_id": id, "by": forward}))
                        .collect();
                    save(node, who, Value::Array(body)).unwrap();
                }
            });
        }
    });
    for r in 0..ROUNDS {
        for i in 0..6 {
            let v = a
                .objects()
                .versions(
                    &who,
                    Collection::Object,
                    crate::ids::Source::Private,
                    &format!("R{r}_{i}"),
                )
                .unwrap();
            let numbers: Vec<u64> = v.iter().map(|v| u64::from(v.version)).collect();
            assert_eq!(numbers, [1, 2], "R{r}_{i}");
        }
    }
}

/// Single saves that create the same new objects, on two nodes at once (each save one
/// statement for its version and current row): the second to store a version finds the
/// first's in its way (a write conflict), runs again and stores the next; every save succeeds,
/// each version numbered once.
#[test]
fn single_saves_creating_the_same_objects_on_two_nodes_all_succeed() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let (a, b) = two_nodes(&schema);
    let who = a.tenancy().local_principal("acme", "ann").unwrap();
    const ROUNDS: usize = 40;
    std::thread::scope(|s| {
        for (node, by) in [(&a, "a"), (&b, "b")] {
            let who = &who;
            s.spawn(move || {
                for r in 0..ROUNDS {
                    save(node, who, json!({"_id": format!("S{r}"), by: r})).unwrap();
                }
            });
        }
    });
    for r in 0..ROUNDS {
        let id = format!("S{r}");
        let v = a
            .objects()
            .versions(&who, Collection::Object, crate::ids::Source::Private, &id)
            .unwrap();
        let numbers: Vec<u64> = v.iter().map(|v| u64::from(v.version)).collect();
        assert_eq!(numbers, [1, 2], "{id}");
        // The merge of the second kept the first's field: both are in the current version.
        let current = a
            .objects()
            .get(
                &who,
                Collection::Object,
                crate::ids::Source::Private,
                &id,
                None,
                None,
            )
            .unwrap();
        assert_eq!(
            (current["a"].clone(), current["b"].clone()),
            (json!(r), json!(r)),
            "{id}"
        );
    }
}

/// A write that fails as a serialization failure runs again: twice failed, then stored once.
/// One that fails every time gives up after its tries with UNAVAILABLE (a 503), nothing stored.
#[test]
fn a_write_that_keeps_conflicting_gives_up_unavailable_with_nothing_changed() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let store = schema.store();
    let mut admin = super::super::testing::admin(&schema.url).unwrap();
    // Inserts of versions whose id starts with F fail the first two times (a sequence counts
    // them, past rollbacks); those whose id starts with N fail always.
    admin
        .batch_execute(&format!(
            "SET search_path TO \"{0}\";
             CREATE SEQUENCE tries;
             CREATE FUNCTION fail_some() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 IF NEW.id LIKE 'N%' OR (NEW.id LIKE 'F%' AND nextval('tries') <= 2) THEN
                     RAISE EXCEPTION 'could not serialize access' USING ERRCODE = '40001';
                 END IF;
                 RETURN NEW;
             END $$;
             CREATE TRIGGER fail_some BEFORE INSERT ON versions FOR EACH ROW EXECUTE FUNCTION fail_some();",
            schema.schema
        ))
        .unwrap();
    let platform = Platform::over(Arc::new(store), Arc::new(crate::clock::SystemClock));
    let who = platform.tenancy().local_principal("acme", "ann").unwrap();
    let saved = save(&platform, &who, json!({"_id": "F1", "n": 1})).unwrap();
    assert_eq!(saved["_version"], 1);
    let tries: Vec<String> = admin
        .texts(&format!(
            "SELECT last_value::text FROM \"{}\".tries",
            schema.schema
        ))
        .unwrap();
    assert_eq!(tries, ["3"], "two failures, then the stored try");
    let e = save(
        &platform,
        &who,
        json!([{"_id": "A1"}, {"_id": "N1", "n": 1}]),
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Unavailable, "{e}");
    assert!(e.to_string().contains("8 times"), "{e}");
    for id in ["A1", "N1"] {
        let got = platform.objects().get(
            &who,
            Collection::Object,
            crate::ids::Source::Private,
            id,
            None,
            None,
        );
        assert_eq!(
            got.unwrap_err().code(),
            ErrorCode::NotFound,
            "{id} was stored"
        );
    }
}

/// Two write transactions that each hold a document and then ask for the other's wait for each
/// other in a cycle: PostgreSQL ends one of them, which fails as a write conflict (so that
/// `Platform::write` runs it again), and the other goes on.
#[test]
fn a_deadlock_ends_one_transaction_as_a_write_conflict() {
    use crate::store::{Hold, Store};
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let (a, b) = (schema.store(), schema.store());
    let scope = crate::ids::Scope::private("acme", "production");
    let platform = Platform::over(
        Arc::new(schema.store()),
        Arc::new(crate::clock::SystemClock),
    );
    let who = platform.tenancy().local_principal("acme", "ann").unwrap();
    save(&platform, &who, json!([{"_id": "A"}, {"_id": "B"}])).unwrap();
    let hold_then = |store: &dyn Store, first: &str, then: &str, barrier: &std::sync::Barrier| {
        let mut tx = store.write().unwrap();
        tx.hold(&[Hold::Document(Collection::Object, &scope, first)])
            .unwrap();
        tx.current(Collection::Object, &scope, first).unwrap();
        barrier.wait();
        tx.hold(&[Hold::Document(Collection::Object, &scope, then)])
            .unwrap();
        tx.current(Collection::Object, &scope, then).map(|_| ())
    };
    let barrier = std::sync::Barrier::new(2);
    let (one, two) = std::thread::scope(|s| {
        let one = s.spawn(|| hold_then(&a, "A", "B", &barrier));
        let two = s.spawn(|| hold_then(&b, "B", "A", &barrier));
        (one.join().unwrap(), two.join().unwrap())
    });
    let failed: Vec<crate::Error> = [one, two].into_iter().filter_map(Result::err).collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].is_write_conflict(), "{}", failed[0]);
}

/// A save that waits for another writer's lock on its object reads what that writer committed,
/// not what its statement saw before the wait (its read of the object and the lock are one
/// statement, whose snapshot is taken first): for a type rewritten in place too, whose
/// version number does not change.
#[test]
fn a_save_that_waits_for_a_lock_reads_what_the_other_writer_committed() {
    use crate::store::{Hold, Store};
    let Some(db) = super::super::testing::TestDatabase::new() else {
        return;
    };
    let clock: Arc<dyn crate::clock::Clock> = Arc::new(crate::clock::SystemClock);
    let store_a = Arc::new(super::super::PgStore::open(&db.url).unwrap());
    let a = Platform::over(store_a.clone(), clock.clone());
    let b = Platform::over(
        Arc::new(super::super::PgStore::open(&db.url).unwrap()),
        clock,
    );
    let who = a.tenancy().local_principal("acme", "ann").unwrap();
    a.objects()
        .save(
            &who,
            Collection::Type,
            json!({"_id": "Flat", "_versioned": false}),
            &SaveOptions::default(),
        )
        .unwrap();
    save(&a, &who, json!({"_id": "X", "_type": "Flat", "n": 0})).unwrap();
    // B's save reads the object once before, so that its statements are prepared and its
    // wait below is for the lock alone.
    save(&b, &who, json!({"_id": "X", "n": 0})).unwrap();

    // A writer on the first node rewrites X in place (`a` added), holding its row.
    let scope = who.private_scope();
    let mut tx = store_a.write().unwrap();
    tx.hold(&[Hold::Document(Collection::Object, &scope, "X")])
        .unwrap();
    let mut next = tx
        .current(Collection::Object, &scope, "X")
        .unwrap()
        .unwrap();
    next.body.insert("a".into(), json!(1));
    let version = next.version;
    tx.put_current(Collection::Object, &scope, &next, Some(version))
        .unwrap();
    let mut admin = super::super::testing::admin(&db.url).unwrap();
    std::thread::scope(|s| {
        let merging = s.spawn(|| save(&b, &who, json!({"_id": "X", "b": 1})));
        // The second node's save waits for the lock; then the first writer commits.
        let waits = "SELECT count(*)::text FROM pg_stat_activity \
                     WHERE datname = current_database() AND wait_event_type = 'Lock'";
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while admin.texts(waits).unwrap() != ["1"] {
            assert!(
                std::time::Instant::now() < deadline,
                "the second save did not wait for the first writer's lock"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        tx.commit().unwrap();
        merging.join().unwrap().unwrap();
    });
    let x = get(&b, &who, "X");
    assert_eq!(
        (&x["n"], &x["a"], &x["b"]),
        (&json!(0), &json!(1), &json!(1)),
        "{x}"
    );
    assert_eq!(x["_version"], 1, "a type rewritten in place: {x}");
}
