//! The tidy rules on small made-up crates: each rule fails when it should, and names the
//! files and paths that break it.

use super::crates::{crate_files, members};
use super::graph::{circles, edges, layer_breaches, module_of, ModuleFile};
use super::layers_from;
use super::paths::{named_paths, Kind};
use super::sizes::{oversized, test_only_paths, Exception, SourceFile};
use super::source::{code_only, functions, without_test_items};

/// A made-up crate from (path under `src`, text) pairs.
fn krate(files: &[(&str, &str)]) -> Vec<ModuleFile> {
    files
        .iter()
        .map(|(path, text)| ModuleFile::new(path, &format!("src/{path}"), text))
        .collect()
}

fn layers(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|m| m.to_string()).collect())
        .collect()
}

#[test]
fn comments_strings_and_characters_are_not_code() {
    let code = code_only(
        "let a = \"crate::x\"; // crate::y\n/* crate::z /* nested */ */ let c = '}';\n\
         let r = r#\"crate::w\"#; fn f<'a>(x: &'a str) {}\n",
    );
    assert!(!code.contains("crate::"), "{code}");
    assert!(code.contains("fn f<'a>(x: &'a str) {}"), "{code}");
    assert_eq!(code.lines().count(), 3);
}

#[test]
fn test_items_are_left_out_and_other_cfgs_kept() {
    let code = without_test_items(&code_only(
        "use crate::a::A;\n#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n\
         #[cfg(any(test, feature = \"x\"))]\npub mod contract;\n\
         #[cfg(not(test))]\nuse crate::c::C;\n#[cfg(feature = \"sqlite\")]\nmod sqlite;\n",
    ));
    assert!(
        code.contains("crate::a::A") && code.contains("crate::c::C"),
        "{code}"
    );
    assert!(code.contains("mod sqlite;"), "{code}");
    assert!(
        !code.contains("crate::b::B") && !code.contains("contract"),
        "{code}"
    );
    assert_eq!(code.lines().count(), 11);
}

#[test]
fn use_trees_are_flattened_with_their_bindings() {
    let named = named_paths(&code_only(
        "use crate::a::{self, b::{C, D as E}, *};\nfn f() { use super::g; crate::h::i(); }\n",
    ));
    let shown: Vec<(String, Kind)> = named
        .iter()
        .map(|n| (n.written(), n.kind.clone()))
        .collect();
    let binding = |b: &str| Kind::ModuleUse { binding: b.into() };
    assert_eq!(
        shown,
        vec![
            ("crate::a".into(), binding("a")),
            ("crate::a::b::C".into(), binding("C")),
            ("crate::a::b::D".into(), binding("E")),
            ("crate::a::*".into(), Kind::Glob),
            ("super::g".into(), Kind::LocalUse),
            ("crate::h::i".into(), Kind::Inline),
        ]
    );
    assert_eq!(named[5].line, 2);
}

#[test]
fn a_circle_between_top_level_modules_names_its_files_and_imports() {
    let files = krate(&[
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        ("b.rs", "pub struct B;\nfn f() -> crate::c::C { todo() }\n"),
        (
            "c.rs",
            "pub struct C;\n// use crate::a::A;\nfn g() { crate::a::A; }\n",
        ),
    ]);
    let found = circles(&edges(&files));
    assert_eq!(found.len(), 1, "{found:?}");
    let text = &found[0];
    assert!(text.contains("top-level modules: a, b, c"), "{text}");
    assert!(text.contains("a -> b -> c -> a"), "{text}");
    assert!(
        text.contains("a -> b: src/a.rs:1 imports crate::b::B"),
        "{text}"
    );
    assert!(
        text.contains("b -> c: src/b.rs:2 imports crate::c::C"),
        "{text}"
    );
    assert!(
        text.contains("c -> a: src/c.rs:3 imports crate::a::A"),
        "{text}"
    );
    // Without the last import the modules stand in a line.
    let files = krate(&[
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        ("b.rs", "pub struct B;\nfn f() -> crate::c::C { todo() }\n"),
        ("c.rs", "pub struct C;\n"),
    ]);
    assert!(circles(&edges(&files)).is_empty());
}

