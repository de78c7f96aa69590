//! The versioning rules, checked directly on the core over an in-memory store.

use super::*;
use crate::auth::{Principal, Role};
use crate::documents::{DeleteTarget, ListRequest};
use crate::error::ErrorCode;
use crate::ids::VersionRef;
use crate::Platform;
use serde_json::{json, Value};

struct Fixture {
    platform: Platform,
    admin: Principal,
}

fn fixture() -> Fixture {
    let platform = Platform::in_memory().unwrap();
    let admin = platform.tenancy().local_principal("acme", "alice").unwrap();
    Fixture { platform, admin }
}

impl Fixture {
    #[track_caller]
    fn save(&self, body: Value) -> Value {
        self.platform
            .objects()
            .save(
                &self.admin,
                Collection::Object,
                body,
                &SaveOptions::default(),
            )
            .unwrap()
    }

    #[track_caller]
    fn replace(&self, body: Value) -> Value {
        let opts = SaveOptions {
            replace: true,
            ..SaveOptions::default()
        };
        self.platform
            .objects()
            .save(&self.admin, Collection::Object, body, &opts)
            .unwrap()
    }

    #[track_caller]
    fn get(&self, id: &str) -> Value {
        self.platform
            .objects()
            .get(
                &self.admin,
                Collection::Object,
                Source::Private,
                id,
                None,
                None,
            )
            .unwrap()
    }

    #[track_caller]
    fn version_numbers(&self, id: &str) -> Vec<u64> {
        self.platform
            .objects()
            .versions(&self.admin, Collection::Object, Source::Private, id)
            .unwrap()
            .iter()
            .map(|v| u64::from(v.version))
            .collect()
    }

    #[track_caller]
    /// A deletion, as the wire writes its answer.
    fn delete(&self, id: &str, target: DeleteTarget) -> Value {
        let gone = self
            .platform
            .objects()
            .delete(
                &self.admin,
                Collection::Object,
                Source::Private,
                id,
                &target,
                None,
            )
            .unwrap();
        serde_json::to_value(gone).unwrap()
    }
}

/// The user fields of a document (system fields removed), for comparisons.
fn user_fields(v: &Value) -> Value {
    let mut m = v.as_object().unwrap().clone();
    for f in SYSTEM_FIELDS {
        m.shift_remove(f);
    }
    Value::Object(m)
}

