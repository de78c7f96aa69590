//! Reading import files: the one reader of CSV and JSON files of series and curves, used by
//! `platform data import`, the REST CSV import (`POST /data/v1/{source}/{OBJ:PROP}`,
//! [`CsvImport`](crate::save::csv_import::CsvImport)), the fuzz targets and programs that
//! embed the platform.
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
//! text; an empty value is null. Times are read by the core's rules (`super::timetext`):
//! every ISO 8601 form, in the series' time zone when they carry no offset, the repeated hour
//! of an autumn clock change in file order. A settlement-keyed row names a GB settlement date
//! and period (`super::settlement`), which becomes the start of that half-hour, on a
//! HALFHOURLY series only; a period outside its day names the date and how many periods the
//! day has. Every error of a row names its line (`line 7: ...`).

mod curves;
mod header;
mod json;
mod points;
mod records;

#[cfg(test)]
mod tests;

pub use curves::{curve_rows, CurveRows};
pub use header::{Column, ColumnChoice};
pub use json::{json_curve_file, json_file};
pub use points::PointReader;
pub use records::{csv_records, csv_records_choosing, parse_delimiter, text_of, Records};

use crate::error::Error;

/// Where a reader is in its text, told to a progress display (the CLI draws a bar); `()` shows
/// nothing.
pub trait Progress {
    /// The reader has reached byte `offset` of its text.
    fn at(&self, offset: u64) {
        let _ = offset;
    }

    /// The reader has gone through another batch of records (a display that shows activity).
    fn tick(&self) {}
}

impl Progress for () {}

/// How often progress is told (in records).
const TICK: usize = 4096;

/// Prefixes an error with the line it comes from.
fn at_line(line: usize) -> impl Fn(Error) -> Error {
    move |e| match e {
        Error::User { code, message } => Error::new(code, format!("line {line}: {message}")),
        other => other,
    }
}