#[test]
fn a_circle_between_submodules_is_found_through_super_and_re_exports() {
    let files = krate(&[
        ("lib.rs", "pub mod m;\n"),
        ("m/mod.rs", "mod x;\nmod y;\nmod z;\npub use y::Y;\n"),
        ("m/x.rs", "use super::Y;\npub struct X;\n"),
        ("m/y.rs", "pub struct Y;\n"),
        ("m/z/mod.rs", "mod deep;\n"),
        ("m/z/deep.rs", "use super::super::x::X;\n"),
    ]);
    let all = edges(&files);
    let in_m: Vec<(String, String)> = all
        .iter()
        .filter(|e| e.level == ["m"])
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect();
    // `super::Y` is the item of `y` that `m` re-exports.
    assert_eq!(
        in_m,
        vec![("x".into(), "y".into()), ("z".into(), "x".into())]
    );
    assert!(circles(&all).is_empty());
    // `y` imports back from `z`: y -> z -> x -> y.
    let mut files = files;
    files[3] = ModuleFile::new("m/y.rs", "src/m/y.rs", "pub struct Y;\nuse crate::m::z;\n");
    let found = circles(&edges(&files));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("submodules of m: x, y, z"),
        "{}",
        found[0]
    );
    assert!(
        found[0].contains("z -> x: src/m/z/deep.rs:1 imports super::super::x::X"),
        "{}",
        found[0]
    );
}

#[test]
fn a_circle_in_a_binary_crate_rooted_at_main_rs_is_named() {
    // `main.rs` is the root of a binary as `lib.rs` is of a library: the node `crate`.
    assert_eq!(module_of("main.rs"), Vec::<String>::new());
    assert_eq!(module_of("lib.rs"), Vec::<String>::new());
    assert_eq!(module_of("cmd/main.rs"), ["cmd", "main"]);
    let files = krate(&[
        (
            "main.rs",
            "mod cmd;
mod out;
use cmd::run;
fn main() { run(); }
fn read_json() {}
",
        ),
        (
            "cmd.rs",
            "use crate::out::print;
pub fn run() { print(); }
",
        ),
        (
            "out.rs",
            "pub fn print() { crate::read_json(); }
",
        ),
    ]);
    let found = circles(&edges(&files));
    assert_eq!(found.len(), 1, "{found:?}");
    let text = &found[0];
    assert!(
        text.contains("top-level modules: cmd, crate, out"),
        "{text}"
    );
    assert!(text.contains("cmd -> out -> crate -> cmd"), "{text}");
    assert!(
        text.contains("crate -> cmd: src/main.rs:3 imports cmd::run"),
        "{text}"
    );
    assert!(
        text.contains("out -> crate: src/out.rs:1 imports crate::read_json"),
        "{text}"
    );
    // With what both use in a module of its own, the imports run one way.
    let files = krate(&[
        (
            "main.rs",
            "mod cmd;
mod input;
mod out;
use cmd::run;
fn main() { run(); }
",
        ),
        (
            "cmd.rs",
            "use crate::out::print;
pub fn run() { print(); }
",
        ),
        (
            "out.rs",
            "pub fn print() { crate::input::read_json(); }
",
        ),
        (
            "input.rs",
            "pub fn read_json() {}
",
        ),
    ]);
    assert!(circles(&edges(&files)).is_empty());
}

