//! The PostgreSQL backend on its own (schema versions, a newer schema refused, a lost
//! connection, the realtime bus), and the store's contract suite, when `PLATFORM_TEST_PG` names
//! a server.

use super::testing::TestSchema;
use super::*;
use crate::store::Store;

mod contract {
    use super::*;

    fn open() -> Option<(std::sync::Arc<dyn Store>, TestSchema)> {
        let schema = TestSchema::new()?;
        let store = schema.store();
        Some((std::sync::Arc::new(store), schema))
    }

    crate::store_contract!(optional open());
}

fn now() -> chrono::DateTime<chrono::Utc> {
    crate::clock::parse_instant("2024-01-01T00:00:00Z").unwrap()
}

fn admin(schema: &TestSchema) -> super::testing::Admin {
    super::testing::admin(&schema.url).unwrap()
}

#[test]
fn the_schema_is_numbered_and_a_newer_one_is_refused() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    drop(schema.store());
    let mut client = admin(&schema);
    let table = format!("\"{}\".platform_schema", schema.schema);
    let v: i64 = client
        .texts(&format!("SELECT max(version)::text FROM {table}"))
        .unwrap()[0]
        .parse()
        .unwrap();
    assert_eq!(v, i64::from(schema_version()));
    assert_eq!(v as usize, MIGRATIONS.len());
    // Opening again applies nothing and keeps the data.
    let store = schema.store();
    let mut tx = store.write().unwrap();
    tx.ensure_tenant("acme", now()).unwrap();
    tx.commit().unwrap();
    drop(store);
    assert_eq!(schema.store().read().unwrap().tenant_count().unwrap(), 1);
    client
        .batch_execute(&format!("UPDATE {table} SET version = version + 1"))
        .unwrap();
    let e = PgStore::open_in_schema(&schema.url, &schema.schema, DEFAULT_LEASE).unwrap_err();
    assert!(e.to_string().contains("newer than this build"), "{e}");
}

#[test]
fn an_unreachable_database_is_unavailable() {
    let e = PgStore::open("postgres://postgres@127.0.0.1:1/nowhere").unwrap_err();
    assert_eq!(e.code(), crate::ErrorCode::Unavailable, "{e}");
    let e = PgStore::open("postgres://[bad").unwrap_err();
    assert_eq!(e.code(), crate::ErrorCode::InvalidParameter, "{e}");
    assert_eq!(
        redact("postgres://ann:secret@db:5432/p"),
        "postgres://ann:***@db:5432/p"
    );
    assert!(is_url("postgresql://db/p") && !is_url("/var/p.db"));
}

#[test]
fn a_lost_connection_is_unavailable_and_the_pool_recovers() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let store = schema.store();
    let mut tx = store.write().unwrap();
    tx.ensure_tenant("acme", now()).unwrap();
    tx.commit().unwrap();
    // Every connection of the store is cut (as a database restart or a network loss would)
    // while a transaction of a reader and one of a writer hold theirs.
    let reader = store.read().unwrap();
    let mut writer = store.write().unwrap();
    let mut client = admin(&schema);
    let cut = client
        .texts(&format!(
            "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE datname = current_database() \
             AND pid <> pg_backend_pid() AND application_name = 'platform:{}'",
            schema.schema
        ))
        .unwrap();
    assert!(cut.len() >= 2, "{cut:?}");
    let e = reader.tenant_count().unwrap_err();
    assert_eq!(e.code(), crate::ErrorCode::Unavailable, "{e}");
    let e = writer.ensure_tenant("lost", now()).unwrap_err();
    assert_eq!(e.code(), crate::ErrorCode::Unavailable, "{e}");
    assert!(writer.commit().is_err());
    drop(reader);
    // Nothing of the cut write remains, and the next calls get fresh connections.
    one_tenant_then_two(&store);
}

