//! EFA time (Electricity Forward Agreement), the clock of GB power's forward products.
//!
//! The EFA day D runs from 23:00 on the day before D to 23:00 on D, in Europe/London whatever
//! the zone of the series or of the read: EFA time is GB time. It holds six blocks of four local
//! hours: EFA1 23:00-03:00, EFA2 03:00-07:00, EFA3 07:00-11:00, EFA4 11:00-15:00, EFA5
//! 15:00-19:00, EFA6 19:00-23:00. Clock changes fall in EFA1 (01:00 local), which lasts 3 hours
//! on the spring change day and 5 on the autumn one. Periods are known by their start, a UTC
//! instant.

use crate::error::{Error, Result};
use chrono::{DateTime, Days, NaiveDate, NaiveTime, TimeZone, Timelike};
use chrono_tz::Tz;

/// The zone EFA time is cut in.
pub const ZONE: Tz = chrono_tz::Europe::London;

/// The local hour each block starts at, EFA1 first (EFA1 starts the evening before).
const STARTS: [u32; 6] = [23, 3, 7, 11, 15, 19];

/// The instant local `hour`:00 of `date` in London (EFA boundaries are never in a gap).
fn local(date: NaiveDate, hour: u32) -> i64 {
    let time = NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or(NaiveTime::MIN);
    ZONE.from_local_datetime(&date.and_time(time))
        .earliest()
        .map_or_else(
            || date.and_time(time).and_utc().timestamp_millis(),
            |t| t.timestamp_millis(),
        )
}

/// The EFA day holding the instant `ms` and its block there (1..=6).
pub fn day_and_block(ms: i64) -> (NaiveDate, u8) {
    let at = DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .with_timezone(&ZONE);
    let (date, hour) = (at.date_naive(), at.hour());
    if hour >= 23 {
        (date + Days::new(1), 1)
    } else if hour < 3 {
        (date, 1)
    } else {
        (date, ((hour - 3) / 4 + 2) as u8)
    }
}

/// The start of block `block` (1..=6) of the EFA day `day`.
pub fn block_start(day: NaiveDate, block: u8) -> i64 {
    match block {
        1 => local(day.pred_opt().unwrap_or(day), 23),
        b => local(day, STARTS[usize::from(b.clamp(2, 6)) - 1]),
    }
}

/// The start and end of the EFA day `day`.
pub fn day_bounds(day: NaiveDate) -> (i64, i64) {
    (block_start(day, 1), local(day, 23))
}

/// The EFA block (or, with `whole_day`, the EFA day) holding the instant `ms`: its start and
/// end (UTC milliseconds).
pub fn period_of(ms: i64, whole_day: bool) -> (i64, i64) {
    let (day, block) = day_and_block(ms);
    if whole_day {
        return day_bounds(day);
    }
    let end = if block == 6 {
        local(day, 23)
    } else {
        block_start(day, block + 1)
    };
    (block_start(day, block), end)
}

/// The block a `_block` code names, when it is an EFA code: `Some(Ok(1..=6))` for EFA1..EFA6,
/// `Some(Err)` naming the allowed range for another `EFA<n>`, `None` when it is not one.
pub fn parse_block(text: &str) -> Option<Result<u8>> {
    let code = text.trim().to_ascii_uppercase();
    let digits = code.strip_prefix("EFA")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match digits.parse::<u8>() {
        Ok(n @ 1..=6) => Ok(n),
        _ => Err(Error::invalid_parameter(format!(
            "_block \"{text}\": an EFA day has six blocks, EFA1 (23:00-03:00) to EFA6 \
             (19:00-23:00)"
        ))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str) -> i64 {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    }

    #[test]
    fn efa_blocks_follow_london_and_its_clock_changes() {
        let hour = 3_600_000;
        // Winter: EFA1 of 15 January starts at 23:00 on the 14th.
        let (s, e) = period_of(ms("2025-01-15T00:30:00Z"), false);
        assert_eq!((s, e - s), (ms("2025-01-14T23:00:00Z"), 4 * hour));
        assert_eq!(day_and_block(ms("2025-01-14T23:00:00Z")).1, 1);
        assert_eq!(day_and_block(ms("2025-01-14T22:59:00Z")).1, 6);
        // Spring change: EFA1 of 30 March lasts 3 hours; autumn: EFA1 of 26 October 5.
        let (s, e) = period_of(ms("2025-03-30T00:00:00Z"), false);
        assert_eq!((s, e - s), (ms("2025-03-29T23:00:00Z"), 3 * hour));
        let (s, e) = period_of(ms("2025-10-26T01:30:00Z"), false);
        assert_eq!((s, e - s), (ms("2025-10-25T22:00:00Z"), 5 * hour));
        let (s, e) = period_of(ms("2025-10-26T01:30:00Z"), true);
        assert_eq!((s, e - s), (ms("2025-10-25T22:00:00Z"), 25 * hour));
        // Summer: EFA6 is 18:00-22:00 UTC.
        let (s, e) = period_of(ms("2025-06-21T21:59:00Z"), false);
        assert_eq!((s, e - s), (ms("2025-06-21T18:00:00Z"), 4 * hour));
    }

    #[test]
    fn efa_block_codes_are_efa1_to_efa6() {
        assert_eq!(parse_block("efa1").unwrap().unwrap(), 1);
        assert_eq!(parse_block("EFA6").unwrap().unwrap(), 6);
        for bad in ["EFA7", "EFA0", "EFA300"] {
            let e = parse_block(bad).unwrap().unwrap_err().public_message();
            assert!(
                e.contains(bad) && e.contains("EFA1") && e.contains("EFA6"),
                "{e}"
            );
        }
        assert!(parse_block("EFANIGHT").is_none());
        assert!(parse_block("NIGHT").is_none());
    }
}
