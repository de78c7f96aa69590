use super::*;

/// A document read by id on its own (`Store::current_document`) is what a transaction reads as
/// current, after every change of which version is current, its tags and its reason.
pub fn a_document_read_alone_is_its_current_version(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let alone = |id: &str| store.current_document(coll, &acme(), id).unwrap();
    let in_tx = |id: &str| store.read().unwrap().current(coll, &acme(), id).unwrap();
    // A write transaction reads it too (rolled back when dropped).
    let in_write = |id: &str| store.write().unwrap().current(coll, &acme(), id).unwrap();
    let check = |id: &str, want: Option<&StoredVersion>| {
        let (a, b, c) = (alone(id), in_tx(id), in_write(id));
        assert_eq!(a.as_ref(), want, "read alone");
        assert_eq!(b.as_ref(), want, "read in a transaction");
        assert_eq!(c.as_ref(), want, "read in a write transaction");
    };
    // Version 2 carries a reason (the fixture gives even versions one), 1 and 3 none; field
    // order, nesting, escapes and numbers come back as they were written.
    let mut v = [
        version(
            "A",
            1,
            json!({"_type": "T", "z": 1, "a": [1.5, {"b": null}], "m": "é\"\n"}),
        ),
        version(
            "A",
            2,
            json!({"_type": "T", "z": 2, "big": 12345678901234567890u64}),
        ),
        version("A", 3, json!({"_type": "T", "z": 3, "x": -0.0001})),
    ];
    assert!(v[1].reason.is_some() && v[0].reason.is_none());
    write(store, |tx| {
        for one in &v {
            save(tx, coll, &acme(), one);
        }
    });
    check("A", Some(&v[2]));
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), "A");
        tx.set_tag(coll, &acme(), "A", "live", 3).unwrap()
    });
    v[2].tags = vec!["live".into()];
    check("A", Some(&v[2]));
    // Rolled back to 2: its reason; then to 1, tagged twice. Midway, with the current
    // version deleted and no other made current yet, the write reads no current version.
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), "A");
        tx.delete_version(coll, &acme(), "A", 3).unwrap();
        assert_eq!(tx.current(coll, &acme(), "A").unwrap(), None, "midway");
        tx.set_current(coll, &acme(), "A", Some(2)).unwrap();
        assert_eq!(
            tx.current(coll, &acme(), "A").unwrap().as_ref(),
            Some(&v[1])
        );
    });
    check("A", Some(&v[1]));
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), "A");
        tx.delete_version(coll, &acme(), "A", 2).unwrap();
        tx.set_current(coll, &acme(), "A", Some(1)).unwrap();
        tx.set_tag(coll, &acme(), "A", "b", 1).unwrap();
        tx.set_tag(coll, &acme(), "A", "a", 1).unwrap();
    });
    v[0].tags = vec!["a".into(), "b".into()];
    check("A", Some(&v[0]));
    // Another scope or collection, an unknown id, a deleted document: nothing.
    assert_eq!(
        store.current_document(coll, &acme_test(), "A").unwrap(),
        None
    );
    assert_eq!(
        store
            .current_document(Collection::Type, &acme(), "A")
            .unwrap(),
        None
    );
    check("B", None);
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), "A");
        tx.delete_version(coll, &acme(), "A", 1).unwrap();
        tx.set_current(coll, &acme(), "A", None).unwrap();
    });
    check("A", None);
}

/// A current version read as stored (`current_raw`) is the current version: its body, read
/// from the form the backend keeps it in, is the body `current` reads, and its system fields
/// are the same; in a read and in a write transaction; an unknown id is none.
pub fn a_raw_current_version_is_the_current_version(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let bodies = [
        json!({"_type": "T", "z": 1, "a": [1.5, {"b": null}], "m": "é\"\n\u{1}", "big": 12345678901234567890u64}),
        json!({"_type": "T", "_bundle": "b", "n": -0.0001, "s": {"_type": "TimeSeries", "_access": "secret"},
               "o": {"_type": "TimeSeries", "unit": "MW"}, "e": {}, "l": []}),
    ];
    write(store, |tx| {
        for (i, b) in bodies.iter().enumerate() {
            save(tx, coll, &acme(), &version(&format!("P{i}"), 2, b.clone()));
        }
        hold_doc(tx, coll, &acme(), "P1");
        tx.set_tag(coll, &acme(), "P1", "live", 2).unwrap();
    });
    let check = |tx: &dyn ReadTx| {
        for i in 0..2 {
            let id = format!("P{i}");
            let current = tx.current(coll, &acme(), &id).unwrap().unwrap();
            let raw = tx.current_raw(coll, &acme(), &id).unwrap().unwrap();
            let body = match &raw.body {
                StoredBody::Map(body) => body.clone(),
                StoredBody::Jsonb(blob) => crate::json::jsonb::to_map(blob).expect("a JSON object"),
            };
            assert_eq!(body, current.body, "{id}");
            assert_eq!(
                (
                    raw.id,
                    raw.version,
                    raw.timestamp,
                    raw.user,
                    raw.reason,
                    raw.tags
                ),
                (
                    current.id,
                    current.version,
                    current.timestamp,
                    current.user,
                    current.reason,
                    current.tags
                )
            );
        }
        assert_eq!(tx.current_raw(coll, &acme(), "NONE").unwrap(), None);
    };
    check(store.read().unwrap().as_ref());
    check(store.write().unwrap().as_ref());
}

