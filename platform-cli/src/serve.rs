//! `platform serve`: the REST server on a database file, with an access log and a clean stop;
//! `platform init`: a new database file and its first admin token.

use clap::Args;
use platform_core::Platform;
use platform_server::{AppState, ServerConfig, DEFAULT_MAX_BODY};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ServeArgs {
    /// The database file (created if absent; a new one prints its first admin token once).
    #[arg(long, env = "PLATFORM_DB", default_value = "platform.db")]
    db: PathBuf,
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, env = "PLATFORM_ADDR", default_value = "127.0.0.1:8080")]
    addr: String,
    /// A prefix for every route, e.g. /api.
    #[arg(long, env = "PLATFORM_BASE_PATH", default_value = "")]
    base_path: String,
    /// Largest accepted request body, in bytes.
    #[arg(long, env = "PLATFORM_MAX_BODY", default_value_t = DEFAULT_MAX_BODY)]
    max_body: usize,
    /// On a fresh database, also write the first admin token to this file (mode 0600).
    #[arg(long)]
    print_token_file: Option<PathBuf>,
    /// SMTP server HOST:PORT for email automations; without it emails go to the mail outbox
    /// (GET /automation/v1/mail, `platform automation mail`).
    #[arg(long, env = "PLATFORM_SMTP")]
    smtp: Option<String>,
    /// Sender address of email automations.
    #[arg(long, env = "PLATFORM_MAIL_FROM", default_value = "platform@localhost")]
    mail_from: String,
    /// Hosts webhook automations may call, comma-separated: host names, IP addresses and
    /// networks (10.0.0.0/8). Without it, any host. With it, a URL's host must be listed (a
    /// name, or an address that is listed or inside a listed network), and each address the
    /// host resolves to must be global, listed, or loopback for the listed name localhost: a
    /// name resolving to a loopback, private, link-local, unique-local, unspecified, multicast
    /// or broadcast address is refused.
    #[arg(long, env = "PLATFORM_WEBHOOK_ALLOW", value_delimiter = ',')]
    webhook_allow: Option<Vec<String>>,
}

#[derive(Args)]
pub struct InitArgs {
    /// The database file to create.
    #[arg(long, env = "PLATFORM_DB", default_value = "platform.db")]
    db: PathBuf,
    /// Also write the admin token to this file (mode 0600).
    #[arg(long)]
    print_token_file: Option<PathBuf>,
}

/// Creates a database (or completes one a program made without an admin) and prints the first
/// admin token on standard output, once; on a database that has its admin, changes nothing.
pub fn init(args: InitArgs) -> platform_core::Result<()> {
    let existed = args.db.exists();
    let platform = Platform::open(&args.db)?;
    let Some(token) = platform.bootstrap()? else {
        platform.close()?;
        return Err(platform_core::Error::new(
            platform_core::ErrorCode::Conflict,
            format!(
                "{} already has its admin (its token was shown once, when it was made): \
                 make another with `platform token create --db {} --tenant default --user admin \
                 --role platform`",
                args.db.display(),
                args.db.display()
            ),
        ));
    };
    if let Some(file) = &args.print_token_file {
        write_token_file(file, &token)?;
    }
    platform.close()?;
    eprintln!(
        "{} {}: tenant \"default\", user \"admin\" (role platform); its token, shown once:",
        if existed { "initialised" } else { "created" },
        args.db.display()
    );
    println!("{token}");
    Ok(())
}

fn write_token_file(file: &Path, token: &str) -> platform_core::Result<()> {
    write_secret_file(file, token).map_err(|e| {
        platform_core::Error::invalid_parameter(format!("cannot write {}: {e}", file.display()))
    })
}

pub fn run(args: ServeArgs) -> platform_core::Result<()> {
    // The address first: a busy port fails before the database is created, changed or any
    // token is printed.
    let listeners = platform_server::bind(&args.addr).map_err(|e| {
        platform_core::Error::invalid_parameter(format!("cannot listen on {}: {e}", args.addr))
    })?;
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PLATFORM_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let webhook_allow = args
        .webhook_allow
        .as_ref()
        .map(platform_core::events::webhook::WebhookAllow::parse)
        .transpose()?;
    let platform =
        Platform::open(&args.db)?.with_delivery(platform_core::events::deliver::DeliverySettings {
            smtp: args.smtp.clone(),
            mail_from: args.mail_from.clone(),
            webhook_allow,
            ..Default::default()
        });
    if let Some(token) = platform.bootstrap()? {
        eprintln!(
            "fresh database {}: created tenant \"default\" and user \"admin\" (role platform).\n\
             admin token (shown once, keep it safe): {token}",
            args.db.display()
        );
        if let Some(file) = &args.print_token_file {
            write_token_file(file, &token)?;
        }
    }
    let state = AppState::new(
        platform.clone(),
        ServerConfig {
            max_body: args.max_body,
            base_path: args.base_path,
        },
    );
    let worker = platform_server::Worker::start(platform.clone());
    let outcome = actix_rt::System::new().block_on(async move {
        let (server, addrs) = platform_server::serve(state, listeners)?;
        for addr in &addrs {
            eprintln!("listening on http://{addr}");
        }
        tracing::info!(db = %args.db.display(), "platform serving");
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
