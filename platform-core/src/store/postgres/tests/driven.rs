//! Pooled connections driven by the threads that wait on them (`pool/driven.rs`): what they
//! do while no call waits on them.

use super::super::testing::TestSchema;
use crate::store::Store;
use std::time::{Duration, Instant};

fn now() -> chrono::DateTime<chrono::Utc> {
    crate::clock::parse_instant("2024-01-01T00:00:00Z").unwrap()
}

/// The states of the store's server connections (`pg_stat_activity`), sorted.
fn states(admin: &mut super::super::testing::Admin, schema: &TestSchema) -> Vec<String> {
    let mut states = admin
        .texts(&format!(
            "SELECT coalesce(state, '') FROM pg_stat_activity WHERE datname = current_database() \
             AND application_name = 'platform:{}'",
            schema.schema
        ))
        .unwrap();
    states.sort();
    states
}

/// A store over a new test schema, holding one tenant.
fn with_a_tenant() -> Option<(TestSchema, super::super::PgStore)> {
    let schema = TestSchema::new()?;
    let store = schema.store();
    let mut tx = store.write().unwrap();
    tx.ensure_tenant("acme", now()).unwrap();
    tx.commit().unwrap();
    Some((schema, store))
}

#[test]
fn a_read_ends_its_transaction_on_the_server_though_nothing_waits_for_the_end() {
    let Some((schema, store)) = with_a_tenant() else {
        return;
    };
    // A read's ROLLBACK is sent unawaited, and nothing uses the connection after it: it must
    // have been written to the socket all the same, or the server would keep the read's
    // transaction (and its snapshot, holding back vacuum) open until the connection's next use.
    let read = store.read().unwrap();
    assert_eq!(read.tenant_count().unwrap(), 1);
    drop(read);
    let mut admin = super::super::testing::admin(&schema.url).unwrap();
    let started = Instant::now();
    loop {
        let states = states(&mut admin, &schema);
        assert!(!states.is_empty(), "the store's connections are not seen");
        if states.iter().all(|s| s == "idle") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "a connection stays in its transaction: {states:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(store);
}

#[test]
fn an_idle_connection_the_server_closed_is_replaced_before_a_call_gets_it() {
    let Some((schema, store)) = with_a_tenant() else {
        return;
    };
    assert_eq!(store.read().unwrap().tenant_count().unwrap(), 1);
    // Every connection of the store is idle in its pool when the server ends it (as an
    // administrator, a restart or an idle timeout would); the termination is waited for.
    let mut admin = super::super::testing::admin(&schema.url).unwrap();
    let cut = admin
        .texts(&format!(
            "SELECT pg_terminate_backend(pid, 5000)::text FROM pg_stat_activity \
             WHERE datname = current_database() AND application_name = 'platform:{}'",
            schema.schema
        ))
        .unwrap();
    assert!(
        !cut.is_empty() && cut.iter().all(|t| t == "true"),
        "{cut:?}"
    );
    // No call meets the closed connection: the pool sees it ended and opens another.
    super::one_tenant_then_two(&store);
}

#[test]
fn calls_made_inside_an_asynchronous_task_do_not_spend_its_budget_and_hang() {
    let Some((_schema, store)) = with_a_tenant() else {
        return;
    };
    // A task of a runtime has a budget of socket operations; the store's calls, which block
    // its thread, must not spend it (with it spent, a read answers `Pending` and leaves its
    // wake to the runtime, which the blocked call keeps from running: the call waits forever).
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let counted = runtime.block_on(async {
            (0..300)
                .map(|_| store.read().unwrap().tenant_count().unwrap())
                .sum::<u64>()
        });
        let _ = done.send(counted);
    });
    let counted = finished
        .recv_timeout(Duration::from_secs(30))
        .expect("the calls inside a task hung");
    assert_eq!(counted, 300);
}
