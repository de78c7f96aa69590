//! Faults under load: two `platform serve` over a private PostgreSQL cluster, writers on both
//! nodes and a webhook on every saved object, while a node is killed with SIGKILL, every
//! database connection is ended, and PostgreSQL itself crashes. Every save a node acknowledged
//! reaches the webhook soon after the last fault, and each object's events arrive in order.
//!
//! The webhook takes its time ([`HOOK_DELAY`]), so that each node's deliverer is in a call
//! when the faults come: the end of that attempt is then written while the database is away.
//! (Without writing it again once the database is back, and with a node renewing every running
//! claim of its own, such a delivery stayed running, and its object's later events behind it,
//! for as long as the node lived.)

use super::multinode::{call, kill9, Hook};
use super::{Server, BIN};
use platform_core::store::postgres::cluster::PrivateCluster;
use platform_core::store::postgres::testing::admin;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The claim lease of the nodes, in seconds.
const LEASE: u64 = 5;
/// How long after the last fault every acknowledged save's event may take to arrive.
const DELIVERY_WINDOW: Duration = Duration::from_secs(LEASE + 30);
const WRITERS: usize = 4;
const OBJECTS_EACH: usize = 4;
/// How long the webhook takes to answer each call.
const HOOK_DELAY: Duration = Duration::from_millis(40);
/// The pause of each writer between two saves (the deliverers of both nodes keep up).
const WRITER_PAUSE: Duration = Duration::from_millis(200);

/// A node on the database at `url`, with a short claim lease.
fn node(url: &str, key: &Path) -> Server {
    let mut command = Command::new(BIN);
    command
        .args([
            "serve",
            "--db",
            url,
            "--addr",
            "127.0.0.1:0",
            "--claim-lease",
            &LEASE.to_string(),
            // The tests' webhook receivers listen on loopback.
            "--webhook-allow",
            "127.0.0.1",
        ])
        .arg("--key-file")
        .arg(key);
    Server::spawn(command)
}

/// What one writer saw.
#[derive(Default)]
struct Writes {
    /// Acknowledged saves: object id and version.
    acked: Vec<(String, u64)>,
    /// When each node (0 is A, 1 is B) last acknowledged a save.
    last_ack: [Option<Instant>; 2],
    unavailable: usize,
    unreachable: usize,
    /// Answers other than 200 and 503.
    unexpected: Vec<String>,
}

/// Saves its objects in turn through both nodes, merging an ever-increasing counter, until
/// `stop`.
fn writer(t: usize, nodes: &Mutex<[String; 2]>, token: &str, stop: &AtomicBool) -> Writes {
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(10))
        .build();
    let mut out = Writes::default();
    let mut n = 0usize;
    while !stop.load(Ordering::SeqCst) {
        let id = format!("W{t}_{}", n % OBJECTS_EACH);
        let which = (t + n) % 2;
        let base = nodes.lock().unwrap()[which].clone();
        let res = agent
            .post(&format!("{base}/object/v1"))
            .set("Authorization", &format!("Bearer {token}"))
            .send_json(json!({"_id": id, "n": n}));
        match res {
            Ok(r) => {
                let body: Value = r.into_json().unwrap_or(Value::Null);
                match body["_version"].as_u64() {
                    Some(v) if body["_id"] == id.as_str() => {
                        out.acked.push((id, v));
                        out.last_ack[which] = Some(Instant::now());
                    }
                    _ => out
                        .unexpected
                        .push(format!("200 without a version: {body}")),
                }
            }
            Err(ureq::Error::Status(503, _)) => out.unavailable += 1,
            Err(ureq::Error::Status(code, r)) => out
                .unexpected
                .push(format!("{code} {}", r.into_string().unwrap_or_default())),
            Err(ureq::Error::Transport(_)) => out.unreachable += 1,
        }
        n += 1;
        std::thread::sleep(WRITER_PAUSE);
    }
    out
}

/// The object saves the webhook received, in arrival order: object id and version.
fn events(hook: &Hook) -> Vec<(String, u64)> {
    hook.received()
        .iter()
        .filter(|e| e["service"] == "object")
        .filter_map(|e| {
            let id = e["id"].as_str()?;
            let version = e["data"]["_version"].as_u64()?;
            Some((id.to_string(), version))
        })
        .collect()
}

