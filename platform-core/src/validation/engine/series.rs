//! The data a point check sees: the series, the target observations, and every statistic as a
//! column over the targets, computed once per run and shared by all checks (native or rhai).
//!
//! Window rule: a function with a count `n` at series index `t` reads the `n` observations
//! `t-n..t` (`lag(k)` the one at `t-k`), never more; with fewer than `n` before `t` it lacks
//! history ([`SeriesCtx::lack`]) and its column is NaN there. So a point gives the same result
//! whether it runs alone or in a range. Missing values in a window are left out of the
//! statistics; a window without enough values (`stdev` needs 2) lacks history too.
use super::lack::{not_a_number, Lack, Stop};
use super::native::PointStat;
use super::{SeriesInput, MAX_HISTORY};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// Factor of the modified z-score (Iglewicz and Hoaglin).
const ROBUST_Z_FACTOR: f64 = 0.6745;

/// The series indices of the targets of a run: a range (the usual case, nothing copied) or a
/// list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Targets {
    /// `start..end`.
    Range(usize, usize),
    /// Any other indices.
    List(Vec<usize>),
}

impl Targets {
    /// The targets inside a series of `len` observations.
    fn new(targets: &[usize], len: usize) -> Self {
        let contiguous = targets.windows(2).all(|w| w[1] == w[0] + 1);
        match (targets.first(), targets.last()) {
            (Some(&a), Some(&b)) if contiguous && b < len => Targets::Range(a, b + 1),
            (None, _) => Targets::Range(0, 0),
            _ => Targets::List(targets.iter().copied().filter(|&t| t < len).collect()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Targets::Range(a, b) => b - a,
            Targets::List(v) => v.len(),
        }
    }

    /// The series index of target `j`.
    #[inline]
    pub fn get(&self, j: usize) -> usize {
        match self {
            Targets::Range(a, _) => a + j,
            Targets::List(v) => v[j],
        }
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).map(move |j| self.get(j))
    }
}

pub(crate) struct SeriesCtx {
    /// The whole series, NaN for missing.
    values: Vec<f64>,
    /// Times in UTC milliseconds (for `gap()`, `time` and the messages of lacking history).
    times: Vec<i64>,
    step_ms: Option<i64>,
    /// The observations holding text, by series index.
    text: BTreeMap<usize, String>,
    /// Series indices of the targets (valid ones only).
    pub targets: Targets,
    cols: RefCell<HashMap<PointStat, Rc<Vec<f64>>>>,
    /// The target being evaluated (position in `targets`), for the rhai functions.
    pub cur: Cell<usize>,
}

impl SeriesCtx {
    /// The series and the targets (series indices) its checks run on.
    pub fn new(series: &SeriesInput, targets: &[usize]) -> Self {
        let len = series.values.len().min(series.times.len());
        let values: Vec<f64> = series.values[..len]
            .iter()
            .map(|v| v.unwrap_or(f64::NAN))
            .collect();
        Self {
            values,
            times: series.times[..len].to_vec(),
            step_ms: series.step_ms.filter(|s| *s > 0),
            text: series
                .text
                .range(..len)
                .map(|(i, t)| (*i, t.clone()))
                .collect(),
            targets: Targets::new(targets, len),
            cols: RefCell::new(HashMap::new()),
            cur: Cell::new(0),
        }
    }

    /// The text target `j` holds, if it holds text.
    pub fn text_at(&self, j: usize) -> Option<&str> {
        if self.text.is_empty() || j >= self.targets.len() {
            return None;
        }
        self.text.get(&self.targets.get(j)).map(String::as_str)
    }

    /// Whether target `j` is missing (no number and no text).
    pub fn missing_at(&self, j: usize) -> bool {
        j >= self.targets.len()
            || (self.values[self.targets.get(j)].is_nan() && self.text_at(j).is_none())
    }

