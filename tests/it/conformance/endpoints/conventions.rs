//! Conventions for all services: releases and sources, build information, encoded keys and
//! repeated parameters, paging, long GETs with a form body, environments, response formats and
//! the standard query parameters.

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

/// Percent-encodes a query key or value.
fn enc(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// A GET with an Accept header.
async fn get_as(c: &Client<'_>, path: &str, accept: &str) -> Resp {
    c.server
        .send(
            actix_web::test::TestRequest::get()
                .uri(path)
                .insert_header(("authorization", format!("Bearer {}", c.token)))
                .insert_header(("accept", accept.to_string())),
        )
        .await
}

/// The ids a private object list answers for a query.
async fn listed(c: &Client<'_>, query: &str) -> Vec<String> {
    let r = c.get(&format!("/object/v1/private?{query}")).await;
    assert_eq!(r.status, 200, "{query}: {:?}", r.body);
    ids(&r.body)
}

#[actix_rt::test]
async fn documented_system_fields_filter_lists_like_any_field() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let ann = s.client_of("acme", "ann", Role::Writer);
    let bob = s.client_of("acme", "bob", Role::Writer);
    ann.save(json!({"_id": "A1", "_type": "TA", "S": {"_type": "VarTimeSeries", "data": []}}))
        .await;
    s.advance(60);
    bob.save(json!({"_id": "B1", "_type": "TA"})).await;
    bob.save(json!({"_id": "B2", "_type": "TB", "F": {"_type": "VarCurve"}}))
        .await;
    bob.save(json!({"_id": "B2", "name": "second version"}))
        .await;
    assert_eq!(
        ann.put("/object/v1/private/B2/1/approved").await.status,
        200
    );

    let list = |q: &'static str| {
        let c = ann.clone();
        async move {
            let r = c.get(&format!("/object/v1/private?{q}")).await;
            assert_eq!(r.status, 200, "{q}: {:?}", r.body);
            (ids(&r.body), r.total())
        }
    };
    assert_eq!(
        list("_type=TA&_user=bob").await,
        (vec!["B1".to_string()], 1)
    );
    assert_eq!(list("_user=ann").await.0, ["A1"]);
    assert_eq!(list("_version=2").await.0, ["B2"]);
    assert_eq!(list("_version=gt(1)").await.0, ["B2"]);
    assert_eq!(
        list("_timestamp=gte(2024-07-08T12:01:00Z)").await.0,
        ["B1", "B2"]
    );
    assert_eq!(list("_oid=A1").await.0, ["A1"]);
    // A tag on an older version is not on the current one; moved to it, it is.
    assert_eq!(list("_tag=approved").await.0, Vec::<String>::new());
    assert_eq!(
        ann.put("/object/v1/private/B2/2/approved").await.status,
        200
    );
    assert_eq!(list("_tag=approved").await.0, ["B2"]);
    // The same fields in _filter and _sort.
    let r = ann
        .get("/object/v1/private?_filter=%7B%22_user%22%3A%22bob%22%7D&_sort=%7B%22_version%22%3A-1%7D")
        .await;
    assert_eq!(ids(&r.body), ["B2", "B1"]);
    let r = ann.get("/object/v1/private?_distinct=_user").await;
    assert_eq!(r.body, json!(["ann", "bob"]));

    // Data items: _objid, _dataid and _objtype.
    let data = |q: &'static str| {
        let c = ann.clone();
        async move {
            let r = c.get(&format!("/data/v1/private?{q}")).await;
            assert_eq!(r.status, 200, "{q}: {:?}", r.body);
            (ids(&r.body), r.total())
        }
    };
    assert_eq!(data("").await.1, 2);
    assert_eq!(data("_objid=B2").await, (vec!["B2:F".to_string()], 1));
    assert_eq!(data("_objtype=TA").await.0, ["A1:S"]);
    assert_eq!(data("_dataid=S").await.0, ["A1:S"]);
    assert_eq!(data("_user=bob").await.0, ["B2:F"]);
}

