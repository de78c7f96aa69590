//! The calendar service's rules: holiday, expiry and block calendars, kept as versioned
//! documents (`_type` `VarCalendar`, public `#` ids and private ids, like objects).
//!
//! A calendar document holds exactly one of:
//!
//! | Field | Kind | Shape |
//! |---|---|---|
//! | `rules` | holiday calendar | `["<rule>", ...]` in the grammar of [`crate::holidays`] |
//! | `expiry` | expiry calendar | `{"holidays": "<holiday calendar id>", "businessDaysBefore": n}` or `{"calendarDaysBefore": n}` |
//! | `block` | block calendar | `{"days": ["MON", ...], "hours": [from, to], "holidays"?: "<id>"}` |
//!
//! - A holiday calendar answers `holidays` (`from`, `to`: the holidays on Monday to Friday,
//!   `[{date, name}]`) and `businessDays` (`date`, `n`: `{"date"}` n business days on, back for
//!   n < 0).
//! - An expiry calendar gives each contract of a curve whose ondate names it
//!   (`{"curveDate", "expiryCalendar": "<id>"}`) the expiry `businessDaysBefore` business days
//!   (of its holiday calendar), or `calendarDaysBefore` calendar days, before the contract's
//!   first delivery day.
//! - A block calendar is a `_block` of scaling: the hours from `hours[0]` (included) to
//!   `hours[1]` (excluded, 24 for midnight), local, on the `days` named; with `holidays`, a
//!   holiday of that calendar is off the block all day. `from > to` runs past midnight (`[23, 3]`
//!   is 23:00 to 03:00 the next morning), counted on the day it starts (its day and holiday).
//! - A series whose `calendar` names a holiday calendar (any code that is not a built-in one)
//!   has that calendar's business days as its index.
//!
//! A reference names a calendar by id: `#` public, any other id the caller's private source. A
//! calendar that does not exist, or is of another kind, is a 400 naming the reference; a rule
//! that does not parse is a 400 naming the rule and the word where it stopped; nothing is stored.
//!
//! The built-in public calendars (holiday and standard expiry calendars) are in `built_in.rs`.

mod built_in;
mod service;

pub use service::Calendars;
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use built_in::{built_in_expiry, BUILT_IN, WEEKDAYS};

use crate::auth::Principal;
use crate::error::{Error, ErrorCode, Result};
use crate::holidays::HolidayCalendar;
use crate::ids::{validate_id, Scope, Source};
use crate::json::json_kind;
use crate::query::Params;
use crate::store::{Collection, DocumentRead, StoredVersion};
use chrono::{Datelike, NaiveDate, Weekday};
use serde_json::{Map, Value};

/// `_type` of calendar documents.
pub const CALENDAR_TYPE: &str = "VarCalendar";

/// Most years a `holidays` call may span.
pub const MAX_YEARS: i32 = 200;

/// Most business days a `businessDays` call may move.
pub const MAX_MOVE: i64 = 50_000;

/// Most `businessDaysBefore` of an expiry calendar.
pub const MAX_BEFORE: u64 = 1_000;

/// An expiry calendar: contracts expire `before` business days of `holidays` before delivery
/// (calendar days without `holidays`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiryCalendar {
    /// The holiday calendar's id (`None`: `before` counts calendar days).
    pub holidays: Option<String>,
    /// Business (or calendar) days before the first delivery day.
    pub before: u32,
}

/// An expiry calendar with its holiday calendar loaded: what a curve's contracts get their
/// expiry from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiryRule {
    /// The business days counted in (`None`: calendar days).
    pub holidays: Option<HolidayCalendar>,
    /// Days before the first delivery day.
    pub before: u32,
}

