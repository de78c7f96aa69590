use super::*;
use crate::query::period;
use serde_json::Value;

fn vectors() -> Value {
    let shared = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/spec/vectors/shaping.json"
    );
    let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/vectors/shaping.json");
    let path = if std::path::Path::new(shared).exists() {
        shared
    } else {
        copy
    };
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn quote(code: &str, ondate: NaiveDate, value: f64) -> Quoted {
    let p = period::parse(code).unwrap();
    let r = p.resolve(ondate).unwrap();
    Quoted {
        code: r
            .absolute
            .map(|a| a.to_string())
            .unwrap_or_else(|| p.to_string()),
        start: r.delivery.start,
        end: r.delivery.end,
        value,
    }
}

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

fn plus(d: NaiveDate, n: u64) -> NaiveDate {
    d.checked_add_days(chrono::Days::new(n)).unwrap()
}

fn shape_by(q: &[Quoted], tz: Tz, weights: Weights) -> Shaped {
    shape(q, tz, &weights, DEFAULT_TOLERANCE).unwrap()
}

#[test]
fn every_shaping_vector_holds() {
    let file = vectors();
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 10, "the vectors of the joint solve");
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let curve = &case["curve"];
        let ondate = day(curve["ondate"].as_str().unwrap());
        let tz: Tz = curve["timezone"].as_str().unwrap().parse().unwrap();
        let contracts: Vec<Quoted> = curve["contracts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                quote(
                    c["tenor"].as_str().unwrap(),
                    ondate,
                    c["value"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(case["query"]["shape"], "MONTHLY", "{name}");
        let weights = Weights::parse(case["query"]["weights"].as_str().unwrap()).unwrap();
        let tolerance = case["query"]["tolerance"]
            .as_f64()
            .unwrap_or(DEFAULT_TOLERANCE);
        let got = shape(&contracts, tz, &weights, tolerance).unwrap();
        let want = case["result"].as_array().unwrap();
        assert_eq!(got.months.len(), want.len(), "{name}: {got:?}");
        for (g, w) in got.months.iter().zip(want) {
            assert_eq!(g.code, w["tenor"].as_str().unwrap(), "{name}");
            assert_eq!(g.from, w["from"].as_str().unwrap(), "{name}: {}", g.code);
            let v = w["value"].as_f64().unwrap();
            assert!(
                (g.value - v).abs() < 1e-8,
                "{name}: {} {} vs {v}",
                g.code,
                g.value
            );
        }
        let arbitrage = case["arbitrage"].as_array().unwrap();
        assert_eq!(got.arbitrage.len(), arbitrage.len(), "{name}: {got:?}");
        for (g, w) in got.arbitrage.iter().zip(arbitrage) {
            assert_eq!(g.code, w["tenor"].as_str().unwrap(), "{name}");
            let miss = w["miss"].as_f64().unwrap();
            assert!((g.miss - miss).abs() < 1e-8, "{name}: {g:?} vs {miss}");
            assert!((g.fitted - g.quoted - g.miss).abs() < 1e-12, "{name}");
        }
        assert_eq!(got.message().is_some(), !arbitrage.is_empty(), "{name}");
    }
}

#[test]
fn berlin_months_have_their_hours_and_gas_weighs_days() {
    let ondate = day("2024-11-15");
    let q = [quote("2025Y", ondate, 80.0)];
    let tz: Tz = "Europe/Berlin".parse().unwrap();
    let got = shape_by(&q, tz, Weights::Hours);
    let hours: Vec<f64> = got.months.iter().map(|m| m.weight).collect();
    assert_eq!(hours[2], 743.0);
    assert_eq!(hours[9], 745.0);
    assert_eq!(hours.iter().sum::<f64>(), 8760.0);
    assert!(got
        .months
        .iter()
        .all(|m| m.value == 80.0 && m.from == "2025Y"));
    let got = shape_by(&q, tz, Weights::Days);
    assert_eq!(got.months[1].weight, 28.0);
    let gas = json!({"commodity": "Natural Gas", "units": "MWh"});
    assert_eq!(Weights::of_header(gas.as_object().unwrap()), Weights::Days);
    let therm = json!({"units": "p/therm"});
    assert_eq!(
        Weights::of_header(therm.as_object().unwrap()),
        Weights::Days
    );
    let gasoil = json!({"commodity": "gasoil", "units": "t"});
    assert_eq!(
        Weights::of_header(gasoil.as_object().unwrap()),
        Weights::Hours
    );
    assert_eq!(Weights::of_header(&Map::new()), Weights::Hours);
}

