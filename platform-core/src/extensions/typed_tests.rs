//! The typed extension calls against the JSON ones: each typed answer is the JSON answer read
//! (twin platforms, one called typed and one called with JSON, end in the same state), a typed
//! save stores what the JSON body stores, and what the JSON call refuses the typed one refuses
//! alike, storing nothing.

use super::typed::from_json;
use super::{
    Extension, ExtensionView, InstalledExtension, Lifecycle, LifecycleRun, Permission,
    StoredExtension, UninstalledExtension,
};
use crate::auth::{Principal, Role};
use crate::clock::FixedClock;
use crate::documents::SaveOptions;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::secrets::Secret;
use crate::store::{sqlite::SqliteStore, Collection};
use crate::Platform;
use chrono::{TimeZone, Utc};
use serde_json::{json, Map, Value};
use std::sync::Arc;

const ID: &str = "acme.prices";

/// The install script: reads the secret `feed` (granted or not) and leaves a mark.
const INSTALL: &str = "let v = secret(\"feed\"); \
    save_object(#{_id: \"FEED_SEEN\", length: v.len(), action: action}); \"read \" + v.len()";

/// A platform on a clock fixed at 2024-03-01 09:00 UTC, the publisher's admin ann (tenant
/// acme, the draft `acme.prices` and its resources saved) and an installer's admin gus (tenant
/// globex, its secret `feed` saved).
fn world() -> (Platform, Principal, Principal) {
    let at = Utc.with_ymd_and_hms(2024, 3, 1, 9, 0, 0).unwrap();
    let store = SqliteStore::open_in_memory().unwrap();
    let platform = Platform::over(Arc::new(store), Arc::new(FixedClock::new(at)));
    let ann = platform.tenancy().local_principal("acme", "ann").unwrap();
    let gus = admin(&platform, "globex", "gus");
    let objects = platform.objects();
    let save = |coll, body| objects.save(&ann, coll, body, &SaveOptions::default());
    save(
        Collection::Object,
        json!({"_id": "HUBLIST", "hubs": ["NBP", "TTF"]}),
    )
    .unwrap();
    save(
        Collection::Script,
        json!({"_id": "acme-install", "script": INSTALL}),
    )
    .unwrap();
    let bye = "save_object(#{_id: \"UNINSTALL_MARK\", by: action}); \"bye\"";
    save(
        Collection::Script,
        json!({"_id": "acme-uninstall", "script": bye}),
    )
    .unwrap();
    let feed = Secret::new("feed", "s3cret");
    platform.secrets().save(&gus, &feed).unwrap();
    platform
        .extensions()
        .save_extension(&ann, &draft())
        .unwrap();
    (platform, ann, gus)
}

/// The admin (not the platform role) `user` of `tenant`.
fn admin(platform: &Platform, tenant: &str, user: &str) -> Principal {
    Principal {
        role: Role::Admin,
        ..platform.tenancy().local_principal(tenant, user).unwrap()
    }
}

/// The draft `acme.prices`: an object, install and uninstall scripts, a view, the secret
/// `feed` asked for.
fn draft() -> Extension {
    let mut view = ExtensionView::new("main", "acme-view");
    view.excel = Some(true);
    let mut e = Extension::new("acme", "prices")
        .with_name("Prices")
        .with_view(view)
        .with_resource("object", "HUBLIST")
        .with_script(Lifecycle::Install, "acme-install")
        .with_script(Lifecycle::Uninstall, "acme-uninstall")
        .with_permission(Permission::secret("feed"));
    e.description = Some("Hub prices".into());
    e.other.insert("release".into(), json!("2024.1"));
    e
}

/// A stored document's body, or `None`.
fn stored(platform: &Platform, scope: &Scope, coll: Collection, id: &str) -> Option<Value> {
    let tx = platform.read().unwrap();
    tx.current(coll, scope, id)
        .unwrap()
        .map(|d| Value::Object(d.body))
}

