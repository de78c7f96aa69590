//! Writing and reading the observations of a series, chunk by chunk.
//!
//! A save merges the sent observations into the stored ones by time: a sent time overwrites the
//! value and status stored for it, and a value that changes gets status source `CHANGED` unless
//! the sender gave a source. Only the chunks the sent times touch are rewritten (plus the chunk
//! before them, so appends fill it): they stop being current at the new object version and their
//! replacements start there, so every older version stays readable and a save of k points costs
//! about k, not the whole series.

use super::codec;
use crate::error::{Error, Result};
use crate::observations::columns::Columns;
use crate::observations::model::{mark_changed, Point};
use crate::store::{Chunk, DataKey, DataRead, DataWrite};

/// Most observations in one chunk.
pub const CHUNK_POINTS: usize = 4096;

pub use crate::documents::OnDuplicate;

/// How a payload names its observations in errors.
pub struct PayloadNames<'a> {
    /// The place of the i-th observation sent (`SPOT.data[3]`, `line 7`).
    pub place: &'a dyn Fn(usize) -> String,
    /// The text of an instant (in the series' calendar and zone).
    pub time: &'a dyn Fn(i64) -> String,
    /// How to keep one of the repeats instead (`_onDuplicate=first|last`).
    pub hint: &'a str,
}

/// Sorts the observations of one payload by time, resolving an instant sent more than once by
/// `policy`; returns how many observations were dropped. With [`OnDuplicate::Reject`] a repeated
/// instant is an error naming it and the first two places it was sent at.
pub fn sort_payload(
    points: &mut Vec<Point>,
    policy: OnDuplicate,
    names: &PayloadNames<'_>,
) -> Result<usize> {
    if points.windows(2).all(|w| w[0].t < w[1].t) {
        return Ok(0);
    }
    // Payload positions in time order (stable: repeats stay in payload order).
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| points[i].t);
    let runs: Vec<&[usize]> = order
        .chunk_by(|a, b| points[*a].t == points[*b].t)
        .collect();
    let repeated = runs.iter().filter(|r| r.len() > 1).count();
    if repeated == 0 {
        points.sort_by_key(|p| p.t);
        return Ok(0);
    }
    if policy == OnDuplicate::Reject {
        // The repeat that comes first in the payload.
        let run = runs
            .iter()
            .filter(|r| r.len() > 1)
            .min_by_key(|r| r[1])
            .expect("a repeated instant");
        let more = match repeated - 1 {
            0 => String::new(),
            n => format!(
                " ({n} more instant{} repeat)",
                if n == 1 { "" } else { "s" }
            ),
        };
        return Err(Error::invalid_body(format!(
            "{} and {} are the same time {}{more}: send each time once ({}); nothing was stored",
            (names.place)(run[0]),
            (names.place)(run[1]),
            (names.time)(points[run[0]].t),
            names.hint
        )));
    }
    let keep: Vec<usize> = runs
        .iter()
        .map(|r| match policy {
            OnDuplicate::First => r[0],
            _ => r[r.len() - 1],
        })
        .collect();
    let dropped = points.len() - keep.len();
    let mut slots: Vec<Option<Point>> = std::mem::take(points).into_iter().map(Some).collect();
    points.extend(keep.into_iter().filter_map(|i| slots[i].take()));
    Ok(dropped)
}

/// Sorts observations by time; an instant held twice is an error (payloads resolve repeats
/// with [`sort_payload`] first, so nothing is merged silently here).
pub fn normalise(mut points: Vec<Point>) -> Result<Vec<Point>> {
    if points.windows(2).all(|w| w[0].t < w[1].t) {
        return Ok(points);
    }
    points.sort_by_key(|p| p.t);
    if let Some(w) = points.windows(2).find(|w| w[0].t == w[1].t) {
        return Err(Error::invalid_body(format!(
            "the observations hold the time {} ms twice: send each time once",
            w[0].t
        )));
    }
    Ok(points)
}

