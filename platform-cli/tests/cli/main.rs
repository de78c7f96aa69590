//! The real `platform` binary as a process: serve on a free port, tokens, objects over HTTP and
//! on the file, and a clean stop on SIGTERM.

mod attacks;
mod cluster_start;
mod console;
mod continuation;
mod conventions;
mod curve_calendars;
mod data_get;
mod desk_pandas;
mod failover;
mod faults;
mod ha;
mod import;
mod limits;
mod memory;
mod monitoring;
mod multinode;
mod odsl_sdk;
mod openapi;
mod ops;
mod pooler;
mod published;
mod readme;
mod replicas;
mod served;
mod settlement;
mod shaping;
mod tls;
mod values;

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

/// A new database file in `dir`, made by `platform init` (which prints its admin token).
fn new_db(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("p.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    assert!(token.trim().starts_with("pt_"), "{token}");
    db
}

/// A key file for the servers of a PostgreSQL database, provisioned as an operator would
/// (`openssl rand -hex 32`, mode 0600) before any server starts: servers and commands never
/// make one (only `platform init` does).
fn provisioned_key(dir: &Path) -> std::path::PathBuf {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .unwrap()
        .read_exact(&mut bytes)
        .unwrap();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let path = dir.join("platform.key");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut file, format!("{hex}\n").as_bytes()).unwrap();
    path
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
        Server::start_with(db, &[])
    }

    /// A server with extra environment variables.
    fn start_with(db: &Path, env: &[(&str, &str)]) -> Server {
        let mut command = Command::new(BIN);
        command
            .args([
                "serve",
                "--db",
                db.to_str().unwrap(),
                "--addr",
                "127.0.0.1:0",
            ])
            .envs(env.iter().copied());
        let server = Server::spawn(command);
        assert!(
            server.admin_token.starts_with("pt_"),
            "a fresh database prints the admin token"
        );
        server
    }

    /// A server on a database that has its admin already (it prints no token).
    fn start_existing(db: &Path) -> Server {
        let mut command = Command::new(BIN);
        command.args([
            "serve",
            "--db",
            db.to_str().unwrap(),
            "--addr",
            "127.0.0.1:0",
        ]);
        let server = Server::spawn(command);
        assert_eq!(server.admin_token, "", "no second admin token");
        server
    }

    /// `platform ARGS --addr 127.0.0.1:0` in the directory `dir`.
    fn start_in(dir: &Path, args: &[&str]) -> Server {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .args(["--addr", "127.0.0.1:0"])
            .current_dir(dir)
            .env_remove("PLATFORM_DB");
        Server::spawn(command)
    }

    fn spawn(mut command: Command) -> Server {
        // A test stops at once unless it asks for a drain.
        if !command.get_envs().any(|(k, _)| k == "PLATFORM_DRAIN") {
            command.env("PLATFORM_DRAIN", "0");
        }
        let mut child = command
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
            admin_token: token.unwrap_or_default(),
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
    // The process has exited; read its log to the end (the reader stops at end of file).
    let mut log = Vec::new();
    while let Ok(line) = server.log.recv_timeout(Duration::from_secs(10)) {
        log.push(line);
    }
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

/// A list past 10,000 matches says its total is an estimate; `_count=exact` counts them.
#[test]
fn a_long_object_list_says_its_total_is_an_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let dbs = db.to_str().unwrap();
    let file = dir.path().join("objs.json");
    let objects: Vec<Value> = (0..10_500)
        .map(|i| json!({"_id": format!("M{i:05}"), "_type": "Meter"}))
        .collect();
    std::fs::write(&file, Value::Array(objects).to_string()).unwrap();
    stdout_of(&platform(&[
        "object",
        "put",
        "--db",
        dbs,
        file.to_str().unwrap(),
    ]));
    let out = platform(&["object", "list", "--db", dbs, "_type=Meter", "_limit=1"]);
    stdout_of(&out);
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        said.starts_with("about ") && said.contains("an estimate"),
        "{said}"
    );
    let out = platform(&[
        "object",
        "list",
        "--db",
        dbs,
        "_type=Meter",
        "_limit=1",
        "_count=exact",
    ]);
    stdout_of(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("10500 in all"));
}

#[test]
fn objects_on_a_database_file_without_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
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

/// A `platform data ...` call on a database file.
fn data(db: &Path, args: &[&str]) -> Output {
    let mut all = vec!["data", args[0], "--db", db.to_str().unwrap()];
    all.extend_from_slice(&args[1..]);
    platform(&all)
}

