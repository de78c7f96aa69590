//! Data validation: configurations per data item, the check engine, validation records and the
//! service functions (run, test, runMany, suggest, tune, override, removeOverride, comment,
//! stats, jobs).
//!
//! | module | holds |
//! |---|---|
//! | `config` | configurations: normalised, read, their libraries, compiled (and cached) |
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
use serde_json::{Map, Value};

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
