//! Extensions: drafts, publish, install, upgrade, uninstall, views and realtime messages.

use crate::common::{Client, TestServer};
use actix_web::test::TestRequest;
use platform_core::auth::{Grant, Role};
use serde_json::{json, Value};

/// The publisher `acme` writes the extension `acme.prices` and its resources.
async fn draft(acme: &Client<'_>, install_script: &str) {
    for script in [
        json!({"_id": "acme-install", "script": install_script}),
        json!({"_id": "acme-uninstall", "script": "save_object(#{_id: \"UNINSTALL_MARK\", by: action}); message(\"bye\");"}),
        json!({"_id": "acme-view", "scriptType": "mustache", "script": "<h1>{{extension.name}}</h1><p>{{view.name}} for {{user.id}} ({{params.region}})</p>"}),
    ] {
        let r = acme.post("/script/v1", script).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    acme.save(json!({"_id": "HUBLIST", "hubs": ["NBP", "TTF"]}))
        .await;
    assert_eq!(
        acme.post("/type/v1", json!({"_id": "Hub"})).await.status,
        200
    );
    let r = acme
        .post(
            "/extension/v1",
            json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": "Prices", "description": "Hub prices",
                   "views": [{"name": "main", "script": "acme-view"}, {"name": "secret", "script": "acme-view", "feature": "acme.prices.secret"}],
                   "resources": {"object": ["HUBLIST"], "type": ["Hub"], "script": {"install": "acme-install", "uninstall": "acme-uninstall", "view": "acme-view"}}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["_type"], "VarExtension");
}

const INSTALL: &str = "message(\"setting up \" + extension.code); save_object(#{_id: \"INSTALLED_BY_SCRIPT\", ext: extension._id, action: action}); \"done\"";

async fn publish(c: &Client<'_>) -> crate::common::Resp {
    c.post(
        "/extension/v1/public?_publish=true",
        json!({"_id": "acme.prices"}),
    )
    .await
}

async fn install(c: &Client<'_>) -> crate::common::Resp {
    c.post(
        "/extension/v1/private?_publish=true",
        json!({"_id": "acme.prices"}),
    )
    .await
}

#[actix_rt::test]
async fn publish_install_upgrade_uninstall() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, INSTALL).await;
    let published = publish(&acme).await;
    assert_eq!(published.status, 200, "{:?}", published.body);
    assert_eq!(published.body["_version"], 1);
    assert!(
        published.body.get("_bundle").is_none(),
        "the snapshot stays inside"
    );
    let catalogue = acme.get("/extension/v1/public").await;
    assert_eq!(catalogue.total(), 1);

    let globex = s.client_of("globex", "gus", Role::Admin);
    let r = install(&globex).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["action"], "install");
    assert_eq!(r.body["script"]["ok"], true, "{:?}", r.body);
    assert_eq!(r.body["script"]["result"], "done");
    // Resources are copied into globex's private source; the script of another publisher ran
    // as the extension's own principal in globex's private source, not as globex's admin.
    assert_eq!(
        globex.get("/object/v1/private/HUBLIST").await.body["hubs"],
        json!(["NBP", "TTF"])
    );
    assert_eq!(globex.get("/type/v1/private/Hub").await.status, 200);
    assert_eq!(globex.get("/script/v1/private/acme-view").await.status, 200);
    let mark = globex
        .get("/object/v1/private/INSTALLED_BY_SCRIPT")
        .await
        .body;
    assert_eq!(
        (
            mark["ext"].clone(),
            mark["action"].clone(),
            mark["_user"].clone()
        ),
        (
            json!("acme.prices"),
            json!("install"),
            json!("extension:acme.prices")
        )
    );
    let mine = globex.get("/extension/v1/private/acme.prices").await.body;
    assert_eq!(mine["_installedVersion"], 1);

    // A new version is published; installing again upgrades (no upgrade script: nothing runs).
    acme.post(
        "/extension/v1",
        json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": "Prices v2"}),
    )
    .await;
    assert_eq!(publish(&acme).await.body["_version"], 2);
    let versions = acme.get("/extension/v1/public/acme.prices/*").await;
    assert_eq!(versions.total(), 2);
    assert_eq!(
        acme.put("/extension/v1/public/acme.prices/1/first")
            .await
            .status,
        403,
        "tags on public need the platform role"
    );
    let up = install(&globex).await;
    assert_eq!(
        (up.body["action"].clone(), up.body["script"].clone()),
        (json!("upgrade"), Value::Null),
        "{:?}",
        up.body
    );
    assert_eq!(
        globex.get("/extension/v1/private/acme.prices").await.body["name"],
        "Prices v2"
    );

    // Uninstall removes the copies, then runs the uninstall script.
    let un = globex.delete("/extension/v1/private/acme.prices").await;
    assert_eq!(un.status, 200, "{:?}", un.body);
    assert_eq!(un.body["script"]["ok"], true, "{:?}", un.body);
    globex
        .get("/object/v1/private/HUBLIST")
        .await
        .assert_error(404, "NOT_FOUND");
    globex
        .get("/type/v1/private/Hub")
        .await
        .assert_error(404, "NOT_FOUND");
    globex
        .get("/extension/v1/private/acme.prices")
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(
        globex.get("/object/v1/private/UNINSTALL_MARK").await.body["by"],
        "uninstall"
    );
    // What the install script made is the tenant's own data and stays.
    assert_eq!(
        globex
            .get("/object/v1/private/INSTALLED_BY_SCRIPT")
            .await
            .status,
        200
    );
    let m = globex
        .delete("/extension/v1/private/acme.prices")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("not installed"), "{m}");
}

