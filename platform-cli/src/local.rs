//! The database file and the principal of the commands that act on a file only (`automation
//! deliver`); the others take a [`crate::target::TargetArgs`] (a file or a server).

use clap::Args;
use platform_core::api::Principal;
use platform_core::{Platform, Result};
use std::path::PathBuf;

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
    pg: crate::pg::PgArgs,
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
        let platform = crate::open_existing(&self.db, self.key_file.as_deref(), &self.pg)?;
        let who = platform
            .tenancy()
            .local_principal(&self.tenant, &self.user)?;
        let who = platform.tenancy().in_environment(&who, &self.environment)?;
        Ok((platform, who))
    }
}
