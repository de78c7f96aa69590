//! The statuses, kinds and counts the answers of the validation service share:
//! [`ValidationStatus`], [`ValidationKind`], [`ValidationCounts`] and [`StatusCounts`] (counts
//! in the order an answer writes them).

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The status of a checked point or of one check, worst last but `overridden`. Its serde
/// form is the lower-case name the JSON answers use.
///
/// ```
/// use platform_core::api::validation::ValidationStatus;
/// assert_eq!(serde_json::to_value(ValidationStatus::Failed).unwrap(), "failed");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValidationStatus {
    /// Not checked (no check applied).
    #[default]
    Skipped,
    /// Every check passed.
    Valid,
    /// A check of severity warning failed.
    Warning,
    /// A check failed.
    Failed,
    /// A check could not run (a script error).
    Error,
    /// A check of severity severe failed.
    Severe,
    /// A failure a user overrode.
    Overridden,
}

impl ValidationStatus {
    /// Whether the status counts as failing (`failed`, `error`, `severe`).
    ///
    /// ```
    /// use platform_core::api::validation::ValidationStatus;
    /// assert!(ValidationStatus::Severe.is_failing());
    /// assert!(!ValidationStatus::Warning.is_failing());
    /// ```
    pub fn is_failing(self) -> bool {
        matches!(
            self,
            ValidationStatus::Failed | ValidationStatus::Error | ValidationStatus::Severe
        )
    }

    /// Whether a point with this status passed: every check that ran passed (`valid`), none
    /// applied (`skipped`), or a user accepted its failure (`overridden`). The others
    /// (`warning`, `failed`, `error`, `severe`) are what a failing-points view shows.
    ///
    /// ```
    /// use platform_core::api::validation::ValidationStatus;
    /// assert!(ValidationStatus::Skipped.passed());
    /// assert!(!ValidationStatus::Warning.passed());
    /// ```
    pub fn passed(self) -> bool {
        matches!(
            self,
            ValidationStatus::Valid | ValidationStatus::Skipped | ValidationStatus::Overridden
        )
    }
    /// The name answers use.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ValidationStatus::Skipped => "skipped",
            ValidationStatus::Valid => "valid",
            ValidationStatus::Warning => "warning",
            ValidationStatus::Failed => "failed",
            ValidationStatus::Error => "error",
            ValidationStatus::Severe => "severe",
            ValidationStatus::Overridden => "overridden",
        }
    }

    /// The status of a record's status code (`skipped` for one unknown).
    pub(crate) fn of_code(code: u8) -> ValidationStatus {
        match code {
            1 => ValidationStatus::Valid,
            2 => ValidationStatus::Warning,
            3 => ValidationStatus::Failed,
            4 => ValidationStatus::Error,
            5 => ValidationStatus::Severe,
            6 => ValidationStatus::Overridden,
            _ => ValidationStatus::Skipped,
        }
    }

    /// The status of a status name (`skipped` for one unknown).
    pub(crate) fn of_name(name: &str) -> ValidationStatus {
        match name {
            "valid" => ValidationStatus::Valid,
            "warning" => ValidationStatus::Warning,
            "failed" => ValidationStatus::Failed,
            "error" => ValidationStatus::Error,
            "severe" => ValidationStatus::Severe,
            "overridden" => ValidationStatus::Overridden,
            _ => ValidationStatus::Skipped,
        }
    }
}

/// Points checked, by status (see [`super::Validation`] for a run that counts them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ValidationCounts {
    /// `skipped`.
    pub skipped: u64,
    /// `valid`.
    pub valid: u64,
    /// `warning`.
    pub warning: u64,
    /// `failed`.
    pub failed: u64,
    /// `error`.
    pub error: u64,
    /// `severe`.
    pub severe: u64,
    /// `overridden`.
    pub overridden: u64,
}

impl ValidationCounts {
    /// Points with a failing status (`failed`, `error`, `severe`).
    ///
    /// ```
    /// let c = platform_core::api::validation::ValidationCounts { valid: 5, failed: 1, severe: 1, ..Default::default() };
    /// assert_eq!(c.failing(), 2);
    /// ```
    pub fn failing(&self) -> u64 {
        self.failed + self.error + self.severe
    }

    /// The count of a status.
    pub fn get(&self, status: ValidationStatus) -> u64 {
        match status {
            ValidationStatus::Skipped => self.skipped,
            ValidationStatus::Valid => self.valid,
            ValidationStatus::Warning => self.warning,
            ValidationStatus::Failed => self.failed,
            ValidationStatus::Error => self.error,
            ValidationStatus::Severe => self.severe,
            ValidationStatus::Overridden => self.overridden,
        }
    }

