//! `_range` expressions selecting the observations of a time series.
//!
//! ```text
//! range   ::= "last(" count ")"
//!           | "from(" date ["," zone] ")"
//!           | "between(" date "," date ["," zone] ")"
//!           | "within(" date ["," zone] ")"
//!           | date                                  -- same as within(date)
//! count   ::= digit+
//! date    ::= (literal | tenor | rule) ["[" zone "]"]
//! literal ::= YYYY ["-" MM ["-" DD ["T" hh [":" mm [":" ss]]]]]
//! tenor   ::= an absolute period code (see `period`): 2024M10, 2024Q02, 2024D0315
//! rule    ::= a date rule (see `daterule`): T-1Y, T-1Dh0m0s0
//! zone    ::= an IANA time-zone name: Europe/Amsterdam, UTC
//! ```
//!
//! Function names are case-insensitive and blanks around arguments are
//! ignored. `last(n)` asks for the last `n` observations and is not a time
//! window. Every date names a period: a literal the year, month, day, hour,
//! minute or second its text spells out; a tenor its delivery days; a date
//! rule the one second starting at its instant (the rule is evaluated at
//! "now"). Dates are read in the zone of their `[zone]` suffix, else the
//! zone argument, else UTC. A window's start is inclusive and its end
//! exclusive: `from(d)` starts at the start of d and is open-ended,
//! `within(d)` is d's period, and `between(d1,d2)` runs from the start of d1
//! to the end of d2 (a window that would be empty is an error).

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Days, Months, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
use chrono_tz::Tz;

use super::daterule::{self, DateRule};
use super::grammar::GrammarError;
use super::period::{self, AbsolutePeriod, Period};

/// A parsed `_range` expression; [`fmt::Display`] gives back its source text.
///
/// Its "between" is `between(d1,d2)`: both dates whole, from the start of `d1` to the end of
/// `d2` (so `between(2024-01-01,2024-01-01)` is that whole day); every window's start is
/// included and its end excluded.
///
/// ```
/// use platform_core::api::{data::Point, data::ReadRange, data::SeriesQuery};
/// use chrono::{Duration, TimeZone, Utc};
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let start = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
/// let points: Vec<Point> = (0..72).map(|h| Point::new(start + Duration::hours(h), h as f64)).collect();
/// platform.data().write_series(&me, "DE:POWER", &points, &Default::default())?;
/// let two_days = ReadRange::Expr("between(2024-01-01,2024-01-02)".into());
/// let read = platform.data().series(&me, "DE:POWER", &SeriesQuery { range: two_days, ..Default::default() })?;
/// assert_eq!(read.points, &points[..48]); // the 2nd of January, 23:00, included
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeExpr {
    text: String,
    form: RangeForm,
}

/// The shape of a range expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangeForm {
    /// `last(n)`.
    Last(usize),
    /// `from(date[,zone])`.
    From {
        /// The date whose start opens the window.
        date: RangeDate,
        /// The zone of dates without a `[zone]` suffix (the reader's default when omitted).
        zone: Option<Tz>,
    },
    /// `between(start,end[,zone])`.
    Between {
        /// The date whose start opens the window.
        start: RangeDate,
        /// The date whose end closes the window.
        end: RangeDate,
        /// The zone of dates without a `[zone]` suffix (the reader's default when omitted).
        zone: Option<Tz>,
    },
    /// `within(date[,zone])` or a bare date.
    Within {
        /// The date whose period is the window.
        date: RangeDate,
        /// The zone of dates without a `[zone]` suffix (the reader's default when omitted).
        zone: Option<Tz>,
    },
}

/// A date argument, with its own zone when it has a `[zone]` suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeDate {
    /// What the date names.
    pub kind: DateKind,
    /// The `[zone]` suffix, which overrides the range's zone argument.
    pub zone: Option<Tz>,
}

/// What a date argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DateKind {
    /// `2024`, `2024-10`, ... `2024-10-12T11:36:05`.
    Literal(DateLiteral),
    /// An absolute period code: its delivery days.
    Tenor(AbsolutePeriod),
    /// A date rule: one second from its instant.
    Rule(DateRule),
}

