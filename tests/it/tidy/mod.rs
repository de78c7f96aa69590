//! Tidy tests: the house rules of the source tree, read from the files themselves.
//!
//! - `platform-core`'s modules import along the layers declared in ARCHITECTURE.md (the table
//!   under "## Layers", lowest layer first).
//! - In no crate of the workspace (each member's library and binaries, `crates`) do modules
//!   import each other round, neither the top-level modules nor the submodules of any one
//!   module.
//! - No non-test source file of the workspace is over 800 lines, and no function over 100.
//! - The server and the CLI name nothing of `platform-core` but its API (`platform_core::api`),
//!   its errors and the platform (`surface`).
//!
//! The reading is textual (`source`: comments, literals and test items blanked; `paths`: the
//! `use` trees and the paths written inline), and `selftest` shows on small made-up files
//! that each rule fails when it should.

mod crates;
mod graph;
mod paths;
mod selftest;
mod sizes;
mod source;
mod surface;

use sizes::{Exception, SourceFile};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Rust files under `dir`, with their paths from `base` (with `/`), skipping build output.
fn rust_files(base: &Path, dir: &Path, out: &mut Vec<SourceFile>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() && name != "target" {
            rust_files(base, &path, out);
        } else if name.ends_with(".rs") {
            let rel = path.strip_prefix(base).unwrap();
            let rel = rel.components().map(|c| c.as_os_str().to_string_lossy());
            out.push(SourceFile {
                path: rel.collect::<Vec<_>>().join("/"),
                text: fs::read_to_string(&path).unwrap(),
            });
        }
    }
}

/// The layers declared in ARCHITECTURE.md: the table under the heading `## Layers`, one row
/// a layer from the lowest, the modules of each in backticks in its second column.
pub fn layers_from(markdown: &str) -> Vec<Vec<String>> {
    let section = markdown
        .split("\n## ")
        .find(|s| s.starts_with("Layers\n"))
        .unwrap_or("");
    let rows = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'));
    rows.skip(2)
        .map(|row| {
            let column = row.split('|').nth(2).unwrap_or("");
            column
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// The crate of the engine, whose modules import along the layers.
const CORE: &str = "platform-core (platform-core/src/lib.rs)";

#[test]
fn core_modules_import_along_the_layers() {
    let crates = crates::workspace_crates(&root());
    let core = crates.iter().find(|c| c.name == CORE).expect(CORE);
    let files = &core.files;
    assert!(files.len() > 100, "found only {} core files", files.len());
    let architecture = fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let layers = layers_from(&architecture);
    assert!(
        layers.len() > 3,
        "ARCHITECTURE.md declares the layers: {layers:?}"
    );
    let problems = graph::layer_breaches(files, &graph::edges(files), &layers);
    assert!(
        problems.is_empty(),
        "{} problems with the layers of platform-core:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_modules_of_every_crate_import_without_circles() {
    let crates = crates::workspace_crates(&root());
    let names: Vec<&str> = crates.iter().map(|c| c.name.as_str()).collect();
    for expected in [
        CORE,
        "platform-server (platform-server/src/lib.rs)",
        "platform-cli (platform-cli/src/main.rs)",
    ] {
        assert!(names.contains(&expected), "{expected} among {names:?}");
    }
    let mut problems = Vec::new();
    for krate in &crates {
        let found = graph::circles(&graph::edges(&krate.files));
        problems.extend(found.into_iter().map(|p| format!("{}: {p}", krate.name)));
    }
    assert!(
        problems.is_empty(),
        "{} import circles in the crates of the workspace:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Functions allowed over the limit, each with its reason. Generated code and data tables
/// only.
const LONG_FUNCTIONS: &[Exception] = &[];

#[test]
fn rooms_and_functions_stay_small() {
    let mut files = Vec::new();
    let root = root();
    for dir in [
        "platform-core/src",
        "platform-server/src",
        "platform-cli/src",
        "fuzz/src",
        "examples",
        "benches",
    ] {
        rust_files(&root, &root.join(dir), &mut files);
    }
    assert!(files.len() > 200, "found only {} files", files.len());
    for e in LONG_FUNCTIONS {
        assert!(!e.reason.is_empty(), "{} {} says why", e.path, e.function);
    }
    let problems = sizes::oversized(&files, LONG_FUNCTIONS);
    assert!(
        problems.is_empty(),
        "{} rooms or functions over their size:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_server_and_the_cli_name_only_the_core_api() {
    let root = root();
    let mut files = Vec::new();
    for dir in ["platform-server/src", "platform-cli/src"] {
        rust_files(&root, &root.join(dir), &mut files);
    }
    assert!(files.len() > 40, "found only {} files", files.len());
    let problems = surface::reaching_past(&files, surface::FRONT_END_MAY_NAME);
    assert!(
        problems.is_empty(),
        "{} paths of the server and the CLI reach past the core's API:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn what_only_the_front_ends_need_is_at_most_fifteen_names() {
    let core = root().join("platform-core/src");
    let interface = fs::read_to_string(core.join("api/interface.rs")).unwrap();
    let names = surface::reexported_names(&interface, |path| {
        let file = path
            .strip_prefix("crate::")
            .unwrap_or(path)
            .replace("::", "/");
        fs::read_to_string(core.join(format!("{file}.rs")))
            .map_or(0, |source| surface::public_items(&source))
    });
    assert!(names.len() >= 10, "found only {names:?}");
    assert!(
        names.len() <= 15,
        "api::interface makes {} names public (at most 15): {names:?}",
        names.len()
    );
}

#[test]
fn the_core_is_public_only_through_its_api() {
    let lib = fs::read_to_string(root().join("platform-core/src/lib.rs")).unwrap();
    // Every other module is declared public only under the feature, and private without it.
    assert_eq!(surface::public_modules(&lib), ["api"]);
    let private = lib
        .lines()
        .filter(|l| l.starts_with("mod ") && l.ends_with(';'))
        .count();
    let gated = lib
        .lines()
        .filter(|l| l.starts_with("pub mod ") && l.ends_with(';'))
        .count()
        - 1;
    assert!(gated > 20, "lib.rs declares the engine's modules ({gated})");
    assert_eq!(
        gated, private,
        "each gated public module has its private twin"
    );
}
