use super::*;

/// Writes one row of every capability.
fn write_everything(tx: &mut dyn WriteTx, n: u32) {
    let coll = Collection::Object;
    save(tx, coll, &acme(), &version("A", n, json!({"n": n})));
    tx.append_audit(
        coll,
        &acme(),
        &AuditEntry {
            id: "A".into(),
            action: "rollback".into(),
            versions: vec![n],
            user: "ann".into(),
            timestamp: at("2024-01-01T00:00:00Z"),
            reason: None,
        },
    )
    .unwrap();
    hold_data(tx, &key("S"));
    tx.replace_chunks(
        &key("S"),
        n,
        true,
        &[],
        &[chunk(i64::from(n) * 100, i64::from(n) * 100 + 1, 2, 1)],
    )
    .unwrap();
    hold_data(tx, &key("C"));
    tx.put_curve(&key("C"), n, true, &format!("2024-01-{n:02}"), Some(&[1]))
        .unwrap();
    hold_records(tx, &acme(), "A:S");
    tx.put_record_chunk(&acme(), &record_chunk("A:S", i64::from(n) * 100, 0, 1, 1))
        .unwrap();
    tx.put_job(
        &acme(),
        &job(&format!("j{n}"), "2024-01-01T00:00:00Z", None),
    )
    .unwrap();
    tx.worker_seen(&Worker {
        id: format!("w{n}"),
        host: "h".into(),
        pid: 1,
        started: at("2024-01-01T00:00:00Z"),
        seen: at("2024-01-01T00:00:00Z"),
    })
    .unwrap();
    hold_automation(tx, &acme(), &format!("a{n}"));
    tx.put_automation(&acme(), &automation(&format!("a{n}"), true))
        .unwrap();
    tx.add_delivery(&delivery("a", &format!("I{n}"), "2024-01-01T00:00:00Z"))
        .unwrap();
    tx.append_log(&acme(), &log_entry("a", LogStatus::Success, n))
        .unwrap();
    tx.ensure_tenant(&format!("t{n}"), at("2024-01-01T00:00:00Z"))
        .unwrap();
    hold_secret(tx, &acme(), &format!("s{n}"));
    tx.put_secret(
        &acme(),
        &SecretRow {
            id: format!("s{n}"),
            meta: Map::new(),
            nonce: vec![],
            ciphertext: vec![],
            updated: at("2024-01-01T00:00:00Z"),
            user: "ann".into(),
        },
    )
    .unwrap();
}

/// How many rows of each capability a reader sees.
fn census(tx: &dyn crate::store::ReadTx) -> Vec<usize> {
    let coll = Collection::Object;
    vec![
        tx.versions(coll, &acme(), "A").unwrap().len(),
        tx.audit(coll, &acme(), "A").unwrap().len(),
        tx.chunks(&key("S"), 1_000, None, None).unwrap().len(),
        tx.curves(&key("C"), 1_000, None, None, None).unwrap().len(),
        tx.record_chunks(&acme(), None, None, None).unwrap().len(),
        tx.jobs(&acme()).unwrap().len(),
        tx.workers_seen_since(at("2000-01-01T00:00:00Z"))
            .unwrap()
            .len(),
        tx.automations(&acme()).unwrap().len(),
        tx.deliveries(DeliveryStatus::Pending).unwrap().len(),
        tx.automation_log(&acme(), &LogFilter::default())
            .unwrap()
            .items
            .len(),
        tx.tenant_count().unwrap() as usize,
        tx.secrets(&acme()).unwrap().len(),
    ]
}

/// A write transaction dropped without commit changes nothing; a committed one changes all;
/// closing the store keeps it usable.
pub fn a_dropped_write_changes_nothing(store: Arc<dyn Store>) {
    let store = &*store;
    let empty = census(&*store.read().unwrap());
    assert!(empty.iter().all(|n| *n == 0), "{empty:?}");
    {
        let mut tx = store.write().unwrap();
        write_everything(tx.as_mut(), 1);
        assert!(
            census(&*tx).iter().all(|n| *n == 1),
            "a writer sees its own writes"
        );
    }
    assert_eq!(census(&*store.read().unwrap()), empty);
    write(store, |tx| write_everything(tx, 1));
    let one = census(&*store.read().unwrap());
    assert!(one.iter().all(|n| *n == 1), "{one:?}");
    let mut tx = store.write().unwrap();
    write_everything(tx.as_mut(), 2);
    drop(tx);
    assert_eq!(census(&*store.read().unwrap()), one);
    // Closing flushes; the store stays usable and keeps what was committed.
    store.close().unwrap();
    assert_eq!(census(&*store.read().unwrap()), one);
    write(store, |tx| write_everything(tx, 2));
    assert!(census(&*store.read().unwrap()).iter().all(|n| *n == 2));
}

