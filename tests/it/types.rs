//! The type service: versioned like objects, public and private.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn types_are_versioned_documents() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    let t = c
        .post(
            "/type/v1",
            json!({"_id": "#Commodity", "description": "a traded good"}),
        )
        .await;
    assert_eq!(t.status, 200);
    assert_eq!(t.body["_type"], "VarType");
    c.post(
        "/type/v1",
        json!({"_id": "#Commodity", "properties": {"unit": {"type": "string"}}}),
    )
    .await;
    let versions = c.get("/type/v1/public/%23Commodity/*").await;
    assert_eq!(versions.total(), 2);
    c.post("/type/v1", json!({"_id": "Gas", "_extends": "#Commodity"}))
        .await;
    let private = c.get("/type/v1/private/Gas").await;
    assert_eq!(private.body["_extends"], "#Commodity");
    let m = c
        .post("/type/v1", json!({"_id": "#Commodity", "_extends": "Gas"}))
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("cycle"), "{m}");
    c.post("/type/v1", json!({"_id": "X", "properties": 3}))
        .await
        .assert_error(400, "INVALID_BODY");
    // Type writes follow the same role rules.
    let reader = s.client(Role::Reader);
    reader
        .post("/type/v1", json!({"_id": "Y"}))
        .await
        .assert_error(403, "NOT_AUTHORIZED");
}

#[actix_rt::test]
async fn a_bad_indexes_list_is_refused_naming_its_entry() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let nine: Vec<String> = (0..9).map(|i| format!("f{i}")).collect();
    for (indexes, says) in [
        (json!("country"), "must be a list of field paths"),
        (json!([1]), "entry 1 is not a field path"),
        (json!(["a..b"]), "entry \"a..b\" is not a field path"),
        (json!(["a b"]), "entry \"a b\" is not a field path"),
        (json!(["$where"]), "entry \"$where\" is not a field path"),
        (json!(["_id"]), "entry \"_id\" is always indexed"),
        (
            json!(["country", "country"]),
            "entry \"country\" is listed twice",
        ),
        (json!(nine), "a type indexes at most 8"),
    ] {
        let m = c
            .post("/type/v1", json!({"_id": "Plant", "_indexes": indexes}))
            .await
            .assert_error(400, "INVALID_BODY");
        assert!(m.contains(says), "{indexes}: {m}");
    }
    // Nothing was saved.
    assert_eq!(c.get("/type/v1/private/Plant").await.status, 404);
}

#[actix_rt::test]
async fn lists_answer_the_same_with_a_types_indexes() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    let objects: Vec<serde_json::Value> = (0..30)
        .map(|i| {
            let country = ["NL", "GB", "DE", "nl"][i % 4];
            json!({
                "_id": format!("P{i:02}"),
                "_type": if i % 3 == 0 { "Other" } else { "Plant" },
                "country": country,
                "capacity": if i % 7 == 0 { json!("n/a") } else { json!((i * 37) % 100) },
                "meta": {"tier": i % 2},
            })
        })
        .collect();
    assert_eq!(c.post("/object/v1", json!(objects)).await.status, 200);
    let queries = [
        "_type=Plant&country=NL",
        "_type=Plant&country=in(NL,GB)&_sort=-capacity",
        "_type=Plant&capacity=gt(50)",
        "_type=Plant&capacity=range(10,60)&_sort=capacity",
        "_type=Plant&_sort=meta.tier,-capacity",
        "%23type=Plant&country=ne(NL)&_sort=capacity",
        "_type=Plant&_sort=capacity&_limit=4",
    ];
    let answers = || async {
        let mut out = Vec::new();
        for q in queries {
            let r = c.get(&format!("/object/v1/private?{q}")).await;
            assert_eq!(r.status, 200, "{q}: {:?}", r.body);
            out.push((q, r.body.clone(), r.total(), r.header("x-platform-next")));
        }
        out
    };
    let before = answers().await;
    assert!(before
        .iter()
        .all(|(_, body, _, _)| !body.as_array().unwrap().is_empty()));
    let t = c
        .post(
            "/type/v1",
            json!({"_id": "Plant", "_indexes": ["country", "capacity", "meta.tier"]}),
        )
        .await;
    assert_eq!(t.status, 200, "{:?}", t.body);
    assert_eq!(
        t.body["_indexes"],
        json!(["country", "capacity", "meta.tier"])
    );
    assert_eq!(answers().await, before);
    // Objects saved while the indexes exist are found through them.
    c.post(
        "/object/v1",
        json!({"_id": "P99", "_type": "Plant", "country": "NL", "capacity": 1}),
    )
    .await;
    let r = c
        .get("/object/v1/private?_type=Plant&country=NL&capacity=lt(2)")
        .await;
    assert_eq!(
        r.body
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["_id"].clone())
            .collect::<Vec<_>>(),
        [json!("P99")]
    );
    c.delete("/object/v1/private/P99").await;
    // Changed, then deleted with the type: the same answers.
    c.post(
        "/type/v1",
        json!({"_id": "Plant", "_indexes": ["capacity"]}),
    )
    .await;
    assert_eq!(answers().await, before);
    assert_eq!(c.delete("/type/v1/private/Plant/*").await.status, 200);
    assert_eq!(answers().await, before);
}