/// Checks that a store holding one tenant reads it, writes a second, and reads both: its
/// connections answer after whatever a test did to them.
fn one_tenant_then_two(store: &PgStore) {
    assert_eq!(store.read().unwrap().tenant_count().unwrap(), 1);
    let mut tx = store.write().unwrap();
    tx.ensure_tenant("other", now()).unwrap();
    tx.commit().unwrap();
    assert_eq!(store.read().unwrap().tenant_count().unwrap(), 2);
}

#[test]
fn a_claim_whose_node_stopped_is_taken_over_when_its_lease_ends() {
    use crate::store::{Delivery, DeliveryStatus, Job, JobStatus};
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let lease = std::time::Duration::from_millis(900);
    let (a, b) = (
        schema.store_with_lease(lease),
        schema.store_with_lease(lease),
    );
    let scope = crate::ids::Scope::private("acme", "production");
    let job = Job::from_json(
        serde_json::json!({"_id": "j1", "kind": "run", "status": "queued", "created": "2024-01-01T00:00:00.000Z"})
            .as_object()
            .unwrap(),
    )
    .unwrap();
    let mut tx = a.write().unwrap();
    tx.put_job(&scope, &job).unwrap();
    tx.add_delivery(&Delivery {
        seq: 0,
        scope: scope.clone(),
        automation: "au".into(),
        item: "object/private/X".into(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_at: now(),
        event: serde_json::Map::new(),
    })
    .unwrap();
    let seq = tx.deliveries(DeliveryStatus::Pending).unwrap()[0].seq;
    tx.commit().unwrap();
    let claim = |s: &PgStore| {
        let mut tx = s.write().unwrap();
        let job = tx.claim_job(now()).unwrap();
        let delivery = tx.claim_delivery(seq).unwrap();
        tx.commit().unwrap();
        (job.map(|(_, j)| j.id), delivery.map(|d| d.attempts))
    };
    assert_eq!(claim(&a), (Some("j1".into()), Some(1)));
    // While A lives it renews its lease: B finds nothing, even after several leases.
    std::thread::sleep(lease * 2);
    assert_eq!(claim(&b), (None, None));
    let due = b.read().unwrap().due_deliveries(now(), 0, 10).unwrap();
    assert!(due.is_empty(), "{due:?}");
    // A stops (killed: no renewal any more); once its lease ends, B takes both over.
    drop(a);
    std::thread::sleep(lease * 2);
    let due = b.read().unwrap().due_deliveries(now(), 0, 10).unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].status, DeliveryStatus::Pending);
    assert_eq!(claim(&b), (Some("j1".into()), Some(2)));
    let tx = b.read().unwrap();
    assert_eq!(
        tx.job(&scope, "j1").unwrap().unwrap().status,
        JobStatus::Running
    );
}

