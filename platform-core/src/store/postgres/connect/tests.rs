//! The URL's TLS parameters, their errors, and redaction (no server needed).

use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

fn error_of(url: &str) -> String {
    match target_with(url, &no_env) {
        Ok(_) => panic!("{url} is accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_tls_parameters_are_taken_out_and_the_rest_kept() {
    let (rest, taken) = take_tls_parameters(
        "postgres://u:pw@h1:5432,h2:5433/db?sslmode=verify-full&target_session_attrs=read-write\
         &sslrootcert=/etc/ca%20file.pem&sslcert=c.pem&sslkey=k.pem&passfile=/p&connect_timeout=3",
    );
    assert_eq!(
        rest,
        "postgres://u:pw@h1:5432,h2:5433/db?target_session_attrs=read-write&connect_timeout=3"
    );
    assert_eq!(
        taken,
        Taken {
            mode: Some("verify-full".into()),
            root: Some("/etc/ca file.pem".into()),
            cert: Some("c.pem".into()),
            key: Some("k.pem".into()),
            passfile: Some("/p".into()),
        }
    );
    let (rest, taken) = take_tls_parameters("postgres://u@h/db?sslmode=require");
    assert_eq!(rest, "postgres://u@h/db");
    assert_eq!(taken.mode.as_deref(), Some("require"));
    assert_eq!(
        take_tls_parameters("postgres://u@h/db").0,
        "postgres://u@h/db"
    );
}

#[test]
fn sslmode_maps_to_the_client_and_bad_values_name_the_parameter() {
    use tokio_postgres::config::SslMode as Client;
    let mode = |url: &str| target_with(url, &no_env).unwrap().config.get_ssl_mode();
    assert_eq!(mode("postgres://u:p@h/db"), Client::Prefer);
    assert_eq!(mode("postgres://u:p@h/db?sslmode=disable"), Client::Disable);
    assert_eq!(mode("postgres://u:p@h/db?sslmode=prefer"), Client::Prefer);
    assert_eq!(mode("postgres://u:p@h/db?sslmode=require"), Client::Require);

    let e = error_of("postgres://u:secretpw@h/db?sslmode=verify");
    assert!(e.contains("sslmode \"verify\"") && e.contains(MODES), "{e}");
    let e = error_of("postgres://u:secretpw@h/db?sslmode=verify-full");
    assert!(e.contains("sslmode=verify-full needs sslrootcert"), "{e}");
    let e =
        error_of("postgres://u:secretpw@h/db?sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem");
    assert!(e.contains("sslrootcert /nonexistent/ca.pem"), "{e}");
    let e = error_of("postgres://u:secretpw@h/db?sslrootcert=system&sslmode=require");
    assert!(
        e.contains("sslrootcert=system asks for sslmode=verify-full"),
        "{e}"
    );
    let e = error_of("postgres://u:secretpw@h/db?sslmode=require&sslcert=/c.pem");
    assert!(e.contains("both sslcert") && e.contains("sslkey"), "{e}");
    let e = error_of("postgres://u:secretpw@h1:1,h2:2/db?bogus=1");
    assert!(
        e.contains("postgres://u:***@h1:1,h2:2/db?bogus=1") && e.contains("bogus"),
        "{e}"
    );
    for e in [
        error_of("postgres://u:secretpw@h/db?sslmode=verify"),
        error_of("postgres://u:secretpw@h1:1,h2:2/db?bogus=1"),
    ] {
        assert!(!e.contains("secretpw"), "{e}");
    }
}

#[test]
fn a_certificate_file_that_is_not_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ca.pem");
    std::fs::write(&file, "not a certificate\n").unwrap();
    let e = error_of(&format!(
        "postgres://u@h/db?sslmode=verify-ca&sslrootcert={}",
        file.display()
    ));
    assert!(
        e.contains(&format!("sslrootcert {}", file.display())) && e.contains("no certificate"),
        "{e}"
    );
}

#[test]
#[cfg(unix)]
fn a_client_key_open_to_others_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    let cert = params.self_signed(&key).unwrap();
    let (cert_file, key_file) = (dir.path().join("c.pem"), dir.path().join("k.pem"));
    std::fs::write(&cert_file, cert.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o604)).unwrap();
    let url = format!(
        "postgres://u@h/db?sslmode=require&sslcert={}&sslkey={}",
        cert_file.display(),
        key_file.display()
    );
    let e = error_of(&url);
    assert!(
        e.contains("group or world access") && e.contains("chmod 600"),
        "{e}"
    );
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    target_with(&url, &no_env).unwrap();
}

#[test]
fn the_password_of_the_url_comes_first_then_the_environment() {
    let env = |name: &str| (name == "PGPASSWORD").then(|| "from-env".to_string());
    let config = |url: &str| target_with(url, &env).unwrap().config;
    assert_eq!(
        config("postgres://u:in-url@h/db").get_password(),
        Some(&b"in-url"[..])
    );
    assert_eq!(
        config("postgres://u@h/db").get_password(),
        Some(&b"from-env"[..])
    );
}

#[test]
fn redaction_hides_every_password() {
    for (url, shown) in [
        (
            "postgres://ann:secret@db:5432/p",
            "postgres://ann:***@db:5432/p",
        ),
        (
            "postgres://u:pw@h1:5432,h2:5433/db?target_session_attrs=read-write",
            "postgres://u:***@h1:5432,h2:5433/db?target_session_attrs=read-write",
        ),
        ("postgres://u:p@ss@h/db", "postgres://u:***@h/db"),
        ("postgres://u:pa?ss/x@h/db", "postgres://u:***@h/db"),
        (
            "postgres://u@h/db?sslrootcert=/a@b&password=secret&x=1",
            "postgres://u@h/db?sslrootcert=/a@b&password=***&x=1",
        ),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        (
            "host=h user=u password=secret dbname=d",
            "host=h user=u password=*** dbname=d",
        ),
        (
            "host=h password='se cret' dbname=d",
            "host=h password=*** dbname=d",
        ),
        ("/var/lib/platform.db", "/var/lib/platform.db"),
    ] {
        assert_eq!(redact(url), shown, "{url}");
    }
}

#[test]
fn channel_binding_hashes_the_certificate_by_its_signature() {
    use sha2::Digest;
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    let der = cert.der().to_vec();
    assert_eq!(
        super::super::tls::server_end_point(&der),
        Some(sha2::Sha256::digest(&der).to_vec()),
        "ECDSA P-256 with SHA-256"
    );
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384).unwrap();
    let cert = rcgen::CertificateParams::new(Vec::<String>::new())
        .unwrap()
        .self_signed(&key)
        .unwrap();
    let der = cert.der().to_vec();
    assert_eq!(
        super::super::tls::server_end_point(&der),
        Some(sha2::Sha384::digest(&der).to_vec())
    );
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap();
    let cert = rcgen::CertificateParams::new(Vec::<String>::new())
        .unwrap()
        .self_signed(&key)
        .unwrap();
    assert_eq!(super::super::tls::server_end_point(cert.der()), None);
    assert_eq!(super::super::tls::server_end_point(b"\x30\x05junk"), None);
}
