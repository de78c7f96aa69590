//! The dashboard's query ([`StatsQuery`], read from the query parameters) and answer
//! ([`ValidationStats`]), whose serde form is the answer of `GET
//! validation/v1?_function=stats`, field for field and in order.

use crate::error::{Error, Result};
use crate::query::Params;
use crate::validation::counts::{StatusCounts, ValidationKind, ValidationStatus};
use crate::validation::records::{Resolution, TimelineEvent, ValidationRecord};
use chrono::{DateTime, NaiveDate, Utc};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The records the dashboard counts: all of the caller's, or those of some point dates, a
/// data item, a kind or a configuration group.
///
/// ```
/// use platform_core::api::{Params, validation::StatsQuery};
/// let q = StatsQuery { kind: Some("curve".into()), ..Default::default() };
/// assert!(q.from.is_none() && q.target.is_none());
/// let read = StatsQuery::from_params(&Params::from_slice(&[("kind", "curve")]))?;
/// assert_eq!(read, q);
/// let e = StatsQuery::from_params(&Params::from_slice(&[("from", "2024-1-01")])).unwrap_err();
/// assert_eq!(e.to_string(), "from \"2024-1-01\" is not a date: stats take dates as YYYY-MM-DD");
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatsQuery {
    /// Points dated on or after this day.
    pub from: Option<NaiveDate>,
    /// Points dated on or before this day.
    pub to: Option<NaiveDate>,
    /// Only this data item's records.
    pub target: Option<String>,
    /// Only the records of this kind, as records name it (`timeseries` or `curve`; another
    /// counts none).
    pub kind: Option<String>,
    /// Only the records of configurations of this group ("": of none).
    pub group: Option<String>,
}

impl StatsQuery {
    /// The query the parameters of `GET validation/v1?_function=stats` ask: `from` and `to`
    /// (dates, `YYYY-MM-DD`), `target`, `kind` and `group`; other parameters are not read.
    pub fn from_params(params: &Params) -> Result<StatsQuery> {
        let day = |bound: &str| -> Result<Option<NaiveDate>> {
            let Some(text) = params.get(bound) else {
                return Ok(None);
            };
            match NaiveDate::parse_from_str(text, "%Y-%m-%d") {
                Ok(d) if text.len() == 10 => Ok(Some(d)),
                _ => Err(Error::invalid_parameter(format!(
                    "{bound} \"{text}\" is not a date: stats take dates as YYYY-MM-DD"
                ))),
            }
        };
        let text = |k: &str| params.get(k).map(str::to_string);
        Ok(StatsQuery {
            from: day("from")?,
            to: day("to")?,
            target: text("target"),
            kind: text("kind"),
            group: text("group"),
        })
    }

    /// Whether the dashboard counts a record.
    pub(super) fn keeps(&self, r: &ValidationRecord) -> bool {
        self.from.is_none_or(|f| r.point_date >= f)
            && self.to.is_none_or(|t| r.point_date <= t)
            && self.target.as_ref().is_none_or(|t| r.target == *t)
            && self.kind.as_ref().is_none_or(|k| r.kind.name() == k)
            && self
                .group
                .as_ref()
                .is_none_or(|g| r.group.as_deref().unwrap_or_default() == g)
    }
}

/// The dashboard's totals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsTotals {
    /// Records counted.
    pub records: u64,
    /// Data items they belong to.
    pub targets: u64,
    /// Records failing now.
    pub open: u64,
    /// Records that stopped failing.
    pub resolved: u64,
}

/// The records of one point date, by status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DayCounts {
    /// The date.
    pub day: NaiveDate,
    /// Its records by status, in the order first met.
    pub counts: StatusCounts,
}

/// The records of one data item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetStats {
    /// The data id.
    pub target: String,
    /// Its configuration's name ("" when none).
    pub name: String,
    /// Its records.
    pub records: u64,
    /// Those failing.
    pub failing: u64,
    /// The worst status of its records (`valid` at best).
    pub status: ValidationStatus,
}

/// One check over the records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckStats {
    /// The check's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Records it checked.
    pub runs: u64,
    /// Records it did not pass.
    pub failures: u64,
}

/// An open issue: a record failing now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenIssue {
    /// The record id.
    #[serde(rename = "_id")]
    pub id: String,
    /// The data id.
    pub target: String,
    /// The point.
    pub point: String,
    /// Its failing status.
    pub status: ValidationStatus,
    /// Since when it fails.
    #[serde(default, with = "crate::clock::serde_instant::option")]
    pub open_since: Option<DateTime<Utc>>,
}

/// Writes counts by resolution as an object, in their order.
fn resolution_counts<S: Serializer>(
    counts: &[(Resolution, u64)],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(counts.len()))?;
    for (resolution, n) in counts {
        map.serialize_entry(resolution, n)?;
    }
    map.end()
}

/// Records that stopped failing.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedStats {
    /// How many.
    pub count: u64,
    /// The mean minutes they failed (`None` when none stopped).
    pub mean_minutes: Option<f64>,
    /// How many by override, how many by a passing run, in the order first met (written as
    /// an object).
    #[serde(serialize_with = "resolution_counts")]
    pub by_resolution: Vec<(Resolution, u64)>,
}

/// A timeline entry of a record, in the dashboard's activity: the entry, then its record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityEntry {
    /// The entry.
    #[serde(flatten)]
    pub event: TimelineEvent,
    /// The record id.
    #[serde(rename = "_id")]
    pub id: String,
}

/// The caller's validation configurations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigStats {
    /// How many.
    pub count: u64,
    /// Those enabled.
    pub enabled: u64,
    /// Those that run when their data is updated.
    pub run_on_update: u64,
}

/// The dashboard statistics of the caller's validation records.
///
/// (See [`crate::api::validation::Validation::stats`] for an example.)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationStats {
    /// Records, data items, open and resolved issues.
    pub totals: StatsTotals,
    /// Data items counted.
    pub targets: u64,
    /// Records by status, in the order first met.
    pub by_status: StatusCounts,
    /// Records by kind (curves first), by status.
    pub by_kind: BTreeMap<ValidationKind, StatusCounts>,
    /// Records by point date, by status, oldest first.
    pub by_day: Vec<DayCounts>,
    /// Records by data item, by data id.
    pub by_target: Vec<TargetStats>,
    /// Records by check, by check id.
    pub by_check: Vec<CheckStats>,
    /// The oldest open issues (at most 20).
    pub open: Vec<OpenIssue>,
    /// Records that stopped failing.
    pub resolved: ResolvedStats,
    /// The newest timeline entries (at most 20), newest first.
    pub activity: Vec<ActivityEntry>,
    /// The configurations.
    pub configs: ConfigStats,
}
