//! `platform automation`: automations, their log and the mail outbox on a database file, and
//! delivering due events without a server.

use crate::local::Local;
use clap::Subcommand;
use platform_core::store::LogQuery;
use serde_json::Value;

#[derive(Subcommand)]
pub enum AutomationCommand {
    /// List the automations.
    List {
        #[command(flatten)]
        local: Local,
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
    },
    /// Show the mail outbox (emails kept when no SMTP server is configured), newest first.
    Mail {
        #[command(flatten)]
        local: Local,
        /// Most emails.
        #[arg(long, default_value_t = 20)]
        limit: u64,
    },
    /// Deliver every due event now (what the server's worker does), then stop.
    Deliver {
        #[command(flatten)]
        local: Local,
        /// SMTP server HOST:PORT for emails (else they go to the mail outbox).
        #[arg(long, env = "PLATFORM_SMTP")]
        smtp: Option<String>,
    },
}

fn print(items: &[Value]) {
    for item in items {
        println!("{item}");
    }
}

pub fn run(cmd: AutomationCommand) -> platform_core::Result<()> {
    match cmd {
        AutomationCommand::List { local } => {
            let (platform, who) = local.open()?;
            print(&platform.automations(&who)?);
        }
        AutomationCommand::Log {
            local,
            automation,
            status,
            limit,
        } => {
            let (platform, who) = local.open()?;
            let page = platform.automation_log(
                &who,
                &LogQuery {
                    automation,
                    status,
                    limit: Some(limit),
                    ..LogQuery::default()
                },
            )?;
            print(&page.items);
            eprintln!("{} of {} entries", page.items.len(), page.total);
        }
        AutomationCommand::Mail { local, limit } => {
            let (platform, who) = local.open()?;
            let page = platform.mail_outbox(&who, 0, Some(limit))?;
            for mail in &page.items {
                println!(
                    "--- {} to {} | {}\n{}",
                    mail["timestamp"].as_str().unwrap_or_default(),
                    mail["to"],
                    mail["subject"].as_str().unwrap_or_default(),
                    mail["body"].as_str().unwrap_or_default()
                );
            }
            eprintln!("{} of {} emails", page.items.len(), page.total);
        }
        AutomationCommand::Deliver { local, smtp } => {
            let (platform, _) = local.open()?;
            let platform =
                platform.with_delivery(platform_core::events::deliver::DeliverySettings {
                    smtp,
                    ..Default::default()
                });
            platform.requeue_interrupted_deliveries()?;
            let n = platform.deliver_due()?;
            eprintln!("{n} delivery steps");
        }
    }
    Ok(())
}
