//! The message bus of the processes serving one database: `LISTEN/NOTIFY` on a channel of the
//! schema. Realtime messages published on any node reach the live subscribers of every node
//! ([`PgBus::realtime`]).
//!
//! Nothing else a process keeps needs to hear from the others: the one cache of the core (the
//! compiled check sets of validation) is keyed by the whole text of the checks and libraries,
//! so a configuration changed on another node is a different key, never a stale hit.

use super::Shared;
use crate::error::Result;
use crate::realtime::{Channel, Realtime};
use serde_json::{json, Value};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// The largest payload PostgreSQL's NOTIFY takes is 8,000 bytes; a longer message stays on the
/// node that published it.
const NOTIFY_MAX: usize = 7_900;

/// The bus of one database (schema).
#[derive(Clone)]
pub struct PgBus {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for PgBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgBus")
            .field("channel", &self.channel())
            .finish()
    }
}

impl PgBus {
    pub(crate) fn new(shared: Arc<Shared>) -> PgBus {
        PgBus { shared }
    }

    /// The channel name (`platform_<schema>`).
    pub fn channel(&self) -> String {
        format!("platform_{}", self.shared.schema)
    }

    /// Sends a message to every listener of the database, this process's included.
    pub fn notify(&self, payload: &str) -> Result<()> {
        let mut conn = self.shared.pool.get()?;
        conn.execute("SELECT pg_notify($1, $2)", &[&self.channel(), &payload])?;
        Ok(())
    }

    /// Calls `deliver` with every message sent on the bus (from a thread of its own with its own
    /// connection, reconnecting after a loss) while `alive` answers true.
    pub fn listen(
        &self,
        alive: impl Fn() -> bool + Send + 'static,
        deliver: impl Fn(&str) + Send + 'static,
    ) -> Result<()> {
        let weak: Weak<Shared> = Arc::downgrade(&self.shared);
        let channel = self.channel();
        // The first connection listens before this returns: a listener that cannot start says
        // so, and no message sent after it is missed.
        let mut first = self.shared.pool.connect_listener()?;
        first.listen(&channel)?;
        std::thread::Builder::new()
            .name("pg-listen".into())
            .spawn(move || {
                let mut conn = Some(first);
                let mut listening = true;
                let mut backoff = Duration::from_millis(100);
                loop {
                    if !alive() {
                        return;
                    }
                    let Some(shared) = weak.upgrade() else { return };
                    let c = match conn.take() {
                        Some(c) => c,
                        None => match shared.pool.connect_listener() {
                            Ok(c) => c,
                            Err(e) => {
                                drop(shared);
                                if crate::store::database_lost() || backoff < Duration::from_secs(1) {
                                    // The database's loss was logged once (or the lost connection
                                    // just now, and the first tries follow at once).
                                    tracing::debug!(error = %e, "realtime listener: cannot reconnect");
                                } else {
                                    tracing::warn!(error = %e, "realtime listener: cannot reconnect");
                                }
                                std::thread::sleep(backoff);
                                backoff = (backoff * 2).min(Duration::from_secs(5));
                                continue;
                            }
                        },
                    };
                    drop(shared);
                    backoff = Duration::from_millis(100);
                    let mut c = c;
                    if !std::mem::take(&mut listening) {
                        if let Err(e) = c.listen(&channel) {
                            tracing::warn!(error = %e, "realtime listener: LISTEN failed");
                            continue;
                        }
                    }
                    // Serve notifications until the connection fails or the listener ends.
                    loop {
                        if !alive() || weak.strong_count() == 0 {
                            return;
                        }
                        match c.next_notification(Duration::from_millis(500)) {
                            Ok(Some(text)) => deliver(&text),
                            Ok(None) => {}
                            Err(e) => {
                                tracing::warn!(error = %e, "realtime listener: connection lost");
                                break;
                            }
                        }
                    }
                }
            })
            .map_err(|e| crate::Error::caused("starting the realtime listener", e))?;
        Ok(())
    }

    /// A realtime sink reaching the subscribers of every node: a message goes out through
    /// NOTIFY, and this node's listener hands every message of the bus to `local`. When the
    /// database cannot take the message (or it is too long for NOTIFY) it reaches `local` only.
    pub fn realtime(&self, local: Arc<dyn Realtime>) -> Result<Arc<dyn Realtime>> {
        let weak_local: Weak<dyn Realtime> = Arc::downgrade(&local);
        let for_alive = weak_local.clone();
        self.listen(
            move || for_alive.strong_count() > 0,
            move |text| {
                let Some(local) = weak_local.upgrade() else {
                    return;
                };
                match decode(text) {
                    Some((channel, payload)) => local.publish(&channel, &payload),
                    None => tracing::warn!(text, "realtime listener: a message it cannot read"),
                }
            },
        )?;
        Ok(Arc::new(Fanned {
            bus: self.clone(),
            local,
        }))
    }
}

/// A realtime sink that publishes through the bus.
struct Fanned {
    bus: PgBus,
    local: Arc<dyn Realtime>,
}

impl Realtime for Fanned {
    fn publish(&self, channel: &Channel, payload: &Value) {
        let text = json!({
            "tenant": channel.tenant, "env": channel.env, "service": channel.service,
            "topic": channel.topic, "payload": payload,
        })
        .to_string();
        if text.len() > NOTIFY_MAX {
            tracing::warn!(
                bytes = text.len(),
                "a realtime message too long for NOTIFY reaches this node's subscribers only"
            );
            self.local.publish(channel, payload);
            return;
        }
        if let Err(e) = self.bus.notify(&text) {
            tracing::warn!(error = %e, "realtime message not sent to the other nodes");
            self.local.publish(channel, payload);
        }
    }
}

fn decode(text: &str) -> Option<(Channel, Value)> {
    let v: Value = serde_json::from_str(text).ok()?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Some((
        Channel {
            tenant: s("tenant")?,
            env: s("env")?,
            service: s("service")?,
            topic: s("topic")?,
        },
        v.get("payload")?.clone(),
    ))
}
