//! Coverage of an aggregated point: how many observations made it against how many the
//! series' calendar holds in its period (`CALCULATED:<n> of <m>`).
//!
//! The expected count `m` is the number of times of the series' own calendar, in the series'
//! zone, that the aggregation would count in the period: its block's hours only, counted where
//! the block counts them (a night block on the day it starts, an EFA block on its EFA day). So
//! a day of an hourly series holds 24 (23 on the spring change day, 25 on the autumn one), a
//! day of a half-hourly series 48 (46, 50), a month of EFA1 from half-hours 8 a day (6 on the
//! spring change's EFA day, 10 on the autumn one), a week of a BUSINESS series 5. A SPARSE
//! series expects nothing: its points say `CALCULATED` alone.

use super::{at, Counting};
use crate::data::calendar::Calendar;
use crate::data::model::Status;
use crate::holidays::HolidayCalendar;
use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Weekday};
use chrono_tz::Tz;

/// The status of an aggregated point made of `count` observations where the series' calendar
/// holds `expected`: source `CALCULATED`, or `CALCULATED:<count> of <expected>` when fewer.
pub(super) fn calculated(count: usize, expected: Option<usize>) -> Status {
    let source = match expected {
        Some(m) if count < m => format!("CALCULATED:{count} of {m}"),
        _ => "CALCULATED".to_string(),
    };
    Status {
        source: Some(source),
        ..Status::default()
    }
}

/// The coverage a status source states: `Some((n, m))` for `CALCULATED:<n> of <m>` (a point
/// aggregated from `n` of the `m` observations its period holds), `None` for any other source
/// (a complete aggregate says `CALCULATED` alone).
///
/// ```
/// use platform_core::api::time::coverage;
/// assert_eq!(coverage("CALCULATED:23 of 24"), Some((23, 24)));
/// assert_eq!(coverage("CALCULATED"), None);
/// ```
pub fn coverage(source: &str) -> Option<(usize, usize)> {
    let (head, info) = source.split_once(':')?;
    if !head.eq_ignore_ascii_case("CALCULATED") {
        return None;
    }
    let (n, m) = info.trim().split_once(" of ")?;
    let (n, m) = (n.trim().parse().ok()?, m.trim().parse().ok()?);
    (n < m).then_some((n, m))
}

/// Where an observation at a time of the series' calendar counts, against one period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// In the period.
    In,
    /// Before or after it.
    Out,
    /// Left out by the block.
    Dropped,
}

const HOUR_MS: i64 = 3_600_000;

/// The instants of a local time in `zone`: one, two in a repeated hour, none in a gap.
fn instants(zone: Tz, wall: NaiveDateTime) -> impl Iterator<Item = i64> {
    let (a, b) = match zone.from_local_datetime(&wall) {
        chrono::LocalResult::Single(t) => (Some(t), None),
        chrono::LocalResult::Ambiguous(x, y) => (Some(x), Some(y)),
        chrono::LocalResult::None => (None, None),
    };
    a.into_iter().chain(b).map(|t| t.timestamp_millis())
}

/// The local dates of `zone` the instants `lo..hi` touch.
fn dates(zone: Tz, lo: i64, hi: i64) -> impl Iterator<Item = NaiveDate> {
    let first = at(lo).with_timezone(&zone).date_naive();
    let last = at(hi - 1).with_timezone(&zone).date_naive();
    first.iter_days().take_while(move |d| *d <= last)
}

