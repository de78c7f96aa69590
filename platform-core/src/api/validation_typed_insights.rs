//! Typed calls of the validation service over many records or a window of data: the
//! dashboard ([`StatsQuery`] → [`ValidationStats`]), suggested checks ([`SuggestionRequest`]
//! → [`Suggestions`]) and tuned checks ([`TuningRequest`] → [`Tunings`]).
//!
//! As in `validation_typed`, each typed call is the JSON call with typed values on either
//! side.

use super::validation_typed::{from_json, Resolution, TimelineEvent};
use super::ValidationKind;
use super::{ValidationCounts, ValidationStatus, When};
use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::query::Params;
use crate::validation::Validation;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The records the dashboard counts: all of the caller's, or those of some point dates, a
/// data item, a kind or a configuration group.
///
/// ```
/// use platform_core::api::{StatsQuery, ValidationKind};
/// let q = StatsQuery { kind: Some(ValidationKind::Curve), ..Default::default() };
/// assert!(q.from.is_none() && q.target.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatsQuery {
    /// Points dated on or after this day.
    pub from: Option<NaiveDate>,
    /// Points dated on or before this day.
    pub to: Option<NaiveDate>,
    /// Only this data item's records.
    pub target: Option<String>,
    /// Only series' or only curves' records.
    pub kind: Option<ValidationKind>,
    /// Only the records of configurations of this group.
    pub group: Option<String>,
}

impl StatsQuery {
    /// The query parameters of the JSON call.
    pub(super) fn params(&self) -> Params {
        let day = |d: &Option<NaiveDate>| d.map(|d| d.format("%Y-%m-%d").to_string());
        let kind = self.kind.map(|k| match k {
            ValidationKind::TimeSeries => "timeseries".to_string(),
            ValidationKind::Curve => "curve".to_string(),
        });
        let pairs = [
            ("from", day(&self.from)),
            ("to", day(&self.to)),
            ("target", self.target.clone()),
            ("kind", kind),
            ("group", self.group.clone()),
        ];
        Params::new(
            pairs
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
                .collect(),
        )
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
    /// Its records by status.
    pub counts: ValidationCounts,
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
    /// The worst status of its records.
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

/// Records that stopped failing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedStats {
    /// How many.
    pub count: u64,
    /// The mean minutes they failed (`None` when none stopped).
    pub mean_minutes: Option<f64>,
    /// How many by override, how many by a passing run.
    pub by_resolution: BTreeMap<Resolution, u64>,
}

/// A timeline entry of a record, in the dashboard's activity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityEntry {
    /// The record id.
    #[serde(rename = "_id")]
    pub id: String,
    /// The entry.
    #[serde(flatten)]
    pub event: TimelineEvent,
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
/// (See [`Validation::statistics`] for an example.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationStats {
    /// Records, data items, open and resolved issues.
    pub totals: StatsTotals,
    /// Data items counted.
    pub targets: u64,
    /// Records by status.
    pub by_status: ValidationCounts,
    /// Records by kind, by status.
    pub by_kind: BTreeMap<ValidationKind, ValidationCounts>,
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

/// A request for checks proposed from the recent history of data items (`suggest`): up to 25
/// data ids of one kind, over the last `days` (1 to 366, default 30; curves also at most the
/// newest `max_curves`, 2 to 60, default 25). Its serde form is the JSON body.
///
/// ```
/// use platform_core::api::SuggestionRequest;
/// let req = SuggestionRequest { days: Some(60), ..SuggestionRequest::new(["NBP:SPOT"]) };
/// assert_eq!(serde_json::to_value(&req).unwrap(), serde_json::json!({
///     "targets": ["NBP:SPOT"], "kind": "timeseries", "days": 60}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestionRequest {
    /// The data ids.
    pub targets: Vec<String>,
    /// Their kind.
    pub kind: ValidationKind,
    /// Days back from today.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<u64>,
    /// Curves: the newest curves kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_curves: Option<u64>,
}

impl SuggestionRequest {
    /// A request for series, over the default window.
    pub fn new<S: Into<String>>(targets: impl IntoIterator<Item = S>) -> SuggestionRequest {
        SuggestionRequest {
            targets: targets.into_iter().map(Into::into).collect(),
            ..SuggestionRequest::default()
        }
    }
}

/// The statistics of a data item's window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowStats {
    /// Values present.
    pub values: u64,
    /// Values missing.
    pub missing: u64,
    /// Values that are 0.
    pub zeros: u64,
    /// Values below 0.
    pub negatives: u64,
    /// The least value.
    pub min: Option<f64>,
    /// The greatest.
    pub max: Option<f64>,
    /// Their mean.
    pub mean: Option<f64>,
    /// Their standard deviation.
    pub stdev: Option<f64>,
    /// A series: the longest gap, in calendar steps (`None` without a regular calendar).
    #[serde(default)]
    pub longest_gap: Option<u64>,
    /// A series: the longest run of one value.
    #[serde(default)]
    pub longest_run: Option<u64>,
    /// Curves: how many.
    #[serde(default)]
    pub curves: Option<u64>,
    /// Curves: the fewest contracts of one.
    #[serde(default)]
    pub fewest_contracts: Option<u64>,
    /// Curves: the most contracts of one.
    #[serde(default)]
    pub most_contracts: Option<u64>,
}

