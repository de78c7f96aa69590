use super::*;

/// Chunks of a series: written at object versions, read at any version that sees them.
pub fn series_chunks_are_versioned_with_their_object(store: Arc<dyn Store>) {
    let store = &*store;
    let s = key("S");
    write(store, |tx| {
        hold_data(tx, &s);
        tx.replace_chunks(
            &s,
            1,
            true,
            &[],
            &[chunk(0, 9, 10, 1), chunk(10, 19, 10, 2)],
        )
        .unwrap();
        // Another property and another object are apart.
        hold_data(tx, &key("T"));
        tx.replace_chunks(&key("T"), 1, true, &[], &[chunk(0, 5, 6, 9)])
            .unwrap();
    });
    // Version 2 replaces the chunk starting at 10, keeping version 1's.
    write(store, |tx| {
        hold_data(tx, &s);
        tx.replace_chunks(
            &s,
            2,
            true,
            &[10],
            &[chunk(10, 24, 12, 3), chunk(30, 31, 2, 4)],
        )
        .unwrap()
    });
    let tx = store.read().unwrap();
    assert_eq!(tags(&tx.chunks(&s, 1, None, None).unwrap()), [1, 2]);
    assert_eq!(
        tx.chunks(&s, 1, None, None).unwrap()[1],
        chunk(10, 19, 10, 2)
    );
    assert_eq!(tags(&tx.chunks(&s, 2, None, None).unwrap()), [1, 3, 4]);
    assert_eq!(
        tags(&tx.chunks(&s, 3, None, None).unwrap()),
        [1, 3, 4],
        "current"
    );
    assert_eq!(
        tags(&tx.chunks(&s, 2, Some(9), Some(10)).unwrap()),
        [1, 3],
        "inclusive"
    );
    assert_eq!(tags(&tx.chunks(&s, 2, Some(25), None).unwrap()), [4]);
    assert_eq!(
        tags(&tx.chunks(&s, 2, None, Some(-1)).unwrap()),
        Vec::<u8>::new()
    );
    assert_eq!(tags(&tx.last_chunks(&s, 2, 2).unwrap()), [4]);
    assert_eq!(tags(&tx.last_chunks(&s, 2, 3).unwrap()), [4, 3]);
    assert_eq!(tags(&tx.last_chunks(&s, 2, 100).unwrap()), [4, 3, 1]);
    {
        // Many chunks: the last ones holding n points, newest first, for every n.
        drop(tx);
        let many = key("MANY");
        let written: Vec<Chunk> = (0..150u8)
            .map(|i| chunk(i64::from(i) * 10, i64::from(i) * 10 + 9, 10, i))
            .collect();
        write(store, |tx| {
            hold_data(tx, &many);
            tx.replace_chunks(&many, 1, true, &[], &written).unwrap()
        });
        let tx = store.read().unwrap();
        for n in [1u64, 10, 11, 35, 150, 399, 1000, 1499, 1500, 5000] {
            let expected: Vec<u8> = (0..150u8).rev().take(n.div_ceil(10) as usize).collect();
            assert_eq!(
                tags(&tx.last_chunks(&many, 1, n).unwrap()),
                expected,
                "last {n}"
            );
        }
    }
    let tx = store.read().unwrap();
    assert_eq!(
        tx.chunk_before(&s, 2, 29).unwrap(),
        Some(chunk(10, 24, 12, 3))
    );
    assert_eq!(
        tx.chunk_before(&s, 1, 29).unwrap(),
        Some(chunk(10, 19, 10, 2))
    );
    assert_eq!(tx.chunk_before(&s, 2, -1).unwrap(), None);
    assert_eq!(
        tx.series_extent(&s, 2).unwrap(),
        Extent {
            count: 24,
            bounds: Some((0, 31))
        }
    );
    assert_eq!(tx.series_extent(&s, 1).unwrap().count, 20);
    assert_eq!(
        tx.series_extent(&key("U"), 1).unwrap(),
        Extent {
            count: 0,
            bounds: None
        }
    );
    assert_eq!(tags(&tx.chunks(&key("T"), 2, None, None).unwrap()), [9]);
    drop(tx);

    // Without history the replaced rows go: no version sees them any more.
    write(store, |tx| {
        hold_data(tx, &s);
        tx.replace_chunks(&s, 2, false, &[30], &[chunk(30, 33, 4, 5)])
            .unwrap()
    });
    let tx = store.read().unwrap();
    assert_eq!(tags(&tx.chunks(&s, 2, None, None).unwrap()), [1, 3, 5]);
    drop(tx);

    // The property leaves its object at version 3.
    write(store, |tx| {
        hold_data(tx, &s);
        tx.end_data(&s, 3, true).unwrap()
    });
    let tx = store.read().unwrap();
    assert!(tx.chunks(&s, 3, None, None).unwrap().is_empty());
    assert_eq!(tags(&tx.chunks(&s, 2, None, None).unwrap()), [1, 3, 5]);
    assert_eq!(tags(&tx.chunks(&key("T"), 3, None, None).unwrap()), [9]);
}

