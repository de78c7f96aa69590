//! TLS and passwords against a private cluster that accepts TLS only (`hostssl`): `sslmode`'s
//! checks of the server's certificate, a client certificate, the password from the environment
//! and the pass file, and no password in any error or in the server's log.

use super::super::cluster::{PrivateCluster, TlsFiles, CERT_ROLE, DATABASE, PASSWORD_ROLE};
use super::super::connect::target_with;
use super::super::pool::connect;
use super::*;

const PASSWORD: &str = "s3cret-Pa55word";

/// The error with its causes, as a log line would say it.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        text.push_str(&format!(": {cause}"));
        next = cause.source();
    }
    text
}

/// The URL of `role` at `host` (with `password`, when given) and `query`.
fn url(cluster: &PrivateCluster, host: &str, password: Option<&str>, query: &str) -> String {
    let user = match password {
        Some(pw) => format!("{PASSWORD_ROLE}:{pw}"),
        None => PASSWORD_ROLE.to_string(),
    };
    format!(
        "postgres://{user}@{host}:{}/{DATABASE}?{query}",
        cluster.port()
    )
}

/// Whether a connection to `url` (with the environment `env`) is made, and over TLS; else the
/// error's whole text.
fn connects(url: &str, env: &[(&str, String)]) -> std::result::Result<(), String> {
    let env = |name: &str| env.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
    let target = target_with(url, &env).map_err(|e| chain(&e))?;
    let mut conn = connect(&target.config, &target.tls, false).map_err(|e| chain(&e))?;
    let rows = conn
        .query_once(
            "SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .map_err(|e| chain(&e))?;
    let ssl: String = get(&rows[0], 0).unwrap();
    assert_eq!(
        ssl,
        "true",
        "the connection to {} is encrypted",
        redact(url)
    );
    Ok(())
}

fn start() -> Option<(PrivateCluster, TlsFiles)> {
    PrivateCluster::start_tls(PASSWORD)
}

fn path(p: &std::path::Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn a_tls_only_server_refuses_disable_and_serves_the_platform_under_require() {
    let Some((cluster, _files)) = start() else {
        return;
    };
    let plain = url(&cluster, "127.0.0.1", Some(PASSWORD), "sslmode=disable");
    let e = PgStore::open(&plain).unwrap_err();
    let text = chain(&e);
    assert_eq!(e.code(), crate::ErrorCode::Unavailable, "{text}");
    assert!(
        text.contains("no pg_hba.conf entry") && text.contains("no encryption"),
        "PostgreSQL's reason: {text}"
    );
    assert!(!text.contains(PASSWORD), "{text}");

    // Before this change: "no TLS implementation configured".
    let required = url(&cluster, "127.0.0.1", Some(PASSWORD), "sslmode=require");
    let store = PgStore::open(&required).unwrap();
    let mut tx = store.write().unwrap();
    tx.ensure_tenant("acme", now()).unwrap();
    tx.commit().unwrap();
    drop(store);
    let store = PgStore::open(&required).unwrap();
    assert_eq!(store.read().unwrap().tenant_count().unwrap(), 1);
    // The default, prefer, takes TLS when the server offers it.
    connects(&url(&cluster, "127.0.0.1", Some(PASSWORD), ""), &[]).unwrap();
    // Channel binding (SCRAM-SHA-256-PLUS) is offered by the stream.
    connects(
        &url(
            &cluster,
            "localhost",
            Some(PASSWORD),
            "channel_binding=require",
        ),
        &[],
    )
    .unwrap();
    let wrong = url(
        &cluster,
        "127.0.0.1",
        Some("not-the-password"),
        "sslmode=require",
    );
    let text = chain(&PgStore::open(&wrong).unwrap_err());
    assert!(text.contains("password authentication failed"), "{text}");
    assert!(!text.contains("not-the-password"), "{text}");
    assert!(!cluster.server_log().contains(PASSWORD));
    assert!(!cluster.server_log().contains("not-the-password"));
}

#[test]
fn verify_full_checks_the_authority_and_the_host_name_and_verify_ca_the_authority() {
    let Some((cluster, files)) = start() else {
        return;
    };
    let ca = path(&files.ca);
    let other = path(&files.other_ca);
    connects(
        &url(
            &cluster,
            "localhost",
            Some(PASSWORD),
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ),
        &[],
    )
    .unwrap();
    let e = connects(
        &url(
            &cluster,
            "localhost",
            Some(PASSWORD),
            &format!("sslmode=verify-full&sslrootcert={other}"),
        ),
        &[],
    )
    .unwrap_err();
    assert!(
        e.contains("not signed by a certificate authority of sslrootcert") && e.contains(&other),
        "{e}"
    );
    // The certificate is for `localhost`, not for 127.0.0.1.
    let e = connects(
        &url(
            &cluster,
            "127.0.0.1",
            Some(PASSWORD),
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ),
        &[],
    )
    .unwrap_err();
    assert!(e.contains("not for the host 127.0.0.1"), "{e}");
    assert!(!e.contains(PASSWORD), "{e}");
    connects(
        &url(
            &cluster,
            "127.0.0.1",
            Some(PASSWORD),
            &format!("sslmode=verify-ca&sslrootcert={ca}"),
        ),
        &[],
    )
    .unwrap();
    // verify-ca still checks the authority; require does once given one, as libpq does.
    for mode in ["verify-ca", "require"] {
        let e = connects(
            &url(
                &cluster,
                "127.0.0.1",
                Some(PASSWORD),
                &format!("sslmode={mode}&sslrootcert={other}"),
            ),
            &[],
        )
        .unwrap_err();
        assert!(
            e.contains("not signed by a certificate authority"),
            "{mode}: {e}"
        );
    }
    // A missing file is named.
    let e = connects(
        &url(
            &cluster,
            "localhost",
            Some(PASSWORD),
            "sslmode=verify-full&sslrootcert=/nonexistent/root.crt",
        ),
        &[],
    )
    .unwrap_err();
    assert!(e.contains("/nonexistent/root.crt"), "{e}");
}

#[test]
fn a_client_certificate_logs_its_role_in() {
    let Some((cluster, files)) = start() else {
        return;
    };
    let base = format!(
        "postgres://{CERT_ROLE}@localhost:{}/{DATABASE}?sslmode=verify-full&sslrootcert={}",
        cluster.port(),
        path(&files.ca)
    );
    let e = connects(&base, &[]).unwrap_err();
    assert!(e.contains("certificate"), "{e}");
    connects(
        &format!(
            "{base}&sslcert={}&sslkey={}",
            path(&files.client_cert),
            path(&files.client_key)
        ),
        &[],
    )
    .unwrap();
}

#[test]
fn the_password_comes_from_pgpassword_or_a_private_pass_file() {
    use std::os::unix::fs::PermissionsExt;
    let Some((cluster, _files)) = start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let no_password = url(&cluster, "127.0.0.1", None, "sslmode=require");
    let home = ("HOME", path(dir.path()));
    let e = connects(&no_password, std::slice::from_ref(&home)).unwrap_err();
    assert!(e.contains("password missing"), "{e}");

    connects(
        &no_password,
        &[home.clone(), ("PGPASSWORD", PASSWORD.into())],
    )
    .unwrap();

    let file = dir.path().join("pass");
    let port = cluster.port();
    std::fs::write(
        &file,
        format!("127.0.0.1:{port}:{DATABASE}:other:nope\n*:{port}:*:{PASSWORD_ROLE}:{PASSWORD}\n"),
    )
    .unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let passfile = ("PGPASSFILE", path(&file));
    connects(&no_password, &[home.clone(), passfile.clone()]).unwrap();
    // Open to others: ignored, as libpq ignores it.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = connects(&no_password, &[home.clone(), passfile.clone()]).unwrap_err();
    assert!(e.contains("password missing"), "{e}");
    // A wrong PGPASSWORD is refused, and not said.
    let e = connects(&no_password, &[home, ("PGPASSWORD", "wrong-Pa55".into())]).unwrap_err();
    assert!(e.contains("password authentication failed"), "{e}");
    assert!(!e.contains("wrong-Pa55"), "{e}");
    assert!(!cluster.server_log().contains(PASSWORD));
}

#[test]
fn system_roots_and_libpq_s_default_root_file_are_used() {
    let Some((cluster, files)) = start() else {
        return;
    };
    // sslrootcert=system reads the bundle SSL_CERT_FILE names, and means verify-full.
    let system = url(&cluster, "localhost", Some(PASSWORD), "sslrootcert=system");
    connects(&system, &[("SSL_CERT_FILE", path(&files.ca))]).unwrap();
    let e = connects(&system, &[("SSL_CERT_FILE", path(&files.other_ca))]).unwrap_err();
    assert!(
        e.contains("not signed by a certificate authority of the system's"),
        "{e}"
    );
    let ip = url(&cluster, "127.0.0.1", Some(PASSWORD), "sslrootcert=system");
    let e = connects(&ip, &[("SSL_CERT_FILE", path(&files.ca))]).unwrap_err();
    assert!(e.contains("not for the host 127.0.0.1"), "{e}");

    // ~/.postgresql/root.crt serves verify-full without sslrootcert, and makes require check
    // the chain, as libpq does.
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".postgresql")).unwrap();
    let root = home.path().join(".postgresql/root.crt");
    std::fs::copy(&files.ca, &root).unwrap();
    let env = [("HOME", path(home.path()))];
    connects(
        &url(&cluster, "localhost", Some(PASSWORD), "sslmode=verify-full"),
        &env,
    )
    .unwrap();
    std::fs::copy(&files.other_ca, &root).unwrap();
    let e = connects(
        &url(&cluster, "127.0.0.1", Some(PASSWORD), "sslmode=require"),
        &env,
    )
    .unwrap_err();
    assert!(e.contains("libpq's default sslrootcert"), "{e}");
}
