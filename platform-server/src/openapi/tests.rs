//! The route table's paths and the document made from it.

use super::*;
use crate::endpoint::{BodyDoc, Verb};

/// The `/{service}/...` paths `register_generic_first` puts in the order of their use: each
/// is whole segments (a literal, or a `{name}` that matches one segment), and no two have
/// as many, so a path can match one of them at most, in whatever order they are tried.
#[test]
fn generic_paths_differ_in_their_segments() {
    let mut counts = Vec::new();
    for e in endpoints().filter(|e| e.path.starts_with("/{service}")) {
        let segments: Vec<&str> = e.path[1..].split('/').collect();
        for s in &segments {
            let whole = s.starts_with('{') && s.ends_with('}') && !s.contains(':');
            assert!(whole || !s.contains(['{', '}', '*']), "{}: {s}", e.path);
        }
        counts.push((segments.len(), e.path));
    }
    counts.dedup();
    let mut by_count = counts.clone();
    by_count.sort();
    by_count.dedup_by_key(|(n, _)| *n);
    assert_eq!(by_count.len(), counts.len(), "{counts:?}");
    assert!(counts.len() >= 6);
}

#[test]
fn each_path_is_one_run_of_the_table_and_each_method_once() {
    let all: Vec<&Endpoint> = endpoints().collect();
    let mut seen: Vec<&str> = Vec::new();
    for (i, e) in all.iter().enumerate() {
        if i > 0 && all[i - 1].path == e.path {
            assert!(
                !all[..i]
                    .iter()
                    .any(|o| o.path == e.path && o.verb == e.verb),
                "{e:?} twice"
            );
            continue;
        }
        assert!(!seen.contains(&e.path), "{e:?}: its path is not one run");
        seen.push(e.path);
    }
}

#[test]
fn every_query_parameter_is_documented_and_read_by_the_platform() {
    use platform_core::api::limits::{STANDARD, SYSTEM_FIELDS};
    for e in endpoints() {
        for name in e.query {
            assert!(query_parameter_doc(name).is_some(), "{e:?}: {name}");
            if name.starts_with('_') {
                assert!(
                    STANDARD.contains(name) || SYSTEM_FIELDS.contains(name),
                    "{e:?}: {name} would be refused as unknown"
                );
            }
        }
        assert_eq!(
            e.functions.is_empty(),
            !e.query.contains(&"_function"),
            "{e:?}: _function and its values go together"
        );
        assert_eq!(
            e.path.contains("{service}"),
            !e.services.is_empty(),
            "{e:?}: a generic path names its services"
        );
    }
}

#[test]
fn only_the_functions_of_a_method_with_a_body_read_one() {
    for e in endpoints().filter(|e| matches!(e.verb, Verb::Get | Verb::Delete)) {
        for f in e.functions {
            assert_eq!(f.body, BodyDoc::None, "{e:?} _function={}", f.name);
        }
    }
}

#[test]
fn every_standard_parameter_is_documented_on_some_endpoint() {
    for name in platform_core::api::limits::STANDARD {
        assert!(
            endpoints().any(|e| e.query.contains(&name)),
            "{name} is read by the platform but no endpoint documents it"
        );
    }
}

#[test]
fn the_documented_threshold_of_exact_totals_is_the_stores() {
    // `_count` and `x-platform-total` are documented with the number written out.
    let said = "10,000";
    assert!(query_parameter_doc("_count").unwrap().1.contains(said));
    assert_eq!(
        platform_core::api::limits::EXACT_TOTAL_UP_TO.to_string(),
        said.replace(',', "")
    );
}

#[test]
fn only_services_no_other_path_starts_with_are_routed_first() {
    // `extension`, `validationconfig` and `automation` have paths of their own (and
    // `console` its pages): their requests keep the full order of the route table.
    assert_eq!(
        generic_only_services(crate::console::SEGMENT),
        ["calendar", "data", "object", "script", "type"]
    );
    // A service named like the console's segment would not be routed first.
    assert!(!generic_only_services("object").contains(&"object"));
}

#[test]
fn operation_ids_are_unique() {
    let mut ids = std::collections::BTreeSet::new();
    for e in endpoints() {
        for path in e.documented_paths() {
            assert!(ids.insert(operation_id(e.verb, &path)), "{e:?} {path}");
        }
    }
}