    /// Why `stat` has no number at target `j` (None: it has one, or its NaN is the statistic's
    /// own, as a z-score over a flat window).
    pub fn lack(&self, stat: PointStat, j: usize) -> Option<Lack> {
        use PointStat as P;
        let t = self.targets.get(j);
        let earlier = |n: usize| (t < n).then_some(Lack::Earlier { need: n, have: t });
        let number = |back: usize| {
            self.values[t - back]
                .is_nan()
                .then_some(Lack::NoNumber { back, at: t - back })
        };
        let values = |n: usize, need: usize| {
            let have = self.values[t - n..t].iter().filter(|v| !v.is_nan()).count();
            (have < need).then_some(Lack::Values {
                need,
                have,
                window: n,
            })
        };
        match stat {
            P::Value | P::RunLength(_) | P::Lag(0) | P::Change(0) | P::PctChange(0) => None,
            P::Lag(k) | P::Change(k) | P::PctChange(k) => earlier(k).or_else(|| number(k)),
            P::Spike => earlier(2).or_else(|| number(1)).or_else(|| number(2)),
            P::Gap if self.step_ms.is_none() => Some(Lack::NoStep),
            P::Gap => earlier(1),
            P::Count(n) => earlier(n),
            P::Mean(n)
            | P::Median(n)
            | P::Mad(n)
            | P::MinOf(n)
            | P::MaxOf(n)
            | P::Quantile(n, _)
            | P::RobustZ(n) => earlier(n).or_else(|| values(n, 1)),
            P::Stdev(n) | P::Zscore(n) => earlier(n).or_else(|| values(n, 2)),
        }
    }

    /// `stat` at the current target, or why there is none: a text value where the statistic
    /// reads the value (`not a number`), or history it lacks (`call` names the function in the
    /// message).
    pub fn checked(&self, stat: PointStat, call: impl FnOnce() -> String) -> Result<f64, Stop> {
        let j = self.cur.get();
        if stat.reads_value() {
            if let Some(text) = self.text_at(j) {
                return Err(Stop::NotANumber(not_a_number(text)));
            }
        }
        let x = self.at(stat);
        if x.is_nan() {
            if let Some(lack) = self.lack(stat, j) {
                return Err(Stop::Lacking(self.lack_message(lack, &call(), j)));
            }
        }
        Ok(x)
    }

    /// The message of `call` lacking history at target `j`.
    pub fn lack_message(&self, lack: Lack, call: &str, j: usize) -> String {
        let now = self.time_text(self.targets.get(j));
        lack.point_message(call, &now, |i| self.time_text(i))
    }

    /// A statistic at every target.
    pub fn column(&self, stat: PointStat) -> Rc<Vec<f64>> {
        if let Some(col) = self.cols.borrow().get(&stat) {
            return col.clone();
        }
        let col = Rc::new(self.compute(stat));
        self.cols.borrow_mut().insert(stat, col.clone());
        col
    }

    /// A statistic at the current target.
    pub fn at(&self, stat: PointStat) -> f64 {
        self.column(stat)
            .get(self.cur.get())
            .copied()
            .unwrap_or(f64::NAN)
    }

    /// The time of a series index as RFC 3339 text (UTC).
    pub fn time_text(&self, t: usize) -> String {
        let ms = self.times.get(t).copied().unwrap_or_default();
        if let Some(text) = crate::data::calendar::utc_text(ms) {
            return text;
        }
        match chrono::DateTime::from_timestamp_millis(ms) {
            Some(at) if ms % 1000 == 0 => at.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            Some(at) => at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
            None => ms.to_string(),
        }
    }

    /// How many earlier observations `t` may look at, for a window of `n`.
    fn reach(&self, t: usize, n: usize) -> usize {
        n.min(t)
    }

    /// A window statistic's column with NaN where the target has fewer than `n` earlier
    /// observations (the window is not whole: the statistic lacks history there).
    fn whole(&self, n: usize, mut col: Vec<f64>) -> Vec<f64> {
        for (j, x) in col.iter_mut().enumerate() {
            if self.targets.get(j) < n {
                *x = f64::NAN;
            }
        }
        col
    }

    /// The values of the previous `n` observations of `t`, missing ones left out.
    fn window(&self, t: usize, n: usize, buf: &mut Vec<f64>) {
        buf.clear();
        let w = self.reach(t, n);
        buf.extend(
            self.values[t - w..t]
                .iter()
                .copied()
                .filter(|v| !v.is_nan()),
        );
    }

