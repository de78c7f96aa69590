//! The observations of a series as columns: times and numbers in two arrays, and the few
//! observations that are not plain numbers (null or text values, or any with a status) listed
//! apart. Chunks decode straight into this form, and the JSON and Arrow answers are written
//! from it, so a read of a numeric series never builds a [`Point`] per observation.

use super::model::{Point, PointValue, Status};
use crate::error::{Error, Result};

/// An observation that is not a plain number: its full value and status.
#[derive(Debug, Clone, PartialEq)]
pub struct Extra {
    /// Its position in the columns.
    pub index: usize,
    /// Its value (a number here is also in [`Columns::values`]).
    pub value: PointValue,
    /// Its status.
    pub status: Option<Box<Status>>,
}

/// Observations sorted by time, as columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Columns {
    /// Times (UTC ms), ascending.
    pub times: Vec<i64>,
    /// Values: the number, or NaN where the value is null or text (see [`Columns::extras`]).
    pub values: Vec<f64>,
    /// The observations that are not plain numbers without a status, by ascending index.
    pub extras: Vec<Extra>,
    /// Whether a value outside [`Columns::extras`] may be no finite number (NaN or an
    /// infinity). Decoding and [`Columns::push`] keep it: a decimal chunk's values are finite
    /// by construction, so only the extras of such columns need a look (see
    /// [`Columns::all_finite`]), not a pass over a million values.
    pub maybe_not_finite: bool,
}

/// A run of [`Columns`]: the observations at positions `base..base + times.len()`, with the
/// extras among them (their indexes still those of the whole columns).
#[derive(Debug, Clone, Copy)]
pub struct ColumnsView<'a> {
    /// Times of the run.
    pub times: &'a [i64],
    /// Values of the run.
    pub values: &'a [f64],
    /// The extras of the run.
    pub extras: &'a [Extra],
    /// The position of the run's first observation in the whole columns.
    pub base: usize,
}

/// Whether every value is a finite number: a read of the whole slice in blocks the compiler
/// turns into vector instructions (a loop that stops at the first miss is scalar, and twice as
/// slow on a million values).
pub fn all_finite(values: &[f64]) -> bool {
    let blocks = values.chunks_exact(64);
    let rest = blocks.remainder();
    blocks
        .into_iter()
        .all(|b| b.iter().fold(true, |all, v| all & v.is_finite()))
        && rest.iter().all(|v| v.is_finite())
}

impl Columns {
    /// Empty columns with room for `n` observations.
    pub fn with_capacity(n: usize) -> Columns {
        Columns {
            times: Vec::with_capacity(n),
            values: Vec::with_capacity(n),
            extras: Vec::new(),
            maybe_not_finite: false,
        }
    }

    /// Whether every value is a finite number (null and text values are NaN, so not).
    pub fn all_finite(&self) -> bool {
        if self.maybe_not_finite {
            return all_finite(&self.values);
        }
        self.extras.iter().all(|e| self.values[e.index].is_finite())
    }

    /// Checks columns sent to be written: as many values as times, and the extras each at a
    /// position among them, in ascending order, a number among them the same as its slot in
    /// [`Columns::values`].
    pub fn check(&self) -> Result<()> {
        if self.values.len() != self.times.len() {
            return Err(Error::invalid_body(format!(
                "{} times and {} values: send one value per time",
                self.times.len(),
                self.values.len()
            )));
        }
        let mut previous = None;
        for e in &self.extras {
            if e.index >= self.times.len() || previous.is_some_and(|p| e.index <= p) {
                return Err(Error::invalid_body(format!(
                    "the extra at position {} is out of place: list extras by ascending \
                     position, each below the number of times ({})",
                    e.index,
                    self.times.len()
                )));
            }
            if let PointValue::Num(n) = e.value {
                if n.to_bits() != self.values[e.index].to_bits() {
                    return Err(Error::invalid_body(format!(
                        "the extra at position {} holds the number {n}, its value slot {}: \
                         send the same number in both",
                        e.index, self.values[e.index]
                    )));
                }
            }
            previous = Some(e.index);
        }
        Ok(())
    }

    /// How many observations.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The columns of points.
    pub fn from_points(points: &[Point]) -> Columns {
        let mut out = Columns::with_capacity(points.len());
        for p in points {
            out.push(p);
        }
        out
    }

