//! Tests of the typed object calls: each answer is the JSON call's, read; filters and paging
//! apply; bad calls are refused with the JSON call's codes, nothing changed.

use super::*;
use crate::documents::{DeleteTarget, Deletion, TaggedVersion};
use crate::error::ErrorCode;
use crate::ids::VersionRef;
use crate::query::Params;
use crate::Platform;
use chrono::{DateTime, Utc};
use serde_json::json;

fn setup() -> (Platform, Principal) {
    let platform = Platform::in_memory().unwrap();
    let me = platform.tenancy().local_principal("acme", "ann").unwrap();
    (platform, me)
}

fn request(pairs: &[(&str, &str)]) -> ListRequest {
    ListRequest::from_params(&Params::from_slice(pairs)).unwrap()
}

/// Hubs of several zones and capacities, one of them public, one saved twice.
fn hubs(platform: &Platform, me: &Principal) {
    let objects = platform.objects();
    for (id, zone, cap) in [
        ("NBP", "UK", 30),
        ("TTF", "NL", 50),
        ("ZTP", "BE", 10),
        ("PEG", "FR", 20),
        ("#THE", "DE", 40),
    ] {
        let hub = Object::new(id)
            .with_type("Hub")
            .with("zone", zone)
            .with("capacity", cap);
        objects.save_object(me, &hub, &Default::default()).unwrap();
    }
    let more = Object::new("NBP").with("name", "National Balancing Point");
    objects.save_object(me, &more, &Default::default()).unwrap();
    objects
        .save_object(
            me,
            &Object::new("LNG").with("zone", "UK"),
            &Default::default(),
        )
        .unwrap();
}

/// A list answers objects: its filters, sort, paging, total and cursor, from each source,
/// projections and `_searchinfo` included.
#[test]
fn lists_answer_objects_filtered_sorted_paged_and_projected() {
    let (platform, me) = setup();
    hubs(&platform, &me);
    let objects = platform.objects();
    // A projection keeps the fields it names (and the id); `_searchinfo` keeps the name.
    let zone_only = objects
        .objects(
            &me,
            Source::Private,
            &request(&[("zone", "UK"), ("_project", "zone")]),
        )
        .unwrap();
    assert!(!zone_only.items.is_empty());
    for o in &zone_only.items {
        let keys: Vec<&str> = o.properties.keys().map(String::as_str).collect();
        assert_eq!(keys, ["zone"], "{o:?}");
        assert_eq!(o.properties["zone"], "UK");
    }
    let named = objects
        .objects(&me, Source::Private, &request(&[("_searchinfo", "n")]))
        .unwrap();
    assert!(!named.items.is_empty());
    assert!(named
        .items
        .iter()
        .all(|o| o.properties.keys().all(|k| k == "name")));
    // Paging past the end leaves an empty page with the total.
    let past = objects
        .objects(
            &me,
            Source::Private,
            &request(&[("_type", "Hub"), ("_limit", "1"), ("_skip", "4")]),
        )
        .unwrap();
    assert_eq!((past.items.len(), past.total), (0, 4));
    // What the filters, sort and paging keep, by value.
    let ids =
        |page: &Page<Object>| -> Vec<String> { page.items.iter().map(|o| o.id.clone()).collect() };
    let req = request(&[("_type", "Hub"), ("_sort", "-capacity"), ("_limit", "2")]);
    let top = objects.objects(&me, Source::Private, &req).unwrap();
    assert_eq!(
        (ids(&top), top.total),
        (vec!["TTF".into(), "NBP".into()], 4)
    );
    assert_eq!(top.items[1].version, Some(2));
    assert_eq!(top.items[1].properties["name"], "National Balancing Point");
    let all = objects
        .objects(
            &me,
            Source::All,
            &request(&[("capacity", "gte(30)"), ("_sort", "capacity")]),
        )
        .unwrap();
    assert_eq!(ids(&all), ["NBP", "#THE", "TTF"]);
    let projected = objects
        .objects(
            &me,
            Source::Private,
            &request(&[("zone", "UK"), ("_project", "zone")]),
        )
        .unwrap();
    assert_eq!(ids(&projected), ["LNG", "NBP"]);
    assert!(projected
        .items
        .iter()
        .all(|o| o.properties.len() == 1 && o.type_name.is_none()));
    let hints = objects
        .objects(&me, Source::Private, &request(&[("_searchinfo", "n")]))
        .unwrap();
    assert_eq!(ids(&hints), ["NBP"]);
    assert_eq!(
        hints.items[0].properties["name"],
        "National Balancing Point"
    );
    // Paging by cursor: the pages together are the list.
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut pairs = vec![("_type", "Hub"), ("_sort", "zone"), ("_limit", "3")];
        if let Some(a) = &after {
            pairs.push(("_after", a));
        }
        let req = request(&pairs);
        let (page, next) = objects
            .objects_with_next(&me, Source::Private, &req)
            .unwrap();
        let (json, json_next) = objects
            .list_with_next(&me, Collection::Object, Source::Private, &req)
            .unwrap();
        assert_eq!(next, json_next);
        assert_eq!(page.items.len(), json.items.len());
        seen.extend(ids(&page));
        match next {
            Some(n) => after = Some(n),
            None => break,
        }
    }
    assert_eq!(seen, ["ZTP", "PEG", "TTF", "NBP"]);
}