/// [`sort_payload`] on columns: sorted columns (the common case of a bulk load) are looked at
/// once and kept as they are.
pub fn sort_payload_columns(
    columns: &mut Columns,
    policy: OnDuplicate,
    names: &PayloadNames<'_>,
) -> Result<usize> {
    if columns.is_sorted() {
        return Ok(0);
    }
    let mut points = std::mem::take(columns).into_points();
    let dropped = sort_payload(&mut points, policy, names)?;
    *columns = Columns::from_points(&points);
    Ok(dropped)
}

/// Merges sorted `new` observations into sorted `old` ones (see the module rules); the merged
/// observations, and whether they differ from `old`.
pub fn merge(old: Vec<Point>, new: Vec<Point>) -> (Vec<Point>, bool) {
    if old.is_empty() {
        let changed = !new.is_empty();
        return (new, changed);
    }
    let mut changed = false;
    let mut out = Vec::with_capacity(old.len() + new.len());
    let mut old = old.into_iter().peekable();
    for p in new {
        while let Some(o) = old.next_if(|o| o.t < p.t) {
            out.push(o);
        }
        let merged = match old.next_if(|o| o.t == p.t) {
            Some(o) if o.v != p.v && p.status.as_ref().is_none_or(|s| s.source.is_none()) => {
                changed = true;
                Point {
                    status: mark_changed(p.status),
                    ..p
                }
            }
            Some(o) => {
                let p = keep_status(&o, p);
                changed |= o != p;
                p
            }
            None => {
                changed = true;
                p
            }
        };
        out.push(merged);
    }
    out.extend(old);
    (out, changed)
}

/// A sent observation at a stored time with the same value and no status of its own keeps the
/// stored status (a quality a validation wrote survives a write of the same value); a status
/// sent replaces the stored one.
fn keep_status(old: &Point, p: Point) -> Point {
    if old.v != p.v || p.status.is_some() {
        return p;
    }
    Point {
        status: old.status.clone(),
        ..p
    }
}

/// [`keep_status`] for a replacing write: each sent observation at a stored time with the same
/// value keeps the stored status where the sender gave none (both sorted by time).
fn keep_statuses(old: &[Point], new: Vec<Point>) -> Vec<Point> {
    let mut old = old.iter().peekable();
    new.into_iter()
        .map(|p| {
            while old.next_if(|o| o.t < p.t).is_some() {}
            match old.next_if(|o| o.t == p.t) {
                Some(o) => keep_status(o, p),
                None => p,
            }
        })
        .collect()
}

/// Cuts sorted observations into encoded chunks.
pub fn to_chunks(columns: &Columns) -> Vec<Chunk> {
    (0..columns.len())
        .step_by(CHUNK_POINTS)
        .map(|from| {
            let run = columns.view(from, from + CHUNK_POINTS);
            Chunk {
                start: run.times[0],
                stop: run.times[run.times.len() - 1],
                count: run.times.len() as u32,
                payload: codec::encode_columns(&run),
            }
        })
        .collect()
}

