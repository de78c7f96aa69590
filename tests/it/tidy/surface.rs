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
            "use platform_core::api::{Data, Source};\nuse platform_core::{Error, Platform};\n\
             // platform_core::store::Collection in a comment\n\
             fn f() { let s = \"platform_core::ids::X\"; platform_core::api::interface::time::x(); }\n",
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
