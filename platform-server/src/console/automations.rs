//! The automations page: the automations, their log (each delivery attempt) and the mail outbox.

use super::layout::status;
use super::{param, params, reads, PAGE};
use maud::{html, Markup};
use platform_core::api::limits::LOG_STATUSES;
use platform_core::api::time::format_instant;
use platform_core::api::Principal;
use platform_core::api::{automations::Automation, Params};
use platform_core::{Platform, Result};

fn conditions_text(a: &Automation) -> String {
    a.conditions
        .iter()
        .map(|c| [c.source.as_str(), &c.service, &c.id, &c.action].join(" "))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `GET /console/automations`.
pub fn page(p: &Platform, who: &Principal, _base: &str, q: &Params) -> Result<Markup> {
    let limit = PAGE.to_string();
    let all = reads::automations(p, who, &params(&[("_limit", "-1")]))?;
    let mut log_query = vec![("_limit", limit.as_str())];
    if let Some(s) = param(q, "status") {
        log_query.push(("status", s));
    }
    let log = reads::log(p, who, &params(&log_query))?;
    let mail = reads::mail(p, who, &params(&[("_limit", limit.as_str())]))?;
    let name_of = |id: &str| {
        all.items
            .iter()
            .find(|a| a.id() == id)
            .and_then(|a| a.automation.name.as_deref())
            .unwrap_or(id)
            .to_string()
    };
    Ok(html! {
        h1 { "Automations" }
        section aria-labelledby="list-title" {
            h2 #list-title { "Automations (" (all.total) ")" }
            table.list {
                caption.visually-hidden { "Automations" }
                thead { tr { th scope="col" { "Name" } th scope="col" { "Target" }
                             th scope="col" { "When" } th scope="col" { "Enabled" }
                             th scope="col" { "Owner" } } }
                tbody {
                    @for stored in &all.items {
                        @let a = &stored.automation;
                        tr {
                            th scope="row" { (a.name.as_deref().unwrap_or_default()) br; code { (stored.id()) } }
                            td { (a.target.as_deref().unwrap_or_default()) }
                            td { (conditions_text(a)) }
                            td { @if a.enabled == Some(true) { (status("enabled")) } @else { (status("disabled")) } }
                            td { (stored.owner) }
                        }
                    }
                }
            }
        }
        section aria-labelledby="log-title" {
            h2 #log-title {
                "Log (" (log.total) @if log.total == 1 { " attempt" } @else { " attempts" }
                "; the latest " (log.items.len()) ")"
            }
            form.inline method="get" {
                div.field {
                    label for="status" { "Status" }
                    select #status name="status" {
                        option value="" { "any" }
                        @for s in LOG_STATUSES {
                            option value=(s) selected[param(q, "status") == Some(s)] { (s) }
                        }
                    }
                }
                div.field { button type="submit" { "Show" } }
            }
            table.list {
                caption.visually-hidden { "Delivery attempts, newest first" }
                thead { tr { th scope="col" { "Time" } th scope="col" { "Automation" }
                             th scope="col" { "Event" } th scope="col" { "Attempt" }
                             th scope="col" { "Status" } th scope="col" { "Message" } } }
                tbody {
                    @for e in &log.items {
                        tr {
                            th scope="row" { (format_instant(e.timestamp)) }
                            td { (name_of(&e.automation)) }
                            td { (e.service) " " (e.key) " " (e.action) }
                            td.num { (e.attempt) }
                            td { (status(e.status.as_str())) }
                            td { (e.message) }
                        }
                    }
                }
            }
        }
        section aria-labelledby="mail-title" {
            h2 #mail-title { "Mail outbox (" (mail.total) ")" }
            @for m in &mail.items {
                details.mail {
                    summary {
                        (format_instant(m.timestamp)) " · to " (m.to.join(", "))
                        " · " strong { (m.subject) }
                    }
                    pre { (m.body) }
                }
            }
        }
    })
}
