//! `tune`: new thresholds for the saved checks of data items, from points users marked as
//! false alarms; nothing is stored.
//!
//! A request has up to [`MAX_ITEMS`] items `{target, points, tenors?}` and the window of
//! `suggest` (`days`, `maxCurves`; the window is widened to reach the oldest given point).
//! Labels come from the validation records: a given point whose record is `overridden` (or that
//! has no record, or only a `warning`, which cannot be overridden) is a false alarm; a given
//! point whose record is `failed`, `severe` or `error`, and any other point of the window
//! failing the check with such a record, is a standing (true) failure.
//!
//! For each saved check that fails on a given point: every numeric literal that sits in a
//! comparison or in `between`/`clamp` (not the counts given to built-ins such as
//! `pct_change(1)`; equal literals move together) is moved, up and down, by an exponential
//! search then a bisection to the smallest value that lets every false alarm pass; a float is
//! then widened by 2% and rounded outward to two significant digits, a whole number stays
//! exact. Among the moves that pass all false alarms, the one losing the fewest standing
//! failures, then changing the window's failures least, wins. When no single threshold passes
//! them all (overridden highs and lows of one band), each threshold moves in the direction that
//! helps most, just far enough for the false alarms it can pass, and the moves are tried
//! together. A proposal that lets a standing
//! failure through says so in `reason`, with the points.

use super::config::{self, severity_name, Config};
use super::engine::{CheckDef, Library};
use super::records;
use super::suggest::{
    cell_json, object, round_to, scope_name, score, step_for, Cell, Loaded, Scored, Span,
};
use crate::auth::Principal;
use crate::documents::json_kind;
use crate::error::{Error, ErrorCode, Result};
use crate::store::{Collection, ReadTx};
use crate::Platform;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

/// Most items one `tune` takes.
pub const MAX_ITEMS: usize = 25;

/// One item of a tune request.
#[derive(Debug, Clone, PartialEq)]
pub struct TuneItem {
    /// The data id.
    pub target: String,
    /// The failing points to tune for.
    pub points: Vec<String>,
    /// Curves: only these tenors.
    pub tenors: Option<Vec<String>>,
}

fn strings(v: Option<&Value>, name: &str) -> Result<Option<Vec<String>>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str().map(str::to_string).ok_or_else(|| {
                    Error::invalid_body(format!("{name} must be an array of strings"))
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(other) => Err(Error::invalid_body(format!(
            "{name} must be an array, not {}",
            json_kind(other)
        ))),
    }
}

/// Reads the items of a tune request.
pub fn items_of(body: &Map<String, Value>) -> Result<Vec<TuneItem>> {
    let items = match body.get("items") {
        None | Some(Value::Null) => {
            return Err(Error::new(ErrorCode::MissingParameter, "items is missing"))
        }
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "items must be an array, not {}",
                json_kind(other)
            )))
        }
    };
    if items.is_empty() {
        return Err(Error::new(ErrorCode::MissingParameter, "items is empty"));
    }
    if items.len() > MAX_ITEMS {
        return Err(Error::invalid_parameter(format!(
            "at most {MAX_ITEMS} items; {} were given",
            items.len()
        )));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let Value::Object(m) = it else {
                return Err(Error::invalid_body(format!(
                    "items[{i}] must be an object {{target, points, tenors?}}"
                )));
            };
            let target = match m.get("target") {
                Some(Value::String(t)) if !t.is_empty() => t.clone(),
                _ => {
                    return Err(Error::new(
                        ErrorCode::MissingParameter,
                        format!("items[{i}] needs a target"),
                    ))
                }
            };
            let points = strings(m.get("points"), &format!("items[{i}].points"))?
                .filter(|p| !p.is_empty())
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::MissingParameter,
                        format!("items[{i}] needs points (the failing points to tune for)"),
                    )
                })?;
            Ok(TuneItem {
                target,
                points,
                tenors: strings(m.get("tenors"), &format!("items[{i}].tenors"))?,
            })
        })
        .collect()
}

