//! The checks of a run over its loaded points: one result per point (curves: per tenor, then
//! per curve), the checks as records show them, and the time each took.

use super::load::{Loaded, Prepared};
use crate::data::curve;
use crate::observations::model::{Point, PointValue};
use crate::validation::config::{scope_name, severity_name, Config};
use crate::validation::engine::{
    CheckDef, CheckOutcome, CheckStatus, CurveInput, SeriesEvaluation, SeriesInput, TenorOutcome,
};
use crate::validation::records::{
    self, status_code, status_name, CheckMeta, CheckResult, CheckedValue, PointResult, Summary,
    SKIPPED, VALID, WARNING,
};
use crate::validation::shared::bump;
use serde_json::{json, Map, Value};

/// What a run's checking gives: one result per point, the checks as records show them, and the
/// milliseconds per point of each.
type Evaluated = (Vec<PointResult>, Vec<CheckMeta>, Vec<f64>);

/// A check's record status code from its outcome and severity.
pub(super) fn outcome_code(
    status: CheckStatus,
    severity: Option<crate::validation::engine::Severity>,
) -> u8 {
    match status {
        CheckStatus::Pass => VALID,
        CheckStatus::Fail => status_code(severity.map_or("failed", severity_name)),
        CheckStatus::Error => records::ERROR,
        CheckStatus::Skipped => SKIPPED,
    }
}

/// The enabled checks of a run's configuration, by id.
struct Checks<'a> {
    defs: Vec<&'a CheckDef>,
}

impl<'a> Checks<'a> {
    fn of(cfg: &'a Config) -> Self {
        let defs: Vec<&CheckDef> = cfg
            .checks
            .iter()
            .filter(|(_, on)| *on)
            .map(|(d, _)| d)
            .collect();
        Checks { defs }
    }

    fn def_of(&self, id: &str) -> Option<&'a CheckDef> {
        self.defs.iter().find(|d| d.id == id).copied()
    }

    /// A check as records show it.
    fn meta(&self, id: &str) -> CheckMeta {
        let def = self.def_of(id);
        CheckMeta {
            id: id.to_string(),
            name: def.map(|d| d.name.clone()).unwrap_or_default(),
            scope: def.map(|d| scope_name(d.scope)).unwrap_or_default().into(),
            severity: def
                .map(|d| severity_name(d.severity))
                .unwrap_or_default()
                .into(),
        }
    }

    /// The record status code of a check's outcome.
    fn code(&self, o: &CheckOutcome) -> u8 {
        outcome_code(o.status, self.def_of(&o.id).map(|d| d.severity))
    }
}

/// Checks the loaded points: one result per point, the checks as records show them, and the
/// milliseconds per point of each.
pub(super) fn evaluate(
    prep: &Prepared,
    data: &Loaded,
    tenor_filter: Option<&[String]>,
) -> Evaluated {
    let checks = Checks::of(&prep.config);
    match data {
        Loaded::Series {
            input,
            points,
            targets,
            ..
        } => evaluate_series(prep, &checks, input, points, targets),
        Loaded::Curves { curves, .. } => evaluate_curves(prep, &checks, curves, tenor_filter),
    }
}

/// The point checks over the targets of a series, natively or in rhai, check by check.
fn evaluate_series(
    prep: &Prepared,
    checks: &Checks,
    input: &SeriesInput,
    points: &[Point],
    targets: &[usize],
) -> Evaluated {
    let eval = prep.compiled.evaluate_series(input, targets);
    let ids = eval.check_ids();
    let set: Vec<CheckMeta> = ids.iter().map(|id| checks.meta(id)).collect();
    let severities: Vec<_> = ids
        .iter()
        .map(|id| checks.def_of(id).map(|d| d.severity))
        .collect();
    let check_ms: Vec<f64> = (0..ids.len()).map(|c| eval.micros(c) / 1000.0).collect();
    let results = (0..eval.target_count())
        .map(|j| point_result(&eval, j, &points[eval.index(j)], &severities))
        .collect();
    (results, set, check_ms)
}