/// A JSON answer without what the typed answer leaves out (`_type`, `_oid`).
fn without_type(mut answer: Value) -> Value {
    let fields = answer.as_object_mut().unwrap();
    fields.shift_remove("_type");
    fields.shift_remove("_oid");
    answer
}

/// The typed call and the JSON call refused alike: the same code and message.
fn refused_alike<T: std::fmt::Debug>(typed: Result<T>, json: Result<Value>) -> (ErrorCode, String) {
    let (typed, json) = (typed.unwrap_err(), json.unwrap_err());
    let seen = (typed.code(), typed.public_message());
    assert_eq!(seen, (json.code(), json.public_message()));
    seen
}

#[test]
fn a_typed_save_stores_what_the_json_body_stores() {
    let (platform, ann, _) = world();
    let extensions = platform.extensions();
    let typed = extensions.extension(&ann, Source::Private, ID).unwrap();
    assert_eq!((typed.version, typed.user.as_str()), (1, "ann"));
    assert_eq!(typed.extension.name.as_deref(), Some("Prices"));
    assert_eq!(typed.extension.other["release"], "2024.1");
    // The view reads back with its defaults filled.
    let view = &typed.extension.views.as_ref().unwrap()[0];
    assert_eq!(
        (view.section.as_deref(), view.tabname.as_deref()),
        (Some("Extension"), Some("Main"))
    );
    assert_eq!((view.excel, view.insights), (Some(true), Some(false)));
    let resources = typed.extension.resources.as_ref().unwrap();
    assert_eq!(resources.ids("object"), ["HUBLIST"]);
    assert_eq!(
        resources.script(Lifecycle::Uninstall),
        Some("acme-uninstall")
    );
    // The same body sent as JSON changes nothing: the typed save stored exactly it.
    let body = json!({
        "_id": ID, "publisher": "acme", "code": "prices", "name": "Prices",
        "description": "Hub prices", "release": "2024.1", "permissions": ["secret:feed"],
        "views": [{"name": "main", "script": "acme-view", "excel": true}],
        "resources": {"object": ["HUBLIST"],
                      "script": {"install": "acme-install", "uninstall": "acme-uninstall"}},
    });
    let before = stored(&platform, &ann.private_scope(), Collection::Extension, ID);
    let json = extensions.save(&ann, body).unwrap();
    assert_eq!(json["_version"], 1, "{json}");
    let after = stored(&platform, &ann.private_scope(), Collection::Extension, ID);
    assert_eq!(before, after);
    assert_eq!(StoredExtension::from_json(json.clone()).unwrap(), typed);
    assert_eq!(serde_json::to_value(&typed).unwrap(), without_type(json));
    // A typed save of what was read back changes nothing either.
    let again = extensions.save_extension(&ann, &typed.extension).unwrap();
    assert_eq!(again, typed);
}

#[test]
fn a_typed_save_merges_what_it_leaves_out() {
    let (platform, ann, _) = world();
    let extensions = platform.extensions();
    let renamed = Extension::new("acme", "prices").with_name("Prices v2");
    let saved = extensions.save_extension(&ann, &renamed).unwrap();
    assert_eq!(saved.version, 2);
    assert_eq!(saved.extension.name.as_deref(), Some("Prices v2"));
    assert_eq!(
        saved.extension.permissions,
        Some(vec![Permission::secret("feed")])
    );
    assert_eq!(saved.extension.other["release"], "2024.1");
}