#[actix_rt::test]
async fn an_unknown_underscore_parameter_is_a_400_naming_it() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "X"})).await;
    for path in [
        "/object/v1/private?_limt=5",
        "/object/v1/private/X?_limt=5",
        "/data/v1/private?_limt=5",
        "/validation/v1?_limt=5",
        "/automation/v1?_limt=5",
        "/secret/v1?_limt=5",
    ] {
        let message = c.get(path).await.assert_error(400, "INVALID_PARAMETER");
        assert!(
            message.starts_with("unknown parameter \"_limt\" (did you mean _limit?)"),
            "{path}: {message}"
        );
    }
    // Also in a POST's query, and in a GET's form body; nothing is stored.
    c.post("/object/v1?_replce=true", json!({"_id": "Y"}))
        .await
        .assert_error(400, "INVALID_PARAMETER");
    c.get("/object/v1/private/Y")
        .await
        .assert_error(404, "NOT_FOUND");
    c.get_form("/object/v1/private", "_sortt=name")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    // Standard parameters and plain fields are not refused.
    let r = c
        .get("/object/v1/private?_limit=5&_skip=0&_sort=name&_project=name&country=NL")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

#[actix_rt::test]
async fn the_release_is_v1_and_another_release_is_not_found() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    c.save(json!({"_id": "GB"})).await;
    assert_eq!(c.get("/object/v1/private/GB").await.status, 200);
    // docs/decisions.md (shared) 1: v1 is the only release; an unknown release is 404.
    for path in [
        "/object/v2/private/GB",
        "/object/v0/private",
        "/data/v2/private",
        "/secret/v2",
        "/extension/v2/public",
        "/validationconfig/v2",
        "/validation/v2",
        "/automation/v2",
        "/action/v2/public",
    ] {
        c.get(path).await.assert_error(404, "NOT_FOUND");
    }
}

#[actix_rt::test]
async fn the_source_is_public_or_private_or_all_where_stated() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    c.save(json!([{"_id": "#PUB"}, {"_id": "MINE"}])).await;
    assert_eq!(ids(&c.get("/object/v1/public").await.body), ["#PUB"]);
    assert_eq!(ids(&c.get("/object/v1/private").await.body), ["MINE"]);
    // all is stated for the object and data services.
    assert_eq!(ids(&c.get("/object/v1/all").await.body), ["#PUB", "MINE"]);
    assert_eq!(c.get("/data/v1/all").await.status, 200);
    let m = c
        .get("/object/v1/shared")
        .await
        .assert_error(404, "NOT_FOUND");
    assert!(m.contains("shared"), "{m}");
    c.get("/data/v1/shared")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn every_service_answers_get_service_with_its_build_information() {
    let s = TestServer::new();
    let c = s.client(Role::Reader);
    for service in [
        "object",
        "data",
        "secret",
        "extension",
        "validationconfig",
        "validation",
        "automation",
        "action",
    ] {
        let r = c.get(&format!("/{service}")).await;
        assert_eq!(r.status, 200, "{service}: {:?}", r.body);
        // The body is not shown; docs/decisions.md (HTTP) has every service say its name, its
        // releases and whether this build serves it ("available", else "planned").
        assert_eq!(
            (
                r.body["service"].clone(),
                r.body["releases"].clone(),
                r.body["status"].clone()
            ),
            (json!(service), json!(["v1"]), json!("available")),
            "{service}"
        );
        assert!(r.body["version"].is_string(), "{service}: {:?}", r.body);
    }
}

