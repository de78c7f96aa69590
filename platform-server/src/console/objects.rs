//! The objects pages: a search (auto-complete from `_searchinfo`, a type, a field filter, the
//! source, paging) and an object (fields, data properties, versions, tags, a diff of two
//! versions).

use super::layout::{pager, value_text};
use super::{enc, param, params, reads, skip_of, PAGE};
use maud::{html, Markup};
use platform_core::api::data::DataKind;
use platform_core::api::objects::ObjectVersion;
use platform_core::api::time::format_instant;
use platform_core::api::Page;
use platform_core::api::Params;
use platform_core::api::Principal;
use platform_core::api::Source;
use platform_core::{Error, Platform, Result};
use serde_json::{Map, Value};

/// The console URL of a data item's page.
pub fn data_link(base: &str, object: &str, prop: &str, kind: DataKind) -> String {
    let page = match kind {
        DataKind::Series => "series",
        DataKind::Curve => "curve",
    };
    let source = Source::of_id(object);
    format!(
        "{base}/console/{page}/{source}/{}",
        enc(&format!("{object}:{prop}"))
    )
}

/// The console URL of an object's page.
pub fn object_link(base: &str, id: &str) -> String {
    format!("{base}/console/object/{}/{}", Source::of_id(id), enc(id))
}

/// The data properties of a document: name and kind.
fn data_properties(doc: &Value) -> Vec<(String, DataKind)> {
    doc.as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| DataKind::of(v).map(|kind| (k.clone(), kind)))
        .collect()
}

fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// What a search asked: its words, type, field filter, source and page.
struct Search<'a> {
    base: &'a str,
    source_text: &'a str,
    source: Source,
    skip: u64,
    words: Option<&'a str>,
    kind: Option<&'a str>,
    field: Option<&'a str>,
    value: Option<&'a str>,
}

/// `GET /console`: the search.
pub fn search(p: &Platform, who: &Principal, base: &str, q: &Params) -> Result<Markup> {
    let source_text = param(q, "source").unwrap_or("all");
    let asked = Search {
        base,
        source_text,
        source: source_text.parse()?,
        skip: skip_of(q)?,
        words: param(q, "q"),
        kind: param(q, "type"),
        field: param(q, "field"),
        value: param(q, "value"),
    };
    let page = asked.read(p, who)?;
    Ok(html! {
        h1 { "Objects" }
        (asked.form())
        (pager(page.total, page.estimated, asked.skip, page.items.len(), |to| asked.link(to)))
        (asked.table(&page.items))
    })
}

