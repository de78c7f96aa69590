//! A private cluster that accepts connections over TLS only (`hostssl`), for the tests of
//! `sslmode`, certificate checks and passwords.
//!
//! Its certificates are made at test time with rcgen: a test certificate authority signs the
//! server's certificate (for the host name `localhost` only, so that a connection to
//! `127.0.0.1` under `verify-full` is a host-name mismatch) and a client certificate; another
//! authority signs nothing the server shows.

use super::PrivateCluster;
use crate::store::postgres::testing::admin;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The role of a TLS cluster that logs in with a password (scram-sha-256).
pub const PASSWORD_ROLE: &str = "app";
/// The role that logs in with the client certificate ([`TlsFiles::client_cert`]).
pub const CERT_ROLE: &str = "certuser";
/// The database the roles own.
pub const DATABASE: &str = "platform";

/// The files of a TLS cluster's certificates, for clients.
#[derive(Debug)]
pub struct TlsFiles {
    /// The certificate authority that signed the server's certificate (PEM).
    pub ca: PathBuf,
    /// An authority that signed neither (PEM).
    pub other_ca: PathBuf,
    /// A client certificate for [`CERT_ROLE`], signed by [`TlsFiles::ca`].
    pub client_cert: PathBuf,
    /// The client certificate's key (mode 0600).
    pub client_key: PathBuf,
}

/// A certificate authority: its certificate and key.
struct Authority {
    cert: rcgen::Certificate,
    key: KeyPair,
}

fn authority(name: &str) -> Authority {
    let key = KeyPair::generate().expect("a key pair");
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("parameters");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let cert = params.self_signed(&key).expect("a self-signed authority");
    Authority { cert, key }
}

/// A certificate for `names` (host names) with `common_name`, signed by `by`: its PEM and its
/// key's PEM.
fn leaf(by: &Authority, names: &[&str], common_name: &str) -> (String, String) {
    let key = KeyPair::generate().expect("a key pair");
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut params = CertificateParams::new(names).expect("parameters");
    params
        .distinguished_name
        .push(DnType::CommonName, common_name);
    let cert = params
        .signed_by(&key, &by.cert, &by.key)
        .expect("a signed certificate");
    (cert.pem(), key.serialize_pem())
}

/// Writes `text` to `file` with `mode`.
fn write(file: &Path, text: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(file, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(mode)).unwrap();
}

impl PrivateCluster {
    /// A new cluster, started, that accepts TCP connections over TLS only: the superuser
    /// `postgres` without a password (its [`PrivateCluster::url`] has `sslmode=require`),
    /// [`PASSWORD_ROLE`] with `password` (scram-sha-256) and [`CERT_ROLE`] with the client
    /// certificate, both owning [`DATABASE`]; a connection without TLS is refused by its
    /// `pg_hba.conf`. `None` when the PostgreSQL runs are skipped.
    pub fn start_tls(password: &str) -> Option<(PrivateCluster, TlsFiles)> {
        let mut cluster = PrivateCluster::start()?;
        let ca = authority("platform test CA");
        let other = authority("another test CA");
        let (server_cert, server_key) = leaf(&ca, &["localhost"], "localhost");
        let (client_cert, client_key) = leaf(&ca, &[], CERT_ROLE);

        let server_dir = cluster.dir.clone();
        write(&server_dir.join("server.crt"), &server_cert, 0o644);
        write(&server_dir.join("server.key"), &server_key, 0o600);
        write(&server_dir.join("root.crt"), &ca.cert.pem(), 0o644);
        let hba = format!(
            "local all all trust\n\
             hostssl all {CERT_ROLE} 127.0.0.1/32 cert\n\
             hostssl all postgres 127.0.0.1/32 trust\n\
             hostssl all all 127.0.0.1/32 scram-sha-256\n"
        );
        write(&server_dir.join("pg_hba.conf"), &hba, 0o600);
        if cluster.as_postgres {
            let files: Vec<PathBuf> = ["server.crt", "server.key", "root.crt", "pg_hba.conf"]
                .iter()
                .map(|f| server_dir.join(f))
                .collect();
            let out = Command::new("chown")
                .arg("postgres:postgres")
                .args(&files)
                .output()
                .expect("chown runs");
            assert!(out.status.success(), "chown: {out:?}");
        }

        let client_dir = server_dir.join("client");
        std::fs::create_dir_all(&client_dir).unwrap();
        let files = TlsFiles {
            ca: client_dir.join("ca.crt"),
            other_ca: client_dir.join("other-ca.crt"),
            client_cert: client_dir.join("client.crt"),
            client_key: client_dir.join("client.key"),
        };
        write(&files.ca, &ca.cert.pem(), 0o644);
        write(&files.other_ca, &other.cert.pem(), 0o644);
        write(&files.client_cert, &client_cert, 0o644);
        write(&files.client_key, &client_key, 0o600);

        let quoted = password.replace('\'', "''");
        let dir = server_dir.to_string_lossy().into_owned();
        let mut setup = admin(&cluster.url).expect("the new cluster answers");
        // One statement a call: ALTER SYSTEM and CREATE DATABASE refuse a transaction block.
        for statement in [
            "ALTER SYSTEM SET ssl = on".to_string(),
            format!("ALTER SYSTEM SET ssl_cert_file = '{dir}/server.crt'"),
            format!("ALTER SYSTEM SET ssl_key_file = '{dir}/server.key'"),
            format!("ALTER SYSTEM SET ssl_ca_file = '{dir}/root.crt'"),
            "ALTER SYSTEM SET password_encryption = 'scram-sha-256'".to_string(),
            format!("CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD '{quoted}'"),
            format!("CREATE ROLE {CERT_ROLE} LOGIN"),
            format!("CREATE DATABASE {DATABASE} OWNER {PASSWORD_ROLE}"),
            format!("GRANT ALL ON DATABASE {DATABASE} TO {CERT_ROLE}"),
            "SELECT pg_reload_conf()".to_string(),
        ] {
            setup
                .batch_execute(&statement)
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
        drop(setup);
        // The reload is done once a connection without TLS is refused.
        let start = Instant::now();
        while admin(&format!("{}?sslmode=disable", cluster.url)).is_ok() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the cluster in {dir} still accepts connections without TLS after 20 s; \
                 its log:\n{}",
                cluster.log_text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        cluster.url = format!("{}?sslmode=require", cluster.url);
        admin(&cluster.url).unwrap_or_else(|e| {
            panic!(
                "the TLS cluster in {dir} refuses its superuser over TLS: {e}; its log:\n{}",
                cluster.log_text()
            )
        });
        Some((cluster, files))
    }

    /// The text of the server's whole log (to check what it says of connections).
    pub fn server_log(&self) -> String {
        std::fs::read_to_string(self.log()).unwrap_or_default()
    }
}