/// How much of a literal date is spelled out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Precision {
    /// `YYYY`: a year.
    Year,
    /// `YYYY-MM`: a month.
    Month,
    /// `YYYY-MM-DD`: a day.
    Day,
    /// `YYYY-MM-DDThh`: an hour.
    Hour,
    /// `YYYY-MM-DDThh:mm`: a minute.
    Minute,
    /// `YYYY-MM-DDThh:mm:ss`: a second.
    Second,
}

/// A literal date: the wall-clock start of the period it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateLiteral {
    /// The wall-clock start (parts not spelled out take their minimum).
    pub start: NaiveDateTime,
    /// How much is spelled out, which sets the period's length.
    pub precision: Precision,
}

impl DateLiteral {
    /// The wall-clock end (exclusive) of the period.
    pub fn end(&self) -> Option<NaiveDateTime> {
        let t = self.start;
        match self.precision {
            Precision::Year => t.checked_add_months(Months::new(12)),
            Precision::Month => t.checked_add_months(Months::new(1)),
            Precision::Day => t.checked_add_days(Days::new(1)),
            Precision::Hour => t.checked_add_signed(TimeDelta::try_hours(1)?),
            Precision::Minute => t.checked_add_signed(TimeDelta::try_minutes(1)?),
            Precision::Second => t.checked_add_signed(TimeDelta::try_seconds(1)?),
        }
    }
}

/// A range resolved at a given "now".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resolved {
    /// The last n observations.
    Last(usize),
    /// Start inclusive, end exclusive; `None` = open.
    Window {
        /// The first instant (inclusive); `None` = open.
        start: Option<DateTime<Utc>>,
        /// The instant the window ends before (exclusive); `None` = open.
        end: Option<DateTime<Utc>>,
    },
}

/// Parses a `_range` expression.
pub fn parse(text: &str) -> Result<RangeExpr, GrammarError> {
    parse_form(text.trim())
        .map(|form| RangeExpr {
            text: text.to_owned(),
            form,
        })
        .map_err(|reason| GrammarError::invalid("range", text, reason))
}

impl RangeExpr {
    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }

    internal! {
        /// The parsed shape of the expression.
        fn form(&self) -> &RangeForm {
            &self.form
        }
    }

    internal! {
        /// Resolves the expression at `now` (date rules are evaluated there), reading dates without
        /// a zone in UTC.
        fn resolve(&self, now: DateTime<Utc>) -> Result<Resolved, GrammarError> {
            self.resolve_in(now, Tz::UTC)
        }
    }

    internal! {
        /// Resolves the expression at `now`, reading dates without a zone argument or suffix in
        /// `default_zone` (a series' own time zone).
        fn resolve_in(
            &self,
            now: DateTime<Utc>,
            default_zone: Tz,
        ) -> Result<Resolved, GrammarError> {
            self.resolve_with(now, default_zone, None)
        }
    }

    internal! {
        /// As [`RangeExpr::resolve_in`], with `B` in date rules counting the business days of
        /// `business` (a series' holiday calendar) instead of Monday to Friday.
        fn resolve_with(
            &self,
            now: DateTime<Utc>,
            default_zone: Tz,
            business: Option<daterule::BusinessDays<'_>>,
        ) -> Result<Resolved, GrammarError> {
            let window = |start, end| Ok(Resolved::Window { start, end });
            match &self.form {
                RangeForm::Last(n) => Ok(Resolved::Last(*n)),
                RangeForm::From { date, zone } => {
                    let (start, _) = self.span(date, now, zone.unwrap_or(default_zone), business)?;
                    window(Some(start), None)
                }
                RangeForm::Within { date, zone } => {
                    let (start, end) = self.span(date, now, zone.unwrap_or(default_zone), business)?;
                    window(Some(start), Some(end))
                }
                RangeForm::Between { start, end, zone } => {
                    let zone = zone.unwrap_or(default_zone);
                    let (start, _) = self.span(start, now, zone, business)?;
                    let (_, end) = self.span(end, now, zone, business)?;
                    if start >= end {
                        return Err(self.error(format!(
                            "the window from {} to {} is empty",
                            start.to_rfc3339(),
                            end.to_rfc3339()
                        )));
                    }
                    window(Some(start), Some(end))
                }
            }
        }
    }

    /// The instants a date starts and (exclusively) ends at.
    fn span(
        &self,
        date: &RangeDate,
        now: DateTime<Utc>,
        zone: Tz,
        business: Option<daterule::BusinessDays<'_>>,
    ) -> Result<(DateTime<Utc>, DateTime<Utc>), GrammarError> {
        let zone = date.zone.unwrap_or(zone);
        let out_of_range = || self.error("a date is outside the supported range");
        let (start, end) = match &date.kind {
            DateKind::Rule(rule) => {
                let instant = rule
                    .eval_with(now, &zone, business)
                    .map_err(|e| self.error(e.message))?;
                let end = TimeDelta::try_seconds(1).and_then(|s| instant.checked_add_signed(s));
                (Some(instant), end)
            }
            DateKind::Tenor(tenor) => (
                local_midnight(zone, Some(tenor.start())),
                local_midnight(zone, tenor.end().succ_opt()),
            ),
            DateKind::Literal(literal) => (
                local_instant(zone, Some(literal.start)),
                local_instant(zone, literal.end()),
            ),
        };
        start.zip(end).ok_or_else(out_of_range)
    }

    fn error(&self, reason: impl fmt::Display) -> GrammarError {
        GrammarError::invalid("range", &self.text, reason)
    }
}

