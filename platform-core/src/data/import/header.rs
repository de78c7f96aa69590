//! The columns a CSV header names: the ones the reader knows by name, and, in a file as
//! published (Elexon's system prices, an exchange's settlement prices), the value (and time)
//! column the caller names, the others left out.

use crate::error::{Error, Result};

/// The columns of a CSV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    /// The time of an observation.
    Time,
    /// The value.
    Value,
    /// The quality of the status.
    Quality,
    /// The source of the status.
    Source,
    /// The reliability of the status.
    Reliability,
    /// The ondate of a curve's contract.
    Ondate,
    /// The tenor of a curve's contract.
    Tenor,
    /// The GB settlement date of a half-hour.
    SettlementDate,
    /// The GB settlement period of a half-hour.
    SettlementPeriod,
    /// A column left out: the header names a value (or time) column, and this is another.
    Ignored,
}

impl Column {
    /// The name of the column, as messages say it.
    pub fn name(self) -> &'static str {
        match self {
            Column::Time => "time",
            Column::Value => "value",
            Column::Quality => "quality",
            Column::Source => "source",
            Column::Reliability => "reliability",
            Column::Ondate => "ondate",
            Column::Tenor => "tenor",
            Column::SettlementDate => "settlementDate",
            Column::SettlementPeriod => "settlementPeriod",
            Column::Ignored => "ignored",
        }
    }
}

/// Which columns of a file as published to read: the column of the values (`value`) and of
/// the times (`time`), named as the header names them (any case). With a value column named,
/// only it and the columns that key the rows (the time, or `settlementDate` and
/// `settlementPeriod`, or a curve's `ondate` and `tenor`) are read, and every other column
/// is left out (status columns too: a published file's `source` is not a status). A time
/// column named is the time of each row, and settlement columns beside it are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnChoice {
    /// The header name of the value column, if the caller names one.
    pub value: Option<String>,
    /// The header name of the time column, if the caller names one.
    pub time: Option<String>,
    /// How the caller names the two options, for messages (`--value-column` and
    /// `--time-column` in the CLI, `valueColumn` and `timeColumn` over HTTP).
    pub options: (&'static str, &'static str),
}

impl Default for ColumnChoice {
    fn default() -> Self {
        ColumnChoice {
            value: None,
            time: None,
            options: ("valueColumn", "timeColumn"),
        }
    }
}

impl ColumnChoice {
    /// Whether the caller names a column.
    pub fn names_any(&self) -> bool {
        self.value.is_some() || self.time.is_some()
    }

    /// The choice of a caller whose options are called `options` (value, time).
    pub fn named(
        value: Option<String>,
        time: Option<String>,
        options: (&'static str, &'static str),
    ) -> Self {
        ColumnChoice {
            value,
            time,
            options,
        }
    }
}

/// The columns a header names, the file's columns listed in an error.
pub(super) fn header_columns(
    names: &csv::StringRecord,
    choice: &ColumnChoice,
) -> Result<Vec<Column>> {
    let curve = names.iter().any(|n| n.trim().eq_ignore_ascii_case("tenor"));
    let value_at = chosen(names, choice.value.as_deref(), choice.options.0)?;
    let time_at = chosen(names, choice.time.as_deref(), choice.options.1)?;
    if curve && time_at.is_some() {
        return Err(Error::invalid_parameter(format!(
            "{} names a time column, and this is a curve file (its header names a tenor \
             column): its rows are keyed by ondate and tenor",
            choice.options.1
        )));
    }
    let mut columns = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let known = known_column(name, curve);
        let column = if Some(i) == value_at {
            Column::Value
        } else if Some(i) == time_at {
            Column::Time
        } else if value_at.is_some() {
            // Only the columns that key the rows are read beside the value.
            match known {
                Some(c @ (Column::Ondate | Column::Tenor)) => c,
                Some(c @ (Column::SettlementDate | Column::SettlementPeriod))
                    if time_at.is_none() =>
                {
                    c
                }
                Some(Column::Time) if time_at.is_none() => Column::Time,
                _ => Column::Ignored,
            }
        } else {
            match (known, i, curve) {
                (Some(Column::Time | Column::SettlementDate | Column::SettlementPeriod), ..)
                    if time_at.is_some() =>
                {
                    Column::Ignored
                }
                (Some(c), ..) => c,
                (None, 0, false) if time_at.is_none() => Column::Time,
                (None, 0 | 1, false) if !columns.contains(&Column::Value) => Column::Value,
                _ => return Err(unknown(name, names, curve, choice)),
            }
        };
        if column != Column::Ignored && columns.contains(&column) {
            return Err(Error::invalid_body(format!(
                "column \"{name}\" repeats the {} column",
                column.name()
            )));
        }
        columns.push(column);
    }
    check_needed(&columns, curve)?;
    Ok(columns)
}

