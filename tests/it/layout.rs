//! A database made by the release before the lean document layout (SQLite schema 17,
//! PostgreSQL schema 7) opens with this build, migrates in place and answers every read as it
//! did then: objects of three scopes (the public source, two tenants) with their versions,
//! reasons, tags, a deleted version and a deleted object, non-ASCII ids and names, a type with
//! three declared indexes, an unversioned type, a series of two versions and a curve of three
//! ondates; read by id, by version, by tag, as version lists, as lists filtered through the
//! declared indexes, by `_search` and `_searchinfo`, and as data.
//!
//! `tests/it/fixtures/layout-17/` holds the database (`sqlite.db` and its key; `postgres.sql`,
//! a `pg_dump --inserts` of the schema with `__SCHEMA__` for its name) and what each read
//! answered (`answers-sqlite.json`, `answers-postgres.json`), all made by that release:
//! `PLATFORM_WRITE_LAYOUT_FIXTURE=1 cargo test --test it layout::` (with
//! `PLATFORM_TEST_BACKEND=postgres` for the PostgreSQL pair) writes them again, from a fresh
//! database of the build that runs it. Only do that on the release a later layout migrates
//! from.

use crate::common::{on_postgres, Client, TestServer};
use platform_core::auth::Role;
use platform_core::Platform;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/fixtures/layout-17")
        .join(name)
}

fn writing() -> bool {
    std::env::var_os("PLATFORM_WRITE_LAYOUT_FIXTURE").is_some()
}

/// An Asset of the declared type, numbered `i`.
fn asset(i: u32, id: &str) -> Value {
    let class = ["gas", "power", "coal"][i as usize % 3];
    let country = ["DE", "NL", "GB"][i as usize % 3];
    json!({"_id": id, "_type": "Asset", "name": format!("{class} hub {i}"),
        "description": format!("a {class} location, number {i}"),
        "classification": class, "capacity": 100 * i, "country": country})
}

/// What the release wrote: every kind of document row a layout keeps.
async fn write_content(acme: &Client<'_>, beta: &Client<'_>, platform: &Client<'_>) {
    let ok = |r: crate::common::Resp, what: &str| {
        assert!(r.status < 300, "{what}: {} {:?}", r.status, r.body);
    };
    ok(
        acme.post(
            "/type/v1",
            json!({"_id": "Asset", "_indexes": ["classification", "capacity", "name"]}),
        )
        .await,
        "type",
    );
    ok(
        acme.post("/type/v1", json!({"_id": "Setting", "_versioned": false}))
            .await,
        "unversioned type",
    );
    for i in 0..24 {
        ok(
            acme.post("/object/v1", asset(i, &format!("A{i:02}"))).await,
            "asset",
        );
    }
    ok(
        acme.post(
            "/object/v1",
            json!({"_id": "MÜNCHEN-Süd", "_type": "Asset", "name": "Straße Ölhafen",
                "classification": "gas", "capacity": 777, "description": "ÉNERGIE über Nacht"}),
        )
        .await,
        "non-ASCII",
    );
    // Versions with reasons, tags on two of them, one version deleted, one object deleted.
    for v in 1..=4 {
        let mut a = asset(100 + v, "A00");
        a["rev"] = json!(v);
        ok(
            acme.post(&format!("/object/v1?_reason=revision%20{v}"), a)
                .await,
            "revision",
        );
    }
    ok(acme.put("/object/v1/private/A00/2/approved").await, "tag");
    ok(acme.put("/object/v1/private/A00/3/gold").await, "tag");
    ok(acme.delete("/object/v1/private/A00/4").await, "version");
    ok(
        acme.delete("/object/v1/private/A05?_reason=sold").await,
        "object",
    );
    for v in 1..=2 {
        ok(
            acme.post(
                "/object/v1",
                json!({"_id": "S", "_type": "Setting", "value": v}),
            )
            .await,
            "setting",
        );
    }
    // Data: a series saved twice (two versions of its points) and a curve of three ondates.
    ok(acme.post("/object/v1", json!({"_id": "NBP", "name": "NBP", "SPOT": {"_type": "VarTimeSeries",
        "calendar": "DAILY", "data": [{"time": "2024-07-01", "value": 1.5}, {"time": "2024-07-02", "value": 2.5}]}})).await, "series");
    ok(
        acme.post(
            "/object/v1",
            json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries",
        "data": [{"time": "2024-07-02", "value": 20.5}, {"time": "2024-07-03", "value": 3.5}]}}),
        )
        .await,
        "series",
    );
    for (n, ondate) in ["2024-03-01", "2024-03-04", "2024-03-05"]
        .iter()
        .enumerate()
    {
        ok(
            acme.post(
                "/object/v1",
                json!({"_id": "DE", "BASE": {"_type": "VarCurve", "units": "MWh",
            "currency": "EUR", "ondate": ondate, "contracts": [
                {"tenor": "M01", "value": 60.0 + n as f64}, {"tenor": "Q02", "value": 55.25}]}}),
            )
            .await,
            "curve",
        );
    }
    // Another tenant with the same ids, and the public source.
    for i in 0..6 {
        let mut a = asset(i + 50, &format!("A{i:02}"));
        a.as_object_mut().unwrap().remove("_type");
        ok(beta.post("/object/v1", a).await, "beta");
    }
    for i in 0..5 {
        ok(
            platform
                .post(
                    "/object/v1/public",
                    json!({"_id": format!("#PUB{i}"), "name": format!("public gas hub {i}"), "classification": "gas"}),
                )
                .await,
            "public",
        );
    }
    ok(
        platform
            .post(
                "/object/v1/public",
                json!({"_id": "#PUB0", "name": "public gas hub 0, renamed"}),
            )
            .await,
        "public v2",
    );
}