/// A current version read in part (`current_fields`) is the current version with only the
/// named fields in its body (in the body's order; a name it lacks is no field), in a read and
/// in a write transaction; an unknown id is none.
pub fn a_current_version_read_in_part_is_its_fields_read_whole(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let body = json!({"_type": "T", "z": 1, "price": {"_type": "TimeSeries", "unit": "MW", "n": [1.5, null]},
                      "m": "é\"\n", "other": {"a": [1, {"b": 2}]}});
    write(store, |tx| {
        save(tx, coll, &acme(), &version("P", 3, body.clone()));
        hold_doc(tx, coll, &acme(), "P");
        tx.set_tag(coll, &acme(), "P", "live", 3).unwrap();
    });
    let check = |tx: &dyn ReadTx| {
        let whole = tx.current(coll, &acme(), "P").unwrap().unwrap();
        for fields in [
            &["price", "_type"][..],
            &["m", "absent"],
            &[],
            &["z", "price", "other", "m", "_type"],
        ] {
            let part = tx
                .current_fields(coll, &acme(), "P", fields)
                .unwrap()
                .unwrap();
            let mut expected = whole.clone();
            expected.body.retain(|k, _| fields.contains(&k.as_str()));
            assert_eq!(part, expected, "{fields:?}");
            assert!(part.body.keys().eq(expected.body.keys()), "{fields:?}");
            assert_eq!(
                part.body.len(),
                fields
                    .iter()
                    .filter(|f| whole.body.contains_key(**f))
                    .count()
            );
        }
        assert_eq!(
            tx.current_fields(coll, &acme(), "NONE", &["z"]).unwrap(),
            None
        );
    };
    check(store.read().unwrap().as_ref());
    check(store.write().unwrap().as_ref());
}

/// A version written current at once (`put_current`) leaves what writing it and then making it
/// current leaves: the same current version, versions, tags and list answers, for a new
/// document, a new version, an unversioned rewrite of the current number with its tags, and
/// bodies with escapes, numbers and the search fields.
pub fn a_version_written_current_at_once_is_written_then_made_current(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let bodies = [
        json!({"_type": "T", "name": "West Hub", "description": "North sea", "classification": "Gas"}),
        json!({"_type": "T", "name": "Öst", "n": [1.5, -0.0001, 12345678901234567890u64], "s": "a\u{1f}\"\n"}),
        json!({"_type": "U", "name": 7, "description": "rewritten"}),
        json!({"z": {"a": null}, "classification": "power"}),
    ];
    // Each step as (version number, body), both ways: `A` at once, `B` in two steps.
    let steps = [(1, 0), (2, 1), (2, 2), (3, 3)];
    let as_a = |mut v: StoredVersion| {
        v.id = "A".into();
        v.body.insert("_id".into(), json!("A"));
        v
    };
    let by = |path: &str, value: &str| crate::query::filter::parse_param(path, value).unwrap();
    let search = |text: &str| crate::query::search::parse(text).unwrap();
    for (i, &(n, b)) in steps.iter().enumerate() {
        // `A` alone in its transaction (a single save, as a backend may write it in one
        // statement), `B` in another.
        write(store, |tx| {
            let replaces = i.checked_sub(1).map(|before| steps[before].0);
            hold_doc(tx, coll, &acme(), "A");
            tx.put_current(coll, &acme(), &version("A", n, bodies[b].clone()), replaces)
                .unwrap();
        });
        write(store, |tx| {
            save(tx, coll, &acme(), &version("B", n, bodies[b].clone()));
            if i == 1 {
                hold_doc(tx, coll, &acme(), "A");
                tx.set_tag(coll, &acme(), "A", "live", 2).unwrap();
                hold_doc(tx, coll, &acme(), "B");
                tx.set_tag(coll, &acme(), "B", "live", 2).unwrap();
            }
        });
        let alone = store.current_document(coll, &acme(), "A").unwrap();
        let tx = store.read().unwrap();
        let a = tx.current(coll, &acme(), "A").unwrap();
        let b = tx.current(coll, &acme(), "B").unwrap().map(as_a);
        assert!(a.is_some());
        assert_eq!(a, b, "step {i}");
        assert_eq!(alone, a, "step {i}");
        let versions = |id: &str| tx.versions(coll, &acme(), id).unwrap();
        let b_versions: Vec<StoredVersion> = versions("B").into_iter().map(as_a).collect();
        assert_eq!(versions("A"), b_versions, "step {i}");
        drop(tx);
        for filter in [
            by("_tag", "live"),
            by("_type", "T"),
            by("_version", "2"),
            by("name", "Öst"),
            by("classification", "power"),
            search("west"),
            search("hub"),
            search("rewritten"),
        ] {
            let (found, total) = list_ids(store, &[acme()], &query(filter.clone(), "", 0, None));
            assert!(
                found.is_empty() || found == ["A", "B"],
                "step {i}: {filter:?} found {found:?}"
            );
            assert_eq!(total as usize, found.len());
        }
    }
}

