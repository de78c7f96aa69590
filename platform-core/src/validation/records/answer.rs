//! The typed parts of a record the answers show, made from a record and its chunk: its checks
//! as the record shows them ([`RecordCheck`]) and a curve's tenor fields ([`TenorResult`], kept
//! in the record as it stored them).

use super::chunk::{CheckMeta, Chunk, RunInfo};
use super::record::{CheckResult, Record};
use super::status::{failing, WARNING};
use crate::error::{Error, Result};
use crate::validation::counts::{StatusCounts, ValidationStatus};
use chrono::NaiveDate;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A check's result at a point, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordCheck {
    /// The check's id in its configuration.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `point`, `tenor` or `curve`.
    pub scope: String,
    /// `warning`, `failed` or `severe`.
    pub severity: String,
    /// Its status.
    pub status: ValidationStatus,
    /// Its message ("" when it passed).
    pub message: String,
    /// How often it failed: 0 or 1, for a tenor check the tenors failing it.
    pub failures: u64,
    /// Its messages.
    pub log: Vec<String>,
    /// Milliseconds it took per point in the last run.
    pub ms: f64,
    /// A tenor check: the tenors failing it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenors_failed: Option<u64>,
}

/// A curve's contract as its record keeps it (`tenors`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TenorResult {
    /// The tenor.
    pub tenor: String,
    /// The contract's value.
    pub value: Value,
    /// The worst status of its checks.
    pub status: ValidationStatus,
    /// The message of its failing checks.
    pub message: String,
    /// Each tenor check's outcome on it.
    pub checks: Vec<TenorCheck>,
}

/// One tenor check's outcome on a contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TenorCheck {
    /// The check's id.
    pub id: String,
    /// Its status.
    pub status: ValidationStatus,
    /// Its message ("" when it passed).
    pub message: String,
}

/// The names of a curve's tenor fields among a record's extra fields.
const CURVE_KEYS: [&str; 5] = [
    "tenors",
    "failedTenors",
    "warningTenors",
    "tenorCounts",
    "contracts",
];

/// A curve's tenor fields, as its record keeps them.
#[derive(Debug, Default)]
pub(crate) struct CurveFields {
    pub(crate) tenors: Option<Vec<TenorResult>>,
    pub(crate) failed_tenors: Option<Vec<String>>,
    pub(crate) warning_tenors: Option<Vec<String>>,
    pub(crate) tenor_counts: Option<StatusCounts>,
    pub(crate) contracts: Option<u64>,
}

impl CurveFields {
    /// The tenor fields a record keeps (none for a series).
    pub(crate) fn of(extra: Option<&Map<String, Value>>) -> Result<CurveFields> {
        let Some(extra) = extra else {
            return Ok(CurveFields::default());
        };
        Ok(CurveFields {
            tenors: field(extra, "tenors")?,
            failed_tenors: field(extra, "failedTenors")?,
            warning_tenors: field(extra, "warningTenors")?,
            tenor_counts: field(extra, "tenorCounts")?,
            contracts: field(extra, "contracts")?,
        })
    }

    /// A record's extra fields that are not tenor fields, in the order it keeps them.
    pub(crate) fn others(extra: &Map<String, Value>) -> Map<String, Value> {
        extra
            .iter()
            .filter(|(k, _)| !CURVE_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

/// A field of a record's stored tenor fields.
fn field<T: DeserializeOwned>(extra: &Map<String, Value>, key: &str) -> Result<Option<T>> {
    extra
        .get(key)
        .map(|v| T::deserialize(v))
        .transpose()
        .map_err(|e| Error::Internal(format!("a record's stored {key} does not read: {e}")))
}

/// A text of a run's configuration (its name, its group), when it is one.
pub(crate) fn run_text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_string)
}

/// The tags of a run's configuration, when it has them.
pub(crate) fn run_tags(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}

/// A check's result as the record shows it, with the check as its list has it (`meta`) and the
/// milliseconds it took per point in the last run.
fn record_check(meta: Option<&CheckMeta>, c: &CheckResult, ms: Option<f64>) -> RecordCheck {
    let text = |f: fn(&CheckMeta) -> &String| meta.map_or(String::new(), |m| f(m).clone());
    let failures = c
        .tenors_failed
        .unwrap_or(u32::from(failing(c.status) || c.status == WARNING));
    RecordCheck {
        id: text(|m| &m.id),
        name: text(|m| &m.name),
        scope: text(|m| &m.scope),
        severity: text(|m| &m.severity),
        status: ValidationStatus::of_code(c.status),
        message: c.message.to_string(),
        failures: u64::from(failures),
        log: if c.message.is_empty() {
            Vec::new()
        } else {
            vec![c.message.to_string()]
        },
        ms: (ms.unwrap_or(0.0) * 100.0).round() / 100.0,
        tenors_failed: c.tenors_failed.map(u64::from),
    }
}

impl Chunk {
    /// The run a record was last checked by.
    pub(crate) fn last_run_of(&self, r: &Record) -> Option<&RunInfo> {
        self.runs.get(r.last_run as usize)
    }

    /// A record's point, its date and its id.
    pub(crate) fn point_of(&self, r: &Record) -> (String, NaiveDate, String) {
        let (point, date) = self.texts(r);
        let day = NaiveDate::parse_from_str(&date, "%Y-%m-%d").unwrap_or_default();
        let id = format!("{}:{point}", self.target);
        (point, day, id)
    }

    /// Each check of a record as the record shows it.
    pub(crate) fn record_checks(&self, r: &Record) -> Vec<RecordCheck> {
        let run = self.last_run_of(r);
        let set = self.sets.get(r.set as usize);
        r.checks
            .iter()
            .enumerate()
            .map(|(i, c)| {
                record_check(
                    set.and_then(|s| s.get(i)),
                    c,
                    run.and_then(|x| x.ms.get(i)).copied(),
                )
            })
            .collect()
    }
}
