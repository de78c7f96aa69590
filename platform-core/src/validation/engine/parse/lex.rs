//! Tokens: the text of an expression cut into what the native subset reads (anything else is
//! [`Tok::Other`], and the check runs in rhai).

use std::collections::HashSet;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
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

pub(super) fn tokenize(src: &str) -> Vec<Tok> {
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
                let (tok, next) = string(src, i);
                out.push(tok);
                i = next;
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
                let (tok, next) = number(src, i);
                out.push(tok);
                i = next;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Tok::Ident(src[start..i].to_string()));
            }
            _ => {
                let (tok, next) = operator(src, i);
                out.push(tok);
                i = next;
            }
        }
    }
    out
}

/// The string opening at `i` and where the text goes on: consumed whole so its content is
/// never read as code.
fn string(src: &str, i: usize) -> (Tok, usize) {
    let b = src.as_bytes();
    let quote = b[i];
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
    let tok = if plain && quote == b'"' && j < b.len() {
        Tok::Str(text.to_string())
    } else {
        Tok::Other
    };
    (tok, j + 1)
}

/// The number starting at `start` and where the text goes on; a literal glued to letters,
/// `_` or `.` (`1_000`, `0x1F`, `1e5`) is [`Tok::Other`], skipped whole.
fn number(src: &str, start: usize) -> (Tok, usize) {
    let b = src.as_bytes();
    let mut i = start;
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
    if glued {
        // Skip the rest of the odd literal (1_000, 0x1F, 1e5...).
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
    }
    (tok, i)
}

/// The operator or punctuation at `i` and where the text goes on.
fn operator(src: &str, i: usize) -> (Tok, usize) {
    let b = src.as_bytes();
    let c = b[i];
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
        return if matches!(third, Some(b'=' | b'<' | b'>' | b'&' | b'|')) {
            (Tok::Other, i + 3)
        } else {
            (Tok::Op(op), i + 2)
        };
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
    // Multi-byte characters are skipped whole.
    (tok, i + src[i..].chars().next().map_or(1, char::len_utf8))
}

/// The identifiers of an expression (outside strings and comments).
/// The call with the most arguments in a source (`name(a, b, ...)`, a function definition
/// counts too), and its argument count: strings and comments are skipped, commas count only
/// at the call's own depth (not inside nested parentheses, brackets or braces).
pub(crate) fn widest_call(src: &str) -> Option<(String, usize)> {
    let chars: Vec<char> = src.chars().collect();
    let mut widest: Option<(String, usize)> = None;
    // Open calls: (name, commas so far, whether an argument was seen), and a plain nesting.
    let mut stack: Vec<Option<(String, usize, bool)>> = Vec::new();
    let mut ident = String::new();
    let mut last_ident: Option<String> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            ident.push(c);
            i += 1;
            continue;
        }
        if !ident.is_empty() {
            // A name or number ends: it is (part of) an argument of the enclosing call.
            mark_argument(&mut stack);
            last_ident = Some(std::mem::take(&mut ident));
        }
        match c {
            '"' | '\'' | '`' => {
                // A string: up to its closing quote, escapes skipped.
                i += 1;
                while i < chars.len() && chars[i] != c {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                last_ident = None;
                if let Some(Some(call)) = stack.last_mut() {
                    call.2 = true;
                }
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                stack.push(last_ident.take().map(|name| (name, 0, false)));
            }
            '[' | '{' => {
                mark_argument(&mut stack);
                stack.push(None);
                last_ident = None;
            }
            ')' | ']' | '}' => {
                if let Some(Some((name, commas, seen))) = stack.pop() {
                    let args = if seen { commas + 1 } else { 0 };
                    if widest.as_ref().is_none_or(|(_, n)| args > *n) {
                        widest = Some((name, args));
                    }
                }
                mark_argument(&mut stack);
                last_ident = None;
            }
            ',' => {
                if let Some(Some(call)) = stack.last_mut() {
                    call.1 += 1;
                }
                last_ident = None;
            }
            c if c.is_whitespace() => {}
            _ => {
                mark_argument(&mut stack);
                last_ident = None;
            }
        }
        i += 1;
    }
    widest
}

fn mark_argument(stack: &mut [Option<(String, usize, bool)>]) {
    if let Some(Some(call)) = stack.last_mut() {
        call.2 = true;
    }
}

pub(crate) fn idents(src: &str) -> HashSet<String> {
    tokenize(src)
        .into_iter()
        .filter_map(|t| match t {
            Tok::Ident(s) => Some(s),
            _ => None,
        })
        .collect()
}
