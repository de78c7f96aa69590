//! What every handler shares: the settings of the HTTP face ([`ServerConfig`], with their
//! defaults) and the state over the platform ([`AppState`]: the realtime hub, the workers'
//! health, the recent writes, the drain).

use crate::outbound::networked;
use crate::positions::Recent;
use crate::realtime::Hub;
use crate::shutdown::{Drain, DEFAULT_DRAIN};
use platform_core::api::Role;
use platform_core::Platform;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Default largest request body: 64 MiB.
pub const DEFAULT_MAX_BODY: usize = 64 * 1024 * 1024;
/// Default time limit of a request body: 30 s.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Default longest URL (request target): 16 KiB.
pub const DEFAULT_MAX_URL: usize = 16 * 1024;
/// Longest URL limit there can be: actix-http cannot parse a request target of 64 KiB or more.
pub const MAX_URL_LIMIT: usize = 65_000;
/// Default most open connections per worker thread.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// Settings of the HTTP face.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Largest accepted request body, in bytes.
    pub max_body: usize,
    /// A prefix for every route, e.g. `/api` (empty for none).
    pub base_path: String,
    /// Time limit of a request body, from when the handler starts reading it (408 past it).
    pub body_timeout: Duration,
    /// Longest request target (path and query), in bytes (414 past it); at most
    /// [`MAX_URL_LIMIT`].
    pub max_url: usize,
    /// Most open connections per worker thread; more wait to be accepted.
    pub max_connections: usize,
    /// Worker threads (`None`: one per CPU).
    pub workers: Option<usize>,
    /// Who may read `/metrics`.
    pub metrics: MetricsAccess,
    /// Origins browsers may call from (CORS); none by default.
    pub cors_origins: Vec<String>,
    /// How often an open event stream sends a comment line, so proxies keep it open.
    pub sse_heartbeat: Duration,
    /// Called every second on each worker thread while the server runs (the command line
    /// has each thread's allocator give back what it keeps); `None`: nothing.
    pub worker_housekeeping: Option<fn()>,
    /// How long a stopping server drains (`/ready` answers 503 while requests are still
    /// served) before its listener closes ([`crate::shutdown`]).
    pub drain: Duration,
    /// The commit the binary was built from (`platform_build_info`), `unknown` when not known.
    pub build_commit: String,
}

/// Default interval of an event stream's heartbeat: 15 s.
pub const DEFAULT_SSE_HEARTBEAT: Duration = Duration::from_secs(15);

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_body: DEFAULT_MAX_BODY,
            base_path: String::new(),
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_url: DEFAULT_MAX_URL,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            workers: None,
            metrics: MetricsAccess::Open,
            cors_origins: Vec::new(),
            sse_heartbeat: DEFAULT_SSE_HEARTBEAT,
            worker_housekeeping: None,
            drain: DEFAULT_DRAIN,
            build_commit: "unknown".to_string(),
        }
    }
}

impl ServerConfig {
    /// Worker threads the server runs.
    pub fn worker_count(&self) -> usize {
        self.workers.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
    }
}

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The engine (publishing realtime messages to `hub`).
    pub platform: Platform,
    /// The settings.
    pub config: ServerConfig,
    /// Realtime messages for Server-Sent Events streams.
    pub hub: Arc<Hub>,
    /// This server's background workers, when it runs them (`/ready` reports them).
    pub workers: Option<Arc<WorkerHealth>>,
    /// The recent writes of tokens, so that their reads see them (with read replicas).
    pub positions: Arc<Recent>,
    /// Whether the server drains before it stops (`/ready` then answers 503).
    pub drain: Arc<Drain>,
}

impl AppState {
    /// The state of a server over a platform: a realtime hub is attached to it.
    pub fn new(platform: Platform, config: ServerConfig) -> AppState {
        let hub = Arc::new(Hub::new());
        let positions = Recent::new(!platform.replicas().is_empty());
        AppState {
            platform: networked(platform.with_realtime(hub.clone())),
            config,
            hub,
            workers: None,
            positions: Arc::new(positions),
            drain: Default::default(),
        }
    }

    /// The same state, reporting these workers in `/ready`.
    pub fn with_workers(self, workers: Arc<WorkerHealth>) -> AppState {
        AppState {
            workers: Some(workers),
            ..self
        }
    }
}

/// Who may read `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricsAccess {
    /// Anyone who reaches the server (a scraper on the private network).
    Open,
    /// Callers with at least this role.
    Role(Role),
    /// Nobody: `/metrics` is a 404.
    Off,
}

impl std::str::FromStr for MetricsAccess {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "open" => Ok(MetricsAccess::Open),
            "off" => Ok(MetricsAccess::Off),
            other => other.parse::<Role>().map(MetricsAccess::Role).map_err(|_| {
                format!("\"{other}\" is not open, off or a role (reader, writer, admin, platform)")
            }),
        }
    }
}

/// Whether each background worker thread of this server still runs (a thread that ended or
/// panicked is down).
#[derive(Debug, Default)]
pub struct WorkerHealth {
    jobs: AtomicBool,
    events: AtomicBool,
    heartbeat: AtomicBool,
}

/// Marks a worker thread up while it lives, and down when it ends, however it ends.
pub(crate) struct Alive(Arc<WorkerHealth>, fn(&WorkerHealth) -> &AtomicBool);

impl Alive {
    pub(crate) fn new(health: Arc<WorkerHealth>, flag: fn(&WorkerHealth) -> &AtomicBool) -> Alive {
        flag(&health).store(true, Ordering::Relaxed);
        Alive(health, flag)
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        (self.1)(&self.0).store(false, Ordering::Relaxed);
    }
}

impl WorkerHealth {
    pub(crate) fn jobs(&self) -> &AtomicBool {
        &self.jobs
    }
    pub(crate) fn events(&self) -> &AtomicBool {
        &self.events
    }
    pub(crate) fn heartbeat(&self) -> &AtomicBool {
        &self.heartbeat
    }

    /// Whether every worker runs, and each one's state as `/ready` reports it.
    pub(crate) fn report(&self) -> (bool, serde_json::Value) {
        let (jobs, events, heartbeat) = (
            self.jobs.load(Ordering::Relaxed),
            self.events.load(Ordering::Relaxed),
            self.heartbeat.load(Ordering::Relaxed),
        );
        (
            jobs && events && heartbeat,
            json!({"jobs": up(jobs), "events": up(events), "heartbeat": up(heartbeat)}),
        )
    }
}

fn up(ok: bool) -> &'static str {
    if ok {
        "up"
    } else {
        "down"
    }
}

/// The base path as routes are mounted under it: `""` or `/api` (one leading slash, none
/// trailing).
pub(crate) fn normalise_base(base: &str) -> String {
    let trimmed = base.trim_matches('/');
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("/{trimmed}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_access_reads_open_off_and_roles() {
        assert_eq!("open".parse(), Ok(MetricsAccess::Open));
        assert_eq!("off".parse(), Ok(MetricsAccess::Off));
        assert_eq!("admin".parse(), Ok(MetricsAccess::Role(Role::Admin)));
        assert!("everyone".parse::<MetricsAccess>().is_err());
    }
}