fn local_instant(zone: Tz, naive: Option<NaiveDateTime>) -> Option<DateTime<Utc>> {
    daterule::localize(&zone, naive?, None).map(|t| t.with_timezone(&Utc))
}

fn local_midnight(zone: Tz, date: Option<NaiveDate>) -> Option<DateTime<Utc>> {
    local_instant(zone, date.map(|d| d.and_time(NaiveTime::MIN)))
}

impl fmt::Display for RangeExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for RangeExpr {
    type Err = GrammarError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse(text)
    }
}

fn parse_form(text: &str) -> Result<RangeForm, String> {
    let Some((name, rest)) = text.split_once('(') else {
        return Ok(RangeForm::Within {
            date: parse_date(text)?,
            zone: None,
        });
    };
    let name = name.trim().to_ascii_lowercase();
    let args = rest
        .strip_suffix(')')
        .ok_or("missing closing parenthesis")?;
    let args: Vec<&str> = args.split(',').map(str::trim).collect();
    match (name.as_str(), args.as_slice()) {
        ("last", [count]) => parse_count(count).map(RangeForm::Last),
        ("last", _) => Err("last takes one count: last(n)".into()),
        ("from", [date, zone @ ..]) if zone.len() <= 1 => Ok(RangeForm::From {
            date: parse_date(date)?,
            zone: parse_zone_arg(zone)?,
        }),
        ("from", _) => Err("expected from(date) or from(date,zone)".into()),
        ("within", [date, zone @ ..]) if zone.len() <= 1 => Ok(RangeForm::Within {
            date: parse_date(date)?,
            zone: parse_zone_arg(zone)?,
        }),
        ("within", _) => Err("expected within(date) or within(date,zone)".into()),
        ("between", [start, end, zone @ ..]) if zone.len() <= 1 => Ok(RangeForm::Between {
            start: parse_date(start)?,
            end: parse_date(end)?,
            zone: parse_zone_arg(zone)?,
        }),
        ("between", _) => Err("expected between(start,end) or between(start,end,zone)".into()),
        (other, _) => Err(format!(
            "unknown function \"{other}\"; expected last, from, between or within"
        )),
    }
}

fn parse_count(text: &str) -> Result<usize, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("count must be a non-negative integer".into());
    }
    text.parse()
        .map_err(|_| format!("count {text} is too large"))
}

