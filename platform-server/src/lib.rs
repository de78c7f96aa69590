//! The platform's REST interface: actix-web routes that translate HTTP to [`platform_core`] calls.
//!
//! [`configure`] builds the whole application; production ([`serve`]) and the tests use it
//! alike. Handlers never hold a rule, SQL or a status decision: rules live in the core, statuses
//! in [`error::status`].

pub mod automation;
pub mod chart;
pub mod connection;
pub mod console;
pub mod endpoint;
pub mod error;
pub mod extensions;
pub mod metric_names;
pub mod monitor;
pub mod negotiate;
pub mod openapi;
pub mod ops;
pub mod outbound;
pub mod positions;
pub mod prometheus;
pub mod realtime;
pub mod request;
pub mod routes;
pub mod secrets;
pub mod shutdown;
pub mod state;
pub mod tokens;
pub mod validation;
pub mod wire;

pub use shutdown::SHUTDOWN_GRACE_SECS;
pub use state::{
    AppState, ServerConfig, DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_URL, DEFAULT_SSE_HEARTBEAT, MAX_URL_LIMIT,
};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{web, App};
use platform_core::Platform;
use std::time::Duration;

/// Time limit of a request head (actix-http's client request timeout).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// The whole application with its layers, outermost first: request ids, the access log and
/// metrics ([`ops::observe`]); CORS (when origins are configured); compression of bodies from
/// [`ops::COMPRESS_MIN_BYTES`] (gzip or brotli, as the client accepts); `ETag`s
/// ([`ops::conditional`]); then the routes. Production and the tests serve this.
pub fn app(
    state: AppState,
) -> App<
    impl actix_service::ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    monitor::start(&state.config.build_commit);
    let cors = cors(&state.config.cors_origins);
    App::new()
        .wrap(from_fn(ops::conditional))
        .wrap(from_fn(ops::small_stays_plain))
        .wrap(actix_web::middleware::Compress::default())
        .wrap(from_fn(ops::unmark_identity))
        .wrap(actix_web::middleware::Condition::new(
            cors.is_some(),
            cors.unwrap_or_default(),
        ))
        .wrap(from_fn(ops::observe))
        .configure(configure(state))
}

/// CORS for the configured origins (`*` for any), with the headers clients send and read.
fn cors(origins: &[String]) -> Option<actix_cors::Cors> {
    if origins.is_empty() {
        return None;
    }
    let mut cors = actix_cors::Cors::default()
        .allowed_methods(["GET", "POST", "PUT", "DELETE", "OPTIONS"])
        .allowed_headers([
            actix_web::http::header::AUTHORIZATION,
            actix_web::http::header::CONTENT_TYPE,
            actix_web::http::header::ACCEPT,
            actix_web::http::header::IF_NONE_MATCH,
        ])
        .allowed_header(request::ENVIRONMENT_HEADER)
        .allowed_header(ops::REQUEST_ID_HEADER)
        .allowed_header(positions::POSITION_HEADER)
        .expose_headers([
            negotiate::TOTAL_COUNT_HEADER,
            negotiate::TOTAL_KIND_HEADER,
            negotiate::NEXT_HEADER,
            error::ERROR_HEADER,
            error::ODSL_ERROR_HEADER,
            ops::REQUEST_ID_HEADER,
            positions::POSITION_HEADER,
            "etag",
            "last-modified",
        ])
        .max_age(600);
    for origin in origins {
        cors = if origin == "*" {
            cors.allow_any_origin()
        } else {
            cors.allowed_origin(origin)
        };
    }
    Some(cors)
}

/// Registers the whole application (state, routes, error fallbacks) on an actix `App`.
pub fn configure(state: AppState) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg: &mut web::ServiceConfig| {
        let base = state::normalise_base(&state.config.base_path);
        let max_body = state.config.max_body;
        cfg.app_data(web::Data::new(state))
            .app_data(web::PayloadConfig::new(max_body))
            .service(
                web::scope(&base)
                    .wrap(from_fn(request::check_url_and_query_names))
                    // Objects, data and the other services only `/{service}/...` paths serve
                    // are matched first (the most common requests; see the function).
                    .configure(openapi::register_generic_first(
                        base.clone(),
                        console::SEGMENT,
                    ))
                    // The console's pages (HTML for browsers, not the API the OpenAPI document
                    // describes) first: `/console` is not a `/{service}`.
                    .configure(console::register)
                    .configure(openapi::register_all),
            )
            .default_service(web::to(routes::unknown_path));
    }
}

/// The backlog the listeners ask for: the kernel caps it at its own limit (`net.core.somaxconn`,
/// 4096 on current Linux). Connections a burst brings faster than the accept thread takes them
/// wait there; past it their SYNs are dropped, and the clients try again a second later.
pub const LISTEN_BACKLOG: i32 = 4096;