/// A node that lives on renews only the claims whose work goes on: one whose work ended
/// without its end being recorded (the database lost at that moment, a commit whose outcome
/// is unknown) runs out and is taken again by another node, while the node's other claim
/// stays its own. (Renewing every running claim of the node kept such a delivery, and every
/// later one of its item, waiting for as long as the node lived.)
#[test]
fn a_claim_whose_work_ended_unrecorded_runs_out_while_its_node_lives() {
    use crate::store::{Claim, Delivery, DeliveryStatus, Job};
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let lease = std::time::Duration::from_millis(900);
    let (a, b) = (
        schema.store_with_lease(lease),
        schema.store_with_lease(lease),
    );
    let scope = crate::ids::Scope::private("acme", "production");
    let mut tx = a.write().unwrap();
    for id in ["j1", "j2"] {
        let job = Job::from_json(
            serde_json::json!({"_id": id, "kind": "run", "status": "queued", "created": "2024-01-01T00:00:00.000Z"})
                .as_object()
                .unwrap(),
        )
        .unwrap();
        tx.put_job(&scope, &job).unwrap();
    }
    for item in ["object/private/X", "object/private/Y"] {
        tx.add_delivery(&Delivery {
            seq: 0,
            scope: scope.clone(),
            automation: "au".into(),
            item: item.to_string(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_at: now(),
            event: serde_json::Map::new(),
        })
        .unwrap();
    }
    let seqs: Vec<i64> = tx
        .deliveries(DeliveryStatus::Pending)
        .unwrap()
        .iter()
        .map(|d| d.seq)
        .collect();
    tx.commit().unwrap();
    let claim = |s: &PgStore| {
        let mut tx = s.write().unwrap();
        let job = tx.claim_job(now()).unwrap().map(|(_, j)| j.id);
        let deliveries: Vec<i64> = seqs
            .iter()
            .filter_map(|seq| tx.claim_delivery(*seq).unwrap())
            .map(|d| d.seq)
            .collect();
        tx.commit().unwrap();
        (job, deliveries)
    };
    assert_eq!(claim(&a), (Some("j1".into()), seqs.clone()));
    assert_eq!(claim(&a).0, Some("j2".into()));
    // A's work on j1 and the first delivery ends, unrecorded; A lives on.
    a.claim_ended(&Claim::Job("j1".into()));
    a.claim_ended(&Claim::Delivery(seqs[0]));
    std::thread::sleep(lease * 3);
    assert_eq!(claim(&b), (Some("j1".into()), vec![seqs[0]]));
    // The claims whose work goes on stay A's, lease after lease.
    std::thread::sleep(lease * 2);
    assert_eq!(claim(&b), (None, vec![]));
    drop(a);
}

#[test]
fn realtime_messages_reach_the_subscribers_of_every_node() {
    use crate::realtime::{Channel, Realtime};
    use std::sync::{Arc, Mutex};
    struct Collect(Mutex<Vec<serde_json::Value>>);
    impl Realtime for Collect {
        fn publish(&self, _: &Channel, payload: &serde_json::Value) {
            self.0.lock().unwrap().push(payload.clone());
        }
    }
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let (a, b) = (schema.store(), schema.store());
    let (here, there) = (
        Arc::new(Collect(Mutex::new(Vec::new()))),
        Arc::new(Collect(Mutex::new(Vec::new()))),
    );
    let sink_a = a.realtime_across(here.clone());
    let _sink_b = b.realtime_across(there.clone());
    let channel = Channel {
        tenant: "acme".into(),
        env: "production".into(),
        service: "extension".into(),
        topic: "x".into(),
    };
    for n in 0..3 {
        sink_a.publish(&channel, &serde_json::json!({"n": n}));
    }
    let want: Vec<serde_json::Value> = (0..3).map(|n| serde_json::json!({"n": n})).collect();
    for _ in 0..100 {
        if here.0.lock().unwrap().len() == 3 && there.0.lock().unwrap().len() == 3 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(*here.0.lock().unwrap(), want, "the publishing node");
    assert_eq!(*there.0.lock().unwrap(), want, "the other node, in order");
}

#[test]
fn a_token_kept_by_one_server_is_refused_once_another_revokes_it() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let clock: std::sync::Arc<dyn crate::clock::Clock> =
        std::sync::Arc::new(crate::clock::SystemClock);
    let a = crate::Platform::over(std::sync::Arc::new(schema.store()), clock.clone());
    let b = crate::Platform::over(std::sync::Arc::new(schema.store()), clock);
    crate::tenancy::tests::changes_by_another_platform_reach_the_kept_tokens(&a, &b);
}

#[test]
fn lists_of_one_type_search_its_per_type_indexes() {
    use crate::query::filter::parse_param;
    use crate::query::{Cursor, Filter, ListQuery, Paging, SortSpec};
    use crate::store::{type_index_name, Collection, StoredVersion};
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let store = schema.store();
    let acme = crate::ids::Scope::private("acme", "production");
    let mut tx = store.write().unwrap();
    for i in 0..4000usize {
        let country = if i % 100 == 0 {
            "LU"
        } else {
            ["NL", "GB", "DE", "FR"][i % 4]
        };
        let body = serde_json::json!({
            "_type": if i % 2 == 0 { "Plant" } else { "Other" },
            "country": country,
            "capacity": (i * 37) % 1000,
        });
        let v = StoredVersion {
            id: format!("O{i:04}"),
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
    let cursor = Cursor {
        keys: vec![serde_json::json!(500)],
        id: "O1000".into(),
    };
    let plans = |q: &ListQuery, after: Option<&Cursor>| {
        store
            .read_tx()
            .unwrap()
            .explain_list(Collection::Object, std::slice::from_ref(&acme), q, after)
            .unwrap()
    };
    // (query, cursor, the index its count and its page search (or only its page), what the
    // index is searched by)
    let cases: [(ListQuery, Option<&Cursor>, &str, bool, &str); 5] = [
        (
            typed(&[("country", "LU")], ""),
            None,
            &country,
            true,
            "= 'LU'::text",
        ),
        (
            typed(&[("capacity", "gt(990)")], ""),
            None,
            &capacity,
            true,
            ">= '989'::numeric",
        ),
        (
            typed(&[("capacity", "range(10,12)")], "-capacity"),
            None,
            &capacity,
            true,
            "<= '13'::numeric",
        ),
        // Keyed by the field and the id alone: a sort reads it whole, in order.
        (typed(&[], "capacity"), None, &capacity, false, ""),
        (
            typed(&[], "capacity"),
            Some(&cursor),
            &capacity,
            false,
            "ROW(",
        ),
    ];
    for (q, after, _, _, _) in &cases {
        let plan = plans(q, *after);
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
    admin(&schema)
        .batch_execute(&format!("ANALYZE \"{}\".heads", schema.schema))
        .unwrap();
    for (q, after, index, count_too, by) in &cases {
        let plan = plans(q, *after);
        let uses = plan.matches(index).count();
        assert!(uses >= if *count_too { 2 } else { 1 }, "{q:?}: {plan}");
        assert!(
            by.is_empty()
                || plan
                    .lines()
                    .any(|l| l.contains("Index Cond") && l.contains(by)),
            "{q:?}: {plan}"
        );
        if !*count_too {
            // The page reads the index in order: nothing is sorted.
            assert!(!plan.contains("Sort Key: (CASE"), "{q:?}: {plan}");
        }
    }
    // Changed to one field, then dropped with the list.
    let names = || {
        admin(&schema)
            .texts(&format!(
                "SELECT indexname::text FROM pg_indexes WHERE schemaname = '{}' \
                 AND indexname LIKE 'heads\\_x\\_%' ORDER BY 1",
                schema.schema
            ))
            .unwrap()
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

/// The round trips of a call do not grow with what it writes or reads: a save of one object is
/// two (its holds and the reads named ahead with the first read, its writes with `COMMIT`),
/// whether or not it names its type,
/// an array of objects as many whatever its length, a series write the same for ten points or
/// ten thousand, and a read of many series or documents by id one. (Each counted after the
/// statements were prepared once on every connection used.)
#[test]
fn round_trips_do_not_grow_with_what_a_call_writes_or_reads() {
    use crate::api::data::Point;
    use crate::data::series::Window;
    use crate::documents::SaveOptions;
    use crate::store::Collection;
    use serde_json::{json, Value};
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let store = std::sync::Arc::new(schema.store());
    let platform = crate::Platform::over(
        store.clone(),
        std::sync::Arc::new(crate::clock::SystemClock),
    );
    let p = platform.tenancy().local_principal("acme", "ann").unwrap();
    let objects = platform.objects();
    let save = |body: Value| {
        objects
            .save(&p, Collection::Object, body, &SaveOptions::default())
            .unwrap()
    };
    // A type, and an automation every saved object raises an event for (a delivery written;
    // none is made here, and its address is a global one, as a webhook's must be).
    objects
        .save(
            &p,
            Collection::Type,
            json!({"_id": "Plant"}),
            &SaveOptions::default(),
        )
        .unwrap();
    platform
        .automations()
        .save(
            &p,
            &crate::api::automations::Automation::from_body(&json!({
                "target": "platform.webhook", "properties": {"url": "http://93.184.215.14/x"},
                "conditions": [{"service": "object", "id": "*", "action": "*"}]}))
            .unwrap(),
        )
        .unwrap();
    let counted = |f: &dyn Fn()| {
        let before = store.round_trips().0;
        f();
        store.round_trips().0 - before
    };
    let array = |prefix: &str, n: usize| {
        Value::Array(
            (0..n)
                .map(|i| json!({"_id": format!("{prefix}{i}"), "_type": "Plant", "capacity": i}))
                .collect(),
        )
    };
    let points = |n: usize| {
        let start = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        (0..n)
            .map(|i| Point::new(start + chrono::TimeDelta::hours(i as i64), i as f64))
            .collect::<Vec<_>>()
    };
    let write_series = |id: &str, n: usize| {
        platform
            .data()
            .write_series(&p, id, &points(n), &Default::default())
            .unwrap();
    };
    let ids = |prefix: &str, n: usize| -> Vec<String> {
        (0..n).map(|i| format!("{prefix}{i}:price")).collect()
    };
    // Every statement prepared on each connection a call may take (the pool opens a few).
    for round in 0..4 {
        save(json!({"_id": format!("W{round}"), "_type": "Plant", "capacity": 1}));
        save(json!({"_id": format!("W{round}"), "capacity": 2}));
        save(json!({"_id": format!("WU{round}"), "capacity": 1}));
        save(array(&format!("WA{round}_"), 3));
        write_series(&format!("WS{round}0:price"), 3);
        write_series(&format!("WS{round}1:price"), 3);
        // Reads of one and of several (each its own statement).
        for n in [1, 2] {
            let warm = ids(&format!("WS{round}"), n);
            let warm: Vec<&str> = warm.iter().map(String::as_str).collect();
            platform
                .data()
                .read_columns_many(&p, &warm, Window::All)
                .unwrap();
        }
        objects
            .get_many(&p, Collection::Object, &["W0"], None)
            .unwrap();
        objects
            .get_many(&p, Collection::Object, &["W0", "W1"], None)
            .unwrap();
    }

    let sent = store.round_trips().1;
    let new = counted(&|| {
        save(json!({"_id": "A", "_type": "Plant", "capacity": 1}));
    });
    // Its statements: the opening batch, one statement locking its row and reading it, its
    // type and the scope's automations (which ends that round trip: no empty statement after
    // it); the version and current rows, the event's delivery, `COMMIT`.
    assert_eq!(
        store.round_trips().1 - sent,
        5,
        "the statements of a save of one object"
    );
    let merge = counted(&|| {
        save(json!({"_id": "A", "capacity": 2}));
    });
    // An object that names no type: the default type's definition read ahead with it.
    let untyped = counted(&|| {
        save(json!({"_id": "U", "capacity": 1}));
    });
    assert!(
        new <= 2 && merge <= 2 && untyped <= 2,
        "a save: {new}, {merge} and, of an object without a type, {untyped} round trips"
    );

    let ten = counted(&|| {
        save(array("T", 10));
    });
    let hundred = counted(&|| {
        save(array("H", 100));
    });
    assert_eq!(ten, hundred, "an array of 10 objects and of 100");
    assert!(hundred <= 2, "an array: {hundred} round trips");

    let small = counted(&|| {
        for i in 0..10 {
            write_series(&format!("S{i}:price"), 10);
        }
    });
    let large = counted(&|| {
        for i in 0..10 {
            write_series(&format!("L{i}:price"), 10_000);
        }
    });
    assert_eq!(small, large, "series writes of 10 points and of 10,000");

    // A validation run's records: a run over 10 points and one over 5,000, each stored in
    // as many round trips.
    let validate = |id: &str, n: usize| {
        objects
            .save(
                &p,
                Collection::ValidationConfig,
                json!({"_id": id, "kind": "timeseries", "options": {"maxPoints": 5000},
                       "checks": [{"name": "positive", "expression": "value > 0"}]}),
                &SaveOptions::default(),
            )
            .unwrap();
        let start = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let end = start + chrono::TimeDelta::hours(n as i64 - 1);
        let req = crate::api::validation::ValidationRequest::new(id).between(start, end);
        counted(&|| {
            let done = platform
                .validation()
                .run(&p, &req)
                .unwrap()
                .done()
                .expect("checked now");
            assert_eq!(done.points as usize, n);
        })
    };
    validate("S0:price", 10);
    validate("L0:price", 5_000);
    let (ten, thousands) = (validate("S1:price", 10), validate("L1:price", 5_000));
    assert_eq!(
        ten, thousands,
        "validation runs over 10 points and over 5,000"
    );

    let read = |prefix: &str, n: usize| {
        let ids = ids(prefix, n);
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        counted(&|| {
            let got = platform
                .data()
                .read_columns_many(&p, &ids, Window::All)
                .unwrap();
            assert_eq!(got.len(), ids.len());
        })
    };
    let (few, many) = (read("S", 2), read("L", 10));
    assert_eq!((few, many), (1, 1), "reads of 2 and 10 series");
    let get = |prefix: &str, n: usize| {
        let ids: Vec<String> = (0..n).map(|i| format!("{prefix}{i}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        counted(&|| {
            let got = objects
                .get_many(&p, Collection::Object, &ids, None)
                .unwrap();
            assert_eq!(got.len(), ids.len());
        })
    };
    assert_eq!(
        (get("T", 10), get("H", 100)),
        (1, 1),
        "reads of 10 and 100 objects by id"
    );
}

mod checked;
mod commit_lost;
mod driven;
mod history;
mod layout;
mod pooler;
mod step10;
mod tls;
mod upgrade;
mod writers;

#[test]
fn migration_6_moves_the_series_value_type_of_the_earlier_reading_to_data_type() {
    use crate::store::upgrade::earlier_reading;
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let clock: std::sync::Arc<dyn crate::clock::Clock> =
        std::sync::Arc::new(crate::clock::SystemClock);
    let p = crate::Platform::over(std::sync::Arc::new(schema.store()), clock.clone());
    earlier_reading::save(&p);
    drop(p);
    // A database of schema 5, its series declared as the earlier reading wrote them: in the
    // text of both versions and in the current row's filterable copy (and without the tables
    // of later steps).
    let mut client = admin(&schema);
    let s = &schema.schema;
    layout::to_step_7(&mut client, s, 7);
    let set = "jsonb_set(jsonb_set(b, '{PRICE,valueType}', '\"number\"'), '{FLAGS,valueType}', '\"text\"')";
    client
        .batch_execute(&format!(
            "UPDATE \"{s}\".heads SET body = {} WHERE coll = 'object' AND id = 'DE'; \
             UPDATE \"{s}\".versions SET body = ({})::text WHERE coll = 'object' AND id = 'DE'; \
             UPDATE \"{s}\".platform_schema SET version = 5; \
             DROP TABLE \"{s}\".platform_key;",
            set.replace("(b,", "(body,"),
            set.replace("(b,", "(body::jsonb,"),
        ))
        .unwrap();
    let old = |client: &mut super::testing::Admin| -> String {
        client
            .texts(&format!(
                "SELECT ((SELECT count(*) FROM \"{s}\".heads WHERE body::text LIKE '%\"valueType\": \"number\"%') \
                 + (SELECT count(*) FROM \"{s}\".versions WHERE body LIKE '%\"valueType\": \"number\"%'))::text"
            ))
            .unwrap()
            .remove(0)
    };
    assert_eq!(
        old(&mut client),
        "3",
        "the current row and both versions' text"
    );
    let p = crate::Platform::over(std::sync::Arc::new(schema.store()), clock);
    assert_eq!(old(&mut client), "0");
    let who = p.tenancy().local_principal("acme", "bob").unwrap();
    earlier_reading::assert_migrated(&p, &who);
}
