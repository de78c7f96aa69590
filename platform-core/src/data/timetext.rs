//! The time text of observations: every ISO 8601 form people and tools write, read in a series'
//! time zone, with the repeated hour of an autumn clock change read in payload order.
//!
//! ```text
//! time   := date [sep clock [zone]]
//! date   := YYYY '-' MM '-' DD                  a date alone is local midnight
//! sep    := 'T' | 't' | ' '
//! clock  := hh ':' mm [':' ss [('.' | ',') digit+]]   sub-milliseconds must be zeros
//! zone   := 'Z' | 'z' | ('+' | '-') hh [[':'] mm]    an instant; without it, a local time
//! ```
//!
//! A local time (no zone) is read in the series' time zone:
//! - a time the zone skips (the spring gap, `2024-03-31T02:30` in Europe/Berlin) is an error
//!   naming it;
//! - a time the zone repeats (the autumn change, `2024-10-27T02:30` in Europe/Berlin) is the
//!   earlier instant the first time a payload holds it and the later instant the second time
//!   ([`TimeReader`] keeps count), so `00:00, 01:00, 02:00, 02:00, 03:00` are five hours; read
//!   alone it is the earlier instant;
//! - an explicit `Z` or offset always wins.

use crate::error::{Error, Result};
use chrono::{LocalResult, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use chrono_tz::Tz;
use std::collections::HashMap;

/// Examples of every accepted form, listed by the error for a time that does not parse (a test
/// reads each of them).
pub const ACCEPTED_FORMS: [&str; 7] = [
    "2024-07-01",
    "2024-07-01T10:00",
    "2024-07-01 10:00:00",
    "2024-07-01T10:00:00.250",
    "2024-07-01T10:00Z",
    "2024-07-01T10:00:00+01:00",
    "2024-07-01T10:00:00.250-0500",
];

/// A parsed time text: an instant (it named its offset) or a wall-clock time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeText {
    /// UTC milliseconds.
    Instant(i64),
    /// A local date and time, to be read in a time zone.
    Local(NaiveDateTime),
}

/// Parses time text (see the module grammar) without a time zone.
pub fn parse_time_text(text: &str) -> Result<TimeText> {
    let t = text.trim();
    scan(t.as_bytes()).ok_or_else(|| {
        Error::invalid_parameter(format!(
            "time \"{text}\" is not a time: use {}, {} or {}; without Z or an offset a time is \
             read in the series' time zone",
            ACCEPTED_FORMS[..ACCEPTED_FORMS.len() - 2].join(", "),
            ACCEPTED_FORMS[ACCEPTED_FORMS.len() - 2],
            ACCEPTED_FORMS[ACCEPTED_FORMS.len() - 1],
        ))
    })
}

/// Parses a time text in a series time zone into UTC milliseconds; an ambiguous local time is
/// the earlier instant (a payload's times go through a [`TimeReader`] instead).
pub fn parse_time(text: &str, tz: Tz) -> Result<i64> {
    TimeReader::new(tz).read(text)
}

/// Reads the times of one payload (a save's `data`, a file) in a time zone, in payload order:
/// the first occurrence of a local time the zone repeats is the earlier instant, the second the
/// later one (see the module doc).
#[derive(Debug)]
pub struct TimeReader {
    tz: Tz,
    /// How often each repeated local time was read so far.
    repeated: HashMap<NaiveDateTime, u32>,
}

impl TimeReader {
    /// A reader for one payload.
    pub fn new(tz: Tz) -> TimeReader {
        TimeReader {
            tz,
            repeated: HashMap::new(),
        }
    }

    /// The next time of the payload, as UTC milliseconds.
    pub fn read(&mut self, text: &str) -> Result<i64> {
        match parse_time_text(text)? {
            TimeText::Instant(ms) => Ok(ms),
            TimeText::Local(naive) => self.local(naive, text),
        }
    }

