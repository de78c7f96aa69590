//! Validation check expressions and configurations.

use crate::input::{selector, text, MAX_TEXT};
use chrono::NaiveDate;
use platform_core::query::period::{PeriodUnit, RelativePeriod};
use platform_core::validation::config::{self, Config};
use platform_core::validation::engine::{
    self, CheckDef, CheckScope, CheckStatus, ContractInput, CurveInput, Library, Options,
    PointOutcome, SeriesInput, Severity,
};
use platform_core::ErrorCode;
use serde_json::{Map, Value};

/// A script library whose functions shadow built-ins (`mean`, `lag`) and add new ones.
fn library() -> Library {
    Library {
        id: "lib".into(),
        source: "fn mean(n) { 0.5 } fn lag(k) { -1.0 } fn too_high(x) { x > 100.0 } \
                 fn twice(x) { x * 2 }"
            .into(),
    }
}

const MIN: i64 = 60_000;
const BASE: i64 = 1_704_067_200_000; // 2024-01-01T00:00:00Z

/// Series the point checks run over: a hand-made one with a missing value and a gap, and one
/// of awkward numbers (NaN, infinities, zeros of both signs, extremes) without a calendar.
fn series() -> Vec<SeriesInput> {
    let hand = [
        Some(10.0),
        Some(12.0),
        Some(11.0),
        Some(11.0),
        Some(11.0),
        None,
        Some(14.0),
        Some(100.0),
        Some(15.0),
        Some(16.0),
    ];
    let minutes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 11];
    let awkward = [
        Some(0.0),
        Some(-0.0),
        Some(f64::NAN),
        Some(f64::INFINITY),
        Some(f64::NEG_INFINITY),
        Some(1e308),
        Some(-1e308),
        Some(5e-324),
        None,
        Some(1.0),
        Some(1.0 + f64::EPSILON),
        Some(9_007_199_254_740_993.0),
        Some(-2.5),
    ];
    vec![
        SeriesInput {
            times: minutes.iter().map(|m| BASE + m * MIN).collect(),
            values: hand.to_vec(),
            step_ms: Some(MIN),
            ..SeriesInput::default()
        },
        SeriesInput {
            times: (0..awkward.len() as i64)
                .map(|i| BASE + i * i * MIN)
                .collect(),
            values: awkward.to_vec(),
            step_ms: None,
            // The missing value at 8 holds text.
            text: [(8, "n/a".to_string())].into(),
        },
    ]
}

/// A monthly curve on `ondate` with `values` for M01, M02...
fn curve(ondate: NaiveDate, values: &[Option<f64>]) -> CurveInput {
    let contracts = (1..)
        .zip(values)
        .filter_map(|(index, value)| {
            let rel = RelativePeriod {
                unit: PeriodUnit::Month,
                index,
            };
            let abs = rel.at(ondate).ok()?;
            Some(ContractInput {
                tenor: rel.to_string(),
                relative: rel.to_string(),
                absolute: abs.to_string(),
                value: *value,
                text: None,
                start: abs.start(),
                end: abs.end(),
                expiry: abs.delivery().expiry,
            })
        })
        .collect();
    CurveInput { ondate, contracts }
}

/// Outcomes without their timings.
fn strip(out: Vec<PointOutcome>) -> Vec<(usize, String, CheckStatus, String)> {
    out.into_iter()
        .flat_map(|p| {
            p.checks
                .into_iter()
                .map(move |c| (p.index, c.id, c.status, c.message))
        })
        .collect()
}

