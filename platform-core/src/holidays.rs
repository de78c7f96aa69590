//! Holiday calendars: rules that name the holidays of each year, business days, and the expiry
//! of contracts counted in business days.
//!
//! ```text
//! rule     := weekly | fixed | nth | easter | oneoff          ; blanks between words, any case
//! weekly   := "Every" dow                                     ; every such day is off
//! fixed    := ordinal "of" month shift* name?                 ; 25th of December
//! shift    := "on" dow "shift" int "days"                     ; moved when it falls on that day
//! nth      := ("first"|"second"|"third"|"fourth"|"last") dow "in" month name?
//! easter   := ("Good Friday"|"Easter Monday"|"Ascension Day"|"Whit Monday") name?
//! oneoff   := yyyy-mm-dd name?
//! name     := "named" "'" text "'"
//! ```
//!
//! A business day is a Monday to Friday that is not a holiday. [`HolidayCalendar::holidays`]
//! lists the holidays that fall on business days of the week (a weekend is never a business
//! day anyway), each with its name: the rule's `named` text, or the rule without its options.

use crate::error::{Error, Result};
use chrono::{Datelike, Days, NaiveDate, Weekday};

/// A rule of a holiday calendar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    kind: Kind,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Every(Weekday),
    Fixed {
        month: u32,
        day: u32,
        shifts: Vec<(Weekday, i64)>,
    },
    Nth {
        nth: Nth,
        weekday: Weekday,
        month: u32,
    },
    /// Days after Easter Sunday.
    Easter(i64),
    Once(NaiveDate),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nth {
    From(u32),
    Last,
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word.to_ascii_lowercase().as_str() {
        "monday" => Weekday::Mon,
        "tuesday" => Weekday::Tue,
        "wednesday" => Weekday::Wed,
        "thursday" => Weekday::Thu,
        "friday" => Weekday::Fri,
        "saturday" => Weekday::Sat,
        "sunday" => Weekday::Sun,
        _ => return None,
    })
}

fn month(word: &str) -> Option<u32> {
    let lower = word.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|m| *m == lower)
        .map(|i| i as u32 + 1)
}

/// `1st`, `2nd`, `3rd`, `25th`...: the day number.
fn ordinal(word: &str) -> Option<u32> {
    let lower = word.to_ascii_lowercase();
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| lower.strip_suffix(s))?;
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

