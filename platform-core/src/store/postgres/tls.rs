//! TLS to PostgreSQL with rustls: the connector tokio-postgres asks for a stream, made from the
//! settings of a URL ([`super::connect`]), and the check of the server's certificate with
//! libpq's meanings of `sslmode`:
//!
//! - without certificate authorities (`prefer`, `require` without `sslrootcert`): encrypted,
//!   the certificate not checked (the handshake's signatures are: the server holds the key of
//!   the certificate it shows);
//! - with certificate authorities and `verify-ca` (or `prefer`/`require` given `sslrootcert`):
//!   the certificate's chain must lead to one of them; the host name is not checked;
//! - `verify-full`: the chain, and the certificate must name the host connected to.
//!
//! The stream gives PostgreSQL's SCRAM its channel binding (`tls-server-end-point`, RFC 5929)
//! where the server's certificate is signed with a single hash, so that a password exchange
//! cannot be relayed by a machine in the middle even when the certificate is not checked.

use crate::error::{Error, Result};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, OtherError, RootCertStore, SignatureScheme};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect};
use tokio_postgres::Socket;

/// The certificate authorities a server's certificate is checked against, and where they were
/// read from (for messages).
pub(crate) struct Roots {
    pub(crate) store: RootCertStore,
    pub(crate) source: String,
}

/// A client certificate with its chain and private key.
pub(crate) struct ClientCert {
    pub(crate) chain: Vec<CertificateDer<'static>>,
    pub(crate) key: PrivateKeyDer<'static>,
    /// The key's file (for messages).
    pub(crate) key_file: String,
}

/// The TLS connector of a database's connections (cheap to clone).
#[derive(Clone)]
pub(crate) struct Tls(Arc<rustls::ClientConfig>);

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls")
    }
}

impl Tls {
    /// A connector that checks the server's certificate against `roots` (not at all without),
    /// and its host name when `names`; it shows `client` when the server asks for a
    /// certificate.
    pub(crate) fn new(
        roots: Option<Roots>,
        names: bool,
        client: Option<ClientCert>,
    ) -> Result<Tls> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let checked = match roots {
            Some(roots) => {
                let verifier = WebPkiServerVerifier::builder_with_provider(
                    Arc::new(roots.store),
                    provider.clone(),
                )
                .build()
                .map_err(|e| {
                    Error::invalid_parameter(format!(
                        "cannot check server certificates against {}: {e}",
                        roots.source
                    ))
                })?;
                Some((verifier, roots.source))
            }
            None => None,
        };
        let verifier = Verifier {
            checked,
            names,
            provider: provider.clone(),
        };
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::Internal(format!("TLS settings: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier));
        let mut config = match client {
            Some(client) => builder
                .with_client_auth_cert(client.chain, client.key)
                .map_err(|e| {
                    Error::invalid_parameter(format!(
                        "sslcert and sslkey ({}) do not make a client certificate: {e}",
                        client.key_file
                    ))
                })?,
            None => builder.with_no_client_auth(),
        };
        // PostgreSQL's protocol name, as libpq 17 sends it (a server that negotiates TLS
        // directly, `sslnegotiation=direct`, requires it; others ignore it).
        config.alpn_protocols = vec![b"postgresql".to_vec()];
        Ok(Tls(Arc::new(config)))
    }
}

/// Checks a server's certificate as the connector was told (see the module's comment).
#[derive(Debug)]
struct Verifier {
    /// The check of the chain (and of the host name), with where its authorities came from.
    checked: Option<(Arc<WebPkiServerVerifier>, String)>,
    /// Whether the certificate must name the host.
    names: bool,
    provider: Arc<CryptoProvider>,
}

/// Why a certificate was refused, in the operator's terms.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let Some((verifier, source)) = &self.checked else {
            return Ok(ServerCertVerified::assertion());
        };
        let refused = |why: String| {
            rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(
                Refused(why),
            ))))
        };
        match verifier.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Ok(verified) => Ok(verified),
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.names => Ok(ServerCertVerified::assertion()),
            Err(rustls::Error::InvalidCertificate(
                e @ (CertificateError::NotValidForName
                | CertificateError::NotValidForNameContext { .. }),
            )) => Err(refused(format!(
                "the server's certificate is not for the host {} ({e}); sslmode=verify-full \
                 checks the host name, verify-ca does not",
                server_name.to_str()
            ))),
            Err(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer)) => {
                Err(refused(format!(
                    "the server's certificate is not signed by a certificate authority of {source}"
                )))
            }
            Err(rustls::Error::InvalidCertificate(e)) => Err(refused(format!(
                "the server's certificate, checked against {source}: {e}"
            ))),
            Err(e) => Err(e),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