fn parse_zone_arg(zone: &[&str]) -> Result<Option<Tz>, String> {
    zone.first().map(|name| parse_zone(name)).transpose()
}

fn parse_zone(name: &str) -> Result<Tz, String> {
    name.parse()
        .map_err(|_| format!("unknown time zone \"{name}\""))
}

fn parse_date(text: &str) -> Result<RangeDate, String> {
    if text.is_empty() {
        return Err("missing date".into());
    }
    let (body, zone) = match text.strip_suffix(']').and_then(|t| t.split_once('[')) {
        Some((body, zone)) => (body.trim_end(), Some(parse_zone(zone.trim())?)),
        None => (text, None),
    };
    let kind = if daterule::looks_like_rule(body) {
        DateKind::Rule(daterule::parse(body).map_err(|e| e.message)?)
    } else if looks_like_tenor(body) {
        match period::parse(body).map_err(|e| e.message)? {
            Period::Absolute(tenor) => DateKind::Tenor(tenor),
            _ => return Err(format!("\"{body}\" is not an absolute period code")),
        }
    } else {
        DateKind::Literal(
            parse_literal(body).map_err(|reason| format!("invalid date \"{body}\": {reason}"))?,
        )
    };
    Ok(RangeDate { kind, zone })
}

/// Four digits then a letter: `2024M10`, `2024Y`.
fn looks_like_tenor(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() > 4 && bytes[..4].iter().all(u8::is_ascii_digit) && bytes[4].is_ascii_alphabetic()
}

const LITERAL_FORMAT: &str = "expected YYYY[-MM[-DD[Thh[:mm[:ss]]]]], \
                              an absolute period code or a date rule";

