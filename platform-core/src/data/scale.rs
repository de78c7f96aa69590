//! Scaling a series to another calendar on read: aggregation into coarser periods
//! (`_observed`), spreading over finer ones (`_distribution=constant`), and blocks of hours
//! (`_block`).
//!
//! Periods are cut in a time zone: a day runs from local midnight to local midnight (23 or 25
//! hours on a change day), a gas day (`GASDAY`) from 06:00 to 06:00 local, a week from Monday,
//! months, quarters and years from their first day. Intraday periods are steps of elapsed time
//! from the local midnight, so the repeated hour of an autumn change is two hourly periods.
//! Every period is known by its start, a UTC instant.
//!
//! A block keeps only some hours before aggregating: `PEAK` is Monday to Friday 08:00 to 20:00
//! local (holidays included), `OFFPEAK` every other hour, `BASE` every hour; any other `_block`
//! is the id of a block calendar of the calendar service (its own days and hours, and a holiday
//! calendar's holidays off, see [`crate::calendars`]).

use super::calendar::Calendar;
use super::model::{Point, PointValue, Status};
use crate::error::{Error, Result};
use chrono::{
    DateTime, Datelike, Days, Months, NaiveDate, NaiveTime, TimeZone, Timelike, Utc, Weekday,
};
use chrono_tz::Tz;

/// The calendar a read scales to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A series calendar (not SPARSE).
    Calendar(Calendar),
    /// Days from 06:00 local.
    GasDay,
}

impl Target {
    /// Parses a target calendar code: a series calendar (EFA blocks and days among them) or
    /// `GASDAY`.
    pub fn parse(code: &str) -> Result<Target> {
        if code.trim().eq_ignore_ascii_case("GASDAY") {
            return Ok(Target::GasDay);
        }
        match Calendar::parse(Some(code)) {
            Ok(Calendar::Sparse) => Err(Error::invalid_parameter(
                "_calendar=SPARSE has no periods to scale to",
            )),
            Ok(c) => Ok(Target::Calendar(c)),
            Err(e) => Err(Error::invalid_parameter(format!(
                "_calendar: {}; or GASDAY",
                e.public_message()
            ))),
        }
    }

    /// The calendar code an answer carries.
    pub fn code(self) -> String {
        match self {
            Target::GasDay => "GASDAY".into(),
            Target::Calendar(c) => c.code(),
        }
    }

    /// The calendar the answer's times print in (a gas day prints its UTC start).
    pub fn printed(self) -> Calendar {
        match self {
            Target::Calendar(c) => c,
            Target::GasDay => Calendar::Sparse,
        }
    }

    /// A nominal length in seconds, to tell coarser from finer.
    fn nominal(self) -> i64 {
        match self {
            Target::Calendar(c) => nominal(c),
            Target::GasDay => 86_400,
        }
    }
}

fn nominal(c: Calendar) -> i64 {
    match c {
        Calendar::Intraday(step) => i64::from(step),
        Calendar::Daily | Calendar::Business | Calendar::EfaDay => 86_400,
        Calendar::Efa => 4 * 3_600,
        Calendar::Weekly => 7 * 86_400,
        Calendar::Monthly => 30 * 86_400,
        Calendar::Quarterly => 91 * 86_400,
        Calendar::Yearly => 365 * 86_400,
        Calendar::Sparse => 0,
    }
}

/// How the observations of one period become its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observed {
    /// The mean.
    Averaged,
    /// The sum.
    Summed,
    /// The largest.
    High,
    /// The smallest.
    Low,
    /// The first.
    Beginning,
    /// The last.
    End,
}

impl Observed {
    /// Parses an `_observed` value.
    pub fn parse(text: &str) -> Result<Observed> {
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "averaged" => Observed::Averaged,
            "summed" => Observed::Summed,
            "high" => Observed::High,
            "low" => Observed::Low,
            "beginning" => Observed::Beginning,
            "end" => Observed::End,
            _ => {
                return Err(Error::invalid_parameter(format!(
                    "_observed \"{text}\": use averaged, summed, high, low, beginning or end"
                )))
            }
        })
    }

    /// The name the answer's `observed` field carries.
    pub fn as_str(self) -> &'static str {
        match self {
            Observed::Averaged => "averaged",
            Observed::Summed => "summed",
            Observed::High => "high",
            Observed::Low => "low",
            Observed::Beginning => "beginning",
            Observed::End => "end",
        }
    }
}