    fn local(&mut self, naive: NaiveDateTime, text: &str) -> Result<i64> {
        match self.tz.from_local_datetime(&naive) {
            LocalResult::Single(d) => Ok(d.timestamp_millis()),
            LocalResult::Ambiguous(a, b) => {
                let (early, late) = if a <= b { (a, b) } else { (b, a) };
                let seen = self.repeated.entry(naive).or_insert(0);
                *seen += 1;
                Ok(if *seen == 1 { early } else { late }.timestamp_millis())
            }
            LocalResult::None => Err(Error::invalid_parameter(format!(
                "time \"{}\" does not exist in time zone {}: the clocks skip it (a change to \
                 summer time); send a time outside the gap, or the instant with Z or an offset",
                text.trim(),
                self.tz
            ))),
        }
    }
}

/// A local time in a zone as UTC; an ambiguous time takes the earlier instant.
#[cfg(feature = "internals")]
pub fn local_to_utc(naive: NaiveDateTime, tz: Tz) -> Option<chrono::DateTime<chrono::Utc>> {
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(d) => Some(d.with_timezone(&chrono::Utc)),
        LocalResult::Ambiguous(a, b) => Some(a.min(b).with_timezone(&chrono::Utc)),
        LocalResult::None => None,
    }
}

/// Reads `n` ASCII digits at `at`.
fn digits(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let part = b.get(at..at + n)?;
    part.iter().try_fold(0u32, |acc, c| {
        c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
    })
}