#[track_caller]
fn stderr_of_failure(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "succeeded: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn data_import_csv_merges_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let file = dir.path().join("load.csv");
    let path = file.to_str().unwrap();
    std::fs::write(
        &file,
        "time,value,status\n2024-01-01,1.5,VALID\n2024-01-02,n/a,\n2024-01-03,,FAILED:meter\n",
    )
    .unwrap();
    let out = data(&db, &["import", "GB:load", path, "--calendar", "DAILY"]);
    // (Without units: a series with units is numeric and refuses the text value.)
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "imported 3 observations into GB:load (version 1)"
    );

    let item: Value = serde_json::from_str(&stdout_of(&data(&db, &["get", "GB:load"]))).unwrap();
    assert_eq!(
        (&item["_id"], &item["calendar"], &item["_version"]),
        (&json!("GB:load"), &json!("DAILY"), &json!(1))
    );
    assert_eq!(
        item["data"],
        json!([
            {"time": "2024-01-01", "value": 1.5, "status": {"quality": "VALID"}},
            {"time": "2024-01-02", "value": "n/a"},
            {"time": "2024-01-03", "value": null, "status": {"quality": "FAILED:meter"}},
        ])
    );
    assert_eq!(
        stdout_of(&data(&db, &["get", "GB:load", "--format", "csv"])),
        "time,value,quality,source,reliability\n\
         2024-01-01,1.5,VALID,,\n2024-01-02,n/a,,,\n2024-01-03,,FAILED:meter,,\n"
    );

    // A second file without a header changes one value and adds a day: merged, the change
    // marked CHANGED.
    std::fs::write(&file, "2024-01-02,7\n2024-01-04,8\n").unwrap();
    let out = data(&db, &["import", "GB:load", path, "--reason", "fix"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("2 observations into GB:load (version 2)")
    );
    assert_eq!(
        stdout_of(&data(&db, &["get", "GB:load", "--format", "csv"])),
        "time,value,quality,source,reliability\n\
         2024-01-01,1.5,VALID,,\n2024-01-02,7.0,,CHANGED,\n2024-01-03,,FAILED:meter,,\n\
         2024-01-04,8.0,,,\n"
    );
    let last: Value = serde_json::from_str(&stdout_of(&data(
        &db,
        &["get", "GB:load", "--range", "last(1)"],
    )))
    .unwrap();
    assert_eq!(last["data"], json!([{"time": "2024-01-04", "value": 8.0}]));
    // Query errors are the server's.
    let err = stderr_of_failure(&data(&db, &["get", "GB:load", "--range", "last("]));
    assert!(err.contains("[INVALID_PARAMETER] _range:"), "{err}");
}

#[test]
fn data_import_stores_nothing_from_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let file = dir.path().join("load.csv");
    let path = file.to_str().unwrap();
    std::fs::write(&file, "2024-01-01,1\n2024-01-02,2\n").unwrap();
    stdout_of(&data(&db, &["import", "GB:load", path]));
    let before = stdout_of(&data(&db, &["get", "GB:load"]));

    std::fs::write(
        &file,
        "time,value\n2024-01-02,20\n2024-13-03,3\n2024-01-04,4\n",
    )
    .unwrap();
    let err = stderr_of_failure(&data(&db, &["import", "GB:load", path]));
    assert!(
        err.contains("line 3") && err.contains("2024-13-03"),
        "{err}"
    );
    assert_eq!(stdout_of(&data(&db, &["get", "GB:load"])), before);

    // A quality code that is not one of the allowed ones names its line too.
    std::fs::write(&file, "2024-01-05,5,GOOD\n").unwrap();
    let err = stderr_of_failure(&data(&db, &["import", "GB:load", path]));
    assert!(err.contains("line 1") && err.contains("GOOD"), "{err}");
    assert_eq!(stdout_of(&data(&db, &["get", "GB:load"])), before);
}