/// The reads compared, each by (client, path).
fn reads() -> Vec<(&'static str, String)> {
    let mut reads: Vec<(&str, String)> = Vec::new();
    for path in [
        "/object/v1/private?_sort=_id",
        "/object/v1/private?classification=gas&_sort=_id",
        "/object/v1/private?capacity=gt(1000)&_sort=capacity",
        "/object/v1/private?_type=Asset&classification=power&capacity=lt(2000)",
        "/object/v1/private?_type=Asset&_sort=-name&_limit=5",
        "/object/v1/private?_search=gas%20hub&_sort=_id",
        "/object/v1/private?_search=%C3%B6lhafen",
        "/object/v1/private?_searchinfo=a0",
        "/object/v1/private?_searchinfo=m%C3%BC",
        "/object/v1/all?_search=gas&_sort=_id",
        "/object/v1/public?_sort=_id",
        "/object/v1/public/%23PUB0/*",
        "/object/v1/private/A00",
        "/object/v1/private/A00/*",
        "/object/v1/private/A00/1",
        "/object/v1/private/A00/3",
        "/object/v1/private/A00/approved",
        "/object/v1/private/A00/gold",
        "/object/v1/private/A00/4",
        "/object/v1/private/A05",
        "/object/v1/private/A05/*",
        "/object/v1/private/M%C3%9CNCHEN-S%C3%BCd",
        "/object/v1/private/S/*",
        "/type/v1/private?_sort=_id",
        "/type/v1/private/Asset/*",
        "/data/v1/private/NBP:SPOT",
        "/data/v1/private/NBP:SPOT?_version=1",
        "/object/v1/private/NBP/*",
        "/data/v1/private/DE:BASE?_range=between(2024-03-01,2024-03-05)",
        "/data/v1/private/DE:BASE",
    ] {
        reads.push(("acme", path.to_string()));
    }
    for path in ["/object/v1/private?_sort=_id", "/object/v1/private/A01/*"] {
        reads.push(("beta", path.to_string()));
    }
    reads
}

/// Each read's status, total and body.
async fn answers(acme: &Client<'_>, beta: &Client<'_>) -> Vec<Value> {
    let mut out = Vec::new();
    for (who, path) in reads() {
        let c = if who == "acme" { acme } else { beta };
        let r = c.get(&path).await;
        let total = r.header("x-total-count");
        out.push(
            json!({"who": who, "path": path, "status": r.status, "total": total, "body": r.body}),
        );
    }
    out
}

fn answers_file() -> PathBuf {
    fixture(if on_postgres() {
        "answers-postgres.json"
    } else {
        "answers-sqlite.json"
    })
}

