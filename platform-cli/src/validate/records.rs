//! `platform validate records` and `platform validate override`: the validation records, and
//! overrides of the failing ones, on a database file or a server.

use clap::Args;
use platform_core::{Error, Result};
use serde_json::{json, Value};

use super::calls::{Function, Records};
use crate::output::{self, text, Format, Table};
use crate::target::{pairs, print_total, TargetArgs};

#[derive(Args)]
pub struct RecordsArgs {
    #[command(flatten)]
    on: TargetArgs,
    /// Query parameters as key=value (e.g. target=NBP:SPOT status=failing _sort=-point
    /// _limit=10).
    params: Vec<String>,
    /// Output format (table and csv: id, status, checked status, message, override reason).
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

#[derive(Args)]
pub struct OverrideArgs {
    #[command(flatten)]
    on: TargetArgs,
    /// The records, by id (OBJECT:PROPERTY:POINT, as `validate records` lists them).
    #[arg(required = true)]
    ids: Vec<String>,
    /// Why the data may be used all the same (required to override).
    #[arg(long, required_unless_present = "remove")]
    reason: Option<String>,
    /// Take the overrides of these records back instead (the record takes its last checked
    /// status again).
    #[arg(long, conflicts_with = "reason")]
    remove: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// `validate records`: the records the query selects; the total on standard error.
pub(super) fn records(args: RecordsArgs) -> Result<()> {
    let list = Records {
        pairs: pairs(&args.params)?,
    };
    let answer = args.on.open()?.send(list)?;
    print_total(answer.total);
    let items = answer.body.as_array().map_or(&[][..], Vec::as_slice);
    output::print(
        args.format,
        &answer.body,
        || {
            Table::of(
                items,
                &[
                    "_id",
                    "status",
                    "checkedStatus",
                    "message",
                    "override.reason",
                ],
            )
            .renamed(&["id", "status", "checked", "message", "override"])
        },
        "",
    )
}

/// `validate override`: one `override` (or `removeOverride`) request for every id; each
/// record's outcome printed, and an error naming those that did not change.
pub(super) fn override_records(args: OverrideArgs) -> Result<()> {
    let (name, verb) = if args.remove {
        ("removeOverride", "had no override taken back")
    } else {
        ("override", "not overridden")
    };
    let mut body = json!({"ids": args.ids});
    if let Some(reason) = &args.reason {
        body["reason"] = json!(reason);
    }
    let out = args.on.open()?.send(Function::new(name, body))?.body;
    let items = out.as_array().map_or(&[][..], Vec::as_slice);
    output::print(
        args.format,
        &out,
        || Table::of(items, &["id", "ok", "status", "message"]),
        "",
    )?;
    let refused: Vec<String> = items
        .iter()
        .filter(|i| i["ok"] != Value::Bool(true))
        .map(|i| format!("{} ({})", text(i.get("id")), text(i.get("message"))))
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    Err(Error::invalid_parameter(format!(
        "{} of {} records {verb}: {}",
        refused.len(),
        items.len(),
        refused.join(", ")
    )))
}
