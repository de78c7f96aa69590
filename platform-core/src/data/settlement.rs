//! GB settlement dates and periods (the half-hours GB power settles in).
//!
//! A settlement day is a local day in Europe/London, whatever the zone of the series. Its
//! half-hour periods are numbered from 1 at local midnight, in elapsed time: 48 on most days, 46
//! on the spring change day, 50 on the autumn one. Period n of day D starts (n - 1) x 30 minutes
//! after local midnight of D.

use crate::error::{Error, Result};
use chrono::{DateTime, Days, NaiveDate, TimeZone};
use chrono_tz::Tz;

/// The zone settlement days are cut in.
pub const ZONE: Tz = chrono_tz::Europe::London;

const HALF_HOUR: i64 = 30 * 60 * 1000;

/// Local midnight of `date` in London (never in a gap: London changes its clocks at 01:00).
fn midnight(date: NaiveDate) -> i64 {
    let naive = date.and_time(chrono::NaiveTime::MIN);
    ZONE.from_local_datetime(&naive).earliest().map_or_else(
        || naive.and_utc().timestamp_millis(),
        |t| t.timestamp_millis(),
    )
}

/// How many settlement periods the settlement day `date` has: 46, 48 or 50.
pub fn periods_in_day(date: NaiveDate) -> u32 {
    let next = date.checked_add_days(Days::new(1)).unwrap_or(date);
    ((midnight(next) - midnight(date)) / HALF_HOUR) as u32
}

/// The start (UTC milliseconds) of settlement period `period` of `date`; a period outside the
/// day's range is a 400 naming it, the date and how many periods that day has.
pub fn start(date: NaiveDate, period: i64) -> Result<i64> {
    let n = periods_in_day(date);
    if period < 1 || period > i64::from(n) {
        return Err(Error::invalid_body(format!(
            "settlementPeriod {period}: settlement day {date} has {n} periods (1..{n})"
        )));
    }
    Ok(midnight(date) + (period - 1) * HALF_HOUR)
}

/// The settlement date of a text (`YYYY-MM-DD`); anything else is a 400 naming it.
pub fn parse_date(text: &str) -> Result<NaiveDate> {
    let text = text.trim();
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .filter(|_| text.len() == 10)
        .ok_or_else(|| {
            Error::invalid_body(format!(
                "settlementDate \"{text}\" is not a date: use YYYY-MM-DD"
            ))
        })
}

/// The settlement period of a text (a whole number; its range is checked by [`start`]).
pub fn parse_period(text: &str) -> Result<i64> {
    text.trim().parse::<i64>().map_err(|_| {
        Error::invalid_body(format!(
            "settlementPeriod \"{}\" is not a whole number: use 1..50",
            text.trim()
        ))
    })
}

/// The settlement date and period holding the instant `ms`.
pub fn of(ms: i64) -> (NaiveDate, u32) {
    let date = DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .with_timezone(&ZONE)
        .date_naive();
    (
        date,
        ((ms - midnight(date)).div_euclid(HALF_HOUR) + 1) as u32,
    )
}

/// The UTC bounds `[from, to)` of the settlement days `first..=last`.
#[cfg(feature = "internals")]
pub fn days_bounds(first: NaiveDate, last: NaiveDate) -> (i64, i64) {
    let after = last.checked_add_days(Days::new(1)).unwrap_or(last);
    (midnight(first), midnight(after))
}

/// Reads `_settlement`: `GB` (any case) keys each half-hour of a read by its settlement date
/// and period; anything else is a 400 naming it.
pub fn parse_param(text: &str) -> Result<()> {
    if text.eq_ignore_ascii_case("GB") {
        Ok(())
    } else {
        Err(Error::invalid_parameter(format!(
            "_settlement \"{text}\": use GB (GB settlement dates and periods)"
        )))
    }
}

