//! The operator's side of the binary: backups while writes go on, a prompt stop with an open
//! event stream, JSON logs with request ids, the version, completions and the man page.

use super::{get, platform, post, stdout_of, Server};
use serde_json::json;
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Opens an event stream of realtime messages and reads up to its opening comment.
fn open_stream(url: &str, token: &str) -> BufReader<TcpStream> {
    let addr = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET /extension/v1/realtime HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    while !line.contains(": connected") {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
    }
    reader
}

#[test]
fn sigterm_with_an_open_event_stream_stops_within_5_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let mut server = Server::start_with(&db, &[("PLATFORM_SSE_HEARTBEAT", "0.2")]);
    let mut stream = open_stream(&server.url, &server.admin_token);
    // The stream sends heartbeats while nothing happens.
    let mut line = String::new();
    let started = Instant::now();
    while !line.contains(": heartbeat") {
        line.clear();
        assert!(stream.read_line(&mut line).unwrap() > 0, "the stream ended");
        assert!(started.elapsed() < Duration::from_secs(5), "no heartbeat");
    }
    let stopping = Instant::now();
    let status = server.stop();
    let took = stopping.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(5), "stopped in {took:?}");
    // The stream was ended by the server, not cut by the exit alone: it reads to its end.
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut stream, &mut rest);
    let mut log = Vec::new();
    while let Ok(l) = server.log.recv_timeout(Duration::from_secs(5)) {
        log.push(l);
    }
    assert!(
        log.iter().any(|l| l.contains("database closed cleanly")),
        "{log:#?}"
    );
}

