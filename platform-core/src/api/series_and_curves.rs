//! The data service: [`Data`], with typed series ([`Point`], [`Series`]) and curves
//! ([`Contract`], [`Curve`]).

use crate::auth::Principal;
use crate::data::conversion::Conversion;
use crate::data::curve::StoredCurve;
use crate::data::read::{data_scope, DataId, DataQuery};
use crate::data::scale::Scaling;
use crate::data::series::Window;
use crate::data::zone::ReadZone;
use crate::data::Data;
use crate::data::DataKind;
use crate::documents::SaveOptions;
use crate::error::{Error, Result};
use crate::ids::{Source, VersionRef};
use crate::observations::columns::Columns;
use crate::observations::model::PointValue;
use crate::query::range;
use arrow_array::RecordBatch;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// One observation of a series: an instant and a number. It is the one point of the typed
/// calls; the bulk calls ([`Data::save_series`], [`Data::read_points`]) carry the stored
/// observation instead, with its status and a value that may be text or null.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// When (UTC; a daily series keeps midnight of its zone).
    pub at: DateTime<Utc>,
    /// The value.
    pub value: f64,
}

impl Point {
    /// An observation.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// let p = platform_core::api::data::Point::new(Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap(), 42.5);
    /// assert_eq!(p.value, 42.5);
    /// ```
    pub fn new(at: DateTime<Utc>, value: f64) -> Point {
        Point { at, value }
    }
}

/// How a typed write saves: the header fields it sets on the series or curve (merged into the
/// stored header; `None` leaves a field as it is) and how the object version is made.
///
/// ```
/// let opts = platform_core::api::data::WriteOptions {
///     units: Some("therm".into()), currency: Some("GBP".into()),
///     reason: Some("daily load".into()), ..Default::default()
/// };
/// assert!(!opts.replace);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteOptions {
    /// Units of the values (`MWh`, `therm`, `bbl`...), which reads can convert from.
    pub units: Option<String>,
    /// Currency of the values (prices per unit when units are set), which reads can convert
    /// from with FX rates kept as public data.
    pub currency: Option<String>,
    /// The series calendar (`SPARSE` when never set; `DAILY`, `HOURLY`... check each time).
    pub calendar: Option<String>,
    /// The series time zone (an IANA name; `UTC` when never set).
    pub timezone: Option<String>,
    /// Other header fields (`description`, `properties`, `_access`...).
    pub header: Map<String, Value>,
    /// Replace the series' observations instead of merging into them (series only).
    pub replace: bool,
    /// The reason stored with the object version.
    pub reason: Option<String>,
}

impl WriteOptions {
    fn header(&self) -> Map<String, Value> {
        let mut header = self.header.clone();
        for (name, value) in [
            ("units", &self.units),
            ("currency", &self.currency),
            ("calendar", &self.calendar),
            ("timezone", &self.timezone),
        ] {
            if let Some(v) = value {
                header.insert(name.into(), Value::String(v.clone()));
            }
        }
        header
    }

    fn save_options(&self) -> SaveOptions {
        SaveOptions {
            replace: self.replace,
            reason: self.reason.clone(),
            ..SaveOptions::default()
        }
    }
}

