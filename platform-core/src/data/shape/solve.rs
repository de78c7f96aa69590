//! The joint solve of shaping (see the parent module for the rule).
//!
//! Days are handled as segments between the boundaries of contracts and months (no segment
//! crosses either), so a curve costs about its number of contracts and months, not its days.
//! Segments that lie in the same contracts form one run with one price. With `A` the contracts'
//! averaging matrix (`A[c][r]` = the weight of run `r` inside contract `c` over the contract's
//! weight), `q` the quotes, `t` each run's target (its shortest contract's price) and `w` the
//! runs' weights, the prices are `p = t + W^-1/2 y` where `y` is the minimum-norm least-squares
//! solution of `A W^-1/2 y = q - A t`: the quotes are met as closely as they can be (exactly
//! when they agree), and among the prices that do so, the free runs stay nearest their targets
//! by weighted least squares. `y` comes from a singular value decomposition (nalgebra), which
//! gives that solution whatever the rank: quotes that repeat one another, runs the quotes leave
//! free, quotes that disagree.

use super::{Quoted, Weights};
use crate::data::scale::Block;
use crate::error::{Error, Result};
use chrono::{Datelike, NaiveDate, TimeZone, Timelike};
use chrono_tz::Tz;
use nalgebra::{DMatrix, DVector};
use std::collections::HashMap;

/// One month of a shaped curve.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapedMonth {
    /// The month's absolute code (`2025M03`).
    pub code: String,
    /// The weighted average of its priced days.
    pub value: f64,
    /// The shortest contract containing its priced days.
    pub from: String,
    /// Its first priced day.
    pub start: NaiveDate,
    /// Its last priced day.
    pub end: NaiveDate,
    /// The weight of its priced days (hours or days).
    pub weight: f64,
}

/// A quote the shaped months miss by more than the tolerance.
#[derive(Debug, Clone, PartialEq)]
pub struct QuoteMiss {
    /// The contract's code.
    pub code: String,
    /// Its quoted price.
    pub quoted: f64,
    /// The weighted average of the shaped prices over its delivery.
    pub fitted: f64,
    /// `fitted - quoted`.
    pub miss: f64,
}

/// A contract that takes no part in shaping, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Ignored {
    /// The contract's code.
    pub code: String,
    /// Why it takes no part (`it has no value`, `its delivery has no PEAK hours`...).
    pub reason: String,
}

/// A curve shaped into months.
#[derive(Debug, Clone, PartialEq)]
pub struct Shaped {
    /// The months with a priced day, in order.
    pub months: Vec<ShapedMonth>,
    /// The quotes missed by more than the tolerance, in the order sent.
    pub arbitrage: Vec<QuoteMiss>,
    /// The contracts that take no part: those without a numeric value, then those whose
    /// delivery has no weight.
    pub ignored: Vec<Ignored>,
    /// The tolerance the misses were judged by.
    pub tolerance: f64,
    /// The quotes missed by more than the tolerance, by group of quotes that share days
    /// (indexes into `arbitrage`).
    groups: Vec<Vec<usize>>,
}

impl Shaped {
    /// Adds contracts that take no part for a reason found before the solve (they come first).
    pub fn ignore(&mut self, mut more: Vec<Ignored>) {
        more.append(&mut self.ignored);
        self.ignored = more;
    }

    /// What the answer did besides meeting every quote: which quotes disagree and by how
    /// much, and which contracts took no part. `None` when every quote is met.
    pub fn message(&self) -> Option<String> {
        let mut parts = Vec::new();
        for group in &self.groups {
            let quotes: Vec<String> = group
                .iter()
                .map(|&i| {
                    let a = &self.arbitrage[i];
                    format!(
                        "{} (quoted {}, fitted {}, miss {}{})",
                        a.code,
                        decimal(a.quoted),
                        decimal(a.fitted),
                        if a.miss > 0.0 { "+" } else { "" },
                        decimal(a.miss)
                    )
                })
                .collect();
            parts.push(format!(
                "the quotes {} disagree: no monthly curve meets them within the tolerance {}, so \
                 the months fit them by least squares",
                and_list(&quotes),
                decimal(self.tolerance)
            ));
        }
        if !self.ignored.is_empty() {
            let named: Vec<String> = self
                .ignored
                .iter()
                .map(|i| format!("{} ({})", i.code, i.reason))
                .collect();
            parts.push(format!("{} took no part", and_list(&named)));
        }
        (!parts.is_empty()).then(|| {
            let mut text = parts.join("; ");
            if let Some(first) = text.get(..1) {
                text.replace_range(..1, &first.to_ascii_uppercase());
            }
            text + "."
        })
    }
}

