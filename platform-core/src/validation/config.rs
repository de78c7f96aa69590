//! Validation configurations: one per data item (`_id` is the data id), private, versioned.
//!
//! ```text
//! config := {_id: data-id, kind: "timeseries" | "curve", name?, description?, group?, tags?: [text],
//!            enabled?: bool (true), runOnUpdate?: bool (false), scripts?: [script id],
//!            checks: [check] (at most 50), options?: options}
//! check  := {id?: text (made from the name, kept unique), name: text, expression: text (one line),
//!            scope?: "point" (series) | "tenor" (curves, default) | "curve",
//!            severity?: "warning" | "failed" (default) | "severe", enabled?: bool (true)}
//! options := {lookback: 0..=1000 (0), curveHistory: 0..=30 (0), writeStatus: bool (false),
//!             maxPoints: 1..=5000 (1000)}
//! ```
//!
//! Saving fills the defaults, gives every check an id, compiles every check (with the config's
//! script libraries) and evaluates each once on a sample, so a typo, an unknown function or a
//! non-boolean result is a 400 at save time. A field the rules do not read is refused too (a
//! 400 naming it and the fields there are), never kept and ignored: `maxPoints` at the top
//! level would otherwise save and limit nothing. Fields starting with `_` (`_id`, `_type`, the
//! system fields) are the platform's, not the configuration's, and pass.
//!
//! `lookback` and `curveHistory` are minimums: a check reads the history its expression asks
//! for (`mean(30)` thirty earlier observations) whatever they say, and a run reads at least
//! that many earlier observations (previous curves). See `docs/checks.md`.

use super::engine::{self, CheckDef, CheckScope, Library, Severity};
use crate::auth::Principal;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::json::json_kind;
use crate::store::{Collection, DocumentRead};
use serde_json::{json, Map, Value};

/// Most checks in one configuration.
pub const MAX_CHECKS: usize = 50;

/// The fields of a configuration (besides the platform's, which start with `_`).
pub const FIELDS: [&str; 10] = [
    "kind",
    "name",
    "description",
    "group",
    "tags",
    "enabled",
    "runOnUpdate",
    "scripts",
    "checks",
    "options",
];

/// The fields of a check.
pub const CHECK_FIELDS: [&str; 6] = ["id", "name", "expression", "scope", "severity", "enabled"];

/// The options (the fields of `options`).
pub const OPTIONS: [&str; 4] = ["lookback", "curveHistory", "writeStatus", "maxPoints"];

/// The kind of data a configuration checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A time series (point checks).
    TimeSeries,
    /// A curve (tenor and curve checks).
    Curve,
}

impl Kind {
    /// The name in configurations and records.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::TimeSeries => "timeseries",
            Kind::Curve => "curve",
        }
    }

    /// The kind as the answers type it.
    pub fn typed(self) -> crate::validation::counts::ValidationKind {
        match self {
            Kind::TimeSeries => crate::validation::counts::ValidationKind::TimeSeries,
            Kind::Curve => crate::validation::counts::ValidationKind::Curve,
        }
    }

    /// The kind of a typed kind.
    pub fn of(kind: crate::validation::counts::ValidationKind) -> Kind {
        match kind {
            crate::validation::counts::ValidationKind::TimeSeries => Kind::TimeSeries,
            crate::validation::counts::ValidationKind::Curve => Kind::Curve,
        }
    }

    /// Parses a kind.
    pub fn parse(text: &str) -> Result<Kind> {
        match text {
            "timeseries" => Ok(Kind::TimeSeries),
            "curve" => Ok(Kind::Curve),
            other => Err(Error::invalid_body(format!(
                "kind must be timeseries or curve, not \"{other}\""
            ))),
        }
    }
}

/// The options of a configuration, with defaults filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// At least this many earlier observations a run reads before its first point (its point
    /// checks read what their expressions need, more or less).
    pub lookback: usize,
    /// At least this many previous curves a run reads with each curve (its tenor and curve
    /// checks read what their expressions need).
    pub curve_history: usize,
    /// Write the quality status into the data after runs and overrides.
    pub write_status: bool,
    /// A manual run over more points than this goes to the background.
    pub max_points: usize,
}

/// A configuration as the engine and the runner use it.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The stored document (defaults filled).
    pub doc: Map<String, Value>,
    /// The data id.
    pub target: String,
    /// Series or curve.
    pub kind: Kind,
    /// Whether checks run at all.
    pub enabled: bool,
    /// The options.
    pub options: Options,
    /// Every check (enabled or not), in order.
    pub checks: Vec<(CheckDef, bool)>,
}

