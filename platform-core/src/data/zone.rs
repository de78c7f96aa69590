//! Local time on reads: `_timezone=ZONE` (an IANA name, or `series` for each series' own zone).
//!
//! - Without `_calendar`, a series read prints its times in that zone, each with its offset, so
//!   the repeated hour of an autumn clock change reads as two hours
//!   (`2024-10-27T02:00:00+02:00`, then `2024-10-27T02:00:00+01:00`); UTC prints `Z`. A series
//!   on a date calendar (DAILY, BUSINESS, WEEKLY, MONTHLY, QUARTERLY, YEARLY) keeps printing its
//!   dates: a date names the series' own day, in whatever zone it is read. Without
//!   `_timezone` times print in UTC (`Z`), as they always have.
//! - With `_calendar` it is the zone periods are cut in, and the scaled series prints as it
//!   always has (dates, or UTC instants for intraday and gas-day periods).
//! - Either way the dates of `_range` that name no zone of their own are read in it (in the
//!   series' zone without `_timezone`).
//!
//! Curves have no instants: ondates, tenors and delivery dates are dates, and a tenor's history
//! is dated by ondate, so `_timezone` changes nothing on them.

use super::calendar::{format_time, utc_text, Calendar};
use crate::error::{Error, Result};
use chrono::{Offset, TimeZone};
use chrono_tz::{OffsetName, Tz};

/// What `_timezone` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadZone {
    /// `series`: each series' own zone.
    Series,
    /// An IANA time zone.
    Named(Tz),
}

impl ReadZone {
    /// Reads `_timezone`: an IANA name or `series` (a 400 naming anything else).
    pub fn parse(text: &str) -> Result<ReadZone> {
        if text == "series" {
            return Ok(ReadZone::Series);
        }
        text.parse::<Tz>().map(ReadZone::Named).map_err(|_| {
            Error::invalid_parameter(format!(
                "_timezone \"{text}\" is not an IANA time zone (Europe/Berlin, UTC...) or \"series\""
            ))
        })
    }

    /// The zone for a series whose own zone is `series`.
    pub fn resolve(self, series: Tz) -> Tz {
        match self {
            ReadZone::Series => series,
            ReadZone::Named(tz) => tz,
        }
    }
}

/// Whether an instant is a midnight in `tz` (a date calendar prints those as dates).
fn is_local_midnight(ms: i64, tz: Tz) -> bool {
    chrono::DateTime::from_timestamp_millis(ms)
        .is_some_and(|at| at.with_timezone(&tz).time() == chrono::NaiveTime::MIN)
}

/// The text of a time of a series on `calendar` in zone `tz`, printed in `print` when given
/// (see the module's rules), else as [`format_time`] prints it.
pub fn format_time_in(ms: i64, calendar: Calendar, tz: Tz, print: Option<Tz>) -> String {
    match print {
        Some(zone) if !(calendar.is_dated() && is_local_midnight(ms, tz)) => local_text(ms, zone),
        _ => format_time(ms, calendar, tz),
    }
}

/// An instant as a local time in `zone` with its offset: `2024-10-27T02:00:00+01:00`, with
/// `.mmm` before the offset when there are milliseconds; `Z` where the zone's time is UTC. An
/// offset of a zone's early history that is not whole minutes (local mean time) cannot be
/// written in RFC 3339: such an instant prints in UTC.
pub fn local_text(ms: i64, zone: Tz) -> String {
    let Some(at) = chrono::DateTime::from_timestamp_millis(ms) else {
        return ms.to_string();
    };
    let offset = zone.offset_from_utc_datetime(&at.naive_utc());
    let seconds = offset.fix().local_minus_utc();
    if offset.abbreviation() == Some("UTC") || seconds % 60 != 0 {
        return format_time(ms, Calendar::Sparse, Tz::UTC);
    }
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    let suffix = format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60);
    match utc_text(ms + i64::from(seconds) * 1000) {
        // The wall clock's digits are those of UTC moved by the offset: its `Z` gives way.
        Some(mut text) => {
            text.pop();
            text.push_str(&suffix);
            text
        }
        None => {
            let local = at.with_timezone(&zone);
            let fraction = if ms % 1000 == 0 { "" } else { "%.3f" };
            format!(
                "{}{suffix}",
                local.format(&format!("%Y-%m-%dT%H:%M:%S{fraction}"))
            )
        }
    }
}

/// Writes the JSON string of [`format_time_in`] to `out`.
pub fn write_time_in(ms: i64, calendar: Calendar, tz: Tz, print: Tz, out: &mut Vec<u8>) {
    // Digits, separators and a sign: no character needs escaping.
    out.push(b'"');
    out.extend_from_slice(format_time_in(ms, calendar, tz, Some(print)).as_bytes());
    out.push(b'"');
}