#[test]
fn create_is_version_one_with_system_fields() {
    let f = fixture();
    let saved = f.save(json!({"_id": "A", "name": "first"}));
    assert_eq!(saved["_version"], 1);
    assert_eq!(saved["_oid"], "A");
    assert_eq!(saved["_user"], "alice");
    assert_eq!(saved["_tag"], json!([]));
    assert_eq!(saved["_type"], "#Object");
    assert!(saved["_timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(f.get("A"), saved);
}

#[test]
fn a_new_body_starts_with_its_id_then_its_type_in_whatever_order_they_were_sent() {
    let f = fixture();
    // Each shape a new body or a replace may take: `_id` and `_type` leading, `_type`
    // absent, `_type` later, `_id` later; the other fields keep the order they were sent in.
    let sent = [
        json!({"_id": "A", "_type": "Plant", "b": 1, "a": 2}),
        json!({"_id": "B", "b": 1, "a": 2}),
        json!({"_id": "C", "b": 1, "_type": "Plant", "a": 2}),
        json!({"b": 1, "a": 2, "_type": "Plant", "_id": "D"}),
    ];
    let expected = [
        vec!["_id", "_type", "b", "a"],
        vec!["_id", "_type", "b", "a"],
        vec!["_id", "_type", "b", "a"],
        vec!["_id", "_type", "b", "a"],
    ];
    for (body, keys) in sent.iter().zip(&expected) {
        let id = body["_id"].as_str().unwrap();
        for saved in [f.save(body.clone()), f.replace(body.clone()), f.get(id)] {
            let fields = user_fields(&saved);
            let got: Vec<&str> = fields
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(&got, keys, "{body}");
            assert_eq!(fields["_id"], id);
        }
    }
    assert_eq!(user_fields(&f.get("B"))["_type"], "#Object");
    assert_eq!(user_fields(&f.get("C"))["_type"], "Plant");
}

#[test]
fn merge_keeps_unsent_fields_and_adds_a_version() {
    let f = fixture();
    f.save(json!({"_id": "A", "_type": "#SETTING", "name": "n", "value": 1}));
    let v2 = f.save(json!({"_id": "A", "description": "d"}));
    assert_eq!(v2["_version"], 2);
    assert_eq!(
        user_fields(&v2),
        json!({"_id": "A", "_type": "#SETTING", "name": "n", "value": 1, "description": "d"})
    );
    // A null is stored as null, not removed.
    let v3 = f.save(json!({"_id": "A", "value": null}));
    assert_eq!(v3["value"], Value::Null);
    assert_eq!(v3["_version"], 3);
}

#[test]
fn merge_is_shallow() {
    let f = fixture();
    f.save(json!({"_id": "A", "nested": {"a": 1, "b": 2}}));
    let v2 = f.save(json!({"_id": "A", "nested": {"a": 5}}));
    assert_eq!(v2["nested"], json!({"a": 5}));
}

#[test]
fn replace_removes_unsent_fields() {
    let f = fixture();
    f.save(json!({"_id": "A", "_type": "#SETTING", "name": "n", "value": 1}));
    f.save(json!({"_id": "A", "description": "d"}));
    let v3 = f.replace(json!({"_id": "A", "_type": "#SETTING", "description": "d"}));
    assert_eq!(v3["_version"], 3);
    assert_eq!(
        user_fields(&v3),
        json!({"_id": "A", "_type": "#SETTING", "description": "d"})
    );
}

#[test]
fn an_identical_save_makes_no_version() {
    let f = fixture();
    let v1 = f.save(json!({"_id": "A", "name": "n", "x": [1, 2]}));
    let again = f.save(json!({"_id": "A", "x": [1, 2]}));
    assert_eq!(again, v1);
    // Same fields in another order are the same document.
    let replaced = f.replace(json!({"x": [1, 2], "name": "n", "_type": "#Object", "_id": "A"}));
    assert_eq!(replaced["_version"], 1);
    assert_eq!(f.version_numbers("A"), vec![1]);
}

#[test]
fn system_fields_sent_by_clients_are_ignored() {
    let f = fixture();
    let v1 =
        f.save(json!({"_id": "A", "_version": 99, "_user": "mallory", "_tag": ["x"], "_oid": "B"}));
    assert_eq!(v1["_version"], 1);
    assert_eq!(v1["_user"], "alice");
    assert_eq!(v1["_tag"], json!([]));
    assert_eq!(v1["_oid"], "A");
}

#[test]
fn unversioned_types_overwrite_in_place() {
    let f = fixture();
    f.platform
        .objects()
        .save(
            &f.admin,
            Collection::Type,
            json!({"_id": "Setting", "_versioned": false}),
            &SaveOptions::default(),
        )
        .unwrap();
    f.save(json!({"_id": "S", "_type": "Setting", "value": 1}));
    let v = f.save(json!({"_id": "S", "value": 2}));
    assert_eq!(v["_version"], 1);
    assert_eq!(v["value"], 2);
    assert_eq!(f.version_numbers("S"), vec![1]);
}

#[test]
fn older_versions_stay_readable_by_number_and_tag() {
    let f = fixture();
    f.save(json!({"_id": "A", "v": 1}));
    f.save(json!({"_id": "A", "v": 2}));
    let p = &f.platform;
    let v1 = p
        .objects()
        .get(
            &f.admin,
            Collection::Object,
            Source::Private,
            "A",
            Some(&VersionRef::Number(1)),
            None,
        )
        .unwrap();
    assert_eq!(v1["v"], 1);
    assert_eq!(v1["_id"], "A/1");
    assert_eq!(v1["_oid"], "A");
    p.objects()
        .tag(
            &f.admin,
            Collection::Object,
            Source::Private,
            "A",
            &VersionRef::Number(1),
            "gold",
        )
        .unwrap();
    let gold = p
        .objects()
        .get(
            &f.admin,
            Collection::Object,
            Source::Private,
            "A",
            Some(&VersionRef::Tag("gold".into())),
            None,
        )
        .unwrap();
    assert_eq!(gold["v"], 1);
    assert_eq!(gold["_tag"], json!(["gold"]));
    // The tag moves.
    let moved = p
        .objects()
        .tag(
            &f.admin,
            Collection::Object,
            Source::Private,
            "A",
            &VersionRef::Number(2),
            "gold",
        )
        .unwrap();
    assert_eq!(
        serde_json::to_string(&moved).unwrap(),
        r#"{"_id":"A","_version":2,"_tag":["gold"]}"#
    );
    let versions = p
        .objects()
        .versions(&f.admin, Collection::Object, Source::Private, "A")
        .unwrap();
    assert!(versions[0].tags.is_empty());
    assert_eq!(versions[1].tags, ["gold"]);
    assert_eq!(f.get("A")["_tag"], json!(["gold"]));
}

#[test]
fn rollback_makes_the_previous_version_current() {
    let f = fixture();
    f.save(json!({"_id": "A", "v": 1}));
    f.save(json!({"_id": "A", "v": 2}));
    let out = f.delete("A", DeleteTarget::Latest);
    assert_eq!(out, json!({"_id": "A", "deleted": [2], "current": 1}));
    assert_eq!(f.get("A")["v"], 1);
    assert_eq!(f.get("A")["_version"], 1);
    // The next save takes the next number after the current one.
    assert_eq!(f.save(json!({"_id": "A", "v": 3}))["_version"], 2);
    // Rolling back the only version removes the object.
    f.delete("A", DeleteTarget::Latest);
    let out = f.delete("A", DeleteTarget::Latest);
    assert_eq!(out["current"], Value::Null);
    let err = f
        .platform
        .objects()
        .get(
            &f.admin,
            Collection::Object,
            Source::Private,
            "A",
            None,
            None,
        )
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
}

#[test]
fn deleting_a_middle_version_keeps_the_current_one() {
    let f = fixture();
    for v in 1..=3 {
        f.save(json!({"_id": "A", "v": v}));
    }
    let out = f.delete("A", DeleteTarget::Version(VersionRef::Number(2)));
    assert_eq!(out, json!({"_id": "A", "deleted": [2], "current": 3}));
    assert_eq!(f.version_numbers("A"), vec![1, 3]);
    // Deleting the latest by number rolls back to the highest remaining.
    let out = f.delete("A", DeleteTarget::Version(VersionRef::Number(3)));
    assert_eq!(out["current"], 1);
    assert_eq!(f.get("A")["v"], 1);
}

#[test]
fn delete_all_removes_every_version_and_records_the_reason() {
    let f = fixture();
    f.save(json!({"_id": "A", "v": 1}));
    f.save(json!({"_id": "A", "v": 2}));
    let out = f
        .platform
        .objects()
        .delete(
            &f.admin,
            Collection::Object,
            Source::Private,
            "A",
            &DeleteTarget::All,
            Some("cleanup"),
        )
        .unwrap();
    assert_eq!(
        serde_json::to_string(&out).unwrap(),
        r#"{"_id":"A","deleted":[1,2],"current":null}"#
    );
    let audit = f
        .platform
        .objects()
        .audit(&f.admin, Collection::Object, Source::Private, "A")
        .unwrap();
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].action, "delete-all");
    assert_eq!(audit[0].reason.as_deref(), Some("cleanup"));
    let err = f
        .platform
        .objects()
        .versions(&f.admin, Collection::Object, Source::Private, "A")
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
}