/// A number as a short decimal (at most 6 places, no trailing zeros).
fn decimal(x: f64) -> String {
    let text = format!("{x:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Shapes contracts into months, in the zone `tz`, with the weights given (a named block
/// calendar loaded) and the tolerance of a quote's miss (see the parent module).
pub fn shape(contracts: &[Quoted], tz: Tz, weights: &Weights, tolerance: f64) -> Result<Shaped> {
    let mut shaped = Shaped {
        months: Vec::new(),
        arbitrage: Vec::new(),
        ignored: Vec::new(),
        tolerance,
        groups: Vec::new(),
    };
    let (Some(first), Some(last)) = (
        contracts.iter().map(|c| c.start).min(),
        contracts.iter().filter_map(|c| c.end.succ_opt()).max(),
    ) else {
        return Ok(shaped);
    };
    let bounds = segment_bounds(contracts, first, last);
    let weight = segment_weights(&bounds, tz, weights);
    let segments = Segments {
        bounds: &bounds,
        weight: &weight,
    };
    let span: Vec<(usize, usize)> = contracts.iter().map(|c| segments.of(c)).collect();
    // A contract whose delivery has no weight takes no part.
    let total: Vec<f64> = span
        .iter()
        .map(|&(lo, hi)| weight[lo..hi].iter().sum())
        .collect();
    let active: Vec<usize> = (0..contracts.len()).filter(|&c| total[c] > 0.0).collect();
    for (c, q) in contracts.iter().enumerate() {
        if total[c] <= 0.0 {
            shaped.ignored.push(Ignored {
                code: q.code.clone(),
                reason: format!("its delivery has no {}", weightless(weights)),
            });
        }
    }
    let runs = Runs::of(contracts, &active, &span, &weight);
    let price = solve(contracts, &runs, &total)?;
    judge(contracts, &runs, &total, &price, &mut shaped);
    shaped.months = months_of(contracts, &segments, &runs, &price);
    Ok(shaped)
}

/// What a weightless contract lacks: the hours of the block named.
fn weightless(weights: &Weights) -> String {
    match weights {
        Weights::Block(_) => format!("{} hours", weights.code()),
        _ => weights.unit().into(),
    }
}

/// The boundaries of segments of days: every contract's first day and the day after its last,
/// and every first of a month in between (so that no segment crosses one), sorted.
fn segment_bounds(contracts: &[Quoted], first: NaiveDate, last: NaiveDate) -> Vec<NaiveDate> {
    let mut bounds: Vec<NaiveDate> = Vec::with_capacity(contracts.len() * 2 + 64);
    for c in contracts {
        bounds.push(c.start);
        if let Some(after) = c.end.succ_opt() {
            bounds.push(after);
        }
    }
    let mut month = next_month(first);
    while let Some(m) = month.filter(|m| *m < last) {
        bounds.push(m);
        month = next_month(m);
    }
    bounds.sort_unstable();
    bounds.dedup();
    bounds
}

fn first_of_month(d: NaiveDate) -> NaiveDate {
    d.with_day(1).unwrap_or(d)
}

fn next_month(d: NaiveDate) -> Option<NaiveDate> {
    first_of_month(d).checked_add_months(chrono::Months::new(1))
}

/// The first instant of a local day, in seconds (a day whose midnight a clock change skips
/// starts at the first local time it has).
fn day_start(day: NaiveDate, tz: Tz) -> i64 {
    let mut at = day.and_hms_opt(0, 0, 0).unwrap_or_default();
    for _ in 0..48 {
        if let Some(t) = tz.from_local_datetime(&at).earliest() {
            return t.timestamp();
        }
        at += chrono::Duration::minutes(30);
    }
    at.and_utc().timestamp()
}

/// The weight of each segment between `bounds`: its days, its hours in `tz`, or the hours of a
/// block in `tz` counted on the day each block starts (an EFA block on its EFA day).
fn segment_weights(bounds: &[NaiveDate], tz: Tz, weights: &Weights) -> Vec<f64> {
    match weights {
        Weights::Days => bounds
            .windows(2)
            .map(|w| (w[1] - w[0]).num_days() as f64)
            .collect(),
        Weights::Hours => {
            let starts: Vec<i64> = bounds.iter().map(|d| day_start(*d, tz)).collect();
            starts
                .windows(2)
                .map(|w| (w[1] - w[0]) as f64 / 3600.0)
                .collect()
        }
        Weights::Block(block) => {
            let (Some(&first), Some(&last)) = (bounds.first(), bounds.last()) else {
                return Vec::new();
            };
            let daily = block_hours(block, first, last, tz);
            let at = |d: NaiveDate| (d - first).num_days() as usize;
            bounds
                .windows(2)
                .map(|w| daily[at(w[0])..at(w[1])].iter().sum())
                .collect()
        }
    }
}

/// The hours of `block` on each local day from `first` to `last` (exclusive), in `tz`: every
/// hour the block keeps counts on the day its block starts.
fn block_hours(block: &Block, first: NaiveDate, last: NaiveDate, tz: Tz) -> Vec<f64> {
    let days = (last - first).num_days().max(0) as usize;
    let mut out = vec![0.0; days];
    // A day before and after: an EFA1 block or a night block starts on the evening before.
    let (Some(from), Some(to)) = (first.pred_opt(), last.succ_opt()) else {
        return out;
    };
    let (mut t, end) = (day_start(from, tz), day_start(to, tz));
    while t < end {
        let ms = t * 1000;
        if block.keeps(ms, tz) {
            let local = chrono::DateTime::from_timestamp(t, 0)
                .unwrap_or_default()
                .with_timezone(&tz);
            let day = match block {
                Block::Efa(_) => crate::data::efa::day_and_block(ms).0,
                Block::Hours(hours) => hours.starts_on(local.date_naive(), local.hour()),
                _ => local.date_naive(),
            };
            let i = (day - first).num_days();
            if (0..days as i64).contains(&i) {
                out[i as usize] += 1.0;
            }
        }
        t += 3600;
    }
    out
}

/// Segments of days: the boundaries and the weight of each segment between them.
struct Segments<'a> {
    bounds: &'a [NaiveDate],
    weight: &'a [f64],
}

impl Segments<'_> {
    fn len(&self) -> usize {
        self.weight.len()
    }

    /// The segments of a contract's delivery, `lo..hi`.
    fn of(&self, c: &Quoted) -> (usize, usize) {
        let at = |d: NaiveDate| self.bounds.binary_search(&d).unwrap_or_else(|i| i);
        (
            at(c.start),
            c.end
                .succ_opt()
                .map_or(self.len(), |d| at(d).min(self.len())),
        )
    }
}

