//! A cluster node never starts on a guess: a PostgreSQL database records the fingerprint of its
//! key at `platform init`, and a server or command with another key, or with none, refuses to
//! start and changes nothing; nodes starting together on a new database make one admin and
//! record one key; `serve --no-create` refuses a database that is not initialised, and a server
//! that makes a new one says so loudly.

use super::{platform, provisioned_key, Server, BIN};
use platform_core::api::secrets::SecretKey;
use platform_core::store::postgres::testing::{admin, TestDatabase};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The fingerprint of the key in `file`, as the platform names it.
fn fingerprint(file: &Path) -> String {
    SecretKey::from_hex(&std::fs::read_to_string(file).unwrap())
        .unwrap()
        .fingerprint()
}

/// The first column of the rows `sql` answers on the database.
fn texts(db: &TestDatabase, sql: &str) -> Vec<String> {
    admin(&db.url).unwrap().texts(sql).unwrap()
}

/// How many tables the database's `public` schema holds.
fn tables(db: &TestDatabase) -> String {
    texts(
        db,
        "SELECT count(*)::text FROM information_schema.tables WHERE table_schema = 'public'",
    )
    .remove(0)
}

#[track_caller]
fn refused(out: &Output, says: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for s in says {
        assert!(stderr.contains(s), "{s:?} not in: {stderr}");
    }
    stderr
}

fn serve_args<'a>(url: &'a str, key: &'a str) -> Vec<&'a str> {
    vec![
        "serve",
        "--db",
        url,
        "--key-file",
        key,
        "--addr",
        "127.0.0.1:0",
    ]
}

fn node(url: &str, key: &Path) -> Server {
    let mut command = Command::new(BIN);
    command.args(serve_args(url, key.to_str().unwrap()));
    Server::spawn(command)
}

#[test]
fn a_node_with_no_key_or_another_key_refuses_to_start_and_only_init_makes_one() {
    let Some(db) = TestDatabase::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("db.key");
    let key_text = key.to_str().unwrap();

    // No key file: the server and a command refuse, and make nothing (no key, no table).
    refused(
        &platform(&serve_args(&db.url, key_text)),
        &["no key file", key_text, "platform init --db"],
    );
    refused(
        &platform(&["token", "list", "--db", &db.url, "--key-file", key_text]),
        &["no key file"],
    );
    assert!(!key.exists(), "a server made a key");
    assert_eq!(tables(&db), "0", "a refused server made tables");

    // init makes the key (mode 0600), records it, and says its fingerprint.
    let out = platform(&["init", "--db", &db.url, "--key-file", key_text]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("pt_"));
    let ours = fingerprint(&key);
    assert!(stderr.contains(&ours), "{stderr}");
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(
        texts(&db, "SELECT fingerprint FROM public.platform_key"),
        vec![ours.clone()]
    );

    // Another key: the server and a command refuse, naming both fingerprints.
    let other_dir = tempfile::tempdir().unwrap();
    let other = provisioned_key(other_dir.path());
    let theirs = fingerprint(&other);
    refused(
        &platform(&serve_args(&db.url, other.to_str().unwrap())),
        &[&ours, &theirs, "is not the key of"],
    );
    refused(
        &platform(&[
            "token",
            "create",
            "--db",
            &db.url,
            "--key-file",
            other.to_str().unwrap(),
            "--tenant",
            "default",
            "--user",
            "eve",
            "--role",
            "platform",
        ]),
        &[&ours, &theirs],
    );
    // init again elsewhere, without the key: refused, and no key file made.
    let lost = other_dir.path().join("new.key");
    refused(
        &platform(&[
            "init",
            "--db",
            &db.url,
            "--key-file",
            lost.to_str().unwrap(),
        ]),
        &["initialised already"],
    );
    assert!(!lost.exists());
    assert_eq!(
        texts(&db, "SELECT count(*)::text FROM public.tokens"),
        vec!["1"],
        "a refused node or command made a token"
    );

    // With its key the node serves.
    let server = node(&db.url, &key);
    assert_eq!(server.admin_token, "", "the admin was made by init");
    let ready = ureq::get(&format!("{}/ready", server.url)).call().unwrap();
    assert_eq!(ready.status(), 200);
}