#[test]
fn data_import_json_checks_the_calendar() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let file = dir.path().join("price.json");
    let path = file.to_str().unwrap();
    // Friday then Saturday.
    std::fs::write(
        &file,
        "[\n  {\"time\": \"2024-07-05\", \"value\": 71.2},\n  {\"time\": \"2024-07-06\", \"value\": 70.9}\n]\n",
    )
    .unwrap();
    let err = stderr_of_failure(&data(
        &db,
        &["import", "FR:price", path, "--calendar", "BUSINESS"],
    ));
    assert!(
        err.contains("[INDEX_ALIGN]") && err.contains("line 3"),
        "{err}"
    );
    let err = stderr_of_failure(&data(&db, &["get", "FR:price"]));
    assert!(err.contains("[NOT_FOUND]"), "{err}");

    // The object form carries header fields; the time zone reads local dates.
    std::fs::write(
        &file,
        r#"{"calendar": "BUSINESS", "timezone": "Europe/Paris", "currency": "EUR",
            "data": [{"time": "2024-07-05", "value": 71.2, "status": {"reliability": "QUOTED"}}]}"#,
    )
    .unwrap();
    stdout_of(&data(&db, &["import", "FR:price", path]));
    let item: Value = serde_json::from_str(&stdout_of(&data(&db, &["get", "FR:price"]))).unwrap();
    assert_eq!(
        (&item["timezone"], &item["currency"], &item["data"]),
        (
            &json!("Europe/Paris"),
            &json!("EUR"),
            &json!([{"time": "2024-07-05", "value": 71.2, "status": {"reliability": "QUOTED"}}])
        )
    );
    // Its JSON output imports back as it is, into another series.
    let exported = dir.path().join("export.json");
    std::fs::write(&exported, stdout_of(&data(&db, &["get", "FR:price"]))).unwrap();
    stdout_of(&data(
        &db,
        &["import", "FR:copy", exported.to_str().unwrap()],
    ));
    let copy: Value = serde_json::from_str(&stdout_of(&data(&db, &["get", "FR:copy"]))).unwrap();
    assert_eq!(
        (&copy["calendar"], &copy["data"]),
        (&item["calendar"], &item["data"])
    );
}

#[test]
fn data_import_of_200000_lines() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let file = dir.path().join("big.csv");
    let start = 1_704_067_200_i64; // 2024-01-01T00:00:00Z
    let mut text = String::from("time,value\n");
    for i in 0..200_000_i64 {
        let t = chrono_like(start + i * 900);
        text.push_str(&format!("{t},{}.25\n", i % 1000));
    }
    std::fs::write(&file, text).unwrap();
    let began = std::time::Instant::now();
    let out = data(
        &db,
        &[
            "import",
            "NL:power",
            file.to_str().unwrap(),
            "--calendar",
            "QUARTERHOURLY",
        ],
    );
    let took = began.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("imported 200000 observations"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("imported 200,000 lines in {took:?}");
    let csv = stdout_of(&data(
        &db,
        &["get", "NL:power", "--range", "last(2)", "--format", "csv"],
    ));
    assert_eq!(
        csv,
        format!(
            "time,value,quality,source,reliability\n{},998.25,,,\n{},999.25,,,\n",
            chrono_like(start + 199_998 * 900),
            chrono_like(start + 199_999 * 900)
        )
    );
}

