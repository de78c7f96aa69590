//! `platform serve`: the REST server on a database file, with an access log and a clean stop;
//! `platform init`: a new database file and its first admin token.

use clap::Args;
use platform_core::Platform;
use platform_server::{
    AppState, ServerConfig, DEFAULT_MAX_BODY, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_URL,
};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ServeArgs {
    /// The database: a file (created if absent) or a PostgreSQL URL
    /// postgres://user@host:port/database; a new one prints its first admin token once. TLS and
    /// the password as libpq takes them: ?sslmode=verify-full&sslrootcert=ca.pem, PGPASSWORD,
    /// PGPASSFILE or ~/.pgpass (docs/operations.md, "TLS and passwords").
    #[arg(long, env = "PLATFORM_DB", default_value = "platform.db")]
    db: PathBuf,
    /// With a PostgreSQL --db: the file of the key that seals secrets, made by `platform init`;
    /// every server and command of one database uses that file. [default: platform.key]
    #[arg(long, env = "PLATFORM_KEY_FILE")]
    key_file: Option<PathBuf>,
    /// Refuse a database that is not initialised (a file that does not exist, a PostgreSQL
    /// database without the platform's tables or without its admin), naming it, instead of
    /// making a new one: for services and cluster nodes, whose database `platform init` made.
    #[arg(long, env = "PLATFORM_NO_CREATE", value_parser = clap::builder::BoolishValueParser::new())]
    no_create: bool,
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, env = "PLATFORM_ADDR", default_value = "127.0.0.1:8080")]
    addr: String,
    /// A prefix for every route, e.g. /api.
    #[arg(long, env = "PLATFORM_BASE_PATH", default_value = "")]
    base_path: String,
    /// Largest accepted request body, in bytes.
    #[arg(long, env = "PLATFORM_MAX_BODY", default_value_t = DEFAULT_MAX_BODY)]
    max_body: usize,
    /// Seconds a request body may take to arrive (answered 408 past it). Requests are
    /// authenticated from their headers before their body is read.
    #[arg(long, env = "PLATFORM_BODY_TIMEOUT", default_value_t = 30.0)]
    body_timeout: f64,
    /// Most open connections per worker thread (one worker per CPU); more wait to be accepted.
    #[arg(long, env = "PLATFORM_MAX_CONNECTIONS", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// Longest URL (path and query), in bytes, up to 65000 (answered 414 past it); send longer
    /// queries as a form body on GET.
    #[arg(long, env = "PLATFORM_MAX_URL", default_value_t = DEFAULT_MAX_URL)]
    max_url: usize,
    /// On a fresh database, also write the first admin token to this file (mode 0600).
    #[arg(long, env = "PLATFORM_PRINT_TOKEN_FILE")]
    print_token_file: Option<PathBuf>,
    /// Who may read GET /metrics: open (anyone who reaches the server), off, or the least role
    /// a caller's token needs (reader, writer, admin, platform).
    #[arg(long, env = "PLATFORM_METRICS", default_value = "open")]
    metrics: platform_server::state::MetricsAccess,
    /// Origins browsers may call the API from (CORS), comma-separated, e.g.
    /// https://console.example.com; `*` for any. None by default.
    // The help text above is clap's, shown as written: its URL is an example, not a link.
    #[allow(rustdoc::bare_urls)]
    #[arg(long, env = "PLATFORM_CORS_ORIGIN", value_delimiter = ',')]
    cors_origin: Vec<String>,
    /// Log lines as text (default) or as JSON lines (one object a line, with the request id).
    /// Which lines: PLATFORM_LOG (default info; e.g. warn, or info,platform::access=warn).
    #[arg(long, env = "PLATFORM_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Seconds between the heartbeat comments of an open event stream.
    #[arg(long, env = "PLATFORM_SSE_HEARTBEAT", default_value_t = 15.0)]
    sse_heartbeat: f64,
    /// With a PostgreSQL --db: seconds a server's claim of a background job or an event
    /// delivery lasts unless the server renews it; the claims of a killed server are taken
    /// over by the others this long after it stopped.
    #[arg(long, env = "PLATFORM_CLAIM_LEASE", default_value_t = 30.0)]
    claim_lease: f64,
    /// With a PostgreSQL --db: a streaming replica of it (postgres://...) that serves reads
    /// (GET requests), in turn with the others; repeat for more (PLATFORM_READ_REPLICAS:
    /// comma-separated; a URL of several hosts keeps its commas). Writes, claims and
    /// heartbeats go to --db. A write answers its commit position (x-platform-lsn); a GET that
    /// sends it back, or by the same token within 5 s, reads from a replica only once it has
    /// replayed that position, else from --db. A replica that does not answer or accepts
    /// writes is skipped (logged, and shown by /ready) until it serves.
    #[arg(long = "read-replica", env = "PLATFORM_READ_REPLICAS")]
    read_replica: Vec<String>,
    /// With read replicas: seconds a replica may lag behind the primary and still serve
    /// reads (one further behind, or that does not answer, is skipped until it catches up).
    #[arg(long, env = "PLATFORM_REPLICA_MAX_LAG", default_value_t = 5.0)]
    replica_max_lag: f64,
    #[command(flatten)]
    pg: crate::pg::PgArgs,
    /// Seconds a stopping server drains: on SIGTERM (or ctrl-c) /ready answers 503 while
    /// requests are still served, then the listener closes and requests in flight finish.
    #[arg(long, env = "PLATFORM_DRAIN", default_value_t = 5.0)]
    drain: f64,
    /// How automations reach the outside world.
    #[command(flatten)]
    delivery: DeliveryArgs,
}

