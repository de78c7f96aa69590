//! The stored form of a chunk of observations: compact, and fast to decode whole in one pass.
//!
//! ```text
//! chunk  := count:u32le first:i64le point*
//! point  := delta:varint tag:u8 payload [status]   delta from the previous time (0 for the first)
//! tag    := low bits 0 null, 1 number, 2 text; 0x80: a status follows the payload
//! number := f64le ; text := len:varint utf8 ; status := len:varint utf8 ("Q|S|R")
//! ```

use super::bytes::{put_varint, Reader};
use super::model::{Point, PointValue, Status};
use crate::error::Result;

/// Encodes points (sorted by time, distinct times).
pub fn encode(points: &[Point]) -> Vec<u8> {
    let mut out = Vec::with_capacity(12 + points.len() * 11);
    out.extend_from_slice(&(points.len() as u32).to_le_bytes());
    let first = points.first().map_or(0, |p| p.t);
    out.extend_from_slice(&first.to_le_bytes());
    let mut prev = first;
    for p in points {
        put_varint(&mut out, (p.t - prev) as u64);
        prev = p.t;
        let flag = if p.status.is_some() { 0x80 } else { 0 };
        match &p.v {
            PointValue::Null => out.push(flag),
            PointValue::Num(n) => {
                out.push(1 | flag);
                out.extend_from_slice(&n.to_le_bytes());
            }
            PointValue::Text(s) => {
                out.push(2 | flag);
                put_varint(&mut out, s.len() as u64);
                out.extend_from_slice(s.as_bytes());
            }
        }
        if let Some(s) = &p.status {
            let text = s.encode();
            put_varint(&mut out, text.len() as u64);
            out.extend_from_slice(text.as_bytes());
        }
    }
    out
}

/// Decodes a chunk.
pub fn decode(bytes: &[u8]) -> Result<Vec<Point>> {
    let mut out = Vec::new();
    decode_into(bytes, &mut out)?;
    Ok(out)
}

/// Decodes a chunk, appending its observations to `points`.
pub fn decode_into(bytes: &[u8], points: &mut Vec<Point>) -> Result<()> {
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

    fn point() -> impl Strategy<Value = (i64, PointValue, Option<Box<Status>>)> {
        (
            1i64..10_000_000,
            prop_oneof![
                any::<f64>()
                    .prop_filter("finite", |f| f.is_finite())
                    .prop_map(PointValue::Num),
                "\\PC{0,12}".prop_map(PointValue::Text),
                Just(PointValue::Null),
            ],
            prop_oneof![
                Just(None),
                Just(Some(Box::new(Status {
                    quality: Some("FAILED:spike".into()),
                    source: None,
                    reliability: Some("QUOTED".into())
                }))),
            ],
        )
    }

    proptest! {
        #[test]
        fn chunks_round_trip(raw in prop::collection::vec(point(), 0..200), start in -1_000_000_000_000i64..2_000_000_000_000) {
            let mut t = start;
            let points: Vec<Point> = raw
                .into_iter()
                .map(|(d, v, status)| {
                    t += d;
                    Point { t, v, status }
                })
                .collect();
            prop_assert_eq!(decode(&encode(&points)).unwrap(), points);
        }
    }

    #[test]
    fn corrupt_chunks_are_errors_not_panics() {
        let good = encode(&[Point::num(1, 1.0), Point::num(2, 2.0)]);
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
        }
    }
}
