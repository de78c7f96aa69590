//! Stores behind a real connection pooler: pgbouncer (Debian's package, installed by
//! `scripts/pgbouncer.sh`) in transaction pooling, started by the test in front of the test
//! server, with two server connections for every client of the run.

use super::super::bouncer::Bouncer;
use super::super::testing::{TestDatabase, TestSchema};
use super::super::{PgOptions, PgPooler, PgStore};
use crate::documents::SaveOptions;
use crate::realtime::{Channel, Realtime};
use crate::store::{Collection, Store};
use crate::{Error, Platform};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An error with its causes, as one text.
fn chain(e: &Error) -> String {
    let mut text = e.to_string();
    let mut next = std::error::Error::source(e);
    while let Some(cause) = next {
        text.push_str(&format!(": {cause}"));
        next = cause.source();
    }
    text
}

struct Collect(Mutex<Vec<Value>>);

impl Realtime for Collect {
    fn publish(&self, _: &Channel, payload: &Value) {
        self.0.lock().unwrap().push(payload.clone());
    }
}

/// Writers merging fields into one object and readers reading it, on two platforms at once:
/// the errors met (none expected), and the number of reads.
fn write_and_read(a: &Platform, b: &Platform, writers: usize, each: usize) -> (Vec<String>, usize) {
    let who = a.tenancy().local_principal("acme", "ann").unwrap();
    let errors = Mutex::new(Vec::new());
    let reads = AtomicU64::new(0);
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let mut writing = Vec::new();
        for t in 0..writers {
            let (node, who, errors) = (if t % 2 == 0 { a } else { b }, &who, &errors);
            writing.push(s.spawn(move || {
                for i in 0..each {
                    let body = json!({"_id": "X", format!("f{t}_{i}"): i});
                    if let Err(e) =
                        node.objects()
                            .save(who, Collection::Object, body, &SaveOptions::default())
                    {
                        errors.lock().unwrap().push(chain(&e));
                    }
                }
            }));
        }
        for t in 0..4 {
            let (node, who, errors, reads, done) =
                (if t % 2 == 0 { b } else { a }, &who, &errors, &reads, &done);
            s.spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    let got = node.objects().get(
                        who,
                        Collection::Object,
                        crate::ids::Source::Private,
                        "X",
                        None,
                        None,
                    );
                    match got {
                        Ok(_) => {}
                        Err(e) if e.code() == crate::ErrorCode::NotFound => {}
                        Err(e) => errors.lock().unwrap().push(chain(&e)),
                    }
                    reads.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        for w in writing {
            w.join().unwrap();
        }
        done.store(true, Ordering::Relaxed);
    });
    (
        errors.into_inner().unwrap(),
        reads.load(Ordering::Relaxed) as usize,
    )
}

