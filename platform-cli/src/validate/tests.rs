//! The request bodies and gates of `platform validate`.

use super::print::counts_line;
use super::*;

#[test]
fn counts_lines() {
    assert_eq!(
        counts_line(3, "point", &json!({"valid": 2, "severe": 1})),
        "3 points: valid 2, severe 1"
    );
    assert_eq!(counts_line(1, "target", &json!({})), "1 target");
}

#[test]
fn tuned_configs_take_the_suggested_expressions() {
    let saved = json!({"_id": "A:B", "_version": 3, "kind": "timeseries", "checks": [
        {"id": "range", "expression": "between(value, 20, 52)"},
        {"id": "positive", "expression": "value > 0"}
    ]});
    let out = json!({"results": [{"checks": [
        {"id": "range", "suggested": "between(value, 20, 60)"},
        {"id": "positive", "suggested": null}
    ]}]});
    assert_eq!(
        tuned_config(saved, &out),
        json!({"_id": "A:B", "kind": "timeseries", "checks": [
            {"id": "range", "expression": "between(value, 20, 60)"},
            {"id": "positive", "expression": "value > 0"}
        ]})
    );
}

#[test]
fn requests_carry_only_what_is_given() {
    let sel = Selection {
        points: Points {
            points: vec![],
            from: Some("2024-07-01".into()),
            to: None,
        },
        checks: vec!["positive".into()],
        tenors: vec![],
        format: Format::Json,
        fail_on: FailOn::Failed,
        all: true,
    };
    assert_eq!(
        request(Some("A:B"), &sel, true, None),
        json!({"target": "A:B", "from": "2024-07-01", "checks": ["positive"], "background": true})
    );
}

#[test]
fn skipped_points_pass_every_gate() {
    // A check without the history it needs is skipped: never a failure, whatever --fail-on.
    let skipped = json!({"counts": {"skipped": 1, "valid": 46}});
    for fail_on in [FailOn::Failed, FailOn::Warning, FailOn::Never] {
        assert!(passes(&skipped, fail_on));
    }
    let failed = json!({"counts": {"skipped": 1, "valid": 45, "failed": 1}});
    assert!(!passes(&failed, FailOn::Failed));
    assert!(!passes(&failed, FailOn::Warning));
}