impl ExpiryRule {
    /// The last trading day of a contract delivering from `first_day`.
    pub fn expiry(&self, first_day: NaiveDate) -> Result<NaiveDate> {
        match &self.holidays {
            Some(h) => h.expiry(first_day, self.before),
            None => first_day
                .checked_sub_days(chrono::Days::new(u64::from(self.before)))
                .ok_or_else(|| Error::invalid_parameter("the expiry runs past the calendar")),
        }
    }
}

/// A block calendar as stored: days, hours and an optional holiday calendar's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockCalendar {
    /// Whether each weekday (Monday first) is in the block.
    pub days: [bool; 7],
    /// The first hour in the block (local, 0..=23).
    pub from: u32,
    /// The hour the block ends before (local, 1..=24; before `from`: the next morning).
    pub to: u32,
    /// A holiday calendar whose holidays are off the block.
    pub holidays: Option<String>,
}

/// A block calendar with its holiday calendar loaded: what scaling keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockHours {
    /// The calendar's id (the answer's `block`).
    pub id: String,
    /// Days and hours.
    pub block: BlockCalendar,
    /// The holidays off the block.
    pub holidays: Option<HolidayCalendar>,
}

impl BlockHours {
    /// Whether a local date and hour are in the block.
    pub fn keeps(&self, date: NaiveDate, hour: u32) -> bool {
        let (from, to) = (self.block.from, self.block.to);
        let inside = if from < to {
            hour >= from && hour < to
        } else {
            hour >= from || hour < to
        };
        let day = self.starts_on(date, hour);
        inside
            && self.block.days[day.weekday().num_days_from_monday() as usize]
            && self
                .holidays
                .as_ref()
                .is_none_or(|h| h.holiday(day).is_none())
    }

    /// The day the block holding local `date` and `hour` started: the day before for the
    /// morning hours of a block past midnight.
    pub fn starts_on(&self, date: NaiveDate, hour: u32) -> NaiveDate {
        if self.block.from > self.block.to && hour < self.block.to {
            date.pred_opt().unwrap_or(date)
        } else {
            date
        }
    }
}

/// What a calendar document is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CalendarKind {
    /// A holiday calendar.
    Holidays(HolidayCalendar),
    /// An expiry calendar.
    Expiry(ExpiryCalendar),
    /// A block calendar.
    Block(BlockCalendar),
}

impl CalendarKind {
    fn noun(&self) -> &'static str {
        match self {
            CalendarKind::Holidays(_) => "a holiday calendar",
            CalendarKind::Expiry(_) => "an expiry calendar",
            CalendarKind::Block(_) => "a block calendar",
        }
    }
}

/// Reads what a calendar document is; every mistake is a 400 naming the field.
pub fn parse_calendar(fields: &Map<String, Value>) -> Result<CalendarKind> {
    let present: Vec<&str> = ["rules", "expiry", "block"]
        .into_iter()
        .filter(|f| fields.get(*f).is_some_and(|v| !v.is_null()))
        .collect();
    match present.as_slice() {
        ["rules"] => parse_rules(&fields["rules"]).map(CalendarKind::Holidays),
        ["expiry"] => parse_expiry(&fields["expiry"]).map(CalendarKind::Expiry),
        ["block"] => parse_block(&fields["block"]).map(CalendarKind::Block),
        [] => Err(Error::new(
            ErrorCode::MissingParameter,
            "a calendar needs rules (a holiday calendar), expiry (an expiry calendar) or block \
             (a block calendar)",
        )),
        more => Err(Error::invalid_body(format!(
            "a calendar is one kind: it has {}; keep one of rules, expiry and block",
            more.join(" and ")
        ))),
    }
}