#[actix_rt::test]
async fn a_database_of_the_release_before_the_lean_layout_migrates_and_answers_the_same() {
    if writing() {
        return write_fixture().await;
    }
    let dir = tempfile::tempdir().unwrap();
    let (platform, pg_schema) = if on_postgres() {
        let schema =
            platform_core::store::postgres::testing::TestSchema::new().expect("PLATFORM_TEST_PG");
        let dump = std::fs::read_to_string(fixture("postgres.sql")).unwrap();
        assert!(
            dump.contains("INSERT INTO __SCHEMA__.platform_schema VALUES (7);"),
            "the fixture is of PostgreSQL schema 7"
        );
        let mut admin = platform_core::store::postgres::testing::admin(&schema.url).unwrap();
        admin
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS \"{s}\" CASCADE; {}",
                dump.replace("__SCHEMA__", &schema.schema),
                s = schema.schema
            ))
            .unwrap();
        let store = schema.store();
        let platform = Platform::new(
            std::sync::Arc::new(store),
            std::sync::Arc::new(platform_core::clock::SystemClock),
        );
        (platform, Some(schema))
    } else {
        let db = dir.path().join("platform.db");
        std::fs::copy(fixture("sqlite.db"), &db).unwrap();
        std::fs::copy(fixture("sqlite.db.key"), dir.path().join("platform.db.key")).unwrap();
        (Platform::open(&db).unwrap(), None)
    };
    // The database is of the release before the lean layout, and this build migrated it.
    let (was, now) = if let Some(schema) = &pg_schema {
        let mut admin = platform_core::store::postgres::testing::admin(&schema.url).unwrap();
        let version = admin
            .texts(&format!(
                "SELECT version::text FROM \"{}\".platform_schema",
                schema.schema
            ))
            .unwrap();
        (7, version[0].parse::<u32>().unwrap())
    } else {
        let version = |path: &Path| -> u32 {
            rusqlite::Connection::open(path)
                .unwrap()
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .unwrap()
        };
        let fixture_version = version(&fixture("sqlite.db"));
        assert_eq!(fixture_version, 17, "the fixture is of SQLite schema 17");
        (17, version(&dir.path().join("platform.db")))
    };
    let current = if on_postgres() {
        platform_core::store::postgres::schema_version()
    } else {
        platform_core::store::sqlite::schema_version()
    };
    assert_eq!(now, current, "migrated from schema {was}");
    let s = TestServer::with_platform(platform);
    let acme = s.client_of("acme", "ann", Role::Writer);
    let beta = s.client_of("beta", "bob", Role::Writer);
    let got = answers(&acme, &beta).await;
    let want: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(answers_file()).unwrap()).unwrap();
    assert_eq!(got.len(), want.len(), "the reads of the fixture");
    for (got, want) in got.iter().zip(&want) {
        assert_eq!(got, want, "{} as {}", want["path"], want["who"]);
    }
    // The fixture is not empty: the reads above compare real documents.
    let listed = want[0]["body"].as_array().map_or(0, Vec::len);
    assert!(listed > 20, "the first read lists {listed} documents");
}

/// Writes the fixture from a fresh database of this build (see the module's doc).
async fn write_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("platform.db");
    let (platform, schema) = if on_postgres() {
        let schema =
            platform_core::store::postgres::testing::TestSchema::new().expect("PLATFORM_TEST_PG");
        let platform = Platform::new(
            std::sync::Arc::new(schema.store()),
            std::sync::Arc::new(platform_core::clock::SystemClock),
        );
        (platform, Some(schema))
    } else {
        (Platform::open(&db).unwrap(), None)
    };
    let s = TestServer::with_platform(platform);
    let acme = s.client_of("acme", "ann", Role::Writer);
    let beta = s.client_of("beta", "bob", Role::Writer);
    let public = s.client_of("acme", "root", Role::Platform);
    write_content(&acme, &beta, &public).await;
    let answers = answers(&acme, &beta).await;
    std::fs::create_dir_all(fixture("")).unwrap();
    std::fs::write(
        answers_file(),
        serde_json::to_string_pretty(&answers).unwrap() + "\n",
    )
    .unwrap();
    s.platform.close().unwrap();
    if let Some(schema) = schema {
        let out = std::process::Command::new("pg_dump")
            .args(["--inserts", "--no-owner", "--no-privileges", "--schema"])
            .arg(&schema.schema)
            .arg(&schema.url)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // (without psql's meta-commands, `\restrict` and the like: the test runs the SQL alone)
        let text: String = String::from_utf8(out.stdout)
            .unwrap()
            .replace(&schema.schema, "__SCHEMA__")
            .lines()
            .filter(|line| !line.starts_with('\\'))
            .map(|line| format!("{line}\n"))
            .collect();
        std::fs::write(fixture("postgres.sql"), text).unwrap();
    } else {
        std::fs::copy(&db, fixture("sqlite.db")).unwrap();
        std::fs::copy(dir.path().join("platform.db.key"), fixture("sqlite.db.key")).unwrap();
    }
}