/// A list as it was: each object's version then, its id the object's own.
#[test]
fn a_typed_list_as_of_gives_each_object_as_it_was() {
    let at = |h| {
        DateTime::parse_from_rfc3339(&format!("2024-01-01T0{h}:00:00Z"))
            .unwrap()
            .with_timezone(&Utc)
    };
    let clock = std::sync::Arc::new(crate::clock::FixedClock::new(at(0)));
    let store = crate::store::sqlite::SqliteStore::open_in_memory().unwrap();
    let platform = Platform::over(std::sync::Arc::new(store), clock.clone());
    let me = platform.tenancy().local_principal("acme", "ann").unwrap();
    let objects = platform.objects();
    objects
        .save_object(
            &me,
            &Object::new("NBP").with("lots", 1),
            &Default::default(),
        )
        .unwrap();
    clock.set(at(2));
    objects
        .save_object(
            &me,
            &Object::new("NBP").with("lots", 2),
            &Default::default(),
        )
        .unwrap();
    let req = request(&[("_asof", "2024-01-01T01:00:00Z")]);
    let then = objects.objects(&me, Source::Private, &req).unwrap();
    assert_eq!(then.items.len(), 1);
    let nbp = &then.items[0];
    assert_eq!((nbp.id.as_str(), nbp.version), ("NBP", Some(1)));
    assert_eq!(nbp.properties["lots"], 1);
    assert!(!nbp.properties.contains_key("_oid"));
}

/// Requests whose answer holds no objects, and bad requests, are refused; bad requests
/// with the JSON list's code.
#[test]
fn typed_lists_refuse_what_the_json_list_refuses_and_what_holds_no_objects() {
    let (platform, me) = setup();
    hubs(&platform, &me);
    let objects = platform.objects();
    for pairs in [
        &[("_distinct", "zone")][..],
        &[("_project", r#"{"_id": 0, "zone": 1}"#)],
    ] {
        let req = request(pairs);
        assert!(objects
            .list(&me, Collection::Object, Source::Private, &req)
            .is_ok());
        let e = objects.objects(&me, Source::Private, &req).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidParameter, "{pairs:?}");
        let e = objects
            .objects_with_next(&me, Source::Private, &req)
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidParameter, "{pairs:?}");
    }
    // A text comparison on numbers; `_id` parameters outside `all`.
    for (source, pairs) in [
        (Source::Private, &[("capacity", "gt(abc)")][..]),
        (Source::Private, &[("_id", "NBP")]),
    ] {
        let req = request(pairs);
        let json = objects
            .list(&me, Collection::Object, source, &req)
            .unwrap_err();
        let typed = objects.objects(&me, source, &req).unwrap_err();
        assert_eq!(
            (typed.code(), json.code()),
            (ErrorCode::InvalidParameter, ErrorCode::InvalidParameter)
        );
    }
    // By id from `all`: the objects named, in order.
    let req = request(&[("_id", "TTF"), ("_id", "#THE")]);
    let by_id = objects.objects(&me, Source::All, &req).unwrap();
    let ids: Vec<&str> = by_id.items.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, ["TTF", "#THE"]);
}

