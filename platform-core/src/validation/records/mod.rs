//! Validation records, their state transitions and their stored form.
//!
//! One record per checked point: `<data_id>:<time>` for a time-series observation,
//! `<data_id>:<ondate>` for a curve. Statuses: `valid`, `warning`, `failed`, `severe`, `error`,
//! `skipped`, `overridden`; failing means `failed`, `severe` or `error`.
//!
//! | Record | Call | Next | Effects |
//! |---|---|---|---|
//! | any or none | run | from the results (worst of severe > error > failed > warning > valid; skipped when no check applied) | `checkedStatus`, `runs`, `firstRun`, `lastRun`, `lastRunBy`, `lastOrigin`; `openSince` when it starts failing; `resolvedAt`, `resolution: rerun`, `resolveMinutes` when it stops |
//! | overridden | run, still failing on the same data | overridden | the override stays |
//! | overridden | run, passing or on changed data | from the results | timeline `override-cleared`; failing again on changed data opens it anew |
//! | failed, severe, error | override (reason) | overridden | override details, `resolution: override` |
//! | valid, warning, skipped | override | unchanged | reported per id |
//! | overridden | removeOverride | its `checkedStatus` | timeline `override-removed`; failing again opens it anew |
//! | any | comment | unchanged | timeline `comment` |
//!
//! The timeline keeps the last 100 events.
//!
//! ## Stored form
//!
//! A full run of a thousand series of a day of minutes writes 1.44 million records, so a
//! record is not stored as a JSON document: the records of one data item are kept in chunks
//! (a few thousand consecutive points each, see [`bucket_of`]). A chunk holds what its records
//! share once — the runs that touched them (time, user, origin, the configuration's name,
//! group and tags, the time each check took) and the check lists (id, name, scope, severity)
//! — and each [`Record`] holds only its own: the point, the value, one status byte per check
//! (and a message when the check did not pass), counters, times and the timeline (a run entry
//! is a reference to the chunk's run). A clean record takes about 40 bytes. The record of the
//! interface is built from a record and its chunk on read: typed ([`ValidationRecord`], what
//! the reads answer) or as a JSON map ([`Chunk::materialize`], what list filters, sorts and
//! projections and the events read), the one the serde form of the other.
//!
//! | file | holds |
//! |---|---|
//! | `status` | the status codes, their names and ranks |
//! | `record` | the compact record and the fresh result of a point |
//! | `state` | the state machine: a run, an override, its removal, comments and notes |
//! | `chunk` | the chunk records are kept in, what they share, and where a point goes |
//! | `codec` | a chunk's stored bytes |
//! | `json` | the interface's JSON record, built from a record and its chunk (filters, events) |
//! | `answer` | the typed parts of a record the answers show (its checks, a curve's tenors) |
//! | `view` | the record as the interface shows it ([`ValidationRecord`]), its serde form the JSON record |

mod answer;
mod chunk;
mod codec;
mod json;
mod record;
mod state;
mod status;
#[cfg(test)]
mod tests;
mod view;
#[cfg(test)]
mod view_tests;

pub(crate) use answer::{run_tags, run_text, CurveFields};
pub use answer::{RecordCheck, TenorCheck, TenorResult};
pub use chunk::{bucket_of, date_key, CheckMeta, Chunk, PointFormat, RunInfo};
pub use record::{CheckResult, CheckedValue, PointResult, Record, Summary};
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use record::{Event, Override, Resolved};
pub use state::{
    apply_override, apply_run, comment, note, remove_override, result_extra, Context, Transition,
    SENT_KEY,
};
pub use view::{RecordOverride, Resolution, ResolvedIssue, TimelineEvent, ValidationRecord};
// Named by the tests, benches and fuzz targets only.
#[cfg(any(test, feature = "internals"))]
pub use state::TIMELINE_MAX;
pub use status::{
    failing, is_failing, status_code, status_name, worse, worst, ERROR, OVERRIDDEN, SKIPPED, VALID,
    WARNING,
};
// Named by the tests, benches and fuzz targets only.
#[cfg(any(test, feature = "internals"))]
pub use status::{FAILED, SEVERE};