#[test]
fn balance_of_month_and_days_take_part_by_their_days() {
    let ondate = day("2024-11-15");
    // BOM: Nov 16-30; a day-ahead on the 16th; the first quarter of 2025. December is in no
    // contract.
    let q = [
        quote("BOM", ondate, 60.0),
        quote("DA01", ondate, 90.0),
        quote("2025Q01", ondate, 70.0),
    ];
    let got = shape_by(&q, Tz::UTC, Weights::Days);
    let codes: Vec<&str> = got.months.iter().map(|m| m.code.as_str()).collect();
    assert_eq!(codes, ["2024M11", "2025M01", "2025M02", "2025M03"]);
    let nov = &got.months[0];
    // November's priced days are the balance's: their average is its price.
    assert_eq!((nov.start, nov.end), (plus(ondate, 1), plus(ondate, 15)));
    assert!((nov.value - 60.0).abs() < 1e-9, "{nov:?}");
    assert_eq!((nov.from.as_str(), nov.weight), ("BOM", 15.0));
    assert!(got.months[1..]
        .iter()
        .all(|m| m.value == 70.0 && m.from == "2025Q01"));
    assert!(got.arbitrage.is_empty() && got.message().is_none());
    // A quarter over the balance: October and the first half of November lie in the quarter
    // alone, as December does, and share one price; the balance keeps its average. The
    // quarter is the shortest contract holding all of November.
    let q = [quote("BOM", ondate, 60.0), quote("2024Q04", ondate, 70.0)];
    let got = shape_by(&q, Tz::UTC, Weights::Days);
    let (oct, nov, dec) = (&got.months[0], &got.months[1], &got.months[2]);
    assert!((oct.value - dec.value).abs() < 1e-9);
    assert_eq!((nov.weight, nov.from.as_str()), (30.0, "2024Q04"));
    let total = oct.value * 31.0 + nov.value * 30.0 + dec.value * 31.0;
    assert!((total / 92.0 - 70.0).abs() < 1e-9);
    assert!(((nov.value * 30.0 - 60.0 * 15.0) / 15.0 - oct.value).abs() < 1e-9);
    assert!(got.arbitrage.is_empty());
    // The same day quoted twice at two prices: the fit is between them, both named.
    let twice = [
        quote("DA01", ondate, 90.0),
        quote("2024D1116", ondate, 91.0),
    ];
    let got = shape_by(&twice, Tz::UTC, Weights::Days);
    let named: Vec<(&str, f64)> = got
        .arbitrage
        .iter()
        .map(|a| (a.code.as_str(), a.miss))
        .collect();
    assert_eq!(named, [("2024DA1116", 0.5), ("2024D1116", -0.5)]);
    assert_eq!(got.months[0].value, 90.5);
    assert!(shape_by(&[], Tz::UTC, Weights::Hours).months.is_empty());
}

#[test]
fn a_miss_within_the_tolerance_is_fitted_silently_and_one_beyond_is_named_with_its_group() {
    let ondate = day("2024-11-15");
    let berlin: Tz = "Europe/Berlin".parse().unwrap();
    // Two groups that share no day: a first quarter off by 3, a third quarter off by 0.004.
    let q = [
        quote("2025M01", ondate, 100.0),
        quote("2025M02", ondate, 100.0),
        quote("2025M03", ondate, 100.0),
        quote("2025Q01", ondate, 97.0),
        quote("2025M07", ondate, 50.0),
        quote("2025M08", ondate, 50.0),
        quote("2025M09", ondate, 50.0),
        quote("2025Q03", ondate, 50.004),
    ];
    let got = shape(&q, berlin, &Weights::Hours, 0.01).unwrap();
    let named: Vec<&str> = got.arbitrage.iter().map(|a| a.code.as_str()).collect();
    assert_eq!(named, ["2025M01", "2025M02", "2025M03", "2025Q01"]);
    // The first quarter's months and its quote share the miss: least squares with each
    // quote counted once puts three quarters of it on the quarter.
    let q1 = &got.arbitrage[3];
    assert!((q1.miss - 2.25).abs() < 0.01, "{q1:?}");
    let message = got.message().unwrap();
    assert!(
        message.starts_with("The quotes 2025M01 (quoted 100, fitted 9")
            && message.contains("2025Q01 (quoted 97, fitted 99.2")
            && message.contains("miss +2.2")
            && message.contains("within the tolerance 0.01"),
        "{message}"
    );
    assert!(!message.contains("2025Q03"), "{message}");
    // With a tolerance of 5 cents nothing is named, and the months still fit by least squares.
    let loose = shape(&q, berlin, &Weights::Hours, 5.0).unwrap();
    assert!(loose.arbitrage.is_empty() && loose.message().is_none());
    assert_eq!(loose.months, got.months);
}