/// Objects by id, each from its own source, as the JSON call answers them; no id at all
/// is refused as it refuses it.
#[test]
fn objects_by_id_answer_those_found_in_the_order_asked() {
    let (platform, me) = setup();
    hubs(&platform, &me);
    let objects = platform.objects();
    let ids = ["#THE", "NOPE", "NBP", "#NOPE"];
    let typed = objects.objects_by_id(&me, &ids).unwrap();
    let got: Vec<(&str, Option<u32>)> = typed.iter().map(|o| (o.id.as_str(), o.version)).collect();
    assert_eq!(got, [("#THE", Some(1)), ("NBP", Some(2))]);
    assert_eq!(typed[0].properties["zone"], "DE");
    let e = objects.objects_by_id(&me, &[]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::MissingParameter);
    let e = objects.objects_by_id(&me, &["bad/id"]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidId);
}

/// Versions, a tag and deletions answer their types; a public id is worked on in the public
/// source.
#[test]
fn versions_tags_and_deletions_answer_their_types() {
    let (platform, me) = setup();
    let objects = platform.objects();
    for (lots, reason) in [(1, None), (2, Some("more")), (3, None)] {
        let opts = crate::documents::SaveOptions {
            reason: reason.map(str::to_string),
            ..Default::default()
        };
        let hub = Object::new("#HUB").with_type("Hub").with("lots", lots);
        objects.save_object(&me, &hub, &opts).unwrap();
    }
    let versions = objects
        .versions(&me, Collection::Object, Source::Public, "#HUB")
        .unwrap();
    // On the wire, an older version's entry is `ID/N`, the current one's the id.
    let wire = serde_json::to_value(&versions).unwrap();
    let ids: Vec<&str> = wire
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["#HUB/1", "#HUB/2", "#HUB"]);
    let summary: Vec<(u32, &str, Option<&str>, bool)> = versions
        .iter()
        .map(|v| {
            (
                v.version,
                v.type_name.as_str(),
                v.reason.as_deref(),
                v.current,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, "Hub", None, false),
            (2, "Hub", Some("more"), false),
            (3, "Hub", None, true)
        ]
    );
    assert!(versions.iter().all(|v| v.id == "#HUB" && v.user == "ann"));

    let tagged = objects
        .tag(
            &me,
            Collection::Object,
            Source::Public,
            "#HUB",
            &VersionRef::Number(2),
            "checked",
        )
        .unwrap();
    let retag = objects
        .tag(
            &me,
            Collection::Object,
            Source::Public,
            "#HUB",
            &VersionRef::Number(2),
            "month-end",
        )
        .unwrap();
    assert_eq!(
        tagged,
        TaggedVersion {
            id: "#HUB".into(),
            version: 2,
            tags: vec!["checked".into()]
        }
    );
    assert_eq!(retag.tags, ["checked", "month-end"]);
    // The tag moves.
    let moved = objects
        .tag(
            &me,
            Collection::Object,
            Source::Public,
            "#HUB",
            &VersionRef::Tag("month-end".into()),
            "checked",
        )
        .unwrap();
    assert_eq!(moved.version, 2);
    let moved = objects
        .tag(
            &me,
            Collection::Object,
            Source::Public,
            "#HUB",
            &VersionRef::Number(3),
            "checked",
        )
        .unwrap();
    assert_eq!(
        (moved.version, moved.tags),
        (3, vec!["checked".to_string()])
    );
    assert_eq!(
        objects
            .versions(&me, Collection::Object, Source::Public, "#HUB")
            .unwrap()[1]
            .tags,
        ["month-end"]
    );

    let gone = objects
        .delete(
            &me,
            Collection::Object,
            Source::Public,
            "#HUB",
            &DeleteTarget::Version(VersionRef::Tag("month-end".into())),
            Some("wrong"),
        )
        .unwrap();
    assert_eq!(
        gone,
        Deletion {
            id: "#HUB".into(),
            deleted: vec![2],
            current: Some(3)
        }
    );
    let audit = objects
        .audit(&me, Collection::Object, Source::Public, "#HUB")
        .unwrap();
    assert_eq!(
        (audit[0].versions.clone(), audit[0].reason.as_deref()),
        (vec![2], Some("wrong"))
    );
    let gone = objects
        .delete(
            &me,
            Collection::Object,
            Source::Public,
            "#HUB",
            &DeleteTarget::Latest,
            None,
        )
        .unwrap();
    assert_eq!((gone.deleted, gone.current), (vec![3], Some(1)));
    let all = objects
        .delete(
            &me,
            Collection::Object,
            Source::Public,
            "#HUB",
            &DeleteTarget::All,
            None,
        )
        .unwrap();
    assert_eq!(
        all,
        Deletion {
            id: "#HUB".into(),
            deleted: vec![1],
            current: None
        }
    );
    assert_eq!(
        objects.object(&me, "#HUB").unwrap_err().code(),
        ErrorCode::NotFound
    );
}

