//! The formats the platform answers in, and JSON as people send it: content negotiation
//! ([`negotiate`] picks a [`Format`] from an `Accept` header or a `_format` parameter), the
//! renderings of answers ([`csv`], [`xml`], [`arrow`] with its [`ArrowStream`]), and JSON
//! read with the position of its first error ([`from_slice`], [`from_str`]).
//!
//! ```
//! use platform_core::api::formats::{from_str, json_kind};
//! let body = from_str(r#"{"_id": "NBP"}"#)?;
//! assert_eq!(json_kind(&body), "an object");
//! // An object may not name a key twice.
//! assert!(from_str(r#"{"_id": "NBP", "_id": "TTF"}"#).is_err());
//! # Ok::<(), serde_json::Error>(())
//! ```

pub use crate::format::arrow::{self, ArrowStream};
pub use crate::format::{csv, negotiate, xml, Format};
pub use crate::json::{from_slice, from_str, json_kind};
