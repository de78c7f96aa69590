//! The window of one data item: `days` back from today (curves: also the newest
//! `maxCurves`), read with what comes before it, and the points a request asked for.

use crate::auth::Principal;
use crate::data::calendar::{format_time, parse_time, Calendar};
use crate::data::curve;
use crate::data::series::{self, Window};
use crate::data::{series_settings, DataKind};
use crate::error::{Error, Result};
use crate::observations::model::Point;
use crate::store::ReadTx;
use crate::validation::config::Kind;
use crate::validation::engine::{CurveInput, SeriesInput};
use crate::validation::item::{self, curve_input, series_input};
use crate::validation::Validation;
use chrono::{Duration, NaiveDate};
use serde_json::{Map, Value};

/// Bounds and default of `days`.
pub const DAYS: (u64, u64, u64) = (1, 366, 30);
/// Bounds and default of `maxCurves`.
pub const MAX_CURVES: (u64, u64, u64) = (2, 60, 25);

/// `days` and `maxCurves` of a suggest or tune request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Days back from today.
    pub days: u64,
    /// Newest curves kept.
    pub max_curves: usize,
}

/// `name` of a body: none when absent or null, else an integer within its bounds.
fn given(
    body: &Map<String, Value>,
    name: &str,
    (lo, hi, _): (u64, u64, u64),
) -> Result<Option<u64>> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
            _ => Err(out_of_bounds(name, (lo, hi), v)),
        },
    }
}

/// The refusal of a `days` or `maxCurves` out of its bounds.
fn out_of_bounds(name: &str, (lo, hi): (u64, u64), v: impl std::fmt::Display) -> Error {
    Error::invalid_parameter(format!(
        "{name} must be an integer from {lo} to {hi}, not {v}"
    ))
}

/// A value given for `name` (none: its default), checked against its bounds.
fn bounded(name: &str, given: Option<u64>, (lo, hi, default): (u64, u64, u64)) -> Result<u64> {
    match given {
        None => Ok(default),
        Some(n) if (lo..=hi).contains(&n) => Ok(n),
        Some(n) => Err(out_of_bounds(name, (lo, hi), n)),
    }
}

impl Span {
    /// `days` and `maxCurves` as a body gives them (none when absent or null), each checked
    /// against its bounds.
    pub fn given(body: &Map<String, Value>) -> Result<(Option<u64>, Option<u64>)> {
        Ok((
            given(body, "days", DAYS)?,
            given(body, "maxCurves", MAX_CURVES)?,
        ))
    }

    /// The window of `days` and `maxCurves` (none: their defaults), checked against their
    /// bounds.
    pub fn checked(days: Option<u64>, max_curves: Option<u64>) -> Result<Span> {
        Ok(Span {
            days: bounded("days", days, DAYS)?,
            max_curves: bounded("maxCurves", max_curves, MAX_CURVES)? as usize,
        })
    }
}

/// Observations or curves of one data item: the window and what comes before it.
pub(crate) enum Data {
    /// A time series; `labels` are the point texts of every observation of `input`.
    Series {
        input: SeriesInput,
        labels: Vec<String>,
    },
    /// Curves, ascending by ondate.
    Curves { curves: Vec<CurveInput> },
}

/// The loaded data of one item.
pub(crate) struct Loaded {
    pub data: Data,
    /// Index (in `input` or `curves`) of the first point of the window.
    pub first: usize,
    /// Positions in the window of the asked points (tune), in the order asked.
    pub asked: Vec<usize>,
}

impl Loaded {
    /// Points in the window.
    pub fn len(&self) -> usize {
        match &self.data {
            Data::Series { input, .. } => input.times.len() - self.first,
            Data::Curves { curves } => curves.len() - self.first,
        }
    }

    /// The text of the window point at `pos` (observation time or ondate).
    pub fn label(&self, pos: usize) -> String {
        match &self.data {
            Data::Series { labels, .. } => labels[self.first + pos].clone(),
            Data::Curves { curves } => curves[self.first + pos].ondate.to_string(),
        }
    }
}

/// Window bounds: the first day and today.
pub(crate) fn window_dates(now: NaiveDate, days: u64) -> (NaiveDate, NaiveDate) {
    (now - Duration::days(days as i64), now)
}

