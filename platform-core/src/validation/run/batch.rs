//! A batch of runs (`runMany`): its request ([`ValidationBatch`]) and its answer
//! ([`ValidationBatchResult`], an item per data item: [`BatchItemResult`]), made by the runner
//! as it stores each item. Their serde forms are the body and the answer of `runMany`.

use super::request::{RunRequest, When};
use crate::error::{Error, ErrorCode, Result};
use crate::validation::counts::{StatusCounts, ValidationKind, ValidationStatus};
use crate::validation::jobs::QueuedRun;
use crate::validation::shared::strings;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

fn is_false(b: &bool) -> bool {
    !*b
}

/// Runs of the saved checks of several data items at once (`runMany`): the same points,
/// range, checks and tenors for each. Up to 25 items without a range run at once; more, a
/// range, `background` or a delay go to a background job. Its serde form is the body.
///
/// ```
/// use platform_core::api::validation::ValidationBatch;
/// use chrono::NaiveDate;
/// let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
/// let batch = ValidationBatch::new(["NBP:SPOT", "TTF:SPOT"]).between(d(1), d(7));
/// assert_eq!(serde_json::to_value(&batch).unwrap(), serde_json::json!({
///     "targets": ["NBP:SPOT", "TTF:SPOT"], "from": "2024-05-01", "to": "2024-05-07"}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationBatch {
    /// The data ids.
    pub targets: Vec<String>,
    /// These points of each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<When>,
    /// Points at or after this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<When>,
    /// Points at or before this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<When>,
    /// Only the checks with these names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<String>>,
    /// Curves: only these tenors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenors: Option<Vec<String>>,
    /// A configuration sent along: a batch runs the saved configurations, so each item that
    /// could run refuses it (`config is for test only`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<Value>,
    /// Run in the background.
    #[serde(skip_serializing_if = "is_false")]
    pub background: bool,
    /// Milliseconds (at most 60,000) before the background job starts (`_delay`).
    #[serde(rename = "_delay", skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Who asked, as records keep it (`manual` when `None`); not part of the body.
    #[serde(skip)]
    pub origin: Option<String>,
}

impl ValidationBatch {
    /// A batch checking the latest point of each data item (a curve: its newest ondate).
    pub fn new<S: Into<String>>(targets: impl IntoIterator<Item = S>) -> ValidationBatch {
        ValidationBatch {
            targets: targets.into_iter().map(Into::into).collect(),
            ..ValidationBatch::default()
        }
    }

    /// The same batch over the points from `from` to `to`, both included (it runs in the
    /// background).
    pub fn between(self, from: impl Into<When>, to: impl Into<When>) -> ValidationBatch {
        ValidationBatch {
            from: Some(from.into()),
            to: Some(to.into()),
            ..self
        }
    }

    /// The same batch on these points of each data item.
    pub fn at<W: Into<When>>(self, points: impl IntoIterator<Item = W>) -> ValidationBatch {
        ValidationBatch {
            points: points.into_iter().map(Into::into).collect(),
            ..self
        }
    }

    /// The batch a body of `runMany` asks for: `targets` (required), and the fields of a run
    /// each item shares, checked as a run's are (one malformed is refused for the whole batch,
    /// not an error per item nor a job that fails later).
    ///
    /// ```
    /// use platform_core::api::validation::ValidationBatch;
    /// let batch = ValidationBatch::from_body(&serde_json::json!({
    ///     "targets": ["NBP:SPOT"], "points": ["2024-05-01"], "_delay": "500"}))?;
    /// assert_eq!((batch.targets.len(), batch.points.len(), batch.delay_ms), (1, 1, Some(500)));
    /// let e = ValidationBatch::from_body(&serde_json::json!({"points": []})).unwrap_err();
    /// assert_eq!(e.to_string(), "targets is missing");
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn from_body(body: &Value) -> Result<ValidationBatch> {
        let targets = strings(body.get("targets"), "targets")?
            .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "targets is missing"))?;
        let shared = RunRequest::from_json(body)?;
        let when = |t: &Option<String>| t.as_deref().map(When::of_text);
        Ok(ValidationBatch {
            targets,
            points: shared.points.iter().map(|t| When::of_text(t)).collect(),
            from: when(&shared.from),
            to: when(&shared.to),
            checks: shared.checks,
            tenors: shared.tenors,
            config: shared.config,
            background: shared.background,
            delay_ms: shared.delay_ms,
            origin: None,
        })
    }

    /// What each item's run shares, as the runner reads it (the points checked).
    pub(super) fn shared(&self) -> Result<RunRequest> {
        let req = RunRequest {
            target: None,
            config: self.config.clone(),
            points: self.points.iter().map(When::text).collect(),
            from: self.from.as_ref().map(When::text),
            to: self.to.as_ref().map(When::text),
            checks: self.checks.clone(),
            tenors: self.tenors.clone(),
            background: self.background,
            delay_ms: self.delay_ms,
        };
        req.check()?;
        Ok(req)
    }

    /// The body of the batch, as its background job keeps it.
    pub(super) fn body(&self) -> Result<Value> {
        serde_json::to_value(self)
            .map_err(|e| Error::Internal(format!("a validation batch does not write: {e}")))
    }

    pub(super) fn origin(&self) -> &str {
        self.origin.as_deref().unwrap_or("manual")
    }
}