/// Versioned documents: versions, the current one, tags, deletes, and isolation by collection
/// and scope.
pub fn documents_keep_versions_heads_and_tags(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let (v1, v2) = (
        version("A", 1, json!({"_type": "T", "v": 1})),
        version(
            "A",
            2,
            json!({"_type": "T", "v": 2, "nested": {"x": [1, 2]}}),
        ),
    );
    write(store, |tx| {
        save(tx, coll, &acme(), &v1);
        save(tx, coll, &acme(), &v2);
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.current(coll, &acme(), "A").unwrap(), Some(v2.clone()));
    assert_eq!(tx.version(coll, &acme(), "A", 1).unwrap(), Some(v1.clone()));
    assert_eq!(tx.version(coll, &acme(), "A", 3).unwrap(), None);
    assert_eq!(
        tx.versions(coll, &acme(), "A").unwrap(),
        [v1.clone(), v2.clone()]
    );
    assert_eq!(v2.type_name(), "T");
    // Another scope, the public source and another collection do not see it.
    for (c, s) in [
        (coll, acme_test()),
        (coll, Scope::public()),
        (coll, Scope::private("other", "production")),
        (Collection::Type, acme()),
    ] {
        assert_eq!(tx.current(c, &s, "A").unwrap(), None, "{c:?} {s:?}");
        assert!(tx.versions(c, &s, "A").unwrap().is_empty());
    }
    drop(tx);

    // A tag points at one version; set again, it moves.
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), "A");
        tx.set_tag(coll, &acme(), "A", "live", 1).unwrap()
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.tagged(coll, &acme(), "A", "live").unwrap(), Some(1));
    assert_eq!(tx.tagged(coll, &acme(), "A", "gone").unwrap(), None);
    let tags: Vec<Vec<String>> = tx
        .versions(coll, &acme(), "A")
        .unwrap()
        .into_iter()
        .map(|v| v.tags)
        .collect();
    assert_eq!(tags, [vec!["live".to_string()], vec![]]);
    drop(tx);
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), "A");
        tx.set_tag(coll, &acme(), "A", "live", 2).unwrap();
        tx.set_tag(coll, &acme(), "A", "first", 2).unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.tagged(coll, &acme(), "A", "live").unwrap(), Some(2));
    let current = tx.current(coll, &acme(), "A").unwrap().unwrap();
    assert_eq!(current.tags, ["first", "live"], "sorted");
    assert!(tx
        .version(coll, &acme(), "A", 1)
        .unwrap()
        .unwrap()
        .tags
        .is_empty());
    drop(tx);

    // Deleting a version takes its tags; the head moves where it is told.
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), "A");
        tx.delete_version(coll, &acme(), "A", 2).unwrap();
        tx.set_current(coll, &acme(), "A", Some(1)).unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.version(coll, &acme(), "A", 2).unwrap(), None);
    assert_eq!(tx.tagged(coll, &acme(), "A", "live").unwrap(), None);
    assert_eq!(tx.current(coll, &acme(), "A").unwrap(), Some(v1.clone()));
    drop(tx);

    // A version stored again under its number replaces it (unversioned types).
    let replaced = version("A", 1, json!({"_type": "T", "v": "again"}));
    write(store, |tx| save(tx, coll, &acme(), &replaced));
    let tx = store.read().unwrap();
    assert_eq!(
        tx.versions(coll, &acme(), "A").unwrap(),
        std::slice::from_ref(&replaced)
    );
    assert_eq!(tx.current(coll, &acme(), "A").unwrap(), Some(replaced));
    drop(tx);

    // Absent: no head, the versions stay; a head on a missing version is refused.
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), "A");
        tx.set_current(coll, &acme(), "A", None).unwrap()
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.current(coll, &acme(), "A").unwrap(), None);
    assert_eq!(tx.versions(coll, &acme(), "A").unwrap().len(), 1);
    drop(tx);
    let mut tx = store.write().unwrap();
    assert!(tx.set_current(coll, &acme(), "A", Some(9)).is_err());
}