/// The grammar of the module doc, by hand: one pass, no allocation (imports read millions).
fn scan(b: &[u8]) -> Option<TimeText> {
    let (year, month, day) = (digits(b, 0, 4)?, digits(b, 5, 2)?, digits(b, 8, 2)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    if b.len() == 10 {
        return Some(TimeText::Local(date.and_time(NaiveTime::MIN)));
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (hour, minute) = (digits(b, 11, 2)?, digits(b, 14, 2)?);
    if b.get(13) != Some(&b':') {
        return None;
    }
    let mut at = 16;
    let mut second = 0;
    let mut milli = 0;
    if b.get(at) == Some(&b':') {
        second = digits(b, at + 1, 2)?;
        at += 3;
        if matches!(b.get(at), Some(b'.' | b',')) {
            at += 1;
            let start = at;
            while b.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            let fraction = &b[start..at];
            if fraction.is_empty() || fraction.iter().skip(3).any(|d| *d != b'0') {
                // Times are kept to the millisecond: finer digits would be dropped silently.
                return None;
            }
            milli = fraction
                .iter()
                .chain(std::iter::repeat(&b'0'))
                .take(3)
                .fold(0, |acc, d| acc * 10 + u32::from(d - b'0'));
        }
    }
    let clock = NaiveTime::from_hms_milli_opt(hour, minute, second, milli)?;
    let local = date.and_time(clock);
    let offset_secs = match b.get(at) {
        None => return Some(TimeText::Local(local)),
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) => {
            let hours = digits(b, at + 1, 2)?;
            let minutes = match b.len() - (at + 3) {
                0 => 0,
                2 => digits(b, at + 3, 2)?,
                3 if b[at + 3] == b':' => digits(b, at + 4, 2)?,
                _ => return None,
            };
            if hours > 23 || minutes > 59 {
                return None;
            }
            let secs = i64::from(hours * 3600 + minutes * 60);
            if *sign == b'-' {
                -secs
            } else {
                secs
            }
        }
        _ => return None,
    };
    let utc_ms = local.and_utc().timestamp_millis() - offset_secs * 1000;
    Some(TimeText::Instant(utc_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    }

    fn berlin() -> Tz {
        "Europe/Berlin".parse().unwrap()
    }

    #[test]
    fn the_forms_people_and_tools_write() {
        let utc = Tz::UTC;
        for (text, want) in [
            ("2020-01-01T00:00Z", "2020-01-01T00:00:00Z"),
            ("2020-01-01 00:00", "2020-01-01T00:00:00Z"),
            ("2020-01-01T00:00:00.250+01:00", "2019-12-31T23:00:00.250Z"),
            ("2020-01-01T04:00+01:00", "2020-01-01T03:00:00Z"),
            ("2020-01-01", "2020-01-01T00:00:00Z"),
            ("2020-01-01t10:30:15z", "2020-01-01T10:30:15Z"),
            ("2020-01-01T10:30:15,5", "2020-01-01T10:30:15.500Z"),
            ("2020-01-01T10:30:15.250000", "2020-01-01T10:30:15.250Z"),
            ("2020-01-01T10:30:15-0530", "2020-01-01T16:00:15Z"),
            ("2020-01-01T10:30+05", "2020-01-01T05:30:00Z"),
            ("  2020-01-01 10:30:15  ", "2020-01-01T10:30:15Z"),
        ] {
            assert_eq!(parse_time(text, utc).unwrap(), ms(want), "{text}");
        }
    }

    #[test]
    fn every_form_the_error_lists_is_accepted() {
        let err = parse_time("yesterday", Tz::UTC).unwrap_err().to_string();
        for form in ACCEPTED_FORMS {
            assert!(err.contains(form), "{err} lists {form}");
            parse_time(form, Tz::UTC).unwrap_or_else(|e| panic!("{form}: {e}"));
        }
    }

    #[test]
    fn what_is_not_a_time() {
        for bad in [
            "",
            "yesterday",
            "2024-02-30",
            "2024-13-01",
            "2024-1-01",
            "2024-01-01T",
            "2024-01-01T10",
            "2024-01-01T24:00",
            "2024-01-01T10:60",
            "2024-01-01T10:00:60",
            "2024-01-01T10:00:00.",
            "2024-01-01T10:00:00.2501",
            "2024-01-01T10:00:00Zx",
            "2024-01-01T10:00+1",
            "2024-01-01T10:00+24:00",
            "2024-01-01T10:00+01:0",
            "2024-01-01X10:00",
            "２０２４-01-01",
        ] {
            assert!(parse_time(bad, Tz::UTC).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn the_repeated_autumn_hour_is_read_in_payload_order() {
        let mut r = TimeReader::new(berlin());
        let times: Vec<i64> = [
            "2024-10-27T00:00",
            "2024-10-27T01:00",
            "2024-10-27T02:00",
            "2024-10-27T02:00",
            "2024-10-27T03:00",
        ]
        .iter()
        .map(|t| r.read(t).unwrap())
        .collect();
        assert_eq!(
            times,
            [
                "2024-10-26T22:00:00Z",
                "2024-10-26T23:00:00Z",
                "2024-10-27T00:00:00Z",
                "2024-10-27T01:00:00Z",
                "2024-10-27T02:00:00Z"
            ]
            .map(ms)
        );
        // Quarter hours: each repeated time counts on its own.
        let mut r = TimeReader::new(berlin());
        let times: Vec<i64> = ["02:00", "02:15", "02:00", "02:15"]
            .iter()
            .map(|t| r.read(&format!("2024-10-27 {t}")).unwrap())
            .collect();
        assert_eq!(
            times,
            [
                "2024-10-27T00:00:00Z",
                "2024-10-27T00:15:00Z",
                "2024-10-27T01:00:00Z",
                "2024-10-27T01:15:00Z"
            ]
            .map(ms)
        );
        // Alone, the earlier instant; an explicit offset wins and does not count.
        assert_eq!(
            parse_time("2024-10-27T02:30", berlin()).unwrap(),
            ms("2024-10-27T00:30:00Z")
        );
        let mut r = TimeReader::new(berlin());
        assert_eq!(
            r.read("2024-10-27T02:30+01:00").unwrap(),
            ms("2024-10-27T01:30:00Z")
        );
        assert_eq!(
            r.read("2024-10-27T02:30").unwrap(),
            ms("2024-10-27T00:30:00Z")
        );
    }

    #[test]
    fn the_spring_gap_is_an_error_naming_the_time() {
        let err = parse_time("2024-03-31T02:30", berlin()).unwrap_err();
        assert!(err.to_string().contains("\"2024-03-31T02:30\""), "{err}");
        assert!(err.to_string().contains("Europe/Berlin"), "{err}");
        // With an offset it is an instant like any other.
        assert_eq!(
            parse_time("2024-03-31T02:30+01:00", berlin()).unwrap(),
            ms("2024-03-31T01:30:00Z")
        );
    }
}