/// Which observations a series read returns.
///
/// Its "between" is [`ReadRange::Between`]: from its `from` instant included to its `to`
/// instant excluded. (The `_range` grammar's `between(d1,d2)` of [`ReadRange::Expr`] covers
/// both dates whole, see [`RangeExpr`](crate::api::data::RangeExpr); a validation's
/// [`ValidationRequest::between`](crate::api::validation::ValidationRequest::between) includes both ends.)
///
/// ```
/// use platform_core::api::{data::Point, data::ReadRange, data::SeriesQuery};
/// use chrono::{Duration, TimeZone, Utc};
/// assert_eq!(ReadRange::default(), ReadRange::All);
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let start = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
/// let points: Vec<Point> = (0..4).map(|h| Point::new(start + Duration::hours(h), h as f64)).collect();
/// platform.data().write_series(&me, "DE:POWER", &points, &Default::default())?;
/// // From 01:00 included to 03:00 excluded: the points of 01:00 and 02:00.
/// let range = ReadRange::Between { from: Some(points[1].at), to: Some(points[3].at) };
/// let read = platform.data().series(&me, "DE:POWER", &SeriesQuery { range, ..Default::default() })?;
/// assert_eq!(read.points, &points[1..3]);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ReadRange {
    /// Every observation.
    #[default]
    All,
    /// The last n observations.
    Last(u64),
    /// Observations at or after `from` and before `to`: `from` included, `to` excluded
    /// (either open when `None`).
    Between {
        /// The first instant included.
        from: Option<DateTime<Utc>>,
        /// The first instant left out.
        to: Option<DateTime<Utc>>,
    },
    /// A range in the `_range` grammar of the data service (dates read in the series' zone).
    Expr(String),
}

/// How a series is read: which observations, at which object version, converted to which
/// units and currency. The default reads every observation of the current version as stored.
///
/// ```
/// use platform_core::api::{data::ReadRange, data::SeriesQuery};
/// use platform_core::api::VersionRef;
/// let q = SeriesQuery {
///     range: ReadRange::Last(24),
///     version: Some(VersionRef::Tag("month-end".into())),
///     units: Some("kWh".into()),
///     ..Default::default()
/// };
/// assert_eq!(q.currency, None);
/// ```
///
/// Its `source` picks the source as [`Data::data_item`]'s does:
///
/// ```
/// use platform_core::api::{data::Point, data::SeriesQuery, Source};
/// use chrono::{TimeZone, Utc};
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
/// platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, 71.3)], &Default::default())?;
/// let private = SeriesQuery { source: Source::Private, ..Default::default() };
/// assert_eq!(platform.data().series(&me, "NBP:SPOT", &private)?.points[0].value, 71.3);
/// let public = SeriesQuery { source: Source::Public, ..Default::default() };
/// let missing = platform.data().series(&me, "NBP:SPOT", &public).unwrap_err();
/// assert_eq!(missing.code(), platform_core::ErrorCode::NotFound);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesQuery {
    /// The source the series is read from, as [`Data::data_item`] takes it: [`Source::All`]
    /// (the default) reads it from the source its object's id names, [`Source::Private`] or
    /// [`Source::Public`] only from that one (a series of the other is not found).
    pub source: Source,
    /// The observations.
    pub range: ReadRange,
    /// The object version (number or tag) to read at; the current one when `None`.
    pub version: Option<VersionRef>,
    /// Convert the values to these units.
    pub units: Option<String>,
    /// Convert the values to this currency.
    pub currency: Option<String>,
    /// The density (kg/m3) a mass to volume conversion uses.
    pub density: Option<f64>,
    /// Scaling on read (`_calendar`, `_observed`, `_distribution`, `_block`): the points of
    /// another calendar, aggregated or spread after any conversion. The answer's header names
    /// the calendar scaled to and how (`calendar`, `observed`), and [`Series::partial`] the
    /// periods made from fewer observations than they hold.
    pub scaling: Option<Scaling>,
    /// The zone (`_timezone`) scaled periods are cut in and the dates of a
    /// [`ReadRange::Expr`] are read in: [`ReadZone::Series`] (the series' own zone, the
    /// default) or a named zone.
    pub timezone: Option<ReadZone>,
}

impl Default for SeriesQuery {
    fn default() -> SeriesQuery {
        SeriesQuery {
            source: Source::All,
            range: ReadRange::All,
            version: None,
            units: None,
            currency: None,
            density: None,
            scaling: None,
            timezone: None,
        }
    }
}

