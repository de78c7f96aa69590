//! A real high-availability engine from Debian, pg_auto_failover (`pg_autoctl`): a monitor and
//! two data nodes with synchronous replication, each in a temporary directory on free ports,
//! and two `platform serve` on the engine's URL of several hosts
//! (`target_session_attrs=read-write`), under writes and reads, with a webhook automation on
//! every saved object. A switchover (`pg_autoctl perform switchover`), then a failover (the
//! primary's engine and server killed with SIGKILL): no acknowledged write is lost, every
//! event is delivered, and both servers write again within 10 s of each, never restarted.
//!
//! Opt-in, as CI runs it: `PLATFORM_HA=1` (with `PLATFORM_TEST_PG` set, for the PostgreSQL
//! programs); `scripts/ha-engine.sh` installs the engine when missing, and the test fails, not
//! skips, when it cannot. The monitor is set to find a lost primary within about 2 s (its
//! defaults take 20 s and more); `docs/operations.md` says which settings.

use super::failover::Node;
use super::multinode::{call, Hook};
use super::BIN;
use platform_core::store::postgres::testing::admin;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::net::TcpListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The PostgreSQL programs the engine runs.
const PG_BIN: &str = "/usr/lib/postgresql/15/bin";
/// The longest a fail-over may keep writes away.
const WRITE_AGAIN: Duration = Duration::from_secs(10);
/// How long after the last fault every acknowledged save's event may take to arrive.
const DELIVERY_WINDOW: Duration = Duration::from_secs(40);
const WRITERS: usize = 4;
const OBJECTS_EACH: usize = 5;

/// The monitor's settings: a lost primary found within about 2 s, and the demotion of a
/// primary that does not answer waited for 2 s (the defaults: 20 s and 30 s).
const MONITOR_SETTINGS: [(&str, &str); 6] = [
    ("health_check_period", "1000"),
    ("health_check_timeout", "1000"),
    ("health_check_max_retries", "1"),
    ("health_check_retry_delay", "500"),
    ("node_considered_unhealthy_timeout", "2000"),
    ("primary_demote_timeout", "2000"),
];

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A pg_auto_failover formation of its own: a monitor and data nodes, each a `pg_autoctl`
/// supervisor in a process group of its own (stopped, then killed, when dropped).
struct Engine {
    dir: tempfile::TempDir,
    autoctl: String,
    as_postgres: bool,
    /// The supervisors: the monitor first, then the data nodes.
    supervisors: Vec<Child>,
    /// The data nodes' directories and ports.
    nodes: Vec<(PathBuf, u16)>,
    monitor_port: u16,
}

impl Engine {
    /// The engine installed (by `scripts/ha-engine.sh`) and its monitor started.
    fn start() -> Engine {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let out = Command::new("bash")
            .arg(root.join("scripts/ha-engine.sh"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "scripts/ha-engine.sh cannot install pg_auto_failover ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let autoctl = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let dir = tempfile::tempdir().unwrap();
        let as_postgres = running_as_root();
        if as_postgres {
            let chown = Command::new("chown")
                .args(["-R", "postgres:"])
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(chown.success(), "chown of {}", dir.path().display());
        }
        let mut engine = Engine {
            dir,
            autoctl,
            as_postgres,
            supervisors: Vec::new(),
            nodes: Vec::new(),
            monitor_port: free_port(),
        };
        let pgdata = engine.path("monitor");
        let port = engine.monitor_port.to_string();
        engine.supervise(&[
            "create",
            "monitor",
            "--pgdata",
            &pgdata,
            "--pgport",
            &port,
            "--hostname",
            "127.0.0.1",
            "--auth",
            "trust",
            "--no-ssl",
            "--pgctl",
            &format!("{PG_BIN}/pg_ctl"),
            "--run",
        ]);
        engine.wait("the monitor answers", Duration::from_secs(60), |e| {
            admin(&e.monitor_url())
                .and_then(|mut c| {
                    c.texts(
                        "SELECT extname::text FROM pg_extension WHERE extname = 'pgautofailover'",
                    )
                })
                .is_ok_and(|t| t.len() == 1)
                && e.monitor_uri().is_some()
        });
        let mut monitor = admin(&engine.monitor_url()).unwrap();
        for (name, value) in MONITOR_SETTINGS {
            monitor
                .batch_execute(&format!("ALTER SYSTEM SET pgautofailover.{name} = {value}"))
                .unwrap();
        }
        monitor.batch_execute("SELECT pg_reload_conf()").unwrap();
        engine
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_string_lossy().into_owned()
    }

    /// `pg_autoctl ARGS` as the engine's user, with its configuration in the engine's
    /// directory.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = if self.as_postgres {
            // setpriv runs the program in its own process (no child in between).
            let mut c = Command::new("setpriv");
            c.args([
                "--reuid=postgres",
                "--regid=postgres",
                "--init-groups",
                "--",
                &self.autoctl,
            ]);
            c
        } else {
            Command::new(&self.autoctl)
        };
        let home = self.dir.path();
        command
            .args(args)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_RUNTIME_DIR", home.join("run"))
            .env("PATH", format!("{PG_BIN}:/usr/bin:/bin"))
            .current_dir(home);
        command
    }