impl Validation<'_> {
    /// Reads the window of an item: the observations (or curves) from `from` to the end of
    /// today, the asked points added even when older, and (curves) only the newest
    /// `max_curves` besides those.
    pub(crate) fn load_window(
        &self,
        tx: &dyn ReadTx,
        p: &Principal,
        target: &str,
        kind: Kind,
        span: Span,
        asked: &[String],
    ) -> Result<Loaded> {
        let item = item::open(tx, p, target)?;
        let key = &item.key;
        let (from, today) = window_dates(self.platform.now().date_naive(), span.days);
        match (kind, item.kind) {
            (Kind::TimeSeries, Some(DataKind::Series)) => {
                let (calendar, tz, _) = series_settings(&key.prop, &item.header)?;
                let points = series::read(tx, key, item.version, Window::All)?;
                series_window(points, (calendar, tz), (from, today), asked, target)
            }
            (Kind::Curve, Some(DataKind::Curve)) => {
                let to = today.format("%Y-%m-%d").to_string();
                let all = tx.curves(key, item.version, None, Some(&to), None)?;
                curve_window(&all, from, span, asked, target)
            }
            (k, _) => Err(Error::invalid_parameter(format!(
                "{target} is not a {}",
                if k == Kind::Curve {
                    "curve"
                } else {
                    "time series"
                }
            ))),
        }
    }
}

/// The window of a series: its observations up to the end of `today`, from the first day
/// `from` or the oldest asked point.
fn series_window(
    points: Vec<Point>,
    (calendar, tz): (Calendar, chrono_tz::Tz),
    (from, today): (NaiveDate, NaiveDate),
    asked: &[String],
    target: &str,
) -> Result<Loaded> {
    let day_ms =
        |d: NaiveDate| -> Result<i64> { parse_time(&d.format("%Y-%m-%d").to_string(), tz) };
    let end = day_ms(today + Duration::days(1))?;
    let mut start = day_ms(from)?;
    let mut asked_t = Vec::with_capacity(asked.len());
    for text in asked {
        let t = parse_time(text, tz)?;
        if points.binary_search_by_key(&t, |p| p.t).is_err() || t >= end {
            return Err(Error::invalid_parameter(format!(
                "{target} has no observation at {text}"
            )));
        }
        start = start.min(t);
        asked_t.push(t);
    }
    let kept: Vec<_> = points.into_iter().filter(|p| p.t < end).collect();
    let first = kept.partition_point(|p| p.t < start);
    let asked = asked_t
        .iter()
        .filter_map(|t| kept.binary_search_by_key(t, |p| p.t).ok())
        .map(|i| i - first)
        .collect();
    let input = series_input(&kept, calendar);
    let labels = kept
        .iter()
        .map(|p| format_time(p.t, calendar, tz))
        .collect();
    Ok(Loaded {
        data: Data::Series { input, labels },
        first,
        asked,
    })
}

/// The window of curves (`all`: every curve up to today, by ondate): those from the first day
/// `from`, at most the newest `max_curves`, the asked ones however old, and two earlier ones
/// for the move checks.
fn curve_window(
    all: &[(String, Vec<u8>)],
    from: NaiveDate,
    span: Span,
    asked: &[String],
    target: &str,
) -> Result<Loaded> {
    let mut asked_days = Vec::with_capacity(asked.len());
    for text in asked {
        let d = text
            .get(..10)
            .and_then(|h| NaiveDate::parse_from_str(h, "%Y-%m-%d").ok())
            .ok_or_else(|| {
                Error::invalid_parameter(format!("\"{text}\" is not a date (YYYY-MM-DD)"))
            })?
            .format("%Y-%m-%d")
            .to_string();
        if !all.iter().any(|(o, _)| *o == d) {
            return Err(Error::invalid_parameter(format!(
                "{target} has no curve on {d}"
            )));
        }
        asked_days.push(d);
    }
    let from = from.format("%Y-%m-%d").to_string();
    let in_days = all.partition_point(|(o, _)| *o < from);
    let mut first = in_days.max(all.len().saturating_sub(span.max_curves));
    if let Some(oldest) = asked_days.iter().min() {
        first = first.min(all.partition_point(|(o, _)| o < oldest));
    }
    // Two earlier curves feed the move checks of the first ones.
    let load_from = first.saturating_sub(2);
    let mut curves = Vec::with_capacity(all.len() - load_from);
    for (_, bytes) in &all[load_from..] {
        curves.push(curve_input(&curve::decode(bytes)?));
    }
    let first = first - load_from;
    let asked = asked_days
        .iter()
        .filter_map(|d| {
            curves
                .iter()
                .position(|c| c.ondate.format("%Y-%m-%d").to_string() == *d)
        })
        .map(|i| i - first)
        .collect();
    Ok(Loaded {
        data: Data::Curves { curves },
        first,
        asked,
    })
}
