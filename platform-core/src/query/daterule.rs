//! Date rules: an instant described relative to a reference time (the
//! request's "now", or a curve's ondate).
//!
//! ```text
//! rule   ::= ("T" | "t") [sign] shift* field*    -- a sign must be followed by a shift or a field
//! sign   ::= "+" | "-"
//! shift  ::= digit+ unit                          -- a number, then a unit
//! unit   ::= "Y" | "Q" | "M" | "W" | "B" | "D" | "h" | "m" | "s"
//! field  ::= "Y" digit{4} | "Q" digit | "M" digit{1,2} | "W" digit{1,2}
//!          | "D" digit{1,2} | "h" digit{1,2} | "m" digit{1,2} | "s" digit{1,2}
//! ```
//!
//! Shifts and fields each appear at most once and in the order listed
//! (`Y Q M W B D h m s`); unit letters are case-sensitive (`M` = month,
//! `m` = minute), only the leading `T` is not.
//!
//! Semantics: starting from the reference instant, the shifts are applied one
//! after the other, each with the rule's sign (none = `+`): `Y`, `Q` and `M`
//! move by calendar months and clamp the day to the end of the target month,
//! `W` is 7 days, `B` counts Monday-Friday days (from a weekend, the first
//! business day in the direction of travel is the first step), `D` moves by
//! calendar days, and `h`, `m`, `s` by elapsed time. Then the fields are set:
//! `Y` the year, `Q` the quarter (month = the quarter's first month), `M` the
//! month (each clamping the day to the month's end), `W` the ISO week of the
//! current ISO week-year keeping the weekday (clamped to the year's last
//! week), `D` the day of the month (clamped to the month's end), and `h`, `m`,
//! `s` the time of day, each setting the finer units to zero, sub-seconds
//! included (`h0` is exactly hh:00:00.000; date fields keep the time of day, as
//! the reference vectors have it: `TM2D29` keeps 16:23:07). Calendar steps work on the wall clock of the
//! evaluation time zone (UTC unless [`DateRule::eval_in`] is given another).

use std::fmt;
use std::str::FromStr;

use chrono::{
    DateTime, Datelike, Days, FixedOffset, MappedLocalTime, Months, NaiveDate, NaiveDateTime,
    Offset, TimeDelta, TimeZone, Timelike, Utc, Weekday,
};

use super::grammar::GrammarError;

/// The unit of a shift (`-3B`): a number of these is added or subtracted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShiftUnit {
    /// `Y`: calendar years (12 months, the day clamped to the month's end).
    Year,
    /// `Q`: quarters (3 calendar months, the day clamped to the month's end).
    Quarter,
    /// `M`: calendar months (the day clamped to the month's end).
    Month,
    /// `W`: weeks of 7 calendar days.
    Week,
    /// `B`: business days (Monday-Friday).
    BusinessDay,
    /// `D`: calendar days.
    Day,
    /// `h`: hours of elapsed time.
    Hour,
    /// `m`: minutes of elapsed time.
    Minute,
    /// `s`: seconds of elapsed time.
    Second,
}

impl ShiftUnit {
    fn from_letter(letter: u8) -> Option<Self> {
        Some(match letter {
            b'Y' => Self::Year,
            b'Q' => Self::Quarter,
            b'M' => Self::Month,
            b'W' => Self::Week,
            b'B' => Self::BusinessDay,
            b'D' => Self::Day,
            b'h' => Self::Hour,
            b'm' => Self::Minute,
            b's' => Self::Second,
            _ => return None,
        })
    }
}

/// The field set by an absolute part (`D1`, `h0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FieldUnit {
    /// `Y`: the year (four digits).
    Year,
    /// `Q`: the quarter (1-4); the month becomes the quarter's first.
    Quarter,
    /// `M`: the month (1-12).
    Month,
    /// `W`: the ISO week (1-53) of the current ISO week-year, keeping the weekday.
    Week,
    /// `D`: the day of the month (1-31, clamped to the month's end).
    Day,
    /// `h`: the hour of the day (0-23).
    Hour,
    /// `m`: the minute (0-59).
    Minute,
    /// `s`: the second (0-59).
    Second,
}

impl FieldUnit {
    fn from_letter(letter: u8) -> Option<Self> {
        Some(match letter {
            b'Y' => Self::Year,
            b'Q' => Self::Quarter,
            b'M' => Self::Month,
            b'W' => Self::Week,
            b'D' => Self::Day,
            b'h' => Self::Hour,
            b'm' => Self::Minute,
            b's' => Self::Second,
            _ => return None,
        })
    }