    /// `pg_autoctl ARGS`, waited for.
    fn run(&self, args: &[&str]) -> Output {
        self.command(args).stdin(Stdio::null()).output().unwrap()
    }

    /// Starts a supervisor (`pg_autoctl create ... --run`), its output in a log file.
    fn supervise(&mut self, args: &[&str]) {
        let log = std::fs::File::create(
            self.dir
                .path()
                .join(format!("supervisor-{}.log", self.supervisors.len())),
        )
        .unwrap();
        let child = self
            .command(args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap();
        self.supervisors.push(child);
    }

    fn monitor_uri(&self) -> Option<String> {
        let out = self.run(&[
            "show",
            "uri",
            "--pgdata",
            &self.path("monitor"),
            "--formation",
            "monitor",
        ]);
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (out.status.success() && text.starts_with("postgres")).then_some(text)
    }

    /// The monitor's database as the superuser.
    fn monitor_url(&self) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{}/pg_auto_failover",
            self.monitor_port
        )
    }

    /// The URL the servers use: the formation's, with the user.
    fn formation_uri(&self) -> String {
        let out = self.run(&[
            "show",
            "uri",
            "--pgdata",
            &self.path("monitor"),
            "--formation",
            "default",
        ]);
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(text.contains("target_session_attrs=read-write"), "{text}");
        text.replacen("postgres://", "postgres://postgres@", 1)
    }

    /// A data node's database as the superuser.
    fn node_url(&self, i: usize) -> String {
        format!("postgres://postgres@127.0.0.1:{}/platform", self.nodes[i].1)
    }

    /// Adds a data node and starts it.
    fn add_node(&mut self) {
        let i = self.nodes.len();
        let pgdata = self.path(&format!("node{i}"));
        let port = free_port();
        let monitor = self.monitor_uri().unwrap();
        self.supervise(&[
            "create",
            "postgres",
            "--pgdata",
            &pgdata,
            "--pgport",
            &port.to_string(),
            "--hostname",
            "127.0.0.1",
            "--listen",
            "127.0.0.1",
            "--auth",
            "trust",
            "--no-ssl",
            "--dbname",
            "platform",
            "--monitor",
            &monitor,
            "--pgctl",
            &format!("{PG_BIN}/pg_ctl"),
            "--run",
        ]);
        self.nodes.push((PathBuf::from(pgdata), port));
    }

    /// The formation's nodes: reported and assigned state of each.
    fn states(&self) -> Vec<(String, String)> {
        let out = self.run(&["show", "state", "--pgdata", &self.path("monitor")]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                (cells.len() == 7 && cells[1].parse::<u32>().is_ok())
                    .then(|| (cells[5].to_string(), cells[6].to_string()))
            })
            .collect()
    }

    /// Whether the formation has a primary and `secondaries` secondaries, each where the
    /// monitor wants it.
    fn settled(&self, secondaries: usize) -> bool {
        let states = self.states();
        let count = |s: &str| states.iter().filter(|(r, a)| r == s && a == s).count();
        count("primary") == 1 && count("secondary") == secondaries
    }

    /// Waits until `done`, at most `limit`, panicking with the engine's state and logs.
    fn wait(&self, what: &str, limit: Duration, done: impl Fn(&Engine) -> bool) {
        let started = Instant::now();
        while !done(self) {
            assert!(
                started.elapsed() < limit,
                "{what}: not after {limit:?}\n{}",
                self.diagnosis()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The data node that is primary now (not in recovery), among those that answer.
    fn primary(&self) -> Option<usize> {
        (0..self.nodes.len()).find(|&i| {
            admin(&self.node_url(i))
                .and_then(|mut c| c.texts("SELECT pg_is_in_recovery()::text"))
                .is_ok_and(|t| t == ["false"])
        })
    }

    /// Kills a data node as a crash would: its supervisor, its PostgreSQL and their children
    /// (one process group), with SIGKILL.
    fn kill_node(&mut self, i: usize) {
        let child = &mut self.supervisors[i + 1];
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .status();
        let _ = child.wait();
        // The postmaster too, were it outside the group.
        let pid_file = self.nodes[i].0.join("postmaster.pid");
        if let Some(pid) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_string))
        {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
        }
    }

    /// The formation's state and the end of each supervisor's log (for a failure's message).
    fn diagnosis(&self) -> String {
        let state = self.run(&["show", "state", "--pgdata", &self.path("monitor")]);
        let mut out = format!("\n--- state\n{}", String::from_utf8_lossy(&state.stdout));
        for i in 0..self.supervisors.len() {
            let log = std::fs::read_to_string(self.dir.path().join(format!("supervisor-{i}.log")))
                .unwrap_or_default();
            let lines: Vec<&str> = log.lines().collect();
            out += &format!(
                "\n--- supervisor {i} (end)\n{}",
                lines[lines.len().saturating_sub(25)..].join("\n")
            );
        }
        out
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // SIGTERM: each supervisor stops its PostgreSQL; then whatever is left is killed.
        for child in &self.supervisors {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .stderr(Stdio::null())
                .status();
        }
        let started = Instant::now();
        for child in &mut self.supervisors {
            while matches!(child.try_wait(), Ok(None))
                && started.elapsed() < Duration::from_secs(15)
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = child.wait();
        }
    }
}