#[test]
fn a_backup_taken_during_writes_is_whole_and_holds_every_write_acknowledged_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let server = Server::start(&db);
    let acked = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let (acked, stop) = (acked.clone(), stop.clone());
            let (url, token) = (server.url.clone(), server.admin_token.clone());
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let id = format!("W{w}-{i:05}");
                    let saved = post(
                        &url,
                        &token,
                        json!({"_id": id, "_type": "T", "payload": "x".repeat(200)}),
                    );
                    assert_eq!(saved["_version"], 1);
                    acked.lock().unwrap().push(id);
                    i += 1;
                }
            })
        })
        .collect();
    while acked.lock().unwrap().len() < 200 {
        std::thread::sleep(Duration::from_millis(20));
    }
    let before: Vec<String> = acked.lock().unwrap().clone();
    let out = dir.path().join("copy.db");
    let backup = platform(&[
        "backup",
        "--db",
        db.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    stdout_of(&backup);
    // Writes went on during the backup.
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    let after = acked.lock().unwrap().len();
    assert!(after > before.len(), "writes went on: {after}");
    drop(server);

    assert_eq!(
        platform_core::store::sqlite::integrity_check(&out).unwrap(),
        ["ok"],
        "PRAGMA integrity_check of the copy"
    );
    #[cfg(unix)]
    for file in [out.clone(), dir.path().join("copy.db.key")] {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", file.display());
    }
    // The copy carries no worker of the original: a command may take over its jobs at once.
    let work = platform(&["validate", "work", "--db", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&work.stderr);
    assert!(
        work.status.success() && !err.contains("stop that server"),
        "{err}"
    );
    // Restoring is serving the copy: every write acknowledged before the backup is there.
    let restored = Server::start_existing(&out);
    let token = stdout_of(&platform(&[
        "token",
        "create",
        "--db",
        out.to_str().unwrap(),
        "--tenant",
        "default",
        "--user",
        "admin",
        "--role",
        "platform",
    ]))
    .trim()
    .to_string();
    for id in &before {
        let doc = get(&restored.url, &token, &format!("/object/v1/private/{id}"))
            .unwrap_or_else(|s| panic!("{id} acknowledged before the backup: {s}"));
        assert_eq!(doc["_version"], 1);
    }
    // A second backup to the same file is refused and changes nothing.
    let again = platform(&[
        "backup",
        "--db",
        db.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists"));
}

#[test]
fn json_logs_carry_the_request_id_and_redact_secret_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let mut server = Server::start_with(&db, &[("PLATFORM_LOG_FORMAT", "json")]);
    let res = ureq::get(&format!(
        "{}/object/v1/private?_limit=2&token=pt_leaked",
        server.url
    ))
    .set("Authorization", &format!("Bearer {}", server.admin_token))
    .set("x-request-id", "trace-42")
    .call();
    // An unknown parameter without `_` is a field filter: the answer is a list.
    let res = res.unwrap();
    assert_eq!(res.header("x-request-id"), Some("trace-42"));
    assert!(server.stop().success());
    let mut log = Vec::new();
    while let Ok(l) = server.log.recv_timeout(Duration::from_secs(5)) {
        log.push(l);
    }
    let access = log
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["target"] == "platform::access" && v["span"]["id"] == "trace-42")
        .unwrap_or_else(|| panic!("no JSON access line with the request id: {log:#?}"));
    assert_eq!(access["fields"]["status"], 200);
    assert_eq!(access["fields"]["path"], "/object/v1/private");
    assert_eq!(access["fields"]["query"], "_limit=2&token=[redacted]");
    assert!(!log.iter().any(|l| l.contains("pt_leaked")), "{log:#?}");
}

#[test]
fn version_completions_and_man_page_come_from_the_command_line_definition() {
    let version = stdout_of(&platform(&["--version"]));
    assert!(
        version.starts_with(&format!("platform {} (", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    let bash = stdout_of(&platform(&["completions", "bash"]));
    assert!(
        bash.contains("_platform") && bash.contains("backup"),
        "{bash}"
    );
    let zsh = stdout_of(&platform(&["completions", "zsh"]));
    assert!(zsh.contains("#compdef platform"));
    let man = stdout_of(&platform(&["man"]));
    assert!(
        man.contains(".TH platform 1") && man.contains("serve"),
        "{man}"
    );
    let bad = platform(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn the_sample_systemd_unit_names_only_options_serve_has() {
    let unit = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../deploy/platform.service"
    ))
    .unwrap();
    let help = stdout_of(&platform(&["serve", "--help"]));
    let exec = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("an ExecStart line");
    let mut args = exec.split_whitespace();
    assert!(args.next().unwrap().ends_with("/platform"));
    assert_eq!(args.next(), Some("serve"));
    let flags: Vec<_> = exec
        .split_whitespace()
        .filter(|a| a.starts_with("--"))
        .collect();
    assert!(!flags.is_empty());
    for flag in flags {
        assert!(help.contains(&format!("{flag} ")), "serve has no {flag}");
    }
    // Every variable the unit sets or suggests is one serve reads.
    let vars: Vec<_> = unit
        .lines()
        .filter_map(|l| l.trim_start_matches("# ").strip_prefix("Environment="))
        .map(|l| l.split('=').next().unwrap())
        .collect();
    assert!(vars.len() >= 5, "{vars:?}");
    for var in vars {
        // An option's variable, or the log filter its help names.
        assert!(
            help.contains(&format!("[env: {var}=")) || help.contains(&format!("{var} (")),
            "serve reads no {var}"
        );
    }
}

#[test]
fn prune_applies_retention_policies_to_what_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let mut server = Server::start(&db);
    for v in 1..=4 {
        post(
            &server.url,
            &server.admin_token,
            json!({"_id": "Q", "_type": "Quote", "v": v}),
        );
    }
    // The policy comes after the versions: only prune applies it to them.
    let res = ureq::post(&format!("{}/type/v1", server.url))
        .set("Authorization", &format!("Bearer {}", server.admin_token))
        .send_json(json!({"_id": "Quote", "_retention": {"keepVersions": 1}}))
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(server.stop().success());
    let out = platform(&["prune", "--db", db.to_str().unwrap()]);
    assert_eq!(stdout_of(&out), "Q: removed versions 1, 2, 3\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("pruned 3 versions of 1 objects"));
    // Again: nothing left to prune.
    let again = platform(&["prune", "--db", db.to_str().unwrap()]);
    assert_eq!(stdout_of(&again), "");
    let got = platform(&[
        "object",
        "get",
        "--db",
        db.to_str().unwrap(),
        "--tenant",
        "default",
        "Q",
        "--version",
        "1",
    ]);
    assert_eq!(got.status.code(), Some(2), "version 1 is gone");
}

/// The families a served binary on SQLite records after the traffic of
/// [`metrics_after_traffic_have_help_lines_and_pass_the_lint_of_promtool`] (the others are
/// recorded over PostgreSQL, or when writes meet, and are linted by the server's unit tests).
const SQLITE_FAMILIES: [&str; 9] = [
    "platform_http_requests_total",
    "platform_http_request_duration_seconds",
    "platform_db_wait_seconds",
    "platform_backlog_jobs",
    "platform_backlog_deliveries",
    "platform_jobs_total",
    "platform_deliveries_total",
    "platform_validation_runs_total",
    "platform_validation_run_seconds",
];

/// `/metrics` of a served binary, after requests, a validation test, a background validation
/// run and an automation's delivery, has a series of every family above, a `# HELP` line before
/// each `# TYPE` line, and `promtool check metrics` has nothing to say of it (when promtool is
/// on the PATH; `PLATFORM_PROMTOOL=1`, as CI sets it, fails the test without it).
#[test]
fn metrics_after_traffic_have_help_lines_and_pass_the_lint_of_promtool() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("p.db"));
    let (url, token) = (server.url.as_str(), server.admin_token.as_str());
    let send = |path: &str, body: serde_json::Value| {
        let res = ureq::post(&format!("{url}{path}"))
            .set("Authorization", &format!("Bearer {token}"))
            .send_json(body);
        assert!(res.is_ok(), "POST {path}: {res:?}");
    };
    // Mail about every object saved, kept in the outbox (no --smtp): a delivery per save.
    send(
        "/automation/v1",
        json!({"target": "platform.email",
               "properties": {"to": "desk@example.com", "subject": "Saved", "attachment": false},
               "conditions": [{"source": "private", "service": "object", "id": "*", "action": "*"}]}),
    );
    let data: Vec<_> = (1..=7)
        .map(|d| json!({"time": format!("2024-07-{d:02}"), "value": d}))
        .collect();
    post(
        url,
        token,
        json!({"_id": "NBP", "S": {"_type": "VarTimeSeries", "calendar": "DAILY", "data": data}}),
    );
    assert!(get(url, token, "/object/v1/private/NBP").is_ok());
    assert_eq!(get(url, token, "/object/v1/private/NOPE"), Err(404));
    send(
        "/validationconfig/v1",
        json!({"_id": "NBP:S", "kind": "timeseries",
               "checks": [{"name": "Range", "expression": "between(value, 0, 5)", "severity": "severe"}]}),
    );
    let window = json!({"target": "NBP:S", "from": "2024-07-01", "to": "2024-07-07"});
    send("/validation/v1?_function=test", window.clone());
    let mut background = window;
    background["background"] = json!(true);
    send("/validation/v1?_function=run", background);

    // The job worker and the deliverer finish in the background: read until every family is
    // there.
    let started = std::time::Instant::now();
    let text = loop {
        let text = ureq::get(&format!("{url}/metrics"))
            .call()
            .unwrap()
            .into_string()
            .unwrap();
        let missing: Vec<_> = SQLITE_FAMILIES
            .iter()
            .filter(|f| !text.contains(&format!("# TYPE {f} ")))
            .collect();
        if missing.is_empty() {
            break text;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no series of {missing:?} in\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    // What promtool says first (when installed): the most telling failure.
    if let Some(out) = platform_server::metric_names::promtool_check(&text) {
        assert!(
            out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
            "promtool check metrics: {}\n{}{}\nof\n{text}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
    }
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if let Some(name) = line
            .strip_prefix("# TYPE ")
            .and_then(|t| t.split(' ').next())
        {
            let help = format!("# HELP {name} ");
            assert!(
                i > 0 && lines[i - 1].starts_with(&help) && lines[i - 1].len() > help.len(),
                "no help line before {line:?} in\n{text}"
            );
        }
    }
}
