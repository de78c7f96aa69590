//! The suggest service function: per data item, the window's statistics, the candidate checks
//! scored on every point of the window, and a configuration of those worth keeping.

use super::{
    curve_candidates, series_candidates, Candidate, SuggestRequest, FIT_SHARE, MAX_FAIL_SHARE,
};
use crate::auth::Principal;
use crate::error::Result;
use crate::store::ReadTx;
use crate::validation::config::{self, scope_name, severity_name, Kind};
use crate::validation::engine::CheckDef;
use crate::validation::window::answer::per_item;
use crate::validation::window::load::{Data, Loaded};
use crate::validation::window::numbers::{num, run_lengths};
use crate::validation::window::score::{cell_json, score, Scored};
use crate::validation::Validation;
use serde_json::{json, Map, Value};

/// values, missing, zeros, negatives, min, max, mean, stdev of some values.
fn value_stats(values: &[Option<f64>]) -> Map<String, Value> {
    let present: Vec<f64> = values.iter().flatten().copied().collect();
    let n = present.len();
    let mean = present.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        present.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        f64::NAN
    };
    let mut m = Map::new();
    m.insert("values".into(), json!(n));
    m.insert("missing".into(), json!(values.len() - n));
    m.insert(
        "zeros".into(),
        json!(present.iter().filter(|x| **x == 0.0).count()),
    );
    m.insert(
        "negatives".into(),
        json!(present.iter().filter(|x| **x < 0.0).count()),
    );
    let min = present.iter().copied().fold(f64::INFINITY, f64::min);
    let max = present.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m.insert("min".into(), num(min));
    m.insert("max".into(), num(max));
    m.insert("mean".into(), num(mean));
    m.insert("stdev".into(), num(var.sqrt()));
    m
}

impl Validation<'_> {
    /// `suggest`: proposed checks per data item; nothing is stored.
    pub fn suggest(&self, p: &Principal, body: &Value) -> Result<Value> {
        let req = SuggestRequest::from_json(body)?;
        let today = self.platform.now().date_naive();
        let tx = self.platform.read()?;
        per_item(
            today,
            req.span,
            &req.targets,
            |target| self.suggest_one(tx.as_ref(), p, target, &req),
            |target| {
                let mut m = Map::new();
                m.insert("target".into(), json!(target));
                m.insert("kind".into(), json!(req.kind.as_str()));
                m
            },
        )
    }

    fn suggest_one(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        target: &str,
        req: &SuggestRequest,
    ) -> Result<Map<String, Value>> {
        let loaded = self.load_window(tx, p, target, req.kind, req.span, &[])?;
        let n = loaded.len();
        let fit_len = ((n as f64 * FIT_SHARE).ceil() as usize).clamp(n.min(1), n);
        let fit_end = loaded.first + fit_len;
        let mut item = Map::new();
        item.insert("target".into(), json!(target));
        item.insert("kind".into(), json!(req.kind.as_str()));
        item.insert("points".into(), json!(n));
        item.insert("stats".into(), Value::Object(window_stats(&loaded)));
        let (candidates, message, lookback, history) = candidates_of(&loaded, fit_end);
        if let Some(m) = message {
            item.insert("message".into(), json!(m));
        }
        let defs: Vec<CheckDef> = candidates.iter().map(|c| c.def.clone()).collect();
        let scored = score(&loaded, &defs, &[], history)?;
        let holdout = fit_len;
        let mut checks = Vec::with_capacity(candidates.len());
        let mut kept = Vec::new();
        for (cand, s) in candidates.iter().zip(&scored) {
            let (check, keep) = scored_check(&loaded, req.kind, cand, s, holdout);
            kept.extend(keep);
            checks.push(check);
        }
        item.insert("checks".into(), Value::Array(checks));
        item.insert(
            "config".into(),
            suggested_config(target, req.kind, kept, lookback, history)?,
        );
        Ok(item)
    }
}

