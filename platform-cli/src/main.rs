//! `platform`: run the server, manage tokens and environments, and work with objects, data
//! (time series, curves), validation and automations on a database file (through the core) or
//! on a running server (`--url`, through its REST interface): each such command builds one
//! request and sends it to either ([`target`]), so it prints the same through both.

mod allocator;
mod automation;
mod data;
mod input;
mod local;
mod object;
mod output;
mod pg;
mod remote;
mod serve;
mod target;
mod validate;

use clap::{Args, Parser, Subcommand};
use local::DbArg;
use platform_core::api::time::format_instant;
use platform_core::api::Role;
use std::path::PathBuf;

use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "platform",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("PLATFORM_COMMIT"), ")"),
    about = "An embeddable data platform for energy and commodity market data"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create a database file and print its first admin token (once).
    Init(serve::InitArgs),
    /// Run the REST server on a database file (created if absent).
    Serve(serve::ServeArgs),
    /// Create, list or revoke access tokens (list also through a server, by an admin).
    #[command(subcommand)]
    Token(TokenCommand),
    /// Manage environments of a tenant.
    #[command(subcommand)]
    Env(EnvCommand),
    /// Read and write objects, on a database file or a server.
    #[command(subcommand)]
    Object(object::ObjectCommand),
    /// Import time series and curves from CSV or JSON files, read and list data items, on a
    /// database file or a server.
    #[command(subcommand)]
    Data(data::DataCommand),
    /// Validate data on a database file or a server: run and test checks, records and
    /// overrides, statistics, background jobs and validation configurations.
    #[command(subcommand)]
    Validate(validate::ValidateCommand),
    /// Grant (or with --revoke take back) a data-access role or a view feature.
    Grant(GrantArgs),
    /// Automations on a database file or a server: save and list them, their log, the mail
    /// outbox; deliver due events (on a database file).
    #[command(subcommand)]
    Automation(automation::AutomationCommand),
    /// Copy a database file consistently while a server writes to it, with its key file
    /// (OUT.key); restore by serving the copy.
    Backup(BackupArgs),
    /// Apply the version retention policies of types (`_retention`) to the objects already
    /// stored, and report what was removed.
    Prune(PruneArgs),
    /// Print the shell completion script of `platform` (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page of `platform` (roff; e.g. `platform man > platform.1`).
    Man,
    /// Print the OpenAPI 3.1 document of the REST interface (what `GET /openapi.json` answers).
    Openapi {
        /// The base path the server is run with (`serve --base-path`).
        #[arg(long, env = "PLATFORM_BASE_PATH", default_value = "")]
        base_path: String,
    },
}

#[derive(Args)]
struct PruneArgs {
    #[command(flatten)]
    db: DbArg,
    /// Tenant whose objects are pruned (with the public source's).
    #[arg(long, default_value = "default")]
    tenant: String,
    /// Environment of the tenant.
    #[arg(long, default_value = "production")]
    env: String,
}

/// `platform prune`: retention policies applied to what is stored.
fn prune(args: PruneArgs) -> platform_core::Result<()> {
    let platform = args.db.open()?;
    let me = platform
        .tenancy()
        .local_principal(&args.tenant, "platform-prune")?;
    let me = platform.tenancy().in_environment(&me, &args.env)?;
    let pruned = platform.objects().prune_retained(&me)?;
    let versions: usize = pruned.iter().map(|(_, v)| v.len()).sum();
    for (id, removed) in &pruned {
        let list: Vec<String> = removed.iter().map(u32::to_string).collect();
        println!("{id}: removed versions {}", list.join(", "));
    }
    eprintln!(
        "pruned {versions} versions of {} objects ({}, environment {})",
        pruned.len(),
        args.tenant,
        args.env
    );
    platform.close()
}

#[derive(Args)]
struct BackupArgs {
    #[command(flatten)]
    db: DbArg,
    /// The copy to write (a new file; its key goes to OUT.key).
    out: PathBuf,
}

/// Writes to standard output; a reader that stopped reading (`| head`) is not an error.
fn print_bytes(bytes: &[u8]) -> platform_core::Result<()> {
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(bytes) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(platform_core::Error::caused(
            "cannot write to standard output",
            e,
        )),
        _ => Ok(()),
    }
}

