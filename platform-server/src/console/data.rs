//! The data pages: a time series (a chart over a chosen range, an older version overlaid, the
//! observations with their statuses, a CSV download, all scaled to another calendar on request:
//! EFA blocks, gas days, months...) and a curve (an ondate's contracts
//! charted, an ondate picker, another ondate overlaid, a tenor's history, and a "monthly" toggle
//! that shows the curve shaped into arbitrage-free months over its quoted contracts).

use super::layout::{figure, status, value_text};
use super::objects::object_link;
use super::scaling::{self, Choice};
use super::{enc, param, params, reads, Rendered};
use crate::chart::Line;
use crate::error::bounded;
use maud::{html, Markup};
use platform_core::api::data::DataId;
use platform_core::api::objects::ObjectVersion;
use platform_core::api::time::coverage;
use platform_core::api::time::format_instant;
use platform_core::api::Params;
use platform_core::api::Principal;
use platform_core::api::Source;
use platform_core::{Error, ErrorCode, Platform, Result};
use serde_json::Value;

/// Rows of the observations table (the newest).
const TABLE_ROWS: usize = 200;

/// Range presets: label, `_range` (none: everything).
const PRESETS: [(&str, &str, Option<&str>); 6] = [
    ("7D", "7 days", Some("from(T-7D)")),
    ("1M", "1 month", Some("from(T-1M)")),
    ("3M", "3 months", Some("from(T-3M)")),
    ("1Y", "1 year", Some("from(T-1Y)")),
    ("5Y", "5 years", Some("from(T-5Y)")),
    ("all", "All", None),
];

fn is_date(s: &str) -> bool {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok() && s.len() == 10
}

/// The `_range` a series page asks for: its expression, else its dates, else its preset.
fn range_of(q: &Params) -> Result<Option<String>> {
    if let Some(r) = param(q, "range") {
        return Ok(Some(r.to_string()));
    }
    for name in ["from", "to"] {
        if let Some(d) = param(q, name) {
            if !is_date(d) {
                return Err(Error::invalid_parameter(format!(
                    "{name} \"{d}\" is not a date (YYYY-MM-DD)"
                )));
            }
        }
    }
    match (param(q, "from"), param(q, "to")) {
        (Some(f), Some(t)) => return Ok(Some(format!("between({f},{t})"))),
        (Some(f), None) => return Ok(Some(format!("from({f})"))),
        (None, Some(_)) => {
            return Err(Error::invalid_parameter(
                "a \"to\" date needs a \"from\" date",
            ))
        }
        (None, None) => {}
    }
    let preset = param(q, "preset").unwrap_or("all");
    PRESETS
        .iter()
        .find(|(code, _, _)| *code == preset)
        .map(|(_, _, r)| r.map(str::to_string))
        .ok_or_else(|| {
            let codes: Vec<&str> = PRESETS.iter().map(|(c, _, _)| *c).collect();
            Error::invalid_parameter(format!(
                "preset \"{preset}\" is not one of {}",
                codes.join(", ")
            ))
        })
}

/// The conversion parameters a page passes on to its reads.
fn conversion(q: &Params) -> Vec<(&'static str, String)> {
    ["units", "currency"]
        .into_iter()
        .filter_map(|k| param(q, k).map(|v| (k, v.to_string())))
        .collect()
}

fn read(
    p: &Platform,
    who: &Principal,
    source: Source,
    id: &str,
    pairs: &[(&str, String)],
) -> Result<Value> {
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    reads::data(p, who, source, id, &params(&pairs))
}

/// A status's cells; an aggregate made of fewer observations than its period holds
/// (`partial`: how many of how many) is marked so in its source cell, in words.
fn quality_cells(status_json: &Value, partial: Option<(usize, usize)>) -> Markup {
    html! {
        @for key in ["quality", "source", "reliability"] {
            td {
                @if let Some(s) = status_json.get(key).and_then(Value::as_str) {
                    (status(s))
                }
                @if let (Some((n, m)), "source") = (partial, key) {
                    " " span.badge.partial { "partial: " (n) " of " (m) " observations" }
                }
            }
        }
    }
}

fn conversion_fields(q: &Params) -> Markup {
    html! {
        div.field {
            label for="units" { "Units" }
            input #units type="text" name="units" value=[param(q, "units")] placeholder="MWh";
        }
        div.field {
            label for="currency" { "Currency" }
            input #currency type="text" name="currency" value=[param(q, "currency")] placeholder="EUR";
        }
    }
}