#[test]
fn stores_behind_pgbouncer_in_transaction_pooling_write_read_and_hear_each_other() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let bouncer = Bouncer::start(&schema.url, "");
    let options = PgOptions {
        schema: schema.schema.clone(),
        pooler: PgPooler::Transaction,
        // The listener reaches PostgreSQL directly.
        listen_url: Some(schema.url.clone()),
        ..PgOptions::default()
    };
    let url = bouncer.url(&schema.url);
    let open = || {
        PgStore::open_with(&url, &options)
            .unwrap_or_else(|e| panic!("cannot open through pgbouncer: {}", chain(&e)))
    };
    let (store_a, store_b) = (Arc::new(open()), Arc::new(open()));
    let sink_a = store_a.realtime_across(Arc::new(Collect(Mutex::new(Vec::new()))));
    let there = Arc::new(Collect(Mutex::new(Vec::new())));
    let _sink_b = store_b.realtime_across(there.clone());
    // A statement outside a transaction.
    store_a.auth_epoch().expect("the authentication epoch");
    let clock: Arc<dyn crate::clock::Clock> = Arc::new(crate::clock::SystemClock);
    let a = Platform::over(store_a.clone(), clock.clone());
    let b = Platform::over(store_b, clock);

    const WRITERS: usize = 8;
    const EACH: usize = 15;
    let (errors, reads) = write_and_read(&a, &b, WRITERS, EACH);
    assert!(
        errors.is_empty(),
        "{} errors, the first: {}",
        errors.len(),
        errors[0]
    );
    assert!(reads > 0);
    let who = a.tenancy().local_principal("acme", "ann").unwrap();
    let versions = b
        .objects()
        .versions(&who, Collection::Object, crate::ids::Source::Private, "X")
        .unwrap();
    let numbers: Vec<u64> = versions.iter().map(|v| u64::from(v.version)).collect();
    assert_eq!(numbers, (1..=(WRITERS * EACH) as u64).collect::<Vec<_>>());
    let last = a
        .objects()
        .get(
            &who,
            Collection::Object,
            crate::ids::Source::Private,
            "X",
            None,
            None,
        )
        .unwrap();
    for t in 0..WRITERS {
        for i in 0..EACH {
            assert_eq!(last[format!("f{t}_{i}")], i, "f{t}_{i} lost: {last}");
        }
    }
    // Once its statements are known, a save through the pooler is two round trips, as on a
    // direct connection.
    let before = store_a.round_trips().0;
    a.objects()
        .save(
            &who,
            Collection::Object,
            json!({"_id": "X", "g": 1}),
            &SaveOptions::default(),
        )
        .unwrap();
    assert_eq!(store_a.round_trips().0 - before, 2, "round trips of a save");

    // A message published on one node reaches the other's subscribers.
    let channel = Channel {
        tenant: "acme".into(),
        env: "production".into(),
        service: "extension".into(),
        topic: "x".into(),
    };
    for n in 0..3 {
        sink_a.publish(&channel, &json!({"n": n}));
    }
    let want: Vec<Value> = (0..3).map(|n| json!({"n": n})).collect();
    for _ in 0..100 {
        if there.0.lock().unwrap().len() >= 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(*there.0.lock().unwrap(), want, "the other node, in order");
    drop(bouncer);
}

#[test]
fn without_the_pooler_mode_pgbouncer_in_transaction_pooling_fails() {
    let Some(db) = TestDatabase::new() else {
        return;
    };
    // As configured by default, pgbouncer refuses the settings sent at connection start, and
    // the error says what to do.
    let strict = Bouncer::start(&db.url, "");
    let refused = PgStore::open_with(&strict.url(&db.url), &PgOptions::default()).unwrap_err();
    assert!(
        chain(&refused).contains("use --pg-pooler transaction"),
        "{}",
        chain(&refused)
    );
    // Told to ignore them, it runs a statement prepared in one transaction in a later one,
    // which transaction pooling may hand another server connection. Which one it hands out is
    // left to scheduling, so the pooler here resets its server connection after every
    // transaction (`DISCARD ALL`): every later transaction meets a connection that has not
    // seen the statement, and the failure is certain, never left to chance.
    let lax = Bouncer::start(
        &db.url,
        "ignore_startup_parameters = options\nserver_reset_query = DISCARD ALL\n\
         server_reset_query_always = 1",
    );
    let url = lax.url(&db.url);
    let opened = (
        PgStore::open_with(&url, &PgOptions::default()),
        PgStore::open_with(&url, &PgOptions::default()),
    );
    let errors = match opened {
        (Ok(store_a), Ok(store_b)) => {
            let clock: Arc<dyn crate::clock::Clock> = Arc::new(crate::clock::SystemClock);
            let a = Platform::over(Arc::new(store_a), clock.clone());
            let b = Platform::over(Arc::new(store_b), clock);
            write_and_read(&a, &b, 8, 15).0
        }
        (Err(e), _) | (_, Err(e)) => vec![chain(&e)],
    };
    assert!(
        errors.iter().any(|e| e.contains("prepared statement")),
        "expected prepared statements lost between server connections, got: {errors:?}"
    );
}
