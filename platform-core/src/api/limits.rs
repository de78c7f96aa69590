//! The limits and fixed names the interface states: the largest page, the standard list
//! parameters and system fields, how far a total is counted exactly, how long a worker's
//! claim lasts, and the statuses of the automation log.
//!
//! ```
//! use platform_core::api::limits::{MAX_LIMIT, SYSTEM_FIELDS};
//! assert!(MAX_LIMIT >= 1000);
//! assert!(SYSTEM_FIELDS.contains(&"_version"));
//! ```

pub use crate::events::automations::LOG_STATUSES;
pub use crate::query::paging::MAX_LIMIT;
pub use crate::query::params::{STANDARD, SYSTEM_FIELDS};
pub use crate::query::total::EXACT_TOTAL_UP_TO;
pub use crate::validation::jobs::WORKER_TIMEOUT_SECS;
