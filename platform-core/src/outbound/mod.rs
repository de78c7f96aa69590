//! How deliveries reach the outside world: the settings of the network they use, and the
//! seam through which a face of the platform (the server, the CLI) supplies its client; what
//! they are sent to, checked by the same rules when an automation is saved and when it is
//! delivered: webhook URLs (`webhook`) and mail addresses.

pub mod webhook;

use std::net::IpAddr;
use std::time::Duration;
use webhook::{Url, WebhookAllow};

/// An email as a target sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    /// Sender address.
    pub from: String,
    /// Recipient addresses.
    pub to: Vec<String>,
    /// Subject line.
    pub subject: String,
    /// Body text.
    pub body: String,
    /// `text/html` or `text/plain`.
    pub content_type: String,
    /// An attached file: name and JSON content.
    pub attachment: Option<(String, String)>,
}

/// The network seam: how webhook calls and emails leave the process. The core decides what to
/// send and when; a face of the platform (the server, the CLI) supplies the client
/// ([`Platform::with_outbound`](crate::Platform::with_outbound)). Without one, webhook and SMTP deliveries fail (and are
/// retried), and emails still go to the mail outbox when no SMTP server is set.
pub trait Outbound: Send + Sync {
    /// POSTs `body` with `headers` to `url` (parsed by `webhook::parse_url`); the answer's
    /// status, or why there is none. Redirects are not followed. Each address the URL's host
    /// resolves to must pass `allow`'s [`WebhookAllow::check_address`] before the client
    /// connects to it; the error is then that check's message.
    fn post(
        &self,
        url: &Url,
        allow: &WebhookAllow,
        headers: &[(String, String)],
        body: &[u8],
        timeout: Duration,
    ) -> std::result::Result<u16, String>;
    /// The addresses the host name `host` resolves to, as the client would connect to it.
    fn resolve(&self, host: &str, port: u16) -> std::result::Result<Vec<IpAddr>, String>;
    /// Sends an email through the SMTP server `HOST:PORT`.
    fn send_mail(
        &self,
        server: &str,
        mail: &Mail,
        timeout: Duration,
    ) -> std::result::Result<(), String>;
}

/// How deliveries reach the outside world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliverySettings {
    /// SMTP server `HOST:PORT` (plain SMTP); without one, emails go to the mail outbox.
    pub smtp: Option<String>,
    /// The sender address of emails.
    pub mail_from: String,
    /// The non-global hosts and networks webhooks may call (the default: none); see
    /// `webhook`.
    pub webhook_allow: WebhookAllow,
    /// Timeout of one webhook call or SMTP session.
    pub timeout: Duration,
    /// Delay before the first retry; doubled for each further one.
    pub retry_base: Duration,
    /// Attempts before a delivery is given up.
    pub max_attempts: u32,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        DeliverySettings {
            smtp: None,
            mail_from: "platform@localhost".into(),
            webhook_allow: WebhookAllow::default(),
            timeout: Duration::from_secs(10),
            retry_base: Duration::from_secs(5),
            max_attempts: 5,
        }
    }
}

/// The recipients of a `to` property (separated by comma, semicolon or whitespace).
pub fn split_addresses(text: &str) -> Vec<String> {
    text.split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `text` looks like an email address: `local@domain`, the domain with a dot or
/// `localhost`, no spaces or angle brackets.
pub fn is_address(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    let clean = |s: &str| {
        !s.is_empty()
            && !s
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "<>()[],;:\\\"@".contains(c))
    };
    clean(local)
        && clean(domain)
        && (domain.contains('.') || domain == "localhost")
        && !domain.starts_with('.')
        && !domain.ends_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_split_on_commas_semicolons_and_spaces() {
        assert_eq!(
            split_addresses("a@x.org, b@y.org;c@z.org  d@w.org"),
            ["a@x.org", "b@y.org", "c@z.org", "d@w.org"]
        );
    }

    #[test]
    fn addresses_are_checked() {
        assert!(is_address("ops@example.com"));
        assert!(is_address("a.b+c@localhost"));
        for bad in [
            "not an address",
            "x@",
            "@x.org",
            "a@b",
            "a@b@c.org",
            "<a@b.org>",
        ] {
            assert!(!is_address(bad), "{bad}");
        }
    }
}
