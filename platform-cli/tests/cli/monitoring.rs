//! Monitoring and stopping a served binary: `/metrics` lists the build, the process, the
//! database's state and every documented counter from the start; SIGTERM drains (`/ready`
//! 503 while requests are served) before the listener closes; a database outage is one log
//! line when lost and one when back; a PostgreSQL error names its SQLSTATE and message.

use super::{get, platform, Server, BIN};
use platform_core::store::postgres::cluster::PrivateCluster;
use platform_core::store::postgres::testing::{admin, TestDatabase};
use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};

/// `/metrics` as text.
fn metrics(url: &str) -> String {
    ureq::get(&format!("{url}/metrics"))
        .call()
        .unwrap()
        .into_string()
        .unwrap()
}

/// The value of the series whose line starts with `series` (name and labels), if listed.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|v| v.parse().ok())
}

/// `/ready`: its status and body.
fn ready(url: &str) -> (u16, Value) {
    match ureq::get(&format!("{url}/ready")).call() {
        Ok(r) => (r.status(), r.into_json().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap()),
        Err(e) => panic!("GET /ready: {e}"),
    }
}

/// `/promtool check metrics` finds nothing to say of `text` (when promtool is there, or
/// `PLATFORM_PROMTOOL=1` requires it).
fn lint(text: &str) {
    if let Some(out) = platform_server::metric_names::promtool_check(text) {
        assert!(
            out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
            "promtool check metrics: {}{}\nof\n{text}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
    }
}

/// The first scrape of a new server lists the documented counters at zero, the build with its
/// commit, the process's own figures and the database up, and passes promtool.
#[test]
fn the_first_scrape_lists_counters_at_zero_the_build_the_process_and_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("p.db"));
    let text = metrics(&server.url);
    for series in [
        "platform_jobs_total{outcome=\"done\"}",
        "platform_jobs_total{outcome=\"failed\"}",
        "platform_deliveries_total{outcome=\"delivered\"}",
        "platform_validation_runs_total{kind=\"runMany\"}",
        "platform_write_conflicts_total",
        "platform_db_round_trips_total",
        "platform_db_reads_total{server=\"replica\"}",
        "platform_db_replica_fallbacks_total",
    ] {
        assert_eq!(value(&text, series), Some(0.0), "{series} in\n{text}");
    }
    assert_eq!(value(&text, "platform_db_up"), Some(1.0), "{text}");
    let build = text
        .lines()
        .find(|l| l.starts_with("platform_build_info{"))
        .unwrap_or_else(|| panic!("no build in\n{text}"));
    let version = format!("version=\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(
        build.contains(&version) && build.ends_with("} 1"),
        "{build}"
    );
    let commit = build.split("commit=\"").nth(1).unwrap().split('"').next();
    assert!(commit.is_some_and(|c| !c.is_empty()), "{build}");
    assert!(
        value(&text, "process_resident_memory_bytes").unwrap() > 1e6,
        "{text}"
    );
    assert!(value(&text, "process_open_fds").unwrap() >= 3.0, "{text}");
    let started = value(&text, "process_start_time_seconds").unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        (now - started).abs() < 120.0,
        "started {started}, now {now}"
    );
    assert!(
        value(&text, "process_cpu_seconds_total").unwrap() > 0.0,
        "{text}"
    );
    lint(&text);
}

/// SIGTERM: `/ready` answers 503 saying the server drains while other requests are served
/// (200), for the drain time; then the process stops and exits 0.
#[test]
fn sigterm_drains_with_ready_503_while_requests_are_served_then_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start_with(&dir.path().join("p.db"), &[("PLATFORM_DRAIN", "3")]);
    let (url, token) = (server.url.clone(), server.admin_token.clone());
    assert_eq!(ready(&url).0, 200);
    let signalled = Instant::now();
    let sent = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    // Within the drain: /ready says it drains; a GET with a token is served.
    let (status, body) = loop {
        let (status, body) = ready(&url);
        if status != 200 || signalled.elapsed() > Duration::from_secs(2) {
            break (status, body);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        (status, body["status"].as_str()),
        (503, Some("draining")),
        "{body}"
    );
    let served = get(&url, &token, "/object/v1/private?_limit=1");
    assert!(served.is_ok(), "{served:?}");
    assert!(
        signalled.elapsed() < Duration::from_secs(3),
        "checked within the drain"
    );
    let status = server.child.wait().unwrap();
    let took = signalled.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(10),
        "stopped after {took:?}"
    );
    let log: Vec<String> = server.log.try_iter().collect();
    assert!(log.iter().any(|l| l.contains("draining")), "{log:#?}");
}