    /// Allowed number of digits and allowed values.
    fn bounds(
        self,
    ) -> (
        std::ops::RangeInclusive<usize>,
        std::ops::RangeInclusive<u32>,
    ) {
        match self {
            Self::Year => (4..=4, 0..=9999),
            Self::Quarter => (1..=1, 1..=4),
            Self::Month => (1..=2, 1..=12),
            Self::Week => (1..=2, 1..=53),
            Self::Day => (1..=2, 1..=31),
            Self::Hour => (1..=2, 0..=23),
            Self::Minute | Self::Second => (1..=2, 0..=59),
        }
    }
}

/// A relative part: `amount` (signed) of `unit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shift {
    /// The unit shifted by.
    pub unit: ShiftUnit,
    /// How many units, with the rule's sign applied (negative = backwards).
    pub amount: i64,
}

/// An absolute part: set `unit` to `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Field {
    /// The field that is set.
    pub unit: FieldUnit,
    /// The value it is set to.
    pub value: u32,
}

/// A parsed date rule; [`fmt::Display`] gives back its source text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DateRule {
    text: String,
    shifts: Vec<Shift>,
    fields: Vec<Field>,
}

/// Parses a date rule such as `T-1Dh0m0s0`.
pub fn parse(text: &str) -> Result<DateRule, GrammarError> {
    parse_parts(text)
        .map(|(shifts, fields)| DateRule {
            text: text.to_owned(),
            shifts,
            fields,
        })
        .map_err(|reason| GrammarError::invalid("date rule", text, reason))
}

/// Whether `text` is meant as a date rule (it starts with `T` or `t`).
pub fn looks_like_rule(text: &str) -> bool {
    text.starts_with(['T', 't'])
}

const ORDER: &str = "Y Q M W B D h m s";

fn parse_parts(text: &str) -> Result<(Vec<Shift>, Vec<Field>), String> {
    if !text.is_ascii() {
        return Err("contains a non-ASCII character".into());
    }
    let mut cur = Cursor::new(text);
    if !matches!(cur.next(), Some(b'T' | b't')) {
        return Err("a date rule starts with T".into());
    }
    let sign = match cur.peek() {
        Some(b'+') => Some(1),
        Some(b'-') => Some(-1),
        _ => None,
    };
    if sign.is_some() {
        cur.bump();
    }

    let mut shifts: Vec<Shift> = Vec::new();
    while cur.peek().is_some_and(|b| b.is_ascii_digit()) {
        let digits = cur.digits();
        let amount: u32 = digits
            .parse()
            .map_err(|_| format!("offset {digits} is too large"))?;
        let unit = match cur.next() {
            Some(letter) => ShiftUnit::from_letter(letter)
                .ok_or_else(|| format!("unknown unit '{}' after {digits}", char::from(letter)))?,
            None => return Err(format!("offset {digits} has no unit")),
        };
        if shifts.last().is_some_and(|last| last.unit >= unit) {
            return Err(format!(
                "offsets must appear at most once each, in the order {ORDER}"
            ));
        }
        shifts.push(Shift {
            unit,
            amount: sign.unwrap_or(1) * i64::from(amount),
        });
    }

    let mut fields: Vec<Field> = Vec::new();
    while let Some(letter) = cur.next() {
        let unit = FieldUnit::from_letter(letter).ok_or_else(|| {
            format!(
                "unexpected '{}' at position {}",
                char::from(letter),
                cur.pos
            )
        })?;
        let digits = cur.digits();
        let name = char::from(letter);
        let (lengths, values) = unit.bounds();
        if !lengths.contains(&digits.len()) {
            return Err(if digits.is_empty() {
                format!("field {name} needs a value")
            } else {
                format!("field {name}{digits} has the wrong number of digits")
            });
        }
        let value: u32 = digits
            .parse()
            .ok()
            .filter(|v| values.contains(v))
            .ok_or_else(|| {
                format!(
                    "field {name}{digits} is out of range {}-{}",
                    values.start(),
                    values.end()
                )
            })?;
        if fields.last().is_some_and(|last| last.unit >= unit) {
            return Err(format!(
                "fields must appear at most once each, in the order {ORDER} (without B), after the offsets"
            ));
        }
        fields.push(Field { unit, value });
    }

    if sign.is_some() && shifts.is_empty() && fields.is_empty() {
        return Err("a sign must be followed by an offset or a field".into());
    }
    Ok((shifts, fields))
}