/// The column a header names by its name: the one of that name, else the only one of that
/// name in another case; `None` when the caller names none.
fn chosen(names: &csv::StringRecord, wanted: Option<&str>, option: &str) -> Result<Option<usize>> {
    let Some(wanted) = wanted else {
        return Ok(None);
    };
    let wanted = wanted.trim();
    if let Some(i) = names.iter().position(|n| n.trim() == wanted) {
        return Ok(Some(i));
    }
    let folded: Vec<usize> = names
        .iter()
        .enumerate()
        .filter(|(_, n)| n.trim().eq_ignore_ascii_case(wanted))
        .map(|(i, _)| i)
        .collect();
    match folded.as_slice() {
        [one] => Ok(Some(*one)),
        [] => Err(Error::invalid_parameter(format!(
            "{option} \"{}\": the header has no such column; its columns are {}",
            crate::ids::shorten(wanted),
            listed(names)
        ))),
        _ => Err(Error::invalid_parameter(format!(
            "{option} \"{}\": the header has {} columns of that name in other cases ({}); \
             name one as the header writes it",
            crate::ids::shorten(wanted),
            folded.len(),
            folded
                .iter()
                .map(|i| names.get(*i).unwrap_or_default().trim())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The column a header name says, if the reader knows the name.
fn known_column(name: &str, curve: bool) -> Option<Column> {
    let lower = name.trim().to_ascii_lowercase();
    Some(match (lower.as_str(), curve) {
        ("time" | "date" | "timestamp", false) => Column::Time,
        ("settlementdate", false) => Column::SettlementDate,
        ("settlementperiod", false) => Column::SettlementPeriod,
        ("ondate" | "curvedate", true) => Column::Ondate,
        ("tenor", true) => Column::Tenor,
        ("value", _) => Column::Value,
        ("status" | "quality", _) => Column::Quality,
        ("source", _) => Column::Source,
        ("reliability", _) => Column::Reliability,
        _ => return None,
    })
}

/// The header's columns as a list for messages (the first 40 of them).
fn listed(names: &csv::StringRecord) -> String {
    let mut list: Vec<String> = names
        .iter()
        .take(40)
        .map(|n| crate::ids::shorten(n.trim()))
        .collect();
    if names.len() > 40 {
        list.push(format!("and {} more", names.len() - 40));
    }
    list.join(", ")
}

/// A column the reader does not know: the file's columns, the names it knows and the options
/// that read a file as published.
fn unknown(name: &str, names: &csv::StringRecord, curve: bool, choice: &ColumnChoice) -> Error {
    let (value, time) = choice.options;
    let (known, option) = if curve {
        (
            "ondate, tenor, value, status (or quality), source, reliability",
            format!("name its value column with {value} NAME"),
        )
    } else {
        (
            "time (or settlementDate and settlementPeriod), value, status (or quality), \
             source, reliability",
            format!(
                "name its value column with {value} NAME (and its time column with {time} \
                 NAME, unless settlementDate and settlementPeriod key the rows)"
            ),
        )
    };
    Error::invalid_body(format!(
        "unknown column \"{}\": the header's columns are {}; to read a file as published, \
         {option} and the other columns are left out; else use {known}",
        crate::ids::shorten(name.trim()),
        listed(names)
    ))
}

/// Refuses a header without the columns its kind of file needs.
fn check_needed(columns: &[Column], curve: bool) -> Result<()> {
    let settlement = [Column::SettlementDate, Column::SettlementPeriod];
    let keyed = settlement.iter().any(|c| columns.contains(c));
    if keyed && columns.contains(&Column::Time) {
        return Err(Error::invalid_body(
            "a settlement file keys its rows by settlementDate and settlementPeriod: drop the \
             time column",
        ));
    }
    let needed: &[Column] = if curve {
        &[Column::Ondate, Column::Tenor, Column::Value]
    } else if keyed {
        &[
            Column::SettlementDate,
            Column::SettlementPeriod,
            Column::Value,
        ]
    } else {
        &[Column::Time, Column::Value]
    };
    for needed in needed {
        if !columns.contains(needed) {
            return Err(Error::invalid_body(format!(
                "the header has no {} column",
                needed.name()
            )));
        }
    }
    Ok(())
}
