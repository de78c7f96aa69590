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

use std::fmt::Write as _;

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
}

impl Num {
    #[inline]
    pub fn eval<E: Env>(&self, env: &E) -> f64 {
        match self {
            Num::Lit(x) => *x,
            Num::Bin(op, a, b) => op.apply(a.eval(env), b.eval(env)),
            Num::Term(i) => env.num(*i),
            Num::Neg(a) => -a.eval(env),
            Num::Abs(a) => a.eval(env).abs(),
            Num::Min(a, b) => rhai_min(a.eval(env), b.eval(env)),
            Num::Max(a, b) => rhai_max(a.eval(env), b.eval(env)),
            Num::Sqrt(a) => a.eval(env).sqrt(),
            Num::Ln(a) => a.eval(env).ln(),
            Num::Exp(a) => a.eval(env).exp(),
            Num::Round(a) => a.eval(env).round(),
            Num::Clamp(x, lo, hi) => clamp(x.eval(env), lo.eval(env), hi.eval(env)),
            Num::Decimals(a) => decimals(a.eval(env)),
        }
    }

    fn render(&self, terms: &[Term], out: &mut String) {
        let call = |out: &mut String, name: &str, args: &[&Num]| {
            out.push_str(name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                a.render(terms, out);
            }
            out.push(')');
        };
        match self {
            Num::Lit(x) => push_num(out, *x),
            Num::Bin(op, a, b) => {
                for (k, side) in [a, b].into_iter().enumerate() {
                    if k == 1 {
                        out.push(' ');
                        out.push_str(op.text());
                        out.push(' ');
                    }
                    let nested = matches!(**side, Num::Bin(..));
                    if nested {
                        out.push('(');
                    }
                    side.render(terms, out);
                    if nested {
                        out.push(')');
                    }
                }
            }
            Num::Term(i) => out.push_str(terms.get(*i).map_or("?", |t| t.text.as_str())),
            Num::Neg(a) => {
                out.push('-');
                a.render(terms, out);
            }
            Num::Abs(a) => call(out, "abs", &[a]),
            Num::Min(a, b) => call(out, "min", &[a, b]),
            Num::Max(a, b) => call(out, "max", &[a, b]),
            Num::Sqrt(a) => call(out, "sqrt", &[a]),
            Num::Ln(a) => call(out, "ln", &[a]),
            Num::Exp(a) => call(out, "exp", &[a]),
            Num::Round(a) => call(out, "round", &[a]),
            Num::Clamp(a, b, c) => call(out, "clamp", &[a, b, c]),
            Num::Decimals(a) => call(out, "decimals", &[a]),
        }
    }

    /// `value 4520`, `pct_change(1) = 0.35`, or a bare literal.
    fn with_value<E: Env>(&self, terms: &[Term], env: &E, out: &mut String) {
        match self {
            Num::Lit(x) => push_num(out, *x),
            Num::Term(i) if terms.get(*i).is_some_and(Term::is_value) => {
                out.push_str(&terms[*i].text);
                out.push(' ');
                push_num(out, env.num(*i));
            }
            _ => {
                self.render(terms, out);
                out.push_str(" = ");
                push_num(out, self.eval(env));
            }
        }
    }

    /// A literal's text, or an expression with its value in parentheses.
    fn operand<E: Env>(&self, terms: &[Term], env: &E, out: &mut String) {
        match self {
            Num::Lit(x) => push_num(out, *x),
            _ => {
                self.render(terms, out);
                out.push_str(" (");
                push_num(out, self.eval(env));
                out.push(')');
            }
        }
    }
}

/// A numeric column over the targets of a run: a constant, a shared column, or a new one.
pub(crate) enum Col<'a> {
    Const(f64),
    Slice(&'a [f64]),
    Owned(Vec<f64>),
}

impl Col<'_> {
    fn slice(&self) -> Option<&[f64]> {
        match self {
            Col::Const(_) => None,
            Col::Slice(s) => Some(s),
            Col::Owned(v) => Some(v),
        }
    }

    fn constant(&self) -> f64 {
        match self {
            Col::Const(x) => *x,
            _ => f64::NAN,
        }
    }
}

