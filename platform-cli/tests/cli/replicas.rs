//! `platform serve --read-replica`: a real streaming replica of a private PostgreSQL cluster
//! serves GETs, a client reads its own writes (by the position a write answers, or by its
//! token), a replica that is paused or stopped is skipped with no error to clients, and a
//! `--read-replica` that is not a replica or does not answer at start is skipped (logged, and
//! shown by `/ready`), never a reason not to serve.

use super::{platform, Server, BIN};
use platform_core::store::postgres::cluster::PrivateCluster;
use platform_core::store::postgres::testing::admin;
use serde_json::{json, Value};
use std::process::Command;
use std::time::{Duration, Instant};

pub(super) const MAX_LAG: &str = "2";

fn serve(primary: &str, replica: &str, key: &std::path::Path) -> Server {
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--db", primary, "--addr", "127.0.0.1:0"])
        .args(["--read-replica", replica, "--replica-max-lag", MAX_LAG])
        .arg("--key-file")
        .arg(key);
    Server::spawn(command)
}

/// A GET: its status, the object's version (if any) and body.
pub(super) fn get(url: &str, token: &str, position: Option<&str>) -> (u16, Value) {
    let mut req = ureq::get(url).set("Authorization", &format!("Bearer {token}"));
    if let Some(p) = position {
        req = req.set("x-platform-lsn", p);
    }
    match req.call() {
        Ok(r) => (r.status(), r.into_json().unwrap_or(Value::Null)),
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap_or(Value::Null)),
        Err(e) => panic!("GET {url}: {e}"),
    }
}

/// A save: the object and the commit position its answer carries.
pub(super) fn save(base: &str, token: &str, body: Value) -> (Value, String) {
    let res = ureq::post(&format!("{base}/object/v1"))
        .set("Authorization", &format!("Bearer {token}"))
        .send_json(body)
        .unwrap();
    let position = res
        .header("x-platform-lsn")
        .expect("a write answers its commit position")
        .to_string();
    (res.into_json().unwrap(), position)
}

