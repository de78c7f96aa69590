//! Paging of list calls.
//!
//! ```text
//! _limit := integer in 0..=10000 | -1      (default 100; -1 = every item, where the list allows it)
//! _skip  := integer >= 0                   (default 0)
//! _count := exact | estimated              (document lists; default estimated)
//! ```

use crate::error::{Error, Result};
use crate::query::Params;

/// Default page size.
pub const DEFAULT_LIMIT: u64 = 100;
/// Largest explicit page size.
pub const MAX_LIMIT: u64 = 10_000;

/// A page of results with the total count before paging.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items of the page.
    pub items: Vec<T>,
    /// How many items matched in all.
    pub total: u64,
    /// Whether `total` is an estimate (a document list past
    /// [`EXACT_TOTAL_UP_TO`](crate::query::total::EXACT_TOTAL_UP_TO) matches, counted with
    /// `Total::Estimated`) rather than an exact count.
    pub estimated: bool,
}

/// How a document list counts its total (`_count`).
///
/// `Estimated`, the default of lists over HTTP, counts exactly up to
/// [`EXACT_TOTAL_UP_TO`](crate::query::total::EXACT_TOTAL_UP_TO) matches and estimates past them from a
/// sample of the collection (the answer says so); `Exact` counts every match, however many.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Total {
    /// Every match counted.
    #[default]
    Exact,
    /// Exact while cheap, estimated past a threshold.
    Estimated,
}

impl Total {
    /// Reads `_count` (`exact` or `estimated`; `estimated` when absent).
    pub fn from_params(params: &Params) -> Result<Total> {
        match params.get("_count").map(str::trim) {
            None | Some("estimated") => Ok(Total::Estimated),
            Some("exact") => Ok(Total::Exact),
            Some(other) => Err(Error::invalid_parameter(format!(
                "_count must be exact or estimated; got \"{other}\""
            ))),
        }
    }
}

/// Which slice of a list to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    /// Items to skip.
    pub skip: u64,
    /// Items to return; `None` means all.
    pub limit: Option<u64>,
}

impl Default for Paging {
    fn default() -> Self {
        Paging {
            skip: 0,
            limit: Some(DEFAULT_LIMIT),
        }
    }
}

impl Paging {
    /// Reads `_limit` and `_skip`.
    pub fn from_params(params: &Params) -> Result<Paging> {
        let limit = match params.get("_limit") {
            None => Some(DEFAULT_LIMIT),
            Some(text) => match text.trim().parse::<i64>() {
                Ok(-1) => None,
                Ok(n) if (0..=MAX_LIMIT as i64).contains(&n) => Some(n as u64),
                _ => {
                    return Err(Error::invalid_parameter(format!(
                        "_limit must be an integer from 0 to {MAX_LIMIT}, or -1 for all; got \"{text}\""
                    )))
                }
            },
        };
        let skip = match params.get("_skip") {
            None => 0,
            Some(text) => text.trim().parse::<u64>().map_err(|_| {
                Error::invalid_parameter(format!(
                    "_skip must be a non-negative integer; got \"{text}\""
                ))
            })?,
        };
        Ok(Paging { skip, limit })
    }

    /// Every item.
    pub fn everything() -> Paging {
        Paging {
            skip: 0,
            limit: None,
        }
    }

    /// The page of `items` this paging selects, with the total before paging.
    pub fn page<T>(&self, items: Vec<T>) -> Page<T> {
        let total = items.len() as u64;
        let skip = usize::try_from(self.skip).unwrap_or(usize::MAX);
        let take = self
            .limit
            .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        Page {
            items: items.into_iter().skip(skip).take(take).collect(),
            total,
            estimated: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_defaults_and_bounds() {
        assert_eq!(
            Paging::from_params(&Params::default()).unwrap(),
            Paging::default()
        );
        let p =
            Paging::from_params(&Params::from_slice(&[("_limit", "-1"), ("_skip", "5")])).unwrap();
        assert_eq!(
            p,
            Paging {
                skip: 5,
                limit: None
            }
        );
        for bad in [
            ("_limit", "10001"),
            ("_limit", "-2"),
            ("_limit", "x"),
            ("_skip", "-1"),
        ] {
            assert!(
                Paging::from_params(&Params::from_slice(&[bad])).is_err(),
                "{bad:?}"
            );
        }
    }
}
