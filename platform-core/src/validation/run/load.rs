//! What a run reads: its configuration (saved, or given to a test) compiled, and the points
//! to check: series observations with the earlier ones its checks need, or curves with the
//! previous curves they need (at least `lookback` and `curveHistory`).

use super::request::RunRequest;
use crate::auth::Principal;
use crate::data::calendar::{parse_time, Calendar};
use crate::data::curve;
use crate::data::series::{self, Window};
use crate::data::{series_settings, DataKind};
use crate::error::{Error, ErrorCode, Result};
use crate::observations::model::Point;
use crate::store::ReadTx;
use crate::validation::config::{self, Config, Kind};
use crate::validation::engine::{CurveInput, SeriesInput};
use crate::validation::item::{self, curve_input, series_input, unreadable};
use crate::validation::shared::ms;
use crate::validation::Validation;
use chrono::NaiveDate;
use serde_json::Value;
use std::time::Instant;

/// What the runner needs of a configuration, compiled.
pub(super) struct Prepared {
    pub(super) config: Config,
    pub(super) compiled: std::sync::Arc<crate::validation::engine::CompiledChecks>,
    pub(super) scripts_ms: f64,
}

/// The data of a run: the series (with the history its checks need before the targets) or the
/// curves (each with its previous curves).
pub(super) enum Loaded {
    Series {
        input: SeriesInput,
        points: Vec<Point>,
        targets: Vec<usize>,
        calendar: Calendar,
        tz: chrono_tz::Tz,
        truncated: bool,
    },
    Curves {
        curves: Vec<(CurveInput, Vec<CurveInput>, Vec<curve::Contract>)>,
        truncated: bool,
    },
}

impl Loaded {
    /// Whether only part of the asked points was checked (never: large runs go to a job).
    pub(super) fn truncated(&self) -> bool {
        match self {
            Loaded::Series { truncated, .. } | Loaded::Curves { truncated, .. } => *truncated,
        }
    }

    pub(super) fn count(&self) -> usize {
        match self {
            Loaded::Series { targets, .. } => targets.len(),
            Loaded::Curves { curves, .. } => curves.len(),
        }
    }
}

pub(super) fn date_bound(text: &str) -> Result<NaiveDate> {
    let head = text.get(..10).unwrap_or(text);
    NaiveDate::parse_from_str(head, "%Y-%m-%d")
        .map_err(|_| Error::invalid_parameter(format!("\"{text}\" is not a date (YYYY-MM-DD)")))
}

impl Validation<'_> {
    pub(super) fn prepare(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        req: &RunRequest,
        test: bool,
    ) -> Result<(String, Prepared)> {
        let started = Instant::now();
        let doc = match (&req.config, test) {
            (Some(Value::Object(inline)), true) => config::normalise(inline.clone())?,
            (Some(_), true) => return Err(Error::invalid_body("config must be an object")),
            (Some(_), false) => {
                return Err(Error::invalid_body(
                    "config is for test only; run uses the saved configuration",
                ))
            }
            (None, _) => {
                let target = req
                    .target
                    .as_deref()
                    .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "target is missing"))?;
                config::saved(tx, p, target)?
            }
        };
        let mut config = Config::from_doc(doc)?;
        let target = req.target.clone().unwrap_or_else(|| config.target.clone());
        if target.is_empty() {
            return Err(Error::new(ErrorCode::MissingParameter, "target is missing"));
        }
        config.target = target.clone();
        if let Some(only) = &req.checks {
            for id in only {
                if !config.checks.iter().any(|(d, _)| &d.id == id) {
                    return Err(Error::invalid_parameter(format!(
                        "{target} has no check \"{id}\""
                    )));
                }
            }
            for (def, on) in &mut config.checks {
                *on = *on && only.contains(&def.id);
            }
        }
        let libs = config::libraries(tx, p, &config)?;
        let compiled = config::compile_cached(&config, &libs)?;
        Ok((
            target,
            Prepared {
                config,
                compiled,
                scripts_ms: ms(started),
            },
        ))
    }

    pub(super) fn load_points(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        target: &str,
        prep: &Prepared,
        req: &RunRequest,
    ) -> Result<Loaded> {
        let config = &prep.config;
        let item = item::open(tx, p, target)?;
        let key = &item.key;
        match (config.kind, item.kind) {
            (Kind::TimeSeries, Some(DataKind::Series)) => {
                let (calendar, tz, _) = series_settings(&key.prop, &item.header)?;
                let mut points = series::read(tx, key, item.version, Window::All)?;
                let mut targets = series_targets(&points, req, tz, target)?;
                let need = prep.compiled.point_history().max(config.options.lookback);
                keep_history(&mut points, &mut targets, need);
                let input = series_input(&points, calendar);
                Ok(Loaded::Series {
                    input,
                    points,
                    targets,
                    calendar,
                    tz,
                    truncated: false,
                })
            }
            (Kind::Curve, Some(DataKind::Curve)) => {
                let today = self
                    .platform
                    .now()
                    .date_naive()
                    .format("%Y-%m-%d")
                    .to_string();
                let all = tx.curves(key, item.version, None, Some(&today), None)?;
                let chosen = chosen_curves(&all, req, target)?;
                let depth = config
                    .options
                    .curve_history
                    .max(prep.compiled.curve_history());
                let mut curves = Vec::with_capacity(chosen.len());
                for i in chosen {
                    let stored = curve::decode(&all[i].1)?;
                    let mut history = Vec::with_capacity(depth);
                    for j in (0..i).rev().take(depth) {
                        history.push(curve_input(&curve::decode(&all[j].1)?));
                    }
                    curves.push((curve_input(&stored), history, stored.contracts));
                }
                Ok(Loaded::Curves {
                    curves,
                    truncated: false,
                })
            }
            (k, _) => Err(unreadable(
                target,
                &format!(
                    "it is not a {}",
                    if k == Kind::Curve {
                        "curve"
                    } else {
                        "time series"
                    }
                ),
            )),
        }
    }
}