/// Binds the listening sockets of `addr` (every address a name resolves to that can be bound,
/// as a server would), before anything else is opened: a busy port fails here. Each listens
/// with [`LISTEN_BACKLOG`] (std's `TcpListener::bind` would listen with 128).
pub fn bind(addr: &str) -> std::io::Result<Vec<std::net::TcpListener>> {
    use std::net::ToSocketAddrs as _;
    let mut listeners = Vec::new();
    let mut last = None;
    for a in addr.to_socket_addrs()? {
        match listen(a) {
            Ok(l) => listeners.push(l),
            Err(e) => last = Some(e),
        }
    }
    match (listeners.is_empty(), last) {
        (false, _) => Ok(listeners),
        (true, Some(e)) => Err(e),
        (true, None) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{addr} resolves to no address"),
        )),
    }
}

/// A listening socket on `addr`, as std binds one (the address reusable at once after a
/// restart, on Unix), with a backlog of [`LISTEN_BACKLOG`].
fn listen(addr: std::net::SocketAddr) -> std::io::Result<std::net::TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(socket.into())
}

/// Blocking threads (core calls) each server worker may run at once.
pub const BLOCKING_THREADS_PER_WORKER: usize = 16;

/// Serves HTTP on bound listeners ([`bind`]); it stops gracefully on SIGTERM or ctrl-c:
/// `/ready` answers 503 for the drain time while requests are still served, then the listener
/// closes and in-flight requests finish ([`shutdown`]). Returns the server (to await) and the bound addresses.
///
/// This is what actix-web's `HttpServer` does, with each connection wrapped in a
/// [`connection::Guarded`] stream (long URLs answered with the error envelope, bodies that
/// never end cut off): up to `max_connections` open connections per worker, heads within
/// [`HEAD_TIMEOUT`], idle keep-alive connections closed after 5 s.
pub fn serve(
    state: AppState,
    listeners: Vec<std::net::TcpListener>,
) -> std::io::Result<(actix_web::dev::Server, Vec<std::net::SocketAddr>)> {
    use actix_service::{fn_service, map_config, IntoServiceFactory as _, ServiceFactoryExt as _};
    let config = state.config.clone();
    if config.max_url > MAX_URL_LIMIT || config.max_url == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "the URL limit must be from 1 to {MAX_URL_LIMIT} bytes, not {}",
                config.max_url
            ),
        ));
    }
    let limits = connection::Limits {
        max_url: config.max_url,
        body_limit: config.body_timeout.saturating_mul(2),
    };
    let mut builder = actix_server::Server::build()
        .workers(config.worker_count())
        // Core calls run on blocking threads; the store serves one writer and a few readers
        // at a time, so more threads than this only wait, each holding its own stack and
        // allocator arena.
        .worker_max_blocking_threads(BLOCKING_THREADS_PER_WORKER)
        .max_concurrent_connections(config.max_connections)
        .shutdown_timeout(SHUTDOWN_GRACE_SECS)
        // SIGTERM and ctrl-c stop the server after its drain ([`shutdown`]).
        .shutdown_signal(shutdown::signal_then_drain(
            state.drain.clone(),
            config.drain,
        ));
    let shutdown = builder.graceful_shutdown_signal();
    {
        // Event streams never finish by themselves: they end as the stop begins.
        let (hub, signal) = (state.hub.clone(), builder.graceful_shutdown_signal());
        actix_rt::spawn(async move {
            signal.notified().await;
            hub.close();
        });
    }
    let mut addrs = Vec::new();
    for listener in listeners {
        let addr = listener.local_addr()?;
        addrs.push(addr);
        let (state, shutdown) = (state.clone(), shutdown.clone());
        builder = builder.listen(format!("platform-{addr}"), listener, move || {
            // The factory runs on each worker thread, in its runtime.
            if let Some(hook) = state.config.worker_housekeeping {
                housekeeping_on_this_worker(hook);
            }
            let app = app(state.clone())
                .into_factory()
                .map_err(|e| e.error_response());
            let shutdown = shutdown.clone();
            let http = actix_http::HttpService::build()
                .keep_alive(Duration::from_secs(5))
                .client_request_timeout(HEAD_TIMEOUT)
                .client_disconnect_timeout(Duration::from_secs(1))
                .local_addr(addr)
                .graceful_shutdown_signal(move || {
                    let signal = shutdown.clone();
                    async move { signal.notified().await }
                })
                .finish(map_config(app, |_| actix_web::dev::AppConfig::default()));
            fn_service(move |io: actix_rt::net::TcpStream| {
                let peer = io.peer_addr().ok();
                let _ = io.set_nodelay(true);
                std::future::ready(Ok::<_, actix_http::error::DispatchError>((
                    connection::Guarded::new(io, limits),
                    actix_http::Protocol::Http1,
                    peer,
                )))
            })
            .and_then(http)
        })?;
    }
    Ok((builder.run(), addrs))
}

