//! The CLI behaves like the tools people know: exit codes a pipeline can gate on, database files
//! that are never made by mistake, `init`, a busy port that changes nothing, one output
//! convention, and background runs that say who runs them.

use crate::{
    data, gated, json_of, new_db, platform, stderr_of_failure, stdout_of, validate,
    validated_series, Server,
};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn validate_exits_with_1_when_data_does_not_pass_and_2_on_errors() {
    let dir = tempfile::tempdir().unwrap();
    // Severe on the 4th and 6th, a warning (move) on the 5th, valid on the 1st.
    let db = validated_series(dir.path());
    let passing = validate(&db, &["run", "NBP:SPOT", "--point", "2024-07-02"]);
    assert_eq!(
        code(&passing),
        Some(0),
        "{}",
        String::from_utf8_lossy(&passing.stderr)
    );
    assert_eq!(json_of(&passing)["counts"], json!({"valid": 1}));
    for command in ["run", "test"] {
        let out = validate(&db, &[command, "NBP:SPOT", "--point", "2024-07-04"]);
        let answer: Value = serde_json::from_str(&gated(&out)).unwrap();
        assert_eq!(answer["results"][0]["status"], "severe");
        assert!(String::from_utf8_lossy(&out.stderr).contains("1 severe"));
    }
    // A warning passes by default, and gates with --fail-on warning; never always passes.
    let warning = ["test", "NBP:SPOT", "--point", "2024-07-05"];
    assert_eq!(code(&validate(&db, &warning)), Some(0));
    let mut widened = warning.to_vec();
    widened.extend(["--fail-on", "warning"]);
    gated(&validate(&db, &widened));
    let severe = [
        "test",
        "NBP:SPOT",
        "--point",
        "2024-07-06",
        "--fail-on",
        "never",
    ];
    assert_eq!(code(&validate(&db, &severe)), Some(0));
    // runMany gates on its data items.
    gated(&validate(
        &db,
        &["many", "NBP:SPOT", "--point", "2024-07-04"],
    ));
    // An error is 2, with its code.
    let err = validate(&db, &["run", "NOPE:X"]);
    assert_eq!(code(&err), Some(2));
    assert!(stderr_of_failure(&err).starts_with("error: [INVALID_PARAMETER]"));
    let err = platform(&["data", "get", "X", "--db", db.to_str().unwrap()]);
    assert_eq!(code(&err), Some(2));
}

#[test]
fn suggest_with_nothing_to_suggest_writes_no_file_and_tune_errors_fail() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    // Three observations: too little data to suggest anything.
    let file = dir.path().join("few.csv");
    std::fs::write(&file, "2026-01-05,1\n2026-01-06,2\n2026-01-07,3\n").unwrap();
    stdout_of(&data(&db, &["import", "A:B", file.to_str().unwrap()]));
    let cfg = dir.path().join("a.json");
    let out = validate(
        &db,
        &[
            "suggest",
            "A:B",
            "--days",
            "366",
            "--write",
            cfg.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nothing to suggest for A:B") && err.contains("no configuration written"),
        "{err}"
    );
    assert!(!cfg.exists(), "no file is written");
    // The table said why.
    assert!(String::from_utf8_lossy(&out.stdout).contains("A:B: message:"));
    // Tune without a saved configuration reports an error, writes nothing and fails.
    let tuned = dir.path().join("t.json");
    let out = validate(
        &db,
        &[
            "tune",
            "A:B",
            "--point",
            "2026-01-06",
            "--write",
            tuned.to_str().unwrap(),
        ],
    );
    assert_eq!(
        code(&out),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("tune could not run: A:B:"));
    assert!(!tuned.exists());
}