    fn slot(&mut self, status: ValidationStatus) -> &mut u64 {
        match status {
            ValidationStatus::Skipped => &mut self.skipped,
            ValidationStatus::Valid => &mut self.valid,
            ValidationStatus::Warning => &mut self.warning,
            ValidationStatus::Failed => &mut self.failed,
            ValidationStatus::Error => &mut self.error,
            ValidationStatus::Severe => &mut self.severe,
            ValidationStatus::Overridden => &mut self.overridden,
        }
    }
}

/// Points, data items or contracts by status, as an answer counts them: the statuses met, in
/// the order they were first met, each with its count. Its serde form is the object of the
/// answers (`{"failed": 1, "valid": 2}`, in that order); it reads as [`ValidationCounts`].
///
/// ```
/// use platform_core::api::{validation::StatusCounts, validation::ValidationStatus};
/// let counts: StatusCounts =
///     [ValidationStatus::Failed, ValidationStatus::Valid, ValidationStatus::Failed].into_iter().collect();
/// assert_eq!((counts.failed, counts.valid, counts.failing()), (2, 1, 2));
/// assert_eq!(serde_json::to_string(&counts).unwrap(), r#"{"failed":2,"valid":1}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusCounts {
    counts: ValidationCounts,
    /// The statuses met, in the order they were first met.
    order: Vec<ValidationStatus>,
}

impl StatusCounts {
    /// Counts `n` more of `status`.
    pub fn add(&mut self, status: ValidationStatus, n: u64) {
        if !self.order.contains(&status) {
            self.order.push(status);
        }
        *self.counts.slot(status) += n;
    }

    /// Each status met and its count, in the order they were first met.
    pub fn iter(&self) -> impl Iterator<Item = (ValidationStatus, u64)> + '_ {
        self.order.iter().map(|s| (*s, self.counts.get(*s)))
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

impl std::ops::Deref for StatusCounts {
    type Target = ValidationCounts;

    fn deref(&self) -> &ValidationCounts {
        &self.counts
    }
}

impl From<ValidationCounts> for StatusCounts {
    /// The counts, the statuses in rank order (those with none left out).
    fn from(counts: ValidationCounts) -> StatusCounts {
        let mut out = StatusCounts::default();
        for status in [
            ValidationStatus::Skipped,
            ValidationStatus::Valid,
            ValidationStatus::Warning,
            ValidationStatus::Failed,
            ValidationStatus::Error,
            ValidationStatus::Severe,
            ValidationStatus::Overridden,
        ] {
            match counts.get(status) {
                0 => {}
                n => out.add(status, n),
            }
        }
        out
    }
}

impl FromIterator<ValidationStatus> for StatusCounts {
    fn from_iter<I: IntoIterator<Item = ValidationStatus>>(statuses: I) -> StatusCounts {
        let mut out = StatusCounts::default();
        for s in statuses {
            out.add(s, 1);
        }
        out
    }
}

impl Serialize for StatusCounts {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.order.len()))?;
        for (status, n) in self.iter() {
            map.serialize_entry(&status, &n)?;
        }
        map.end()
    }
}

/// Reads counts kept as an answer wrote them (a job's result, a record's `tenorCounts`).
impl<'de> Deserialize<'de> for StatusCounts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<StatusCounts, D::Error> {
        struct Counts;
        impl<'de> Visitor<'de> for Counts {
            type Value = StatusCounts;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("counts by status")
            }

            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<StatusCounts, A::Error> {
                let mut out = StatusCounts::default();
                while let Some((status, n)) = map.next_entry::<ValidationStatus, u64>()? {
                    out.add(status, n);
                }
                Ok(out)
            }
        }
        d.deserialize_map(Counts)
    }
}

/// What a validation configuration checks: a time series or a curve. Its serde form is the
/// name configurations and answers use; kinds order by that name (curves first), as the
/// answers that count by kind list them.
///
/// ```
/// use platform_core::api::validation::ValidationKind;
/// assert_eq!(serde_json::to_value(ValidationKind::TimeSeries).unwrap(), "timeseries");
/// assert_eq!(serde_json::from_value::<ValidationKind>("curve".into()).unwrap(), ValidationKind::Curve);
/// assert!(ValidationKind::Curve < ValidationKind::TimeSeries);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValidationKind {
    /// A time series (`timeseries`), a record per observation.
    #[default]
    #[serde(rename = "timeseries")]
    TimeSeries,
    /// A curve (`curve`), a record per ondate.
    #[serde(rename = "curve")]
    Curve,
}

impl PartialOrd for ValidationKind {
    fn partial_cmp(&self, other: &ValidationKind) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By name.
impl Ord for ValidationKind {
    fn cmp(&self, other: &ValidationKind) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl ValidationKind {
    /// The name configurations and records use.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ValidationKind::TimeSeries => "timeseries",
            ValidationKind::Curve => "curve",
        }
    }

    /// The kind a configuration or a chunk names (`curve`, else a series).
    pub(crate) fn of_name(name: &str) -> ValidationKind {
        if name == "curve" {
            ValidationKind::Curve
        } else {
            ValidationKind::TimeSeries
        }
    }
}
