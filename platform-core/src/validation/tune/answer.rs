//! The tune service function and its answer ([`Tunings`]): per item, the saved checks
//! failing on the given points, the labels of those points from their records, and the
//! relaxation proposed for each check ([`TunedCheck`]). Their serde forms are the answer of
//! `tune`, field for field and in order.

use super::search::{Proposal, Search, Spot};
use super::{TuningItem, TuningRequest};
use crate::auth::Principal;
use crate::error::Result;
use crate::ids::Scope;
use crate::store::ReadTx;
use crate::validation::config::{self, scope_name, severity_name, Config};
use crate::validation::counts::ValidationKind;
use crate::validation::engine::{CheckDef, Library};
use crate::validation::records;
use crate::validation::run::When;
use crate::validation::window::answer::per_item;
use crate::validation::window::load::{window_dates, Loaded, Span};
use crate::validation::window::score::{failing_point, score, Cell, FailingPoint, Scored};
use crate::validation::Validation;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A check's failures over the window, before and after the proposal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TuneWindow {
    /// Evaluations.
    pub runs: u64,
    /// Failures with the saved check.
    pub before: u64,
    /// Failures with the proposal (the same without one).
    pub after: u64,
}

/// A saved check failing on the given points, and its relaxation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TunedCheck {
    /// The check's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its saved expression.
    pub expression: String,
    /// Its severity.
    pub severity: String,
    /// `point`, `tenor` or `curve`.
    pub scope: String,
    /// Given points (and tenors) failing it.
    pub failing: u64,
    /// Those points.
    pub failing_points: Vec<FailingPoint>,
    /// Evaluations over the window.
    pub runs: u64,
    /// Failing points that are false alarms.
    pub false_alarms: u64,
    /// Failures of the window left standing.
    pub standing: u64,
    /// The relaxed expression (`None` when none lets every false alarm pass).
    pub suggested: Option<String>,
    /// Why.
    pub reason: String,
    /// Standing failures the proposal would let through (with a proposal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lets_through: Option<Vec<String>>,
    /// The window's failures before and after.
    pub window: TuneWindow,
}

/// The relaxations for an item that could be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TunedChecks {
    /// Its kind.
    pub kind: ValidationKind,
    /// Points in the window.
    pub points: u64,
    /// Why nothing is tuned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The checks failing on the given points.
    pub checks: Vec<TunedCheck>,
}

/// The relaxations for one item, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TunedItem {
    /// The data id.
    pub target: String,
    /// The relaxations (`None` when the item could not be read).
    #[serde(flatten)]
    pub tuned: Option<TunedChecks>,
    /// Why the item could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Milliseconds it took.
    pub ms: f64,
}

/// What `tune` proposes: the window and each item's relaxations.
///
/// (See [`crate::api::validation::Validation::tune`] for an example.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tunings {
    /// The window's days.
    pub days: u64,
    /// Its first day.
    pub from: NaiveDate,
    /// Its last day (today).
    pub to: NaiveDate,
    /// Each item's, in the order asked.
    pub results: Vec<TunedItem>,
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

