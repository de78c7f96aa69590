//! The tree over all targets of a point run: every node one loop over the shared statistic
//! columns (constants hoisted), giving the same results as the evaluation at each target.

use super::scalars::{
    between, clamp, decimals, is_negative, on_tick, rhai_compare, rhai_max, rhai_min,
};
use super::{Arith, Cond, Num, Op};

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
}
