//! Observations of time series, as every layer above sees them: a point's value and status with
//! their JSON form (`model`), and the observations of a series as columns (`columns`), the form
//! chunks decode into and answers (JSON, Arrow) are written from.
//!
//! The data service (`crate::data`) re-exports both modules where its callers find them
//! (`data::model`, `data::columns`).

pub mod columns;
pub mod model;
