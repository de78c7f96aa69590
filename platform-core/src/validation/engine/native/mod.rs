//! The native form of a check: a small expression tree ([`Tree`]) of comparisons and built-in
//! calls, its evaluation against an [`Env`] (the values of the built-in terms at one point or
//! contract), the failure messages (shared by the native and the rhai path, so both say the
//! same thing) and the scalar helpers that rhai registers too.
//!
//! The tree mirrors rhai's semantics for the subset the parser accepts: every number is an
//! `f64` (integer literals are small enough to be exact); a comparison of two integers is exact,
//! any other is rhai's float comparison ([`rhai_compare`]: a relative tolerance of
//! `f64::EPSILON`, under which a NaN compares equal to 0 and an infinity compares false);
//! `min`/`max` follow rhai's `if x <= y { x } else { y }`.
//!
//! Here the tree and its evaluation at one point or contract; `columns` evaluates it over all
//! targets of a series run, `messages` says why a check failed, `scalars` holds the scalar
//! built-ins and rhai's comparison.

mod columns;
mod messages;
mod scalars;

pub(crate) use messages::{fmt_num, generic_message};
pub(crate) use scalars::{
    between, clamp, count_arg, decimals, is_negative, on_tick, quantile_arg, rhai_compare,
    rhai_max, rhai_min,
};

/// A statistic of a time series at one target observation (computed as a column over all
/// targets, see `series.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum PointStat {
    /// The value (NaN when missing).
    Value,
    /// The value k observations back.
    Lag(usize),
    /// value - lag(k).
    Change(usize),
    /// (value - lag(k)) / |lag(k)|.
    PctChange(usize),
    /// Mean of the previous n observations.
    Mean(usize),
    /// Sample standard deviation of the previous n observations.
    Stdev(usize),
    /// Median of the previous n observations.
    Median(usize),
    /// Median absolute deviation of the previous n observations.
    Mad(usize),
    /// Smallest of the previous n observations.
    MinOf(usize),
    /// Largest of the previous n observations.
    MaxOf(usize),
    /// Quantile q (bits of the f64) of the previous n observations.
    Quantile(usize, u64),
    /// Number of values among the previous n observations.
    Count(usize),
    /// (value - mean(n)) / stdev(n).
    Zscore(usize),
    /// 0.6745 (value - median(n)) / mad(n).
    RobustZ(usize),
    /// Observations in a row, ending here, equal to the value within a tolerance (bits).
    RunLength(u64),
    /// Calendar steps since the previous observation.
    Gap,
    /// |x[t-1] - (x[t-2] + x[t]) / 2|.
    Spike,
}

impl PointStat {
    /// Whether the statistic reads the value at the point itself (not only earlier ones), so
    /// that a text value there makes it `not a number`.
    pub fn reads_value(self) -> bool {
        use PointStat as P;
        matches!(
            self,
            P::Value
                | P::Lag(0)
                | P::Change(_)
                | P::PctChange(_)
                | P::Zscore(_)
                | P::RobustZ(_)
                | P::RunLength(_)
                | P::Spike
        )
    }
}

/// A number of a curve: of the current contract (tenor checks) or of the whole curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CurveStat {
    /// The contract's value.
    Value,
    /// The contract's value in the k-th previous curve (matched by delivery period).
    PrevTenor(usize),
    /// value - prev_tenor(k).
    TenorChange(usize),
    /// (value - prev_tenor(k)) / |prev_tenor(k)|.
    TenorPctChange(usize),
    /// This contract's change minus the median change of the curve.
    ExcessMove,
    /// Curves in a row, ending with this one, where the contract kept its value (tolerance bits).
    TenorRunLength(u64),
    /// Number of contracts (the `contracts` variable, an integer).
    Contracts,
    /// Number of contracts with a value.
    TenorCount,
    /// `tenor_count()` of the previous curve.
    PrevTenorCount,
    /// Share of matched contracts whose value did not change.
    UnchangedFraction,
    /// Largest |change| of a matched contract.
    MaxAbsChange,
}

impl CurveStat {
    /// Whether the number reads the contract's own value, so that a text value there makes it
    /// `not a number`.
    pub fn reads_value(self) -> bool {
        use CurveStat as C;
        matches!(
            self,
            C::Value
                | C::PrevTenor(0)
                | C::TenorChange(_)
                | C::TenorPctChange(_)
                | C::ExcessMove
                | C::TenorRunLength(_)
        )
    }
}