/// A boolean column over the targets of a run.
pub(crate) enum BoolCol {
    Const(bool),
    Owned(Vec<bool>),
}

impl BoolCol {
    fn get(&self, j: usize) -> bool {
        match self {
            BoolCol::Const(b) => *b,
            BoolCol::Owned(v) => v[j],
        }
    }

    /// The column as `n` booleans.
    pub fn into_vec(self, n: usize) -> Vec<bool> {
        match self {
            BoolCol::Const(b) => vec![b; n],
            BoolCol::Owned(v) => v,
        }
    }
}

/// `f` over one column, in one loop.
fn map1<'a>(a: Col<'a>, f: impl Fn(f64) -> f64) -> Col<'a> {
    match a {
        Col::Const(x) => Col::Const(f(x)),
        Col::Slice(s) => Col::Owned(s.iter().map(|&x| f(x)).collect()),
        Col::Owned(mut v) => {
            for x in &mut v {
                *x = f(*x);
            }
            Col::Owned(v)
        }
    }
}

/// `f` over two columns, in one loop (constants hoisted).
fn map2<T: Copy>(a: &Col, b: &Col, f: impl Fn(f64, f64) -> T) -> Result<T, Vec<T>> {
    Err(match (a.slice(), b.slice()) {
        (None, None) => return Ok(f(a.constant(), b.constant())),
        (Some(x), None) => {
            let y = b.constant();
            x.iter().map(|&x| f(x, y)).collect()
        }
        (None, Some(y)) => {
            let x = a.constant();
            y.iter().map(|&y| f(x, y)).collect()
        }
        (Some(x), Some(y)) => x.iter().zip(y).map(|(&x, &y)| f(x, y)).collect(),
    })
}

fn num2<'a>(a: &Col, b: &Col, f: impl Fn(f64, f64) -> f64) -> Col<'a> {
    match map2(a, b, f) {
        Ok(x) => Col::Const(x),
        Err(v) => Col::Owned(v),
    }
}

fn bool2(a: &Col, b: &Col, f: impl Fn(f64, f64) -> bool) -> BoolCol {
    match map2(a, b, f) {
        Ok(x) => BoolCol::Const(x),
        Err(v) => BoolCol::Owned(v),
    }
}

fn bool1(a: &Col, f: impl Fn(f64) -> bool) -> BoolCol {
    match a.slice() {
        None => BoolCol::Const(f(a.constant())),
        Some(s) => BoolCol::Owned(s.iter().map(|&x| f(x)).collect()),
    }
}

/// Three columns, the last two usually constants (`between(x, lo, hi)`, `clamp`).
fn map3<T: Copy>(a: &Col, b: &Col, c: &Col, f: impl Fn(f64, f64, f64) -> T) -> Result<T, Vec<T>> {
    if let (None, None) = (b.slice(), c.slice()) {
        let (lo, hi) = (b.constant(), c.constant());
        return match a.slice() {
            None => Ok(f(a.constant(), lo, hi)),
            Some(s) => Err(s.iter().map(|&x| f(x, lo, hi)).collect()),
        };
    }
    let n = [a.slice(), b.slice(), c.slice()]
        .iter()
        .flatten()
        .map(|s| s.len())
        .next()
        .unwrap_or(0);
    let at = |col: &Col, j: usize| col.slice().map_or_else(|| col.constant(), |s| s[j]);
    Err((0..n).map(|j| f(at(a, j), at(b, j), at(c, j))).collect())
}