/// Writes observations to a series at an object version; returns whether anything changed.
///
/// `current` is the version whose data the merge starts from (`None` for a new object),
/// `replace` drops every stored observation first, and `keep_history` is false for objects of
/// unversioned types (their rows are rewritten in place). Observations that land where none
/// are stored (a new series, or past its end) go from the columns to the chunks as they are;
/// the chunks they overlap are merged with them point by point.
pub fn write(
    tx: &mut dyn DataWrite,
    key: &DataKey,
    current: Option<u32>,
    version: u32,
    keep_history: bool,
    replace: bool,
    columns: Columns,
) -> Result<bool> {
    let columns = if columns.is_sorted() {
        columns
    } else {
        Columns::from_points(&normalise(columns.into_points())?)
    };
    let affected: Vec<Chunk> = match current {
        None => Vec::new(),
        Some(cur) if replace => tx.chunks(key, cur, None, None)?,
        Some(_) if columns.is_empty() => return Ok(false),
        Some(cur) => {
            let (lo, hi) = (columns.times[0], columns.times[columns.len() - 1]);
            let mut chunks = tx.chunks(key, cur, Some(lo), Some(hi))?;
            if let Some(before) = tx.chunk_before(key, cur, lo)? {
                if chunks.first().is_none_or(|c| c.start != before.start) {
                    chunks.insert(0, before);
                }
            }
            chunks
        }
    };
    let merged = if affected.is_empty() {
        if columns.is_empty() {
            return Ok(false);
        }
        columns
    } else {
        let mut old = Vec::with_capacity(affected.iter().map(|c| c.count as usize).sum());
        for c in &affected {
            codec::decode_into(&c.payload, &mut old)?;
        }
        let points = columns.into_points();
        let (merged, changed) = if replace {
            let points = keep_statuses(&old, points);
            let changed = points != old;
            (points, changed)
        } else {
            merge(old, points)
        };
        if !changed {
            return Ok(false);
        }
        Columns::from_points(&merged)
    };
    let old_starts: Vec<i64> = affected.iter().map(|c| c.start).collect();
    tx.replace_chunks(key, version, keep_history, &old_starts, &to_chunks(&merged))?;
    Ok(true)
}

/// Which observations to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// Every observation.
    All,
    /// The last n.
    Last(u64),
    /// Times in `[start, end)`; `None` is open.
    Between(Option<i64>, Option<i64>),
}

impl Window {
    /// The ondates this window picks of a curve (its bounds read as UTC days): the first and
    /// last dates (inclusive, `YYYY-MM-DD`) and how many of the newest.
    pub(crate) fn ondates(self) -> (Option<String>, Option<String>, Option<u64>) {
        match self {
            Window::All => (None, None, None),
            Window::Last(n) => (None, None, Some(n)),
            Window::Between(s, e) => (
                s.and_then(chrono::DateTime::from_timestamp_millis)
                    .map(|d| d.format("%Y-%m-%d").to_string()),
                e.and_then(|ms| chrono::DateTime::from_timestamp_millis(ms - 1))
                    .map(|d| d.format("%Y-%m-%d").to_string()),
                None,
            ),
        }
    }
}

/// The chunks a window of a series needs, in time order.
fn chunks_of(tx: &dyn DataRead, key: &DataKey, version: u32, window: Window) -> Result<Vec<Chunk>> {
    match window {
        Window::All => tx.chunks(key, version, None, None),
        Window::Between(start, end) => {
            tx.chunks(key, version, start, end.map(|e| e.saturating_sub(1)))
        }
        Window::Last(n) => {
            let mut chunks = tx.last_chunks(key, version, n)?;
            chunks.reverse();
            Ok(chunks)
        }
    }
}

/// Reads the observations of a series at an object version.
pub fn read(tx: &dyn DataRead, key: &DataKey, version: u32, window: Window) -> Result<Vec<Point>> {
    let chunks = chunks_of(tx, key, version, window)?;
    let mut points = Vec::with_capacity(chunks.iter().map(|c| c.count as usize).sum());
    for c in &chunks {
        codec::decode_into(&c.payload, &mut points)?;
    }
    match window {
        Window::All => {}
        Window::Between(start, end) => {
            points.retain(|p| start.is_none_or(|s| p.t >= s) && end.is_none_or(|e| p.t < e))
        }
        Window::Last(n) => {
            points.drain(..points.len().saturating_sub(n as usize));
        }
    }
    Ok(points)
}

