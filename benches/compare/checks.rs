//! The validation workload W7: checks evaluated over many series, compared with pandera.

use crate::contestants::{header, open_core, Core};
use crate::seeded::{w7_values, W7_START};
use crate::timing::{emit, paired, time_ms};
use crate::{runs, Sizes, DAY, MINUTE};
use platform_core::api::validation::ValidationBatch;
use platform_core::data::model::Point;
use platform_core::documents::SaveOptions;
use platform_core::store::Collection;
use platform_core::validation::engine::{
    compile_with, CheckDef, CheckScope, CheckStatus, CompiledChecks, Options, SeriesInput, Severity,
};
use serde_json::{json, Value};

pub(crate) fn def(id: &str, expression: &str) -> CheckDef {
    CheckDef {
        id: id.into(),
        name: id.into(),
        expression: expression.into(),
        scope: CheckScope::Point,
        severity: Severity::Failed,
    }
}

/// The four checks compared with pandera.
pub(crate) fn w7_defs() -> Vec<CheckDef> {
    vec![
        def("range", "between(value, 0, 1000)"),
        def("change", "abs(pct_change(1)) < 0.5"),
        def("stale", "run_length() < 30"),
        def("missing", "!is_missing()"),
    ]
}

pub(crate) fn evaluate_all(
    checks: &CompiledChecks,
    inputs: &[SeriesInput],
    targets: &[usize],
) -> usize {
    let mut failures = 0;
    for input in inputs {
        let eval = checks.evaluate_series(input, targets);
        for c in 0..4 {
            failures += (0..targets.len())
                .filter(|&t| eval.status(c, t) != CheckStatus::Pass)
                .count();
        }
    }
    failures
}

pub(crate) fn w7(s: &Sizes) {
    let data = w7_values(s);
    let inputs: Vec<SeriesInput> = data
        .iter()
        .map(|values| SeriesInput {
            times: (0..values.len() as i64)
                .map(|i| W7_START + i * MINUTE)
                .collect(),
            values: values.iter().map(|v| Some(*v)).collect(),
            step_ms: Some(MINUTE),
            ..SeriesInput::default()
        })
        .collect();
    let targets: Vec<usize> = (0..DAY).collect();
    let native = compile_with(&w7_defs(), &[], Options { native: true }).unwrap();
    let rhai = compile_with(&w7_defs(), &[], Options { native: false }).unwrap();
    let mut failures = 0;
    let samples: Vec<f64> = (0..runs())
        .map(|_| {
            let (ms, f) = time_ms(|| evaluate_all(&native, &inputs, &targets));
            failures = f;
            ms
        })
        .collect();
    let case = format!(
        "range, change, stale, missing over {} series x {DAY} points",
        s.vseries
    );
    emit(
        "W7",
        &case,
        "platform",
        &samples,
        json!({"failures": failures}),
    );
    // Native against rhai per point, on the first 50 series (rhai is slow).
    let few = &inputs[..inputs.len().min(50)];
    let per_point = 1e6 / (few.len() * DAY * 4) as f64;
    let (a, b) = paired(
        runs(),
        || time_ms(|| evaluate_all(&native, few, &targets)).0 * per_point,
        || time_ms(|| evaluate_all(&rhai, few, &targets)).0 * per_point,
    );
    let extra = json!({"unit": "ns per point and check", "series": few.len()});
    emit(
        "W7",
        "per point and check: native path",
        "platform",
        &a,
        extra.clone(),
    );
    emit(
        "W7",
        "per point and check: rhai path",
        "platform-rhai",
        &b,
        extra,
    );
    // The full run: ten checks, records stored.
    let full: Vec<f64> = (0..runs().min(3))
        .map(|_| {
            let setup = validation_setup(&data);
            time_ms(|| {
                // All series from the first day: a background job, run here by the job
                // worker's own entry point (as benches/validation.rs does).
                let (core, targets) = &setup;
                let queued = core
                    .platform
                    .validation()
                    .run_batch(
                        &core.who,
                        &ValidationBatch::from_body(
                            &json!({"targets": targets, "from": "2024-01-01"}),
                        )
                        .unwrap(),
                    )
                    .unwrap();
                assert!(queued.background, "{queued:?}");
                assert!(core.platform.jobs().run_next().unwrap());
                let jobs = core.platform.jobs().jobs(&core.who).unwrap();
                let records: u64 = jobs[0].result.as_ref().expect("the job's result")["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["points"].as_u64().unwrap_or(0))
                    .sum();
                assert_eq!(records as usize, data.len() * DAY);
            })
            .0
        })
        .collect();
    let case = format!(
        "full run: {} series x {DAY} points, 10 checks, records stored",
        s.vseries
    );
    emit("W7", &case, "platform", &full, json!({}));
}

pub(crate) const CHECKS: &str = r#"[
  {"name": "range", "expression": "between(value, 0, 1000)"},
  {"name": "spike", "expression": "abs(pct_change(1)) < 0.5"},
  {"name": "stale", "expression": "run_length() < 30"},
  {"name": "missing", "expression": "!is_missing()", "severity": "warning"},
  {"name": "z20", "expression": "abs(zscore(20)) < 6"},
  {"name": "robust", "expression": "abs(robust_z(50)) < 8", "severity": "warning"},
  {"name": "custom1", "expression": "value * 2 > lag(1) - 100"},
  {"name": "custom2", "expression": "if value > 500 { value < 999 } else { value >= 0 }"},
  {"name": "custom3", "expression": "max_of(10) - min_of(10) < 400 || value > 0"},
  {"name": "custom4", "expression": "round(value) >= 0 && mean(5) > -1"}
]"#;

/// The W7 series with the ten checks of benches/validation.rs configured on each.
pub(crate) fn validation_setup(data: &[Vec<f64>]) -> (Core, Vec<String>) {
    let core = open_core();
    let checks: Value = serde_json::from_str(CHECKS).unwrap();
    let mut targets = Vec::with_capacity(data.len());
    for (k, values) in data.iter().enumerate() {
        let object = format!("S{k:04}");
        let pts: Vec<Point> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| Point::num(W7_START + i as i64 * MINUTE, v))
            .collect();
        core.platform
            .data()
            .save_series(
                &core.who,
                &object,
                "price",
                header(),
                pts,
                &SaveOptions::default(),
            )
            .unwrap();
        let target = format!("{object}:price");
        core.platform
            .objects()
            .save(
                &core.who,
                Collection::ValidationConfig,
                json!({"_id": target, "kind": "timeseries", "checks": checks,
                       "options": {"lookback": 50, "maxPoints": 5000}}),
                &SaveOptions::default(),
            )
            .unwrap();
        targets.push(target);
    }
    (core, targets)
}