impl Num {
    /// The node over all targets: `cols[i]` is term i's column.
    pub fn column<'a>(&self, cols: &'a [std::rc::Rc<Vec<f64>>]) -> Col<'a> {
        match self {
            Num::Lit(x) => Col::Const(*x),
            Num::Bin(op, a, b) => {
                let (a, b) = (a.column(cols), b.column(cols));
                // One loop per operator, so the operation inlines into it.
                match op {
                    Arith::Add => num2(&a, &b, |x, y| x + y),
                    Arith::Sub => num2(&a, &b, |x, y| x - y),
                    Arith::Mul => num2(&a, &b, |x, y| x * y),
                    Arith::Div => num2(&a, &b, |x, y| x / y),
                    Arith::Rem => num2(&a, &b, |x, y| x % y),
                }
            }
            Num::Term(i) => Col::Slice(&cols[*i]),
            Num::Neg(a) => map1(a.column(cols), |x| -x),
            Num::Abs(a) => map1(a.column(cols), f64::abs),
            Num::Sqrt(a) => map1(a.column(cols), f64::sqrt),
            Num::Ln(a) => map1(a.column(cols), f64::ln),
            Num::Exp(a) => map1(a.column(cols), f64::exp),
            Num::Round(a) => map1(a.column(cols), f64::round),
            Num::Decimals(a) => map1(a.column(cols), decimals),
            Num::Min(a, b) => num2(&a.column(cols), &b.column(cols), rhai_min),
            Num::Max(a, b) => num2(&a.column(cols), &b.column(cols), rhai_max),
            Num::Clamp(x, lo, hi) => {
                let (x, lo, hi) = (x.column(cols), lo.column(cols), hi.column(cols));
                match map3(&x, &lo, &hi, clamp) {
                    Ok(v) => Col::Const(v),
                    Err(v) => Col::Owned(v),
                }
            }
        }
    }
}

fn compare(op: Op, exact: bool, a: &Col, b: &Col) -> BoolCol {
    // One loop per operator, so the comparison inlines into it.
    macro_rules! each {
        ($($op:ident),*) => {
            match (op, exact) {
                $(
                    (Op::$op, true) => bool2(a, b, |x, y| Op::$op.apply(x, y, true)),
                    (Op::$op, false) => bool2(a, b, |x, y| rhai_compare(Op::$op, x, y)),
                )*
            }
        };
    }
    each!(Lt, Le, Gt, Ge, Eq, Ne)
}

fn combine(a: BoolCol, b: BoolCol, and: bool) -> BoolCol {
    match (a, b) {
        (BoolCol::Const(x), other) | (other, BoolCol::Const(x)) => {
            if x == and {
                other
            } else {
                BoolCol::Const(x)
            }
        }
        (BoolCol::Owned(mut x), BoolCol::Owned(y)) => {
            for (x, y) in x.iter_mut().zip(y) {
                *x = if and { *x && y } else { *x || y };
            }
            BoolCol::Owned(x)
        }
    }
}

