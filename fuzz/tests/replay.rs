//! Every committed input goes through its target again: the corpus (`corpus/<target>/`: the
//! seeds and what AFL++ found worth keeping) and the reproducers of fixed findings
//! (`regressions/<target>/`). The inputs run on a thread with the default 2 MiB stack (as the
//! server's worker threads have), each within a time limit, so a panic, a stack overflow or a
//! hang fails the test naming the file.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// Longer than any input takes in a debug build; only a hang takes this long.
const LIMIT: Duration = Duration::from_secs(60);

fn folder(kind: &str, target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(kind)
        .join(target)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs every input of a target in order on one thread (so what a target builds once, such as
/// its in-memory store, is built once); a panic or a time-out fails naming the file.
fn run(name: &str, inputs: Vec<PathBuf>) {
    let target = platform_fuzz::target(name).expect("a target");
    let (progress, report) = mpsc::channel();
    let files = inputs.clone();
    let worker = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            for (i, file) in files.iter().enumerate() {
                let data =
                    std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                target(&data);
                let _ = progress.send(i);
            }
        })
        .expect("a thread");
    for (i, file) in inputs.iter().enumerate() {
        match report.recv_timeout(LIMIT) {
            Ok(done) => assert_eq!(done, i),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let _ = worker.join();
                panic!(
                    "{name}: {} is a finding (see the panic above)",
                    file.display()
                );
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("{name}: {} hangs (over {LIMIT:?})", file.display());
            }
        }
    }
    worker.join().expect("the target finished");
}

fn replay(name: &str) {
    let corpus = files(&folder("corpus", name));
    assert!(!corpus.is_empty(), "corpus/{name} has no seeds");
    let regressions = files(&folder("regressions", name));
    run(name, corpus.into_iter().chain(regressions).collect());
}

macro_rules! replay {
    ($($target:ident),* $(,)?) => {
        $(
            #[test]
            fn $target() {
                replay(stringify!($target));
            }
        )*

        #[test]
        fn every_target_replays_and_every_folder_is_a_target() {
            let tested = [$(stringify!($target)),*];
            let names: Vec<&str> = platform_fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
            assert_eq!(names, tested, "a test per target");
            for kind in ["corpus", "regressions"] {
                let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(kind);
                for entry in std::fs::read_dir(&dir).into_iter().flatten() {
                    let path = entry.expect("a directory entry").path();
                    if path.is_dir() {
                        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                        assert!(names.contains(&name), "{kind}/{name} is not a target");
                    }
                }
            }
        }
    };
}

replay!(
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
