//! Calendars of time series, and the text form of observation times.
//!
//! ```text
//! calendar := DAILY | BUSINESS | WEEKLY | MONTHLY | QUARTERLY | YEARLY
//!           | HOURLY | HALFHOURLY | QUARTERHOURLY | SPARSE | '#PT' n ('H' | 'M' | 'S')
//!           | EFA | EFADAY
//! ```
//!
//! Observation times are read by [`super::timetext`] (every ISO 8601 form, the repeated hour of
//! an autumn clock change in payload order).
//!
//! A time is on a calendar when, in the series time zone: DAILY and WEEKLY, it is a midnight;
//! BUSINESS, a Monday-to-Friday midnight; MONTHLY, QUARTERLY and YEARLY, the midnight starting the
//! month, quarter or year; HOURLY, HALFHOURLY, QUARTERHOURLY and `#PT<n>H|M|S`, a whole multiple of
//! the step since the local midnight (`#PT<n>…` steps must divide a day); EFA, the start of a GB
//! EFA block and EFADAY, of an EFA day (23:00 London the day before: see [`super::efa`]), in
//! London whatever the series' zone. SPARSE takes any time.
//! Times are kept as UTC milliseconds; date calendars print dates, the others UTC instants (or
//! local times with their offsets on a read with `_timezone`: see [`super::zone`]).

use crate::error::{Error, ErrorCode, Result};
use chrono::{DateTime, Datelike, Timelike, Utc, Weekday};
use chrono_tz::Tz;

pub use super::timetext::parse_time;
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use super::timetext::local_to_utc;

/// A calendar code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calendar {
    /// Every day at midnight.
    Daily,
    /// Monday to Friday at midnight.
    Business,
    /// One midnight a week.
    Weekly,
    /// The first day of each month.
    Monthly,
    /// The first day of each quarter.
    Quarterly,
    /// The first day of each year.
    Yearly,
    /// A step in seconds from each local midnight (HOURLY = 3600, ...).
    Intraday(u32),
    /// Any time.
    Sparse,
    /// The starts of GB power's EFA blocks (23:00, 03:00 ... 19:00 London).
    Efa,
    /// The starts of GB power's EFA days (23:00 London the day before).
    EfaDay,
}

impl Calendar {
    /// Parses a calendar code (case-insensitive); absent means SPARSE.
    pub fn parse(code: Option<&str>) -> Result<Calendar> {
        let Some(code) = code else {
            return Ok(Calendar::Sparse);
        };
        let upper = code.trim().to_ascii_uppercase();
        let cal = match upper.as_str() {
            "DAILY" => Calendar::Daily,
            "BUSINESS" => Calendar::Business,
            "WEEKLY" => Calendar::Weekly,
            "MONTHLY" => Calendar::Monthly,
            "QUARTERLY" => Calendar::Quarterly,
            "YEARLY" | "ANNUAL" => Calendar::Yearly,
            "HOURLY" => Calendar::Intraday(3600),
            "HALFHOURLY" => Calendar::Intraday(1800),
            "QUARTERHOURLY" => Calendar::Intraday(900),
            "SPARSE" => Calendar::Sparse,
            "EFA" => Calendar::Efa,
            "EFADAY" => Calendar::EfaDay,
            other => {
                let step = other.strip_prefix("#PT").and_then(|rest| {
                    let (n, unit) = rest.split_at(rest.len().checked_sub(1)?);
                    let n: u32 = n.parse().ok().filter(|n| *n > 0)?;
                    let secs = match unit {
                        "H" => n.checked_mul(3600)?,
                        "M" => n.checked_mul(60)?,
                        "S" => n,
                        _ => return None,
                    };
                    (86_400 % secs == 0).then_some(secs)
                });
                match step {
                    Some(secs) => Calendar::Intraday(secs),
                    None => {
                        return Err(Error::invalid_parameter(format!(
                            "unknown calendar \"{code}\": use DAILY, BUSINESS, WEEKLY, MONTHLY, QUARTERLY, YEARLY, \
                             HOURLY, HALFHOURLY, QUARTERHOURLY, EFA, EFADAY, SPARSE or \
                             #PT<n>H|M|S dividing a day"
                        )))
                    }
                }
            }
        };
        Ok(cal)
    }

