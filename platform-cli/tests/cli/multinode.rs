//! Two `platform serve` processes over one PostgreSQL database (`PLATFORM_TEST_PG`): versions
//! stay contiguous under writers on both, each delivery is made once and in order, a
//! subscriber on one node hears what the other did, and what a node killed with SIGKILL
//! acknowledged or had claimed is readable or finished on the other.

use super::{platform, Server, BIN};
use platform_core::store::postgres::testing::TestDatabase;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// A node: `platform serve` on the database, with a short claim lease.
fn node(db: &TestDatabase, key: &std::path::Path) -> Server {
    let mut command = Command::new(BIN);
    command
        .args([
            "serve",
            "--db",
            &db.url,
            "--addr",
            "127.0.0.1:0",
            "--claim-lease",
            "2",
            // The tests' webhook receivers listen on loopback.
            "--webhook-allow",
            "127.0.0.1",
        ])
        .arg("--key-file")
        .arg(key);
    Server::spawn(command)
}

pub(super) fn call(method: &str, url: &str, token: &str, body: Option<Value>) -> Value {
    let req = ureq::request(method, url).set("Authorization", &format!("Bearer {token}"));
    let res = match body {
        Some(b) => req.send_json(b),
        None => req.call(),
    };
    match res {
        Ok(r) => r.into_json().unwrap(),
        Err(ureq::Error::Status(code, r)) => {
            panic!("{method} {url}: {code} {}", r.into_string().unwrap())
        }
        Err(e) => panic!("{method} {url}: {e}"),
    }
}

/// A webhook receiver: records each body in order; the first `hang` calls get no answer, and
/// each other call is answered after `delay`.
pub(super) struct Hook {
    pub(super) url: String,
    bodies: Arc<Mutex<Vec<Value>>>,
    calls: Arc<AtomicUsize>,
}

impl Hook {
    pub(super) fn start(hang: usize) -> Hook {
        Hook::slow(hang, Duration::ZERO)
    }

    /// A receiver that answers each call after `delay` (a target that takes its time: a
    /// delivery is in its call most of the time).
    pub(super) fn slow(hang: usize, delay: Duration) -> Hook {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = bodies.clone();
        let hang = Arc::new(AtomicUsize::new(hang));
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = calls.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                counted.fetch_add(1, Ordering::SeqCst);
                let (kept, hang) = (kept.clone(), hang.clone());
                std::thread::spawn(move || serve_hook(stream, &kept, &hang, delay));
            }
        });
        Hook { url, bodies, calls }
    }

    pub(super) fn received(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }

    /// Waits until `n` bodies arrived (or a minute passed).
    fn wait_for(&self, n: usize) -> Vec<Value> {
        let start = Instant::now();
        while self.received().len() < n && start.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(100));
        }
        self.received()
    }
}

fn serve_hook(stream: TcpStream, kept: &Mutex<Vec<Value>>, hang: &AtomicUsize, delay: Duration) {
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let hung = hang
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    if hung {
        // No answer: the caller is stuck in this call until it is killed.
        std::thread::sleep(Duration::from_secs(120));
        return;
    }
    std::thread::sleep(delay);
    kept.lock()
        .unwrap()
        .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
    let mut stream = reader.into_inner();
    let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
}

pub(super) fn kill9(server: &mut Server) {
    Command::new("kill")
        .args(["-KILL", &server.child.id().to_string()])
        .status()
        .unwrap();
    server.child.wait().unwrap();
}

