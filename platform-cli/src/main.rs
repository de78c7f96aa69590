//! `platform`: run the server, manage tokens and environments, work with objects on a
//! database file (through the core) or on a running server (through its REST interface), and
//! import, read and validate data (time series, curves) on a database file.

mod automation;
mod data;
mod local;
mod object;
mod remote;
mod serve;
mod validate;

use clap::{Args, Parser, Subcommand};
use platform_core::auth::Role;
use platform_core::Platform;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "platform",
    version,
    about = "An embeddable data platform for energy and commodity market data"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the REST server on a database file.
    Serve(serve::ServeArgs),
    /// Create or revoke access tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Manage environments of a tenant.
    #[command(subcommand)]
    Env(EnvCommand),
    /// Read and write objects, on a database file or a server.
    #[command(subcommand)]
    Object(object::ObjectCommand),
    /// Import time series from CSV or JSON files and read data items, on a database file.
    #[command(subcommand)]
    Data(data::DataCommand),
    /// Validate data on a database file: run and test checks, statistics, background jobs and
    /// validation configurations.
    #[command(subcommand)]
    Validate(validate::ValidateCommand),
    /// Grant (or with --revoke take back) a data-access role or a view feature.
    Grant(GrantArgs),
    /// Automations on a database file: list them, their log, the mail outbox; deliver due events.
    #[command(subcommand)]
    Automation(automation::AutomationCommand),
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
    use platform_core::auth::Grant;
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
        platform.revoke_grant(&args.tenant, &args.user, &what)?
    } else {
        platform.grant(&args.tenant, &args.user, &what)?
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

/// The database file argument shared by local commands.
#[derive(Args, Clone)]
struct DbArg {
    /// The database file.
    #[arg(long, env = "PLATFORM_DB", default_value = "platform.db")]
    db: PathBuf,
}

impl DbArg {
    fn open(&self) -> platform_core::Result<Platform> {
        Platform::open(&self.db)
    }
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Token(cmd) => token(cmd),
        Command::Grant(args) => grant(args),
        Command::Env(EnvCommand::Create { db, tenant, name }) => db.open().and_then(|p| {
            let created = p.create_environment(&tenant, &name)?;
            eprintln!(
                "environment \"{name}\" of tenant \"{tenant}\" {}",
                if created { "created" } else { "already exists" }
            );
            Ok(())
        }),
        Command::Object(cmd) => object::run(cmd),
        Command::Data(cmd) => data::run(cmd),
        Command::Validate(cmd) => validate::run(cmd),
        Command::Automation(cmd) => automation::run(cmd),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: [{}] {}", e.code(), e);
            ExitCode::FAILURE
        }
    }
}

fn token(cmd: TokenCommand) -> platform_core::Result<()> {
    match cmd {
        TokenCommand::Create {
            db,
            tenant,
            user,
            role,
        } => {
            let token = db.open()?.create_token(&tenant, &user, role)?;
            println!("{token}");
            Ok(())
        }
        TokenCommand::Revoke {
            db,
            token,
            tenant,
            user,
        } => {
            let platform = db.open()?;
            let n = match (token, tenant, user) {
                (Some(token), _, _) => u64::from(platform.revoke_token(&token)?),
                (None, Some(tenant), Some(user)) => platform.revoke_user_tokens(&tenant, &user)?,
                _ => 0,
            };
            eprintln!("{n} token(s) revoked");
            Ok(())
        }
    }
}
