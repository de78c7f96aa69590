//! The date grammars: `_range`, date rules, period codes, observation time text.

use crate::input::{text, MAX_TEXT};
use chrono::{DateTime, Datelike, Days, NaiveDate, NaiveDateTime, Utc};
use chrono_tz::Tz;
use platform_core::data::timetext::{self, TimeReader, TimeText};
use platform_core::query::daterule::{self, FieldUnit, ShiftUnit};
use platform_core::query::period::{self, AbsolutePeriod, Period};
use platform_core::query::range::{self, RangeForm, Resolved};

/// The instants rules and ranges are evaluated at: an ordinary day, month and year ends, the
/// clock changes of Europe, an ISO week 53 on a weekend, and the ends of the supported years.
fn nows() -> Vec<DateTime<Utc>> {
    [
        "2024-07-08T16:23:07Z",
        "2024-02-29T23:59:59.999Z",
        "2024-03-31T01:30:00Z",
        "2024-10-27T00:30:00Z",
        "2021-01-02T12:00:00Z",
        "2023-12-31T23:00:00Z",
        "9999-12-31T23:59:59Z",
        "0000-01-01T00:00:00Z",
    ]
    .iter()
    .map(|t| {
        DateTime::parse_from_rfc3339(t)
            .expect("a fixed instant")
            .with_timezone(&Utc)
    })
    .collect()
}

/// Zones with clock changes of an hour, of half an hour, at midnight, and a skipped day.
fn zones() -> [Tz; 5] {
    [
        Tz::UTC,
        chrono_tz::Europe::Amsterdam,
        chrono_tz::America::Santiago,
        chrono_tz::Australia::Lord_Howe,
        chrono_tz::Pacific::Apia,
    ]
}

/// `_range`: parse, resolve everywhere; the window is never inverted, `from` is open-ended,
/// `between` is never empty, and a bare date means what `within(date)` means.
pub fn range(data: &[u8]) {
    let Some(text) = text(data, MAX_TEXT) else {
        return;
    };
    let named = format!("invalid range \"{text}\": ");
    let expr = match range::parse(&text) {
        Ok(expr) => expr,
        Err(e) => {
            assert!(e.message.starts_with(&named), "{}", e.message);
            return;
        }
    };
    assert_eq!(expr.to_string(), text);
    let within = (!text.contains('(')).then(|| {
        range::parse(&format!("within({text})"))
            .unwrap_or_else(|e| panic!("{text:?} parses bare but not in within(): {e}"))
    });
    for now in nows() {
        for zone in zones() {
            let resolved = expr.resolve_in(now, zone);
            if let Some(w) = &within {
                // Errors differ in the text they name; the windows must not.
                let other = w.resolve_in(now, zone);
                assert_eq!(
                    resolved.as_ref().ok(),
                    other.as_ref().ok(),
                    "{text:?} and within() differ at {now} in {zone}"
                );
            }
            let resolved = match resolved {
                Ok(r) => r,
                Err(e) => {
                    assert!(e.message.starts_with(&named), "{}", e.message);
                    continue;
                }
            };
            match (expr.form(), resolved) {
                (RangeForm::Last(n), Resolved::Last(m)) => assert_eq!(*n, m),
                (RangeForm::From { .. }, Resolved::Window { start, end }) => {
                    assert!(start.is_some() && end.is_none(), "{text:?}: {resolved:?}");
                }
                (RangeForm::Within { .. }, Resolved::Window { start, end }) => {
                    let (start, end) = start.zip(end).expect("within() is closed");
                    assert!(start <= end, "{text:?} at {now} in {zone}: {start} > {end}");
                }
                (RangeForm::Between { .. }, Resolved::Window { start, end }) => {
                    let (start, end) = start.zip(end).expect("between() is closed");
                    assert!(start < end, "{text:?} at {now} in {zone}: {start} >= {end}");
                }
                (form, r) => panic!("{text:?}: {form:?} resolved to {r:?}"),
            }
        }
    }
}

