//! Writing the data payloads of a save: each series or curve sent, its values checked against
//! what the series holds, its times against its calendar, written at the object's new
//! version; and what changed, for the data `update` event.

use super::calendar;
use super::curve;
use super::series::{self, PayloadNames};
use super::value_type::{
    check_values, missing_as_null, missing_as_null_json, Checked, Sent, Stored, ValueRule,
};
use super::{
    check_holiday, codec, parse_points, prefix, series_settings, CalendarRefs, DataPayload,
    MAX_EVENT_POINTS,
};
use crate::documents::SaveOptions;
use crate::error::Result;
use crate::holidays::HolidayCalendar;
use crate::observations::columns::Columns;
use crate::observations::model::PointValue;
use crate::store::{DataKey, DataRead, DataWrite};
use serde_json::{Map, Value};

/// What a save changed in one data property (for the data `update` event).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DataChange {
    /// The data name (property).
    pub name: String,
    /// The ondate written (curves).
    pub ondate: Option<String>,
    /// The observation times written (time series).
    pub times: Option<WrittenTimes>,
    /// Whether the whole series was replaced or removed.
    pub replaced: bool,
    /// What a curve write did to the curve its ondate held (for the save's answer).
    pub curve: Option<super::curve::Replaced>,
}

/// The observation times a save wrote to a series (UTC ms): their span and count, and the
/// times themselves when there are at most [`MAX_EVENT_POINTS`] (an event lists no more).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WrittenTimes {
    /// The first.
    pub first: i64,
    /// The last.
    pub last: i64,
    /// How many.
    pub count: usize,
    /// Each, ascending, or none past the limit.
    pub listed: Vec<i64>,
}

impl WrittenTimes {
    /// Of sorted, distinct times; `None` for none.
    pub fn of(times: &[i64]) -> Option<WrittenTimes> {
        Some(WrittenTimes {
            first: *times.first()?,
            last: *times.last()?,
            count: times.len(),
            listed: if times.len() <= MAX_EVENT_POINTS {
                times.to_vec()
            } else {
                Vec::new()
            },
        })
    }
}

/// The sent values of columns as the value check sees them, by position.
fn columns_sent(columns: &Columns) -> impl Iterator<Item = (usize, Sent<'_>)> + Clone {
    let mut extras = columns.extras.iter().peekable();
    // Positions outside the extras hold plain numbers.
    let mut out = Vec::new();
    for i in 0..columns.len() {
        match extras.next_if(|e| e.index == i) {
            Some(e) => out.push((i, Sent::of(&e.value))),
            None => out.push((i, Sent::Num)),
        }
        if extras.peek().is_none() && out.iter().any(|(_, s)| *s == Sent::Num) {
            break;
        }
    }
    out.into_iter()
}

/// What the stored series (at version `current`) holds: text, numbers and no text, or
/// neither. Asked only when an undeclared series is sent text or `"NaN"`: its chunks are read,
/// newest first, to the first text.
pub(crate) fn stored_values<T: DataRead + ?Sized>(
    tx: &T,
    key: &DataKey,
    current: Option<u32>,
) -> Result<Stored> {
    let Some(version) = current else {
        return Ok(Stored::Nothing);
    };
    let mut numbers = false;
    for chunk in tx.chunks(key, version, None, None)?.iter().rev() {
        let mut points = Vec::with_capacity(chunk.count as usize);
        codec::decode_into(&chunk.payload, &mut points)?;
        for p in &points {
            match p.v {
                PointValue::Text(_) => return Ok(Stored::Text),
                PointValue::Num(_) => numbers = true,
                PointValue::Null => {}
            }
        }
    }
    Ok(if numbers {
        Stored::Numbers
    } else {
        Stored::Nothing
    })
}

/// Writes the payloads of a save; returns what changed, one entry per changed property.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_payloads(
    tx: &mut dyn DataWrite,
    key_of: &dyn Fn(&str) -> DataKey,
    body: &Map<String, Value>,
    payloads: Vec<(String, DataPayload)>,
    current: Option<u32>,
    version: u32,
    keep_history: bool,
    opts: &SaveOptions,
    refs: &CalendarRefs,
) -> Result<Vec<DataChange>> {
    let mut writer = Writer {
        tx,
        current,
        version,
        keep_history,
        opts,
        refs,
        changed: Vec::new(),
    };
    for (name, payload) in payloads {
        let header = body
            .get(&name)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let property = Property {
            key: key_of(&name),
            name,
            header,
        };
        match payload {
            DataPayload::Series(data) => writer.series(&property, data)?,
            DataPayload::Curve(Some(sent)) => writer.curve(&property, &sent)?,
            DataPayload::Curve(None) => {}
            DataPayload::Curves(curves) => {
                for sent in &curves {
                    writer.curve(&property, sent)?;
                }
            }
            DataPayload::Columns(columns, replace_series) => {
                writer.columns(&property, columns, replace_series)?
            }
        }
    }
    Ok(writer.changed)
}

/// A data property of the saved document: its name, its header and its storage key.
struct Property {
    name: String,
    header: Map<String, Value>,
    key: DataKey,
}

impl Property {
    /// The holiday calendar its `calendar` names, if any.
    fn holidays<'r>(&self, refs: &'r CalendarRefs) -> Option<&'r HolidayCalendar> {
        self.header
            .get("calendar")
            .and_then(Value::as_str)
            .and_then(|c| refs.holidays.get(c))
    }
}

/// The writes of one save's payloads, at one object version, and what they changed.
struct Writer<'a> {
    tx: &'a mut dyn DataWrite,
    current: Option<u32>,
    version: u32,
    keep_history: bool,
    opts: &'a SaveOptions,
    refs: &'a CalendarRefs,
    changed: Vec<DataChange>,
}