#[test]
fn publish_answers_the_json_publish_read() {
    let ((typed_world, ann, _), (json_world, ann2, _)) = (world(), world());
    let typed = typed_world
        .extensions()
        .publish_extension(&ann, ID)
        .unwrap();
    let json = json_world.extensions().publish(&ann2, ID).unwrap();
    assert_eq!(StoredExtension::from_json(json.clone()).unwrap(), typed);
    assert_eq!(serde_json::to_value(&typed).unwrap(), without_type(json));
    assert_eq!(
        (typed.id(), typed.version, typed.published_by.as_deref()),
        (ID, 1, Some("acme"))
    );
    assert_eq!(
        typed.extension.permissions,
        Some(vec![Permission::secret("feed")])
    );
    let read = typed_world.extensions().extension(&ann, Source::Public, ID);
    assert_eq!(read.unwrap(), typed);
    // Publishing again what is published changes nothing.
    let again = typed_world.extensions().publish(&ann, ID).unwrap();
    assert_eq!(StoredExtension::from_json(again).unwrap(), typed);
}

/// Publishes `acme.prices` in both worlds and installs it typed in one and with JSON in the
/// other, with `accept`; answers the typed answer, checked against the JSON one.
fn install_twins(
    typed_world: &(Platform, Principal, Principal),
    json_world: &(Platform, Principal, Principal),
    accept: &[Permission],
) -> InstalledExtension {
    let (platform, ann, gus) = typed_world;
    platform.extensions().publish_extension(ann, ID).unwrap();
    let typed = platform
        .extensions()
        .install_extension(gus, ID, accept)
        .unwrap();
    let (platform, ann, gus) = json_world;
    platform.extensions().publish(ann, ID).unwrap();
    let strings: Vec<String> = accept.iter().map(ToString::to_string).collect();
    let json = platform.extensions().install(gus, ID, &strings).unwrap();
    let read: InstalledExtension = from_json("install", json.clone()).unwrap();
    assert_eq!(read, typed);
    assert_eq!(serde_json::to_value(&typed).unwrap(), json);
    typed
}

/// A private object of `p`, as the JSON read answers it.
fn object(platform: &Platform, p: &Principal, id: &str) -> Result<Value> {
    let objects = platform.objects();
    objects.get(p, Collection::Object, Source::Private, id, None, None)
}

