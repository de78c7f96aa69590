//! Extension states: a private extension is published to public, a published one is installed
//! (or upgraded) privately with its script, an installed one is uninstalled with its script.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// acme's draft `acme.prices` carrying the object HUBS and three lifecycle scripts that each
/// save an object `DID_<action>`.
async fn draft(acme: &Client<'_>, name: &str) {
    for which in ["install", "upgrade", "uninstall"] {
        let r = acme
            .post("/script/v1", json!({"_id": format!("on-{which}"),
                "script": format!("save_object(#{{_id: \"DID_{which}\", version: extension.name}});")}))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    acme.save(json!({"_id": "HUBS", "hubs": ["NBP"]})).await;
    let r = acme
        .post("/extension/v1", json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": name,
            "resources": {"object": ["HUBS"], "script": {"install": "on-install", "upgrade": "on-upgrade", "uninstall": "on-uninstall"}}}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

async fn read(c: &Client<'_>, path: &str) -> Value {
    let r = c.get(path).await;
    assert_eq!(r.status, 200, "{path}: {:?}", r.body);
    r.body
}

#[actix_rt::test]
async fn a_private_extension_posted_to_public_with_publish_is_published() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    assert_eq!(acme.get("/extension/v1/public").await.total(), 0);
    let body = read(&acme, "/extension/v1/private/acme.prices").await;
    let r = acme.post("/extension/v1/public?_publish=true", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // Published in public: in every company's catalog.
    let other = s.client_of("globex", "gus", Role::Reader);
    let catalog = other.get("/extension/v1/public").await;
    assert_eq!(catalog.total(), 1);
    assert_eq!(catalog.body[0]["_id"], "acme.prices");
    assert_eq!(
        read(&other, "/extension/v1/public/acme.prices").await["name"],
        "Prices"
    );
    // Nothing was installed anywhere by publishing.
    assert_eq!(other.get("/extension/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn a_published_extension_posted_to_private_with_publish_is_installed_or_upgraded_with_its_script(
) {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices v1").await;
    acme.post(
        "/extension/v1/public?_publish=true",
        json!({"_id": "acme.prices"}),
    )
    .await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    let body = read(&globex, "/extension/v1/public/acme.prices").await;
    let r = globex
        .post("/extension/v1/private?_publish=true", body)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (r.body["action"].clone(), r.body["script"]["ok"].clone()),
        (json!("install"), json!(true))
    );
    let installed = read(&globex, "/extension/v1/private/acme.prices").await;
    assert_eq!(
        (
            installed["name"].clone(),
            installed["_installedVersion"].clone()
        ),
        (json!("Prices v1"), json!(1))
    );
    assert_eq!(
        read(&globex, "/object/v1/private/HUBS").await["hubs"],
        json!(["NBP"])
    );
    assert_eq!(
        read(&globex, "/object/v1/private/DID_install").await["version"],
        "Prices v1"
    );
    globex
        .get("/object/v1/private/DID_upgrade")
        .await
        .assert_error(404, "NOT_FOUND");
    // A newer publication installed again is an upgrade: the upgrade script runs.
    acme.post("/extension/v1", json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": "Prices v2",
        "resources": {"object": ["HUBS"], "script": {"install": "on-install", "upgrade": "on-upgrade", "uninstall": "on-uninstall"}}}))
        .await;
    acme.post(
        "/extension/v1/public?_publish=true",
        json!({"_id": "acme.prices"}),
    )
    .await;
    let body = read(&globex, "/extension/v1/public/acme.prices").await;
    let r = globex
        .post("/extension/v1/private?_publish=true", body)
        .await;
    assert_eq!(
        (r.body["action"].clone(), r.body["script"]["ok"].clone()),
        (json!("upgrade"), json!(true)),
        "{:?}",
        r.body
    );
    let upgraded = read(&globex, "/extension/v1/private/acme.prices").await;
    assert_eq!(
        (
            upgraded["name"].clone(),
            upgraded["_installedVersion"].clone()
        ),
        (json!("Prices v2"), json!(2))
    );
    assert_eq!(
        read(&globex, "/object/v1/private/DID_upgrade").await["version"],
        "Prices v2"
    );
    // Installed privately: the publisher's and other companies' private sources are untouched.
    let initech = s.client_of("initech", "ida", Role::Admin);
    assert_eq!(initech.get("/extension/v1/private").await.total(), 0);
}

#[actix_rt::test]
async fn deleting_an_installed_extension_uninstalls_it_with_its_script() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    acme.post(
        "/extension/v1/public?_publish=true",
        json!({"_id": "acme.prices"}),
    )
    .await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    globex
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "acme.prices"}),
        )
        .await;
    let r = globex.delete("/extension/v1/private/acme.prices").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["script"]["ok"], true, "{:?}", r.body);
    globex
        .get("/extension/v1/private/acme.prices")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(globex.get("/extension/v1/private").await.total(), 0);
    globex
        .get("/object/v1/private/HUBS")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(
        read(&globex, "/object/v1/private/DID_uninstall").await["version"],
        "Prices"
    );
    // Still published: it can be installed again (an install, not an upgrade).
    assert_eq!(globex.get("/extension/v1/public").await.total(), 1);
    let again = globex
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "acme.prices"}),
        )
        .await;
    assert_eq!(again.body["action"], "install", "{:?}", again.body);
}

#[actix_rt::test]
async fn an_installed_extension_posted_to_public_with_publish_is_published_again() {
    // Who may publish is not shown; decisions.md 2: the platform role may publish any
    // extension, so its installed copy of acme's extension can be published.
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    acme.post(
        "/extension/v1/public?_publish=true",
        json!({"_id": "acme.prices"}),
    )
    .await;
    let platform = s.client_of("default", "root", Role::Platform);
    let r = platform
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "acme.prices"}),
        )
        .await;
    assert_eq!(r.body["action"], "install", "{:?}", r.body);
    let body = read(&platform, "/extension/v1/private/acme.prices").await;
    let r = platform
        .post("/extension/v1/public?_publish=true", body)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let public = read(&acme, "/extension/v1/public/acme.prices").await;
    assert_eq!(
        (public["_version"].clone(), public["_user"].clone()),
        (json!(2), json!("root"))
    );
}