/// A byte cursor over ASCII text.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Self { text, pos: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn bump(&mut self) {
        self.pos += 1;
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.bump();
        Some(byte)
    }

    /// Consumes and returns a (possibly empty) run of ASCII digits.
    fn digits(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.bump();
        }
        &self.text[start..self.pos]
    }
}

impl DateRule {
    internal! {
        /// The source text of the rule.
        fn text(&self) -> &str {
            &self.text
        }
    }

    internal! {
        /// The relative parts, in application order.
        fn shifts(&self) -> &[Shift] {
            &self.shifts
        }
    }

    internal! {
        /// The absolute parts, in application order.
        fn fields(&self) -> &[Field] {
            &self.fields
        }
    }

    internal! {
        /// Evaluates the rule at `now`, on the UTC calendar.
        fn eval(&self, now: DateTime<Utc>) -> Result<DateTime<Utc>, GrammarError> {
            self.eval_in(now, &Utc)
        }
    }

    internal! {
        /// Evaluates the rule at `now`, with calendar steps and fields taken on
        /// the wall clock of `tz` (e.g. `h0` = local midnight).
        fn eval_in<Tz: TimeZone>(
            &self,
            now: DateTime<Utc>,
            tz: &Tz,
        ) -> Result<DateTime<Utc>, GrammarError> {
            self.eval_with(now, tz, None)
        }
    }

    /// As [`DateRule::eval_in`], with `B` counting the business days of `business` (a holiday
    /// calendar's move) instead of Monday to Friday.
    pub fn eval_with<Tz: TimeZone>(
        &self,
        now: DateTime<Utc>,
        tz: &Tz,
        business: Option<BusinessDays<'_>>,
    ) -> Result<DateTime<Utc>, GrammarError> {
        self.apply(now.with_timezone(tz), business)
            .map(|instant| instant.with_timezone(&Utc))
            .ok_or_else(|| {
                GrammarError::invalid(
                    "date rule",
                    &self.text,
                    format!(
                        "evaluated at {} it leaves the supported date range",
                        now.to_rfc3339()
                    ),
                )
            })
    }

    fn apply<Tz: TimeZone>(
        &self,
        start: DateTime<Tz>,
        business: Option<BusinessDays<'_>>,
    ) -> Option<DateTime<Tz>> {
        let shifted = self
            .shifts
            .iter()
            .try_fold(start, |t, s| apply_shift(t, s, business))?;
        self.fields.iter().try_fold(shifted, apply_field)
    }
}

impl fmt::Display for DateRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for DateRule {
    type Err = GrammarError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse(text)
    }
}

/// A move by business days of a holiday calendar: `(date, n)` to the date n business days on.
pub type BusinessDays<'a> = &'a dyn Fn(NaiveDate, i64) -> Option<NaiveDate>;

fn apply_shift<Tz: TimeZone>(
    t: DateTime<Tz>,
    shift: &Shift,
    business: Option<BusinessDays<'_>>,
) -> Option<DateTime<Tz>> {
    let n = shift.amount;
    let local = wall_clock(&t)?;
    let moved = match shift.unit {
        ShiftUnit::Year => add_months(local, n.checked_mul(12)?)?,
        ShiftUnit::Quarter => add_months(local, n.checked_mul(3)?)?,
        ShiftUnit::Month => add_months(local, n)?,
        ShiftUnit::Week => add_days(local, n.checked_mul(7)?)?,
        ShiftUnit::BusinessDay => match business {
            Some(move_by) => move_by(local.date(), n)?,
            None => add_business_days(local.date(), n)?,
        }
        .and_time(local.time()),
        ShiftUnit::Day => add_days(local, n)?,
        ShiftUnit::Hour => return t.checked_add_signed(TimeDelta::try_hours(n)?),
        ShiftUnit::Minute => return t.checked_add_signed(TimeDelta::try_minutes(n)?),
        ShiftUnit::Second => return t.checked_add_signed(TimeDelta::try_seconds(n)?),
    };
    relocalize(&t, moved)
}

