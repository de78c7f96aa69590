//! Every command that reads, runs or writes works through a server (`--url`, `--token`) as on
//! the database file (`--db`): the same command on a served file prints the same and exits
//! the same either way; the server's refusals come back as clear errors.

use crate::{platform, stderr_of_failure, stdout_of, Server};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

/// A database made by `platform init`, and its admin token (role platform, tenant default).
fn init(dir: &Path) -> (PathBuf, String) {
    let db = dir.join("served.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    (db, token.trim().to_string())
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// `platform ARGS --db DB`.
fn on_file(db: &Path, args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--db", db.to_str().unwrap()]);
    platform(&all)
}

/// `platform ARGS --url URL --token TOKEN`.
fn on_server(server: &Server, token: &str, args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--url", &server.url, "--token", token]);
    platform(&all)
}

/// What a command printed and how it exited.
fn seen(out: &Output) -> (Option<i32>, String, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `args` through the file and through the server and asserts both printed the same
/// and exited the same; returns what they printed.
#[track_caller]
fn same(db: &Path, server: &Server, token: &str, args: &[&str]) -> (Option<i32>, String) {
    let file = seen(&on_file(db, args));
    let served = seen(&on_server(server, token, args));
    assert_eq!(file, served, "{args:?}: --db, then --url");
    assert!(
        !file.1.is_empty() || !file.2.is_empty(),
        "{args:?} printed nothing"
    );
    (file.0, file.1)
}

/// A daily series with a spike on the 4th and a negative value on the 6th and its validation
/// configuration (a run over more than two points goes to the background), an hourly series
/// over two days, a curve of two ondates and an automation on failing records: all made on
/// the file.
fn served_data(dir: &Path, db: &Path) {
    let values = [10.0, 11.0, 10.5, 95.0, 10.8, -1.0, 11.2];
    let spot: String = values
        .iter()
        .enumerate()
        .map(|(i, v)| format!("2024-07-{:02},{v}\n", i + 1))
        .collect();
    let spot = write(dir, "spot.csv", &spot);
    stdout_of(&on_file(
        db,
        &["data", "import", "NBP:SPOT", &spot, "--calendar", "DAILY"],
    ));
    let hourly: String = (0..48)
        .map(|h| format!("2024-07-{:02}T{:02}:00Z,{}\n", 1 + h / 24, h % 24, 40 + h))
        .collect();
    let hourly = write(dir, "hourly.csv", &hourly);
    stdout_of(&on_file(
        db,
        &["data", "import", "PWR:DA", &hourly, "--calendar", "HOURLY"],
    ));
    let curve = write(
        dir,
        "fwd.csv",
        "ondate,tenor,value\n2024-03-01,M01,30\n2024-03-01,M02,31\n2024-03-04,M01,32\n",
    );
    stdout_of(&on_file(db, &["data", "import", "TTF:FWD", &curve]));
    let names = write(
        dir,
        "names.json",
        &json!([{"_id": "NBP", "name": "National Balancing Point"}, {"_id": "TTF", "name": "TTF"}])
            .to_string(),
    );
    stdout_of(&on_file(db, &["object", "put", &names]));
    let config = write(
        dir,
        "config.json",
        &json!({
            "_id": "NBP:SPOT", "kind": "timeseries", "name": "NBP spot", "group": "gas",
            "checks": [
                {"name": "Positive", "expression": "value > 0"},
                {"name": "Range", "expression": "between(value, 0, 50)", "severity": "severe"},
                {"name": "Move", "expression": "abs(pct_change(1)) < 0.5", "severity": "warning"}
            ],
            "options": {"lookback": 5, "maxPoints": 2}
        })
        .to_string(),
    );
    stdout_of(&on_file(db, &["validate", "config", "put", &config]));
    let automation = write(
        dir,
        "automation.json",
        &json!({
            "target": "platform.email",
            "conditions": [{"source": "private", "service": "validation", "id": "*", "action": "failed"}],
            "properties": {"to": "desk@example.com", "subject": "NBP failed"}
        })
        .to_string(),
    );
    stdout_of(&on_file(
        db,
        &["automation", "create", "--file", &automation],
    ));
}

#[test]
fn every_command_prints_the_same_through_the_file_and_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let (db, token) = init(dir.path());
    served_data(dir.path(), &db);
    let server = Server::start_existing(&db);
    let t = token.as_str();

    // Runs: the same records and the same gate either way (a run over the range goes to the
    // background: the server runs it, and the command follows it to its end).
    same(
        &db,
        &server,
        t,
        &["validate", "run", "NBP:SPOT", "--format", "table"],
    );
    let (code, table) = same(
        &db,
        &server,
        t,
        &[
            "validate",
            "run",
            "NBP:SPOT",
            "--from",
            "2024-07-01",
            "--to",
            "2024-07-07",
            "--format",
            "table",
        ],
    );
    assert_eq!(code, Some(1));
    assert!(
        table.contains("7 points: ") && table.contains("severe 2"),
        "{table}"
    );
    let (_, table) = same(
        &db,
        &server,
        t,
        &[
            "validate", "many", "NBP:SPOT", "PWR:DA", "--format", "table",
        ],
    );
    assert!(table.contains("PWR:DA"), "{table}");
    same(
        &db,
        &server,
        t,
        &[
            "validate",
            "test",
            "NBP:SPOT",
            "--point",
            "2024-07-02",
            "--format",
            "table",
        ],
    );

    // Overrides: the same answer whichever way it is made and taken back.
    let record = "NBP:SPOT:2024-07-04";
    let mut answers = Vec::new();
    for via in ["file", "server"] {
        let run = |args: &[&str]| match via {
            "file" => seen(&on_file(&db, args)),
            _ => seen(&on_server(&server, t, args)),
        };
        let made = run(&["validate", "override", record, "--reason", "a known spike"]);
        let shown = run(&["validate", "records", "point=2024-07-04"]);
        let taken = run(&["validate", "override", record, "--remove"]);
        answers.push((made, taken));
        let shown: Value = serde_json::from_str(&shown.1).unwrap();
        assert_eq!(shown[0]["status"], "overridden", "{via}: {shown}");
        assert_eq!(shown[0]["override"]["reason"], "a known spike", "{via}");
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0].0 .0, Some(0), "{:?}", answers[0]);
    assert!(answers[0].0 .1.contains("overridden"), "{:?}", answers[0]);

    // The automation on failing records is delivered by the server's worker: wait until its
    // log holds entries and stays as it is, so both ways read one state.
    let started = Instant::now();
    let delivered = || {
        let read = |args: &[&str]| seen(&on_file(&db, args)).1;
        (
            read(&["automation", "log", "--format", "json"]),
            read(&["automation", "mail", "--format", "json"]),
        )
    };
    loop {
        let before = delivered();
        std::thread::sleep(Duration::from_millis(700));
        if before.0 != "[]\n" && delivered() == before {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "nothing delivered"
        );
    }

    // Reads.
    let reads: &[&[&str]] = &[
        &["object", "get", "NBP"],
        &["object", "list", "--format", "table"],
        &["object", "list", "_sort=-name", "_limit=1"],
        &["data", "get", "NBP:SPOT"],
        &[
            "data", "get", "NBP:SPOT", "--range", "last(3)", "--format", "csv",
        ],
        &[
            "data",
            "get",
            "NBP:SPOT",
            "--version",
            "1",
            "--format",
            "table",
        ],
        &[
            "data",
            "get",
            "PWR:DA",
            "--calendar",
            "DAILY",
            "--observed",
            "averaged",
            "--timezone",
            "Europe/Berlin",
        ],
        &[
            "data", "get", "TTF:FWD", "--tenor", "M01", "--format", "csv",
        ],
        &["data", "get", "TTF:FWD", "--list-tenors"],
        &["data", "get", "TTF:FWD:2024-03-01", "--format", "table"],
        &["data", "list"],
        &["data", "list", "--format", "table"],
        &["data", "list", "--object", "TTF", "--format", "csv"],
        &["data", "list", "_type=VarTimeSeries", "_sort=-_count"],
        &["validate", "records"],
        &["validate", "records", "status=failing", "--format", "table"],
        &[
            "validate",
            "records",
            "_sort=-point",
            "_limit=2",
            "--format",
            "csv",
        ],
        &["validate", "stats"],
        &[
            "validate",
            "stats",
            "--from",
            "2024-07-05",
            "--group",
            "gas",
        ],
        &["validate", "jobs", "--format", "table"],
        &["validate", "config", "get", "NBP:SPOT"],
        &["validate", "config", "get", "NBP:SPOT", "--version", "1"],
        &["automation", "list"],
        &["automation", "list", "--format", "json"],
        &["automation", "log"],
        &[
            "automation",
            "log",
            "--status",
            "success",
            "--format",
            "json",
        ],
        &["automation", "mail", "--format", "json"],
        &["token", "list", "--tenant", "default", "--format", "json"],
    ];
    for args in reads {
        let (code, out) = same(&db, &server, t, args);
        assert_eq!(code, Some(0), "{args:?}: {out}");
    }
    // What they read is the data made above.
    let daily = seen(&on_server(
        &server,
        t,
        &[
            "data",
            "get",
            "PWR:DA",
            "--calendar",
            "DAILY",
            "--observed",
            "averaged",
            "--timezone",
            "Europe/Berlin",
            "--format",
            "csv",
        ],
    ))
    .1;
    assert!(daily.starts_with("time,value,"), "{daily}");
    let listed = seen(&on_server(&server, t, &["data", "list", "--format", "csv"])).1;
    for id in ["NBP:SPOT", "PWR:DA", "TTF:FWD"] {
        assert!(listed.contains(id), "{listed}");
    }
    let mail = seen(&on_server(&server, t, &["automation", "mail"])).1;
    assert!(mail.contains("NBP failed"), "{mail}");
}

#[test]
fn errors_through_a_server_are_clear_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (db, token) = init(dir.path());
    served_data(dir.path(), &db);
    let server = Server::start_existing(&db);
    let before = stdout_of(&on_server(&server, &token, &["data", "get", "NBP:SPOT"]));

    let failure = |out: Output| {
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
        stderr_of_failure(&out)
    };
    // A bad token.
    let spot = write(dir.path(), "more.csv", "2024-07-08,12\n");
    for args in [
        &["data", "get", "NBP:SPOT"][..],
        &["data", "import", "NBP:SPOT", &spot],
        &["validate", "run", "NBP:SPOT"],
        &["object", "list"],
        &["token", "list"],
    ] {
        let err = failure(on_server(&server, "pt_not_a_token", args));
        assert!(
            err.contains("[NOT_AUTHENTICATED]") && err.contains("unknown or revoked token"),
            "{args:?}: {err}"
        );
    }
    // A tenant or user of a database file: through a server the token decides, so asking for
    // one is refused rather than ignored.
    for flag in ["--tenant", "--user"] {
        let err = failure(on_server(
            &server,
            &token,
            &["object", "list", flag, "acme"],
        ));
        assert!(err.contains(flag) && err.contains("--url"), "{flag}: {err}");
    }
    // Something that is not there.
    let err = failure(on_server(&server, &token, &["object", "get", "NOPE"]));
    assert!(err.contains("[NOT_FOUND]") && err.contains("NOPE"), "{err}");
    let err = failure(on_server(&server, &token, &["data", "get", "NBP:NOPE"]));
    assert!(
        err.contains("[NOT_FOUND]") && err.contains("NBP:NOPE"),
        "{err}"
    );
    let err = failure(on_server(&server, &token, &["validate", "run", "NOPE:X"]));
    assert!(err.contains("NOPE:X"), "{err}");
    // A bad range, filter or parameter.
    let err = failure(on_server(
        &server,
        &token,
        &["data", "get", "NBP:SPOT", "--range", "between(2024-07-01"],
    ));
    assert!(
        err.contains("[INVALID_PARAMETER]") && err.contains("_range"),
        "{err}"
    );
    let err = failure(on_server(&server, &token, &["data", "list", "_bogus=1"]));
    assert!(err.contains("_bogus"), "{err}");
    let err = failure(on_server(
        &server,
        &token,
        &["validate", "records", "_limit=lots"],
    ));
    assert!(err.contains("_limit"), "{err}");
    // A record that is not there is named (after the answer for each id).
    let out = on_server(
        &server,
        &token,
        &["validate", "override", "NOPE:X:2024-07-01", "--reason", "r"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no such record"));
    let err = stderr_of_failure(&out);
    assert!(
        err.contains("1 of 1 records not overridden") && err.contains("NOPE:X:2024-07-01"),
        "{err}"
    );
    // No server there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let err = failure(platform(&[
        "data", "get", "NBP:SPOT", "--url", &url, "--token", &token,
    ]));
    assert!(err.contains(&format!("cannot reach {url}")), "{err}");
    // A reader may not list tokens; an admin lists its own tenant's only.
    let reader = stdout_of(&on_file(
        &db,
        &[
            "token", "create", "--tenant", "acme", "--user", "rita", "--role", "reader",
        ],
    ));
    let err = failure(on_server(&server, reader.trim(), &["token", "list"]));
    assert!(
        err.contains("[NOT_AUTHORIZED]") && err.contains("admin"),
        "{err}"
    );
    let err = failure(on_server(
        &server,
        &token,
        &["token", "list", "--tenant", "acme"],
    ));
    assert!(err.contains("[NOT_FOUND]") && err.contains("acme"), "{err}");
    // A reader's write is refused, and nothing changed.
    let err = failure(on_server(
        &server,
        reader.trim(),
        &["data", "import", "NBP:SPOT", &spot],
    ));
    assert!(err.contains("[NOT_AUTHORIZED]"), "{err}");
    assert_eq!(
        stdout_of(&on_server(&server, &token, &["data", "get", "NBP:SPOT"])),
        before
    );
}