#[actix_rt::test]
async fn keys_with_a_hash_are_url_encoded_and_query_parameters_may_repeat() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    c.save(json!([{"_id": "#NBP", "name": "public hub"}, {"_id": "NBP", "name": "private hub"},
        {"_id": "#FX.EURGBP", "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 0.85}]}}]))
        .await;
    assert_eq!(
        c.get("/object/v1/public/%23NBP").await.body["name"],
        "public hub"
    );
    assert_eq!(
        c.get("/data/v1/public/%23FX.EURGBP:SPOT").await.body["_objid"],
        "#FX.EURGBP"
    );
    assert_eq!(
        c.get("/object/v1/public/%23NBP/*").await.body[0]["_oid"],
        "#NBP"
    );
    // Repeated _id parameters: each one is fetched.
    let r = c.get("/object/v1/all?_id=%23NBP&_id=NBP").await;
    assert_eq!(ids(&r.body), ["#NBP", "NBP"]);
    assert_eq!(r.total(), 2);
}

#[actix_rt::test]
async fn paging_defaults_to_limit_100_and_skip_0_with_the_total_in_x_total_count() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let objects: Vec<Value> = (0..120)
        .map(|i| json!({"_id": format!("O{i:03}"), "S": {"_type": "VarTimeSeries", "data": []}}))
        .collect();
    c.save(Value::Array(objects)).await;
    let want = |from: usize, to: usize| -> Vec<String> {
        (from..to).map(|i| format!("O{i:03}")).collect()
    };
    // Objects: the first 100, from the first one.
    let r = c.get("/object/v1/private").await;
    assert_eq!(
        (ids(&r.body), r.total()),
        (want(0, 100), 120),
        "default _limit 100, _skip 0"
    );
    let r = c.get("/object/v1/private?_limit=10&_skip=115").await;
    assert_eq!((ids(&r.body), r.total()), (want(115, 120), 120));
    // Data items are paged alike.
    let r = c.get("/data/v1/private").await;
    assert_eq!(r.total(), 120);
    assert_eq!(r.body.as_array().unwrap().len(), 100);
    assert_eq!(r.body[0]["_id"], "O000:S");
    let r = c.get("/data/v1/private?_limit=2&_skip=1").await;
    assert_eq!(ids(&r.body), ["O001:S", "O002:S"]);
    assert_eq!(r.total(), 120);
}

#[actix_rt::test]
async fn limit_minus_one_returns_all_items_of_object_and_data_lists() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let objects: Vec<Value> = (0..130)
        .map(|i| json!({"_id": format!("O{i:03}"), "S": {"_type": "VarTimeSeries", "data": []}}))
        .collect();
    c.save(Value::Array(objects)).await;
    // docs/decisions.md (shared) 6: the object, data, type and script lists honour -1.
    for path in ["/object/v1/private?_limit=-1", "/data/v1/private?_limit=-1"] {
        let r = c.get(path).await;
        assert_eq!(r.status, 200, "{path}: {:?}", r.body);
        assert_eq!(
            (r.body.as_array().unwrap().len(), r.total()),
            (130, 130),
            "{path}"
        );
    }
    // Other limits stop at 10,000 (docs/decisions.md (shared) 6).
    c.get("/object/v1/private?_limit=10001")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn a_long_get_may_carry_its_url_encoded_query_in_a_form_body() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    c.post("/type/v1", json!({"_id": "#Hub"})).await;
    c.post("/type/v1", json!({"_id": "#GasHub", "_extends": "#Hub"}))
        .await;
    c.save(json!([
        {"_id": "#NBP", "_type": "#GasHub", "name": "N & B, \"point\"", "country": "GB"},
        {"_id": "#TTF", "_type": "#GasHub", "name": "TTF", "country": "NL"},
        {"_id": "#EEX", "_type": "#Hub", "name": "EEX", "country": "DE"}
    ]))
    .await;
    // A query over 2048 characters: the countries asked for, then many that match nothing.
    let many: Vec<String> = (0..500).map(|i| format!("X{i}")).collect();
    let countries = format!("in(GB,NL,{})", many.join(","));
    let form = [
        ("%23type", enc("#Hub")),
        ("country", enc(&countries)),
        ("name", enc("ne(TTF)")),
        ("_project", enc("name,country")),
    ]
    .map(|(k, v)| format!("{k}={v}"))
    .join("&");
    assert!(form.len() > 2048, "{}", form.len());
    let r = c.get_form("/object/v1/public", &form).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.body,
        json!([{"_id": "#NBP", "name": "N & B, \"point\"", "country": "GB"}])
    );
    assert_eq!(r.total(), 1);
}