fn compare_of(q: &Params) -> Result<Option<u32>> {
    param(q, "compare")
        .map(|v| {
            v.parse().map_err(|_| {
                Error::invalid_parameter(format!("compare \"{v}\" is not a version number"))
            })
        })
        .transpose()
}

fn not_a_curve(item: &Value, id: &str) -> Result<()> {
    if item.get("contracts").is_some() {
        return Err(Error::invalid_parameter(format!(
            "\"{id}\" is a curve: open it as one"
        )));
    }
    Ok(())
}

/// What a series page was asked and what it read around its data.
struct SeriesPage<'a> {
    base: &'a str,
    source: Source,
    id: &'a str,
    data_id: DataId,
    q: &'a Params,
    choice: Choice<'a>,
    compare: Option<u32>,
    versions: Vec<ObjectVersion>,
    /// The parameters of its reads (range, conversion, zone and scaling).
    pairs: Vec<(&'static str, String)>,
}

/// `GET /console/series/{source}/{id}`: a scaling the read refuses is shown on the page (with
/// the form that asked for it) when the series reads as stored.
pub fn series(
    p: &Platform,
    who: &Principal,
    base: &str,
    source: &str,
    id: &str,
    q: &Params,
) -> Result<Rendered> {
    let source: Source = source.parse()?;
    let data_id = DataId::parse(id)?;
    let range = range_of(q)?;
    let compare = compare_of(q)?;
    let choice = Choice::of(q);
    let mut stored_pairs = conversion(q);
    if let Some(r) = &range {
        stored_pairs.push(("_range", r.clone()));
    }
    // Times in the series' own zone with their offsets: the table's "Time (zone)" column, the
    // chart and the CSV download read as local time (the repeated autumn hour twice).
    stored_pairs.push(("_timezone", "series".into()));
    let mut pairs = stored_pairs.clone();
    pairs.extend(choice.read_pairs());
    let versions = reads::versions(p, who, source, &data_id.object)?;
    let page = SeriesPage {
        base,
        source,
        id,
        data_id,
        q,
        choice,
        compare,
        versions,
        pairs,
    };
    let item = match read(p, who, source, id, &page.pairs) {
        Ok(item) => item,
        Err(e) if choice.asked() && e.code() == ErrorCode::InvalidParameter => {
            // The scaling is what was refused when the series reads as stored.
            let stored = read(p, who, source, id, &stored_pairs)?;
            not_a_curve(&stored, id)?;
            let message = bounded(&e.public_message()).into_owned();
            let main = html! {
                (page.head(&stored, stored["calendar"].as_str().unwrap_or_default()))
                div.notice.refused role="alert" {
                    p { strong { "This view was refused: " } (message) }
                }
            };
            return Ok(Rendered::refused(main, e));
        }
        Err(e) => return Err(e),
    };
    not_a_curve(&item, id)?;
    let older = match compare {
        Some(n) => {
            let mut with = page.pairs.clone();
            with.push(("_version", n.to_string()));
            Some(read(p, who, source, id, &with)?)
        }
        None => None,
    };
    // A scaled answer carries the calendar it was scaled to: the stored one is the object's.
    let stored_calendar = if choice.asked() {
        let object = reads::object(p, who, source, &page.data_id.object, None)?;
        object[&page.data_id.prop]["calendar"].clone()
    } else {
        item["calendar"].clone()
    };
    Ok(html! {
        (page.head(&item, stored_calendar.as_str().unwrap_or_default()))
        (page.data(&item, older.as_ref()))
    }
    .into())
}

