//! What the targets share: the limits of their inputs, and the ways they read the bytes.

use std::borrow::Cow;

/// Longest input a grammar target reads (longer ones are left alone: query parameters and
/// expressions are far shorter, and AFL's time is better spent on short inputs).
pub(crate) const MAX_TEXT: usize = 64 * 1024;

/// Longest import file a target reads.
pub(crate) const MAX_FILE: usize = 256 * 1024;

/// The input as text (invalid UTF-8 replaced, as a lossy reader would), or `None` when too long.
pub(crate) fn text(data: &[u8], max: usize) -> Option<Cow<'_, str>> {
    (data.len() <= max).then(|| String::from_utf8_lossy(data))
}

/// The first byte (choosing options of a target) and the rest.
pub(crate) fn selector(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((first, rest)) => (*first, rest),
        None => (0, data),
    }
}
