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