impl Writer<'_> {
    /// The observations of a series sent replace the stored ones (`_replace`,
    /// `_replaceData`).
    fn replaces_observations(&self) -> bool {
        self.opts.replace || self.opts.replace_data
    }

    /// A series sent as JSON (`data`): its values checked, its observations parsed, sorted
    /// and merged (or, replaced, written as sent); without `data` only its settings checked.
    fn series(&mut self, p: &Property, data: Option<Value>) -> Result<()> {
        let replace = self.opts.replace;
        let rule = ValueRule::of_header(&p.name, &p.header)?;
        let mut data = data;
        if let Some(Value::Array(items)) = &mut data {
            let values = items
                .iter()
                .map(|o| Sent::of_json(o.get("value").unwrap_or(&Value::Null)))
                .enumerate();
            let (tx, current) = (&*self.tx, self.current);
            let checked =
                check_values(&rule, values, &|i| format!("{}.data[{i}]", p.name), || {
                    // A replaced series holds what is sent.
                    stored_values(tx, &p.key, current.filter(|_| !replace))
                })?;
            if checked == Checked::Numeric {
                missing_as_null_json(items);
            }
        }
        if data.is_none() && !replace {
            series_settings(&p.name, &p.header)?;
            return Ok(());
        }
        let points = match &data {
            Some(d) => parse_points(
                &p.name,
                &p.header,
                d,
                self.opts.on_duplicate,
                p.holidays(self.refs),
            )?,
            None => Vec::new(),
        };
        let columns = Columns::from_points(&points);
        drop(points);
        let replaces = self.replaces_observations();
        self.write_series(p, columns, replaces)
    }

    /// Observations sent as columns (a typed API or a file import): values checked, times
    /// checked against the calendar, sorted with repeated instants resolved, then written.
    fn columns(&mut self, p: &Property, mut columns: Columns, replace_series: bool) -> Result<()> {
        let (calendar, tz, code) = series_settings(&p.name, &p.header)?;
        let rule = ValueRule::of_header(&p.name, &p.header)?;
        let replaced = self.opts.replace || replace_series;
        let (tx, current) = (&*self.tx, self.current);
        let checked = check_values(
            &rule,
            columns_sent(&columns),
            &|i| format!("{} observation {}", p.name, i + 1),
            || stored_values(tx, &p.key, current.filter(|_| !replaced)),
        )?;
        if checked == Checked::Numeric {
            missing_as_null(&mut columns);
        }
        let holidays = p.holidays(self.refs);
        if holidays.is_some() || !calendar.all_on(&columns.times, tz) {
            for (i, &t) in columns.times.iter().enumerate() {
                calendar
                    .check(t, tz, &code)
                    .and_then(|()| check_holiday(holidays, t, tz, &code))
                    .map_err(|e| prefix(&format!("{}.data[{i}]", p.name), e))?;
            }
        }
        let names = PayloadNames {
            place: &|i| format!("{} observation {}", p.name, i + 1),
            time: &|t| calendar::format_time(t, calendar, tz),
            hint: "or keep one with OnDuplicate::First or Last",
        };
        series::sort_payload_columns(&mut columns, self.opts.on_duplicate, &names)?;
        let replaces = self.replaces_observations() || replace_series;
        self.write_series(p, columns, replaces)
    }

    /// Writes sorted observations of a series; a change when anything was written.
    fn write_series(&mut self, p: &Property, columns: Columns, replaces: bool) -> Result<()> {
        let change = DataChange {
            name: p.name.clone(),
            ondate: None,
            times: WrittenTimes::of(&columns.times),
            replaced: replaces,
            curve: None,
        };
        let (current, version, keep) = (self.current, self.version, self.keep_history);
        if series::write(self.tx, &p.key, current, version, keep, replaces, columns)? {
            self.changed.push(change);
        }
        Ok(())
    }

    /// Writes the curve of one ondate; a change when it was written.
    fn curve(&mut self, p: &Property, sent: &Map<String, Value>) -> Result<()> {
        let written = curve::write(
            self.tx,
            &p.key,
            self.current,
            self.version,
            self.keep_history,
            &p.name,
            &p.header,
            sent,
            self.refs,
            self.opts.merge_contracts,
        )?;
        if let Some(written) = written {
            self.changed.push(DataChange {
                name: p.name.clone(),
                ondate: Some(written.ondate),
                times: None,
                replaced: false,
                curve: written.replaced,
            });
        }
        Ok(())
    }
}

/// Adds to a save's answer (the saved object `id`) what its curve writes did to the curves
/// their ondates held: `_replacedCurves`, one entry a stored curve replaced or merged into
/// (`_id` `OBJ:PROP:ONDATE`, the contracts it held (`stored`) and holds now (`written`), how
/// many it `dropped` and their `droppedTenors`, and whether the write `merged`). No entry for
/// a new ondate or an unchanged curve; no field when there is none.
pub(crate) fn note_replaced_curves(
    answer: &mut Map<String, Value>,
    id: &str,
    changes: &[DataChange],
) {
    let replaced: Vec<Value> = changes
        .iter()
        .filter_map(|change| {
            let r = change.curve.as_ref()?;
            let ondate = change.ondate.as_deref().unwrap_or_default();
            Some(serde_json::json!({
                "_id": format!("{id}:{}:{ondate}", change.name),
                "stored": r.stored,
                "written": r.written,
                "dropped": r.dropped.len(),
                "droppedTenors": r.dropped,
                "merged": r.merged,
            }))
        })
        .collect();
    if !replaced.is_empty() {
        answer.insert("_replacedCurves".into(), Value::Array(replaced));
    }
}
