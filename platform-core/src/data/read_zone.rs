//! The zones a read of a series uses, from its `_timezone` and `_calendar` (see `zone`): the
//! zone its times are printed in, and the zone the dates of its `_range` are read in.

use super::read::DataQuery;
use chrono_tz::Tz;

impl DataQuery {
    /// The zone a read prints the times of a series (whose own zone is `series`) in: `_timezone`
    /// without `_calendar`; `None` prints them as always (UTC `Z`, dates for date calendars).
    pub fn print_zone(&self, series: Tz) -> Option<Tz> {
        match (&self.scaling, self.timezone) {
            (None, Some(zone)) => Some(zone.resolve(series)),
            _ => None,
        }
    }

    /// The zone the dates of `_range` are read in for a series whose own zone is `series`:
    /// `_timezone` when given, else London's settlement days with `_settlement=GB`, else the
    /// series' zone.
    pub fn range_zone(&self, series: Tz) -> Tz {
        match self.timezone {
            Some(zone) => zone.resolve(series),
            None if self.settlement => super::settlement::ZONE,
            None => series,
        }
    }
}