/// Runs: the segments grouped by the contracts they lie in.
struct Runs {
    /// The run of each segment (`None`: in no contract that takes part).
    of_segment: Vec<Option<usize>>,
    /// The contracts of each run (indexes, ascending).
    members: Vec<Vec<usize>>,
    /// The weight of each run.
    weight: Vec<f64>,
    /// The runs in each contract (empty for one that takes no part).
    in_contract: Vec<Vec<usize>>,
}

impl Runs {
    fn of(contracts: &[Quoted], active: &[usize], span: &[(usize, usize)], weight: &[f64]) -> Runs {
        let segments = weight.len();
        let words = active.len().div_ceil(64).max(1);
        // Each segment's contracts as a bit set over the active contracts.
        let mut keys = vec![0u64; segments * words];
        for (bit, &c) in active.iter().enumerate() {
            let (lo, hi) = span[c];
            for s in lo..hi {
                keys[s * words + bit / 64] |= 1 << (bit % 64);
            }
        }
        let mut runs = Runs {
            of_segment: vec![None; segments],
            members: Vec::new(),
            weight: Vec::new(),
            in_contract: vec![Vec::new(); contracts.len()],
        };
        let mut by_key: HashMap<&[u64], usize> = HashMap::new();
        for s in 0..segments {
            let key = &keys[s * words..(s + 1) * words];
            if key.iter().all(|w| *w == 0) {
                continue;
            }
            let next = runs.members.len();
            let r = *by_key.entry(key).or_insert(next);
            if r == next {
                let members: Vec<usize> = (0..active.len())
                    .filter(|bit| key[bit / 64] & (1 << (bit % 64)) != 0)
                    .map(|bit| active[bit])
                    .collect();
                for &c in &members {
                    runs.in_contract[c].push(r);
                }
                runs.members.push(members);
                runs.weight.push(0.0);
            }
            runs.weight[r] += weight[s];
            runs.of_segment[s] = Some(r);
        }
        runs
    }

