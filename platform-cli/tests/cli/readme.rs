//! The README runs as written: its shell blocks, in order, against the built `platform` on the
//! PATH and a served database, as a reader pastes them into one shell.
//!
//! - The quick start (marked `<!-- readme-test: quick-start -->`) must hold exactly its two
//!   set-up commands: the test starts the server the first one starts (the built binary, with
//!   the same arguments, on a free port instead of 8080: every `localhost:8080` of the README is
//!   read as that port), and the second is the suite this test is part of.
//! - A block marked `<!-- readme-test: skip (reason) -->` is not run; the reason is required.
//! - Every other ` ```sh ` block runs, top to bottom, in one bash (`set -e`), in a fresh
//!   directory; `curl` fails on an HTTP error (a `.curlrc` with `--fail-with-body`), so a block
//!   fails when any of its commands does.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The pages whose shell blocks run after the README's (they continue its walk).
const DOCS: [&str; 4] = [
    "docs/curves.md",
    "docs/extensions.md",
    "docs/gb-power.md",
    "docs/operations.md",
];

/// One fenced shell block of the README.
struct Block {
    /// The file it is in (`README`, or a page of [`DOCS`]).
    file: &'static str,
    /// The README line its fence opens on.
    line: usize,
    /// The marker comment right before it, if any.
    marker: Option<String>,
    text: String,
}

fn blocks(readme: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = readme.lines().enumerate().peekable();
    let mut marker: Option<String> = None;
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim();
        if let Some(m) = trimmed
            .strip_prefix("<!-- readme-test:")
            .and_then(|m| m.strip_suffix("-->"))
        {
            marker = Some(m.trim().to_string());
            continue;
        }
        if let Some(info) = trimmed.strip_prefix("```") {
            let mut text = String::new();
            for (_, body) in lines.by_ref() {
                if body.trim_start().starts_with("```") {
                    break;
                }
                text.push_str(body);
                text.push('\n');
            }
            if matches!(info.trim(), "sh" | "bash" | "shell" | "console") {
                out.push(Block {
                    file: "README",
                    line: i + 1,
                    marker: marker.take(),
                    text,
                });
            } else {
                marker = None;
            }
            continue;
        }
        if !trimmed.is_empty() {
            marker = None;
        }
    }
    out
}

