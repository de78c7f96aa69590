//! `platform object get|put|list|delete`: on a database file through the core, or on a server
//! through its REST interface (`--url` and `--token`). Both print the same JSON.

use clap::{Args, Subcommand};
use platform_core::auth::Principal;
use platform_core::documents::{DeleteTarget, ListRequest, SaveOptions};
use platform_core::ids::{Source, VersionRef};
use platform_core::query::Params;
use platform_core::store::Collection;
use platform_core::{Error, Platform, Result};
use serde_json::Value;
use std::path::PathBuf;

use crate::output::{self, Format};
use crate::remote::{segment, Remote};

/// Where object commands act.
#[derive(Args, Clone)]
pub struct Target {
    /// The database (a file or a PostgreSQL URL), used when no --url is given.
    #[arg(long, env = "PLATFORM_DB", default_value = "platform.db")]
    db: PathBuf,
    /// With a PostgreSQL --db: the file of the key that seals secrets (created with mode 0600
    /// if absent); every server of one database uses the same file. [default: platform.key]
    #[arg(long, env = "PLATFORM_KEY_FILE")]
    key_file: Option<PathBuf>,
    /// A server's base URL, e.g. http://127.0.0.1:8080.
    #[arg(long, env = "PLATFORM_URL")]
    url: Option<String>,
    /// The token for --url.
    #[arg(long, env = "PLATFORM_TOKEN", requires = "url")]
    token: Option<String>,
    /// Tenant, on a database file.
    #[arg(long, default_value = "default")]
    tenant: String,
    /// User recorded as the writer, on a database file.
    #[arg(long, default_value = "cli")]
    user: String,
    /// Environment.
    #[arg(
        long = "env",
        env = "PLATFORM_ENVIRONMENT",
        default_value = "production"
    )]
    environment: String,
}