impl Config {
    /// The configuration's name, when it has one.
    pub fn name(&self) -> Option<String> {
        self.doc
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    /// Reads a stored (normalised) configuration.
    pub fn from_doc(doc: Map<String, Value>) -> Result<Config> {
        let target = doc
            .get("_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let kind = Kind::parse(doc.get("kind").and_then(Value::as_str).unwrap_or_default())?;
        let opt = doc.get("options").cloned().unwrap_or_else(|| json!({}));
        let num = |k: &str, d: u64| opt.get(k).and_then(Value::as_u64).unwrap_or(d) as usize;
        let options = Options {
            lookback: num("lookback", 0),
            curve_history: num("curveHistory", 0),
            write_status: opt
                .get("writeStatus")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            max_points: num("maxPoints", 1000),
        };
        let mut checks = Vec::new();
        for c in doc
            .get("checks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let text = |k: &str| {
                c.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            checks.push((
                CheckDef {
                    id: text("id"),
                    name: text("name"),
                    expression: text("expression"),
                    scope: scope_of(&text("scope"))?,
                    severity: severity_of(&text("severity"))?,
                },
                c.get("enabled").and_then(Value::as_bool).unwrap_or(true),
            ));
        }
        Ok(Config {
            enabled: doc.get("enabled").and_then(Value::as_bool).unwrap_or(true),
            target,
            kind,
            options,
            checks,
            doc,
        })
    }

    /// The script libraries the checks may call.
    pub fn scripts(&self) -> Vec<String> {
        self.doc
            .get("scripts")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn scope_of(text: &str) -> Result<CheckScope> {
    match text {
        "point" => Ok(CheckScope::Point),
        "tenor" => Ok(CheckScope::Tenor),
        "curve" => Ok(CheckScope::Curve),
        other => Err(Error::invalid_body(format!(
            "check scope must be point, tenor or curve, not \"{other}\""
        ))),
    }
}

fn severity_of(text: &str) -> Result<Severity> {
    match text {
        "warning" => Ok(Severity::Warning),
        "failed" => Ok(Severity::Failed),
        "severe" => Ok(Severity::Severe),
        other => Err(Error::invalid_body(format!(
            "check severity must be warning, failed or severe, not \"{other}\""
        ))),
    }
}

/// The name of a severity.
pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Warning => "warning",
        Severity::Failed => "failed",
        Severity::Severe => "severe",
    }
}

/// The name of a check scope.
pub fn scope_name(s: CheckScope) -> &'static str {
    match s {
        CheckScope::Point => "point",
        CheckScope::Tenor => "tenor",
        CheckScope::Curve => "curve",
    }
}

/// An id made from a check name: lower-case letters, digits and `_`.
fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_string();
    if out.is_empty() {
        "check".into()
    } else {
        out
    }
}

/// Fills the defaults of a configuration, checks its shape and bounds, and gives every check a
/// unique id.
pub fn normalise(mut doc: Map<String, Value>) -> Result<Map<String, Value>> {
    known_fields(&doc)?;
    let kind = match doc.get("kind") {
        Some(Value::String(k)) => Kind::parse(k)?,
        None | Some(Value::Null) => {
            return Err(Error::new(
                ErrorCode::MissingParameter,
                "a validation configuration needs a kind (timeseries or curve)",
            ))
        }
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "kind must be a string, not {}",
                json_kind(other)
            )))
        }
    };
    normalise_fields(&mut doc)?;
    let options = normalise_options(doc.get("options"))?;
    doc.insert("options".into(), Value::Object(options));
    let checks = normalise_checks(doc.get("checks"), kind)?;
    doc.insert("checks".into(), Value::Array(checks));
    Ok(doc)
}

/// Refuses a top-level field the rules do not read (one starting with `_` is the platform's),
/// saying where an option or a check's field belongs.
fn known_fields(doc: &Map<String, Value>) -> Result<()> {
    let Some(field) = doc
        .keys()
        .find(|k| !k.starts_with('_') && !FIELDS.contains(&k.as_str()))
    else {
        return Ok(());
    };
    let hint = if OPTIONS.contains(&field.as_str()) {
        format!(
            " ({field} is an option: it belongs under options, as {{\"options\": {{\"{field}\": ...}}}})"
        )
    } else if CHECK_FIELDS.contains(&field.as_str()) {
        format!(" ({field} is a field of a check: it belongs in each check of checks)")
    } else {
        String::new()
    };
    Err(Error::invalid_body(format!(
        "unknown field \"{field}\" in a validation configuration{hint}; its fields are _id, {}",
        FIELDS.join(", ")
    )))
}

