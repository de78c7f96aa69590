//! Tenor and curve built-ins: contracts matched by absolute period across a roll, and the
//! curve functions.
use super::*;

/// A contract of `code` (relative, absolute or balance-of) at `ondate`.
fn contract(code: &str, ondate: NaiveDate, value: Option<f64>) -> ContractInput {
    let p = period::parse(code).unwrap();
    let r = p.resolve(ondate).unwrap();
    let relative = match p {
        period::Period::Absolute(a) => a
            .relative_at(ondate)
            .map(|r| r.to_string())
            .unwrap_or_default(),
        _ => p.to_string(),
    };
    ContractInput {
        tenor: code.to_string(),
        relative,
        absolute: r.absolute.map(|a| a.to_string()).unwrap_or_default(),
        value,
        text: None,
        start: r.delivery.start,
        end: r.delivery.end,
        expiry: r.delivery.expiry,
    }
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

fn curve(ondate: NaiveDate, contracts: &[(&str, Option<f64>)]) -> CurveInput {
    CurveInput {
        ondate,
        contracts: contracts
            .iter()
            .map(|(c, v)| contract(c, ondate, *v))
            .collect(),
    }
}

/// A tenor term's value per contract, as the failure messages show it.
fn tenor_nums(term: &str, c: &CurveInput, history: &[CurveInput]) -> Vec<String> {
    let checks = compile(
        &[check(
            "t",
            &format!("{term} == -987.125"),
            CheckScope::Tenor,
        )],
        &[],
    )
    .unwrap();
    checks
        .run_curve(c, history)
        .tenors
        .into_iter()
        .map(|t| {
            let m = &t.checks[0].message;
            m.strip_prefix(&format!("{term} = "))
                .or_else(|| m.strip_prefix(&format!("{term} ")))
                .and_then(|r| r.strip_suffix(", expected == -987.125"))
                .unwrap_or_else(|| panic!("{term}: {m}"))
                .to_string()
        })
        .collect()
}

/// A tenor term's status and message per contract.
fn tenor_outcomes(
    expr: &str,
    c: &CurveInput,
    history: &[CurveInput],
) -> Vec<(CheckStatus, String)> {
    let checks = compile(&[check("t", expr, CheckScope::Tenor)], &[]).unwrap();
    checks
        .run_curve(c, history)
        .tenors
        .into_iter()
        .map(|t| (t.checks[0].status, t.checks[0].message.clone()))
        .collect()
}

#[test]
fn tenors_match_by_absolute_period_across_a_roll() {
    // On 2024-03-01 M01 is 2024M04; on 2024-04-01 M00 is 2024M04.
    let march = curve(
        date(2024, 3, 1),
        &[
            ("M01", Some(50.0)),
            ("M02", Some(52.0)),
            ("M03", Some(53.0)),
        ],
    );
    assert_eq!(march.contracts[0].absolute, "2024M04");
    let april = curve(
        date(2024, 4, 1),
        &[
            ("M00", Some(51.0)),
            ("M01", Some(52.0)),
            ("M02", Some(60.0)),
        ],
    );
    assert_eq!(april.contracts[0].absolute, "2024M04");
    let hist = [march.clone()];
    let v = |t: &str| tenor_nums(t, &april, &hist);
    assert_eq!(v("value"), ["51", "52", "60"]);
    assert_eq!(v("prev_tenor(1)"), ["50", "52", "53"]);
    assert_eq!(v("prev_tenor()"), ["50", "52", "53"]);
    assert_eq!(v("prev_tenor(0)"), ["51", "52", "60"]);
    assert_eq!(v("tenor_change(1)"), ["1", "0", "7"]);
    assert_eq!(v("tenor_change()"), ["1", "0", "7"]);
    assert_eq!(v("tenor_pct_change(1)"), ["0.02", "0", "0.132075"]);
    assert_eq!(v("tenor_pct_change()"), ["0.02", "0", "0.132075"]);
    // Changes 1, 0, 7: median 1.
    assert_eq!(v("excess_move()"), ["0", "-1", "6"]);
    assert_eq!(v("tenor_run_length()"), ["1", "2", "1"]);
    assert_eq!(v("tenor_run_length(1)"), ["2", "2", "1"]);
    // Curve-level numbers are visible from tenor checks too.
    assert_eq!(v("tenor_count()"), ["3", "3", "3"]);

    // Without an earlier curve, a tenor check reading one is skipped.
    let lacking = (
        CheckStatus::Skipped,
        "prev_tenor(2) needs 2 earlier curves; only 1 before 2024-04-01".to_string(),
    );
    assert_eq!(
        tenor_outcomes("prev_tenor(2) > 0", &april, &hist),
        [lacking.clone(), lacking.clone(), lacking]
    );
    let first = (
        CheckStatus::Skipped,
        "tenor_change() needs 1 earlier curve; none before 2024-04-01".to_string(),
    );
    assert_eq!(
        tenor_outcomes("abs(tenor_change()) < 5", &april, &[])[0],
        first
    );

    // A contract new on the curve has no history: its checks reading history are skipped.
    let may = curve(
        date(2024, 5, 1),
        &[
            ("M00", Some(52.0)),
            ("M01", Some(61.0)),
            ("M02", Some(70.0)),
        ],
    );
    let hist = [april.clone(), march.clone()];
    let hist_may = [april.clone(), march.clone()];
    let prev = tenor_outcomes("prev_tenor(1) > 55", &may, &hist_may);
    assert_eq!(
        prev.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        [CheckStatus::Fail, CheckStatus::Pass, CheckStatus::Skipped]
    );
    assert_eq!(prev[0].1, "prev_tenor(1) = 52, expected > 55");
    assert_eq!(
        prev[2].1,
        "prev_tenor(1) needs this contract 1 curve back; M02 (2024M07) has no value on 2024-04-01"
    );
    assert_eq!(
        tenor_outcomes("prev_tenor(2) < 53", &may, &hist_may)[1..],
        [
            (
                CheckStatus::Fail,
                "prev_tenor(2) = 53, expected < 53".to_string()
            ),
            (
                CheckStatus::Skipped,
                "prev_tenor(2) needs this contract 2 curves back; M02 (2024M07) has no value on 2024-03-01"
                    .to_string()
            )
        ]
    );
    assert_eq!(
        tenor_nums("tenor_run_length()", &may, &hist),
        ["3", "1", "1"]
    );

    // Messages and statuses of tenor checks.
    let checks = compile(
        &[
            check("move", "abs(tenor_pct_change(1)) < 0.1", CheckScope::Tenor),
            check("pos", "value > 0", CheckScope::Tenor),
            check(
                "label",
                "tenor != \"M01\" && contract.absolute != \"\"",
                CheckScope::Tenor,
            ),
        ],
        &[],
    )
    .unwrap();
    let mut april_gap = april.clone();
    april_gap.contracts[1].value = None;
    let out = checks.run_curve(&april_gap, &[march]);
    let m00 = &out.tenors[0];
    assert_eq!(m00.tenor, "M00");
    assert_eq!(m00.checks[0].status, CheckStatus::Pass);
    let m01 = &out.tenors[1];
    assert_eq!(m01.checks[0].status, CheckStatus::Skipped);
    assert_eq!(m01.checks[0].message, "value is missing");
    assert_eq!(m01.checks[2].status, CheckStatus::Skipped);
    assert_eq!(m00.checks[2].status, CheckStatus::Pass);
    let m02 = &out.tenors[2];
    assert_eq!(m02.checks[0].status, CheckStatus::Fail);
    assert_eq!(
        m02.checks[0].message,
        "abs(tenor_pct_change(1)) = 0.132075, expected < 0.1"
    );
    assert_eq!(m02.checks[1].status, CheckStatus::Pass);
}

#[test]
fn curve_functions() {
    let d = date(2024, 3, 1);
    let march = curve(
        d,
        &[
            ("M01", Some(50.0)),
            ("M02", Some(52.0)),
            ("M03", Some(53.0)),
            ("Q03", Some(55.0)),
        ],
    );
    let april = curve(
        date(2024, 4, 1),
        &[
            ("M00", Some(50.0)),
            ("M01", Some(52.0)),
            ("M02", None),
            ("Q02", Some(55.0)),
        ],
    );
    let hist = [march.clone()];
    let run = |expr: &str, c: &CurveInput, h: &[CurveInput]| {
        let checks = compile(&[check("c", expr, CheckScope::Curve)], &[]).unwrap();
        checks.run_curve(c, h).curve.remove(0)
    };
    let pass = |expr: &str, c: &CurveInput, h: &[CurveInput]| {
        let o = run(expr, c, h);
        assert_eq!(o.status, CheckStatus::Pass, "{expr}: {o:?}");
    };
    pass("contracts == 4", &march, &[]);
    pass("tenor_count() == 4", &march, &[]);
    pass("tenor_count() == 3 && contracts == 4", &april, &[]);
    let o = run("prev_tenor_count() > 0", &march, &[]);
    assert_eq!(
        (o.status, o.message.as_str()),
        (
            CheckStatus::Skipped,
            "prev_tenor_count() needs 1 earlier curve; none before 2024-03-01"
        )
    );
    pass("prev_tenor_count() == 4", &april, &hist);
    pass(
        "has_tenor(\"M01\") && has_tenor(\"m02\") && has_tenor(\"2024M04\")",
        &march,
        &[],
    );
    pass("!has_tenor(\"M06\")", &march, &[]);
    pass("sorted() && unique() && no_gaps()", &march, &[]);
    pass("ondate == \"2024-03-01\"", &march, &[]);
    // April vs March: 2024M04 50 = 50 (unchanged), 2024M05 52 = 52, 2024M06 missing, Q02 new.
    pass("unchanged_fraction() == 1.0", &april, &hist);
    pass("max_abs_change() == 0.0", &april, &hist);
    let o = run(
        "unchanged_fraction() < 1 || max_abs_change() > 0",
        &april,
        &[],
    );
    assert_eq!(
        (o.status, o.message.as_str()),
        (
            CheckStatus::Skipped,
            "unchanged_fraction() needs 1 earlier curve; none before 2024-04-01"
        )
    );
    let far = curve(date(2024, 9, 2), &[("M01", Some(50.0))]);
    let o = run("max_abs_change() < 5", &far, &hist);
    assert_eq!(
        (o.status, o.message.as_str()),
        (
            CheckStatus::Skipped,
            "max_abs_change() needs contracts with a value on both 2024-09-02 and 2024-03-01; there are none"
        )
    );
    let moved = curve(
        date(2024, 4, 1),
        &[
            ("M00", Some(50.0)),
            ("M01", Some(55.0)),
            ("M02", Some(49.0)),
        ],
    );
    let o = run("unchanged_fraction() < 0.3", &moved, &hist);
    assert_eq!(o.message, "unchanged_fraction() = 0.333333, expected < 0.3");
    let o = run("max_abs_change() <= 3", &moved, &hist);
    assert_eq!(o.message, "max_abs_change() = 4, expected <= 3");

    let unsorted = curve(
        d,
        &[("M02", Some(1.0)), ("M01", Some(1.0)), ("Q03", Some(1.0))],
    );
    let o = run("sorted()", &unsorted, &[]);
    assert_eq!(o.status, CheckStatus::Fail);
    assert_eq!(o.message, "the contracts are not in delivery order");
    pass("unique() && no_gaps()", &unsorted, &[]);
    let dup = curve(d, &[("M01", Some(1.0)), ("2024M04", Some(1.0))]);
    let o = run("unique()", &dup, &[]);
    assert_eq!(o.message, "a contract appears twice");
    let gap = curve(
        d,
        &[("M01", Some(1.0)), ("M03", Some(1.0)), ("Q03", Some(1.0))],
    );
    let o = run("no_gaps()", &gap, &[]);
    assert_eq!(o.message, "the delivery periods have gaps");
    pass("sorted() && unique()", &gap, &[]);
    let o = run("has_tenor(\"M02\")", &gap, &[]);
    assert_eq!(o.message, "tenor M02 is missing");
    let o = run("tenor_count() > 5", &gap, &[]);
    assert_eq!(o.message, "tenor_count() = 3, expected > 5");
    let o = run("contracts >= 5", &gap, &[]);
    assert_eq!(o.message, "contracts = 3, expected >= 5");
    // Balance-of contracts have no absolute code: keyed by delivery days, left out of order.
    let bom = curve(d, &[("BOM", Some(1.0)), ("M01", Some(2.0))]);
    pass(
        "sorted() && unique() && no_gaps() && contracts == 2",
        &bom,
        &[],
    );
}

#[test]
fn a_text_contract_fails_tenor_checks_that_need_a_number() {
    let march = curve(
        date(2024, 3, 1),
        &[("M01", Some(50.0)), ("M02", Some(52.0))],
    );
    let mut april = curve(date(2024, 4, 1), &[("M00", Some(51.0)), ("M01", None)]);
    april.contracts[1].text = Some("tbd".into());
    let hist = [march];
    let at = |expr: &str| tenor_outcomes(expr, &april, &hist)[1].clone();
    let nan = (
        CheckStatus::Fail,
        "value \"tbd\" is not a number".to_string(),
    );
    assert_eq!(at("value > 0"), nan);
    assert_eq!(at("abs(tenor_change()) < 5"), nan);
    assert_eq!(at("!is_missing()").0, CheckStatus::Pass);
    assert_eq!(at("prev_tenor() > 50").0, CheckStatus::Pass);
    assert_eq!(at("value == \"tbd\"").0, CheckStatus::Pass);
    assert_eq!(
        at("value == \"ok\""),
        (
            CheckStatus::Fail,
            "the expression is false: value \"tbd\"".to_string()
        )
    );
}
