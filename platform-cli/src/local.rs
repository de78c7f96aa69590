//! The database file of the commands that act on one: [`DbArg`] and [`open_existing`] (which
//! every command that opens a database calls), and the principal of the commands that act on
//! a file only (`automation deliver`); the others take a [`crate::target::TargetArgs`] (a file
//! or a server).

use crate::pg::PgArgs;
use clap::Args;
use platform_core::api::Principal;
use platform_core::{Platform, Result};
use std::path::{Path, PathBuf};

/// Where a local command acts, and as whom: a `platform`-role user of a tenant (whoever can
/// open the file has every right over it).
#[derive(Args, Clone)]
pub struct Local {
    /// The database: a file (it must exist: `platform init` makes one) or a PostgreSQL URL
    /// postgres://user@host:port/database.
    #[arg(long, env = "PLATFORM_DB", default_value = "platform.db")]
    db: PathBuf,
    /// With a PostgreSQL --db: the file of the key that seals secrets, made by `platform init`;
    /// every server and command of one database uses that file. [default: platform.key]
    #[arg(long, env = "PLATFORM_KEY_FILE")]
    key_file: Option<PathBuf>,
    #[command(flatten)]
    pg: PgArgs,
    /// Tenant.
    #[arg(long, default_value = "default")]
    tenant: String,
    /// User recorded as the writer.
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

impl Local {
    /// Opens the file and makes the principal.
    pub fn open(&self) -> Result<(Platform, Principal)> {
        let platform = open_existing(&self.db, self.key_file.as_deref(), &self.pg)?;
        let who = platform
            .tenancy()
            .local_principal(&self.tenant, &self.user)?;
        let who = platform.tenancy().in_environment(&who, &self.environment)?;
        Ok((platform, who))
    }
}

/// The database file argument shared by local commands.
#[derive(Args, Clone)]
pub struct DbArg {
    /// The database: a file (it must exist: `platform init` makes one) or a PostgreSQL URL
    /// postgres://user@host:port/database (TLS: ?sslmode=verify-full&sslrootcert=ca.pem; the
    /// password from PGPASSWORD, PGPASSFILE or ~/.pgpass).
    #[arg(long, env = "PLATFORM_DB", default_value = "platform.db")]
    pub db: PathBuf,
    /// With a PostgreSQL --db: the file of the key that seals secrets, made by `platform init`;
    /// every server and command of one database uses that file. [default: platform.key]
    #[arg(long, env = "PLATFORM_KEY_FILE")]
    key_file: Option<PathBuf>,
    #[command(flatten)]
    pg: PgArgs,
}

impl DbArg {
    /// Opens the database (see [`open_existing`]).
    pub fn open(&self) -> Result<Platform> {
        open_existing(&self.db, self.key_file.as_deref(), &self.pg)
    }
}

/// Opens a database file that exists, or a PostgreSQL database; a missing file is an error
/// that says how to make one, and nothing is created.
pub fn open_existing(db: &Path, key_file: Option<&Path>, pg: &PgArgs) -> Result<Platform> {
    let options = pg.apply(Default::default());
    Platform::open_database_with(&db.to_string_lossy(), key_file, false, &options).map_err(|e| {
        match e.code() {
            platform_core::ErrorCode::NotFound => platform_core::Error::not_found(format!(
                "{e}: create it with `platform init --db {}` (or start `platform serve` on it)",
                db.display()
            )),
            _ => e,
        }
    })
}