/// The form of log lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line.
    Json,
}

/// How deliveries of automations reach the network (`serve`, `automation deliver`).
#[derive(Args)]
pub struct DeliveryArgs {
    /// SMTP server HOST:PORT for email automations; without it emails go to the mail outbox
    /// (GET /automation/v1/mail, `platform automation mail`).
    #[arg(long, env = "PLATFORM_SMTP")]
    smtp: Option<String>,
    /// Sender address of email automations.
    #[arg(long, env = "PLATFORM_MAIL_FROM", default_value = "platform@localhost")]
    mail_from: String,
    #[command(flatten)]
    webhook_allow: WebhookAllowArg,
}

/// Where webhooks may go (`serve`, `automation deliver`, `automation create`).
#[derive(Args)]
pub struct WebhookAllowArg {
    /// Non-global hosts webhook automations may call, comma-separated: host names (which may
    /// then resolve to any address), IP addresses and networks (10.0.0.0/8), or any-address
    /// for every host. Without it, webhooks call global addresses only: a URL whose host is,
    /// or resolves to, a loopback, private, link-local, shared, unique-local, unspecified,
    /// multicast, broadcast or reserved address is refused at the save and at the delivery.
    #[arg(long, env = "PLATFORM_WEBHOOK_ALLOW", value_delimiter = ',')]
    webhook_allow: Option<Vec<String>>,
}

impl WebhookAllowArg {
    /// The allow-list (a bad entry is an error naming it).
    pub fn parse(&self) -> platform_core::Result<platform_core::api::interface::WebhookAllow> {
        Ok(self
            .webhook_allow
            .as_ref()
            .map(platform_core::api::interface::WebhookAllow::parse)
            .transpose()?
            .unwrap_or_default())
    }
}

impl DeliveryArgs {
    /// The delivery settings these options describe (a bad `--webhook-allow` entry is an error).
    pub fn settings(
        &self,
    ) -> platform_core::Result<platform_core::api::automations::DeliverySettings> {
        let webhook_allow = self.webhook_allow.parse()?;
        Ok(platform_core::api::automations::DeliverySettings {
            smtp: self.smtp.clone(),
            mail_from: self.mail_from.clone(),
            webhook_allow,
            ..Default::default()
        })
    }
}

#[derive(Args)]
pub struct InitArgs {
    /// The database to create: a file, or a PostgreSQL URL postgres://user@host:port/database
    /// (its tables are made; TLS: ?sslmode=verify-full&sslrootcert=ca.pem; the password from
    /// PGPASSWORD, PGPASSFILE or ~/.pgpass).
    #[arg(long, env = "PLATFORM_DB", default_value = "platform.db")]
    db: PathBuf,
    /// With a PostgreSQL --db: the file of the key that seals secrets, made here (mode 0600)
    /// when absent; copy it to every server and command of the database. [default: platform.key]
    #[arg(long, env = "PLATFORM_KEY_FILE")]
    key_file: Option<PathBuf>,
    /// Also write the admin token to this file (mode 0600).
    #[arg(long)]
    print_token_file: Option<PathBuf>,
    #[command(flatten)]
    pg: crate::pg::PgArgs,
}

