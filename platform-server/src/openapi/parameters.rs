//! What the document says of each query parameter the endpoints read: its schema and
//! meaning, by what the parameter is for.

use super::schema::{boolean, enum_of, integer, string};
use platform_core::api::limits::MAX_LIMIT;
use platform_core::api::time::MAX_DELAY_MS;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

/// The schema and meaning of a query parameter the endpoints read.
pub fn query_parameter_doc(name: &str) -> Option<(Schema, &'static str)> {
    listing(name)
        .or_else(|| writing(name))
        .or_else(|| data(name))
        .or_else(|| narrowing(name))
}

/// Parameters of reads and lists: filters, sort, paging, projections, versions.
fn listing(name: &str) -> Option<(Schema, &'static str)> {
    Some(match name {
        "_filter" => (string(), "A filter as a JSON object"),
        "_sort" => (string(), "A JSON object of fields to 1 (ascending) or -1"),
        "_limit" => (
            integer(-1, Some(MAX_LIMIT as i64)),
            "Items to return (default 100; -1 for all)",
        ),
        "_skip" => (integer(0, None), "Items to skip"),
        "_count" => (
            string(),
            "Lists of objects and other documents: exact counts every match for x-total-count; \
             estimated (the default) counts exactly up to 10,000 matches and estimates past them",
        ),
        "_after" => (
            string(),
            "Object lists: the page after this cursor (from x-platform-next; not with _skip)",
        ),
        "_search" => (string(), "A search expression"),
        "_searchinfo" => (string(), "Auto-complete: items whose name starts with it"),
        "_distinct" => (string(), "A field: answers its distinct values"),
        "_project" => (
            string(),
            "Fields to return: a list, or a JSON object of 1s or 0s",
        ),
        "_profile" => (string(), "A data name: answers the object's data"),
        "_id" => (string(), "An id (repeated) to read from the all source"),
        "_type" => (string(), "The exact object type"),
        "_template" => (string(), "A mustache template's id (with Accept text/html)"),
        "_asof" => (
            string(),
            "An instant or date: the version current then (single items and lists)",
        ),
        "_function" => (string(), "A function of the service"),
        _ => return None,
    })
}

/// Parameters of writes and calls: how a save merges, extensions, automations, runs.
fn writing(name: &str) -> Option<(Schema, &'static str)> {
    Some(match name {
        "_reason" => (string(), "The reason kept in the audit trail"),
        "_replace" => (boolean(), "Replace the object instead of merging"),
        "_replaceData" => (
            boolean(),
            "Replace the observations of each series sent instead of merging into them; the \
             object's other fields and data merge as without it",
        ),
        "_merge" => (
            boolean(),
            "Curves: merge the contracts sent into the stored curve of their ondate by contract \
             (its absolute code, or a balance-of tenor) instead of replacing it; the answer's \
             _replacedCurves says what each write did to a stored curve",
        ),
        "_onDuplicate" => (string(), "What to do with duplicate observations"),
        "_version" => (string(), "A version number or tag of the data"),
        "_publish" => (
            boolean(),
            "Publish (public) or install (private) the extension",
        ),
        "_accept" => (
            string(),
            "Permissions the installer grants, e.g. secret:<id>",
        ),
        "_run" => (boolean(), "Test-fire the automation now"),
        "_delay" => (
            integer(0, Some(MAX_DELAY_MS as i64)),
            "Delay in milliseconds before a manually triggered run",
        ),
        "_wait" => (
            integer(0, Some(crate::validation::MAX_WAIT_SECS as i64)),
            "Seconds to wait for a run or runMany that goes to the background: its result \
             when the job ends within them, else the queued answer",
        ),
        _ => return None,
    })
}