/// `platform backup`: the database through the store's consistent copy, then its key file.
fn backup(args: BackupArgs) -> platform_core::Result<()> {
    let out = &args.out;
    let key_of = |p: &std::path::Path| {
        let mut k = p.as_os_str().to_owned();
        k.push(".key");
        PathBuf::from(k)
    };
    let (key, out_key) = (key_of(&args.db.db), key_of(out));
    for taken in [out, &out_key] {
        if taken.exists() {
            return Err(platform_core::Error::invalid_parameter(format!(
                "{} exists: a backup goes to a new file",
                taken.display()
            )));
        }
    }
    let platform = args.db.open()?;
    platform.backup(out)?;
    let copied = std::fs::read(&key).and_then(|bytes| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        std::io::Write::write_all(&mut options.open(&out_key)?, &bytes)
    });
    if let Err(e) = copied {
        let _ = std::fs::remove_file(out);
        let _ = std::fs::remove_file(&out_key);
        return Err(platform_core::Error::caused(
            format!(
                "cannot copy the key file {} to {}",
                key.display(),
                out_key.display()
            ),
            e,
        ));
    }
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "backed up {} to {} ({size} bytes) and its key to {}; restore by serving the copy: \
         platform serve --db {}",
        args.db.db.display(),
        out.display(),
        out_key.display(),
        out.display()
    );
    Ok(())
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["access", "feature"])))]
struct GrantArgs {
    #[command(flatten)]
    db: DbArg,
    /// Tenant (company).
    #[arg(long)]
    tenant: String,
    /// User id (the user must exist: create a token for it first).
    #[arg(long)]
    user: String,
    /// A data-access role (data whose `_access` names it becomes readable).
    #[arg(long)]
    access: Option<String>,
    /// A view feature.
    #[arg(long)]
    feature: Option<String>,
    /// Take the grant back.
    #[arg(long)]
    revoke: bool,
}

fn grant(args: GrantArgs) -> platform_core::Result<()> {
    use platform_core::api::Grant;
    let what = match (args.access, args.feature) {
        (Some(a), _) => Grant::Access(a),
        (None, Some(f)) => Grant::Feature(f),
        (None, None) => {
            return Err(platform_core::Error::invalid_parameter(
                "give --access or --feature",
            ))
        }
    };
    let platform = args.db.open()?;
    let changed = if args.revoke {
        platform
            .tenancy()
            .revoke_grant(&args.tenant, &args.user, &what)?
    } else {
        platform.tenancy().grant(&args.tenant, &args.user, &what)?
    };
    let (kind, name) = what.parts();
    eprintln!(
        "{kind} \"{name}\" {} user \"{}\" of tenant \"{}\"{}",
        if args.revoke {
            "taken from"
        } else {
            "granted to"
        },
        args.user,
        args.tenant,
        if changed { "" } else { " (no change)" }
    );
    Ok(())
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a token for a user (creating the tenant and user as needed) and print it on stdout.
    Create {
        #[command(flatten)]
        db: DbArg,
        /// Tenant (company).
        #[arg(long)]
        tenant: String,
        /// User id.
        #[arg(long)]
        user: String,
        /// Role: reader, writer, admin or platform.
        #[arg(long)]
        role: Role,
        /// A role belongs to the user, not the token: for a user who holds active tokens with
        /// another role, change the role of those tokens too (without it, that is refused).
        #[arg(long)]
        set_role: bool,
    },
    /// List tokens: who each is for, the role each acts with (its user's), when it was made and
    /// whether it was revoked (never the token itself). Through a server (--url) an admin
    /// lists its own tenant's tokens.
    List {
        #[command(flatten)]
        db: DbArg,
        #[command(flatten)]
        server: target::ServerArgs,
        /// Only this tenant's tokens.
        #[arg(long)]
        tenant: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: output::Format,
    },
    /// Revoke one token, or every token of a user.
    Revoke {
        #[command(flatten)]
        db: DbArg,
        /// The token to revoke.
        #[arg(required_unless_present = "user", conflicts_with_all = ["tenant", "user"])]
        token: Option<String>,
        /// With --user: revoke every token of this tenant's user.
        #[arg(long, requires = "user")]
        tenant: Option<String>,
        /// Revoke every token of this user.
        #[arg(long, requires = "tenant")]
        user: Option<String>,
    },
}

#[derive(Subcommand)]
enum EnvCommand {
    /// Create an environment for a tenant.
    Create {
        #[command(flatten)]
        db: DbArg,
        /// Tenant (company).
        #[arg(long)]
        tenant: String,
        /// Environment name.
        name: String,
    },
    /// List a tenant's environments.
    List {
        #[command(flatten)]
        db: DbArg,
        /// Tenant (company).
        #[arg(long)]
        tenant: String,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: output::Format,
    },
}