impl Cond {
    /// The condition over all targets of a point run (`value` is the value column): the same
    /// results as [`Cond::eval`] at each target, one loop per node.
    pub fn column(&self, cols: &[std::rc::Rc<Vec<f64>>], value: &[f64]) -> BoolCol {
        match self {
            Cond::Lit(b) => BoolCol::Const(*b),
            Cond::Missing => BoolCol::Owned(value.iter().map(|v| v.is_nan()).collect()),
            Cond::Flag(_) => BoolCol::Const(false),
            Cond::Not(c) => match c.column(cols, value) {
                BoolCol::Const(b) => BoolCol::Const(!b),
                BoolCol::Owned(mut v) => {
                    for b in &mut v {
                        *b = !*b;
                    }
                    BoolCol::Owned(v)
                }
            },
            Cond::And(cs) | Cond::Or(cs) => {
                let and = matches!(self, Cond::And(_));
                cs.iter()
                    .map(|c| c.column(cols, value))
                    .fold(BoolCol::Const(and), |acc, c| combine(acc, c, and))
            }
            Cond::Cmp(op, a, b, exact) => compare(*op, *exact, &a.column(cols), &b.column(cols)),
            Cond::BoolCmp(eq, a, b) => {
                let (a, b) = (a.column(cols, value), b.column(cols, value));
                match (&a, &b) {
                    (BoolCol::Const(x), BoolCol::Const(y)) => BoolCol::Const((x == y) == *eq),
                    _ => BoolCol::Owned(
                        (0..value.len())
                            .map(|j| (a.get(j) == b.get(j)) == *eq)
                            .collect(),
                    ),
                }
            }
            Cond::If(c, a, b) => match c.column(cols, value) {
                BoolCol::Const(true) => a.column(cols, value),
                BoolCol::Const(false) => b.column(cols, value),
                BoolCol::Owned(pick) => {
                    let (a, b) = (a.column(cols, value), b.column(cols, value));
                    BoolCol::Owned(
                        pick.iter()
                            .enumerate()
                            .map(|(j, &p)| if p { a.get(j) } else { b.get(j) })
                            .collect(),
                    )
                }
            },
            Cond::Between(x, lo, hi) => {
                match map3(&x.column(cols), &lo.column(cols), &hi.column(cols), between) {
                    Ok(b) => BoolCol::Const(b),
                    Err(v) => BoolCol::Owned(v),
                }
            }
            Cond::IsFinite(x) => bool1(&x.column(cols), f64::is_finite),
            Cond::IsZero(x) => bool1(&x.column(cols), |x| x == 0.0),
            Cond::IsNegative(x) => bool1(&x.column(cols), is_negative),
            Cond::OnTick(x, t) => bool2(&x.column(cols), &t.column(cols), on_tick),
        }
    }

    #[inline]
    pub fn eval<E: Env>(&self, env: &E) -> bool {
        match self {
            Cond::Lit(b) => *b,
            Cond::Missing => env.missing(),
            Cond::Flag(i) => env.flag(*i),
            Cond::Not(c) => !c.eval(env),
            Cond::And(cs) => cs.iter().all(|c| c.eval(env)),
            Cond::Or(cs) => cs.iter().any(|c| c.eval(env)),
            Cond::Cmp(op, a, b, exact) => op.apply(a.eval(env), b.eval(env), *exact),
            Cond::BoolCmp(eq, a, b) => (a.eval(env) == b.eval(env)) == *eq,
            Cond::If(c, a, b) => {
                if c.eval(env) {
                    a.eval(env)
                } else {
                    b.eval(env)
                }
            }
            Cond::Between(x, lo, hi) => between(x.eval(env), lo.eval(env), hi.eval(env)),
            Cond::IsFinite(x) => x.eval(env).is_finite(),
            Cond::IsZero(x) => x.eval(env) == 0.0,
            Cond::IsNegative(x) => is_negative(x.eval(env)),
            Cond::OnTick(x, t) => on_tick(x.eval(env), t.eval(env)),
        }
    }

