//! Data attached to objects: time series and forward curves.
//!
//! A data property is a top-level field of an object whose value has `_type` `VarTimeSeries` or
//! `VarCurve`. Saving the object writes its data, deleting or rolling back a version of the object
//! deletes or rolls back the data written by it: data rows carry the object versions they are
//! visible at. The object keeps the property's header (its metadata: calendar, time zone, units,
//! currency, properties, `_access`...) and merges it like any object field; the observations (a
//! series' `data`) and the contracts of each ondate (a curve's `contracts`) live in their own
//! storage, built for range reads.
//!
//! Data ids: `OBJ:PROP` for a series (or the newest curve, or with `_range` the curves of a
//! range), `OBJ:PROP:ONDATE` for one curve.

pub(crate) mod answer;
pub mod bytes;
pub mod calendar;
pub mod codec;
pub mod continuation;
mod continuation_adjust;
mod continuation_series;
pub mod conversion;
pub mod curve;
pub mod efa;
pub mod import;
mod payloads;
pub mod read;
mod read_curve;
mod read_item;
mod read_list;
mod read_query;
mod read_zone;
pub mod scale;
pub mod series;
mod service;
pub mod settlement;
pub mod shape;
pub mod time_writer;
pub mod timetext;
pub mod value_type;
pub mod write;
pub mod zone;

// The observation model lives below the data service (formats and validation share it); the
// data service's callers find it here as they always have.
pub use crate::observations::{columns, model};

// What kind of data a property holds is the documents' vocabulary (they render and save data
// properties apart); the data service's callers find it here too.
pub use crate::documents::{DataKind, CURVE_TYPE, SERIES_TYPE};
pub(crate) use payloads::{note_replaced_curves, stored_values, write_payloads, DataChange};
pub use service::Data;

use crate::error::{Error, ErrorCode, Result};
use crate::json::json_kind;
use crate::observations::columns::Columns;
use crate::observations::model::{Point, PointValue, Status};
use calendar::{parse_zone, Calendar};
use serde_json::{Map, Value};
use series::{OnDuplicate, PayloadNames};
use timetext::TimeReader;

/// Fields of a data property computed by the platform; ignored when sent.
pub const DATA_SYSTEM_FIELDS: [&str; 10] = [
    "_objid",
    "_dataid",
    "_objtype",
    "_oid",
    "_timestamp",
    "_user",
    "_tag",
    "_version",
    "_links",
    "_id",
];

/// The data part of a sent data property, separated from its header.
#[derive(Debug, Clone, PartialEq)]
pub enum DataPayload {
    /// Observations of a series (`data`), not yet parsed (they need the merged header).
    Series(Option<Value>),
    /// The curve of one ondate (`ondate`, `contracts`), if sent.
    Curve(Option<Map<String, Value>>),
    /// Observations already parsed (from a typed API or a file import), as columns, and
    /// whether they replace the stored ones.
    Columns(Columns, bool),
    /// The curves of several ondates (`{ondate, contracts}` each, from a typed API or a file
    /// import), written at one object version.
    Curves(Vec<Map<String, Value>>),
}

/// Splits a sent data property into its header (kept on the object) and its payload.
pub fn split_property(
    name: &str,
    value: Map<String, Value>,
) -> Result<(Map<String, Value>, DataPayload)> {
    let mut header = value;
    for f in DATA_SYSTEM_FIELDS {
        header.shift_remove(f);
    }
    match DataKind::of_header(&header) {
        Some(DataKind::Series) => {
            let data = header.shift_remove("data");
            if let Some(d) = &data {
                if !d.is_array() && !d.is_null() {
                    return Err(Error::invalid_body(format!(
                        "{name}.data must be an array, not {}",
                        json_kind(d)
                    )));
                }
            }
            Ok((header, DataPayload::Series(data)))
        }
        Some(DataKind::Curve) => {
            let contracts = header.shift_remove("contracts");
            let ondate = header.shift_remove("ondate");
            let curve = match (ondate, contracts) {
                (None, None) => None,
                (ondate, contracts) => {
                    let mut m = Map::new();
                    if let Some(o) = ondate {
                        m.insert("ondate".into(), o);
                    }
                    if let Some(c) = contracts {
                        m.insert("contracts".into(), c);
                    }
                    Some(m)
                }
            };
            Ok((header, DataPayload::Curve(curve)))
        }
        None => Err(Error::Internal(format!("{name} is not a data property"))),
    }
}

