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
//!
//! Here the two entry points; `lex` cuts the text into tokens, `syntax` parses them into an
//! untyped tree, `typing` types it into the native tree and records the terms it reads,
//! `history` reads off the history a check needs and whether it reads `value` as text.

mod history;
mod lex;
mod syntax;
mod typing;

pub(crate) use history::{need, reads_text};
pub(crate) use lex::{idents, widest_call};

use super::native::{Term, Tree};
use super::CheckScope;
use lex::{tokenize, Tok};
use std::collections::HashSet;
use syntax::{Node, Parser};
use typing::{render_call, Typer};

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