impl SeriesPage<'_> {
    fn here(&self) -> String {
        format!(
            "{}/console/series/{}/{}",
            self.base,
            self.source,
            enc(self.id)
        )
    }

    /// A link to this page with another range preset, keeping the rest of the view.
    fn preset_link(&self, code: &str) -> String {
        let mut url = format!("{}?preset={code}", self.here());
        for (k, v) in conversion(self.q)
            .into_iter()
            .chain(self.choice.page_pairs())
        {
            url.push_str(&format!("&{k}={}", enc(&v)));
        }
        if let Some(n) = self.compare {
            url.push_str(&format!("&compare={n}"));
        }
        url
    }

    /// The crumbs, title, what the series is, the range presets and the form.
    fn head(&self, item: &Value, stored_calendar: &str) -> Markup {
        let (base, id, data_id, q) = (self.base, self.id, &self.data_id, self.q);
        let preset = param(q, "preset").unwrap_or("all");
        let custom = param(q, "range").is_some() || param(q, "from").is_some();
        html! {
            p.crumbs {
                a href={ (base) "/console" } { "Objects" } " / "
                a href=(object_link(base, &data_id.object)) { (data_id.object) } " / " (data_id.prop)
            }
            h1 { (id) }
            p.meta {
                (stored_calendar) " · " (item["timezone"].as_str().unwrap_or("UTC"))
                @if let Some(u) = item["units"].as_str() { " · " (u) }
                @if let Some(c) = item["currency"].as_str() { " · " (c) }
                " · version " (value_text(&item["_version"]))
                " · " a href={ (base) "/console/validation?target=" (enc(id)) } { "validation" }
            }
            nav.presets aria-label="Range presets" {
                ul {
                    @for (code, label, _) in PRESETS {
                        li { a href=(self.preset_link(code)) aria-current=[(!custom && code == preset).then_some("true")] { (label) } }
                    }
                }
            }
            form.inline method="get" action=(self.here()) {
                input type="hidden" name="preset" value=(preset);
                div.field {
                    label for="from" { "From" }
                    input #from type="date" name="from" value=[param(q, "from")];
                }
                div.field {
                    label for="to" { "To" }
                    input #to type="date" name="to" value=[param(q, "to")];
                }
                div.field {
                    label for="range" { "Or a range" }
                    input #range type="text" name="range" value=[param(q, "range")] placeholder="last(30)";
                }
                (self.choice.fields())
                div.field {
                    label for="compare" { "Overlay version" }
                    select #compare name="compare" {
                        option value="" { "none" }
                        @for v in self.versions.iter().rev() {
                            option value=(v.version) selected[self.compare == Some(v.version)] {
                                "version " (v.version) " (" (format_instant(v.timestamp)) ")"
                            }
                        }
                    }
                }
                (conversion_fields(q))
                div.field { button type="submit" { "Show" } }
            }
        }
    }

    /// The chart (with an older version overlaid), the CSV download and the table, all of the
    /// same read.
    fn data(&self, item: &Value, older: Option<&Value>) -> Markup {
        let id = self.id;
        let shown = self.choice.describe(item);
        let version = value_text(&item["_version"]);
        let label = match &shown {
            Some(s) => format!("{id}, {s} (version {version})"),
            None => format!("{id} (version {version})"),
        };
        let mut lines = vec![Line::named(label, item)];
        if let (Some(n), Some(older)) = (self.compare, older) {
            lines.push(Line::named(format!("version {n}"), older));
        }
        let mut csv = format!("{}/data/v1/{}/{}", self.base, self.source, enc(id));
        for (i, (k, v)) in self.pairs.iter().enumerate() {
            csv.push_str(&format!("{}{k}={}", if i == 0 { '?' } else { '&' }, enc(v)));
        }
        html! {
            (figure(&lines, "Chart:", "chart-series"))
            p.actions {
                a.button href=(csv) download={ (id.replace(':', "_")) ".csv" } data-accept="text/csv" {
                    "Download CSV"
                }
            }
            (observations(item, shown.as_deref()))
        }
    }
}

