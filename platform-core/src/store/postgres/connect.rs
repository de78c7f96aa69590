//! What a connection to PostgreSQL needs, from the URL an operator gives: tokio-postgres's
//! settings, the TLS connector ([`super::tls`]) that the URL's `sslmode`, `sslrootcert`,
//! `sslcert` and `sslkey` ask for, with libpq's meanings, and the password libpq would use when
//! the URL has none ([`super::pgpass`]).
//!
//! `sslmode`:
//! - `disable`: no TLS;
//! - `prefer` (the default): TLS when the server offers it, else without;
//! - `require`: TLS or no connection; the server's certificate is checked against the
//!   certificate authorities of `sslrootcert` when one is given (or when libpq's default file,
//!   `~/.postgresql/root.crt`, exists), as libpq does, and not otherwise;
//! - `verify-ca`: TLS, and the certificate's chain must lead to an authority of `sslrootcert`;
//! - `verify-full`: that, and the certificate must name the host connected to.
//!
//! `sslrootcert` is a PEM file of certificate authorities, or `system` for the system's
//! (which asks for `verify-full`, as libpq does); `sslcert` and `sslkey` are a client
//! certificate and its private key (PEM), shown when the server asks for one. tokio-postgres
//! parses the rest of the URL; its own parser knows none of these but `sslmode`'s first three
//! values, so they are taken out of the URL before.

use super::pgpass;
use super::tls::{ClientCert, Roots, Tls};
use crate::error::{Error, Result};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The settings of a database's connections and their TLS connector.
#[derive(Clone)]
pub(crate) struct Target {
    pub(crate) config: tokio_postgres::Config,
    pub(crate) tls: Tls,
}

/// How a connection uses TLS (`sslmode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// The values `sslmode` takes.
const MODES: &str = "disable, prefer, require, verify-ca, verify-full";

impl SslMode {
    fn parse(text: &str) -> Result<SslMode> {
        Ok(match text {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => {
                return Err(Error::invalid_parameter(format!(
                    "sslmode \"{other}\" is not one the platform knows: {MODES}"
                )))
            }
        })
    }

    /// Whether the certificate must be checked whatever else is given.
    fn verifies(self) -> bool {
        matches!(self, SslMode::VerifyCa | SslMode::VerifyFull)
    }
}

/// The parameters of a URL taken out before tokio-postgres parses it.
#[derive(Debug, Default, PartialEq)]
struct Taken {
    mode: Option<String>,
    root: Option<String>,
    cert: Option<String>,
    key: Option<String>,
    passfile: Option<String>,
}

/// The settings and the connector for `url` (a `postgres://` URL, or tokio-postgres's
/// `key=value` form, which takes no TLS parameter but `sslmode`'s first three values), with a
/// password from the environment or the pass file when the URL has none. A bad value is an
/// error naming the parameter and the values allowed; a missing or unreadable file is an error
/// naming it. No message holds the password.
pub(crate) fn target(url: &str) -> Result<Target> {
    target_with(url, &|name| std::env::var(name).ok())
}

/// [`target`] with the environment `env` (tests give their own).
pub(crate) fn target_with(url: &str, env: pgpass::Env<'_>) -> Result<Target> {
    let (rest, taken) = take_tls_parameters(url);
    let mut config: tokio_postgres::Config = rest.parse().map_err(|e| {
        Error::invalid_parameter(format!("\"{}\" is not a PostgreSQL URL: {e}", redact(url)))
    })?;
    let mode = match &taken.mode {
        Some(mode) => Some(SslMode::parse(mode)?),
        None => None,
    };
    let system = taken.root.as_deref() == Some("system");
    if system && mode.is_some_and(|m| m != SslMode::VerifyFull) {
        return Err(Error::invalid_parameter(format!(
            "sslrootcert=system asks for sslmode=verify-full (the system's certificate \
             authorities vouch for host names), not sslmode={}",
            taken.mode.as_deref().unwrap_or_default()
        )));
    }
    let mode = mode.unwrap_or(if system {
        SslMode::VerifyFull
    } else {
        SslMode::Prefer
    });
    config.ssl_mode(match mode {
        SslMode::Disable => tokio_postgres::config::SslMode::Disable,
        SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
        _ => tokio_postgres::config::SslMode::Require,
    });
    let tls = if mode == SslMode::Disable {
        Tls::new(None, false, None)?
    } else {
        let roots = roots(mode, taken.root.as_deref(), env)?;
        let client = client_cert(taken.cert.as_deref(), taken.key.as_deref())?;
        Tls::new(roots, mode == SslMode::VerifyFull, client)?
    };
    if config.get_password().is_none() {
        if let Some(password) = pgpass::password(&config, taken.passfile.as_deref(), env)? {
            config.password(password);
        }
    }
    Ok(Target { config, tls })
}