/// `YYYY-MM-DDThh:mm:ssZ` of seconds since the epoch (days to a civil date, H. Hinnant).
fn chrono_like(secs: i64) -> String {
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[test]
fn grants_open_access_restricted_data() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let dbs = db.to_str().unwrap();
    let file = dir.path().join("obj.json");
    std::fs::write(&file, r#"{"_id": "BOOK", "PNL": {"_type": "VarTimeSeries", "_access": "traders", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]}}"#).unwrap();
    stdout_of(&platform(&[
        "object",
        "put",
        "--db",
        dbs,
        "--tenant",
        "acme",
        file.to_str().unwrap(),
    ]));
    let token = stdout_of(&platform(&[
        "token", "create", "--db", dbs, "--tenant", "acme", "--user", "rita", "--role", "reader",
    ]));
    let token = token.trim().to_string();
    let p = platform_core::Platform::open(&db).unwrap();
    let read = |p: &platform_core::Platform| {
        let who = p
            .tenancy()
            .authenticate(
                Some(&platform_core::auth::Credentials::Bearer(token.clone())),
                None,
            )
            .unwrap();
        p.data().read(
            &who,
            platform_core::ids::Source::Private,
            "BOOK:PNL",
            &Default::default(),
        )
    };
    assert_eq!(
        read(&p).unwrap_err().code(),
        platform_core::ErrorCode::NotFound
    );
    let out = platform(&[
        "grant", "--db", dbs, "--tenant", "acme", "--user", "rita", "--access", "traders",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("granted"));
    assert_eq!(read(&p).unwrap()["data"][0]["value"], 1.0);
    stdout_of(&platform(&[
        "grant", "--db", dbs, "--tenant", "acme", "--user", "rita", "--access", "traders",
        "--revoke",
    ]));
    assert!(read(&p).is_err());
    let out = platform(&[
        "grant", "--db", dbs, "--tenant", "acme", "--user", "nobody", "--access", "traders",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("[NOT_FOUND]"));
}

/// A `platform validate ...` call on a database file (`args[0]` the subcommand, or
/// `config put|get`).
fn validate(db: &Path, args: &[&str]) -> Output {
    let split = if args[0] == "config" { 2 } else { 1 };
    let mut all = vec!["validate"];
    all.extend_from_slice(&args[..split]);
    all.extend_from_slice(&["--db", db.to_str().unwrap()]);
    all.extend_from_slice(&args[split..]);
    platform(&all)
}

#[track_caller]
fn json_of(out: &Output) -> Value {
    serde_json::from_str(&stdout_of(out)).unwrap()
}

#[track_caller]
fn json_gated(out: &Output) -> Value {
    serde_json::from_str(&gated(out)).unwrap()
}

/// The answer of a `validate` command whose data did not pass its gate: exit code 1, the
/// answer printed all the same, and what did not pass on standard error.
#[track_caller]
fn gated(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("did not pass: "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// A daily series with a spike on the 4th and a negative value on the 6th, and its saved
/// configuration (positive, range: severe, move: warning).
fn validated_series(dir: &Path) -> std::path::PathBuf {
    let db = new_db(dir);
    let csv = dir.join("spot.csv");
    let values = [10.0, 11.0, 10.5, 95.0, 10.8, -1.0, 11.2];
    let text: String = values
        .iter()
        .enumerate()
        .map(|(i, v)| format!("2024-07-{:02},{v}\n", i + 1))
        .collect();
    std::fs::write(&csv, text).unwrap();
    stdout_of(&data(
        &db,
        &[
            "import",
            "NBP:SPOT",
            csv.to_str().unwrap(),
            "--calendar",
            "DAILY",
        ],
    ));
    let file = dir.join("config.json");
    std::fs::write(
        &file,
        json!({
            "_id": "NBP:SPOT", "kind": "timeseries", "name": "NBP spot", "group": "gas",
            "checks": [
                {"name": "Positive", "expression": "value > 0"},
                {"name": "Range", "expression": "between(value, 0, 50)", "severity": "severe"},
                {"name": "Move", "expression": "abs(pct_change(1)) < 0.5", "severity": "warning"}
            ],
            "options": {"lookback": 5}
        })
        .to_string(),
    )
    .unwrap();
    let saved = json_of(&validate(
        &db,
        &["config", "put", file.to_str().unwrap(), "--reason", "first"],
    ));
    assert_eq!(saved["_version"], 1, "{saved}");
    db
}

/// The `point status` pairs of a `--format table` output (a header row, the rows, the counts).
fn table_statuses(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("POINT"), "{text}");
    lines[1..lines.len() - 1]
        .iter()
        .map(|l| {
            let mut cells = l.split_whitespace();
            (
                cells.next().unwrap().to_string(),
                cells.next().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn validate_test_run_and_stats_on_a_database_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = validated_series(dir.path());

    let config = json_of(&validate(&db, &["config", "get", "NBP:SPOT"]));
    let ids: Vec<&str> = config["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["positive", "range", "move"]);

    // A test stores nothing; failing points make it exit with 1, the answer printed.
    let tested = json_gated(&validate(
        &db,
        &[
            "test",
            "NBP:SPOT",
            "--point",
            "2024-07-04",
            "--point",
            "2024-07-06",
        ],
    ));
    assert_eq!(
        (&tested["test"], &tested["points"], &tested["records"]),
        (&json!(true), &json!(2), &json!(0)),
        "{tested}"
    );
    assert_eq!(tested["results"][0]["_id"], "NBP:SPOT:2024-07-04");
    assert_eq!(tested["results"][1]["status"], "severe");
    let stats = json_of(&validate(&db, &["stats"]));
    assert_eq!(stats["totals"]["records"], 0, "{stats}");

    // A test of a configuration from a file, without the target (the config's _id).
    let trial = dir.path().join("trial.json");
    std::fs::write(
        &trial,
        r#"{"_id": "NBP:SPOT", "kind": "timeseries", "checks": [{"name": "Big", "expression": "value > 50"}]}"#,
    )
    .unwrap();
    let out = gated(&validate(
        &db,
        &[
            "test",
            "--config",
            trial.to_str().unwrap(),
            "--point",
            "2024-07-04",
            "--point",
            "2024-07-05",
            "--format",
            "table",
        ],
    ));
    // The table shows the point that did not pass and says the other was left out.
    assert_eq!(
        table_statuses(&out),
        [("2024-07-05".to_string(), "failed".to_string())]
    );
    assert!(
        out.ends_with("(1 passing point not shown: --all shows it) (test: nothing stored)\n"),
        "{out}"
    );

    // A run over the week: the points that did not pass, then the counts and how many
    // passing points the table left out.
    let week = [
        "run",
        "NBP:SPOT",
        "--from",
        "2024-07-01",
        "--to",
        "2024-07-07",
        "--format",
        "table",
    ];
    let out = gated(&validate(&db, &week));
    let failing = [
        ("2024-07-04", "severe"),
        ("2024-07-05", "warning"),
        ("2024-07-06", "severe"),
        ("2024-07-07", "warning"),
    ]
    .map(|(p, s)| (p.to_string(), s.to_string()));
    assert_eq!(table_statuses(&out), failing, "{out}");
    assert!(
        out.ends_with(
            "7 points: valid 3, severe 2, warning 2 (3 passing points not shown: --all shows them)\n"
        ),
        "{out}"
    );
    // With --all, one line per point; the first point's message counts its skipped check.
    let mut every = week.to_vec();
    every.push("--all");
    let out = gated(&validate(&db, &every));
    assert!(
        out.lines()
            .any(|l| l.starts_with("2024-07-01") && l.ends_with("2 checks passed, 1 skipped")),
        "{out}"
    );
    let statuses = table_statuses(&out);
    let status_of = |day: &str| {
        statuses
            .iter()
            .find(|(p, _)| p == day)
            .map(|(_, s)| s.as_str())
            .unwrap_or_else(|| panic!("{day} in {out}"))
    };
    assert_eq!(statuses.len(), 7, "{out}");
    assert_eq!(status_of("2024-07-02"), "valid");
    assert_eq!(status_of("2024-07-04"), "severe");
    assert_eq!(status_of("2024-07-05"), "warning");
    assert_eq!(status_of("2024-07-06"), "severe");
    let counts = out.lines().last().unwrap();
    assert!(
        counts.starts_with("7 points: ") && counts.contains("severe 2"),
        "{out}"
    );
    assert!(out.contains("3 of 3 checks did not pass: positive, range, move"));

    // Only some checks.
    let one = json_gated(&validate(
        &db,
        &[
            "run",
            "NBP:SPOT",
            "--point",
            "2024-07-06",
            "--check",
            "positive",
        ],
    ));
    assert_eq!(one["results"][0]["status"], "failed", "{one}");
    assert_eq!(one["results"][0]["checks"].as_array().unwrap().len(), 1);

    // The records are in the dashboard statistics.
    let stats = json_of(&validate(&db, &["stats"]));
    for key in [
        "totals", "targets", "byStatus", "byKind", "byDay", "byTarget", "byCheck", "open",
        "resolved", "activity", "configs",
    ] {
        assert!(stats.get(key).is_some(), "{key} in {stats}");
    }
    assert_eq!(stats["totals"]["records"], 7, "{stats}");
    assert_eq!(stats["configs"]["count"], 1);
    let filtered = json_of(&validate(
        &db,
        &["stats", "--from", "2024-07-04", "--to", "2024-07-05"],
    ));
    assert_eq!(filtered["totals"]["records"], 2, "{filtered}");
    let other = json_of(&validate(&db, &["stats", "--group", "power"]));
    assert_eq!(other["totals"]["records"], 0);

    // Several data items; one without a configuration is an error of its own.
    let out = gated(&validate(
        &db,
        &["many", "NBP:SPOT", "NOPE:X", "--format", "table"],
    ));
    assert!(out.contains("NOPE:X    error    no validation"), "{out}");
    assert!(out.ends_with("2 targets: warning 1, error 1\n"), "{out}");

    // Errors carry their code and fail.
    let err = stderr_of_failure(&validate(&db, &["run", "NOPE:X"]));
    assert!(
        err.starts_with("error: [INVALID_PARAMETER]")
            && err.contains("no validation configuration"),
        "{err}"
    );
    let err = stderr_of_failure(&validate(&db, &["run", "NBP:SPOT", "--check", "nope"]));
    assert!(err.contains("has no check \"nope\""), "{err}");
    let err = stderr_of_failure(&validate(&db, &["config", "get", "NOPE:X"]));
    assert!(err.contains("[NOT_FOUND]"), "{err}");
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"_id": "NBP:SPOT", "kind": "timeseries", "checks": [{"name": "typo", "expression": "valeu > 0"}]}"#,
    )
    .unwrap();
    let err = stderr_of_failure(&validate(&db, &["config", "put", bad.to_str().unwrap()]));
    assert!(err.starts_with("error: ["), "{err}");
    assert_eq!(
        json_of(&validate(&db, &["config", "get", "NBP:SPOT"]))["_version"],
        1
    );
}

#[test]
fn validate_background_runs_are_worked_off_without_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = validated_series(dir.path());

    let queued = json_of(&validate(
        &db,
        &[
            "run",
            "NBP:SPOT",
            "--background",
            "--no-wait",
            "--from",
            "2024-07-01",
            "--to",
            "2024-07-07",
        ],
    ));
    assert_eq!(queued["background"], true, "{queued}");
    let job = queued["job"].as_str().unwrap().to_string();
    let jobs = json_of(&validate(&db, &["jobs"]));
    assert_eq!(
        (&jobs[0]["_id"], &jobs[0]["status"]),
        (&json!(job), &json!("queued"))
    );
    // Nothing is checked until the jobs are worked off.
    assert_eq!(json_of(&validate(&db, &["stats"]))["totals"]["records"], 0);

    let out = validate(&db, &["work"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 job(s) run"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let jobs = json_of(&validate(&db, &["jobs"]));
    assert_eq!(jobs[0]["status"], "done", "{jobs}");
    assert_eq!(jobs[0]["message"], "checked 7 points");
    let table = stdout_of(&validate(&db, &["jobs", "--format", "table"]));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[..2],
        [
            format!(
                "JOB{}  STATUS  PROGRESS  MESSAGE",
                " ".repeat(job.len() - 3)
            ),
            format!("{job}  done    100%      checked 7 points")
        ],
        "{table}"
    );
    assert_eq!(json_of(&validate(&db, &["stats"]))["totals"]["records"], 7);

    // Nothing left: a second pass runs none.
    let out = validate(&db, &["work"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 job(s) run"));

    // A background runMany over a range, printed as its message in a table.
    let out = stdout_of(&validate(
        &db,
        &[
            "many",
            "NBP:SPOT",
            "--from",
            "2024-07-01",
            "--no-wait",
            "--format",
            "table",
        ],
    ));
    assert!(out.contains("runs in the background as job"), "{out}");
    stdout_of(&validate(&db, &["work"]));
    let jobs = json_of(&validate(&db, &["jobs"]));
    assert_eq!(jobs.as_array().unwrap().len(), 2);
    assert!(
        jobs.as_array()
            .unwrap()
            .iter()
            .all(|j| j["status"] == "done"),
        "{jobs}"
    );

    // A background run needs a range.
    let err = stderr_of_failure(&validate(&db, &["run", "NBP:SPOT", "--background"]));
    assert!(err.contains("needs a range"), "{err}");

    // Without --no-wait, a run or a runMany that goes to the background is followed to its
    // end (this process runs it: no server works on the file): the answer and the exit code
    // are those of the same run made at once.
    let range = ["--from", "2024-07-01", "--to", "2024-07-07"];
    let at_once = validate(&db, &[&["run", "NBP:SPOT"][..], &range].concat());
    let followed = validate(
        &db,
        &[&["run", "NBP:SPOT", "--background"][..], &range].concat(),
    );
    let (a, f): (Value, Value) = (
        serde_json::from_slice(&at_once.stdout).unwrap(),
        serde_json::from_slice(&followed.stdout).unwrap(),
    );
    assert_eq!(f.get("background"), None, "{f}");
    assert_eq!(
        (&f["points"], &f["counts"]),
        (&a["points"], &a["counts"]),
        "{f}"
    );
    assert_eq!(followed.status.code(), at_once.status.code());
    let many = validate(&db, &["many", "NBP:SPOT", "--from", "2024-07-01"]);
    let m: Value = serde_json::from_slice(&many.stdout).unwrap();
    assert_eq!(m.get("background"), None, "{m}");
    assert!(m["counts"].is_object(), "{m}");
    let jobs = json_of(&validate(&db, &["jobs"]));
    assert!(
        jobs.as_array()
            .unwrap()
            .iter()
            .all(|j| j["status"] == "done"),
        "{jobs}"
    );
}

#[test]
fn validate_waits_for_the_job_a_server_on_the_file_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = validated_series(dir.path());
    let range = ["--from", "2024-07-01", "--to", "2024-07-07"];
    let at_once = validate(&db, &[&["run", "NBP:SPOT"][..], &range].concat());
    let mut server = Server::start_existing(&db);
    // Its worker is alive on the file (so `work` refuses) ...
    let refused = stderr_of_failure(&validate(&db, &["work"]));
    assert!(refused.contains("stop that server"), "{refused}");
    // ... and runs the job (this command may not take over while it lives); the
    // command waits for it and answers as the run made at once did.
    let followed = validate(
        &db,
        &[&["run", "NBP:SPOT", "--background"][..], &range].concat(),
    );
    let err = String::from_utf8_lossy(&followed.stderr);
    assert!(!err.contains("stop that server"), "{err}");
    let (a, f): (Value, Value) = (
        serde_json::from_slice(&at_once.stdout).unwrap(),
        serde_json::from_slice(&followed.stdout).unwrap(),
    );
    assert_eq!(
        (&f["points"], &f["counts"]),
        (&a["points"], &a["counts"]),
        "{f}"
    );
    assert_eq!(followed.status.code(), at_once.status.code(), "{err}");
    let jobs = json_of(&validate(&db, &["jobs"]));
    assert_eq!(jobs[0]["status"], "done", "{jobs}");
    assert!(server.stop().success());
}

#[test]
fn validate_suggest_and_tune_write_configurations_that_save() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let date = |i: i64| chrono_like(now - (60 - i) * 86_400)[..10].to_string();
    // 60 days up to yesterday, a spike on day 40.
    let csv = dir.path().join("spot.csv");
    let text: String = (0..60)
        .map(|i| {
            let v = if i == 40 {
                200.0
            } else {
                50.0 + ((i * 7) % 13) as f64 * 0.5
            };
            format!("{},{v}\n", date(i))
        })
        .collect();
    std::fs::write(&csv, text).unwrap();
    stdout_of(&data(
        &db,
        &[
            "import",
            "A:B",
            csv.to_str().unwrap(),
            "--calendar",
            "DAILY",
        ],
    ));
    let cfg = dir.path().join("suggested.json");
    let out = stdout_of(&validate(
        &db,
        &[
            "suggest",
            "A:B",
            "--days",
            "90",
            "--write",
            cfg.to_str().unwrap(),
        ],
    ));
    let header = out.lines().next().unwrap();
    assert!(
        header.starts_with("TARGET") && header.contains("EXPRESSION"),
        "{out}"
    );
    for id in ["positive", "range", "move", "stale", "gap"] {
        assert!(
            out.lines().any(|l| l.split_whitespace().nth(1) == Some(id)),
            "{id}: {out}"
        );
    }
    assert!(out.contains("nothing stored"), "{out}");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&cfg).unwrap()).unwrap();
    assert_eq!(written["_id"], "A:B");
    // The file saves unchanged and its checks catch the spike.
    let saved = json_of(&validate(&db, &["config", "put", cfg.to_str().unwrap()]));
    assert_eq!(saved["_version"], 1, "{saved}");
    let tested: Value = serde_json::from_str(&gated(&validate(
        &db,
        &["test", "A:B", "--point", &date(40)],
    )))
    .unwrap();
    assert_eq!(tested["results"][0]["status"], "failed", "{tested}");
    // Tuning for the spike (no record: taken as a false alarm) relaxes the range.
    let tuned = dir.path().join("tuned.json");
    let out = stdout_of(&validate(
        &db,
        &[
            "tune",
            "A:B",
            "--point",
            &date(40),
            "--write",
            tuned.to_str().unwrap(),
        ],
    ));
    assert!(out.starts_with("CHECK"), "{out}");
    let range_line = out
        .lines()
        .find(|l| l.starts_with("range"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(range_line.contains("between(value, "), "{out}");
    let tuned: Value = serde_json::from_str(&std::fs::read_to_string(&tuned).unwrap()).unwrap();
    let range = tuned["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "range")
        .unwrap();
    assert_ne!(
        range["expression"],
        written["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "range")
            .unwrap()["expression"]
    );
    let err = stderr_of_failure(&validate(&db, &["suggest", "A:B", "--days", "400"]));
    assert!(err.contains("days"), "{err}");
}

/// A minimal SMTP server on loopback; each message it is given goes to the channel.
fn smtp_sink() -> (String, mpsc::Receiver<String>) {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            let mut out = stream.try_clone().unwrap();
            let mut reader = BufReader::new(stream);
            let _ = out.write_all(b"220 sink\r\n");
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                let verb = line.trim_end().to_ascii_uppercase();
                if verb == "DATA" {
                    let _ = out.write_all(b"354 go\r\n");
                    let mut message = String::new();
                    let mut l = String::new();
                    while reader.read_line(&mut l).unwrap_or(0) > 0 && l.trim_end() != "." {
                        message.push_str(&l);
                        l.clear();
                    }
                    let _ = tx.send(message);
                    let _ = out.write_all(b"250 queued\r\n");
                } else if verb == "QUIT" {
                    let _ = out.write_all(b"221 bye\r\n");
                    break;
                } else {
                    let _ = out.write_all(b"250 ok\r\n");
                }
                line.clear();
            }
        }
    });
    (addr, rx)
}

#[test]
fn the_server_delivers_automations_in_the_background_over_smtp() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.db");
    let (smtp, mails) = smtp_sink();
    let mut server = Server::start_with(&db, &[("PLATFORM_SMTP", smtp.as_str())]);
    let auth = format!("Bearer {}", server.admin_token);
    let saved: Value = ureq::post(&format!("{}/automation/v1", server.url))
        .set("Authorization", &auth)
        .send_json(json!({"target": "email", "properties": {"to": "desk@example.com", "subject": "GB changed"},
                          "conditions": [{"service": "object", "id": "GB", "action": "*"}]}))
        .unwrap()
        .into_json()
        .unwrap();
    assert_eq!(saved["target"], "platform.email");
    post(
        &server.url,
        &server.admin_token,
        json!({"_id": "GB", "name": "Britain"}),
    );
    let message = mails
        .recv_timeout(Duration::from_secs(20))
        .expect("the worker sends the email");
    assert!(message.contains("Subject: GB changed"), "{message}");
    assert!(message.contains("\"create\""), "{message}");
    // The worker logs the attempt once the SMTP server has answered.
    let mut entries = Value::Null;
    for _ in 0..100 {
        entries = get(&server.url, &server.admin_token, "/automation/v1/log").unwrap();
        if entries[0]["status"] == "success" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(entries[0]["status"], "success", "{entries}");
    assert!(server.stop().success());
    // The log on the file, through the CLI.
    let out = platform(&[
        "automation",
        "log",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(json_of(&out)[0]["status"], "success");
    let table = stdout_of(&platform(&[
        "automation",
        "log",
        "--db",
        db.to_str().unwrap(),
    ]));
    let mut lines = table.lines();
    assert!(lines.next().unwrap().starts_with("TIMESTAMP"), "{table}");
    assert!(lines.next().unwrap().contains("success"), "{table}");
}

/// A webhook receiver on loopback: answers 200 to each request and sends its body.
fn webhook_sink() -> (String, mpsc::Receiver<String>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            let mut out = stream.try_clone().unwrap();
            let mut reader = BufReader::new(stream);
            let mut length = 0usize;
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line.trim_end() != "" {
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = tx.send(String::from_utf8_lossy(&body).into_owned());
            let _ =
                out.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        }
    });
    (url, rx)
}

#[test]
fn automation_deliver_on_a_file_calls_webhooks_over_the_network_within_the_allow_list() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let db_text = db.to_str().unwrap();
    let (url, bodies) = webhook_sink();
    let automation = dir.path().join("a.json");
    std::fs::write(
        &automation,
        json!({"target": "webhook", "properties": {"url": url},
               "conditions": [{"service": "object", "id": "GB", "action": "*"}]})
        .to_string(),
    )
    .unwrap();
    // A loopback webhook is refused unless the allow-list opens it, and nothing is saved.
    let out = platform(&[
        "automation",
        "create",
        "--db",
        db_text,
        "--file",
        automation.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is a loopback address") && err.contains("--webhook-allow 127.0.0.1"),
        "{err}"
    );
    let list = stdout_of(&platform(&[
        "automation",
        "list",
        "--db",
        db_text,
        "--format",
        "json",
    ]));
    assert_eq!(serde_json::from_str::<Value>(&list).unwrap(), json!([]));
    stdout_of(&platform(&[
        "automation",
        "create",
        "--db",
        db_text,
        "--file",
        automation.to_str().unwrap(),
        "--webhook-allow",
        "127.0.0.1",
    ]));
    let object = dir.path().join("gb.json");
    std::fs::write(&object, r#"{"_id": "GB", "name": "Britain"}"#).unwrap();
    stdout_of(&platform(&[
        "object",
        "put",
        "--db",
        db_text,
        object.to_str().unwrap(),
    ]));
    // Allowed: the event is posted to the receiver, over the network.
    let out = platform(&[
        "automation",
        "deliver",
        "--db",
        db_text,
        "--webhook-allow",
        "127.0.0.1",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body: Value =
        serde_json::from_str(&bodies.recv_timeout(Duration::from_secs(10)).unwrap()).unwrap();
    assert_eq!(
        (body["id"].clone(), body["action"].clone()),
        (json!("GB"), json!("create"))
    );
    // Without the allow-list (global addresses only): the attempt fails, is logged, and
    // nothing is sent.
    std::fs::write(&object, r#"{"_id": "GB", "name": "Great Britain"}"#).unwrap();
    stdout_of(&platform(&[
        "object",
        "put",
        "--db",
        db_text,
        object.to_str().unwrap(),
    ]));
    let out = platform(&["automation", "deliver", "--db", db_text]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(bodies.recv_timeout(Duration::from_millis(500)).is_err());
    let log = json_of(&platform(&[
        "automation",
        "log",
        "--db",
        db_text,
        "--format",
        "json",
    ]));
    assert_eq!(log[0]["status"], "failed", "{log}");
    assert!(
        log[0]["message"].as_str().unwrap().contains("127.0.0.1"),
        "{log}"
    );
    assert_eq!(log[1]["status"], "success", "{log}");
}
