//! The native path against rhai on random expressions and series, number texts, and the
//! statistics against their definitions (property tests).
use super::*;

fn term() -> impl Strategy<Value = String> {
    let window = prop_oneof![
        Just("mean"),
        Just("stdev"),
        Just("median"),
        Just("mad"),
        Just("min_of"),
        Just("max_of"),
        Just("count"),
        Just("zscore"),
        Just("robust_z"),
    ];
    prop_oneof![
        3 => Just("value".to_string()),
        1 => (0usize..4).prop_map(|k| format!("lag({k})")),
        1 => Just("prev()".to_string()),
        1 => Just("change()".to_string()),
        1 => (0usize..4).prop_map(|k| format!("change({k})")),
        1 => Just("pct_change()".to_string()),
        1 => (1usize..4).prop_map(|k| format!("pct_change({k})")),
        4 => (window, 0usize..8).prop_map(|(f, n)| format!("{f}({n})")),
        1 => (0usize..8, 0u32..=4).prop_map(|(n, q)| match q {
            0 => format!("quantile({n}, 0)"),
            4 => format!("quantile({n}, 1)"),
            q => format!("quantile({n}, {})", f64::from(q) / 4.0),
        }),
        1 => Just("run_length()".to_string()),
        1 => (0u32..3).prop_map(|t| format!("run_length({t}.5)")),
        1 => Just("gap()".to_string()),
        1 => Just("spike()".to_string()),
    ]
}

fn lit() -> impl Strategy<Value = String> {
    prop_oneof![
        (-5i32..30).prop_map(|i| i.to_string()),
        (-500i32..5000).prop_map(|i| format!("{:.2}", f64::from(i) / 100.0)),
        Just("0".to_string()),
        Just("1".to_string()),
        Just("3.5".to_string()),
    ]
}

fn number() -> impl Strategy<Value = String> {
    term().prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|n| format!("abs({n})")),
            inner.clone().prop_map(|n| format!("-({n})")),
            (inner.clone(), lit()).prop_map(|(n, l)| format!("min({n}, {l})")),
            (lit(), inner.clone()).prop_map(|(l, n)| format!("max({l}, {n})")),
            inner.clone().prop_map(|n| format!("round({n})")),
            inner.clone().prop_map(|n| format!("sqrt(abs({n}))")),
            (inner.clone(), lit(), lit()).prop_map(|(n, a, b)| format!("clamp({n}, {a}, {b})")),
            (inner.clone(), arith(), lit()).prop_map(|(n, o, l)| format!("({n} {o} {l})")),
            (lit(), arith(), inner.clone()).prop_map(|(l, o, n)| format!("({l} {o} {n})")),
            (inner.clone(), arith(), inner.clone(), arith(), lit())
                .prop_map(|(a, o, b, p, l)| format!("({a} {o} {b} {p} {l})")),
            // Integer arithmetic that rhai can do without an error (it is folded).
            (
                lit(),
                prop_oneof![Just("+"), Just("-"), Just("*")],
                lit(),
                inner
            )
                .prop_map(|(a, o, b, n)| format!("(({a} {o} {b}) * {n})")),
        ]
    })
}

fn arith() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("+"), Just("-"), Just("*"), Just("/"), Just("%")]
}

fn op() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("<"),
        Just("<="),
        Just(">"),
        Just(">="),
        Just("=="),
        Just("!=")
    ]
}

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (number(), op(), lit()).prop_map(|(n, o, l)| format!("{n} {o} {l}")),
        2 => (lit(), op(), number()).prop_map(|(l, o, n)| format!("{l} {o} {n}")),
        2 => (number(), op(), number()).prop_map(|(a, o, b)| format!("{a} {o} {b}")),
        3 => (number(), lit(), lit()).prop_map(|(n, a, b)| format!("between({n}, {a}, {b})")),
        1 => Just("is_missing()".to_string()),
        1 => Just("!is_missing()".to_string()),
        1 => Just("missing".to_string()),
        1 => number().prop_map(|n| format!("is_finite({n})")),
        1 => number().prop_map(|n| format!("is_zero({n})")),
        1 => number().prop_map(|n| format!("is_negative({n})")),
        1 => number().prop_map(|n| format!("on_tick({n}, 0.5)")),
    ]
}

fn expression() -> impl Strategy<Value = String> {
    atom().prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) || ({b})")),
            inner.clone().prop_map(|a| format!("!({a})")),
            (inner.clone(), inner.clone(), inner)
                .prop_map(|(c, a, b)| format!("if {c} {{ {a} }} else {{ {b} }}")),
        ]
    })
}