/// What the HTTP parameters of a series read are in a [`SeriesQuery`], for its errors.
const SERIES_QUERY_TERMS: &[(&str, &str)] = &[
    ("_range", "SeriesQuery.range"),
    ("_timezone", "SeriesQuery.timezone"),
    ("_version", "SeriesQuery.version"),
    ("__density", "SeriesQuery.density"),
    ("_observed", "Scaling::aggregate"),
    ("_distribution", "Scaling::distribute"),
    ("_block", "Scaling::in_block"),
    ("a _calendar", "a target calendar"),
    ("_calendar", "the target calendar"),
];

/// A series read: its observations and what they are.
///
/// ```
/// use platform_core::api::{data::Point, data::WriteOptions};
/// use chrono::{TimeZone, Utc};
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
/// let opts = WriteOptions { units: Some("MWh".into()), timezone: Some("Europe/Berlin".into()), ..Default::default() };
/// platform.data().write_series(&me, "DE:LOAD", &[Point::new(at, 41.0)], &opts)?;
/// let s = platform.data().series(&me, "DE:LOAD", &Default::default())?;
/// assert_eq!((s.id.as_str(), s.version, s.units.as_deref()), ("DE:LOAD", 1, Some("MWh")));
/// assert_eq!(s.header["timezone"], "Europe/Berlin");
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The data id (`OBJ:PROP`).
    pub id: String,
    /// The object version read.
    pub version: u32,
    /// The units of the values read (after any conversion).
    pub units: Option<String>,
    /// The currency of the values read (after any conversion).
    pub currency: Option<String>,
    /// The header as stored (calendar, time zone, properties...).
    pub header: Map<String, Value>,
    /// The observations, by time.
    pub points: Vec<Point>,
    /// The points of a scaled read aggregated from fewer observations than their period
    /// holds, by time (their status source `CALCULATED:<n> of <m>`); empty when every point
    /// is complete or nothing was aggregated.
    pub partial: Vec<Partial>,
}

/// A point aggregated from fewer observations than its period holds: a day of an hourly
/// series missing an hour is 23 of 24 (see [`crate::api::time::coverage`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partial {
    /// The period's start (the point's time).
    pub at: DateTime<Utc>,
    /// The observations that made it.
    pub observations: usize,
    /// The observations of the series' calendar the period holds.
    pub expected: usize,
}

impl Partial {
    /// The coverage a point's status states, if it is partial.
    pub(crate) fn of(at: DateTime<Utc>, status: Option<&str>) -> Option<Partial> {
        let (observations, expected) = crate::data::scale::coverage(status?)?;
        Some(Partial {
            at,
            observations,
            expected,
        })
    }
}

/// One contract of a curve to write: a tenor code (relative such as `M01`, `Q02`, `DA01`, or
/// absolute such as `2025M06`, `2025Q03`) and its price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contract {
    /// The tenor code.
    pub tenor: String,
    /// The value.
    pub value: f64,
}

impl Contract {
    /// A contract.
    ///
    /// ```
    /// let c = platform_core::api::data::Contract::new("M01", 31.2);
    /// assert_eq!(c.tenor, "M01");
    /// ```
    pub fn new(tenor: impl Into<String>, value: f64) -> Contract {
        Contract {
            tenor: tenor.into(),
            value,
        }
    }
}

