//! What a run reads: its configuration (saved, or given to a test) compiled, and the points
//! to check (series observations with their lookback, or curves with their history).

use super::ms;
use super::request::RunRequest;
use crate::auth::Principal;
use crate::data::calendar::{parse_time, Calendar};
use crate::data::curve;
use crate::data::model::Point;
use crate::data::series::{self, Window};
use crate::data::{series_settings, DataKind};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::store::{Collection, DataKey, ReadTx};
use crate::validation::config::{self, Config, Kind};
use crate::validation::engine::{ContractInput, CurveInput, SeriesInput};
use crate::Platform;
use chrono::NaiveDate;
use serde_json::Value;
use std::time::Instant;

/// What the runner needs of a configuration, compiled.
pub(super) struct Prepared {
    pub(super) config: Config,
    pub(super) compiled: std::sync::Arc<crate::validation::engine::CompiledChecks>,
    pub(super) scripts_ms: f64,
}

/// The data of a run: the series (with the lookback before the targets) or the curves.
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

pub(super) fn contract_input(c: &curve::Contract) -> ContractInput {
    let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_default();
    ContractInput {
        tenor: c.tenor.clone(),
        relative: c.relative.clone(),
        absolute: c.absolute.clone(),
        value: c.value.as_f64().filter(|v| v.is_finite()),
        start: day(&c.start),
        end: day(&c.end),
        expiry: day(&c.expiry),
    }
}

pub(super) fn curve_input(stored: &curve::StoredCurve) -> CurveInput {
    CurveInput {
        ondate: NaiveDate::parse_from_str(stored.curve_date(), "%Y-%m-%d").unwrap_or_default(),
        contracts: stored.contracts.iter().map(contract_input).collect(),
    }
}

impl Platform {
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
                tx.current(Collection::ValidationConfig, &p.private_scope(), target)?
                    .ok_or_else(|| {
                        Error::invalid_parameter(format!(
                            "\"{target}\" has no validation configuration"
                        ))
                    })?
                    .body
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
        config: &Config,
        req: &RunRequest,
    ) -> Result<Loaded> {
        let id = crate::data::read::DataId::parse(target)?;
        let scope = Scope::for_source(Source::of_id(&id.object), p);
        let unreadable =
            |why: &str| Error::not_found(format!("data \"{target}\" cannot be read: {why}"));
        let object = tx
            .current(Collection::Object, &scope, &id.object)?
            .ok_or_else(|| unreadable("its object does not exist"))?;
        let header = object
            .body
            .get(&id.prop)
            .and_then(Value::as_object)
            .ok_or_else(|| unreadable("no such data property"))?;
        if !p
            .grants
            .may_read(header.get("_access").and_then(Value::as_str))
        {
            return Err(unreadable("no such data property"));
        }
        let kind = DataKind::of(&Value::Object(header.clone()));
        let key = DataKey {
            scope,
            object: id.object.clone(),
            prop: id.prop.clone(),
        };
        match (config.kind, kind) {
            (Kind::TimeSeries, Some(DataKind::Series)) => {
                let (calendar, tz, _) = series_settings(&id.prop, header)?;
                let points = series::read(tx, &key, object.version, Window::All)?;
                let mut targets: Vec<usize> = Vec::new();
                if !req.points.is_empty() {
                    for text in &req.points {
                        let t = parse_time(text, tz)?;
                        let i = points.binary_search_by_key(&t, |p| p.t).map_err(|_| {
                            Error::invalid_parameter(format!(
                                "{target} has no observation at {text}"
                            ))
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
                        .filter(|&i| {
                            lo.is_none_or(|l| points[i].t >= l)
                                && hi.is_none_or(|h| points[i].t <= h)
                        })
                        .collect();
                } else if !points.is_empty() {
                    targets.push(points.len() - 1);
                }
                let step_ms = match calendar {
                    Calendar::Daily => Some(86_400_000),
                    Calendar::Intraday(s) => Some(i64::from(s) * 1000),
                    _ => None,
                };
                let input = SeriesInput {
                    times: points.iter().map(|p| p.t).collect(),
                    values: points
                        .iter()
                        .map(|p| p.v.as_f64().filter(|v| v.is_finite()))
                        .collect(),
                    step_ms,
                };
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
                let today = self.now().date_naive().format("%Y-%m-%d").to_string();
                let all = tx.curves(&key, object.version, None, Some(&today), None)?;
                let mut chosen: Vec<usize> = Vec::new();
                if !req.points.is_empty() {
                    for text in &req.points {
                        let d = date_bound(text)?.format("%Y-%m-%d").to_string();
                        let i = all.iter().position(|(o, _)| *o == d).ok_or_else(|| {
                            Error::invalid_parameter(format!("{target} has no curve on {d}"))
                        })?;
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
                let depth = config.options.curve_history;
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
            (k, _) => Err(unreadable(&format!(
                "it is not a {}",
                if k == Kind::Curve {
                    "curve"
                } else {
                    "time series"
                }
            ))),
        }
    }
}
