//! The suggest service function and its answer ([`Suggestions`]): per data item, the window's
//! statistics ([`WindowStats`]), the candidate checks scored on every point of the window
//! ([`SuggestedCheck`]), and a configuration of those worth keeping. Their serde forms are the
//! answer of `suggest`, field for field and in order.

use super::{
    curve_candidates, series_candidates, Candidate, SuggestionRequest, FIT_SHARE, MAX_FAIL_SHARE,
};
use crate::auth::Principal;
use crate::error::Result;
use crate::store::ReadTx;
use crate::validation::config::{self, scope_name, severity_name, Kind};
use crate::validation::counts::ValidationKind;
use crate::validation::engine::CheckDef;
use crate::validation::window::answer::per_item;
use crate::validation::window::load::{window_dates, Data, Loaded, Span};
use crate::validation::window::numbers::{rounded, run_lengths};
use crate::validation::window::score::{failing_point, score, FailingPoint, Scored};
use crate::validation::Validation;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The statistics of a data item's window: its values, and the longest gap and run (a
/// series) or its curves' contracts (curves).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowStats {
    /// Values present.
    pub values: u64,
    /// Values missing.
    pub missing: u64,
    /// Values that are 0.
    pub zeros: u64,
    /// Values below 0.
    pub negatives: u64,
    /// The least value (to six decimals; `None` without values).
    pub min: Option<f64>,
    /// The greatest.
    pub max: Option<f64>,
    /// Their mean.
    pub mean: Option<f64>,
    /// Their standard deviation (`None` for fewer than two).
    pub stdev: Option<f64>,
    /// What a series or curves have besides.
    #[serde(flatten)]
    pub shape: WindowShape,
}

/// What the statistics of a series' window and of a curve's have apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WindowShape {
    /// A series.
    #[serde(rename_all = "camelCase")]
    Series {
        /// The longest gap, in calendar steps (`None` without a regular calendar).
        longest_gap: Option<u64>,
        /// The longest run of one value.
        longest_run: u64,
    },
    /// Curves.
    #[serde(rename_all = "camelCase")]
    Curves {
        /// How many.
        curves: u64,
        /// The fewest contracts of one (`None` without curves).
        fewest_contracts: Option<u64>,
        /// The most contracts of one.
        most_contracts: Option<u64>,
    },
}

/// Runs and failures of a check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckTally {
    /// Evaluations.
    pub runs: u64,
    /// Those that did not pass.
    pub failures: u64,
}

/// A proposed check, scored over the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestedCheck {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its expression.
    pub expression: String,
    /// Its severity.
    pub severity: String,
    /// Why, with the numbers behind it.
    pub reason: String,
    /// Evaluations over the window.
    pub runs: u64,
    /// Those that failed.
    pub failures: u64,
    /// The first point failing it.
    pub example: Option<FailingPoint>,
    /// Whether it passed on every point.
    pub suggested: bool,
    /// Whether it is in the item's proposed configuration.
    pub in_config: bool,
    /// Over the newest part of the window (not fitted).
    pub holdout: CheckTally,
    /// Curves: `point`, `tenor` or `curve`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// What is proposed for a data item that could be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposals {
    /// Points in the window.
    pub points: u64,
    /// The window's statistics.
    pub stats: WindowStats,
    /// Why some rules proposed nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The proposed checks.
    pub checks: Vec<SuggestedCheck>,
    /// A configuration of the checks worth keeping (a validation configuration document),
    /// which saves as it is.
    pub config: Value,
}

/// The proposals for one data item, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestedItem {
    /// The data id.
    pub target: String,
    /// Its kind, as asked.
    pub kind: ValidationKind,
    /// What is proposed (`None` when the item could not be read).
    #[serde(flatten)]
    pub proposals: Option<Proposals>,
    /// Why the item could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Milliseconds it took.
    pub ms: f64,
}

/// What `suggest` proposes: the window and each data item's proposals.
///
/// (See [`crate::api::validation::Validation::suggest`] for an example.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestions {
    /// The window's days.
    pub days: u64,
    /// Its first day.
    pub from: NaiveDate,
    /// Its last day (today).
    pub to: NaiveDate,
    /// Each data item's, in the order asked.
    pub results: Vec<SuggestedItem>,
}

/// The statistics of some values, and what their series or curves have besides.
fn value_stats(values: &[Option<f64>], shape: WindowShape) -> WindowStats {
    let present: Vec<f64> = values.iter().flatten().copied().collect();
    let n = present.len();
    let mean = present.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        present.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        f64::NAN
    };
    let count = |f: fn(f64) -> bool| present.iter().filter(|x| f(**x)).count() as u64;
    WindowStats {
        values: n as u64,
        missing: (values.len() - n) as u64,
        zeros: count(|x| x == 0.0),
        negatives: count(|x| x < 0.0),
        min: rounded(present.iter().copied().fold(f64::INFINITY, f64::min)),
        max: rounded(present.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        mean: rounded(mean),
        stdev: rounded(var.sqrt()),
        shape,
    }
}