/// Check expressions, one per line (at most four). The first byte picks the scope (and whether
/// the checks' scopes alternate) and whether a script library is loaded. Compiling with and
/// without the native path succeeds or fails alike; compiled, the trial and every run give the
/// same statuses and messages on both paths.
pub fn check(data: &[u8]) {
    let (choice, rest) = selector(data);
    let Some(text) = text(rest, MAX_TEXT) else {
        return;
    };
    let scopes = [CheckScope::Point, CheckScope::Tenor, CheckScope::Curve];
    let first = usize::from(choice % 3);
    let mixed = choice & 8 != 0;
    let libs = if choice & 4 != 0 {
        vec![library()]
    } else {
        Vec::new()
    };
    let defs: Vec<CheckDef> = text
        .split('\n')
        .take(4)
        .enumerate()
        .map(|(i, expression)| CheckDef {
            id: format!("c{i}"),
            name: format!("check {i}"),
            expression: expression.to_string(),
            scope: scopes[(first + if mixed { i } else { 0 }) % 3],
            severity: Severity::Failed,
        })
        .collect();
    let native = engine::compile(&defs, &libs);
    let rhai = engine::compile_with(&defs, &libs, Options { native: false });
    let (native, rhai) = match (native, rhai) {
        (Ok(n), Ok(r)) => (n, r),
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string());
            assert_eq!(a.code(), ErrorCode::InvalidBody, "{a}");
            return;
        }
        (a, b) => panic!("{text:?}: native {:?}, rhai {:?}", a.err(), b.err()),
    };
    let trial = |c: &engine::CompiledChecks| c.trial().map_err(|e| e.to_string());
    assert_eq!(trial(&native), trial(&rhai), "{text:?}: trial");
    for s in series() {
        let targets: Vec<usize> = (0..s.values.len()).collect();
        assert_eq!(
            strip(native.run_series(&s, &targets)),
            strip(rhai.run_series(&s, &targets)),
            "{text:?}: over {:?} (text {:?})",
            s.values,
            s.text
        );
    }
    let date = |m, d| NaiveDate::from_ymd_opt(2024, m, d).expect("a fixed date");
    let today = curve(
        date(3, 1),
        &[Some(40.0), None, Some(f64::NAN), Some(41.5), Some(-1.0)],
    );
    let history = [
        curve(date(2, 29), &[Some(39.5), Some(40.0), None]),
        curve(date(2, 28), &[Some(39.5)]),
    ];
    let run = |c: &engine::CompiledChecks| {
        let out = c.run_curve(&today, &history);
        let curve: Vec<_> = out
            .curve
            .into_iter()
            .map(|o| (o.id, o.status, o.message))
            .collect();
        let tenors: Vec<_> = out
            .tenors
            .into_iter()
            .flat_map(|t| {
                t.checks
                    .into_iter()
                    .map(move |o| (t.tenor.clone(), o.id, o.status, o.message))
            })
            .collect();
        (curve, tenors)
    };
    assert_eq!(run(&native), run(&rhai), "{text:?}: curve");
}

/// Validation configurations (JSON): normalising is idempotent and its result always reads as
/// a configuration whose checks compile or are refused as the caller's mistake.
pub fn validation_config(data: &[u8]) {
    let Some(text) = text(data, MAX_TEXT) else {
        return;
    };
    let Ok(doc) = serde_json::from_str::<Map<String, Value>>(&text) else {
        return;
    };
    let normal = match config::normalise(doc) {
        Ok(normal) => normal,
        Err(e) => {
            assert_user_error(&e);
            return;
        }
    };
    assert_eq!(
        config::normalise(normal.clone()).ok().as_ref(),
        Some(&normal),
        "normalising twice"
    );
    let config = Config::from_doc(normal).expect("a normalised configuration reads");
    match config::compile(&config, &[]) {
        Ok(compiled) => {
            if let Err(e) = compiled.trial() {
                assert_user_error(&e);
            }
        }
        Err(e) => assert_user_error(&e),
    }
}

fn assert_user_error(e: &platform_core::Error) {
    assert!(
        matches!(
            e.code(),
            ErrorCode::InvalidBody | ErrorCode::InvalidParameter | ErrorCode::MissingParameter
        ),
        "{:?} {e}",
        e.code()
    );
}
