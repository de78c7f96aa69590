//! Room sizes: which files are test code, and the files and functions of the rest that are
//! over their limits.

use super::source::{closing, code_only, find, functions, is_test_predicate, without_test_items};

/// A file over this many lines is to be split by what its parts are about.
pub const MAX_FILE_LINES: usize = 800;
/// A function over this many lines (from its `fn` line to its closing brace) is to be split
/// into named steps.
pub const MAX_FUNCTION_LINES: usize = 100;

/// A source file: its path from the workspace root (with `/`) and its text.
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

/// A function allowed over the limit, by file and name, with the reason.
pub struct Exception {
    pub path: &'static str,
    pub function: &'static str,
    pub reason: &'static str,
}

/// The paths (prefixes: a file, or a folder ending in `/`) of the files that a module
/// declaration compiled only for tests brings in (`#[cfg(test)] mod tests;`).
pub fn test_only_paths(files: &[SourceFile]) -> Vec<String> {
    let mut out = Vec::new();
    for file in files {
        let dir = module_dir(&file.path);
        for name in test_module_declarations(&code_only(&file.text)) {
            out.push(format!("{dir}{name}.rs"));
            out.push(format!("{dir}{name}/"));
        }
    }
    out
}

/// The folder a file's submodules live in: its own folder for `lib.rs`, `main.rs` and
/// `mod.rs`, else a folder named after it.
fn module_dir(path: &str) -> String {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let dir = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    match name {
        "lib.rs" | "main.rs" | "mod.rs" => dir,
        _ => format!("{dir}{}/", name.trim_end_matches(".rs")),
    }
}

/// The names of the `mod name;` declarations of `code` compiled only for tests.
fn test_module_declarations(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(start) = find(&chars, from, "#[cfg(") {
        let Some(end) = closing(&chars, start + 1) else {
            break;
        };
        from = end + 1;
        let predicate: String = chars[start + 6..end].iter().collect();
        if !is_test_predicate(&predicate) {
            continue;
        }
        // The item after the attribute (and any further attributes), up to its `;` or `{`.
        let rest: String = chars[end + 1..].iter().collect();
        let mut item = rest.trim_start();
        while item.starts_with("#[") {
            let at = item.find(']').map_or(item.len(), |k| k + 1);
            item = item[at..].trim_start();
        }
        let head: String = item.chars().take_while(|&c| c != ';' && c != '{').collect();
        let words: Vec<&str> = head.split_whitespace().collect();
        let is_declaration = item[head.len()..].starts_with(';');
        if let (true, Some(k)) = (is_declaration, words.iter().position(|w| *w == "mod")) {
            if let Some(name) = words.get(k + 1) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Whether `path` is brought in by a declaration compiled only for tests (`test_paths` from
/// [`test_only_paths`]).
pub fn is_test_file(path: &str, test_paths: &[String]) -> bool {
    test_paths
        .iter()
        .any(|p| path == p || p.ends_with('/') && path.starts_with(p.as_str()))
}

/// The files of `files` over [`MAX_FILE_LINES`] and the functions over
/// [`MAX_FUNCTION_LINES`], test code left out, `exceptions` allowed.
pub fn oversized(files: &[SourceFile], exceptions: &[Exception]) -> Vec<String> {
    let test_paths = test_only_paths(files);
    let mut out = Vec::new();
    for file in files {
        if is_test_file(&file.path, &test_paths) {
            continue;
        }
        let lines = file.text.lines().count();
        if lines > MAX_FILE_LINES {
            out.push(format!(
                "{} has {lines} lines (at most {MAX_FILE_LINES})",
                file.path
            ));
        }
        let code = without_test_items(&code_only(&file.text));
        for function in functions(&code) {
            let excepted = exceptions
                .iter()
                .any(|e| e.path == file.path && e.function == function.name);
            if function.lines() > MAX_FUNCTION_LINES && !excepted {
                out.push(format!(
                    "{}:{} fn {} has {} lines (at most {MAX_FUNCTION_LINES})",
                    file.path,
                    function.first_line,
                    function.name,
                    function.lines()
                ));
            }
        }
    }
    out
}
