//! The tune service function: per item, the saved checks failing on the given points, the
//! labels of those points from their records, and the relaxation proposed for each check.

use super::search::{Proposal, Search, Spot};
use super::{items_of, TuneItem};
use crate::auth::Principal;
use crate::error::Result;
use crate::ids::Scope;
use crate::store::ReadTx;
use crate::validation::config::{self, scope_name, severity_name, Config};
use crate::validation::engine::{CheckDef, Library};
use crate::validation::records;
use crate::validation::shared::object;
use crate::validation::window::answer::per_item;
use crate::validation::window::load::{Loaded, Span};
use crate::validation::window::score::{cell_json, score, Cell, Scored};
use crate::validation::Validation;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

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

impl Validation<'_> {
    /// `tune`: proposed relaxations of saved checks; nothing is stored.
    pub fn tune(&self, p: &Principal, body: &Value) -> Result<Value> {
        let m = object(body)?;
        let items = items_of(m)?;
        let span = Span::of(m)?;
        let today = self.platform.now().date_naive();
        let tx = self.platform.read()?;
        per_item(
            today,
            span,
            &items,
            |item| self.tune_one(tx.as_ref(), p, item, span),
            |item| {
                let mut m = Map::new();
                m.insert("target".into(), json!(item.target));
                m
            },
        )
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
        let cfg = Config::from_doc(config::saved(tx, p, target)?)?;
        let libs = config::libraries(tx, p, &cfg)?;
        let defs = config::enabled(&cfg);
        let loaded = self.load_window(tx, p, target, cfg.kind, span, &item.points)?;
        let history = cfg.options.curve_history;
        let base = score(&loaded, &defs, &libs, history)?;
        let mut out = Map::new();
        out.insert("target".into(), json!(target));
        out.insert("kind".into(), json!(cfg.kind.as_str()));
        out.insert("points".into(), json!(loaded.len()));
        let labels = labels_of(tx, &scope, target, &loaded, &base)?;
        let tuning = Tuning {
            loaded: &loaded,
            libs: &libs,
            history,
            labels,
            tenors: item.tenors.as_deref(),
        };
        let mut checks = Vec::new();
        for (def, s) in defs.iter().zip(&base) {
            checks.extend(tuning.check(def, s)?);
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
}

/// Labels of the asked points and of every failing point, from their records.
fn labels_of(
    tx: &dyn ReadTx,
    scope: &Scope,
    target: &str,
    loaded: &Loaded,
    base: &[Scored],
) -> Result<HashMap<usize, Label>> {
    let mut labels: HashMap<usize, Label> = HashMap::new();
    let stored = crate::validation::run::record_statuses(tx, scope, target)?;
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
    for s in base {
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
    Ok(labels)
}

/// What the checks of one tune item are tuned on: the window, the configuration's libraries
/// and history, the labels of its points, and the tenors asked for.
struct Tuning<'a> {
    loaded: &'a Loaded,
    libs: &'a [Library],
    history: usize,
    labels: HashMap<usize, Label>,
    tenors: Option<&'a [String]>,
}

impl Tuning<'_> {
    /// The answer for one check (`s`: its score over the window); None when it does not fail
    /// on the given points.
    fn check(&self, def: &CheckDef, s: &Scored) -> Result<Option<Value>> {
        let (loaded, labels) = (self.loaded, &self.labels);
        let wanted_tenor = |t: Option<&str>| match (self.tenors, t) {
            (Some(only), Some(t)) => only.iter().any(|x| x == t),
            _ => true,
        };
        let failing: Vec<&Cell> = s
            .fails
            .iter()
            .filter(|c| loaded.asked.contains(&c.point) && wanted_tenor(c.tenor.as_deref()))
            .collect();
        if failing.is_empty() {
            return Ok(None);
        }
        let key = |c: &Cell| (c.point, c.tenor.clone());
        let false_alarms: Vec<Spot> = failing
            .iter()
            .filter(|c| labels.get(&c.point) == Some(&Label::FalseAlarm))
            .map(|c| key(c))
            .collect();
        let standing: Vec<Spot> = s
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
            "failingPoints": failing.iter().map(|c| cell_json(loaded, c)).collect::<Vec<_>>(),
            "runs": runs,
            "falseAlarms": false_alarms.len(),
            "standing": standing.len(),
        });
        let window = |after: usize| json!({"runs": runs, "before": s.fails.len(), "after": after});
        if false_alarms.is_empty() {
            check["suggested"] = Value::Null;
            check["reason"] = json!(format!(
                "the {} given point(s) failing it are standing failures (not overridden): nothing to relax",
                failing.len()
            ));
            check["window"] = window(s.fails.len());
            return Ok(Some(check));
        }
        let search = Search {
            loaded,
            def,
            libs: self.libs,
            history: self.history,
            false_alarms: &false_alarms,
            standing: &standing,
        };
        match search.best()? {
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
                let reason = proposal_reason(&false_alarms, &standing, &lost, runs, s, &prop);
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
        Ok(Some(check))
    }
}

/// Why a proposal: the false alarms it lets pass, the standing failures it keeps or lets
/// through (`lost`), and the window's failures before and after.
fn proposal_reason(
    false_alarms: &[Spot],
    standing: &[Spot],
    lost: &[Value],
    runs: usize,
    s: &Scored,
    prop: &Proposal,
) -> String {
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
    reason
}
