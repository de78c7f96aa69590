//! The network client of automations: webhook POSTs (ureq, with a timeout and no redirects)
//! and emails over plain SMTP (lettre). The core decides what to send; this only sends it.

use platform_core::events::deliver::{Mail, Outbound};
use std::time::Duration;

/// Sends over the network.
#[derive(Debug, Default, Clone, Copy)]
pub struct Network;

impl Outbound for Network {
    fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        timeout: Duration,
    ) -> Result<u16, String> {
        let agent = ureq::AgentBuilder::new()
            .timeout(timeout)
            .redirects(0)
            .build();
        let mut req = agent.post(url);
        for (k, v) in headers {
            req = req.set(k, v);
        }
        match req.send_bytes(body) {
            Ok(resp) => Ok(resp.status()),
            Err(ureq::Error::Status(code, _)) => Ok(code),
            Err(e) => Err(e.to_string()),
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

/// The platform sending webhook calls and emails over the network.
pub fn networked(platform: platform_core::Platform) -> platform_core::Platform {
    platform.with_outbound(std::sync::Arc::new(Network))
}