/// A numeric literal of an expression that a threshold search may move.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    /// Byte span in the source (a unary minus included).
    pub start: usize,
    /// End of the span (exclusive).
    pub end: usize,
    /// Its value.
    pub value: f64,
    /// Written without a decimal point or exponent.
    pub int: bool,
}

/// The literals of an expression that are thresholds: in a comparison, or an argument of
/// `between` or `clamp`; not the arguments of other calls (`pct_change(1)`, `robust_z(20)`).
pub fn thresholds(src: &str) -> Vec<Literal> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut calls: Vec<Option<String>> = Vec::new();
    let mut last_ident: Option<String> = None;
    // The last significant character before the current token.
    let mut prev: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'"' || c == b'\'' || c == b'`' {
            let mut j = i + 1;
            while j < b.len() && b[j] != c {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
            prev = Some(c);
            last_ident = None;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            last_ident = Some(src[s..i].to_string());
            prev = Some(b'a');
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            let mut int = true;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
                int = false;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    int = false;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text = &src[s..i];
            let tunable = match calls.last() {
                None | Some(None) => true,
                Some(Some(name)) => matches!(name.as_str(), "between" | "clamp"),
            };
            if let (true, Ok(v)) = (tunable, text.parse::<f64>()) {
                // A unary minus directly before (after an operator, a comma or a bracket).
                let before = src[..s].trim_end();
                let unary = before.ends_with('-') && {
                    let rest = before[..before.len() - 1].trim_end();
                    rest.is_empty() || rest.ends_with(|ch: char| "(,<>=!&|".contains(ch))
                };
                let (start, value) = if unary {
                    (before.len() - 1, -v)
                } else {
                    (s, v)
                };
                out.push(Literal {
                    start,
                    end: i,
                    value,
                    int,
                });
            }
            prev = Some(b'0');
            last_ident = None;
            continue;
        }
        match c {
            b'(' => calls.push(if prev == Some(b'a') {
                last_ident.take()
            } else {
                None
            }),
            b')' => {
                calls.pop();
            }
            _ => {}
        }
        if c != b'(' {
            last_ident = None;
        }
        prev = Some(c);
        i += 1;
    }
    out
}

/// `src` with the literals at `spans` replaced by `x`.
fn replace(src: &str, spans: &[&Literal], x: f64, int: bool) -> String {
    replace_many(src, &[(spans, x, int)])
}

/// `src` with several groups of literals replaced, each by its value.
fn replace_many(src: &str, edits: &[(&[&Literal], f64, bool)]) -> String {
    let mut all: Vec<(&Literal, String)> = Vec::new();
    for (spans, x, int) in edits {
        let text = if *int {
            format!("{}", *x as i64)
        } else {
            super::suggest::float_literal(*x)
        };
        let text = if *x < 0.0 { format!("({text})") } else { text };
        all.extend(spans.iter().map(|l| (*l, text.clone())));
    }
    all.sort_by_key(|(l, _)| l.start);
    let mut out = String::with_capacity(src.len() + 8);
    let mut at = 0;
    for (l, text) in all {
        out.push_str(&src[at..l.start]);
        out.push_str(&text);
        at = l.end;
    }
    out.push_str(&src[at..]);
    out
}

/// The smallest move of `v` in direction `dir` (+1 up, -1 down) for which `passes` holds,
/// found by doubling then bisection (to 0.1% of the move for a float); whole numbers move by
/// whole steps. None when no move
/// up to a billion times the value's size passes.
pub fn smallest_move(
    v: f64,
    int: bool,
    dir: f64,
    mut passes: impl FnMut(f64) -> Result<bool>,
) -> Result<Option<f64>> {
    let base = if v != 0.0 { v.abs() } else { 1.0 };
    let delta = |k: i32| {
        let d = base * 2f64.powi(k - 6);
        if int {
            d.round().max(1.0)
        } else {
            d
        }
    };
    let mut lo = 0.0;
    let mut hi = None;
    for k in 0..=36 {
        let d = delta(k);
        if passes(v + dir * d)? {
            hi = Some(d);
            break;
        }
        lo = d;
    }
    let Some(mut hi) = hi else {
        return Ok(None);
    };
    for _ in 0..40 {
        if int && hi - lo <= 1.0 {
            break;
        }
        // A float is then widened 2% and rounded to two significant digits: 0.1% is enough.
        if !int && ((hi - lo) <= 1e-3 * hi || (hi - lo) <= 1e-9 * base) {
            break;
        }
        let mid = if int {
            ((lo + hi) / 2.0).floor()
        } else {
            (lo + hi) / 2.0
        };
        if passes(v + dir * mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(v + dir * hi))
}

/// A float threshold widened by 2% of its size and rounded outward to two significant digits.
pub fn round_relaxed(x: f64, dir: f64) -> f64 {
    let widened = x + dir * 0.02 * x.abs();
    if widened == 0.0 {
        return 0.0;
    }
    round_to(widened, step_for(widened), dir > 0.0)
}

/// How a point is labelled by its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    /// Overridden (or asked without a failing record): a false alarm.
    FalseAlarm,
    /// A failure left standing.
    Standing,
    /// Neither.
    Unlabelled,
}