/// Drops the observations before the first target's `need` earlier ones (the checks never
/// read them), the targets moved along.
fn keep_history(points: &mut Vec<Point>, targets: &mut [usize], need: usize) {
    let Some(&first) = targets.iter().min() else {
        return;
    };
    let start = first.saturating_sub(need);
    if start > 0 {
        points.drain(..start);
        for t in targets.iter_mut() {
            *t -= start;
        }
    }
}

/// The observations a run checks (positions in `points`): the asked ones, those in the asked
/// range (a date `to` includes its whole day), or the latest.
fn series_targets(
    points: &[Point],
    req: &RunRequest,
    tz: chrono_tz::Tz,
    target: &str,
) -> Result<Vec<usize>> {
    let mut targets: Vec<usize> = Vec::new();
    if !req.points.is_empty() {
        for text in &req.points {
            let t = parse_time(text, tz)?;
            let i = points.binary_search_by_key(&t, |p| p.t).map_err(|_| {
                Error::invalid_parameter(format!("{target} has no observation at {text}"))
            })?;
            targets.push(i);
        }
        targets.sort_unstable();
        targets.dedup();
    } else if req.from.is_some() || req.to.is_some() {
        let lo = match &req.from {
            Some(f) => Some(parse_time(f, tz)?),
            None => None,
        };
        let hi = match &req.to {
            // A date `to` includes its whole day.
            Some(t) if t.len() == 10 => Some(parse_time(t, tz)? + 86_400_000 - 1),
            Some(t) => Some(parse_time(t, tz)?),
            None => None,
        };
        targets = (0..points.len())
            .filter(|&i| lo.is_none_or(|l| points[i].t >= l) && hi.is_none_or(|h| points[i].t <= h))
            .collect();
    } else if !points.is_empty() {
        targets.push(points.len() - 1);
    }
    Ok(targets)
}

/// The curves a run checks (positions in `all`, by ondate): the asked ones, those in the
/// asked range, or the newest.
fn chosen_curves(all: &[(String, Vec<u8>)], req: &RunRequest, target: &str) -> Result<Vec<usize>> {
    let mut chosen: Vec<usize> = Vec::new();
    if !req.points.is_empty() {
        for text in &req.points {
            let d = date_bound(text)?.format("%Y-%m-%d").to_string();
            let i = all
                .iter()
                .position(|(o, _)| *o == d)
                .ok_or_else(|| Error::invalid_parameter(format!("{target} has no curve on {d}")))?;
            chosen.push(i);
        }
    } else if req.from.is_some() || req.to.is_some() {
        let lo = req
            .from
            .as_deref()
            .map(date_bound)
            .transpose()?
            .map(|d| d.format("%Y-%m-%d").to_string());
        let hi = req
            .to
            .as_deref()
            .map(date_bound)
            .transpose()?
            .map(|d| d.format("%Y-%m-%d").to_string());
        chosen = (0..all.len())
            .filter(|&i| {
                lo.as_ref().is_none_or(|l| all[i].0 >= *l)
                    && hi.as_ref().is_none_or(|h| all[i].0 <= *h)
            })
            .collect();
    } else if !all.is_empty() {
        chosen.push(all.len() - 1);
    }
    Ok(chosen)
}
