//! A validation configuration, typed: [`ValidationConfig`] with its [`Check`]s and
//! [`ValidationOptions`], saved by [`Validation::save_config`] through the save the JSON body
//! takes, so every rule and error is the same.

use super::validation::ValidationKind;
use crate::auth::Principal;
use crate::documents::SaveOptions;
use crate::error::{Error, Result};
use crate::store::Collection;
use crate::validation::engine::{CheckScope, Severity};
use crate::validation::Validation;
use serde::Serialize;

/// The configuration of a data item's validation: which checks run on it, and how. One per
/// data item, private, versioned (collection [`Collection::ValidationConfig`]).
///
/// Its serde form is the JSON body a client sends (`_id`, `kind`, `name`, `description`,
/// `group`, `tags`, `enabled`, `runOnUpdate`, `scripts`, `checks`, `options`), each field left
/// unset (`None`, an empty list, no option) left out, so the platform's default applies:
/// enabled, no `runOnUpdate`, and the defaults of [`ValidationOptions`].
///
/// ```
/// use platform_core::api::{validation::Check, validation::CheckScope, validation::Severity, validation::ValidationConfig};
/// use serde_json::json;
///
/// let config = ValidationConfig::timeseries("DE:SPOT")
///     .check(Check::new("positive", "value > 0"))
///     .check(Check::new("cap", "value < 500").severity(Severity::Warning))
///     .max_points(5000);
/// assert_eq!(serde_json::to_value(&config).unwrap(), json!({
///     "_id": "DE:SPOT", "kind": "timeseries",
///     "checks": [
///         {"name": "positive", "expression": "value > 0"},
///         {"name": "cap", "expression": "value < 500", "severity": "warning"}],
///     "options": {"maxPoints": 5000}}));
///
/// // A curve's checks run on each contract (tenor, the default), or once per curve.
/// let curve = ValidationConfig::curve("TTF:FWD")
///     .check(Check::new("enough contracts", "contracts >= 12").scope(CheckScope::Curve))
///     .curve_history(5)
///     .run_on_update(true);
/// assert_eq!(serde_json::to_value(&curve).unwrap()["checks"][0]["scope"], "curve");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValidationConfig {
    /// The data id (`_id`, `OBJECT:DATA`), for every ondate of a curve.
    #[serde(rename = "_id")]
    pub target: String,
    /// A time series or a curve.
    pub kind: ValidationKind,
    /// A name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A group configurations are listed by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Whether the checks run at all (the platform's default: yes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Whether the checks run when the data is updated (`runOnUpdate`; the platform's
    /// default: no). An enabled configuration with it owns an automation that runs them.
    #[serde(rename = "runOnUpdate", skip_serializing_if = "Option::is_none")]
    pub run_on_update: Option<bool>,
    /// The ids of the script libraries (rhai scripts) whose functions the checks call.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<String>,
    /// The checks (at most 50), in order.
    pub checks: Vec<Check>,
    /// The options.
    #[serde(skip_serializing_if = "ValidationOptions::is_empty")]
    pub options: ValidationOptions,
}

/// One check of a [`ValidationConfig`]: a one-line expression that is `true` when the data
/// passes. Its serde form is the check's JSON (`id`, `name`, `expression`, `scope`,
/// `severity`, `enabled`), each field left unset left out: the id is then made from the name,
/// the scope is `point` (series) or `tenor` (curves), the severity `failed`, and it is enabled.
///
/// ```
/// use platform_core::api::{validation::Check, validation::Severity};
/// let check = Check::new("Daily move", "abs(value - prev(1)) < 20").severity(Severity::Severe);
/// assert_eq!(serde_json::to_value(&check).unwrap(), serde_json::json!({
///     "name": "Daily move", "expression": "abs(value - prev(1)) < 20", "severity": "severe"}));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// Its id in the configuration (made from the name when `None`; kept unique).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its name.
    pub name: String,
    /// One line of the platform's scripting language, `true` when the data passes.
    pub expression: String,
    /// Where it runs: `point` for a series, `tenor` (default) or `curve` for a curve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<CheckScope>,
    /// How bad its failure is (`failed` when `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// Whether it runs (yes when `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// The options of a [`ValidationConfig`] (`options`), each `None` left to the platform's
