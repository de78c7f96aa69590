//! `platform automation`: automations, their log and the mail outbox on a database file, and
//! delivering due events without a server.

use crate::local::Local;
use crate::output::{self, Format};
use clap::Subcommand;
use platform_core::events::automations::LogQuery;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum AutomationCommand {
    /// Create (or update) an automation from a JSON file, as `POST automation/v1` does.
    Create {
        #[command(flatten)]
        local: Local,
        /// The automation (JSON); '-' reads standard input.
        #[arg(long)]
        file: PathBuf,
        /// Where its webhook may go, as for `serve`.
        #[command(flatten)]
        webhook_allow: crate::serve::WebhookAllowArg,
        /// Output format.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// List the automations.
    List {
        #[command(flatten)]
        local: Local,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Show the automation log, newest first.
    Log {
        #[command(flatten)]
        local: Local,
        /// Only this automation.
        #[arg(long)]
        automation: Option<String>,
        /// Only this status (success, failed, skipped).
        #[arg(long)]
        status: Option<String>,
        /// Most entries.
        #[arg(long, default_value_t = 50)]
        limit: u64,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Show the mail outbox (emails kept when no SMTP server is configured), newest first.
    Mail {
        #[command(flatten)]
        local: Local,
        /// Most emails.
        #[arg(long, default_value_t = 20)]
        limit: u64,
        /// Output format: json and csv carry the bodies; the table lists the emails.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Deliver every due event now (what the server's worker does), then stop.
    Deliver {
        #[command(flatten)]
        local: Local,
        /// How deliveries reach the network, as for `serve`.
        #[command(flatten)]
        delivery: crate::serve::DeliveryArgs,
    },
}

pub fn run(cmd: AutomationCommand) -> platform_core::Result<()> {
    match cmd {
        AutomationCommand::Create {
            local,
            file,
            webhook_allow,
            format,
        } => {
            let body = crate::read_json(Some(&file))?;
            let (platform, who) = local.open()?;
            // A webhook's host names are resolved as the server would, to check where they go.
            let settings = platform_core::events::deliver::DeliverySettings {
                webhook_allow: webhook_allow.parse()?,
                ..platform.delivery_settings().clone()
            };
            let platform = platform_server::outbound::networked(platform.with_delivery(settings));
            let saved = platform.automations().save(&who, body)?;
            eprintln!(
                "automation {} saved",
                saved["_id"].as_str().unwrap_or_default()
            );
            output::print(
                format,
                &saved,
                || output::Table::of(std::slice::from_ref(&saved), AUTOMATION_COLUMNS),
                "",
            )?;
        }
        AutomationCommand::List { local, format } => {
            let (platform, who) = local.open()?;
            output::print_records(
                format,
                &platform
                    .automations()
                    .list(&who, &platform_core::query::Paging::everything())?
                    .items,
                AUTOMATION_COLUMNS,
            )?;
        }
        AutomationCommand::Log {
            local,
            automation,
            status,
            limit,
            format,
        } => {
            let (platform, who) = local.open()?;
            let page = platform.automations().log(
                &who,
                &LogQuery {
                    automation,
                    status,
                    limit: Some(limit),
                    ..LogQuery::default()
                },
            )?;
            output::print_records(
                format,
                &page.items,
                &[
                    "timestamp",
                    "automation",
                    "target",
                    "service",
                    "key",
                    "action",
                    "attempt",
                    "status",
                    "message",
                ],
            )?;
            eprintln!("{} of {} entries", page.items.len(), page.total);
        }
        AutomationCommand::Mail {
            local,
            limit,
            format,
        } => {
            let (platform, who) = local.open()?;
            let page = platform.automations().mail_outbox(&who, 0, Some(limit))?;
            let columns: &[&str] = match format {
                Format::Table => &["timestamp", "to", "subject"],
                _ => &["timestamp", "to", "subject", "body"],
            };
            output::print_records(format, &page.items, columns)?;
            eprintln!("{} of {} emails", page.items.len(), page.total);
        }
        AutomationCommand::Deliver { local, delivery } => {
            let (platform, _) = local.open()?;
            // Webhooks and SMTP go over the network, as from the server's worker.
            let platform =
                platform_server::outbound::networked(platform.with_delivery(delivery.settings()?));
            platform.deliveries().requeue_interrupted()?;
            let n = platform.deliveries().run_due()?;
            eprintln!("{n} delivery steps");
        }
    }
    Ok(())
}

/// The columns of an automation in a table.
const AUTOMATION_COLUMNS: &[&str] = &["_id", "target", "active", "conditions", "properties"];
