//! The calendar service: [`Calendars`].

use crate::auth::Principal;
use crate::calendars::Holiday;
use crate::error::Result;
use crate::ids::Source;
use crate::query::Params;
use crate::Platform;
use chrono::NaiveDate;
use serde_json::Value;

/// Holiday calendars' functions. Calendars themselves are versioned documents saved and read
/// through [`Platform::objects`] with [`crate::api::Collection::Calendar`]; see
/// `crate::calendars` for their kinds (holiday, expiry, block). From [`Platform::calendars`].
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
    pub(super) platform: &'p Platform,
}

impl Calendars<'_> {
    /// The holidays of holiday calendar `id` from `from` to `to` (both included) that fall on
    /// Monday to Friday, in date order.
    pub fn holidays(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Vec<Holiday>> {
        self.platform.calendar_holidays(p, source, id, from, to)
    }

    /// The date `n` business days of holiday calendar `id` from `date` (back for n < 0).
    pub fn business_days(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        date: NaiveDate,
        n: i64,
    ) -> Result<NaiveDate> {
        self.platform.calendar_business_days(p, source, id, date, n)
    }

    /// JSON: `_function=holidays` (`from`, `to`: `[{date, name}]`) or `businessDays` (`date`,
    /// `n`: `{"date"}`) on calendar `id`; a missing or bad parameter is a 400 naming it.
    pub fn function(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        function: &str,
        params: &Params,
    ) -> Result<Value> {
        self.platform
            .calendar_function(p, source, id, function, params)
    }
}
