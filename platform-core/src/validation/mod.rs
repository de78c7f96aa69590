//! Data validation: configurations per data item, the check engine, validation records and the
//! service functions (run, test, runMany, suggest, tune, override, removeOverride, comment,
//! stats, jobs).
//!
//! | module | holds |
//! |---|---|
//! | `config` | configurations: normalised, read, their libraries, compiled (and cached) |
//! | `counts` | the statuses, kinds and counts the answers share |
//! | `engine` | the check engine: compile once, run over series and curves |
//! | `records` | validation records: statuses, state machine, chunks, codec, JSON |
//! | `events` | which record changes raise `failed`/`warning`/`success`, and data `invalid`/`validated` |
//! | `item` | a data item opened and its access role checked (run, suggest, tune alike) |
//! | `run` | run, test, runMany, override, removeOverride, comment, record reads |
//! | `window` | what suggest and tune share: the window, statistics, scoring, the answer |
//! | `suggest`, `tune` | checks proposed from history; thresholds relaxed from overrides |
//! | `stats` | the dashboard |
//! | `jobs` | durable background jobs |
//! | `shared` | request-body reading, counts and timings |

pub mod config;
pub mod counts;
pub mod engine;
pub mod events;
mod item;
pub mod jobs;
pub mod records;
pub mod run;
mod shared;
pub mod stats;
pub mod suggest;
pub mod tune;
pub mod window;

use crate::auth::Principal;
use crate::error::Result;
use crate::store::DocumentRead;
use crate::Platform;
use serde_json::{Map, Value};

/// Validation: the checks of a data item's configuration (a document of
/// [`crate::store::Collection::ValidationConfig`] whose id is the data id) run over its points.
/// A run stores a record per point (and, when the configuration says so, writes the quality
/// status into the data); a test stores nothing. From [`Platform::validation`].
///
/// The service holds the platform it runs on: the store configurations, records and jobs are
/// kept in, the clock, and the caches of compiled configurations. Its rules are in the
/// submodules (`run`, `suggest`, `tune`, `stats`, `jobs`), each call taking and answering the
/// types defined beside them (requests read from a body or query parameters by their
/// `from_body` or `from_params`, answers whose serde form is the interface's JSON).
///
/// ```
/// use platform_core::api::{data::Point, validation::RunOutcome, validation::ValidationRequest, validation::ValidationStatus};
/// use platform_core::api::Collection;
/// use chrono::{Duration, TimeZone, Utc};
/// use serde_json::json;
///
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let start = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
/// let prices = [50.0, 52.0, -3.0];
/// let points: Vec<Point> = prices.iter().enumerate().map(|(i, v)| Point::new(start + Duration::days(i as i64), *v)).collect();
/// platform.data().write_series(&me, "NBP:SPOT", &points, &Default::default())?;
/// platform.objects().save(&me, Collection::ValidationConfig, json!({
///     "_id": "NBP:SPOT", "kind": "timeseries",
///     "checks": [{"name": "positive", "expression": "value > 0"}]
/// }), &Default::default())?;
///
/// let request = ValidationRequest::new("NBP:SPOT").between(start, start + Duration::days(3));
/// // `run` may queue a large run as a job (`RunOutcome::Queued`); this one is checked now.
/// let RunOutcome::Done(result) = platform.validation().run(&me, &request)? else {
///     panic!("three points are checked now");
/// };
/// assert_eq!((result.points, result.counts.valid, result.counts.failed), (3, 2, 1));
/// assert!(!result.passed());
/// assert_eq!(result.results[2].status, ValidationStatus::Failed);
/// assert_eq!(result.results[2].checks[0].name, "positive");
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Validation<'p> {
    pub(crate) platform: &'p Platform,
}

impl<'p> Validation<'p> {
    /// The validation service of `platform`.
    pub(crate) fn of(platform: &'p Platform) -> Self {
        Validation { platform }
    }
}

/// Compiles every check of a configuration about to be saved and evaluates each once on a
/// sample, so a configuration that cannot run is refused.
pub(crate) fn check_config(
    tx: &dyn DocumentRead,
    p: &Principal,
    doc: &Map<String, Value>,
) -> Result<()> {
    let config = config::Config::from_doc(doc.clone())?;
    let libs = config::libraries(tx, p, &config)?;
    config::compile(&config, &libs)?.trial()
}