/// The table of a series read, newest first: its observations with their statuses, or the
/// periods it was scaled to (EFA blocks, EFA days and gas days named beside their starts).
fn observations(item: &Value, shown: Option<&str>) -> Markup {
    let points: Vec<&Value> = item["data"].as_array().into_iter().flatten().collect();
    let is_failed = |o: &Value| {
        o.pointer("/status/quality")
            .and_then(Value::as_str)
            .is_some_and(|s| s.starts_with("FAILED"))
    };
    let failed = points.iter().filter(|o| is_failed(o)).count();
    // Aggregates made of fewer observations than their periods hold.
    let coverage_of = |o: &Value| {
        o.pointer("/status/source")
            .and_then(Value::as_str)
            .and_then(coverage)
    };
    let partial = points.iter().filter(|o| coverage_of(o).is_some()).count();
    let row_class = |o: &Value| match (is_failed(o), coverage_of(o).is_some()) {
        (true, true) => Some("failed partial"),
        (true, false) => Some("failed"),
        (false, true) => Some("partial"),
        (false, false) => None,
    };
    let zone_name = item["timezone"].as_str().unwrap_or("UTC");
    let zone: chrono_tz::Tz = zone_name.parse().unwrap_or(chrono_tz::UTC);
    let code = item["calendar"].as_str().unwrap_or_default();
    let rows: Vec<(&Value, String, Option<String>)> = points
        .iter()
        .rev()
        .take(TABLE_ROWS)
        .map(|o| match (shown, o["time"].as_str()) {
            (Some(_), Some(time)) => {
                let (start, name) = scaling::period(code, time, zone);
                (*o, start, name)
            }
            _ => (*o, value_text(&o["time"]), None),
        })
        .collect();
    let named = rows.iter().any(|(_, _, name)| name.is_some());
    html! {
        section aria-labelledby="obs-title" {
            h2 #obs-title {
                @match shown { Some(s) => { "Scaled to " (s) } None => { "Observations" } }
            }
            p { (points.len()) @if shown.is_some() { " periods" } " in this range, " (failed) " failed"
                @if partial > 0 { ", " (partial) " partial (from fewer observations than the period holds)" }
                @if points.len() > TABLE_ROWS { "; the newest " (TABLE_ROWS) " below" } "." }
            table.list.obs {
                caption.visually-hidden {
                    @if shown.is_some() { "Periods, newest first, with their values" }
                    @else { "Observations, newest first, with their statuses" }
                }
                thead { tr { th scope="col" { "Time (" (zone_name) ")" }
                             @if named { th scope="col" { "Period" } }
                             th scope="col" { "Value" }
                             th scope="col" { "Quality" } th scope="col" { "Source" }
                             th scope="col" { "Reliability" } } }
                tbody {
                    @for (o, time, name) in &rows {
                        tr class=[row_class(o)] {
                            th scope="row" { (time) }
                            @if named { td { (name.as_deref().unwrap_or_default()) } }
                            td.num { (value_text(&o["value"])) }
                            (quality_cells(o.get("status").unwrap_or(&Value::Null), coverage_of(o)))
                        }
                    }
                }
            }
        }
    }
}

/// Every ondate of a curve, newest first: the union of its tenors' histories.
fn ondates(
    p: &Platform,
    who: &Principal,
    source: Source,
    id: &str,
    tenors: &[String],
) -> Vec<String> {
    let mut dates: Vec<String> = Vec::new();
    for t in tenors {
        if let Ok(h) = read(p, who, source, id, &[("tenor", t.clone())]) {
            for o in h["data"].as_array().into_iter().flatten() {
                if let Some(d) = o["time"].as_str() {
                    if !dates.iter().any(|x| x == d) {
                        dates.push(d.to_string());
                    }
                }
            }
        }
    }
    dates.sort_unstable_by(|a, b| b.cmp(a));
    dates
}

/// The "monthly" toggle of a curve page: the curve (and its overlay) read with
/// `_shape=MONTHLY`.
fn monthly_of(q: &Params) -> Result<bool> {
    match param(q, "shape") {
        None => Ok(false),
        Some(s) if s.eq_ignore_ascii_case("monthly") => Ok(true),
        Some(s) => Err(Error::invalid_parameter(format!(
            "shape \"{s}\" is not a view of a curve: use monthly, or leave it out for the \
             contracts as quoted"
        ))),
    }
}

/// A curve on an ondate (none: its latest), read with these parameters.
fn curve_on(
    p: &Platform,
    who: &Principal,
    source: Source,
    id: &str,
    date: Option<&str>,
    pairs: &[(&str, String)],
) -> Result<Value> {
    let target = match date {
        Some(d) => {
            if !is_date(d) {
                return Err(Error::invalid_parameter(format!(
                    "ondate \"{d}\" is not a date (YYYY-MM-DD)"
                )));
            }
            format!("{id}:{d}")
        }
        None => id.to_string(),
    };
    read(p, who, source, &target, pairs)
}

