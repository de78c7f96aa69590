//! The extension service's calls: drafts saved and read back, published, installed (granting
//! permissions), upgraded and uninstalled, and what each refuses, storing nothing.

use super::{Acceptance, Extension, ExtensionView, InstalledExtension, Lifecycle, Permission};
use crate::auth::{Principal, Role};
use crate::clock::FixedClock;
use crate::documents::SaveOptions;
use crate::error::{ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::query::Params;
use crate::secrets::Secret;
use crate::store::{sqlite::SqliteStore, Collection};
use crate::Platform;
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};
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
    platform.extensions().save(&ann, &draft()).unwrap();
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

/// The code and message of a refusal.
fn refused<T: std::fmt::Debug>(answer: Result<T>) -> (ErrorCode, String) {
    let e = answer.unwrap_err();
    (e.code(), e.public_message())
}

#[test]
fn a_save_stores_the_draft_with_its_view_defaults_and_reads_back() {
    let (platform, ann, _) = world();
    let extensions = platform.extensions();
    let read = extensions.extension(&ann, Source::Private, ID).unwrap();
    assert_eq!((read.version, read.user.as_str()), (1, "ann"));
    assert_eq!(read.extension.name.as_deref(), Some("Prices"));
    assert_eq!(read.extension.other["release"], "2024.1");
    // The view reads back with its defaults filled.
    let view = &read.extension.views.as_ref().unwrap()[0];
    assert_eq!(
        (view.section.as_deref(), view.tabname.as_deref()),
        (Some("Extension"), Some("Main"))
    );
    assert_eq!((view.excel, view.insights), (Some(true), Some(false)));
    let resources = read.extension.resources.as_ref().unwrap();
    assert_eq!(resources.ids("object"), ["HUBLIST"]);
    assert_eq!(
        resources.script(Lifecycle::Uninstall),
        Some("acme-uninstall")
    );
    // What was stored: the draft's fields, `_type` and the view's defaults.
    let body = stored(&platform, &ann.private_scope(), Collection::Extension, ID);
    let expected = json!({
        "_id": ID, "_type": "VarExtension", "publisher": "acme", "code": "prices",
        "name": "Prices", "description": "Hub prices",
        "views": [{"name": "main", "script": "acme-view", "section": "Extension",
                   "tabname": "Main", "excel": true, "insights": false}],
        "resources": {"object": ["HUBLIST"],
                      "script": {"install": "acme-install", "uninstall": "acme-uninstall"}},
        "permissions": ["secret:feed"], "release": "2024.1",
    });
    assert_eq!(body, Some(expected));
    // A save of what was read back changes nothing.
    let again = extensions.save(&ann, &read.extension).unwrap();
    assert_eq!(again, read);
    assert_eq!(
        serde_json::to_string(&again).unwrap(),
        serde_json::to_string(&read).unwrap()
    );
}

#[test]
fn a_save_merges_what_it_leaves_out() {
    let (platform, ann, _) = world();
    let extensions = platform.extensions();
    let renamed = Extension::new("acme", "prices").with_name("Prices v2");
    let saved = extensions.save(&ann, &renamed).unwrap();
    assert_eq!(saved.version, 2);
    assert_eq!(saved.extension.name.as_deref(), Some("Prices v2"));
    assert_eq!(
        saved.extension.permissions,
        Some(vec![Permission::secret("feed")])
    );
    assert_eq!(saved.extension.other["release"], "2024.1");
}

#[test]
fn publish_answers_the_catalogue_entry() {
    let (platform, ann, _) = world();
    let extensions = platform.extensions();
    let published = extensions.publish(&ann, ID).unwrap();
    assert_eq!(
        (
            published.id(),
            published.version,
            published.published_by.as_deref()
        ),
        (ID, 1, Some("acme"))
    );
    assert_eq!(
        published.extension.permissions,
        Some(vec![Permission::secret("feed")])
    );
    let read = extensions.extension(&ann, Source::Public, ID);
    assert_eq!(read.unwrap(), published);
    // The catalogue entry carries the snapshot of the resources, which no answer shows.
    let entry = stored(&platform, &Scope::public(), Collection::Extension, ID).unwrap();
    assert_eq!(entry["_bundle"]["object"][0]["hubs"], json!(["NBP", "TTF"]));
    assert!(!serde_json::to_string(&published)
        .unwrap()
        .contains("_bundle"));
    // Publishing again what is published changes nothing.
    let again = extensions.publish(&ann, ID).unwrap();
    assert_eq!(again, published);
}

/// Publishes `acme.prices` and installs it for gus, granting `accept`.
fn publish_and_install(
    (platform, ann, gus): &(Platform, Principal, Principal),
    accept: &[Permission],
) -> InstalledExtension {
    platform.extensions().publish(ann, ID).unwrap();
    platform
        .extensions()
        .install(gus, ID, &Acceptance::of(accept.iter().cloned()))
        .unwrap()
}

/// A private object of `p`, as the JSON read answers it.
fn object(platform: &Platform, p: &Principal, id: &str) -> Result<Value> {
    let objects = platform.objects();
    objects.get(p, Collection::Object, Source::Private, id, None, None)
}