/// Reads the observations of a series at an object version, as columns (the points of
/// [`read`], without a [`Point`] per observation).
pub fn read_columns(
    tx: &dyn DataRead,
    key: &DataKey,
    version: u32,
    window: Window,
) -> Result<Columns> {
    let chunks = chunks_of(tx, key, version, window)?;
    let held: usize = chunks.iter().map(|c| c.count as usize).sum();
    // `last(n)` decodes only the tail it needs of its oldest chunk.
    let mut skip = match window {
        Window::Last(n) => held.saturating_sub(usize::try_from(n).unwrap_or(usize::MAX)),
        _ => 0,
    };
    let mut columns = Columns::with_capacity(held - skip);
    for c in &chunks {
        let here = skip.min(c.count as usize);
        codec::decode_columns_from(&c.payload, &mut columns, here)?;
        skip -= here;
    }
    match window {
        Window::All => {}
        Window::Between(start, end) => columns.keep_between(start, end),
        Window::Last(n) => columns.keep(columns.len().saturating_sub(n as usize), columns.len()),
    }
    Ok(columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observations::model::{PointValue, Status};

    #[test]
    fn merge_overwrites_by_time_and_marks_changes() {
        let old = vec![Point::num(1, 1.0), Point::num(3, 3.0), Point::num(5, 5.0)];
        let new = vec![
            Point::num(0, 0.5),
            Point::num(3, 30.0),
            Point::num(5, 5.0),
            Point::num(9, 9.0),
        ];
        let (merged, changed) = merge(old, new);
        assert!(changed);
        let times: Vec<i64> = merged.iter().map(|p| p.t).collect();
        assert_eq!(times, vec![0, 1, 3, 5, 9]);
        assert_eq!(merged[2].v, PointValue::Num(30.0));
        assert_eq!(
            merged[2].status.as_ref().and_then(|s| s.source.as_deref()),
            Some("CHANGED")
        );
        assert_eq!(
            merged[3].status, None,
            "an unchanged value keeps its status"
        );
        // A sender's own source wins.
        let sent = Point {
            t: 1,
            v: PointValue::Num(2.0),
            status: Some(Box::new(Status {
                source: Some("CALCULATED".into()),
                ..Status::default()
            })),
        };
        let (merged, changed) = merge(vec![Point::num(1, 1.0)], vec![sent.clone()]);
        assert_eq!(merged, vec![sent.clone()]);
        assert!(changed);
        // The same observations again change nothing; a new time or status does.
        let same = vec![Point::num(1, 1.0), Point::num(2, 2.0)];
        assert_eq!(merge(same.clone(), same.clone()), (same.clone(), false));
        assert!(merge(same.clone(), vec![Point::num(3, 3.0)]).1);
        assert!(merge(same.clone(), vec![sent]).1);
        assert_eq!(merge(Vec::new(), Vec::new()), (Vec::new(), false));
    }

    fn flagged(t: i64, v: f64, quality: &str) -> Point {
        Point {
            t,
            v: PointValue::Num(v),
            status: Some(Box::new(Status {
                quality: Some(quality.into()),
                source: None,
                reliability: Some("QUOTED".into()),
            })),
        }
    }

    #[test]
    fn an_unchanged_value_keeps_its_stored_quality() {
        let old = vec![
            flagged(1, 1.0, "FAILED:spike"),
            flagged(2, 2.0, "VALID"),
            Point::num(3, 3.0),
        ];
        // The same values without statuses: nothing changes, the qualities stay.
        let again = vec![Point::num(1, 1.0), Point::num(2, 2.0), Point::num(3, 3.0)];
        assert_eq!(merge(old.clone(), again.clone()), (old.clone(), false));
        // One value changes: it loses the quality of the old value and is CHANGED; the
        // others keep theirs.
        let edit = vec![Point::num(1, 1.0), Point::num(2, 20.0)];
        let (merged, changed) = merge(old.clone(), edit);
        assert!(changed);
        assert_eq!(merged[0], old[0]);
        let st = merged[1].status.as_deref().unwrap();
        assert_eq!(
            (st.quality.as_deref(), st.source.as_deref()),
            (None, Some("CHANGED"))
        );
        // A status sent replaces the stored one.
        let mut valid = Point::num(1, 1.0);
        valid.status = Some(Box::new(Status {
            quality: Some("VALID".into()),
            ..Status::default()
        }));
        let (merged, changed) = merge(old.clone(), vec![valid.clone()]);
        assert!(changed);
        assert_eq!(merged[0], valid);
        // A replacing write of the same values keeps them too.
        let replaced = keep_statuses(&old, again);
        assert_eq!(replaced, old);
        let fewer = keep_statuses(&old, vec![Point::num(2, 2.0), Point::num(4, 4.0)]);
        assert_eq!(fewer, vec![old[1].clone(), Point::num(4, 4.0)]);
    }

    fn names() -> PayloadNames<'static> {
        PayloadNames {
            place: &|i| format!("data[{i}]"),
            time: &|t| format!("t{t}"),
            hint: "or pick one",
        }
    }

    #[test]
    fn a_repeated_instant_is_refused_or_resolved_in_payload_order() {
        let sent = || {
            vec![
                Point::num(2, 1.0),
                Point::num(1, 1.0),
                Point::num(2, 7.0),
                Point::num(3, 3.0),
                Point::num(2, 9.0),
            ]
        };
        let mut points = sent();
        let err = sort_payload(&mut points, OnDuplicate::Reject, &names()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "data[0] and data[2] are the same time t2: send each time once (or pick one); \
             nothing was stored"
        );
        assert_eq!(points, sent(), "a refused payload is left as sent");
        let mut points = sent();
        assert_eq!(
            sort_payload(&mut points, OnDuplicate::First, &names()).unwrap(),
            2
        );
        assert_eq!(
            points,
            vec![Point::num(1, 1.0), Point::num(2, 1.0), Point::num(3, 3.0)]
        );
        let mut points = sent();
        sort_payload(&mut points, OnDuplicate::Last, &names()).unwrap();
        assert_eq!(
            points,
            vec![Point::num(1, 1.0), Point::num(2, 9.0), Point::num(3, 3.0)]
        );
        // Unsorted without repeats: sorted, nothing dropped.
        let mut points = vec![Point::num(3, 3.0), Point::num(1, 1.0)];
        assert_eq!(
            sort_payload(&mut points, OnDuplicate::Reject, &names()).unwrap(),
            0
        );
        assert_eq!(points, vec![Point::num(1, 1.0), Point::num(3, 3.0)]);
        // Two repeated instants: the first repeat in payload order is named, with a count.
        let mut points = vec![
            Point::num(5, 1.0),
            Point::num(4, 1.0),
            Point::num(4, 2.0),
            Point::num(5, 2.0),
        ];
        let err = sort_payload(&mut points, OnDuplicate::Reject, &names()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("data[1] and data[2] are the same time t4 (1 more instant repeat)"),
            "{err}"
        );
        assert!(OnDuplicate::parse("LAST").is_ok());
        assert!(OnDuplicate::parse("middle").is_err());
    }

    #[test]
    fn normalise_sorts_and_refuses_a_repeated_time() {
        assert_eq!(
            normalise(vec![Point::num(2, 1.0), Point::num(1, 1.0)]).unwrap(),
            vec![Point::num(1, 1.0), Point::num(2, 1.0)]
        );
        assert!(normalise(vec![
            Point::num(2, 1.0),
            Point::num(1, 1.0),
            Point::num(2, 7.0)
        ])
        .is_err());
    }

    #[test]
    fn chunks_hold_at_most_the_chunk_size() {
        let points: Vec<Point> = (0..(CHUNK_POINTS as i64 * 2 + 5))
            .map(|t| Point::num(t, t as f64))
            .collect();
        let chunks = to_chunks(&Columns::from_points(&points));
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[2].count, 5);
        assert_eq!(
            (chunks[1].start, chunks[1].stop),
            (CHUNK_POINTS as i64, 2 * CHUNK_POINTS as i64 - 1)
        );
    }
}
