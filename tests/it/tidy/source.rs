//! Reading Rust source without a parser: comments, strings and character literals blanked
//! out (so that a `crate::` in a doc comment or a string is not an import), items compiled
//! only for tests removed, and the spans of functions found by their braces.
//!
//! Every step keeps the newlines of the text, so a line number in the result is a line
//! number of the file.

/// The text with every comment, string literal and character literal replaced by spaces.
/// Newlines stay, and lifetimes (`'a`) are kept as code.
pub fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let skip = literal_or_comment_len(&chars, i);
        if skip == 0 {
            out.push(chars[i]);
            i += 1;
        } else {
            blank(&chars[i..i + skip], &mut out);
            i += skip;
        }
    }
    out
}

/// Spaces for every character of `chars` but its newlines.
fn blank(chars: &[char], out: &mut String) {
    for &c in chars {
        out.push(if c == '\n' { '\n' } else { ' ' });
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The length of the comment or literal that starts at `i`, or 0 when code starts there.
fn literal_or_comment_len(chars: &[char], i: usize) -> usize {
    let at = |k: usize| chars.get(k).copied();
    let after_ident = i > 0 && is_ident(chars[i - 1]);
    match chars[i] {
        '/' if at(i + 1) == Some('/') => {
            let end = (i..chars.len()).find(|&k| chars[k] == '\n');
            end.unwrap_or(chars.len()) - i
        }
        '/' if at(i + 1) == Some('*') => block_comment_len(chars, i),
        '"' => quoted_len(chars, i, '"'),
        '\'' => char_literal_len(chars, i),
        'b' if !after_ident && at(i + 1) == Some('"') => 1 + quoted_len(chars, i + 1, '"'),
        'b' if !after_ident && at(i + 1) == Some('\'') => 1 + char_literal_len(chars, i + 1),
        'b' if !after_ident && at(i + 1) == Some('r') => {
            raw_string_len(chars, i + 1).map(|n| n + 1).unwrap_or(0)
        }
        'r' if !after_ident => raw_string_len(chars, i).unwrap_or(0),
        _ => 0,
    }
}

/// A block comment, nested ones included.
fn block_comment_len(chars: &[char], start: usize) -> usize {
    let mut depth = 0;
    let mut k = start;
    while k + 1 < chars.len() {
        if chars[k] == '/' && chars[k + 1] == '*' {
            depth += 1;
            k += 2;
        } else if chars[k] == '*' && chars[k + 1] == '/' {
            depth -= 1;
            k += 2;
            if depth == 0 {
                return k - start;
            }
        } else {
            k += 1;
        }
    }
    chars.len() - start
}

/// A literal from the quote at `start` to its closing quote, escapes skipped.
fn quoted_len(chars: &[char], start: usize, quote: char) -> usize {
    let mut k = start + 1;
    while k < chars.len() {
        if chars[k] == '\\' {
            k += 2;
        } else if chars[k] == quote {
            return k + 1 - start;
        } else {
            k += 1;
        }
    }
    chars.len() - start
}

/// A character literal (`'x'`, `'\n'`, `'\u{1F600}'`), or 0 for a lifetime or a label.
fn char_literal_len(chars: &[char], start: usize) -> usize {
    match (chars.get(start + 1), chars.get(start + 2)) {
        (Some('\\'), _) => quoted_len(chars, start, '\''),
        (Some(_), Some('\'')) => 3,
        _ => 0,
    }
}

/// A raw string (`r"..."`, `r#"..."#`) starting at the `r` at `start`; `None` when the `r`
/// starts an identifier (`r#type` included).
fn raw_string_len(chars: &[char], start: usize) -> Option<usize> {
    let mut k = start + 1;
    let mut hashes = 0;
    while chars.get(k) == Some(&'#') {
        hashes += 1;
        k += 1;
    }
    if chars.get(k) != Some(&'"') {
        return None;
    }
    k += 1;
    while k < chars.len() {
        if chars[k] == '"' && (1..=hashes).all(|h| chars.get(k + h) == Some(&'#')) {
            return Some(k + 1 + hashes - start);
        }
        k += 1;
    }
    Some(chars.len() - start)
}

/// Code (from [`code_only`]) with every item under a `#[cfg(...)]` that holds only for tests
/// (`cfg(test)`, `cfg(any(test, ...))`) blanked out, the attribute with it.
pub fn without_test_items(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out: Vec<char> = chars.clone();
    let mut i = 0;
    while let Some(start) = find(&chars, i, "#[cfg(") {
        let Some(attr_end) = closing(&chars, start + 1) else {
            break;
        };
        let predicate: String = chars[start + 6..attr_end].iter().collect();
        if !is_test_predicate(&predicate) {
            i = attr_end + 1;
            continue;
        }
        let end = item_end(&chars, attr_end + 1);
        for c in &mut out[start..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end;
    }
    out.into_iter().collect()
}

/// Whether a `cfg` predicate holds only when compiling tests.
pub fn is_test_predicate(predicate: &str) -> bool {
    let words: Vec<&str> = predicate
        .split(|c: char| !is_ident(c))
        .filter(|w| !w.is_empty())
        .collect();
    words.contains(&"test") && !words.contains(&"not")
}

/// The position of `needle` in `chars` at or after `from`.
pub fn find(chars: &[char], from: usize, needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    (from..chars.len().saturating_sub(needle.len() - 1))
        .find(|&k| chars[k..k + needle.len()] == needle[..])
}

/// The position of the bracket closing the one at `open` (`(`, `[` or `{`).
pub fn closing(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The end (exclusive) of the item starting at `from`: past its `;` or its closing brace,
/// whichever comes first outside brackets. Attributes before the item are part of it.
fn item_end(chars: &[char], from: usize) -> usize {
    let mut k = from;
    while k < chars.len() {
        match chars[k] {
            ';' => return k + 1,
            '(' | '[' => k = closing(chars, k).map_or(chars.len(), |e| e + 1),
            '{' => return closing(chars, k).map_or(chars.len(), |e| e + 1),
            _ => k += 1,
        }
    }
    chars.len()
}

/// A function found in code: its name and the lines of its `fn` keyword and of the brace
/// that closes its body (1-based).
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: String,
    pub first_line: usize,
    pub last_line: usize,
}

impl Function {
    /// Lines from the `fn` line to the closing brace, both counted.
    pub fn lines(&self) -> usize {
        self.last_line + 1 - self.first_line
    }
}

/// Every function with a body in `code` (from [`code_only`]), nested ones included.
pub fn functions(code: &str) -> Vec<Function> {
    let chars: Vec<char> = code.chars().collect();
    let line_of = line_index(&chars);
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = find(&chars, from, "fn") {
        from = at + 2;
        let before_ok = at == 0 || !is_ident(chars[at - 1]);
        let after_ok = chars.get(at + 2).is_some_and(|c| c.is_whitespace());
        if !before_ok || !after_ok {
            continue;
        }
        let name_start = (at + 2..chars.len()).find(|&k| !chars[k].is_whitespace());
        let Some(name_start) = name_start.filter(|&k| is_ident(chars[k])) else {
            continue;
        };
        let name_end = (name_start..chars.len())
            .find(|&k| !is_ident(chars[k]))
            .unwrap_or(chars.len());
        let Some(body) = body_start(&chars, name_end) else {
            continue;
        };
        let Some(end) = closing(&chars, body) else {
            continue;
        };
        found.push(Function {
            name: chars[name_start..name_end].iter().collect(),
            first_line: line_of[at],
            last_line: line_of[end],
        });
    }
    found
}

/// The `{` that opens a function's body, or `None` for a declaration that ends in `;`.
fn body_start(chars: &[char], from: usize) -> Option<usize> {
    let mut k = from;
    while k < chars.len() {
        match chars[k] {
            ';' => return None,
            '{' => return Some(k),
            '(' | '[' => k = closing(chars, k)? + 1,
            _ => k += 1,
        }
    }
    None
}

/// The 1-based line of every character.
pub fn line_index(chars: &[char]) -> Vec<usize> {
    let mut line = 1;
    chars
        .iter()
        .map(|&c| {
            let this = line;
            if c == '\n' {
                line += 1;
            }
            this
        })
        .collect()
}
