//! The answer of `suggest` and `tune`: one result per item, each with the milliseconds it
//! took. An item that fails answers with its error in its place; an internal error fails the
//! whole request.

use crate::error::{ErrorCode, Result};
use crate::validation::shared::ms;
use std::time::Instant;

/// What an item gave, or the message of the error it failed with.
pub(crate) type ItemOutcome<R> = std::result::Result<R, String>;

/// Answers each item with `one`: what it gave (or why it failed) and the milliseconds it
/// took, in the order of the items. An internal error fails them all.
pub(crate) fn per_item<T, R>(
    items: &[T],
    mut one: impl FnMut(&T) -> Result<R>,
) -> Result<Vec<(ItemOutcome<R>, f64)>> {
    let mut results = Vec::with_capacity(items.len());
    for item in items {
        let started = Instant::now();
        let out = match one(item) {
            Ok(r) => Ok(r),
            Err(e) if e.code() == ErrorCode::Internal => return Err(e),
            Err(e) => Err(e.public_message()),
        };
        results.push((out, ms(started)));
    }
    Ok(results)
}