/// One proposal for a check.
struct Proposal {
    expression: String,
    scored: Scored,
    lost: Vec<usize>,
}

impl Platform {
    /// `tune`: proposed relaxations of saved checks; nothing is stored.
    pub fn validation_tune(&self, p: &Principal, body: &Value) -> Result<Value> {
        let m = object(body)?;
        let items = items_of(m)?;
        let span = Span::of(m)?;
        let (from, to) = super::suggest::window_dates(self.now().date_naive(), span.days);
        let tx = self.read()?;
        let mut results = Vec::with_capacity(items.len());
        for item in &items {
            let started = Instant::now();
            let mut out = match self.tune_one(tx.as_ref(), p, item, span) {
                Ok(m) => m,
                Err(e) if e.code() == ErrorCode::Internal => return Err(e),
                Err(e) => {
                    let mut m = Map::new();
                    m.insert("target".into(), json!(item.target));
                    m.insert("error".into(), json!(e.public_message()));
                    m
                }
            };
            out.insert("ms".into(), json!(super::suggest::ms(started)));
            results.push(Value::Object(out));
        }
        Ok(json!({
            "days": span.days,
            "from": from.to_string(),
            "to": to.to_string(),
            "results": results,
        }))
    }

    fn tune_one(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        item: &TuneItem,
        span: Span,
    ) -> Result<Map<String, Value>> {
        let target = &item.target;
        let scope = p.private_scope();
        let doc = tx
            .current(Collection::ValidationConfig, &scope, target)?
            .ok_or_else(|| {
                Error::invalid_parameter(format!("\"{target}\" has no validation configuration"))
            })?
            .body;
        let cfg = Config::from_doc(doc)?;
        let libs = config::libraries(tx, p, &cfg)?;
        let defs: Vec<CheckDef> = cfg
            .checks
            .iter()
            .filter(|(_, on)| *on)
            .map(|(d, _)| d.clone())
            .collect();
        let loaded = self.load_window(tx, p, target, cfg.kind, span, &item.points)?;
        let (lookback, history) = (cfg.options.lookback, cfg.options.curve_history);
        let base = score(&loaded, &defs, &libs, lookback, history)?;
        let mut out = Map::new();
        out.insert("target".into(), json!(target));
        out.insert("kind".into(), json!(cfg.kind.as_str()));
        out.insert("points".into(), json!(loaded.len()));
        // Labels of the asked points and of every failing point, from their records.
        let mut labels: HashMap<usize, Label> = HashMap::new();
        let stored = super::run::record_statuses(tx, &scope, target)?;
        let record_status = |pos: usize| -> Result<Option<String>> {
            Ok(stored
                .get(loaded.label(pos).as_str())
                .map(|s| s.to_string()))
        };
        for &pos in &loaded.asked {
            let label = match record_status(pos)?.as_deref() {
                Some(s) if records::is_failing(s) => Label::Standing,
                _ => Label::FalseAlarm,
            };
            labels.insert(pos, label);
        }
        for s in &base {
            for c in &s.fails {
                if let std::collections::hash_map::Entry::Vacant(e) = labels.entry(c.point) {
                    let label = match record_status(c.point)?.as_deref() {
                        Some(s) if records::is_failing(s) => Label::Standing,
                        _ => Label::Unlabelled,
                    };
                    e.insert(label);
                }
            }
        }
        let wanted_tenor = |t: Option<&str>| match (&item.tenors, t) {
            (Some(only), Some(t)) => only.iter().any(|x| x == t),
            _ => true,
        };
        let mut checks = Vec::new();
        for (def, s) in defs.iter().zip(&base) {
            let failing: Vec<&Cell> = s
                .fails
                .iter()
                .filter(|c| loaded.asked.contains(&c.point) && wanted_tenor(c.tenor.as_deref()))
                .collect();
            if failing.is_empty() {
                continue;
            }
            let key = |c: &Cell| (c.point, c.tenor.clone());
            let false_alarms: Vec<(usize, Option<String>)> = failing
                .iter()
                .filter(|c| labels.get(&c.point) == Some(&Label::FalseAlarm))
                .map(|c| key(c))
                .collect();
            let standing: Vec<(usize, Option<String>)> = s
                .fails
                .iter()
                .filter(|c| labels.get(&c.point) == Some(&Label::Standing))
                .map(key)
                .collect();
            let runs = s.runs_from(0);
            let mut check = json!({
                "id": def.id,
                "name": def.name,
                "expression": def.expression,
                "severity": severity_name(def.severity),
                "scope": scope_name(def.scope),
                "failing": failing.len(),
                "failingPoints": failing.iter().map(|c| cell_json(&loaded, c)).collect::<Vec<_>>(),
                "runs": runs,
                "falseAlarms": false_alarms.len(),
                "standing": standing.len(),
            });
            let window =
                |after: usize| json!({"runs": runs, "before": s.fails.len(), "after": after});
            if false_alarms.is_empty() {
                check["suggested"] = Value::Null;
                check["reason"] = json!(format!(
                    "the {} given point(s) failing it are standing failures (not overridden): nothing to relax",
                    failing.len()
                ));
                check["window"] = window(s.fails.len());
                checks.push(check);
                continue;
            }
            let best = self.best_relaxation(
                &loaded,
                def,
                &libs,
                lookback,
                history,
                &false_alarms,
                &standing,
            )?;
            match best {
                Some(prop) => {
                    let lost: Vec<Value> = prop
                        .lost
                        .iter()
                        .map(|&i| {
                            let (pt, t) = &standing[i];
                            match t {
                                Some(t) => json!(format!("{} {t}", loaded.label(*pt))),
                                None => json!(loaded.label(*pt)),
                            }
                        })
                        .collect();
                    let mut reason = format!(
                        "the smallest rounded change that lets the {} false alarm(s) pass (the given points that were overridden or have no failing record)",
                        false_alarms.len()
                    );
                    if standing.is_empty() {
                        reason.push_str("; no failure in the window was left standing");
                    } else if lost.is_empty() {
                        reason.push_str(&format!(
                            "; it keeps all {} standing failure(s)",
                            standing.len()
                        ));
                    } else {
                        reason.push_str(&format!(
                            "; WARNING: it would let {} of {} standing failure(s) through ({}): keep the old check at severity warning next to it, or override those points too",
                            lost.len(),
                            standing.len(),
                            lost.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", ")
                        ));
                    }
                    reason.push_str(&format!(
                        "; in the window {} of {runs} evaluations failed before, {} would fail after",
                        s.fails.len(),
                        prop.scored.fails.len()
                    ));
                    check["suggested"] = json!(prop.expression);
                    check["reason"] = json!(reason);
                    check["letsThrough"] = Value::Array(lost);
                    check["window"] = window(prop.scored.fails.len());
                }
                None => {
                    check["suggested"] = Value::Null;
                    check["reason"] = json!(format!(
                        "no threshold of this check lets all {} false alarm(s) pass: change the expression (add a guard for what those points share), or keep overriding them",
                        false_alarms.len()
                    ));
                    check["window"] = window(s.fails.len());
                }
            }
            checks.push(check);
        }
        if checks.is_empty() {
            out.insert(
                "message".into(),
                json!("no enabled check fails on the given points: nothing to tune"),
            );
        }
        out.insert("checks".into(), Value::Array(checks));
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn best_relaxation(
        &self,
        loaded: &Loaded,
        def: &CheckDef,
        libs: &[Library],
        lookback: usize,
        history: usize,
        false_alarms: &[(usize, Option<String>)],
        standing: &[(usize, Option<String>)],
    ) -> Result<Option<Proposal>> {
        let lits = thresholds(&def.expression);
        // Equal literals move together.
        let mut groups: BTreeMap<String, Vec<&Literal>> = BTreeMap::new();
        for l in &lits {
            groups
                .entry(def.expression[l.start..l.end].trim().to_string())
                .or_default()
                .push(l);
        }
        let run = |expr: &str| -> Result<Option<Scored>> {
            let mut d = def.clone();
            d.expression = expr.to_string();
            match score(loaded, &[d], libs, lookback, history) {
                Ok(mut s) => Ok(s.pop()),
                Err(e) if e.code() == ErrorCode::Internal => Err(e),
                Err(_) => Ok(None),
            }
        };
        let passes_all = |s: &Scored| {
            false_alarms
                .iter()
                .all(|(pt, t)| !s.fails_at(*pt, t.as_deref()))
        };
        type Best = Option<(usize, usize, f64, Proposal)>;
        let mut best: Best = None;
        let consider = |best: &mut Best, expression: String, change: f64, scored: Scored| {
            let lost: Vec<usize> = standing
                .iter()
                .enumerate()
                .filter(|(_, (pt, t))| !scored.fails_at(*pt, t.as_deref()))
                .map(|(i, _)| i)
                .collect();
            let rank = (lost.len(), scored.fails.len());
            let better = best
                .as_ref()
                .is_none_or(|(l, f, c, _)| rank < (*l, *f) || (rank == (*l, *f) && change < *c));
            if better {
                *best = Some((
                    rank.0,
                    rank.1,
                    change,
                    Proposal {
                        expression,
                        scored,
                        lost,
                    },
                ));
            }
        };
        for spans in groups.values() {
            let (v, int) = (spans[0].value, spans.iter().all(|l| l.int));
            for dir in [1.0, -1.0] {
                let found = smallest_move(v, int, dir, |x| {
                    Ok(run(&replace(&def.expression, spans, x, int))?
                        .is_some_and(|s| passes_all(&s)))
                })?;
                let Some(exact) = found else {
                    continue;
                };
                let mut chosen = exact;
                if !int {
                    let nice = round_relaxed(exact, dir);
                    // Rounding outward only relaxes further; keep the exact value if not.
                    if run(&replace(&def.expression, spans, nice, int))?
                        .is_some_and(|s| passes_all(&s))
                    {
                        chosen = nice;
                    }
                }
                let expression = replace(&def.expression, spans, chosen, int);
                let Some(scored) = run(&expression)? else {
                    continue;
                };
                let change = (chosen - v).abs() / v.abs().max(1e-12);
                consider(&mut best, expression, change, scored);
            }
        }
        if best.is_some() || groups.len() < 2 {
            return Ok(best.map(|(_, _, _, p)| p));
        }
        // No single threshold passes them all (say overridden highs and lows of a band): move
        // each threshold, in the direction that lets the most of them pass, just far enough
        // for those, and try the moves together.
        let mut moves: Vec<(&[&Literal], f64, bool)> = Vec::new();
        for spans in groups.values() {
            let (v, int) = (spans[0].value, spans.iter().all(|l| l.int));
            let far = if v != 0.0 { v.abs() } else { 1.0 } * 2f64.powi(30);
            let mut pick: Option<(f64, Vec<usize>)> = None;
            for dir in [1.0, -1.0] {
                let Some(s) = run(&replace(&def.expression, spans, v + dir * far, int))? else {
                    continue;
                };
                let helped: Vec<usize> = (0..false_alarms.len())
                    .filter(|&i| {
                        let (pt, t) = &false_alarms[i];
                        !s.fails_at(*pt, t.as_deref())
                    })
                    .collect();
                if !helped.is_empty() && pick.as_ref().is_none_or(|(_, h)| helped.len() > h.len()) {
                    pick = Some((dir, helped));
                }
            }
            let Some((dir, helped)) = pick else {
                continue;
            };
            let passes_helped = |s: &Scored| {
                helped.iter().all(|&i| {
                    let (pt, t) = &false_alarms[i];
                    !s.fails_at(*pt, t.as_deref())
                })
            };
            let found = smallest_move(v, int, dir, |x| {
                Ok(run(&replace(&def.expression, spans, x, int))?
                    .is_some_and(|s| passes_helped(&s)))
            })?;
            if let Some(exact) = found {
                let chosen = if int {
                    exact
                } else {
                    round_relaxed(exact, dir)
                };
                moves.push((spans.as_slice(), chosen, int));
            }
        }
        if moves.len() > 1 {
            let expression = replace_many(&def.expression, &moves);
            if let Some(scored) = run(&expression)?.filter(|s| passes_all(s)) {
                let change = moves
                    .iter()
                    .map(|(spans, x, _)| {
                        (x - spans[0].value).abs() / spans[0].value.abs().max(1e-12)
                    })
                    .sum();
                consider(&mut best, expression, change, scored);
            }
        }
        Ok(best.map(|(_, _, _, p)| p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<String> {
        thresholds(src)
            .iter()
            .map(|l| src[l.start..l.end].to_string())
            .collect()
    }

    #[test]
    fn thresholds_are_the_literals_in_comparisons() {
        assert_eq!(texts("between(value, 0, 50)"), vec!["0", "50"]);
        assert_eq!(texts("abs(pct_change(1)) < 0.2"), vec!["0.2"]);
        assert_eq!(
            texts("!(abs(pct_change(1)) > 0.15 && abs(pct_change(2)) > 0.15)"),
            vec!["0.15", "0.15"]
        );
        assert_eq!(
            texts("abs(robust_z(20)) < 3.5 || value > -5"),
            vec!["3.5", "-5"]
        );
        assert_eq!(
            texts("has_tenor(\"M01\") && tenor_count() >= 12"),
            vec!["12"]
        );
        let l = &thresholds("value > -5")[0];
        assert_eq!((l.value, l.int), (-5.0, true));
        assert_eq!(thresholds("value >= 1e3")[0].value, 1000.0);
    }

    #[test]
    fn replacing_keeps_the_rest() {
        let src = "!(abs(pct_change(1)) > 0.15 && abs(pct_change(2)) > 0.15)";
        let lits = thresholds(src);
        let spans: Vec<&Literal> = lits.iter().collect();
        assert_eq!(
            replace(src, &spans, 0.3, false),
            "!(abs(pct_change(1)) > 0.3 && abs(pct_change(2)) > 0.3)"
        );
        let src = "value > -5";
        let lits = thresholds(src);
        assert_eq!(replace(src, &[&lits[0]], -7.0, true), "value > (-7)");
        assert_eq!(replace(src, &[&lits[0]], 2.0, true), "value > 2");
        let src = "between(value, 35, 55)";
        let lits = thresholds(src);
        assert_eq!(
            replace_many(
                src,
                &[(&[&lits[1]], 60.0, true), (&[&lits[0]], 31.5, false)]
            ),
            "between(value, 31.5, 60)"
        );
    }

    #[test]
    fn the_smallest_move_is_found_by_bisection() {
        // Passes once the threshold reaches 68.3.
        let up = smallest_move(60.0, false, 1.0, |x| Ok(x >= 68.3))
            .unwrap()
            .unwrap();
        assert!(up >= 68.3 && up - 68.3 < 0.01, "{up}");
        assert_eq!(round_relaxed(up, 1.0), 70.0);
        let down = smallest_move(20.0, true, -1.0, |x| Ok(x <= 13.0)).unwrap();
        assert_eq!(down, Some(13.0));
        assert_eq!(smallest_move(1.0, false, 1.0, |_| Ok(false)).unwrap(), None);
        assert_eq!(round_relaxed(0.0431, 1.0), 0.044);
        assert_eq!(round_relaxed(13.7, -1.0), 13.0);
    }
}
