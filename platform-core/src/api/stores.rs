//! Opening a store: the embedded SQLite file, and PostgreSQL's connection settings
//! ([`PgOptions`], [`PgPooler`]) for [`Platform::open_postgres_with`](crate::Platform::open_postgres_with),
//! with a URL recognised ([`is_url`]) and written without its password ([`redact`]).
//!
//! ```
//! # #[cfg(feature = "postgres")] {
//! use platform_core::api::stores::{is_url, redact};
//! assert!(is_url("postgres://ops:s3cret@db1/platform"));
//! assert!(!redact("postgres://ops:s3cret@db1/platform").contains("s3cret"));
//! # }
//! ```

#[cfg(feature = "postgres")]
pub use crate::store::postgres::{is_url, redact, PgOptions, PgPooler};
pub use crate::store::sqlite::SqliteStore;
