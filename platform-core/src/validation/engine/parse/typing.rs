//! The untyped tree typed as rhai would: built-in terms with literal arguments, numbers,
//! comparisons and conditions, into the native tree, recording the terms it reads.

use super::syntax::Node;
use crate::validation::engine::native::{
    Arith, Cond, CurveFlag, CurveStat, Num, Op, PointStat, Term, TermKind,
};
use crate::validation::engine::CheckScope;
use std::collections::HashSet;

/// A number's type as rhai sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ty {
    Int,
    Float,
}

/// Integers beyond this are not exact as f64: leave them to rhai.
pub(super) const MAX_EXACT_INT: i64 = 1 << 53;

pub(super) struct Typer<'a> {
    pub(super) scope: CheckScope,
    pub(super) shadowed: &'a HashSet<String>,
    pub(super) terms: Vec<Term>,
}

impl Typer<'_> {
    pub(super) fn term(&mut self, kind: TermKind, text: String) -> usize {
        if let Some(i) = self
            .terms
            .iter()
            .position(|t| t.kind == kind && t.text == text)
        {
            return i;
        }
        self.terms.push(Term { kind, text });
        self.terms.len() - 1
    }

    pub(super) fn lit(node: &Node) -> Option<f64> {
        match node {
            Node::Int(i) if i.abs() < MAX_EXACT_INT => Some(*i as f64),
            Node::Float(x) => Some(*x),
            Node::Neg(inner) => Self::lit(inner).map(|x| -x),
            _ => None,
        }
    }

    /// A literal count of at most `max`.
    pub(super) fn count(node: &Node, max: usize) -> Option<usize> {
        Self::lit(node).and_then(|x| crate::validation::engine::native::count_arg(x, max))
    }

    pub(super) fn cond(&mut self, node: &Node) -> Option<Cond> {
        Some(match node {
            Node::Bool(b) => Cond::Lit(*b),
            Node::Var(v) if v == "missing" && self.scope != CheckScope::Curve => Cond::Missing,
            Node::Not(inner) => Cond::Not(Box::new(self.cond(inner)?)),
            Node::And(a, b) => {
                let mut parts = Vec::new();
                for side in [a, b] {
                    match self.cond(side)? {
                        Cond::And(more) => parts.extend(more),
                        c => parts.push(c),
                    }
                }
                Cond::And(parts)
            }
            Node::Or(a, b) => {
                let mut parts = Vec::new();
                for side in [a, b] {
                    match self.cond(side)? {
                        Cond::Or(more) => parts.extend(more),
                        c => parts.push(c),
                    }
                }
                Cond::Or(parts)
            }
            Node::Cmp(op, a, b) => {
                if let (Some((x, tx)), Some((y, ty))) = (self.try_num(a), self.try_num(b)) {
                    Cond::Cmp(*op, x, y, tx == Ty::Int && ty == Ty::Int)
                } else if matches!(op, Op::Eq | Op::Ne) {
                    let (x, y) = (self.cond(a)?, self.cond(b)?);
                    Cond::BoolCmp(*op == Op::Eq, Box::new(x), Box::new(y))
                } else {
                    return None;
                }
            }
            Node::If(c, a, b) => Cond::If(
                Box::new(self.cond(c)?),
                Box::new(self.cond(a)?),
                Box::new(self.cond(b)?),
            ),
            Node::Call(name, args) if !self.shadowed.contains(name) => {
                self.bool_call(name, args)?
            }
            _ => return None,
        })
    }

    pub(super) fn bool_call(&mut self, name: &str, args: &[Node]) -> Option<Cond> {
        let curve_level = self.scope != CheckScope::Point;
        Some(match (name, args) {
            ("is_missing", []) if self.scope != CheckScope::Curve => Cond::Missing,
            ("between", [x, lo, hi]) => {
                Cond::Between(self.num(x)?.0, self.num(lo)?.0, self.num(hi)?.0)
            }
            ("is_finite", [x]) => Cond::IsFinite(self.num(x)?.0),
            ("is_zero", [x]) => Cond::IsZero(self.num(x)?.0),
            ("is_negative", [x]) => Cond::IsNegative(self.num(x)?.0),
            ("on_tick", [x, t]) => Cond::OnTick(self.num(x)?.0, self.num(t)?.0),
            ("sorted", []) if curve_level => {
                Cond::Flag(self.term(TermKind::Flag(CurveFlag::Sorted), "sorted()".into()))
            }
            ("unique", []) if curve_level => {
                Cond::Flag(self.term(TermKind::Flag(CurveFlag::Unique), "unique()".into()))
            }
            ("no_gaps", []) if curve_level => {
                Cond::Flag(self.term(TermKind::Flag(CurveFlag::NoGaps), "no_gaps()".into()))
            }
            ("has_tenor", [Node::Str(code)]) if curve_level => Cond::Flag(self.term(
                TermKind::Flag(CurveFlag::HasTenor(code.clone())),
                format!("has_tenor(\"{code}\")"),
            )),
            _ => return None,
        })
    }

    /// Like [`Self::num`], but without recording terms when it fails.
    pub(super) fn try_num(&mut self, node: &Node) -> Option<(Num, Ty)> {
        let mark = self.terms.len();
        let out = self.num(node);
        if out.is_none() {
            self.terms.truncate(mark);
        }
        out
    }

    pub(super) fn num(&mut self, node: &Node) -> Option<(Num, Ty)> {
        Some(match node {
            Node::Int(i) if i.abs() < MAX_EXACT_INT => (Num::Lit(*i as f64), Ty::Int),
            Node::Float(x) => (Num::Lit(*x), Ty::Float),
            Node::Neg(inner) => {
                let (n, ty) = self.num(inner)?;
                let n = match n {
                    Num::Lit(x) => Num::Lit(-x),
                    n => Num::Neg(Box::new(n)),
                };
                (n, ty)
            }
            Node::Arith(op, a, b) => {
                let ((x, tx), (y, ty)) = (self.num(a)?, self.num(b)?);
                match (tx, ty, &x, &y) {
                    // rhai's checked integer arithmetic, folded; anything else on two
                    // integers (a count of contracts...) is left to rhai.
                    (Ty::Int, Ty::Int, Num::Lit(x), Num::Lit(y)) => {
                        let (x, y) = (*x as i64, *y as i64);
                        let v = match op {
                            Arith::Add => x.checked_add(y),
                            Arith::Sub => x.checked_sub(y),
                            Arith::Mul => x.checked_mul(y),
                            Arith::Div => x.checked_div(y),
                            Arith::Rem => x.checked_rem(y),
                        }?;
                        if v.abs() >= MAX_EXACT_INT {
                            return None;
                        }
                        (Num::Lit(v as f64), Ty::Int)
                    }
                    (Ty::Int, Ty::Int, ..) => return None,
                    _ => (Num::Bin(*op, Box::new(x), Box::new(y)), Ty::Float),
                }
            }
            Node::Var(v) => match (v.as_str(), self.scope) {
                ("value", CheckScope::Point) => (
                    Num::Term(self.term(TermKind::Point(PointStat::Value), "value".into())),
                    Ty::Float,
                ),
                ("value", CheckScope::Tenor) => (
                    Num::Term(self.term(TermKind::Curve(CurveStat::Value), "value".into())),
                    Ty::Float,
                ),
                ("contracts", CheckScope::Tenor | CheckScope::Curve) => (
                    Num::Term(self.term(TermKind::Curve(CurveStat::Contracts), "contracts".into())),
                    Ty::Int,
                ),
                _ => return None,
            },
            Node::Call(name, args) if !self.shadowed.contains(name) => {
                if let Some(kind) = self.stat(name, args) {
                    let text = render_call(name, args);
                    (Num::Term(self.term(kind, text)), Ty::Float)
                } else {
                    self.generic(name, args)?
                }
            }
            _ => return None,
        })
    }

    pub(super) fn generic(&mut self, name: &str, args: &[Node]) -> Option<(Num, Ty)> {
        let b = Box::new;
        Some(match (name, args) {
            ("abs", [x]) => {
                let (x, ty) = self.num(x)?;
                (Num::Abs(b(x)), ty)
            }
            ("min" | "max", [x, y]) => {
                let ((x, tx), (y, ty)) = (self.num(x)?, self.num(y)?);
                let t = if tx == Ty::Int && ty == Ty::Int {
                    Ty::Int
                } else {
                    Ty::Float
                };
                let n = if name == "min" {
                    Num::Min(b(x), b(y))
                } else {
                    Num::Max(b(x), b(y))
                };
                (n, t)
            }
            ("sqrt" | "ln" | "exp" | "round", [x]) => {
                let (x, ty) = self.num(x)?;
                if ty != Ty::Float {
                    return None;
                }
                let n = match name {
                    "sqrt" => Num::Sqrt(b(x)),
                    "ln" => Num::Ln(b(x)),
                    "exp" => Num::Exp(b(x)),
                    _ => Num::Round(b(x)),
                };
                (n, Ty::Float)
            }
            ("clamp", [x, lo, hi]) => (
                Num::Clamp(b(self.num(x)?.0), b(self.num(lo)?.0), b(self.num(hi)?.0)),
                Ty::Float,
            ),
            ("decimals", [x]) => (Num::Decimals(b(self.num(x)?.0)), Ty::Float),
            _ => return None,
        })
    }

    /// A built-in term of this scope with literal arguments.
    pub(super) fn stat(&self, name: &str, args: &[Node]) -> Option<TermKind> {
        use CurveStat as C;
        use PointStat as P;
        let point = self.scope == CheckScope::Point;
        let max = if point {
            crate::validation::engine::MAX_HISTORY
        } else {
            crate::validation::engine::MAX_CURVE_HISTORY
        };
        let k = |i: usize| args.get(i).and_then(|a| Self::count(a, max));
        let tol = |i: usize| args.get(i).and_then(Self::lit).map(f64::to_bits);
        let tenor = self.scope == CheckScope::Tenor;
        let curve_level = !point;
        let n = args.len();
        let kind = match name {
            "lag" if point && n == 1 => TermKind::Point(P::Lag(k(0)?)),
            "prev" if point && n == 0 => TermKind::Point(P::Lag(1)),
            "change" if point && n == 0 => TermKind::Point(P::Change(1)),
            "change" if point && n == 1 => TermKind::Point(P::Change(k(0)?)),
            "pct_change" if point && n == 0 => TermKind::Point(P::PctChange(1)),
            "pct_change" if point && n == 1 => TermKind::Point(P::PctChange(k(0)?)),
            "mean" if point && n == 1 => TermKind::Point(P::Mean(k(0)?)),
            "stdev" if point && n == 1 => TermKind::Point(P::Stdev(k(0)?)),
            "median" if point && n == 1 => TermKind::Point(P::Median(k(0)?)),
            "mad" if point && n == 1 => TermKind::Point(P::Mad(k(0)?)),
            "min_of" if point && n == 1 => TermKind::Point(P::MinOf(k(0)?)),
            "max_of" if point && n == 1 => TermKind::Point(P::MaxOf(k(0)?)),
            "count" if point && n == 1 => TermKind::Point(P::Count(k(0)?)),
            "zscore" if point && n == 1 => TermKind::Point(P::Zscore(k(0)?)),
            "robust_z" if point && n == 1 => TermKind::Point(P::RobustZ(k(0)?)),
            "quantile" if point && n == 2 => {
                let q = args.get(1).and_then(Self::lit);
                let q = q.and_then(crate::validation::engine::native::quantile_arg)?;
                TermKind::Point(P::Quantile(k(0)?, q.to_bits()))
            }
            "run_length" if point && n == 0 => TermKind::Point(P::RunLength(0f64.to_bits())),
            "run_length" if point && n == 1 => TermKind::Point(P::RunLength(tol(0)?)),
            "gap" if point && n == 0 => TermKind::Point(P::Gap),
            "spike" if point && n == 0 => TermKind::Point(P::Spike),
            "prev_tenor" if tenor && n == 0 => TermKind::Curve(C::PrevTenor(1)),
            "prev_tenor" if tenor && n == 1 => TermKind::Curve(C::PrevTenor(k(0)?)),
            "tenor_change" if tenor && n == 0 => TermKind::Curve(C::TenorChange(1)),
            "tenor_change" if tenor && n == 1 => TermKind::Curve(C::TenorChange(k(0)?)),
            "tenor_pct_change" if tenor && n == 0 => TermKind::Curve(C::TenorPctChange(1)),
            "tenor_pct_change" if tenor && n == 1 => TermKind::Curve(C::TenorPctChange(k(0)?)),
            "excess_move" if tenor && n == 0 => TermKind::Curve(C::ExcessMove),
            "tenor_run_length" if tenor && n == 0 => {
                TermKind::Curve(C::TenorRunLength(0f64.to_bits()))
            }
            "tenor_run_length" if tenor && n == 1 => TermKind::Curve(C::TenorRunLength(tol(0)?)),
            "tenor_count" if curve_level && n == 0 => TermKind::Curve(C::TenorCount),
            "prev_tenor_count" if curve_level && n == 0 => TermKind::Curve(C::PrevTenorCount),
            "unchanged_fraction" if curve_level && n == 0 => TermKind::Curve(C::UnchangedFraction),
            "max_abs_change" if curve_level && n == 0 => TermKind::Curve(C::MaxAbsChange),
            _ => return None,
        };
        Some(kind)
    }
}

/// `name(arg, ...)` with literal arguments in their canonical text.
pub(super) fn render_call(name: &str, args: &[Node]) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            Typer::lit(a).map_or_else(|| "?".into(), crate::validation::engine::native::fmt_num)
        })
        .collect();
    format!("{name}({})", args.join(", "))
}
