//! Data validation: configurations per data item, the check engine, validation records and the
//! service functions (run, test, runMany, suggest, tune, override, removeOverride, comment,
//! stats, jobs).

pub mod config;
pub mod engine;
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
use crate::store::ReadTx;
use serde_json::{Map, Value};

/// Compiles every check of a configuration about to be saved and evaluates each once on a
/// sample, so a configuration that cannot run is refused.
/// The `_reason` of the object versions that write quality statuses (`writeStatus`).
pub const STATUS_REASON: &str = "validation status";

pub(crate) fn check_config(tx: &dyn ReadTx, p: &Principal, doc: &Map<String, Value>) -> Result<()> {
    let config = config::Config::from_doc(doc.clone())?;
    let libs = config::libraries(tx, p, &config)?;
    config::compile(&config, &libs)?.trial()
}
