//! Decoding chunks (the grammar is the parent module's): a columnar chunk straight into
//! [`Columns`] in one pass, times, then values, then the observations that are not plain
//! numbers; a chunk of the first, row-wise form into points.

use super::{MAGIC, POW10};
use crate::data::bytes::Reader;
use crate::error::Result;
use crate::observations::columns::{all_finite, Columns, Extra};
use crate::observations::model::{Point, PointValue, Status};

/// Decodes a chunk.
#[cfg(any(test, feature = "internals"))]
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
    decode_times(&mut r, &mut columns.times, count, skip)?;
    match r.byte()? {
        0 => decode_decimals(&mut r, &mut columns.values, count, skip)?,
        1 => {
            decode_raw(&mut r, &mut columns.values, count, skip)?;
            // Looked at now, while in cache (a decimal chunk's values are finite as made).
            columns.maybe_not_finite |= !all_finite(&columns.values[base..]);
        }
        other => return Err(r.corrupt(&format!("value kind {other}"))),
    }
    decode_extras(&mut r, columns, count, skip, base)?;
    if !r.at_end() {
        return Err(r.corrupt("bytes after the observations"));
    }
    Ok(())
}

/// The times of positions `skip..count`: regular (a first time and a step) or deltas.
fn decode_times(r: &mut Reader<'_>, times: &mut Vec<i64>, count: usize, skip: usize) -> Result<()> {
    let kind = r.byte()?;
    let first = i64::from_le_bytes(r.take::<8>()?);
    match kind {
        0 => {
            let step = r.varint()? as i64;
            step.checked_mul(count.saturating_sub(1) as i64)
                .and_then(|span| first.checked_add(span))
                .ok_or_else(|| r.corrupt("time overflow"))?;
            times.extend((skip as i64..count as i64).map(|i| first + i * step));
        }
        1 => {
            let mut t = first;
            if count > 0 && skip == 0 {
                times.push(t);
            }
            for i in 1..count {
                t = t
                    .checked_add(r.varint()? as i64)
                    .ok_or_else(|| r.corrupt("time overflow"))?;
                if i >= skip {
                    times.push(t);
                }
            }
        }
        other => return Err(r.corrupt(&format!("time kind {other}"))),
    }
    Ok(())
}

/// The values of positions `skip..count` kept as decimals: a first integer and its deltas in
/// one width, each integer over `10^e`.
fn decode_decimals(
    r: &mut Reader<'_>,
    values: &mut Vec<f64>,
    count: usize,
    skip: usize,
) -> Result<()> {
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
    // Position `skip - 1` is the first integer plus the deltas before it; the deltas from
    // there on give the positions kept.
    let (before, deltas) = deltas.split_at(skip.saturating_sub(1) * width);
    n = n.wrapping_add(sum_of_deltas(before, width));
    if count > 0 && skip == 0 {
        values.push(n as f64 / scale);
    }
    match width {
        1 => values.extend(deltas.iter().map(|&d| {
            n = n.wrapping_add(d as i8 as i64);
            n as f64 / scale
        })),
        2 => values.extend(deltas.chunks_exact(2).map(|d| {
            n = n.wrapping_add(i16::from_le_bytes([d[0], d[1]]) as i64);
            n as f64 / scale
        })),
        4 => values.extend(deltas.chunks_exact(4).map(|d| {
            n = n.wrapping_add(i32::from_le_bytes([d[0], d[1], d[2], d[3]]) as i64);
            n as f64 / scale
        })),
        _ => values.extend(deltas.chunks_exact(8).map(|d| {
            n = n.wrapping_add(i64_at(d));
            n as f64 / scale
        })),
    }
    Ok(())
}

/// The sum of deltas of `width` bytes each (1, 2, 4 or 8), wrapping as the encoder's did.
fn sum_of_deltas(deltas: &[u8], width: usize) -> i64 {
    match width {
        1 => deltas
            .iter()
            .fold(0i64, |s, &d| s.wrapping_add(d as i8 as i64)),
        2 => deltas.chunks_exact(2).fold(0i64, |s, d| {
            s.wrapping_add(i16::from_le_bytes([d[0], d[1]]) as i64)
        }),
        4 => deltas.chunks_exact(4).fold(0i64, |s, d| {
            s.wrapping_add(i32::from_le_bytes([d[0], d[1], d[2], d[3]]) as i64)
        }),
        _ => deltas
            .chunks_exact(8)
            .fold(0i64, |s, d| s.wrapping_add(i64_at(d))),
    }
}

/// The little-endian `i64` of eight bytes.
fn i64_at(d: &[u8]) -> i64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(d);
    i64::from_le_bytes(b)
}

/// The values of positions `skip..count` kept as they are (`f64` each).
fn decode_raw(r: &mut Reader<'_>, values: &mut Vec<f64>, count: usize, skip: usize) -> Result<()> {
    let raw = r.slice(count * 8)?;
    values.extend(raw[skip * 8..].chunks_exact(8).map(|b| {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        f64::from_le_bytes(a)
    }));
    Ok(())
}

/// The observations that are not plain numbers, at positions from `skip` on (those before are
/// read past), laid over the columns from `base`.
fn decode_extras(
    r: &mut Reader<'_>,
    columns: &mut Columns,
    count: usize,
    skip: usize,
    base: usize,
) -> Result<()> {
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
            skip_extra(r, tag)?;
            continue;
        };
        let at = base + index;
        let value = match tag & 0x7f {
            0 => {
                columns.values[at] = f64::NAN;
                PointValue::Null
            }
            1 => PointValue::Num(columns.values[at]),
            3 => {
                let n = f64::from_le_bytes(r.take::<8>()?);
                columns.values[at] = n;
                // A number kept as it is beside decimals may be an infinity or a NaN.
                columns.maybe_not_finite |= !n.is_finite();
                PointValue::Num(n)
            }
            2 => {
                columns.values[at] = f64::NAN;
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
            index: at,
            value,
            status,
        });
    }
    Ok(())
}

/// Reads past an extra with `tag` (its payload and its status).
fn skip_extra(r: &mut Reader<'_>, tag: u8) -> Result<()> {
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