/// One data item of a batch: how its run went. Its serde form is the item of the answer: an
/// item that ran (or found nothing to check, or went to a job of its own) with its every
/// field, one that could not run (no kind, an `error`) with its target, status, error and
/// time only.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchItemResult {
    /// The data id.
    pub target: String,
    /// A series or a curve (`None` when it could not run, or went to a job).
    #[serde(default)]
    pub kind: Option<ValidationKind>,
    /// The configuration's name.
    #[serde(default)]
    pub name: Option<String>,
    /// Points checked.
    #[serde(default)]
    pub points: u64,
    /// Points by status.
    #[serde(default)]
    pub counts: StatusCounts,
    /// The worst status of its records (`overridden` when all are; `skipped` when nothing
    /// was checked; `error` when it could not run).
    pub status: ValidationStatus,
    /// Why nothing was checked.
    #[serde(default)]
    pub message: Option<String>,
    /// The ids of its records (the first 100).
    #[serde(default)]
    pub ids: Vec<String>,
    /// Their points.
    #[serde(default)]
    pub point_list: Vec<String>,
    /// Whether more records than `ids` lists were written.
    #[serde(default)]
    pub list_truncated: bool,
    /// A curve: the tenors that failed.
    #[serde(default)]
    pub failed_tenors: Option<Vec<String>>,
    /// Milliseconds it took.
    #[serde(default)]
    pub ms: f64,
    /// Why it could not run (`no validation`, `disabled`, the data unreadable...).
    #[serde(default)]
    pub error: Option<String>,
    /// The background job it went to (more points than its configuration's `maxPoints`):
    /// nothing of it is checked yet, though its status says `skipped`
    /// ([`crate::api::validation::Validation::run_batch_and_wait`] checks it now).
    #[serde(default)]
    pub job: Option<String>,
}

impl Serialize for BatchItemResult {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("target", &self.target)?;
        if let (None, Some(error)) = (self.kind, &self.error) {
            map.serialize_entry("status", &self.status)?;
            map.serialize_entry("error", error)?;
            map.serialize_entry("ms", &self.ms)?;
            return map.end();
        }
        map.serialize_entry("kind", &self.kind)?;
        map.serialize_entry("name", &self.name)?;
        map.serialize_entry("points", &self.points)?;
        map.serialize_entry("counts", &self.counts)?;
        map.serialize_entry("status", &self.status)?;
        map.serialize_entry("message", &self.message)?;
        map.serialize_entry("ids", &self.ids)?;
        map.serialize_entry("pointList", &self.point_list)?;
        map.serialize_entry("ms", &self.ms)?;
        if self.list_truncated {
            map.serialize_entry("listTruncated", &true)?;
        }
        if let Some(tenors) = &self.failed_tenors {
            map.serialize_entry("failedTenors", tenors)?;
        }
        if let Some(error) = &self.error {
            map.serialize_entry("error", error)?;
        }
        if let Some(job) = &self.job {
            map.serialize_entry("job", job)?;
        }
        map.end()
    }
}

/// The outcome of a batch: each data item's, or the background job it went to. Its serde form
/// is the answer of `runMany`: `{targets, counts, results}`, or for a batch sent to the
/// background `{background: true, message, job}`. It reads back from a background batch's
/// stored result ([`crate::api::jobs::JobInfo::outcome`]).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ValidationBatchResult {
    /// Data items run.
    pub targets: u64,
    /// Data items by status.
    pub counts: StatusCounts,
    /// Each data item's outcome, in the order asked.
    pub results: Vec<BatchItemResult>,
    /// Whether it went to a background job.
    pub background: bool,
    /// Where the background job went.
    pub message: Option<String>,
    /// The background job ([`crate::api::jobs::Jobs::run_next`] or a server's worker runs it).
    pub job: Option<String>,
}

impl ValidationBatchResult {
    /// A batch sent to the background.
    pub(super) fn queued(queued: QueuedRun) -> ValidationBatchResult {
        ValidationBatchResult {
            background: true,
            message: Some(queued.message),
            job: Some(queued.job),
            ..ValidationBatchResult::default()
        }
    }
}