/// The hours a block keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// Monday to Friday, 08:00 to 20:00 local.
    Peak,
    /// Every hour that is not peak.
    Offpeak,
    /// Every hour.
    Base,
    /// One EFA block of GB power (1..=6), in London time.
    Efa(u8),
    /// A block calendar of the calendar service, by id (loaded before scaling).
    Named(String),
    /// A block calendar, loaded.
    Hours(std::sync::Arc<crate::calendars::BlockHours>),
}

impl Block {
    /// Parses a `_block` code.
    pub fn parse(text: &str) -> Result<Block> {
        if let Some(efa) = super::efa::parse_block(text) {
            return efa.map(Block::Efa);
        }
        Ok(match text.trim().to_ascii_uppercase().as_str() {
            "PEAK" => Block::Peak,
            "OFFPEAK" => Block::Offpeak,
            "BASE" => Block::Base,
            _ if crate::ids::validate_id(text, "_block").is_ok() => Block::Named(text.to_string()),
            _ => {
                return Err(Error::invalid_parameter(format!(
                    "_block \"{text}\": use PEAK, OFFPEAK, BASE, EFA1..EFA6 or the id of a block calendar"
                )))
            }
        })
    }

    /// Whether the observation at `ms` is in the block, in the zone `tz`.
    pub fn keeps(&self, ms: i64, tz: Tz) -> bool {
        let peak = || {
            let local = at(ms).with_timezone(&tz);
            !matches!(local.weekday(), Weekday::Sat | Weekday::Sun)
                && (8..20).contains(&local.hour())
        };
        match self {
            Block::Base => true,
            Block::Peak => peak(),
            Block::Efa(n) => super::efa::day_and_block(ms).1 == *n,
            Block::Offpeak => !peak(),
            Block::Hours(hours) => {
                let local = at(ms).with_timezone(&tz);
                hours.keeps(local.date_naive(), local.hour())
            }
            // Never reached: a read loads named blocks first (an unloaded one keeps nothing).
            Block::Named(_) => false,
        }
    }

    /// The instant whose `target` period an observation kept at `ms` counts in: a block past
    /// midnight counts its morning hours on the day it starts (for daily and coarser targets).
    fn counted_at(&self, ms: i64, tz: Tz, target: Target) -> i64 {
        let Block::Hours(hours) = self else { return ms };
        if !matches!(target, Target::Calendar(c) if c.is_dated()) {
            return ms;
        }
        let local = at(ms).with_timezone(&tz);
        let day = hours.starts_on(local.date_naive(), local.hour());
        if day == local.date_naive() {
            return ms;
        }
        local_start(
            tz,
            day,
            NaiveTime::from_hms_opt(12, 0, 0).unwrap_or(NaiveTime::MIN),
        )
    }
}

