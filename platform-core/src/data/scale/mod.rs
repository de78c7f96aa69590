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

mod coverage;

pub use coverage::coverage;

use super::calendar::Calendar;
use super::model::{Point, PointValue};
use crate::error::{Error, Result};
use crate::holidays::HolidayCalendar;
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

/// A series calendar is a target as it is: `Scaling::aggregate(Calendar::Daily, ...)`.
impl From<Calendar> for Target {
    fn from(calendar: Calendar) -> Target {
        Target::Calendar(calendar)
    }
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

    /// Whether its periods are dates (days and coarser, cut at local midnights).
    fn is_dated(self) -> bool {
        matches!(self, Target::Calendar(c) if c.is_dated())
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
    /// midnight counts its morning hours on the day it starts, an EFA block on its EFA day
    /// (EFA1 of 1 April starts at 23:00 on 31 March and is April's), for daily and coarser
    /// targets.
    fn counted_at(&self, ms: i64, tz: Tz, target: Target) -> i64 {
        if !target.is_dated() {
            return ms;
        }
        match self {
            Block::Efa(_) => on_efa_day(ms, tz),
            Block::Hours(hours) => {
                let local = at(ms).with_timezone(&tz);
                let day = hours.starts_on(local.date_naive(), local.hour());
                if day == local.date_naive() {
                    ms
                } else {
                    local_start(tz, day, noon())
                }
            }
            _ => ms,
        }
    }

    /// Whether the block can count an observation in a period other than its own instant's
    /// (so an expected count looks a day beyond the period).
    fn moves(&self) -> bool {
        matches!(self, Block::Efa(_) | Block::Hours(_))
    }
}

fn noon() -> NaiveTime {
    NaiveTime::from_hms_opt(12, 0, 0).unwrap_or(NaiveTime::MIN)
}

/// Noon (in `tz`) of the date of the EFA day holding `ms`: where a date period counts it.
fn on_efa_day(ms: i64, tz: Tz) -> i64 {
    local_start(tz, super::efa::day_and_block(ms).0, noon())
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
    /// How many observations of the series' calendar the period holds (its block's only);
    /// `None` for a SPARSE series, which expects none.
    pub expected: Option<usize>,
}

/// Where the observations of a series count when it is aggregated: the block that keeps them
/// and the period of the target each kept one falls in.
#[derive(Debug, Clone, Copy)]
pub struct Counting<'b> {
    /// The series' calendar.
    pub source: Calendar,
    /// The series' zone (its calendar's days are cut there).
    pub zone: Tz,
    /// The holiday calendar a series dated on business days names (its `calendar`), whose
    /// holidays hold no observation.
    pub holidays: Option<&'b HolidayCalendar>,
    /// The calendar scaled to.
    pub target: Target,
    /// The hours kept.
    pub block: Option<&'b Block>,
    /// The zone periods are cut in.
    pub tz: Tz,
}

impl Counting<'_> {
    /// A series stored by EFA block or EFA day counts each point on its EFA day's date when
    /// scaled to a date calendar (its block applied first, at its own time).
    fn efa_days(&self) -> bool {
        self.target.is_dated() && matches!(self.source, Calendar::Efa | Calendar::EfaDay)
    }

    /// The instant whose target period the observation at `ms` counts in, or `None` when its
    /// block leaves it out.
    pub fn counted_at(&self, ms: i64) -> Option<i64> {
        if self.block.is_some_and(|b| !b.keeps(ms, self.tz)) {
            return None;
        }
        if self.efa_days() {
            return Some(on_efa_day(ms, self.tz));
        }
        Some(
            self.block
                .map_or(ms, |b| b.counted_at(ms, self.tz, self.target)),
        )
    }

    /// Whether an observation may count in a period other than its own instant's.
    fn moves(&self) -> bool {
        self.efa_days() || (self.target.is_dated() && self.block.is_some_and(Block::moves))
    }
}