impl Counting<'_> {
    /// How many observations of the series' calendar the period `start..end` holds, as this
    /// counting counts them (`anchor`: a time of the series, whose weekday a WEEKLY series
    /// keeps); `None` for a SPARSE series.
    pub fn expected(&self, start: i64, end: i64, anchor: i64) -> Option<usize> {
        let margin = if self.moves() { 2 * 24 * HOUR_MS } else { 0 };
        let (lo, hi) = (start - margin, end + margin);
        let place = |t: i64| match self.counted_at(t) {
            None => Place::Dropped,
            Some(u) if u >= start && u < end => Place::In,
            Some(_) => Place::Out,
        };
        let midnight = NaiveTime::MIN;
        let n = match self.source {
            Calendar::Sparse => return None,
            Calendar::Efa | Calendar::EfaDay => {
                let blocks = if self.source == Calendar::EfaDay {
                    1..=1
                } else {
                    1..=6
                };
                let first = super::super::efa::day_and_block(lo).0;
                let last = super::super::efa::day_and_block(hi).0;
                first
                    .iter_days()
                    .take_while(|d| *d <= last)
                    .flat_map(|d| {
                        blocks
                            .clone()
                            .map(move |b| super::super::efa::block_start(d, b))
                    })
                    .filter(|t| place(*t) == Place::In)
                    .count()
            }
            Calendar::Intraday(step) => self.intraday(i64::from(step), lo, hi, &place),
            dated => {
                let weekday = at(anchor).with_timezone(&self.zone).weekday();
                dates(self.zone, lo, hi)
                    .filter(|d| holds(dated, *d, weekday, self.holidays))
                    .flat_map(|d| instants(self.zone, d.and_time(midnight)))
                    .filter(|t| place(*t) == Place::In)
                    .count()
            }
        };
        Some(n)
    }

    /// The times of an intraday calendar of `step` seconds (whole multiples of it from each
    /// local midnight) in the dates touching `lo..hi` that fall `In`. A step that divides an
    /// hour counts an hour at a time where the hour is a plain one (no clock change in it) and
    /// its first and last times fall alike (a block or a period boundary is never inside a
    /// whole hour then: each is a whole hour long at least), else time by time.
    fn intraday(&self, step: i64, lo: i64, hi: i64, place: &dyn Fn(i64) -> Place) -> usize {
        let hourly = step < 3600 && 3600 % step == 0;
        let unit = if hourly { 3600 } else { step };
        let per = 3600 / step;
        let mut n = 0;
        for d in dates(self.zone, lo, hi) {
            let day = d.and_time(NaiveTime::MIN);
            for k in 0..86_400 / unit {
                let wall = day + Duration::seconds(k * unit);
                if !hourly {
                    n += instants(self.zone, wall)
                        .filter(|t| place(*t) == Place::In)
                        .count();
                    continue;
                }
                let mut starts = instants(self.zone, wall);
                let (first, second) = (starts.next(), starts.next());
                let plain = first.filter(|t| {
                    second.is_none()
                        && instants(self.zone, wall + Duration::hours(1))
                            .eq(std::iter::once(t + HOUR_MS))
                });
                if let Some(t) = plain {
                    let (a, b) = (place(t), place(t + HOUR_MS - step * 1000));
                    if a == b {
                        n += if a == Place::In { per as usize } else { 0 };
                        continue;
                    }
                }
                n += (0..per)
                    .flat_map(|j| instants(self.zone, wall + Duration::seconds(j * step)))
                    .filter(|t| place(*t) == Place::In)
                    .count();
            }
        }
        n
    }
}

/// Whether the local date `d` holds a time of the dated calendar `c` (a WEEKLY series on
/// `weekday`; a series on business days that names a holiday calendar, on its business days).
fn holds(c: Calendar, d: NaiveDate, weekday: Weekday, holidays: Option<&HolidayCalendar>) -> bool {
    match c {
        Calendar::Daily => true,
        Calendar::Business => match holidays {
            Some(h) => !h.is_off(d),
            None => !matches!(d.weekday(), Weekday::Sat | Weekday::Sun),
        },
        Calendar::Weekly => d.weekday() == weekday,
        Calendar::Monthly => d.day() == 1,
        Calendar::Quarterly => d.day() == 1 && (d.month() - 1).is_multiple_of(3),
        Calendar::Yearly => d.ordinal() == 1,
        _ => false,
    }
}