fn at(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// The first instant at or after the local time `date time` (a local time in a spring gap
/// starts when the clocks do).
fn local_start(tz: Tz, date: NaiveDate, time: NaiveTime) -> i64 {
    let mut naive = date.and_time(time);
    for _ in 0..48 {
        match tz.from_local_datetime(&naive) {
            chrono::LocalResult::Single(t) => return t.timestamp_millis(),
            chrono::LocalResult::Ambiguous(early, _) => return early.timestamp_millis(),
            chrono::LocalResult::None => naive += chrono::Duration::minutes(30),
        }
    }
    naive.and_utc().timestamp_millis()
}

/// The local calendar date that opens the period holding local date `d`.
fn opening_date(target: Target, d: NaiveDate) -> NaiveDate {
    match target {
        Target::Calendar(Calendar::Weekly) => {
            d - Days::new(u64::from(d.weekday().num_days_from_monday()))
        }
        Target::Calendar(Calendar::Monthly) => d.with_day(1).unwrap_or(d),
        Target::Calendar(Calendar::Quarterly) => {
            NaiveDate::from_ymd_opt(d.year(), (d.month() - 1) / 3 * 3 + 1, 1).unwrap_or(d)
        }
        Target::Calendar(Calendar::Yearly) => NaiveDate::from_ymd_opt(d.year(), 1, 1).unwrap_or(d),
        _ => d,
    }
}

/// The local date after the period that opens on `d`.
fn next_opening(target: Target, d: NaiveDate) -> NaiveDate {
    match target {
        Target::Calendar(Calendar::Weekly) => d + Days::new(7),
        Target::Calendar(Calendar::Monthly) => d + Months::new(1),
        Target::Calendar(Calendar::Quarterly) => d + Months::new(3),
        Target::Calendar(Calendar::Yearly) => d + Months::new(12),
        _ => d + Days::new(1),
    }
}

/// The period of `target` holding the instant `ms`: its start and end (UTC milliseconds).
pub fn period_of(target: Target, ms: i64, tz: Tz) -> (i64, i64) {
    let local = at(ms).with_timezone(&tz);
    match target {
        Target::Calendar(Calendar::Intraday(step)) => {
            let step_ms = i64::from(step) * 1000;
            let offset = chrono::Offset::fix(local.offset()).local_minus_utc() as i64 * 1000;
            let start = (ms + offset).div_euclid(step_ms) * step_ms - offset;
            (start, start + step_ms)
        }
        Target::Calendar(c @ (Calendar::Efa | Calendar::EfaDay)) => {
            super::efa::period_of(ms, c == Calendar::EfaDay)
        }
        Target::GasDay => {
            let six = NaiveTime::from_hms_opt(6, 0, 0).unwrap_or(NaiveTime::MIN);
            let mut day = local.date_naive();
            if local.time() < six {
                day = day.pred_opt().unwrap_or(day);
            }
            (
                local_start(tz, day, six),
                local_start(tz, day + Days::new(1), six),
            )
        }
        _ => {
            let open = opening_date(target, local.date_naive());
            (
                local_start(tz, open, NaiveTime::MIN),
                local_start(tz, next_opening(target, open), NaiveTime::MIN),
            )
        }
    }
}

/// A period's aggregated value.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaled {
    /// The period's start (UTC milliseconds).
    pub start: i64,
    /// The value.
    pub value: f64,
    /// How many observations made it.
    pub count: usize,
}

/// Aggregates numeric observations (sorted by time) into the periods of `target` in the zone
/// `tz`, keeping only the hours of `block`. A period without an observation gives nothing; a
/// BUSINESS target leaves out weekends.
pub fn aggregate(
    points: &[Point],
    target: Target,
    observed: Observed,
    block: Option<&Block>,
    tz: Tz,
) -> Vec<Scaled> {
    let mut out: Vec<Scaled> = Vec::new();
    let mut current: Option<(i64, i64)> = None;
    let mut values: Vec<f64> = Vec::new();
    let flush = |start: i64, values: &mut Vec<f64>, out: &mut Vec<Scaled>| {
        if values.is_empty() {
            return;
        }
        let value = match observed {
            Observed::Averaged => values.iter().sum::<f64>() / values.len() as f64,
            Observed::Summed => values.iter().sum(),
            Observed::High => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Observed::Low => values.iter().copied().fold(f64::INFINITY, f64::min),
            Observed::Beginning => values[0],
            Observed::End => values[values.len() - 1],
        };
        out.push(Scaled {
            start,
            value,
            count: values.len(),
        });
        values.clear();
    };
    for p in points {
        let PointValue::Num(v) = p.v else { continue };
        if !v.is_finite() || block.is_some_and(|b| !b.keeps(p.t, tz)) {
            continue;
        }
        let t = block.map_or(p.t, |b| b.counted_at(p.t, tz, target));
        let inside = current.is_some_and(|(s, e)| t >= s && t < e);
        if !inside {
            if let Some((s, _)) = current {
                flush(s, &mut values, &mut out);
            }
            current = Some(period_of(target, t, tz));
        }
        values.push(v);
    }
    if let Some((s, _)) = current {
        flush(s, &mut values, &mut out);
    }
    if target == Target::Calendar(Calendar::Business) {
        out.retain(|s| {
            !matches!(
                at(s.start).with_timezone(&tz).weekday(),
                Weekday::Sat | Weekday::Sun
            )
        });
    }
    out
}