#[test]
fn an_array_is_one_transaction() {
    let f = fixture();
    let err = f
        .platform
        .objects()
        .save(
            &f.admin,
            Collection::Object,
            json!([{"_id": "A"}, {"_id": "B"}, {"name": "no id"}]),
            &SaveOptions::default(),
        )
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidId);
    assert!(err.to_string().starts_with("item 2:"), "{err}");
    let page = f
        .platform
        .objects()
        .list(
            &f.admin,
            Collection::Object,
            Source::Private,
            &ListRequest::default(),
        )
        .unwrap();
    assert_eq!(page.total, 0);
}

#[test]
fn the_same_id_twice_in_an_array_is_applied_in_order() {
    let f = fixture();
    let out = f.save(json!([{"_id": "A", "v": 1}, {"_id": "A", "w": 2}]));
    assert_eq!(out[1]["_version"], 2);
    assert_eq!(
        user_fields(&f.get("A")),
        json!({"_id": "A", "_type": "#Object", "v": 1, "w": 2})
    );
}

#[test]
fn reasons_are_kept_with_versions() {
    let f = fixture();
    let opts = SaveOptions {
        reason: Some("initial load".into()),
        ..SaveOptions::default()
    };
    f.platform
        .objects()
        .save(&f.admin, Collection::Object, json!({"_id": "A"}), &opts)
        .unwrap();
    let versions = f
        .platform
        .objects()
        .versions(&f.admin, Collection::Object, Source::Private, "A")
        .unwrap();
    assert_eq!(versions[0].reason.as_deref(), Some("initial load"));
}