impl Validation<'_> {
    /// Relaxed thresholds for the saved checks failing on the given points (those whose
    /// records were overridden are false alarms); nothing is stored. An item that cannot be
    /// read answers why in its place.
    ///
    /// ```
    /// use platform_core::api::{Collection, data::Point, validation::TuningItem, validation::TuningRequest, validation::ValidationRequest};
    /// use chrono::{Duration, Utc};
    /// use serde_json::json;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let today = Utc::now().date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    /// let spike = today - Duration::days(2);
    /// let points: Vec<Point> = (1..=10)
    ///     .map(|d| today - Duration::days(d))
    ///     .map(|t| Point::new(t, if t == spike { 150.0 } else { 50.0 }))
    ///     .collect();
    /// platform.data().write_series(&me, "NBP:SPOT", &points, &Default::default())?;
    /// platform.objects().save(&me, Collection::ValidationConfig, json!({
    ///     "_id": "NBP:SPOT", "kind": "timeseries",
    ///     "checks": [{"name": "cap", "expression": "value < 100"}]
    /// }), &Default::default())?;
    /// let validation = platform.validation();
    /// let _checked = validation.run(&me, &ValidationRequest::new("NBP:SPOT").at([spike]))?;
    /// // The spike was real: a false alarm of the check.
    /// let record = &validation.records(&me, &Default::default())?.items[0];
    /// validation.override_records(&me, &[&record.id], "a real spike")?;
    /// let item = TuningItem { target: "NBP:SPOT".into(), points: vec![spike.into()], tenors: None };
    /// let tuned = validation.tune(&me, &TuningRequest::new([item]))?;
    /// let cap = &tuned.results[0].tuned.as_ref().unwrap().checks[0];
    /// assert_eq!((cap.false_alarms, cap.window.before, cap.window.after), (1, 1, 0));
    /// assert!(cap.suggested.as_deref().is_some_and(|e| e != "value < 100"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn tune(&self, p: &Principal, req: &TuningRequest) -> Result<Tunings> {
        let span = req.span()?;
        let (from, to) = window_dates(self.platform.now().date_naive(), span.days);
        let tx = self.platform.read()?;
        let results = per_item(&req.items, |item| self.tune_one(tx.as_ref(), p, item, span))?;
        Ok(Tunings {
            days: span.days,
            from,
            to,
            results: req
                .items
                .iter()
                .zip(results)
                .map(|(item, (out, ms))| TunedItem {
                    target: item.target.clone(),
                    error: out.as_ref().err().cloned(),
                    tuned: out.ok(),
                    ms,
                })
                .collect(),
        })
    }

    fn tune_one(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        item: &TuningItem,
        span: Span,
    ) -> Result<TunedChecks> {
        let target = &item.target;
        let scope = p.private_scope();
        let cfg = Config::from_doc(config::saved(tx, p, target)?)?;
        let libs = config::libraries(tx, p, &cfg)?;
        let defs = config::enabled(&cfg);
        let asked: Vec<String> = item.points.iter().map(When::text).collect();
        let loaded = self.load_window(tx, p, target, cfg.kind, span, &asked)?;
        let history = cfg.options.curve_history;
        let base = score(&loaded, &defs, &libs, history)?;
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
        Ok(TunedChecks {
            kind: cfg.kind.typed(),
            points: loaded.len() as u64,
            message: checks
                .is_empty()
                .then(|| "no enabled check fails on the given points: nothing to tune".into()),
            checks,
        })
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
    fn check(&self, def: &CheckDef, s: &Scored) -> Result<Option<TunedCheck>> {
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
        let mut check = TunedCheck {
            id: def.id.clone(),
            name: def.name.clone(),
            expression: def.expression.clone(),
            severity: severity_name(def.severity).to_string(),
            scope: scope_name(def.scope).to_string(),
            failing: failing.len() as u64,
            failing_points: failing.iter().map(|c| failing_point(loaded, c)).collect(),
            runs: runs as u64,
            false_alarms: false_alarms.len() as u64,
            standing: standing.len() as u64,
            suggested: None,
            reason: String::new(),
            lets_through: None,
            window: TuneWindow {
                runs: runs as u64,
                before: s.fails.len() as u64,
                after: s.fails.len() as u64,
            },
        };
        if false_alarms.is_empty() {
            check.reason = format!(
                "the {} given point(s) failing it are standing failures (not overridden): nothing to relax",
                failing.len()
            );
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
                let lost: Vec<String> = prop
                    .lost
                    .iter()
                    .map(|&i| {
                        let (pt, t) = &standing[i];
                        match t {
                            Some(t) => format!("{} {t}", loaded.label(*pt)),
                            None => loaded.label(*pt),
                        }
                    })
                    .collect();
                check.reason = proposal_reason(&false_alarms, &standing, &lost, runs, s, &prop);
                check.suggested = Some(prop.expression.clone());
                check.lets_through = Some(lost);
                check.window.after = prop.scored.fails.len() as u64;
            }
            None => {
                check.reason = format!(
                    "no threshold of this check lets all {} false alarm(s) pass: change the expression (add a guard for what those points share), or keep overriding them",
                    false_alarms.len()
                );
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
    lost: &[String],
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
            lost.join(", ")
        ));
    }
    reason.push_str(&format!(
        "; in the window {} of {runs} evaluations failed before, {} would fail after",
        s.fails.len(),
        prop.scored.fails.len()
    ));
    reason
}
