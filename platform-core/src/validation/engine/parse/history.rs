//! The history a check needs, read off its text: the largest count among its history calls
//! (`gap()` 1 observation, `change(3)` 3, `mean(30)` 30, `prev_tenor(2)` 2 curves), and the
//! most there is ([`MAX_HISTORY`] observations, [`MAX_CURVE_HISTORY`] curves) for a call whose
//! count is not a literal number, for `run_length()` and `tenor_run_length()` (they count back
//! as far as they may), and for a function called through a pointer (`Fn("mean")`). A call of
//! a library function needs what the libraries' own history calls need.
//!
//! Also whether a check reads `value` as text (`value == "ok"`), so that a text value is given
//! to it instead of failing it as `not a number`.

use super::lex::{tokenize, Tok};
use super::syntax::{Node, Parser};
use super::typing::Typer;
use crate::validation::engine::{CheckScope, MAX_CURVE_HISTORY, MAX_HISTORY};
use std::collections::HashSet;

/// The unit a scope's history is counted in: observations (point checks) or curves.
fn most(scope: CheckScope) -> usize {
    match scope {
        CheckScope::Point => MAX_HISTORY,
        CheckScope::Tenor | CheckScope::Curve => MAX_CURVE_HISTORY,
    }
}

/// What a call of `name` with `args` (None: arguments that do not parse) needs in `scope`'s
/// unit, or None when it is not a history function of that unit.
fn call_need(name: &str, args: Option<&[Node]>, scope: CheckScope) -> Option<usize> {
    let point = scope == CheckScope::Point;
    let max = most(scope);
    // The count argument `i`: the literal, or the most when it is not one.
    let count = |i: usize| {
        args.and_then(|a| a.get(i))
            .and_then(Typer::lit)
            .and_then(|x| crate::validation::engine::native::count_arg(x, max))
            .unwrap_or(max)
    };
    let arity = args.map(<[Node]>::len);
    Some(match name {
        "lag" | "mean" | "stdev" | "median" | "mad" | "min_of" | "max_of" | "count" | "zscore"
        | "robust_z" | "quantile"
            if point =>
        {
            count(0)
        }
        "change" | "pct_change" if point => match arity {
            Some(0) => 1,
            _ => count(0),
        },
        "prev" | "gap" if point => 1,
        "spike" if point => 2,
        "run_length" if point => max,
        "prev_tenor" | "tenor_change" | "tenor_pct_change" if !point => match arity {
            Some(0) => 1,
            _ => count(0),
        },
        "excess_move" | "prev_tenor_count" | "unchanged_fraction" | "max_abs_change" if !point => 1,
        "tenor_run_length" if !point => max,
        _ => return None,
    })
}

/// The history `src` needs in `scope` (observations for point checks, curves for tenor and
/// curve checks). `shadowed` are the names the libraries define: a call of one needs
/// `libraries` (what the libraries' sources need).
pub(crate) fn need(
    src: &str,
    scope: CheckScope,
    shadowed: &HashSet<String>,
    libraries: usize,
) -> usize {
    let toks = tokenize(src);
    let mut need = 0;
    for start in 0..toks.len() {
        let Tok::Ident(name) = &toks[start] else {
            continue;
        };
        if matches!(name.as_str(), "Fn" | "call" | "curry") {
            // A function pointer can call any built-in with any count.
            need = need.max(most(scope));
            continue;
        }
        if start > 0 && matches!(&toks[start - 1], Tok::Dot | Tok::Ident(_)) {
            // A method (`x.mean(3)`) or a definition (`fn mean(n)`), not a call of ours.
            continue;
        }
        if toks.get(start + 1) != Some(&Tok::LParen) {
            continue;
        }
        if shadowed.contains(name) {
            need = need.max(libraries);
            continue;
        }
        let mut p = Parser {
            toks: &toks[start..],
            pos: 0,
        };
        let args = match p.primary(0) {
            Some(Node::Call(_, args)) => Some(args),
            _ => None,
        };
        if let Some(n) = call_need(name, args.as_deref(), scope) {
            need = need.max(n);
        }
    }
    need
}

/// Whether `src` reads `value` as text: compares it with a string (`value == "ok"`,
/// `"ok" != value`), tests it with `in`, calls a method on it (`value.len()`), or asks
/// `type_of(value)`.
pub(crate) fn reads_text(src: &str) -> bool {
    let toks = tokenize(src);
    let cmp = |t: Option<&Tok>| matches!(t, Some(Tok::Op("==" | "!=" | "<" | ">" | "<=" | ">=")));
    let is_str = |t: Option<&Tok>| matches!(t, Some(Tok::Str(_)));
    (0..toks.len()).any(|i| {
        if toks[i] != Tok::Ident("value".into()) || (i > 0 && toks[i - 1] == Tok::Dot) {
            return false;
        }
        let next = toks.get(i + 1);
        let before = |k: usize| i.checked_sub(k).and_then(|j| toks.get(j));
        (cmp(next) && is_str(toks.get(i + 2)))
            || (cmp(before(1)) && is_str(before(2)))
            || next == Some(&Tok::Dot)
            || next == Some(&Tok::Ident("in".into()))
            || (before(1) == Some(&Tok::LParen) && before(2) == Some(&Tok::Ident("type_of".into())))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(src: &str) -> usize {
        need(src, CheckScope::Point, &HashSet::new(), 0)
    }

    #[test]
    fn the_largest_literal_count_or_the_most() {
        assert_eq!(point("value > 0"), 0);
        assert_eq!(point("gap() <= 1"), 1);
        assert_eq!(point("abs(pct_change()) < 0.2 && change(3) < 5"), 3);
        assert_eq!(point("value < mean(30) + 3 * stdev(20)"), 30);
        assert_eq!(point("quantile(50, 0.9) > value"), 50);
        assert_eq!(point("spike() < 10"), 2);
        assert_eq!(point("run_length() < 5"), MAX_HISTORY);
        assert_eq!(point("mean(2 * 3) > 0"), MAX_HISTORY);
        assert_eq!(point("Fn(\"mean\").call(3) > 0"), MAX_HISTORY);
        assert_eq!(point("\"mean(30)\" != time && x.mean(5) > 0"), 0);
        let tenor = |s: &str| need(s, CheckScope::Tenor, &HashSet::new(), 0);
        assert_eq!(tenor("abs(tenor_pct_change()) < 0.1"), 1);
        assert_eq!(tenor("prev_tenor(3) > 0 && mean(50) > 0"), 3);
        assert_eq!(tenor("tenor_run_length() < 5"), MAX_CURVE_HISTORY);
        let libs: HashSet<String> = ["jump".to_string()].into();
        assert_eq!(need("jump() < 1", CheckScope::Point, &libs, 7), 7);
    }

    #[test]
    fn text_reads_of_value() {
        for yes in [
            "value == \"ok\"",
            "\"ok\" != value",
            "value in [\"a\", \"b\"]",
            "value.len() < 4",
            "type_of(value) == \"string\"",
        ] {
            assert!(reads_text(yes), "{yes}");
        }
        for no in [
            "value > 0",
            "time == \"x\" && value > 0",
            "x.value == \"a\"",
        ] {
            assert!(!reads_text(no), "{no}");
        }
    }
}
