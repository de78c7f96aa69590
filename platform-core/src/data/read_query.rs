//! What a data read asks: the data id it names (`OBJ:PROP[:ONDATE]`) and its options
//! ([`DataQuery`], from a request's parameters), and the JSON answer's bytes ([`DataJson`]).

use super::conversion::Conversion;
use super::scale::Scaling;
use super::zone::ReadZone;
use crate::error::{Error, Result};
use crate::ids::{validate_id, VersionRef};
use crate::query::range;
use crate::query::{period, Params};
use chrono::NaiveDate;

/// A parsed data id `OBJ:PROP[:ONDATE]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataId {
    /// The owning object.
    pub object: String,
    /// The data name.
    pub prop: String,
    /// The curve date, for one curve.
    pub ondate: Option<NaiveDate>,
}

impl DataId {
    /// Parses a data id.
    pub fn parse(text: &str) -> Result<DataId> {
        let bad =
            |why: &str| Error::invalid_parameter(format!("invalid data id \"{text}\": {why}"));
        let mut parts = text.splitn(3, ':');
        let object = parts.next().unwrap_or_default();
        let prop = parts
            .next()
            .ok_or_else(|| bad("expected OBJECT:DATA or OBJECT:DATA:ONDATE"))?;
        validate_id(object, "object id")?;
        if prop.is_empty() {
            return Err(bad("the data name is empty"));
        }
        let ondate = parts
            .next()
            .map(|d| {
                NaiveDate::parse_from_str(d, "%Y-%m-%d")
                    .map_err(|_| bad("the ondate must be YYYY-MM-DD"))
            })
            .transpose()?;
        Ok(DataId {
            object: object.to_string(),
            prop: prop.to_string(),
            ondate,
        })
    }
}

/// Options of a data read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DataQuery {
    /// `_range`.
    pub range: Option<range::RangeExpr>,
    /// `tenor=CODE`: the history of one tenor of a curve.
    pub tenor: Option<String>,
    /// `listTenors`: the relative tenors of a curve.
    pub list_tenors: bool,
    /// `_continuation` and `_roll`: a curve's continuation series.
    pub continuation: Option<super::continuation::Continuation>,
    /// `_version`: read the data as of an object version (number or tag).
    pub version: Option<VersionRef>,
    /// `units`, `currency`, `__density`.
    pub conversion: Conversion,
    /// `_calendar` with `_observed`, `_distribution` and `_block`: scaling on read.
    pub scaling: Option<Scaling>,
    /// `_timezone`: the zone a series' times print in, or with `_calendar` the zone periods are
    /// cut in; `_range` dates are read in it (see `super::zone`).
    pub timezone: Option<ReadZone>,
    /// `_shape=MONTHLY` with `_weights`: a curve shaped into months.
    pub shape: Option<super::shape::ShapeQuery>,
    /// `_settlement=GB`: each half-hour of a series read carries its GB settlement date and
    /// period, and `_range` dates are settlement days (see `super::settlement`).
    pub settlement: bool,
    /// `_nearest=before|after`: a curve read of an ondate answers the curve of the nearest
    /// ondate on or before (after) it (see `super::read_curve`).
    pub nearest: Option<Nearest>,
}

/// Which curve `_nearest` asks for when the ondate named has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nearest {
    /// The nearest ondate on or before the date named.
    Before,
    /// The nearest ondate on or after the date named.
    After,
}

impl Nearest {
    /// Reads `_nearest` (a 400 naming the values allowed for anything else).
    pub fn parse(text: &str) -> Result<Nearest> {
        match text.trim() {
            "before" => Ok(Nearest::Before),
            "after" => Ok(Nearest::After),
            other => Err(Error::invalid_parameter(format!(
                "_nearest \"{other}\" is not a direction: use before (the curve of the nearest \
                 ondate on or before the date named) or after (on or after it)"
            ))),
        }
    }

    /// The parameter's value.
    pub fn as_str(self) -> &'static str {
        match self {
            Nearest::Before => "before",
            Nearest::After => "after",
        }
    }
}

/// The most observations a read may take and still count as short ([`DataQuery::is_short`]).
const SHORT_READ: usize = 10_000;

impl DataQuery {
    /// Whether the read takes a bounded few observations whatever the item holds: a
    /// `last(n)` of at most 10,000, not a tenor's history.
    pub fn is_short(&self) -> bool {
        self.tenor.is_none()
            && self.continuation.is_none()
            && matches!(
                self.range.as_ref().map(|r| r.form()),
                Some(range::RangeForm::Last(n)) if *n <= SHORT_READ
            )
    }

    /// Reads `_range`, `tenor`, `listTenors`, `_version`, `_nearest` and the parameters of
    /// conversion, scaling, local time, shaping, continuations and settlement. A parameter
    /// starting with `_` that the interface does not have (a misspelt `_calender`) is refused,
    /// naming the closest one, as over HTTP.
    ///
    /// ```
    /// use platform_core::api::{data::DataQuery, Params};
    /// let e = DataQuery::from_params(&Params::from_slice(&[("_calender", "DAILY")])).unwrap_err();
    /// assert!(e.to_string().contains("did you mean _calendar?"), "{e}");
    /// ```
    pub fn from_params(params: &Params) -> Result<DataQuery> {
        params.check_names()?;
        let range = params
            .get("_range")
            .map(|r| range::parse(r).map_err(|e| Error::invalid_parameter(format!("_range: {e}"))))
            .transpose()?;
        // Every form accepted on input, read in its canonical form (`2024Q3` is `2024Q03`).
        let tenor = match params.get("tenor") {
            Some(t) => Some(
                period::parse(t)
                    .map_err(|e| Error::invalid_parameter(format!("tenor: {e}")))?
                    .to_string(),
            ),
            None => None,
        };
        let scaling = Scaling::from_params(
            params.get("_calendar"),
            params.get("_observed"),
            params.get("_distribution"),
            params.get("_block"),
        )?;
        let timezone = params.get("_timezone").map(ReadZone::parse).transpose()?;
        Ok(DataQuery {
            range,
            tenor,
            list_tenors: params.flag("listTenors")?,
            continuation: super::continuation::Continuation::from_params(params)?,
            version: match (params.get("_version"), params.get("_asof")) {
                (Some(_), Some(_)) => {
                    return Err(Error::invalid_parameter(
                        "_version and _asof name a version each: send one",
                    ))
                }
                (Some(v), None) => Some(v.parse()?),
                (None, Some(t)) => Some(VersionRef::as_of(t)?),
                (None, None) => None,
            },
            conversion: Conversion::from_params(params)?,
            scaling,
            timezone,
            shape: super::shape::ShapeQuery::from_params(params)?,
            settlement: match params.get("_settlement") {
                Some(text) => super::settlement::parse_param(text).map(|()| true)?,
                None => false,
            },
            nearest: params.get("_nearest").map(Nearest::parse).transpose()?,
        })
    }
}

/// A data answer's JSON text, and the `_timestamp` of the object version it was read at (a
/// server's `Last-Modified`, without reading the text again for it).
#[derive(Debug, Clone, PartialEq)]
pub struct DataJson {
    /// The JSON text.
    pub bytes: Vec<u8>,
    /// The object version's `_timestamp` (none for an answer without one).
    pub timestamp: Option<String>,
}