/// How many reads the server sent to replicas (its metrics).
pub(super) fn replica_reads(base: &str) -> u64 {
    let text = ureq::get(&format!("{base}/metrics"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    text.lines()
        .filter(|l| l.starts_with("platform_db_reads_total") && l.contains("server=\"replica\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum::<f64>() as u64
}

pub(super) fn ready(base: &str) -> Value {
    let res = ureq::get(&format!("{base}/ready")).call();
    match res {
        Ok(r) => r.into_json().unwrap(),
        Err(ureq::Error::Status(_, r)) => r.into_json().unwrap(),
        Err(e) => panic!("{e}"),
    }
}

/// Waits until `/ready` reports the replica as `status` (or 20 s passed).
pub(super) fn wait_replica(base: &str, status: &str) -> Value {
    let started = Instant::now();
    loop {
        let r = ready(base);
        if r["replicas"][0]["status"] == status || started.elapsed() > Duration::from_secs(20) {
            return r;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_read_replica_serves_reads_and_clients_read_their_own_writes() {
    let Some(primary) = PrivateCluster::start() else {
        return;
    };
    let replica = primary.replica();
    let dir = tempfile::tempdir().unwrap();
    let key = super::provisioned_key(dir.path());
    let key_text = key.to_str().unwrap();

    // Skipped at start, with a warning each, and served without: a replica that accepts
    // writes (the primary), one that does not answer.
    let ann = {
        let down = "postgres://postgres@127.0.0.1:1/postgres";
        let mut command = Command::new(BIN);
        command
            .args(["serve", "--db", &primary.url, "--addr", "127.0.0.1:0"])
            .args(["--read-replica", &primary.url, "--read-replica", down])
            .arg("--key-file")
            .arg(&key);
        let node = super::failover::Node::spawn(command);
        let r = ready(&node.url);
        assert_eq!(r["status"], "ready", "{r}");
        for (i, says) in [(0, "not a replica"), (1, "does not answer")] {
            assert_eq!(r["replicas"][i]["status"], "skipped", "{r}");
            assert!(
                r["replicas"][i]["reason"]
                    .as_str()
                    .unwrap_or_default()
                    .contains(says),
                "{r}"
            );
        }
        let skipped = node.lines("read replica skipped");
        assert_eq!(skipped.len(), 2, "one line for each: {skipped:?}");
        assert!(
            skipped[0].contains("not a replica") && skipped[1].contains("does not answer"),
            "{skipped:?}"
        );
        node.admin_token.clone()
    };

    let node = serve(&primary.url, &replica.url, &key);
    let base = node.url.clone();
    let out = platform(&[
        "token",
        "create",
        "--db",
        &primary.url,
        "--key-file",
        key_text,
        "--tenant",
        "default",
        "--user",
        "bob",
        "--role",
        "admin",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bob = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let r = wait_replica(&base, "serving");
    assert_eq!(r["status"], "ready", "{r}");
    assert_eq!(r["replicas"][0]["status"], "serving", "{r}");
    assert!(
        r["replicas"][0]["name"]
            .as_str()
            .unwrap()
            .contains("127.0.0.1"),
        "{r}"
    );

    // A write answers its position; a read that sends it back sees the write.
    let (saved, at) = save(&base, &ann, json!({"_id": "A", "n": 1}));
    assert_eq!(saved["_version"], 1);
    let a = format!("{base}/object/v1/private/A");
    let (status, got) = get(&a, &ann, Some(&at));
    assert_eq!((status, got["_version"].clone()), (200, json!(1)), "{got}");
    // Reads go to the replica (its metric counts them), and see what it replayed.
    std::thread::sleep(Duration::from_millis(500));
    let before = replica_reads(&base);
    for _ in 0..20 {
        let (status, got) = get(&a, &bob, None);
        assert_eq!((status, got["n"].clone()), (200, json!(1)), "{got}");
    }
    assert!(
        replica_reads(&base) >= before + 20,
        "the replica served the reads"
    );

    // The replica stops replaying: it falls behind. A read that sends the new write's
    // position, or by the token that wrote, sees it (from the primary); another token's read,
    // served by the replica while it lags less than the longest lag, does not yet.
    let mut on_replica = admin(&replica.url).unwrap();
    on_replica
        .batch_execute("SELECT pg_wal_replay_pause()")
        .unwrap();
    let (saved, at2) = save(&base, &ann, json!({"_id": "A", "n": 2}));
    assert_eq!(saved["_version"], 2);
    assert_eq!(get(&a, &ann, Some(&at2)).1["n"], 2, "with the position");
    assert_eq!(get(&a, &ann, None).1["n"], 2, "by the token that wrote");
    assert_eq!(
        get(&a, &bob, Some(&at2)).1["n"],
        2,
        "another token, with the position"
    );
    assert_eq!(
        get(&a, &bob, None).1["n"],
        1,
        "another token, from the replica"
    );
    // Past the longest lag the replica is skipped: every read sees the primary.
    std::thread::sleep(Duration::from_millis(2500));
    let r = wait_replica(&base, "skipped");
    assert!(
        r["replicas"][0]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("lags"),
        "{r}"
    );
    assert_eq!(
        get(&a, &bob, None).1["n"],
        2,
        "a lagging replica is skipped"
    );
    on_replica
        .batch_execute("SELECT pg_wal_replay_resume()")
        .unwrap();
    wait_replica(&base, "serving");
    assert_eq!(get(&a, &bob, None).1["n"], 2, "caught up");

    // A stopped replica: every read still answers, from the primary; /ready says why.
    replica.stop();
    for i in 0..30 {
        let (status, got) = get(&a, &bob, None);
        assert_eq!(status, 200, "read {i} while the replica stops: {got}");
    }
    let r = wait_replica(&base, "skipped");
    assert_eq!(r["status"], "ready", "the primary serves: {r}");
    assert!(
        r["replicas"][0]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("does not answer"),
        "{r}"
    );
    replica.start_again();
    let r = wait_replica(&base, "serving");
    assert_eq!(r["replicas"][0]["status"], "serving", "{r}");
    let before = replica_reads(&base);
    assert_eq!(get(&a, &bob, None).1["n"], 2);
    assert!(replica_reads(&base) > before, "the replica serves again");
    // A token made a moment ago reads at once (authenticated on the primary when the replica
    // does not know it yet).
    for user in ["carol", "dave", "erin"] {
        let out = platform(&[
            "token",
            "create",
            "--db",
            &primary.url,
            "--key-file",
            key_text,
            "--tenant",
            "default",
            "--user",
            user,
            "--role",
            "reader",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let fresh = String::from_utf8(out.stdout).unwrap().trim().to_string();
        let (status, got) = get(&a, &fresh, None);
        assert_eq!(status, 200, "{user}: {got}");
    }
    // A bad position is refused.
    let (status, body) = get(&a, &bob, Some("soon"));
    assert_eq!(status, 400, "{body}");
    // A token revoked on the primary is refused by replica reads as soon as the replica has
    // replayed the revocation and the next sample of the primary saw it (a sample is 0.1 s).
    let out = platform(&[
        "token",
        "revoke",
        "--db",
        &primary.url,
        "--key-file",
        key_text,
        &bob,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let revoked = Instant::now();
    loop {
        let (status, _) = get(&a, &bob, None);
        if status == 401 {
            break;
        }
        assert!(
            revoked.elapsed() < Duration::from_secs(1),
            "a revoked token still reads {:?} after its revocation",
            revoked.elapsed()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