#[test]
fn install_upgrade_and_uninstall_round_trip_with_a_granted_secret() {
    let world = world();
    let feed = Permission::secret("feed");
    let installed = publish_and_install(&world, std::slice::from_ref(&feed));
    let (platform, ann, gus) = &world;
    assert_eq!(
        (installed.id.as_str(), installed.action, installed.version),
        (ID, Lifecycle::Install, 1)
    );
    assert!(installed.installed);
    assert_eq!(installed.permissions, Some(vec![feed.clone()]));
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
    extensions.save(ann, &v2).unwrap();
    assert_eq!(extensions.publish(ann, ID).unwrap().version, 2);
    let up = extensions.install(gus, ID, &Acceptance::default()).unwrap();
    assert_eq!(
        (up.action, up.version, up.script, up.accepted),
        (Lifecycle::Upgrade, 2, None, vec![])
    );

    let gone = extensions.uninstall(gus, ID).unwrap();
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
fn an_install_without_the_secret_granted_reports_the_script_failure() {
    let world = world();
    let installed = publish_and_install(&world, &[]);
    let (platform, _, gus) = &world;
    assert_eq!(installed.accepted, []);
    assert_eq!(
        installed.permissions,
        Some(vec![Permission::secret("feed")])
    );
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
fn a_refused_draft_is_not_stored() {
    let (platform, ann, _) = world();
    let extensions = platform.extensions();
    let mut wrong_id = Extension::new("acme", "hello");
    wrong_id.id = "acme.other".into();
    let (code, message) = refused(extensions.save(&ann, &wrong_id));
    assert_eq!(code, ErrorCode::Conflict);
    assert_eq!(
        message,
        "extension _id \"acme.other\" must be <publisher>.<code>, here \"acme.hello\""
    );
    let scope = ann.private_scope();
    assert_eq!(
        stored(&platform, &scope, Collection::Extension, "acme.other"),
        None
    );

    let bad_secret = Extension::new("acme", "hello").with_permission(Permission::secret("a:b"));
    let (code, _) = refused(extensions.save(&ann, &bad_secret));
    assert_eq!(code, ErrorCode::InvalidId);
    assert_eq!(
        stored(&platform, &scope, Collection::Extension, "acme.hello"),
        None
    );
}

#[test]
fn a_permission_not_asked_for_is_refused_and_nothing_installed() {
    let (platform, ann, gus) = world();
    let extensions = platform.extensions();
    extensions.publish(&ann, ID).unwrap();
    let other = Permission::secret("other");
    let (code, message) = refused(extensions.install(&gus, ID, &Acceptance::of([other])));
    assert_eq!(code, ErrorCode::InvalidParameter);
    assert_eq!(
        message,
        "_accept: extension \"acme.prices\" does not ask for \"secret:other\"; it asks for [secret:feed]"
    );
    // What is sent is refused as sent, a permission or not.
    let sent = Params::from_slice(&[("_accept", "secret:feed,feed")]);
    let (code, message) = refused(extensions.install(&gus, ID, &Acceptance::from_params(&sent)));
    assert_eq!(code, ErrorCode::InvalidParameter);
    assert_eq!(
        message,
        "_accept: extension \"acme.prices\" does not ask for \"feed\"; it asks for [secret:feed]"
    );
    let scope = gus.private_scope();
    assert_eq!(stored(&platform, &scope, Collection::Extension, ID), None);
    assert_eq!(
        stored(&platform, &scope, Collection::Object, "HUBLIST"),
        None
    );
}

#[test]
fn another_publishers_draft_is_refused_and_not_published() {
    let (platform, _, gus) = world();
    let extensions = platform.extensions();
    let theirs = Extension::new("acme", "copy").with_name("Not mine");
    extensions.save(&gus, &theirs).unwrap();
    let (code, message) = refused(extensions.publish(&gus, "acme.copy"));
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
fn an_unknown_extension_is_refused() {
    let (platform, ann, gus) = world();
    let extensions = platform.extensions();
    let nope = "acme.nope";
    assert_eq!(
        refused(extensions.publish(&ann, nope)),
        (
            ErrorCode::NotFound,
            "extension \"acme.nope\" is not in the private source".to_string()
        )
    );
    assert_eq!(
        refused(extensions.install(&gus, nope, &Acceptance::default())),
        (
            ErrorCode::NotFound,
            "extension \"acme.nope\" has not been published".to_string()
        )
    );
    // Not published yet, so not installed either.
    assert_eq!(
        refused(extensions.uninstall(&gus, ID)),
        (
            ErrorCode::NotFound,
            "extension \"acme.prices\" is not installed".to_string()
        )
    );
    assert_eq!(
        refused(extensions.extension(&gus, Source::Private, ID)),
        (
            ErrorCode::NotFound,
            "extension \"acme.prices\" not found in the private source".to_string()
        )
    );
    assert_eq!(
        stored(&platform, &Scope::public(), Collection::Extension, ID),
        None
    );
}