/// Spreads each observation of a series on `source` over the finer periods of `target` inside
/// its own period (each takes its value).
pub fn distribute(points: &[Point], source: Calendar, target: Target, tz: Tz) -> Vec<(i64, f64)> {
    let source = Target::Calendar(source);
    let mut out = Vec::new();
    for p in points {
        let PointValue::Num(v) = p.v else { continue };
        let (_, end) = period_of(source, p.t, tz);
        let mut t = p.t;
        while t < end {
            let (start, next) = period_of(target, t, tz);
            if start >= p.t
                && !(target == Target::Calendar(Calendar::Business) && {
                    let d = at(start).with_timezone(&tz).weekday();
                    matches!(d, Weekday::Sat | Weekday::Sun)
                })
            {
                out.push((start, v));
            }
            if next <= t {
                break;
            }
            t = next;
        }
    }
    out
}

/// What a read asks of scaling: `_calendar`, `_observed`, `_distribution`, `_block`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scaling {
    /// The calendar to scale to.
    pub target: Target,
    /// Aggregation into coarser periods.
    pub observed: Option<Observed>,
    /// Spreading into finer periods (`constant`).
    pub distribute: bool,
    /// The hours kept before aggregating.
    pub block: Option<Block>,
}

impl Scaling {
    /// The scaling the parameters of a read ask for (`None` without `_calendar`, `_observed`,
    /// `_distribution` or `_block`); every mistake is a 400 naming the parameter.
    pub fn from_params(
        calendar: Option<&str>,
        observed: Option<&str>,
        distribution: Option<&str>,
        block: Option<&str>,
    ) -> Result<Option<Scaling>> {
        if calendar.is_none() {
            if let Some((name, _)) = [
                ("_observed", observed),
                ("_distribution", distribution),
                ("_block", block),
            ]
            .into_iter()
            .find(|(_, v)| v.is_some())
            {
                return Err(Error::invalid_parameter(format!(
                    "{name} needs _calendar=<the calendar to scale to>"
                )));
            }
            return Ok(None);
        }
        let target = Target::parse(calendar.unwrap_or_default())?;
        let observed = observed.map(Observed::parse).transpose()?;
        let distribute = match distribution {
            None => false,
            Some(d) if d.trim().eq_ignore_ascii_case("constant") => true,
            Some(d) => {
                return Err(Error::invalid_parameter(format!(
                    "_distribution \"{d}\": use constant"
                )))
            }
        };
        if observed.is_some() && distribute {
            return Err(Error::invalid_parameter(
                "_observed (to a coarser calendar) and _distribution (to a finer one) exclude each other",
            ));
        }
        if !distribute && observed.is_none() {
            return Err(Error::invalid_parameter(
                "_calendar needs _observed=averaged|summed|high|low|beginning|end (to a coarser calendar) \
                 or _distribution=constant (to a finer one)",
            ));
        }
        let block = block.map(Block::parse).transpose()?;
        if block.is_some() && distribute {
            return Err(Error::invalid_parameter(
                "_block applies to aggregation (_observed), not to _distribution",
            ));
        }
        Ok(Some(Scaling {
            target,
            observed,
            distribute,
            block,
        }))
    }

    /// Scales the points of a series on `source` in the zone `tz`: the answer's points at
    /// their periods' starts, with status source CALCULATED. A target that is not coarser
    /// (for `_observed`) or finer (for `_distribution`) than the series is a 400.
    pub fn apply(&self, points: &[Point], source: Calendar, tz: Tz) -> Result<Vec<Point>> {
        let (theirs, ours) = (nominal(source), self.target.nominal());
        let calculated = || {
            Some(Box::new(Status {
                source: Some("CALCULATED".into()),
                ..Status::default()
            }))
        };
        if let Some(observed) = self.observed {
            if source != Calendar::Sparse && ours <= theirs {
                return Err(Error::invalid_parameter(
                    "_observed needs a _calendar coarser than the series' calendar",
                ));
            }
            if let Some(Block::Named(id)) = &self.block {
                return Err(Error::Internal(format!(
                    "the block calendar \"{id}\" was not loaded before scaling"
                )));
            }
            let (points, block) = self.on_efa_days(points, source, tz);
            return Ok(aggregate(&points, self.target, observed, block, tz)
                .into_iter()
                .map(|s| Point {
                    t: s.start,
                    v: PointValue::Num(s.value),
                    status: calculated(),
                })
                .collect());
        }
        if source == Calendar::Sparse || ours >= theirs {
            return Err(Error::invalid_parameter(
                "_distribution needs a _calendar finer than the series' calendar",
            ));
        }
        Ok(distribute(points, source, self.target, tz)
            .into_iter()
            .map(|(t, v)| Point {
                t,
                v: PointValue::Num(v),
                status: calculated(),
            })
            .collect())
    }
}