/// Checks that the times of a read on `calendar` (its code `code`) are half-hours or finer
/// steps of them, so each lies in one settlement period; a 400 naming the calendar otherwise.
pub fn check_calendar(calendar: super::calendar::Calendar, code: &str) -> Result<()> {
    match calendar {
        super::calendar::Calendar::Intraday(step) if 1800 % step == 0 => Ok(()),
        _ => Err(Error::invalid_parameter(format!(
            "_settlement=GB keys half-hours: the series is read on {code}; read a HALFHOURLY \
             series (or a finer one: QUARTERHOURLY, #PT5M...), or scale it with \
             _calendar=HALFHOURLY"
        ))),
    }
}

/// Writes the settlement fields of the instant `ms` into a JSON object being written:
/// `,"settlementDate":"2025-10-26","settlementPeriod":3`.
pub fn write_json_fields(ms: i64, out: &mut Vec<u8>) {
    use std::io::Write;
    let (date, period) = of(ms);
    // Writing to a Vec cannot fail.
    let _ = write!(
        out,
        ",\"settlementDate\":\"{date}\",\"settlementPeriod\":{period}"
    );
}

/// The settlement date (days since 1970-01-01, Arrow's date32) and period of the instant `ms`.
pub fn date32_and_period(ms: i64) -> (i32, u8) {
    let (date, period) = of(ms);
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    ((date - epoch).num_days() as i32, period as u8)
}

/// A point's JSON object with its settlement date and period after its `time`.
pub fn keyed_point(ms: i64, point: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let Value::Object(fields) = point else {
        return point;
    };
    let (date, period) = of(ms);
    let mut keyed = serde_json::Map::with_capacity(fields.len() + 2);
    for (k, v) in fields {
        let after_time = k == "time";
        keyed.insert(k, v);
        if after_time {
            keyed.insert("settlementDate".into(), Value::String(date.to_string()));
            keyed.insert("settlementPeriod".into(), Value::from(period));
        }
    }
    Value::Object(keyed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn vectors() -> Value {
        let shared = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/spec/vectors/settlement.json"
        );
        let copy = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/vectors/settlement.json"
        );
        let path = if std::path::Path::new(shared).exists() {
            shared
        } else {
            copy
        };
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn every_settlement_vector_passes_both_ways() {
        let file = vectors();
        let cases = file["cases"].as_array().unwrap();
        assert!(cases.len() >= 40);
        for case in cases {
            let date = parse_date(case["settlementDate"].as_str().unwrap()).unwrap();
            let period = case["settlementPeriod"].as_i64().unwrap();
            let n = case["periodsInDay"].as_u64().unwrap() as u32;
            assert_eq!(periods_in_day(date), n, "{case}");
            match case["start"].as_str() {
                Some(s) => {
                    let want = DateTime::parse_from_rfc3339(s).unwrap().timestamp_millis();
                    assert_eq!(start(date, period).unwrap(), want, "{case}");
                    assert_eq!(of(want), (date, period as u32), "{case}");
                }
                None => {
                    let m = start(date, period).unwrap_err().public_message();
                    assert!(m.contains(&format!("{period}")) && m.contains(&format!("{n}")));
                    assert!(m.contains(&date.to_string()), "{m}");
                }
            }
        }
    }

    #[test]
    fn a_year_has_17520_settlement_periods_and_bad_text_is_named() {
        let days = (0..365).map(|i| NaiveDate::from_ymd_opt(2025, 1, 1).unwrap() + Days::new(i));
        assert_eq!(days.map(periods_in_day).sum::<u32>(), 17_520);
        assert!(start(NaiveDate::from_ymd_opt(2025, 1, 1).unwrap(), 0).is_err());
        let m = parse_date("2025-02-30").unwrap_err().public_message();
        assert!(m.contains("\"2025-02-30\""), "{m}");
        assert!(parse_period("1.5")
            .unwrap_err()
            .public_message()
            .contains("\"1.5\""));
    }
}
