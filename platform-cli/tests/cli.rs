//! The real `platform` binary as a process: serve on a free port, tokens, objects over HTTP and
//! on the file, and a clean stop on SIGTERM.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_platform");

fn platform(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("PLATFORM_DB")
        .env_remove("PLATFORM_URL")
        .output()
        .unwrap()
}

#[track_caller]
fn stdout_of(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// A running `platform serve`, stopped with SIGTERM when dropped.
struct Server {
    child: Child,
    url: String,
    admin_token: String,
    log: mpsc::Receiver<String>,
}

impl Server {
    fn start(db: &Path) -> Server {
        let mut child = Command::new(BIN)
            .args([
                "serve",
                "--db",
                db.to_str().unwrap(),
                "--addr",
                "127.0.0.1:0",
            ])
            .env("PLATFORM_LOG", "info")
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let (mut url, mut token) = (None, None);
        while url.is_none() {
            let line = rx
                .recv_timeout(Duration::from_secs(30))
                .expect("server did not start");
            if let Some(t) = line
                .split("admin token (shown once, keep it safe): ")
                .nth(1)
            {
                token = Some(t.trim().to_string());
            }
            if let Some(u) = line.strip_prefix("listening on ") {
                url = Some(u.trim().to_string());
            }
        }
        Server {
            child,
            url: url.unwrap(),
            admin_token: token.expect("a fresh database prints the admin token"),
            log: rx,
        }
    }

    fn stop(&mut self) -> std::process::ExitStatus {
        Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn post(url: &str, token: &str, body: Value) -> Value {
    ureq::post(&format!("{url}/object/v1"))
        .set("Authorization", &format!("Bearer {token}"))
        .send_json(body)
        .unwrap()
        .into_json()
        .unwrap()
}

fn get(url: &str, token: &str, path: &str) -> Result<Value, u16> {
    match ureq::get(&format!("{url}{path}"))
        .set("Authorization", &format!("Bearer {token}"))
        .call()
    {
        Ok(res) => Ok(res.into_json().unwrap()),
        Err(ureq::Error::Status(code, _)) => Err(code),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn serve_token_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let mut server = Server::start(&db);

    // The bootstrap token works and has the platform role: it may write public objects.
    let public = post(
        &server.url,
        &server.admin_token,
        json!({"_id": "#GLOBAL", "name": "shared"}),
    );
    assert_eq!(public["_version"], 1);

    // A token created by the CLI while the server runs.
    let out = platform(&[
        "token",
        "create",
        "--db",
        db.to_str().unwrap(),
        "--tenant",
        "acme",
        "--user",
        "ann",
        "--role",
        "writer",
    ]);
    let token = stdout_of(&out).trim().to_string();
    assert!(
        token.starts_with("pt_") && !token.contains('\n'),
        "{token:?}"
    );

    let saved = post(&server.url, &token, json!({"_id": "GB", "name": "Britain"}));
    assert_eq!(
        (saved["_version"].clone(), saved["_user"].clone()),
        (json!(1), json!("ann"))
    );
    let read = get(&server.url, &token, "/object/v1/private/GB").unwrap();
    assert_eq!(read, saved);
    assert_eq!(
        get(&server.url, &token, "/object/v1/public/%23GLOBAL").unwrap()["name"],
        "shared"
    );
    // The admin's tenant cannot see acme's object.
    assert_eq!(
        get(&server.url, &server.admin_token, "/object/v1/private/GB"),
        Err(404)
    );

    // The CLI talks to the server too.
    let file = dir.path().join("obj.json");
    std::fs::write(&file, r#"{"_id": "GB", "capital": "London"}"#).unwrap();
    let out = platform(&[
        "object",
        "put",
        "--url",
        &server.url,
        "--token",
        &token,
        file.to_str().unwrap(),
    ]);
    let merged: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(
        (merged["_version"].clone(), merged["name"].clone()),
        (json!(2), json!("Britain"))
    );
    let out = platform(&[
        "object",
        "get",
        "--url",
        &server.url,
        "--token",
        &token,
        "GB",
        "--version",
        "1",
    ]);
    let v1: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert!(v1.get("capital").is_none());

    // Revoking the token locks it out at once.
    stdout_of(&platform(&[
        "token",
        "revoke",
        "--db",
        db.to_str().unwrap(),
        &token,
    ]));
    assert_eq!(get(&server.url, &token, "/object/v1/private/GB"), Err(401));

    // Access log lines carry method, path, status, milliseconds and tenant.
    let status = server.stop();
    assert!(status.success(), "{status:?}");
    let log: Vec<String> = server.log.try_iter().collect();
    assert!(
        log.iter().any(|l| l.contains("method=POST")
            && l.contains("path=/object/v1")
            && l.contains("status=200")
            && l.contains("ms=")
            && l.contains("tenant=acme")),
        "{log:#?}"
    );
    assert!(
        log.iter().any(|l| l.contains("database closed cleanly")),
        "{log:#?}"
    );

    // After the stop, the file holds everything, readable through the core by the CLI.
    let out = platform(&[
        "object",
        "get",
        "--db",
        db.to_str().unwrap(),
        "--tenant",
        "acme",
        "GB",
    ]);
    let on_file: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(
        (on_file["_version"].clone(), on_file["capital"].clone()),
        (json!(2), json!("London"))
    );

    // A restart on the same file prints no new admin token.
    let restarted = Command::new(BIN)
        .args([
            "serve",
            "--db",
            db.to_str().unwrap(),
            "--addr",
            "127.0.0.1:0",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut restarted = restarted;
    let stderr = restarted.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines().map_while(Result::ok);
    let first_listening = lines
        .by_ref()
        .find(|l| l.starts_with("listening on") || l.contains("admin token"));
    let _ = restarted.kill();
    let _ = restarted.wait();
    assert!(first_listening.unwrap().starts_with("listening on"));
}

#[test]
fn objects_on_a_database_file_without_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let dbs = db.to_str().unwrap();
    let file = dir.path().join("objs.json");
    std::fs::write(&file, r#"[{"_id": "A", "v": 1}, {"_id": "B", "v": 2}]"#).unwrap();
    stdout_of(&platform(&[
        "object",
        "put",
        "--db",
        dbs,
        file.to_str().unwrap(),
        "--reason",
        "load",
    ]));
    std::fs::write(&file, r#"{"_id": "A", "v": 10}"#).unwrap();
    stdout_of(&platform(&[
        "object",
        "put",
        "--db",
        dbs,
        file.to_str().unwrap(),
    ]));
    let out = platform(&["object", "list", "--db", dbs, "_sort=-v"]);
    let list: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(list[0]["_id"], "A");
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 in all"));
    let out = platform(&["object", "delete", "--db", dbs, "A"]);
    let deleted: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(deleted, json!({"_id": "A", "deleted": [2], "current": 1}));
    let out = platform(&["object", "get", "--db", dbs, "A"]);
    assert_eq!(
        serde_json::from_str::<Value>(&stdout_of(&out)).unwrap()["v"],
        1
    );
    // Errors go to stderr with their code and a failing exit status.
    let out = platform(&["object", "get", "--db", dbs, "NOPE"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("[NOT_FOUND]"));
    // Environments are created by the CLI and keep data apart.
    stdout_of(&platform(&[
        "env", "create", "--db", dbs, "--tenant", "default", "test",
    ]));
    let out = platform(&["object", "get", "--db", dbs, "--env", "test", "A"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("[NOT_FOUND]"));
    let out = platform(&["object", "get", "--db", dbs, "--env", "nope", "A"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("environment \"nope\""));
}

#[test]
fn version_flag_prints_the_version() {
    let out = stdout_of(&platform(&["--version"]));
    assert!(out.starts_with("platform "), "{out}");
}
