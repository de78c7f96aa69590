//! The paths a Rust file names: the trees of its `use` declarations, flattened, and the paths
//! written inline in its code (`crate::store::Page`, `super::plan::Plan`, `store::NoWait`);
//! and the modules it declares in files of their own (`mod store;`).

/// A path named in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    /// The line it is written on (1-based).
    pub line: usize,
    /// Its segments as written (`crate`, `super`, `self` included).
    pub segments: Vec<String>,
    /// What it is.
    pub kind: Kind,
}

/// How a path is named.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Imported by `use` at the top of the module (outside every brace), binding a name other
    /// paths of the module and of its submodules can use.
    ModuleUse { binding: String },
    /// Imported by `use` inside a function or a block.
    LocalUse,
    /// A glob import (`use x::*`): the segments name the module.
    Glob,
    /// Written in the code.
    Inline,
}

impl Named {
    /// The path as it reads in the source.
    pub fn written(&self) -> String {
        let mut text = self.segments.join("::");
        if self.kind == Kind::Glob {
            text.push_str("::*");
        }
        text
    }
}

/// A token: an identifier (keywords included), `::`, or one character of punctuation.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let end = (i..chars.len())
                .find(|&k| !(chars[k].is_alphanumeric() || chars[k] == '_'))
                .unwrap_or(chars.len());
            let mut text: String = chars[i..end].iter().collect();
            // A raw identifier (`r#type`) is the identifier.
            if text == "r" && chars.get(end) == Some(&'#') {
                let stop = (end + 1..chars.len())
                    .find(|&k| !(chars[k].is_alphanumeric() || chars[k] == '_'))
                    .unwrap_or(chars.len());
                text = chars[end + 1..stop].iter().collect();
                i = stop;
            } else {
                i = end;
            }
            out.push(Token { text, line });
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

fn is_word(token: &Token) -> bool {
    token
        .text
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Every path `code` names (code from `source::code_only`, test items removed).
pub fn named_paths(code: &str) -> Vec<Named> {
    let toks = tokens(code);
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let text = toks[i].text.as_str();
        match text {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
        let follows_path = i > 0 && toks[i - 1].text == "::";
        if text == "use" && toks.get(i + 1).is_some_and(|t| t.text != "<") {
            let line = toks[i].line;
            let mut k = i + 1;
            let mut trees = Vec::new();
            use_tree(&toks, &mut k, Vec::new(), &mut trees);
            for (segments, binding, glob) in trees {
                let kind = match (glob, depth) {
                    (true, _) => Kind::Glob,
                    (false, 0) => Kind::ModuleUse { binding },
                    (false, _) => Kind::LocalUse,
                };
                out.push(Named {
                    line,
                    segments,
                    kind,
                });
            }
            i = k;
            continue;
        }
        if is_word(&toks[i]) && !follows_path && toks.get(i + 1).is_some_and(|t| t.text == "::") {
            let line = toks[i].line;
            let mut segments = vec![text.to_string()];
            let mut k = i + 1;
            while toks.get(k).is_some_and(|t| t.text == "::")
                && toks.get(k + 1).is_some_and(is_word)
            {
                segments.push(toks[k + 1].text.clone());
                k += 2;
            }
            out.push(Named {
                line,
                segments,
                kind: Kind::Inline,
            });
            i = k;
            continue;
        }
        i += 1;
    }
    out
}

/// The names of the modules `code` declares in files of their own (`mod name;` outside every
/// brace), each once (a module declared twice under exclusive `cfg`s is one module).
pub fn declared_modules(code: &str) -> Vec<String> {
    let toks = tokens(code);
    let mut out: Vec<String> = Vec::new();
    let mut depth = 0usize;
    for (i, tok) in toks.iter().enumerate() {
        match tok.text.as_str() {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            "mod" if depth == 0 => {
                let (Some(name), Some(end)) = (toks.get(i + 1), toks.get(i + 2)) else {
                    continue;
                };
                if is_word(name) && end.text == ";" && !out.contains(&name.text) {
                    out.push(name.text.clone());
                }
            }
            _ => {}
        }
    }
    out
}

/// One use tree from `toks[*i]` on, flattened into (segments, the name it binds, glob), with
/// `*i` left past the tree (and past the `;` that ends a declaration).
fn use_tree(
    toks: &[Token],
    i: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, String, bool)>,
) {
    let mut path = prefix;
    while let Some(tok) = toks.get(*i) {
        match tok.text.as_str() {
            "::" => *i += 1,
            "{" => {
                *i += 1;
                while let Some(t) = toks.get(*i) {
                    match t.text.as_str() {
                        "}" => {
                            *i += 1;
                            break;
                        }
                        "," => *i += 1,
                        _ => use_tree(toks, i, path.clone(), out),
                    }
                }
                break;
            }
            "*" => {
                *i += 1;
                out.push((path.clone(), String::new(), true));
                break;
            }
            _ if is_word(tok) => {
                path.push(tok.text.clone());
                *i += 1;
                if toks.get(*i).is_some_and(|t| t.text == "::") {
                    continue;
                }
                let mut binding = path.last().cloned().unwrap_or_default();
                if path.len() > 1 && binding == "self" {
                    path.pop();
                    binding = path.last().cloned().unwrap_or_default();
                }
                if toks.get(*i).is_some_and(|t| t.text == "as") {
                    binding = toks.get(*i + 1).map(|t| t.text.clone()).unwrap_or_default();
                    *i += 2;
                }
                out.push((path.clone(), binding, false));
                break;
            }
            _ => break,
        }
    }
    if toks.get(*i).is_some_and(|t| t.text == ";") {
        *i += 1;
    }
}
