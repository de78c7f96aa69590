//! Where a command acts: a database file, through the core's api handles, or a running server,
//! through its REST interface (`--url`, `--token`).
//!
//! A command builds its request once, as a value of a type that implements [`Call`]: the one
//! place that says what the request is on each side (the core call, and the HTTP method, path,
//! query and body). [`Target::send`] sends it to either and returns the [`Answer`], which the
//! command prints with one printing code, so its output is the same through `--db` and `--url`.

use clap::Args;
use platform_core::api::Principal;
use platform_core::{Error, ErrorCode, Platform, Result};
use serde_json::Value;
use std::path::PathBuf;

use crate::remote::Remote;

/// The flags of a command that acts on a database file or on a server.
#[derive(Args, Clone)]
pub struct TargetArgs {
    /// The database (a file or a PostgreSQL URL), used when no --url is given.
    #[arg(long, env = "PLATFORM_DB", default_value = "platform.db")]
    db: PathBuf,
    /// With a PostgreSQL --db: the file of the key that seals secrets, made by `platform init`;
    /// every server and command of one database uses that file. [default: platform.key]
    #[arg(long, env = "PLATFORM_KEY_FILE")]
    key_file: Option<PathBuf>,
    #[command(flatten)]
    pg: crate::pg::PgArgs,
    #[command(flatten)]
    server: ServerArgs,
    /// Tenant, on a database file (through a server the token's: refused with --url).
    #[arg(long, default_value = "default", conflicts_with = "url")]
    tenant: String,
    /// User recorded as the writer, on a database file (through a server the token's: refused
    /// with --url).
    #[arg(long, default_value = "cli", conflicts_with = "url")]
    user: String,
    /// Environment.
    #[arg(
        long = "env",
        env = "PLATFORM_ENVIRONMENT",
        default_value = "production"
    )]
    environment: String,
}

/// `--url` and `--token`: a server to act through instead of a database file.
#[derive(Args, Clone)]
pub struct ServerArgs {
    /// A server's base URL, e.g. http://127.0.0.1:8080: act through its REST interface instead
    /// of on --db.
    #[arg(long, env = "PLATFORM_URL")]
    url: Option<String>,
    /// The token for --url.
    #[arg(long, env = "PLATFORM_TOKEN", requires = "url")]
    token: Option<String>,
}

impl ServerArgs {
    /// The server, when --url names one.
    fn remote(&self, environment: &str) -> Option<Remote> {
        self.url
            .as_deref()
            .map(|url| Remote::new(url, self.token.clone(), environment))
    }
}

impl TargetArgs {
    /// Opens the target: the server of --url, else the database file as the local principal
    /// (`--tenant`, `--user`) in `--env`.
    pub fn open(&self) -> Result<Target> {
        if let Some(remote) = self.server.remote(&self.environment) {
            return Ok(Target::Server(remote));
        }
        let platform = crate::local::open_existing(&self.db, self.key_file.as_deref(), &self.pg)?;
        let who = platform
            .tenancy()
            .local_principal(&self.tenant, &self.user)?;
        let who = platform.tenancy().in_environment(&who, &self.environment)?;
        Ok(Target::File(File {
            platform,
            who: Some(who),
        }))
    }
}

/// Opens the server of `server`, else the database of `db` with no principal (for the calls
/// that act on the whole file, such as listing tokens).
pub fn open_plain(db: &crate::local::DbArg, server: &ServerArgs) -> Result<Target> {
    match server.remote("production") {
        Some(remote) => Ok(Target::Server(remote)),
        None => Ok(Target::File(File {
            platform: db.open()?,
            who: None,
        })),
    }
}

/// A database file opened by the command.
pub struct File {
    platform: Platform,
    who: Option<Principal>,
}

impl File {
    /// The platform on the file.
    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    /// The principal the command acts as.
    pub fn who(&self) -> Result<&Principal> {
        self.who.as_ref().ok_or_else(|| {
            Error::new(
                ErrorCode::Internal,
                "this command acts on the whole file, as no user",
            )
        })
    }
}

/// Where a command's requests go.
pub enum Target {
    /// A database file, through the core.
    File(File),
    /// A server, through its REST interface.
    Server(Remote),
}

/// What a request answered: its JSON, and for a list its total before paging (and whether
/// that total is an estimate).
pub struct Answer {
    /// The answer.
    pub body: Value,
    /// The total of a list.
    pub total: Option<(u64, bool)>,
}

impl Answer {
    /// An answer that is not a paged list.
    pub fn of(body: Value) -> Answer {
        Answer { body, total: None }
    }

    /// A typed answer of the core, written as the server writes it (serde, in the order and
    /// form of its type): the CLI's one adapter from the core's types to JSON.
    pub fn typed<T: serde::Serialize>(answer: &T) -> Result<Answer> {
        platform_server::wire::to_wire(answer).map(Answer::of)
    }

    /// A page of a list and its total.
    pub fn page(items: Vec<Value>, total: u64, estimated: bool) -> Answer {
        Answer {
            body: Value::Array(items),
            total: Some((total, estimated)),
        }
    }
}

/// A request as HTTP: method, path under the base URL, query and JSON body.
pub struct Http {
    /// GET, POST, PUT or DELETE.
    pub method: &'static str,
    /// The path (its segments encoded).
    pub path: String,
    /// The query parameters.
    pub query: Vec<(String, String)>,
    /// The JSON body, if any.
    pub body: Option<Value>,
}

impl Http {
    /// A GET of `path` with `query`.
    pub fn get(path: String, query: Vec<(String, String)>) -> Http {
        Http {
            method: "GET",
            path,
            query,
            body: None,
        }
    }

    /// A POST of `body` to `path` with `query`.
    pub fn post(path: String, query: Vec<(String, String)>, body: Value) -> Http {
        Http {
            method: "POST",
            path,
            query,
            body: Some(body),
        }
    }
}

/// One request of a command, the same whichever target it goes to.
pub trait Call {
    /// The request made through the core on a database file.
    fn local(self, file: &File) -> Result<Answer>;
    /// The same request over HTTP.
    fn http(self) -> Http;
}

impl Target {
    /// Sends a request to the file or the server.
    pub fn send(&self, call: impl Call) -> Result<Answer> {
        match self {
            Target::File(file) => call.local(file),
            Target::Server(remote) => {
                let http = call.http();
                let (body, total) =
                    remote.call(http.method, &http.path, &http.query, http.body.as_ref())?;
                Ok(Answer { body, total })
            }
        }
    }
}

/// Key=value arguments (`_limit=10 _sort=-name`) as pairs; one without `=` is an error that
/// names it.
pub fn pairs(args: &[String]) -> Result<Vec<(String, String)>> {
    args.iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| Error::invalid_parameter(format!("\"{kv}\" is not key=value")))
        })
        .collect()
}

/// Prints the total of a list to standard error.
pub fn print_total(total: Option<(u64, bool)>) {
    match total.unwrap_or((0, false)) {
        (n, true) => eprintln!("about {n} in all (an estimate; _count=exact counts them)"),
        (n, false) => eprintln!("{n} in all"),
    }
}