/// The result of the `j`th target of a series evaluation.
fn point_result(
    eval: &SeriesEvaluation,
    j: usize,
    p: &Point,
    severities: &[Option<crate::validation::engine::Severity>],
) -> PointResult {
    let ids = eval.check_ids();
    let mut status = SKIPPED;
    let checks: Vec<CheckResult> = (0..ids.len())
        .map(|c| {
            let code = outcome_code(eval.status(c, j), severities[c]);
            status = records::worse(status, code);
            CheckResult {
                status: code,
                message: eval.message(c, j).into(),
                tenors_failed: None,
            }
        })
        .collect();
    let message = Summary::of(
        ids.iter()
            .map(String::as_str)
            .zip(checks.iter().map(|c| c.status)),
    );
    let value = match &p.v {
        PointValue::Num(x) => CheckedValue::Num(*x),
        PointValue::Text(t) => CheckedValue::Text(t.clone()),
        PointValue::Null => CheckedValue::Null,
    };
    PointResult {
        key: p.t,
        explicit: None,
        value: Some(value),
        status,
        set: 0,
        checks,
        message,
        hash: None,
        extra: None,
    }
}

/// The checks of each curve: its tenor checks (of the wanted tenors), then its curve checks.
fn evaluate_curves(
    prep: &Prepared,
    checks: &Checks,
    curves: &[(CurveInput, Vec<CurveInput>, Vec<curve::Contract>)],
    tenor_filter: Option<&[String]>,
) -> Evaluated {
    let mut set: Vec<CheckMeta> = Vec::new();
    let mut check_ms: Vec<f64> = Vec::new();
    let mut results = Vec::with_capacity(curves.len());
    for (input, history, contracts) in curves {
        let outcome = prep.compiled.run_curve(input, history);
        let wanted = |t: &str| tenor_filter.is_none_or(|only| only.iter().any(|x| x == t));
        let mut tenors = Tenors::default();
        for (t, c) in outcome.tenors.iter().zip(contracts.iter()) {
            if !wanted(&t.tenor) {
                continue;
            }
            tenors.add(checks, t, c);
        }
        let (ids, checked, micros) = tenors.per_check_then(checks, &outcome.curve);
        // The check list of the last curve stands for all (curves share one config).
        set = ids.iter().map(|id| checks.meta(id)).collect();
        check_ms = micros.iter().map(|us| us / 1000.0).collect();
        results.push(curve_result(input, contracts, &ids, checked, tenors));
    }
    (results, set, check_ms)
}

/// A tenor check summed over the tenors of a curve: its id, the worst status, its message
/// there, how many tenors failed or warned, and the time it took.
type PerCheck = (String, u8, String, u32, f64);

/// The tenor checks of one curve, tenor by tenor.
#[derive(Default)]
struct Tenors {
    /// Per tenor: its value, status, message and checks.
    tenors: Vec<Value>,
    failed: Vec<Value>,
    warning: Vec<Value>,
    /// Tenors by status.
    counts: Map<String, Value>,
    per_check: Vec<PerCheck>,
}

impl Tenors {
    /// Adds the checks of one tenor.
    fn add(&mut self, checks: &Checks, t: &TenorOutcome, c: &curve::Contract) {
        let statuses: Vec<(String, u8, String)> = t
            .checks
            .iter()
            .map(|o| (o.id.clone(), checks.code(o), o.message.clone()))
            .collect();
        let status = statuses
            .iter()
            .fold(SKIPPED, |a, (_, s, _)| records::worse(a, *s));
        for ((cid, s, m), o) in statuses.iter().zip(&t.checks) {
            self.sum_check(&t.tenor, cid, *s, m, o.micros);
        }
        if records::failing(status) {
            self.failed.push(json!(t.tenor));
        } else if status == WARNING {
            self.warning.push(json!(t.tenor));
        }
        let name = status_name(status);
        bump(&mut self.counts, name);
        let message = statuses
            .iter()
            .filter(|(_, s, m)| *s != VALID && *s != SKIPPED && !m.is_empty())
            .map(|(_, _, m)| m.clone())
            .collect::<Vec<_>>()
            .join("; ");
        self.tenors.push(json!({
            "tenor": t.tenor,
            "value": c.value.to_json(),
            "status": name,
            "message": message,
            "checks": statuses.iter().map(|(id, s, m)| json!({"id": id, "status": status_name(*s), "message": m})).collect::<Vec<_>>(),
        }));
    }

