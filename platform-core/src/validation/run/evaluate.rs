//! The checks of a run over its loaded points: one result per point (curves: per tenor, then
//! per curve), the checks as records show them, and the time each took.

use super::load::{Loaded, Prepared};
use crate::data::model::PointValue;
use crate::validation::config::{scope_name, severity_name};
use crate::validation::engine::{CheckDef, CheckStatus};
use crate::validation::records::{
    self, status_code, status_name, CheckMeta, CheckResult, CheckedValue, PointResult, Summary,
    SKIPPED, VALID, WARNING,
};
use crate::validation::shared::bump;
use serde_json::{json, Map, Value};

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

/// Checks the loaded points: one result per point, the checks as records show them, and the
/// milliseconds per point of each.
pub(super) fn evaluate(
    prep: &Prepared,
    data: &Loaded,
    tenor_filter: Option<&[String]>,
) -> (Vec<PointResult>, Vec<CheckMeta>, Vec<f64>) {
    let cfg = &prep.config;
    let defs: Vec<&CheckDef> = cfg
        .checks
        .iter()
        .filter(|(_, on)| *on)
        .map(|(d, _)| d)
        .collect();
    let def_of = |id: &str| defs.iter().find(|d| d.id == id).copied();
    let meta = |id: &str| -> CheckMeta {
        let def = def_of(id);
        CheckMeta {
            id: id.to_string(),
            name: def.map(|d| d.name.clone()).unwrap_or_default(),
            scope: def.map(|d| scope_name(d.scope)).unwrap_or_default().into(),
            severity: def
                .map(|d| severity_name(d.severity))
                .unwrap_or_default()
                .into(),
        }
    };
    match data {
        Loaded::Series {
            input,
            points,
            targets,
            ..
        } => {
            let eval = prep
                .compiled
                .evaluate_series(input, targets, cfg.options.lookback);
            let ids = eval.check_ids();
            let set: Vec<CheckMeta> = ids.iter().map(|id| meta(id)).collect();
            let severities: Vec<_> = ids
                .iter()
                .map(|id| def_of(id).map(|d| d.severity))
                .collect();
            let check_ms: Vec<f64> = (0..ids.len()).map(|c| eval.micros(c) / 1000.0).collect();
            let results = (0..eval.target_count())
                .map(|j| {
                    let p = &points[eval.index(j)];
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
                })
                .collect();
            (results, set, check_ms)
        }
        Loaded::Curves { curves, .. } => {
            let mut set: Vec<CheckMeta> = Vec::new();
            let mut check_ms: Vec<f64> = Vec::new();
            let mut results = Vec::with_capacity(curves.len());
            for (input, history, contracts) in curves {
                let outcome = prep.compiled.run_curve(input, history);
                let wanted = |t: &str| tenor_filter.is_none_or(|only| only.iter().any(|x| x == t));
                let mut tenors = Vec::new();
                let mut failed_tenors = Vec::new();
                let mut warning_tenors = Vec::new();
                let mut tenor_counts: Map<String, Value> = Map::new();
                // Per tenor check: the worst status over tenors, its message, how many failed
                // and the time it took.
                let mut per_check: Vec<(String, u8, String, u32, f64)> = Vec::new();
                for (t, c) in outcome.tenors.iter().zip(contracts.iter()) {
                    if !wanted(&t.tenor) {
                        continue;
                    }
                    let statuses: Vec<(String, u8, String)> = t
                        .checks
                        .iter()
                        .map(|o| {
                            let def = def_of(&o.id);
                            (
                                o.id.clone(),
                                outcome_code(o.status, def.map(|d| d.severity)),
                                o.message.clone(),
                            )
                        })
                        .collect();
                    let status = statuses
                        .iter()
                        .fold(SKIPPED, |a, (_, s, _)| records::worse(a, *s));
                    for ((cid, s, m), o) in statuses.iter().zip(&t.checks) {
                        let bad = u32::from(records::failing(*s) || *s == WARNING);
                        match per_check.iter_mut().find(|(id, ..)| id == cid) {
                            Some(entry) => {
                                if *s != SKIPPED && records::worse(entry.1, *s) == *s {
                                    entry.1 = *s;
                                    // A passing check says nothing, as point checks do.
                                    entry.2 = if m.is_empty() {
                                        String::new()
                                    } else {
                                        format!("{}: {m}", t.tenor)
                                    };
                                }
                                entry.3 += bad;
                                entry.4 += o.micros;
                            }
                            None => per_check.push((
                                cid.clone(),
                                *s,
                                if m.is_empty() {
                                    String::new()
                                } else {
                                    format!("{}: {m}", t.tenor)
                                },
                                bad,
                                o.micros,
                            )),
                        }
                    }
                    if records::failing(status) {
                        failed_tenors.push(json!(t.tenor));
                    } else if status == WARNING {
                        warning_tenors.push(json!(t.tenor));
                    }
                    let name = status_name(status);
                    bump(&mut tenor_counts, name);
                    let message = statuses
                        .iter()
                        .filter(|(_, s, m)| *s != VALID && *s != SKIPPED && !m.is_empty())
                        .map(|(_, _, m)| m.clone())
                        .collect::<Vec<_>>()
                        .join("; ");
                    tenors.push(json!({
                        "tenor": t.tenor,
                        "value": c.value.to_json(),
                        "status": name,
                        "message": message,
                        "checks": statuses.iter().map(|(id, s, m)| json!({"id": id, "status": status_name(*s), "message": m})).collect::<Vec<_>>(),
                    }));
                }
                let mut ids: Vec<String> = Vec::new();
                let mut checks: Vec<CheckResult> = Vec::new();
                let mut micros: Vec<f64> = Vec::new();
                for (cid, s, m, n, us) in per_check {
                    ids.push(cid);
                    checks.push(CheckResult {
                        status: s,
                        message: m.into(),
                        tenors_failed: Some(n),
                    });
                    micros.push(us);
                }
                for o in &outcome.curve {
                    let def = def_of(&o.id);
                    ids.push(o.id.clone());
                    checks.push(CheckResult {
                        status: outcome_code(o.status, def.map(|d| d.severity)),
                        message: o.message.as_str().into(),
                        tenors_failed: None,
                    });
                    micros.push(o.micros);
                }
                // The check list of the last curve stands for all (curves share one config).
                set = ids.iter().map(|id| meta(id)).collect();
                check_ms = micros.iter().map(|us| us / 1000.0).collect();
                let status = checks
                    .iter()
                    .fold(SKIPPED, |a, c| records::worse(a, c.status));
                let message = Summary::of(
                    ids.iter()
                        .map(String::as_str)
                        .zip(checks.iter().map(|c| c.status)),
                );
                let mut extra = Map::new();
                extra.insert("tenors".into(), Value::Array(tenors));
                extra.insert("failedTenors".into(), Value::Array(failed_tenors));
                extra.insert("warningTenors".into(), Value::Array(warning_tenors));
                extra.insert("tenorCounts".into(), Value::Object(tenor_counts));
                extra.insert("contracts".into(), json!(contracts.len()));
                let hash = contracts
                    .iter()
                    .map(|c| format!("{}={}", c.tenor, c.value.to_json()))
                    .collect::<Vec<_>>()
                    .join(",");
                results.push(PointResult {
                    key: records::date_key(input.ondate),
                    explicit: None,
                    value: None,
                    status,
                    set: 0,
                    checks,
                    message,
                    hash: Some(crate::auth::hash_token(&hash)),
                    extra: Some(Box::new(extra)),
                });
            }
            (results, set, check_ms)
        }
    }
}
