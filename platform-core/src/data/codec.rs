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

use super::bytes::{put_text, put_varint, Reader};
use crate::error::Result;
use crate::observations::columns::{Columns, ColumnsView, Extra};
use crate::observations::model::{Point, PointValue, Status};

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

/// Decodes a chunk.
pub fn decode(bytes: &[u8]) -> Result<Vec<Point>> {
    let mut out = Vec::new();
    decode_into(bytes, &mut out)?;
    Ok(out)
}

/// Decodes a chunk, appending its observations to `points`.
pub fn decode_into(bytes: &[u8], points: &mut Vec<Point>) -> Result<()> {
    if !is_columnar(bytes) {
        return decode_rows(bytes, points);
    }
    let mut columns = Columns::default();
    decode_columns(bytes, &mut columns)?;
    points.extend(columns.into_points());
    Ok(())
}

fn is_columnar(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && bytes[..4] == MAGIC.to_le_bytes()
}

/// Decodes a chunk, appending its observations to `columns`.
pub fn decode_columns(bytes: &[u8], columns: &mut Columns) -> Result<()> {
    decode_columns_from(bytes, columns, 0)
}

/// Decodes a chunk's observations from position `skip` on (none when it holds no more),
/// appending them to `columns`: the tail a `last(n)` needs of its oldest chunk, without a
/// value built for the positions before it.
pub fn decode_columns_from(bytes: &[u8], columns: &mut Columns, skip: usize) -> Result<()> {
    if !is_columnar(bytes) {
        let mut points = Vec::new();
        decode_rows(bytes, &mut points)?;
        for p in points.iter().skip(skip) {
            columns.push(p);
        }
        return Ok(());
    }
    let mut r = Reader::new(bytes, "chunk");
    r.take::<4>()?;
    let count = r.varint()? as usize;
    // A count larger than the bytes can hold is corrupt (a point takes at least the byte of a
    // delta of width one); do not reserve for it.
    if count > bytes.len() {
        return Err(r.corrupt("count larger than the chunk"));
    }
    let skip = skip.min(count);
    let base = columns.len();
    columns.times.reserve(count - skip);
    columns.values.reserve(count - skip);
    let kind = r.byte()?;
    let first = i64::from_le_bytes(r.take::<8>()?);
    match kind {
        0 => {
            let step = r.varint()? as i64;
            step.checked_mul(count.saturating_sub(1) as i64)
                .and_then(|span| first.checked_add(span))
                .ok_or_else(|| r.corrupt("time overflow"))?;
            columns
                .times
                .extend((skip as i64..count as i64).map(|i| first + i * step));
        }
        1 => {
            let mut t = first;
            if count > 0 && skip == 0 {
                columns.times.push(t);
            }
            for i in 1..count {
                t = t
                    .checked_add(r.varint()? as i64)
                    .ok_or_else(|| r.corrupt("time overflow"))?;
                if i >= skip {
                    columns.times.push(t);
                }
            }
        }
        other => return Err(r.corrupt(&format!("time kind {other}"))),
    }
    match r.byte()? {
        0 => {
            let e = r.byte()? as usize;
            let width = r.byte()? as usize;
            let scale = *POW10
                .get(e)
                .ok_or_else(|| r.corrupt(&format!("decimal places {e}")))?;
            let mut n = i64::from_le_bytes(r.take::<8>()?);
            if !matches!(width, 1 | 2 | 4 | 8) {
                return Err(r.corrupt(&format!("delta width {width}")));
            }
            let deltas = r.slice(count.saturating_sub(1) * width)?;
            // Position `skip - 1` is the first integer plus the deltas before it; the deltas
            // from there on give the positions kept.
            let (before, deltas) = deltas.split_at(skip.saturating_sub(1) * width);
            n = n.wrapping_add(match width {
                1 => before
                    .iter()
                    .fold(0i64, |s, &d| s.wrapping_add(d as i8 as i64)),
                2 => before.chunks_exact(2).fold(0i64, |s, d| {
                    s.wrapping_add(i16::from_le_bytes([d[0], d[1]]) as i64)
                }),
                4 => before.chunks_exact(4).fold(0i64, |s, d| {
                    s.wrapping_add(i32::from_le_bytes([d[0], d[1], d[2], d[3]]) as i64)
                }),
                _ => before.chunks_exact(8).fold(0i64, |s, d| {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(d);
                    s.wrapping_add(i64::from_le_bytes(b))
                }),
            });
            if count > 0 && skip == 0 {
                columns.values.push(n as f64 / scale);
            }
            match width {
                1 => columns.values.extend(deltas.iter().map(|&d| {
                    n = n.wrapping_add(d as i8 as i64);
                    n as f64 / scale
                })),
                2 => columns.values.extend(deltas.chunks_exact(2).map(|d| {
                    n = n.wrapping_add(i16::from_le_bytes([d[0], d[1]]) as i64);
                    n as f64 / scale
                })),
                4 => columns.values.extend(deltas.chunks_exact(4).map(|d| {
                    n = n.wrapping_add(i32::from_le_bytes([d[0], d[1], d[2], d[3]]) as i64);
                    n as f64 / scale
                })),
                8 => columns.values.extend(deltas.chunks_exact(8).map(|d| {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(d);
                    n = n.wrapping_add(i64::from_le_bytes(b));
                    n as f64 / scale
                })),
                other => return Err(r.corrupt(&format!("delta width {other}"))),
            }
        }
        1 => {
            let raw = r.slice(count * 8)?;
            columns
                .values
                .extend(raw[skip * 8..].chunks_exact(8).map(|b| {
                    let mut a = [0u8; 8];
                    a.copy_from_slice(b);
                    f64::from_le_bytes(a)
                }));
            // Looked at now, while in cache (a decimal chunk's values are finite as made).
            columns.maybe_not_finite |=
                !crate::observations::columns::all_finite(&columns.values[base..]);
        }
        other => return Err(r.corrupt(&format!("value kind {other}"))),
    }
    let extras = r.varint()? as usize;
    let mut previous = None;
    for _ in 0..extras {
        let index = r.varint()? as usize;
        if index >= count || previous.is_some_and(|p| index <= p) {
            return Err(r.corrupt("extra out of order"));
        }
        previous = Some(index);
        let tag = r.byte()?;
        // An extra before the positions kept: read past it.
        let Some(index) = index.checked_sub(skip) else {
            match tag & 0x7f {
                0 | 1 => {}
                2 => {
                    r.text()?;
                }
                3 => {
                    r.take::<8>()?;
                }
                other => return Err(r.corrupt(&format!("value tag {other}"))),
            }
            if tag & 0x80 != 0 {
                r.str()?;
            }
            continue;
        };
        let value = match tag & 0x7f {
            0 => {
                columns.values[base + index] = f64::NAN;
                PointValue::Null
            }
            1 => PointValue::Num(columns.values[base + index]),
            3 => {
                let n = f64::from_le_bytes(r.take::<8>()?);
                columns.values[base + index] = n;
                // A number kept as it is beside decimals may be an infinity or a NaN.
                columns.maybe_not_finite |= !n.is_finite();
                PointValue::Num(n)
            }
            2 => {
                columns.values[base + index] = f64::NAN;
                PointValue::Text(r.text()?)
            }
            other => return Err(r.corrupt(&format!("value tag {other}"))),
        };
        let status = if tag & 0x80 != 0 {
            Some(Box::new(Status::decode(r.str()?)))
        } else {
            None
        };
        // A number kept as it is beside decimals is a plain number unless it has a status.
        if tag == 3 {
            continue;
        }
        columns.extras.push(Extra {
            index: base + index,
            value,
            status,
        });
    }
    if !r.at_end() {
        return Err(r.corrupt("bytes after the observations"));
    }
    Ok(())
}

