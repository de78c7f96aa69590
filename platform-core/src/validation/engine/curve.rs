//! The data a tenor or curve check sees: the curve, its previous curves (newest first), and each
//! contract's values in them matched by **absolute delivery period** (`2024M04` is `M01` on
//! 2024-03-01 and `M00` on 2024-04-01), never by the rolling label.
//!
//! A contract's key is its absolute code (any case); a contract without one (balance-of codes)
//! is keyed by its delivery days `start/end`.

use super::lack::{not_a_number, Lack, Stop};
use super::native::{CurveFlag, CurveStat};
use super::{ContractInput, CurveInput};
use crate::query::period::{self, Period, PeriodUnit};
use chrono::NaiveDate;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};

pub(crate) struct CurveCtx {
    pub curve: CurveInput,
    /// Values (NaN when missing) per contract.
    values: Vec<f64>,
    /// `hist[i][h]`: contract i's value in previous curve h (0 = the newest), NaN when absent.
    hist: Vec<Vec<f64>>,
    /// Values of the newest previous curve with a value (for `prev_tenor_count`).
    prev_count: Option<usize>,
    /// The ondates of the previous curves, newest first.
    dates: Vec<NaiveDate>,
    /// The contract a tenor check is evaluated on.
    pub cur: Cell<Option<usize>>,
}

fn key(c: &ContractInput) -> String {
    if c.absolute.is_empty() {
        format!("{}/{}", c.start, c.end)
    } else {
        c.absolute.to_ascii_uppercase()
    }
}

fn value_of(c: &ContractInput) -> f64 {
    c.value.unwrap_or(f64::NAN)
}

impl CurveCtx {
    pub fn new(curve: &CurveInput, history: &[CurveInput]) -> Self {
        let maps: Vec<HashMap<String, f64>> = history
            .iter()
            .map(|h| {
                let mut m = HashMap::with_capacity(h.contracts.len());
                for c in &h.contracts {
                    m.entry(key(c)).or_insert_with(|| value_of(c));
                }
                m
            })
            .collect();
        let hist = curve
            .contracts
            .iter()
            .map(|c| {
                let k = key(c);
                maps.iter()
                    .map(|m| m.get(&k).copied().unwrap_or(f64::NAN))
                    .collect()
            })
            .collect();
        Self {
            values: curve.contracts.iter().map(value_of).collect(),
            curve: curve.clone(),
            hist,
            prev_count: history
                .first()
                .map(|h| h.contracts.iter().filter(|c| !value_of(c).is_nan()).count()),
            dates: history.iter().map(|h| h.ondate).collect(),
            cur: Cell::new(None),
        }
    }

    /// The text the current contract holds, if it holds text.
    pub fn text_now(&self) -> Option<&str> {
        let i = self.cur.get()?;
        self.curve.contracts.get(i)?.text.as_deref()
    }

    /// Whether the current contract is missing (no number and no text).
    pub fn missing_now(&self) -> bool {
        self.value_now().is_nan() && self.text_now().is_none()
    }

    /// Why `stat` has no number for the current contract (None: it has one, or its NaN is
    /// the statistic's own).
    pub fn lack(&self, stat: CurveStat) -> Option<Lack> {
        use CurveStat as C;
        let have = self.dates.len();
        let earlier = |k: usize| (have < k).then_some(Lack::Earlier { need: k, have });
        let contract = |k: usize| {
            let i = self.cur.get()?;
            self.prev(i, k)
                .is_nan()
                .then_some(Lack::NoContract { back: k })
        };
        match stat {
            C::PrevTenor(0) | C::TenorChange(0) | C::TenorPctChange(0) => None,
            C::PrevTenor(k) | C::TenorChange(k) | C::TenorPctChange(k) => {
                earlier(k).or_else(|| contract(k))
            }
            C::ExcessMove => earlier(1).or_else(|| contract(1)),
            C::PrevTenorCount => earlier(1),
            C::UnchangedFraction | C::MaxAbsChange => earlier(1).or(Some(Lack::NoMatch)),
            C::Value | C::TenorRunLength(_) | C::Contracts | C::TenorCount => None,
        }
    }

    /// `stat` (None: a per-contract number outside a tenor check), or why there is none: a
    /// text value the number reads (`not a number`), or history it lacks (`call` names the
    /// function in the message).
    pub fn checked(
        &self,
        stat: CurveStat,
        call: impl FnOnce() -> String,
    ) -> Result<Option<f64>, Stop> {
        if stat.reads_value() {
            if let Some(text) = self.text_now() {
                return Err(Stop::NotANumber(not_a_number(text)));
            }
        }
        let Some(x) = self.stat(stat) else {
            return Ok(None);
        };
        if x.is_nan() {
            if let Some(lack) = self.lack(stat) {
                return Err(Stop::Lacking(self.lack_message(lack, &call())));
            }
        }
        Ok(Some(x))
    }