impl Scaling {
    /// The points an aggregation takes, and the block it still applies: a series stored by EFA
    /// block or EFA day counts each point on its EFA day's date when scaled to a date calendar
    /// (the EFA day of 1 April starts at 23:00 on 31 March and is April's), its block applied
    /// first, at its own time.
    fn on_efa_days<'p>(
        &'p self,
        points: &'p [Point],
        source: Calendar,
        tz: Tz,
    ) -> (std::borrow::Cow<'p, [Point]>, Option<&'p Block>) {
        let dated = matches!(self.target, Target::Calendar(c) if c.is_dated());
        if !dated || !matches!(source, Calendar::Efa | Calendar::EfaDay) {
            return (points.into(), self.block.as_ref());
        }
        let noon = NaiveTime::from_hms_opt(12, 0, 0).unwrap_or(NaiveTime::MIN);
        let moved = points
            .iter()
            .filter(|p| self.block.as_ref().is_none_or(|b| b.keeps(p.t, tz)))
            .map(|p| Point {
                t: local_start(tz, super::efa::day_and_block(p.t).0, noon),
                ..p.clone()
            })
            .collect::<Vec<_>>();
        (moved.into(), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn vectors_of(name: &str) -> Value {
        let shared = format!(
            "{}/../../shared/spec/vectors/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let copy = format!("{}/testdata/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
        let path = if std::path::Path::new(&shared).exists() {
            shared
        } else {
            copy
        };
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn vectors() -> Value {
        vectors_of("scaling.json")
    }

    fn ms(text: &str) -> i64 {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    }

    #[test]
    fn every_scaling_vector_passes() {
        let file = vectors();
        let cases = file["cases"].as_array().unwrap();
        assert!(cases.len() >= 19);
        check_cases(cases);
    }

    #[test]
    fn every_efa_vector_passes() {
        let file = vectors_of("efa.json");
        let cases = file["cases"].as_array().unwrap();
        assert!(cases.len() >= 5);
        check_cases(cases);
    }

    fn check_cases(cases: &[Value]) {
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let series = &case["series"];
            let tz: Tz = series["timezone"].as_str().unwrap().parse().unwrap();
            let source = Calendar::parse(series["calendar"].as_str()).unwrap();
            let points: Vec<Point> = series["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    Point::num(
                        ms(p["time"].as_str().unwrap()),
                        p["value"].as_f64().unwrap(),
                    )
                })
                .collect();
            let q = &case["query"];
            let scaling = Scaling::from_params(
                q["calendar"].as_str(),
                q["observed"].as_str(),
                q["distribution"].as_str(),
                q["block"].as_str(),
            )
            .unwrap()
            .unwrap();
            let want = case["result"].as_array().unwrap();
            let got = scaling.apply(&points, source, tz).unwrap();
            assert_eq!(got.len(), want.len(), "{name}");
            for (g, w) in got.iter().zip(want) {
                assert_eq!(g.t, ms(w["time"].as_str().unwrap()), "{name}: {w}");
                let v = g.v.as_f64().unwrap();
                assert!(
                    (v - w["value"].as_f64().unwrap()).abs() < 1e-9,
                    "{name}: {v} vs {w}"
                );
            }
            // The counts, where the case gives them.
            if let Some(observed) = scaling.observed {
                let counts: Vec<usize> = aggregate(
                    &points,
                    scaling.target,
                    observed,
                    scaling.block.as_ref(),
                    tz,
                )
                .iter()
                .map(|s| s.count)
                .collect();
                let wanted: Vec<usize> = want
                    .iter()
                    .map(|w| w["count"].as_u64().unwrap() as usize)
                    .collect();
                assert_eq!(counts, wanted, "{name}");
            }
        }
    }

    #[test]
    fn scaling_parameters_are_checked() {
        let err = |c, o, d, b| {
            Scaling::from_params(c, o, d, b)
                .unwrap_err()
                .public_message()
        };
        assert!(err(None, Some("averaged"), None, None).contains("_observed needs _calendar"));
        assert!(err(None, None, None, Some("PEAK")).contains("_block needs _calendar"));
        assert!(err(Some("FORTNIGHTLY"), Some("averaged"), None, None).contains("FORTNIGHTLY"));
        assert!(err(Some("DAILY"), Some("mean"), None, None).contains("\"mean\""));
        // Any other block is a block calendar's id, loaded by the read (a 400 there if absent);
        // a text that cannot be an id is refused here.
        assert!(err(Some("DAILY"), Some("averaged"), None, Some("A/B")).contains("\"A/B\""));
        assert_eq!(
            Scaling::from_params(Some("DAILY"), Some("averaged"), None, Some("NIGHT"))
                .unwrap()
                .unwrap()
                .block,
            Some(Block::Named("NIGHT".into()))
        );
        assert!(err(Some("DAILY"), None, None, None).contains("_observed"));
        assert!(err(Some("DAILY"), None, Some("linear"), None).contains("\"linear\""));
        assert_eq!(Scaling::from_params(None, None, None, None).unwrap(), None);
        // Not coarser, not finer.
        let daily = Scaling::from_params(Some("DAILY"), Some("summed"), None, None)
            .unwrap()
            .unwrap();
        let e = daily
            .apply(&[Point::num(0, 1.0)], Calendar::Monthly, Tz::UTC)
            .unwrap_err();
        assert!(e.public_message().contains("coarser"));
        let hourly = Scaling::from_params(Some("HOURLY"), None, Some("constant"), None)
            .unwrap()
            .unwrap();
        let e = hourly
            .apply(&[Point::num(0, 1.0)], Calendar::Intraday(900), Tz::UTC)
            .unwrap_err();
        assert!(e.public_message().contains("finer"));
    }

    #[test]
    fn a_block_past_midnight_counts_on_the_day_it_starts() {
        use crate::calendars::{BlockCalendar, BlockHours};
        use crate::holidays::HolidayCalendar;
        let night = BlockHours {
            id: "NIGHT".into(),
            block: BlockCalendar {
                days: [true, true, true, true, true, false, false],
                from: 23,
                to: 3,
                holidays: Some("#H".into()),
            },
            holidays: Some(HolidayCalendar::parse(&["25th of December"]).unwrap()),
        };
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        // Friday night's block is Friday's: Saturday 02:00 is in it, Saturday 23:00 is not;
        // Christmas night is off (the holiday is the day it starts), Christmas Eve's night on.
        assert!(night.keeps(d("2024-12-27"), 23) && night.keeps(d("2024-12-28"), 2));
        assert!(!night.keeps(d("2024-12-28"), 3) && !night.keeps(d("2024-12-28"), 23));
        assert!(!night.keeps(d("2024-12-25"), 23) && !night.keeps(d("2024-12-26"), 1));
        assert!(night.keeps(d("2024-12-24"), 23) && night.keeps(d("2024-12-25"), 2));
        assert!(!night.keeps(d("2024-12-23"), 2) && !night.keeps(d("2024-12-24"), 12));
        // Daily sums: each night on the day it starts (Mon 23:00 .. Tue 03:00 is Monday's).
        let tz = Tz::UTC;
        let points: Vec<Point> = (0..72)
            .map(|h| Point::num(ms("2024-12-02T00:00:00Z") + h * 3_600_000, 1.0))
            .collect();
        let block = Block::Hours(std::sync::Arc::new(night));
        let daily = aggregate(
            &points,
            Target::Calendar(Calendar::Daily),
            Observed::Summed,
            Some(&block),
            tz,
        );
        // Monday 00:00-03:00 is Sunday night's, and Sunday is off the block.
        let got: Vec<(i64, usize)> = daily.iter().map(|s| (s.start, s.count)).collect();
        assert_eq!(
            got,
            [
                (ms("2024-12-02T00:00:00Z"), 4),
                (ms("2024-12-03T00:00:00Z"), 4),
                (ms("2024-12-04T00:00:00Z"), 1)
            ]
        );
    }
}