/// The times and values of a series as the command prints them.
fn observations(out: &Output) -> Vec<(String, f64)> {
    let item: Value = serde_json::from_str(&stdout_of(out)).unwrap();
    item["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["time"].as_str().unwrap().to_string(),
                o["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn data_import_replace_replaces_through_a_server_as_on_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (db, token) = init(dir.path());
    let server = Server::start_existing(&db);
    let first = write(
        dir.path(),
        "first.csv",
        "2024-01-01,1\n2024-01-02,2\n2024-01-03,3\n",
    );
    let other = write(dir.path(), "other.csv", "2024-01-01,7\n");
    let second = write(dir.path(), "second.csv", "2024-01-02,20\n2024-01-04,40\n");
    let mut results = Vec::new();
    for (object, via) in [("FILE", "file"), ("SERVED", "server")] {
        let run = |args: &[&str]| match via {
            "file" => on_file(&db, args),
            _ => on_server(&server, &token, args),
        };
        let id = format!("{object}:SPOT");
        let import = |file: &str, extra: &[&str]| {
            let mut args = vec!["data", "import", id.as_str(), file, "--calendar", "DAILY"];
            args.extend_from_slice(extra);
            String::from_utf8_lossy(&stdout_and_status(run(&args)).stderr).into_owned()
        };
        let import = |file: &str, extra: &[&str]| import(file, extra).replace(object, "OBJ");
        import(&first, &[]);
        stdout_of(&run(&[
            "data",
            "import",
            &format!("{object}:OTHER"),
            &other,
            "--calendar",
            "DAILY",
        ]));
        let names = write(
            dir.path(),
            "name.json",
            &json!({"_id": object, "name": "kept"}).to_string(),
        );
        stdout_of(&run(&["object", "put", &names]));
        // Without --replace the file merges into the series ...
        let merged = import(&second, &[]);
        let read = |prop: &str| observations(&run(&["data", "get", &format!("{object}:{prop}")]));
        assert_eq!(
            read("SPOT"),
            [
                ("2024-01-01".to_string(), 1.0),
                ("2024-01-02".to_string(), 20.0),
                ("2024-01-03".to_string(), 3.0),
                ("2024-01-04".to_string(), 40.0)
            ],
            "{via}"
        );
        // ... with it the file's observations are the series, and the object's other fields
        // and data stay.
        let replaced = import(&first, &["--replace", "--reason", "reload"]);
        assert_eq!(
            read("SPOT"),
            [
                ("2024-01-01".to_string(), 1.0),
                ("2024-01-02".to_string(), 2.0),
                ("2024-01-03".to_string(), 3.0)
            ],
            "{via}"
        );
        assert_eq!(read("OTHER"), [("2024-01-01".to_string(), 7.0)], "{via}");
        let object: Value =
            serde_json::from_str(&stdout_of(&run(&["object", "get", object]))).unwrap();
        assert_eq!(object["name"], "kept", "{via}: {object}");
        // The same file again changes nothing.
        let again = import(&first, &["--replace"]);
        results.push((merged, replaced, again));
    }
    assert_eq!(results[0], results[1]);
    let (merged, replaced, again) = &results[0];
    assert_eq!(
        merged,
        "imported 2 observations into OBJ:SPOT (version 4)\n"
    );
    assert_eq!(
        replaced,
        "imported 3 observations into OBJ:SPOT (version 5)\n"
    );
    assert!(again.contains("no change"), "{again}");
}

/// A command that succeeded, as it is.
#[track_caller]
fn stdout_and_status(out: Output) -> Output {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn validate_run_through_a_server_gates_a_pipeline_as_on_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (db, token) = init(dir.path());
    served_data(dir.path(), &db);
    let server = Server::start_existing(&db);
    let failing = ["--from", "2024-07-01", "--to", "2024-07-07"];
    let passing = ["--from", "2024-07-01", "--to", "2024-07-03"];

    // Over the configuration's maxPoints (2) a run goes to the background: --no-wait shows it.
    let queued = on_server(
        &server,
        &token,
        &[&["validate", "run", "NBP:SPOT", "--no-wait"][..], &failing].concat(),
    );
    assert_eq!(queued.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&queued.stdout).unwrap();
    assert_eq!(answer["background"], true, "{answer}");
    assert!(answer["job"].as_str().is_some(), "{answer}");

    // Waited for (within the request, or by following the job from its start with
    // --server-wait 0), it gates as a run made at once on the file does.
    for (range, code) in [(&failing, 1), (&passing, 0)] {
        let file = on_file(
            &db,
            &[
                &["validate", "run", "NBP:SPOT", "--format", "table"][..],
                &range[..],
            ]
            .concat(),
        );
        assert_eq!(file.status.code(), Some(code), "{range:?}");
        for wait in ["3", "0"] {
            let args = [
                &["validate", "run", "NBP:SPOT", "--format", "table"][..],
                &range[..],
                &["--fail-on", "failed", "--server-wait", wait],
            ]
            .concat();
            let served = on_server(&server, &token, &args);
            assert_eq!(
                seen(&served),
                seen(&file),
                "{range:?}, --server-wait {wait}"
            );
        }
        let never = on_server(
            &server,
            &token,
            &[
                &["validate", "run", "NBP:SPOT", "--fail-on", "never"][..],
                &range[..],
            ]
            .concat(),
        );
        assert_eq!(never.status.code(), Some(0));
        let result: Value = serde_json::from_slice(&never.stdout).unwrap();
        assert!(result["counts"].is_object(), "the run's result: {result}");
    }
    // A runMany over a range always goes to the background.
    for (range, code) in [(&failing, 1), (&passing, 0)] {
        for wait in ["3", "0"] {
            let out = on_server(
                &server,
                &token,
                &[
                    &["validate", "many", "NBP:SPOT", "--server-wait", wait][..],
                    &range[..],
                ]
                .concat(),
            );
            assert_eq!(out.status.code(), Some(code), "{range:?}: {}", seen(&out).2);
            let result: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(result["targets"], 1, "{result}");
        }
    }
    let jobs: Value = serde_json::from_str(&stdout_of(&on_server(
        &server,
        &token,
        &["validate", "jobs"],
    )))
    .unwrap();
    assert!(
        jobs.as_array()
            .unwrap()
            .iter()
            .all(|j| j["status"] == "done"),
        "{jobs}"
    );
}

#[test]
fn token_list_through_a_server_shows_the_role_each_token_acts_with() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = init(dir.path());
    let server = Server::start_existing(&db);
    let create = |user: &str, role: &str, extra: &[&str]| {
        let mut args = vec![
            "token", "create", "--tenant", "acme", "--user", user, "--role", role,
        ];
        args.extend_from_slice(extra);
        stdout_of(&on_file(&db, &args)).trim().to_string()
    };
    let ann = create("ann", "admin", &[]);
    let bob = create("bob", "writer", &[]);
    create("bob", "admin", &["--set-role"]);
    let listed = |via: &str| {
        let args = ["token", "list", "--tenant", "acme", "--format", "json"];
        let out = match via {
            "file" => on_file(&db, &args),
            _ => on_server(&server, &ann, &args),
        };
        serde_json::from_str::<Value>(&stdout_of(&out)).unwrap()
    };
    let served = listed("server");
    assert_eq!(served, listed("file"));
    let roles: Vec<(&str, &str)> = served
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["user"].as_str().unwrap(), t["role"].as_str().unwrap()))
        .collect();
    // Bob's first token was made as a writer; it acts as an admin now, as his second does.
    assert_eq!(
        roles,
        [("ann", "admin"), ("bob", "admin"), ("bob", "admin")]
    );
    assert!(!served.to_string().contains("pt_"), "a token never shows");
    // Without --tenant an admin lists its own tenant's tokens, not another's.
    let own = stdout_of(&on_server(
        &server,
        &bob,
        &["token", "list", "--format", "csv"],
    ));
    assert_eq!(own.lines().count(), 4, "{own}");
    assert!(!own.contains(",default,"), "{own}");
}
