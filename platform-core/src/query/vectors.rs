//! Runs the reference vectors of the spec (`date_rules.json`, `ranges.json`,
//! `periods.json`): every case must give the expected result and every `bad`
//! entry must be an error.

use std::path::Path;

use crate::query::{daterule, period, range};
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;

/// The spec's vectors, beside the repository (`../shared/spec/vectors`).
const SHARED_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/spec/vectors");
/// The copy kept in the repository, used when the spec folder is not beside it.
const COPY_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/vectors");

fn vector_dir() -> &'static Path {
    if Path::new(SHARED_DIR).is_dir() {
        Path::new(SHARED_DIR)
    } else {
        Path::new(COPY_DIR)
    }
}

#[test]
fn the_kept_copy_matches_the_spec() {
    if !Path::new(SHARED_DIR).is_dir() {
        return;
    }
    for name in [
        "date_rules.json",
        "ranges.json",
        "periods.json",
        "calendars.json",
        "expiry.json",
        "scaling.json",
        "shaping.json",
        "efa.json",
        "settlement.json",
    ] {
        let spec = std::fs::read(Path::new(SHARED_DIR).join(name)).unwrap();
        let copy = std::fs::read(Path::new(COPY_DIR).join(name)).unwrap();
        assert!(
            spec == copy,
            "testdata/vectors/{name} differs from the spec; copy it again"
        );
    }
}

fn load(name: &str) -> Value {
    let path = vector_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON in {}: {e}", path.display()))
}

fn cases<'a>(file: &'a Value, key: &str) -> &'a [Value] {
    file[key].as_array().map_or(&[], Vec::as_slice)
}

fn text<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key]
        .as_str()
        .unwrap_or_else(|| panic!("case {case} has no string {key:?}"))
}

fn instant(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap_or_else(|e| panic!("bad timestamp {text:?}: {e}"))
        .with_timezone(&Utc)
}

fn optional_instant(value: &Value) -> Option<DateTime<Utc>> {
    value.as_str().map(instant)
}

fn day(text: &str) -> NaiveDate {
    text.parse()
        .unwrap_or_else(|e| panic!("bad date {text:?}: {e}"))
}

/// Checks every case and every bad entry; panics listing all failures.
fn check(
    name: &str,
    file: &Value,
    run: impl Fn(&Value) -> Result<(), String>,
    bad: impl Fn(&str) -> bool,
) {
    let mut failures = Vec::new();
    let good = cases(file, "cases");
    for case in good {
        if let Err(why) = run(case) {
            failures.push(format!("{case}: {why}"));
        }
    }
    let bad_entries = cases(file, "bad");
    for entry in bad_entries {
        let entry = entry.as_str().unwrap_or_default();
        if !bad(entry) {
            failures.push(format!("bad entry {entry:?} was accepted"));
        }
    }
    let total = good.len() + bad_entries.len();
    println!(
        "{name}: {} of {total} passed ({} cases, {} bad)",
        total - failures.len(),
        good.len(),
        bad_entries.len()
    );
    assert!(!good.is_empty(), "{name} has no cases");
    assert!(
        failures.is_empty(),
        "{name} failures:\n{}",
        failures.join("\n")
    );
}

#[test]
fn date_rules() {
    check(
        "date_rules.json",
        &load("date_rules.json"),
        |case| {
            let rule = daterule::parse(text(case, "rule")).map_err(|e| e.to_string())?;
            let got = rule
                .eval(instant(text(case, "now")))
                .map_err(|e| e.to_string())?;
            let want = instant(text(case, "instant"));
            (got == want).then_some(()).ok_or(format!("got {got}"))
        },
        |entry| daterule::parse(entry).is_err(),
    );
}

#[test]
fn ranges() {
    check(
        "ranges.json",
        &load("ranges.json"),
        |case| {
            let now = instant(text(case, "now"));
            let got = range::parse(text(case, "range"))
                .and_then(|r| r.resolve(now))
                .map_err(|e| e.to_string())?;
            let expect = &case["expect"];
            let want = match expect["last"].as_u64() {
                Some(n) => range::Resolved::Last(usize::try_from(n).map_err(|e| e.to_string())?),
                None => range::Resolved::Window {
                    start: optional_instant(&expect["start"]),
                    end: optional_instant(&expect["end"]),
                },
            };
            (got == want).then_some(()).ok_or(format!("got {got:?}"))
        },
        |entry| {
            let now = instant("2024-07-08T16:23:07Z");
            range::parse(entry).and_then(|r| r.resolve(now)).is_err()
        },
    );
}

#[test]
fn periods() {
    check(
        "periods.json",
        &load("periods.json"),
        |case| {
            let ondate = day(text(case, "ondate"));
            let tenor = text(case, "tenor");
            let code = period::parse(tenor).map_err(|e| e.to_string())?;
            if code.to_string() != tenor {
                return Err(format!("canonical form {code}"));
            }
            let got = code.resolve(ondate).map_err(|e| e.to_string())?;
            let delivery = got.delivery;
            let absolute = got.absolute.map(|p| p.to_string());
            let want_absolute = case["absolute"].as_str().map(str::to_owned);
            if absolute != want_absolute
                || delivery.start != day(text(case, "start"))
                || delivery.end != day(text(case, "end"))
                || delivery.expiry != day(text(case, "expiry"))
            {
                return Err(format!("got {absolute:?} {delivery:?}"));
            }
            // The absolute code parses back to the same period, whose
            // relative code at the ondate is the tenor.
            if let (Some(abs_text), Some(abs)) = (want_absolute, got.absolute) {
                let reparsed = period::parse(&abs_text).map_err(|e| e.to_string())?;
                if reparsed != period::Period::Absolute(abs) {
                    return Err(format!("{abs_text} parses to {reparsed:?}"));
                }
                let relative = period::relative_code(&abs, ondate).map(|r| r.to_string());
                if relative.as_deref() != Some(tenor) {
                    return Err(format!("relative code of {abs_text} is {relative:?}"));
                }
            }
            Ok(())
        },
        |entry| period::parse(entry).is_err(),
    );
}
