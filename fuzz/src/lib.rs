//! Fuzz targets: one per parser of the platform.
//!
//! Each target takes arbitrary bytes, feeds them to one parser and, where the parser's result
//! has a meaning that can be checked, checks it (a round trip through the printed form, the
//! in-memory filter against the SQL one, the native check path against rhai...). A target
//! never panics on any input unless it found a bug: a panic, a failed invariant, a hang or a
//! stack overflow is a finding.
//!
//! The same functions run under AFL++ (`src/bin/afl.rs`, built with `cargo afl`), in the replay
//! tests over the committed corpus and reproducers (`tests/replay.rs`), and in the mutation
//! property tests (`tests/mutate.rs`). See `README.md`.

mod checks;
mod grammar;
mod import;
mod input;
mod lists;

/// A fuzz target: bytes in, a panic on a finding.
pub type Target = fn(&[u8]);

/// Every target, by name (the name is also its corpus folder).
pub const TARGETS: &[(&str, Target)] = &[
    ("range", grammar::range),
    ("daterule", grammar::daterule),
    ("period", grammar::period),
    ("timetext", grammar::timetext),
    ("filter_param", lists::filter_param),
    ("filter_json", lists::filter_json),
    ("sort", lists::sort),
    ("project", lists::project),
    ("search", lists::search),
    ("check", checks::check),
    ("validation_config", checks::validation_config),
    ("import_csv", import::import_csv),
    ("import_json", import::import_json),
];

/// The target of this name.
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