/// Curves, one per ondate, versioned like chunks.
pub fn curves_are_versioned_with_their_object(store: Arc<dyn Store>) {
    let store = &*store;
    let c = key("C");
    write(store, |tx| {
        for (day, tag) in [("2024-01-01", 1u8), ("2024-01-02", 2), ("2024-01-03", 3)] {
            hold_data(tx, &c);
            tx.put_curve(&c, 1, true, day, Some(&[tag])).unwrap();
        }
    });
    write(store, |tx| {
        hold_data(tx, &c);
        tx.put_curve(&c, 2, true, "2024-01-02", Some(&[20]))
            .unwrap();
        tx.put_curve(&c, 2, true, "2024-01-03", None).unwrap();
    });
    let tx = store.read().unwrap();
    let days = |v: u32, from: Option<&str>, to: Option<&str>, newest: Option<u64>| {
        tx.curves(&c, v, from, to, newest)
            .unwrap()
            .into_iter()
            .map(|(d, p)| (d, p[0]))
            .collect::<Vec<_>>()
    };
    let d = |s: &str, t: u8| (s.to_string(), t);
    assert_eq!(
        days(1, None, None, None),
        [d("2024-01-01", 1), d("2024-01-02", 2), d("2024-01-03", 3)]
    );
    assert_eq!(
        days(2, None, None, None),
        [d("2024-01-01", 1), d("2024-01-02", 20)]
    );
    assert_eq!(
        days(1, Some("2024-01-02"), None, None),
        [d("2024-01-02", 2), d("2024-01-03", 3)]
    );
    assert_eq!(
        days(1, None, Some("2024-01-02"), None),
        [d("2024-01-01", 1), d("2024-01-02", 2)]
    );
    assert_eq!(
        days(1, None, None, Some(2)),
        [d("2024-01-02", 2), d("2024-01-03", 3)]
    );
    assert_eq!(tx.curve(&c, 1, "2024-01-03").unwrap(), Some(vec![3]));
    assert_eq!(tx.curve(&c, 2, "2024-01-03").unwrap(), None);
    assert_eq!(tx.curve(&c, 5, "2024-01-02").unwrap(), Some(vec![20]));
    assert_eq!(
        tx.curve_extent(&c, 1).unwrap(),
        Extent {
            count: 3,
            bounds: Some(("2024-01-01".to_string(), "2024-01-03".to_string()))
        }
    );
    assert_eq!(tx.curve_extent(&c, 2).unwrap().count, 2);
    assert_eq!(tx.curve_extent(&key("D"), 2).unwrap().bounds, None);
    // The ondates around one, of the curves a version sees.
    let near = |v: u32, day: &str| {
        let (before, after) = tx.nearest_ondates(&c, v, day).unwrap();
        (before.as_deref().map(str::to_string), after)
    };
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        near(1, "2024-01-02"),
        (some("2024-01-01"), some("2024-01-03"))
    );
    assert_eq!(near(2, "2024-01-02"), (some("2024-01-01"), None));
    assert_eq!(near(1, "2023-12-31"), (None, some("2024-01-01")));
    assert_eq!(near(2, "2024-01-05"), (some("2024-01-02"), None));
    assert_eq!(
        tx.nearest_ondates(&key("D"), 2, "2024-01-02").unwrap(),
        (None, None)
    );
    drop(tx);
    // Without history a curve is replaced in place; the property can end.
    write(store, |tx| {
        hold_data(tx, &c);
        tx.put_curve(&c, 2, false, "2024-01-01", Some(&[10]))
            .unwrap();
        tx.end_data(&c, 3, true).unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.curve(&c, 2, "2024-01-01").unwrap(), Some(vec![10]));
    assert_eq!(
        tx.curve(&c, 1, "2024-01-01").unwrap(),
        None,
        "no history kept"
    );
    assert!(tx.curves(&c, 3, None, None, None).unwrap().is_empty());
}