    /// The calendar's code (`#PT<n>H|M|S` for a step without a name of its own).
    pub fn code(self) -> String {
        match self {
            Calendar::Daily => "DAILY".into(),
            Calendar::Business => "BUSINESS".into(),
            Calendar::Weekly => "WEEKLY".into(),
            Calendar::Monthly => "MONTHLY".into(),
            Calendar::Quarterly => "QUARTERLY".into(),
            Calendar::Yearly => "YEARLY".into(),
            Calendar::Intraday(3600) => "HOURLY".into(),
            Calendar::Intraday(1800) => "HALFHOURLY".into(),
            Calendar::Intraday(900) => "QUARTERHOURLY".into(),
            Calendar::Intraday(s) if s % 3600 == 0 => format!("#PT{}H", s / 3600),
            Calendar::Intraday(s) if s % 60 == 0 => format!("#PT{}M", s / 60),
            Calendar::Intraday(s) => format!("#PT{s}S"),
            Calendar::Sparse => "SPARSE".into(),
            Calendar::Efa => "EFA".into(),
            Calendar::EfaDay => "EFADAY".into(),
        }
    }

    /// Whether times print as dates.
    pub fn is_dated(self) -> bool {
        matches!(
            self,
            Calendar::Daily
                | Calendar::Business
                | Calendar::Weekly
                | Calendar::Monthly
                | Calendar::Quarterly
                | Calendar::Yearly
        )
    }

    /// Whether every time is on the calendar, told by arithmetic alone (a sparse calendar, or an
    /// intraday step in UTC: a bulk load's check without a date built per time); `false` also
    /// when it cannot be told so, and each time must go through [`Calendar::check`].
    pub fn all_on(self, times: &[i64], tz: Tz) -> bool {
        match self {
            Calendar::Sparse => true,
            Calendar::Intraday(step) if tz == Tz::UTC => {
                let step = i64::from(step) * 1000;
                times
                    .iter()
                    .fold(true, |ok, t| ok & (t.rem_euclid(step) == 0))
            }
            _ => false,
        }
    }

    /// Checks that an instant is on the calendar in a time zone (`INDEX_ALIGN` otherwise).
    pub fn check(self, at_ms: i64, tz: Tz, code: &str) -> Result<()> {
        match self {
            Calendar::Sparse => return Ok(()),
            // In UTC an intraday step is plain arithmetic (the fast path for bulk loads).
            Calendar::Intraday(step)
                if tz == Tz::UTC && at_ms.rem_euclid(i64::from(step) * 1000) == 0 =>
            {
                return Ok(())
            }
            // EFA blocks and days are London's, whatever the series' zone.
            Calendar::Efa | Calendar::EfaDay => {
                let (start, _) = super::efa::period_of(at_ms, self == Calendar::EfaDay);
                if start == at_ms {
                    return Ok(());
                }
            }
            _ => {}
        }
        let local = instant(at_ms)?.with_timezone(&tz).naive_local();
        let midnight = local.time() == chrono::NaiveTime::MIN;
        let d = local.date();
        let ok = match self {
            Calendar::Sparse => true,
            Calendar::Efa | Calendar::EfaDay => false,
            Calendar::Daily | Calendar::Weekly => midnight,
            Calendar::Business => midnight && !matches!(d.weekday(), Weekday::Sat | Weekday::Sun),
            Calendar::Monthly => midnight && d.day() == 1,
            Calendar::Quarterly => midnight && d.day() == 1 && (d.month() - 1) % 3 == 0,
            Calendar::Yearly => midnight && d.ordinal() == 1,
            Calendar::Intraday(step) => {
                local.nanosecond() == 0 && local.num_seconds_from_midnight() % step == 0
            }
        };
        if ok {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::IndexAlign,
                format!(
                    "time {} is not on the calendar {code}",
                    format_time(at_ms, self, tz)
                ),
            ))
        }
    }
}