    /// Sums one tenor's outcome of a check into the check's line.
    fn sum_check(&mut self, tenor: &str, cid: &str, s: u8, m: &str, micros: f64) {
        let bad = u32::from(records::failing(s) || s == WARNING);
        match self.per_check.iter_mut().find(|(id, ..)| id == cid) {
            Some(entry) => {
                if s != SKIPPED && records::worse(entry.1, s) == s {
                    entry.1 = s;
                    // A passing check says nothing, as point checks do.
                    entry.2 = if m.is_empty() {
                        String::new()
                    } else {
                        format!("{tenor}: {m}")
                    };
                }
                entry.3 += bad;
                entry.4 += micros;
            }
            None => self.per_check.push((
                cid.to_string(),
                s,
                if m.is_empty() {
                    String::new()
                } else {
                    format!("{tenor}: {m}")
                },
                bad,
                micros,
            )),
        }
    }

    /// The checks of the curve as its record has them: the tenor checks summed, then the
    /// curve checks; their ids and times alongside.
    fn per_check_then(
        &mut self,
        checks: &Checks,
        curve: &[CheckOutcome],
    ) -> (Vec<String>, Vec<CheckResult>, Vec<f64>) {
        let mut ids: Vec<String> = Vec::new();
        let mut results: Vec<CheckResult> = Vec::new();
        let mut micros: Vec<f64> = Vec::new();
        for (cid, s, m, n, us) in std::mem::take(&mut self.per_check) {
            ids.push(cid);
            results.push(CheckResult {
                status: s,
                message: m.into(),
                tenors_failed: Some(n),
            });
            micros.push(us);
        }
        for o in curve {
            ids.push(o.id.clone());
            results.push(CheckResult {
                status: checks.code(o),
                message: o.message.as_str().into(),
                tenors_failed: None,
            });
            micros.push(o.micros);
        }
        (ids, results, micros)
    }
}

/// The result of one curve: the worst of its checks, their summary, the tenor fields and a
/// digest of its contracts.
fn curve_result(
    input: &CurveInput,
    contracts: &[curve::Contract],
    ids: &[String],
    checks: Vec<CheckResult>,
    tenors: Tenors,
) -> PointResult {
    let status = checks
        .iter()
        .fold(SKIPPED, |a, c| records::worse(a, c.status));
    let message = Summary::of(
        ids.iter()
            .map(String::as_str)
            .zip(checks.iter().map(|c| c.status)),
    );
    let mut extra = Map::new();
    extra.insert("tenors".into(), Value::Array(tenors.tenors));
    extra.insert("failedTenors".into(), Value::Array(tenors.failed));
    extra.insert("warningTenors".into(), Value::Array(tenors.warning));
    extra.insert("tenorCounts".into(), Value::Object(tenors.counts));
    extra.insert("contracts".into(), json!(contracts.len()));
    let hash = contracts
        .iter()
        .map(|c| format!("{}={}", c.tenor, c.value.to_json()))
        .collect::<Vec<_>>()
        .join(",");
    PointResult {
        key: records::date_key(input.ondate),
        explicit: None,
        value: None,
        status,
        set: 0,
        checks,
        message,
        hash: Some(crate::auth::hash_token(&hash)),
        extra: Some(Box::new(extra)),
    }
}