fn parse_rules(v: &Value) -> Result<HolidayCalendar> {
    let Value::Array(items) = v else {
        return Err(Error::invalid_body(format!(
            "rules must be an array of rule strings, not {}",
            json_kind(v)
        )));
    };
    let mut rules = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::String(s) => rules.push(s.as_str()),
            other => {
                return Err(Error::invalid_body(format!(
                    "rules[{i}] must be a string, not {}",
                    json_kind(other)
                )))
            }
        }
    }
    // Parsed one by one so the error says which rule.
    for (i, rule) in rules.iter().enumerate() {
        crate::holidays::Rule::parse(rule).map_err(|e| {
            Error::new(
                ErrorCode::InvalidBody,
                format!("rules[{i}]: {}", e.public_message()),
            )
        })?;
    }
    HolidayCalendar::parse(&rules)
}

fn parse_expiry(v: &Value) -> Result<ExpiryCalendar> {
    let Value::Object(m) = v else {
        return Err(Error::invalid_body(format!(
            "expiry must be an object {{\"holidays\": id, \"businessDaysBefore\": n}} or \
             {{\"calendarDaysBefore\": n}}, not {}",
            json_kind(v)
        )));
    };
    if let Some(k) = m
        .keys()
        .find(|k| !["holidays", "businessDaysBefore", "calendarDaysBefore"].contains(&k.as_str()))
    {
        return Err(Error::invalid_body(format!(
            "expiry.{k} is not a field of an expiry calendar: use holidays and \
             businessDaysBefore, or calendarDaysBefore"
        )));
    }
    let days = |name: &str| -> Result<Option<u32>> {
        match m.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n
                .as_u64()
                .filter(|n| *n <= MAX_BEFORE)
                .map(|n| Some(n as u32))
                .ok_or_else(|| {
                    Error::invalid_body(format!(
                        "expiry.{name} {n} must be a whole number from 0 to {MAX_BEFORE}"
                    ))
                }),
            Some(other) => Err(Error::invalid_body(format!(
                "expiry.{name} must be a number, not {}",
                json_kind(other)
            ))),
        }
    };
    if let Some(before) = days("calendarDaysBefore")? {
        if let Some(k) = ["holidays", "businessDaysBefore"]
            .into_iter()
            .find(|k| m.get(*k).is_some_and(|v| !v.is_null()))
        {
            return Err(Error::invalid_body(format!(
                "expiry.calendarDaysBefore counts calendar days: leave out expiry.{k}, or send \
                 holidays and businessDaysBefore instead"
            )));
        }
        return Ok(ExpiryCalendar {
            holidays: None,
            before,
        });
    }
    let holidays = reference(m.get("holidays"), "expiry.holidays")?.ok_or_else(|| {
        Error::new(
            ErrorCode::MissingParameter,
            "expiry.holidays is missing (or send calendarDaysBefore for calendar days)",
        )
    })?;
    let before = days("businessDaysBefore")?.ok_or_else(|| {
        Error::new(
            ErrorCode::MissingParameter,
            "expiry.businessDaysBefore is missing",
        )
    })?;
    Ok(ExpiryCalendar {
        holidays: Some(holidays),
        before,
    })
}

const DAYS: [(&str, Weekday); 7] = [
    ("MON", Weekday::Mon),
    ("TUE", Weekday::Tue),
    ("WED", Weekday::Wed),
    ("THU", Weekday::Thu),
    ("FRI", Weekday::Fri),
    ("SAT", Weekday::Sat),
    ("SUN", Weekday::Sun),
];

