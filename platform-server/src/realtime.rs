//! The realtime hub: the platform publishes extension messages to it, and each open
//! Server-Sent Events stream (`crate::extensions`) reads them from it.

use platform_core::api::{realtime::Channel, realtime::Realtime};
use serde_json::Value;
use tokio::sync::broadcast;

/// The realtime hub: every published message goes to every open stream, which keeps its own.
#[derive(Debug)]
pub struct Hub {
    /// Every published message, to each open stream.
    pub(crate) sender: broadcast::Sender<(Channel, Value)>,
    /// Whether the streams end (the server stops).
    pub(crate) closed: tokio::sync::watch::Sender<bool>,
}

impl Hub {
    /// A hub buffering up to 1,024 messages per slow subscriber.
    pub fn new() -> Hub {
        Hub {
            sender: broadcast::channel(1024).0,
            closed: tokio::sync::watch::channel(false).0,
        }
    }

    /// Ends every open stream (the server is stopping); streams opened later end at once.
    pub fn close(&self) {
        self.closed.send_replace(true);
    }
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new()
    }
}

impl Realtime for Hub {
    fn publish(&self, channel: &Channel, payload: &Value) {
        // No subscriber is not an error: realtime messages are not kept.
        let _ = self.sender.send((channel.clone(), payload.clone()));
    }
}