#[test]
fn a_missing_database_file_is_refused_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("typo.db");
    let dbs = db.to_str().unwrap();
    let csv = dir.path().join("in.csv");
    std::fs::write(&csv, "2024-01-01,1\n").unwrap();
    let cfg = dir.path().join("c.json");
    std::fs::write(&cfg, "{}").unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "token", "create", "--db", dbs, "--tenant", "a", "--user", "b", "--role", "reader",
        ],
        vec!["token", "list", "--db", dbs],
        vec!["token", "revoke", "--db", dbs, "pt_x"],
        vec!["env", "create", "--db", dbs, "--tenant", "a", "test"],
        vec!["env", "list", "--db", dbs, "--tenant", "a"],
        vec![
            "grant", "--db", dbs, "--tenant", "a", "--user", "b", "--access", "x",
        ],
        vec!["object", "list", "--db", dbs],
        vec!["object", "put", cfg.to_str().unwrap(), "--db", dbs],
        vec!["data", "import", "A:B", csv.to_str().unwrap(), "--db", dbs],
        vec!["data", "get", "A:B", "--db", dbs],
        vec!["validate", "run", "A:B", "--db", dbs],
        vec!["validate", "work", "--db", dbs],
        vec!["automation", "list", "--db", dbs],
        vec!["automation", "deliver", "--db", dbs],
    ];
    for args in &commands {
        let out = platform(args);
        assert_eq!(code(&out), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("typo.db does not exist") && err.contains("platform init --db"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        files_in(dir.path()),
        ["c.json", "in.csv"],
        "nothing was created"
    );
}

#[test]
fn init_makes_a_database_and_prints_its_admin_token_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    let dbs = db.to_str().unwrap();
    let keep = dir.path().join("admin.token");
    let out = platform(&[
        "init",
        "--db",
        dbs,
        "--print-token-file",
        keep.to_str().unwrap(),
    ]);
    let token = stdout_of(&out).trim().to_string();
    assert!(token.starts_with("pt_"), "{token}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("created"));
    assert_eq!(std::fs::read_to_string(&keep).unwrap().trim(), token);
    // The token works: a server on the file takes it (and prints no second one).
    let mut server = Server::start_existing(&db);
    assert_eq!(
        crate::get(&server.url, &token, "/object/v1/private").unwrap(),
        json!([])
    );
    assert!(server.stop().success());
    // A second init changes nothing and says how to get another token.
    let before = stdout_of(&platform(&[
        "token", "list", "--db", dbs, "--format", "json",
    ]));
    let out = platform(&["init", "--db", dbs]);
    assert_eq!(code(&out), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[CONFLICT]") && err.contains("platform token create"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(
        stdout_of(&platform(&[
            "token", "list", "--db", dbs, "--format", "json"
        ])),
        before
    );

    // A database a program made (a tenant and a writer, no platform user) still gets its admin.
    let made = dir.path().join("made.db");
    {
        let p = platform_core::Platform::open(&made).unwrap();
        p.tenancy()
            .create_token("acme", "ann", platform_core::auth::Role::Writer)
            .unwrap();
        p.close().unwrap();
    }
    let out = platform(&["init", "--db", made.to_str().unwrap()]);
    assert!(stdout_of(&out).trim().starts_with("pt_"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("initialised"));
}

#[test]
fn a_token_for_another_role_is_refused_unless_the_role_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("roles.db");
    let dbs = db.to_str().unwrap();
    let create = |role: &str, extra: &[&str]| {
        let mut args = vec![
            "token", "create", "--db", dbs, "--tenant", "acme", "--user", "ann", "--role", role,
        ];
        args.extend_from_slice(extra);
        platform(&args)
    };
    stdout_of(&platform(&["init", "--db", dbs]));
    let admin = stdout_of(&create("admin", &[])).trim().to_string();
    let listed = || {
        stdout_of(&platform(&[
            "token", "list", "--db", dbs, "--tenant", "acme", "--format", "json",
        ]))
    };
    let before = listed();
    let id = serde_json::from_str::<Value>(&before).unwrap()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    // A writer token for ann, an admin: refused, naming the token it would demote.
    let out = create("writer", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(&out), Some(2), "{err}");
    assert!(
        err.contains("[CONFLICT]") && err.contains(&id) && err.contains("--set-role"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(listed(), before);
    // With --set-role: made, and it says which tokens now act as writer.
    let out = create("writer", &["--set-role"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(stdout_of(&out).trim().starts_with("pt_"));
    assert!(
        err.contains("the role of acme/ann is now writer (it was admin)") && err.contains(&id),
        "{err}"
    );
    let tokens: Value = serde_json::from_str(&listed()).unwrap();
    let roles: Vec<&str> = tokens
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["writer", "writer"]);
    assert!(admin.starts_with("pt_"));
}

#[test]
fn serve_on_a_busy_port_fails_before_it_makes_anything() {
    let dir = tempfile::tempdir().unwrap();
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let db = dir.path().join("fresh.db");
    let out = platform(&["serve", "--db", db.to_str().unwrap(), "--addr", &addr]);
    assert_eq!(code(&out), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cannot listen on {addr}")), "{err}");
    assert!(!err.contains("token"), "{err}");
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
}

#[test]
fn records_print_as_json_tables_or_csv() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let dbs = db.to_str().unwrap();
    stdout_of(&platform(&[
        "token", "create", "--db", dbs, "--tenant", "acme", "--user", "ann", "--role", "writer",
    ]));
    stdout_of(&platform(&[
        "env", "create", "--db", dbs, "--tenant", "acme", "test",
    ]));

    let table = stdout_of(&platform(&["token", "list", "--db", dbs]));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        ["ID", "TENANT", "USER", "ROLE", "CREATED", "REVOKED"]
    );
    assert!(
        lines[1].contains("acme") && lines[1].contains("writer"),
        "{table}"
    );
    assert!(
        lines[2].contains("default") && lines[2].contains("platform"),
        "{table}"
    );
    let csv = stdout_of(&platform(&[
        "token", "list", "--db", dbs, "--tenant", "acme", "--format", "csv",
    ]));
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "id,tenant,user,role,created,revoked");
    assert!(
        rows[1].contains(",acme,ann,writer,") && rows[1].ends_with(','),
        "{csv}"
    );
    assert!(!csv.contains("pt_"), "a token never shows");
    let json: Value = serde_json::from_str(&stdout_of(&platform(&[
        "token", "list", "--db", dbs, "--format", "json",
    ])))
    .unwrap();
    assert_eq!(json.as_array().unwrap().len(), 2);

    let envs = stdout_of(&platform(&["env", "list", "--db", dbs, "--tenant", "acme"]));
    let names: Vec<&str> = envs
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, ["production", "test"], "{envs}");
    assert!(envs.starts_with("NAME"), "{envs}");
    let err = stderr_of_failure(&platform(&[
        "env", "list", "--db", dbs, "--tenant", "nobody",
    ]));
    assert!(err.contains("[NOT_FOUND]"), "{err}");

    // Objects: one row per object, every field it holds.
    let objs = dir.path().join("o.json");
    std::fs::write(
        &objs,
        r#"[{"_id": "GB", "name": "Great Britain"}, {"_id": "FR", "name": "France, Rep."}]"#,
    )
    .unwrap();
    stdout_of(&platform(&[
        "object",
        "put",
        objs.to_str().unwrap(),
        "--db",
        dbs,
    ]));
    let csv = stdout_of(&platform(&[
        "object",
        "list",
        "--db",
        dbs,
        "--format",
        "csv",
        "_sort=name",
    ]));
    let mut rows = csv.lines();
    assert!(rows.next().unwrap().starts_with("_id,_type,name,"), "{csv}");
    assert!(
        rows.next()
            .unwrap()
            .starts_with("FR,#Object,\"France, Rep.\","),
        "{csv}"
    );
    let one = stdout_of(&platform(&[
        "object", "get", "GB", "--db", dbs, "--format", "table",
    ]));
    assert!(one.lines().nth(1).unwrap().starts_with("GB "), "{one}");

    // An automation from a file, then listed.
    let auto = dir.path().join("a.json");
    std::fs::write(
        &auto,
        r#"{"target": "platform.webhook", "properties": {"url": "http://127.0.0.1:9/x"},
        "conditions": [{"service": "object", "id": "*", "action": "*"}]}"#,
    )
    .unwrap();
    let saved = json_of(&platform(&[
        "automation",
        "create",
        "--file",
        auto.to_str().unwrap(),
        "--db",
        dbs,
        "--webhook-allow",
        "127.0.0.1",
    ]));
    let id = saved["_id"].as_str().unwrap().to_string();
    let list = stdout_of(&platform(&["automation", "list", "--db", dbs]));
    assert!(list.starts_with("_ID") && list.contains(&id), "{list}");
    // Every column says something: an automation that leaves `enabled` out is enabled.
    let header: Vec<&str> = list.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header[..3], ["_ID", "TARGET", "ENABLED"], "{list}");
    let row: Vec<&str> = list.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(
        row[..3],
        [id.as_str(), "platform.webhook", "true"],
        "{list}"
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"target": "nope"}"#).unwrap();
    let out = platform(&[
        "automation",
        "create",
        "--file",
        bad.to_str().unwrap(),
        "--db",
        dbs,
    ]);
    assert_eq!(code(&out), Some(2));

    // Data as a table.
    let file = dir.path().join("d.csv");
    std::fs::write(&file, "2024-01-01,1.5,VALID\n").unwrap();
    stdout_of(&data(&db, &["import", "X:S", file.to_str().unwrap()]));
    let table = stdout_of(&data(&db, &["get", "X:S", "--format", "table"]));
    assert_eq!(
        table,
        "TIME                  VALUE  QUALITY  SOURCE  RELIABILITY\n2024-01-01T00:00:00Z  1.5    VALID\n"
    );
}