/// Parameters of data reads: ranges, scaling, local time, curves, conversion.
fn data(name: &str) -> Option<(Schema, &'static str)> {
    Some(match name {
        "_range" => (
            string(),
            "last(n), from(date) or between(date,date); on a curve id without an ondate, the \
             curves whose ondates lie in it (a list)",
        ),
        "_calendar" => (
            string(),
            "Data: scale the series to this calendar (DAILY, MONTHLY, GASDAY, EFA, EFADAY...)",
        ),
        "_observed" => (
            string(),
            "Data: how scaling aggregates into coarser periods (needs _calendar)",
        ),
        "_distribution" => (
            string(),
            "Data: constant spreads values over finer periods (needs _calendar)",
        ),
        "_block" => (
            string(),
            "Data: the hours scaling keeps: PEAK, OFFPEAK, BASE, EFA1..EFA6 or a block calendar (needs _calendar)",
        ),
        "_timezone" => (
            string(),
            "Data: an IANA time zone, or series (each series' own). Without _calendar a \
             series' times print in it with their offsets (2024-10-27T02:00:00+02:00, then \
             +01:00 for the repeated hour; UTC prints Z; dates of date calendars stay dates) \
             and an Arrow answer's time column carries it; with _calendar it is the zone \
             periods are cut in. Dates of _range without a zone are read in it. A daily or \
             coarser read answers Arrow's time column as local dates (date32). Curves have \
             no instants: nothing changes. Default: times in UTC, dates of _range in the \
             series' zone",
        ),
        "tenor" => (string(), "Curves: the history of one tenor"),
        "listTenors" => (boolean(), "Curves: list the relative tenors"),
        "_shape" => (
            enum_of(&["MONTHLY"]),
            "Curves: one arbitrage-free price a month (vectors/shaping.json)",
        ),
        "_weights" => (
            string(),
            "Curves: what weighs shaped months: hours (the default), days (a gas curve's \
             default), the hours of a block (PEAK, OFFPEAK, EFA1..EFA6) or of a block calendar \
             (its id)",
        ),
        "_tolerance" => (
            ObjectBuilder::new()
                .schema_type(Type::Number)
                .minimum(Some(0))
                .build()
                .into(),
            "Curves: the largest miss of a quote a shaped curve fits silently (default 0.01); \
             quotes missed by more are named in arbitrage",
        ),
        "_continuation" => (
            string(),
            "Curves: the continuation series of a position (M01, Q01, Y01, DA01...), one point \
             per ondate",
        ),
        "_roll" => (
            string(),
            "With _continuation: expiry (the day after the front contract's expiry, the \
             default) or calendar (the first day of each period)",
        ),
        "_adjust" => (
            enum_of(&["difference", "ratio"]),
            "With _continuation: back-adjust at each roll, every earlier point moved by the new \
             front price less the old one (or times their ratio) on the roll day (the day \
             before it when the roll day's curve lacks the old contract), so the newest \
             segment keeps its prices; rolls lists each, and a roll neither day prices is a 400",
        ),
        "_nearest" => (
            enum_of(&["before", "after"]),
            "Curves read by OBJ:PROP:ONDATE: the curve of the nearest ondate on or before \
             (after) the date; its ondate and _id say which. Without it an ondate with no \
             curve is a 404 naming the nearest ondates",
        ),
        "_settlement" => (
            enum_of(&["GB"]),
            "Half-hourly series: each point carries its GB settlementDate and settlementPeriod \
             (1 at London midnight; 46 or 50 on clock-change days; vectors/settlement.json) in \
             JSON, CSV and Arrow, and dates of _range are settlement days",
        ),
        "currency" => (string(), "Convert to this currency"),
        "units" => (string(), "Convert to these units"),
        "__density" => (
            ObjectBuilder::new()
                .schema_type(Type::Number)
                .exclusive_minimum(Some(0))
                .build()
                .into(),
            "The product density in kg/m3 for unit conversion",
        ),
        _ => return None,
    })
}

/// Parameters that narrow the lists of other services (logs, calendars, records, tokens).
fn narrowing(name: &str) -> Option<(Schema, &'static str)> {
    Some(match name {
        "automation" => (string(), "Only this automation's entries"),
        "status" => (string(), "Only entries of this status"),
        "from" => (string(), "From this date"),
        "to" => (string(), "Up to this date"),
        "date" => (string(), "Calendars: the date businessDays moves from"),
        "n" => (
            integer(-50_000, Some(50_000)),
            "Calendars: business days to move (negative: back)",
        ),
        "target" => (string(), "Only this data id"),
        "kind" => (string(), "Only this kind (timeseries or curve)"),
        "group" => (string(), "Only this group"),
        "calendar" => (
            string(),
            "Imports: the calendar of a series the import makes (HALFHOURLY, DAILY...); with an \
             existing series it must agree with the series' calendar",
        ),
        "timezone" => (
            string(),
            "Imports: the time zone of a series the import makes, in which times without an \
             offset are read; with an existing series it must agree with the series' zone",
        ),
        "delimiter" => (
            string(),
            "Imports: the field separator, one character such as , or ; or tab (default: the \
             one the first line holds most)",
        ),
        "valueColumn" => (
            string(),
            "Imports: a CSV as published: the header's column of the values (any case); the \
             columns that key the rows (time, or settlementDate and settlementPeriod, or ondate \
             and tenor) are found as without it, and every other column is left out",
        ),
        "timeColumn" => (
            string(),
            "Imports: a CSV as published: the header's column of the times (any case); \
             settlementDate and settlementPeriod columns are then left out",
        ),
        "expiryCalendar" => (
            string(),
            "Imports of curves: the expiry calendar set in the curve's header (#REOMHENG, \
             #REOMB, #REOD or a private one): each contract of an ondate that names none \
             expires by it; without any, on the calendar day before its delivery starts",
        ),
        "tenant" => (
            string(),
            "Tokens: only this tenant's (the caller's own; another is not found)",
        ),
        _ => return None,
    })
}
