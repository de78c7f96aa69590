//! The validation pages: the dashboard (totals, by status, by kind, failing records by day as a
//! chart, the oldest open issues, the checks that fail most, records) and a record (its checks,
//! tenors, timeline, and the override, remove-override and comment actions).

use super::layout::{figure, pager, status, value_text};
use super::objects::data_link;
use super::{enc, param, params, reads, skip_of, PAGE};
use crate::chart::Line;
use maud::{html, Markup};
use platform_core::api::data::DataId;
use platform_core::api::data::DataKind;
use platform_core::api::interface::is_failing;
use platform_core::api::Page;
use platform_core::api::Params;
use platform_core::api::Principal;
use platform_core::{Error, Platform, Result};
use serde_json::{json, Value};

/// Checks listed as failing most.
const TOP_CHECKS: usize = 10;
/// Statuses a record list can be narrowed to.
const STATUSES: [&str; 7] = [
    "failed",
    "severe",
    "error",
    "warning",
    "overridden",
    "valid",
    "skipped",
];

fn record_link(base: &str, id: &str) -> String {
    format!("{base}/console/validation/record/{}", enc(id))
}

fn count_table(caption: &str, counts: &serde_json::Map<String, Value>) -> Markup {
    html! {
        table.list.counts {
            caption { (caption) }
            thead { tr { th scope="col" { "Status" } th scope="col" { "Records" } } }
            tbody {
                @for (s, n) in counts {
                    tr { th scope="row" { (status(s)) } td.num { (value_text(n)) } }
                }
            }
        }
    }
}

/// What the dashboard was asked and what it read.
struct Dashboard<'a> {
    base: &'a str,
    q: &'a Params,
    /// The filters of the statistics (and of the record list's links).
    filters: Vec<(&'a str, &'a str)>,
    status_filter: Option<&'a str>,
    skip: u64,
    stats: Value,
    records: Page<Value>,
}

/// `GET /console/validation`.
pub fn dashboard(p: &Platform, who: &Principal, base: &str, q: &Params) -> Result<Markup> {
    let mut filters: Vec<(&str, &str)> = Vec::new();
    for k in ["from", "to", "target", "kind"] {
        if let Some(v) = param(q, k) {
            filters.push((k, v));
        }
    }
    let stats = reads::stats(p, who, &params(&filters))?;
    let status_filter = param(q, "status");
    if let Some(s) = status_filter {
        if !STATUSES.contains(&s) {
            return Err(Error::invalid_parameter(format!(
                "status \"{s}\" is not one of {}",
                STATUSES.join(", ")
            )));
        }
    }
    let skip = skip_of(q)?;
    let (skip_text, limit_text) = (skip.to_string(), PAGE.to_string());
    let mut list = vec![
        ("_limit", limit_text.as_str()),
        ("_skip", skip_text.as_str()),
    ];
    if let Some(t) = param(q, "target") {
        list.push(("target", t));
    }
    if let Some(k) = param(q, "kind") {
        list.push(("kind", k));
    }
    if let Some(s) = status_filter {
        list.push(("status", s));
    }
    let records = reads::records(p, who, &params(&list))?;
    let page = Dashboard {
        base,
        q,
        filters,
        status_filter,
        skip,
        stats,
        records,
    };
    Ok(html! {
        h1 { "Validation" }
        (page.form())
        (page.totals())
        (page.counts())
        (page.failures_by_day())
        (page.open_issues())
        (page.top_checks())
        (page.record_list())
    })
}

