//! Recognises the checks that can run natively, and finds the built-in terms of any check.
//!
//! The accepted subset of rhai (anything else is `None`, and the check runs in rhai):
//!
//! ```text
//! expr    ::= and ( "||" and )*
//! and     ::= cmp ( "&&" cmp )*
//! cmp     ::= unary ( cmp-op unary )?          -- no chains: a < b < c is rejected
//! unary   ::= "!" unary | "-" unary | primary
//! primary ::= int | float | string | "true" | "false" | ident | ident "(" args? ")" | "(" expr ")"
//! int     ::= digit+                           -- at most 15 digits
//! float   ::= digit+ "." digit+ ( ("e"|"E") ("+"|"-")? digit+ )?
//! ```
//!
//! The parsed tree is then typed like rhai would: built-in terms take literal arguments (counts
//! are whole numbers >= 0, `quantile`'s q in 0..1) and return floats, `sqrt`/`ln`/`exp`/`round`
//! need a float, comparisons need two numbers (or two booleans with `==`/`!=`), `&&`, `||`
//! and `!` need booleans. A name defined by a library shadows the built-in.

use super::native::{Arith, Cond, CurveFlag, CurveStat, Num, Op, PointStat, Term, TermKind, Tree};
use super::CheckScope;
use std::collections::HashSet;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    Float(f64),
    Str(String),
    LParen,
    RParen,
    Comma,
    Op(&'static str),
    /// `.` (a method call or property access follows).
    Dot,
    LBrace,
    RBrace,
    /// Anything the subset does not have (arithmetic, dots, brackets, comments...).
    Other,
}

fn tokenize(src: &str) -> Vec<Tok> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'(' => {
                out.push(Tok::LParen);
                i += 1;
            }
            b')' => {
                out.push(Tok::RParen);
                i += 1;
            }
            b',' => {
                out.push(Tok::Comma);
                i += 1;
            }
            b'"' | b'`' | b'\'' => {
                // A string: consumed whole so its content is never read as code.
                let quote = c;
                let mut j = i + 1;
                let mut plain = true;
                while j < b.len() && b[j] != quote {
                    if b[j] == b'\\' {
                        plain = false;
                        j += 1;
                    }
                    j += 1;
                }
                let text = src.get(i + 1..j.min(b.len())).unwrap_or("");
                out.push(if plain && quote == b'"' && j < b.len() {
                    Tok::Str(text.to_string())
                } else {
                    Tok::Other
                });
                i = j + 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                out.push(Tok::Other);
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                out.push(Tok::Other);
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'0'..=b'9' => {
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let mut float = false;
                if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    float = true;
                    i += 1;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                    if matches!(b.get(i), Some(b'e' | b'E')) {
                        let mut j = i + 1;
                        if matches!(b.get(j), Some(b'+' | b'-')) {
                            j += 1;
                        }
                        if b.get(j).is_some_and(u8::is_ascii_digit) {
                            i = j;
                            while i < b.len() && b[i].is_ascii_digit() {
                                i += 1;
                            }
                        }
                    }
                }
                let text = &src[start..i];
                let glued = b
                    .get(i)
                    .is_some_and(|&n| n.is_ascii_alphanumeric() || n == b'_' || n == b'.');
                let tok = if glued {
                    Tok::Other
                } else if float {
                    text.parse().map_or(Tok::Other, Tok::Float)
                } else if text.len() <= 15 {
                    text.parse().map_or(Tok::Other, Tok::Int)
                } else {
                    Tok::Other
                };
                out.push(tok);
                if glued {
                    // Skip the rest of the odd literal (1_000, 0x1F, 1e5...).
                    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                        i += 1;
                    }
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Tok::Ident(src[start..i].to_string()));
            }
            _ => {
                let two = src.get(i..i + 2).unwrap_or("");
                let op = match two {
                    "&&" => Some("&&"),
                    "||" => Some("||"),
                    "<=" => Some("<="),
                    ">=" => Some(">="),
                    "==" => Some("=="),
                    "!=" => Some("!="),
                    _ => None,
                };
                if let Some(op) = op {
                    // `!==`, `<<=`... are not ours.
                    let third = b.get(i + 2).copied();
                    if matches!(third, Some(b'=' | b'<' | b'>' | b'&' | b'|')) {
                        out.push(Tok::Other);
                        i += 3;
                    } else {
                        out.push(Tok::Op(op));
                        i += 2;
                    }
                    continue;
                }
                let next = b.get(i + 1).copied();
                let tok = match c {
                    b'.' => Tok::Dot,
                    b'{' => Tok::LBrace,
                    b'}' => Tok::RBrace,
                    b'+' if !matches!(next, Some(b'=' | b'+')) => Tok::Op("+"),
                    b'*' if !matches!(next, Some(b'=' | b'*')) => Tok::Op("*"),
                    b'/' if next != Some(b'=') => Tok::Op("/"),
                    b'%' if next != Some(b'=') => Tok::Op("%"),
                    b'<' if next != Some(b'<') => Tok::Op("<"),
                    b'>' if next != Some(b'>') => Tok::Op(">"),
                    b'!' => Tok::Op("!"),
                    b'-' if !matches!(next, Some(b'=' | b'-' | b'>')) => Tok::Op("-"),
                    _ => Tok::Other,
                };
                out.push(tok);
                // Multi-byte characters are skipped whole.
                i += src[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    out
}

/// The identifiers of an expression (outside strings and comments).
pub(crate) fn idents(src: &str) -> HashSet<String> {
    tokenize(src)
        .into_iter()
        .filter_map(|t| match t {
            Tok::Ident(s) => Some(s),
            _ => None,
        })
        .collect()
}

/// An untyped expression.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    Var(String),
    Call(String, Vec<Node>),
    Neg(Box<Node>),
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Cmp(Op, Box<Node>, Box<Node>),
    Arith(Arith, Box<Node>, Box<Node>),
    If(Box<Node>, Box<Node>, Box<Node>),
}

struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
}

/// Nesting deeper than this is left to rhai (and its depth limits).
const MAX_DEPTH: usize = 32;

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<&Tok> {
        let t = self.toks.get(self.pos);
        self.pos += 1;
        t
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self, depth: usize) -> Option<Node> {
        let mut lhs = self.and(depth)?;
        while self.eat(&Tok::Op("||")) {
            let rhs = self.and(depth)?;
            lhs = Node::Or(Box::new(lhs), Box::new(rhs));
        }
        Some(lhs)
    }

    fn and(&mut self, depth: usize) -> Option<Node> {
        let mut lhs = self.cmp(depth)?;
        while self.eat(&Tok::Op("&&")) {
            let rhs = self.cmp(depth)?;
            lhs = Node::And(Box::new(lhs), Box::new(rhs));
        }
        Some(lhs)
    }

    fn cmp(&mut self, depth: usize) -> Option<Node> {
        let lhs = self.additive(depth)?;
        let op = match self.peek() {
            Some(Tok::Op("<")) => Op::Lt,
            Some(Tok::Op("<=")) => Op::Le,
            Some(Tok::Op(">")) => Op::Gt,
            Some(Tok::Op(">=")) => Op::Ge,
            Some(Tok::Op("==")) => Op::Eq,
            Some(Tok::Op("!=")) => Op::Ne,
            _ => return Some(lhs),
        };
        self.pos += 1;
        let rhs = self.additive(depth)?;
        if let Some(Tok::Op("<" | "<=" | ">" | ">=" | "==" | "!=")) = self.peek() {
            return None;
        }
        Some(Node::Cmp(op, Box::new(lhs), Box::new(rhs)))
    }

    fn additive(&mut self, depth: usize) -> Option<Node> {
        let mut lhs = self.multiplicative(depth)?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op("+")) => Arith::Add,
                Some(Tok::Op("-")) => Arith::Sub,
                _ => return Some(lhs),
            };
            self.pos += 1;
            let rhs = self.multiplicative(depth)?;
            lhs = Node::Arith(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn multiplicative(&mut self, depth: usize) -> Option<Node> {
        let mut lhs = self.unary(depth)?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op("*")) => Arith::Mul,
                Some(Tok::Op("/")) => Arith::Div,
                Some(Tok::Op("%")) => Arith::Rem,
                _ => return Some(lhs),
            };
            self.pos += 1;
            let rhs = self.unary(depth)?;
            lhs = Node::Arith(op, Box::new(lhs), Box::new(rhs));
        }
    }

    /// `if c { a } else { b }` (or `else if ...`), after the `if`.
    fn if_else(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let cond = self.or(depth + 1)?;
        if !self.eat(&Tok::LBrace) {
            return None;
        }
        let then = self.or(depth + 1)?;
        if !self.eat(&Tok::RBrace) || !self.eat(&Tok::Ident("else".into())) {
            return None;
        }
        let otherwise = if self.eat(&Tok::Ident("if".into())) {
            self.if_else(depth + 1)?
        } else {
            if !self.eat(&Tok::LBrace) {
                return None;
            }
            let inner = self.or(depth + 1)?;
            if !self.eat(&Tok::RBrace) {
                return None;
            }
            inner
        };
        Some(Node::If(
            Box::new(cond),
            Box::new(then),
            Box::new(otherwise),
        ))
    }

    fn unary(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        if self.eat(&Tok::Op("!")) {
            return Some(Node::Not(Box::new(self.unary(depth + 1)?)));
        }
        if self.eat(&Tok::Op("-")) {
            return Some(Node::Neg(Box::new(self.unary(depth + 1)?)));
        }
        self.primary(depth)
    }

    fn primary(&mut self, depth: usize) -> Option<Node> {
        match self.next()?.clone() {
            Tok::Int(i) => Some(Node::Int(i)),
            Tok::Float(x) => Some(Node::Float(x)),
            Tok::Str(s) => Some(Node::Str(s)),
            Tok::LParen => {
                let inner = self.or(depth + 1)?;
                self.eat(&Tok::RParen).then_some(inner)
            }
            Tok::Ident(name) if name == "if" => self.if_else(depth + 1),
            Tok::Ident(name) => {
                if !self.eat(&Tok::LParen) {
                    return Some(match name.as_str() {
                        "true" => Node::Bool(true),
                        "false" => Node::Bool(false),
                        _ => Node::Var(name),
                    });
                }
                let mut args = Vec::new();
                if !self.eat(&Tok::RParen) {
                    loop {
                        args.push(self.or(depth + 1)?);
                        if self.eat(&Tok::RParen) {
                            break;
                        }
                        if !self.eat(&Tok::Comma) {
                            return None;
                        }
                    }
                }
                Some(Node::Call(name, args))
            }
            _ => None,
        }
    }
}

