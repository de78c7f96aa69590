//! Why a check failed: the tree taken apart down to the comparison that does not hold, with
//! the numbers; for an expression the engine cannot take apart, its terms and their values.

use super::{Cond, CurveFlag, Env, Num, Term, TermKind, Tree};
use std::fmt::Write as _;

impl Num {
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

impl Cond {
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
            _ if t.is_value() && env.text().is_some() => {
                let _ = write!(out, "{} {:?}", t.text, env.text().unwrap_or_default());
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
