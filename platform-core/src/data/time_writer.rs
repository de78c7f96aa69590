//! The JSON strings of a series' times, written one after another, as fast as a read of a
//! million points needs: an instant printed in UTC takes the date of the one before it when
//! they share a day. Above both the calendars (what a time prints as) and the zones (local time
//! with offsets) it writes in.

use super::calendar::{utc_bytes, write_time, Calendar};
use super::zone::write_time_in;
use chrono_tz::Tz;

/// Writes the JSON strings of [`format_time`](super::calendar::format_time) for the instants of
/// a series, one after another:
/// an instant printed in UTC takes the date of the one before it when they share a day, so
/// only its time of day is worked out (a day of one-minute points computes one date).
pub struct TimeWriter {
    calendar: Calendar,
    tz: Tz,
    /// The zone times print in with their offsets (`_timezone`), if not UTC `Z`.
    print: Option<Tz>,
    /// The last day printed (days since the epoch) and its `"YYYY-MM-DDT`.
    day: Option<(i64, [u8; 12])>,
}

impl TimeWriter {
    /// For a series' calendar and zone.
    pub fn new(calendar: Calendar, tz: Tz) -> TimeWriter {
        TimeWriter {
            calendar,
            tz,
            print: None,
            day: None,
        }
    }

    /// Printing times in `print` with their offsets when given (see [`super::zone`]).
    pub fn printing_in(self, print: Option<Tz>) -> TimeWriter {
        TimeWriter { print, ..self }
    }

    /// Writes the JSON string of the instant `ms` (as [`write_time`]).
    pub fn write(&mut self, ms: i64, out: &mut Vec<u8>) {
        if let Some(print) = self.print {
            return write_time_in(ms, self.calendar, self.tz, print, out);
        }
        if self.calendar.is_dated() {
            return write_time(ms, self.calendar, self.tz, out);
        }
        let day = ms.div_euclid(86_400_000);
        let date = match self.day {
            Some((d, date)) if d == day => date,
            _ => {
                let Some((bytes, _)) = utc_bytes(ms) else {
                    return write_time(ms, self.calendar, self.tz, out);
                };
                let mut date = [b'"'; 12];
                date[1..].copy_from_slice(&bytes[..11]);
                self.day = Some((day, date));
                date
            }
        };
        let in_day = ms.rem_euclid(86_400_000);
        let (secs, milli) = (in_day / 1000, in_day % 1000);
        let two = |v: i64| [b'0' + (v / 10) as u8, b'0' + (v % 10) as u8];
        let mut buf = [0u8; 26];
        buf[..12].copy_from_slice(&date);
        buf[12..14].copy_from_slice(&two(secs / 3600));
        buf[14] = b':';
        buf[15..17].copy_from_slice(&two(secs / 60 % 60));
        buf[17] = b':';
        buf[18..20].copy_from_slice(&two(secs % 60));
        let len = if milli == 0 {
            buf[20..22].copy_from_slice(b"Z\"");
            22
        } else {
            buf[20] = b'.';
            buf[21] = b'0' + (milli / 100) as u8;
            buf[22..24].copy_from_slice(&two(milli % 100));
            buf[24..26].copy_from_slice(b"Z\"");
            26
        };
        out.extend_from_slice(&buf[..len]);
    }
}