/// A yes/no property of a curve.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum CurveFlag {
    /// Contracts of each period unit in delivery order.
    Sorted,
    /// No delivery period or tenor code twice.
    Unique,
    /// No missing delivery period between contracts of one unit.
    NoGaps,
    /// A contract with this code (tenor, relative or absolute; any case).
    HasTenor(String),
}

/// What a leaf of the tree reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TermKind {
    /// A series statistic.
    Point(PointStat),
    /// A curve number.
    Curve(CurveStat),
    /// A curve property.
    Flag(CurveFlag),
}

/// A leaf with the text it is shown as in messages (`pct_change(1)`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Term {
    pub kind: TermKind,
    pub text: String,
}

impl Term {
    fn is_value(&self) -> bool {
        matches!(
            self.kind,
            TermKind::Point(PointStat::Value) | TermKind::Curve(CurveStat::Value)
        )
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Op {
    /// The comparison as rhai makes it: exact for two integers, else [`rhai_compare`].
    #[inline]
    pub fn apply(self, a: f64, b: f64, exact: bool) -> bool {
        if exact {
            match self {
                Op::Lt => a < b,
                Op::Le => a <= b,
                Op::Gt => a > b,
                Op::Ge => a >= b,
                Op::Eq => a == b,
                Op::Ne => a != b,
            }
        } else {
            rhai_compare(self, a, b)
        }
    }

    /// The operator that holds when this one does not (ignoring NaN).
    fn negate(self) -> Op {
        match self {
            Op::Lt => Op::Ge,
            Op::Le => Op::Gt,
            Op::Gt => Op::Le,
            Op::Ge => Op::Lt,
            Op::Eq => Op::Ne,
            Op::Ne => Op::Eq,
        }
    }

    /// The operator with its sides swapped (`a < b` is `b > a`).
    fn flip(self) -> Op {
        match self {
            Op::Lt => Op::Gt,
            Op::Le => Op::Ge,
            Op::Gt => Op::Lt,
            Op::Ge => Op::Le,
            Op::Eq | Op::Ne => self,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
        }
    }
}

/// An arithmetic operator on floats (integer arithmetic is folded at parse time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl Arith {
    /// rhai's float arithmetic: plain IEEE operations (`%` is the remainder of truncated
    /// division, as Rust's).
    #[inline]
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Arith::Add => a + b,
            Arith::Sub => a - b,
            Arith::Mul => a * b,
            Arith::Div => a / b,
            Arith::Rem => a % b,
        }
    }

    /// The operator's text.
    pub fn text(self) -> &'static str {
        match self {
            Arith::Add => "+",
            Arith::Sub => "-",
            Arith::Mul => "*",
            Arith::Div => "/",
            Arith::Rem => "%",
        }
    }
}

/// A numeric node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Num {
    Lit(f64),
    /// `a op b` (at least one side a float in rhai).
    Bin(Arith, Box<Num>, Box<Num>),
    Term(usize),
    Neg(Box<Num>),
    Abs(Box<Num>),
    Min(Box<Num>, Box<Num>),
    Max(Box<Num>, Box<Num>),
    Sqrt(Box<Num>),
    Ln(Box<Num>),
    Exp(Box<Num>),
    Round(Box<Num>),
    Clamp(Box<Num>, Box<Num>, Box<Num>),
    Decimals(Box<Num>),
}

/// A boolean node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cond {
    Lit(bool),
    /// `missing` / `is_missing()`.
    Missing,
    /// A curve property (index of a [`TermKind::Flag`] term).
    Flag(usize),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    /// A comparison; exact (true) when both sides are integers in rhai.
    Cmp(Op, Num, Num, bool),
    /// `a == b` (true) or `a != b` (false) on booleans.
    BoolCmp(bool, Box<Cond>, Box<Cond>),
    /// `if c { a } else { b }`.
    If(Box<Cond>, Box<Cond>, Box<Cond>),
    Between(Num, Num, Num),
    IsFinite(Num),
    IsZero(Num),
    IsNegative(Num),
    OnTick(Num, Num),
}

/// A parsed check: the condition and the terms its leaves read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tree {
    pub cond: Cond,
    pub terms: Vec<Term>,
}

