//! A stop in two steps. On SIGTERM (or ctrl-c) the server drains first: `/ready` answers 503
//! saying so while every request is still served, for the drain time (`--drain`), so that a
//! load balancer takes the server out before it goes; then the listener closes and the
//! requests in flight finish (within [`SHUTDOWN_GRACE_SECS`]). A second signal during
//! the drain cuts it short.

use actix_web::http::header;
use actix_web::HttpResponse;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Default drain time: 5 s.
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(5);
/// How long a stopping server waits for requests in flight (event streams end at once).
pub const SHUTDOWN_GRACE_SECS: u64 = 4;

/// Whether the server drains (it stops soon).
#[derive(Debug, Default)]
pub struct Drain(AtomicBool);

impl Drain {
    /// Whether the drain began.
    pub fn draining(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Begins the drain.
    pub fn begin(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// `/ready`'s answer while the server drains: 503, `"status": "draining"`.
pub(crate) fn draining_answer(drain: &Drain) -> Option<HttpResponse> {
    drain.draining().then(|| {
        HttpResponse::ServiceUnavailable()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(json!({
                "status": "draining",
                "reason": "the server is stopping: it serves requests until its listener closes",
            }))
    })
}

/// Which stop signal came.
async fn stop_signal() -> &'static str {
    #[cfg(unix)]
    {
        use actix_rt::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => "SIGTERM",
                    _ = actix_rt::signal::ctrl_c() => "SIGINT",
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; ctrl-c stops the server");
                let _ = actix_rt::signal::ctrl_c().await;
                "SIGINT"
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = actix_rt::signal::ctrl_c().await;
        "ctrl-c"
    }
}

/// Resolves when the listener should close: after a stop signal and the drain time (or a
/// second signal), during which `drain` says the server drains.
pub(crate) async fn signal_then_drain(drain: std::sync::Arc<Drain>, time: Duration) {
    let signal = stop_signal().await;
    drain.begin();
    if !time.is_zero() {
        tracing::info!(
            signal,
            drain_s = time.as_secs_f64(),
            "stopping: /ready answers 503 (draining) while requests are still served; the \
             listener closes in {:.1} s",
            time.as_secs_f64()
        );
        tokio::select! {
            () = actix_rt::time::sleep(time) => {}
            again = stop_signal() => tracing::info!(signal = again, "a second stop signal: the drain ends now"),
        }
    }
    tracing::info!(
        signal,
        "closing the listener; the requests in flight finish within {} s",
        SHUTDOWN_GRACE_SECS
    );
}
