//! The network client of automations: webhook POSTs (ureq, with a timeout and no redirects)
//! and emails over plain SMTP (lettre). The core decides what to send; this only sends it.

use platform_core::api::interface::{host_text, WebhookAllow};
use platform_core::api::{automations::Mail, automations::Outbound};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use url::{Host, Url};

/// How long the check of a webhook's host at its save waits for the resolver.
const RESOLVE_AT_SAVE: Duration = Duration::from_secs(2);

/// How a host name becomes addresses: `"host:port"` to socket addresses.
pub type Resolve = dyn Fn(&str) -> std::io::Result<Vec<SocketAddr>> + Send + Sync;

/// Sends over the network. Host names are resolved by the system's resolver, or by the one
/// given to [`Network::with_resolver`].
#[derive(Clone)]
pub struct Network {
    resolve: Arc<Resolve>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Network")
    }
}

impl Default for Network {
    fn default() -> Self {
        Network::with_resolver(|netloc: &str| {
            std::net::ToSocketAddrs::to_socket_addrs(netloc).map(Iterator::collect)
        })
    }
}

impl Network {
    /// A client resolving host names with `resolve` (`"host:port"` to addresses).
    pub fn with_resolver(
        resolve: impl Fn(&str) -> std::io::Result<Vec<SocketAddr>> + Send + Sync + 'static,
    ) -> Network {
        Network {
            resolve: Arc::new(resolve),
        }
    }
}

impl Outbound for Network {
    fn post(
        &self,
        url: &Url,
        allow: &WebhookAllow,
        headers: &[(String, String)],
        body: &[u8],
        timeout: Duration,
    ) -> Result<u16, String> {
        // The allow-list is applied to every address the host resolves to, before the client
        // connects: a name that resolves to a refused address is refused.
        let refused = Arc::new(Mutex::new(None::<String>));
        let resolver = {
            let (resolve, allow, refused) = (self.resolve.clone(), allow.clone(), refused.clone());
            let host = url.host().map(|h| h.to_owned());
            move |netloc: &str| -> std::io::Result<Vec<SocketAddr>> {
                let addrs = resolve(netloc)?;
                if let Some(host) = &host {
                    let host = match host {
                        Host::Domain(d) => Host::Domain(d.as_str()),
                        Host::Ipv4(ip) => Host::Ipv4(*ip),
                        Host::Ipv6(ip) => Host::Ipv6(*ip),
                    };
                    for a in &addrs {
                        if let Err(why) = allow.check_address(&host, a.ip()) {
                            *refused.lock().unwrap_or_else(|e| e.into_inner()) = Some(why.clone());
                            return Err(std::io::Error::new(
                                std::io::ErrorKind::PermissionDenied,
                                why,
                            ));
                        }
                    }
                    if addrs.is_empty() {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::NotFound,
                            format!("host {} resolves to no address", host_text(&host)),
                        ));
                    }
                }
                Ok(addrs)
            }
        };
        let agent = ureq::AgentBuilder::new()
            .timeout(timeout)
            .redirects(0)
            .resolver(resolver)
            .build();
        let mut req = agent.request_url("POST", url);
        for (k, v) in headers {
            req = req.set(k, v);
        }
        match req.send_bytes(body) {
            Ok(resp) => Ok(resp.status()),
            Err(ureq::Error::Status(code, _)) => Ok(code),
            Err(e) => Err(refused
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .unwrap_or_else(|| e.to_string())),
        }
    }

    fn resolve(&self, host: &str, port: u16) -> Result<Vec<std::net::IpAddr>, String> {
        let netloc = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        // A save waits for the resolver at most this long; past it the name is checked when
        // the client connects.
        let (tx, rx) = std::sync::mpsc::channel();
        let resolve = self.resolve.clone();
        std::thread::spawn(move || {
            let _ = tx.send(resolve(&netloc));
        });
        match rx.recv_timeout(RESOLVE_AT_SAVE) {
            Ok(Ok(addrs)) => Ok(addrs.iter().map(SocketAddr::ip).collect()),
            Ok(Err(e)) => Err(format!("host {host} does not resolve: {e}")),
            Err(_) => Err(format!(
                "host {host} did not resolve within {} s",
                RESOLVE_AT_SAVE.as_secs()
            )),
        }
    }

    fn send_mail(&self, server: &str, mail: &Mail, timeout: Duration) -> Result<(), String> {
        use lettre::message::header::ContentType;
        use lettre::message::{Attachment, MultiPart, SinglePart};
        use lettre::{Message, SmtpTransport, Transport};
        let (host, port) = match server.rsplit_once(':') {
            Some((h, p)) => (
                h,
                p.parse::<u16>()
                    .map_err(|e| format!("bad SMTP port \"{p}\": {e}"))?,
            ),
            None => (server, 25),
        };
        let mut builder = Message::builder()
            .from(
                mail.from
                    .parse()
                    .map_err(|e| format!("sender {}: {e}", mail.from))?,
            )
            .subject(mail.subject.clone());
        for a in &mail.to {
            builder = builder.to(a.parse().map_err(|e| format!("recipient {a}: {e}"))?);
        }
        let ct = ContentType::parse(&format!("{}; charset=utf-8", mail.content_type))
            .unwrap_or(ContentType::TEXT_PLAIN);
        let part = SinglePart::builder().header(ct).body(mail.body.clone());
        let message = match &mail.attachment {
            None => builder.singlepart(part),
            Some((name, content)) => {
                builder.multipart(MultiPart::mixed().singlepart(part).singlepart(
                    Attachment::new(name.clone()).body(
                        content.clone(),
                        ContentType::parse("application/json").unwrap_or(ContentType::TEXT_PLAIN),
                    ),
                ))
            }
        }
        .map_err(|e| e.to_string())?;
        SmtpTransport::builder_dangerous(host)
            .port(port)
            .timeout(Some(timeout))
            .build()
            .send(&message)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

/// The platform sending webhook calls and emails over the network (unless it has a client already).
pub fn networked(platform: platform_core::Platform) -> platform_core::Platform {
    if platform.has_outbound() {
        // An embedder's own client (a resolver of its own, say) is kept.
        return platform;
    }
    platform.with_outbound(Arc::new(Network::default()))
}