#[test]
fn nodes_starting_together_on_a_new_database_make_one_admin_and_record_one_key() {
    let Some(db) = TestDatabase::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = provisioned_key(dir.path());
    let servers: Vec<Server> = std::thread::scope(|s| {
        let started: Vec<_> = (0..3).map(|_| s.spawn(|| node(&db.url, &key))).collect();
        started.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let printed: Vec<&str> = servers
        .iter()
        .map(|s| s.admin_token.as_str())
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(printed.len(), 1, "one admin token is printed: {printed:?}");
    for (sql, want) in [
        ("SELECT count(*)::text FROM public.tenants", "1"),
        ("SELECT count(*)::text FROM public.users", "1"),
        ("SELECT count(*)::text FROM public.tokens", "1"),
    ] {
        assert_eq!(texts(&db, sql), vec![want], "{sql}");
    }
    assert_eq!(
        texts(&db, "SELECT fingerprint FROM public.platform_key"),
        vec![fingerprint(&key)]
    );
    // The token works on every node.
    for server in &servers {
        let me = ureq::get(&format!("{}/ready", server.url))
            .set("Authorization", &format!("Bearer {}", printed[0]))
            .call()
            .unwrap();
        assert_eq!(me.status(), 200);
    }
}

#[test]
fn two_inits_at_once_on_a_new_database_leave_one_key() {
    let Some(db) = TestDatabase::new() else {
        return;
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let keys = [a.path().join("a.key"), b.path().join("b.key")];
    let children: Vec<_> = keys
        .iter()
        .map(|k| {
            Command::new(BIN)
                .args(["init", "--db", &db.url, "--key-file", k.to_str().unwrap()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let won: Vec<usize> = (0..2).filter(|&i| outs[i].status.success()).collect();
    assert_eq!(
        won.len(),
        1,
        "{:?}",
        outs.iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).to_string())
            .collect::<Vec<_>>()
    );
    let (winner, loser) = (won[0], 1 - won[0]);
    assert_eq!(outs[loser].status.code(), Some(2));
    assert!(keys[winner].exists());
    assert!(
        !keys[loser].exists(),
        "the refused init left its key file: {}",
        String::from_utf8_lossy(&outs[loser].stderr)
    );
    assert_eq!(
        texts(&db, "SELECT fingerprint FROM public.platform_key"),
        vec![fingerprint(&keys[winner])]
    );
    assert_eq!(
        texts(&db, "SELECT count(*)::text FROM public.tokens"),
        vec!["1"]
    );
}

/// `platform serve ARGS` until it listens: the lines it wrote to stderr before, and the server.
fn serve_reading_log(args: &[&str], env: &[(&str, &str)]) -> (Vec<String>, std::process::Child) {
    let mut child = Command::new(BIN)
        .args(args)
        .envs(env.iter().copied())
        .env("PLATFORM_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    let mut reader = BufReader::new(child.stderr.take().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let listening = line.starts_with("listening on");
        lines.push(line);
        if listening {
            break;
        }
    }
    (lines, child)
}

#[test]
fn no_create_refuses_a_database_that_is_not_initialised_and_a_new_one_is_announced() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.db");
    let missing_text = missing.to_str().unwrap();
    let says = [missing_text, "not initialised", "platform init --db"];
    refused(
        &platform(&[
            "serve",
            "--db",
            missing_text,
            "--addr",
            "127.0.0.1:0",
            "--no-create",
        ]),
        &says,
    );
    let out = Command::new(BIN)
        .args(["serve", "--db", missing_text, "--addr", "127.0.0.1:0"])
        .env("PLATFORM_NO_CREATE", "1")
        .output()
        .unwrap();
    refused(&out, &says);
    assert!(!missing.exists(), "--no-create made the file");

    // Without it a new file is made, and the log says so at warning level.
    let (lines, mut child) = serve_reading_log(
        &["serve", "--db", missing_text, "--addr", "127.0.0.1:0"],
        &[],
    );
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("WARN") && l.contains("NEW, EMPTY database")),
        "{lines:?}"
    );
    // Now initialised: --no-create serves it.
    let (lines, mut child) = serve_reading_log(
        &[
            "serve",
            "--db",
            missing_text,
            "--addr",
            "127.0.0.1:0",
            "--no-create",
        ],
        &[],
    );
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        lines.last().is_some_and(|l| l.starts_with("listening on")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("NEW, EMPTY")), "{lines:?}");

    // PostgreSQL: a database without the platform's tables is refused and left as it was.
    let Some(db) = TestDatabase::new() else {
        return;
    };
    let key = provisioned_key(dir.path());
    let key_text = key.to_str().unwrap();
    let mut args = serve_args(&db.url, key_text);
    args.push("--no-create");
    refused(
        &platform(&args),
        &["has no platform tables", "not initialised"],
    );
    assert_eq!(tables(&db), "0");
    let out = platform(&["init", "--db", &db.url, "--key-file", key_text]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (lines, mut child) = serve_reading_log(&args, &[]);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        lines.last().is_some_and(|l| l.starts_with("listening on")),
        "{lines:?}"
    );
}
