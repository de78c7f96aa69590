//! The stored form of a chunk of observations: columns, compact, and fast to decode in one pass.
//!
//! ```text
//! chunk   := MAGIC count:varint times values extras          MAGIC = 0xFFFFFF02 as u32le
//! times   := 0 first:i64le step:varint                        regular: t[i] = first + i * step
//!          | 1 first:i64le delta:varint{count-1}              deltas from the previous time
//! values  := 0 e:u8 width:u8 first:i64le delta:int{count-1}   decimals: v[i] = n[i] / 10^e,
//!                                                             n a running sum of deltas, each a
//!                                                             signed little-endian int of width
//!                                                             1, 2, 4 or 8 bytes
//!          | 1 f64le{count}                                   any other numbers, as they are
//! extras  := n:varint extra{n}                                the observations that are not plain
//! extra   := index:varint tag:u8 [payload] [status]           numbers: tag 0 null, 1 number (its
//!                                                             value in the column), 2 text,
//!                                                             3 number as f64le (beside decimals:
//!                                                             not one of them); 0x80: a status
//!                                                             follows
//! text    := len:varint utf8 ; status := len:varint utf8 ("Q|S|R")
//! ```
//!
//! Decimals are the common case of market data (prices and volumes with a few decimal places):
//! a value is kept as the integer `n` with `n / 10^e` giving exactly its bits back, checked for
//! every value at encoding (the idea of ALP, adaptive lossless floating-point compression), and
//! the integers as the differences from their predecessor in the narrowest width that holds
//! them all. A random walk of prices in cents takes one byte a value; a regular series takes no
//! bytes per time. Up to an eighth of a chunk's numbers may be no such decimal (-0.0, a
//! computed 0.30000000000000004): they are kept as they are among the extras, and their column
//! slot, as that of a null or text value, holds the previous integer (the first one before it;
//! 0 in a raw column). A chunk with more of them keeps every value as it is.
//!
//! Chunks written before this form (`count:u32le first:i64le` then per point a time delta, a
//! tag, the value and the status) are still read: their count can never be `MAGIC`.

mod decode;

pub use decode::{decode_columns_from, decode_into};
// Named by the tests, benches and fuzz targets only.
#[cfg(any(test, feature = "internals"))]
pub use decode::{decode, decode_columns};

use super::bytes::{put_text, put_varint};
use crate::observations::columns::ColumnsView;
use crate::observations::model::PointValue;
#[cfg(any(test, feature = "internals"))]
use crate::observations::{columns::Columns, model::Point};

/// The first four bytes of a columnar chunk.
const MAGIC: u32 = 0xFFFF_FF02;
/// Powers of ten that are exact doubles (10^0 to 10^18).
const POW10: [f64; 19] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18,
];
/// The largest integer a decimal may be kept as (every integer up to it is an exact double).
const MAX_EXACT: u64 = 1 << 53;

/// Encodes points (sorted by time, distinct times).
#[cfg(any(test, feature = "internals"))]
pub fn encode(points: &[Point]) -> Vec<u8> {
    let columns = Columns::from_points(points);
    encode_columns(&columns.view(0, columns.len()))
}

/// Encodes a run of columns (sorted by time, distinct times): what [`encode`] writes for the
/// same observations, read from the two arrays without a [`Point`] per observation.
pub fn encode_columns(c: &ColumnsView<'_>) -> Vec<u8> {
    let count = c.times.len();
    let mut out = Vec::with_capacity(32 + count * 2);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    put_varint(&mut out, count as u64);
    encode_times(&mut out, c.times);
    // The positions (in the run) of the null and text values: they have no number.
    let no_number: Vec<usize> = c
        .extras
        .iter()
        .filter(|e| !matches!(e.value, PointValue::Num(_)))
        .map(|e| e.index - c.base)
        .collect();
    let exceptions = encode_values(&mut out, c.values, &no_number);
    // The extras and the numbers kept as they are, merged by position.
    let mut listed = Vec::with_capacity(c.extras.len() + exceptions.len());
    let mut kept = exceptions.iter().copied().peekable();
    for e in c.extras {
        let i = e.index - c.base;
        while let Some(k) = kept.next_if(|&k| k < i) {
            listed.push((k, None));
        }
        kept.next_if_eq(&i);
        listed.push((i, Some(e)));
    }
    listed.extend(kept.map(|k| (k, None)));
    put_varint(&mut out, listed.len() as u64);
    for (i, extra) in listed {
        put_varint(&mut out, i as u64);
        let status = extra.and_then(|e| e.status.as_deref());
        let flag = if status.is_some() { 0x80 } else { 0 };
        match extra.map(|e| &e.value) {
            Some(PointValue::Null) => out.push(flag),
            Some(PointValue::Text(s)) => {
                out.push(2 | flag);
                put_text(&mut out, s);
            }
            _ if exceptions.binary_search(&i).is_ok() => {
                out.push(3 | flag);
                out.extend_from_slice(&c.values[i].to_le_bytes());
            }
            _ => out.push(1 | flag),
        }
        if let Some(s) = status {
            put_text(&mut out, &s.encode());
        }
    }
    out
}