#[actix_rt::test]
async fn messages_reach_subscribers_over_server_sent_events() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, INSTALL).await;
    publish(&acme).await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    // Subscribe before the extension is installed; read four messages then the stream ends.
    let stream = s
        .start(
            TestRequest::get()
                .uri("/extension/v1/private/acme.prices/messages?_limit=4")
                .insert_header(("authorization", format!("Bearer {}", globex.token))),
        )
        .await;
    assert_eq!(stream.status(), 200);
    assert_eq!(
        stream.headers().get("content-type").unwrap(),
        "text/event-stream"
    );
    // Another tenant's install does not reach this stream.
    let other = s.client_of("initech", "ida", Role::Admin);
    install(&other).await;
    install(&globex).await;
    globex.delete("/extension/v1/private/acme.prices").await;
    let body = actix_web::test::read_body(stream).await;
    let text = String::from_utf8(body.to_vec()).unwrap();
    let messages: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| {
            serde_json::from_str::<Value>(d).unwrap()["message"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(messages.len(), 4, "{text}");
    assert!(
        messages[0].contains("Installed extension acme.prices"),
        "{messages:?}"
    );
    assert!(messages[1].contains("setting up prices"), "{messages:?}");
    assert!(
        messages[2].contains("install script acme-install finished"),
        "{messages:?}"
    );
    assert!(
        messages[3].contains("Uninstalled extension acme.prices"),
        "{messages:?}"
    );
    // Each message starts with its timestamp.
    assert!(
        chrono::DateTime::parse_from_rfc3339(messages[0].split(' ').next().unwrap()).is_ok(),
        "{}",
        messages[0]
    );
}

#[actix_rt::test]
async fn views_render_with_feature_checks() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, INSTALL).await;
    publish(&acme).await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    install(&globex).await;
    let html = |path: &str| {
        TestRequest::get()
            .uri(path)
            .insert_header(("authorization", format!("Bearer {}", globex.token)))
            .insert_header(("accept", "text/html"))
    };
    let r = s
        .send(html(
            "/extension/v1/private/acme.prices/view/main?region=EU",
        ))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.body.as_str().unwrap(),
        "<h1>Prices</h1><p>main for gus (EU)</p>"
    );
    let m = s
        .send(html("/extension/v1/private/acme.prices/view/secret"))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("acme.prices.secret"), "{m}");
    s.platform
        .tenancy()
        .grant(
            "globex",
            "gus",
            &Grant::Feature("acme.prices.secret".into()),
        )
        .unwrap();
    assert_eq!(
        s.send(html("/extension/v1/private/acme.prices/view/secret"))
            .await
            .status,
        200
    );
    s.send(html("/extension/v1/private/acme.prices/view/nope"))
        .await
        .assert_error(404, "NOT_FOUND");
    s.send(html("/extension/v1/private/nope.nope/view/main"))
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn bad_extensions_and_calls_change_nothing() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    let m = acme
        .post(
            "/extension/v1",
            json!({"_id": "acme.x", "publisher": "acme", "code": "y"}),
        )
        .await
        .assert_error(409, "CONFLICT");
    assert!(m.contains("acme.y"), "{m}");
    acme.post(
        "/extension/v1",
        json!({"_id": "acme.x", "publisher": "acme", "code": "x", "resources": {"bogus": ["a"]}}),
    )
    .await
    .assert_error(400, "INVALID_BODY");
    acme.post(
        "/extension/v1",
        json!({"_id": "acme.x", "publisher": "acme", "code": "x", "resources": {"object": [1]}}),
    )
    .await
    .assert_error(400, "INVALID_BODY");
    assert_eq!(acme.get("/extension/v1/private").await.total(), 0);
    // A resource that does not exist fails the publish.
    acme.post("/extension/v1", json!({"_id": "acme.x", "publisher": "acme", "code": "x", "resources": {"object": ["MISSING"]}})).await;
    let m = acme
        .post(
            "/extension/v1/public?_publish=true",
            json!({"_id": "acme.x"}),
        )
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("MISSING"), "{m}");
    assert_eq!(acme.get("/extension/v1/public").await.total(), 0);
    // Publishing another publisher's extension.
    let globex = s.client_of("globex", "gus", Role::Admin);
    globex
        .post(
            "/extension/v1",
            json!({"_id": "acme.fake", "publisher": "acme", "code": "fake"}),
        )
        .await;
    globex
        .post(
            "/extension/v1/public?_publish=true",
            json!({"_id": "acme.fake"}),
        )
        .await
        .assert_error(409, "CONFLICT");
    // Installing something never published, uninstalling something not installed.
    globex
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "acme.none"}),
        )
        .await
        .assert_error(404, "NOT_FOUND");
    globex
        .delete("/extension/v1/private/acme.fake")
        .await
        .assert_error(409, "CONFLICT");
    // Writers cannot write extensions.
    s.client_of("acme", "wes", Role::Writer)
        .post(
            "/extension/v1",
            json!({"_id": "acme.w", "publisher": "acme", "code": "w"}),
        )
        .await
        .assert_error(403, "NOT_AUTHORIZED");
}

#[actix_rt::test]
async fn a_failing_install_script_is_reported_and_the_copy_stays() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "message(\"about to fail\"); throw \"no licence\";").await;
    publish(&acme).await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    let r = install(&globex).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["script"]["ok"], false);
    assert!(
        r.body["script"]["error"]
            .as_str()
            .unwrap()
            .contains("no licence"),
        "{:?}",
        r.body
    );
    assert_eq!(globex.get("/object/v1/private/HUBLIST").await.status, 200);
    // A script that runs away stops at the limits; the server keeps serving.
    acme.post(
        "/script/v1",
        json!({"_id": "acme-install", "script": "let x = 0; loop { x += 1; }"}),
    )
    .await;
    publish(&acme).await;
    // (An upgrade would run the upgrade script: uninstall first so install runs again.)
    globex.delete("/extension/v1/private/acme.prices").await;
    let r = install(&globex).await;
    assert_eq!(r.body["action"], "install");
    assert_eq!(r.body["script"]["ok"], false, "{:?}", r.body);
    assert!(
        r.body["script"]["error"]
            .as_str()
            .unwrap()
            .contains("operations"),
        "{:?}",
        r.body
    );
    assert_eq!(globex.get("/object/v1/private/HUBLIST").await.status, 200);
}