/// The texts, lists and switches of a configuration (`enabled` and `runOnUpdate` filled).
fn normalise_fields(doc: &mut Map<String, Value>) -> Result<()> {
    for f in ["name", "description", "group"] {
        if doc.get(f).is_some_and(|v| !v.is_string() && !v.is_null()) {
            return Err(Error::invalid_body(format!("{f} must be a string")));
        }
    }
    for f in ["tags", "scripts"] {
        match doc.get(f) {
            None | Some(Value::Null) => {}
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
            Some(_) => {
                return Err(Error::invalid_body(format!(
                    "{f} must be an array of strings"
                )))
            }
        }
    }
    for (f, default) in [("enabled", true), ("runOnUpdate", false)] {
        match doc.get(f) {
            None | Some(Value::Null) => {
                doc.insert(f.into(), Value::Bool(default));
            }
            Some(Value::Bool(_)) => {}
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "{f} must be a boolean, not {}",
                    json_kind(other)
                )))
            }
        }
    }
    Ok(())
}

/// Options and their bounds, defaults filled.
fn normalise_options(options: Option<&Value>) -> Result<Map<String, Value>> {
    let mut options = match options {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(o)) => o.clone(),
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "options must be an object, not {}",
                json_kind(other)
            )))
        }
    };
    for (name, lo, hi, default) in [
        ("lookback", 0u64, 1000u64, 0u64),
        ("curveHistory", 0, 30, 0),
        ("maxPoints", 1, 5000, 1000),
    ] {
        match options.get(name) {
            None | Some(Value::Null) => {
                options.insert(name.into(), json!(default));
            }
            Some(v) => match v.as_u64() {
                Some(n) if (lo..=hi).contains(&n) => {}
                _ => {
                    return Err(Error::invalid_parameter(format!(
                        "options.{name} must be an integer from {lo} to {hi}, not {v}"
                    )))
                }
            },
        }
    }
    match options.get("writeStatus") {
        None | Some(Value::Null) => {
            options.insert("writeStatus".into(), Value::Bool(false));
        }
        Some(Value::Bool(_)) => {}
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "options.writeStatus must be a boolean, not {other}"
            )))
        }
    }
    for k in options.keys() {
        if !OPTIONS.contains(&k.as_str()) {
            return Err(Error::invalid_parameter(format!(
                "unknown option \"{k}\": use {}",
                OPTIONS.join(", ")
            )));
        }
    }
    Ok(options)
}

/// The checks (at most [`MAX_CHECKS`]), each normalised, their ids unique.
fn normalise_checks(checks: Option<&Value>, kind: Kind) -> Result<Vec<Value>> {
    let checks = match checks {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "checks must be an array, not {}",
                json_kind(other)
            )))
        }
    };
    if checks.len() > MAX_CHECKS {
        return Err(Error::invalid_parameter(format!(
            "a configuration has at most {MAX_CHECKS} checks, this one has {}",
            checks.len()
        )));
    }
    let mut ids: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(checks.len());
    for (i, c) in checks.into_iter().enumerate() {
        out.push(normalise_check(i, c, kind, &mut ids)?);
    }
    Ok(out)
}

/// Check `i`: its expression (one line), name (the expression when none), an id not among
/// `ids` (then added to them), the scope its kind allows, its severity and switch.
fn normalise_check(i: usize, c: Value, kind: Kind, ids: &mut Vec<String>) -> Result<Value> {
    let Value::Object(mut c) = c else {
        return Err(Error::invalid_body(format!(
            "checks[{i}] must be an object"
        )));
    };
    if let Some(field) = c.keys().find(|k| !CHECK_FIELDS.contains(&k.as_str())) {
        return Err(Error::invalid_body(format!(
            "checks[{i}]: unknown field \"{field}\" in a check: its fields are {}",
            CHECK_FIELDS.join(", ")
        )));
    }
    let expression = match c.get("expression") {
        Some(Value::String(e)) if !e.trim().is_empty() => e.clone(),
        _ => {
            return Err(Error::new(
                ErrorCode::MissingParameter,
                format!("checks[{i}] needs an expression"),
            ))
        }
    };
    if expression.contains('\n') {
        return Err(Error::invalid_body(format!(
            "checks[{i}]: an expression is one line"
        )));
    }
    // The text fields of a check are text: another type is a mistake, not a default.
    for f in ["id", "name", "scope", "severity"] {
        if c.get(f).is_some_and(|v| !v.is_string() && !v.is_null()) {
            return Err(Error::invalid_body(format!(
                "checks[{i}].{f} must be a string, not {}",
                json_kind(&c[f])
            )));
        }
    }
    let name = c
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or(&expression)
        .to_string();
    c.insert("name".into(), Value::String(name.clone()));
    let base = match c.get("id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        _ => slug(&name),
    };
    let mut id = base.clone();
    let mut n = 2;
    while ids.contains(&id) {
        id = format!("{base}_{n}");
        n += 1;
    }
    ids.push(id.clone());
    c.insert("id".into(), Value::String(id));
    let scope = match (kind, c.get("scope").and_then(Value::as_str)) {
        (Kind::TimeSeries, None | Some("point")) => "point",
        (Kind::Curve, None | Some("tenor")) => "tenor",
        (Kind::Curve, Some("curve")) => "curve",
        (k, Some(other)) => {
            return Err(Error::invalid_body(format!(
                "checks[{i}]: scope \"{other}\" does not apply to a {} configuration",
                k.as_str()
            )))
        }
    };
    c.insert("scope".into(), Value::String(scope.into()));
    let severity = c
        .get("severity")
        .and_then(Value::as_str)
        .unwrap_or("failed")
        .to_string();
    severity_of(&severity)
        .map_err(|e| Error::invalid_body(format!("checks[{i}]: {}", e.public_message())))?;
    c.insert("severity".into(), Value::String(severity));
    match c.get("enabled") {
        None | Some(Value::Null) => {
            c.insert("enabled".into(), Value::Bool(true));
        }
        Some(Value::Bool(_)) => {}
        Some(_) => {
            return Err(Error::invalid_body(format!(
                "checks[{i}].enabled must be a boolean"
            )))
        }
    }
    Ok(Value::Object(c))
}