    /// `f` of each target's window in `f64::total_cmp` order (and a scratch buffer). Over a
    /// run of consecutive targets the window slides: one value leaves and one comes in, each
    /// placed by a binary search, instead of a sort per target.
    fn per_sorted_window(
        &self,
        n: usize,
        mut f: impl FnMut(&[f64], &mut Vec<f64>) -> f64,
    ) -> Vec<f64> {
        let mut sorted: Vec<f64> = Vec::new();
        let mut scratch: Vec<f64> = Vec::new();
        // The window `sorted` holds: values[from..to] without the missing ones.
        let mut held: Option<(usize, usize)> = None;
        let place = |v: f64, sorted: &Vec<f64>| {
            sorted
                .binary_search_by(|x| x.total_cmp(&v))
                .unwrap_or_else(|i| i)
        };
        self.targets
            .iter()
            .map(|t| {
                let w = self.reach(t, n);
                let (from, to) = (t - w, t);
                match held {
                    Some((a, b)) if a <= from && from <= b && b <= to && to - b <= 1 => {
                        for &v in &self.values[a..from] {
                            if !v.is_nan() {
                                let i = place(v, &sorted);
                                sorted.remove(i);
                            }
                        }
                        for &v in &self.values[b..to] {
                            if !v.is_nan() {
                                let i = place(v, &sorted);
                                sorted.insert(i, v);
                            }
                        }
                    }
                    _ => {
                        sorted.clear();
                        sorted.extend(
                            self.values[from..to]
                                .iter()
                                .copied()
                                .filter(|v| !v.is_nan()),
                        );
                        sorted.sort_by(f64::total_cmp);
                    }
                }
                held = Some((from, to));
                f(&sorted, &mut scratch)
            })
            .collect()
    }

    fn per_target(&self, mut f: impl FnMut(usize, &mut Vec<f64>) -> f64) -> Vec<f64> {
        let mut buf = Vec::new();
        self.targets.iter().map(|t| f(t, &mut buf)).collect()
    }

    fn derived(&self, a: PointStat, b: PointStat, f: impl Fn(f64, f64, f64) -> f64) -> Vec<f64> {
        let (a, b) = (self.column(a), self.column(b));
        self.targets
            .iter()
            .enumerate()
            .map(|(j, t)| f(self.values[t], a[j], b[j]))
            .collect()
    }

    fn compute(&self, stat: PointStat) -> Vec<f64> {
        use PointStat as P;
        match stat {
            P::Value => match &self.targets {
                Targets::Range(a, b) => self.values[*a..*b].to_vec(),
                Targets::List(v) => v.iter().map(|&t| self.values[t]).collect(),
            },
            P::Lag(k) => self.per_target(|t, _| self.lag(t, k)),
            P::Change(k) => self.derived(P::Lag(k), P::Value, |v, lag, _| v - lag),
            P::PctChange(k) => self.derived(P::Lag(k), P::Value, |v, lag, _| (v - lag) / lag.abs()),
            P::Mean(n) => self.whole(
                n,
                self.per_target(|t, buf| {
                    self.window(t, n, buf);
                    mean(buf)
                }),
            ),
            P::Stdev(n) => self.whole(
                n,
                self.per_target(|t, buf| {
                    self.window(t, n, buf);
                    stdev(buf)
                }),
            ),
            P::Median(n) => self.whole(
                n,
                self.per_sorted_window(n, |sorted, _| quantile_sorted(sorted, 0.5)),
            ),
            P::Mad(n) => {
                let med = self.column(P::Median(n));
                let mut j = 0;
                self.per_sorted_window(n, |sorted, buf| {
                    let m = med[j];
                    j += 1;
                    // NaN where the median is (a window that is not whole).
                    if m.is_nan() {
                        f64::NAN
                    } else {
                        mad_sorted(sorted, m, buf)
                    }
                })
            }
            P::MinOf(n) => self.whole(
                n,
                self.per_target(|t, buf| {
                    self.window(t, n, buf);
                    buf.iter().copied().reduce(f64::min).unwrap_or(f64::NAN)
                }),
            ),
            P::MaxOf(n) => self.whole(
                n,
                self.per_target(|t, buf| {
                    self.window(t, n, buf);
                    buf.iter().copied().reduce(f64::max).unwrap_or(f64::NAN)
                }),
            ),
            P::Quantile(n, q) => self.whole(
                n,
                self.per_sorted_window(n, |sorted, _| quantile_sorted(sorted, f64::from_bits(q))),
            ),
            P::Count(n) => self.whole(
                n,
                self.per_target(|t, buf| {
                    self.window(t, n, buf);
                    buf.len() as f64
                }),
            ),
            P::Zscore(n) => self.derived(P::Mean(n), P::Stdev(n), |v, m, s| {
                if s > 0.0 {
                    (v - m) / s
                } else {
                    f64::NAN
                }
            }),
            P::RobustZ(n) => self.derived(P::Median(n), P::Mad(n), |v, m, mad| {
                if mad > 0.0 {
                    ROBUST_Z_FACTOR * (v - m) / mad
                } else {
                    f64::NAN
                }
            }),
            P::RunLength(tol) => {
                let tol = f64::from_bits(tol);
                self.per_target(|t, _| self.run_length(t, tol))
            }
            P::Gap => self.per_target(|t, _| match self.step_ms {
                Some(step) if t >= 1 && t < self.times.len() => {
                    (self.times[t] - self.times[t - 1]) as f64 / step as f64
                }
                _ => f64::NAN,
            }),
            P::Spike => self.per_target(|t, _| {
                if t < 2 {
                    return f64::NAN;
                }
                let (a, b, c) = (self.values[t - 2], self.values[t - 1], self.values[t]);
                (b - (a + c) / 2.0).abs()
            }),
        }
    }