/// A point of the window failing a check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailingPoint {
    /// The point (observation time or ondate).
    pub point: String,
    /// The value there (a curve: the contract's).
    pub value: Option<f64>,
    /// The check's message.
    pub message: String,
    /// A curve: the tenor.
    #[serde(default)]
    pub tenor: Option<String>,
    /// Whether the check could not run there.
    #[serde(default)]
    pub error: bool,
}

/// Runs and failures of a check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckTally {
    /// Evaluations.
    pub runs: u64,
    /// Those that did not pass.
    pub failures: u64,
}

/// A proposed check, scored over the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestedCheck {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its expression.
    pub expression: String,
    /// Its severity.
    pub severity: String,
    /// Curves: `point`, `tenor` or `curve`.
    #[serde(default)]
    pub scope: Option<String>,
    /// Why, with the numbers behind it.
    pub reason: String,
    /// Evaluations over the window.
    pub runs: u64,
    /// Those that failed.
    pub failures: u64,
    /// The first point failing it.
    pub example: Option<FailingPoint>,
    /// Whether it passed on every point.
    pub suggested: bool,
    /// Whether it is in the item's proposed configuration.
    pub in_config: bool,
    /// Over the newest part of the window (not fitted).
    pub holdout: CheckTally,
}

/// The proposals for one data item, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestedItem {
    /// The data id.
    pub target: String,
    /// Its kind, as asked.
    pub kind: ValidationKind,
    /// Points in the window.
    #[serde(default)]
    pub points: u64,
    /// The window's statistics.
    #[serde(default)]
    pub stats: Option<WindowStats>,
    /// The proposed checks.
    #[serde(default)]
    pub checks: Vec<SuggestedCheck>,
    /// A configuration of the checks worth keeping (JSON), which saves as it is.
    #[serde(default)]
    pub config: Option<Value>,
    /// Why some rules proposed nothing.
    #[serde(default)]
    pub message: Option<String>,
    /// Why the item could not be read.
    #[serde(default)]
    pub error: Option<String>,
    /// Milliseconds it took.
    pub ms: f64,
}

/// What `suggest` proposes: the window and each data item's proposals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestions {
    /// The window's days.
    pub days: u64,
    /// Its first day.
    pub from: NaiveDate,
    /// Its last day (today).
    pub to: NaiveDate,
    /// Each data item's, in the order asked.
    pub results: Vec<SuggestedItem>,
}

/// A data item to tune: the failing points users marked (overridden ones are false alarms).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TuningItem {
    /// The data id.
    pub target: String,
    /// The failing points to tune for.
    pub points: Vec<When>,
    /// Curves: only these tenors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenors: Option<Vec<String>>,
}

/// A request for relaxed thresholds of saved checks (`tune`): up to 25 items, over the
/// window of [`SuggestionRequest`] (widened to the oldest point given). Its serde form is
/// the JSON body.
///
/// ```
/// use platform_core::api::{TuningItem, TuningRequest};
/// use chrono::NaiveDate;
/// let day = NaiveDate::from_ymd_opt(2024, 5, 14).unwrap();
/// let req = TuningRequest::new([TuningItem { target: "TTF:FWD".into(), points: vec![day.into()], tenors: None }]);
/// assert_eq!(serde_json::to_value(&req).unwrap(), serde_json::json!({
///     "items": [{"target": "TTF:FWD", "points": ["2024-05-14"]}]}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TuningRequest {
    /// The items.
    pub items: Vec<TuningItem>,
    /// Days back from today.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<u64>,
    /// Curves: the newest curves kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_curves: Option<u64>,
}

impl TuningRequest {
    /// A request for these items over the default window.
    pub fn new(items: impl IntoIterator<Item = TuningItem>) -> TuningRequest {
        TuningRequest {
            items: items.into_iter().collect(),
            ..TuningRequest::default()
        }
    }
}

/// A check's failures over the window, before and after the proposal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TuneWindow {
    /// Evaluations.
    pub runs: u64,
    /// Failures with the saved check.
    pub before: u64,
    /// Failures with the proposal (the same without one).
    pub after: u64,
}

/// A saved check failing on the given points, and its relaxation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TunedCheck {
    /// The check's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its saved expression.
    pub expression: String,
    /// Its severity.
    pub severity: String,
    /// `point`, `tenor` or `curve`.
    pub scope: String,
    /// Given points (and tenors) failing it.
    pub failing: u64,
    /// Those points.
    pub failing_points: Vec<FailingPoint>,
    /// Evaluations over the window.
    pub runs: u64,
    /// Failing points that are false alarms.
    pub false_alarms: u64,
    /// Failures of the window left standing.
    pub standing: u64,
    /// The relaxed expression (`None` when none lets every false alarm pass).
    pub suggested: Option<String>,
    /// Why.
    pub reason: String,
    /// Standing failures the proposal would let through.
    #[serde(default)]
    pub lets_through: Option<Vec<String>>,
    /// The window's failures before and after.
    pub window: TuneWindow,
}

