//! The calendars every database carries: public holiday calendars (`#HENG`, `#HDEU`, `#TARGET`,
//! `#WEEKDAYS`) and the standard expiry calendars of curve ondates (`#REOMHENG`, `#REOMB`,
//! `#REOD`, `#RDCEM`, `#FEXPESTR`), written in the calendar service's own languages and stored
//! as public calendar documents when a platform opens a database without them.
//!
//! | Expiry calendar | A contract expires | Rule |
//! |---|---|---|
//! | `#REOMHENG` | the last England-and-Wales business day before delivery starts | `{"holidays": "#HENG", "businessDaysBefore": 1}` |
//! | `#REOMB` | the last weekday before delivery starts | `{"holidays": "#WEEKDAYS", "businessDaysBefore": 1}` |
//! | `#REOD` | day-ahead: the weekday before the delivery day | `{"holidays": "#WEEKDAYS", "businessDaysBefore": 1}` |
//! | `#RDCEM` | the last calendar day before delivery starts | `{"calendarDaysBefore": 1}` |
//! | `#FEXPESTR` | the last TARGET business day before delivery starts | `{"holidays": "#TARGET", "businessDaysBefore": 1}` |
//!
//! (`docs/decisions.md` says how the names were read.)

use super::CALENDAR_TYPE;
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{Collection, StoredVersion};
use crate::Platform;
use serde_json::{json, Value};

/// The holiday calendars of the spec's `calendars.json` that a fresh database carries.
pub const BUILT_IN: [(&str, &str, &[&str]); 3] = [
    (
        "#HENG",
        "England and Wales bank holidays",
        &[
            "1st of January on Saturday shift 2 days on Sunday shift 1 days named 'New Year'",
            "Good Friday",
            "Easter Monday",
            "first Monday in May named 'Early May'",
            "last Monday in May named 'Spring'",
            "last Monday in August named 'Summer'",
            "25th of December on Saturday shift 2 days on Sunday shift 2 days named 'Christmas'",
            "26th of December on Saturday shift 2 days on Sunday shift 2 days named 'Boxing Day'",
            "2023-05-08 named 'Coronation'",
        ],
    ),
    (
        "#HDEU",
        "Germany public holidays (nationwide)",
        &[
            "1st of January",
            "Good Friday",
            "Easter Monday",
            "1st of May",
            "Ascension Day",
            "Whit Monday",
            "3rd of October",
            "25th of December",
            "26th of December",
        ],
    ),
    (
        "#TARGET",
        "TARGET2 closing days (the euro payment system)",
        &[
            "1st of January",
            "Good Friday",
            "Easter Monday",
            "1st of May",
            "25th of December",
            "26th of December",
        ],
    ),
];

/// The holiday calendar without holidays: its business days are Monday to Friday (what
/// `#REOMB` and `#REOD` count in).
pub const WEEKDAYS: (&str, &str) = ("#WEEKDAYS", "Monday to Friday, no holidays");

/// The standard expiry calendars: id, description and the `expiry` rule of the calendar
/// service.
pub fn built_in_expiry() -> [(&'static str, &'static str, Value); 5] {
    [
        (
            "#REOMHENG",
            "Expiry on the last England-and-Wales business day before delivery starts",
            json!({"holidays": "#HENG", "businessDaysBefore": 1}),
        ),
        (
            "#REOMB",
            "Expiry on the last weekday before delivery starts",
            json!({"holidays": WEEKDAYS.0, "businessDaysBefore": 1}),
        ),
        (
            "#REOD",
            "Day-ahead expiry: the weekday before the delivery day",
            json!({"holidays": WEEKDAYS.0, "businessDaysBefore": 1}),
        ),
        (
            "#RDCEM",
            "Expiry on the last calendar day before delivery starts (end of the month before \
             a month)",
            json!({"calendarDaysBefore": 1}),
        ),
        (
            "#FEXPESTR",
            "Expiry on the last TARGET business day (the days euro short-term rates are \
             published) before delivery starts",
            json!({"holidays": "#TARGET", "businessDaysBefore": 1}),
        ),
    ]
}

/// Every built-in calendar document: id and body without its `_id` and `_type`.
fn documents() -> Vec<(&'static str, Value)> {
    let mut out: Vec<(&str, Value)> = BUILT_IN
        .iter()
        .map(|(id, description, rules)| {
            (
                *id,
                json!({"name": id.trim_start_matches('#'), "description": description,
                       "rules": rules}),
            )
        })
        .collect();
    out.push((
        WEEKDAYS.0,
        json!({"name": "WEEKDAYS", "description": WEEKDAYS.1, "rules": []}),
    ));
    for (id, description, rule) in built_in_expiry() {
        out.push((
            id,
            json!({"name": id.trim_start_matches('#'), "description": description,
                   "expiry": rule}),
        ));
    }
    out
}

impl Platform {
    /// Stores the built-in public calendars that are absent (every fresh database has them; one
    /// deleted stays deleted only until the next start).
    pub(crate) fn seed_calendars(&self) -> Result<()> {
        let scope = Scope::public();
        let coll = Collection::Calendar;
        let docs = documents();
        {
            let tx = self.read()?;
            let mut all = true;
            for (id, _) in &docs {
                all &= tx.current(coll, &scope, id)?.is_some();
            }
            if all {
                return Ok(());
            }
        }
        let now = self.now();
        self.write(|tx| {
            let holds: Vec<crate::store::Hold<'_>> = docs
                .iter()
                .map(|(id, _)| crate::store::Hold::Document(coll, &scope, id))
                .collect();
            tx.hold(&holds)?;
            for (id, fields) in &docs {
                if tx.current(coll, &scope, id)?.is_some() {
                    continue;
                }
                let mut body = serde_json::Map::new();
                body.insert("_id".into(), Value::String(id.to_string()));
                body.insert("_type".into(), Value::String(CALENDAR_TYPE.into()));
                if let Value::Object(m) = fields {
                    body.extend(m.clone());
                }
                let v = StoredVersion {
                    id: id.to_string(),
                    version: 1,
                    body,
                    timestamp: now,
                    user: "platform".into(),
                    reason: Some("built in".into()),
                    tags: Vec::new(),
                };
                tx.put_current(coll, &scope, &v, None)?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendars::{parse_calendar, CalendarKind};

    #[test]
    fn every_built_in_calendar_parses_and_names_built_in_holidays() {
        let docs = documents();
        assert_eq!(docs.len(), BUILT_IN.len() + 1 + 5);
        let holiday_ids: Vec<&str> = docs
            .iter()
            .filter(|(_, d)| d.get("rules").is_some())
            .map(|(id, _)| *id)
            .collect();
        for (id, doc) in &docs {
            match parse_calendar(doc.as_object().unwrap()).unwrap() {
                CalendarKind::Holidays(_) => {}
                CalendarKind::Expiry(e) => {
                    if let Some(h) = &e.holidays {
                        assert!(holiday_ids.contains(&h.as_str()), "{id} names {h}");
                    }
                }
                CalendarKind::Block(_) => panic!("{id} is a block calendar"),
            }
        }
    }
}