/// default. Out of its bounds, an option is refused when the configuration is saved.
///
/// ```
/// use platform_core::api::validation::ValidationOptions;
/// let options = ValidationOptions { lookback: Some(30), write_status: Some(true), ..Default::default() };
/// assert_eq!(serde_json::to_value(&options).unwrap(), serde_json::json!({"lookback": 30, "writeStatus": true}));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ValidationOptions {
    /// At least this many earlier observations a run of a series reads before its first point,
    /// 0 to 1000 (0); a check reads what its expression asks for whatever this says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lookback: Option<u32>,
    /// At least this many previous curves a run reads with each curve, 0 to 30 (0).
    #[serde(rename = "curveHistory", skip_serializing_if = "Option::is_none")]
    pub curve_history: Option<u32>,
    /// Write the quality status into the data after runs and overrides (no).
    #[serde(rename = "writeStatus", skip_serializing_if = "Option::is_none")]
    pub write_status: Option<bool>,
    /// A manual run over more points than this goes to the background, 1 to 5000 (1000).
    #[serde(rename = "maxPoints", skip_serializing_if = "Option::is_none")]
    pub max_points: Option<u32>,
}

impl ValidationOptions {
    /// Whether no option is set (every one the platform's default).
    pub fn is_empty(&self) -> bool {
        *self == ValidationOptions::default()
    }
}

impl Check {
    /// A check named `name` running `expression`, every other field the default.
    pub fn new(name: impl Into<String>, expression: impl Into<String>) -> Check {
        Check {
            id: None,
            name: name.into(),
            expression: expression.into(),
            scope: None,
            severity: None,
            enabled: None,
        }
    }

    /// The same check with this id (instead of one made from its name).
    pub fn id(self, id: impl Into<String>) -> Check {
        Check {
            id: Some(id.into()),
            ..self
        }
    }

    /// The same check running at this scope (curves: [`CheckScope::Tenor`] or
    /// [`CheckScope::Curve`]; series: [`CheckScope::Point`]).
    pub fn scope(self, scope: CheckScope) -> Check {
        Check {
            scope: Some(scope),
            ..self
        }
    }

    /// The same check failing at this severity.
    pub fn severity(self, severity: Severity) -> Check {
        Check {
            severity: Some(severity),
            ..self
        }
    }

    /// The same check, enabled or not (a disabled check is kept and does not run).
    pub fn enabled(self, enabled: bool) -> Check {
        Check {
            enabled: Some(enabled),
            ..self
        }
    }
}

impl ValidationConfig {
    /// A configuration of `kind` for the data item `target`, with no checks and every field
    /// the default.
    pub fn new(target: impl Into<String>, kind: ValidationKind) -> ValidationConfig {
        ValidationConfig {
            target: target.into(),
            kind,
            name: None,
            description: None,
            group: None,
            tags: Vec::new(),
            enabled: None,
            run_on_update: None,
            scripts: Vec::new(),
            checks: Vec::new(),
            options: ValidationOptions::default(),
        }
    }

    /// A configuration for the time series `target` (its checks run on each point).
    pub fn timeseries(target: impl Into<String>) -> ValidationConfig {
        ValidationConfig::new(target, ValidationKind::TimeSeries)
    }

    /// A configuration for the curve `target` (its checks run on each ondate's curve).
    pub fn curve(target: impl Into<String>) -> ValidationConfig {
        ValidationConfig::new(target, ValidationKind::Curve)
    }

    /// The same configuration with `check` after its checks.
    pub fn check(mut self, check: Check) -> ValidationConfig {
        self.checks.push(check);
        self
    }

    /// The same configuration with these checks after its checks.
    pub fn checks(mut self, checks: impl IntoIterator<Item = Check>) -> ValidationConfig {
        self.checks.extend(checks);
        self
    }

    /// The same configuration with this name.
    pub fn name(self, name: impl Into<String>) -> ValidationConfig {
        ValidationConfig {
            name: Some(name.into()),
            ..self
        }
    }

    /// The same configuration with this description.
    pub fn description(self, description: impl Into<String>) -> ValidationConfig {
        ValidationConfig {
            description: Some(description.into()),
            ..self
        }
    }

