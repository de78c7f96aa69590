//! Period (tenor) codes of curve contracts: relative codes that roll with the
//! ondate, balance-of codes, and absolute codes naming one delivery period.
//!
//! ```text
//! code     ::= relative | balance | next | absolute  -- letters are case-insensitive
//! relative ::= unit digit+                       -- M01, DA01, HY02, W00, WKD01
//! balance  ::= "BOW" | "BOM" | "BOQ" | "BOY"
//! next     ::= "SAT" | "SUN"
//! absolute ::= year ( "D" mmdd | "DA" mmdd | "WKD" nn | "W" nn | "M" nn | "Q" nn
//!                   | "S" nn | "HY" nn | "Y" )    -- 2024D0315, 2024WKD48, 2024Q2, 2024Y
//! unit     ::= "D" | "DA" | "WKD" | "W" | "M" | "Q" | "S" | "HY" | "Y"
//! year     ::= digit{4}
//! mmdd     ::= digit{4}                          -- a valid day of that year
//! nn       ::= digit{1,2}                        -- week 1-52/53, month 1-12, quarter 1-4,
//!                                                -- season 1-2, half year 1-2
//! ```
//!
//! Units: `D` a day, `DA` a day-ahead day, `WKD` a weekend (the Saturday and
//! Sunday of an ISO week, numbered by that week), `W` an ISO week
//! (Monday-Sunday, numbered within its ISO week-year), `M` a month, `Q` a
//! quarter, `S` a season (`S01` of year Y = April-September, `S02` = October of
//! Y to March of Y+1), `HY` a half year, `Y` a year.
//!
//! A relative code's index counts periods after the one holding the ondate
//! (`M00` = the ondate's month, `M01` the next); for weekends, after the weekend
//! holding the ondate or, on a weekday, the last one before it, so `WKD01` is
//! the next Saturday and Sunday. A balance-of code runs from the day after the
//! ondate to the end of the ondate's week, month, quarter or year, and has no
//! absolute code. `SAT` and `SUN` deliver the next Saturday (Sunday) after the
//! ondate; their absolute code is that day's (`2024D1130`). Delivery runs from
//! the first to the last day of the period (both inclusive) and the default
//! expiry is the day before delivery starts. Absolute codes print in one
//! canonical form (`2024Q02`, `2024DA0302`, `2024W10`, `2024WKD48`, `2024Y`), for
//! years 0000-9999.

use std::fmt;
use std::str::FromStr;

use chrono::{Datelike, NaiveDate, Weekday};

use super::grammar::GrammarError;

/// The kind of period a code names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PeriodUnit {
    /// `D`: a calendar day.
    Day,
    /// `DA`: a day-ahead day.
    DayAhead,
    /// `WKD`: a weekend, the Saturday and Sunday of an ISO week.
    Weekend,
    /// `W`: an ISO week (Monday-Sunday).
    Week,
    /// `M`: a calendar month.
    Month,
    /// `Q`: a calendar quarter.
    Quarter,
    /// `S`: a season (`S01` = April-September, `S02` = October-March).
    Season,
    /// `HY`: a half year (January-June or July-December).
    HalfYear,
    /// `Y`: a calendar year.
    Year,
}

/// Unit letters, longest first where one is a prefix of another.
const UNIT_CODES: [(&str, PeriodUnit); 9] = [
    ("DA", PeriodUnit::DayAhead),
    ("HY", PeriodUnit::HalfYear),
    ("WKD", PeriodUnit::Weekend),
    ("D", PeriodUnit::Day),
    ("W", PeriodUnit::Week),
    ("M", PeriodUnit::Month),
    ("Q", PeriodUnit::Quarter),
    ("S", PeriodUnit::Season),
    ("Y", PeriodUnit::Year),
];