    fn len(&self) -> usize {
        self.members.len()
    }
}

/// The shortest of `candidates` (by delivery days; ties: the earlier start, then as sent).
fn shortest(contracts: &[Quoted], candidates: impl Iterator<Item = usize>) -> Option<usize> {
    candidates.min_by_key(|&c| {
        let q = &contracts[c];
        ((q.end - q.start).num_days(), q.start, c)
    })
}

/// The price of each run (see the module documentation).
fn solve(contracts: &[Quoted], runs: &Runs, total: &[f64]) -> Result<Vec<f64>> {
    // Each run starts at its target: the price of its shortest contract.
    let mut price: Vec<f64> = runs
        .members
        .iter()
        .map(|m| shortest(contracts, m.iter().copied()).map_or(f64::NAN, |c| contracts[c].value))
        .collect();
    // The unknowns: runs with weight (a weightless run keeps its target, which no average
    // sees). The equations: contracts with weight.
    let columns: Vec<usize> = (0..runs.len()).filter(|&r| runs.weight[r] > 0.0).collect();
    let rows: Vec<usize> = (0..contracts.len()).filter(|&c| total[c] > 0.0).collect();
    if columns.is_empty() || rows.is_empty() {
        return Ok(price);
    }
    let mut column_of = vec![usize::MAX; runs.len()];
    for (j, &r) in columns.iter().enumerate() {
        column_of[r] = j;
    }
    let mut m = DMatrix::<f64>::zeros(rows.len(), columns.len());
    let mut rhs = DVector::<f64>::zeros(rows.len());
    for (i, &c) in rows.iter().enumerate() {
        // The contract's miss at the targets, as a difference (exactly 0 where they meet it).
        let mut gap = 0.0;
        for &r in &runs.in_contract[c] {
            let w = runs.weight[r];
            gap += w * (price[r] - contracts[c].value);
            if column_of[r] != usize::MAX {
                m[(i, column_of[r])] = w.sqrt() / total[c];
            }
        }
        rhs[i] = -gap / total[c];
    }
    if rhs.iter().all(|x| *x == 0.0) {
        return Ok(price);
    }
    // nalgebra's default convergence tolerance (five machine epsilons): a tighter one can stop
    // on its iteration bound with factors that no longer recompose the matrix.
    let svd = m
        .clone()
        .try_svd(true, true, f64::EPSILON * 5.0, 10_000)
        .ok_or_else(|| Error::Internal("shaping: the decomposition did not converge".into()))?;
    let largest = svd.singular_values.max();
    let y = svd
        .solve(&rhs, largest * 1e-10)
        .map_err(|e| Error::Internal(format!("shaping: {e}")))?;
    // A least-squares solution makes the residual orthogonal to the columns; a decomposition
    // that went wrong would answer prices that look right and are not, so it is an error.
    let off = (m.transpose() * (&m * &y - &rhs)).amax();
    let scale = largest * (largest * y.amax() + rhs.amax());
    if !off.is_finite() || !scale.is_finite() || off > 1e-9 * scale {
        return Err(Error::Internal(format!(
            "shaping: the least-squares solve is off by {off:e} (scale {scale:e})"
        )));
    }
    for (j, &r) in columns.iter().enumerate() {
        price[r] += y[j] / runs.weight[r].sqrt();
    }
    Ok(price)
}

