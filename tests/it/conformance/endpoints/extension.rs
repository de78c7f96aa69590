//! Extension service: `{base_url}/extension`: the public catalogue and the company's private
//! extensions, one extension, its versions and their list, tags, saving a draft, publishing,
//! installing or upgrading, uninstalling, and running a view.

use crate::common::{Client, Resp, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

fn ids(body: &Value) -> Vec<String> {
    body.as_array()
        .expect("a list")
        .iter()
        .map(|i| i["_id"].as_str().unwrap().to_string())
        .collect()
}

/// The publisher `acme` saves the draft `acme.prices` with a view and an object resource.
async fn draft(acme: &Client<'_>, name: &str) -> Resp {
    acme.post(
        "/script/v1",
        json!({"_id": "prices-view", "scriptType": "mustache", "script": "<h1>{{extension.name}}</h1><p>{{view.name}} for {{user.id}}</p>"}),
    )
    .await;
    acme.save(json!({"_id": "HUBS", "list": ["NBP", "TTF"]}))
        .await;
    acme.post(
        "/extension/v1",
        json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": name,
            "views": [{"name": "main", "script": "prices-view"}],
            "resources": {"object": ["HUBS"], "script": ["prices-view"]}}),
    )
    .await
}

async fn publish(acme: &Client<'_>) -> Resp {
    acme.post(
        "/extension/v1/public?_publish=true",
        json!({"_id": "acme.prices"}),
    )
    .await
}

async fn install(c: &Client<'_>) -> Resp {
    c.post(
        "/extension/v1/private?_publish=true",
        json!({"_id": "acme.prices"}),
    )
    .await
}

#[actix_rt::test]
async fn get_public_lists_the_extensions_that_can_be_installed() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    let other = s.client_of("globex", "gus", Role::Reader);
    assert_eq!(
        other.get("/extension/v1/public").await.total(),
        0,
        "a draft is not listed"
    );
    assert_eq!(publish(&acme).await.status, 200);
    let r = other.get("/extension/v1/public").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!((ids(&r.body), r.total()), (vec!["acme.prices".into()], 1));
    assert_eq!(r.body[0]["name"], "Prices");
}

#[actix_rt::test]
async fn get_private_lists_the_extensions_the_company_created_or_installed() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    publish(&acme).await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    globex
        .post(
            "/extension/v1",
            json!({"_id": "globex.tools", "publisher": "globex", "code": "tools", "name": "Tools"}),
        )
        .await;
    assert_eq!(
        ids(&globex.get("/extension/v1/private").await.body),
        ["globex.tools"]
    );
    assert_eq!(install(&globex).await.status, 200);
    let r = globex.get("/extension/v1/private").await;
    assert_eq!(
        (ids(&r.body), r.total()),
        (vec!["acme.prices".into(), "globex.tools".into()], 2)
    );
    // The creator's own draft is in its private list.
    assert_eq!(
        ids(&acme.get("/extension/v1/private").await.body),
        ["acme.prices"]
    );
}

#[actix_rt::test]
async fn get_source_key_reads_one_extension_one_version_and_the_list_of_versions() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    draft(&acme, "Prices, second draft").await;
    let r = acme.get("/extension/v1/private/acme.prices").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (
            r.body["_type"].clone(),
            r.body["name"].clone(),
            r.body["_version"].clone()
        ),
        (
            json!("VarExtension"),
            json!("Prices, second draft"),
            json!(2)
        )
    );
    assert_eq!(
        acme.get("/extension/v1/private/acme.prices/1").await.body["name"],
        "Prices"
    );
    let list = acme.get("/extension/v1/private/acme.prices/*").await;
    assert_eq!(list.total(), 2);
    let numbers: Vec<u64> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["_version"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2]);
    // The public copy has versions of its own.
    publish(&acme).await;
    assert_eq!(
        acme.get("/extension/v1/public/acme.prices").await.body["name"],
        "Prices, second draft"
    );
    assert_eq!(
        acme.get("/extension/v1/public/acme.prices/*").await.total(),
        1
    );
    acme.get("/extension/v1/public/acme.none")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn put_tags_a_version_of_an_extension() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    draft(&acme, "Prices 2").await;
    let r = acme.put("/extension/v1/private/acme.prices/1/stable").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        acme.get("/extension/v1/private/acme.prices/stable")
            .await
            .body["name"],
        "Prices"
    );
}

