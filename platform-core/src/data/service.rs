//! The data service: [`Data`], a handle on the series and curves of objects.

use crate::Platform;

/// Time series and forward curves, kept on objects: the data id `OBJ:PROP` names the series
/// or curve `PROP` of object `OBJ`. Data is versioned with its object: every write makes an
/// object version, a read can ask for an old version, and rolling the object back
/// ([`crate::api::objects::Objects::roll_back`]) rolls its data back. From [`Platform::data`].
///
/// The typed calls write and read [`crate::api::data::Point`]s and [`crate::api::data::Contract`]s; the JSON calls are the data
/// service's reads as the server answers them.
///
/// A data item has one read, answered in the form its caller needs:
///
/// - typed: [`Data::series`] and [`Data::curve`] (numbers, converted and scaled as a
///   [`crate::api::data::SeriesQuery`] or [`crate::api::data::CurveQuery`] asks), [`Data::data_item`]
///   (a series or a curve read as the server's parameters, a [`crate::api::data::DataQuery`], ask);
/// - the server's answer, the same read in other bytes: [`Data::read`] (JSON),
///   [`Data::read_json_bytes`], [`Data::read_arrow_bytes`], [`Data::read_arrow_stream`],
///   [`Data::read_record_batch`] and [`Data::read_csv`];
/// - bulk, as stored (statuses and text values kept, no conversion): [`Data::read_points`],
///   [`Data::read_columns`] and [`Data::read_columns_many`].
///
/// Each takes the source to read from: [`Data::series`] and [`Data::curve`] in their query
/// (`source`, [`crate::api::Source::All`] by default), the others as an argument, but for
/// [`Data::read_columns_many`], which reads each id from the source it names.
///
/// ```
/// use platform_core::api::{data::Point, data::ReadRange, data::SeriesQuery, data::WriteOptions};
/// use platform_core::api::VersionRef;
/// use chrono::{TimeZone, Utc};
///
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let day = |d| Utc.with_ymd_and_hms(2024, 3, d, 0, 0, 0).unwrap();
/// let opts = WriteOptions { units: Some("MWh".into()), ..Default::default() };
/// let v1 = platform.data().write_series(&me, "DE:LOAD", &[Point::new(day(1), 10.0), Point::new(day(2), 12.0)], &opts)?;
/// let v2 = platform.data().write_series(&me, "DE:LOAD", &[Point::new(day(2), 13.5)], &Default::default())?;
///
/// // The current version, converted to kWh; then the first version.
/// let now = platform.data().series(&me, "DE:LOAD", &SeriesQuery { units: Some("kWh".into()), ..Default::default() })?;
/// assert_eq!((now.version, now.units.as_deref()), (v2, Some("kWh")));
/// assert_eq!(now.points[1].value, 13_500.0);
/// let then = platform.data().series(&me, "DE:LOAD", &SeriesQuery { version: Some(VersionRef::Number(v1)), range: ReadRange::Last(1), ..Default::default() })?;
/// assert_eq!(then.points, [Point::new(day(2), 12.0)]);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Data<'p> {
    pub(crate) platform: &'p Platform,
    /// The snapshot its one-item reads are made in, for a handle of [`crate::Snapshot`].
    snapshot: Option<&'p crate::Snapshot<'p>>,
}

impl<'p> Data<'p> {
    pub(crate) fn of(platform: &'p Platform, snapshot: Option<&'p crate::Snapshot<'p>>) -> Self {
        Data { platform, snapshot }
    }

    /// The read transaction of its snapshot, if it has one.
    pub(crate) fn tx(&self) -> Option<&'p dyn crate::store::ReadTx> {
        self.snapshot.map(|s| s.tx())
    }
}
