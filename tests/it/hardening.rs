//! Hardening: the holes an attack pass found, each attacked the same way.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn bad_input_the_attack_pass_found_accepted_is_refused() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Admin);
    c.save(json!({"_id": "PWR", "S": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]},
                  "F": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 1}]}}))
        .await;
    let before = c.get("/object/v1/private/PWR/*").await.body;

    // A contract's value is a number.
    let m = c
        .post(
            "/object/v1",
            json!({"_id": "PWR", "F": {"_type": "VarCurve", "ondate": "2024-03-02", "contracts": [{"tenor": "M01", "value": "abc"}]}}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("abc"), "{m}");

    // background is true or false.
    c.post(
        "/validationconfig/v1",
        json!({"_id": "PWR:S", "kind": "timeseries", "checks": [{"expression": "value < 10"}]}),
    )
    .await;
    let m = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "PWR:S", "from": "2024-07-01", "to": "2024-07-02", "background": "yes"}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("background"), "{m}");

    // A statistics range is made of dates.
    let m = c
        .get("/validation/v1?_function=stats&from=garbage")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("garbage"), "{m}");
    c.get("/validation/v1?_function=stats&to=2024-13-01")
        .await
        .assert_error(400, "INVALID_PARAMETER");

    // A tenor code refused on a save is refused on a read.
    let m = c
        .get("/data/v1/private/PWR:F?tenor=M99999999")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("M99999999"), "{m}");

    // Extensions have no `all` source.
    c.get("/extension/v1/all")
        .await
        .assert_error(400, "INVALID_PARAMETER");

    assert_eq!(c.get("/object/v1/private/PWR/*").await.body, before);
    assert_eq!(c.get("/validation/v1").await.total(), 0, "no run started");
}

#[actix_rt::test]
async fn a_restricted_data_property_is_hidden_entirely_from_a_user_without_its_role() {
    use platform_core::auth::Grant;
    let s = TestServer::new();
    let writer = s.client_of("acme", "wendy", Role::Writer);
    writer
        .save(json!({"_id": "BOOK", "name": "book",
                     "PNL": {"_type": "VarTimeSeries", "_access": "traders", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]},
                     "OPEN": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 2}]}}))
        .await;
    let reader = s.client_of("acme", "rita", Role::Reader);
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object()
            .unwrap()
            .keys()
            .filter(|k| !k.starts_with('_'))
            .cloned()
            .collect()
    };
    for path in [
        "/object/v1/private/BOOK",
        "/object/v1/private/BOOK/1",
        "/object/v1/private",
        "/object/v1/all?_id=BOOK",
        "/object/v1/private?_project=PNL,OPEN,name",
        "/object/v1/private?_search=book&_project=PNL",
    ] {
        let r = reader.get(path).await;
        assert_eq!(r.status, 200, "{path}: {:?}", r.body);
        let item = if r.body.is_array() {
            r.body[0].clone()
        } else {
            r.body.clone()
        };
        assert!(item.get("PNL").is_none(), "{path}: {item}");
        assert!(!item.to_string().contains("traders"), "{path}: {item}");
        if !path.contains("_search") {
            assert!(
                item.get("OPEN").is_some() || path.contains("_project=PNL"),
                "{path}: {item}"
            );
        }
    }
    // A writer without the role sees the same, and a replace keeps what it cannot see.
    assert_eq!(
        keys(&writer.get("/object/v1/private/BOOK").await.body),
        ["name", "OPEN"]
    );
    let r = writer
        .post(
            "/object/v1?_replace=true",
            json!({"_id": "BOOK", "name": "renamed"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.body.get("PNL").is_none(), "{}", r.body);
    // Granted, the property is there, with its data, after the replace.
    s.platform
        .grant("acme", "rita", &Grant::Access("traders".into()))
        .unwrap();
    let book = reader.get("/object/v1/private/BOOK").await.body;
    assert_eq!(book["PNL"]["_access"], "traders", "{book}");
    assert!(
        book.get("OPEN").is_none(),
        "the replace removed what the writer could see"
    );
    assert_eq!(
        reader.get("/data/v1/private/BOOK:PNL").await.body["data"][0]["value"],
        1.0
    );
}

/// The filter, search and sort shapes that reached the store's own limits.
fn oversized_queries() -> Vec<(&'static str, String)> {
    let or: Vec<String> = (0..999).map(|i| format!("{{\"name\":\"n{i}\"}}")).collect();
    let values: Vec<String> = (0..1000).map(|i| format!("\"v{i}\"")).collect();
    let params: Vec<String> = (0..999).map(|i| format!("f{i}=x")).collect();
    let words: Vec<String> = (0..999).map(|i| format!("w{i}")).collect();
    let sort: Vec<String> = (0..2000).map(|i| format!("\"f{i}\":1")).collect();
    let enc = |s: &str| {
        s.replace('{', "%7B")
            .replace('}', "%7D")
            .replace('"', "%22")
            .replace(' ', "+")
    };
    vec![
        (
            "$or",
            format!(
                "_filter={}",
                enc(&format!("{{\"$or\":[{}]}}", or.join(",")))
            ),
        ),
        (
            "$in",
            format!(
                "_filter={}",
                enc(&format!("{{\"name\":{{\"$in\":[{}]}}}}", values.join(",")))
            ),
        ),
        (
            "in()",
            format!("name=in({})", values.join(",").replace('"', "")),
        ),
        ("parameters", params.join("&")),
        ("_search", format!("_search={}", words.join("+"))),
        (
            "_sort",
            format!("_sort={}", enc(&format!("{{{}}}", sort.join(",")))),
        ),
    ]
}

#[actix_rt::test]
async fn queries_past_the_documented_limits_are_400_before_the_store() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A", "name": "n1"})).await;
    for base in ["/object/v1/private", "/validationconfig/v1"] {
        for (what, query) in oversized_queries() {
            // Long queries travel in a form body, as the interface allows.
            let r = c.get_form(base, &query).await;
            let m = r.assert_error(400, "INVALID_PARAMETER");
            assert!(m.contains("at most"), "{base} {what}: {m}");
        }
    }
    // At the limits, the same shapes run.
    let or: Vec<String> = (0..500).map(|i| format!("{{\"name\":\"n{i}\"}}")).collect();
    let values: Vec<String> = (0..500).map(|i| format!("n{i}")).collect();
    let words: Vec<String> = (0..32).map(|i| format!("n{i}|")).collect();
    let sort: Vec<String> = (0..32).map(|i| format!("f{i}")).collect();
    for query in [
        format!(
            "_filter={}",
            or.join(",")
                .replace('{', "%7B")
                .replace('}', "%7D")
                .replace('"', "%22")
        )
        .replace("_filter=", "_filter=%7B%22$or%22:[")
            + "]%7D",
        format!("name=in({})", values.join(",")),
        format!("_search={}", words.concat().trim_end_matches('|')),
        format!("_sort={}", sort.join(",")),
    ] {
        let r = c.get_form("/object/v1/private", &query).await;
        assert_eq!(r.status, 200, "{query}: {:?}", r.body);
        assert_eq!(r.total(), 1, "{query}");
    }
}