/// The last lines a node logged.
fn log_tail(server: &Server, n: usize) -> String {
    let lines: Vec<String> = server.log.try_iter().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// What the database and the nodes say, for a failure's message.
fn diagnosis(cluster: &PrivateCluster, nodes: &[(&str, &Server)]) -> String {
    let mut out = String::new();
    let queries = [
        (
            "deliveries",
            "SELECT concat_ws(' | ', seq, item, status, attempts, next_at, node, lease_until, \
             left(doc, 160)) FROM deliveries ORDER BY seq",
        ),
        (
            "failed attempts (last 30)",
            "SELECT * FROM (SELECT concat_ws(' | ', seq, status, timestamp, left(doc, 400)) \
             FROM automation_log WHERE status <> 'success' ORDER BY seq DESC LIMIT 30) l",
        ),
    ];
    for (what, sql) in queries {
        let rows = admin(&cluster.url).and_then(|mut c| c.texts(sql));
        match rows {
            Ok(rows) => out += &format!("\n--- {what}: {} rows\n{}", rows.len(), rows.join("\n")),
            Err(e) => out += &format!("\n--- {what}: cannot read: {e}"),
        }
    }
    for (name, server) in nodes {
        out += &format!("\n--- log of {name} (end)\n{}", log_tail(server, 60));
    }
    out
}

#[test]
fn acknowledged_saves_are_delivered_through_node_and_database_faults() {
    let Some(cluster) = PrivateCluster::start() else {
        return;
    };
    let begun = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let key = super::provisioned_key(dir.path());
    let a = node(&cluster.url, &key);
    let token = a.admin_token.clone();
    assert!(token.starts_with("pt_"), "the first node makes the admin");
    let mut b = node(&cluster.url, &key);
    let hook = Hook::slow(0, HOOK_DELAY);
    call(
        "POST",
        &format!("{}/automation/v1", a.url),
        &token,
        Some(
            json!({"target": "platform.webhook", "properties": {"url": hook.url},
                    "conditions": [{"source": "private", "service": "object", "id": "*", "action": "*"}]}),
        ),
    );

    let nodes = Arc::new(Mutex::new([a.url.clone(), b.url.clone()]));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..WRITERS)
        .map(|t| {
            let (nodes, stop, token) = (nodes.clone(), stop.clone(), token.clone());
            std::thread::spawn(move || writer(t, &nodes, &token, &stop))
        })
        .collect();
    let say = |what: &str| eprintln!("faults: {:>5.1} s: {what}", begun.elapsed().as_secs_f64());

    // (1) B is killed with SIGKILL and started again (on another port).
    std::thread::sleep(Duration::from_secs(3));
    say("SIGKILL to node B");
    kill9(&mut b);
    let killed_b = std::mem::replace(&mut b, node(&cluster.url, &key));
    nodes.lock().unwrap()[1] = b.url.clone();
    say("node B started again");

    // (2) Every connection to the database is ended.
    std::thread::sleep(Duration::from_secs(3));
    let ended = admin(&cluster.url)
        .and_then(|mut c| {
            c.texts(
                "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity \
                 WHERE pid <> pg_backend_pid() AND datname = current_database()",
            )
        })
        .unwrap();
    say(&format!("{} database connections ended", ended.len()));

    // (3) PostgreSQL crashes and starts again.
    std::thread::sleep(Duration::from_secs(3));
    say("PostgreSQL crashes");
    cluster.crash();
    std::thread::sleep(Duration::from_secs(2));
    cluster.start_again();
    let last_fault = Instant::now();
    say("PostgreSQL started again");

    std::thread::sleep(Duration::from_secs(5));
    stop.store(true, Ordering::SeqCst);
    let mut writes = Writes::default();
    for w in writers {
        let one = w.join().unwrap();
        writes.acked.extend(one.acked);
        for (mine, theirs) in writes.last_ack.iter_mut().zip(one.last_ack) {
            *mine = (*mine).max(theirs);
        }
        writes.unavailable += one.unavailable;
        writes.unreachable += one.unreachable;
        writes.unexpected.extend(one.unexpected);
    }
    say(&format!(
        "writers stopped: {} saves acknowledged, {} answered 503, {} unreachable, {} other",
        writes.acked.len(),
        writes.unavailable,
        writes.unreachable,
        writes.unexpected.len()
    ));

    // Every acknowledged save's event arrives within the window.
    let acked: BTreeSet<(String, u64)> = writes.acked.iter().cloned().collect();
    let missing = loop {
        let received: BTreeSet<(String, u64)> = events(&hook).into_iter().collect();
        let missing: Vec<(String, u64)> = acked.difference(&received).cloned().collect();
        if missing.is_empty() || last_fault.elapsed() > DELIVERY_WINDOW {
            break missing;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let arrived = events(&hook);
    say(&format!(
        "{} events received ({} distinct)",
        arrived.len(),
        arrived.iter().collect::<BTreeSet<_>>().len()
    ));
    let nodes_now = [("A", &a), ("B (killed)", &killed_b), ("B", &b)];
    assert!(
        missing.is_empty(),
        "{} of {} acknowledged saves never reached the webhook within {DELIVERY_WINDOW:?} of the \
         last fault: {missing:?}{}",
        missing.len(),
        acked.len(),
        diagnosis(&cluster, &nodes_now)
    );

    // Each object's versions arrive in order (duplicates allowed).
    let mut firsts: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (id, version) in &arrived {
        let seen = firsts.entry(id.clone()).or_default();
        if !seen.contains(version) {
            seen.push(*version);
        }
    }
    for (id, versions) in &firsts {
        assert!(
            versions.windows(2).all(|w| w[0] < w[1]),
            "the events of {id} arrived out of order: {versions:?}"
        );
    }

    // Both nodes came back, and a failure was a 503 or no answer, never anything else.
    for (i, name) in ["A", "B"].iter().enumerate() {
        assert!(
            writes.last_ack[i].is_some_and(|t| t > last_fault),
            "node {name} acknowledged no save after PostgreSQL came back{}",
            diagnosis(&cluster, &nodes_now)
        );
    }
    assert!(
        writes.unexpected.is_empty(),
        "answers other than 200 and 503: {:?}",
        writes.unexpected
    );
    say("done");
}