impl Serialize for ValidationBatchResult {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if let (true, Some(job)) = (self.background, &self.job) {
            let queued = QueuedRun {
                job: job.clone(),
                message: self.message.clone().unwrap_or_default(),
            };
            return queued.serialize(s);
        }
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("targets", &self.targets)?;
        map.serialize_entry("counts", &self.counts)?;
        map.serialize_entry("results", &self.results)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch's answer is written as `runMany` answers it: an item that ran with its every
    /// field (a curve's failed tenors last), one that found nothing with why, one that went to
    /// a job with the job, one that could not run with its error alone; the counts in the
    /// order the items' statuses were met.
    #[test]
    fn a_batch_result_is_written_as_run_many_answers() {
        let ran = BatchItemResult {
            target: "TTF:FWD".into(),
            kind: Some(ValidationKind::Curve),
            name: Some("ttf".into()),
            points: 1,
            counts: [ValidationStatus::Failed].into_iter().collect(),
            status: ValidationStatus::Failed,
            ids: vec!["TTF:FWD:2024-02-28".into()],
            point_list: vec!["2024-02-28".into()],
            ms: 1.27,
            failed_tenors: Some(vec!["M02".into()]),
            ..BatchItemResult::default()
        };
        let disabled = BatchItemResult {
            target: "NBP:OFF".into(),
            kind: Some(ValidationKind::TimeSeries),
            status: ValidationStatus::Skipped,
            message: Some("the configuration is disabled".into()),
            ms: 0.49,
            error: Some("disabled".into()),
            ..BatchItemResult::default()
        };
        let queued = BatchItemResult {
            target: "NBP:BIG".into(),
            status: ValidationStatus::Skipped,
            message: Some("the run runs in the background as job job-1".into()),
            ms: 11.3,
            job: Some("job-1".into()),
            ..BatchItemResult::default()
        };
        let missing = BatchItemResult {
            target: "NOPE:X".into(),
            status: ValidationStatus::Error,
            error: Some("no validation".into()),
            ms: 8.0,
            ..BatchItemResult::default()
        };
        let batch = ValidationBatchResult {
            targets: 4,
            counts: [
                ValidationStatus::Failed,
                ValidationStatus::Skipped,
                ValidationStatus::Skipped,
                ValidationStatus::Error,
            ]
            .into_iter()
            .collect(),
            results: vec![ran, disabled, queued, missing],
            ..ValidationBatchResult::default()
        };
        assert_eq!(
            serde_json::to_string(&batch).unwrap(),
            concat!(
                r#"{"targets":4,"counts":{"failed":1,"skipped":2,"error":1},"results":["#,
                r#"{"target":"TTF:FWD","kind":"curve","name":"ttf","points":1,"counts":{"failed":1},"#,
                r#""status":"failed","message":null,"ids":["TTF:FWD:2024-02-28"],"#,
                r#""pointList":["2024-02-28"],"ms":1.27,"failedTenors":["M02"]},"#,
                r#"{"target":"NBP:OFF","kind":"timeseries","name":null,"points":0,"counts":{},"#,
                r#""status":"skipped","message":"the configuration is disabled","ids":[],"#,
                r#""pointList":[],"ms":0.49,"error":"disabled"},"#,
                r#"{"target":"NBP:BIG","kind":null,"name":null,"points":0,"counts":{},"#,
                r#""status":"skipped","message":"the run runs in the background as job job-1","#,
                r#""ids":[],"pointList":[],"ms":11.3,"job":"job-1"},"#,
                r#"{"target":"NOPE:X","status":"error","error":"no validation","ms":8.0}]}"#
            )
        );
        // It reads back (a background batch's stored result).
        let text = serde_json::to_string(&batch).unwrap();
        let back: ValidationBatchResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back, batch);
        // Sent to the background: the job and where it went.
        let queued = ValidationBatchResult::queued(QueuedRun {
            job: "job-2".into(),
            message: "the runMany runs in the background as job job-2".into(),
        });
        assert_eq!(
            serde_json::to_string(&queued).unwrap(),
            r#"{"background":true,"message":"the runMany runs in the background as job job-2","job":"job-2"}"#
        );
    }

    /// An item over more records than it lists says so after its time.
    #[test]
    fn a_truncated_item_says_so_after_its_time() {
        let item = BatchItemResult {
            target: "A:S".into(),
            kind: Some(ValidationKind::TimeSeries),
            points: 101,
            status: ValidationStatus::Valid,
            list_truncated: true,
            ms: 2.0,
            ..BatchItemResult::default()
        };
        let text = serde_json::to_string(&item).unwrap();
        assert!(
            text.ends_with(r#""pointList":[],"ms":2.0,"listTruncated":true}"#),
            "{text}"
        );
    }
}