/// How a curve is read: which ondate, at which object version, converted to which units and
/// currency. The default reads the newest ondate of the current version as stored. An ondate
/// without a curve is a `NotFound` naming the nearest ondates, unless `nearest` asks for the
/// curve of the nearest one on or before (after) it.
///
/// ```
/// use platform_core::api::{data::CurveQuery, data::Nearest};
/// let q = CurveQuery { ondate: chrono::NaiveDate::from_ymd_opt(2024, 5, 14), currency: Some("GBP".into()), ..Default::default() };
/// assert!(q.version.is_none());
/// let friday = CurveQuery { ondate: chrono::NaiveDate::from_ymd_opt(2024, 5, 18), nearest: Some(Nearest::Before), ..Default::default() };
/// # let _ = friday;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CurveQuery {
    /// The source the curve is read from, as [`Data::data_item`] takes it: [`Source::All`]
    /// (the default) reads it from the source its object's id names, [`Source::Private`] or
    /// [`Source::Public`] only from that one (a curve of the other is not found).
    pub source: Source,
    /// The curve date; the newest when `None`.
    pub ondate: Option<NaiveDate>,
    /// When `ondate` has no curve: the curve of the nearest ondate on or before (after) it
    /// (`_nearest`); the answer's `ondate` says which. Needs `ondate`.
    pub nearest: Option<crate::data::read::Nearest>,
    /// The object version (number or tag) to read at; the current one when `None`.
    pub version: Option<VersionRef>,
    /// Convert the values to these units.
    pub units: Option<String>,
    /// Convert the values to this currency.
    pub currency: Option<String>,
    /// The density (kg/m3) a mass to volume conversion uses.
    pub density: Option<f64>,
}

impl Default for CurveQuery {
    fn default() -> CurveQuery {
        CurveQuery {
            source: Source::All,
            ondate: None,
            nearest: None,
            version: None,
            units: None,
            currency: None,
            density: None,
        }
    }
}

/// A contract of a curve read, with the delivery period the platform computed for it (see
/// [`Data::write_curve`] for an example).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurveContract {
    /// The tenor code (relative when it has one).
    pub tenor: String,
    /// The absolute code (`None` for balance-of codes).
    pub absolute: Option<String>,
    /// The first delivery day.
    pub start: NaiveDate,
    /// The last delivery day.
    pub end: NaiveDate,
    /// The expiry day.
    pub expiry: NaiveDate,
    /// The value.
    pub value: f64,
}

/// A curve of one ondate.
///
/// ```
/// use platform_core::api::{data::Contract, data::CurveQuery};
/// use chrono::NaiveDate;
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let ondate = NaiveDate::from_ymd_opt(2024, 12, 2).unwrap();
/// platform.data().write_curve(&me, "NBP:FWD", ondate, &[Contract::new("BOM", 98.0), Contract::new("Q01", 101.5)], &Default::default())?;
/// let c = platform.data().curve(&me, "NBP:FWD", &CurveQuery::default())?;
/// assert_eq!((c.ondate, c.contracts.len()), (ondate, 2));
/// assert_eq!(c.contracts[0].absolute, None); // balance of the month
/// assert_eq!(c.contracts[1].absolute.as_deref(), Some("2025Q01"));
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The data id (`OBJ:PROP`).
    pub id: String,
    /// The object version read.
    pub version: u32,
    /// The curve date.
    pub ondate: NaiveDate,
    /// The units of the values read (after any conversion).
    pub units: Option<String>,
    /// The currency of the values read (after any conversion).
    pub currency: Option<String>,
    /// The header as stored.
    pub header: Map<String, Value>,
    /// The contracts, in the order written.
    pub contracts: Vec<CurveContract>,
}

/// The object and property of a data id to write (no ondate).
fn write_target(id: &str) -> Result<DataId> {
    let target = DataId::parse(id)?;
    if target.ondate.is_some() {
        return Err(Error::invalid_parameter(format!(
            "write to \"{}:{}\": the ondate goes with the curve, not in the data id",
            target.object, target.prop
        )));
    }
    Ok(target)
}

fn saved_version(saved: &Value) -> Result<u32> {
    saved["_version"]
        .as_u64()
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| Error::Internal("a saved object has no version".into()))
}

fn number(id: &str, at: impl std::fmt::Display, v: &PointValue) -> Result<f64> {
    v.as_f64().ok_or_else(|| not_a_number(id, at, "Data::read"))
}

/// A value of `id` at `at` (a time, a tenor) that is not a number, which a typed read cannot
/// hold: `json_call` reads it.
pub(super) fn not_a_number(id: &str, at: impl std::fmt::Display, json_call: &str) -> Error {
    Error::invalid_parameter(format!(
        "data \"{id}\" holds a value that is not a number at {at}: read it as JSON with \
         {json_call}"
    ))
}