impl Rule {
    /// Parses a rule; the error names the rule and the word where it stopped.
    pub fn parse(text: &str) -> Result<Rule> {
        let bad = |why: &str| Error::invalid_parameter(format!("holiday rule \"{text}\": {why}"));
        // The name first: it may hold any words.
        let (body, name) = match text.find(" named ") {
            Some(at) => {
                let quoted = text[at + 7..].trim();
                let name = quoted
                    .strip_prefix('\'')
                    .and_then(|q| q.strip_suffix('\''))
                    .filter(|n| !n.is_empty() && !n.contains('\''))
                    .ok_or_else(|| {
                        bad("named takes a text in single quotes, e.g. named 'Christmas'")
                    })?;
                (&text[..at], Some(name.to_string()))
            }
            None => (text, None),
        };
        let words: Vec<&str> = body.split_whitespace().collect();
        let word = |i: usize| words.get(i).copied().unwrap_or("");
        let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
        let kind = match lower.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            [] => return Err(bad("empty")),
            ["every", day] => Kind::Every(
                weekday(day).ok_or_else(|| bad(&format!("\"{}\" is not a day of the week", word(1))))?,
            ),
            ["good", "friday"] => Kind::Easter(-2),
            ["easter", "monday"] => Kind::Easter(1),
            ["ascension", "day"] => Kind::Easter(39),
            ["whit", "monday"] => Kind::Easter(50),
            [nth @ ("first" | "second" | "third" | "fourth" | "last"), day, "in", m] => Kind::Nth {
                nth: match *nth {
                    "first" => Nth::From(1),
                    "second" => Nth::From(2),
                    "third" => Nth::From(3),
                    "fourth" => Nth::From(4),
                    _ => Nth::Last,
                },
                weekday: weekday(day)
                    .ok_or_else(|| bad(&format!("\"{}\" is not a day of the week", word(1))))?,
                month: month(m).ok_or_else(|| bad(&format!("\"{}\" is not a month", word(3))))?,
            },
            [one] if one.len() == 10 && one.as_bytes()[4] == b'-' => Kind::Once(
                NaiveDate::parse_from_str(one, "%Y-%m-%d")
                    .map_err(|_| bad(&format!("\"{one}\" is not a date")))?,
            ),
            [day, "of", m, rest @ ..] => {
                let day = ordinal(day)
                    .ok_or_else(|| bad(&format!("\"{}\" is not a day like 1st or 25th", word(0))))?;
                let month =
                    month(m).ok_or_else(|| bad(&format!("\"{}\" is not a month", word(2))))?;
                if NaiveDate::from_ymd_opt(2024, month, day).is_none() {
                    return Err(bad(&format!("{} has no day {day}", word(2))));
                }
                let mut shifts = Vec::new();
                let mut rest = rest;
                while !rest.is_empty() {
                    match rest {
                        ["on", d, "shift", n, "days" | "day", tail @ ..] => {
                            let at = words.len() - rest.len();
                            let d = weekday(d).ok_or_else(|| {
                                bad(&format!("\"{}\" is not a day of the week", word(at + 1)))
                            })?;
                            let n: i64 = n
                                .parse()
                                .ok()
                                .filter(|n: &i64| n.abs() <= 31)
                                .ok_or_else(|| {
                                    bad(&format!("\"{}\" is not a shift of -31 to 31 days", word(at + 3)))
                                })?;
                            shifts.push((d, n));
                            rest = tail;
                        }
                        _ => {
                            let at = words.len() - rest.len();
                            return Err(bad(&format!(
                                "expected \"on <day> shift <n> days\" at \"{}\"",
                                words[at..].join(" ")
                            )));
                        }
                    }
                }
                Kind::Fixed { month, day, shifts }
            }
            _ => {
                return Err(bad(
                    "not a rule: use Every <day>, <n>th of <month> [on <day> shift <n> days], \
                     first|second|third|fourth|last <day> in <month>, Good Friday, Easter Monday, \
                     Ascension Day, Whit Monday or yyyy-mm-dd, each with an optional named '<text>'",
                ))
            }
        };
        // The default name: the rule without its options.
        let name = name.unwrap_or_else(|| match &kind {
            Kind::Fixed { .. } => words.iter().take(3).copied().collect::<Vec<_>>().join(" "),
            _ => words.join(" "),
        });
        Ok(Rule { kind, name })
    }

    /// The holiday this rule makes in `year` (none for a weekly rule, a one-off of another year,
    /// or a date a shift moves out of range).
    fn date_in(&self, year: i32) -> Option<NaiveDate> {
        match &self.kind {
            Kind::Every(_) => None,
            Kind::Fixed { month, day, shifts } => {
                let date = NaiveDate::from_ymd_opt(year, *month, *day)?;
                match shifts.iter().find(|(d, _)| *d == date.weekday()) {
                    Some((_, n)) => shift(date, *n),
                    None => Some(date),
                }
            }
            Kind::Nth {
                nth,
                weekday,
                month,
            } => match nth {
                Nth::From(n) => {
                    NaiveDate::from_weekday_of_month_opt(year, *month, *weekday, *n as u8)
                }
                Nth::Last => {
                    let next = if *month == 12 {
                        NaiveDate::from_ymd_opt(year + 1, 1, 1)
                    } else {
                        NaiveDate::from_ymd_opt(year, month + 1, 1)
                    }?;
                    let mut d = next.pred_opt()?;
                    while d.weekday() != *weekday {
                        d = d.pred_opt()?;
                    }
                    Some(d)
                }
            },
            Kind::Easter(days) => shift(easter(year)?, *days),
            Kind::Once(d) => (d.year() == year).then_some(*d),
        }
    }
}

fn shift(date: NaiveDate, days: i64) -> Option<NaiveDate> {
    if days >= 0 {
        date.checked_add_days(Days::new(days as u64))
    } else {
        date.checked_sub_days(Days::new(days.unsigned_abs()))
    }
}

/// Easter Sunday of a Gregorian year (the anonymous Gregorian computus).
pub fn easter(year: i32) -> Option<NaiveDate> {
    let a = year.rem_euclid(19);
    let b = year.div_euclid(100);
    let c = year.rem_euclid(100);
    let d = b / 4;
    let e = b % 4;
    let f = (b + 8) / 25;
    let g = (b - f + 1) / 3;
    let h = (19 * a + b - d - g + 15).rem_euclid(30);
    let i = c / 4;
    let k = c % 4;
    let l = (32 + 2 * e + 2 * i - h - k).rem_euclid(7);
    let m = (a + 11 * h + 22 * l) / 451;
    let month = (h + l - 7 * m + 114) / 31;
    let day = (h + l - 7 * m + 114) % 31 + 1;
    NaiveDate::from_ymd_opt(year, month as u32, day as u32)
}

