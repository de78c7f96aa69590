//! [`Data::shape_curve`]: a curve read as arbitrage-free months.

use super::series_and_curves::CurveQuery;
use crate::auth::Principal;
use crate::data::conversion::Conversion;
use crate::data::curve::StoredCurve;
use crate::data::read::{data_scope, DataId, DataQuery, Opened};
use crate::data::shape::{Ignored, QuoteMiss, ShapeQuery, ShapedMonth, Weights};
use crate::data::Data;
use crate::data::DataKind;
use crate::error::{Error, Result};
use crate::store::ReadTx;
use chrono::NaiveDate;
use serde_json::Value;

/// A curve of one ondate shaped into months (see [`Data::shape_curve`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ShapedCurve {
    /// The data id (`OBJ:PROP`).
    pub id: String,
    /// The object version read.
    pub version: u32,
    /// The curve date.
    pub ondate: NaiveDate,
    /// The units of the values (after any conversion).
    pub units: Option<String>,
    /// The currency of the values (after any conversion).
    pub currency: Option<String>,
    /// The weights used.
    pub weights: Weights,
    /// The largest miss of a quote that was fitted silently.
    pub tolerance: f64,
    /// The months, in order, each with the shortest contract containing it.
    pub months: Vec<ShapedMonth>,
    /// The quotes the months miss by more than the tolerance (quotes that disagree), in the
    /// order sent.
    pub arbitrage: Vec<QuoteMiss>,
    /// The contracts that took no part, and why.
    pub ignored: Vec<Ignored>,
    /// What the answer did besides meeting every quote (which quotes disagree and by how
    /// much, which contracts took no part); `None` when every quote is met.
    pub message: Option<String>,
}

impl Data<'_> {
    /// Reads the curve `id` as [`Data::curve`] does (the ondate of `q`, the newest by default)
    /// and shapes it into months that meet every quoted contract, as
    /// `GET /data/v1/{source}/{id}?_shape=MONTHLY` answers: `shape` holds the weights (by
    /// default days for a gas curve, hours in the curve's time zone otherwise; a block such
    /// as `PEAK` or a block calendar's id) and the tolerance of a quote's miss.
    ///
    /// ```
    /// use platform_core::api::{data::Contract, data::CurveQuery, data::ShapeQuery, data::Weights};
    /// use chrono::NaiveDate;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let ondate = NaiveDate::from_ymd_opt(2024, 11, 15).unwrap();
    /// let quotes = [Contract::new("2025M01", 100.0), Contract::new("2025M02", 98.0), Contract::new("2025Q01", 95.0)];
    /// platform.data().write_curve(&me, "DE:BASE", ondate, &quotes, &Default::default())?;
    /// let by_days = ShapeQuery { weights: Some(Weights::Days), ..ShapeQuery::default() };
    /// let shaped = platform.data().shape_curve(&me, "DE:BASE", &CurveQuery::default(), &by_days)?;
    /// let march = &shaped.months[2];
    /// assert_eq!((march.code.as_str(), march.from.as_str()), ("2025M03", "2025Q01"));
    /// // January, February and March average the quarter's 95 over its 90 days.
    /// assert!((march.value - (95.0 * 90.0 - 100.0 * 31.0 - 98.0 * 28.0) / 31.0).abs() < 1e-9);
    /// assert!(shaped.arbitrage.is_empty() && shaped.message.is_none());
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn shape_curve(
        &self,
        p: &Principal,
        id: &str,
        q: &CurveQuery,
        shape: &ShapeQuery,
    ) -> Result<ShapedCurve> {
        let (data_id, mut item, stored, (shaped, weights)) =
            self.read_curve(p, id, q, |tx, item, stored| {
                shape.apply(tx, p, id, &item.header, stored)
            })?;
        let json = item.json();
        let text = |k: &str| json.get(k).and_then(Value::as_str).map(str::to_string);
        let (units, currency) = (text("units"), text("currency"));
        let message = shaped.message();
        Ok(ShapedCurve {
            id: format!("{}:{}", data_id.object, data_id.prop),
            version: item.object.version,
            ondate: NaiveDate::parse_from_str(stored.curve_date(), "%Y-%m-%d")
                .map_err(|e| Error::caused("a stored ondate", e))?,
            units,
            currency,
            weights,
            tolerance: shaped.tolerance,
            months: shaped.months,
            arbitrage: shaped.arbitrage,
            ignored: shaped.ignored,
            message,
        })
    }

    /// The curve `id` reads as `q` asks (its ondate, version and conversion): its id, the item
    /// opened, the stored curve and what `then` makes of them in the read's transaction, for
    /// [`Data::curve`] and [`Data::shape_curve`].
    pub(super) fn read_curve<T>(
        &self,
        p: &Principal,
        id: &str,
        q: &CurveQuery,
        then: impl FnOnce(&dyn ReadTx, &Opened, &StoredCurve) -> Result<T>,
    ) -> Result<(DataId, Opened, StoredCurve, T)> {
        let platform = self.platform;
        let (data_id, scope) = data_scope(p, q.source, id)?;
        let dq = DataQuery {
            version: q.version.clone(),
            conversion: Conversion {
                units: q.units.clone(),
                currency: q.currency.clone(),
                density: q.density,
            },
            nearest: q.nearest,
            ..DataQuery::default()
        };
        let tx = platform.read()?;
        let mut item = self.open_item(p, tx.as_ref(), &scope, &data_id, id, &dq)?;
        if item.kind != DataKind::Curve {
            return Err(Error::not_found(format!("data \"{id}\" is not a curve")));
        }
        let ondate = q.ondate.or(data_id.ondate);
        if ondate.is_none() && q.nearest.is_some() {
            return Err(Error::invalid_parameter(format!(
                "CurveQuery::nearest needs a date: set CurveQuery::ondate to read the curve of \
                 the nearest ondate to it of \"{id}\""
            )));
        }
        let read = self.item_curve(tx.as_ref(), &mut item, id, ondate, &dq);
        let stored = read.map_err(|e| e.in_rust_terms(CURVE_QUERY_TERMS))?;
        let made =
            then(tx.as_ref(), &item, &stored).map_err(|e| e.in_rust_terms(CURVE_QUERY_TERMS))?;
        Ok((data_id, item, stored, made))
    }
}

/// What the HTTP parameters of a curve read are in a [`CurveQuery`] and a [`ShapeQuery`], for
/// their errors.
const CURVE_QUERY_TERMS: &[(&str, &str)] = &[
    (
        "_nearest=before or _nearest=after",
        "CurveQuery.nearest (Nearest::Before or Nearest::After)",
    ),
    ("_nearest=before", "CurveQuery.nearest = Nearest::Before"),
    ("_nearest=after", "CurveQuery.nearest = Nearest::After"),
    ("_nearest", "CurveQuery.nearest"),
    ("_version", "CurveQuery.version"),
    ("__density", "CurveQuery.density"),
    ("_weights", "ShapeQuery.weights"),
    ("_tolerance", "ShapeQuery.tolerance"),
    ("_shape=MONTHLY", "Data::shape_curve"),
    ("_shape", "Data::shape_curve"),
];