/// Loads the script libraries of a configuration (each must exist and be a rhai script).
pub fn libraries(tx: &dyn DocumentRead, p: &Principal, config: &Config) -> Result<Vec<Library>> {
    let mut libs = Vec::new();
    for id in config.scripts() {
        let scope = Scope::for_source(Source::of_id(&id), p);
        let doc = tx
            .current(Collection::Script, &scope, &id)?
            .ok_or_else(|| {
                Error::not_found(format!(
                    "script library \"{id}\" of {} does not exist",
                    config.target
                ))
            })?;
        let (source, kind) = crate::scripts::source_of(&doc.body);
        if kind != "rhai" {
            return Err(Error::invalid_body(format!(
                "script library \"{id}\" is a {kind} script, not rhai"
            )));
        }
        libs.push(Library {
            id: id.clone(),
            source: source.to_string(),
        });
    }
    Ok(libs)
}

/// The saved configuration of a data item, as its document.
pub(crate) fn saved(
    tx: &dyn crate::store::DocumentRead,
    p: &Principal,
    target: &str,
) -> Result<Map<String, Value>> {
    Ok(tx
        .current(Collection::ValidationConfig, &p.private_scope(), target)?
        .ok_or_else(|| {
            Error::invalid_parameter(format!("\"{target}\" has no validation configuration"))
        })?
        .body)
}

/// Compiles the enabled checks of a configuration.
pub fn compile(config: &Config, libs: &[Library]) -> Result<engine::CompiledChecks> {
    engine::compile(&enabled(config), libs)
}

/// The enabled checks of a configuration.
pub(crate) fn enabled(config: &Config) -> Vec<CheckDef> {
    config
        .checks
        .iter()
        .filter(|(_, on)| *on)
        .map(|(d, _)| d.clone())
        .collect()
}

/// Compiled check sets kept for reuse.
const COMPILED_KEPT: usize = 64;

type CompiledCache = std::sync::Mutex<Vec<(String, std::sync::Arc<engine::CompiledChecks>)>>;

/// [`compile`], reusing the compiled form of the same checks and libraries: a thousand data
/// items with one set of checks compile it once. The cache is keyed by the whole text of the
/// checks and libraries (never by a name that could change), so a hit is the same program.
pub fn compile_cached(
    config: &Config,
    libs: &[Library],
) -> Result<std::sync::Arc<engine::CompiledChecks>> {
    static CACHE: std::sync::OnceLock<CompiledCache> = std::sync::OnceLock::new();
    let defs = enabled(config);
    let mut key = String::new();
    for d in &defs {
        key.push_str(&format!(
            "{:?}\u{0}",
            (&d.id, &d.name, &d.expression, d.scope, d.severity)
        ));
    }
    key.push('\u{1}');
    for l in libs {
        key.push_str(&format!("{:?}\u{0}", (&l.id, &l.source)));
    }
    let cache = CACHE.get_or_init(Default::default);
    if let Ok(kept) = cache.lock() {
        if let Some((_, hit)) = kept.iter().find(|(k, _)| *k == key) {
            return Ok(hit.clone());
        }
    }
    let compiled = std::sync::Arc::new(engine::compile(&defs, libs)?);
    if let Ok(mut kept) = cache.lock() {
        if kept.len() >= COMPILED_KEPT {
            kept.remove(0);
        }
        kept.push((key, compiled.clone()));
    }
    Ok(compiled)
}