fn parse_literal(text: &str) -> Result<DateLiteral, String> {
    let (date_text, time_text) = match text.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (text, None),
    };
    let date_parts: Vec<&str> = date_text.split('-').collect();
    let time_parts: Vec<&str> = time_text.map_or_else(Vec::new, |t| t.split(':').collect());
    if date_parts.len() > 3 || time_parts.len() > 3 || (time_text.is_some() && date_parts.len() < 3)
    {
        return Err(LITERAL_FORMAT.into());
    }
    let field = |parts: &[&str], i: usize, digits: usize, default: u32| -> Result<u32, String> {
        match parts.get(i) {
            None => Ok(default),
            Some(part) if part.len() == digits && part.bytes().all(|b| b.is_ascii_digit()) => {
                part.parse().map_err(|_| LITERAL_FORMAT.to_owned())
            }
            Some(_) => Err(LITERAL_FORMAT.into()),
        }
    };
    let year = field(&date_parts, 0, 4, 0)?;
    let month = field(&date_parts, 1, 2, 1)?;
    let day = field(&date_parts, 2, 2, 1)?;
    let hour = field(&time_parts, 0, 2, 0)?;
    let minute = field(&time_parts, 1, 2, 0)?;
    let second = field(&time_parts, 2, 2, 0)?;

    if !(1..=12).contains(&month) {
        return Err(format!("month {month:02} is out of range 01-12"));
    }
    let year = i32::try_from(year).map_err(|_| LITERAL_FORMAT.to_owned())?;
    let date = NaiveDate::from_ymd_opt(year, month, day)
        .ok_or_else(|| format!("{year:04}-{month:02}-{day:02} is not a valid date"))?;
    let time = NaiveTime::from_hms_opt(hour, minute, second)
        .ok_or_else(|| format!("{hour:02}:{minute:02}:{second:02} is not a valid time"))?;
    let precision = match (date_parts.len(), time_parts.len()) {
        (1, _) => Precision::Year,
        (2, _) => Precision::Month,
        (_, 0) => Precision::Day,
        (_, 1) => Precision::Hour,
        (_, 2) => Precision::Minute,
        _ => Precision::Second,
    };
    Ok(DateLiteral {
        start: date.and_time(time),
        precision,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .expect("test timestamp")
            .with_timezone(&Utc)
    }

    fn window(range: &str) -> (Option<DateTime<Utc>>, Option<DateTime<Utc>>) {
        let resolved = parse(range)
            .and_then(|r| r.resolve(at("2024-07-08T16:23:07Z")))
            .expect(range);
        match resolved {
            Resolved::Window { start, end } => (start, end),
            Resolved::Last(n) => panic!("{range} gave last({n})"),
        }
    }

    #[test]
    fn bare_date_is_within() {
        assert_eq!(window("2024-02"), window("within(2024-02)"));
        assert_eq!(
            window(" Within( 2024M02 , UTC ) "),
            (
                Some(at("2024-02-01T00:00:00Z")),
                Some(at("2024-03-01T00:00:00Z"))
            )
        );
    }

    #[test]
    fn zone_suffix_overrides_argument() {
        assert_eq!(
            window("between(2024-01-01[Europe/Amsterdam],2024-01-01,America/New_York)"),
            (
                Some(at("2023-12-31T23:00:00Z")),
                Some(at("2024-01-02T05:00:00Z"))
            )
        );
    }

    #[test]
    fn season_tenor_spans_the_year_end() {
        assert_eq!(
            window("within(2024S02)"),
            (
                Some(at("2024-10-01T00:00:00Z")),
                Some(at("2025-04-01T00:00:00Z"))
            )
        );
    }

    #[test]
    fn leap_day_and_year_end_literals() {
        assert_eq!(
            window("within(2024-02-29T23:59)"),
            (
                Some(at("2024-02-29T23:59:00Z")),
                Some(at("2024-03-01T00:00:00Z"))
            )
        );
        assert_eq!(
            window("within(9999)"),
            (
                Some(at("9999-01-01T00:00:00Z")),
                Utc.with_ymd_and_hms(10000, 1, 1, 0, 0, 0).single()
            )
        );
    }

    #[test]
    fn date_rule_in_a_zone() {
        assert_eq!(
            window("between(T-1Dh0m0s0,T-1Dh23m59s59,Europe/Amsterdam)"),
            (
                Some(at("2024-07-06T22:00:00Z")),
                Some(at("2024-07-07T22:00:00Z"))
            )
        );
    }

    #[test]
    fn errors_name_the_input() {
        for (bad, fragment) in [
            ("between(2024-12,2024-01)", "is empty"),
            ("within(2024-02-30)", "2024-02-30 is not a valid date"),
            (
                "from(2024-01-01,Mars/Base)",
                "unknown time zone \"Mars/Base\"",
            ),
            ("from(T-1X)", "invalid date rule \"T-1X\""),
            ("within(M01)", "invalid date \"M01\""),
            ("within(2024M13)", "invalid period code \"2024M13\""),
            ("within(2024-01-01T25)", "25:00:00 is not a valid time"),
            ("within(2024-01T05)", "expected YYYY"),
            ("last(99999999999999999999999)", "too large"),
            ("from(2024,UTC,UTC)", "expected from(date)"),
            ("upto(2024)", "unknown function \"upto\""),
        ] {
            let err = parse(bad)
                .and_then(|r| r.resolve(at("2024-07-08T16:23:07Z")))
                .expect_err(bad);
            assert!(
                err.message
                    .starts_with(&format!("invalid range \"{bad}\": ")),
                "{}",
                err.message
            );
            assert!(err.message.contains(fragment), "{}", err.message);
        }
        assert_eq!(
            parse("last(-1)").expect_err("negative").to_string(),
            "invalid range \"last(-1)\": count must be a non-negative integer"
        );
    }

    #[test]
    fn a_date_rule_that_leaves_the_supported_years_names_the_range() {
        // Found by fuzzing: the rule's own error was returned, without the `_range` it is in.
        let err = parse("between(T-22222221Y,T)")
            .and_then(|r| r.resolve(at("2024-07-08T16:23:07Z")))
            .expect_err("the rule leaves the years");
        assert!(
            err.message.starts_with(
                "invalid range \"between(T-22222221Y,T)\": invalid date rule \"T-22222221Y\": "
            ),
            "{}",
            err.message
        );
    }
}