fn apply_field<Tz: TimeZone>(t: DateTime<Tz>, field: &Field) -> Option<DateTime<Tz>> {
    let local = wall_clock(&t)?;
    let (date, time) = (local.date(), local.time());
    let v = field.value;
    let new_date = |d: NaiveDate| d.and_time(time);
    let moved = match field.unit {
        FieldUnit::Year => new_date(clamped_date(
            i32::try_from(v).ok()?,
            date.month(),
            date.day(),
        )?),
        FieldUnit::Quarter => {
            let month = v.checked_sub(1)? * 3 + 1;
            new_date(clamped_date(date.year(), month, date.day())?)
        }
        FieldUnit::Month => new_date(clamped_date(date.year(), v, date.day())?),
        FieldUnit::Week => {
            let year = date.iso_week().year();
            let week = v.min(weeks_in_iso_year(year));
            new_date(NaiveDate::from_isoywd_opt(year, week, date.weekday())?)
        }
        FieldUnit::Day => new_date(clamped_date(date.year(), date.month(), v)?),
        // A time-of-day field zeroes the finer units, sub-seconds included (`h0` is hh:00:00.000).
        FieldUnit::Hour => date.and_hms_opt(v, 0, 0)?,
        FieldUnit::Minute => date.and_hms_opt(time.hour(), v, 0)?,
        FieldUnit::Second => date.and_hms_opt(time.hour(), time.minute(), v)?,
    };
    relocalize(&t, moved)
}

fn add_months(t: NaiveDateTime, n: i64) -> Option<NaiveDateTime> {
    let months = Months::new(u32::try_from(n.unsigned_abs()).ok()?);
    if n >= 0 {
        t.checked_add_months(months)
    } else {
        t.checked_sub_months(months)
    }
}

fn add_days(t: NaiveDateTime, n: i64) -> Option<NaiveDateTime> {
    let days = Days::new(n.unsigned_abs());
    if n >= 0 {
        t.checked_add_days(days)
    } else {
        t.checked_sub_days(days)
    }
}

fn is_weekend(date: NaiveDate) -> bool {
    matches!(date.weekday(), Weekday::Sat | Weekday::Sun)
}

/// Moves `n` Monday-Friday days (backwards when negative) from `date`.
///
/// The first step goes to the next business day in the direction of travel;
/// from there on, every five business days are exactly one calendar week,
/// so large counts take constant time.
pub fn add_business_days(date: NaiveDate, n: i64) -> Option<NaiveDate> {
    if n == 0 {
        return Some(date);
    }
    let forward = n > 0;
    let next_business_day = |mut d: NaiveDate| loop {
        d = if forward {
            d.succ_opt()?
        } else {
            d.pred_opt()?
        };
        if !is_weekend(d) {
            return Some(d);
        }
    };
    let mut day = next_business_day(date)?;
    let rest = n.unsigned_abs() - 1;
    let weeks = Days::new((rest / 5).checked_mul(7)?);
    day = if forward {
        day.checked_add_days(weeks)?
    } else {
        day.checked_sub_days(weeks)?
    };
    for _ in 0..rest % 5 {
        day = next_business_day(day)?;
    }
    Some(day)
}

/// The date `year-month-day`, with the day clamped to the month's last day.
fn clamped_date(year: i32, month: u32, day: u32) -> Option<NaiveDate> {
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let last_day = first.checked_add_months(Months::new(1))?.pred_opt()?.day();
    first.with_day(day.clamp(1, last_day))
}

fn weeks_in_iso_year(year: i32) -> u32 {
    if NaiveDate::from_isoywd_opt(year, 53, Weekday::Mon).is_some() {
        53
    } else {
        52
    }
}

/// Re-reads a changed wall-clock time in the zone of `t`, keeping the offset
/// of `t` when the new time is ambiguous.
fn relocalize<Tz: TimeZone>(t: &DateTime<Tz>, naive: NaiveDateTime) -> Option<DateTime<Tz>> {
    if Some(naive) == wall_clock(t) {
        return Some(t.clone());
    }
    localize(&t.timezone(), naive, Some(t.offset().fix()))
}

/// The wall-clock time of `t`, or `None` when it lies past chrono's dates (an instant at the
/// edge of chrono's range read in a zone behind or ahead of UTC); `naive_local` would panic.
fn wall_clock<Tz: TimeZone>(t: &DateTime<Tz>) -> Option<NaiveDateTime> {
    t.naive_utc().checked_add_offset(t.offset().fix())
}