/// A bad tag, a missing version or object and a bad id are refused, and nothing changes.
#[test]
fn bad_tags_and_deletions_are_refused_and_change_nothing() {
    let (platform, me) = setup();
    let objects = platform.objects();
    for lots in [1, 2] {
        objects
            .save_object(
                &me,
                &Object::new("NBP").with("lots", lots),
                &Default::default(),
            )
            .unwrap();
    }
    let before = objects
        .versions(&me, Collection::Object, Source::Private, "NBP")
        .unwrap();
    for (id, which, tag, code) in [
        (
            "NBP",
            VersionRef::Number(1),
            "42",
            ErrorCode::InvalidParameter,
        ),
        (
            "NBP",
            VersionRef::Number(1),
            "",
            ErrorCode::InvalidParameter,
        ),
        ("NBP", VersionRef::Number(9), "x", ErrorCode::NotFound),
        (
            "NBP",
            VersionRef::Tag("nope".into()),
            "x",
            ErrorCode::NotFound,
        ),
        ("ZZZ", VersionRef::Number(1), "x", ErrorCode::NotFound),
        ("bad/id", VersionRef::Number(1), "x", ErrorCode::NotFound),
    ] {
        let e = objects
            .tag(&me, Collection::Object, Source::of_id(id), id, &which, tag)
            .unwrap_err();
        assert_eq!(e.code(), code, "{id} {which:?} {tag:?}");
    }
    for (id, target, code) in [
        (
            "NBP",
            DeleteTarget::Version(VersionRef::Number(7)),
            ErrorCode::NotFound,
        ),
        (
            "NBP",
            DeleteTarget::Version(VersionRef::Tag("nope".into())),
            ErrorCode::NotFound,
        ),
        ("ZZZ", DeleteTarget::All, ErrorCode::NotFound),
        ("bad/id", DeleteTarget::Latest, ErrorCode::NotFound),
    ] {
        let e = objects
            .delete(
                &me,
                Collection::Object,
                Source::of_id(id),
                id,
                &target,
                None,
            )
            .unwrap_err();
        assert_eq!(e.code(), code, "{id} {target:?}");
    }
    // A reader may not write.
    let reader = Principal {
        role: crate::auth::Role::Reader,
        ..me.clone()
    };
    let e = objects
        .tag(
            &reader,
            Collection::Object,
            Source::Private,
            "NBP",
            &VersionRef::Number(1),
            "x",
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotAuthorized);
    let e = objects
        .delete(
            &reader,
            Collection::Object,
            Source::Private,
            "NBP",
            &DeleteTarget::All,
            None,
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotAuthorized);
    assert_eq!(
        objects
            .versions(&me, Collection::Object, Source::Private, "NBP")
            .unwrap(),
        before
    );
    assert!(objects
        .audit(&me, Collection::Object, Source::Private, "NBP")
        .unwrap()
        .is_empty());
    let e = objects
        .versions(&me, Collection::Object, Source::Private, "ZZZ")
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
}

/// A document that does not read as an object is an internal error, not the caller's.
#[test]
fn a_document_that_is_no_object_is_an_internal_error() {
    let e = answered_object(json!(["not", "an", "object"])).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Internal);
}
