//! The crates of the workspace and the files of their modules: the members the root
//! `Cargo.toml` names under `[workspace]`, the crates of each (its library, `src/lib.rs`; its
//! binary, `src/main.rs`; the binaries of `src/bin` and those its manifest places elsewhere),
//! and the files of each crate, found from its root by the `mod` declarations compiled outside
//! tests.

use super::graph::ModuleFile;
use super::paths::declared_modules;
use std::fs;
use std::path::Path;

/// One crate: its name as messages show it (the package and the root file) and its files.
pub struct Crate {
    pub name: String,
    pub files: Vec<ModuleFile>,
}

/// The lines of every section of a TOML text with the header `header` (`[workspace]`,
/// `[[bin]]`), comments left out.
fn sections<'a>(toml: &'a str, header: &str) -> Vec<Vec<&'a str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut inside = false;
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == header;
            if inside {
                out.push(Vec::new());
            }
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            out.last_mut().unwrap().push(line);
        }
    }
    out
}

/// The strings of the value of `key` in a section's lines (a string or an array of strings,
/// over one line or several).
fn strings(lines: &[&str], key: &str) -> Vec<String> {
    let Some(at) = lines.iter().position(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
    }) else {
        return Vec::new();
    };
    let value = lines[at..].join("\n");
    let value = value.split_once('=').map_or("", |(_, v)| v.trim_start());
    let value = if value.starts_with('[') {
        value.split(']').next().unwrap_or("")
    } else {
        value.lines().next().unwrap_or("")
    };
    value
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The members of the workspace, as the root manifest names them.
pub fn members(manifest: &str) -> Vec<String> {
    sections(manifest, "[workspace]")
        .first()
        .map(|lines| strings(lines, "members"))
        .unwrap_or_default()
}

/// The root files of a member's crates, from the member's folder (`src/lib.rs`,
/// `src/main.rs`, `src/bin/x.rs`, and every `path` its `[lib]` and `[[bin]]` sections set).
fn crate_roots(member: &Path, manifest: &str) -> Vec<String> {
    let mut roots: Vec<String> = ["src/lib.rs", "src/main.rs"]
        .into_iter()
        .filter(|r| member.join(r).is_file())
        .map(str::to_string)
        .collect();
    if let Ok(entries) = fs::read_dir(member.join("src/bin")) {
        let mut bins: Vec<String> = entries
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .map(|name| match name.ends_with(".rs") {
                true => format!("src/bin/{name}"),
                false => format!("src/bin/{name}/main.rs"),
            })
            .filter(|r| member.join(r).is_file())
            .collect();
        bins.sort();
        roots.extend(bins);
    }
    let declared = ["[lib]", "[[bin]]"]
        .into_iter()
        .flat_map(|h| sections(manifest, h))
        .flat_map(|lines| strings(&lines, "path"));
    for path in declared {
        let path = path.trim_start_matches("./").to_string();
        if !roots.contains(&path) {
            roots.push(path);
        }
    }
    roots
}

/// The files of the crate whose root is `root` (a path as messages show it): the root and the
/// files of the modules declared from it, the declarations compiled only for tests left out.
/// `read` gives a file's text by its path, `None` when there is no such file.
pub fn crate_files(
    root: &str,
    read: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<ModuleFile>, String> {
    let text = read(root).ok_or_else(|| format!("no crate root {root}"))?;
    let mut queue = vec![ModuleFile::in_module(Vec::new(), root, &text)];
    let mut out = Vec::new();
    while let Some(file) = queue.pop() {
        // The submodules of the root and of a `mod.rs` are beside it, of `a.rs` under `a/`.
        let (dir, name) = file.path.rsplit_once('/').unwrap_or(("", &file.path));
        let dir = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let dir = if file.module.is_empty() || name == "mod.rs" {
            dir
        } else {
            format!("{dir}{}/", name.trim_end_matches(".rs"))
        };
        for child in declared_modules(&file.code) {
            let module = [file.module.as_slice(), std::slice::from_ref(&child)].concat();
            let found = [format!("{dir}{child}.rs"), format!("{dir}{child}/mod.rs")]
                .into_iter()
                .find_map(|path| read(&path).map(|text| (path, text)));
            let Some((path, text)) = found else {
                return Err(format!(
                    "{} declares mod {child}, without its file",
                    file.path
                ));
            };
            queue.push(ModuleFile::in_module(module, &path, &text));
        }
        out.push(file);
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Every crate of the workspace at `root` whose member has a `src` folder.
pub fn workspace_crates(root: &Path) -> Vec<Crate> {
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members = members(&manifest);
    assert!(
        !members.is_empty(),
        "Cargo.toml names the workspace members"
    );
    let read = |path: &str| fs::read_to_string(root.join(path)).ok();
    let mut out = Vec::new();
    for member in members {
        let dir = root.join(&member);
        let own = fs::read_to_string(dir.join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("member {member} has no Cargo.toml: {e}"));
        if !dir.join("src").is_dir() {
            continue;
        }
        let package = sections(&own, "[package]")
            .first()
            .and_then(|lines| strings(lines, "name").pop())
            .unwrap_or_else(|| member.clone());
        for krate in crate_roots(&dir, &own) {
            let path = format!("{member}/{krate}");
            let files = crate_files(&path, &read).unwrap_or_else(|e| panic!("{e}"));
            out.push(Crate {
                name: format!("{package} ({path})"),
                files,
            });
        }
    }
    out
}