fn parse_block(v: &Value) -> Result<BlockCalendar> {
    let Value::Object(m) = v else {
        return Err(Error::invalid_body(format!(
            "block must be an object {{\"days\": [\"MON\", ...], \"hours\": [from, to], \"holidays\"?: id}}, not {}",
            json_kind(v)
        )));
    };
    if let Some(k) = m
        .keys()
        .find(|k| !["days", "hours", "holidays"].contains(&k.as_str()))
    {
        return Err(Error::invalid_body(format!(
            "block.{k} is not a field of a block calendar: use days, hours and holidays"
        )));
    }
    let mut days = [false; 7];
    match m.get("days") {
        Some(Value::Array(items)) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                let day = item.as_str().and_then(|s| {
                    DAYS.iter()
                        .find(|(code, _)| code.eq_ignore_ascii_case(s.trim()))
                });
                let Some((_, wd)) = day else {
                    return Err(Error::invalid_body(format!(
                        "block.days[{i}] {item} is not a day: use MON, TUE, WED, THU, FRI, SAT or SUN"
                    )));
                };
                days[wd.num_days_from_monday() as usize] = true;
            }
        }
        None | Some(Value::Null) => {
            return Err(Error::new(
                ErrorCode::MissingParameter,
                "block.days is missing",
            ))
        }
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "block.days must be a non-empty array of days (MON..SUN), not {}",
                if other.is_array() {
                    "an empty array"
                } else {
                    json_kind(other)
                }
            )))
        }
    }
    let hours = match m.get("hours") {
        None | Some(Value::Null) => (0, 24),
        Some(Value::Array(pair)) if pair.len() == 2 => {
            let hour = |v: &Value| v.as_u64().filter(|h| *h <= 24).map(|h| h as u32);
            match (hour(&pair[0]), hour(&pair[1])) {
                (Some(a), Some(b)) if a < b || (a > b && a < 24 && b > 0) => (a, b),
                _ => {
                    return Err(Error::invalid_body(format!(
                        "block.hours {} must be [from, to]: whole hours with 0 <= from <= 23, \
                         1 <= to <= 24 and from != to (from > to runs past midnight)",
                        Value::Array(pair.clone())
                    )))
                }
            }
        }
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "block.hours must be [from, to] (whole hours, to excluded), not {other}"
            )))
        }
    };
    Ok(BlockCalendar {
        days,
        from: hours.0,
        to: hours.1,
        holidays: reference(m.get("holidays"), "block.holidays")?,
    })
}

/// A reference to another calendar: an id string, or absent.
fn reference(v: Option<&Value>, what: &str) -> Result<Option<String>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(id)) => {
            validate_id(id, what)?;
            Ok(Some(id.clone()))
        }
        Some(other) => Err(Error::invalid_body(format!(
            "{what} must be a calendar id, not {}",
            json_kind(other)
        ))),
    }
}

/// Checks a calendar document before it is saved: its kind and fields, and that the holiday
/// calendars it names exist.
pub(crate) fn check_calendar(
    tx: &dyn DocumentRead,
    p: &Principal,
    fields: &Map<String, Value>,
) -> Result<()> {
    if let Some(t) = fields.get("_type").and_then(Value::as_str) {
        if t != CALENDAR_TYPE {
            return Err(Error::invalid_body(format!(
                "_type \"{t}\": a calendar's _type is {CALENDAR_TYPE}"
            )));
        }
    }
    match parse_calendar(fields)? {
        CalendarKind::Holidays(_) => Ok(()),
        CalendarKind::Expiry(e) => match &e.holidays {
            Some(id) => holidays_of(tx, p, id, "expiry.holidays").map(|_| ()),
            None => Ok(()),
        },
        CalendarKind::Block(b) => match &b.holidays {
            Some(id) => holidays_of(tx, p, id, "block.holidays").map(|_| ()),
            None => Ok(()),
        },
    }
}

/// The current calendar document `id` (public for `#` ids, else the caller's private one).
fn load(tx: &dyn DocumentRead, p: &Principal, id: &str) -> Result<Option<StoredVersion>> {
    if validate_id(id, "calendar").is_err() {
        return Ok(None);
    }
    let scope = Scope::for_source(Source::of_id(id), p);
    tx.current(Collection::Calendar, &scope, id)
}

fn missing(id: &str, what: &str, kind: &str) -> Error {
    Error::invalid_parameter(format!(
        "{what} names the {kind} \"{id}\", which is not in the calendar service"
    ))
}