/// A number's type as rhai sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Int,
    Float,
}

/// Integers beyond this are not exact as f64: leave them to rhai.
const MAX_EXACT_INT: i64 = 1 << 53;

struct Typer<'a> {
    scope: CheckScope,
    shadowed: &'a HashSet<String>,
    terms: Vec<Term>,
}

impl Typer<'_> {
    fn term(&mut self, kind: TermKind, text: String) -> usize {
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

    fn lit(node: &Node) -> Option<f64> {
        match node {
            Node::Int(i) if i.abs() < MAX_EXACT_INT => Some(*i as f64),
            Node::Float(x) => Some(*x),
            Node::Neg(inner) => Self::lit(inner).map(|x| -x),
            _ => None,
        }
    }

    fn count(node: &Node) -> Option<usize> {
        Self::lit(node).and_then(super::native::count_arg)
    }

    fn cond(&mut self, node: &Node) -> Option<Cond> {
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

    fn bool_call(&mut self, name: &str, args: &[Node]) -> Option<Cond> {
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
    fn try_num(&mut self, node: &Node) -> Option<(Num, Ty)> {
        let mark = self.terms.len();
        let out = self.num(node);
        if out.is_none() {
            self.terms.truncate(mark);
        }
        out
    }

    fn num(&mut self, node: &Node) -> Option<(Num, Ty)> {
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

    fn generic(&mut self, name: &str, args: &[Node]) -> Option<(Num, Ty)> {
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
    fn stat(&self, name: &str, args: &[Node]) -> Option<TermKind> {
        use CurveStat as C;
        use PointStat as P;
        let k = |i: usize| args.get(i).and_then(Self::count);
        let tol = |i: usize| args.get(i).and_then(Self::lit).map(f64::to_bits);
        let point = self.scope == CheckScope::Point;
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
                let q = q.and_then(super::native::quantile_arg)?;
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
fn render_call(name: &str, args: &[Node]) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|a| Typer::lit(a).map_or_else(|| "?".into(), super::native::fmt_num))
        .collect();
    format!("{name}({})", args.join(", "))
}

/// The tree of a check in the native subset, or `None`.
pub(crate) fn parse_tree(src: &str, scope: CheckScope, shadowed: &HashSet<String>) -> Option<Tree> {
    let toks = tokenize(src);
    let mut p = Parser {
        toks: &toks,
        pos: 0,
    };
    let node = p.or(0)?;
    if p.pos != toks.len() {
        return None;
    }
    let mut typer = Typer {
        scope,
        shadowed,
        terms: Vec::new(),
    };
    let cond = typer.cond(&node)?;
    Some(Tree {
        cond,
        terms: typer.terms,
    })
}

/// The built-in terms (with literal arguments) and the value an expression mentions, in order
/// of appearance: what a failure message of a custom expression shows.
pub(crate) fn scan_terms(src: &str, scope: CheckScope, shadowed: &HashSet<String>) -> Vec<Term> {
    let toks = tokenize(src);
    let mut typer = Typer {
        scope,
        shadowed,
        terms: Vec::new(),
    };
    for start in 0..toks.len() {
        let Tok::Ident(name) = &toks[start] else {
            continue;
        };
        if start > 0 && toks[start - 1] == Tok::Dot {
            // A method call (`x.mean(3)`) or a property: not ours.
            continue;
        }
        let is_call = toks.get(start + 1) == Some(&Tok::LParen);
        if !is_call && !matches!(name.as_str(), "value" | "contracts") {
            continue;
        }
        let mut p = Parser {
            toks: &toks[start..],
            pos: 0,
        };
        let Some(node) = p.primary(0) else {
            continue;
        };
        match &node {
            Node::Var(_) => {
                typer.try_num(&node);
            }
            Node::Call(name, args) if !shadowed.contains(name) => {
                if let Some(kind) = typer.stat(name, args) {
                    let text = render_call(name, args);
                    typer.term(kind, text);
                } else {
                    // Records the flags (has_tenor, sorted...) and the value it reads.
                    let _ = typer.bool_call(name, args);
                }
            }
            _ => {}
        }
    }
    typer.terms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(src: &str) -> Option<Tree> {
        parse_tree(src, CheckScope::Point, &HashSet::new())
    }

    #[test]
    fn the_native_subset() {
        for ok in [
            "value > 0",
            "between(value, 0, 1000)",
            "abs(pct_change(1)) < 0.2",
            "run_length() < 5",
            "abs(zscore(20)) < 3",
            "abs(robust_z(50)) < 3.5",
            "gap() <= 1",
            "!is_missing()",
            "value >= 10 && value <= 90",
            "(value > 0) || missing",
            "-5 < value",
            "quantile(20, 0.9) >= value",
            "min(value, 3) == 3",
            "sqrt(abs(value)) < 10.5",
            "is_finite(value) && !is_zero(value)",
            "value + 1 > 0",
            "value * 2 > lag(1) - 100",
            "max_of(10) - min_of(10) < 400 || value > 0",
            "if value > 500 { value < 999 } else { value >= 0 }",
            "if value > 5 { true } else if value > 2 { missing } else { false }",
            "value / 3 % 2 < 1 + 2 * 3",
        ] {
            assert!(tree(ok).is_some(), "{ok}");
        }
        for no in [
            "if value > 5 { true }",
            "(if value > 5 { 1.0 } else { 2.0 }) > 1",
            "2 ** 3 > value",
            "9223372036854775807 + 1 > value",
            "1 / 0 > value",
            "value > 0 > 1",
            "lag(-1) > 0",
            "lag(value) > 0",
            "quantile(20, 2) > 0",
            "sqrt(4) > 1",
            "!value > 0",
            "value",
            "abs(value)",
            "value > 1_000",
            "value > 1e3",
            "value.abs() > 1",
            "nosuch(value)",
            "value > 0 // comment",
            "tenor_count() > 1",
            "value > 99999999999999999",
        ] {
            assert!(tree(no).is_none(), "{no}");
        }
        let shadow: HashSet<String> = ["mean".to_string()].into();
        assert!(parse_tree("mean(3) > 1", CheckScope::Point, &shadow).is_none());
    }

    #[test]
    fn terms_of_custom_expressions() {
        let terms = scan_terms(
            "value - prev() > 3 * stdev(20) || \"mean(3)\" == time",
            CheckScope::Point,
            &HashSet::new(),
        );
        let texts: Vec<&str> = terms.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["value", "prev()", "stdev(20)"]);
        assert!(idents("value > 0 && \"missing\" != time").contains("time"));
        assert!(!idents("value > 0 && \"missing\" != time").contains("missing"));
    }
}
