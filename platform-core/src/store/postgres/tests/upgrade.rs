//! A database of schema version 6 (no record of its key, the documents' earlier layout) opens with
//! this build: it migrates, records the key it is opened with, and keeps its objects and its
//! secrets readable; from then on another key is refused.

use super::super::testing::{admin, TestSchema};
use super::super::{schema_version, PgOptions};
use crate::documents::SaveOptions;
use crate::store::Collection;
use crate::{ErrorCode, Platform};
use serde_json::json;

fn open(schema: &TestSchema, key: &std::path::Path, init: bool) -> crate::Result<Platform> {
    let options = PgOptions {
        schema: schema.schema.clone(),
        init,
        ..PgOptions::default()
    };
    Platform::open_postgres_with(&schema.url, key, &options)
}

#[test]
fn a_database_of_the_previous_schema_migrates_and_records_its_key() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("db.key");
    let platform = open(&schema, &key, true).unwrap();
    // The local principal of a database command acts as its platform admin.
    let who = platform.tenancy().local_principal("acme", "ann").unwrap();
    platform
        .objects()
        .save(
            &who,
            Collection::Object,
            json!({"_id": "KEPT", "_type": "Thing", "price": 1.5}),
            &SaveOptions::default(),
        )
        .unwrap();
    platform
        .secrets()
        .save(&who, &crate::api::secrets::Secret::new("hook", "s3cret"))
        .unwrap();
    drop(platform);

    // What the release of schema 6 left: its layout of documents, no record of the key.
    let mut client = admin(&schema.url).unwrap();
    let s = &schema.schema;
    super::layout::to_step_7(&mut client, s, 6);
    client
        .batch_execute(&format!("DROP TABLE \"{s}\".platform_key"))
        .unwrap();

    let platform = open(&schema, &key, false).unwrap();
    let version = client
        .texts(&format!(
            "SELECT version::text FROM \"{s}\".platform_schema"
        ))
        .unwrap();
    assert_eq!(version, vec![schema_version().to_string()]);
    assert_eq!(
        client
            .texts(&format!("SELECT fingerprint FROM \"{s}\".platform_key"))
            .unwrap(),
        vec![platform.key_fingerprint().unwrap()]
    );
    let kept = platform
        .objects()
        .get(
            &who,
            Collection::Object,
            crate::ids::Source::Private,
            "KEPT",
            None,
            None,
        )
        .unwrap();
    assert_eq!(kept["price"], json!(1.5));
    assert_eq!(platform.secrets().value(&who, "hook").unwrap(), "s3cret");
    drop(platform);

    // Another key is refused from now on, naming both fingerprints.
    let other = dir.path().join("other.key");
    crate::seal::SecretKey::generate()
        .unwrap()
        .write_new(&other)
        .unwrap();
    let e = open(&schema, &other, false).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conflict, "{e}");
    assert!(e.to_string().contains("is not the key of"), "{e}");
}