impl PeriodUnit {
    /// The unit's letters in a code (`DA`, `HY`, ...).
    pub fn code(self) -> &'static str {
        match self {
            Self::Day => "D",
            Self::DayAhead => "DA",
            Self::Weekend => "WKD",
            Self::Week => "W",
            Self::Month => "M",
            Self::Quarter => "Q",
            Self::Season => "S",
            Self::HalfYear => "HY",
            Self::Year => "Y",
        }
    }

    /// Splits a leading unit off `text`.
    fn split(text: &str) -> Option<(Self, &str)> {
        UNIT_CODES
            .iter()
            .find_map(|&(code, unit)| text.strip_prefix(code).map(|rest| (unit, rest)))
    }

    /// For month-based units: (length in months, month0 of the first period
    /// of a year). Seasons start in April.
    fn month_span(self) -> Option<(i64, i64)> {
        match self {
            Self::Month => Some((1, 0)),
            Self::Quarter => Some((3, 0)),
            Self::Season => Some((6, 3)),
            Self::HalfYear => Some((6, 0)),
            Self::Year => Some((12, 0)),
            Self::Day | Self::DayAhead | Self::Weekend | Self::Week => None,
        }
    }

    /// A running number of the period holding `date`; consecutive periods
    /// have consecutive numbers.
    fn ordinal_of(self, date: NaiveDate) -> i64 {
        let days = i64::from(date.num_days_from_ce());
        match self.month_span() {
            Some((len, offset)) => {
                let months = i64::from(date.year()) * 12 + i64::from(date.month0());
                (months - offset).div_euclid(len)
            }
            // Day 1 of the common era (0001-01-01) is a Monday.
            None if self == Self::Week => (days - 1).div_euclid(7),
            // Weekends start on the Saturdays, days 6, 13, ...: a weekday counts in the
            // weekend before it.
            None if self == Self::Weekend => (days - 6).div_euclid(7),
            None => days,
        }
    }

    /// The first day of the period numbered `ordinal`.
    fn first_day(self, ordinal: i64) -> Option<NaiveDate> {
        match self.month_span() {
            Some((len, offset)) => {
                let months = ordinal.checked_mul(len)?.checked_add(offset)?;
                let year = i32::try_from(months.div_euclid(12)).ok()?;
                let month = u32::try_from(months.rem_euclid(12)).ok()? + 1;
                NaiveDate::from_ymd_opt(year, month, 1)
            }
            None => {
                let days = match self {
                    Self::Week => ordinal.checked_mul(7)?.checked_add(1)?,
                    Self::Weekend => ordinal.checked_mul(7)?.checked_add(6)?,
                    _ => ordinal,
                };
                NaiveDate::from_num_days_from_ce_opt(i32::try_from(days).ok()?)
            }
        }
    }
}

impl fmt::Display for PeriodUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// First and last delivery day (inclusive) and the default expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Delivery {
    /// The first delivery day.
    pub start: NaiveDate,
    /// The last delivery day (inclusive).
    pub end: NaiveDate,
    /// The last calendar day before delivery starts.
    pub expiry: NaiveDate,
}

impl Delivery {
    fn new(start: NaiveDate, end: NaiveDate) -> Option<Self> {
        Some(Self {
            start,
            end,
            expiry: start.pred_opt()?,
        })
    }
}

/// One concrete delivery period, such as `2024M03`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AbsolutePeriod {
    unit: PeriodUnit,
    delivery: Delivery,
}

/// Years an absolute code can name (it has four digits).
const YEARS: std::ops::RangeInclusive<i32> = 0..=9999;

impl AbsolutePeriod {
    /// The period of `unit` that holds `date`.
    pub fn containing(unit: PeriodUnit, date: NaiveDate) -> Result<Self, GrammarError> {
        Self::from_ordinal(unit, unit.ordinal_of(date)).ok_or_else(|| {
            GrammarError::new(format!(
                "the {} period holding {date} is outside the years 0000-9999",
                unit.code()
            ))
        })
    }

    fn from_ordinal(unit: PeriodUnit, ordinal: i64) -> Option<Self> {
        let start = unit.first_day(ordinal)?;
        let end = match unit {
            // A weekend is its Saturday and Sunday, not the days to the next one.
            PeriodUnit::Weekend => start.succ_opt()?,
            _ => unit.first_day(ordinal.checked_add(1)?)?.pred_opt()?,
        };
        let period = Self {
            unit,
            delivery: Delivery::new(start, end)?,
        };
        YEARS.contains(&period.label_year()).then_some(period)
    }

    fn ordinal(&self) -> i64 {
        self.unit.ordinal_of(self.delivery.start)
    }

    /// The year written in the code (the ISO week-year for weeks, the
    /// starting year for seasons).
    fn label_year(&self) -> i32 {
        match self.unit {
            PeriodUnit::Week | PeriodUnit::Weekend => self.delivery.start.iso_week().year(),
            _ => self.delivery.start.year(),
        }
    }