/// The UTC instant of milliseconds since the epoch.
pub fn instant(ms: i64) -> Result<DateTime<Utc>> {
    DateTime::from_timestamp_millis(ms)
        .ok_or_else(|| Error::invalid_parameter(format!("time {ms} ms is out of range")))
}

/// The text of a time: a local date for date calendars, else a UTC instant.
pub fn format_time(ms: i64, calendar: Calendar, tz: Tz) -> String {
    let Ok(at) = instant(ms) else {
        return ms.to_string();
    };
    if calendar.is_dated() {
        let local = at.with_timezone(&tz).naive_local();
        if local.time() == chrono::NaiveTime::MIN {
            return local.date().format("%Y-%m-%d").to_string();
        }
    }
    utc_text(ms).unwrap_or_else(|| {
        if ms % 1000 == 0 {
            at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
        } else {
            at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
        }
    })
}

/// `YYYY-MM-DDTHH:MM:SSZ`, with `.mmm` before the `Z` when there are milliseconds, of a UTC
/// instant in years 0 to 9999 (None outside them): the text chrono's
/// `%Y-%m-%dT%H:%M:%S[%.3f]Z` gives, written digit by digit from the civil date of the day
/// number (a test holds the two together), since every rendered series point needs one.
pub fn utc_text(ms: i64) -> Option<String> {
    utc_bytes(ms).map(|(bytes, len)| String::from_utf8_lossy(&bytes[..len]).into_owned())
}

/// Writes the JSON string of [`format_time`] to `out`, without a `String` for the common
/// case of an instant printed in UTC.
pub fn write_time(ms: i64, calendar: Calendar, tz: Tz, out: &mut Vec<u8>) {
    if !calendar.is_dated() {
        if let Some((bytes, len)) = utc_bytes(ms) {
            out.push(b'"');
            out.extend_from_slice(&bytes[..len]);
            out.push(b'"');
            return;
        }
    }
    // Plain ASCII digits and separators: no character needs escaping.
    out.push(b'"');
    out.extend_from_slice(format_time(ms, calendar, tz).as_bytes());
    out.push(b'"');
}