/// Date rules: parse, evaluate everywhere; `T` is now, a rule of fields only (no week) is
/// idempotent, a rule of fixed-length shifts is undone by the opposite rule, and business days
/// agree with stepping one day at a time.
pub fn daterule(data: &[u8]) {
    let Some(text) = text(data, MAX_TEXT) else {
        return;
    };
    let rule = match daterule::parse(&text) {
        Ok(rule) => rule,
        Err(e) => {
            let named = format!("invalid date rule \"{text}\": ");
            assert!(e.message.starts_with(&named), "{}", e.message);
            return;
        }
    };
    assert_eq!(rule.to_string(), text);
    let fields_only =
        rule.shifts().is_empty() && rule.fields().iter().all(|f| f.unit != FieldUnit::Week);
    let fixed_shifts = rule.fields().is_empty()
        && !rule.shifts().is_empty()
        && rule.shifts().iter().all(|s| {
            matches!(
                s.unit,
                ShiftUnit::Week
                    | ShiftUnit::Day
                    | ShiftUnit::Hour
                    | ShiftUnit::Minute
                    | ShiftUnit::Second
            )
        });
    // The same shifts backwards: `T+3D5h` -> `T-3D5h`.
    let opposite = fixed_shifts.then(|| {
        let body = text[1..].trim_start_matches(['+', '-']);
        let sign = if rule.shifts().iter().any(|s| s.amount < 0) {
            '+'
        } else {
            '-'
        };
        daterule::parse(&format!("T{sign}{body}")).expect("the opposite rule parses")
    });
    for now in nows() {
        for zone in zones() {
            let at = match rule.eval_in(now, &zone) {
                Ok(at) => at,
                Err(e) => {
                    let named = format!("invalid date rule \"{text}\": ");
                    assert!(e.message.starts_with(&named), "{}", e.message);
                    continue;
                }
            };
            if rule.shifts().is_empty() && rule.fields().is_empty() {
                assert_eq!(at, now, "{text:?}");
            }
            if zone != Tz::UTC {
                continue;
            }
            if fields_only {
                assert_eq!(rule.eval(at).ok(), Some(at), "{text:?} at {now}");
            }
            if let Some(opposite) = &opposite {
                if let Ok(back) = opposite.eval(at) {
                    assert_eq!(back, now, "{text:?} from {now} gave {at}");
                }
            }
        }
    }
    for shift in rule.shifts() {
        if shift.unit == ShiftUnit::BusinessDay && shift.amount.unsigned_abs() <= 800 {
            for now in nows() {
                let date = now.date_naive();
                assert_eq!(
                    daterule::add_business_days(date, shift.amount),
                    step_business_days(date, shift.amount),
                    "{} business days from {date}",
                    shift.amount
                );
            }
        }
    }
}

/// `n` Monday-Friday days from `date`, one calendar day at a time.
fn step_business_days(mut date: NaiveDate, n: i64) -> Option<NaiveDate> {
    use chrono::Weekday;
    for _ in 0..n.unsigned_abs() {
        loop {
            date = if n > 0 {
                date.succ_opt()?
            } else {
                date.pred_opt()?
            };
            if !matches!(date.weekday(), Weekday::Sat | Weekday::Sun) {
                break;
            }
        }
    }
    Some(date)
}

/// The ondates period codes are resolved at.
fn ondates() -> Vec<NaiveDate> {
    [
        "2024-03-01",
        "2024-02-29",
        "2024-12-31",
        "2021-01-02",
        "2020-12-28",
        "2025-03-31",
        "0000-01-01",
        "9999-12-31",
    ]
    .iter()
    .map(|d| d.parse().expect("a fixed date"))
    .collect()
}

/// Period codes: the canonical form parses back to the same period; a relative code resolves
/// to an absolute period whose relative code at the ondate is the code itself; an absolute
/// period contains its own first and last day; a balance starts the day after the ondate.
pub fn period(data: &[u8]) {
    let Some(text) = text(data, MAX_TEXT) else {
        return;
    };
    let code = match period::parse(&text) {
        Ok(code) => code,
        Err(e) => {
            let named = format!("invalid period code \"{text}\": ");
            assert!(e.message.starts_with(&named), "{}", e.message);
            return;
        }
    };
    let canonical = code.to_string();
    assert_eq!(
        period::parse(&canonical).ok(),
        Some(code),
        "{text:?} prints as {canonical:?}"
    );
    if let Period::Absolute(p) = code {
        check_absolute(&p);
    }
    for ondate in ondates() {
        let Ok(resolved) = code.resolve(ondate) else {
            continue;
        };
        let d = resolved.delivery;
        assert!(d.start <= d.end, "{text:?} at {ondate}: {d:?}");
        match code {
            Period::BalanceOf(_) => {
                assert_eq!(resolved.absolute, None);
                assert_eq!((d.expiry, Some(d.start)), (ondate, ondate.succ_opt()));
            }
            Period::Relative(rel) => {
                let abs = resolved.absolute.expect("a relative code names a period");
                assert_eq!(abs.delivery(), d);
                assert_eq!(abs.relative_at(ondate), Some(rel), "{text:?} at {ondate}");
                check_absolute(&abs);
            }
            Period::Next(day) => {
                // The next such weekday strictly after the ondate, as one day.
                let abs = resolved.absolute.expect("a next-day code names a day");
                assert_eq!(
                    (abs.delivery(), d.start),
                    (d, d.end),
                    "{text:?} at {ondate}"
                );
                let ahead = (d.start - ondate).num_days();
                assert!((1..=7).contains(&ahead), "{text:?} at {ondate}: {d:?}");
                assert_eq!(d.start.format("%a").to_string().to_uppercase(), day.code());
                check_absolute(&abs);
            }
            Period::Absolute(p) => assert_eq!(resolved.absolute, Some(p)),
        }
    }
}

