//! `platform` on a PostgreSQL that accepts TLS only (a private cluster with `hostssl` lines and a
//! scram-sha-256 role): `init` and `serve` over `sslmode=verify-full` on a multi-host URL with
//! the password in a pass file, `PGPASSWORD`, a pass file open to others ignored with a
//! warning, `sslmode=disable` refused with PostgreSQL's reason, and the password nowhere in
//! errors, `/ready` or the server's log.

use super::{Server, BIN};
use platform_core::store::postgres::cluster::{PrivateCluster, DATABASE, PASSWORD_ROLE};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Output};

const PASSWORD: &str = "Cli-s3cret-Pa55";

/// `platform ARGS` with only the PostgreSQL variables of `env`.
fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("PLATFORM_DB")
        .env_remove("PGPASSWORD")
        .env_remove("PGPASSFILE")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn servers_run_over_tls_with_a_pass_file_and_never_show_the_password() {
    let Some((cluster, files)) = PrivateCluster::start_tls(PASSWORD) else {
        return;
    };
    let port = cluster.port();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_str().unwrap();
    let key = dir.path().join("platform.key");
    let key = key.to_str().unwrap();
    let pass = dir.path().join("pgpass");
    std::fs::write(
        &pass,
        format!("# the platform's role\n*:{port}:{DATABASE}:{PASSWORD_ROLE}:{PASSWORD}\n"),
    )
    .unwrap();
    let pass = pass.to_str().unwrap();
    // The first host does not answer; the second is the TLS cluster, whose certificate names
    // `localhost`.
    let db = format!(
        "postgres://{PASSWORD_ROLE}@127.0.0.1:1,localhost:{port}/{DATABASE}\
         ?target_session_attrs=read-write&sslmode=verify-full&sslrootcert={}",
        files.ca.display()
    );

    // A pass file that others may read is ignored, with libpq's warning.
    std::fs::set_permissions(pass, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = run(
        &["init", "--db", &db, "--key-file", key],
        &[("HOME", home), ("PGPASSFILE", pass)],
    );
    let said = stderr(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("has group or world access") && said.contains("password missing"),
        "{said}"
    );

    std::fs::set_permissions(pass, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = run(
        &["init", "--db", &db, "--key-file", key],
        &[("HOME", home), ("PGPASSFILE", pass)],
    );
    let said = stderr(&out);
    assert!(out.status.success(), "{said}");
    let token = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(token.starts_with("pt_"), "{token}");
    assert!(!said.contains(PASSWORD), "{said}");

    let mut command = Command::new(BIN);
    command
        .args([
            "serve",
            "--db",
            &db,
            "--key-file",
            key,
            "--addr",
            "127.0.0.1:0",
        ])
        .env_remove("PGPASSWORD")
        .env("HOME", home)
        .env("PGPASSFILE", pass);
    let mut server = Server::spawn(command);
    let saved: Value = ureq::post(&format!("{}/object/v1", server.url))
        .set("Authorization", &format!("Bearer {token}"))
        .send_json(json!({"_id": "over-tls", "n": 1}))
        .unwrap()
        .into_json()
        .unwrap();
    assert_eq!(saved["_version"], 1);
    let got: Value = ureq::get(&format!("{}/object/v1/private/over-tls", server.url))
        .set("Authorization", &format!("Bearer {token}"))
        .call()
        .unwrap()
        .into_json()
        .unwrap();
    assert_eq!(got["n"], 1);
    let ready = ureq::get(&format!("{}/ready", server.url))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert!(
        ready.contains("\"ready\"") && !ready.contains(PASSWORD),
        "{ready}"
    );
    server.stop();
    let log: Vec<String> = server.log.try_iter().collect();
    assert!(!log.iter().any(|l| l.contains(PASSWORD)), "{log:?}");
    assert!(!cluster.server_log().contains(PASSWORD));

    // PGPASSWORD serves as well (no pass file: HOME has none).
    let out = run(
        &[
            "token",
            "create",
            "--db",
            &db,
            "--key-file",
            key,
            "--tenant",
            "default",
            "--user",
            "bob",
            "--role",
            "admin",
        ],
        &[("HOME", home), ("PGPASSWORD", PASSWORD)],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // Without TLS the server refuses, and says why; the URL is shown whole, without its
    // password.
    let plain = format!(
        "postgres://{PASSWORD_ROLE}:{PASSWORD}@127.0.0.1:1,127.0.0.1:{port}/{DATABASE}\
         ?target_session_attrs=read-write&sslmode=disable"
    );
    let out = run(
        &["init", "--db", &plain, "--key-file", key],
        &[("HOME", home)],
    );
    let said = stderr(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("no pg_hba.conf entry") && said.contains("no encryption"),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "postgres://{PASSWORD_ROLE}:***@127.0.0.1:1,127.0.0.1:{port}/{DATABASE}\
             ?target_session_attrs=read-write"
        )),
        "{said}"
    );
    assert!(!said.contains(PASSWORD), "{said}");

    // A bad sslmode names the parameter and its values.
    let bad =
        format!("postgres://{PASSWORD_ROLE}:{PASSWORD}@localhost:{port}/{DATABASE}?sslmode=verify");
    let said = stderr(&run(&["init", "--db", &bad, "--key-file", key], &[]));
    assert!(
        said.contains("sslmode \"verify\"") && said.contains("verify-ca, verify-full"),
        "{said}"
    );
    assert!(!said.contains(PASSWORD), "{said}");
}