#[derive(Subcommand)]
pub enum ObjectCommand {
    /// Print one object, or one version of it.
    Get {
        #[command(flatten)]
        target: Target,
        /// Object id ('#' ids are public).
        key: String,
        /// A version number or tag.
        #[arg(long)]
        version: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// Save the JSON object or array in FILE (or standard input).
    Put {
        #[command(flatten)]
        target: Target,
        /// A JSON file; '-' or nothing reads standard input.
        file: Option<PathBuf>,
        /// Replace instead of merge.
        #[arg(long)]
        replace: bool,
        /// The reason stored with the new version.
        #[arg(long)]
        reason: Option<String>,
    },
    /// List objects of a source; the total goes to standard error.
    List {
        #[command(flatten)]
        target: Target,
        /// public, private or all.
        #[arg(long, default_value = "private")]
        source: String,
        /// Query parameters as key=value (e.g. _limit=10 _sort=-name _type=%23Fund).
        params: Vec<String>,
        /// Output format (table and csv: every field the objects hold).
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// Delete the latest version (rollback), one version, or all.
    Delete {
        #[command(flatten)]
        target: Target,
        /// Object id.
        key: String,
        /// Delete this version (number or tag) instead of the latest.
        #[arg(long, conflicts_with = "all")]
        version: Option<String>,
        /// Delete every version.
        #[arg(long)]
        all: bool,
        /// The reason recorded.
        #[arg(long)]
        reason: Option<String>,
    },
}

pub fn run(cmd: ObjectCommand) -> Result<()> {
    let mut format = Format::Json;
    let out = match cmd {
        ObjectCommand::Get {
            target,
            key,
            version,
            format: f,
        } => {
            format = f;
            match Backend::of(&target)? {
                Backend::Local(p, who) => {
                    let version = version
                        .as_deref()
                        .map(str::parse::<VersionRef>)
                        .transpose()?;
                    p.objects().get(
                        &who,
                        Collection::Object,
                        Source::of_id(&key),
                        &key,
                        version.as_ref(),
                        None,
                    )?
                }
                Backend::Remote(r) => {
                    let mut path = format!("object/v1/{}/{}", Source::of_id(&key), segment(&key));
                    if let Some(v) = version {
                        path = format!("{path}/{}", segment(&v));
                    }
                    r.call("GET", &path, &[], None)?.0
                }
            }
        }
        ObjectCommand::Put {
            target,
            file,
            replace,
            reason,
        } => {
            let body = crate::read_json(file.as_deref())?;
            match Backend::of(&target)? {
                Backend::Local(p, who) => {
                    let opts = SaveOptions {
                        replace,
                        reason,
                        source: None,
                        ..SaveOptions::default()
                    };
                    p.objects().save(&who, Collection::Object, body, &opts)?
                }
                Backend::Remote(r) => {
                    let mut query = Vec::new();
                    if replace {
                        query.push(("_replace".to_string(), "true".to_string()));
                    }
                    if let Some(reason) = reason {
                        query.push(("_reason".to_string(), reason));
                    }
                    r.call("POST", "object/v1", &query, Some(&body))?.0
                }
            }
        }
        ObjectCommand::List {
            target,
            source,
            params,
            format: f,
        } => {
            format = f;
            let pairs = params
                .iter()
                .map(|kv| {
                    kv.split_once('=')
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .ok_or_else(|| {
                            Error::invalid_parameter(format!("\"{kv}\" is not key=value"))
                        })
                })
                .collect::<Result<Vec<_>>>()?;
            let source: Source = source.parse()?;
            let (items, total) = match Backend::of(&target)? {
                Backend::Local(p, who) => {
                    let page = p.objects().list(
                        &who,
                        Collection::Object,
                        source,
                        &ListRequest::from_params(&Params::new(pairs))?,
                    )?;
                    (Value::Array(page.items), (page.total, page.estimated))
                }
                Backend::Remote(r) => {
                    let (items, total) =
                        r.call_counted("GET", &format!("object/v1/{source}"), &pairs, None)?;
                    (items, total.unwrap_or((0, false)))
                }
            };
            match total {
                (n, true) => eprintln!("about {n} in all (an estimate; _count=exact counts them)"),
                (n, false) => eprintln!("{n} in all"),
            }
            items
        }
        ObjectCommand::Delete {
            target,
            key,
            version,
            all,
            reason,
        } => match Backend::of(&target)? {
            Backend::Local(p, who) => {
                let what = match (all, version) {
                    (true, _) => DeleteTarget::All,
                    (false, Some(v)) => DeleteTarget::Version(v.parse()?),
                    (false, None) => DeleteTarget::Latest,
                };
                p.objects().delete(
                    &who,
                    Collection::Object,
                    Source::of_id(&key),
                    &key,
                    &what,
                    reason.as_deref(),
                )?
            }
            Backend::Remote(r) => {
                let mut path = format!("object/v1/{}/{}", Source::of_id(&key), segment(&key));
                if all {
                    path.push_str("/*");
                } else if let Some(v) = version {
                    path = format!("{path}/{}", segment(&v));
                }
                let query: Vec<(String, String)> = reason
                    .into_iter()
                    .map(|r| ("_reason".to_string(), r))
                    .collect();
                r.call("DELETE", &path, &query, None)?.0
            }
        },
    };
    // Table and CSV: one row per object (a list), or the one object; every field it holds.
    let rows = || match &out {
        Value::Array(items) => output::Table::of_all(items),
        one => output::Table::of_all(std::slice::from_ref(one)),
    };
    output::print(format, &out, rows, "")
}

enum Backend {
    Local(Platform, Principal),
    Remote(Remote),
}

impl Backend {
    fn of(t: &Target) -> Result<Backend> {
        match &t.url {
            Some(url) => Ok(Backend::Remote(Remote::new(
                url,
                t.token.clone(),
                &t.environment,
            ))),
            None => {
                let platform = crate::open_existing(&t.db, t.key_file.as_deref())?;
                let who = platform.tenancy().local_principal(&t.tenant, &t.user)?;
                let who = platform.tenancy().in_environment(&who, &t.environment)?;
                Ok(Backend::Local(platform, who))
            }
        }
    }
}