/// What the writers saw: each acknowledged save (object id, version, when), and the answers
/// that were neither 200 nor 503.
#[derive(Default)]
struct Seen {
    acked: Vec<(String, u64, Instant)>,
    unavailable: usize,
    unreachable: usize,
    unexpected: Vec<String>,
}

/// Saves objects in turn through both servers until `stop`.
fn writer(t: usize, nodes: &[String; 2], token: &str, stop: &AtomicBool, seen: &Mutex<Seen>) {
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(10))
        .build();
    let mut n = 0usize;
    while !stop.load(Ordering::SeqCst) {
        let id = format!("W{t}_{}", n % OBJECTS_EACH);
        let base = &nodes[(t + n) % 2];
        let res = agent
            .post(&format!("{base}/object/v1"))
            .set("Authorization", &format!("Bearer {token}"))
            .send_json(json!({"_id": id, "n": n}));
        let mut seen = seen.lock().unwrap();
        match res {
            Ok(r) => {
                let body: Value = r.into_json().unwrap_or(Value::Null);
                match body["_version"].as_u64() {
                    Some(v) if body["_id"] == id.as_str() => {
                        seen.acked.push((id, v, Instant::now()))
                    }
                    _ => seen
                        .unexpected
                        .push(format!("200 without a version: {body}")),
                }
            }
            Err(ureq::Error::Status(503, _)) => seen.unavailable += 1,
            Err(ureq::Error::Status(code, r)) => seen
                .unexpected
                .push(format!("{code} {}", r.into_string().unwrap_or_default())),
            Err(ureq::Error::Transport(_)) => seen.unreachable += 1,
        }
        drop(seen);
        n += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Reads the writers' objects through both servers until `stop`: answers other than 200, 404
/// (not saved yet) and 503 are kept.
fn reader(nodes: &[String; 2], token: &str, stop: &AtomicBool, unexpected: &Mutex<Vec<String>>) {
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(10))
        .build();
    let mut n = 0usize;
    while !stop.load(Ordering::SeqCst) {
        let base = &nodes[n % 2];
        let id = format!("W{}_{}", n % WRITERS, n % OBJECTS_EACH);
        let res = agent
            .get(&format!("{base}/object/v1/private/{id}"))
            .set("Authorization", &format!("Bearer {token}"))
            .call();
        match res {
            Ok(_) | Err(ureq::Error::Status(404 | 503, _)) => {}
            Err(ureq::Error::Status(code, r)) => unexpected.lock().unwrap().push(format!(
                "GET {id}: {code} {}",
                r.into_string().unwrap_or_default()
            )),
            Err(ureq::Error::Transport(e)) => {
                unexpected.lock().unwrap().push(format!("GET {id}: {e}"))
            }
        }
        n += 1;
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The longest time without an acknowledged save in `acked`, from `from` on.
fn longest_gap(acked: &[(String, u64, Instant)], from: Instant) -> Duration {
    let mut times: Vec<Instant> = acked.iter().map(|a| a.2).filter(|t| *t >= from).collect();
    times.sort();
    let mut gap = times.first().map_or(Duration::MAX, |t| *t - from);
    for w in times.windows(2) {
        gap = gap.max(w[1] - w[0]);
    }
    gap
}

#[test]
fn servers_ride_out_a_switchover_and_a_failover_of_pg_auto_failover() {
    if std::env::var("PLATFORM_HA").as_deref() != Ok("1") {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the high-availability run needs PLATFORM_HA=1 (CI sets it)"
        );
        return;
    }
    let begun = Instant::now();
    let say = |what: &str| eprintln!("ha: {:>5.1} s: {what}", begun.elapsed().as_secs_f64());
    let mut engine = Engine::start();
    say("monitor up");
    engine.add_node();
    engine.wait("the first node is primary", Duration::from_secs(60), |e| {
        e.states()
            .iter()
            .any(|(r, _)| r == "single" || r == "wait_primary" || r == "primary")
    });
    engine.add_node();
    // The standby's base backup waits for a checkpoint: one is asked for at once.
    engine.wait("a primary and a secondary", Duration::from_secs(90), |e| {
        let _ = admin(&e.node_url(0)).and_then(|mut c| c.batch_execute("CHECKPOINT"));
        e.settled(1)
    });
    say("formation up: a primary and a secondary");
    let primary = engine.primary().expect("a primary");
    let sync = admin(&engine.node_url(primary))
        .unwrap()
        .texts("SELECT current_setting('synchronous_standby_names')")
        .unwrap();
    assert!(
        sync[0].starts_with("ANY 1"),
        "synchronous replication is on: {sync:?}"
    );

    let uri = engine.formation_uri();
    let dir = tempfile::tempdir().unwrap();
    let key = super::provisioned_key(dir.path());
    let serve = || {
        let mut command = Command::new(BIN);
        command
            .args(["serve", "--db", &uri, "--addr", "127.0.0.1:0"])
            .args(["--claim-lease", "5", "--webhook-allow", "127.0.0.1"])
            .arg("--key-file")
            .arg(&key);
        Node::spawn(command)
    };
    let a = serve();
    let token = a.admin_token.clone();
    assert!(token.starts_with("pt_"), "the first server makes the admin");
    let b = serve();
    let hook = Hook::start(0);
    call(
        "POST",
        &format!("{}/automation/v1", a.url),
        &token,
        Some(
            json!({"target": "platform.webhook", "properties": {"url": hook.url},
                    "conditions": [{"source": "private", "service": "object", "id": "*", "action": "*"}]}),
        ),
    );
    say("two servers on the formation's URL");

    let nodes = Arc::new([a.url.clone(), b.url.clone()]);
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let reads = Arc::new(Mutex::new(Vec::new()));
    let mut threads: Vec<_> = (0..WRITERS)
        .map(|t| {
            let (nodes, stop, token, seen) =
                (nodes.clone(), stop.clone(), token.clone(), seen.clone());
            std::thread::spawn(move || writer(t, &nodes, &token, &stop, &seen))
        })
        .collect();
    {
        let (nodes, stop, token, reads) =
            (nodes.clone(), stop.clone(), token.clone(), reads.clone());
        threads.push(std::thread::spawn(move || {
            reader(&nodes, &token, &stop, &reads)
        }));
    }

    // (1) A switchover: the monitor has the primary and the secondary swap roles.
    std::thread::sleep(Duration::from_secs(3));
    let switched = Instant::now();
    say("switchover");
    let out = engine.run(&["perform", "switchover", "--pgdata", &engine.path("monitor")]);
    assert!(
        out.status.success(),
        "pg_autoctl perform switchover: {}{}",
        String::from_utf8_lossy(&out.stderr),
        engine.diagnosis()
    );
    engine.wait("the switchover settles", Duration::from_secs(60), |e| {
        e.settled(1)
    });
    let new_primary = engine.primary().expect("a primary after the switchover");
    assert_ne!(new_primary, primary, "the switchover moved the primary");
    say(&format!("switchover done: node {new_primary} is primary"));
    std::thread::sleep(Duration::from_secs(3));

    // (2) A failover: the primary's engine and PostgreSQL killed.
    let failed = Instant::now();
    say("SIGKILL to the primary's node");
    engine.kill_node(new_primary);
    engine.wait("the other node is promoted", Duration::from_secs(60), |e| {
        e.primary() == Some(primary)
    });
    say("the other node is primary");
    std::thread::sleep(Duration::from_secs(4));
    let last_fault = Instant::now();
    stop.store(true, Ordering::SeqCst);
    for t in threads {
        t.join().unwrap();
    }
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    // The longest time without an acknowledged save between each fault and the next.
    let gap_within = |from: Instant, to: Instant| {
        let inside: Vec<_> = seen
            .acked
            .iter()
            .filter(|a| a.2 >= from && a.2 <= to)
            .cloned()
            .collect();
        longest_gap(&inside, from)
    };
    let switch_gap = gap_within(switched, failed);
    let fail_gap = gap_within(failed, last_fault);
    say(&format!(
        "{} saves acknowledged, {} answered 503, {} unreachable; writes again within {:.2} s of \
         the switchover and {:.2} s of the failover",
        seen.acked.len(),
        seen.unavailable,
        seen.unreachable,
        switch_gap.as_secs_f64(),
        fail_gap.as_secs_f64()
    ));
    assert!(
        seen.unexpected.is_empty(),
        "writes answered other than 200 and 503: {:?}",
        seen.unexpected
    );
    let reads = reads.lock().unwrap().clone();
    assert!(
        reads.is_empty(),
        "reads answered other than 200, 404 and 503: {reads:?}"
    );
    assert!(
        switch_gap <= WRITE_AGAIN && fail_gap <= WRITE_AGAIN,
        "writes stopped for {switch_gap:?} at the switchover and {fail_gap:?} at the failover"
    );
    // Both servers wrote after the failover, unrestarted.
    for (name, node) in [("A", &nodes[0]), ("B", &nodes[1])] {
        let (status, body) = match ureq::post(&format!("{node}/object/v1"))
            .set("Authorization", &format!("Bearer {token}"))
            .send_json(json!({"_id": format!("after_{name}")}))
        {
            Ok(r) => (r.status(), r.into_string().unwrap_or_default()),
            Err(ureq::Error::Status(c, r)) => (c, r.into_string().unwrap_or_default()),
            Err(e) => (0, e.to_string()),
        };
        assert_eq!(status, 200, "server {name} after the failover: {body}");
    }

    // No acknowledged save is lost: each is on the primary that is left.
    let stored: BTreeSet<(String, u64)> = admin(&engine.node_url(primary))
        .unwrap()
        .texts(
            "SELECT v.id || ' ' || v.version FROM versions v JOIN scopes s ON s.key = v.scope \
             WHERE s.coll = 'object'",
        )
        .unwrap()
        .iter()
        .filter_map(|t| {
            let (id, v) = t.split_once(' ')?;
            Some((id.to_string(), v.parse().ok()?))
        })
        .collect();
    let acked: BTreeSet<(String, u64)> = seen.acked.iter().map(|a| (a.0.clone(), a.1)).collect();
    let lost: Vec<_> = acked.difference(&stored).collect();
    assert!(lost.is_empty(), "acknowledged saves lost: {lost:?}");

    // Every acknowledged save's event arrives.
    let received = || -> BTreeSet<(String, u64)> {
        hook.received()
            .iter()
            .filter(|e| e["service"] == "object")
            .filter_map(|e| {
                Some((
                    e["id"].as_str()?.to_string(),
                    e["data"]["_version"].as_u64()?,
                ))
            })
            .collect()
    };
    let missing = loop {
        let missing: Vec<_> = acked.difference(&received()).cloned().collect();
        if missing.is_empty() || last_fault.elapsed() > DELIVERY_WINDOW {
            break missing;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        missing.is_empty(),
        "{} of {} acknowledged saves never reached the webhook: {missing:?}\n--- A\n{}\n--- B\n{}",
        missing.len(),
        acked.len(),
        a.lines("").join("\n"),
        b.lines("").join("\n")
    );
    say(&format!("{} events delivered; done", acked.len()));
}
