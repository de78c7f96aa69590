//! Extension: its fields, the fields of an ExtensionView and their defaults, and resources.

use crate::common::{Client, TestServer};
use actix_web::test::TestRequest;
use platform_core::auth::{Grant, Role};
use serde_json::{json, Value};

async fn publish(c: &Client<'_>, id: &str) -> crate::common::Resp {
    c.post("/extension/v1/public?_publish=true", json!({ "_id": id }))
        .await
}

async fn install(c: &Client<'_>, id: &str) -> crate::common::Resp {
    c.post("/extension/v1/private?_publish=true", json!({ "_id": id }))
        .await
}

async fn script(c: &Client<'_>, body: Value) {
    let r = c.post("/script/v1", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

#[actix_rt::test]
async fn a_view_reads_back_with_the_defaults_the_interface_names() {
    let s = TestServer::new();
    let c = s.client_of("acme", "ann", Role::Admin);
    let r = c
        .post("/extension/v1", json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": "Prices",
            "views": [{"name": "main", "script": "v"},
                      {"name": "sheet", "script": "v", "section": "Data", "tabname": "Curves", "excel": true, "insights": true}]}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let saved = c.get("/extension/v1/private/acme.prices").await.body;
    let main = &saved["views"][0];
    assert_eq!(
        (
            main["section"].clone(),
            main["tabname"].clone(),
            main["excel"].clone(),
            main["insights"].clone()
        ),
        (
            json!("Extension"),
            json!("Main"),
            json!(false),
            json!(false)
        )
    );
    let sheet = &saved["views"][1];
    assert_eq!(
        (
            sheet["section"].clone(),
            sheet["tabname"].clone(),
            sheet["excel"].clone(),
            sheet["insights"].clone()
        ),
        (json!("Data"), json!("Curves"), json!(true), json!(true))
    );
    let message = c
        .post(
            "/extension/v1",
            json!({"_id": "acme.bad", "publisher": "acme", "code": "bad",
            "views": [{"name": "main", "excel": "yes"}]}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(message.contains("views[0].excel"), "{message}");
}

#[actix_rt::test]
async fn id_must_be_publisher_dot_code() {
    // The status of the refusal is not shown; decisions.md 3: 409 CONFLICT.
    let s = TestServer::new();
    let c = s.client_of("acme", "ann", Role::Admin);
    for (id, publisher, code) in [
        ("acme.other", "acme", "prices"),
        ("prices", "acme", "prices"),
        ("globex.prices", "acme", "prices"),
    ] {
        let m = c
            .post(
                "/extension/v1",
                json!({"_id": id, "publisher": publisher, "code": code}),
            )
            .await
            .assert_error(409, "CONFLICT");
        assert!(m.contains("acme.prices"), "{id}: {m}");
    }
    assert_eq!(c.get("/extension/v1/private").await.total(), 0);
    let r = c
        .post(
            "/extension/v1",
            json!({"_id": "acme.prices", "publisher": "acme", "code": "prices"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

#[actix_rt::test]
async fn type_is_always_var_extension_and_the_catalog_fields_read_back() {
    let s = TestServer::new();
    let c = s.client_of("acme", "ann", Role::Admin);
    let fields = json!({"publisher": "acme", "code": "prices", "name": "Prices",
        "description": "Hub prices, long text for the catalog", "icon": "graph-up"});
    let mut body = fields.clone();
    body["_id"] = json!("acme.prices");
    body["_type"] = json!("Other");
    let saved = c.post("/extension/v1", body).await;
    assert_eq!(saved.status, 200, "{:?}", saved.body);
    assert_eq!(saved.body["_type"], "VarExtension");
    let got = c.get("/extension/v1/private/acme.prices").await.body;
    assert_eq!(got["_type"], "VarExtension");
    for (k, v) in fields.as_object().unwrap() {
        assert_eq!(&got[k], v, "{k} in {got}");
    }
}

#[actix_rt::test]
async fn view_fields_read_back_and_the_view_runs_its_script_gated_by_its_feature() {
    let s = TestServer::new();
    let c = s.client_of("acme", "ann", Role::Admin);
    script(&c, json!({"_id": "v-main", "scriptType": "mustache", "script": "<p>{{view.name}}: {{extension.name}} for {{user.id}}</p>"})).await;
    let view = json!({"section": "Markets", "name": "main", "description": "Main view", "tabname": "Apps",
        "appname": "Price app", "excel": false, "insights": true, "icon": "table",
        "feature": "acme.prices.pro", "script": "v-main"});
    let r = c
        .post(
            "/extension/v1",
            json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": "Prices",
            "views": [view.clone(), {"name": "open", "script": "v-main"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let got = c.get("/extension/v1/private/acme.prices").await.body;
    assert_eq!(got["views"][0], view);
    let html = |name: &str| {
        TestRequest::get()
            .uri(&format!("/extension/v1/private/acme.prices/view/{name}"))
            .insert_header(("authorization", format!("Bearer {}", c.token)))
            .insert_header(("accept", "text/html"))
    };
    // The view without a feature renders its script for everyone.
    let open = s.send(html("open")).await;
    assert_eq!(open.status, 200, "{:?}", open.body);
    assert_eq!(open.body, json!("<p>open: Prices for ann</p>"));
    // The feature decides whether the user sees the view (decisions.md 2: 403 without it).
    let m = s
        .send(html("main"))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("acme.prices.pro"), "{m}");
    s.platform
        .tenancy()
        .grant("acme", "ann", &Grant::Feature("acme.prices.pro".into()))
        .unwrap();
    let main = s.send(html("main")).await;
    assert_eq!(main.body, json!("<p>main: Prices for ann</p>"));
}

#[actix_rt::test]
async fn resources_map_service_names_to_an_array_of_ids_or_named_ids() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    acme.save(json!({"_id": "HUBS", "hubs": ["NBP"]})).await;
    acme.save(json!({"_id": "SETTINGS", "days": 5})).await;
    assert_eq!(
        acme.post("/type/v1", json!({"_id": "Hub"})).await.status,
        200
    );
    script(&acme, json!({"_id": "helper", "script": "40 + 2"})).await;
    // A key that is not a service, or a value of another shape, is refused.
    for bad in [
        json!({"weather": ["HUBS"]}),
        json!({"object": "HUBS"}),
        json!({"object": [1]}),
        json!({"object": {"main": 1}}),
    ] {
        acme.post(
            "/extension/v1",
            json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "resources": bad}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    }
    let r = acme
        .post("/extension/v1", json!({"_id": "acme.prices", "publisher": "acme", "code": "prices",
            "resources": {"object": ["HUBS"], "type": {"hub": "Hub"}, "script": {"lib": "helper"}}}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.body["resources"]["type"].is_object());
    assert_eq!(publish(&acme, "acme.prices").await.status, 200);
    // Entities listed, in either form, are copied on install; SETTINGS was not listed.
    let globex = s.client_of("globex", "gus", Role::Admin);
    let r = install(&globex, "acme.prices").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        globex.get("/object/v1/private/HUBS").await.body["hubs"],
        json!(["NBP"])
    );
    assert_eq!(globex.get("/type/v1/private/Hub").await.status, 200);
    assert_eq!(
        globex.get("/script/v1/private/helper").await.body["script"],
        "40 + 2"
    );
    globex
        .get("/object/v1/private/SETTINGS")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn the_script_key_names_install_upgrade_and_uninstall_scripts_run_around_the_copies() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    acme.save(json!({"_id": "HUBS", "hubs": ["NBP"]})).await;
    // Each script records what it sees of the copied object.
    for which in ["install", "upgrade", "uninstall"] {
        script(&acme, json!({"_id": format!("on-{which}"),
            "script": format!("let o = get_object(\"HUBS\"); save_object(#{{_id: \"SEEN_{which}\", action: action, copied: type_of(o) != \"()\"}});")}))
            .await;
    }
    let ext = json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": "v1",
        "resources": {"object": ["HUBS"], "script": {"install": "on-install", "upgrade": "on-upgrade", "uninstall": "on-uninstall"}}});
    assert_eq!(acme.post("/extension/v1", ext.clone()).await.status, 200);
    assert_eq!(publish(&acme, "acme.prices").await.status, 200);
    let globex = s.client_of("globex", "gus", Role::Admin);
    let seen = |which: &'static str| {
        let g = globex.clone();
        async move {
            let r = g.get(&format!("/object/v1/private/SEEN_{which}")).await;
            (r.status, r.body["action"].clone(), r.body["copied"].clone())
        }
    };
    // install runs after an install, once the resources are copied.
    let r = install(&globex, "acme.prices").await;
    assert_eq!(
        (r.body["action"].clone(), r.body["script"]["ok"].clone()),
        (json!("install"), json!(true)),
        "{:?}",
        r.body
    );
    assert_eq!(seen("install").await, (200, json!("install"), json!(true)));
    assert_eq!(seen("upgrade").await.0, 404);
    // upgrade runs when the installed extension is upgraded.
    let mut v2 = ext.clone();
    v2["name"] = json!("v2");
    assert_eq!(acme.post("/extension/v1", v2).await.status, 200);
    assert_eq!(publish(&acme, "acme.prices").await.status, 200);
    let r = install(&globex, "acme.prices").await;
    assert_eq!(r.body["action"], "upgrade", "{:?}", r.body);
    assert_eq!(seen("upgrade").await, (200, json!("upgrade"), json!(true)));
    // uninstall runs after an uninstall, once the resources are removed.
    let r = globex.delete("/extension/v1/private/acme.prices").await;
    assert_eq!(r.body["script"]["ok"], true, "{:?}", r.body);
    assert_eq!(
        seen("uninstall").await,
        (200, json!("uninstall"), json!(false))
    );
}