/// After versions of an object are deleted, the data rows no remaining version sees go and the
/// rows current at the highest remaining version are current again.
pub fn rollback_prunes_data_rows_and_reopens_the_current_ones(store: Arc<dyn Store>) {
    let store = &*store;
    let s = key("S");
    let c = key("C");
    for v in 1..=3u32 {
        write(store, |tx| {
            let old: &[i64] = if v == 1 { &[] } else { &[0] };
            hold_data(tx, &s);
            tx.replace_chunks(&s, v, true, old, &[chunk(0, 9, 10, v as u8)])
                .unwrap();
            hold_data(tx, &c);
            tx.put_curve(&c, v, true, "2024-01-01", Some(&[v as u8]))
                .unwrap();
        });
    }
    // Roll back version 3.
    write(store, |tx| {
        hold_doc(tx, Collection::Object, &acme(), "A");
        tx.prune_data(&acme(), "A", &[1, 2]).unwrap()
    });
    let tx = store.read().unwrap();
    assert_eq!(tags(&tx.chunks(&s, 1, None, None).unwrap()), [1]);
    assert_eq!(tags(&tx.chunks(&s, 2, None, None).unwrap()), [2]);
    assert_eq!(
        tags(&tx.chunks(&s, 3, None, None).unwrap()),
        [2],
        "current again"
    );
    assert_eq!(tx.curve(&c, 3, "2024-01-01").unwrap(), Some(vec![2]));
    drop(tx);
    // A new version 3 replaces the reopened rows as it replaced the first ones.
    write(store, |tx| {
        hold_data(tx, &s);
        tx.replace_chunks(&s, 3, true, &[0], &[chunk(0, 9, 10, 30)])
            .unwrap();
        hold_data(tx, &c);
        tx.put_curve(&c, 3, true, "2024-01-01", Some(&[30]))
            .unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(tags(&tx.chunks(&s, 2, None, None).unwrap()), [2]);
    assert_eq!(tags(&tx.chunks(&s, 3, None, None).unwrap()), [30]);
    drop(tx);
    // Delete version 2 of 1, 2, 3: what only version 2 saw goes, the others stay.
    write(store, |tx| {
        hold_doc(tx, Collection::Object, &acme(), "A");
        tx.prune_data(&acme(), "A", &[1, 3]).unwrap()
    });
    let tx = store.read().unwrap();
    assert_eq!(tags(&tx.chunks(&s, 1, None, None).unwrap()), [1]);
    assert!(tx.chunks(&s, 2, None, None).unwrap().is_empty());
    assert_eq!(tags(&tx.chunks(&s, 3, None, None).unwrap()), [30]);
    assert_eq!(tx.curve(&c, 2, "2024-01-01").unwrap(), None);
    assert_eq!(tx.curve(&c, 1, "2024-01-01").unwrap(), Some(vec![1]));
    drop(tx);
    // Nothing left: every row goes.
    write(store, |tx| {
        hold_doc(tx, Collection::Object, &acme(), "A");
        tx.prune_data(&acme(), "A", &[]).unwrap()
    });
    let tx = store.read().unwrap();
    for v in 1..=3 {
        assert!(tx.chunks(&s, v, None, None).unwrap().is_empty());
        assert!(tx.curves(&c, v, None, None, None).unwrap().is_empty());
    }
}

/// Validation record chunks: by target and bucket, selected by keys held or buckets.
pub fn validation_record_chunks_are_kept_by_target_and_bucket(store: Arc<dyn Store>) {
    let store = &*store;
    let rows = [
        record_chunk("A:S", 0, 0, 90, 10),
        record_chunk("A:S", 100, 100, 150, 4),
        record_chunk("A:T", 0, 5, 5, 1),
        record_chunk("B:S", 200, 210, 290, 3),
    ];
    write(store, |tx| {
        for r in &rows {
            hold_records(tx, &acme(), &r.target);
            tx.put_record_chunk(&acme(), r).unwrap();
        }
        hold_records(tx, &acme_test(), "A:S");
        tx.put_record_chunk(&acme_test(), &record_chunk("A:S", 0, 0, 1, 2))
            .unwrap();
    });
    let tx = store.read().unwrap();
    let all = tx.record_chunks(&acme(), None, None, None).unwrap();
    assert_eq!(all, rows, "by target and bucket");
    let of_s = tx
        .record_chunks(&acme(), Some(&["A:S".to_string()]), None, None)
        .unwrap();
    assert_eq!(of_s, rows[..2]);
    let seqs = |keys, buckets| {
        tx.record_chunks(&acme(), None, keys, buckets)
            .unwrap()
            .iter()
            .map(|r| (r.target.clone(), r.seq))
            .collect::<Vec<_>>()
    };
    let t = |s: &str, n: i64| (s.to_string(), n);
    assert_eq!(seqs(Some((95, 100)), None), [t("A:S", 100)]);
    assert_eq!(seqs(Some((5, 5)), None), [t("A:S", 0), t("A:T", 0)]);
    assert!(seqs(Some((91, 99)), None).is_empty());
    assert_eq!(seqs(None, Some((100, 200))), [t("A:S", 100), t("B:S", 200)]);
    assert_eq!(
        seqs(Some((5, 5)), Some((200, 200))),
        [t("A:S", 0), t("A:T", 0), t("B:S", 200)]
    );
    assert_eq!(
        tx.record_chunks(&acme_test(), None, None, None)
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        tx.record_targets_of(&acme(), "A:S:2024-01-01").unwrap(),
        ["A:S"]
    );
    assert!(tx.record_targets_of(&acme(), "A:SX:1").unwrap().is_empty());
    drop(tx);
    // Overwritten in place; a chunk holding nothing goes.
    let mut changed = rows[1].clone();
    changed.last = 160;
    changed.body = vec![7];
    write(store, |tx| {
        hold_records(tx, &acme(), &changed.target);
        tx.put_record_chunk(&acme(), &changed).unwrap();
        hold_records(tx, &acme(), "A:T");
        tx.put_record_chunk(&acme(), &record_chunk("A:T", 0, 0, 0, 0))
            .unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(
        tx.record_chunks(&acme(), None, None, None).unwrap(),
        [rows[0].clone(), changed, rows[3].clone()]
    );
}