    fn lag(&self, t: usize, k: usize) -> f64 {
        if k == 0 {
            self.values[t]
        } else if t >= k {
            self.values[t - k]
        } else {
            f64::NAN
        }
    }

    fn run_length(&self, t: usize, tol: f64) -> f64 {
        let v = self.values[t];
        if v.is_nan() {
            return f64::NAN;
        }
        let mut run = 1usize;
        for i in 1..=self.reach(t, MAX_HISTORY) {
            let x = self.values[t - i];
            if x == v || (x - v).abs() <= tol {
                run += 1;
            } else {
                break;
            }
        }
        run as f64
    }
}

/// Mean; NaN when empty.
pub(crate) fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        f64::NAN
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// Sample standard deviation (two passes); NaN with fewer than 2 values.
pub(crate) fn stdev(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return f64::NAN;
    }
    let m = mean(xs);
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    (ss / (xs.len() - 1) as f64).sqrt()
}

/// The median of `|x - m|` over values in `f64::total_cmp` order: with finite values and a
/// finite `m`, the deviations left of `m` grow leftwards and those right of it grow
/// rightwards, so the two middle ones are found by merging the two runs from `m` outwards
/// (half the window) instead of selecting among all of them.
pub(crate) fn mad_sorted(sorted: &[f64], m: f64, scratch: &mut Vec<f64>) -> f64 {
    let finite = m.is_finite()
        && sorted.first().is_none_or(|x| x.is_finite())
        && sorted.last().is_none_or(|x| x.is_finite());
    if !finite {
        scratch.clear();
        scratch.extend(sorted.iter().map(|x| (*x - m).abs()));
        return quantile(scratch, 0.5);
    }
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * 0.5;
    let lo = (h.floor() as usize).min(sorted.len() - 1);
    let hi = (lo + 1).min(sorted.len() - 1);
    let split = sorted.partition_point(|x| *x < m);
    let (mut left, mut right) = (split, split);
    let mut next = || -> f64 {
        let l = (left > 0).then(|| (sorted[left - 1] - m).abs());
        let r = (right < sorted.len()).then(|| (sorted[right] - m).abs());
        match (l, r) {
            (Some(a), Some(b)) if a <= b => {
                left -= 1;
                a
            }
            (_, Some(b)) => {
                right += 1;
                b
            }
            (Some(a), None) => {
                left -= 1;
                a
            }
            (None, None) => f64::NAN,
        }
    };
    let mut x_lo = f64::NAN;
    for _ in 0..=lo {
        x_lo = next();
    }
    let x_hi = if hi > lo { next() } else { x_lo };
    x_lo + (h - lo as f64) * (x_hi - x_lo)
}

/// [`quantile`] of values already in `f64::total_cmp` order.
pub(crate) fn quantile_sorted(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let h = (xs.len() - 1) as f64 * q;
    let lo = (h.floor() as usize).min(xs.len() - 1);
    let hi = (lo + 1).min(xs.len() - 1);
    xs[lo] + (h - lo as f64) * (xs[hi] - xs[lo])
}

/// Quantile with linear interpolation between closest ranks (type 7); reorders `xs`; NaN
/// when empty. A selection, not a sort: the two ranks it needs are the `lo`-th in
/// `f64::total_cmp` order and the smallest after it.
pub(crate) fn quantile(xs: &mut [f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let h = (xs.len() - 1) as f64 * q;
    let lo = (h.floor() as usize).min(xs.len() - 1);
    let (_, at, above) = xs.select_nth_unstable_by(lo, f64::total_cmp);
    let x_lo = *at;
    let x_hi = above.iter().copied().min_by(f64::total_cmp).unwrap_or(x_lo);
    x_lo + (h - lo as f64) * (x_hi - x_lo)
}