    /// Appends one observation.
    pub fn push(&mut self, p: &Point) {
        let index = self.times.len();
        self.times.push(p.t);
        match &p.v {
            PointValue::Num(n) => {
                self.values.push(*n);
                if p.status.is_none() {
                    self.maybe_not_finite |= !n.is_finite();
                    return;
                }
            }
            _ => self.values.push(f64::NAN),
        }
        self.extras.push(Extra {
            index,
            value: p.v.clone(),
            status: p.status.clone(),
        });
    }

    /// The observations as points.
    pub fn into_points(self) -> Vec<Point> {
        let mut out: Vec<Point> = self
            .times
            .iter()
            .zip(&self.values)
            .map(|(&t, &v)| Point::num(t, v))
            .collect();
        for e in self.extras {
            let p = &mut out[e.index];
            p.v = e.value;
            p.status = e.status;
        }
        out
    }

    internal! {
        /// The observations at positions `from..to`, borrowed.
        fn view(&self, from: usize, to: usize) -> ColumnsView<'_> {
            let to = to.min(self.len());
            let from = from.min(to);
            let first = self.extras.partition_point(|e| e.index < from);
            let end = self.extras.partition_point(|e| e.index < to);
            ColumnsView {
                times: &self.times[from..to],
                values: &self.values[from..to],
                extras: &self.extras[first..end],
                base: from,
            }
        }
    }

    /// Whether the times are strictly ascending (as stored columns must be).
    pub fn is_sorted(&self) -> bool {
        // Compared in blocks without an early exit, which the compiler turns into vector
        // instructions.
        let t = &self.times;
        if t.len() < 2 {
            return true;
        }
        t[1..]
            .chunks(64)
            .zip(t[..t.len() - 1].chunks(64))
            .all(|(next, prev)| next.iter().zip(prev).fold(true, |ok, (n, p)| ok & (n > p)))
    }

    /// Keeps the observations in `from..to` (positions).
    pub fn keep(&mut self, from: usize, to: usize) {
        let to = to.min(self.len());
        let from = from.min(to);
        if from == 0 && to == self.len() {
            return;
        }
        self.times.truncate(to);
        self.values.truncate(to);
        self.times.drain(..from);
        self.values.drain(..from);
        self.extras.retain(|e| (from..to).contains(&e.index));
        for e in &mut self.extras {
            e.index -= from;
        }
    }

    /// Keeps the observations with times in `[start, end)` (`None` is open).
    pub fn keep_between(&mut self, start: Option<i64>, end: Option<i64>) {
        let from = start.map_or(0, |s| self.times.partition_point(|&t| t < s));
        let to = end.map_or(self.len(), |e| self.times.partition_point(|&t| t < e));
        self.keep(from, to);
    }

    /// The status of each observation that has one, by position (ascending).
    pub fn statuses(&self) -> impl Iterator<Item = (usize, &Status)> {
        self.extras
            .iter()
            .filter_map(|e| e.status.as_deref().map(|s| (e.index, s)))
    }
}