/// Most business days a move may cross (a guard against a calendar with no business day).
const MAX_STEPS: u32 = 100_000;

/// A holiday calendar: its rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HolidayCalendar {
    rules: Vec<Rule>,
}

impl HolidayCalendar {
    /// A calendar of these rules; the first that does not parse is the error.
    pub fn parse<S: AsRef<str>>(rules: &[S]) -> Result<HolidayCalendar> {
        Ok(HolidayCalendar {
            rules: rules
                .iter()
                .map(|r| Rule::parse(r.as_ref()))
                .collect::<Result<_>>()?,
        })
    }

    /// Whether `date` is off: a weekend, a weekly rule's day, or a holiday.
    pub fn is_off(&self, date: NaiveDate) -> bool {
        matches!(date.weekday(), Weekday::Sat | Weekday::Sun) || self.holiday(date).is_some()
    }

    /// The name of the holiday on `date`, if the rules make one.
    pub fn holiday(&self, date: NaiveDate) -> Option<&str> {
        self.rules.iter().find_map(|r| match r.kind {
            Kind::Every(d) => (d == date.weekday()).then_some(r.name.as_str()),
            _ => (r.date_in(date.year()) == Some(date)).then_some(r.name.as_str()),
        })
    }

    /// The holidays from `from` to `to` (both included) that fall on Monday to Friday, in date
    /// order, each once with the name of the first rule that makes it.
    pub fn holidays(&self, from: NaiveDate, to: NaiveDate) -> Vec<(NaiveDate, String)> {
        let mut out: Vec<(NaiveDate, String)> = Vec::new();
        for year in from.year()..=to.year() {
            for rule in &self.rules {
                let dates: Vec<NaiveDate> = match rule.kind {
                    Kind::Every(d) => {
                        let start = NaiveDate::from_ymd_opt(year, 1, 1)
                            .unwrap_or(from)
                            .max(from);
                        let end = NaiveDate::from_ymd_opt(year, 12, 31).unwrap_or(to).min(to);
                        start
                            .iter_days()
                            .take_while(|x| *x <= end)
                            .filter(|x| x.weekday() == d)
                            .collect()
                    }
                    _ => rule.date_in(year).into_iter().collect(),
                };
                for date in dates {
                    let weekday = !matches!(date.weekday(), Weekday::Sat | Weekday::Sun);
                    if weekday && date >= from && date <= to && !out.iter().any(|(d, _)| *d == date)
                    {
                        out.push((date, rule.name.clone()));
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// The date `n` business days from `date` (back when `n` < 0; `date` itself for 0).
    pub fn add_business_days(&self, date: NaiveDate, n: i64) -> Result<NaiveDate> {
        let mut d = date;
        let mut left = n.unsigned_abs();
        let mut steps = 0u32;
        while left > 0 {
            d = if n > 0 { d.succ_opt() } else { d.pred_opt() }
                .ok_or_else(|| Error::invalid_parameter("business days run past the calendar"))?;
            steps += 1;
            if steps > MAX_STEPS {
                return Err(Error::invalid_parameter(
                    "the calendar has no business day within 100,000 days",
                ));
            }
            if !self.is_off(d) {
                left -= 1;
            }
        }
        Ok(d)
    }

    /// The last trading day of a contract delivering from `first_day`: `before` business days
    /// before it.
    pub fn expiry(&self, first_day: NaiveDate, before: u32) -> Result<NaiveDate> {
        self.add_business_days(first_day, -i64::from(before))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn vectors(name: &str) -> Value {
        let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/spec/vectors/");
        let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/vectors/");
        let dir = if std::path::Path::new(shared).is_dir() {
            shared
        } else {
            copy
        };
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}{name}")).unwrap()).unwrap()
    }

    fn date(v: &Value) -> NaiveDate {
        NaiveDate::parse_from_str(v.as_str().unwrap(), "%Y-%m-%d").unwrap()
    }

    fn calendars() -> Vec<(String, HolidayCalendar, Value)> {
        let file = vectors("calendars.json");
        file["calendars"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let rules: Vec<&str> = c["rules"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_str().unwrap())
                    .collect();
                (
                    c["id"].as_str().unwrap().to_string(),
                    HolidayCalendar::parse(&rules).unwrap(),
                    c.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn the_calendar_vectors_give_their_holidays_and_business_days() {
        let all = calendars();
        assert_eq!(all.len(), 3);
        for (id, cal, case) in &all {
            let years = case["years"].as_array().unwrap();
            let (from, to) = (years[0].as_i64().unwrap(), years[1].as_i64().unwrap());
            let got: Vec<NaiveDate> = cal
                .holidays(
                    NaiveDate::from_ymd_opt(from as i32, 1, 1).unwrap(),
                    NaiveDate::from_ymd_opt(to as i32, 12, 31).unwrap(),
                )
                .into_iter()
                .map(|(d, _)| d)
                .collect();
            let want: Vec<NaiveDate> = case["holidays"]
                .as_array()
                .unwrap()
                .iter()
                .map(date)
                .collect();
            assert_eq!(got, want, "{id}");
        }
        let file = vectors("calendars.json");
        let business = file["business"].as_array().unwrap();
        assert!(!business.is_empty());
        for case in business {
            let (_, cal, _) = all
                .iter()
                .find(|(id, _, _)| id == case["calendar"].as_str().unwrap())
                .unwrap();
            let got = cal
                .add_business_days(date(&case["date"]), case["n"].as_i64().unwrap())
                .unwrap();
            assert_eq!(got, date(&case["result"]), "{case}");
        }
    }

    #[test]
    fn the_expiry_vectors_give_their_last_trading_days() {
        let all = calendars();
        let file = vectors("expiry.json");
        let cases = file["cases"].as_array().unwrap();
        assert!(cases.len() > 10);
        for case in cases {
            let (_, cal, _) = all
                .iter()
                .find(|(id, _, _)| id == case["calendar"].as_str().unwrap())
                .unwrap();
            let delivery = case["delivery"].as_str().unwrap();
            let first = NaiveDate::parse_from_str(
                &format!("{}-01", delivery.replace('M', "-")),
                "%Y-%m-%d",
            )
            .unwrap();
            let got = cal
                .expiry(first, case["before"].as_u64().unwrap() as u32)
                .unwrap();
            assert_eq!(got, date(&case["expiry"]), "{case}");
        }
    }

    #[test]
    fn names_come_from_named_or_the_rule() {
        let cal = HolidayCalendar::parse(&[
            "25th of December on Saturday shift 2 days named 'Christmas'",
            "Good Friday",
            "1st of May",
        ])
        .unwrap();
        let list = cal.holidays(
            NaiveDate::from_ymd_opt(2024, 1, 1).unwrap(),
            NaiveDate::from_ymd_opt(2024, 12, 31).unwrap(),
        );
        let names: Vec<&str> = list.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(names, ["Good Friday", "1st of May", "Christmas"]);
        assert_eq!(easter(2024), NaiveDate::from_ymd_opt(2024, 3, 31));
        assert_eq!(easter(2025), NaiveDate::from_ymd_opt(2025, 4, 20));
    }

    #[test]
    fn a_rule_that_does_not_parse_is_named_with_where_it_stopped() {
        for (rule, part) in [
            ("32nd of May", "\"32nd\""),
            ("1st of Smarch", "\"Smarch\""),
            ("30th of February", "no day 30"),
            ("1st of May on Caturday shift 1 days", "\"Caturday\""),
            ("1st of May on Sunday shift x days", "\"x\""),
            ("1st of May and then", "at \"and then\""),
            ("fifth Monday in May", "not a rule"),
            ("Every Funday", "\"Funday\""),
            ("2024-02-30", "\"2024-02-30\""),
            ("Good Friday named Easter", "single quotes"),
            ("", "empty"),
        ] {
            let e = Rule::parse(rule).unwrap_err().to_string();
            assert!(
                e.contains(&format!("\"{rule}\"")) && e.contains(part),
                "{rule}: {e}"
            );
        }
    }

    #[test]
    fn weekly_rules_take_every_such_day_off() {
        let cal = HolidayCalendar::parse(&["Every Friday"]).unwrap();
        let thu = NaiveDate::from_ymd_opt(2024, 5, 2).unwrap();
        assert_eq!(
            cal.add_business_days(thu, 1).unwrap(),
            NaiveDate::from_ymd_opt(2024, 5, 6).unwrap()
        );
        assert_eq!(
            cal.holidays(thu, NaiveDate::from_ymd_opt(2024, 5, 10).unwrap())
                .len(),
            2
        );
    }
}