/// Creates a database (or completes one a program made without an admin) and prints the first
/// admin token on standard output, once; on a database that has its admin, changes nothing.
pub fn init(args: InitArgs) -> platform_core::Result<()> {
    let existed = args.db.exists();
    let platform = open(&args.db, args.key_file.as_deref(), &args.pg)?;
    let Some(token) = platform.tenancy().bootstrap()? else {
        platform.close()?;
        return Err(platform_core::Error::new(
            platform_core::ErrorCode::Conflict,
            format!(
                "{} already has its admin (its token was shown once, when it was made): \
                 make another with `platform token create --db {} --tenant default --user admin \
                 --role platform`",
                shown(&args.db),
                shown(&args.db)
            ),
        ));
    };
    if let Some(file) = &args.print_token_file {
        write_token_file(file, &token)?;
    }
    platform.close()?;
    if platform_core::api::stores::is_url(&args.db.to_string_lossy()) {
        let key_file = args
            .key_file
            .clone()
            .unwrap_or_else(|| PathBuf::from("platform.key"));
        eprintln!(
            "its secret key: {} (fingerprint {}); give this file to every server and command \
             of the database (--key-file), and keep a copy with its backups",
            key_file.display(),
            platform.key_fingerprint().unwrap_or_default()
        );
    }
    eprintln!(
        "{} {}: tenant \"default\", user \"admin\" (role platform); its token, shown once:",
        if existed { "initialised" } else { "created" },
        shown(&args.db)
    );
    println!("{token}");
    Ok(())
}

/// The database as messages name it (a URL without its password).
fn shown(db: &Path) -> String {
    platform_core::api::stores::redact(&db.to_string_lossy())
}

/// Opens (creating) the database file or the PostgreSQL database `db` to initialise it: the
/// only open that makes a PostgreSQL database's key file.
fn open(
    db: &Path,
    key_file: Option<&Path>,
    pg: &crate::pg::PgArgs,
) -> platform_core::Result<Platform> {
    let options = platform_core::api::stores::PgOptions {
        init: true,
        ..pg.apply(Default::default())
    };
    Platform::open_database_with(&db.to_string_lossy(), key_file, true, &options)
}

fn write_token_file(file: &Path, token: &str) -> platform_core::Result<()> {
    write_secret_file(file, token).map_err(|e| {
        platform_core::Error::invalid_parameter(format!("cannot write {}: {e}", file.display()))
    })
}

pub fn run(args: ServeArgs) -> platform_core::Result<()> {
    let config = server_config(&args)?;
    // The address first: a busy port fails before the database is created, changed or any
    // token is printed.
    let listeners = platform_server::bind(&args.addr).map_err(|e| {
        platform_core::Error::invalid_parameter(format!("cannot listen on {}: {e}", args.addr))
    })?;
    init_logging(args.log_format);
    crate::allocator::start_housekeeping();
    let settings = args.delivery.settings()?;
    if !(args.claim_lease >= 1.0 && args.claim_lease <= 3600.0) {
        return Err(platform_core::Error::invalid_parameter(format!(
            "--claim-lease must be from 1 to 3600 seconds, not {}",
            args.claim_lease
        )));
    }
    let lease = std::time::Duration::from_secs_f64(args.claim_lease);
    if !(args.replica_max_lag >= 0.1 && args.replica_max_lag <= 3600.0) {
        return Err(platform_core::Error::invalid_parameter(format!(
            "--replica-max-lag must be from 0.1 to 3600 seconds, not {}",
            args.replica_max_lag
        )));
    }
    args.pg.check_for_serving(&args.db.to_string_lossy())?;
    let options = platform_core::api::stores::PgOptions {
        lease,
        read_replicas: replica_urls(&args.read_replica),
        replica_max_lag: std::time::Duration::from_secs_f64(args.replica_max_lag),
        ..args.pg.apply(Default::default())
    };
    let uninitialised = |why: String| {
        platform_core::Error::not_found(format!(
            "{why}; --no-create refuses a database that is not initialised: initialise it with \
             `platform init --db {}`, or check --db (PLATFORM_DB)",
            shown(&args.db)
        ))
    };
    let platform = Platform::open_database_with(
        &args.db.to_string_lossy(),
        args.key_file.as_deref(),
        !args.no_create,
        &options,
    )
    .map_err(|e| match e.code() {
        platform_core::ErrorCode::NotFound if args.no_create => uninitialised(e.to_string()),
        _ => e,
    })?
    .with_delivery(settings);
    if args.no_create && !platform.tenancy().initialised()? {
        return Err(uninitialised(format!("{} has no admin", shown(&args.db))));
    }
    if let Some(token) = platform.tenancy().bootstrap()? {
        tracing::warn!(
            db = %shown(&args.db),
            "serving a NEW, EMPTY database made now: if this server should serve an existing \
             one, stop it and check --db (PLATFORM_DB); --no-create refuses new databases"
        );
        eprintln!(
            "fresh database {}: created tenant \"default\" and user \"admin\" (role platform).\n\
             admin token (shown once, keep it safe): {token}",
            shown(&args.db)
        );
        if let Some(file) = &args.print_token_file {
            write_token_file(file, &token)?;
        }
    }
    let config = with_file_limit(config);
    let worker = platform_server::Worker::start(platform.clone());
    let state = AppState::new(platform.clone(), config).with_workers(worker.health());
    let outcome = actix_rt::System::new().block_on(async move {
        let (server, addrs) = platform_server::serve(state, listeners)?;
        for addr in &addrs {
            eprintln!("listening on http://{addr}");
        }
        tracing::info!(db = %shown(&args.db), "platform serving");
        server.await
    });
    outcome.map_err(|e| {
        platform_core::Error::invalid_parameter(format!("cannot serve on {}: {e}", args.addr))
    })?;
    worker.stop();
    platform.close()?;
    tracing::info!("stopped; database closed cleanly");
    Ok(())
}