fn list_ids(store: &dyn Store, scopes: &[Scope], query: &ListQuery) -> (Vec<String>, u64) {
    let page = store
        .read()
        .unwrap()
        .list(Collection::Object, scopes, query)
        .unwrap();
    (ids(&page.items, |v| v.id.as_str()), page.total)
}

/// Totals past [`EXACT_TOTAL_UP_TO`](crate::query::total::EXACT_TOTAL_UP_TO) matches, counted with
/// [`Total::Estimated`](crate::query::Total::Estimated): exact up to the threshold, estimated
/// past it within a few percent (from the sample buckets, so ids sorted like a field do not
/// bend the sample), never below what the page shows, and exact again with `Total::Exact`.
pub fn long_lists_estimate_their_totals_past_a_threshold(store: Arc<dyn Store>) {
    use crate::query::filter::parse_param;
    use crate::query::Total;
    let store = &*store;
    let coll = Collection::Object;
    const PLANTS: u64 = 20_000;
    write(store, |tx| {
        for i in 0..PLANTS {
            // Ids in the order of `capacity`: the first documents by id are all small ones.
            let capacity = i % 100;
            let id = format!("C{capacity:02}-{i:05}");
            let body = json!({"_type": "Plant", "capacity": capacity, "n": i});
            save(tx, coll, &acme(), &version(&id, 1, body));
        }
        for i in 0..300 {
            let body = json!({"_type": "Other", "n": i});
            save(tx, coll, &acme(), &version(&format!("X{i:03}"), 1, body));
            save(
                tx,
                coll,
                &acme_test(),
                &version(&format!("Y{i:03}"), 1, body_of_plant(i)),
            );
        }
    });
    let plants = |more: &[(&str, &str)]| {
        Filter::and(
            std::iter::once(Filter::TypeIn(vec!["Plant".into()]))
                .chain(more.iter().map(|(k, v)| parse_param(k, v).unwrap()))
                .collect(),
        )
    };
    let count = |filter: Filter, total: Total, skip: u64| {
        let mut q = query(filter, "", skip, Some(10));
        q.total = total;
        let page = store.read().unwrap().list(coll, &[acme()], &q).unwrap();
        (page.total, page.estimated, page.items.len())
    };
    let near = |estimate: u64, exact: u64| {
        let off = (estimate as f64 - exact as f64).abs() / exact as f64;
        assert!(off < 0.15, "{estimate} is {:.1}% off {exact}", off * 100.0);
    };
    // Counted exactly when asked, however many.
    assert_eq!(count(plants(&[]), Total::Exact, 0), (PLANTS, false, 10));
    assert_eq!(
        count(plants(&[("capacity", "gt(39)")]), Total::Exact, 0),
        (PLANTS * 6 / 10, false, 10)
    );
    // Exact up to the threshold, to the last match.
    assert_eq!(
        count(plants(&[("n", "lt(10000)")]), Total::Estimated, 0),
        (10_000, false, 10)
    );
    assert_eq!(
        count(plants(&[("capacity", "lt(30)")]), Total::Estimated, 0),
        (PLANTS * 3 / 10, false, 10)
    );
    // One past it, estimated, and never below what is known to match.
    let (total, estimated, _) = count(plants(&[("n", "lt(10001)")]), Total::Estimated, 0);
    assert!(estimated);
    assert!(total > crate::query::total::EXACT_TOTAL_UP_TO, "{total}");
    near(total, 10_001);
    // Past it: the type alone, a filter the first ids by far do not match, and no type.
    for (filter, exact) in [
        (plants(&[]), PLANTS),
        (plants(&[("capacity", "gt(39)")]), PLANTS * 6 / 10),
        (parse_param("capacity", "gt(39)").unwrap(), PLANTS * 6 / 10),
        (Filter::all(), PLANTS + 300),
    ] {
        let (total, estimated, shown) = count(filter.clone(), Total::Estimated, 0);
        assert!(estimated, "{filter:?}");
        assert_eq!(shown, 10);
        near(total, exact);
    }
    // A page deep in the list: the estimate covers it.
    let (total, estimated, shown) = count(plants(&[]), Total::Estimated, PLANTS - 5);
    assert!(estimated);
    assert_eq!(shown, 5);
    assert!(total >= PLANTS, "{total}");
    // The estimate changes no item: the same page either way.
    let page = |sort: &str, skip: u64, limit: u64, total: Total| {
        let mut q = query(plants(&[("capacity", "gt(39)")]), sort, skip, Some(limit));
        q.total = total;
        let items = store
            .read()
            .unwrap()
            .list(coll, &[acme()], &q)
            .unwrap()
            .items;
        ids(&items, |v| v.id.as_str())
    };
    let exact = page("-n", 30, 20, Total::Exact);
    assert_eq!(page("-n", 30, 20, Total::Estimated), exact);
    assert_eq!(exact[0], "C69-19969");
    // In id order too, where the first 10,000 documents by id hold 2,000 of the matches: the
    // pages within them, and the pages past them.
    for skip in [0, 1995, 2000, 2490] {
        let exact = page("", skip, 10, Total::Exact);
        assert_eq!(page("", skip, 10, Total::Estimated), exact, "skip {skip}");
        let first = format!("C{:02}-", 40 + skip / 200);
        assert!(exact[0].starts_with(&first), "skip {skip}: {exact:?}");
    }
}

