//! Embedding the platform in a Rust program: no server, the core over a SQLite file.
//!
//! Run with `cargo run --example embed [DB_FILE]` (default: a temporary file).

use platform_core::documents::{DeleteTarget, SaveOptions};
use platform_core::ids::{Source, VersionRef};
use platform_core::store::Collection;
use platform_core::Platform;
use serde_json::json;

fn main() -> platform_core::Result<()> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::env::temp_dir().join(format!("platform-embed-{}.db", std::process::id()))
        });
    let platform = Platform::open(&path)?;
    let me = platform.local_principal("default", "embedder")?;

    let save = |body| platform.save(&me, Collection::Object, body, &SaveOptions::default());
    save(json!({"_id": "NBP", "name": "UK gas hub", "currency": "GBP"}))?;
    let v2 = save(json!({"_id": "NBP", "units": "therm"}))?;
    println!("merged: {v2}");

    platform.tag(
        &me,
        Collection::Object,
        Source::Private,
        "NBP",
        &VersionRef::Number(1),
        "first",
    )?;
    let first = platform.get(
        &me,
        Collection::Object,
        Source::Private,
        "NBP",
        Some(&VersionRef::Tag("first".into())),
        None,
    )?;
    println!("tagged first version: {first}");

    let rolled_back = platform.delete(
        &me,
        Collection::Object,
        Source::Private,
        "NBP",
        &DeleteTarget::Latest,
        Some("example"),
    )?;
    println!("rollback: {rolled_back}");
    platform.close()?;
    println!("database: {}", path.display());
    Ok(())
}
