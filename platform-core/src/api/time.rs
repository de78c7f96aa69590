//! Instants and local times as the platform writes and reads them, the EFA blocks of GB
//! power, the coverage of a scaled period, and the `_delay` of queued work.
//!
//! ```
//! use platform_core::api::time::{format_instant, parse_instant};
//! let at = parse_instant("2024-10-27T01:30:00+01:00").unwrap();
//! assert_eq!(format_instant(at), "2024-10-27T00:30:00.000Z");
//! ```

pub use crate::clock::{delay_param, format_instant, parse_instant, MAX_DELAY_MS};
pub use crate::data::calendar::{format_time, utc_text};
pub use crate::data::efa;
pub use crate::data::scale::coverage;
pub use crate::data::zone::local_text;