/// The values of the terms at one point or contract.
pub(crate) trait Env {
    /// The value of a numeric term.
    fn num(&self, term: usize) -> f64;
    /// The value of a flag term.
    fn flag(&self, term: usize) -> bool;
    /// The value of the point or contract (NaN when missing or none).
    fn value(&self) -> f64;
    /// Whether the value is missing.
    fn missing(&self) -> bool {
        self.value().is_nan()
    }
    /// Whether a term lacks the history it reads here (its evaluation stops the check's).
    fn lacking(&self, _term: usize) -> bool {
        false
    }
    /// The text the point or contract holds, when it holds text (for messages).
    fn text(&self) -> Option<&str> {
        None
    }
}

/// The evaluation of a node, or the first term that lacks history (rhai's order).
type Eval<T> = Result<T, usize>;

impl Num {
    /// The value; the same as [`Self::try_eval`] where no term lacks history.
    #[inline]
    pub fn eval<E: Env>(&self, env: &E) -> f64 {
        self.try_eval(env).unwrap_or(f64::NAN)
    }

    /// The value, evaluated as rhai does (left to right), or the first term whose history is
    /// lacking.
    pub fn try_eval<E: Env>(&self, env: &E) -> Eval<f64> {
        Ok(match self {
            Num::Lit(x) => *x,
            Num::Bin(op, a, b) => {
                let x = a.try_eval(env)?;
                op.apply(x, b.try_eval(env)?)
            }
            Num::Term(i) => {
                if env.lacking(*i) {
                    return Err(*i);
                }
                env.num(*i)
            }
            Num::Neg(a) => -a.try_eval(env)?,
            Num::Abs(a) => a.try_eval(env)?.abs(),
            Num::Min(a, b) => {
                let x = a.try_eval(env)?;
                rhai_min(x, b.try_eval(env)?)
            }
            Num::Max(a, b) => {
                let x = a.try_eval(env)?;
                rhai_max(x, b.try_eval(env)?)
            }
            Num::Sqrt(a) => a.try_eval(env)?.sqrt(),
            Num::Ln(a) => a.try_eval(env)?.ln(),
            Num::Exp(a) => a.try_eval(env)?.exp(),
            Num::Round(a) => a.try_eval(env)?.round(),
            Num::Clamp(x, lo, hi) => {
                let (x, lo) = (x.try_eval(env)?, lo.try_eval(env)?);
                clamp(x, lo, hi.try_eval(env)?)
            }
            Num::Decimals(a) => decimals(a.try_eval(env)?),
        })
    }
}

impl Cond {
    /// The value; the same as [`Self::try_eval`] where no term lacks history.
    #[inline]
    pub fn eval<E: Env>(&self, env: &E) -> bool {
        self.try_eval(env).unwrap_or(false)
    }

    /// The value, evaluated as rhai does (left to right, `&&`, `||` and `if` short-circuiting),
    /// or the first term whose history is lacking.
    pub fn try_eval<E: Env>(&self, env: &E) -> Eval<bool> {
        Ok(match self {
            Cond::Lit(b) => *b,
            Cond::Missing => env.missing(),
            Cond::Flag(i) => env.flag(*i),
            Cond::Not(c) => !c.try_eval(env)?,
            Cond::And(cs) => {
                for c in cs {
                    if !c.try_eval(env)? {
                        return Ok(false);
                    }
                }
                true
            }
            Cond::Or(cs) => {
                for c in cs {
                    if c.try_eval(env)? {
                        return Ok(true);
                    }
                }
                false
            }
            Cond::Cmp(op, a, b, exact) => {
                let x = a.try_eval(env)?;
                op.apply(x, b.try_eval(env)?, *exact)
            }
            Cond::BoolCmp(eq, a, b) => {
                let x = a.try_eval(env)?;
                (x == b.try_eval(env)?) == *eq
            }
            Cond::If(c, a, b) => {
                if c.try_eval(env)? {
                    a.try_eval(env)?
                } else {
                    b.try_eval(env)?
                }
            }
            Cond::Between(x, lo, hi) => {
                let (x, lo) = (x.try_eval(env)?, lo.try_eval(env)?);
                between(x, lo, hi.try_eval(env)?)
            }
            Cond::IsFinite(x) => x.try_eval(env)?.is_finite(),
            Cond::IsZero(x) => x.try_eval(env)? == 0.0,
            Cond::IsNegative(x) => is_negative(x.try_eval(env)?),
            Cond::OnTick(x, t) => {
                let x = x.try_eval(env)?;
                on_tick(x, t.try_eval(env)?)
            }
        })
    }
}