/// A role without privileges on the database: `init` fails, and its error names PostgreSQL's
/// SQLSTATE (42501) and message, not the client library's bare "db error".
#[test]
fn a_role_without_privileges_fails_with_the_sqlstate_and_message_of_postgresql() {
    let Some(db) = TestDatabase::new() else {
        return;
    };
    let role = format!("platform_noprivs_{}", std::process::id());
    let mut client = admin(&db.url).unwrap();
    client
        .batch_execute(&format!(
            "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN; \
             REVOKE CREATE ON SCHEMA public FROM PUBLIC"
        ))
        .unwrap();
    let url = db.url.replacen("postgres@", &format!("{role}@"), 1);
    assert_ne!(url, db.url);
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("platform.key");
    let out = platform(&["init", "--db", &url, "--key-file", key.to_str().unwrap()]);
    drop(client);
    drop(db);
    if let Ok(mut c) = admin(&platform_core::store::postgres::testing::server_url().unwrap()) {
        let _ = c.batch_execute(&format!("DROP ROLE IF EXISTS {role}"));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("PostgreSQL 42501: permission denied for"),
        "{stderr}"
    );
    assert!(!stderr.contains("db error"), "{stderr}");
}

/// A database stopped while a server runs: requests fail meanwhile, and the server's log has
/// one line saying the database is lost and one saying it is back and after how long; the
/// metrics say it is down, then up again.
#[test]
fn a_database_outage_is_one_line_when_lost_and_one_when_back() {
    let Some(cluster) = PrivateCluster::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = super::provisioned_key(dir.path());
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--db", &cluster.url, "--addr", "127.0.0.1:0"])
        .arg("--key-file")
        .arg(&key);
    let server = Server::spawn(command);
    let (url, token) = (server.url.clone(), server.admin_token.clone());
    let path = "/object/v1/private?_limit=1";
    assert!(get(&url, &token, path).is_ok());
    let up = metrics(&url);
    assert_eq!(value(&up, "platform_db_up"), Some(1.0), "{up}");
    assert_eq!(value(&up, "platform_db_pool_max"), Some(16.0), "{up}");
    assert!(value(&up, "platform_db_pool_open").unwrap() >= 1.0, "{up}");
    assert_eq!(value(&up, "platform_db_pool_waiting"), Some(0.0), "{up}");
    lint(&up);

    // (The server may find the database lost while it shuts down, before `stop` returns.)
    let lost_at = Instant::now();
    cluster.stop();
    let mut failed = 0;
    for _ in 0..6 {
        if get(&url, &token, path).is_err() {
            failed += 1;
        }
    }
    assert_eq!(failed, 6, "every request fails while the database is away");
    let down = metrics(&url);
    assert_eq!(value(&down, "platform_db_up"), Some(0.0), "{down}");
    std::thread::sleep(Duration::from_secs(1));
    cluster.start_again();
    let back = Instant::now();
    while get(&url, &token, path).is_err() {
        assert!(back.elapsed() < Duration::from_secs(30), "no answer again");
        std::thread::sleep(Duration::from_millis(100));
    }
    let away = lost_at.elapsed().as_secs_f64();
    assert_eq!(value(&metrics(&url), "platform_db_up"), Some(1.0));
    std::thread::sleep(Duration::from_millis(300));
    let log: Vec<String> = server.log.try_iter().collect();
    let lost: Vec<_> = log
        .iter()
        .filter(|l| l.contains("the database is lost"))
        .collect();
    let again: Vec<_> = log
        .iter()
        .filter(|l| l.contains("the database is back after"))
        .collect();
    assert_eq!((lost.len(), again.len()), (1, 1), "{log:#?}");
    let seconds: f64 = again[0]
        .split("the database is back after ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", again[0]));
    assert!(
        seconds >= 1.0 && seconds <= away + 0.5,
        "{seconds} of {away}"
    );
    // Nothing else says the database failed, once a line per request or a line a second per
    // worker: only the realtime listener's one line that its connection was lost.
    let failures: Vec<_> = log
        .iter()
        .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
        .filter(|l| !l.contains("the database is"))
        .collect();
    assert!(
        failures.len() <= 1 && failures.iter().all(|l| l.contains("realtime listener")),
        "no line per failed request: {log:#?}"
    );
    assert!(!log.iter().any(|l| l.contains("db error")), "{log:#?}");
}

/// A read replica's lag and state are metrics by its name (its URL without a password): it
/// serves (1) with a lag of seconds; stopped, it is skipped (0) with no lag (`NaN`).
#[test]
fn each_read_replica_has_its_lag_and_state_in_the_metrics() {
    let Some(primary) = PrivateCluster::start() else {
        return;
    };
    let replica = primary.replica();
    let dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--db", &primary.url, "--addr", "127.0.0.1:0"])
        .args(["--read-replica", &replica.url, "--replica-max-lag", "2"])
        .arg("--key-file")
        .arg(super::provisioned_key(dir.path()));
    let server = Server::spawn(command);
    let serving = format!("platform_db_replica_serving{{replica=\"{}\"}}", replica.url);
    let lag = format!(
        "platform_db_replica_lag_seconds{{replica=\"{}\"}}",
        replica.url
    );
    let until = |want: f64| {
        let started = Instant::now();
        loop {
            let text = metrics(&server.url);
            if value(&text, &serving) == Some(want) {
                return text;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{serving} is not {want} in\n{text}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    let text = until(1.0);
    let seconds = value(&text, &lag).unwrap_or_else(|| panic!("no {lag} in\n{text}"));
    assert!((0.0..2.0).contains(&seconds), "{seconds}");
    lint(&text);
    replica.stop();
    let text = until(0.0);
    assert!(value(&text, &lag).is_some_and(f64::is_nan), "{text}");
    lint(&text);
}
