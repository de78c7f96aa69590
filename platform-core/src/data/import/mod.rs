//! Reading import files: the one reader of CSV and JSON files of series and curves. Its
//! grammar is written where programs meet it, in the api's [`import`](crate::api::import)
//! module; the times are read by `super::timetext` and settlement periods by
//! `super::settlement`.

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
