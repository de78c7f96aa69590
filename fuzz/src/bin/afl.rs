//! The AFL++ binary: `fuzz-afl TARGET` runs one target in AFL's persistent loop.
//!
//! Built by `cargo afl build -p platform-fuzz --features afl` (see README.md); `fuzz/run`
//! builds it and runs every target.

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(target) = platform_fuzz::target(&name) else {
        let names: Vec<&str> = platform_fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
        eprintln!("usage: fuzz-afl TARGET (one of {})", names.join(", "));
        std::process::exit(2);
    };
    // Build what a target keeps between inputs (the in-memory store, rhai's engines) before
    // AFL forks its children, so every child starts warm and runs stay stable.
    target(&[]);
    afl::fuzz(true, target);
}
