//! The numeric literals of a check expression that are thresholds, and the expression with
//! some of them replaced.

use crate::validation::window::numbers::float_literal;

/// A numeric literal of an expression that a threshold search may move.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    /// Byte span in the source (a unary minus included).
    pub start: usize,
    /// End of the span (exclusive).
    pub end: usize,
    /// Its value.
    pub value: f64,
    /// Written without a decimal point or exponent.
    pub int: bool,
}

/// The literals of an expression that are thresholds: in a comparison, or an argument of
/// `between` or `clamp`; not the arguments of other calls (`pct_change(1)`, `robust_z(20)`).
pub fn thresholds(src: &str) -> Vec<Literal> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut calls: Vec<Option<String>> = Vec::new();
    let mut last_ident: Option<String> = None;
    // The last significant character before the current token.
    let mut prev: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'"' || c == b'\'' || c == b'`' {
            i = string_end(b, i);
            prev = Some(c);
            last_ident = None;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            last_ident = Some(src[s..i].to_string());
            prev = Some(b'a');
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            let (end, int) = number_end(b, s);
            i = end;
            let tunable = match calls.last() {
                None | Some(None) => true,
                Some(Some(name)) => matches!(name.as_str(), "between" | "clamp"),
            };
            if tunable {
                out.extend(literal_at(src, s, i, int));
            }
            prev = Some(b'0');
            last_ident = None;
            continue;
        }
        match c {
            b'(' => calls.push(if prev == Some(b'a') {
                last_ident.take()
            } else {
                None
            }),
            b')' => {
                calls.pop();
            }
            _ => {}
        }
        if c != b'(' {
            last_ident = None;
        }
        prev = Some(c);
        i += 1;
    }
    out
}

/// Past the end of the quoted text opening at `i`.
fn string_end(b: &[u8], i: usize) -> usize {
    let c = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != c {
        j += if b[j] == b'\\' { 2 } else { 1 };
    }
    j + 1
}

/// The end of the number starting at `s`, and whether it is written as a whole number (no
/// decimal point or exponent).
fn number_end(b: &[u8], s: usize) -> (usize, bool) {
    let mut i = s;
    let mut int = true;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
        int = false;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            int = false;
            i = j;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    (i, int)
}

/// The literal written at `s..end`, with a unary minus directly before it (after an operator,
/// a comma or a bracket); None when it does not read as a number.
fn literal_at(src: &str, s: usize, end: usize, int: bool) -> Option<Literal> {
    let v = src[s..end].parse::<f64>().ok()?;
    // A unary minus directly before (after an operator, a comma or a bracket).
    let before = src[..s].trim_end();
    let unary = before.ends_with('-') && {
        let rest = before[..before.len() - 1].trim_end();
        rest.is_empty() || rest.ends_with(|ch: char| "(,<>=!&|".contains(ch))
    };
    let (start, value) = if unary {
        (before.len() - 1, -v)
    } else {
        (s, v)
    };
    Some(Literal {
        start,
        end,
        value,
        int,
    })
}

/// `src` with the literals at `spans` replaced by `x`.
pub(super) fn replace(src: &str, spans: &[&Literal], x: f64, int: bool) -> String {
    replace_many(src, &[(spans, x, int)])
}

/// `src` with several groups of literals replaced, each by its value.
pub(super) fn replace_many(src: &str, edits: &[(&[&Literal], f64, bool)]) -> String {
    let mut all: Vec<(&Literal, String)> = Vec::new();
    for (spans, x, int) in edits {
        let text = if *int {
            format!("{}", *x as i64)
        } else {
            float_literal(*x)
        };
        let text = if *x < 0.0 { format!("({text})") } else { text };
        all.extend(spans.iter().map(|l| (*l, text.clone())));
    }
    all.sort_by_key(|(l, _)| l.start);
    let mut out = String::with_capacity(src.len() + 8);
    let mut at = 0;
    for (l, text) in all {
        out.push_str(&src[at..l.start]);
        out.push_str(&text);
        at = l.end;
    }
    out.push_str(&src[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    fn texts(src: &str) -> Vec<String> {
        thresholds(src)
            .iter()
            .map(|l| src[l.start..l.end].to_string())
            .collect()
    }

    #[test]
    fn thresholds_are_the_literals_in_comparisons() {
        assert_eq!(texts("between(value, 0, 50)"), vec!["0", "50"]);
        assert_eq!(texts("abs(pct_change(1)) < 0.2"), vec!["0.2"]);
        assert_eq!(
            texts("!(abs(pct_change(1)) > 0.15 && abs(pct_change(2)) > 0.15)"),
            vec!["0.15", "0.15"]
        );
        assert_eq!(
            texts("abs(robust_z(20)) < 3.5 || value > -5"),
            vec!["3.5", "-5"]
        );
        assert_eq!(
            texts("has_tenor(\"M01\") && tenor_count() >= 12"),
            vec!["12"]
        );
        let l = &thresholds("value > -5")[0];
        assert_eq!((l.value, l.int), (-5.0, true));
        assert_eq!(thresholds("value >= 1e3")[0].value, 1000.0);
    }

    #[test]
    fn replacing_keeps_the_rest() {
        let src = "!(abs(pct_change(1)) > 0.15 && abs(pct_change(2)) > 0.15)";
        let lits = thresholds(src);
        let spans: Vec<&Literal> = lits.iter().collect();
        assert_eq!(
            replace(src, &spans, 0.3, false),
            "!(abs(pct_change(1)) > 0.3 && abs(pct_change(2)) > 0.3)"
        );
        let src = "value > -5";
        let lits = thresholds(src);
        assert_eq!(replace(src, &[&lits[0]], -7.0, true), "value > (-7)");
        assert_eq!(replace(src, &[&lits[0]], 2.0, true), "value > 2");
        let src = "between(value, 35, 55)";
        let lits = thresholds(src);
        assert_eq!(
            replace_many(
                src,
                &[(&[&lits[1]], 60.0, true), (&[&lits[0]], 31.5, false)]
            ),
            "between(value, 31.5, 60)"
        );
    }
}