/// A read transaction keeps the snapshot it started on while a writer commits.
pub fn a_reader_sees_one_snapshot_while_a_writer_commits(store: Arc<dyn Store>) {
    let store = &*store;
    write(store, |tx| write_everything(tx, 1));
    let reader = store.read().unwrap();
    let before = census(&*reader);
    let (done, committed) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            write(store, |tx| write_everything(tx, 2));
            let _ = done.send(());
        });
        // A backend may let the writer commit while the reader is open, or make it wait until
        // the reader ends: either way the reader sees what it saw.
        let during = committed
            .recv_timeout(std::time::Duration::from_millis(500))
            .is_ok();
        assert_eq!(
            census(&*reader),
            before,
            "writer committed meanwhile: {during}"
        );
        assert_eq!(
            reader
                .current(Collection::Object, &acme(), "A")
                .unwrap()
                .unwrap()
                .version,
            1
        );
        drop(reader);
    });
    let after = census(&*store.read().unwrap());
    assert_eq!(after, before.iter().map(|n| n + 1).collect::<Vec<_>>());
}

/// Writers that hold a document, read its current version and store the next one serialise:
/// every version is stored once, numbered without gaps. While the document does not exist,
/// two may hold it at once: the second to store version 1 fails with a write conflict, nothing
/// stored, and runs again (as `Platform::write` does).
pub fn writers_of_one_document_serialise_with_contiguous_versions(store: Arc<dyn Store>) {
    const WRITERS: usize = 4;
    const EACH: usize = 10;
    let store = &*store;
    let coll = Collection::Object;
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            s.spawn(move || {
                for _ in 0..EACH {
                    let mut conflicts = 0;
                    let stored = || -> crate::Result<()> {
                        let mut tx = store.write()?;
                        tx.hold(&[Hold::Document(coll, &acme(), "A")])?;
                        let current = tx.current(coll, &acme(), "A")?.map(|v| v.version);
                        let next = version("A", current.map_or(1, |v| v + 1), json!({"writer": w}));
                        tx.put_current(coll, &acme(), &next, current)?;
                        tx.commit()
                    };
                    while let Err(e) = stored() {
                        assert!(e.is_write_conflict(), "{e}");
                        conflicts += 1;
                        assert!(conflicts < 10, "{e}");
                    }
                }
            });
        }
    });
    let tx = store.read().unwrap();
    let versions = tx.versions(coll, &acme(), "A").unwrap();
    let numbers: Vec<u32> = versions.iter().map(|v| v.version).collect();
    assert_eq!(numbers, (1..=(WRITERS * EACH) as u32).collect::<Vec<_>>());
    for w in 0..WRITERS {
        let mine = versions.iter().filter(|v| v.body["writer"] == w).count();
        assert_eq!(mine, EACH, "writer {w}");
    }
    let current = tx.current(coll, &acme(), "A").unwrap().unwrap();
    assert_eq!(current.version, (WRITERS * EACH) as u32);
}

/// Claimers on several threads take every due job exactly once.
pub fn two_claimers_never_take_the_same_job(store: Arc<dyn Store>) {
    const JOBS: usize = 24;
    let store = &*store;
    write(store, |tx| {
        for n in 0..JOBS {
            let created = format!("2024-01-01T00:00:{:02}Z", n);
            tx.put_job(&acme(), &job(&format!("j{n:02}"), &created, None))
                .unwrap();
        }
    });
    let now = at("2024-01-02T00:00:00Z");
    let claimed: Vec<String> = std::thread::scope(|s| {
        let claimers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(move || {
                    let mut mine = Vec::new();
                    while let Some((_, job)) = write(store, |tx| tx.claim_job(now).unwrap()) {
                        mine.push(job.id);
                    }
                    mine
                })
            })
            .collect();
        claimers
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    let mut sorted = claimed.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), claimed.len(), "claimed twice: {claimed:?}");
    assert_eq!(
        sorted,
        (0..JOBS).map(|n| format!("j{n:02}")).collect::<Vec<_>>()
    );
}