fn check_absolute(p: &AbsolutePeriod) {
    let d = p.delivery();
    assert!(d.start <= d.end, "{p}: {d:?}");
    assert_eq!(Some(d.expiry), d.start.pred_opt(), "{p}");
    let printed = p.to_string();
    assert_eq!(
        period::parse(&printed).ok(),
        Some(Period::Absolute(*p)),
        "{p:?} prints as {printed:?}"
    );
    for day in [d.start, d.end] {
        assert_eq!(
            AbsolutePeriod::containing(p.unit(), day).ok(),
            Some(*p),
            "{printed} holds {day}"
        );
    }
    // Periods follow one another without a gap; weekends are five weekdays apart.
    let gap = if p.unit() == period::PeriodUnit::Weekend {
        6
    } else {
        1
    };
    if let Some(after) = d.end.checked_add_days(Days::new(gap)) {
        if let Ok(next) = AbsolutePeriod::containing(p.unit(), after) {
            assert_eq!(next.start(), after, "{printed} is followed by {next}");
        }
    }
}

/// Observation time text: a parsed time prints and parses back to itself, an instant agrees
/// with chrono's RFC 3339 reading where both read the text, and a reader of a zone never fails
/// on an instant.
pub fn timetext(data: &[u8]) {
    let Some(text) = text(data, MAX_TEXT) else {
        return;
    };
    let parsed = match timetext::parse_time_text(&text) {
        Ok(parsed) => parsed,
        Err(e) => {
            assert!(
                e.to_string().contains(&format!("\"{text}\"")),
                "{e} names {text:?}"
            );
            for zone in zones() {
                assert!(TimeReader::new(zone).read(&text).is_err());
            }
            return;
        }
    };
    let printed = match parsed {
        TimeText::Instant(ms) => {
            let at = DateTime::from_timestamp_millis(ms).expect("an instant near years 0-9999");
            if let Ok(theirs) = DateTime::parse_from_rfc3339(text.trim()) {
                if theirs.timestamp_subsec_nanos() % 1_000_000 == 0 {
                    assert_eq!(theirs.timestamp_millis(), ms, "{text:?}");
                }
            }
            // An offset can move the instant out of the four-digit years the text has.
            if !(0..=9999).contains(&at.year()) {
                return;
            }
            at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
        }
        TimeText::Local(naive) => local_text(naive),
    };
    assert_eq!(
        timetext::parse_time_text(&printed).ok(),
        Some(parsed),
        "{text:?} prints as {printed:?}"
    );
    for zone in zones() {
        let mut reader = TimeReader::new(zone);
        let first = reader.read(&text);
        let second = reader.read(&text);
        match parsed {
            TimeText::Instant(ms) => {
                assert_eq!((first.ok(), second.ok()), (Some(ms), Some(ms)), "{text:?}");
            }
            TimeText::Local(naive) => match (first, second) {
                (Ok(a), Ok(b)) => {
                    assert!(a <= b, "{text:?} in {zone}: {a} then {b}");
                    assert!(b - a <= 3 * 3_600_000, "{text:?} in {zone}: {a} then {b}");
                    let alone = timetext::local_to_utc(naive, zone).map(|t| t.timestamp_millis());
                    assert_eq!(alone, Some(a), "{text:?} in {zone}");
                }
                (Err(_), Err(_)) => {
                    assert_eq!(timetext::local_to_utc(naive, zone), None, "{text:?}");
                }
                (a, b) => panic!("{text:?} in {zone}: {a:?} then {b:?}"),
            },
        }
    }
}

fn local_text(naive: NaiveDateTime) -> String {
    naive.format("%Y-%m-%dT%H:%M:%S%.3f").to_string()
}