/// The relaxations for one item, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TunedItem {
    /// The data id.
    pub target: String,
    /// Its kind (`None` when it could not be read).
    #[serde(default)]
    pub kind: Option<ValidationKind>,
    /// Points in the window.
    #[serde(default)]
    pub points: u64,
    /// The checks failing on the given points.
    #[serde(default)]
    pub checks: Vec<TunedCheck>,
    /// Why nothing is tuned.
    #[serde(default)]
    pub message: Option<String>,
    /// Why the item could not be read.
    #[serde(default)]
    pub error: Option<String>,
    /// Milliseconds it took.
    pub ms: f64,
}

/// What `tune` proposes: the window and each item's relaxations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tunings {
    /// The window's days.
    pub days: u64,
    /// Its first day.
    pub from: NaiveDate,
    /// Its last day (today).
    pub to: NaiveDate,
    /// Each item's, in the order asked.
    pub results: Vec<TunedItem>,
}

/// The JSON body of a typed request.
fn body_of(what: &str, req: &impl Serialize) -> Result<Value> {
    serde_json::to_value(req)
        .map_err(|e| Error::Internal(format!("a {what} request does not write: {e}")))
}

impl Validation<'_> {
    /// Typed: the dashboard statistics of the caller's records.
    ///
    /// ```
    /// use platform_core::api::{StatsQuery, ValidationKind};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let curves = StatsQuery { kind: Some(ValidationKind::Curve), ..Default::default() };
    /// let stats = platform.validation().statistics(&me, &curves)?;
    /// assert_eq!((stats.totals.records, stats.configs.count), (0, 0));
    /// assert!(stats.resolved.mean_minutes.is_none());
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn statistics(&self, p: &Principal, query: &StatsQuery) -> Result<ValidationStats> {
        from_json("statistics answer", self.stats(p, &query.params())?)
    }

    /// Typed: checks proposed from the recent history of data items; nothing is stored.
    ///
    /// ```
    /// use platform_core::api::{Point, SuggestionRequest};
    /// use chrono::{Duration, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let today = Utc::now().date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    /// let points: Vec<Point> = (1..=20).map(|d| Point::new(today - Duration::days(d), 50.0 + d as f64)).collect();
    /// platform.data().write_series(&me, "NBP:SPOT", &points, &Default::default())?;
    /// let proposed = platform.validation().suggest_checks(&me, &SuggestionRequest::new(["NBP:SPOT"]))?;
    /// let item = &proposed.results[0];
    /// assert_eq!((item.points, item.stats.as_ref().unwrap().values), (20, 20));
    /// assert!(item.checks.iter().any(|c| c.expression == "value > 0" && c.in_config));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn suggest_checks(&self, p: &Principal, req: &SuggestionRequest) -> Result<Suggestions> {
        from_json(
            "suggest answer",
            self.suggest(p, &body_of("suggest", req)?)?,
        )
    }

    /// Typed: relaxed thresholds for the saved checks failing on the given points; nothing
    /// is stored.
    ///
    /// ```
    /// use platform_core::api::{Collection, Point, TuningItem, TuningRequest, ValidationRequest};
    /// use chrono::{Duration, Utc};
    /// use serde_json::json;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let today = Utc::now().date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    /// let spike = today - Duration::days(2);
    /// let points: Vec<Point> = (1..=10)
    ///     .map(|d| today - Duration::days(d))
    ///     .map(|t| Point::new(t, if t == spike { 150.0 } else { 50.0 }))
    ///     .collect();
    /// platform.data().write_series(&me, "NBP:SPOT", &points, &Default::default())?;
    /// platform.objects().save(&me, Collection::ValidationConfig, json!({
    ///     "_id": "NBP:SPOT", "kind": "timeseries",
    ///     "checks": [{"name": "cap", "expression": "value < 100"}]
    /// }), &Default::default())?;
    /// let validation = platform.validation();
    /// let _checked = validation.run(&me, &ValidationRequest::new("NBP:SPOT").at([spike]))?;
    /// // The spike was real: a false alarm of the check.
    /// let record = &validation.validation_records(&me, &Default::default())?.items[0];
    /// validation.override_records(&me, &[&record.id], "a real spike")?;
    /// let item = TuningItem { target: "NBP:SPOT".into(), points: vec![spike.into()], tenors: None };
    /// let tuned = validation.tune_checks(&me, &TuningRequest::new([item]))?;
    /// let cap = &tuned.results[0].checks[0];
    /// assert_eq!((cap.false_alarms, cap.window.before, cap.window.after), (1, 1, 0));
    /// assert!(cap.suggested.as_deref().is_some_and(|e| e != "value < 100"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn tune_checks(&self, p: &Principal, req: &TuningRequest) -> Result<Tunings> {
        from_json("tune answer", self.tune(p, &body_of("tune", req)?)?)
    }
}