impl MakeTlsConnect<Socket> for Tls {
    type Stream = TlsStream;
    type TlsConnect = Connector;
    type Error = rustls::pki_types::InvalidDnsNameError;

    fn make_tls_connect(&mut self, domain: &str) -> std::result::Result<Connector, Self::Error> {
        Ok(Connector {
            config: self.0.clone(),
            name: ServerName::try_from(domain.to_string())?,
        })
    }
}

/// The connector of one connection (to one host).
pub(crate) struct Connector {
    config: Arc<rustls::ClientConfig>,
    name: ServerName<'static>,
}

type Handshake = Pin<Box<dyn Future<Output = io::Result<TlsStream>> + Send>>;

impl TlsConnect<Socket> for Connector {
    type Stream = TlsStream;
    type Error = io::Error;
    type Future = Handshake;

    fn connect(self, stream: Socket) -> Handshake {
        Box::pin(async move {
            let connector = tokio_rustls::TlsConnector::from(self.config);
            let stream = connector.connect(self.name, stream).await?;
            Ok(TlsStream(stream))
        })
    }
}

/// A connection's encrypted stream.
pub(crate) struct TlsStream(tokio_rustls::client::TlsStream<Socket>);

impl AsyncRead for TlsStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for TlsStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

impl tokio_postgres::tls::TlsStream for TlsStream {
    fn channel_binding(&self) -> ChannelBinding {
        let certificate = self
            .0
            .get_ref()
            .1
            .peer_certificates()
            .and_then(|c| c.first());
        match certificate.and_then(|c| server_end_point(c)) {
            Some(hash) => ChannelBinding::tls_server_end_point(hash),
            None => ChannelBinding::none(),
        }
    }
}

/// The hash of a certificate that `tls-server-end-point` binds (RFC 5929 4.1): by the hash of
/// its signature algorithm, SHA-256 for MD5 and SHA-1; `None` for an algorithm without a
/// single hash (Ed25519, RSA-PSS), which then has no channel binding.
pub(crate) fn server_end_point(der: &[u8]) -> Option<Vec<u8>> {
    use sha2::Digest;
    // Certificate ::= SEQUENCE { tbsCertificate SEQUENCE, signatureAlgorithm SEQUENCE { OID, .. }, .. }
    let (certificate, _) = der_item(der, 0x30)?;
    let (_, rest) = der_item(certificate, 0x30)?;
    let (algorithm, _) = der_item(rest, 0x30)?;
    let (oid, _) = der_item(algorithm, 0x06)?;
    const RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01];
    const ECDSA: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04];
    let hash = match (oid.strip_prefix(RSA), oid.strip_prefix(ECDSA)) {
        // md5, sha1, sha256 with RSA; ecdsa with sha1, sha256
        (Some([0x04 | 0x05 | 0x0b]), _) | (_, Some([0x01] | [0x03, 0x02])) => 256,
        (Some([0x0e]), _) | (_, Some([0x03, 0x01])) => 224,
        (Some([0x0c]), _) | (_, Some([0x03, 0x03])) => 384,
        (Some([0x0d]), _) | (_, Some([0x03, 0x04])) => 512,
        _ => return None,
    };
    Some(match hash {
        224 => sha2::Sha224::digest(der).to_vec(),
        256 => sha2::Sha256::digest(der).to_vec(),
        384 => sha2::Sha384::digest(der).to_vec(),
        _ => sha2::Sha512::digest(der).to_vec(),
    })
}

/// A DER item of `tag` at the start of `input`: its contents and what follows it.
fn der_item(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&first, rest) = input.split_first()?;
    if first != tag {
        return None;
    }
    let (&size, rest) = rest.split_first()?;
    let (len, rest) = if size < 0x80 {
        (usize::from(size), rest)
    } else {
        let n = usize::from(size & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |len, &b| len << 8 | usize::from(b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| rest.split_at(len))
}
