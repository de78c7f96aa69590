//! Fail-over over private PostgreSQL clusters: while the primary is stopped, GETs are served by
//! a read replica that had replayed what the primary had when last seen, a read that must see a
//! later position answers 503, writes answer 503 and `/ready` says the node is degraded; when
//! the primary is back, all is as before. A `--db` URL of several hosts with
//! `target_session_attrs=read-write` follows a promotion without a restart, the connections
//! to the old primary (read-only now) dropped; replicas that skip or come back say so once in
//! the log.

use super::replicas::{get, ready, save, wait_replica, MAX_LAG};
use super::{platform, BIN};
use platform_core::api::interface::{format_position, parse_position};
use platform_core::store::postgres::cluster::PrivateCluster;
use platform_core::store::postgres::testing::admin;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `platform serve` whose every log line is kept, from the first (killed when
/// dropped).
pub(super) struct Node {
    child: Child,
    pub(super) url: String,
    pub(super) admin_token: String,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Node {
    /// Serves `command` (a `platform serve` on `--addr 127.0.0.1:0`), once it listens.
    pub(super) fn spawn(mut command: Command) -> Node {
        let mut child = command
            .env("PLATFORM_LOG", "info")
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let kept = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                kept.lock().unwrap().push(line);
            }
        });
        let started = Instant::now();
        let mut node = Node {
            child,
            url: String::new(),
            admin_token: String::new(),
            lines,
        };
        while node.url.is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the server did not start:\n{}",
                node.lines("").join("\n")
            );
            if let Ok(Some(status)) = node.child.try_wait() {
                panic!(
                    "the server ended ({status}):\n{}",
                    node.lines("").join("\n")
                );
            }
            for line in node.lines("") {
                if let Some(t) = line
                    .split("admin token (shown once, keep it safe): ")
                    .nth(1)
                {
                    node.admin_token = t.trim().to_string();
                }
                if let Some(u) = line.strip_prefix("listening on ") {
                    node.url = u.trim().to_string();
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        node
    }

    /// The lines logged so far that contain `text`.
    pub(super) fn lines(&self, text: &str) -> Vec<String> {
        let lines = self.lines.lock().unwrap();
        lines.iter().filter(|l| l.contains(text)).cloned().collect()
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `platform serve` on `db` with the read replica `replica`.
fn serve(db: &str, replica: &str, key: &std::path::Path) -> Node {
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--db", db, "--addr", "127.0.0.1:0"])
        .args(["--read-replica", replica, "--replica-max-lag", MAX_LAG])
        .arg("--key-file")
        .arg(key);
    Node::spawn(command)
}

/// A token of a new user with `role`, made by the CLI.
fn token(db: &str, key: &std::path::Path, user: &str, role: &str) -> String {
    let key = key.to_str().unwrap();
    let out = platform(&[
        "token",
        "create",
        "--db",
        db,
        "--key-file",
        key,
        "--tenant",
        "default",
        "--user",
        user,
        "--role",
        role,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A save's status (no panic on a failure).
fn try_save(base: &str, token: &str, body: Value) -> (u16, Value) {
    match ureq::post(&format!("{base}/object/v1"))
        .set("Authorization", &format!("Bearer {token}"))
        .send_json(body)
    {
        Ok(r) => (r.status(), r.into_json().unwrap_or(Value::Null)),
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap_or(Value::Null)),
        Err(e) => panic!("POST {base}: {e}"),
    }
}

/// `/ready`'s status code and body.
fn ready_status(base: &str) -> (u16, Value) {
    match ureq::get(&format!("{base}/ready")).call() {
        Ok(r) => (r.status(), r.into_json().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap()),
        Err(e) => panic!("{e}"),
    }
}

/// Waits (at most 20 s) until `/ready`'s body has `status`.
fn wait_status(base: &str, status: &str) -> (u16, Value) {
    let started = Instant::now();
    loop {
        let r = ready_status(base);
        if r.1["status"] == status || started.elapsed() > Duration::from_secs(20) {
            return r;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A position of the write-ahead log, read with `sql` on `url`.
fn position(url: &str, sql: &str) -> u64 {
    let text = admin(url).unwrap().texts(sql).unwrap();
    parse_position(&text[0]).unwrap()
}

#[test]
fn while_the_primary_is_down_a_replica_serves_reads_and_ready_says_degraded() {
    let Some(primary) = PrivateCluster::start() else {
        return;
    };
    let replica = primary.replica();
    let dir = tempfile::tempdir().unwrap();
    let key = super::provisioned_key(dir.path());
    let node = serve(&primary.url, &replica.url, &key);
    let base = node.url.clone();
    let ann = node.admin_token.clone();
    let bob = token(&primary.url, &key, "bob", "reader");
    let (saved, _) = save(&base, &ann, json!({"_id": "A", "n": 1}));
    assert_eq!(saved["_version"], 1);
    let (saved, at) = save(&base, &ann, json!({"_id": "B", "n": 2}));
    assert_eq!(saved["_version"], 1);
    // The replica replays both, and the samples see it serving.
    let a = format!("{base}/object/v1/private/A");
    let list = format!("{base}/object/v1/private");
    let r = wait_replica(&base, "serving");
    assert_eq!(r["status"], "ready", "{r}");
    let replayed = Instant::now();
    while position(&replica.url, "SELECT pg_last_wal_replay_lsn()::text")
        < parse_position(&at).unwrap()
    {
        assert!(
            replayed.elapsed() < Duration::from_secs(10),
            "the replica replays"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));

    primary.stop();
    // Every GET is answered by the replica: by id, a list, with the position of the last
    // write, by a token known before (bob) and by the token that wrote (ann).
    let (status, _) = ready_status(&base);
    for i in 0..20 {
        for (who, token) in [("ann", &ann), ("bob", &bob)] {
            let (code, got) = get(&a, token, Some(&at));
            assert_eq!(
                (code, got["n"].clone()),
                (200, json!(1)),
                "{who}, read {i}: {got}"
            );
            let (code, got) = get(&list, token, None);
            assert_eq!(code, 200, "{who}, list {i}: {got}");
        }
    }
    // A read that must see a later write than the replica has answers 503.
    let later = format_position(parse_position(&at).unwrap() + (1 << 24));
    let (code, got) = get(&a, &bob, Some(&later));
    assert_eq!(code, 503, "a read past the replica's position: {got}");
    // Writes answer 503.
    let (code, got) = try_save(&base, &ann, json!({"_id": "C"}));
    assert_eq!(code, 503, "{got}");
    // /ready: degraded, 200, and says why.
    let (code, r) = wait_status(&base, "degraded");
    assert_eq!(
        (code, r["status"].clone()),
        (200, json!("degraded")),
        "{r} (first: {status})"
    );
    assert_eq!(r["database"], "down", "{r}");
    assert_eq!(r["replicas"][0]["status"], "serving", "{r}");
    assert!(
        r["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("read replicas"),
        "{r}"
    );

    // The primary back: writes, reads, /ready as before.
    primary.start_again();
    let (code, r) = wait_status(&base, "ready");
    assert_eq!((code, r["database"].clone()), (200, json!("up")), "{r}");
    let back = Instant::now();
    let (code, got) = loop {
        let (code, got) = try_save(&base, &ann, json!({"_id": "C", "n": 3}));
        if code == 200 || back.elapsed() > Duration::from_secs(10) {
            break (code, got);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(code, 200, "a write once the primary is back: {got}");
    let (code, got) = get(&format!("{base}/object/v1/private/C"), &ann, None);
    assert_eq!((code, got["n"].clone()), (200, json!(3)), "{got}");
}

#[test]
fn a_url_of_several_hosts_follows_a_promotion_without_a_restart() {
    let Some(old) = PrivateCluster::start() else {
        return;
    };
    let new = old.replica();
    let hosts = |first: u16, second: u16, attrs: &str| {
        format!(
            "postgres://postgres@127.0.0.1:{first},127.0.0.1:{second}/postgres?target_session_attrs={attrs}"
        )
    };
    let db = hosts(old.port(), new.port(), "read-write");
    let replicas = hosts(new.port(), old.port(), "read-only");
    let dir = tempfile::tempdir().unwrap();
    let key = super::provisioned_key(dir.path());
    let node = serve(&db, &replicas, &key);
    let base = node.url.clone();
    let ann = node.admin_token.clone();
    let (saved, _) = save(&base, &ann, json!({"_id": "A", "n": 1}));
    assert_eq!(saved["_version"], 1);
    let r = wait_replica(&base, "serving");
    assert_eq!(r["replicas"][0]["status"], "serving", "{r}");
    assert!(
        node.lines("read replica serving").len() == 1,
        "one line when the replica serves: {:?}",
        node.lines("read replica")
    );

    // The old primary turns read-only (as one demoted would: its sessions stay open), the
    // replica replays all it wrote and is promoted.
    let mut on_old = admin(&old.url).unwrap();
    on_old
        .batch_execute("ALTER SYSTEM SET default_transaction_read_only = on")
        .unwrap();
    on_old.batch_execute("SELECT pg_reload_conf()").unwrap();
    // Its sessions read the setting when next idle: the server's idle connections too.
    std::thread::sleep(Duration::from_millis(500));
    let end = position(&old.url, "SELECT pg_current_wal_lsn()::text");
    let waited = Instant::now();
    while position(&new.url, "SELECT pg_last_wal_replay_lsn()::text") < end {
        assert!(
            waited.elapsed() < Duration::from_secs(10),
            "the replica replays"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let promoted = Instant::now();
    admin(&new.url)
        .unwrap()
        .batch_execute("SELECT pg_promote(true, 30)")
        .unwrap();

    // Writes go on at the new primary, without a restart; every failure meanwhile is a 503.
    let mut failures = Vec::new();
    let mut n = 1;
    let took = loop {
        n += 1;
        let (code, got) = try_save(&base, &ann, json!({"_id": "A", "n": n}));
        if code == 200 {
            break promoted.elapsed();
        }
        failures.push((code, got));
        assert!(
            promoted.elapsed() < Duration::from_secs(10),
            "no write 10 s after the promotion: {failures:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    eprintln!(
        "failover: writes again {:.2} s after the promotion ({} failed meanwhile)",
        took.as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.iter().all(|(code, _)| *code == 503),
        "a write meanwhile answered other than 503: {failures:?}"
    );
    // Every later write succeeds (no connection left to the read-only server), and reads see
    // them.
    for i in 0..20 {
        let (code, got) = try_save(&base, &ann, json!({"_id": "A", "n": 100 + i}));
        assert_eq!(code, 200, "write {i} after the promotion: {got}");
    }
    let on_new = admin(&new.url)
        .unwrap()
        .texts("SELECT count(*)::text FROM versions WHERE id = 'A'")
        .unwrap();
    assert_eq!(on_new, ["22"], "every version is on the new primary");
    let (code, got) = get(&format!("{base}/object/v1/private/A"), &ann, None);
    assert_eq!(
        (code, got["n"].clone(), got["_version"].clone()),
        (200, json!(119), json!(22)),
        "{got}"
    );

    // The replica URL finds no replica now: it is skipped, once, with why; the node is ready.
    let r = wait_replica(&base, "skipped");
    assert_eq!(r["status"], "ready", "{r}");
    std::thread::sleep(Duration::from_millis(500));
    let skipped = node.lines("read replica skipped");
    assert_eq!(skipped.len(), 1, "one line when skipped: {skipped:?}");
    // The URL of several hosts is named whole, in the log and by /ready.
    assert!(skipped[0].contains(&replicas), "{skipped:?}");
    let r = ready(&base);
    assert_eq!(r["replicas"][0]["status"], "skipped", "{r}");
    assert_eq!(r["replicas"][0]["name"], replicas.as_str(), "{r}");
}

#[test]
fn a_replica_that_comes_back_says_so_once() {
    let Some(primary) = PrivateCluster::start() else {
        return;
    };
    let replica = primary.replica();
    // Down at start: the node serves, and the replica is skipped.
    replica.stop();
    let dir = tempfile::tempdir().unwrap();
    let key = super::provisioned_key(dir.path());
    let node = serve(&primary.url, &replica.url, &key);
    let r = ready(&node.url);
    assert_eq!(r["status"], "ready", "{r}");
    assert_eq!(r["replicas"][0]["status"], "skipped", "{r}");
    std::thread::sleep(Duration::from_millis(1000));
    let skipped = node.lines("read replica skipped");
    assert_eq!(skipped.len(), 1, "one line, not one a sample: {skipped:?}");
    assert!(skipped[0].contains("does not answer"), "{skipped:?}");
    // Back: one line, and it serves.
    replica.start_again();
    let r = wait_replica(&node.url, "serving");
    assert_eq!(r["replicas"][0]["status"], "serving", "{r}");
    std::thread::sleep(Duration::from_millis(1000));
    let serving = node.lines("read replica serving");
    assert_eq!(serving.len(), 1, "{serving:?}");
    assert!(serving[0].contains("again"), "{serving:?}");
    assert_eq!(node.lines("read replica skipped").len(), 1);
}