#[actix_rt::test]
async fn the_environment_header_routes_to_a_named_environment_and_production_is_the_default() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    s.platform
        .tenancy()
        .create_environment("acme", "uat")
        .unwrap();
    c.save(json!({"_id": "BOOK", "env": "production"})).await;
    c.in_env("uat")
        .save(json!({"_id": "BOOK", "env": "uat"}))
        .await;
    assert_eq!(
        c.get("/object/v1/private/BOOK").await.body["env"],
        "production"
    );
    assert_eq!(
        c.in_env("production")
            .get("/object/v1/private/BOOK")
            .await
            .body["env"],
        "production"
    );
    assert_eq!(
        c.in_env("uat").get("/object/v1/private/BOOK").await.body["env"],
        "uat"
    );
    // docs/decisions.md (shared) 2: an environment that was not created is 404.
    c.in_env("nowhere")
        .get("/object/v1/private/BOOK")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn object_and_data_gets_answer_json_csv_or_xml_as_accepted() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "NBP", "name": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "data": [{"time": "2024-07-01", "value": 80.5}]}}),
    )
    .await;
    for path in [
        "/object/v1/private",
        "/object/v1/private/NBP",
        "/data/v1/private",
        "/data/v1/private/NBP:SPOT",
    ] {
        let json_answer = c.get(path).await;
        assert_eq!(
            json_answer.header("content-type").as_deref(),
            Some("application/json"),
            "{path}"
        );
        let csv = get_as(&c, path, "text/csv").await;
        assert_eq!(csv.status, 200, "{path}: {:?}", csv.body);
        assert!(
            csv.header("content-type").unwrap().starts_with("text/csv"),
            "{path}"
        );
        let xml = get_as(&c, path, "application/xml").await;
        assert_eq!(xml.status, 200, "{path}: {:?}", xml.body);
        assert!(
            xml.header("content-type")
                .unwrap()
                .starts_with("application/xml"),
            "{path}"
        );
        assert!(
            xml.body.as_str().unwrap().starts_with("<?xml"),
            "{path}: {:?}",
            xml.body
        );
    }
    let csv = get_as(&c, "/data/v1/private/NBP:SPOT", "text/csv").await;
    assert_eq!(
        csv.body.as_str().unwrap(),
        "time,value,quality,source,reliability\n2024-07-01,80.5,,,\n"
    );
    let csv = get_as(&c, "/object/v1/private?_project=name", "text/csv").await;
    assert_eq!(csv.body.as_str().unwrap(), "_id,name\nNBP,NBP\n");
}

#[actix_rt::test]
async fn accept_html_with_template_renders_a_mustache_template() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!([{"_id": "NBP", "name": "Balancing point"}, {"_id": "TTF", "name": "Title transfer"}]))
        .await;
    // How templates are uploaded is not shown: docs/decisions.md (shared) 6 keeps them as
    // mustache scripts of the script service.
    for script in [
        json!({"_id": "one", "scriptType": "mustache", "script": "<b>{{name}}</b>"}),
        json!({"_id": "many", "scriptType": "mustache", "script": "<ul>{{#items}}<li>{{_id}}</li>{{/items}}</ul>"}),
    ] {
        assert_eq!(c.post("/script/v1", script).await.status, 200);
    }
    let one = get_as(&c, "/object/v1/private/NBP?_template=one", "text/html").await;
    assert_eq!(one.status, 200, "{:?}", one.body);
    assert!(one.header("content-type").unwrap().starts_with("text/html"));
    assert_eq!(one.body, json!("<b>Balancing point</b>"));
    let list = get_as(&c, "/object/v1/private?_template=many", "text/html").await;
    assert_eq!(list.body, json!("<ul><li>NBP</li><li>TTF</li></ul>"));
}