fn body_of_plant(i: u64) -> Value {
    json!({"_type": "Plant", "capacity": 99, "n": i})
}

/// Lists of current documents: scopes, filters (system fields included), sorts, paging and the
/// total before paging.
pub fn lists_filter_sort_page_and_count(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    write(store, |tx| {
        for (i, country) in ["GB", "FR", "GB", "DE", "NL"].iter().enumerate() {
            let id = format!("D{i}");
            save(
                tx,
                coll,
                &acme(),
                &version(
                    &id,
                    1,
                    json!({"_type": "Hub", "country": country, "rank": 5 - i}),
                ),
            );
        }
        // D1 has a second version; D4 a tag.
        save(
            tx,
            coll,
            &acme(),
            &version("D1", 2, json!({"_type": "Hub", "country": "FR", "rank": 9})),
        );
        hold_doc(tx, coll, &acme(), "D4");
        tx.set_tag(coll, &acme(), "D4", "live", 1).unwrap();
        save(
            tx,
            coll,
            &Scope::public(),
            &version("#P", 1, json!({"country": "GB"})),
        );
        save(tx, Collection::Type, &acme(), &version("D9", 1, json!({})));
    });
    let all = query(Filter::all(), "", 0, None);
    assert_eq!(
        list_ids(store, &[acme()], &all),
        (
            vec![
                "D0".into(),
                "D1".into(),
                "D2".into(),
                "D3".into(),
                "D4".into()
            ],
            5
        )
    );
    assert_eq!(list_ids(store, &[acme(), Scope::public()], &all).1, 6);
    assert_eq!(list_ids(store, &[], &all), (vec![], 0));
    assert_eq!(list_ids(store, &[acme_test()], &all), (vec![], 0));
    // Paging counts everything that matched.
    assert_eq!(
        list_ids(store, &[acme()], &query(Filter::all(), "", 1, Some(2))),
        (vec!["D1".into(), "D2".into()], 5)
    );
    // Sorts, the id breaking ties.
    assert_eq!(
        list_ids(store, &[acme()], &query(Filter::all(), "-rank", 0, Some(3))).0,
        ["D1", "D0", "D2"]
    );
    assert_eq!(
        list_ids(
            store,
            &[acme()],
            &query(Filter::all(), "country,-_id", 0, None)
        )
        .0,
        ["D3", "D1", "D2", "D0", "D4"]
    );
    // Filters, on fields and on system fields.
    let by = |path: &str, value: &str| crate::query::filter::parse_param(path, value).unwrap();
    assert_eq!(
        list_ids(store, &[acme()], &query(by("country", "GB"), "", 0, None)),
        (vec!["D0".into(), "D2".into()], 2)
    );
    assert_eq!(
        list_ids(store, &[acme()], &query(by("_version", "2"), "", 0, None)).0,
        ["D1"]
    );
    assert_eq!(
        list_ids(store, &[acme()], &query(by("_user", "user2"), "", 0, None)).0,
        ["D1"]
    );
    let tagged = Filter::Eq {
        path: "_tag".into(),
        value: json!("live"),
    };
    assert_eq!(
        list_ids(store, &[acme()], &query(tagged, "", 0, None)).0,
        ["D4"]
    );
    assert_eq!(
        list_ids(store, &[acme()], &query(by("_oid", "D3"), "", 0, None)).0,
        ["D3"]
    );
    assert_eq!(
        list_ids(
            store,
            &[acme()],
            &query(
                by("_timestamp", "gt(2024-01-01T00:00:01.500Z)"),
                "",
                0,
                None
            )
        )
        .0,
        ["D1"]
    );
    assert_eq!(
        list_ids(
            store,
            &[acme()],
            &query(Filter::TypeIn(vec!["Hub".into()]), "", 0, None)
        )
        .1,
        5
    );
    // The page carries whole versions.
    let page = store
        .read()
        .unwrap()
        .list(coll, &[acme()], &query(by("_oid", "D1"), "", 0, None))
        .unwrap();
    assert_eq!(
        page.items,
        [version(
            "D1",
            2,
            json!({"_type": "Hub", "country": "FR", "rank": 9})
        )]
    );
}