    /// The message of `call` lacking history on the current contract.
    pub fn lack_message(&self, lack: Lack, call: &str) -> String {
        let contract = self
            .cur
            .get()
            .and_then(|i| self.curve.contracts.get(i))
            .map(|c| {
                if c.absolute.is_empty() || c.absolute.eq_ignore_ascii_case(&c.tenor) {
                    c.tenor.clone()
                } else {
                    format!("{} ({})", c.tenor, c.absolute)
                }
            })
            .unwrap_or_default();
        let ondate = self.curve.ondate.to_string();
        lack.curve_message(call, &ondate, &contract, |h| {
            self.dates.get(h).map(|d| d.to_string()).unwrap_or_default()
        })
    }

    /// The current contract's value (NaN when missing or outside a tenor check).
    pub fn value_now(&self) -> f64 {
        self.cur
            .get()
            .and_then(|i| self.values.get(i).copied())
            .unwrap_or(f64::NAN)
    }

    fn prev(&self, i: usize, k: usize) -> f64 {
        if k == 0 {
            self.values[i]
        } else {
            self.hist[i].get(k - 1).copied().unwrap_or(f64::NAN)
        }
    }

    fn change(&self, i: usize, k: usize) -> f64 {
        self.values[i] - self.prev(i, k)
    }

    /// A number of the curve; a per-contract number needs a current contract (None otherwise).
    pub fn stat(&self, stat: CurveStat) -> Option<f64> {
        use CurveStat as C;
        let cur = self.cur.get();
        Some(match stat {
            C::Value => self.values[cur?],
            C::PrevTenor(k) => self.prev(cur?, k),
            C::TenorChange(k) => self.change(cur?, k),
            C::TenorPctChange(k) => {
                let i = cur?;
                let p = self.prev(i, k);
                (self.values[i] - p) / p.abs()
            }
            C::ExcessMove => {
                let own = self.change(cur?, 1);
                let mut changes: Vec<f64> = (0..self.values.len())
                    .map(|i| self.change(i, 1))
                    .filter(|c| !c.is_nan())
                    .collect();
                if own.is_nan() {
                    f64::NAN
                } else {
                    own - super::series::quantile(&mut changes, 0.5)
                }
            }
            C::TenorRunLength(tol) => {
                let i = cur?;
                let (v, tol) = (self.values[i], f64::from_bits(tol));
                if v.is_nan() {
                    f64::NAN
                } else {
                    let same = self.hist[i]
                        .iter()
                        .take_while(|&&x| x == v || (x - v).abs() <= tol)
                        .count();
                    (same + 1) as f64
                }
            }
            C::Contracts => self.values.len() as f64,
            C::TenorCount => self.values.iter().filter(|v| !v.is_nan()).count() as f64,
            C::PrevTenorCount => self.prev_count.map_or(f64::NAN, |n| n as f64),
            C::UnchangedFraction => {
                let (mut matched, mut same) = (0usize, 0usize);
                for i in 0..self.values.len() {
                    let (v, p) = (self.values[i], self.prev(i, 1));
                    if !v.is_nan() && !p.is_nan() {
                        matched += 1;
                        same += usize::from(v == p);
                    }
                }
                if matched == 0 {
                    f64::NAN
                } else {
                    same as f64 / matched as f64
                }
            }
            C::MaxAbsChange => (0..self.values.len())
                .map(|i| self.change(i, 1).abs())
                .filter(|c| !c.is_nan())
                .reduce(f64::max)
                .unwrap_or(f64::NAN),
        })
    }

    /// A yes/no property of the curve.
    pub fn flag(&self, flag: &CurveFlag) -> bool {
        match flag {
            CurveFlag::HasTenor(code) => self.curve.contracts.iter().any(|c| {
                [&c.tenor, &c.relative, &c.absolute]
                    .iter()
                    .any(|t| !t.is_empty() && t.eq_ignore_ascii_case(code))
            }),
            CurveFlag::Unique => {
                let mut keys = HashSet::new();
                let mut tenors = HashSet::new();
                self.curve
                    .contracts
                    .iter()
                    .all(|c| keys.insert(key(c)) && tenors.insert(c.tenor.to_ascii_uppercase()))
            }
            CurveFlag::Sorted => self.by_unit().values().all(|cs| {
                cs.windows(2)
                    .all(|w| (w[0].start, w[0].end) <= (w[1].start, w[1].end))
            }),
            CurveFlag::NoGaps => self.by_unit().into_values().all(|mut cs| {
                cs.sort_by_key(|c| (c.start, c.end));
                cs.windows(2)
                    .all(|w| w[1].start <= w[0].end.succ_opt().unwrap_or(w[0].end))
            }),
        }
    }

    /// Contracts with an absolute period, grouped by period unit, in curve order.
    fn by_unit(&self) -> HashMap<PeriodUnit, Vec<&ContractInput>> {
        let mut out: HashMap<PeriodUnit, Vec<&ContractInput>> = HashMap::new();
        for c in &self.curve.contracts {
            if let Ok(Period::Absolute(p)) = period::parse(&c.absolute) {
                out.entry(p.unit()).or_default().push(c);
            }
        }
        out
    }
}