    /// Why this condition is not `want` (it must evaluate to `!want`), appended to `out`.
    fn why<E: Env>(&self, want: bool, terms: &[Term], env: &E, out: &mut String) {
        match self {
            Cond::Lit(b) => {
                let _ = write!(out, "the expression is {b}");
            }
            Cond::Missing => {
                if want {
                    out.push_str("value ");
                    push_num(out, env.value());
                    out.push_str(" is not missing");
                } else {
                    out.push_str("value is missing");
                }
            }
            Cond::Flag(i) => out.push_str(&flag_text(terms.get(*i), !want)),
            Cond::Not(c) => c.why(!want, terms, env, out),
            Cond::And(cs) if want => {
                if let Some(c) = cs.iter().find(|c| !c.eval(env)) {
                    c.why(true, terms, env, out);
                }
            }
            Cond::Or(cs) if !want => {
                if let Some(c) = cs.iter().find(|c| c.eval(env)) {
                    c.why(false, terms, env, out);
                }
            }
            // Every part is !want: an Or that is false, an And that is true.
            Cond::And(cs) | Cond::Or(cs) => {
                for (i, c) in cs.iter().enumerate() {
                    if i > 0 {
                        out.push_str("; ");
                    }
                    c.why(want, terms, env, out);
                }
            }
            Cond::Cmp(op, a, b, _) => {
                let op = if want { *op } else { op.negate() };
                let (op, a, b) = if matches!(a, Num::Lit(_)) && !matches!(b, Num::Lit(_)) {
                    (op.flip(), b, a)
                } else {
                    (op, a, b)
                };
                a.with_value(terms, env, out);
                out.push_str(", expected ");
                out.push_str(op.text());
                out.push(' ');
                b.operand(terms, env, out);
            }
            Cond::BoolCmp(eq, a, b) => {
                let (va, vb) = (a.eval(env), b.eval(env));
                let eq = if want { *eq } else { !*eq };
                let _ = write!(out, "{va} {} {vb} is false", if eq { "==" } else { "!=" });
            }
            Cond::If(c, a, b) => {
                if c.eval(env) {
                    a.why(want, terms, env, out);
                } else {
                    b.why(want, terms, env, out);
                }
            }
            Cond::Between(x, lo, hi) => {
                x.with_value(terms, env, out);
                out.push_str(if want { " outside " } else { " inside " });
                lo.operand(terms, env, out);
                out.push_str("..");
                hi.operand(terms, env, out);
            }
            Cond::IsFinite(x) | Cond::IsZero(x) | Cond::IsNegative(x) => {
                x.with_value(terms, env, out);
                out.push_str(" is ");
                out.push_str(not(want));
                out.push_str(match self {
                    Cond::IsFinite(_) => "finite",
                    Cond::IsZero(_) => "zero",
                    _ => "negative",
                });
            }
            Cond::OnTick(x, t) => {
                x.with_value(terms, env, out);
                out.push_str(" is ");
                out.push_str(not(want));
                out.push_str("on tick ");
                t.operand(terms, env, out);
            }
        }
    }
}

fn not(want: bool) -> &'static str {
    if want {
        "not "
    } else {
        ""
    }
}

fn flag_text(term: Option<&Term>, holds: bool) -> String {
    let Some(Term {
        kind: TermKind::Flag(flag),
        ..
    }) = term
    else {
        return format!("the flag is {holds}");
    };
    match (flag, holds) {
        (CurveFlag::Sorted, true) => "the contracts are in delivery order".into(),
        (CurveFlag::Sorted, false) => "the contracts are not in delivery order".into(),
        (CurveFlag::Unique, true) => "no contract appears twice".into(),
        (CurveFlag::Unique, false) => "a contract appears twice".into(),
        (CurveFlag::NoGaps, true) => "the delivery periods have no gaps".into(),
        (CurveFlag::NoGaps, false) => "the delivery periods have gaps".into(),
        (CurveFlag::HasTenor(code), true) => format!("tenor {code} is present"),
        (CurveFlag::HasTenor(code), false) => format!("tenor {code} is missing"),
    }
}

impl Tree {
    /// The failure message, when the condition is false in `env` (None when it is true:
    /// the caller then falls back to [`generic_message`]).
    pub fn explain<E: Env>(&self, env: &E) -> Option<String> {
        if self.cond.eval(env) {
            None
        } else {
            let mut out = String::with_capacity(48);
            self.cond.why(true, &self.terms, env, &mut out);
            Some(out)
        }
    }
}

/// The message of a failing expression the engine cannot take apart: the built-in terms it
/// mentions with their values.
pub(crate) fn generic_message<E: Env>(terms: &[Term], env: &E) -> String {
    let mut out = String::from("the expression is false");
    let mut first = true;
    for (i, t) in terms.iter().enumerate() {
        out.push_str(if first { ": " } else { ", " });
        first = false;
        match &t.kind {
            TermKind::Flag(_) => {
                let _ = write!(out, "{} = {}", t.text, env.flag(i));
            }
            _ => {
                out.push_str(&t.text);
                out.push_str(if t.is_value() { " " } else { " = " });
                push_num(&mut out, env.num(i));
            }
        }
    }
    out
}

/// A number for messages: at most 6 significant digits, no exponent, `NaN`, `inf`.
pub(crate) fn fmt_num(x: f64) -> String {
    let mut out = String::new();
    push_num(&mut out, x);
    out
}

