//! `platform automation`: automations, their log and the mail outbox, on a database file or a
//! server (`--url`), each command with one request sent to either; and delivering due events on
//! a database file without a server.

use crate::local::Local;
use crate::output::{self, Format};
use crate::target::{Answer, Call, File, Http, TargetArgs};
use clap::Subcommand;
use platform_core::api::interface::WebhookAllow;
use platform_core::api::{automations::Automation, automations::LogQuery};
use platform_core::api::{Paging, Params};
use platform_core::{Error, ErrorCode, Result};
use serde_json::Value;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum AutomationCommand {
    /// Create (or update) an automation from a JSON file, as `POST automation/v1` does.
    Create {
        #[command(flatten)]
        on: TargetArgs,
        /// The automation (JSON); '-' reads standard input.
        #[arg(long)]
        file: PathBuf,
        /// Where its webhook may go, as for `serve` (on a database file; a server checks
        /// with its own).
        #[command(flatten)]
        webhook_allow: crate::serve::WebhookAllowArg,
        /// Output format.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// List the automations.
    List {
        #[command(flatten)]
        on: TargetArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Show the automation log, newest first.
    Log {
        #[command(flatten)]
        on: TargetArgs,
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
        on: TargetArgs,
        /// Most emails.
        #[arg(long, default_value_t = 20)]
        limit: u64,
        /// Output format: json and csv carry the bodies; the table lists the emails.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Deliver every due event now (what the server's worker does), then stop; on a database
    /// file.
    Deliver {
        #[command(flatten)]
        local: Local,
        /// How deliveries reach the network, as for `serve`.
        #[command(flatten)]
        delivery: crate::serve::DeliveryArgs,
    },
}

pub fn run(cmd: AutomationCommand) -> Result<()> {
    match cmd {
        AutomationCommand::Create {
            on,
            file,
            webhook_allow,
            format,
        } => {
            let save = SaveAutomation {
                body: crate::input::read_json(Some(&file))?,
                webhook_allow: webhook_allow.parse()?,
            };
            let saved = on.open()?.send(save)?.body;
            eprintln!(
                "automation {} saved",
                saved["_id"].as_str().unwrap_or_default()
            );
            output::print(
                format,
                &saved,
                || {
                    output::Table::of(
                        &with_enabled(std::slice::from_ref(&saved)),
                        AUTOMATION_COLUMNS,
                    )
                },
                "",
            )?;
        }
        AutomationCommand::List { on, format } => {
            let list = List {
                path: "automation/v1",
                pairs: vec![("_limit".into(), "-1".into())],
            };
            let answer = on.open()?.send(list)?;
            output::print_records(format, &with_enabled(items(&answer)), AUTOMATION_COLUMNS)?;
        }
        AutomationCommand::Log {
            on,
            automation,
            status,
            limit,
            format,
        } => {
            let mut pairs = vec![("_limit".to_string(), limit.to_string())];
            for (key, value) in [("automation", automation), ("status", status)] {
                if let Some(v) = value {
                    pairs.push((key.to_string(), v));
                }
            }
            let list = List {
                path: "automation/v1/log",
                pairs,
            };
            let answer = on.open()?.send(list)?;
            output::print_records(
                format,
                items(&answer),
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
            eprintln!("{} of {} entries", items(&answer).len(), total(&answer));
        }
        AutomationCommand::Mail { on, limit, format } => {
            let list = List {
                path: "automation/v1/mail",
                pairs: vec![("_limit".to_string(), limit.to_string())],
            };
            let answer = on.open()?.send(list)?;
            let columns: &[&str] = match format {
                Format::Table => &["timestamp", "to", "subject"],
                _ => &["timestamp", "to", "subject", "body"],
            };
            output::print_records(format, items(&answer), columns)?;
            eprintln!("{} of {} emails", items(&answer).len(), total(&answer));
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

fn items(answer: &Answer) -> &[Value] {
    answer.body.as_array().map_or(&[][..], Vec::as_slice)
}

fn total(answer: &Answer) -> u64 {
    answer.total.map_or(0, |(n, _)| n)
}

/// Saves an automation (`POST automation/v1`).
struct SaveAutomation {
    body: Value,
    /// On a file, the non-global hosts its webhook may call.
    webhook_allow: WebhookAllow,
}

impl Call for SaveAutomation {
    fn local(self, file: &File) -> Result<Answer> {
        let platform = file.platform().clone();
        // A webhook's host names are resolved as the server would, to check where they go.
        let settings = platform_core::api::automations::DeliverySettings {
            webhook_allow: self.webhook_allow,
            ..platform.delivery_settings().clone()
        };
        let platform = platform_server::outbound::networked(platform.with_delivery(settings));
        let who = file.who()?;
        let saved = platform
            .automations()
            .save(who, &Automation::from_body(&self.body)?)?;
        json_value(serde_json::to_value(saved)).map(Answer::of)
    }

    fn http(self) -> Http {
        Http::post("automation/v1".into(), Vec::new(), self.body)
    }
}

/// A list of the automation service, paged by `_limit` and `_skip`: the automations
/// (`automation/v1`), their log (`automation/v1/log`, also `automation` and `status`) or the
/// mail outbox (`automation/v1/mail`).
struct List {
    path: &'static str,
    pairs: Vec<(String, String)>,
}

impl Call for List {
    fn local(self, file: &File) -> Result<Answer> {
        let (automations, who) = (file.platform().automations(), file.who()?);
        let params = Params::new(self.pairs);
        let paging = Paging::from_params(&params)?;
        let (items, total) = match self.path {
            "automation/v1/log" => {
                let query = LogQuery {
                    automation: params.get("automation").map(str::to_string),
                    status: params.get("status").map(str::to_string),
                    skip: paging.skip,
                    limit: paging.limit,
                    ..LogQuery::default()
                };
                let page = automations.log(who, &query)?;
                (
                    json_items(page.items.iter().map(serde_json::to_value))?,
                    page.total,
                )
            }
            "automation/v1/mail" => {
                let page = automations.mails(who, paging.skip, paging.limit)?;
                (
                    json_items(page.items.iter().map(serde_json::to_value))?,
                    page.total,
                )
            }
            _ => {
                let page = automations.automations(who, &paging)?;
                (
                    json_items(page.items.iter().map(serde_json::to_value))?,
                    page.total,
                )
            }
        };
        Ok(Answer::page(items, total, false))
    }

    fn http(self) -> Http {
        Http::get(self.path.to_string(), self.pairs)
    }
}

/// An answer as the JSON a server would send.
fn json_value(answer: serde_json::Result<Value>) -> Result<Value> {
    answer.map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
}

/// Answers as the JSON items a server would list.
fn json_items(items: impl Iterator<Item = serde_json::Result<Value>>) -> Result<Vec<Value>> {
    items.map(json_value).collect()
}

/// The columns of an automation in a table.
const AUTOMATION_COLUMNS: &[&str] = &["_id", "target", "enabled", "conditions", "properties"];

/// Automations with `enabled` said where it is left out (an automation is enabled unless it
/// says `"enabled": false`).
fn with_enabled(items: &[Value]) -> Vec<Value> {
    items
        .iter()
        .map(|item| {
            let mut item = item.clone();
            if let Value::Object(fields) = &mut item {
                fields.entry("enabled").or_insert(Value::Bool(true));
            }
            item
        })
        .collect()
}
