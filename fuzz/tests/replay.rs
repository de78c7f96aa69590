//! Every committed input goes through its target again: the corpus (`corpus/<target>/`: the
//! seeds and what AFL++ found worth keeping) and the reproducers of fixed findings
//! (`regressions/<target>/`). Each input runs on its own thread with the default 2 MiB stack
//! (as the server's worker threads have) and a time limit, so a panic, a stack overflow or a
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

/// Runs one input on a fresh thread; a panic or a time-out fails naming the file.
fn run(name: &str, file: &Path) {
    let target = platform_fuzz::target(name).expect("a target");
    let data = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let (done, finished) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name(format!("{name} {}", file.display()))
        .spawn(move || {
            target(&data);
            let _ = done.send(());
        })
        .expect("a thread");
    match finished.recv_timeout(LIMIT) {
        Ok(()) => {
            worker.join().expect("the target finished");
        }
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

fn replay(name: &str) {
    let corpus = files(&folder("corpus", name));
    assert!(!corpus.is_empty(), "corpus/{name} has no seeds");
    for file in corpus.iter().chain(&files(&folder("regressions", name))) {
        run(name, file);
    }
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
