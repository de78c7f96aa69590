//! The calendar service's functions: [`Calendars`].

use crate::auth::Principal;
use crate::error::{Error, ErrorCode, Result};
use crate::holidays::HolidayCalendar;
use crate::ids::Source;
use crate::query::Params;
use crate::store::Collection;
use crate::Platform;
use chrono::{Datelike, NaiveDate};
use serde_json::{json, Value};

use super::{date_param, holidays_of, Holiday, MAX_MOVE, MAX_YEARS};

/// Holiday calendars' functions. Calendars themselves are versioned documents saved and read
/// through [`Platform::objects`] with [`crate::api::Collection::Calendar`]; see
/// `crate::calendars` for their kinds (holiday, expiry, block). From [`Platform::calendars`].
///
/// The service holds the platform it runs on: calendars are documents of its store, read as
/// the caller sees them.
///
/// ```
/// use chrono::NaiveDate;
/// use platform_core::api::Source;
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let d = |s| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
/// // Every fresh database carries #HENG, #HDEU and #TARGET.
/// let easter = platform.calendars().holidays(&me, Source::Public, "#HENG", d("2024-03-28"), d("2024-04-02"))?;
/// assert_eq!(easter.len(), 2);
/// let next = platform.calendars().business_days(&me, Source::Public, "#HENG", d("2024-03-28"), 1)?;
/// assert_eq!(next, d("2024-04-02"));
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Calendars<'p> {
    platform: &'p Platform,
}

impl<'p> Calendars<'p> {
    /// The calendar service of `platform`.
    pub(crate) fn of(platform: &'p Platform) -> Self {
        Calendars { platform }
    }

    /// The holiday calendar `id` as the caller sees it, read through `source`.
    fn holiday_calendar(&self, p: &Principal, source: Source, id: &str) -> Result<HolidayCalendar> {
        // The document must be visible through the named source, as a GET would (before this
        // call opens its own read: one read at a time).
        self.platform
            .objects()
            .get(p, Collection::Calendar, source, id, None, None)?;
        let tx = self.platform.read()?;
        holidays_of(&*tx, p, id, "the calendar").map_err(|e| match e {
            Error::User { message, .. } => Error::invalid_parameter(format!(
                "{message}: holidays and businessDays are functions of holiday calendars"
            )),
            other => other,
        })
    }

    /// The holidays of calendar `id` from `from` to `to` (both included), on Monday to Friday.
    pub fn holidays(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Vec<Holiday>> {
        if from > to {
            return Err(Error::invalid_parameter(format!(
                "from {from} is after to {to}"
            )));
        }
        if to.year() - from.year() >= MAX_YEARS {
            return Err(Error::invalid_parameter(format!(
                "from {from} to {to} spans more than {MAX_YEARS} years"
            )));
        }
        let cal = self.holiday_calendar(p, source, id)?;
        Ok(cal
            .holidays(from, to)
            .into_iter()
            .map(|(date, name)| Holiday { date, name })
            .collect())
    }

    /// The date `n` business days of calendar `id` from `date` (back for n < 0).
    pub fn business_days(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        date: NaiveDate,
        n: i64,
    ) -> Result<NaiveDate> {
        if n.abs() > MAX_MOVE {
            return Err(Error::invalid_parameter(format!(
                "n {n} is more than {MAX_MOVE} business days"
            )));
        }
        let cal = self.holiday_calendar(p, source, id)?;
        cal.add_business_days(date, n)
    }

    /// JSON: a `_function` of the calendar service on calendar `id` (`holidays` with `from`
    /// and `to`, `businessDays` with `date` and `n`).
    pub fn function(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        function: &str,
        params: &Params,
    ) -> Result<Value> {
        match function {
            "holidays" => {
                let (from, to) = (date_param(params, "from")?, date_param(params, "to")?);
                let list = self.holidays(p, source, id, from, to)?;
                Ok(json!(list))
            }
            "businessDays" => {
                let date = date_param(params, "date")?;
                let text = params.get("n").ok_or_else(|| {
                    Error::new(
                        ErrorCode::MissingParameter,
                        "n is missing: the business days to move (negative: back)",
                    )
                })?;
                let n: i64 = text.trim().parse().map_err(|_| {
                    Error::invalid_parameter(format!("n \"{text}\" is not a whole number"))
                })?;
                let d = self.business_days(p, source, id, date, n)?;
                Ok(json!({"date": d.format("%Y-%m-%d").to_string()}))
            }
            other => Err(Error::invalid_parameter(format!(
                "unknown _function \"{other}\" on a calendar: use holidays, businessDays or listAutomations"
            ))),
        }
    }
}
