//! `docs/checks.md`, the users' reference of the check functions, against the engine: every
//! function registered for checks has its section there, every section names a registered
//! function, and every example is a check that compiles and passes the trial in its scope.
use super::*;

fn reference() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/checks.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The sections of the reference: the function its heading names first, and its text.
fn sections(doc: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in doc.lines() {
        if let Some(heading) = line.strip_prefix("### `") {
            let name: String = heading
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push((name, String::new()));
        } else if line.starts_with("## ") {
            out.push((String::new(), String::new()));
        } else if let Some((_, text)) = out.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out.retain(|(name, _)| !name.is_empty());
    out
}

#[test]
fn every_registered_function_is_documented_with_an_example_that_runs() {
    let doc = reference();
    let sections = sections(&doc);
    let documented: Vec<&str> = sections.iter().map(|(n, _)| n.as_str()).collect();
    let registered = super::super::functions::names();
    assert!(registered.len() > 30, "{registered:?}");
    let missing: Vec<&&str> = registered
        .iter()
        .filter(|n| !documented.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/checks.md has no section (### `name(...)`) for {missing:?}"
    );
    let unknown: Vec<&&str> = documented
        .iter()
        .filter(|n| !registered.contains(n))
        .collect();
    assert!(
        unknown.is_empty(),
        "docs/checks.md documents functions checks do not have: {unknown:?}"
    );
    for (name, text) in &sections {
        let examples: Vec<(&str, &str)> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- Example ("))
            .filter_map(|l| l.split_once("): `"))
            .map(|(scope, rest)| (scope, rest.trim_end().trim_end_matches('`')))
            .collect();
        assert_eq!(examples.len(), 1, "{name}: one example, in {text}");
        for field in [
            "**Arguments**",
            "**Returns**",
            "**Scopes**",
            "**Without history**",
        ] {
            assert!(text.contains(field), "{name}: no {field} in {text}");
        }
        let (scope, expr) = examples[0];
        assert!(
            expr.contains(&format!("{name}(")),
            "{name}: its example `{expr}` does not call it"
        );
        let scope = match scope {
            "point" => CheckScope::Point,
            "tenor" => CheckScope::Tenor,
            "curve" => CheckScope::Curve,
            other => panic!("{name}: scope {other}"),
        };
        let checks = compile(&[check("example", expr, scope)], &[])
            .unwrap_or_else(|e| panic!("{name}: `{expr}` does not compile: {e}"));
        checks
            .trial()
            .unwrap_or_else(|e| panic!("{name}: `{expr}` fails its trial: {e}"));
    }
}