#[actix_rt::test]
async fn sort_takes_a_json_object_of_fields_to_one_or_minus_one() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!([{"_id": "A", "zone": "east", "n": 2}, {"_id": "B", "zone": "west", "n": 1},
        {"_id": "C", "zone": "east", "n": 3}]),
    )
    .await;
    assert_eq!(
        listed(&c, &format!("_sort={}", enc(r#"{"n":1}"#))).await,
        ["B", "A", "C"]
    );
    assert_eq!(
        listed(&c, &format!("_sort={}", enc(r#"{"n":-1}"#))).await,
        ["C", "A", "B"]
    );
    assert_eq!(
        listed(&c, &format!("_sort={}", enc(r#"{"zone":-1,"n":-1}"#))).await,
        ["B", "C", "A"]
    );
}

#[actix_rt::test]
async fn search_searchinfo_and_distinct_answer_as_the_table_says() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!([
        {"_id": "NBP", "name": "National Balancing Point", "country": "GB"},
        {"_id": "NAT", "name": "Natural gas", "country": "GB"},
        {"_id": "TTF", "name": "Title Transfer Facility", "description": "national hub", "country": "NL"}
    ]))
    .await;
    // _search: a search expression over the searchable fields.
    assert_eq!(listed(&c, "_search=national").await, ["NBP", "TTF"]);
    // _searchinfo: an auto-complete list of what starts with the expression.
    let r = c.get("/object/v1/private?_searchinfo=na").await;
    assert_eq!(
        r.body,
        json!([{"_id": "NAT", "name": "Natural gas"}, {"_id": "NBP", "name": "National Balancing Point"}])
    );
    // _distinct: the distinct string values of the field.
    let r = c.get("/object/v1/private?_distinct=country").await;
    assert_eq!(r.body, json!(["GB", "NL"]));
}

#[actix_rt::test]
async fn reason_on_post_or_delete_sets_the_reason_in_the_audit_trail() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let r = c
        .post(
            "/object/v1?_reason=initial%20load",
            json!({"_id": "GB", "v": 1}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.save(json!({"_id": "GB", "v": 2})).await;
    let versions = c.get("/object/v1/private/GB/*").await.body;
    assert_eq!(versions[0]["_reason"], "initial load");
    assert_eq!(versions[1]["_reason"], Value::Null);
    let r = c.delete("/object/v1/private/GB?_reason=bad%20value").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    // docs/decisions.md: deletions go to an audit trail (core: Platform::audit).
    let who = s
        .platform
        .tenancy()
        .authenticate(
            Some(&platform_core::auth::Credentials::Bearer(c.token.clone())),
            None,
        )
        .unwrap();
    let trail = s
        .platform
        .objects()
        .audit(
            &who,
            platform_core::store::Collection::Object,
            platform_core::ids::Source::Private,
            "GB",
        )
        .unwrap();
    assert_eq!(trail.len(), 1, "{trail:?}");
    assert_eq!(
        (
            trail[0].reason.as_deref(),
            trail[0].versions.clone(),
            trail[0].user.as_str()
        ),
        (Some("bad value"), vec![2], "writer-user")
    );
}

#[actix_rt::test]
async fn profile_project_and_replace_do_what_the_table_says() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "NBP", "name": "NBP", "country": "GB",
        "SPOT": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]}}))
        .await;
    // _profile: the related data of the object.
    let r = c.get("/object/v1/private/NBP?_profile=SPOT").await;
    assert_eq!(
        (r.body["_id"].clone(), r.body["data"][0]["value"].clone()),
        (json!("NBP:SPOT"), json!(1.0))
    );
    // _project: the fields to return.
    let r = c.get("/object/v1/private/NBP?_project=country").await;
    assert_eq!(r.body, json!({"_id": "NBP", "country": "GB"}));
    // _replace: replace instead of merge.
    c.save(json!({"_id": "NBP", "note": "merged"})).await;
    let merged = c.get("/object/v1/private/NBP").await.body;
    assert_eq!(
        (merged["country"].clone(), merged["note"].clone()),
        (json!("GB"), json!("merged"))
    );
    c.post(
        "/object/v1?_replace=true",
        json!({"_id": "NBP", "note": "replaced"}),
    )
    .await;
    let replaced = c.get("/object/v1/private/NBP").await.body;
    assert_eq!(replaced["note"], "replaced");
    assert!(replaced.get("country").is_none(), "{replaced}");
}

#[actix_rt::test]
async fn delay_waits_before_a_manually_triggered_process_starts() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "data": [{"time": "2024-07-01", "value": 1}]}}),
    )
    .await;
    c.post(
        "/validationconfig/v1",
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]}),
    )
    .await;
    // Which calls accept it is not shown: docs/decisions.md (shared) 6 names validation run and
    // runMany, background jobs and automation test-fires, at most 60,000 ms. The process runs
    // in the background (the call answers at once) and does not start before its time.
    for (function, body) in [
        ("run", json!({"target": "NBP:SPOT"})),
        ("runMany", json!({"targets": ["NBP:SPOT"]})),
    ] {
        let r = c
            .post(
                &format!("/validation/v1?_function={function}&_delay=250"),
                body,
            )
            .await;
        assert_eq!(r.status, 200, "{function}: {:?}", r.body);
        assert_eq!(r.body["background"], true, "{function}: {:?}", r.body);
        assert!(
            !s.platform.jobs().run_next().unwrap(),
            "{function} does not start before its delay"
        );
        s.advance(1);
        assert!(
            s.platform.jobs().run_next().unwrap(),
            "{function} starts after it"
        );
    }
    assert_eq!(c.get("/validation/v1").await.total(), 1);
    c.post(
        "/validation/v1?_function=run&_delay=60001",
        json!({"target": "NBP:SPOT"}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn range_expressions_last_from_and_between_with_a_time_zone_or_a_rule_date() {
    let s = TestServer::at("2024-07-05T12:00:00Z");
    let c = s.client(Role::Writer);
    // Hourly observations of 2024-07-01 .. 2024-07-05 11:00 UTC.
    let data: Vec<Value> = (0..108)
        .map(|h| {
            let t = chrono::DateTime::parse_from_rfc3339("2024-07-01T00:00:00Z").unwrap()
                + chrono::TimeDelta::hours(h);
            json!({"time": t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true), "value": h})
        })
        .collect();
    c.save(
        json!({"_id": "PWR", "H": {"_type": "VarTimeSeries", "calendar": "HOURLY", "data": data}}),
    )
    .await;
    let times = |range: &str| {
        let c = c.clone();
        let url = format!("/data/v1/private/PWR:H?_range={}", enc(range));
        async move {
            let r = c.get(&url).await;
            assert_eq!(r.status, 200, "{url}: {:?}", r.body);
            r.body["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["time"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        times("last(2)").await,
        ["2024-07-05T10:00:00Z", "2024-07-05T11:00:00Z"]
    );
    assert_eq!(times("from(2024-07-05T10:00)").await.len(), 2);
    assert_eq!(
        times("between(2024-07-02T01:00,2024-07-02T02:00)").await,
        ["2024-07-02T01:00:00Z", "2024-07-02T02:00:00Z"]
    );
    // A time-zone name as the last argument: 10:00 in Paris (UTC+2 in July) is 08:00 UTC.
    assert_eq!(
        times("from(2024-07-05T10:00,Europe/Paris)").await.first(),
        Some(&"2024-07-05T08:00:00Z".to_string())
    );
    assert_eq!(
        times("between(2024-07-02T03:00,2024-07-02T04:00,Europe/Paris)").await,
        ["2024-07-02T01:00:00Z", "2024-07-02T02:00:00Z"]
    );
    // A rule date for a date: t-D1h0m0s0 is the first of this month at 00:00.
    assert_eq!(
        times("between(t-D1h0m0s0,t-D1h1m0s0)").await,
        ["2024-07-01T00:00:00Z", "2024-07-01T01:00:00Z"]
    );
    assert_eq!(times("from(t-2h)").await.len(), 2);
    c.get("/data/v1/private/PWR:H?_range=soon(3)")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn filter_takes_a_url_encoded_json_object_and_function_selects_a_service_function() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!([{"_id": "A", "n": 1, "zone": "east"}, {"_id": "B", "n": 5, "zone": "west"},
        {"_id": "C", "n": 9, "zone": "east"}]),
    )
    .await;
    // The grammar beyond the interface's shapes is not shown: docs/decisions.md (shared) 6 takes
    // MongoDB-style operators.
    let f = enc(r#"{"$or":[{"n":{"$gt":4}},{"zone":"nowhere"}],"zone":"east"}"#);
    assert_eq!(listed(&c, &format!("_filter={f}")).await, ["C"]);
    c.get("/object/v1/private?_filter=%7Bnot%20json")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    // _function selects a function of a service: listAutomations on an item, stats on records.
    let r = c
        .get("/object/v1/private/A?_function=listAutomations")
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body[0]["_type"], "VarAutomation");
    let r = c.get("/validation/v1?_function=stats").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.body["totals"].is_object(), "{:?}", r.body);
    c.get("/object/v1/private/A?_function=explode")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn a_field_with_a_value_filters_exactly_and_case_sensitively() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(
        json!([{"_id": "A", "country": "GB"}, {"_id": "B", "country": "gb"},
        {"_id": "C", "country": "GBR"}]),
    )
    .await;
    assert_eq!(listed(&c, "country=GB").await, ["A"]);
    assert_eq!(listed(&c, "country=gb").await, ["B"]);
    assert!(listed(&c, "country=G").await.is_empty());
}

#[actix_rt::test]
async fn filter_functions_compare_select_and_locate() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!([
        {"_id": "LON", "n": 1, "day": "2024-01-10", "city": "London", "geolocation": [-0.1276, 51.5072]},
        {"_id": "PAR", "n": 5, "day": "2024-02-10", "city": "Paris", "geolocation": [2.3522, 48.8566]},
        {"_id": "NYC", "n": 9, "day": "2024-03-10", "city": "New York", "geolocation": [-74.006, 40.7128]}
    ]))
    .await;
    let q = |field: &str, call: &str| format!("{field}={}", enc(call));
    assert_eq!(listed(&c, &q("n", "range(1,5)")).await, ["LON", "PAR"]);
    assert_eq!(
        listed(&c, &q("day", "range(2024-02-01,2024-03-10)")).await,
        ["NYC", "PAR"]
    );
    assert_eq!(listed(&c, &q("city", "ne(Paris)")).await, ["LON", "NYC"]);
    assert_eq!(
        listed(&c, &q("city", "in(Paris,New York,Rome)")).await,
        ["NYC", "PAR"]
    );
    assert_eq!(listed(&c, &q("n", "gt(5)")).await, ["NYC"]);
    assert_eq!(listed(&c, &q("n", "gte(5)")).await, ["NYC", "PAR"]);
    assert_eq!(listed(&c, &q("n", "lt(5)")).await, ["LON"]);
    assert_eq!(listed(&c, &q("n", "lte(5)")).await, ["LON", "PAR"]);
    // London to Paris is about 344 km, 0.054 radians of the earth; New York is far away.
    assert_eq!(
        listed(
            &c,
            &q("geolocation", "within(sphere([-0.1276,51.5072],0.06))")
        )
        .await,
        ["LON", "PAR"]
    );
    assert_eq!(
        listed(
            &c,
            &q("geolocation", "within(sphere([-0.1276,51.5072],0.05))")
        )
        .await,
        ["LON"]
    );
}

#[actix_rt::test]
async fn type_filters_the_exact_type_and_hash_type_its_subtypes_too() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.post("/type/v1", json!({"_id": "Hub"})).await;
    c.post("/type/v1", json!({"_id": "GasHub", "_extends": "Hub"}))
        .await;
    c.save(
        json!([{"_id": "H", "_type": "Hub"}, {"_id": "G", "_type": "GasHub"},
        {"_id": "X", "_type": "Other"}]),
    )
    .await;
    assert_eq!(listed(&c, "_type=Hub").await, ["H"]);
    assert_eq!(listed(&c, "%23type=Hub").await, ["G", "H"]);
    assert_eq!(listed(&c, "%23type=GasHub").await, ["G"]);
}