/// Whether a series `calendar` code names a holiday calendar of the calendar service (any code
/// that is not a built-in one, in the shape of an id): such a series is dated on the business
/// days of that calendar.
pub fn names_holiday_calendar(code: &str) -> bool {
    Calendar::parse(Some(code)).is_err() && crate::ids::validate_id(code, "calendar").is_ok()
}

/// The holiday and expiry calendars the data of a save names, loaded before its writes.
#[derive(Debug, Default)]
pub(crate) struct CalendarRefs {
    /// Holiday calendars of series (`calendar`), by id.
    pub holidays: std::collections::HashMap<String, crate::holidays::HolidayCalendar>,
    /// Expiry calendars of curve ondates (`expiryCalendar`), by id: their holidays and days
    /// before delivery.
    pub expiry: std::collections::HashMap<String, crate::calendars::ExpiryRule>,
}

impl CalendarRefs {
    /// Loads the calendars the payloads of a save name; a missing one is a 400 naming it.
    pub(crate) fn load(
        tx: &dyn crate::store::DocumentRead,
        p: &crate::auth::Principal,
        body: &Map<String, Value>,
        payloads: &[(String, DataPayload)],
    ) -> Result<CalendarRefs> {
        let mut refs = CalendarRefs::default();
        for (name, payload) in payloads {
            let header = body.get(name).and_then(Value::as_object);
            match payload {
                DataPayload::Series(_) | DataPayload::Columns(..) => {
                    let code = header
                        .and_then(|h| h.get("calendar"))
                        .and_then(Value::as_str);
                    if let Some(code) = code.filter(|c| names_holiday_calendar(c)) {
                        if !refs.holidays.contains_key(code) {
                            let what = format!("{name}.calendar");
                            let cal = crate::calendars::holidays_of(tx, p, code, &what)
                                .map_err(|e| unknown_code(&what, code, e))?;
                            refs.holidays.insert(code.to_string(), cal);
                        }
                    }
                }
                DataPayload::Curve(sent) => {
                    // The header's calendar (every ondate's that names none), checked even
                    // when only the header is saved.
                    refs.load_expiry(tx, p, &format!("{name}.expiryCalendar"), header)?;
                    if let Some(sent) = sent {
                        refs.load_ondate_expiry(tx, p, name, sent)?;
                    }
                }
                DataPayload::Curves(curves) => {
                    refs.load_expiry(tx, p, &format!("{name}.expiryCalendar"), header)?;
                    for sent in curves {
                        refs.load_ondate_expiry(tx, p, name, sent)?;
                    }
                }
            }
        }
        Ok(refs)
    }

    /// Loads the expiry calendar a curve's ondate names, if it names one.
    fn load_ondate_expiry(
        &mut self,
        tx: &dyn crate::store::DocumentRead,
        p: &crate::auth::Principal,
        name: &str,
        sent: &Map<String, Value>,
    ) -> Result<()> {
        let Some(Value::Object(ondate)) = sent.get("ondate") else {
            return Ok(());
        };
        let what = format!("{name}.ondate.expiryCalendar");
        self.load_expiry(tx, p, &what, Some(ondate))
    }

    /// Loads the expiry calendar `fields` name (`expiryCalendar`), which `what` calls it.
    fn load_expiry(
        &mut self,
        tx: &dyn crate::store::DocumentRead,
        p: &crate::auth::Principal,
        what: &str,
        fields: Option<&Map<String, Value>>,
    ) -> Result<()> {
        match fields.and_then(|f| f.get(curve::EXPIRY_CALENDAR)) {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(id)) => {
                if !self.expiry.contains_key(id) {
                    let cal = crate::calendars::expiry_of(tx, p, id, what)?;
                    self.expiry.insert(id.clone(), cal);
                }
                Ok(())
            }
            Some(other) => Err(Error::invalid_body(format!(
                "{what} must be a calendar id, not {}",
                json_kind(other)
            ))),
        }
    }
}

fn unknown_code(what: &str, code: &str, e: Error) -> Error {
    match e {
        Error::User { code: c, message } => Error::User {
            code: c,
            message: format!(
                "{message}; {what} \"{code}\" is not a calendar code either (DAILY, BUSINESS, \
                 WEEKLY, MONTHLY, QUARTERLY, YEARLY, HOURLY, HALFHOURLY, QUARTERHOURLY, EFA, \
                 EFADAY, SPARSE, #PT<n>H|M|S)"
            ),
        },
        other => other,
    }
}