/// Keyset pages: walking a list page by page with a cursor made from each page's last item
/// gives exactly the list in one piece, for every sort (values of every kind, null and absent
/// ones, ties, descending keys, system fields), with a filter, across scopes, and after the
/// last item was deleted; the total still counts every match.
pub fn keyset_pages_follow_the_sort_exactly(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let values = [
        json!(null),
        json!(true),
        json!(false),
        json!(2),
        json!(2.0),
        json!(-1.5),
        json!(10),
        json!(2.5),
        json!("b"),
        json!("B"),
        json!("a b"),
        json!(""),
        json!("é"),
        json!([1, "x"]),
        json!({"k": 1}),
        json!("b"),
        json!(2),
    ];
    write(store, |tx| {
        for (i, v) in values.iter().enumerate() {
            let mut body = json!({"_type": "Hub", "v": v, "g": i % 3, "n": {"x": (i * 7) % 5}});
            if i % 4 == 3 {
                body.as_object_mut().unwrap().remove("v");
            }
            save(tx, coll, &acme(), &version(&format!("K{i:02}"), 1, body));
        }
        for i in 0..3u32 {
            save(
                tx,
                coll,
                &Scope::public(),
                &version(&format!("#K{i}"), 1 + i, json!({"v": i, "g": 1})),
            );
        }
    });
    let tx = store.read().unwrap();
    let scopes = [acme(), Scope::public()];
    let gt0 = crate::query::filter::parse_param("g", "gt(0)").unwrap();
    for sort in [
        "",
        "-_id",
        "v",
        "-v",
        "g,-v",
        "-g,v,-_id",
        "n.x,v",
        "_version,-v",
        "-_oid",
    ] {
        for filter in [Filter::all(), gt0.clone()] {
            let whole = tx
                .list(coll, &scopes, &query(filter.clone(), sort, 0, None))
                .unwrap();
            let expected = ids(&whole.items, |v| v.id.as_str());
            for size in [1u64, 2, 5] {
                let q = query(filter.clone(), sort, 0, Some(size));
                let mut got: Vec<String> = Vec::new();
                let mut after: Option<Cursor> = None;
                loop {
                    let page = tx.list_after(coll, &scopes, &q, after.as_ref()).unwrap();
                    assert_eq!(
                        page.total, whole.total,
                        "sort {sort:?}: total of every match"
                    );
                    let Some(last) = page.items.last() else { break };
                    after = Some(Cursor::after(&q.sort, &last.id, &last.filter_doc()));
                    got.extend(ids(&page.items, |v| v.id.as_str()));
                    assert!(
                        got.len() <= expected.len(),
                        "sort {sort:?} size {size}: {got:?}"
                    );
                }
                assert_eq!(
                    got, expected,
                    "sort {sort:?}, filter {filter:?}, pages of {size}"
                );
            }
        }
    }
    drop(tx);
    // A cursor stays valid when its item is gone: the page starts after where it sorted.
    let sort = SortSpec::parse("-v").unwrap();
    let q = query(Filter::all(), "-v", 0, None);
    let whole = ids(
        &store
            .read()
            .unwrap()
            .list(coll, &[acme()], &q)
            .unwrap()
            .items,
        |v| v.id.as_str(),
    );
    let third = store
        .read()
        .unwrap()
        .current(coll, &acme(), &whole[2])
        .unwrap()
        .unwrap();
    let cursor = Cursor::after(&sort, &third.id, &third.filter_doc());
    write(store, |tx| {
        hold_doc(tx, coll, &acme(), &third.id);
        tx.set_current(coll, &acme(), &third.id, None).unwrap()
    });
    let rest = store
        .read()
        .unwrap()
        .list_after(coll, &[acme()], &q, Some(&cursor))
        .unwrap();
    assert_eq!(ids(&rest.items, |v| v.id.as_str()), whole[3..].to_vec());
    assert_eq!(rest.total, whole.len() as u64 - 1);
}