#[test]
fn install_upgrade_and_uninstall_round_trip_with_a_granted_secret() {
    let (a, b) = (world(), world());
    let feed = Permission::secret("feed");
    let installed = install_twins(&a, &b, std::slice::from_ref(&feed));
    let (platform, ann, gus) = &a;
    assert_eq!(
        (installed.id.as_str(), installed.action, installed.version),
        (ID, Lifecycle::Install, 1)
    );
    assert!(installed.installed);
    assert_eq!(installed.permissions, vec![feed.clone()]);
    assert_eq!(installed.accepted, vec![feed.clone()]);
    let run = installed.script.unwrap();
    assert_eq!(run.script, "acme-install");
    assert_eq!(run.outcome, Ok(json!("read 6")));
    // The object was copied; the script ran confined, as the extension, with the secret.
    assert_eq!(
        object(platform, gus, "HUBLIST").unwrap()["hubs"],
        json!(["NBP", "TTF"])
    );
    let mark = object(platform, gus, "FEED_SEEN").unwrap();
    assert_eq!(
        (&mark["length"], &mark["_user"]),
        (&json!(6), &json!("extension:acme.prices"))
    );
    let extensions = platform.extensions();
    let copy = extensions.extension(gus, Source::Private, ID).unwrap();
    assert_eq!(copy.installed_version, Some(1));
    assert_eq!(copy.accepted, Some(vec![feed.clone()]));
    assert_eq!(copy.published_by.as_deref(), Some("acme"));

    // A new version installed over the old one is an upgrade (no upgrade script: none runs).
    let v2 = Extension::new("acme", "prices").with_name("Prices v2");
    extensions.save_extension(ann, &v2).unwrap();
    assert_eq!(extensions.publish_extension(ann, ID).unwrap().version, 2);
    let up = extensions.install_extension(gus, ID, &[]).unwrap();
    assert_eq!(
        (up.action, up.version, up.script, up.accepted),
        (Lifecycle::Upgrade, 2, None, vec![])
    );

    let gone = extensions.uninstall_extension(gus, ID).unwrap();
    assert_eq!((gone.action, gone.installed), (Lifecycle::Uninstall, false));
    let run = gone.script.as_ref().unwrap();
    assert_eq!(
        (run.script.as_str(), &run.outcome),
        ("acme-uninstall", &Ok(json!("bye")))
    );
    assert_eq!(
        object(platform, gus, "HUBLIST").unwrap_err().code(),
        ErrorCode::NotFound
    );
    assert_eq!(
        object(platform, gus, "UNINSTALL_MARK").unwrap()["by"],
        "uninstall"
    );
    let copy = extensions.extension(gus, Source::Private, ID);
    assert_eq!(copy.unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn uninstall_answers_the_json_uninstall_read() {
    let (a, b) = (world(), world());
    install_twins(&a, &b, &[]);
    let typed = a.0.extensions().uninstall_extension(&a.2, ID).unwrap();
    let json = b.0.extensions().uninstall(&b.2, ID).unwrap();
    let read: UninstalledExtension = from_json("uninstall", json.clone()).unwrap();
    assert_eq!(read, typed);
    assert_eq!(serde_json::to_value(&typed).unwrap(), json);
    assert_eq!(typed.script.map(|r| r.ok()), Some(true));
}

#[test]
fn an_install_without_the_secret_granted_reports_the_script_failure() {
    let (a, b) = (world(), world());
    let installed = install_twins(&a, &b, &[]);
    let (platform, _, gus) = &a;
    assert_eq!(installed.accepted, []);
    assert_eq!(installed.permissions, [Permission::secret("feed")]);
    let run = installed.script.unwrap();
    assert!(!run.ok());
    let error = run.outcome.unwrap_err();
    assert!(error.contains("may not read secret \"feed\""), "{error}");
    // The copy stays; what the failed script wrote does not.
    assert_eq!(object(platform, gus, "HUBLIST").unwrap()["_version"], 1);
    let mark = object(platform, gus, "FEED_SEEN").unwrap_err();
    assert_eq!(mark.code(), ErrorCode::NotFound);
}

#[test]
fn a_draft_the_json_save_refuses_is_refused_alike_and_not_stored() {
    let (platform, ann, _) = world();
    let extensions = platform.extensions();
    let mut wrong_id = Extension::new("acme", "hello");
    wrong_id.id = "acme.other".into();
    let body = json!({"_id": "acme.other", "publisher": "acme", "code": "hello"});
    let (code, message) = refused_alike(
        extensions.save_extension(&ann, &wrong_id),
        extensions.save(&ann, body),
    );
    assert_eq!(code, ErrorCode::Conflict);
    assert!(message.contains("must be <publisher>.<code>"), "{message}");
    let scope = ann.private_scope();
    assert_eq!(
        stored(&platform, &scope, Collection::Extension, "acme.other"),
        None
    );

    let bad_secret = Extension::new("acme", "hello").with_permission(Permission::secret("a:b"));
    let body = json!({"_id": "acme.hello", "publisher": "acme", "code": "hello",
                      "permissions": ["secret:a:b"]});
    let (code, _) = refused_alike(
        extensions.save_extension(&ann, &bad_secret),
        extensions.save(&ann, body),
    );
    assert_eq!(code, ErrorCode::InvalidId);
    assert_eq!(
        stored(&platform, &scope, Collection::Extension, "acme.hello"),
        None
    );
}

#[test]
fn a_permission_not_asked_for_is_refused_alike_and_nothing_installed() {
    let (platform, ann, gus) = world();
    let extensions = platform.extensions();
    extensions.publish_extension(&ann, ID).unwrap();
    let other = Permission::secret("other");
    let (code, message) = refused_alike(
        extensions.install_extension(&gus, ID, &[other]),
        extensions.install(&gus, ID, &["secret:other".to_string()]),
    );
    assert_eq!(code, ErrorCode::InvalidParameter);
    assert!(
        message.contains("does not ask for \"secret:other\""),
        "{message}"
    );
    let scope = gus.private_scope();
    assert_eq!(stored(&platform, &scope, Collection::Extension, ID), None);
    assert_eq!(
        stored(&platform, &scope, Collection::Object, "HUBLIST"),
        None
    );
}

#[test]
fn another_publishers_draft_is_refused_alike_and_not_published() {
    let (platform, _, gus) = world();
    let extensions = platform.extensions();
    let theirs = Extension::new("acme", "copy").with_name("Not mine");
    extensions.save_extension(&gus, &theirs).unwrap();
    let (code, message) = refused_alike(
        extensions.publish_extension(&gus, "acme.copy"),
        extensions.publish(&gus, "acme.copy"),
    );
    assert_eq!(code, ErrorCode::Conflict);
    assert_eq!(
        message,
        "tenant \"globex\" cannot publish extensions of publisher \"acme\""
    );
    let public = Scope::public();
    assert_eq!(
        stored(&platform, &public, Collection::Extension, "acme.copy"),
        None
    );
}

#[test]
fn an_unknown_extension_is_refused_alike() {
    let (platform, ann, gus) = world();
    let extensions = platform.extensions();
    let nope = "acme.nope";
    let published = refused_alike(
        extensions.publish_extension(&ann, nope),
        extensions.publish(&ann, nope),
    );
    assert_eq!(published.0, ErrorCode::NotFound);
    let installed = refused_alike(
        extensions.install_extension(&gus, nope, &[]),
        extensions.install(&gus, nope, &[]),
    );
    assert_eq!(
        installed,
        (
            ErrorCode::NotFound,
            "extension \"acme.nope\" has not been published".to_string()
        )
    );
    // Not published yet, so not installed either.
    let uninstalled = refused_alike(
        extensions.uninstall_extension(&gus, ID),
        extensions.uninstall(&gus, ID),
    );
    assert_eq!(uninstalled.0, ErrorCode::NotFound);
    assert_eq!(
        stored(&platform, &Scope::public(), Collection::Extension, ID),
        None
    );
}

#[test]
fn an_answer_that_does_not_read_is_an_internal_error() {
    let answer = json!({"_id": ID, "action": "install", "installed": true, "version": 1,
                        "permissions": ["feed"], "accepted": [], "script": null});
    let read = from_json::<InstalledExtension>("install", answer);
    assert!(matches!(read, Err(Error::Internal(m)) if m.contains("not a permission")));
    let read = StoredExtension::from_json(json!([ID]));
    assert!(matches!(read, Err(Error::Internal(_))));
    let failed_silently = json!({"_id": ID, "action": "uninstall", "installed": false,
                                 "script": {"id": "s", "ok": false}});
    let read = from_json::<UninstalledExtension>("uninstall", failed_silently);
    assert!(matches!(read, Err(Error::Internal(m)) if m.contains("failed without error")));
}

#[test]
fn a_lifecycle_run_reads_and_writes_its_json_form() {
    for run in [
        json!({"id": "s", "ok": true, "result": null}),
        json!({"id": "s", "ok": true, "result": {"n": 1}}),
        json!({"id": "s", "ok": false, "error": "boom"}),
    ] {
        let read: LifecycleRun = serde_json::from_value(run.clone()).unwrap();
        assert_eq!(read.ok(), run["ok"] == true);
        assert_eq!(serde_json::to_value(&read).unwrap(), run);
    }
    let mut fields = Map::new();
    fields.insert("id".into(), json!("s"));
    fields.insert("ok".into(), json!(true));
    let read: LifecycleRun = serde_json::from_value(Value::Object(fields)).unwrap();
    assert_eq!(read.outcome, Ok(Value::Null));
}
