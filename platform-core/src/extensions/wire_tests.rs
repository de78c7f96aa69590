//! The JSON the extension service's answers write: byte for byte the answers of the calls the
//! server and the CLI made before their answers were types (field names, order, nulls and
//! numbers), for drafts with fields in any order and of any value, catalogue entries, installs,
//! upgrades and uninstalls with and without their scripts.

use super::{Acceptance, Extension, ExtensionView, Lifecycle, LifecycleRun, Permission};
use crate::auth::{Principal, Role};
use crate::clock::FixedClock;
use crate::documents::{DeleteTarget, SaveOptions};
use crate::ids::Source;
use crate::secrets::Secret;
use crate::store::{sqlite::SqliteStore, Collection};
use crate::Platform;
use chrono::{TimeZone, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use std::sync::Arc;

const ID: &str = "acme.prices";

/// Its JSON text.
fn text(answer: &impl Serialize) -> String {
    serde_json::to_string(answer).unwrap()
}

/// A platform on a clock fixed at 2024-03-01 09:00 UTC with the publisher's admin ann (tenant
/// acme: the object HUBLIST, the scripts acme-install and acme-uninstall), an installer's admin
/// gus (tenant globex, its secret `feed`) and root, of the platform role.
fn world() -> (Platform, Principal, Principal, Principal) {
    let at = Utc.with_ymd_and_hms(2024, 3, 1, 9, 0, 0).unwrap();
    let store = SqliteStore::open_in_memory().unwrap();
    let platform = Platform::over(Arc::new(store), Arc::new(FixedClock::new(at)));
    let ann = platform.tenancy().local_principal("acme", "ann").unwrap();
    let role = |tenant, user, role| Principal {
        role,
        ..platform.tenancy().local_principal(tenant, user).unwrap()
    };
    let (gus, root) = (
        role("globex", "gus", Role::Admin),
        role("default", "root", Role::Platform),
    );
    let install = "let v = secret(\"feed\"); save_object(#{_id: \"FEED_SEEN\", length: v.len()}); \
        #{read: v.len(), what: [1, 2.5, \"x\"]}";
    save(
        &platform,
        &ann,
        Collection::Object,
        json!({"_id": "HUBLIST", "hubs": ["NBP", "TTF"]}),
    );
    save(
        &platform,
        &ann,
        Collection::Script,
        json!({"_id": "acme-install", "script": install}),
    );
    let bye = json!({"_id": "acme-uninstall", "script": "\"bye\""});
    save(&platform, &ann, Collection::Script, bye);
    let feed = Secret::new("feed", "s3cret");
    platform.secrets().save(&gus, &feed).unwrap();
    (platform, ann, gus, root)
}

/// Saves a document as the server's save of a JSON body does.
fn save(platform: &Platform, p: &Principal, coll: Collection, body: Value) -> Value {
    let opts = SaveOptions::default();
    platform.objects().save(p, coll, body, &opts).unwrap()
}

const SAVED: &str = concat!(
    r##"{"_id":"acme.prices","_type":"VarExtension","name":"Prices","publisher":"acme","##,
    r##""code":"prices","views":[{"script":"acme-view","name":"main","excel":true,"##,
    r##""icon":null,"other":{"k":1},"section":"Extension","tabname":"Main","insights":false},"##,
    r##"{"name":"second","section":"Data","description":7,"tabname":"Main","excel":false,"##,
    r##""insights":false}],"release":"2024.1","resources":{"script":{"uninstall":"acme-uninstall","##,
    r##""install":"acme-install"},"object":["HUBLIST"]},"permissions":["secret:feed","##,
    r##""secret:feed"],"description":null,"_accepted":"junk","_oid":"acme.prices","##,
    r##""_timestamp":"2024-03-01T09:00:00.000Z","_user":"ann","_tag":[],"_version":1}"##,
);

const PUBLISHED: &str = concat!(
    r##"{"_id":"acme.prices","_type":"VarExtension","name":"Prices","publisher":"acme","##,
    r##""code":"prices","views":[{"script":"acme-view","name":"main","excel":true,"##,
    r##""icon":null,"other":{"k":1},"section":"Extension","tabname":"Main","insights":false},"##,
    r##"{"name":"second","section":"Data","description":7,"tabname":"Main","excel":false,"##,
    r##""insights":false}],"release":"2024.1","resources":{"script":{"uninstall":"acme-uninstall","##,
    r##""install":"acme-install"},"object":["HUBLIST"]},"permissions":["secret:feed"],"##,
    r##""description":null,"_publishedBy":"acme","_oid":"acme.prices","_timestamp":"2024-03-01T09:00:00.000Z","##,
    r##""_user":"ann","_tag":[],"_version":1}"##,
);

const INSTALLED_GRANTED: &str = concat!(
    r##"{"_id":"acme.prices","action":"install","installed":true,"version":1,"permissions":["secret:feed"],"##,
    r##""accepted":["secret:feed"],"script":{"id":"acme-install","ok":true,"result":{"read":6,"##,
    r##""what":[1,2.5,"x"]}}}"##,
);

const UNINSTALLED: &str = concat!(
    r##"{"_id":"acme.prices","action":"uninstall","installed":false,"script":{"id":"acme-uninstall","##,
    r##""ok":true,"result":"bye"}}"##,
);

const INSTALLED_REFUSED: &str = concat!(
    r##"{"_id":"acme.prices","action":"install","installed":true,"version":1,"permissions":["secret:feed"],"##,
    r##""accepted":[],"script":{"id":"acme-install","ok":false,"error":"script \"acme-install\" failed: Runtime error: extension acme.prices may not read secret \"feed\": it was not declared in its permissions and accepted when it was installed (line 1,"##,
    r##" position 9)"}}"##,
);

const SAVED_NAME_5: &str = concat!(
    r##"{"_id":"acme.prices","_type":"VarExtension","name":5,"publisher":"acme","##,
    r##""code":"prices","views":[{"script":"acme-view","name":"main","excel":true,"##,
    r##""icon":null,"other":{"k":1},"section":"Extension","tabname":"Main","insights":false},"##,
    r##"{"name":"second","section":"Data","description":7,"tabname":"Main","excel":false,"##,
    r##""insights":false}],"release":"2024.1","resources":{"object":["HUBLIST"]},"##,
    r##""permissions":["secret:feed","secret:feed"],"description":null,"_accepted":"junk","##,
    r##""_oid":"acme.prices","_timestamp":"2024-03-01T09:00:00.000Z","_user":"ann","##,
    r##""_tag":[],"_version":2}"##,
);

const PUBLISHED_NAME_5: &str = concat!(
    r##"{"_id":"acme.prices","_type":"VarExtension","name":5,"publisher":"acme","##,
    r##""code":"prices","views":[{"script":"acme-view","name":"main","excel":true,"##,
    r##""icon":null,"other":{"k":1},"section":"Extension","tabname":"Main","insights":false},"##,
    r##"{"name":"second","section":"Data","description":7,"tabname":"Main","excel":false,"##,
    r##""insights":false}],"release":"2024.1","resources":{"object":["HUBLIST"]},"##,
    r##""permissions":["secret:feed"],"description":null,"_publishedBy":"acme","##,
    r##""_oid":"acme.prices","_timestamp":"2024-03-01T09:00:00.000Z","_user":"ann","##,
    r##""_tag":[],"_version":2}"##,
);

const UPGRADED: &str = concat!(
    r##"{"_id":"acme.prices","action":"upgrade","installed":true,"version":2,"permissions":["secret:feed"],"##,
    r##""accepted":[],"script":null}"##,
);

const UNINSTALLED_NO_SCRIPT: &str =
    r##"{"_id":"acme.prices","action":"uninstall","installed":false,"script":null}"##;

const PUBLISHED_GONE: &str = concat!(
    r##"{"_id":"acme.prices","_type":"VarExtension","name":5,"publisher":"acme","##,
    r##""code":"prices","views":[{"script":"acme-view","name":"main","excel":true,"##,
    r##""icon":null,"other":{"k":1},"section":"Extension","tabname":"Main","insights":false},"##,
    r##"{"name":"second","section":"Data","description":7,"tabname":"Main","excel":false,"##,
    r##""insights":false}],"release":"2024.1","resources":{"script":{"install":"#gone"}},"##,
    r##""permissions":["secret:feed"],"description":null,"_publishedBy":"acme","##,
    r##""_oid":"acme.prices","_timestamp":"2024-03-01T09:00:00.000Z","_user":"ann","##,
    r##""_tag":[],"_version":3}"##,
);

const INSTALLED_MISSING: &str = concat!(
    r##"{"_id":"acme.prices","action":"install","installed":true,"version":3,"permissions":["secret:feed"],"##,
    r##""accepted":[],"script":{"id":"#gone","ok":false,"error":"error the install script \"#gone\" of extension acme.prices does not exist"}}"##,
);

const SAVED_MIN: &str = concat!(
    r##"{"_id":"acme.min","_type":"VarExtension","publisher":"acme","code":"min","##,
    r##""_oid":"acme.min","_timestamp":"2024-03-01T09:00:00.000Z","_user":"ann","##,
    r##""_tag":[],"_version":1}"##,
);

const PUBLISHED_MIN: &str = concat!(
    r##"{"_id":"acme.min","_type":"VarExtension","publisher":"acme","code":"min","##,
    r##""permissions":[],"_publishedBy":"acme","_oid":"acme.min","_timestamp":"2024-03-01T09:00:00.000Z","##,
    r##""_user":"ann","_tag":[],"_version":1}"##,
);

const INSTALLED_MIN: &str = concat!(
    r##"{"_id":"acme.min","action":"install","installed":true,"version":1,"permissions":[],"##,
    r##""accepted":[],"script":null}"##,
);

const UPGRADED_NULL: &str = concat!(
    r##"{"_id":"acme.min","action":"upgrade","installed":true,"version":2,"permissions":null,"##,
    r##""accepted":[],"script":null}"##,
);

#[test]
fn a_stored_extension_writes_its_fields_in_the_stored_order_with_any_value() {
    let (platform, ann, gus, _) = world();
    let (extensions, none) = (platform.extensions(), Acceptance::default());
    // Fields in any order, a null, a number for a view's description, fields of no meaning to
    // the service, resources named out of order, a permission twice.
    let draft = json!({
        "name": "Prices", "_id": ID, "publisher": "acme", "code": "prices",
        "views": [{"script": "acme-view", "name": "main", "excel": true, "icon": null, "other": {"k": 1}},
                  {"name": "second", "section": "Data", "description": 7}],
        "release": "2024.1",
        "resources": {"script": {"uninstall": "acme-uninstall", "install": "acme-install"},
                      "object": ["HUBLIST"]},
        "permissions": ["secret:feed", "secret:feed"],
        "description": null,
        "_accepted": "junk",
    });
    save(&platform, &ann, Collection::Extension, draft);
    let read = extensions.extension(&ann, Source::Private, ID).unwrap();
    assert_eq!(text(&read), SAVED);
    assert_eq!(read.extension.name.as_deref(), Some("Prices"));
    assert_eq!(read.extension.other["description"], Value::Null);
    assert_eq!(read.extension.other["_accepted"], "junk");
    assert_eq!(read.accepted, None);
    let views = read.extension.views.as_ref().unwrap();
    assert_eq!(views[1].other["description"], 7);
    // Saved again as read, it is unchanged and answers the same.
    let again = extensions.save(&ann, &read.extension).unwrap();
    assert_eq!(text(&again), SAVED);
    assert_eq!(text(&extensions.publish(&ann, ID).unwrap()), PUBLISHED);
    let feed = Acceptance::of([Permission::secret("feed")]);
    let installed = extensions.install(&gus, ID, &feed).unwrap();
    assert_eq!(text(&installed), INSTALLED_GRANTED);
    let uninstalled = extensions.uninstall(&gus, ID).unwrap();
    assert_eq!(text(&uninstalled), UNINSTALLED);
    let installed = extensions.install(&gus, ID, &none).unwrap();
    assert_eq!(text(&installed), INSTALLED_REFUSED);
}

#[test]
fn upgrades_and_uninstalls_without_scripts_and_a_script_gone_write_their_answers() {
    let (platform, ann, gus, root) = world();
    let (extensions, none) = (platform.extensions(), Acceptance::default());
    let draft = json!({
        "name": "Prices", "_id": ID, "publisher": "acme", "code": "prices",
        "views": [{"script": "acme-view", "name": "main", "excel": true, "icon": null, "other": {"k": 1}},
                  {"name": "second", "section": "Data", "description": 7}],
        "release": "2024.1",
        "resources": {"script": {"uninstall": "acme-uninstall", "install": "acme-install"},
                      "object": ["HUBLIST"]},
        "permissions": ["secret:feed", "secret:feed"],
        "description": null,
        "_accepted": "junk",
    });
    save(&platform, &ann, Collection::Extension, draft);
    extensions.publish(&ann, ID).unwrap();
    extensions.install(&gus, ID, &none).unwrap();
    // A new version without scripts, its name a number: an upgrade that runs none.
    let v2 = json!({"_id": ID, "resources": {"object": ["HUBLIST"]}, "name": 5});
    let saved = save(&platform, &ann, Collection::Extension, v2);
    assert_eq!(saved.to_string(), SAVED_NAME_5);
    let read = extensions.extension(&ann, Source::Private, ID).unwrap();
    assert_eq!(text(&read), SAVED_NAME_5);
    assert_eq!(
        text(&extensions.publish(&ann, ID).unwrap()),
        PUBLISHED_NAME_5
    );
    let upgraded = extensions.install(&gus, ID, &none).unwrap();
    assert_eq!(text(&upgraded), UPGRADED);
    let uninstalled = extensions.uninstall(&gus, ID).unwrap();
    assert_eq!(text(&uninstalled), UNINSTALLED_NO_SCRIPT);
    // A public install script, gone once published.
    let gone = json!({"_id": "#gone", "script": "1"});
    save(&platform, &root, Collection::Script, gone);
    let v3 = json!({"_id": ID, "resources": {"script": {"install": "#gone"}}});
    save(&platform, &ann, Collection::Extension, v3);
    assert_eq!(text(&extensions.publish(&ann, ID).unwrap()), PUBLISHED_GONE);
    let objects = platform.objects();
    let all = DeleteTarget::All;
    objects
        .delete(
            &root,
            Collection::Script,
            Source::Public,
            "#gone",
            &all,
            None,
        )
        .unwrap();
    let installed = extensions.install(&gus, ID, &none).unwrap();
    assert_eq!(text(&installed), INSTALLED_MISSING);
}

#[test]
fn a_bare_extension_writes_its_answers() {
    let (platform, ann, gus, _) = world();
    let (extensions, none) = (platform.extensions(), Acceptance::default());
    let saved = extensions
        .save(&ann, &Extension::new("acme", "min"))
        .unwrap();
    assert_eq!(text(&saved), SAVED_MIN);
    assert_eq!(
        text(&extensions.publish(&ann, "acme.min").unwrap()),
        PUBLISHED_MIN
    );
    let installed = extensions.install(&gus, "acme.min", &none).unwrap();
    assert_eq!(text(&installed), INSTALLED_MIN);
}

#[test]
fn a_catalogue_entry_written_by_hand_with_null_permissions_installs_saying_so() {
    let (platform, ann, gus, root) = world();
    let (extensions, none) = (platform.extensions(), Acceptance::default());
    extensions
        .save(&ann, &Extension::new("acme", "min"))
        .unwrap();
    extensions.publish(&ann, "acme.min").unwrap();
    extensions.install(&gus, "acme.min", &none).unwrap();
    let opts = SaveOptions {
        source: Some(Source::Public),
        ..SaveOptions::default()
    };
    let by_hand = json!({"_id": "acme.min", "permissions": null});
    let objects = platform.objects();
    objects
        .save(&root, Collection::Extension, by_hand, &opts)
        .unwrap();
    let upgraded = extensions.install(&gus, "acme.min", &none).unwrap();
    assert_eq!(upgraded.permissions, None);
    assert_eq!(text(&upgraded), UPGRADED_NULL);
}

#[test]
fn a_lifecycle_run_writes_its_outcome() {
    let run = |outcome| LifecycleRun {
        script: "s".into(),
        outcome,
    };
    assert_eq!(
        text(&run(Ok(Value::Null))),
        r#"{"id":"s","ok":true,"result":null}"#
    );
    assert_eq!(
        text(&run(Ok(json!({"n": 1.5})))),
        r#"{"id":"s","ok":true,"result":{"n":1.5}}"#
    );
    assert_eq!(
        text(&run(Err("boom".into()))),
        r#"{"id":"s","ok":false,"error":"boom"}"#
    );
}

#[test]
fn an_extension_a_program_makes_writes_its_fields_in_their_declared_order() {
    let mut view = ExtensionView::new("main", "acme-view");
    view.other.insert("width".into(), json!(2));
    view.insights = Some(true);
    let mut e = Extension::new("acme", "prices")
        .with_permission(Permission::secret("feed"))
        .with_script(Lifecycle::Uninstall, "bye")
        .with_resource("object", "HUBLIST")
        .with_view(view)
        .with_name("Prices");
    e.other.insert("release".into(), json!("2024.1"));
    e.icon = Some("graph".into());
    assert_eq!(
        text(&e),
        concat!(
            r#"{"_id":"acme.prices","publisher":"acme","code":"prices","name":"Prices","#,
            r#""icon":"graph","views":[{"name":"main","script":"acme-view","insights":true,"#,
            r#""width":2}],"resources":{"script":{"uninstall":"bye"},"object":["HUBLIST"]},"#,
            r#""permissions":["secret:feed"],"release":"2024.1"}"#
        )
    );
}
