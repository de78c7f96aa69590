//! `platform` behind pgbouncer in transaction pooling (`--pg-pooler transaction`): two servers
//! and the CLI through a pgbouncer of the test's own (`scripts/pgbouncer.sh` installs it) in
//! front of `PLATFORM_TEST_PG`, sharing two server connections.

use super::multinode::call;
use super::{platform, Server, BIN};
use platform_core::store::postgres::bouncer::Bouncer;
use platform_core::store::postgres::testing::TestDatabase;
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// `platform serve` through the pooler at `url`, its listener on `direct`.
fn node(url: &str, direct: &str, key: &Path) -> Server {
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--db", url, "--addr", "127.0.0.1:0"])
        .args(["--pg-pooler", "transaction", "--pg-listen-db", direct])
        .arg("--key-file")
        .arg(key);
    Server::spawn(command)
}

#[test]
fn two_servers_and_the_cli_behind_pgbouncer_in_transaction_pooling() {
    let Some(db) = TestDatabase::new() else {
        return;
    };
    let bouncer = Bouncer::start(&db.url, "");
    let url = bouncer.url(&db.url);
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("platform.key");
    let key_file = key.to_str().unwrap();

    // Without the mode, the pooler refuses the connection, and the error says what to do.
    let out = platform(&["init", "--db", &url, "--key-file", key_file]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("--pg-pooler transaction"), "{said}");
    assert!(!key.exists(), "a refused init made a key");
    // The key provisioned for the nodes, the first of which makes the admin.
    super::provisioned_key(dir.path());

    let a = node(&url, &db.url, &key);
    assert!(
        a.admin_token.starts_with("pt_"),
        "the first node makes the admin"
    );
    let b = node(&url, &db.url, &key);
    let admin = a.admin_token.clone();

    // The CLI through the pooler.
    let out = platform(&[
        "token",
        "create",
        "--db",
        &url,
        "--pg-pooler",
        "transaction",
        "--key-file",
        key_file,
        "--tenant",
        "default",
        "--user",
        "ann",
        "--role",
        "admin",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ann = String::from_utf8(out.stdout).unwrap().trim().to_string();

    // Writers and readers on both nodes at once: every version stored once, without gaps.
    const EACH: usize = 15;
    std::thread::scope(|s| {
        for (w, server) in [(0, &a), (1, &b), (2, &a), (3, &b)] {
            let (url, admin, ann) = (&server.url, &admin, &ann);
            s.spawn(move || {
                for i in 0..EACH {
                    call(
                        "POST",
                        &format!("{url}/object/v1"),
                        admin,
                        Some(json!({"_id": "X", format!("f{w}_{i}"): i})),
                    );
                    call("GET", &format!("{url}/object/v1/private/X"), ann, None);
                }
            });
        }
    });
    let versions = call(
        "GET",
        &format!("{}/object/v1/private/X/*", b.url),
        &ann,
        None,
    );
    let mut numbers: Vec<u64> = versions
        .as_array()
        .unwrap_or_else(|| panic!("{versions}"))
        .iter()
        .map(|v| v["_version"].as_u64().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, (1..=4 * EACH as u64).collect::<Vec<_>>());
    let x = call("GET", &format!("{}/object/v1/private/X", a.url), &ann, None);
    for w in 0..4 {
        for i in 0..EACH {
            assert_eq!(x[format!("f{w}_{i}")], i, "f{w}_{i} lost: {x}");
        }
    }
    drop((a, b));
}

#[test]
fn a_transaction_pooler_needs_a_direct_listener_and_a_known_mode() {
    // No database is reached: both are refused first.
    let out = platform(&[
        "serve",
        "--db",
        "postgres://platform@127.0.0.1:9/platform",
        "--addr",
        "127.0.0.1:0",
        "--pg-pooler",
        "transaction",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("--pg-listen-db"), "{said}");
    let out = platform(&[
        "token",
        "list",
        "--db",
        "postgres://platform@127.0.0.1:9/platform",
        "--pg-pooler",
        "session",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("not a pooler mode"), "{said}");
    // A database file has no pooler.
    let dir = tempfile::tempdir().unwrap();
    let db = super::new_db(dir.path());
    let out = platform(&[
        "token",
        "list",
        "--db",
        db.to_str().unwrap(),
        "--pg-pooler",
        "transaction",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(said.contains("postgres:// URL"), "{said}");
}