fn kind_of(tx: &dyn DocumentRead, p: &Principal, id: &str, what: &str) -> Result<CalendarKind> {
    let doc = load(tx, p, id)?.ok_or_else(|| missing(id, what, "calendar"))?;
    parse_calendar(&doc.body).map_err(|e| {
        Error::invalid_parameter(format!(
            "{what}: the stored calendar \"{id}\" is not usable: {}",
            e.public_message()
        ))
    })
}

/// The holiday calendar `id`, named by `what` (a 400 naming both when missing or of another
/// kind).
pub(crate) fn holidays_of(
    tx: &dyn DocumentRead,
    p: &Principal,
    id: &str,
    what: &str,
) -> Result<HolidayCalendar> {
    match kind_of(tx, p, id, what).map_err(|_| missing(id, what, "holiday calendar"))? {
        CalendarKind::Holidays(h) => Ok(h),
        other => Err(Error::invalid_parameter(format!(
            "{what} names \"{id}\", which is {}, not a holiday calendar",
            other.noun()
        ))),
    }
}

/// The expiry calendar `id` with its holiday calendar loaded.
pub(crate) fn expiry_of(
    tx: &dyn DocumentRead,
    p: &Principal,
    id: &str,
    what: &str,
) -> Result<ExpiryRule> {
    match kind_of(tx, p, id, what).map_err(|_| missing(id, what, "expiry calendar"))? {
        CalendarKind::Expiry(e) => {
            let holidays = match &e.holidays {
                Some(h) => Some(holidays_of(tx, p, h, &format!("{what} \"{id}\""))?),
                None => None,
            };
            Ok(ExpiryRule {
                holidays,
                before: e.before,
            })
        }
        other => Err(Error::invalid_parameter(format!(
            "{what} names \"{id}\", which is {}, not an expiry calendar",
            other.noun()
        ))),
    }
}

/// The block calendar `id` with its holiday calendar loaded; `codes` lists what else the
/// parameter `what` takes, for the message of an id that names no calendar.
pub(crate) fn block_of(
    tx: &dyn DocumentRead,
    p: &Principal,
    id: &str,
    what: &str,
    codes: &str,
) -> Result<BlockHours> {
    let unknown = || {
        Error::invalid_parameter(format!(
            "{what} \"{id}\": use {codes} or the id of a block calendar of the calendar service"
        ))
    };
    match kind_of(tx, p, id, what).map_err(|_| unknown())? {
        CalendarKind::Block(block) => {
            let holidays = match &block.holidays {
                Some(h) => Some(holidays_of(tx, p, h, &format!("{what} \"{id}\""))?),
                None => None,
            };
            Ok(BlockHours {
                id: id.to_string(),
                block,
                holidays,
            })
        }
        other => Err(Error::invalid_parameter(format!(
            "{what} names \"{id}\", which is {}, not a block calendar",
            other.noun()
        ))),
    }
}

fn date_param(params: &Params, name: &str) -> Result<NaiveDate> {
    let text = params.get(name).ok_or_else(|| {
        Error::new(
            ErrorCode::MissingParameter,
            format!("{name} is missing: a date YYYY-MM-DD"),
        )
    })?;
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").map_err(|_| {
        Error::invalid_parameter(format!("{name} \"{text}\" is not a date (YYYY-MM-DD)"))
    })
}

/// One holiday of a `holidays` answer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Holiday {
    /// The date.
    pub date: NaiveDate,
    /// Its name: the rule's `named` text, or the rule.
    pub name: String,
}

#[cfg(test)]
mod tests {
    use super::built_in::BUILT_IN;
    use super::*;
    use serde_json::json;

