//! Runs inputs through a target without AFL, to reproduce or minimise a finding:
//! `cargo run -p platform-fuzz --bin fuzz-replay -- TARGET FILE...` (a panic is the finding).

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_default();
    let Some(target) = platform_fuzz::target(&name) else {
        let names: Vec<&str> = platform_fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "usage: fuzz-replay TARGET FILE... (TARGET one of {})",
            names.join(", ")
        );
        std::process::exit(2);
    };
    for file in args {
        let data = std::fs::read(&file).unwrap_or_else(|e| {
            eprintln!("cannot read {file}: {e}");
            std::process::exit(2);
        });
        eprintln!("{name} {file} ({} bytes)", data.len());
        target(&data);
    }
}
