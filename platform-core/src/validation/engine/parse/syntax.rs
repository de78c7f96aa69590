//! The grammar of the native subset: tokens parsed into an untyped tree (see the grammar in
//! [`super`]).

use super::lex::Tok;
use crate::validation::engine::native::{Arith, Op};

/// An untyped expression.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
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

pub(super) struct Parser<'a> {
    pub(super) toks: &'a [Tok],
    pub(super) pos: usize,
}

/// Nesting deeper than this is left to rhai (and its depth limits).
pub(super) const MAX_DEPTH: usize = 32;

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    pub(super) fn next(&mut self) -> Option<&Tok> {
        let t = self.toks.get(self.pos);
        self.pos += 1;
        t
    }

    pub(super) fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn or(&mut self, depth: usize) -> Option<Node> {
        let mut lhs = self.and(depth)?;
        while self.eat(&Tok::Op("||")) {
            let rhs = self.and(depth)?;
            lhs = Node::Or(Box::new(lhs), Box::new(rhs));
        }
        Some(lhs)
    }

    pub(super) fn and(&mut self, depth: usize) -> Option<Node> {
        let mut lhs = self.cmp(depth)?;
        while self.eat(&Tok::Op("&&")) {
            let rhs = self.cmp(depth)?;
            lhs = Node::And(Box::new(lhs), Box::new(rhs));
        }
        Some(lhs)
    }

    pub(super) fn cmp(&mut self, depth: usize) -> Option<Node> {
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

    pub(super) fn additive(&mut self, depth: usize) -> Option<Node> {
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

    pub(super) fn multiplicative(&mut self, depth: usize) -> Option<Node> {
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
    pub(super) fn if_else(&mut self, depth: usize) -> Option<Node> {
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

    pub(super) fn unary(&mut self, depth: usize) -> Option<Node> {
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

    pub(super) fn primary(&mut self, depth: usize) -> Option<Node> {
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