    /// The same configuration in this group.
    pub fn group(self, group: impl Into<String>) -> ValidationConfig {
        ValidationConfig {
            group: Some(group.into()),
            ..self
        }
    }

    /// The same configuration with this tag after its tags.
    pub fn tag(mut self, tag: impl Into<String>) -> ValidationConfig {
        self.tags.push(tag.into());
        self
    }

    /// The same configuration with the script library `id` after its libraries.
    pub fn script(mut self, id: impl Into<String>) -> ValidationConfig {
        self.scripts.push(id.into());
        self
    }

    /// The same configuration, enabled or not (a disabled one runs no check).
    pub fn enabled(self, enabled: bool) -> ValidationConfig {
        ValidationConfig {
            enabled: Some(enabled),
            ..self
        }
    }

    /// The same configuration, its checks run when the data is updated or not.
    pub fn run_on_update(self, run_on_update: bool) -> ValidationConfig {
        ValidationConfig {
            run_on_update: Some(run_on_update),
            ..self
        }
    }

    /// The same configuration with these options.
    pub fn options(self, options: ValidationOptions) -> ValidationConfig {
        ValidationConfig { options, ..self }
    }

    /// The same configuration with the option `lookback` (0 to 1000).
    pub fn lookback(mut self, observations: u32) -> ValidationConfig {
        self.options.lookback = Some(observations);
        self
    }

    /// The same configuration with the option `curveHistory` (0 to 30).
    pub fn curve_history(mut self, curves: u32) -> ValidationConfig {
        self.options.curve_history = Some(curves);
        self
    }

    /// The same configuration with the option `writeStatus`.
    pub fn write_status(mut self, write: bool) -> ValidationConfig {
        self.options.write_status = Some(write);
        self
    }

    /// The same configuration with the option `maxPoints` (1 to 5000).
    pub fn max_points(mut self, points: u32) -> ValidationConfig {
        self.options.max_points = Some(points);
        self
    }
}

impl Validation<'_> {
    /// Saves a validation configuration: the body its serde form is, saved as the JSON save
    /// of [`Collection::ValidationConfig`] with `_replace` (the configuration becomes exactly
    /// this one, each field not set the platform's default), so every rule and error is that
    /// save's: bounds, at most 50 checks, every check compiled and tried once, its script
    /// libraries present. Answers the version stored: a new one when anything changed, else
    /// the current one. Role `writer`.
    ///
    /// ```
    /// use platform_core::api::{validation::Check, data::Point, validation::ValidationConfig, validation::ValidationRequest};
    /// use platform_core::ErrorCode;
    /// use chrono::{Duration, TimeZone, Utc};
    ///
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let start = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// let hours: Vec<Point> = (0..3).map(|h| Point::new(start + Duration::hours(h), 40.0 - 20.0 * h as f64)).collect();
    /// platform.data().write_series(&me, "DE:SPOT", &hours, &Default::default())?;
    ///
    /// let config = ValidationConfig::timeseries("DE:SPOT").check(Check::new("positive", "value > 0"));
    /// assert_eq!(platform.validation().save_config(&me, &config)?, 1);
    /// // The same again stores nothing new; a change is version 2.
    /// assert_eq!(platform.validation().save_config(&me, &config)?, 1);
    /// assert_eq!(platform.validation().save_config(&me, &config.clone().max_points(5000))?, 2);
    ///
    /// let all = ValidationRequest::new("DE:SPOT").between(start, start + Duration::hours(2));
    /// let checked = platform.validation().run_and_wait(&me, &all)?;
    /// assert_eq!((checked.counts.valid, checked.counts.failed), (2, 1));
    ///
    /// // Out of bounds: refused as the JSON save refuses it, nothing stored.
    /// let err = platform.validation().save_config(&me, &config.max_points(0)).unwrap_err();
    /// assert_eq!(err.code(), ErrorCode::InvalidParameter);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn save_config(&self, p: &Principal, config: &ValidationConfig) -> Result<u32> {
        let body = serde_json::to_value(config).map_err(|e| {
            Error::Internal(format!(
                "a validation configuration does not serialise: {e}"
            ))
        })?;
        let opts = SaveOptions {
            replace: true,
            ..SaveOptions::default()
        };
        self.platform
            .objects()
            .save_version(p, Collection::ValidationConfig, body, &opts)
    }
}