    /// The kind of period.
    pub fn unit(&self) -> PeriodUnit {
        self.unit
    }

    /// The delivery days and default expiry.
    pub fn delivery(&self) -> Delivery {
        self.delivery
    }

    /// First delivery day.
    pub fn start(&self) -> NaiveDate {
        self.delivery.start
    }

    /// Last delivery day (inclusive).
    pub fn end(&self) -> NaiveDate {
        self.delivery.end
    }

    /// The relative code naming this period at `ondate` (`2024M04` at
    /// 2024-03-01 is `M01`), or `None` when the period lies before the
    /// ondate's own period.
    pub fn relative_at(&self, ondate: NaiveDate) -> Option<RelativePeriod> {
        let index = self.ordinal() - self.unit.ordinal_of(ondate);
        Some(RelativePeriod {
            unit: self.unit,
            index: u32::try_from(index).ok()?,
        })
    }
}

impl fmt::Display for AbsolutePeriod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let start = self.delivery.start;
        let year = self.label_year();
        let unit = self.unit.code();
        match self.unit {
            PeriodUnit::Day | PeriodUnit::DayAhead => {
                write!(f, "{year:04}{unit}{:02}{:02}", start.month(), start.day())
            }
            PeriodUnit::Week | PeriodUnit::Weekend => {
                write!(f, "{year:04}{unit}{:02}", start.iso_week().week())
            }
            PeriodUnit::Year => write!(f, "{year:04}{unit}"),
            PeriodUnit::Month | PeriodUnit::Quarter | PeriodUnit::Season | PeriodUnit::HalfYear => {
                let (len, offset) = self.unit.month_span().unwrap_or((1, 0));
                let number = (i64::from(start.month0()) - offset) / len + 1;
                write!(f, "{year:04}{unit}{number:02}")
            }
        }
    }
}

/// A rolling code such as `M01`: the `index`-th period of `unit` after the
/// one holding the ondate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RelativePeriod {
    /// The kind of period.
    pub unit: PeriodUnit,
    /// How many periods after the one holding the ondate (0 = that one).
    pub index: u32,
}

impl RelativePeriod {
    /// The absolute period this code names at `ondate`.
    pub fn at(&self, ondate: NaiveDate) -> Result<AbsolutePeriod, GrammarError> {
        self.unit
            .ordinal_of(ondate)
            .checked_add(i64::from(self.index))
            .and_then(|ordinal| AbsolutePeriod::from_ordinal(self.unit, ordinal))
            .ok_or_else(|| {
                GrammarError::new(format!(
                    "period code \"{self}\" at ondate {ondate} is outside the years 0000-9999"
                ))
            })
    }
}

impl fmt::Display for RelativePeriod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:02}", self.unit.code(), self.index)
    }
}

/// A balance-of code: the rest of the ondate's week, month, quarter or year.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Balance {
    /// `BOW`: the rest of the ondate's week.
    Week,
    /// `BOM`: the rest of the ondate's month.
    Month,
    /// `BOQ`: the rest of the ondate's quarter.
    Quarter,
    /// `BOY`: the rest of the ondate's year.
    Year,
}

impl Balance {
    const ALL: [Self; 4] = [Self::Week, Self::Month, Self::Quarter, Self::Year];

    /// The code's text (`BOW`, `BOM`, `BOQ` or `BOY`).
    pub fn code(self) -> &'static str {
        match self {
            Self::Week => "BOW",
            Self::Month => "BOM",
            Self::Quarter => "BOQ",
            Self::Year => "BOY",
        }
    }

    fn unit(self) -> PeriodUnit {
        match self {
            Self::Week => PeriodUnit::Week,
            Self::Month => PeriodUnit::Month,
            Self::Quarter => PeriodUnit::Quarter,
            Self::Year => PeriodUnit::Year,
        }
    }

    /// Delivery from the day after `ondate` to the end of its period; an
    /// error when the ondate is the period's last day (nothing is left).
    pub fn at(&self, ondate: NaiveDate) -> Result<Delivery, GrammarError> {
        let error = |reason: &str| {
            GrammarError::new(format!(
                "period code \"{}\" at ondate {ondate}: {reason}",
                self.code()
            ))
        };
        let end = AbsolutePeriod::containing(self.unit(), ondate)
            .map_err(|e| error(&e.message))?
            .end();
        match ondate.succ_opt() {
            Some(start) if start <= end => Ok(Delivery {
                start,
                end,
                expiry: ondate,
            }),
            _ => Err(error("nothing is left of the period after the ondate")),
        }
    }
}

