//! Typed queries: one module per mini-language, each opening with its grammar.
//!
//! The server and the CLI turn raw `key=value` pairs into [`Params`]; the services parse what they
//! need from there into typed values, so every parameter rule is written once.

pub mod cursor;
pub mod daterule;
pub mod filter;
pub mod grammar;
pub mod paging;
pub mod params;
pub mod period;
pub mod project;
pub mod range;
pub mod search;
pub mod sort;
pub mod total;

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod vectors;

pub use cursor::Cursor;
pub use paging::{Page, Paging, Total};
pub use params::Params;
pub use project::Projection;
pub use sort::SortSpec;
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use sort::SortKey;

pub use filter::Filter;

/// `_distinct=field` over documents held in memory: the distinct string values of the field,
/// sorted (other values are left out), as the stores answer it.
pub fn distinct_strings<'a>(
    docs: impl IntoIterator<Item = &'a serde_json::Map<String, serde_json::Value>>,
    field: &str,
) -> Vec<serde_json::Value> {
    let mut values: Vec<String> = docs
        .into_iter()
        .filter_map(|d| filter::lookup(d, field).and_then(serde_json::Value::as_str))
        .map(str::to_string)
        .collect();
    values.sort();
    values.dedup();
    values.into_iter().map(serde_json::Value::String).collect()
}

/// What a list call asks the store for.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    /// Which documents.
    pub filter: Filter,
    /// Order of the results (`_id` ascending when empty; `_id` always breaks ties).
    pub sort: SortSpec,
    /// Which page.
    pub paging: Paging,
    /// How the total is counted (exact unless asked otherwise).
    pub total: Total,
}

impl Default for ListQuery {
    fn default() -> Self {
        ListQuery {
            filter: Filter::all(),
            sort: SortSpec::default(),
            paging: Paging::default(),
            total: Total::Exact,
        }
    }
}