/// The statistics of the window: its values, and the longest gap and run (series) or the
/// contract counts (curves).
fn window_stats(loaded: &Loaded) -> Map<String, Value> {
    match &loaded.data {
        Data::Series { input, .. } => {
            let window = &input.values[loaded.first..];
            let mut stats = value_stats(window);
            let longest_gap = input.step_ms.filter(|s| *s > 0).map(|step| {
                (loaded.first.max(1)..input.times.len())
                    .map(|i| (input.times[i] - input.times[i - 1]) / step)
                    .max()
                    .unwrap_or(0)
            });
            stats.insert("longestGap".into(), json!(longest_gap));
            stats.insert(
                "longestRun".into(),
                json!(run_lengths(window).into_iter().max().unwrap_or(0)),
            );
            stats
        }
        Data::Curves { curves } => {
            let window = &curves[loaded.first..];
            let values: Vec<Option<f64>> = window
                .iter()
                .flat_map(|c| c.contracts.iter().map(|k| k.value))
                .collect();
            let mut stats = value_stats(&values);
            let counts = window.iter().map(|c| c.contracts.len());
            stats.insert("curves".into(), json!(window.len()));
            stats.insert("fewestContracts".into(), json!(counts.clone().min()));
            stats.insert("mostContracts".into(), json!(counts.max()));
            stats
        }
    }
}

/// The candidates of the window, a message when some rules lacked data, and the lookback
/// (series) or curve history (curves) they need.
fn candidates_of(
    loaded: &Loaded,
    fit_end: usize,
) -> (Vec<Candidate>, Option<String>, usize, usize) {
    match &loaded.data {
        Data::Series { input, .. } => {
            let (c, m, lookback) = series_candidates(input, loaded.first, fit_end);
            (c, m, lookback, 0)
        }
        Data::Curves { curves } => {
            let (c, m) = curve_candidates(curves, loaded.first, fit_end);
            (c, m, 0, 2)
        }
    }
}

/// A candidate as the answer shows it, scored over the window (the newest part from
/// `holdout`), and the check as the configuration has it when it is worth keeping.
fn scored_check(
    loaded: &Loaded,
    kind: Kind,
    cand: &Candidate,
    s: &Scored,
    holdout: usize,
) -> (Value, Option<Value>) {
    let runs = s.runs_from(0);
    let failures = s.fails.len();
    let fit_failures = failures - s.fails_from(holdout);
    let keep = if cand.fitted {
        runs > 0 && failures as f64 <= MAX_FAIL_SHARE * runs as f64
    } else {
        runs > 0 && fit_failures == 0
    };
    let mut reason = cand.reason.clone();
    if failures > 0 {
        reason.push_str(&format!(
            "; it fails on {failures} of {runs} evaluations in the window ({} in the newest part)",
            s.fails_from(holdout)
        ));
    }
    if !keep {
        reason.push_str(if cand.fitted {
            "; left out of config: it fails too often"
        } else {
            "; left out of config: it fails on the fitted part"
        });
    }
    let d = &cand.def;
    let mut check = json!({
        "id": d.id,
        "name": d.name,
        "expression": d.expression,
        "severity": severity_name(d.severity),
        "reason": reason,
        "runs": runs,
        "failures": failures,
        "example": s.fails.first().map_or(Value::Null, |c| cell_json(loaded, c)),
        "suggested": runs > 0 && failures == 0,
        "inConfig": keep,
        "holdout": {"runs": s.runs_from(holdout), "failures": s.fails_from(holdout)},
    });
    if kind == Kind::Curve {
        check["scope"] = json!(scope_name(d.scope));
    }
    let kept = keep.then(|| {
        let mut c = json!({"id": d.id, "name": d.name, "expression": d.expression, "severity": severity_name(d.severity)});
        if kind == Kind::Curve {
            c["scope"] = json!(scope_name(d.scope));
        }
        c
    });
    (check, kept)
}

/// The configuration of the checks worth keeping; it saves as it is.
fn suggested_config(
    target: &str,
    kind: Kind,
    kept: Vec<Value>,
    lookback: usize,
    history: usize,
) -> Result<Value> {
    let options = match kind {
        Kind::TimeSeries => json!({"lookback": lookback}),
        Kind::Curve => json!({"curveHistory": history}),
    };
    let doc = json!({"_id": target, "kind": kind.as_str(), "checks": kept, "options": options});
    // The configuration must save as it is.
    if let Value::Object(d) = &doc {
        config::normalise(d.clone())?;
    }
    Ok(doc)
}