/// The instant a point's printed time names (what a reader of the text answer takes it for):
/// a point of a dated calendar at local midnight prints as its date, which names that date's
/// midnight in UTC; any other point prints its own instant.
pub(crate) fn printed_instant(t: i64, calendar: Calendar, tz: Tz) -> i64 {
    if calendar.is_dated() {
        if let Some(at) = chrono::DateTime::from_timestamp_millis(t) {
            let local = at.with_timezone(&tz).naive_local();
            if local.time() == chrono::NaiveTime::MIN {
                return local.and_utc().timestamp_millis();
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::time_writer::TimeWriter;
    use chrono_tz::Europe::{Berlin, London};

    fn ms(text: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    }

    #[test]
    fn the_autumn_hour_prints_twice_with_its_offsets() {
        let hourly = Calendar::Intraday(3600);
        let printed: Vec<String> = [
            "2024-10-26T23:00:00Z",
            "2024-10-27T00:00:00Z",
            "2024-10-27T01:00:00Z",
            "2024-10-27T02:00:00Z",
        ]
        .iter()
        .map(|t| format_time_in(ms(t), hourly, Berlin, Some(Berlin)))
        .collect();
        assert_eq!(
            printed,
            [
                "2024-10-27T01:00:00+02:00",
                "2024-10-27T02:00:00+02:00",
                "2024-10-27T02:00:00+01:00",
                "2024-10-27T03:00:00+01:00"
            ]
        );
    }

    #[test]
    fn the_spring_change_skips_its_hour() {
        let hourly = Calendar::Intraday(3600);
        let at = |t| format_time_in(ms(t), hourly, Berlin, Some(Berlin));
        assert_eq!(at("2024-03-31T00:00:00Z"), "2024-03-31T01:00:00+01:00");
        assert_eq!(at("2024-03-31T01:00:00Z"), "2024-03-31T03:00:00+02:00");
    }

    #[test]
    fn zones_offsets_and_milliseconds() {
        let sparse = Calendar::Sparse;
        let t = ms("2024-01-15T12:00:00.250Z");
        assert_eq!(
            format_time_in(t, sparse, Tz::UTC, Some(chrono_tz::America::New_York)),
            "2024-01-15T07:00:00.250-05:00"
        );
        assert_eq!(
            format_time_in(t, sparse, Tz::UTC, Some(chrono_tz::Asia::Kolkata)),
            "2024-01-15T17:30:00.250+05:30"
        );
        // London in winter is at +00:00, in UTC itself times print as they always have.
        assert_eq!(
            format_time_in(t, sparse, Tz::UTC, Some(London)),
            "2024-01-15T12:00:00.250+00:00"
        );
        assert_eq!(
            format_time_in(t, sparse, Berlin, Some(Tz::UTC)),
            "2024-01-15T12:00:00.250Z"
        );
        assert_eq!(
            format_time_in(t, sparse, Berlin, None),
            "2024-01-15T12:00:00.250Z"
        );
        // Outside the years written by hand, chrono writes the same form.
        let far = 253_402_300_800_000; // 10000-01-01T00:00:00Z
        assert_eq!(local_text(far, Berlin), "+10000-01-01T01:00:00+01:00");
        // Local mean time (Berlin before 1893: +00:53:28) prints in UTC.
        let old = ms("1880-01-01T00:00:00Z");
        assert_eq!(local_text(old, Berlin), "1880-01-01T00:00:00Z");
    }

    #[test]
    fn dates_stay_dates_and_other_times_of_a_dated_series_print_local() {
        let midnight = ms("2024-10-26T22:00:00Z");
        assert_eq!(
            format_time_in(midnight, Calendar::Daily, Berlin, Some(Tz::UTC)),
            "2024-10-27"
        );
        assert_eq!(
            format_time_in(midnight + 3_600_000, Calendar::Daily, Berlin, Some(Berlin)),
            "2024-10-27T01:00:00+02:00"
        );
    }

    #[test]
    fn a_writer_in_a_zone_writes_what_each_time_prints() {
        let hourly = Calendar::Intraday(3600);
        let mut writer = TimeWriter::new(hourly, Tz::UTC).printing_in(Some(Berlin));
        let mut out = Vec::new();
        for t in ["2024-10-27T00:00:00Z", "2024-10-27T01:00:00Z"] {
            writer.write(ms(t), &mut out);
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"2024-10-27T02:00:00+02:00\"\"2024-10-27T02:00:00+01:00\""
        );
    }

    #[test]
    fn the_zone_parameter() {
        assert_eq!(ReadZone::parse("series").unwrap(), ReadZone::Series);
        assert_eq!(
            ReadZone::parse("Europe/Berlin").unwrap().resolve(London),
            Berlin
        );
        assert_eq!(ReadZone::Series.resolve(London), London);
        let e = ReadZone::parse("Mars/Base").unwrap_err();
        assert!(e.to_string().contains("\"Mars/Base\""), "{e}");
    }
}