impl Validation<'_> {
    /// Checks proposed from the recent history of data items, scored on every point of the
    /// window; nothing is stored. An item that cannot be read answers why in its place.
    ///
    /// ```
    /// use platform_core::api::{data::Point, validation::SuggestionRequest};
    /// use chrono::{Duration, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let today = Utc::now().date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    /// let points: Vec<Point> = (1..=20).map(|d| Point::new(today - Duration::days(d), 50.0 + d as f64)).collect();
    /// platform.data().write_series(&me, "NBP:SPOT", &points, &Default::default())?;
    /// let proposed = platform.validation().suggest(&me, &SuggestionRequest::new(["NBP:SPOT"]))?;
    /// let item = proposed.results[0].proposals.as_ref().unwrap();
    /// assert_eq!((item.points, item.stats.values), (20, 20));
    /// assert!(item.checks.iter().any(|c| c.expression == "value > 0" && c.in_config));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn suggest(&self, p: &Principal, req: &SuggestionRequest) -> Result<Suggestions> {
        let span = req.span()?;
        let kind = Kind::of(req.kind);
        let (from, to) = window_dates(self.platform.now().date_naive(), span.days);
        let tx = self.platform.read()?;
        let results = per_item(&req.targets, |target| {
            self.suggest_one(tx.as_ref(), p, target, kind, span)
        })?;
        Ok(Suggestions {
            days: span.days,
            from,
            to,
            results: req
                .targets
                .iter()
                .zip(results)
                .map(|(target, (out, ms))| SuggestedItem {
                    target: target.clone(),
                    kind: req.kind,
                    error: out.as_ref().err().cloned(),
                    proposals: out.ok(),
                    ms,
                })
                .collect(),
        })
    }

    fn suggest_one(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        target: &str,
        kind: Kind,
        span: Span,
    ) -> Result<Proposals> {
        let loaded = self.load_window(tx, p, target, kind, span, &[])?;
        let n = loaded.len();
        let fit_len = ((n as f64 * FIT_SHARE).ceil() as usize).clamp(n.min(1), n);
        let fit_end = loaded.first + fit_len;
        let stats = window_stats(&loaded);
        let (candidates, message, lookback, history) = candidates_of(&loaded, fit_end);
        let defs: Vec<CheckDef> = candidates.iter().map(|c| c.def.clone()).collect();
        let scored = score(&loaded, &defs, &[], history)?;
        let holdout = fit_len;
        let mut checks = Vec::with_capacity(candidates.len());
        let mut kept = Vec::new();
        for (cand, s) in candidates.iter().zip(&scored) {
            let (check, keep) = scored_check(&loaded, kind, cand, s, holdout);
            kept.extend(keep);
            checks.push(check);
        }
        Ok(Proposals {
            points: n as u64,
            stats,
            message,
            checks,
            config: suggested_config(target, kind, kept, lookback, history)?,
        })
    }
}

/// The statistics of the window: its values, and the longest gap and run (series) or the
/// contract counts (curves).
fn window_stats(loaded: &Loaded) -> WindowStats {
    match &loaded.data {
        Data::Series { input, .. } => {
            let window = &input.values[loaded.first..];
            let longest_gap = input.step_ms.filter(|s| *s > 0).map(|step| {
                (loaded.first.max(1)..input.times.len())
                    .map(|i| (input.times[i] - input.times[i - 1]) / step)
                    .max()
                    .unwrap_or(0) as u64
            });
            let longest_run = run_lengths(window).into_iter().max().unwrap_or(0) as u64;
            value_stats(
                window,
                WindowShape::Series {
                    longest_gap,
                    longest_run,
                },
            )
        }
        Data::Curves { curves } => {
            let window = &curves[loaded.first..];
            let values: Vec<Option<f64>> = window
                .iter()
                .flat_map(|c| c.contracts.iter().map(|k| k.value))
                .collect();
            let counts = window.iter().map(|c| c.contracts.len() as u64);
            value_stats(
                &values,
                WindowShape::Curves {
                    curves: window.len() as u64,
                    fewest_contracts: counts.clone().min(),
                    most_contracts: counts.max(),
                },
            )
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
) -> (SuggestedCheck, Option<Value>) {
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
    let scope = (kind == Kind::Curve).then(|| scope_name(d.scope).to_string());
    let check = SuggestedCheck {
        id: d.id.clone(),
        name: d.name.clone(),
        expression: d.expression.clone(),
        severity: severity_name(d.severity).to_string(),
        reason,
        runs: runs as u64,
        failures: failures as u64,
        example: s.fails.first().map(|c| failing_point(loaded, c)),
        suggested: runs > 0 && failures == 0,
        in_config: keep,
        holdout: CheckTally {
            runs: s.runs_from(holdout) as u64,
            failures: s.fails_from(holdout) as u64,
        },
        scope,
    };
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