impl Search<'_> {
    /// The page of objects found, each whole (a search answers only a few fields).
    fn read(&self, p: &Platform, who: &Principal) -> Result<Page<Value>> {
        let (skip_text, limit_text) = (self.skip.to_string(), PAGE.to_string());
        let mut pairs = vec![
            ("_limit", limit_text.as_str()),
            ("_skip", skip_text.as_str()),
        ];
        if self.words.is_none() {
            pairs.push(("_sort", "_id"));
        }
        if let Some(s) = self.words {
            pairs.push(("_search", s));
        }
        if let Some(t) = self.kind {
            pairs.push(("#type", t));
        }
        match (self.field, self.value) {
            (Some(f), Some(v)) => pairs.push((f, v)),
            (Some(_), None) | (None, Some(_)) => {
                return Err(Error::invalid_parameter(
                    "a filter needs both a field and a value (e.g. country and GB, or capacity and gt(100))",
                ))
            }
            (None, None) => {}
        }
        let mut page = reads::objects(p, who, self.source, &params(&pairs))?;
        if self.words.is_some() && !page.items.is_empty() {
            // A search answers a few fields; the rows show each object's type and data too.
            let ids: Vec<String> = page
                .items
                .iter()
                .map(|i| text(i, "_id").to_string())
                .collect();
            let mut by_id: Vec<(&str, &str)> = ids.iter().map(|id| ("_id", id.as_str())).collect();
            by_id.push(("_limit", limit_text.as_str()));
            let full = reads::objects(p, who, Source::All, &params(&by_id))?;
            for item in &mut page.items {
                if let Some(doc) = full.items.iter().find(|d| d["_id"] == item["_id"]) {
                    *item = doc.clone();
                }
            }
        }
        Ok(page)
    }

    /// A link to this search at another page.
    fn link(&self, to: u64) -> String {
        let mut url = format!("{}/console?source={}", self.base, enc(self.source_text));
        for (k, v) in [
            ("q", self.words),
            ("type", self.kind),
            ("field", self.field),
            ("value", self.value),
        ] {
            if let Some(v) = v {
                url.push_str(&format!("&{k}={}", enc(v)));
            }
        }
        format!("{url}&skip={to}")
    }

    /// The search form: words (with suggestions), type, field filter and source.
    fn form(&self) -> Markup {
        let (base, source_text) = (self.base, self.source_text);
        html! {
            form.search method="get" action={ (base) "/console" } role="search" {
                div.field {
                    label for="q" { "Search" }
                    input #q type="search" name="q" value=[self.words] list="q-suggestions"
                        autocomplete="off" data-suggest={ (base) "/object/v1/" (source_text) }
                        aria-describedby="q-help";
                    datalist #q-suggestions {}
                    span #q-help .help { "Words of ids, names and descriptions; -word leaves out." }
                }
                div.field {
                    label for="type" { "Type" }
                    input #type type="text" name="type" value=[self.kind] placeholder="#GasHub";
                }
                div.field {
                    label for="field" { "Field" }
                    input #field type="text" name="field" value=[self.field] placeholder="country";
                }
                div.field {
                    label for="value" { "Value" }
                    input #value type="text" name="value" value=[self.value] placeholder="GB or gt(100)";
                }
                div.field {
                    label for="source" { "Source" }
                    select #source name="source" {
                        @for s in ["all", "private", "public"] {
                            option value=(s) selected[s == source_text] { (s) }
                        }
                    }
                }
                div.field { button type="submit" { "Find" } }
            }
        }
    }

    /// The objects found: id, type, name, version and links to their data.
    fn table(&self, items: &[Value]) -> Markup {
        let base = self.base;
        html! {
            table.list {
                caption.visually-hidden { "Objects found" }
                thead { tr { th scope="col" { "Id" } th scope="col" { "Type" } th scope="col" { "Name" }
                             th scope="col" { "Version" } th scope="col" { "Data" } } }
                tbody {
                    @for item in items {
                        @let id = text(item, "_id");
                        tr {
                            th scope="row" { a href=(object_link(base, id)) { (id) } }
                            td { (text(item, "_type")) }
                            td { (text(item, "name")) }
                            td.num { (value_text(&item["_version"])) }
                            td {
                                @for (prop, kind) in data_properties(item) {
                                    a.data href=(data_link(base, id, &prop, kind)) { (prop) } " "
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Top-level fields as dotted paths to their values (objects opened, arrays kept whole).
fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, v) in m {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&path, v, out);
            }
        }
        other => out.push((prefix.to_string(), other.clone())),
    }
}

/// A document's own fields (system fields but `_type` left out), flattened.
fn fields(doc: &Value) -> Vec<(String, Value)> {
    let mut kept = Map::new();
    for (k, v) in doc.as_object().into_iter().flatten() {
        if !k.starts_with('_') || k == "_type" {
            kept.insert(k.clone(), v.clone());
        }
    }
    let mut out = Vec::new();
    flatten("", &Value::Object(kept), &mut out);
    out
}

/// A field that differs between two versions: its path, its value before and after.
pub type Change = (String, Option<Value>, Option<Value>);

/// The rows that differ between two versions: path, before, after.
pub fn diff(a: &Value, b: &Value) -> Vec<Change> {
    let (fa, fb) = (fields(a), fields(b));
    let mut rows = Vec::new();
    for (path, va) in &fa {
        match fb.iter().find(|(p, _)| p == path) {
            Some((_, vb)) if vb == va => {}
            Some((_, vb)) => rows.push((path.clone(), Some(va.clone()), Some(vb.clone()))),
            None => rows.push((path.clone(), Some(va.clone()), None)),
        }
    }
    for (path, vb) in &fb {
        if !fa.iter().any(|(p, _)| p == path) {
            rows.push((path.clone(), None, Some(vb.clone())));
        }
    }
    rows
}

fn version_param(q: &Params, name: &str) -> Result<Option<u32>> {
    param(q, name)
        .map(|v| {
            v.parse::<u32>().ok().filter(|n| *n > 0).ok_or_else(|| {
                Error::invalid_parameter(format!("{name} \"{v}\" is not a version number"))
            })
        })
        .transpose()
}

/// Each tag of an object's versions, with the version it names.
fn tags_of(versions: &[ObjectVersion]) -> Vec<(String, u32)> {
    versions
        .iter()
        .flat_map(|v| v.tags.iter().map(move |t| (t.clone(), v.version)))
        .collect()
}

/// What an object page read: the document, its versions, and the two versions compared.
struct ObjectPage<'a> {
    base: &'a str,
    id: &'a str,
    here: String,
    doc: Value,
    versions: Vec<ObjectVersion>,
    current: u32,
    from: u32,
    to: u32,
    /// The fields that differ between `from` and `to` (none when they are the same version).
    changes: Option<Vec<Change>>,
    /// The data properties of the document: name and kind.
    data: Vec<(String, DataKind)>,
}

/// `GET /console/object/{source}/{id}`: fields, data, versions, tags and a diff.
pub fn object(
    p: &Platform,
    who: &Principal,
    base: &str,
    source: &str,
    id: &str,
    q: &Params,
) -> Result<Markup> {
    let source: Source = source.parse()?;
    let doc = reads::object(p, who, source, id, None)?;
    let versions = reads::versions(p, who, source, id)?;
    let current = doc["_version"].as_u64().unwrap_or(1) as u32;
    let from = version_param(q, "from")?.unwrap_or(current.saturating_sub(1).max(1));
    let to = version_param(q, "to")?.unwrap_or(current);
    let changes = if from != to {
        let a = reads::object(p, who, source, id, Some(from))?;
        let b = reads::object(p, who, source, id, Some(to))?;
        Some(diff(&a, &b))
    } else {
        None
    };
    let page = ObjectPage {
        base,
        id,
        here: format!("{base}/console/object/{source}/{}", enc(id)),
        data: data_properties(&doc),
        doc,
        versions,
        current,
        from,
        to,
        changes,
    };
    Ok(html! {
        (page.head())
        (page.fields_section())
        (page.data_section())
        (page.versions_section())
        (page.diff_section())
    })
}

impl ObjectPage<'_> {
    /// The crumbs, title, and the current version's number, time and author.
    fn head(&self) -> Markup {
        let (base, id, doc) = (self.base, self.id, &self.doc);
        html! {
            p.crumbs { a href={ (base) "/console" } { "Objects" } " / " (id) }
            h1 { (id) }
            p.meta { "Version " (self.current) " of " (self.versions.len()) ", saved "
                     (text(doc, "_timestamp")) " by " (text(doc, "_user")) }
        }
    }

    /// The current version's fields, but its data properties.
    fn fields_section(&self) -> Markup {
        let data = &self.data;
        html! {
            section aria-labelledby="fields-title" {
                h2 #fields-title { "Fields" }
                table.fields {
                    caption.visually-hidden { "Fields of the current version" }
                    tbody {
                        @for (path, v) in fields(&self.doc).iter().filter(|(p, _)| {
                            !data.iter().any(|(d, _)| p == d || p.starts_with(&format!("{d}.")))
                        }) {
                            tr { th scope="row" { (path) } td { code { (value_text(v)) } } }
                        }
                    }
                }
            }
        }
    }

    /// The data properties, each linked to its page with its kind, calendar and zone.
    fn data_section(&self) -> Markup {
        let (base, id, doc) = (self.base, self.id, &self.doc);
        html! {
            section aria-labelledby="data-title" {
                h2 #data-title { "Data" }
                @if self.data.is_empty() {
                    p { "No data properties." }
                } @else {
                    ul {
                        @for (prop, kind) in &self.data {
                            li {
                                a href=(data_link(base, id, prop, *kind)) { (prop) }
                                " (" (match kind { DataKind::Series => "time series", DataKind::Curve => "curve" })
                                (doc[prop.as_str()].get("calendar").and_then(Value::as_str).map(|c| format!(", {c}")).unwrap_or_default())
                                (doc[prop.as_str()].get("timezone").and_then(Value::as_str).map(|c| format!(", {c}")).unwrap_or_default())
                                ")"
                            }
                        }
                    }
                }
            }
        }
    }

    /// The versions, newest first, and the tags with the versions they name.
    fn versions_section(&self) -> Markup {
        let tags = tags_of(&self.versions);
        html! {
            section aria-labelledby="versions-title" {
                h2 #versions-title { "Versions" }
                table.list {
                    caption.visually-hidden { "Versions, newest first" }
                    thead { tr { th scope="col" { "Version" } th scope="col" { "Saved" }
                                 th scope="col" { "By" } th scope="col" { "Tags" } } }
                    tbody {
                        @for v in self.versions.iter().rev() {
                            tr {
                                th scope="row" { (v.version) }
                                td { (format_instant(v.timestamp)) }
                                td { (v.user) }
                                td { (v.tags.join(", ")) }
                            }
                        }
                    }
                }
                h3 { "Tags" }
                @if tags.is_empty() {
                    p { "No tags." }
                } @else {
                    ul { @for (t, n) in &tags { li { code { (t) } " → version " (n) } } }
                }
            }
        }
    }

    /// The form choosing two versions, and the fields that differ between them.
    fn diff_section(&self) -> Markup {
        let (from, to, count) = (self.from, self.to, self.versions.len());
        html! {
            section aria-labelledby="diff-title" {
                h2 #diff-title { "Compare versions" }
                form.inline method="get" action=(self.here) {
                    div.field {
                        label for="from" { "From version" }
                        input #from type="number" name="from" min="1" max=(count) value=(from);
                    }
                    div.field {
                        label for="to" { "To version" }
                        input #to type="number" name="to" min="1" max=(count) value=(to);
                    }
                    div.field { button type="submit" { "Compare" } }
                }
                @match &self.changes {
                    None => p { "Choose two different versions." },
                    Some(rows) if rows.is_empty() => p { "Versions " (from) " and " (to) " hold the same fields." },
                    Some(rows) => (diff_table(from, to, rows)),
                }
            }
        }
    }
}

/// The fields that differ between two versions: before, after and the change.
fn diff_table(from: u32, to: u32, rows: &[Change]) -> Markup {
    html! {
        table.list.diff {
            caption { "Fields that differ between versions " (from) " and " (to) }
            thead { tr { th scope="col" { "Field" } th scope="col" { "Version " (from) }
                         th scope="col" { "Version " (to) } th scope="col" { "Change" } } }
            tbody {
                @for (path, a, b) in rows {
                    tr {
                        th scope="row" { (path) }
                        td.before { @if let Some(a) = a { code { (value_text(a)) } } }
                        td.after { @if let Some(b) = b { code { (value_text(b)) } } }
                        td { (match (a, b) { (None, _) => "added", (_, None) => "removed", _ => "changed" }) }
                    }
                }
            }
        }
    }
}