/// What a curve page was asked and what it read.
struct CurvePage<'a> {
    base: &'a str,
    id: &'a str,
    data_id: DataId,
    q: &'a Params,
    here: String,
    tenors: Vec<String>,
    /// Every ondate of the curve, newest first.
    dates: Vec<String>,
    monthly: bool,
    /// The curve on the chosen ondate, and that ondate.
    curve: Value,
    ondate: String,
    /// The curve on the overlaid ondate.
    compare: Option<Value>,
    /// The tenor whose history is charted, and that history.
    tenor: Option<&'a str>,
    history: Option<Value>,
}

/// `GET /console/curve/{source}/{id}`.
pub fn curve(
    p: &Platform,
    who: &Principal,
    base: &str,
    source: &str,
    id: &str,
    q: &Params,
) -> Result<Markup> {
    let source: Source = source.parse()?;
    let data_id = DataId::parse(id)?;
    if data_id.ondate.is_some() {
        return Err(Error::invalid_parameter(format!(
            "\"{id}\" names an ondate: open {}:{} with ondate={}",
            data_id.object,
            data_id.prop,
            id.rsplit(':').next().unwrap_or_default()
        )));
    }
    let conv = conversion(q);
    let monthly = monthly_of(q)?;
    let mut curve_pairs = conv.clone();
    if monthly {
        curve_pairs.push(("_shape", "MONTHLY".into()));
    }
    let tenors: Vec<String> = read(p, who, source, id, &[("listTenors", "true".into())])?
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let dates = ondates(p, who, source, id, &tenors);
    let on = |date: Option<&str>| curve_on(p, who, source, id, date, &curve_pairs);
    let curve = on(param(q, "ondate"))?;
    let ondate = curve
        .pointer("/ondate/curveDate")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let compare = param(q, "compare").map(|d| on(Some(d))).transpose()?;
    let tenor = param(q, "tenor");
    let history = match tenor {
        Some(t) => {
            let mut pairs = conv.clone();
            pairs.push(("tenor", t.to_string()));
            Some(read(p, who, source, id, &pairs)?)
        }
        None => None,
    };
    let page = CurvePage {
        base,
        id,
        data_id,
        q,
        here: format!("{base}/console/curve/{source}/{}", enc(id)),
        tenors,
        dates,
        monthly,
        curve,
        ondate,
        compare,
        tenor,
        history,
    };
    Ok(page.draw())
}