/// The instant at wall-clock time `naive` in `tz`.
///
/// An ambiguous time (a clock going back) takes the `prefer`red offset if it
/// is one of the two, else the earlier instant; a time skipped by a clock
/// going forward is read with the offset in force before the jump (02:30 in
/// a one-hour gap at 02:00 becomes 03:30).
pub(crate) fn localize<Tz: TimeZone>(
    tz: &Tz,
    naive: NaiveDateTime,
    prefer: Option<FixedOffset>,
) -> Option<DateTime<Tz>> {
    match tz.from_local_datetime(&naive) {
        MappedLocalTime::Single(t) => Some(t),
        MappedLocalTime::Ambiguous(early, late) => Some(if prefer == Some(late.offset().fix()) {
            late
        } else {
            early
        }),
        MappedLocalTime::None => {
            let before = naive.checked_sub_signed(TimeDelta::try_days(1)?)?;
            let offset = tz.offset_from_utc_datetime(&before).fix();
            let utc = naive
                .checked_sub_signed(TimeDelta::try_seconds(i64::from(offset.local_minus_utc()))?)?;
            Some(tz.from_utc_datetime(&utc))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .expect("test timestamp")
            .with_timezone(&Utc)
    }

    fn eval(rule: &str, now: &str) -> DateTime<Utc> {
        parse(rule)
            .and_then(|r| r.eval(at(now)))
            .expect("rule evaluates")
    }

    fn date(text: &str) -> NaiveDate {
        text.parse().expect("test date")
    }

    #[test]
    fn month_end_clamping() {
        assert_eq!(
            eval("T+1M", "2023-01-31T00:00:00Z"),
            at("2023-02-28T00:00:00Z")
        );
        assert_eq!(
            eval("T+1M", "2024-01-31T00:00:00Z"),
            at("2024-02-29T00:00:00Z")
        );
        // Steps apply in order: -1Q clamps to Feb 29, then -1M keeps the 29th.
        assert_eq!(
            eval("T-1Q1M", "2024-05-31T00:00:00Z"),
            at("2024-01-29T00:00:00Z")
        );
        // Setting a day past the month's end clamps too.
        assert_eq!(
            eval("TM2D31", "2023-07-08T00:00:00Z"),
            at("2023-02-28T00:00:00Z")
        );
    }

    #[test]
    fn leap_years() {
        assert_eq!(
            eval("T+4Y", "2024-02-29T12:00:00Z"),
            at("2028-02-29T12:00:00Z")
        );
        assert_eq!(
            eval("TY2100", "2024-02-29T12:00:00Z"),
            at("2100-02-28T12:00:00Z")
        );
        assert_eq!(
            eval("TY2000", "2024-02-29T12:00:00Z"),
            at("2000-02-29T12:00:00Z")
        );
    }

    #[test]
    fn iso_week_field() {
        // 2020 has 53 ISO weeks; W53 on a Thursday of ISO year 2020.
        assert_eq!(
            eval("TW53", "2020-06-04T00:00:00Z"),
            at("2020-12-31T00:00:00Z")
        );
        // 2021 has 52: W53 clamps to W52.
        assert_eq!(
            eval("TW53", "2021-06-03T00:00:00Z"),
            at("2021-12-30T00:00:00Z")
        );
        // 2021-01-01 belongs to ISO year 2020.
        assert_eq!(
            eval("TW1", "2021-01-01T00:00:00Z"),
            at("2020-01-03T00:00:00Z")
        );
    }

    #[test]
    fn business_days_across_weekends() {
        let friday = date("2024-07-05");
        let saturday = date("2024-07-06");
        let sunday = date("2024-07-07");
        assert_eq!(add_business_days(friday, 1), Some(date("2024-07-08")));
        assert_eq!(add_business_days(friday, 5), Some(date("2024-07-12")));
        assert_eq!(add_business_days(friday, 6), Some(date("2024-07-15")));
        assert_eq!(add_business_days(saturday, 5), Some(date("2024-07-12")));
        assert_eq!(add_business_days(sunday, -1), Some(date("2024-07-05")));
        assert_eq!(add_business_days(sunday, -5), Some(date("2024-07-01")));
        assert_eq!(add_business_days(saturday, 0), Some(saturday));
    }

    #[test]
    fn business_days_match_stepping() {
        let step = |mut d: NaiveDate, n: i64| {
            for _ in 0..n.unsigned_abs() {
                loop {
                    d = if n > 0 {
                        d.succ_opt().expect("in range")
                    } else {
                        d.pred_opt().expect("in range")
                    };
                    if !is_weekend(d) {
                        break;
                    }
                }
            }
            d
        };
        let start = date("2024-06-29");
        for offset in 0..7 {
            let d = start + Days::new(offset);
            for n in -23..=23 {
                assert_eq!(add_business_days(d, n), Some(step(d, n)), "{d} {n}");
            }
        }
    }

    #[test]
    fn time_fields_zero_the_finer_units_sub_seconds_included() {
        let now = at("2024-07-08T16:23:07.250Z");
        assert_eq!(eval_at("T-3Dh0m0s0", now), at("2024-07-05T00:00:00Z"));
        assert_eq!(eval_at("Th5", now), at("2024-07-08T05:00:00Z"));
        assert_eq!(eval_at("Tm30", now), at("2024-07-08T16:30:00Z"));
        assert_eq!(eval_at("Ts0", now), at("2024-07-08T16:23:00Z"));
        // Date fields keep the time of day (the reference vectors: TM2D29 keeps 16:23:07).
        assert_eq!(eval_at("TD1", now), at("2024-07-01T16:23:07.250Z"));
    }

    fn eval_at(rule: &str, now: DateTime<Utc>) -> DateTime<Utc> {
        parse(rule).expect("parses").eval(now).expect("evaluates")
    }

    #[test]
    fn large_offsets_are_errors_not_panics() {
        let rule = parse("T+4294967295Y").expect("parses");
        assert!(rule.eval(at("2024-01-01T00:00:00Z")).is_err());
        let rule = parse("T+4294967295B").expect("parses");
        assert!(rule.eval(at("2024-01-01T00:00:00Z")).is_err());
        assert!(parse("T+4294967296D").is_err());
    }

    #[test]
    fn a_rule_that_runs_past_chronos_dates_in_a_zone_is_an_error_not_a_panic() {
        // Found by fuzzing `_range`: 264163 years back lands at the edge of chrono's dates,
        // where the wall clock of a zone behind UTC is past them and reading it panicked.
        let rule = parse("T-264163Y50W12B11hQ1W52").expect("parses");
        let zones = [
            chrono_tz::UTC,
            chrono_tz::Europe::Amsterdam,
            chrono_tz::America::Santiago,
            chrono_tz::Australia::Lord_Howe,
            chrono_tz::Pacific::Apia,
        ];
        let mut errors = 0;
        for now in ["2024-07-08T16:23:07Z", "2021-01-02T12:00:00Z"] {
            for zone in &zones {
                if let Err(e) = rule.eval_in(at(now), zone) {
                    assert!(e.message.contains("leaves the supported date range"), "{e}");
                    errors += 1;
                }
            }
        }
        assert!(errors > 0);
    }

    #[test]
    fn time_zone_wall_clock() {
        let amsterdam = chrono_tz::Europe::Amsterdam;
        let rule = parse("T-1Dh0m0s0").expect("parses");
        let instant = rule
            .eval_in(at("2024-07-08T16:23:07Z"), &amsterdam)
            .expect("evaluates");
        assert_eq!(instant, at("2024-07-06T22:00:00Z"));
        // h2 lands in the 02:00-03:00 gap of 2024-03-31 (read as 03:00 CEST),
        // then m30 gives 03:30 CEST.
        let rule = parse("Th2m30s0").expect("parses");
        let instant = rule
            .eval_in(at("2024-03-31T10:00:00Z"), &amsterdam)
            .expect("evaluates");
        assert_eq!(instant, at("2024-03-31T01:30:00Z"));
    }

    #[test]
    fn syntax_errors() {
        for bad in [
            "", "X", "T-", "T+", "T1", "T-1X", "T-1D1Y", "T-1D1D", "TD1M2", "TM13", "TD0", "Th24",
            "TY24", "TQ5", "TB1", "T-D", "T 1D", "T-1Dh0 ", "T-1Dé",
        ] {
            let err = parse(bad).expect_err(bad);
            assert!(
                err.message.contains(&format!("\"{bad}\"")),
                "{}",
                err.message
            );
        }
    }

    #[test]
    fn parts_are_exposed() {
        let rule = parse("t-1YQ4D1h0").expect("parses");
        assert_eq!(
            rule.shifts(),
            &[Shift {
                unit: ShiftUnit::Year,
                amount: -1
            }]
        );
        assert_eq!(rule.fields().len(), 3);
        assert_eq!(rule.to_string(), "t-1YQ4D1h0");
    }
}
