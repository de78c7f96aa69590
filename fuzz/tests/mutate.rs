//! Mutation fuzzing without AFL: every target gets inputs made from its corpus by random edits
//! (tokens of its dictionary inserted, bytes changed, ranges deleted, duplicated or spliced in
//! from another input). Not coverage-guided, but it runs anywhere `cargo test` runs and checks
//! the same invariants. The number of inputs per target is proptest's case count:
//! `PROPTEST_CASES=20000 cargo test -p platform-fuzz --test mutate`.

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use std::path::Path;

/// The inputs of `corpus/<target>/`.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read(f).expect("a corpus file"))
        .collect()
}

/// The tokens of `dict/<target>.dict` (AFL's format: one `"..."` a line, `\xNN`, `\\`, `\"`).
fn tokens(target: &str) -> Vec<Vec<u8>> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("dict")
        .join(format!("{target}.dict"));
    let text = std::fs::read_to_string(&file).expect("a dictionary");
    text.lines()
        .filter_map(|line| line.trim().strip_prefix('"')?.strip_suffix('"'))
        .map(|quoted| {
            let bytes = quoted.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' if bytes.get(i + 1) == Some(&b'x') => {
                        let hex = std::str::from_utf8(&bytes[i + 2..i + 4]).expect("hex");
                        out.push(u8::from_str_radix(hex, 16).expect("a hex byte"));
                        i += 4;
                    }
                    b'\\' => {
                        out.push(bytes[i + 1]);
                        i += 2;
                    }
                    b => {
                        out.push(b);
                        i += 1;
                    }
                }
            }
            out
        })
        .collect()
}

#[derive(Debug, Clone)]
enum Edit {
    Insert {
        at: usize,
        token: usize,
    },
    Byte {
        at: usize,
        value: u8,
    },
    Delete {
        at: usize,
        len: usize,
    },
    Duplicate {
        at: usize,
        len: usize,
    },
    Splice {
        at: usize,
        other: usize,
        from: usize,
        len: usize,
    },
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = any::<usize>();
    prop_oneof![
        4 => (at, any::<usize>()).prop_map(|(at, token)| Edit::Insert { at, token }),
        2 => (at, any::<u8>()).prop_map(|(at, value)| Edit::Byte { at, value }),
        2 => (at, 1usize..8).prop_map(|(at, len)| Edit::Delete { at, len }),
        1 => (at, 1usize..16).prop_map(|(at, len)| Edit::Duplicate { at, len }),
        1 => (at, any::<usize>(), any::<usize>(), 1usize..32)
            .prop_map(|(at, other, from, len)| Edit::Splice { at, other, from, len }),
    ]
}

fn apply(mut data: Vec<u8>, edits: &[Edit], seeds: &[Vec<u8>], tokens: &[Vec<u8>]) -> Vec<u8> {
    for e in edits {
        let n = data.len();
        let pos = |at: usize| at % (n + 1);
        match e {
            Edit::Insert { at, token } if !tokens.is_empty() => {
                let at = pos(*at);
                let token = &tokens[token % tokens.len()];
                data.splice(at..at, token.iter().copied());
            }
            Edit::Insert { .. } => {}
            Edit::Byte { at, value } if n > 0 => data[at % n] = *value,
            Edit::Byte { .. } => data.push(0),
            Edit::Delete { at, len } => {
                let at = pos(*at);
                data.drain(at..(at + len).min(n));
            }
            Edit::Duplicate { at, len } => {
                let at = pos(*at);
                let part: Vec<u8> = data[at..(at + len).min(n)].to_vec();
                data.splice(at..at, part);
            }
            Edit::Splice {
                at,
                other,
                from,
                len,
            } => {
                let other = &seeds[other % seeds.len()];
                let from = from % (other.len() + 1);
                let part = &other[from..(from + len).min(other.len())];
                let at = pos(*at);
                data.splice(at..at, part.iter().copied());
            }
        }
    }
    data
}

fn mutate(name: &str) {
    let target = platform_fuzz::target(name).expect("a target");
    let seeds = seeds(name);
    let tokens = tokens(name);
    let mut runner = TestRunner::new(Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        source_file: Some(file!()),
        ..Config::default()
    });
    let strategy = (0..seeds.len(), prop::collection::vec(edit(), 1..6));
    let result = runner.run(&strategy, |(seed, edits)| {
        let input = apply(seeds[seed].clone(), &edits, &seeds, &tokens);
        let run = std::panic::catch_unwind(|| target(&input));
        prop_assert!(run.is_ok(), "{name}: {:?}", String::from_utf8_lossy(&input));
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
}

macro_rules! mutate {
    ($($target:ident),* $(,)?) => {
        /// Named `mutation::TARGET`, so CI can run them longer by name.
        mod mutation {
            $(
                #[test]
                fn $target() {
                    super::mutate(stringify!($target));
                }
            )*

            #[test]
            fn every_target_is_mutated() {
                let names: Vec<&str> = platform_fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
                assert_eq!(names, [$(stringify!($target)),*]);
            }
        }
    };
}

mutate!(
    range,
    daterule,
    period,
    timetext,
    filter_param,
    filter_json,
    sort,
    project,
    search,
    check,
    validation_config,
    import_csv,
    import_json,
);
