//! The core as the server and the CLI see it: they name only its API (`platform_core::api`),
//! its errors, and the platform and snapshot they call the API through.

use super::paths::named_paths;
use super::sizes::SourceFile;
use super::source::code_only;

/// What the front ends may name at the top of `platform_core`.
pub const FRONT_END_MAY_NAME: &[&str] = &[
    "api",
    "Error",
    "ErrorCode",
    "Result",
    "Platform",
    "Snapshot",
];

/// Each path of `files` into `platform_core` that names anything at its top other than
/// `allowed`, as `file:line: path`.
pub fn reaching_past(files: &[SourceFile], allowed: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    for file in files {
        for named in named_paths(&code_only(&file.text)) {
            let Some(first) = named.segments.first() else {
                continue;
            };
            if first != "platform_core" {
                continue;
            }
            let top = named.segments.get(1).map(String::as_str).unwrap_or("");
            if !allowed.contains(&top) {
                problems.push(format!(
                    "{}:{}: {} (name it through platform_core::api)",
                    file.path,
                    named.line,
                    named.written()
                ));
            }
        }
    }
    problems
}

#[test]
fn a_path_past_the_api_is_named_and_the_api_is_not() {
    let file = |path: &str, text: &str| SourceFile {
        path: path.into(),
        text: text.into(),
    };
    let files = [
        file(
            "a.rs",
            "use platform_core::api::{data::Data, Source};\nuse platform_core::{Error, Platform};\n\
             // platform_core::store::Collection in a comment\n\
             fn f() { let s = \"platform_core::ids::X\"; platform_core::api::time::x(); }\n",
        ),
        file(
            "b.rs",
            "use platform_core::{api, store::Collection};\n\
             fn g() -> platform_core::data::DataKind { platform_core::Error::x() }\n",
        ),
    ];
    let problems = reaching_past(&files, FRONT_END_MAY_NAME);
    assert_eq!(
        problems,
        [
            "b.rs:1: platform_core::store::Collection (name it through platform_core::api)",
            "b.rs:2: platform_core::data::DataKind (name it through platform_core::api)",
        ]
    );
}

/// The modules `lib.rs` declares public whatever the features: only `api` may be one.
pub fn public_modules(lib_rs: &str) -> Vec<String> {
    let lines: Vec<&str> = lib_rs.lines().map(str::trim).collect();
    let mut public = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|rest| rest.strip_suffix(';'))
        else {
            continue;
        };
        // Public only with the internals feature: `#[cfg(feature = "internals")]` above it.
        let gated = i >= 1 && lines[i - 1] == "#[cfg(feature = \"internals\")]";
        if !gated {
            public.push(name.to_string());
        }
    }
    public
}

#[test]
fn only_api_is_a_public_module_without_the_internals_feature() {
    let lib = "pub mod api;\n#[cfg(feature = \"internals\")]\npub mod store;\n\
               #[cfg(not(feature = \"internals\"))]\nmod store;\n    pub mod $name;\npub mod data;\n";
    assert_eq!(public_modules(lib), ["api", "$name", "data"]);
}

/// The names a module of re-exports makes public: each leaf of its `pub use` items (braces
/// expanded, `self` and a renaming counted once), a re-exported module counted by the public
/// items `module_items` finds in it.
pub fn reexported_names(module: &str, module_items: impl Fn(&str) -> usize) -> Vec<String> {
    let code = code_only(module);
    let mut names = Vec::new();
    for item in code.split(';') {
        // (A `pub use` inside an inline `pub mod x { ... }` counts as well.)
        let Some(at) = item.find("pub use ") else {
            continue;
        };
        let path = &item[at + "pub use ".len()..];
        let path = path.trim();
        match path.split_once('{') {
            Some((_, inner)) => names.extend(
                inner
                    .trim_end_matches('}')
                    .split(',')
                    .map(str::trim)
                    .filter(|leaf| !leaf.is_empty())
                    .map(|leaf| leaf.rsplit(" as ").next().unwrap_or(leaf).to_string()),
            ),
            None => {
                let leaf = path.rsplit("::").next().unwrap_or(path).to_string();
                let inside = module_items(path);
                if inside == 0 {
                    names.push(leaf);
                } else {
                    names.extend((0..inside).map(|i| format!("{leaf}#{i}")));
                }
            }
        }
    }
    names
}

/// How many public items (functions, constants, statics, types, traits) a source file has at
/// its top level.
pub fn public_items(source: &str) -> usize {
    code_only(source)
        .lines()
        .filter(|l| {
            [
                "pub fn ",
                "pub const ",
                "pub static ",
                "pub struct ",
                "pub enum ",
                "pub type ",
                "pub trait ",
            ]
            .iter()
            .any(|p| l.starts_with(p))
        })
        .count()
}

#[test]
fn the_names_of_a_module_of_reexports_are_counted_one_by_one() {
    let module = "//! pub use not::Counted;\npub use crate::a::{b, Class as D,\n    e};\n\
                  pub use crate::services;\npub mod m {\n    pub use crate::f::G;\n}\n";
    let names = reexported_names(module, |path| usize::from(path == "crate::services") * 3);
    assert_eq!(
        names,
        ["b", "D", "e", "services#0", "services#1", "services#2", "G"]
    );
    assert_eq!(public_items("pub fn a() {}\n    pub fn inner() {}\npub struct S;\nfn p() {}\npub const X: u8 = 1;\n"), 3);
}