impl Dashboard<'_> {
    /// The form: dates, target, kind and the status of the records listed.
    fn form(&self) -> Markup {
        let (q, status_filter) = (self.q, self.status_filter);
        html! {
            form.inline method="get" action={ (self.base) "/console/validation" } {
                div.field { label for="from" { "From" } input #from type="date" name="from" value=[param(q, "from")]; }
                div.field { label for="to" { "To" } input #to type="date" name="to" value=[param(q, "to")]; }
                div.field { label for="target" { "Target" } input #target type="text" name="target" value=[param(q, "target")] placeholder="NBP:SPOT"; }
                div.field {
                    label for="kind" { "Kind" }
                    select #kind name="kind" {
                        option value="" { "any" }
                        @for k in ["timeseries", "curve"] { option value=(k) selected[param(q, "kind") == Some(k)] { (k) } }
                    }
                }
                div.field {
                    label for="status" { "Records with status" }
                    select #status name="status" {
                        option value="" { "any" }
                        @for s in STATUSES { option value=(s) selected[status_filter == Some(s)] { (s) } }
                    }
                }
                div.field { button type="submit" { "Show" } }
            }
        }
    }

    /// Records, targets, open and resolved issues, and configurations.
    fn totals(&self) -> Markup {
        let totals = &self.stats["totals"];
        html! {
            section aria-labelledby="totals-title" {
                h2 #totals-title { "Totals" }
                dl.totals {
                    div { dt { "Records" } dd { (value_text(&totals["records"])) } }
                    div { dt { "Targets" } dd { (value_text(&totals["targets"])) } }
                    div { dt { "Open issues" } dd { (value_text(&totals["open"])) } }
                    div { dt { "Resolved" } dd { (value_text(&totals["resolved"])) } }
                    div { dt { "Configurations" } dd { (value_text(&self.stats["configs"]["count"])) } }
                }
            }
        }
    }

    /// The records by status, and by status within each kind, side by side.
    fn counts(&self) -> Markup {
        let (stats, empty) = (&self.stats, serde_json::Map::new());
        html! {
            div.columns {
                section aria-labelledby="status-title" {
                    h2 #status-title { "By status" }
                    (count_table("Records by status", stats["byStatus"].as_object().unwrap_or(&empty)))
                }
                section aria-labelledby="kind-title" {
                    h2 #kind-title { "By kind" }
                    @for (kind, counts) in stats["byKind"].as_object().unwrap_or(&empty) {
                        (count_table(&format!("Records of kind {kind}"), counts.as_object().unwrap_or(&empty)))
                    }
                }
            }
        }
    }

    /// A chart of the records failing on each day.
    fn failures_by_day(&self) -> Markup {
        let by_day: Vec<Value> = self.stats["byDay"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| {
                let failing: u64 = d["counts"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(s, _)| is_failing(s))
                    .filter_map(|(_, n)| n.as_u64())
                    .sum();
                json!({"time": d["day"], "value": failing})
            })
            .collect();
        let failures_chart = json!({"_id": "Failing records by day", "units": "records",
                                    "calendar": "DAILY", "data": by_day});
        html! {
            section aria-labelledby="days-title" {
                h2 #days-title { "Failing records by day" }
                (figure(&[Line::of_counts(&failures_chart)], "Chart:", "chart-failures"))
            }
        }
    }

    /// The failing records, oldest first.
    fn open_issues(&self) -> Markup {
        html! {
            section aria-labelledby="open-title" {
                h2 #open-title { "Oldest open issues" }
                table.list {
                    caption.visually-hidden { "Failing records, oldest first" }
                    thead { tr { th scope="col" { "Record" } th scope="col" { "Status" } th scope="col" { "Open since" } } }
                    tbody {
                        @for r in self.stats["open"].as_array().into_iter().flatten() {
                            @let id = r["_id"].as_str().unwrap_or_default();
                            tr {
                                th scope="row" { a href=(record_link(self.base, id)) { (id) } }
                                td { (status(r["status"].as_str().unwrap_or_default())) }
                                td { (value_text(&r["openSince"])) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The checks with the most failures (the first `TOP_CHECKS`).
    fn top_checks(&self) -> Markup {
        let mut checks: Vec<&Value> = self.stats["byCheck"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["failures"].as_u64().unwrap_or_default() > 0)
            .collect();
        checks.sort_by_key(|c| std::cmp::Reverse(c["failures"].as_u64().unwrap_or_default()));
        checks.truncate(TOP_CHECKS);
        html! {
            section aria-labelledby="checks-title" {
                h2 #checks-title { "Checks that fail most" }
                table.list {
                    caption.visually-hidden { "Checks by failures" }
                    thead { tr { th scope="col" { "Check" } th scope="col" { "Failures" } th scope="col" { "Runs" } } }
                    tbody {
                        @for c in &checks {
                            tr {
                                th scope="row" { (value_text(&c["name"])) " " code { (value_text(&c["id"])) } }
                                td.num { (value_text(&c["failures"])) }
                                td.num { (value_text(&c["runs"])) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A link to the dashboard at another page of records, keeping its filters.
    fn link(&self, to: u64) -> String {
        let mut url = format!("{}/console/validation?skip={to}", self.base);
        for (k, v) in self
            .filters
            .iter()
            .copied()
            .chain(self.status_filter.map(|s| ("status", s)))
        {
            url.push_str(&format!("&{k}={}", enc(v)));
        }
        url
    }

    /// A page of the records, with their statuses, values and messages.
    fn record_list(&self) -> Markup {
        let records = &self.records;
        html! {
            section aria-labelledby="records-title" {
                h2 #records-title { "Records" }
                (pager(records.total, records.estimated, self.skip, records.items.len(), |to| self.link(to)))
                table.list {
                    caption.visually-hidden { "Validation records" }
                    thead { tr { th scope="col" { "Record" } th scope="col" { "Status" }
                                 th scope="col" { "Value" } th scope="col" { "Message" } } }
                    tbody {
                        @for r in &records.items {
                            @let id = r["_id"].as_str().unwrap_or_default();
                            tr {
                                th scope="row" { a href=(record_link(self.base, id)) { (id) } }
                                td { (status(r["status"].as_str().unwrap_or_default())) }
                                td.num { (value_text(&r["value"])) }
                                td { (value_text(&r["message"])) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A JSON list as comma-separated text (its items' `tenor` when they are objects).
fn list_text(v: &Value) -> String {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|t| match t.get("tenor") {
            Some(name) => value_text(name),
            None => value_text(t),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A table of JSON rows, with these columns (field, heading).
fn rows_table(caption: &str, rows: &[Value], columns: &[(&str, &str)]) -> Markup {
    html! {
        table.list {
            caption { (caption) }
            thead { tr { @for (_, heading) in columns { th scope="col" { (heading) } } } }
            tbody {
                @for r in rows {
                    tr {
                        @for (c, _) in columns {
                            td {
                                @if *c == "status" || *c == "previous" {
                                    @if let Some(s) = r[*c].as_str() { (status(s)) }
                                } @else {
                                    (value_text(&r[*c]))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// An action on the record: a POST to the validation service, sent by the script.
fn action(
    base: &str,
    id: &str,
    function: &str,
    label: &str,
    field: Option<(&str, &str)>,
) -> Markup {
    html! {
        form.action data-endpoint={ (base) "/validation/v1?_function=" (function) } data-id=(id) {
            @if let Some((name, text)) = field {
                div.field {
                    label for={ (function) "-" (name) } { (text) }
                    textarea id={ (function) "-" (name) } name=(name) rows="2" required {}
                }
            }
            button type="submit" disabled data-needs-script { (label) }
        }
    }
}

/// `GET /console/validation/record/{id}`.
pub fn record(p: &Platform, who: &Principal, base: &str, id: &str) -> Result<Markup> {
    let r = reads::record(p, who, id)?;
    let target = r["target"].as_str().unwrap_or_default();
    let kind = if r["kind"] == "curve" {
        DataKind::Curve
    } else {
        DataKind::Series
    };
    let target_link = DataId::parse(target)
        .ok()
        .map(|d| data_link(base, &d.object, &d.prop, kind));
    let checks: Vec<Value> = r["checks"].as_array().cloned().unwrap_or_default();
    let timeline: Vec<Value> = r["timeline"].as_array().cloned().unwrap_or_default();
    let tenors: Vec<Value> = r["tenors"].as_array().cloned().unwrap_or_default();
    let st = r["status"].as_str().unwrap_or_default();
    Ok(html! {
        p.crumbs { a href={ (base) "/console/validation" } { "Validation" } " / " (id) }
        h1 { "Record " (id) }
        dl.record {
            div { dt { "Status" } dd { (status(st)) } }
            div { dt { "Target" } dd {
                @match &target_link { Some(l) => a href=(l) { (target) }, None => (target) }
            } }
            div { dt { "Point" } dd { (value_text(&r["point"])) } }
            div { dt { "Value" } dd { (value_text(&r["value"])) } }
            div { dt { "Message" } dd { (value_text(&r["message"])) } }
            div { dt { "Runs" } dd { (value_text(&r["runs"])) ", last " (value_text(&r["lastRun"])) } }
            @if !r["openSince"].is_null() { div { dt { "Open since" } dd { (value_text(&r["openSince"])) } } }
            @if !r["override"].is_null() {
                div { dt { "Override" } dd { (value_text(&r["override"]["reason"])) " (" (value_text(&r["override"]["user"])) ")" } }
            }
        }
        section aria-labelledby="actions-title" {
            h2 #actions-title { "Actions" }
            p.help.needs-script { "These buttons need JavaScript and a writer's token." }
            div.actions {
                (action(base, id, "override", "Override", Some(("reason", "Reason for the override"))))
                (action(base, id, "removeOverride", "Remove override", None))
                (action(base, id, "comment", "Comment", Some(("message", "Comment"))))
            }
        }
        section aria-labelledby="checks-title" {
            h2 #checks-title { "Checks" }
            (rows_table("Checks of this record", &checks, &[("name", "Check"), ("severity", "Severity"), ("status", "Status"), ("message", "Message"), ("failures", "Failures")]))
        }
        @if !tenors.is_empty() {
            section aria-labelledby="tenors-title" {
                h2 #tenors-title { "Tenors" }
                dl.record {
                    @for (key, label) in [("tenors", "Checked"), ("failedTenors", "Failed"), ("warningTenors", "Warning")] {
                        div { dt { (label) } dd { (list_text(&r[key])) } }
                    }
                }
            }
        }
        section aria-labelledby="timeline-title" {
            h2 #timeline-title { "Timeline" }
            (rows_table("What happened to this record, oldest first", &timeline, &[("timestamp", "Time"), ("action", "Action"), ("user", "User"), ("status", "Status"), ("previous", "Before"), ("message", "Message")]))
        }
    })
}