pub(super) fn text(m: &Map<String, Value>, field: &str) -> Option<String> {
    m.get(field).and_then(Value::as_str).map(str::to_string)
}

/// The contracts of a stored curve of `id`, typed; a value that is not a finite number is
/// refused (`json_call` reads it).
pub(super) fn curve_contracts(
    id: &str,
    stored: &StoredCurve,
    json_call: &str,
) -> Result<Vec<CurveContract>> {
    stored
        .contracts
        .iter()
        .map(|c| {
            Ok(CurveContract {
                tenor: c.tenor.clone(),
                absolute: (!c.absolute.is_empty()).then(|| c.absolute.clone()),
                start: day(&c.start, "start")?,
                end: day(&c.end, "end")?,
                expiry: day(&c.expiry, "expiry")?,
                value: c
                    .value
                    .as_f64()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| not_a_number(id, &c.tenor, json_call))?,
            })
        })
        .collect()
}

pub(super) fn day(text: &str, what: &str) -> Result<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| {
        Error::Internal(format!(
            "a stored contract's {what} \"{text}\" is not a date"
        ))
    })
}

impl Data<'_> {
    /// Writes observations to the series `id` (`OBJ:PROP`) in one transaction, creating the
    /// object and the series when absent, and returns the object version it made. Observations
    /// at instants the series holds replace them (all of them with `opts.replace`).
    ///
    /// ```
    /// use platform_core::api::{data::Point, data::WriteOptions};
    /// use chrono::{TimeZone, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// let v = platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, 71.3)], &WriteOptions::default())?;
    /// assert_eq!(v, 1);
    /// let bad = platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, f64::NAN)], &WriteOptions::default());
    /// assert_eq!(bad.unwrap_err().code(), platform_core::ErrorCode::InvalidBody);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn write_series(
        &self,
        p: &Principal,
        id: &str,
        points: &[Point],
        opts: &WriteOptions,
    ) -> Result<u32> {
        let target = write_target(id)?;
        let mut columns = Columns::with_capacity(points.len());
        for point in points {
            if !point.value.is_finite() {
                return Err(Error::invalid_body(format!(
                    "{}: the value at {} is not a finite number",
                    target.prop, point.at
                )));
            }
            columns.times.push(point.at.timestamp_millis());
            columns.values.push(point.value);
        }
        let saved = self.save_columns(
            p,
            &target.object,
            &target.prop,
            opts.header(),
            columns,
            &opts.save_options(),
        )?;
        saved_version(&saved)
    }

    /// Reads the series `id` (`OBJ:PROP`): the observations `q` asks for, at its object
    /// version, converted as it asks. A series holding a value that is not a number (written
    /// as JSON) is an error here: [`Data::read`] reads it.
    ///
    /// ```
    /// use platform_core::api::{data::Point, data::ReadRange, data::SeriesQuery};
    /// use chrono::{Duration, TimeZone, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let start = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// let points: Vec<Point> = (0..24).map(|h| Point::new(start + Duration::hours(h), h as f64)).collect();
    /// platform.data().write_series(&me, "DE:POWER", &points, &Default::default())?;
    /// let range = ReadRange::Between { from: Some(start + Duration::hours(6)), to: Some(start + Duration::hours(9)) };
    /// let morning = platform.data().series(&me, "DE:POWER", &SeriesQuery { range, ..Default::default() })?;
    /// assert_eq!(morning.points, &points[6..9]);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn series(&self, p: &Principal, id: &str, q: &SeriesQuery) -> Result<Series> {
        self.read_series(p, id, q)
            .map_err(|e| e.in_rust_terms(SERIES_QUERY_TERMS))
    }

    /// [`Data::series`], its errors naming the HTTP parameters.
    fn read_series(&self, p: &Principal, id: &str, q: &SeriesQuery) -> Result<Series> {
        let platform = self.platform;
        let (data_id, scope) = data_scope(p, q.source, id)?;
        let dq = DataQuery {
            range: match &q.range {
                ReadRange::Expr(text) => Some(
                    range::parse(text)
                        .map_err(|e| Error::invalid_parameter(format!("_range: {e}")))?,
                ),
                _ => None,
            },
            version: q.version.clone(),
            conversion: Conversion {
                units: q.units.clone(),
                currency: q.currency.clone(),
                density: q.density,
            },
            scaling: q.scaling.clone(),
            timezone: q.timezone,
            ..DataQuery::default()
        };
        if let Some(s) = &q.scaling {
            s.check()?;
        }
        let tx = platform.read()?;
        let mut item = self.open_item(p, tx.as_ref(), &scope, &data_id, id, &dq)?;
        if item.kind != DataKind::Series {
            return Err(Error::not_found(format!(
                "data \"{id}\" is not a time series"
            )));
        }
        let (points, _, _) = self.item_points(p, tx.as_ref(), &mut item, &dq, |tz, h| {
            Ok(match &q.range {
                ReadRange::All => Window::All,
                ReadRange::Last(n) => Window::Last(*n),
                ReadRange::Between { from, to } => Window::Between(
                    from.map(|t| t.timestamp_millis()),
                    to.map(|t| t.timestamp_millis()),
                ),
                ReadRange::Expr(_) => self.window(&dq, tz, h)?,
            })
        })?;
        let partial = points
            .iter()
            .filter_map(|pt| {
                let at = DateTime::from_timestamp_millis(pt.t).unwrap_or_default();
                Partial::of(at, pt.status.as_ref().and_then(|s| s.source.as_deref()))
            })
            .collect();
        let points = points
            .iter()
            .map(|pt| {
                let at = DateTime::from_timestamp_millis(pt.t).unwrap_or_default();
                Ok(Point::new(at, number(id, at, &pt.v)?))
            })
            .collect::<Result<Vec<_>>>()?;
        let (units, currency) = (text(item.json(), "units"), text(item.json(), "currency"));
        let mut header = std::mem::take(&mut item.header);
        if q.scaling.is_some() {
            // What the read made of the series, as the HTTP answer says it.
            for field in ["calendar", "observed", "timezone"] {
                if let Some(v) = item.json().get(field) {
                    header.insert(field.into(), v.clone());
                }
            }
        }
        Ok(Series {
            id: format!("{}:{}", data_id.object, data_id.prop),
            version: item.object.version,
            units,
            currency,
            header,
            points,
            partial,
        })
    }

    /// Writes the curve of one ondate to the curve `id` (`OBJ:PROP`), replacing that ondate's
    /// contracts (other ondates stay), creating the object and the curve when absent; returns
    /// the object version it made.
    ///
    /// ```
    /// use platform_core::api::{data::Contract, data::CurveQuery, data::WriteOptions};
    /// use chrono::NaiveDate;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let ondate = NaiveDate::from_ymd_opt(2024, 5, 14).unwrap();
    /// let opts = WriteOptions { units: Some("MWh".into()), currency: Some("EUR".into()), ..Default::default() };
    /// platform.data().write_curve(&me, "TTF:FWD", ondate, &[Contract::new("M01", 31.2), Contract::new("Q01", 33.0)], &opts)?;
    ///
    /// let curve = platform.data().curve(&me, "TTF:FWD", &CurveQuery::default())?;
    /// assert_eq!(curve.ondate, ondate);
    /// let june = &curve.contracts[0];
    /// assert_eq!((june.tenor.as_str(), june.absolute.as_deref(), june.value), ("M01", Some("2024M06"), 31.2));
    /// assert_eq!(june.start, NaiveDate::from_ymd_opt(2024, 6, 1).unwrap());
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn write_curve(
        &self,
        p: &Principal,
        id: &str,
        ondate: NaiveDate,
        contracts: &[Contract],
        opts: &WriteOptions,
    ) -> Result<u32> {
        let target = write_target(id)?;
        let mut sent = Vec::with_capacity(contracts.len());
        for c in contracts {
            if !c.value.is_finite() {
                return Err(Error::invalid_body(format!(
                    "{}: the value of {} is not a finite number",
                    target.prop, c.tenor
                )));
            }
            sent.push(json!({"tenor": c.tenor, "value": c.value}));
        }
        let mut curve = Map::new();
        curve.insert(
            "ondate".into(),
            Value::String(ondate.format("%Y-%m-%d").to_string()),
        );
        curve.insert("contracts".into(), Value::Array(sent));
        let saved = self.save_curves(
            p,
            &target.object,
            &target.prop,
            opts.header(),
            vec![curve],
            &opts.save_options(),
        )?;
        saved_version(&saved)
    }

    /// Reads the curve `id` (`OBJ:PROP`) of the ondate `q` asks for (the newest by default), at
    /// its object version, converted as it asks.
    ///
    /// ```
    /// use platform_core::api::{data::Contract, data::CurveQuery};
    /// use chrono::NaiveDate;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
    /// platform.data().write_curve(&me, "NBP:FWD", d(13), &[Contract::new("M01", 70.0)], &Default::default())?;
    /// platform.data().write_curve(&me, "NBP:FWD", d(14), &[Contract::new("M01", 72.5)], &Default::default())?;
    /// let q = CurveQuery { ondate: Some(d(13)), ..Default::default() };
    /// assert_eq!(platform.data().curve(&me, "NBP:FWD", &q)?.contracts[0].value, 70.0);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn curve(&self, p: &Principal, id: &str, q: &CurveQuery) -> Result<Curve> {
        let (data_id, mut item, stored, ()) = self.read_curve(p, id, q, |_, _, _| Ok(()))?;
        let curve_date = day(stored.curve_date(), "ondate")?;
        let contracts = curve_contracts(id, &stored, "Data::read")?;
        Ok(Curve {
            id: format!("{}:{}", data_id.object, data_id.prop),
            version: item.object.version,
            ondate: curve_date,
            units: text(item.json(), "units"),
            currency: text(item.json(), "currency"),
            header: item.header,
            contracts,
        })
    }

    /// The same answer as [`read_arrow_bytes`](Self::read_arrow_bytes) as an Arrow record
    /// batch, for a program that computes on it (its schema's metadata carries the item's
    /// header, as the stream's does): a series is `time` (a timestamp in milliseconds, in the
    /// zone read in) and `value`, with `quality`, `source` and `reliability` where a point
    /// has them; a curve its contracts' columns. The metadata names the item (`_id`).
    ///
    /// ```
    /// use platform_core::api::{data::DataQuery, data::Point, data::RangeExpr, Source};
    /// use chrono::{Duration, TimeZone, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let start = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// let points: Vec<Point> = (0..48).map(|h| Point::new(start + Duration::hours(h), h as f64)).collect();
    /// platform.data().write_series(&me, "DE:POWER", &points, &Default::default())?;
    /// let q = DataQuery { range: Some("2024-01-02".parse::<RangeExpr>()?), ..Default::default() };
    /// let batch = platform.data().read_record_batch(&me, Source::All, "DE:POWER", &q)?;
    /// assert_eq!(batch.num_rows(), 24);
    /// let values = batch.column_by_name("value").unwrap();
    /// assert_eq!(values.data_type(), &arrow_schema::DataType::Float64);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn read_record_batch(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<RecordBatch> {
        self.read_arrow_stream(p, source, id, q)?.record_batch()
    }

    /// The same answer as [`read`](Self::read) as an Arrow IPC stream (see
    /// [`crate::api::formats::arrow`]), a series' columns built without a JSON tree of its points.
    pub fn read_arrow_bytes(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        q: &DataQuery,
    ) -> Result<Vec<u8>> {
        Ok(self.read_arrow_stream(p, source, id, q)?.into_bytes())
    }
}