/// Runs `hook` every second on the calling worker thread, once however many listeners it
/// serves.
fn housekeeping_on_this_worker(hook: fn()) {
    thread_local!(static STARTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    if STARTED.with(|s| s.replace(true)) {
        return;
    }
    actix_rt::spawn(async move {
        loop {
            actix_rt::time::sleep(Duration::from_secs(1)).await;
            hook();
        }
    });
}

/// The background workers: one runs queued validation jobs, one delivers events to
/// automations; both until stopped.
#[derive(Debug)]
pub struct Worker {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    events: Option<std::thread::JoinHandle<()>>,
    heartbeat: Option<std::thread::JoinHandle<()>>,
    health: std::sync::Arc<state::WorkerHealth>,
}

/// How often a worker tells the database it is alive (well within
/// `platform_core::api::limits::WORKER_TIMEOUT_SECS`).
const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(5);

impl Worker {
    /// Queues again the jobs and deliveries a stopped server left running, then polls for
    /// queued jobs and for events to deliver (over the network, see [`outbound`]).
    pub fn start(platform: Platform) -> Worker {
        let platform = outbound::networked(platform);
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let health = std::sync::Arc::new(state::WorkerHealth::default());
        let events = {
            let (flag, platform) = (stop.clone(), platform.clone());
            let alive = state::Alive::new(health.clone(), state::WorkerHealth::events);
            std::thread::Builder::new()
                .name("platform-events".into())
                .spawn(move || {
                    let _alive = alive;
                    match platform.deliveries().requeue_interrupted() {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(
                            deliveries = n,
                            "retrying deliveries interrupted by a stop"
                        ),
                        Err(e) => {
                            tracing::error!(error = %e, "cannot requeue interrupted deliveries")
                        }
                    }
                    while !flag.load(Ordering::Relaxed) {
                        match platform.deliveries().run_next() {
                            Ok(true) => continue,
                            Ok(false) => std::thread::sleep(std::time::Duration::from_millis(100)),
                            Err(e) => {
                                monitor::worker_failed(&e, true, "event delivery worker");
                                std::thread::sleep(std::time::Duration::from_secs(1));
                            }
                        }
                    }
                })
                .ok()
        };
        // Tells the database this worker is alive, so a job queued elsewhere (the CLI on the
        // same file) can say who runs it; gone on a clean stop.
        let heartbeat = {
            let (flag, platform) = (stop.clone(), platform.clone());
            let id = ops::new_request_id()[..12].to_string();
            let started = platform.now();
            let alive = state::Alive::new(health.clone(), state::WorkerHealth::heartbeat);
            std::thread::Builder::new()
                .name("platform-heartbeat".into())
                .spawn(move || {
                    let _alive = alive;
                    let mut last = None::<std::time::Instant>;
                    while !flag.load(Ordering::Relaxed) {
                        if last.is_none_or(|l| l.elapsed() >= HEARTBEAT) {
                            if let Err(e) = platform.jobs().worker_heartbeat(&id, started) {
                                let what = "cannot record the worker's heartbeat";
                                monitor::worker_failed(&e, false, what);
                            }
                            last = Some(std::time::Instant::now());
                        }
                        std::thread::sleep(std::time::Duration::from_millis(100));
                    }
                    if let Err(e) = platform.jobs().worker_stopped(&id) {
                        tracing::warn!(error = %e, "cannot record the worker's stop");
                    }
                })
                .ok()
        };
        let flag = stop.clone();
        let alive = state::Alive::new(health.clone(), state::WorkerHealth::jobs);
        let thread = std::thread::Builder::new()
            .name("platform-jobs".into())
            .spawn(move || {
                let _alive = alive;
                match platform.jobs().requeue_interrupted() {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(jobs = n, "queued again jobs interrupted by a stop"),
                    Err(e) => tracing::error!(error = %e, "cannot requeue interrupted jobs"),
                }
                while !flag.load(Ordering::Relaxed) {
                    match platform.jobs().run_next() {
                        Ok(true) => continue,
                        Ok(false) => std::thread::sleep(std::time::Duration::from_millis(250)),
                        Err(e) => {
                            monitor::worker_failed(&e, true, "background job worker");
                            std::thread::sleep(std::time::Duration::from_secs(1));
                        }
                    }
                }
            })
            .ok();
        Worker {
            stop,
            thread,
            events,
            heartbeat,
            health,
        }
    }

    /// Whether each worker thread still runs (for `/ready`).
    pub fn health(&self) -> std::sync::Arc<state::WorkerHealth> {
        self.health.clone()
    }

    /// Stops after the job in progress, if any.
    pub fn stop(mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(t) = self.events.take() {
            let _ = t.join();
        }
        if let Some(t) = self.heartbeat.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::TcpStream;
    use std::time::Duration;

    #[test]
    fn a_burst_of_connections_waits_in_the_backlog_rather_than_being_dropped() {
        // Nothing accepts: every connection must wait in the listener's queue. With std's
        // backlog of 128 the 130th client's SYN is dropped and its connect times out.
        let listeners = super::bind("127.0.0.1:0").unwrap();
        let addr = listeners[0].local_addr().unwrap();
        let clients: Vec<TcpStream> = (0..400)
            .map(|i| {
                TcpStream::connect_timeout(&addr, Duration::from_millis(500))
                    .unwrap_or_else(|e| panic!("client {i} was not queued: {e}"))
            })
            .collect();
        assert_eq!(clients.len(), 400);
        // They are all there to be taken, in order.
        let (first, _) = listeners[0].accept().unwrap();
        assert_eq!(first.peer_addr().unwrap(), clients[0].local_addr().unwrap());
    }
}
