//! Typed queries: one module per mini-language, each opening with its grammar.
//!
//! The server and the CLI turn raw `key=value` pairs into [`Params`]; the services parse what they
//! need from there into typed values, so every parameter rule is written once.

pub mod daterule;
pub mod grammar;
pub mod paging;
pub mod params;
pub mod period;
pub mod project;
pub mod range;
pub mod sort;

#[cfg(test)]
mod vectors;

pub use paging::Paging;
pub use params::Params;
pub use project::Projection;
pub use sort::{SortKey, SortSpec};

/// What a list call asks the store for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListQuery {
    /// Only documents whose `_type` is exactly this.
    pub type_exact: Option<String>,
    /// Order of the results (`_id` ascending when empty; `_id` always breaks ties).
    pub sort: SortSpec,
    /// Which page.
    pub paging: Paging,
}
