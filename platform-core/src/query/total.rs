//! How a document list's total is counted when the caller asks for an estimate
//! ([`Total::Estimated`], `_count=estimated`, the default over HTTP): exactly up to
//! [`EXACT_TOTAL_UP_TO`] matches, and past that estimated from a sample of the documents.
//!
//! Every backend counts by `list_total`, giving it three ways to count (every match, the
//! matches up to a cap, the matches among the documents of some sample buckets); the rule of
//! which to use and when to stop is here, once. A document's sample bucket is a hash of its id
//! ([`sample_bucket`]), kept with its current version.

use crate::error::Result;
use crate::hash::{fnv1a, mix64};
use crate::query::{Filter, Total};

/// Document lists counted with `Total::Estimated` count their
/// matches exactly up to this many; past it the total is estimated from a sample of the
/// documents (`SAMPLE_BUCKETS`; `docs/decisions.md` says how).
pub const EXACT_TOTAL_UP_TO: u64 = 10_000;

/// Each current document sits in one of this many sample buckets (`heads.bucket`, a hash of
/// its id, indexed with its scope): the documents of buckets `0..b` are a sample of `b` in
/// 65,536 of a scope's documents, spread over it whatever its ids and fields look like.
pub const SAMPLE_BUCKETS: u64 = 65_536;

/// The matches a sample must hold for its estimate to be answered, for a list filtered past
/// its scopes and type: at least 200 puts the estimate within about 7% of the count (one
/// standard deviation).
const SAMPLE_MATCHES: u64 = 200;

/// The same for a list of a scope or a type alone, whose sample is counted from the index
/// alone (no document is read): 1,600 matches, within about 2.5%.
const SAMPLE_MATCHES_UNFILTERED: u64 = 1_600;

/// The documents a sample may read: a filter that matches too few of them for an estimate is
/// counted (up to the threshold) instead.
const SAMPLE_ROWS: u64 = 16_000;

/// The total of a document list, counted as `mode` asks, and whether it is an estimate. The
/// backend counts three ways: `exact()` every match; `capped(n)` the matches up to `n` (it
/// stops at the `n`th); `sampled(lo, hi)` the documents of sample buckets `lo..hi` that the
/// list reads (its scopes, and its type if it has one) and the matches among them. `filtered`
/// says whether the list filters past its scopes and type.
///
/// [`Total::Exact`] counts every match. Otherwise the sample grows,
/// buckets `0..1`, `0..2`, `0..4`... (each step reads only the buckets it adds), until it holds
/// 200 matches (1,600 for a list of a scope or a type alone); the estimate is its matches times
/// the share of the collection it holds, and when that is past twice [`EXACT_TOTAL_UP_TO`] it
/// is the answer. When it is not (or no sample of at most 16,000 documents holds enough
/// matches), the matches are counted up to the threshold: at most that many is the exact
/// total; past it the estimate is, never below what the count saw. The work grows with the
/// sample and the threshold, not with the collection; a small collection is counted whole by
/// its samples.
pub(crate) fn list_total(
    mode: Total,
    filtered: bool,
    exact: impl FnOnce() -> Result<u64>,
    capped: impl FnOnce(u64) -> Result<u64>,
    mut sampled: impl FnMut(u32, u32) -> Result<(u64, u64)>,
) -> Result<(u64, bool)> {
    if mode == Total::Exact {
        return Ok((exact()?, false));
    }
    let need = if filtered {
        SAMPLE_MATCHES
    } else {
        SAMPLE_MATCHES_UNFILTERED
    };
    let (mut rows, mut matches, mut lo, mut hi) = (0, 0, 0u32, 1u32);
    let mut estimate = None;
    loop {
        let (r, m) = sampled(lo, hi)?;
        (rows, matches) = (rows + r, matches + m);
        if u64::from(hi) == SAMPLE_BUCKETS {
            // The whole of the documents: the count itself.
            return Ok((matches, false));
        }
        if matches >= need {
            estimate = Some(matches * SAMPLE_BUCKETS / u64::from(hi));
            break;
        }
        if rows * 2 > SAMPLE_ROWS {
            break;
        }
        (lo, hi) = (hi, hi * 2);
    }
    if let Some(e) = estimate {
        if e > 2 * EXACT_TOTAL_UP_TO {
            return Ok((e, true));
        }
    }
    let seen = capped(EXACT_TOTAL_UP_TO + 1)?;
    if seen <= EXACT_TOTAL_UP_TO {
        return Ok((seen, false));
    }
    Ok((estimate.unwrap_or(0).max(seen), true))
}

/// Whether a filter selects past the scopes and one type: a list's sample must then read the
/// documents to find its matches.
pub(crate) fn filters_past_type(filter: &Filter) -> bool {
    let one_type = |f: &Filter| matches!(f, Filter::TypeIn(types) if types.len() == 1);
    match filter {
        Filter::And(parts) => parts.iter().any(|p| !one_type(p)),
        other => !other.is_all() && !one_type(other),
    }
}

/// The sample bucket of a document id (see [`SAMPLE_BUCKETS`]) where the backend computes it
/// outside SQL: FNV-1a of the id, its bits mixed by MurmurHash3's 64-bit finaliser (FNV-1a's
/// low bits depend only on the low bits of the input, as its multiply carries upward), the top
/// 16 bits.
pub fn sample_bucket(id: &str) -> u32 {
    (mix64(fnv1a(id.as_bytes())) >> 48) as u32
}

#[cfg(test)]
mod sample_tests {
    use super::*;

    /// Ids numbered in sequence, as they often are, spread evenly over the buckets: each of 64
    /// equal ranges of buckets holds its share of 100,000 ids within 5 standard deviations,
    /// and so does the smallest sample of each size a list reads.
    #[test]
    fn sequential_ids_spread_evenly_over_the_sample_buckets() {
        for id_of in [
            (|i: u32| format!("M{i:05}")) as fn(u32) -> String,
            |i| format!("OBJ{i:06}"),
            |i| format!("{i}"),
        ] {
            let buckets: Vec<u32> = (0..100_000).map(|i| sample_bucket(&id_of(i))).collect();
            let within = |count: usize, share: f64| {
                let expected = 100_000.0 * share;
                let sd = (expected * (1.0 - share)).sqrt();
                (count as f64 - expected).abs() < 5.0 * sd
            };
            for range in 0..64u32 {
                let count = buckets.iter().filter(|b| **b >> 10 == range).count();
                assert!(
                    within(count, 1.0 / 64.0),
                    "{} range {range}: {count}",
                    id_of(0)
                );
            }
            // The samples a list reads, buckets 0..1, 0..2, 0..4 ... 0..32768.
            for b in (0..16).map(|k| 1u32 << k) {
                let count = buckets.iter().filter(|x| **x < b).count();
                let share = f64::from(b) / SAMPLE_BUCKETS as f64;
                assert!(within(count, share), "{} 0..{b}: {count}", id_of(0));
            }
        }
    }
}