/// Per-type indexes change no answer: lists of one type (filtered by exact values, number and
/// text ranges, sorted, paged by cursor) are the same before the indexes are built over the
/// stored objects, with them, after their fields change, and after they are dropped; objects
/// saved while they exist are found too.
pub fn per_type_indexes_change_no_answer(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let countries = [
        json!("NL"),
        json!("GB"),
        json!("nl"),
        json!(null),
        json!(["NL"]),
    ];
    let capacities = [
        json!(400),
        json!(120.5),
        json!("n/a"),
        json!(true),
        json!(100),
        json!(-3),
        json!(1e300),
    ];
    let plant = |i: usize| {
        let mut body = json!({
            "_type": if i % 5 == 4 { "Other" } else { "Plant" },
            "country": countries[i % countries.len()],
            "capacity": capacities[i % capacities.len()],
            "name": format!("P{}", (i * 7) % 11),
        });
        if i % 6 == 5 {
            body.as_object_mut().unwrap().remove("capacity");
        }
        body
    };
    write(store, |tx| {
        for i in 0..40 {
            save(
                tx,
                coll,
                &acme(),
                &version(&format!("O{i:02}"), 1, plant(i)),
            );
        }
        save(tx, coll, &acme_test(), &version("T0", 1, plant(0)));
    });
    let by = |path: &str, value: &str| crate::query::filter::parse_param(path, value).unwrap();
    let plants = || Filter::TypeIn(vec!["Plant".into()]);
    let filters = [
        plants(),
        Filter::and(vec![plants(), by("country", "NL")]),
        Filter::and(vec![plants(), by("country", "in(NL,GB)")]),
        Filter::and(vec![plants(), by("capacity", "400")]),
        Filter::and(vec![plants(), by("capacity", "gt(100)")]),
        Filter::and(vec![plants(), by("capacity", "range(-3,120.5)")]),
        Filter::and(vec![plants(), by("capacity", "lte(1e400)")]),
        Filter::and(vec![plants(), by("capacity", "lt(1e301)")]),
        Filter::and(vec![plants(), by("capacity", "gt(-1e301)")]),
        Filter::and(vec![plants(), by("capacity", "gte(120.4)")]),
        Filter::and(vec![plants(), by("name", "gte(P3)")]),
        Filter::and(vec![plants(), by("country", "ne(NL)")]),
        Filter::and(vec![
            plants(),
            by("country", "GB"),
            by("capacity", "lt(1000)"),
        ]),
    ];
    let sorts = ["", "capacity", "-capacity", "country,capacity", "name,-_id"];
    let answers = |store: &dyn Store| {
        let tx = store.read().unwrap();
        let every = tx
            .list(coll, &[acme()], &query(Filter::all(), "", 0, None))
            .unwrap()
            .items;
        let mut out = Vec::new();
        for f in &filters {
            // What the filter means in memory.
            let mut meant: Vec<String> = every
                .iter()
                .filter(|v| f.matches(&v.filter_doc()))
                .map(|v| v.id.clone())
                .collect();
            meant.sort();
            for sort in sorts {
                let whole = tx
                    .list(coll, &[acme()], &query(f.clone(), sort, 0, None))
                    .unwrap();
                // The same list by keyset pages of 4.
                let q = query(f.clone(), sort, 0, Some(4));
                let (mut paged, mut after) = (Vec::new(), None::<Cursor>);
                loop {
                    let page = tx.list_after(coll, &[acme()], &q, after.as_ref()).unwrap();
                    let Some(last) = page.items.last() else { break };
                    after = Some(Cursor::after(&q.sort, &last.id, &last.filter_doc()));
                    paged.extend(ids(&page.items, |v| v.id.as_str()));
                    assert!(paged.len() <= 40, "{f:?} {sort}");
                }
                let listed = ids(&whole.items, |v| v.id.as_str());
                assert_eq!(paged, listed, "{f:?} sorted by {sort:?}");
                let mut found = listed.clone();
                found.sort();
                assert_eq!(found, meant, "{f:?}: the store and memory agree");
                out.push((listed, whole.total));
            }
        }
        out
    };
    let before = answers(store);
    assert!(
        before.iter().any(|(ids, _)| ids.len() > 3),
        "the lists hold items"
    );
    let fields = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    for set in [
        fields(&["country", "capacity", "name"]),
        fields(&["country", "capacity", "name"]),
        fields(&["capacity"]),
        fields(&[]),
    ] {
        write(store, |tx| {
            hold_doc(tx, Collection::Type, &acme(), "Plant");
            tx.set_type_indexes(&acme(), "Plant", &set).unwrap();
        });
        assert_eq!(answers(store), before, "indexes on {set:?}");
    }
    // Objects saved while an index exists are found through it.
    write(store, |tx| {
        hold_doc(tx, Collection::Type, &acme(), "Plant");
        tx.set_type_indexes(&acme(), "Plant", &fields(&["country"]))
            .unwrap();
        save(
            tx,
            coll,
            &acme(),
            &version("O99", 1, json!({"_type": "Plant", "country": "NL"})),
        );
    });
    let found = store
        .read()
        .unwrap()
        .list(
            coll,
            &[acme()],
            &query(
                Filter::and(vec![plants(), by("country", "NL")]),
                "",
                0,
                None,
            ),
        )
        .unwrap();
    assert_eq!(found.total, before[5].1 + 1);
    assert!(ids(&found.items, |v| v.id.as_str()).contains(&"O99".to_string()));
}