fn series() -> impl Strategy<Value = SeriesInput> {
    let value = prop_oneof![
        2 => Just(None),
        4 => (0i32..4).prop_map(|i| Some(f64::from(i))),
        6 => (-10_000i32..10_000).prop_map(|i| Some(f64::from(i) / 100.0)),
        1 => prop_oneof![Just(1e4), Just(-1e4), Just(5e6)].prop_map(Some),
        1 => prop_oneof![Just(0.0), Just(1.0 + f64::EPSILON), Just(1e-300)].prop_map(Some),
        1 => prop_oneof![Just(f64::INFINITY), Just(f64::NAN)].prop_map(Some),
    ];
    let step = prop_oneof![8 => Just(1i64), 1 => 2i64..5];
    // One point in 16 holds text instead.
    let text = 0u8..16;
    (
        proptest::collection::vec((value, step, text), 1..60),
        any::<bool>(),
    )
        .prop_map(|(points, dense)| {
            let mut minute = 0;
            let mut s = SeriesInput {
                step_ms: dense.then_some(MIN),
                ..SeriesInput::default()
            };
            for (i, (v, step, text)) in points.into_iter().enumerate() {
                minute += step;
                s.times.push(BASE + minute * MIN);
                if text == 0 {
                    s.values.push(None);
                    s.text.insert(i, format!("t{i}"));
                } else {
                    s.values.push(v);
                }
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// The native path and rhai give identical statuses and messages.
    #[test]
    fn native_equals_rhai(
        exprs in proptest::collection::vec(expression(), 1..4),
        s in series(),
        first in 0usize..20,
    ) {
        let defs: Vec<CheckDef> = exprs
            .iter()
            .enumerate()
            .map(|(i, e)| point(&format!("p{i}"), e))
            .collect();
        let native = compile(&defs, &[]).unwrap();
        let ids: Vec<String> = defs.iter().map(|d| d.id.clone()).collect();
        prop_assert_eq!(native.native_ids(), ids, "not all native: {:?}", exprs);
        let rhai = compile_with(&defs, &[], Options { native: false }).unwrap();
        let targets: Vec<usize> = (first.min(s.values.len() - 1)..s.values.len()).collect();
        let a = strip(native.run_series(&s, &targets));
        let b = strip(rhai.run_series(&s, &targets));
        prop_assert_eq!(a, b, "{:?}", exprs);
    }
}

#[test]
fn number_text() {
    use crate::validation::engine::native::fmt_num;
    assert_eq!(fmt_num(4520.0), "4520");
    assert_eq!(fmt_num(0.35000000000000003), "0.35");
    assert_eq!(fmt_num(-1.0 / 12.0), "-0.0833333");
    assert_eq!(fmt_num(1234567.89), "1234570");
    assert_eq!(fmt_num(f64::NAN), "NaN");
    assert_eq!(fmt_num(f64::NEG_INFINITY), "-inf");
    assert_eq!(fmt_num(-0.0), "0");
}

proptest! {
    /// The selection quantile equals the one read off a sorted copy (type 7).
    #[test]
    fn quantile_by_selection_equals_sorting(
        xs in proptest::collection::vec(prop_oneof![
            8 => -1e6f64..1e6,
            1 => Just(f64::NAN),
            1 => Just(f64::INFINITY),
            1 => Just(0.0),
        ], 1..60),
        q in prop_oneof![Just(0.0), Just(0.5), Just(1.0), 0.0f64..=1.0],
    ) {
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        let h = (sorted.len() - 1) as f64 * q;
        let lo = h.floor() as usize;
        let hi = (lo + 1).min(sorted.len() - 1);
        let want = sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]);
        let mut work = xs.clone();
        let got = crate::validation::engine::series::quantile(&mut work, q);
        prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{got} vs {want}");
    }
}

proptest! {
    /// Window statistics computed on sliding sorted windows equal the ones computed from each
    /// target's window afresh (sorted copy, type 7 quantile); NaN where the window is not
    /// whole.
    #[test]
    fn sliding_window_statistics_equal_fresh_ones(
        s in series(),
        n in 0usize..12,
        first in 0usize..20,
        skip_some in any::<bool>(),
    ) {
        use crate::validation::engine::native::PointStat;
        let len = s.values.len();
        let mut targets: Vec<usize> = (first.min(len - 1)..len).collect();
        if skip_some {
            targets.retain(|t| t % 3 != 1);
        }
        let ctx = crate::validation::engine::series::SeriesCtx::new(&s, &targets);
        let values: Vec<f64> = s.values.iter().map(|v| v.unwrap_or(f64::NAN)).collect();
        let fresh = |t: usize| -> Vec<f64> {
            if t < n {
                return Vec::new();
            }
            let mut v: Vec<f64> = values[t - n..t].iter().copied().filter(|x| !x.is_nan()).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let q7 = |v: &[f64], q: f64| crate::validation::engine::series::quantile_sorted(v, q);
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let median = ctx.column(PointStat::Median(n));
        let mad = ctx.column(PointStat::Mad(n));
        let q90 = ctx.column(PointStat::Quantile(n, 0.9f64.to_bits()));
        for (j, &t) in targets.iter().enumerate() {
            let w = fresh(t);
            let m = q7(&w, 0.5);
            let mut dev: Vec<f64> = w.iter().map(|x| (x - m).abs()).collect();
            dev.sort_by(f64::total_cmp);
            prop_assert!(same(median[j], m), "median at {t}: {} vs {m}", median[j]);
            prop_assert!(same(mad[j], q7(&dev, 0.5)), "mad at {t}");
            prop_assert!(same(q90[j], q7(&w, 0.9)), "q90 at {t}");
        }
    }
}
