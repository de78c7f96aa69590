//! The seeded corpus of the benches (`benches/corpus.rs`), shared with the tests: what the
//! side-by-side comparison (W5) asks of 100,000 objects, asked here of a few hundred over HTTP,
//! gives what a plain reading of the corpus gives.

#[path = "../../benches/corpus.rs"]
mod generator;

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::Value;

#[actix_rt::test]
async fn the_benches_corpus_filters_and_searches_as_read_plainly() {
    let objects = generator::objects(400, 42);
    assert_eq!(objects, generator::objects(400, 42), "the corpus is seeded");
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    let r = c.post("/object/v1", Value::Array(objects.clone())).await;
    assert_eq!(r.status, 200, "{:?}", r.body);

    let filtered = objects
        .iter()
        .filter(|o| o["classification"] == "gas" && o["capacity"].as_u64().unwrap() > 500)
        .count() as u64;
    assert!(filtered > 10);
    let r = c
        .get("/object/v1/private?classification=gas&capacity=gt(500)&_limit=10")
        .await;
    assert_eq!((r.status, r.total()), (200, filtered));

    let text = |o: &Value| {
        ["_id", "name", "description", "classification"]
            .iter()
            .map(|k| o[k].as_str().unwrap_or_default().to_lowercase())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let searched = objects
        .iter()
        .filter(|o| text(o).contains("north") && text(o).contains("gas"))
        .count() as u64;
    assert!(searched > 0);
    let r = c
        .get("/object/v1/private?_search=north%20gas&_limit=10")
        .await;
    assert_eq!((r.status, r.total()), (200, searched));
}