/// The bytes of [`utc_text`] and their length.
pub(super) fn utc_bytes(ms: i64) -> Option<([u8; 24], usize)> {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    // Days to a proleptic Gregorian date, in 400-year eras starting on 1 March.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let (secs, milli) = (in_day / 1000, in_day % 1000);
    let mut out = [0u8; 24];
    let mut put = |at: usize, value: i64, width: usize| {
        let mut v = value;
        for i in (0..width).rev() {
            out[at + i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, year, 4);
    put(5, month, 2);
    put(8, day, 2);
    put(11, secs / 3600, 2);
    put(14, secs / 60 % 60, 2);
    put(17, secs % 60, 2);
    let len = if milli == 0 {
        20
    } else {
        put(20, milli, 3);
        24
    };
    out[4] = b'-';
    out[7] = b'-';
    out[10] = b'T';
    out[13] = b':';
    out[16] = b':';
    if milli == 0 {
        out[19] = b'Z';
    } else {
        out[19] = b'.';
        out[23] = b'Z';
    }
    Some((out, len))
}

/// Parses a time-zone name (default UTC).
pub fn parse_zone(name: Option<&str>) -> Result<Tz> {
    match name {
        None => Ok(Tz::UTC),
        Some(n) => n
            .parse::<Tz>()
            .map_err(|_| Error::invalid_parameter(format!("unknown time zone \"{n}\""))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Instants written one after another print as each printed alone, across days, years
        /// and the ends of the years printed by hand.
        #[test]
        fn times_written_in_turn_print_as_each_alone(
            gaps in proptest::collection::vec(0i64..3, 1..60),
            unit in proptest::sample::select(vec![1i64, 999, 60_000, 3_600_000, 86_399_999, 31_622_400_000]),
            start in -62_167_219_200_100i64..253_402_300_800_000,
            calendar in proptest::sample::select(vec!["#PT1M", "HOURLY", "DAILY", "SPARSE"]),
            zone in proptest::sample::select(vec![Tz::UTC, chrono_tz::Europe::Berlin]),
        ) {
            let cal = Calendar::parse(Some(calendar)).unwrap();
            let mut writer = super::super::time_writer::TimeWriter::new(cal, zone);
            let (mut turn, mut alone) = (Vec::new(), Vec::new());
            let mut t = start;
            for g in gaps {
                t = t.saturating_add(g * unit);
                writer.write(t, &mut turn);
                write_time(t, cal, zone, &mut alone);
            }
            proptest::prop_assert_eq!(String::from_utf8(turn).unwrap(), String::from_utf8(alone).unwrap());
        }

        /// The bulk check of a load says "all on the calendar" only when each time's own check
        /// does, and in UTC an intraday step always tells.
        #[test]
        fn the_bulk_check_agrees_with_each_times_check(
            steps in proptest::collection::vec(0i64..4, 1..50),
            unit in proptest::sample::select(vec![1_000i64, 30_000, 60_000, 900_000, 86_400_000]),
            start in -1_000_000_000i64..1_000_000_000,
            calendar in proptest::sample::select(vec!["#PT1M", "#PT15M", "HOURLY", "DAILY", "SPARSE"]),
            zone in proptest::sample::select(vec![Tz::UTC, chrono_tz::Europe::Berlin]),
        ) {
            let cal = Calendar::parse(Some(calendar)).unwrap();
            let mut t = start * 60_000;
            let times: Vec<i64> = steps.iter().map(|s| { t += s * unit; t }).collect();
            let each = times.iter().all(|&t| cal.check(t, zone, calendar).is_ok());
            let bulk = cal.all_on(&times, zone);
            proptest::prop_assert!(!bulk || each);
            if zone == Tz::UTC && calendar != "DAILY" {
                proptest::prop_assert_eq!(bulk, each);
            }
        }

        /// The hand-written UTC text is chrono's, over every year it writes, and chrono's
        /// is used outside them.
        #[test]
        fn utc_text_is_chronos(ms in -62_167_219_200_000i64..253_402_300_800_000, whole in proptest::bool::ANY) {
            let ms = if whole { ms - ms.rem_euclid(1000) } else { ms };
            let at = instant(ms).unwrap();
            let want = if ms % 1000 == 0 {
                at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
            } else {
                at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
            };
            proptest::prop_assert_eq!(utc_text(ms), Some(want.clone()));
            proptest::prop_assert_eq!(format_time(ms, Calendar::Sparse, Tz::UTC), want);
        }
    }

    #[test]
    fn utc_text_at_the_edges() {
        assert_eq!(utc_text(0).unwrap(), "1970-01-01T00:00:00Z");
        assert_eq!(utc_text(-1).unwrap(), "1969-12-31T23:59:59.999Z");
        assert_eq!(utc_text(951_782_400_000).unwrap(), "2000-02-29T00:00:00Z");
        assert_eq!(
            utc_text(-62_167_219_200_000).unwrap(),
            "0000-01-01T00:00:00Z"
        );
        assert_eq!(utc_text(-62_167_219_200_001), None);
        assert_eq!(
            utc_text(253_402_300_799_999).unwrap(),
            "9999-12-31T23:59:59.999Z"
        );
        assert_eq!(utc_text(253_402_300_800_000), None);
        let far = 300_000_000_000_000;
        assert_eq!(
            format_time(far, Calendar::Sparse, Tz::UTC),
            instant(far)
                .unwrap()
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        );
    }

    fn ms(text: &str) -> i64 {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    }

    #[test]
    fn calendar_codes() {
        assert_eq!(Calendar::parse(Some("daily")).unwrap(), Calendar::Daily);
        assert_eq!(
            Calendar::parse(Some("#PT15M")).unwrap(),
            Calendar::Intraday(900)
        );
        assert_eq!(
            Calendar::parse(Some("#PT2H")).unwrap(),
            Calendar::Intraday(7200)
        );
        assert_eq!(Calendar::parse(None).unwrap(), Calendar::Sparse);
        for bad in ["WEEKDAYS", "#PT7M", "#PT0H", "#PTH", "#PT5X"] {
            assert!(Calendar::parse(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn times_parse_in_the_series_zone() {
        let london: Tz = "Europe/London".parse().unwrap();
        assert_eq!(
            parse_time("2024-07-01", london).unwrap(),
            ms("2024-06-30T23:00:00Z")
        );
        assert_eq!(
            parse_time("2024-01-01T06:30", london).unwrap(),
            ms("2024-01-01T06:30:00Z")
        );
        assert_eq!(
            parse_time("2024-07-01T00:00:00Z", london).unwrap(),
            ms("2024-07-01T00:00:00Z")
        );
        assert_eq!(
            parse_time("2024-07-01T02:00:00+02:00", london).unwrap(),
            ms("2024-07-01T00:00:00Z")
        );
        assert!(
            parse_time("2024-03-31T01:30", london).is_err(),
            "in the spring gap"
        );
        assert!(parse_time("yesterday", london).is_err());
        assert!(parse_time("2024-02-30", Tz::UTC).is_err());
    }

    #[test]
    fn alignment() {
        let utc = Tz::UTC;
        let check = |cal: &str, t: &str| {
            Calendar::parse(Some(cal))
                .unwrap()
                .check(ms(t), utc, cal)
                .is_ok()
        };
        assert!(check("BUSINESS", "2024-07-05T00:00:00Z"));
        assert!(!check("BUSINESS", "2024-07-06T00:00:00Z"));
        assert!(!check("DAILY", "2024-07-06T01:00:00Z"));
        assert!(check("MONTHLY", "2024-07-01T00:00:00Z"));
        assert!(!check("MONTHLY", "2024-07-02T00:00:00Z"));
        assert!(check("QUARTERLY", "2024-10-01T00:00:00Z"));
        assert!(!check("QUARTERLY", "2024-11-01T00:00:00Z"));
        assert!(check("YEARLY", "2024-01-01T00:00:00Z"));
        assert!(check("HALFHOURLY", "2024-01-01T10:30:00Z"));
        assert!(!check("HALFHOURLY", "2024-01-01T10:15:00Z"));
        assert!(check("#PT5M", "2024-01-01T10:55:00Z"));
        assert!(!check("HOURLY", "2024-01-01T10:00:01Z"));
        assert!(check("SPARSE", "2024-01-01T10:00:01.5Z"));
        // EFA blocks and days start in London time whatever the series' zone (UTC here): the
        // spring change day's EFA2 starts at 03:00 BST, 02:00Z.
        assert!(check("EFA", "2025-03-29T23:00:00Z"));
        assert!(check("EFA", "2025-03-30T02:00:00Z"));
        assert!(!check("EFA", "2025-03-30T03:00:00Z"));
        assert!(check("EFA", "2025-06-21T18:00:00Z"));
        assert!(!check("EFA", "2025-06-21T19:00:00Z"));
        assert!(check("efaday", "2025-03-29T23:00:00Z"));
        assert!(check("EFADAY", "2025-03-30T22:00:00Z"));
        assert!(!check("EFADAY", "2025-03-30T02:00:00Z"));
        assert_eq!(Calendar::parse(Some("efa")).unwrap().code(), "EFA");
        let err = Calendar::Business
            .check(ms("2024-07-06T00:00:00Z"), utc, "BUSINESS")
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::IndexAlign);
        assert!(err.to_string().contains("2024-07-06"), "{err}");
        // Midnight in the series zone, not in UTC.
        let paris: Tz = "Europe/Paris".parse().unwrap();
        assert!(Calendar::Daily
            .check(ms("2024-07-05T22:00:00Z"), paris, "DAILY")
            .is_ok());
    }

    #[test]
    fn times_print_by_calendar() {
        let paris: Tz = "Europe/Paris".parse().unwrap();
        assert_eq!(
            format_time(ms("2024-07-05T22:00:00Z"), Calendar::Daily, paris),
            "2024-07-06"
        );
        assert_eq!(
            format_time(ms("2024-07-05T22:00:00Z"), Calendar::Intraday(3600), paris),
            "2024-07-05T22:00:00Z"
        );
        assert_eq!(
            format_time(ms("2024-07-05T22:00:00.250Z"), Calendar::Sparse, paris),
            "2024-07-05T22:00:00.250Z"
        );
    }
}