#[test]
fn public_writes_need_the_platform_role() {
    let f = fixture();
    let writer = Principal {
        role: Role::Writer,
        ..f.admin.clone()
    };
    let err = f
        .platform
        .objects()
        .save(
            &writer,
            Collection::Object,
            json!({"_id": "#PUB"}),
            &SaveOptions::default(),
        )
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAuthorized);
    let reader = Principal {
        role: Role::Reader,
        ..f.admin.clone()
    };
    let err = f
        .platform
        .objects()
        .save(
            &reader,
            Collection::Object,
            json!({"_id": "PRIV"}),
            &SaveOptions::default(),
        )
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAuthorized);
    f.save(json!({"_id": "#PUB"}));
    assert_eq!(
        f.platform
            .objects()
            .get(
                &reader,
                Collection::Object,
                Source::Public,
                "#PUB",
                None,
                None
            )
            .unwrap()["_id"],
        "#PUB"
    );
}

#[test]
fn tenants_and_environments_do_not_see_each_other() {
    let f = fixture();
    f.save(json!({"_id": "A", "who": "acme"}));
    let other = f
        .platform
        .tenancy()
        .local_principal("globex", "bob")
        .unwrap();
    let err = f
        .platform
        .objects()
        .get(&other, Collection::Object, Source::Private, "A", None, None)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    f.platform
        .tenancy()
        .create_environment("acme", "test")
        .unwrap();
    let test_env = f
        .platform
        .tenancy()
        .in_environment(&f.admin, "test")
        .unwrap();
    let err = f
        .platform
        .objects()
        .get(
            &test_env,
            Collection::Object,
            Source::Private,
            "A",
            None,
            None,
        )
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert_eq!(
        f.platform
            .tenancy()
            .in_environment(&f.admin, "nope")
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
}

#[test]
fn a_type_cannot_extend_into_a_cycle() {
    let f = fixture();
    let save_type = |body: Value| {
        f.platform
            .objects()
            .save(&f.admin, Collection::Type, body, &SaveOptions::default())
    };
    save_type(json!({"_id": "A"})).unwrap();
    save_type(json!({"_id": "B", "_extends": "A"})).unwrap();
    let err = save_type(json!({"_id": "A", "_extends": "B"})).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidBody);
    assert!(err.to_string().contains("cycle"), "{err}");
    assert_eq!(
        save_type(json!({"_id": "C", "_versioned": "no"}))
            .unwrap_err()
            .code(),
        ErrorCode::InvalidBody
    );
}