/// Aggregates numeric observations (sorted by time) into the periods of the target, as
/// `counting` counts them. A period without an observation gives nothing; a BUSINESS target
/// leaves out weekends. Each period says how many observations made it and how many the
/// series' calendar holds there.
pub fn aggregate(points: &[Point], counting: &Counting<'_>, observed: Observed) -> Vec<Scaled> {
    let (target, tz) = (counting.target, counting.tz);
    // Each period's start and end, value and count.
    let mut periods: Vec<((i64, i64), f64, usize)> = Vec::new();
    let mut current: Option<(i64, i64)> = None;
    let mut values: Vec<f64> = Vec::new();
    let mut flush = |period: (i64, i64), values: &mut Vec<f64>| {
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
        periods.push((period, value, values.len()));
        values.clear();
    };
    for p in points {
        let PointValue::Num(v) = p.v else { continue };
        if !v.is_finite() {
            continue;
        }
        let Some(t) = counting.counted_at(p.t) else {
            continue;
        };
        let inside = current.is_some_and(|(s, e)| t >= s && t < e);
        if !inside {
            if let Some(period) = current {
                flush(period, &mut values);
            }
            current = Some(period_of(target, t, tz));
        }
        values.push(v);
    }
    if let Some(period) = current {
        flush(period, &mut values);
    }
    let business = target == Target::Calendar(Calendar::Business);
    let anchor = points.first().map_or(0, |p| p.t);
    periods
        .into_iter()
        .filter(|((start, _), _, _)| {
            !(business
                && matches!(
                    at(*start).with_timezone(&tz).weekday(),
                    Weekday::Sat | Weekday::Sun
                ))
        })
        .map(|((start, end), value, count)| Scaled {
            start,
            value,
            count,
            expected: counting.expected(start, end, anchor),
        })
        .collect()
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
    /// Aggregation into the coarser periods of `target`, each period's value as `observed`
    /// says (`_calendar` with `_observed`): the daily average of an hourly series is
    /// `Scaling::aggregate(Calendar::Daily, Observed::Averaged)` (a calendar is a target;
    /// the gas day is `ScaleTarget::GasDay`).
    ///
    /// ```
    /// use platform_core::api::data::{Calendar, Observed, ScaleTarget, Scaling};
    /// let daily = Scaling::aggregate(Calendar::Daily, Observed::Averaged);
    /// assert_eq!(daily, Scaling::aggregate(ScaleTarget::Calendar(Calendar::Daily), Observed::Averaged));
    /// ```
    pub fn aggregate(target: impl Into<Target>, observed: Observed) -> Scaling {
        Scaling {
            target: target.into(),
            observed: Some(observed),
            distribute: false,
            block: None,
        }
    }

    /// Spreading into the finer periods of `target`, each taking its period's value
    /// (`_calendar` with `_distribution=constant`).
    pub fn distribute(target: impl Into<Target>) -> Scaling {
        Scaling {
            target: target.into(),
            observed: None,
            distribute: true,
            block: None,
        }
    }

    /// The same aggregation keeping only the hours of `block` (`_block`): peak, off-peak, an
    /// EFA block, or a block calendar by id ([`Block::Named`]). A read refuses a block with
    /// [`Scaling::distribute`].
    pub fn in_block(self, block: Block) -> Scaling {
        Scaling {
            block: Some(block),
            ..self
        }
    }

    /// The calendar scaled to.
    pub fn target(&self) -> Target {
        self.target
    }

    /// How each period's value is made, when aggregating.
    pub fn observed(&self) -> Option<Observed> {
        self.observed
    }

    /// Refuses what [`Scaling::from_params`] refuses of a request: a block with distribution.
    pub(crate) fn check(&self) -> Result<()> {
        if self.block.is_some() && self.distribute {
            return Err(Error::invalid_parameter(
                "a block applies to aggregation (Scaling::aggregate), not to Scaling::distribute",
            ));
        }
        Ok(())
    }

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

    /// Scales the points of a series on `source` whose zone is also the zone periods are cut
    /// in: [`Scaling::apply_in`].
    pub fn apply(&self, points: &[Point], source: Calendar, tz: Tz) -> Result<Vec<Point>> {
        self.apply_in(points, (source, None), tz, tz)
    }

    /// Scales the points of a series on `source` (with the holiday calendar a series dated on
    /// business days names) in the zone `zone`, its periods cut in `tz`: the answer's points
    /// at their periods' starts, with status source CALCULATED, or `CALCULATED:<n> of <m>` for
    /// a period aggregated from fewer observations than the series' calendar holds there
    /// ([`coverage`]). A target that is not coarser (for `_observed`) or finer (for
    /// `_distribution`) than the series is a 400.
    pub fn apply_in(
        &self,
        points: &[Point],
        (source, holidays): (Calendar, Option<&HolidayCalendar>),
        zone: Tz,
        tz: Tz,
    ) -> Result<Vec<Point>> {
        let (theirs, ours) = (nominal(source), self.target.nominal());
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
            let counting = Counting {
                source,
                zone,
                holidays,
                target: self.target,
                block: self.block.as_ref(),
                tz,
            };
            return Ok(aggregate(points, &counting, observed)
                .into_iter()
                .map(|s| Point {
                    t: s.start,
                    v: PointValue::Num(s.value),
                    status: Some(Box::new(coverage::calculated(s.count, s.expected))),
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
                status: Some(Box::new(coverage::calculated(1, None))),
            })
            .collect())
    }
}

#[cfg(test)]
mod coverage_tests;
#[cfg(test)]
mod tests;