/// `url` without the parameters tokio-postgres does not know, and their values (decoded).
fn take_tls_parameters(url: &str) -> (String, Taken) {
    let mut taken = Taken::default();
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), taken);
    };
    if !super::is_url(url) {
        return (url.to_string(), taken);
    }
    let mut kept = Vec::new();
    for part in query.split('&') {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let slot = match key {
            "sslmode" => &mut taken.mode,
            "sslrootcert" => &mut taken.root,
            "sslcert" => &mut taken.cert,
            "sslkey" => &mut taken.key,
            "passfile" => &mut taken.passfile,
            _ => {
                kept.push(part);
                continue;
            }
        };
        *slot = Some(percent_decoded(value));
    }
    let rest = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (rest, taken)
}

/// A URL's `%XX` escapes decoded (a malformed one kept as it is).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// libpq's default file of certificate authorities, `~/.postgresql/root.crt`, when it exists.
fn default_root(env: pgpass::Env<'_>) -> Option<String> {
    let home = env("HOME").filter(|h| !h.is_empty())?;
    let file = format!("{}/.postgresql/root.crt", home.trim_end_matches('/'));
    std::path::Path::new(&file).is_file().then_some(file)
}

/// The certificate authorities a server's certificate is checked against under `mode`: those
/// of `sslrootcert` (or libpq's default file), none where the mode does not ask for a check
/// and none is given.
fn roots(mode: SslMode, root: Option<&str>, env: pgpass::Env<'_>) -> Result<Option<Roots>> {
    let (file, source) = match root {
        Some("system") => system_bundle(env)?,
        Some(file) => (file.to_string(), format!("sslrootcert {file}")),
        None => match default_root(env) {
            Some(file) => {
                let source = format!("{file} (libpq's default sslrootcert)");
                (file, source)
            }
            None if mode.verifies() => {
                return Err(Error::invalid_parameter(format!(
                    "sslmode={} needs sslrootcert: a PEM file of the certificate authorities \
                     that signed the server's certificate, or `system` for the system's \
                     (~/.postgresql/root.crt, libpq's default, does not exist)",
                    if mode == SslMode::VerifyFull {
                        "verify-full"
                    } else {
                        "verify-ca"
                    }
                )))
            }
            None => return Ok(None),
        },
    };
    let bytes = read(&file, "sslrootcert")?;
    let mut store = rustls::RootCertStore::empty();
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&bytes)
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| {
            Error::invalid_parameter(format!("sslrootcert {file} is not PEM certificates: {e}"))
        })?;
    let (added, _) = store.add_parsable_certificates(certs);
    if added == 0 {
        return Err(Error::invalid_parameter(format!(
            "sslrootcert {file} holds no certificate authority (PEM \"BEGIN CERTIFICATE\")"
        )));
    }
    Ok(Some(Roots { store, source }))
}

/// The system's bundle of certificate authorities (`SSL_CERT_FILE`, else the file where
/// Debian, Red Hat, SUSE or Alpine keep it), with how messages name it.
fn system_bundle(env: pgpass::Env<'_>) -> Result<(String, String)> {
    const BUNDLES: [&str; 4] = [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
        "/etc/ssl/ca-bundle.pem",
        "/etc/ssl/cert.pem",
    ];
    let file = match env("SSL_CERT_FILE").filter(|f| !f.is_empty()) {
        Some(file) => file,
        None => BUNDLES
            .iter()
            .find(|f| std::path::Path::new(f).is_file())
            .map(|f| f.to_string())
            .ok_or_else(|| {
                Error::invalid_parameter(format!(
                    "sslrootcert=system: no bundle of the system's certificate authorities \
                     ({}); install ca-certificates or set SSL_CERT_FILE",
                    BUNDLES.join(", ")
                ))
            })?,
    };
    let source = format!("the system's certificate authorities ({file})");
    Ok((file, source))
}

