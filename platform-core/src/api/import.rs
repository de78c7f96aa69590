//! Files of series and curves read as the platform reads them: the one reader of CSV and JSON
//! files, used by `platform data import`, the REST CSV import ([`CsvImport`](super::data::CsvImport)),
//! the fuzz targets and programs that embed the platform; the settings a series header names
//! ([`series_settings`]), what a file holding one time twice keeps ([`OnDuplicate`],
//! [`sort_payload`]), and the values a series' `dataType` admits ([`check_values`]). An
//! [`Observation`] is a point as stored: its time in milliseconds, its value (a number, text
//! or null) and its status.
//!
//! ```text
//! csv        := [header] record*   fields separated by ",", ";" or tab: the one the first line
//!                                  holds most (or the one the caller names); RFC 4180 quoting;
//!                                  blank lines skipped
//! series     := time, value [, quality [, source [, reliability]]]
//! settlement := settlementDate, settlementPeriod, value [, quality [, source [, reliability]]]
//! curves     := ondate, tenor, value [, quality [, source [, reliability]]]
//! header names columns: time (or date, timestamp), settlementDate, settlementPeriod, value,
//!   status (or quality), source, reliability, ondate (or curvedate), tenor (any case, so
//!   Elexon's SettlementDate and SettlementPeriod too); an unknown name in the first two columns
//!   of a series file is the time or the value. A header naming a tenor column makes a curve
//!   file. A file as published names more: the caller names its value column (and its time
//!   column; `ColumnChoice`), the columns that key the rows are found as above, and every
//!   other column is left out. Without that, an unknown column is refused, naming the header's
//!   columns and the caller's options.
//! json       := [observation*] | {header fields..., "data": [observation*]}     (series)
//!             | {"_type": "VarCurve", header fields..., "ondate": ondate, "contracts": [...]}
//!             | {"_type": "VarCurve", header fields..., "curves": [{ondate, contracts}...]}
//! ```
//!
//! A first record is a header when its first field does not start with a digit (no time does).
//! A value is a number when it reads as a finite number (in a `;` file `80,5` is 80.5), else
//! text; an empty value is null. Times are read by the platform's rules: every ISO 8601 form,
//! in the series' time zone when they carry no offset, the repeated hour of an autumn clock
//! change in file order. A settlement-keyed row names a GB settlement date and period, which
//! becomes the start of that half-hour, on a HALFHOURLY series only; a period outside its day
//! names the date and how many periods the day has. Every error of a row names its line
//! (`line 7: ...`).
//!
//! ```
//! use platform_core::api::import::{csv_records, PointReader};
//! let records = csv_records("time,value\n2024-03-31 00:00,71.5\n2024-03-31 03:00,70\n", None, &())?;
//! let mut reader = PointReader::of_settings(Some("HOURLY"), Some("Europe/Berlin"))?;
//! let (observations, lines) = reader.csv(&records, &())?;
//! // Three hours on Berlin's clock the night it goes forward (01:00 UTC against 23:00), two apart.
//! assert_eq!(observations[1].t - observations[0].t, 2 * 3_600_000);
//! assert_eq!(lines, [2, 3]);
//! # Ok::<(), platform_core::Error>(())
//! ```

pub use crate::data::import::{
    csv_records, csv_records_choosing, curve_rows, json_curve_file, json_file, parse_delimiter,
    text_of, Column, ColumnChoice, CurveRows, PointReader, Progress, Records,
};
pub use crate::data::series::{sort_payload, OnDuplicate, PayloadNames};
pub use crate::data::series_settings;
pub use crate::data::value_type::{check_values, Checked, Sent, Stored, ValueRule};
pub use crate::data::{CURVE_TYPE, SERIES_TYPE};
pub use crate::observations::model::Point as Observation;