/// The commands of a block without comments and blank lines.
fn commands(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split(" #").next().unwrap_or_default().trim().to_string())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[test]
fn every_shell_block_of_the_readme_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut blocks = blocks(&readme);
    for b in &mut blocks {
        b.file = "README";
    }
    // The operator's pages run after the README, on the same server and directory.
    for file in DOCS {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for mut b in self::blocks(&text) {
            b.file = file;
            blocks.push(b);
        }
    }
    assert!(
        blocks.len() >= 8,
        "the README's shell blocks were not found"
    );

    // The quick start: exactly the two set-up commands.
    let quick: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.marker.as_deref() == Some("quick-start"))
        .collect();
    assert_eq!(quick.len(), 1, "one quick-start block");
    let quick_commands = commands(&quick[0].text);
    assert_eq!(
        quick_commands,
        vec![
            "cargo run --release -p platform-cli -- serve",
            "cargo test --workspace"
        ],
        "the quick start has exactly two set-up commands"
    );
    let serve_args: Vec<&str> = quick_commands[0]
        .split_once(" -- ")
        .map(|(_, a)| a.split_whitespace().collect())
        .unwrap();

    let dir = tempfile::tempdir().unwrap();
    let bin = Path::new(crate::BIN);
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut server = crate::Server::start_in(dir.path(), &serve_args);
    let addr = server.url.strip_prefix("http://").unwrap().to_string();
    std::fs::write(
        dir.path().join(".curlrc"),
        "fail-with-body\nshow-error\nmax-time = 60\n",
    )
    .unwrap();

    // Every other block, in order, in one shell.
    let mut script = String::from("set -e\n");
    let mut run = 0;
    for (n, b) in blocks.iter().enumerate() {
        match b.marker.as_deref() {
            Some("quick-start") => continue,
            Some(m) if m.starts_with("skip") => {
                let reason = m.trim_start_matches("skip").trim();
                assert!(
                    reason.starts_with('(') && reason.len() > 4,
                    "{} line {}: a skipped block says why: {m}",
                    b.file,
                    b.line
                );
                continue;
            }
            Some(m) if m.starts_with("empty") => {
                let reason = m.trim_start_matches("empty").trim();
                assert!(
                    reason.starts_with('(') && reason.len() > 4,
                    "{} line {}: a block allowed an empty answer says why: {m}",
                    b.file,
                    b.line
                );
            }
            Some(other) => panic!("{} line {}: unknown marker {other}", b.file, b.line),
            None => {}
        }
        run += 1;
        let text = b
            .text
            .replace("localhost:8080", &addr)
            .replace("127.0.0.1:8080", &addr);
        // Each block's answers are kept (and shown) to be looked at for empty answers below.
        script.push_str(&format!(
            "echo '>>> {file} block at line {line}' >&2\n{{\n{text}\n}} > .readme-out-{n}\n\
             cat .readme-out-{n}\n",
            file = b.file,
            line = b.line
        ));
    }
    assert!(run >= 8, "only {run} blocks ran");
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("PATH", &path)
        .env("CURL_HOME", dir.path())
        .env_remove("PLATFORM_DB")
        .env_remove("PLATFORM_URL")
        .env_remove("PLATFORM_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).ok();
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(240) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    let tail = |s: &str| {
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    };
    let last_block = err
        .lines()
        .rfind(|l| l.starts_with(">>> ") && l.contains(" block at line "))
        .unwrap_or("before the first block")
        .to_string();
    match status {
        Some(s) if s.success() => {}
        Some(s) => panic!(
            "{last_block} failed ({s}).\n--- stdout (end)\n{}\n--- stderr (end)\n{}",
            tail(&out),
            tail(&err)
        ),
        None => panic!(
            "{last_block} did not finish in 240 s.\n--- stdout (end)\n{}\n--- stderr (end)\n{}",
            tail(&out),
            tail(&err)
        ),
    }
    // An example that answers nothing shows nothing: a block whose answer is an empty array
    // (a range before the data, a block on a day it does not cover) fails unless marked.
    for (n, b) in blocks.iter().enumerate() {
        if b.marker.is_some() {
            continue;
        }
        let answers = std::fs::read_to_string(dir.path().join(format!(".readme-out-{n}")))
            .unwrap_or_default();
        if let Some(empty) = empty_answer(&answers) {
            panic!(
                "{} line {}: the block answers an empty array ({empty}): make it show data \
                 for the dates it loads, or mark it <!-- readme-test: empty (why) -->",
                b.file, b.line
            );
        }
    }
    // The server served the whole walk and stops cleanly.
    assert!(server.stop().success());
}

/// The first empty array a block's output answers: a line that is `[]`, or a `data` or
/// `contracts` field that is one.
fn empty_answer(output: &str) -> Option<String> {
    output.lines().find_map(|line| {
        let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if compact == "[]" {
            return Some(compact);
        }
        let at = ["\"data\":[]", "\"contracts\":[]", "\"items\":[]"]
            .iter()
            .find_map(|f| compact.find(f).map(|at| at + f.len()))?;
        // The answer's start (its id), and the empty field.
        let start: String = compact.chars().take(60).collect();
        let field: String = compact[..at]
            .chars()
            .rev()
            .take(40)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        Some(format!("{start} ... {field}"))
    })
}

#[test]
fn empty_answers_are_found() {
    assert!(empty_answer("[]\n").is_some());
    assert!(empty_answer("x\n  [ ]  \n").is_some());
    assert!(empty_answer("{\"_id\":\"A:B\", \"data\": []}").is_some());
    assert!(empty_answer("{\"data\":[{\"time\":\"x\"}]}\n[1]\n").is_none());
    assert!(empty_answer("\"tags\": []").is_none());
}

#[test]
fn blocks_and_markers_are_found() {
    let text = "intro\n<!-- readme-test: quick-start -->\n```sh\na # c\n# only\nb\n```\n\n\
                <!-- readme-test: skip (slow) -->\n\n```sh\nslow\n```\n```json\n{}\n```\n\
                <!-- readme-test: skip (x) -->\nprose\n```sh\nc\n```\n";
    let b = blocks(text);
    assert_eq!(b.len(), 3);
    assert_eq!(b[0].marker.as_deref(), Some("quick-start"));
    assert_eq!(commands(&b[0].text), vec!["a", "b"]);
    assert_eq!(b[1].marker.as_deref(), Some("skip (slow)"));
    assert_eq!(
        b[2].marker, None,
        "a marker holds only for the block after it"
    );
    assert_eq!(b[2].line, 19);
}

#[test]
fn the_readme_stays_under_600_lines() {
    // Reference text goes in docs/ and benches/compare/README.md; the README is the tour.
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 600,
        "the README has {lines} lines: move reference text to docs/"
    );
}