/// [`fmt_num`], appended to `out`.
pub(crate) fn push_num(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("NaN");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
    } else if x == 0.0 {
        out.push('0');
    } else if x.fract() == 0.0 && x.abs() < 1e6 {
        let _ = write!(out, "{}", x as i64);
    } else {
        let start = out.len();
        let _ = write!(out, "{x}");
        let digits = out[start..]
            .bytes()
            .skip_while(|b| matches!(b, b'-' | b'0' | b'.'))
            .filter(u8::is_ascii_digit)
            .count();
        if digits > 6 {
            out.truncate(start);
            let rounded: f64 = format!("{x:.5e}").parse().unwrap_or(x);
            let _ = write!(out, "{rounded}");
        }
    }
}

/// rhai's built-in comparison of two numbers when one is a float (rhai 1.27, checked build,
/// `func/builtin.rs`): relative to the larger magnitude (1 when a side is 0), with a tolerance
/// of `f64::EPSILON`. Consequences: `NaN == 0`, `NaN <= 0` and `NaN >= 0` are true (any other
/// comparison with NaN is false), every comparison with an infinity is false, and numbers
/// within one epsilon of each other are equal.
#[inline]
pub(crate) fn rhai_compare(op: Op, x: f64, y: f64) -> bool {
    let max = if x * y == 0.0 {
        1.0
    } else {
        x.abs().max(y.abs())
    };
    if max == 0.0 {
        return matches!(op, Op::Eq | Op::Ge | Op::Le);
    }
    match op {
        Op::Eq => (x - y).abs() / max <= f64::EPSILON,
        Op::Ne => (x - y).abs() / max > f64::EPSILON,
        Op::Gt => (x - y) / max > f64::EPSILON,
        Op::Ge => (x - y) / max > -f64::EPSILON,
        Op::Lt => (y - x) / max > f64::EPSILON,
        Op::Le => (y - x) / max > -f64::EPSILON,
    }
}

// ---- scalar built-ins shared with rhai (functions.rs registers these very functions) ----

/// rhai's `min` on floats.
#[inline]
pub(crate) fn rhai_min(x: f64, y: f64) -> f64 {
    if x <= y {
        x
    } else {
        y
    }
}

/// rhai's `max` on floats.
#[inline]
pub(crate) fn rhai_max(x: f64, y: f64) -> f64 {
    if x >= y {
        x
    } else {
        y
    }
}

/// `between(x, lo, hi)`: inclusive; false when any is NaN.
#[inline]
pub(crate) fn between(x: f64, lo: f64, hi: f64) -> bool {
    x >= lo && x <= hi
}

/// `is_negative(x)`.
#[inline]
pub(crate) fn is_negative(x: f64) -> bool {
    x < 0.0
}

/// `clamp(x, lo, hi)`; NaN stays NaN.
#[inline]
pub(crate) fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// `on_tick(x, tick)`: x is a whole multiple of a positive tick (relative tolerance 1e-9).
pub(crate) fn on_tick(x: f64, tick: f64) -> bool {
    if !(x.is_finite() && tick.is_finite() && tick > 0.0) {
        return false;
    }
    let r = x / tick;
    (r - r.round()).abs() <= 1e-9 * r.abs().max(1.0)
}

/// `decimals(x)`: digits after the point in the shortest text of x (NaN when not finite).
pub(crate) fn decimals(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let text = format!("{x}");
    text.split_once('.').map_or(0.0, |(_, d)| d.len() as f64)
}

/// A count argument (`lag(k)`, `mean(n)`): a whole number >= 0.
pub(crate) fn count_arg(x: f64) -> Option<usize> {
    (x.is_finite() && x >= 0.0 && x.fract() == 0.0).then_some(x as usize)
}

/// A quantile argument: 0 <= q <= 1.
pub(crate) fn quantile_arg(q: f64) -> Option<f64> {
    (0.0..=1.0).contains(&q).then_some(q)
}