#[test]
fn a_crate_is_read_from_its_root_through_its_module_declarations() {
    let tree = [
        (
            "cli/src/main.rs",
            "mod cmd;
mod out;
#[cfg(test)]
mod tests;
mod inline { fn f() {} }
",
        ),
        (
            "cli/src/cmd.rs",
            "pub mod list;
use crate::out::print;
",
        ),
        (
            "cli/src/cmd/list.rs",
            "use super::super::out::print;
",
        ),
        (
            "cli/src/out/mod.rs",
            "mod table;
",
        ),
        (
            "cli/src/out/table.rs",
            "use crate::cmd::list;
",
        ),
        (
            "cli/src/tests.rs",
            "use crate::cmd::list;
",
        ),
        (
            "cli/src/stray.rs",
            "use crate::out::print;
",
        ),
        (
            "cli/src/bin/tool.rs",
            "mod helper;
use helper::H;
",
        ),
        (
            "cli/src/bin/helper.rs",
            "pub struct H;
",
        ),
    ];
    let read = |path: &str| {
        tree.iter()
            .find(|(p, _)| *p == path)
            .map(|(_, text)| text.to_string())
    };
    let files = crate_files("cli/src/main.rs", &read).unwrap();
    let found: Vec<(&str, String)> = files
        .iter()
        .map(|f| (f.path.as_str(), f.module.join("::")))
        .collect();
    // The test module and the file no declaration names are not the crate's.
    assert_eq!(
        found,
        vec![
            ("cli/src/cmd.rs", "cmd".to_string()),
            ("cli/src/cmd/list.rs", "cmd::list".to_string()),
            ("cli/src/main.rs", String::new()),
            ("cli/src/out/mod.rs", "out".to_string()),
            ("cli/src/out/table.rs", "out::table".to_string()),
        ]
    );
    let found = circles(&edges(&files));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("out -> cmd: cli/src/out/table.rs:1 imports crate::cmd::list"),
        "{}",
        found[0]
    );
    // A binary of `src/bin` is a crate of its own, its modules beside it.
    let files = crate_files("cli/src/bin/tool.rs", &read).unwrap();
    let found: Vec<(&str, Vec<String>)> = files
        .iter()
        .map(|f| (f.path.as_str(), f.module.clone()))
        .collect();
    assert_eq!(
        found,
        vec![
            ("cli/src/bin/helper.rs", vec!["helper".to_string()]),
            ("cli/src/bin/tool.rs", vec![]),
        ]
    );
    // A declaration without its file is named.
    let missing = crate_files("cli/src/out/table.rs", &|path: &str| {
        (path == "cli/src/out/table.rs").then(|| {
            "mod gone;
"
            .to_string()
        })
    });
    assert_eq!(
        missing.err().as_deref(),
        Some("cli/src/out/table.rs declares mod gone, without its file")
    );
}

#[test]
fn the_workspace_members_are_read_from_the_root_manifest() {
    let manifest = "[package]\nname = \"suite\"\nmembers = [\"not\"]\n\n[workspace]\n\
                    # `fuzz` is a member, \"quoted\" in a comment\n\
                    members = [\n    \"core\",\n    \"server\", \"fuzz\",\n]\n\
                    default-members = [\".\", \"core\"]\n\n[dependencies]\n";
    assert_eq!(members(manifest), ["core", "server", "fuzz"]);
    assert!(members("[package]\nname = \"alone\"\n").is_empty());
}

#[test]
fn a_module_and_its_children_or_parent_make_no_circle() {
    let files = krate(&[
        ("lib.rs", "pub mod m;\npub struct Platform;\n"),
        ("m/mod.rs", "mod x;\nuse x::X;\npub struct P;\n"),
        (
            "m/x.rs",
            "use super::P;\nuse crate::Platform;\npub struct X;\n",
        ),
    ]);
    let all = edges(&files);
    let top: Vec<(String, String)> = all.iter().map(|e| (e.from.clone(), e.to.clone())).collect();
    // The root's items are the node `crate`; a parent and its child make no edge.
    assert_eq!(top, vec![("m".into(), "crate".into())]);
    assert!(circles(&all).is_empty());
}

#[test]
fn test_code_imports_nothing() {
    let files = krate(&[
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        (
            "a.rs",
            "pub struct A;\n#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n",
        ),
        ("b.rs", "use crate::a::A;\npub struct B;\n"),
    ]);
    assert!(circles(&edges(&files)).is_empty());
}