impl fmt::Display for Balance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A day of the week delivered on its next occurrence after the ondate: `SAT` or `SUN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NextDay {
    /// `SAT`: the next Saturday.
    Saturday,
    /// `SUN`: the next Sunday.
    Sunday,
}

impl NextDay {
    const ALL: [Self; 2] = [Self::Saturday, Self::Sunday];

    /// The code's text (`SAT` or `SUN`).
    pub fn code(self) -> &'static str {
        match self {
            Self::Saturday => "SAT",
            Self::Sunday => "SUN",
        }
    }

    /// The day delivered at `ondate`: the first such weekday after it.
    pub fn at(self, ondate: NaiveDate) -> Result<AbsolutePeriod, GrammarError> {
        let weekday = match self {
            Self::Saturday => Weekday::Sat,
            Self::Sunday => Weekday::Sun,
        };
        let ahead =
            (weekday.num_days_from_monday() + 7 - ondate.weekday().num_days_from_monday()) % 7;
        let ahead = if ahead == 0 { 7 } else { ahead };
        ondate
            .checked_add_days(chrono::Days::new(u64::from(ahead)))
            .and_then(|day| AbsolutePeriod::containing(PeriodUnit::Day, day).ok())
            .ok_or_else(|| {
                GrammarError::new(format!(
                    "period code \"{}\" at ondate {ondate} is outside the years 0000-9999",
                    self.code()
                ))
            })
    }
}

impl fmt::Display for NextDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Any period code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Period {
    /// A rolling code such as `M01`.
    Relative(RelativePeriod),
    /// A balance-of code such as `BOM`.
    BalanceOf(Balance),
    /// The next Saturday or Sunday (`SAT`, `SUN`).
    Next(NextDay),
    /// An absolute code such as `2024M03`.
    Absolute(AbsolutePeriod),
}

/// A code resolved at an ondate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResolvedPeriod {
    /// The absolute code (`None` for balance-of codes).
    pub absolute: Option<AbsolutePeriod>,
    /// The delivery days and default expiry at the ondate.
    pub delivery: Delivery,
}

impl Period {
    /// Whether the code rolls with the ondate (relative or balance-of).
    #[cfg(any(test, feature = "internals"))]
    pub fn is_relative(&self) -> bool {
        !matches!(self, Self::Absolute(_))
    }

    /// The delivery period at `ondate` (ignored for absolute codes).
    pub fn resolve(&self, ondate: NaiveDate) -> Result<ResolvedPeriod, GrammarError> {
        let absolute = match self {
            Self::Absolute(period) => *period,
            Self::Relative(relative) => relative.at(ondate)?,
            Self::Next(day) => day.at(ondate)?,
            Self::BalanceOf(balance) => {
                return Ok(ResolvedPeriod {
                    absolute: None,
                    delivery: balance.at(ondate)?,
                });
            }
        };
        Ok(ResolvedPeriod {
            absolute: Some(absolute),
            delivery: absolute.delivery(),
        })
    }
}

impl fmt::Display for Period {
    /// The canonical form of the code.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Relative(p) => p.fmt(f),
            Self::BalanceOf(b) => b.fmt(f),
            Self::Next(d) => d.fmt(f),
            Self::Absolute(p) => p.fmt(f),
        }
    }
}

impl FromStr for Period {
    type Err = GrammarError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse(text)
    }
}

/// Parses a period code (relative, balance-of or absolute).
pub fn parse(text: &str) -> Result<Period, GrammarError> {
    parse_code(&text.to_ascii_uppercase())
        .map_err(|reason| GrammarError::invalid("period code", text, reason))
}

/// The relative code of `absolute` at `ondate` (see
/// [`AbsolutePeriod::relative_at`]).
pub fn relative_code(absolute: &AbsolutePeriod, ondate: NaiveDate) -> Option<RelativePeriod> {
    absolute.relative_at(ondate)
}

const EXPECTED: &str = "expected a relative code (M01, DA01, WKD01, HY02, ...), BOW, BOM, BOQ, \
                        BOY, SAT, SUN or an absolute code (2024M03, 2024Q02, 2024D0315, \
                        2024WKD48, 2024Y, ...)";

fn parse_code(code: &str) -> Result<Period, String> {
    if let Some(balance) = Balance::ALL.into_iter().find(|b| b.code() == code) {
        return Ok(Period::BalanceOf(balance));
    }
    if let Some(day) = NextDay::ALL.into_iter().find(|d| d.code() == code) {
        return Ok(Period::Next(day));
    }
    match code.get(..4) {
        Some(year) if year.bytes().all(|b| b.is_ascii_digit()) => {
            parse_absolute(year, &code[4..]).map(Period::Absolute)
        }
        _ => parse_relative(code).map(Period::Relative),
    }
}

fn parse_relative(code: &str) -> Result<RelativePeriod, String> {
    let (unit, index) = PeriodUnit::split(code).ok_or(EXPECTED)?;
    if index.is_empty() {
        return Err(format!("{unit} needs an index such as {unit}01"));
    }
    if !index.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "index \"{index}\" after {unit} must be a non-negative number"
        ));
    }
    let index = index
        .parse()
        .map_err(|_| format!("index {index} is too large"))?;
    Ok(RelativePeriod { unit, index })
}

fn parse_absolute(year_digits: &str, rest: &str) -> Result<AbsolutePeriod, String> {
    let year: i32 = year_digits
        .parse()
        .map_err(|_| format!("bad year {year_digits}"))?;
    let (unit, arg) = PeriodUnit::split(rest).ok_or(EXPECTED)?;
    let day_in_period = match unit {
        PeriodUnit::Year if arg.is_empty() => NaiveDate::from_ymd_opt(year, 1, 1),
        PeriodUnit::Year => return Err(format!("unexpected \"{arg}\" after {year_digits}Y")),
        PeriodUnit::Day | PeriodUnit::DayAhead => {
            if arg.len() != 4 || !arg.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("{unit} must be followed by MMDD, not \"{arg}\""));
            }
            let (month, day) = (number(&arg[..2])?, number(&arg[2..])?);
            Some(
                NaiveDate::from_ymd_opt(year, month, day)
                    .ok_or_else(|| format!("{year_digits}-{month:02}-{day:02} is not a date"))?,
            )
        }
        PeriodUnit::Week | PeriodUnit::Weekend => {
            let week = small_number(unit, arg)?;
            let day = if unit == PeriodUnit::Week {
                Weekday::Mon
            } else {
                Weekday::Sat
            };
            Some(
                NaiveDate::from_isoywd_opt(year, week, day)
                    .ok_or_else(|| format!("ISO year {year_digits} has no week {week}"))?,
            )
        }
        PeriodUnit::Month | PeriodUnit::Quarter | PeriodUnit::Season | PeriodUnit::HalfYear => {
            let n = small_number(unit, arg)?;
            let (len, offset) = unit.month_span().unwrap_or((1, 0));
            let count = 12 / len;
            if !(1..=count).contains(&i64::from(n)) {
                return Err(format!(
                    "{unit}{arg} is out of range {unit}01-{unit}{count:02}"
                ));
            }
            let month0 = offset + (i64::from(n) - 1) * len;
            u32::try_from(month0 + 1)
                .ok()
                .and_then(|month| NaiveDate::from_ymd_opt(year, month, 1))
        }
    };
    day_in_period
        .and_then(|date| AbsolutePeriod::from_ordinal(unit, unit.ordinal_of(date)))
        .ok_or_else(|| "outside the years 0000-9999".to_owned())
}

/// One or two digits after a unit letter.
fn small_number(unit: PeriodUnit, digits: &str) -> Result<u32, String> {
    if digits.is_empty() || digits.len() > 2 {
        return Err(format!(
            "{unit} must be followed by one or two digits, not \"{digits}\""
        ));
    }
    number(digits)
}

fn number(digits: &str) -> Result<u32, String> {
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        digits
            .parse()
            .map_err(|_| format!("\"{digits}\" is not a number"))
    } else {
        Err(format!("\"{digits}\" is not a number"))
    }
}

#[cfg(test)]
mod tests;