/// The replica URLs of `--read-replica` values: each value holds one URL or several separated
/// by commas, split only where a comma starts a new `postgres://` (or `postgresql://`) URL,
/// so a URL of several hosts (`postgres://a:5432,b:5432/db`) stays whole.
fn replica_urls(values: &[String]) -> Vec<String> {
    let mut urls = Vec::new();
    for value in values {
        let mut current = String::new();
        for piece in value.split(',').filter(|p| !p.trim().is_empty()) {
            let starts_url = ["postgres://", "postgresql://"]
                .iter()
                .any(|p| piece.trim_start().starts_with(p));
            if starts_url {
                if !current.trim().is_empty() {
                    urls.push(current.trim().to_string());
                }
                current.clear();
            } else if !current.is_empty() {
                current.push(',');
            }
            current.push_str(piece);
        }
        if !current.trim().is_empty() {
            urls.push(current.trim().to_string());
        }
    }
    urls
}

/// The server settings of the command line, checked.
fn server_config(args: &ServeArgs) -> platform_core::Result<ServerConfig> {
    let invalid = platform_core::Error::invalid_parameter;
    if !(args.body_timeout > 0.0 && args.body_timeout <= 86_400.0) {
        return Err(invalid(format!(
            "--body-timeout must be a number of seconds above 0 and at most 86400, not {}",
            args.body_timeout
        )));
    }
    if args.max_url == 0 || args.max_url > platform_server::MAX_URL_LIMIT {
        return Err(invalid(format!(
            "--max-url must be from 1 to {} bytes (longer URLs cannot be parsed), not {}",
            platform_server::MAX_URL_LIMIT,
            args.max_url
        )));
    }
    if args.max_connections == 0 {
        return Err(invalid("--max-connections must be at least 1".to_string()));
    }
    if !(args.sse_heartbeat >= 0.1 && args.sse_heartbeat <= 3600.0) {
        return Err(invalid(format!(
            "--sse-heartbeat must be from 0.1 to 3600 seconds, not {}",
            args.sse_heartbeat
        )));
    }
    if !(args.drain >= 0.0 && args.drain <= 3600.0) {
        return Err(invalid(format!(
            "--drain must be from 0 to 3600 seconds, not {}",
            args.drain
        )));
    }
    Ok(ServerConfig {
        max_body: args.max_body,
        base_path: args.base_path.clone(),
        body_timeout: std::time::Duration::from_secs_f64(args.body_timeout),
        max_url: args.max_url,
        max_connections: args.max_connections,
        workers: None,
        metrics: args.metrics,
        cors_origins: args.cors_origin.clone(),
        sse_heartbeat: std::time::Duration::from_secs_f64(args.sse_heartbeat),
        worker_housekeeping: Some(crate::allocator::give_back),
        drain: std::time::Duration::from_secs_f64(args.drain),
        build_commit: env!("PLATFORM_COMMIT").to_string(),
    })
}

