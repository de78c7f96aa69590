//! Realtime messages: what the platform tells live subscribers (extension install progress...).
//!
//! The core only publishes; a face that can hold connections (the server's Server-Sent Events)
//! provides the [`Realtime`] sink. Without one, messages go nowhere. A message to a channel that
//! nobody follows is dropped: realtime is not a queue (events that must arrive go through the
//! outbox).

use serde_json::Value;

/// Where a message goes: one tenant's environment, one service, one topic (an extension id...).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Channel {
    /// Tenant.
    pub tenant: String,
    /// Environment.
    pub env: String,
    /// Service name (`extension`).
    pub service: String,
    /// What the messages are about (an extension id).
    pub topic: String,
}

/// Receives published messages.
pub trait Realtime: Send + Sync {
    /// Publishes a message to a channel.
    fn publish(&self, channel: &Channel, payload: &Value);
}

/// What one live subscriber receives: the messages of its own tenant and environment, of one
/// service, about one topic or all of them; and how many before its stream ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    tenant: String,
    env: String,
    service: String,
    topic: Option<String>,
    /// Messages after which the stream ends (`_limit`); `None` for no end.
    pub limit: Option<usize>,
}

impl Subscription {
    /// The subscription of a caller of `tenant` and `env` to the messages of `service` about
    /// `topic` (every topic when `None`), ending after `limit` messages.
    pub fn new(
        tenant: &str,
        env: &str,
        service: &str,
        topic: Option<&str>,
        limit: Option<usize>,
    ) -> Subscription {
        Subscription {
            tenant: tenant.to_string(),
            env: env.to_string(),
            service: service.to_string(),
            topic: topic.map(str::to_string),
            limit,
        }
    }

    /// Whether a message on `channel` reaches this subscriber.
    pub fn wants(&self, channel: &Channel) -> bool {
        channel.tenant == self.tenant
            && channel.env == self.env
            && channel.service == self.service
            && self.topic.as_ref().is_none_or(|t| *t == channel.topic)
    }
}