/// Decodes a chunk of the first, row-wise form.
fn decode_rows(bytes: &[u8], points: &mut Vec<Point>) -> Result<()> {
    let mut r = Reader::new(bytes, "chunk");
    let count = u32::from_le_bytes(r.take::<4>()?) as usize;
    let mut t = i64::from_le_bytes(r.take::<8>()?);
    // A count larger than the bytes can hold is corrupt; do not reserve for it.
    points.reserve(count.min(bytes.len()));
    for _ in 0..count {
        let delta = r.varint()? as i64;
        t = t
            .checked_add(delta)
            .ok_or_else(|| r.corrupt("time overflow"))?;
        let tag = r.byte()?;
        let v = match tag & 0x7f {
            0 => PointValue::Null,
            1 => PointValue::Num(f64::from_le_bytes(r.take::<8>()?)),
            2 => PointValue::Text(r.text()?),
            other => return Err(r.corrupt(&format!("value tag {other}"))),
        };
        let status = if tag & 0x80 != 0 {
            Some(Box::new(Status::decode(&r.text()?)))
        } else {
            None
        };
        points.push(Point { t, v, status });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = PointValue> {
        prop_oneof![
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(PointValue::Num),
            (-10_000_000i64..10_000_000, 0u32..6)
                .prop_map(|(n, e)| PointValue::Num(n as f64 / 10f64.powi(e as i32))),
            (-100i64..100).prop_map(|n| PointValue::Num(n as f64 / 4.0)),
            "\\PC{0,12}".prop_map(PointValue::Text),
            Just(PointValue::Null),
        ]
    }

    #[test]
    fn decoded_columns_say_where_a_value_may_be_no_finite_number() {
        let decode = |points: &[Point]| {
            let mut c = Columns::default();
            decode_columns(&encode(points), &mut c).unwrap();
            c
        };
        // Decimal values are finite as made: only a null or text value (an extra) is not.
        let null = Point {
            t: 2,
            v: PointValue::Null,
            status: None,
        };
        let mut c = decode(&[Point::num(1, 1.5), null, Point::num(3, 2.25)]);
        assert!(!c.maybe_not_finite && !c.all_finite());
        c.keep(2, 3);
        assert!(c.all_finite());
        // Raw floats are looked at as they are decoded: an infinity or a NaN number is seen.
        for odd in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            let c = decode(&[Point::num(1, 1.0 / 3.0), Point::num(2, odd)]);
            assert!(c.maybe_not_finite && !c.all_finite(), "{odd}");
            assert!(!Columns::from_points(&[Point::num(2, odd)]).all_finite());
        }
        let c = decode(&[Point::num(1, 1.0 / 3.0), Point::num(2, 2.0 / 3.0)]);
        assert!(!c.maybe_not_finite && c.all_finite());
        // Beside decimals, a number kept as it is (one in eight may be) is seen too.
        for odd in [f64::INFINITY, f64::NAN] {
            let mut points: Vec<Point> = (0..16).map(|i| Point::num(i, i as f64 / 4.0)).collect();
            points[9] = Point::num(9, odd);
            let bytes = encode(&points);
            assert_eq!(bytes[4 + 1 + 1 + 8 + 1], 0, "a decimal column");
            let c = decode(&points);
            assert!(c.maybe_not_finite && !c.all_finite(), "{odd}");
        }
    }

    fn status() -> impl Strategy<Value = Option<Box<Status>>> {
        prop_oneof![
            4 => Just(None),
            1 => Just(Some(Box::new(Status {
                quality: Some("FAILED:spike".into()),
                source: None,
                reliability: Some("QUOTED".into())
            }))),
        ]
    }

    fn build(start: i64, raw: Vec<(i64, PointValue, Option<Box<Status>>)>) -> Vec<Point> {
        let mut t = start;
        raw.into_iter()
            .map(|(d, v, status)| {
                t += d;
                Point { t, v, status }
            })
            .collect()
    }

    fn round_trip(points: &[Point]) -> std::result::Result<(), TestCaseError> {
        let bytes = encode(points);
        let back = decode(&bytes).unwrap();
        prop_assert_eq!(back.len(), points.len());
        for (a, b) in back.iter().zip(points) {
            // Bit for bit: -0.0 and 0.0 differ, every NaN payload is kept.
            prop_assert_eq!(a.t, b.t);
            prop_assert_eq!(&a.status, &b.status);
            match (&a.v, &b.v) {
                (PointValue::Num(x), PointValue::Num(y)) => {
                    prop_assert_eq!(x.to_bits(), y.to_bits())
                }
                (x, y) => prop_assert_eq!(x, y),
            }
        }
        let mut columns = Columns::default();
        decode_columns(&bytes, &mut columns).unwrap();
        let expect = Columns::from_points(points);
        prop_assert_eq!(&columns.times, &expect.times);
        prop_assert_eq!(
            columns
                .values
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>(),
            expect
                .values
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>()
        );
        prop_assert_eq!(&columns.extras.len(), &expect.extras.len());
        // What a reader is told of the values' finiteness holds, looked at in full or not.
        let finite = points
            .iter()
            .all(|p| matches!(p.v, PointValue::Num(n) if n.is_finite()));
        prop_assert_eq!(columns.all_finite(), finite);
        prop_assert_eq!(
            crate::observations::columns::all_finite(&columns.values),
            finite
        );
        Ok(())
    }

    proptest! {
        #[test]
        fn chunks_round_trip(raw in prop::collection::vec((1i64..10_000_000, value(), status()), 0..200),
                             start in -1_000_000_000_000i64..2_000_000_000_000) {
            round_trip(&build(start, raw))?;
        }

        #[test]
        fn a_chunk_decoded_from_a_position_is_its_tail(raw in prop::collection::vec((1i64..10_000_000, value(), status()), 0..200),
                                                       regular in any::<bool>(), skip in 0usize..220) {
            let raw = if regular { raw.into_iter().map(|(_, v, s)| (60_000, v, s)).collect() } else { raw };
            let points = build(-7, raw);
            let bytes = encode(&points);
            let mut tail = Columns::default();
            // After columns already held: positions are the tail's own.
            tail.push(&Point::num(-100, 1.0));
            decode_columns_from(&bytes, &mut tail, skip).unwrap();
            let mut expect = Columns::default();
            expect.push(&Point::num(-100, 1.0));
            for p in points.iter().skip(skip) {
                expect.push(p);
            }
            prop_assert_eq!(&tail.times, &expect.times);
            prop_assert_eq!(
                tail.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                expect.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
            prop_assert_eq!(&tail.extras, &expect.extras);
            prop_assert_eq!(tail.all_finite(), expect.all_finite());
        }

        #[test]
        fn a_run_of_columns_encodes_as_its_points(raw in prop::collection::vec((1i64..10_000_000, value(), status()), 0..200),
                                                  cut in (0usize..200, 0usize..200)) {
            let points = build(0, raw);
            let (a, b) = (cut.0.min(cut.1).min(points.len()), cut.0.max(cut.1).min(points.len()));
            let columns = Columns::from_points(&points);
            let run = columns.view(a, b);
            prop_assert_eq!(run.base, a);
            prop_assert_eq!(encode_columns(&run), encode(&points[a..b]));
        }

        #[test]
        fn regular_chunks_round_trip(values in prop::collection::vec((value(), status()), 0..300),
                                     step in 1i64..100_000_000, start in -1_000_000_000_000i64..2_000_000_000_000) {
            round_trip(&build(start, values.into_iter().map(|(v, s)| (step, v, s)).collect()))?;
        }
    }

    #[test]
    fn every_double_comes_back_bit_for_bit() {
        let odd = [
            -0.0,
            0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            9_007_199_254_740_993.0,
            0.1 + 0.2,
            1e18,
            123_456.789,
        ];
        for v in odd {
            // Alone, beside decimals, and in a chunk of raw values.
            for points in [
                vec![Point::num(0, v)],
                vec![Point::num(0, 1.25), Point::num(60, v), Point::num(120, 2.5)],
                vec![Point::num(0, std::f64::consts::PI), Point::num(60, v)],
            ] {
                let back = decode(&encode(&points)).unwrap();
                let bits = |p: &[Point]| {
                    p.iter()
                        .map(|p| p.v.as_f64().unwrap().to_bits())
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(&back), bits(&points), "{v:e}");
            }
        }
    }

    #[test]
    fn a_regular_series_of_prices_takes_a_byte_a_point() {
        let mut v = 5_000i64;
        let points: Vec<Point> = (0..4096)
            .map(|i| {
                v += (i * 7919 % 101) - 50;
                Point::num(1_577_836_800_000 + i * 60_000, v as f64 / 100.0)
            })
            .collect();
        let bytes = encode(&points);
        assert!(bytes.len() < 4096 + 40, "{} bytes", bytes.len());
        assert_eq!(decode(&bytes).unwrap(), points);
        // A few numbers that are no decimals (-0.0 where a walk crosses zero, a computed sum)
        // are kept as they are beside the column, with their status if any.
        let mut odd = points.clone();
        odd[10] = Point::num(odd[10].t, -0.0);
        odd[20] = Point::num(odd[20].t, 0.1 + 0.2);
        odd[30].status = Some(Box::new(Status::default()));
        odd[30].v = PointValue::Num(f64::NAN);
        let bytes = encode(&odd);
        assert!(bytes.len() < 4096 + 80, "{} bytes", bytes.len());
        let back = decode(&bytes).unwrap();
        assert_eq!(back[10].v.as_f64().unwrap().to_bits(), (-0.0f64).to_bits());
        assert_eq!(back[20].v, PointValue::Num(0.1 + 0.2));
        assert!(back[30].v.as_f64().unwrap().is_nan() && back[30].status.is_some());
        assert_eq!(back[..10], points[..10]);
        assert_eq!(back[31..], points[31..]);
        let mut columns = Columns::default();
        decode_columns(&bytes, &mut columns).unwrap();
        assert_eq!(
            columns.extras.iter().map(|e| e.index).collect::<Vec<_>>(),
            vec![30],
            "a number kept as it is is a plain number"
        );
        // A chunk that opens with such numbers takes its places from the first decimals.
        let mut opening = points.clone();
        for p in &mut opening[..3] {
            p.v = PointValue::Num(-0.0);
        }
        opening[3].v = PointValue::Num(std::f64::consts::PI);
        let bytes = encode(&opening);
        assert!(bytes.len() < 4096 + 80, "{} bytes", bytes.len());
        assert_eq!(decode(&bytes).unwrap()[4..], points[4..]);
        // More than an eighth of them: every value as it is.
        let many: Vec<Point> = points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                if i % 4 == 0 {
                    Point::num(p.t, -0.0)
                } else {
                    p.clone()
                }
            })
            .collect();
        let bytes = encode(&many);
        assert!(bytes.len() > 4096 * 8, "{} bytes", bytes.len());
        assert_eq!(decode(&bytes).unwrap().len(), 4096);
        // Wider steps take wider deltas; an irregular series keeps a delta per time.
        let wide: Vec<Point> = (0..100)
            .map(|i| Point::num(i * 1000 + i % 3, (i * i) as f64 * 1000.5))
            .collect();
        let bytes = encode(&wide);
        assert_eq!(decode(&bytes).unwrap(), wide);
        assert!(bytes.len() < 100 * 6 + 40, "{} bytes", bytes.len());
        // Values with more than 18 places are kept whole.
        let raw = [Point::num(0, std::f64::consts::E), Point::num(1, 1.0 / 3.0)];
        assert_eq!(encode(&raw).len(), 4 + 1 + 1 + 8 + 1 + 1 + 16 + 1);
    }

    #[test]
    fn chunks_of_the_first_form_are_still_read() {
        // count 3, first 1000; +0 number 1.5; +60 null with status "FAILED|NEW|"; +60 text "x".
        let mut old = vec![3, 0, 0, 0];
        old.extend_from_slice(&1000i64.to_le_bytes());
        old.extend_from_slice(&[0, 1]);
        old.extend_from_slice(&1.5f64.to_le_bytes());
        old.extend_from_slice(&[60, 0x80, 11]);
        old.extend_from_slice(b"FAILED|NEW|");
        old.extend_from_slice(&[60, 2, 1, b'x']);
        let points = decode(&old).unwrap();
        assert_eq!(
            points,
            vec![
                Point::num(1000, 1.5),
                Point {
                    t: 1060,
                    v: PointValue::Null,
                    status: Some(Box::new(Status {
                        quality: Some("FAILED".into()),
                        source: Some("NEW".into()),
                        reliability: None
                    }))
                },
                Point {
                    t: 1120,
                    v: PointValue::Text("x".into()),
                    status: None
                },
            ]
        );
        let mut columns = Columns::default();
        decode_columns(&old, &mut columns).unwrap();
        assert_eq!(columns.into_points(), points);
        // From a position on, as a `last(n)` reads its oldest chunk.
        let mut tail = Columns::default();
        decode_columns_from(&old, &mut tail, 1).unwrap();
        assert_eq!(tail.into_points(), points[1..].to_vec());
        // Rewritten, the same points take the columnar form.
        assert_eq!(&encode(&points)[..4], &MAGIC.to_le_bytes());
    }

    #[test]
    fn corrupt_chunks_are_errors_not_panics() {
        let mut with_extras = vec![
            Point::num(1, 1.0),
            Point::num(2, 2.5),
            Point::num(5, f64::MAX),
        ];
        with_extras[1].v = PointValue::Text("t".into());
        with_extras[2].status = Some(Box::new(Status::default()));
        for points in [
            vec![Point::num(1, 1.0), Point::num(2, 2.0)],
            vec![Point::num(1, 1.0), Point::num(2, 2.0), Point::num(3, 3.25)],
            with_extras,
        ] {
            let good = encode(&points);
            for cut in 0..good.len() {
                assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
                let mut c = Columns::default();
                assert!(
                    decode_columns(&good[..cut], &mut c).is_err(),
                    "cut at {cut}"
                );
                // Read from a position on, the bytes before it are still checked.
                for skip in 1..=points.len() {
                    let mut c = Columns::default();
                    assert!(
                        decode_columns_from(&good[..cut], &mut c, skip).is_err(),
                        "cut at {cut}, from {skip}"
                    );
                }
            }
            let mut longer = good.clone();
            longer.push(0);
            assert!(decode(&longer).is_err());
            // Every single byte changed: an error or some points, never a panic.
            for at in 0..good.len() {
                for b in [0u8, 1, 2, 0x7f, 0x80, 0xff] {
                    let mut bad = good.clone();
                    bad[at] = b;
                    let _ = decode(&bad);
                    let _ = decode_columns_from(&bad, &mut Columns::default(), 2);
                }
            }
        }
    }
}