/// Logs to standard error, filtered by `PLATFORM_LOG` (default `info`; a level, then
/// `target=level` pairs, comma-separated): text, or JSON lines carrying the fields of the
/// request's span (its id) with each event.
///
/// The filter is tracing-subscriber's `Targets`, not its `EnvFilter`: the latter brings in
/// regex-automata's full DFA builder, which the regex crate then uses for every route pattern
/// actix-web compiles, in each worker, at start.
fn init_logging(format: LogFormat) {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter = log_filter(std::env::var("PLATFORM_LOG").ok().as_deref());
    let registry = tracing_subscriber::registry().with(filter);
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    match format {
        LogFormat::Text => registry
            .with(layer.with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())))
            .init(),
        LogFormat::Json => registry
            .with(layer.json().with_current_span(true).with_span_list(false))
            .init(),
    }
}

/// The log filter `PLATFORM_LOG` asks for: `info` when unset or not a filter.
fn log_filter(asked: Option<&str>) -> tracing_subscriber::filter::Targets {
    asked.and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        tracing_subscriber::filter::Targets::new()
            .with_default(tracing_subscriber::filter::LevelFilter::INFO)
    })
}

/// Files the process keeps for itself besides its connections (the database, its journal,
/// logs, the blocking pool's work).
const RESERVED_FILES: u64 = 256;

/// Raises the soft limit of open files to the hard limit, and lowers the connections per
/// worker when even that limit cannot hold them all with files to spare (logged).
fn with_file_limit(mut config: ServerConfig) -> ServerConfig {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(e) => {
            tracing::warn!(error = %e, "cannot raise the limit of open files");
            match rlimit::getrlimit(rlimit::Resource::NOFILE) {
                Ok((soft, _)) => soft,
                Err(_) => return config,
            }
        }
    };
    let workers = config.worker_count() as u64;
    let room = limit.saturating_sub(RESERVED_FILES) / workers.max(1);
    if (config.max_connections as u64) > room {
        tracing::warn!(
            open_files = limit,
            workers,
            requested = config.max_connections,
            max_connections = room.max(1),
            "too few open files for --max-connections: fewer connections per worker"
        );
        config.max_connections = room.max(1) as usize;
    }
    tracing::info!(
        open_files = limit,
        workers,
        max_connections = config.max_connections,
        "connection limits"
    );
    config
}

fn write_secret_file(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    writeln!(file, "{text}")
}

#[cfg(test)]
mod tests {
    use super::log_filter;
    use tracing::Level;

    /// `PLATFORM_LOG` reads as documented: a level for every target, then `target=level`
    /// pairs; unset or unreadable, `info`.
    #[test]
    fn the_log_filter_reads_a_level_then_targets() {
        let warn = log_filter(Some("warn"));
        assert!(warn.would_enable("platform", &Level::WARN));
        assert!(!warn.would_enable("platform", &Level::INFO));

        let quiet_access = log_filter(Some("info,platform::access=warn"));
        assert!(quiet_access.would_enable("platform", &Level::INFO));
        assert!(!quiet_access.would_enable("platform::access", &Level::INFO));
        assert!(quiet_access.would_enable("platform::access", &Level::WARN));

        for default in [log_filter(None), log_filter(Some("platform=loud"))] {
            assert!(default.would_enable("platform", &Level::INFO));
            assert!(!default.would_enable("platform", &Level::DEBUG));
        }
        assert!(log_filter(Some("debug")).would_enable("actix_server", &Level::DEBUG));
    }
}

#[cfg(test)]
mod replica_url_tests {
    use super::replica_urls;

    /// `--read-replica` values split into URLs at commas that start a new URL only: a URL of
    /// several hosts keeps its commas.
    #[test]
    fn replica_urls_split_where_a_new_url_starts() {
        let v = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let multi = "postgres://u@a:5432,b:5433/db?target_session_attrs=read-only";
        assert_eq!(replica_urls(&v(&[multi])), v(&[multi]));
        assert_eq!(
            replica_urls(&v(&[&format!(
                "{multi}, postgresql://c/db,postgres://d/db"
            )])),
            v(&[multi, "postgresql://c/db", "postgres://d/db"])
        );
        assert_eq!(
            replica_urls(&v(&["postgres://a/db", " ", ",postgres://b/db,"])),
            v(&["postgres://a/db", "postgres://b/db"])
        );
    }
}