#[test]
fn a_background_run_says_who_will_run_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = validated_series(dir.path());
    let background = [
        "run",
        "NBP:SPOT",
        "--background",
        "--no-wait",
        "--from",
        "2024-07-01",
        "--to",
        "2024-07-07",
    ];
    let out = validate(&db, &background);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("runs in the background as job") && err.contains("`platform validate work`"),
        "{err}"
    );
    assert_eq!(json_of(&out)["background"], true);
    stdout_of(&validate(&db, &["work"]));
    // With a server working on the file, its worker runs it.
    let mut server = Server::start_existing(&db);
    let out = validate(&db, &background);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the worker of the server on") && err.contains("runs it"),
        "{err}"
    );
    let job = json_of(&out)["job"].as_str().unwrap().to_string();
    // Meanwhile the file's jobs are the server's: `work` refuses and changes nothing.
    let err = stderr_of_failure(&validate(&db, &["work"]));
    assert!(
        err.contains("[CONFLICT]") && err.contains("runs its jobs"),
        "{err}"
    );
    let mut status = Value::Null;
    for _ in 0..100 {
        let jobs = json_of(&validate(&db, &["jobs", "--format", "json"]));
        status = jobs
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["_id"] == job.as_str())
            .unwrap()["status"]
            .clone();
        if status == "done" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(status, "done");
    assert!(server.stop().success());
    // Stopped cleanly, the server is no longer counted.
    let out = validate(&db, &background);
    assert!(String::from_utf8_lossy(&out.stderr).contains("`platform validate work`"));
}
