//! Mustache against the official spec, read from the mustache crate's package.
use super::*;

/// The spec cases this renderer deliberately gives differently: CRLF line endings are read as
/// LF (see the module documentation), so these match once the expected text's CRLFs are LFs.
const CRLF_CASES: &[(&str, &str)] = &[
    ("comments", "Standalone Line Endings"),
    ("delimiters", "Standalone Line Endings"),
    ("inverted", "Standalone Line Endings"),
    ("partials", "Standalone Line Endings"),
    ("sections", "Standalone Line Endings"),
];

/// The spec's test files as shipped inside the mustache crate's package (in cargo's registry,
/// where every build of this crate has unpacked it); the project keeps no copy of them.
fn spec_file(module: &str) -> String {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let registry = cargo_home.join("registry/src");
    for index in std::fs::read_dir(&registry).expect("cargo registry sources") {
        let dir = index
            .unwrap()
            .path()
            .join("mustache2-1.0.7/src/specs/upstream/specs");
        if let Ok(text) = std::fs::read_to_string(dir.join(format!("{module}.json"))) {
            return text;
        }
    }
    panic!(
        "the mustache spec files of mustache2 1.0.7 are not under {}",
        registry.display()
    );
}

fn run_spec(module: &str) -> usize {
    let json = spec_file(module);
    let spec: Value = serde_json::from_str(&json).unwrap();
    let mut failures = Vec::new();
    let cases = spec["tests"].as_array().unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let partials: HashMap<String, String> = case
            .get("partials")
            .and_then(Value::as_object)
            .map(|p| {
                p.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let mut expected = case["expected"].as_str().unwrap().to_string();
        if CRLF_CASES.contains(&(module, name)) {
            expected = expected.replace("\r\n", "\n");
        }
        let got = template::render(case["template"].as_str().unwrap(), &case["data"], &partials);
        match got {
            Ok(got) if got == expected => {}
            other => failures.push(format!(
                "{module} / {name}: {other:?}, expected {expected:?}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    cases.len()
}

#[test]
fn spec_interpolation() {
    assert_eq!(run_spec("interpolation"), 42);
}

#[test]
fn spec_sections() {
    assert_eq!(run_spec("sections"), 34);
}

#[test]
fn spec_inverted() {
    assert_eq!(run_spec("inverted"), 22);
}

#[test]
fn spec_partials() {
    assert_eq!(run_spec("partials"), 12);
}

#[test]
fn spec_comments() {
    assert_eq!(run_spec("comments"), 12);
}

#[test]
fn spec_delimiters() {
    assert_eq!(run_spec("delimiters"), 14);
}