/// Exit codes: 0 success; 1 the command ran and the data did not pass its gate (`validate
/// run|test|many --fail-on`); 2 an error (nothing was done, or the part that failed is named).
fn main() -> ExitCode {
    allocator::configure();
    let cli = Cli::parse();
    let done = |r: platform_core::Result<()>| r.map(|()| ExitCode::SUCCESS);
    let result = match cli.command {
        Command::Init(args) => done(serve::init(args)),
        Command::Serve(args) => done(serve::run(args)),
        Command::Token(cmd) => done(token(cmd)),
        Command::Grant(args) => done(grant(args)),
        Command::Env(cmd) => done(env(cmd)),
        Command::Object(cmd) => done(object::run(cmd)),
        Command::Data(cmd) => done(data::run(cmd)),
        Command::Validate(cmd) => validate::run(cmd).map(|passed| {
            if passed {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }),
        Command::Automation(cmd) => done(automation::run(cmd)),
        Command::Backup(args) => done(backup(args)),
        Command::Prune(args) => done(prune(args)),
        Command::Completions { shell } => {
            let mut cli = <Cli as clap::CommandFactory>::command();
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut cli, "platform", &mut text);
            done(print_bytes(&text))
        }
        Command::Man => {
            let cli = <Cli as clap::CommandFactory>::command();
            let mut text = Vec::new();
            done(
                clap_mangen::Man::new(cli)
                    .render(&mut text)
                    .map_err(|e| platform_core::Error::caused("cannot render the manual page", e))
                    .and_then(|()| print_bytes(&text)),
            )
        }
        Command::Openapi { base_path } => {
            let document = platform_server::openapi::document(&base_path);
            let mut text = serde_json::to_vec_pretty(&document)
                .map_err(|e| platform_core::Error::caused("cannot write the document", e));
            if let Ok(text) = &mut text {
                text.push(b'\n');
            }
            done(text.and_then(|text| print_bytes(&text)))
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: [{}] {}", e.code(), e);
            ExitCode::from(2)
        }
    }
}

fn env(cmd: EnvCommand) -> platform_core::Result<()> {
    match cmd {
        EnvCommand::Create { db, tenant, name } => {
            let created = db.open()?.tenancy().create_environment(&tenant, &name)?;
            eprintln!(
                "environment \"{name}\" of tenant \"{tenant}\" {}",
                if created { "created" } else { "already exists" }
            );
            Ok(())
        }
        EnvCommand::List { db, tenant, format } => {
            let envs: Vec<serde_json::Value> = db
                .open()?
                .tenancy().environments(&tenant)?
                .into_iter()
                .map(|(name, created)| {
                    serde_json::json!({"name": name, "created": format_instant(created)})
                })
                .collect();
            output::print_records(format, &envs, &["name", "created"])
        }
    }
}

/// The tokens of a tenant, or of every tenant (`GET token/v1`: an admin's own tenant's).
struct ListTokens {
    tenant: Option<String>,
}

impl target::Call for ListTokens {
    fn local(self, file: &target::File) -> platform_core::Result<target::Answer> {
        let tokens = file.platform().tenancy().tokens(self.tenant.as_deref())?;
        Ok(target::Answer::of(serde_json::Value::Array(
            tokens.iter().map(|t| t.to_json()).collect(),
        )))
    }

    fn http(self) -> target::Http {
        let query = self.tenant.map(|t| ("tenant".to_string(), t));
        target::Http::get("token/v1".into(), query.into_iter().collect())
    }
}

fn token(cmd: TokenCommand) -> platform_core::Result<()> {
    match cmd {
        TokenCommand::Create {
            db,
            tenant,
            user,
            role,
            set_role,
        } => {
            let platform = db.open()?;
            let token = if set_role {
                let (token, change) = platform
                    .tenancy()
                    .create_token_setting_role(&tenant, &user, role)?;
                if let Some(c) = change {
                    let ids: Vec<&str> = c.tokens.iter().map(|t| t.id.as_str()).collect();
                    let others = match ids.len() {
                        0 => "it held no other active token".to_string(),
                        1 => format!("its active token {} acts as {} too", ids[0], c.to),
                        _ => format!("its active tokens {} act as {} too", ids.join(", "), c.to),
                    };
                    eprintln!(
                        "the role of {tenant}/{user} is now {} (it was {}): {others}",
                        c.to, c.from
                    );
                }
                token
            } else {
                platform.tenancy().create_token(&tenant, &user, role)?
            };
            println!("{token}");
            Ok(())
        }
        TokenCommand::List {
            db,
            server,
            tenant,
            format,
        } => {
            let answer = target::open_plain(&db, &server)?.send(ListTokens { tenant })?;
            output::print_records(
                format,
                answer.body.as_array().map_or(&[][..], Vec::as_slice),
                &["id", "tenant", "user", "role", "created", "revoked"],
            )
        }
        TokenCommand::Revoke {
            db,
            token,
            tenant,
            user,
        } => {
            let platform = db.open()?;
            let n = match (token, tenant, user) {
                (Some(token), _, _) => u64::from(platform.tenancy().revoke_token(&token)?),
                (None, Some(tenant), Some(user)) => {
                    platform.tenancy().revoke_user_tokens(&tenant, &user)?
                }
                _ => 0,
            };
            eprintln!("{n} token(s) revoked");
            Ok(())
        }
    }
}