#[test]
fn peak_weights_count_the_block_hours_of_each_month_and_a_weekend_takes_no_part() {
    let ondate = day("2025-01-10");
    let berlin: Tz = "Europe/Berlin".parse().unwrap();
    // January 2025 has 23 weekdays (276 peak hours), February 20 (240), March 21 (252).
    let q = [
        quote("2025M01", ondate, 125.0),
        quote("2025M02", ondate, 118.0),
        quote("2025Q01", ondate, 115.0),
        quote("2025D0111", ondate, 90.0),
    ];
    let got = shape_by(&q, berlin, Weights::Block(Block::Peak));
    let hours: Vec<f64> = got.months.iter().map(|m| m.weight).collect();
    assert_eq!(hours, [276.0, 240.0, 252.0]);
    let march = (115.0 * 768.0 - 125.0 * 276.0 - 118.0 * 240.0) / 252.0;
    assert!((got.months[2].value - march).abs() < 1e-9);
    // Saturday 11 January has no peak hours: the day-ahead is named, and shapes nothing.
    assert_eq!(
        got.ignored,
        [Ignored {
            code: "2025D0111".into(),
            reason: "its delivery has no PEAK hours".into()
        }]
    );
    assert!(got
        .message()
        .unwrap()
        .contains("2025D0111 (its delivery has no PEAK hours)"));
    // Off-peak hours: every hour that is not peak, 744 - 276 in January.
    let off = shape_by(&q, berlin, Weights::Block(Block::Offpeak));
    assert_eq!(off.months[0].weight, 744.0 - 276.0);
    assert!(off.ignored.is_empty());
}

#[test]
fn an_efa_block_weighs_its_efa_days() {
    let ondate = day("2025-03-10");
    let london: Tz = "Europe/London".parse().unwrap();
    let q = [
        quote("2025M04", ondate, 80.0),
        quote("2025Q02", ondate, 70.0),
    ];
    let got = shape_by(&q, london, Weights::Block(Block::Efa(1)));
    // EFA1 is 4 hours of each EFA day: April's 30 EFA days hold 120 hours, the first starting
    // at 23:00 on 31 March (which a local-day count would put in March).
    assert_eq!(got.months[0].weight, 120.0);
    assert_eq!(got.months[1].weight, 124.0);
}

#[test]
fn a_run_left_free_stays_nearest_its_shortest_contract() {
    // A year with its first quarter quoted: the other nine months are free and share the
    // year's remaining average exactly (one run), from the year.
    let ondate = day("2024-11-15");
    let q = [quote("2025Y", ondate, 80.0), quote("2025Q01", ondate, 95.0)];
    let got = shape_by(&q, Tz::UTC, Weights::Days);
    let rest = (80.0 * 365.0 - 95.0 * 90.0) / 275.0;
    for m in &got.months[3..] {
        assert!((m.value - rest).abs() < 1e-9, "{m:?}");
        assert_eq!(m.from, "2025Y");
    }
    assert!(got.months[..3]
        .iter()
        .all(|m| (m.value - 95.0).abs() < 1e-9));
}

#[test]
fn bad_shape_parameters_name_the_values_allowed() {
    let p = |pairs: &[(&str, &str)]| ShapeQuery::from_params(&Params::from_slice(pairs));
    assert_eq!(p(&[]).unwrap(), None);
    assert_eq!(
        p(&[("_shape", "monthly"), ("_weights", "DAYS")]).unwrap(),
        Some(ShapeQuery {
            weights: Some(Weights::Days),
            tolerance: DEFAULT_TOLERANCE,
        })
    );
    assert_eq!(
        p(&[
            ("_shape", "MONTHLY"),
            ("_weights", "peak"),
            ("_tolerance", "0.5")
        ])
        .unwrap(),
        Some(ShapeQuery {
            weights: Some(Weights::Block(Block::Peak)),
            tolerance: 0.5,
        })
    );
    assert_eq!(
        p(&[("_shape", "MONTHLY"), ("_weights", "base")]).unwrap(),
        Some(ShapeQuery {
            weights: Some(Weights::Hours),
            tolerance: DEFAULT_TOLERANCE,
        })
    );
    let e = p(&[("_shape", "WEEKLY")]).unwrap_err().to_string();
    assert!(e.contains("_shape") && e.contains("MONTHLY"), "{e}");
    let e = p(&[("_shape", "MONTHLY"), ("_weights", "a/b")])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("_weights") && e.contains("hours, days, PEAK"),
        "{e}"
    );
    let e = p(&[("_weights", "days")]).unwrap_err().to_string();
    assert!(e.contains("needs _shape=MONTHLY"), "{e}");
    let e = p(&[("_tolerance", "0.1")]).unwrap_err().to_string();
    assert!(e.contains("needs _shape=MONTHLY"), "{e}");
    for bad in ["-1", "x", "NaN", "inf"] {
        let e = p(&[("_shape", "MONTHLY"), ("_tolerance", bad)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("_tolerance") && e.contains("at least 0"), "{e}");
    }
}