#[test]
fn two_servers_over_one_postgresql_database() {
    let Some(db) = TestDatabase::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = super::provisioned_key(dir.path());
    let mut a = node(&db, &key);
    let admin = a.admin_token.clone();
    assert!(admin.starts_with("pt_"), "the first node makes the admin");
    let mut b = node(&db, &key);
    assert_eq!(b.admin_token, "", "the second node finds the admin made");
    let (ua, ub) = (a.url.clone(), b.url.clone());

    // A token made by the CLI on the database works on both nodes.
    let out = platform(&[
        "token",
        "create",
        "--db",
        &db.url,
        "--key-file",
        key.to_str().unwrap(),
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
    for url in [&ua, &ub] {
        call("GET", &format!("{url}/object/v1/private"), &ann, None);
    }

    // Deliveries: an automation on object X with a webhook; saves through both nodes.
    let hook = Hook::start(0);
    call(
        "POST",
        &format!("{ua}/automation/v1"),
        &admin,
        Some(
            json!({"target": "platform.webhook", "properties": {"url": hook.url},
                    "conditions": [{"source": "private", "service": "object", "id": "X", "action": "*"}]}),
        ),
    );

    // Writers on both nodes at once: every version stored once, numbered without gaps.
    const EACH: usize = 15;
    std::thread::scope(|s| {
        for (w, url) in [(0, &ua), (1, &ub), (2, &ua), (3, &ub)] {
            let admin = &admin;
            s.spawn(move || {
                for i in 0..EACH {
                    call(
                        "POST",
                        &format!("{url}/object/v1"),
                        admin,
                        Some(json!({"_id": "X", "n": w * 100 + i})),
                    );
                }
            });
        }
    });
    let versions = call("GET", &format!("{ub}/object/v1/private/X/*"), &admin, None);
    let numbers: Vec<u64> = versions
        .as_array()
        .unwrap_or_else(|| panic!("{versions}"))
        .iter()
        .map(|v| v["_version"].as_u64().unwrap())
        .collect();
    let mut sorted = numbers.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        (1..=4 * EACH as u64).collect::<Vec<_>>(),
        "{numbers:?}"
    );

    // Each save reached the webhook once, in the order of the versions.
    let got = hook.wait_for(4 * EACH);
    std::thread::sleep(Duration::from_secs(1));
    let got_after = hook.received();
    assert_eq!(got.len(), got_after.len(), "no delivery twice");
    let seen: Vec<i64> = got_after
        .iter()
        .map(|e| e["data"]["n"].as_i64().unwrap())
        .collect();
    let mut by_version: Vec<(u64, i64)> = versions
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let n = v["_version"].as_u64().unwrap();
            let one = call(
                "GET",
                &format!("{ua}/object/v1/private/X/{n}"),
                &admin,
                None,
            );
            (n, one["n"].as_i64().unwrap_or_else(|| panic!("{one}")))
        })
        .collect();
    by_version.sort();
    let expected: Vec<i64> = by_version.iter().map(|(_, n)| *n).collect();
    assert_eq!(seen, expected, "once each, in version order");

    // Realtime: a subscriber on B hears an install done through A (by another tenant's admin,
    // of an extension the platform admin published).
    let out = platform(&[
        "token",
        "create",
        "--db",
        &db.url,
        "--key-file",
        key.to_str().unwrap(),
        "--tenant",
        "globex",
        "--user",
        "gus",
        "--role",
        "admin",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let gus = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let (tx, rx) = mpsc::channel();
    let stream_url = format!("{ub}/extension/v1/private/acme.prices/messages?_limit=1");
    let token = gus.clone();
    std::thread::spawn(move || {
        let res = ureq::get(&stream_url)
            .set("Authorization", &format!("Bearer {token}"))
            .call()
            .unwrap();
        let mut reader = BufReader::new(res.into_reader());
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            if line.starts_with("data:") {
                let _ = tx.send(line.clone());
                return;
            }
            line.clear();
        }
    });
    std::thread::sleep(Duration::from_millis(500));
    call(
        "POST",
        &format!("{ua}/extension/v1"),
        &admin,
        Some(
            json!({"_id": "acme.prices", "publisher": "acme", "code": "prices", "name": "Prices"}),
        ),
    );
    call(
        "POST",
        &format!("{ua}/extension/v1/public?_publish=true"),
        &admin,
        Some(json!({"_id": "acme.prices"})),
    );
    call(
        "POST",
        &format!("{ua}/extension/v1/private?_publish=true"),
        &gus,
        Some(json!({"_id": "acme.prices"})),
    );
    let message = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the subscriber on B heard nothing");
    assert!(
        message.contains("Installed extension acme.prices"),
        "{message}"
    );

    // A node killed with SIGKILL: what it acknowledged is readable on the other, and the
    // delivery it was making (stuck in a webhook call) is made by the other once its lease
    // ends. B stops first, so that A claims the delivery.
    b.stop();
    let stuck = Hook::start(1);
    call(
        "POST",
        &format!("{ua}/automation/v1"),
        &admin,
        Some(
            json!({"target": "platform.webhook", "properties": {"url": stuck.url},
                    "conditions": [{"source": "private", "service": "object", "id": "K", "action": "*"}]}),
        ),
    );
    let acked = call(
        "POST",
        &format!("{ua}/object/v1"),
        &admin,
        Some(json!({"_id": "K", "n": 1})),
    );
    assert_eq!(acked["_version"], 1);
    // A calls the hook, which never answers; then A is killed.
    let start = Instant::now();
    while stuck.calls.load(Ordering::SeqCst) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "A never called the hook"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    kill9(&mut a);
    let mut b = node(&db, &key);
    let read = call(
        "GET",
        &format!("{}/object/v1/private/K", b.url),
        &admin,
        None,
    );
    assert_eq!(read["n"], 1, "an acknowledged write survives its node");
    let got = stuck.wait_for(1);
    assert_eq!(
        got.len(),
        1,
        "the killed node's delivery is made by the other"
    );
    assert_eq!(got[0]["data"]["n"], 1);
    b.stop();
}