fn encode_times(out: &mut Vec<u8>, times: &[i64]) {
    let first = times.first().copied().unwrap_or(0);
    let step = times.get(1).map_or(0, |t| t.wrapping_sub(first));
    let regular = step >= 0 && times.windows(2).all(|w| w[1].wrapping_sub(w[0]) == step);
    out.push(if regular { 0 } else { 1 });
    out.extend_from_slice(&first.to_le_bytes());
    if regular {
        put_varint(out, step as u64);
    } else {
        for w in times.windows(2) {
            put_varint(out, w[1].wrapping_sub(w[0]) as u64);
        }
    }
}

/// The integer `n` with `n / 10^e` exactly `v`, bit for bit (so -0.0 has none).
#[inline]
fn decimal(v: f64, e: usize) -> Option<i64> {
    let x = v * POW10[e];
    // Nearest by a conversion (no call to `round`); a wrong neighbour only fails the check.
    let n = if x >= 0.0 {
        (x + 0.5) as i64
    } else {
        (x - 0.5) as i64
    };
    (n.unsigned_abs() <= MAX_EXACT && (n as f64 / POW10[e]).to_bits() == v.to_bits()).then_some(n)
}

/// The numbers of a run of values, skipping the slots in `no_number` (ascending positions of
/// null and text values): each with its position.
fn numbers<'a>(
    values: &'a [f64],
    no_number: &'a [usize],
) -> impl Iterator<Item = (usize, f64)> + 'a {
    let mut skip = no_number.iter().copied().peekable();
    values
        .iter()
        .enumerate()
        .filter(move |&(i, _)| skip.next_if_eq(&i).is_none())
        .map(|(i, &v)| (i, v))
}

/// The decimals of a chunk: the smallest `e` (trying from the fewest places among its first
/// numbers upwards) with all but at most an eighth of its numbers exact as `n / 10^e`, their
/// integers (the previous one in the slot of a null, text or other number) and the positions
/// of the numbers that are not such decimals (kept as they are). `None` when there is no such
/// `e` up to 18.
fn decimals(values: &[f64], no_number: &[usize]) -> Option<(usize, Vec<i64>, Vec<usize>)> {
    // The fewest places among the first numbers that are decimals at all.
    let mut e = numbers(values, no_number)
        .take(8)
        .filter_map(|(_, v)| (0..POW10.len()).find(|&e| decimal(v, e).is_some()))
        .min()
        .unwrap_or(0);
    let allowed = values.len() / 8;
    let mut ints = Vec::with_capacity(values.len());
    let mut misses = Vec::new();
    'places: loop {
        ints.clear();
        misses.clear();
        // Slots before the first decimal hold its integer (a delta of 0 to it).
        let mut last = numbers(values, no_number)
            .find_map(|(_, v)| decimal(v, e))
            .unwrap_or(0);
        let mut skip = no_number.iter().copied().peekable();
        for (i, &v) in values.iter().enumerate() {
            if skip.next_if_eq(&i).is_none() {
                match decimal(v, e) {
                    Some(n) => last = n,
                    None => {
                        misses.push(i);
                        if misses.len() > allowed {
                            e += 1;
                            if e == POW10.len() {
                                return None;
                            }
                            continue 'places;
                        }
                    }
                }
            }
            ints.push(last);
        }
        return Some((e, ints, misses));
    }
}

/// Writes the value column; returns the positions of the numbers kept as they are beside a
/// column of decimals (ascending).
fn encode_values(out: &mut Vec<u8>, values: &[f64], no_number: &[usize]) -> Vec<usize> {
    let Some((e, ints, exceptions)) = decimals(values, no_number) else {
        out.push(1);
        out.reserve(values.len() * 8);
        let mut skip = no_number.iter().copied().peekable();
        for (i, v) in values.iter().enumerate() {
            let v = if skip.next_if_eq(&i).is_some() {
                0.0
            } else {
                *v
            };
            out.extend_from_slice(&v.to_le_bytes());
        }
        return Vec::new();
    };
    let widest = ints
        .windows(2)
        .map(|w| (w[1] - w[0]).unsigned_abs())
        .max()
        .unwrap_or(0);
    let width: usize = if widest <= i8::MAX as u64 {
        1
    } else if widest <= i16::MAX as u64 {
        2
    } else if widest <= i32::MAX as u64 {
        4
    } else {
        8
    };
    out.push(0);
    out.push(e as u8);
    out.push(width as u8);
    out.extend_from_slice(&ints.first().copied().unwrap_or(0).to_le_bytes());
    out.reserve((ints.len().saturating_sub(1)) * width);
    for w in ints.windows(2) {
        out.extend_from_slice(&(w[1] - w[0]).to_le_bytes()[..width]);
    }
    exceptions
}

#[cfg(test)]
mod tests;