#[actix_rt::test]
async fn post_creates_or_updates_an_extension() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    let r = draft(&acme, "Prices").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (
            r.body["_id"].clone(),
            r.body["_type"].clone(),
            r.body["_version"].clone()
        ),
        (json!("acme.prices"), json!("VarExtension"), json!(1))
    );
    let r = acme
        .post(
            "/extension/v1",
            json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": "Renamed"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let read = acme.get("/extension/v1/private/acme.prices").await.body;
    assert_eq!(
        (read["name"].clone(), read["_version"].clone()),
        (json!("Renamed"), json!(2))
    );
}

#[actix_rt::test]
async fn post_public_with_publish_publishes_the_extension_read_from_private() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    let body = acme.get("/extension/v1/private/acme.prices").await.body;
    let r = acme.post("/extension/v1/public?_publish=true", body).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let public = acme.get("/extension/v1/public/acme.prices").await;
    assert_eq!(public.status, 200, "{:?}", public.body);
    assert_eq!(public.body["name"], "Prices");
    // Without _publish a public write is the platform role's only (docs/decisions.md (shared) 2).
    acme.post(
        "/extension/v1/public",
        json!({"_id": "acme.prices", "publisher": "acme", "code": "prices"}),
    )
    .await
    .assert_error(403, "NOT_AUTHORIZED");
}

#[actix_rt::test]
async fn post_private_with_publish_installs_or_upgrades_the_extension_read_from_public() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    publish(&acme).await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    let body = globex.get("/extension/v1/public/acme.prices").await.body;
    let r = globex
        .post("/extension/v1/private?_publish=true", body)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["action"], "install");
    // The resources are copied into the company's private source.
    assert_eq!(
        globex.get("/object/v1/private/HUBS").await.body["list"],
        json!(["NBP", "TTF"])
    );
    assert_eq!(
        globex.get("/extension/v1/private/acme.prices").await.body["name"],
        "Prices"
    );
    // A new version installed over it is an upgrade.
    draft(&acme, "Prices 2").await;
    publish(&acme).await;
    let body = globex.get("/extension/v1/public/acme.prices").await.body;
    let r = globex
        .post("/extension/v1/private?_publish=true", body)
        .await;
    assert_eq!(r.body["action"], "upgrade", "{:?}", r.body);
    assert_eq!(
        globex.get("/extension/v1/private/acme.prices").await.body["name"],
        "Prices 2"
    );
}

#[actix_rt::test]
async fn delete_private_key_uninstalls() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    publish(&acme).await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    install(&globex).await;
    let r = globex.delete("/extension/v1/private/acme.prices").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    globex
        .get("/extension/v1/private/acme.prices")
        .await
        .assert_error(404, "NOT_FOUND");
    globex
        .get("/object/v1/private/HUBS")
        .await
        .assert_error(404, "NOT_FOUND");
    // Still in the catalogue, to install again.
    assert_eq!(globex.get("/extension/v1/public").await.total(), 1);
}

#[actix_rt::test]
async fn get_view_with_accept_html_runs_a_view() {
    let s = TestServer::new();
    let acme = s.client_of("acme", "ann", Role::Admin);
    draft(&acme, "Prices").await;
    publish(&acme).await;
    let globex = s.client_of("globex", "gus", Role::Admin);
    install(&globex).await;
    let view = |accept: &str| {
        actix_web::test::TestRequest::get()
            .uri("/extension/v1/private/acme.prices/view/main")
            .insert_header(("authorization", format!("Bearer {}", globex.token)))
            .insert_header(("accept", accept.to_string()))
    };
    let r = s.send(view("text/html")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert_eq!(r.body, json!("<h1>Prices</h1><p>main for gus</p>"));
    // A view is HTML: another Accept is not acceptable.
    s.send(view("application/json"))
        .await
        .assert_error(406, "NOT_ACCEPTABLE");
}