#[test]
fn an_import_from_a_lower_layer_to_a_higher_one_is_named() {
    let files = krate(&[
        ("lib.rs", "pub mod low;\npub mod high;\nuse high::H;\n"),
        (
            "low.rs",
            "pub struct L;\nfn f() { let _ = crate::high::H; }\n",
        ),
        ("high.rs", "use crate::low::L;\npub struct H;\n"),
    ]);
    let all = edges(&files);
    let breaches = layer_breaches(&files, &all, &layers(&[&["low"], &["crate"], &["high"]]));
    assert_eq!(
        breaches,
        vec![
            "crate (layer 2) imports high (layer 3), a higher layer: src/lib.rs:3 imports high::H",
            "low (layer 1) imports high (layer 3), a higher layer: src/low.rs:2 imports crate::high::H",
        ]
    );
    // Upside down, the other imports are the breaches.
    let breaches = layer_breaches(&files, &all, &layers(&[&["high"], &["low", "crate"]]));
    assert_eq!(breaches.len(), 1, "{breaches:?}");
    assert!(breaches[0].starts_with("high (layer 1) imports low (layer 2)"));
}

#[test]
fn every_module_has_one_layer_and_every_layer_names_modules() {
    let files = krate(&[
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        ("a.rs", ""),
        ("b.rs", ""),
    ]);
    let breaches = layer_breaches(&files, &[], &layers(&[&["crate", "a"], &["a", "gone"]]));
    assert_eq!(
        breaches,
        vec![
            "the layers name a twice",
            "module b is in no layer",
            "the layers name gone, which is not a module",
        ]
    );
}

#[test]
fn the_layer_table_is_read_from_its_section() {
    let markdown = "# Title\n\n## Layers\n\nText.\n\n| Layer | Modules | Holds |\n|---|---|---|\n\
                    | 1 | `error`, `ids` | `Error` |\n| 2 | `crate` | the `Platform` |\n\nAfter.\n\
                    \n## Other\n| x | `not` | y |\n";
    assert_eq!(
        layers_from(markdown),
        layers(&[&["error", "ids"], &["crate"]])
    );
}

#[test]
fn functions_are_measured_from_fn_to_closing_brace() {
    let code = code_only(
        "fn one() {\n    let s = \"}\";\n}\ntrait T {\n    fn decl(&self);\n    fn body(&self) -> \
         Vec<u8> where Self: Sized {\n        vec![]\n    }\n}\nfn ptr(f: fn(u8) -> u8) {}\n",
    );
    let found: Vec<(String, usize)> = functions(&code)
        .into_iter()
        .map(|f| (f.name.clone(), f.lines()))
        .collect();
    assert_eq!(
        found,
        vec![("one".into(), 3), ("body".into(), 3), ("ptr".into(), 1)]
    );
}

fn long_function(name: &str, body_lines: usize) -> String {
    format!("fn {name}() {{\n{}}}\n", "    step();\n".repeat(body_lines))
}

#[test]
fn rooms_over_800_lines_and_functions_over_100_are_named() {
    let file = |path: &str, text: String| SourceFile {
        path: path.into(),
        text,
    };
    let files = vec![
        file(
            "k/src/lib.rs",
            "mod big;\nmod fine;\n#[cfg(test)]\nmod tests;\n".into(),
        ),
        file("k/src/big.rs", "// line\n".repeat(801)),
        file(
            "k/src/fine.rs",
            "// line\n".repeat(700) + long_function("short", 98).as_str(),
        ),
        file(
            "k/src/tests.rs",
            "// line\n".repeat(900) + long_function("test", 200).as_str(),
        ),
        file(
            "k/src/steps.rs",
            long_function("long", 99) + long_function("table", 150).as_str(),
        ),
    ];
    assert_eq!(
        test_only_paths(&files),
        vec!["k/src/tests.rs", "k/src/tests/"]
    );
    let excepted = [Exception {
        path: "k/src/steps.rs",
        function: "table",
        reason: "a data table",
    }];
    assert_eq!(
        oversized(&files, &excepted),
        vec![
            "k/src/big.rs has 801 lines (at most 800)",
            "k/src/steps.rs:1 fn long has 101 lines (at most 100)",
        ]
    );
    assert_eq!(oversized(&files, &[]).len(), 3);
}