impl CurvePage<'_> {
    /// The whole page: head, form, charts, and the contracts or the months.
    fn draw(&self) -> Markup {
        html! {
            (self.head())
            (self.form())
            (self.charts())
            @if self.monthly {
                (months_table(&self.curve, &self.ondate))
            } @else {
                (self.contracts_table())
            }
        }
    }

    /// The crumbs, title and what the curve holds.
    fn head(&self) -> Markup {
        let (base, id, data_id) = (self.base, self.id, &self.data_id);
        html! {
            p.crumbs {
                a href={ (base) "/console" } { "Objects" } " / "
                a href=(object_link(base, &data_id.object)) { (data_id.object) } " / " (data_id.prop)
            }
            h1 { (id) }
            p.meta { (self.dates.len()) " ondates · " (self.tenors.len()) " tenors · version " (value_text(&self.curve["_version"]))
                     " · " a href={ (base) "/console/validation?target=" (enc(id)) } { "validation" } }
        }
    }

    /// A picker of the curve's ondates (with "none" first when `none`).
    fn date_select(&self, name: &str, label: &str, chosen: Option<&str>, none: bool) -> Markup {
        html! {
            div.field {
                label for=(name) { (label) }
                select id=(name) name=(name) {
                    @if none { option value="" { "none" } }
                    @for d in &self.dates {
                        option value=(d) selected[chosen == Some(d.as_str())] { (d) }
                    }
                }
            }
        }
    }

    /// The form: ondate, overlaid ondate, tenor history, conversion and the monthly toggle.
    fn form(&self) -> Markup {
        let q = self.q;
        html! {
            form.inline method="get" action=(self.here) {
                (self.date_select("ondate", "Ondate", Some(self.ondate.as_str()), false))
                (self.date_select("compare", "Overlay ondate", param(q, "compare"), true))
                div.field {
                    label for="tenor" { "Tenor history" }
                    select #tenor name="tenor" {
                        option value="" { "none" }
                        @for t in &self.tenors {
                            option value=(t) selected[self.tenor == Some(t.as_str())] { (t) }
                        }
                    }
                }
                (conversion_fields(q))
                div.field {
                    label for="shape" {
                        input #shape type="checkbox" name="shape" value="monthly" checked[self.monthly];
                        " Monthly (shaped)"
                    }
                }
                div.field { button type="submit" { "Show" } }
            }
        }
    }

    /// The curve's chart (another ondate overlaid) and the chosen tenor's history.
    fn charts(&self) -> Markup {
        let mut lines = vec![Line::named(format!("ondate {}", self.ondate), &self.curve)];
        if let (Some(c), Some(d)) = (&self.compare, param(self.q, "compare")) {
            lines.push(Line::named(format!("ondate {d}"), c));
        }
        html! {
            (figure(&lines, "Chart:", "chart-curve"))
            @if let (Some(h), Some(t)) = (&self.history, self.tenor) {
                section aria-labelledby="tenor-title" {
                    h2 #tenor-title { "History of " (t) }
                    (figure(&[Line::named(format!("{t} by ondate"), h)], "Chart:", "chart-tenor"))
                }
            }
        }
    }

    /// The contracts of the ondate as quoted, with their delivery periods and statuses.
    fn contracts_table(&self) -> Markup {
        let contracts: Vec<&Value> = self.curve["contracts"]
            .as_array()
            .into_iter()
            .flatten()
            .collect();
        html! {
            section aria-labelledby="contracts-title" {
                h2 #contracts-title { "Contracts on " (self.ondate) }
                table.list {
                    caption.visually-hidden { "Contracts of the ondate with their delivery periods" }
                    thead { tr { th scope="col" { "Tenor" } th scope="col" { "Absolute" }
                                 th scope="col" { "Delivery" } th scope="col" { "Value" }
                                 th scope="col" { "Quality" } th scope="col" { "Source" }
                                 th scope="col" { "Reliability" } } }
                    tbody {
                        @for c in &contracts {
                            @let props = &c["properties"];
                            tr {
                                th scope="row" { (value_text(&c["tenor"])) }
                                td { (value_text(&props["absolute"])) }
                                td { (value_text(&props["start"])) " – " (value_text(&props["end"])) }
                                td.num { (value_text(&c["value"])) }
                                (quality_cells(c.get("status").unwrap_or(&Value::Null), None))
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The months of a shaped curve: each with its value, the contract that fixed it, its days and
/// weight; the contracts that disagree with their months said first.
fn months_table(curve: &Value, ondate: &str) -> Markup {
    let months: Vec<&Value> = curve["contracts"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let weights = curve["weights"].as_str().unwrap_or("hours");
    // Each month's weight: days, or hours (of the day or of a block such as PEAK).
    let unit = if weights == "days" { "days" } else { "hours" };
    let misses: Vec<&Value> = curve["arbitrage"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    html! {
        section aria-labelledby="months-title" {
            h2 #months-title { "Months on " (ondate) ", shaped by " (weights) }
            @if let Some(message) = curve["message"].as_str() {
                div.notice role="status" {
                    p { (message) }
                    @if !misses.is_empty() {
                        table.list {
                            caption { "Quotes that disagree, fitted by least squares" }
                            thead { tr { th scope="col" { "Contract" } th scope="col" { "Quoted" }
                                         th scope="col" { "Fitted" } th scope="col" { "Miss" } } }
                            tbody {
                                @for m in &misses {
                                    tr {
                                        th scope="row" { (value_text(&m["tenor"])) }
                                        td.num { (value_text(&m["quoted"])) }
                                        td.num { (value_text(&m["fitted"])) }
                                        td.num { (value_text(&m["miss"])) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            table.list {
                caption.visually-hidden { "Months of the shaped curve with the contract that fixed each" }
                thead { tr { th scope="col" { "Month" } th scope="col" { "Value" }
                             th scope="col" { "From" } th scope="col" { "Delivery" }
                             th scope="col" { (if unit == "days" { "Days" } else { "Hours" }) } } }
                tbody {
                    @for m in &months {
                        @let props = &m["properties"];
                        tr {
                            th scope="row" { (value_text(&m["tenor"])) }
                            td.num { (value_text(&m["value"])) }
                            td { (value_text(&props["from"])) }
                            td { (value_text(&props["start"])) " – " (value_text(&props["end"])) }
                            td.num { (value_text(&props[unit])) }
                        }
                    }
                }
            }
        }
    }
}