/// Claimers on several threads racing for the same deliveries each win a delivery once.
pub fn two_claimers_never_take_the_same_delivery(store: Arc<dyn Store>) {
    const DELIVERIES: usize = 24;
    let store = &*store;
    let seqs: Vec<i64> = write(store, |tx| {
        (0..DELIVERIES)
            .map(|n| add_delivery(tx, &delivery("a", &format!("I{n}"), "2024-01-01T00:00:00Z")))
            .collect()
    });
    let seqs = &seqs;
    let claimed: Vec<(i64, u32)> = std::thread::scope(|s| {
        let claimers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(move || {
                    seqs.iter()
                        .filter_map(|seq| write(store, |tx| tx.claim_delivery(*seq).unwrap()))
                        .map(|d| (d.seq, d.attempts))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        claimers
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    let mut won: Vec<i64> = claimed.iter().map(|(seq, _)| *seq).collect();
    won.sort();
    assert_eq!(&won, seqs, "each delivery claimed exactly once");
    assert!(claimed.iter().all(|(_, attempts)| *attempts == 1));
}

/// A write transaction holding one document does not stop one holding another: the second
/// commits while the first is still open (a store of one writer may instead make it wait
/// until the first ends; either way both commit, and a hold of the same document waits).
pub fn writers_of_different_documents_do_not_wait_for_each_other(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let mut first = store.write().unwrap();
    save(first.as_mut(), coll, &acme(), &version("A", 1, json!({})));
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            write(store, |tx| {
                save(tx, coll, &acme(), &version("B", 1, json!({})))
            });
            let _ = done.send(());
        });
        let during = finished
            .recv_timeout(std::time::Duration::from_secs(5))
            .is_ok();
        if store.shared() {
            // Servers that share a database write side by side.
            assert!(during, "a write of B waited for the open write of A");
        }
        first.commit().unwrap();
        if !during {
            finished.recv().unwrap();
        }
    });
    let tx = store.read().unwrap();
    assert!(tx.current(coll, &acme(), "A").unwrap().is_some());
    assert!(tx.current(coll, &acme(), "B").unwrap().is_some());
}

/// Every write of a document, its data, records, automations and secrets fails unless the
/// transaction holds what it changes (so a write the core forgot to hold is found by any test
/// that makes it), and holding twice is the same as once.
pub fn writes_of_what_is_not_held_fail(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let mut tx = store.write().unwrap();
    let v = version("A", 1, json!({}));
    assert!(tx.put_version(coll, &acme(), &v).is_err());
    assert!(tx.put_current(coll, &acme(), &v, None).is_err());
    assert!(tx
        .replace_chunks(&key("S"), 1, true, &[], &[chunk(0, 1, 2, 1)])
        .is_err());
    assert!(tx
        .put_record_chunk(&acme(), &record_chunk("A:S", 0, 0, 1, 1))
        .is_err());
    assert!(tx.put_automation(&acme(), &automation("a", true)).is_err());
    assert!(tx.delete_secret(&acme(), "s").is_err());
    // Held in another scope or collection is not held here.
    hold_doc(tx.as_mut(), coll, &acme_test(), "A");
    hold_doc(tx.as_mut(), Collection::Type, &acme(), "A");
    assert!(tx.put_version(coll, &acme(), &v).is_err());
    drop(tx);
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), "A");
        hold_doc(tx, coll, &acme(), "A");
        tx.put_current(coll, &acme(), &v, None).unwrap();
        tx.replace_chunks(&key("S"), 1, true, &[], &[chunk(0, 1, 2, 1)])
            .unwrap();
    });
    assert_eq!(
        store
            .read()
            .unwrap()
            .current(coll, &acme(), "A")
            .unwrap()
            .map(|v| v.version),
        Some(1)
    );
}