/// Distinct values, auto-completion and the kinds of values at a field.
pub fn distinct_values_completion_and_field_kinds(store: Arc<dyn Store>) {
    let store = &*store;
    let coll = Collection::Object;
    let docs = [
        ("GB", json!({"name": "Britain", "x": 1, "z": {"b": "t"}})),
        ("GAS", json!({"name": "Gas hub", "x": 2.5})),
        ("FR", json!({"name": "France", "x": "a"})),
        ("NBP", json!({"name": "Gas point", "x": true})),
        ("NL", json!({"name": "Netherlands", "x": null})),
        ("DE", json!({"name": "Germany", "x": [1], "z": {"b": 2}})),
        ("BE", json!({"x": {"b": 1}, "name": 7})),
    ];
    write(store, |tx| {
        for (id, body) in &docs {
            save(tx, coll, &acme(), &version(id, 1, body.clone()));
        }
        save(
            tx,
            coll,
            &Scope::public(),
            &version("#G", 1, json!({"name": "Global", "x": -3})),
        );
    });
    let tx = store.read().unwrap();
    let scopes = [acme()];
    assert_eq!(
        tx.distinct(coll, &scopes, &Filter::all(), "name").unwrap(),
        [
            "Britain",
            "France",
            "Gas hub",
            "Gas point",
            "Germany",
            "Netherlands"
        ],
        "strings only, sorted, once each"
    );
    assert_eq!(
        tx.distinct(coll, &scopes, &Filter::all(), "z.b").unwrap(),
        ["t"]
    );
    let gb = crate::query::filter::parse_param("_oid", "GB").unwrap();
    assert_eq!(
        tx.distinct(coll, &scopes, &gb, "name").unwrap(),
        ["Britain"]
    );
    assert!(tx
        .distinct(coll, &[], &Filter::all(), "name")
        .unwrap()
        .is_empty());

    // Ids first (folded id order), then names (folded name order), each document once.
    let hits = tx
        .complete(coll, &scopes, &Filter::all(), "g", None)
        .unwrap();
    assert_eq!(
        hits,
        [
            ("GAS".to_string(), Some("Gas hub".to_string())),
            ("GB".to_string(), Some("Britain".to_string())),
            ("NBP".to_string(), Some("Gas point".to_string())),
            ("DE".to_string(), Some("Germany".to_string())),
        ]
    );
    assert_eq!(
        tx.complete(coll, &scopes, &Filter::all(), "g", Some(2))
            .unwrap()
            .len(),
        2
    );
    let in_scopes = tx
        .complete(coll, &[acme(), Scope::public()], &Filter::all(), "#", None)
        .unwrap();
    assert_eq!(in_scopes, [("#G".to_string(), Some("Global".to_string()))]);
    assert_eq!(tx.complete(coll, &scopes, &gb, "g", None).unwrap().len(), 1);

    use FieldKind::*;
    assert_eq!(
        tx.field_kinds(coll, &scopes, "x").unwrap(),
        [Null, Bool, Integer, Real, Text, Array, Object]
    );
    assert_eq!(
        tx.field_kinds(coll, &scopes, "z.b").unwrap(),
        [Integer, Text]
    );
    assert_eq!(
        tx.field_kinds(coll, &[Scope::public()], "x").unwrap(),
        [Integer]
    );
    assert!(tx.field_kinds(coll, &scopes, "nowhere").unwrap().is_empty());
    for (_, body) in &docs {
        let kind = FieldKind::of(&body["x"]);
        assert!(tx.field_kinds(coll, &scopes, "x").unwrap().contains(&kind));
    }
}

/// The audit trail of deletions.
pub fn the_audit_trail_keeps_deletions_in_order(store: Arc<dyn Store>) {
    let store = &*store;
    let entry = |action: &str, versions: Vec<u32>, ms: i64| AuditEntry {
        id: "A".into(),
        action: action.into(),
        versions,
        user: "ann".into(),
        timestamp: at("2024-01-01T00:00:00Z") + TimeDelta::milliseconds(ms),
        reason: (ms > 0).then(|| "why".to_string()),
    };
    let (first, second) = (
        entry("rollback", vec![3], 0),
        entry("delete-all", vec![1, 2], 7),
    );
    write(store, |tx| {
        hold_doc(tx, Collection::Object, &acme(), &first.id);
        tx.append_audit(Collection::Object, &acme(), &first)
            .unwrap();
        hold_doc(tx, Collection::Object, &acme(), &second.id);
        tx.append_audit(Collection::Object, &acme(), &second)
            .unwrap();
        hold_doc(tx, Collection::Type, &acme(), &first.id);
        tx.append_audit(Collection::Type, &acme(), &first).unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(
        tx.audit(Collection::Object, &acme(), "A").unwrap(),
        [first.clone(), second]
    );
    assert_eq!(tx.audit(Collection::Type, &acme(), "A").unwrap(), [first]);
    assert!(tx
        .audit(Collection::Object, &acme_test(), "A")
        .unwrap()
        .is_empty());
    assert!(tx
        .audit(Collection::Object, &acme(), "B")
        .unwrap()
        .is_empty());
}
