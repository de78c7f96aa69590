//! The points of a series file: each observation's time read in the series' time zone and on
//! its calendar (or its settlement date and period turned into a half-hour), its value and
//! status, with the line it came from.

use super::header::Column;
use super::json::offset;
use super::records::{csv_value, fields, record_status, Records};
use super::{at_line, Progress, TICK};
use crate::data::calendar::Calendar;
use crate::data::model::{Point, PointValue, Status};
use crate::data::settlement;
use crate::data::timetext::TimeReader;
use crate::error::{Error, ErrorCode, Result};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Turns observation texts into points, in the series' time zone and on its calendar.
#[derive(Debug)]
pub struct PointReader {
    calendar: Calendar,
    tz: chrono_tz::Tz,
    code: String,
    times: TimeReader,
}

impl PointReader {
    /// A reader of one file's times on a calendar (whose code messages name), in a time zone.
    pub fn new(calendar: Calendar, tz: chrono_tz::Tz, code: &str) -> Self {
        PointReader {
            calendar,
            tz,
            code: code.to_string(),
            times: TimeReader::new(tz),
        }
    }

    /// A reader on the calendar and in the time zone a series header would name (`SPARSE` and
    /// `UTC` when `None`); a code that names a holiday calendar reads business days (its
    /// holidays are checked where the data is written).
    ///
    /// ```
    /// use platform_core::api::import::{csv_records, PointReader};
    /// let records = csv_records("date,price\n2024-03-01,26.1\n2024-03-04,25.85\n", None, &())?;
    /// let mut reader = PointReader::of_settings(Some("DAILY"), Some("Europe/Amsterdam"))?;
    /// let (points, lines) = reader.csv(&records, &())?;
    /// assert_eq!((points.len(), lines), (2, vec![2, 3]));
    /// assert_eq!(points[1].v.as_f64(), Some(25.85));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn of_settings(calendar: Option<&str>, timezone: Option<&str>) -> Result<Self> {
        let mut header = Map::new();
        for (field, value) in [("calendar", calendar), ("timezone", timezone)] {
            if let Some(v) = value {
                header.insert(field.into(), Value::String(v.to_string()));
            }
        }
        let (calendar, tz, code) = crate::data::series_settings("series", &header)?;
        Ok(PointReader::new(calendar, tz, &code))
    }

    fn point(&mut self, time: &str, v: PointValue, status: Option<Status>) -> Result<Point> {
        let time = time.trim();
        if time.is_empty() {
            return Err(Error::new(ErrorCode::MissingParameter, "the time is empty"));
        }
        let t = self.times.read(time)?;
        self.calendar.check(t, self.tz, &self.code)?;
        Ok(Point {
            t,
            v,
            status: status.map(Box::new),
        })
    }

    /// The point of a settlement-keyed row: its settlement date and period become the period's
    /// start, on a HALFHOURLY series only.
    fn settlement_point(
        &self,
        date: &str,
        fields: &HashMap<Column, &str>,
        v: PointValue,
        status: Option<Status>,
    ) -> Result<Point> {
        if self.calendar != Calendar::Intraday(1800) {
            return Err(Error::invalid_body(format!(
                "settlementDate and settlementPeriod key half-hours: the series' calendar is {}, \
                 not HALFHOURLY",
                self.code
            )));
        }
        let date = settlement::parse_date(date)?;
        let period = fields
            .get(&Column::SettlementPeriod)
            .copied()
            .unwrap_or_default();
        let t = settlement::start(date, settlement::parse_period(period)?)?;
        Ok(Point {
            t,
            v,
            status: status.map(Box::new),
        })
    }

    /// The observations of a JSON file (its text and the raw observations [`super::json_file`]
    /// found in it) and the line of each.
    pub fn json(
        &mut self,
        text: &str,
        items: &[&RawValue],
        progress: &dyn Progress,
    ) -> Result<(Vec<Point>, Vec<usize>)> {
        let mut points = Vec::with_capacity(items.len());
        let mut lines = Vec::with_capacity(items.len());
        let (mut line, mut counted) = (1, 0);
        for (i, raw) in items.iter().enumerate() {
            let at = offset(text, raw);
            line += text.as_bytes()[counted..at]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            counted = at;
            if i % TICK == 0 {
                progress.at(at as u64);
            }
            let obs: Value = crate::json::from_str(raw.get())
                .map_err(|e| Error::new(ErrorCode::InvalidBody, format!("line {line}: {e}")))?;
            points.push(self.json_point(&obs).map_err(at_line(line))?);
            lines.push(line);
        }
        Ok((points, lines))
    }

    fn json_point(&mut self, obs: &Value) -> Result<Point> {
        let Value::Object(obs) = obs else {
            return Err(Error::invalid_body(
                "an observation must be an object {time, value, status}",
            ));
        };
        let time = match obs.get("time") {
            Some(Value::String(t)) => t,
            Some(_) => return Err(Error::invalid_body("time must be a string")),
            None => return Err(Error::new(ErrorCode::MissingParameter, "time is missing")),
        };
        let v = PointValue::from_json(obs.get("value").unwrap_or(&Value::Null))?;
        let status = Status::from_json(obs.get("status").unwrap_or(&Value::Null))?;
        self.point(time, v, status)
    }

    /// The observations of a CSV file and the line of each, in file order.
    pub fn csv(
        &mut self,
        records: &Records,
        progress: &dyn Progress,
    ) -> Result<(Vec<Point>, Vec<usize>)> {
        let mut points = Vec::with_capacity(records.rows.len());
        let mut lines = Vec::with_capacity(records.rows.len());
        for (i, (line, record)) in records.rows.iter().enumerate() {
            if i % TICK == 0 {
                progress.tick();
            }
            let at = at_line(*line);
            let fields = fields(&records.columns, record).map_err(&at)?;
            let v = csv_value(
                fields.get(&Column::Value).copied().unwrap_or_default(),
                records.decimal_comma,
            );
            let status = record_status(&fields).map_err(&at)?;
            let point = match fields.get(&Column::SettlementDate) {
                Some(date) => self.settlement_point(date, &fields, v, status),
                None => {
                    let time = fields.get(&Column::Time).copied().unwrap_or_default();
                    self.point(time, v, status)
                }
            };
            points.push(point.map_err(&at)?);
            lines.push(*line);
        }
        Ok((points, lines))
    }
}
