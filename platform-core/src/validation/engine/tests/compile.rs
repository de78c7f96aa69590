//! Compiling checks, the trial at save time, hostile checks, libraries, sharing across
//! threads, and the evaluation matrix.
use super::*;

#[test]
fn which_checks_go_native() {
    let native = [
        "value > 0",
        "between(value, 0, 1000)",
        "abs(pct_change(1)) < 0.2",
        "run_length() < 5",
        "abs(zscore(20)) < 3",
        "abs(robust_z(50)) < 3.5",
        "gap() <= 1",
        "!is_missing()",
        "value >= 10 && value <= 90",
        "missing || (value > quantile(30, 0.99)) == false",
        "value - prev() < 3",
        "abs(value - mean(20)) < 3 * stdev(20)",
        "if value > 5 { value % 2 < 1 } else { value / 2 > -1 }",
    ];
    let custom = ["value ** 2 < 3", "time > \"2024\"", "lag(value) > 0"];
    let mut defs: Vec<CheckDef> = native
        .iter()
        .enumerate()
        .map(|(i, e)| point(&format!("n{i}"), e))
        .collect();
    defs.extend(
        custom
            .iter()
            .enumerate()
            .map(|(i, e)| point(&format!("c{i}"), e)),
    );
    defs.push(check("t", "value > 0", CheckScope::Tenor));
    let checks = compile(&defs, &[]).unwrap();
    let want: Vec<String> = (0..native.len()).map(|i| format!("n{i}")).collect();
    assert_eq!(checks.native_ids(), want);
    run_both(&defs, &hand(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
}

#[test]
fn compile_errors_name_the_check() {
    let err = |defs: &[CheckDef]| compile(defs, &[]).unwrap_err();
    let e = err(&[point("typo", "valeu > 0")]);
    assert_eq!(e.code(), ErrorCode::InvalidBody);
    let text = e.to_string();
    assert!(
        text.contains("check \"typo\"") && text.contains("valeu"),
        "{text}"
    );
    for (id, expr) in [
        ("loop", "while true { }"),
        ("for", "for x in 0..3 { x }"),
        ("let", "{ let x = 1; x > 0 }"),
        ("eval", "eval(\"value > 0\")"),
        ("closure", "(|x| x > 0).call(value)"),
        ("syntax", "value > "),
        ("empty", "  "),
        ("tenor-time", "time > \"x\""),
    ] {
        let scope = if id == "tenor-time" {
            CheckScope::Tenor
        } else {
            CheckScope::Point
        };
        let text = err(&[check(id, expr, scope)]).to_string();
        assert!(text.contains(&format!("check \"{id}\"")), "{id}: {text}");
    }
    // At most 1,000 characters.
    let ok = format!("value > 0{}", " ".repeat(MAX_EXPRESSION_CHARS - 9));
    assert!(compile(&[point("max", &ok)], &[]).is_ok());
    let long = format!("{ok} ");
    let text = err(&[point("long", &long)]).to_string();
    assert!(
        text.contains("check \"long\"") && text.contains("1000"),
        "{text}"
    );
    // A library that does not compile names the script.
    let lib = Library {
        id: "helpers".into(),
        source: "fn broken( {".into(),
    };
    let text = compile(&[point("ok", "value > 0")], &[lib])
        .unwrap_err()
        .to_string();
    assert!(text.contains("script \"helpers\""), "{text}");
}

#[test]
fn trial_catches_what_compiling_cannot() {
    let trial = |defs: &[CheckDef]| compile(defs, &[]).unwrap().trial();
    for (id, expr, scope, reason) in [
        ("unknown", "nosuchfn(value)", CheckScope::Point, "nosuchfn"),
        (
            "number",
            "value + 1",
            CheckScope::Point,
            "not true or false",
        ),
        ("text", "time", CheckScope::Point, "not true or false"),
        (
            "badq",
            "quantile(10, 2) < value",
            CheckScope::Point,
            "between 0 and 1",
        ),
        ("badk", "lag(-1) < value", CheckScope::Point, "whole number"),
        (
            "wrongscope",
            "lag(1) < value",
            CheckScope::Tenor,
            "point checks",
        ),
        (
            "curvefn",
            "prev_tenor(1) > 0",
            CheckScope::Curve,
            "tenor checks",
        ),
        ("method", "value.nosuch() > 1", CheckScope::Point, "nosuch"),
    ] {
        let e = trial(&[check(id, expr, scope)]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidBody);
        let text = e.to_string();
        assert!(text.contains(&format!("check \"{id}\"")), "{id}: {text}");
        assert!(text.contains(reason), "{id}: {text}");
    }
    let fine = [
        point("p1", "abs(pct_change(1)) < 0.5 && abs(zscore(20)) < 10"),
        point("p2", "value - prev() < 30 || missing"),
        point("p3", "time > \"2023\" && gap() == 1 && run_length() < 5"),
        check(
            "t1",
            "tenor_pct_change(1) < 0.5 && contract.absolute != \"\"",
            CheckScope::Tenor,
        ),
        check(
            "t2",
            "tenor.len() == 3 && excess_move() < 1",
            CheckScope::Tenor,
        ),
        check(
            "c1",
            "tenor_count() == contracts && sorted() && unique() && no_gaps()",
            CheckScope::Curve,
        ),
        check(
            "c2",
            "has_tenor(\"M01\") && ondate == \"2024-03-01\"",
            CheckScope::Curve,
        ),
    ];
    trial(&fine).unwrap();
}

fn hostile_libs() -> Vec<Library> {
    vec![Library {
        id: "hostile".into(),
        source: r#"
            fn deep(n) { deep(n + 1) }
            fn spin() { loop { } }
            fn big(n) { let s = "x"; while s.len() < n { s += s; } s.len() }
            fn many() { let a = []; loop { a.push(1); } }
        "#
        .into(),
    }]
}

#[test]
fn hostile_checks_end_in_an_error() {
    let defs = [
        point("deep", "deep(1) > 0"),
        point("spin", "spin()"),
        point("big", "big(100000000) > 0"),
        point("many", "many() > 0"),
        point("fine", "value > 0"),
    ];
    let checks = compile(&defs, &hostile_libs()).unwrap();
    assert!(checks.trial().is_err());
    let out = checks.run_series(&hand(), &[0, 4]);
    for p in &out {
        let status: Vec<CheckStatus> = p.checks.iter().map(|c| c.status).collect();
        use CheckStatus::{Error, Pass};
        assert_eq!(status, [Error, Error, Error, Error, Pass], "{p:?}");
        assert!(p.checks[..4].iter().all(|c| !c.message.is_empty()));
    }
    // A deeply nested expression is refused or fails, never overflows the stack.
    let nested = format!("{}value{} > 0", "(".repeat(400), ")".repeat(400));
    match compile(&[point("nested", &nested)], &[]) {
        Err(e) => assert!(e.to_string().contains("check \"nested\""), "{e}"),
        Ok(c) => {
            let _ = c.run_series(&hand(), &[0]);
        }
    }
    // Hostile tenor checks too.
    let tenor = [check("deep", "deep(1) > 0", CheckScope::Tenor)];
    let checks = compile(&tenor, &hostile_libs()).unwrap();
    let (curve, history) = sample_curve();
    let out = checks.run_curve(&curve, &history);
    assert!(out
        .tenors
        .iter()
        .all(|t| t.checks[0].status == CheckStatus::Error));
}

#[test]
fn libraries_are_callable_and_may_shadow_builtins() {
    let libs = [
        Library {
            id: "bands".into(),
            source: "fn band(x, lo, hi) { x >= lo && x <= hi } let ignored = 1;".into(),
        },
        Library {
            id: "history".into(),
            source: "fn jump() { abs(pct_change(1)) } fn mean(n) { 42.0 }".into(),
        },
    ];
    let defs = [
        point("band", "band(value, 0, 50)"),
        point("jump", "jump() < 0.5"),
        point("shadow", "mean(3) == 42.0"),
    ];
    let checks = compile(&defs, &libs).unwrap();
    assert!(checks.native_ids().is_empty());
    checks.trial().unwrap();
    let out = checks.run_series(&hand(), &[4, 7]);
    let status = |p: usize, c: usize| out[p].checks[c].status;
    assert_eq!(status(0, 0), CheckStatus::Pass);
    assert_eq!(status(1, 0), CheckStatus::Fail);
    assert_eq!(status(0, 1), CheckStatus::Pass);
    assert_eq!(status(1, 1), CheckStatus::Fail);
    assert_eq!(status(0, 2), CheckStatus::Pass);
    assert_eq!(status(1, 2), CheckStatus::Pass);
}

#[test]
fn compiled_checks_are_shared_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<CompiledChecks>();
    let checks = Arc::new(
        compile(
            &[
                point("a", "value > 10.5"),
                point("b", "value - prev() < 50"),
            ],
            &[],
        )
        .unwrap(),
    );
    let want = strip(checks.run_series(&hand(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let checks = checks.clone();
            std::thread::spawn(move || {
                strip(checks.run_series(&hand(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), want);
    }
}

#[test]
fn evaluation_matrix_matches_outcomes() {
    let defs = [point("a", "value > 10.5"), point("b", "value < 50")];
    let checks = compile(&defs, &[]).unwrap();
    let s = hand();
    let eval = checks.evaluate_series(&s, &[4, 5, 7, 42]);
    assert_eq!(eval.target_count(), 3);
    let indices: Vec<usize> = (0..3).map(|j| eval.index(j)).collect();
    assert_eq!(indices, [4, 5, 7]);
    let range = checks.evaluate_series(&s, &[7, 8, 9]);
    assert_eq!((range.target_count(), range.index(2)), (3, 9));
    assert_eq!(range.status(1, 0), CheckStatus::Fail);
    assert_eq!(eval.check_ids(), ["a", "b"]);
    assert_eq!(eval.status(0, 1), CheckStatus::Skipped);
    assert_eq!(eval.status(1, 2), CheckStatus::Fail);
    assert_eq!(eval.message(1, 2), "value 100, expected < 50");
    let out = eval.into_outcomes();
    assert_eq!(out.len(), 3);
    assert_eq!(out[2].index, 7);
    assert!(out[2].checks[1].micros >= 0.0);
}

#[test]
fn a_call_with_more_arguments_than_any_function_takes_is_refused_where_it_hides() {
    // A call to a function that does not exist, in a branch no sample takes: rhai would try
    // 2^n argument-type combinations at every point that reaches it.
    let args = vec!["2"; 15].join(",");
    let hidden = format!("if value > 1e300 {{ pree({args}) }} else {{ true }}");
    let e = compile(&[point("wide", &hidden)], &[]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidBody);
    let text = e.to_string();
    assert!(
        text.contains("check \"wide\"") && text.contains("pree(...) has 15 arguments"),
        "{text}"
    );
    let lib = Library {
        id: "lib".into(),
        source: format!("fn wide() {{ missing_fn({args}) }}"),
    };
    let e = compile(&[point("ok", "value > 0")], &[lib]).unwrap_err();
    assert!(e.to_string().contains("script \"lib\""), "{e}");
    // Up to the limit, and commas inside nested calls, arrays and strings, are fine.
    for ok in [
        "between(value, 0, 100)",
        "value in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] || \"a,b,c,d,e,f,g,h,i,j\" != \"\"",
        "max(min(value, 1), min(2, 3)) > 0 || between(value, 1, 2)",
    ] {
        assert!(compile(&[point("ok", ok)], &[]).is_ok(), "{ok}");
    }
    assert_eq!(
        parse::widest_call("f(1, g(2, 3, [4, 5, 6], \"7,8\"), h())"),
        Some(("g".to_string(), 4))
    );
    assert_eq!(parse::widest_call("f()"), Some(("f".to_string(), 0)));
    assert_eq!(
        parse::widest_call(&format!("a(){args}, b({args})")),
        Some(("b".to_string(), 15))
    );
}

#[test]
fn a_run_reading_only_the_history_its_checks_need_gives_what_the_whole_series_gives() {
    // 60 minutes with repeats, a missing value and a text value.
    let mut s = series_at(
        &(0..60)
            .map(|i| match i {
                17 => None,
                _ => Some(f64::from((i * 7) % 5) + if i > 45 { 3.0 } else { 0.0 }),
            })
            .collect::<Vec<_>>(),
        &(0..60).collect::<Vec<_>>(),
    );
    s.values[23] = None;
    s.text.insert(23, "n/a".into());
    let lib = Library {
        id: "moves".into(),
        source: "fn jump(k) { abs(change(k)) } fn two() { jump(2) }".into(),
    };
    for (expr, need) in [
        ("gap() <= 1", 1),
        ("value < mean(5) + 2", 5),
        ("abs(pct_change(3)) < 0.5 && spike() < 3", 3),
        ("run_length() < 3", MAX_HISTORY),
        ("mean(2 * 4) > 1", MAX_HISTORY),
        ("two() < 2", MAX_HISTORY),
        ("quantile(12, 0.5) <= value || count(4) < 4", 12),
    ] {
        let checks = compile(&[point("c", expr)], std::slice::from_ref(&lib)).unwrap();
        assert_eq!(checks.point_history(), need, "{expr}");
        let first = 30;
        let targets: Vec<usize> = (first..60).collect();
        let whole = strip(checks.run_series(&s, &targets));
        // The series from `need` before the first target on.
        let start = first.saturating_sub(need);
        let cut = SeriesInput {
            times: s.times[start..].to_vec(),
            values: s.values[start..].to_vec(),
            text: s
                .text
                .range(start..)
                .map(|(i, t)| (i - start, t.clone()))
                .collect(),
            step_ms: s.step_ms,
        };
        let moved: Vec<usize> = targets.iter().map(|t| t - start).collect();
        let part: Vec<_> = strip(checks.run_series(&cut, &moved))
            .into_iter()
            .map(|(i, id, status, m)| (i + start, id, status, m))
            .collect();
        assert_eq!(part, whole, "{expr}");
    }
}