/// Each contract's fitted average against its quote: misses beyond the tolerance named, by
/// group of contracts that share days.
fn judge(contracts: &[Quoted], runs: &Runs, total: &[f64], price: &[f64], shaped: &mut Shaped) {
    // Groups: contracts joined through the runs they share.
    let mut parent: Vec<usize> = (0..contracts.len()).collect();
    fn root(parent: &mut [usize], mut c: usize) -> usize {
        while parent[c] != c {
            parent[c] = parent[parent[c]];
            c = parent[c];
        }
        c
    }
    for members in &runs.members {
        for pair in members.windows(2) {
            let (a, b) = (root(&mut parent, pair[0]), root(&mut parent, pair[1]));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for (c, q) in contracts.iter().enumerate() {
        if total[c] <= 0.0 {
            continue;
        }
        let miss = runs.in_contract[c]
            .iter()
            .map(|&r| runs.weight[r] * (price[r] - q.value))
            .sum::<f64>()
            / total[c];
        if miss.abs() <= shaped.tolerance {
            continue;
        }
        let g = root(&mut parent, c);
        let next = shaped.groups.len();
        let at = *group_of.entry(g).or_insert(next);
        if at == next {
            shaped.groups.push(Vec::new());
        }
        shaped.groups[at].push(shaped.arbitrage.len());
        shaped.arbitrage.push(QuoteMiss {
            code: q.code.clone(),
            quoted: q.value,
            fitted: q.value + miss,
            miss,
        });
    }
}

/// The months of the priced segments (segments never cross the first of a month): each the
/// weighted average of its segments, `from` the shortest contract containing them all.
fn months_of(
    contracts: &[Quoted],
    segments: &Segments<'_>,
    runs: &Runs,
    price: &[f64],
) -> Vec<ShapedMonth> {
    let (bounds, weight) = (segments.bounds, segments.weight);
    let mut months = Vec::new();
    let mut s = 0;
    while s < segments.len() {
        let month = first_of_month(bounds[s]);
        // The average as the first priced segment's price and the others' weighted
        // differences from it (a month of one price is exactly that price).
        let (mut sum, mut w, mut base) = (0.0, 0.0, None);
        let (mut start, mut end, mut priced) = (None, None, Vec::new());
        while s < segments.len() && first_of_month(bounds[s]) == month {
            if let Some(r) = runs.of_segment[s] {
                let p0 = *base.get_or_insert(price[r]);
                sum += weight[s] * (price[r] - p0);
                w += weight[s];
                start.get_or_insert(bounds[s]);
                end = bounds[s + 1].pred_opt();
                priced.push(s);
            }
            s += 1;
        }
        let (Some(start), Some(end), Some(base)) = (start, end, base) else {
            continue;
        };
        if w <= 0.0 {
            continue;
        }
        months.push(ShapedMonth {
            code: format!("{:04}M{:02}", month.year(), month.month()),
            value: base + sum / w,
            from: from_of(contracts, runs, weight, &priced),
            start,
            end,
            weight: w,
        });
    }
    months
}

/// The shortest contract containing every priced segment of a month; when none does (two
/// day-aheads), the shortest containing its heaviest segment.
fn from_of(contracts: &[Quoted], runs: &Runs, weight: &[f64], priced: &[usize]) -> String {
    let members = |s: usize| runs.of_segment[s].map_or(&[][..], |r| &runs.members[r][..]);
    let all = shortest(
        contracts,
        members(priced[0])
            .iter()
            .copied()
            .filter(|c| priced.iter().all(|&s| members(s).contains(c))),
    );
    let heaviest = || {
        let s = priced
            .iter()
            .copied()
            .max_by(|a, b| weight[*a].total_cmp(&weight[*b]).then(b.cmp(a)))
            .unwrap_or(priced[0]);
        shortest(contracts, members(s).iter().copied())
    };
    all.or_else(heaviest)
        .map(|c| contracts[c].code.clone())
        .unwrap_or_default()
}
