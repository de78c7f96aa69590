use super::*;

/// Jobs: kept whole, listed newest first, claimed oldest due first.
pub fn jobs_are_kept_and_claimed_oldest_due_first(store: Arc<dyn Store>) {
    let store = &*store;
    let j1 = job("j1", "2024-01-01T00:00:00Z", None);
    let j2 = job(
        "j2",
        "2024-01-01T00:00:01Z",
        Some("2024-01-01T00:10:00.250Z"),
    );
    let j3 = job("j3", "2024-01-01T00:00:02Z", None);
    write(store, |tx| {
        tx.put_job(&acme(), &j1).unwrap();
        tx.put_job(&acme_test(), &j2).unwrap();
        tx.put_job(&acme(), &j3).unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.job(&acme(), "j1").unwrap(), Some(j1.clone()));
    assert_eq!(tx.job(&acme_test(), "j1").unwrap(), None);
    assert_eq!(
        tx.jobs(&acme()).unwrap(),
        [j3.clone(), j1.clone()],
        "newest first"
    );
    drop(tx);

    let now = at("2024-01-01T00:05:00Z");
    let claim = |now| write(store, |tx| tx.claim_job(now).unwrap());
    let (scope, first) = claim(now).unwrap();
    assert_eq!((scope, first.id.as_str()), (acme(), "j1"));
    assert_eq!(
        (first.status, first.started),
        (JobStatus::Running, Some(now))
    );
    assert_eq!(claim(now).unwrap().1.id, "j3", "j2 is not due");
    assert_eq!(claim(now), None);
    let later = at("2024-01-01T00:10:00.250Z");
    let (scope, second) = claim(later).unwrap();
    assert_eq!((scope, second.id.as_str()), (acme_test(), "j2"));
    assert_eq!(claim(later), None);

    let tx = store.read().unwrap();
    let running: Vec<(Scope, String)> = tx
        .jobs_with_status(JobStatus::Running)
        .unwrap()
        .into_iter()
        .map(|(s, j)| (s, j.id))
        .collect();
    assert_eq!(
        running,
        [
            (acme(), "j1".into()),
            (acme_test(), "j2".into()),
            (acme(), "j3".into())
        ],
        "oldest first"
    );
    assert!(tx.jobs_with_status(JobStatus::Queued).unwrap().is_empty());
    drop(tx);

    // A job written again keeps its place; every field is kept.
    let mut done = first;
    done.status = JobStatus::Done;
    done.progress = 100;
    done.finished = Some(at("2024-01-01T00:06:00.001Z"));
    done.message = "checked 3 points".into();
    done.result = Some(json!({"points": 3}));
    write(store, |tx| tx.put_job(&acme(), &done).unwrap());
    let tx = store.read().unwrap();
    assert_eq!(
        ids(&tx.jobs(&acme()).unwrap(), |j| j.id.as_str()),
        ["j3", "j1"]
    );
    assert_eq!(tx.job(&acme(), "j1").unwrap(), Some(done.clone()));
    assert_eq!(
        tx.jobs_with_status(JobStatus::Done).unwrap(),
        [(acme(), done)]
    );
}

/// Workers: inserted when new, `seen` moved when seen again, gone when they stop.
pub fn workers_record_their_heartbeats(store: Arc<dyn Store>) {
    let store = &*store;
    let worker = |id: &str, seen: &str| Worker {
        id: id.into(),
        host: "h".into(),
        pid: 42,
        started: at("2024-01-01T00:00:00Z"),
        seen: at(seen),
    };
    write(store, |tx| {
        tx.worker_seen(&worker("w2", "2024-01-01T00:00:10Z"))
            .unwrap();
        tx.worker_seen(&worker("w1", "2024-01-01T00:00:05Z"))
            .unwrap();
    });
    let since = |t: &str| store.read().unwrap().workers_seen_since(at(t)).unwrap();
    assert_eq!(since("2024-01-01T00:00:05Z").len(), 2);
    assert_eq!(
        since("2024-01-01T00:00:06Z"),
        [worker("w2", "2024-01-01T00:00:10Z")]
    );
    let mut again = worker("w1", "2024-01-01T00:00:20Z");
    again.started = at("2024-06-01T00:00:00Z");
    write(store, |tx| tx.worker_seen(&again).unwrap());
    assert_eq!(
        since("2024-01-01T00:00:06Z"),
        [
            worker("w1", "2024-01-01T00:00:20Z"),
            worker("w2", "2024-01-01T00:00:10Z")
        ],
        "by id, started kept"
    );
    write(store, |tx| tx.worker_gone("w1").unwrap());
    assert_eq!(
        ids(&since("2024-01-01T00:00:00Z"), |w| w.id.as_str()),
        ["w2"]
    );
}

/// Automations: by scope and id, their bodies kept as saved.
pub fn automations_are_kept_by_scope(store: Arc<dyn Store>) {
    let store = &*store;
    write(store, |tx| {
        hold_automation(tx, &acme(), "b");
        tx.put_automation(&acme(), &automation("b", true)).unwrap();
        hold_automation(tx, &acme(), "a");
        tx.put_automation(&acme(), &automation("a", false)).unwrap();
        hold_automation(tx, &acme_test(), "c");
        tx.put_automation(&acme_test(), &automation("c", true))
            .unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(
        tx.automation(&acme(), "a").unwrap(),
        Some(automation("a", false))
    );
    assert_eq!(tx.automation(&acme_test(), "a").unwrap(), None);
    assert_eq!(
        ids(&tx.automations(&acme()).unwrap(), Automation::id),
        ["a", "b"]
    );
    let all: Vec<(Scope, String)> = tx
        .all_automations()
        .unwrap()
        .into_iter()
        .map(|(s, a)| (s, a.id().to_string()))
        .collect();
    assert_eq!(
        all,
        [
            (acme(), "a".into()),
            (acme(), "b".into()),
            (acme_test(), "c".into())
        ]
    );
    drop(tx);
    write(store, |tx| {
        hold_automation(tx, &acme(), "a");
        tx.put_automation(&acme(), &automation("a", true)).unwrap();
        hold_automation(tx, &acme(), "b");
        assert!(tx.delete_automation(&acme(), "b").unwrap());
        assert!(!tx.delete_automation(&acme(), "b").unwrap());
    });
    let tx = store.read().unwrap();
    let a = tx.automation(&acme(), "a").unwrap().unwrap();
    assert!(a.enabled());
    assert_eq!((a.owner(), a.target()), ("ann", "platform.webhook"));
    assert_eq!(
        ids(&tx.automations(&acme()).unwrap(), Automation::id),
        ["a"]
    );
}

/// Deliveries: due ones in the order they fell due, the earliest unfinished one of each item
/// and automation, claims that happen once, updates and deletes.
pub fn deliveries_fall_due_in_order_and_are_claimed_once(store: Arc<dyn Store>) {
    let store = &*store;
    let specs = [
        ("a1", "X", "2024-01-01T00:00:02Z"),
        ("a1", "X", "2024-01-01T00:00:01Z"),
        ("a1", "Y", "2024-01-01T00:00:01Z"),
        ("a2", "X", "2024-01-01T00:00:03Z"),
        ("a1", "Z", "2024-01-01T00:09:00Z"),
    ];
    let seqs: Vec<i64> = write(store, |tx| {
        specs
            .iter()
            .map(|(a, i, t)| add_delivery(tx, &delivery(a, i, t)))
            .collect()
    });
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let now = at("2024-01-01T00:01:00Z");
    let tx = store.read().unwrap();
    let due = tx.due_deliveries(now, 0, 10).unwrap();
    assert_eq!(
        due.iter().map(|d| d.seq).collect::<Vec<_>>(),
        [seqs[1], seqs[2], seqs[0], seqs[3]],
        "by due time, then creation; not what is not due"
    );
    let mut first = delivery("a1", "X", "2024-01-01T00:00:01Z");
    first.seq = seqs[1];
    assert_eq!(due[0], first);
    let page: Vec<i64> = tx
        .due_deliveries(now, 1, 2)
        .unwrap()
        .iter()
        .map(|d| d.seq)
        .collect();
    assert_eq!(page, [seqs[2], seqs[0]]);
    assert_eq!(
        tx.earliest_unfinished(&acme(), "a1", "X").unwrap(),
        Some(seqs[0])
    );
    assert_eq!(
        tx.earliest_unfinished(&acme(), "a2", "X").unwrap(),
        Some(seqs[3])
    );
    assert_eq!(
        tx.earliest_unfinished(&acme_test(), "a1", "X").unwrap(),
        None
    );
    assert_eq!(tx.earliest_unfinished(&acme(), "a1", "W").unwrap(), None);
    drop(tx);

    // A claim makes it running with one more attempt, once.
    let claimed = write(store, |tx| tx.claim_delivery(seqs[0]).unwrap()).unwrap();
    assert_eq!(
        (claimed.seq, claimed.status, claimed.attempts),
        (seqs[0], DeliveryStatus::Running, 1)
    );
    assert_eq!(write(store, |tx| tx.claim_delivery(seqs[0]).unwrap()), None);
    let tx = store.read().unwrap();
    assert_eq!(
        tx.earliest_unfinished(&acme(), "a1", "X").unwrap(),
        Some(seqs[0]),
        "running is unfinished"
    );
    assert!(!tx
        .due_deliveries(now, 0, 10)
        .unwrap()
        .iter()
        .any(|d| d.seq == seqs[0]));
    assert_eq!(
        tx.deliveries(DeliveryStatus::Running).unwrap(),
        std::slice::from_ref(&claimed)
    );
    assert_eq!(tx.deliveries(DeliveryStatus::Pending).unwrap().len(), 4);
    drop(tx);

    // Pending again later (a retry), then finished.
    let mut retry = claimed;
    retry.status = DeliveryStatus::Pending;
    retry.next_at = at("2024-01-01T00:02:00.500Z");
    retry.event.insert("retried".into(), json!(true));
    write(store, |tx| tx.update_delivery(&retry).unwrap());
    let tx = store.read().unwrap();
    assert!(!tx
        .due_deliveries(now, 0, 10)
        .unwrap()
        .iter()
        .any(|d| d.seq == seqs[0]));
    assert_eq!(
        tx.due_deliveries(at("2024-01-01T00:02:00.500Z"), 0, 10)
            .unwrap()
            .last(),
        Some(&retry)
    );
    assert_eq!(
        tx.earliest_unfinished(&acme(), "a1", "X").unwrap(),
        Some(seqs[0])
    );
    drop(tx);
    write(store, |tx| tx.delete_delivery(seqs[0]).unwrap());
    let tx = store.read().unwrap();
    assert_eq!(
        tx.earliest_unfinished(&acme(), "a1", "X").unwrap(),
        Some(seqs[1])
    );
    assert!(tx.deliveries(DeliveryStatus::Running).unwrap().is_empty());
    drop(tx);
    // Seqs keep growing after deletes.
    let next = write(store, |tx| {
        add_delivery(tx, &delivery("a1", "X", "2024-01-01T00:00:00Z"))
    });
    assert!(next > seqs[4]);
}

/// The automation log and the mail outbox: newest first, filtered, paged, with totals.
pub fn the_log_and_the_mail_outbox_page_newest_first(store: Arc<dyn Store>) {
    let store = &*store;
    let entries = [
        log_entry("a1", LogStatus::Success, 1),
        log_entry("a2", LogStatus::Failed, 2),
        log_entry("a1", LogStatus::Failed, 3),
        log_entry("a1", LogStatus::Skipped, 4),
    ];
    write(store, |tx| {
        for e in &entries {
            tx.append_log(&acme(), e).unwrap();
        }
        tx.append_log(&acme_test(), &entries[0]).unwrap();
    });
    let tx = store.read().unwrap();
    let log = |filter: LogFilter| {
        let page = tx.automation_log(&acme(), &filter).unwrap();
        (
            page.items.iter().map(|e| e.delivery).collect::<Vec<_>>(),
            page.total,
        )
    };
    assert_eq!(log(LogFilter::default()), (vec![4, 3, 2, 1], 4));
    assert_eq!(
        tx.automation_log(&acme(), &LogFilter::default())
            .unwrap()
            .items[3],
        entries[0]
    );
    let a1 = || LogFilter {
        automation: Some("a1".into()),
        ..LogFilter::default()
    };
    assert_eq!(log(a1()), (vec![4, 3, 1], 3));
    assert_eq!(
        log(LogFilter {
            status: Some(LogStatus::Failed),
            ..a1()
        }),
        (vec![3], 1)
    );
    assert_eq!(
        log(LogFilter {
            from: Some(at("2024-01-01T00:00:02Z")),
            to: Some(at("2024-01-01T00:00:03Z")),
            ..LogFilter::default()
        }),
        (vec![3, 2], 2),
        "inclusive bounds"
    );
    assert_eq!(
        log(LogFilter {
            skip: 1,
            limit: Some(2),
            ..LogFilter::default()
        }),
        (vec![3, 2], 4)
    );
    assert_eq!(
        tx.automation_log(&acme_test(), &LogFilter::default())
            .unwrap()
            .total,
        1
    );
    drop(tx);

    let mail = |n: u32| MailEntry {
        id: format!("mail-{n}"),
        from: "platform@localhost".into(),
        to: vec!["ops@example.com".into(), "b@example.com".into()],
        subject: format!("subject {n}"),
        content_type: "text/plain".into(),
        body: "body".into(),
        attachment: (n == 2).then(|| MailAttachment {
            name: "data.json".into(),
            content: "{}".into(),
        }),
        automation: "a1".into(),
        owner: "ann".into(),
        timestamp: at("2024-01-01T00:00:00Z") + TimeDelta::seconds(i64::from(n)),
    };
    write(store, |tx| {
        for n in 1..=3 {
            tx.append_mail(&acme(), &mail(n)).unwrap();
        }
    });
    let tx = store.read().unwrap();
    let page = tx.mails(&acme(), 0, None).unwrap();
    assert_eq!(
        (page.items, page.total),
        (vec![mail(3), mail(2), mail(1)], 3)
    );
    let page = tx.mails(&acme(), 1, Some(1)).unwrap();
    assert_eq!((page.items, page.total), (vec![mail(2)], 3));
    assert_eq!(tx.mails(&acme_test(), 0, None).unwrap().total, 0);
}
