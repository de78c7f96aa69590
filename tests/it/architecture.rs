//! Architecture invariants, checked on the source tree.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn core_has_no_http_dependency() {
    let manifest = fs::read_to_string(root().join("platform-core/Cargo.toml")).unwrap();
    for forbidden in ["actix", "hyper", "ureq", "reqwest", "clap"] {
        assert!(
            !manifest.contains(forbidden),
            "platform-core/Cargo.toml names {forbidden}"
        );
    }
    let mut files = Vec::new();
    rust_files(&root().join("platform-core/src"), &mut files);
    assert!(files.len() > 10, "found only {} core files", files.len());
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        assert!(!text.contains("actix"), "{} mentions actix", file.display());
    }
}

#[test]
fn unsafe_code_is_denied_everywhere_but_in_the_allocator() {
    // Every package takes the workspace's lints, which deny unsafe code.
    let workspace = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(
        workspace.contains("unsafe_code = \"deny\""),
        "the workspace denies unsafe code"
    );
    for manifest in [
        "Cargo.toml",
        "platform-core/Cargo.toml",
        "platform-server/Cargo.toml",
        "platform-cli/Cargo.toml",
        "fuzz/Cargo.toml",
    ] {
        let text = fs::read_to_string(root().join(manifest)).unwrap();
        assert!(
            text.contains("[lints]\nworkspace = true"),
            "{manifest} takes the workspace's lints"
        );
    }
    // The one room that allows it: the allocator's calls into C.
    let mut files = Vec::new();
    for dir in [
        "platform-core",
        "platform-server",
        "platform-cli",
        "fuzz",
        "tests",
        "benches",
        "examples",
    ] {
        if root().join(dir).is_dir() {
            rust_files(&root().join(dir), &mut files);
        }
    }
    let allowing: Vec<String> = files
        .iter()
        .filter(|f| {
            fs::read_to_string(f)
                .unwrap()
                .contains(&["allow(", "unsafe_code)"].concat())
        })
        .map(|f| f.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert_eq!(allowing, vec!["platform-cli/src/allocator.rs".to_string()]);
}

#[test]
fn only_store_sqlite_names_rusqlite() {
    let core = root().join("platform-core/src");
    let sqlite = core.join("store/sqlite");
    let mut files = Vec::new();
    rust_files(&core, &mut files);
    let mut users = 0;
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        if code.contains("rusqlite") {
            assert!(
                file.starts_with(&sqlite),
                "{} names rusqlite outside store::sqlite",
                file.display()
            );
            users += 1;
        }
    }
    assert!(users > 0, "store::sqlite should name rusqlite");
    for krate in ["platform-server", "platform-cli"] {
        let manifest = fs::read_to_string(root().join(krate).join("Cargo.toml")).unwrap();
        assert!(
            !manifest.contains("rusqlite"),
            "{krate} depends on rusqlite"
        );
    }
}

#[test]
fn only_store_postgres_names_the_postgres_crate() {
    let core = root().join("platform-core/src");
    let postgres = core.join("store/postgres");
    let mut files = Vec::new();
    rust_files(&core, &mut files);
    let mut users = 0;
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let names = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .any(|l| l.contains("postgres::") && !l.contains("store::postgres::"));
        if names {
            assert!(
                file.starts_with(&postgres),
                "{} names the postgres crate outside store::postgres",
                file.display()
            );
            users += 1;
        }
    }
    assert!(users > 0, "store::postgres should name the postgres crate");
    for krate in ["platform-server", "platform-cli"] {
        let manifest = fs::read_to_string(root().join(krate).join("Cargo.toml")).unwrap();
        assert!(
            !manifest.contains("postgres"),
            "{krate} depends on the postgres crate"
        );
    }
}

#[test]
fn the_server_maps_every_error_code_to_a_status() {
    use platform_core::ErrorCode;
    for code in ErrorCode::ALL {
        let status = platform_server::error::status(code);
        assert!(
            status.is_client_error() || status.is_server_error(),
            "{code}: {status}"
        );
        // Only INTERNAL_ERROR is a 500: a code that falls to the table's catch-all is not
        // mapped.
        assert_eq!(
            status == actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
            code == ErrorCode::Internal,
            "{code}: {status}"
        );
    }
    // The codes only HTTP knows are the server's, and no core code has their names.
    for code in platform_server::error::HttpCode::ALL {
        assert!(code.status().is_client_error(), "{code:?}");
        assert!(
            ErrorCode::ALL.iter().all(|c| c.name() != code.name()),
            "{code:?}"
        );
    }
}