/// The calendar, time zone and their codes of a series header. A `calendar` naming a holiday
/// calendar is `Calendar::Business` here (the holidays are checked where data is written).
pub fn series_settings(
    name: &str,
    header: &Map<String, Value>,
) -> Result<(Calendar, chrono_tz::Tz, String)> {
    let text = |f: &str| -> Result<Option<&str>> {
        match header.get(f) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(Error::invalid_body(format!(
                "{name}.{f} must be a string, not {}",
                json_kind(other)
            ))),
        }
    };
    let code = text("calendar")?;
    let calendar = match code {
        Some(c) if names_holiday_calendar(c) => Calendar::Business,
        _ => Calendar::parse(code).map_err(|e| prefix(name, e))?,
    };
    let tz = parse_zone(text("timezone")?).map_err(|e| prefix(name, e))?;
    Ok((calendar, tz, code.unwrap_or("SPARSE").to_string()))
}

pub(crate) fn prefix(name: &str, e: Error) -> Error {
    match e {
        Error::User { code, message } => Error::User {
            code,
            message: format!("{name}: {message}"),
        },
        other => other,
    }
}

/// Parses sent observations, checking each time against the series calendar. Times are read in
/// payload order (the repeated hour of an autumn clock change, see [`timetext`]); an instant sent
/// twice is resolved by `on_duplicate` (refused by default).
pub fn parse_points(
    name: &str,
    header: &Map<String, Value>,
    data: &Value,
    on_duplicate: OnDuplicate,
    holidays: Option<&crate::holidays::HolidayCalendar>,
) -> Result<Vec<Point>> {
    let (calendar, tz, code) = series_settings(name, header)?;
    let Value::Array(items) = data else {
        return Ok(Vec::new());
    };
    let mut times = TimeReader::new(tz);
    let mut points = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = |e: Error| prefix(&format!("{name}.data[{i}]"), e);
        let Value::Object(obs) = item else {
            return Err(at(Error::invalid_body(format!(
                "an observation must be an object, not {}",
                json_kind(item)
            ))));
        };
        let time = match obs.get("time") {
            Some(Value::String(t)) => t,
            Some(other) => {
                return Err(at(Error::invalid_body(format!(
                    "time must be a string, not {}",
                    json_kind(other)
                ))))
            }
            None => {
                return Err(at(Error::new(
                    ErrorCode::MissingParameter,
                    "time is missing",
                )))
            }
        };
        let t = times.read(time).map_err(at)?;
        calendar.check(t, tz, &code).map_err(at)?;
        check_holiday(holidays, t, tz, &code).map_err(at)?;
        let v = PointValue::from_json(obs.get("value").unwrap_or(&Value::Null)).map_err(at)?;
        let status = Status::from_json(obs.get("status").unwrap_or(&Value::Null))
            .map_err(at)?
            .map(Box::new);
        points.push(Point { t, v, status });
    }
    let names = PayloadNames {
        place: &|i| format!("{name}.data[{i}]"),
        time: &|t| calendar::format_time(t, calendar, tz),
        hint: "or keep one with _onDuplicate=first|last",
    };
    series::sort_payload(&mut points, on_duplicate, &names)?;
    Ok(points)
}

/// A series dated on a holiday calendar's business days: a holiday is off its calendar.
pub(crate) fn check_holiday(
    holidays: Option<&crate::holidays::HolidayCalendar>,
    t: i64,
    tz: chrono_tz::Tz,
    code: &str,
) -> Result<()> {
    let Some(cal) = holidays else {
        return Ok(());
    };
    let date = calendar::instant(t)?.with_timezone(&tz).date_naive();
    match cal.holiday(date) {
        Some(holiday) => Err(Error::new(
            ErrorCode::IndexAlign,
            format!("time {date} is not on the calendar {code}: a holiday ({holiday})"),
        )),
        None => Ok(()),
    }
}

/// The `_reason` of the object versions a validation run saves to write quality statuses
/// (`writeStatus`); the automations' validation target does not run again on them.
pub const STATUS_REASON: &str = "validation status";

/// Most observation times a data `update` event lists; a larger save sends `from` and `to`.
pub const MAX_EVENT_POINTS: usize = 10_000;