    #[test]
    fn the_built_in_calendars_carry_the_rules_of_the_vectors() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/vectors/calendars.json"
        );
        let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let vectors = file["calendars"].as_array().unwrap();
        assert_eq!(vectors.len(), BUILT_IN.len());
        for v in vectors {
            let (_, _, rules) = BUILT_IN
                .iter()
                .find(|(id, _, _)| *id == v["id"].as_str().unwrap())
                .unwrap();
            let want: Vec<&str> = v["rules"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            assert_eq!(*rules, want.as_slice());
        }
    }

    fn kind(v: Value) -> Result<CalendarKind> {
        parse_calendar(v.as_object().unwrap())
    }

    #[test]
    fn a_calendar_is_one_kind_and_each_bad_field_is_named() {
        assert!(matches!(
            kind(json!({"rules": ["Good Friday"]})),
            Ok(CalendarKind::Holidays(_))
        ));
        assert_eq!(
            kind(json!({"expiry": {"holidays": "#HENG", "businessDaysBefore": 2}})).unwrap(),
            CalendarKind::Expiry(ExpiryCalendar {
                holidays: Some("#HENG".into()),
                before: 2
            })
        );
        let block = kind(json!({"block": {"days": ["mon", "TUE"], "hours": [7, 22]}})).unwrap();
        let CalendarKind::Block(b) = block else {
            panic!("{block:?}")
        };
        assert_eq!(
            (b.days, b.from, b.to),
            ([true, true, false, false, false, false, false], 7, 22)
        );
        for (body, part) in [
            (json!({}), "needs rules"),
            (
                json!({"rules": [], "block": {"days": ["MON"]}}),
                "rules and block",
            ),
            (json!({"rules": "Good Friday"}), "rules must be an array"),
            (json!({"rules": ["Good Friday", 3]}), "rules[1]"),
            (
                json!({"rules": ["Good Friday", "32nd of May"]}),
                "rules[1]: ",
            ),
            (
                json!({"expiry": {"businessDaysBefore": 2}}),
                "expiry.holidays",
            ),
            (
                json!({"expiry": {"holidays": "#HENG"}}),
                "businessDaysBefore",
            ),
            (
                json!({"expiry": {"holidays": "#HENG", "businessDaysBefore": -1}}),
                "businessDaysBefore -1",
            ),
            (
                json!({"expiry": {"holidays": "#HENG", "businessDaysBefore": 2, "x": 1}}),
                "expiry.x",
            ),
            (
                json!({"block": {"days": ["MON"], "hours": [8, 8]}}),
                "block.hours",
            ),
            (
                json!({"block": {"days": ["MON"], "hours": [23, 0]}}),
                "block.hours",
            ),
            (json!({"block": {"days": ["MOON"]}}), "block.days[0]"),
            (json!({"block": {"days": []}}), "block.days"),
            (json!({"block": {"hours": [8, 20]}}), "block.days"),
        ] {
            let e = kind(body.clone()).unwrap_err();
            assert!(
                e.public_message().contains(part),
                "{body}: {}",
                e.public_message()
            );
            assert!(
                matches!(
                    e.code(),
                    ErrorCode::InvalidBody | ErrorCode::MissingParameter
                ),
                "{body}"
            );
        }
        let e = kind(json!({"rules": ["Good Friday", "32nd of May"]})).unwrap_err();
        assert!(e.public_message().contains("\"32nd of May\""), "{e}");
    }

    #[test]
    fn a_block_keeps_its_days_and_hours_and_not_its_holidays() {
        let hours = BlockHours {
            id: "B".into(),
            block: BlockCalendar {
                days: [true, true, true, true, true, false, false],
                from: 8,
                to: 20,
                holidays: Some("#H".into()),
            },
            holidays: Some(HolidayCalendar::parse(&["25th of December"]).unwrap()),
        };
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert!(hours.keeps(d("2024-12-24"), 8));
        assert!(hours.keeps(d("2024-12-24"), 19));
        assert!(!hours.keeps(d("2024-12-24"), 20));
        assert!(!hours.keeps(d("2024-12-24"), 7));
        assert!(!hours.keeps(d("2024-12-25"), 12));
        assert!(!hours.keeps(d("2024-12-28"), 12));
    }
}