#[test]
fn the_job_of_a_killed_node_is_finished_by_another() {
    let Some(db) = TestDatabase::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = super::provisioned_key(dir.path());
    let mut a = node(&db, &key);
    let admin = a.admin_token.clone();
    let ua = a.url.clone();
    // A long check over many points: the background run takes a while.
    let start = chrono_free_days(3000);
    call(
        "POST",
        &format!("{ua}/object/v1"),
        &admin,
        Some(
            json!({"_id": "SLOW", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": start}}),
        ),
    );
    call(
        "POST",
        &format!("{ua}/script/v1"),
        &admin,
        Some(
            json!({"_id": "slowlib", "script": "fn slow(v) { let i = 0; while i < 1500 { i += 1; } v > -1.0 }"}),
        ),
    );
    call(
        "POST",
        &format!("{ua}/validationconfig/v1"),
        &admin,
        Some(
            json!({"_id": "SLOW:SPOT", "kind": "timeseries", "name": "slow",
                    "scripts": ["slowlib"], "checks": [{"name": "Slow", "expression": "slow(value)"}],
                    "options": {"maxPoints": 10}}),
        ),
    );
    let queued = call(
        "POST",
        &format!("{ua}/validation/v1?_function=run"),
        &admin,
        Some(json!({"target": "SLOW:SPOT", "from": "2000-01-01", "to": "2010-01-01"})),
    );
    assert_eq!(queued["background"], true, "{queued}");
    let job = queued["job"].as_str().unwrap().to_string();
    let status = |url: &str| -> Value {
        let jobs = call(
            "GET",
            &format!("{url}/validation/v1?_function=jobs"),
            &admin,
            None,
        );
        jobs.as_array()
            .unwrap()
            .iter()
            .find(|j| j["_id"] == job.as_str())
            .cloned()
            .unwrap_or_else(|| panic!("{jobs}"))
    };
    let begun = Instant::now();
    while status(&ua)["status"] != "running" {
        assert!(begun.elapsed() < Duration::from_secs(30), "{}", status(&ua));
        std::thread::sleep(Duration::from_millis(20));
    }
    kill9(&mut a);
    let mut b = node(&db, &key);
    let begun = Instant::now();
    loop {
        let now = status(&b.url);
        if now["status"] == "done" {
            assert_eq!(now["progress"], 100, "{now}");
            break;
        }
        assert_ne!(now["status"], "failed", "{now}");
        assert!(begun.elapsed() < Duration::from_secs(180), "{now}");
        std::thread::sleep(Duration::from_millis(200));
    }
    b.stop();
}

/// `n` daily observations from 2000-01-01.
fn chrono_free_days(n: usize) -> Vec<Value> {
    let mut out = Vec::with_capacity(n);
    let (mut y, mut m, mut d) = (2000, 1, 1);
    let days_in = |y: i32, m: u32| match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    for i in 0..n {
        out.push(json!({"time": format!("{y:04}-{m:02}-{d:02}"), "value": i as f64}));
        d += 1;
        if d > days_in(y, m) {
            d = 1;
            m += 1;
            if m > 12 {
                m = 1;
                y += 1;
            }
        }
    }
    out
}