/// A client certificate from `sslcert` and `sslkey` (both or neither).
fn client_cert(cert: Option<&str>, key: Option<&str>) -> Result<Option<ClientCert>> {
    let (cert, key) = match (cert, key) {
        (None, None) => return Ok(None),
        (Some(cert), Some(key)) => (cert, key),
        (Some(_), None) | (None, Some(_)) => {
            return Err(Error::invalid_parameter(
                "a client certificate needs both sslcert (its PEM certificate) and sslkey \
                 (its PEM private key)",
            ))
        }
    };
    let bytes = read(cert, "sslcert")?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&bytes)
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| {
            Error::invalid_parameter(format!("sslcert {cert} is not PEM certificates: {e}"))
        })?;
    if chain.is_empty() {
        return Err(Error::invalid_parameter(format!(
            "sslcert {cert} holds no certificate (PEM \"BEGIN CERTIFICATE\")"
        )));
    }
    check_key_permissions(key)?;
    let bytes = read(key, "sslkey")?;
    let key_der = PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| {
        Error::invalid_parameter(format!("sslkey {key} holds no PEM private key: {e}"))
    })?;
    Ok(Some(ClientCert {
        chain,
        key: key_der,
        key_file: key.to_string(),
    }))
}

/// A private key that others may read is refused, as libpq refuses it (0600 or less, or 0640
/// or less when root owns it).
fn check_key_permissions(file: &str) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(file)
            .map_err(|e| Error::invalid_parameter(format!("cannot read sslkey {file}: {e}")))?;
        let mode = meta.mode() & 0o777;
        let allowed = if meta.uid() == 0 { 0o640 } else { 0o600 };
        if mode & !allowed != 0 {
            return Err(Error::invalid_parameter(format!(
                "sslkey {file} has group or world access ({mode:o}): it must be u=rw (0600) \
                 or less (chmod 600 {file})"
            )));
        }
    }
    Ok(())
}

/// A file named by a parameter, or an error naming both.
fn read(file: &str, parameter: &str) -> Result<Vec<u8>> {
    std::fs::read(file)
        .map_err(|e| Error::invalid_parameter(format!("cannot read {parameter} {file}: {e}")))
}

/// A connection URL with its password hidden, for messages: the password of the user part
/// (up to the last `@` before the hosts; a multi-host URL whole) and the value of a `password`
/// parameter. The text of something that is not a URL is kept.
pub(crate) fn redact(url: &str) -> String {
    let mut out = url.to_string();
    if let Some(scheme) = url.find("://") {
        let rest = &url[scheme + 3..];
        if let Some(first_at) = rest.find('@') {
            // The hosts start after the last `@` that comes before the path or the query
            // (a password may hold `@`, `/` or `?` that were not escaped).
            let end = rest[first_at..]
                .find(['/', '?'])
                .map_or(rest.len(), |i| first_at + i);
            let at = rest[..end].rfind('@').unwrap_or(first_at);
            let creds = &rest[..at];
            if let Some((user, _)) = creds.split_once(':') {
                out = format!("{}{user}:***{}", &url[..scheme + 3], &rest[at..]);
            }
        }
    }
    redact_password_parameters(&out)
}

/// The values of `password=` parameters (of a URL's query or a `key=value` text) hidden.
fn redact_password_parameters(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("password=") {
        let starts_parameter =
            i == 0 || matches!(rest.as_bytes()[i - 1], b'?' | b'&' | b' ' | b'\t' | b'\n');
        let value_at = i + "password=".len();
        out.push_str(&rest[..value_at]);
        rest = &rest[value_at..];
        if starts_parameter {
            let quoted = rest.starts_with('\'');
            let end = if quoted {
                rest[1..].find('\'').map_or(rest.len(), |j| j + 2)
            } else {
                rest.find(['&', ' ', '\t', '\n']).unwrap_or(rest.len())
            };
            if end > 0 {
                out.push_str("***");
            }
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