/// Writes the JSON of observations (as columns) straight to `out`, as
/// [`points_json`](super::model::points_json)'s tree
/// would print, without building the tree (a read of many points spends most of its time
/// there); `time` writes the JSON string of a time.
pub fn write_points_json(
    out: &mut Vec<u8>,
    points: &Columns,
    mut time: impl FnMut(i64, &mut Vec<u8>),
) {
    fn string(out: &mut Vec<u8>, s: &str) {
        // Writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, s);
    }
    out.reserve(points.len() * 48);
    out.push(b'[');
    let mut extras = points.extras.iter().peekable();
    for (i, (&t, &n)) in points.times.iter().zip(&points.values).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"time\":");
        time(t, out);
        out.extend_from_slice(b",\"value\":");
        let extra = extras.next_if(|e| e.index == i);
        match extra.map(|e| &e.value) {
            Some(PointValue::Text(t)) => string(out, t),
            Some(PointValue::Null) => out.extend_from_slice(b"null"),
            _ if n.is_finite() => {
                let _ = serde_json::to_writer(&mut *out, &n);
            }
            _ => out.extend_from_slice(b"null"),
        }
        if let Some(st) = extra.and_then(|e| e.status.as_deref()) {
            out.extend_from_slice(b",\"status\":{");
            let mut first = true;
            for (k, v) in [
                ("quality", &st.quality),
                ("source", &st.source),
                ("reliability", &st.reliability),
            ] {
                if let Some(v) = v {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    string(out, k);
                    out.push(b':');
                    string(out, v);
                }
            }
            out.push(b'}');
        }
        out.push(b'}');
    }
    out.push(b']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::calendar::{format_time, write_time, Calendar};
    use crate::observations::model::points_json;

    fn mixed() -> Vec<Point> {
        vec![
            Point::num(1, 1.5),
            Point {
                t: 2,
                v: PointValue::Text("n/a".into()),
                status: None,
            },
            Point::num(3, -2.0),
            Point {
                t: 4,
                v: PointValue::Num(7.0),
                status: Some(Box::new(Status {
                    quality: Some("FAILED:spike".into()),
                    ..Status::default()
                })),
            },
            Point {
                t: 5,
                v: PointValue::Null,
                status: None,
            },
            Point::num(6, 0.25),
        ]
    }

    #[test]
    fn points_round_trip_through_columns() {
        let c = Columns::from_points(&mixed());
        assert_eq!(c.times, vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(c.values[0], 1.5);
        assert!(c.values[1].is_nan() && c.values[4].is_nan());
        assert_eq!(c.values[3], 7.0);
        assert_eq!(
            c.extras.iter().map(|e| e.index).collect::<Vec<_>>(),
            vec![1, 3, 4]
        );
        assert_eq!(c.statuses().map(|(i, _)| i).collect::<Vec<_>>(), vec![3]);
        assert_eq!(c.into_points(), mixed());
    }

    #[test]
    fn sorted_means_strictly_ascending_times() {
        let with = |times: Vec<i64>| Columns {
            values: vec![0.0; times.len()],
            times,
            ..Columns::default()
        };
        assert!(with(vec![]).is_sorted() && with(vec![3]).is_sorted());
        let mut long: Vec<i64> = (0..300).collect();
        assert!(with(long.clone()).is_sorted());
        // A step back or a repeat anywhere, on either side of a block of 64.
        for at in [1, 63, 64, 65, 128, 299] {
            let mut back = long.clone();
            back[at] = back[at - 1] - 1;
            assert!(!with(back).is_sorted(), "step back at {at}");
            let mut repeat = long.clone();
            repeat[at] = repeat[at - 1];
            assert!(!with(repeat).is_sorted(), "repeat at {at}");
        }
        long.reverse();
        assert!(!with(long).is_sorted());
    }

    #[test]
    fn a_view_holds_the_extras_of_its_run() {
        let c = Columns::from_points(&mixed());
        let run = c.view(1, 4);
        assert_eq!((run.base, run.times), (1, &[2, 3, 4][..]));
        assert_eq!(
            run.extras.iter().map(|e| e.index).collect::<Vec<_>>(),
            vec![1, 3]
        );
        assert!(c.view(5, 99).extras.is_empty());
        assert_eq!(c.view(4, 99).extras[0].index, 4);
        assert!(c.view(6, 2).times.is_empty());
    }

    #[test]
    fn keeping_a_window_moves_the_extras_with_it() {
        let mut c = Columns::from_points(&mixed());
        c.keep_between(Some(2), Some(5));
        assert_eq!(c.clone().into_points(), mixed()[1..4].to_vec());
        c.keep(1, 10);
        assert_eq!(c.into_points(), mixed()[2..4].to_vec());
        let mut c = Columns::from_points(&mixed());
        c.keep_between(None, Some(1));
        assert!(c.is_empty() && c.extras.is_empty());
        let mut c = Columns::from_points(&mixed());
        c.keep_between(Some(5), None);
        assert_eq!(c.into_points(), mixed()[4..].to_vec());
    }

    #[test]
    fn points_written_straight_print_as_their_tree() {
        let status = |q: &str| {
            Some(Box::new(Status {
                quality: Some(q.into()),
                source: None,
                reliability: Some("QUOTED".into()),
            }))
        };
        let points = vec![
            Point::num(0, 1.5),
            Point::num(60_000, 1e21),
            Point::num(120_000, f64::NAN),
            Point {
                t: 180_500,
                v: PointValue::Text("a \"quoted\" text".into()),
                status: status("FAILED:spike"),
            },
            Point {
                t: 240_000,
                v: PointValue::Null,
                status: None,
            },
            Point {
                t: 300_000,
                v: PointValue::Num(-0.25),
                status: status("VALID"),
            },
            Point::num(-62_167_219_200_001, 3.0),
        ];
        for calendar in [Calendar::Intraday(60), Calendar::Daily, Calendar::Sparse] {
            let tz = chrono_tz::Europe::Berlin;
            let mut out = Vec::new();
            write_points_json(&mut out, &Columns::from_points(&points), |t, out| {
                write_time(t, calendar, tz, out)
            });
            let tree = points_json(&points, |t| format_time(t, calendar, tz));
            assert_eq!(String::from_utf8(out).unwrap(), tree.to_string());
        }
    }
}
