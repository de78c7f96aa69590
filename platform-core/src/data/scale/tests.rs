use super::*;
use serde_json::Value;

fn vectors_of(name: &str) -> Value {
    let shared = format!(
        "{}/../../shared/spec/vectors/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let copy = format!("{}/testdata/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    let path = if std::path::Path::new(&shared).exists() {
        shared
    } else {
        copy
    };
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn vectors() -> Value {
    vectors_of("scaling.json")
}

fn ms(text: &str) -> i64 {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .timestamp_millis()
}

#[test]
fn every_scaling_vector_passes() {
    let file = vectors();
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 19);
    check_cases(cases);
}

#[test]
fn every_efa_vector_passes() {
    let file = vectors_of("efa.json");
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 5);
    check_cases(cases);
}

fn check_cases(cases: &[Value]) {
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let series = &case["series"];
        let tz: Tz = series["timezone"].as_str().unwrap().parse().unwrap();
        let source = Calendar::parse(series["calendar"].as_str()).unwrap();
        let points: Vec<Point> = series["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                Point::num(
                    ms(p["time"].as_str().unwrap()),
                    p["value"].as_f64().unwrap(),
                )
            })
            .collect();
        let q = &case["query"];
        let scaling = Scaling::from_params(
            q["calendar"].as_str(),
            q["observed"].as_str(),
            q["distribution"].as_str(),
            q["block"].as_str(),
        )
        .unwrap()
        .unwrap();
        let want = case["result"].as_array().unwrap();
        let got = scaling.apply(&points, source, tz).unwrap();
        assert_eq!(got.len(), want.len(), "{name}");
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.t, ms(w["time"].as_str().unwrap()), "{name}: {w}");
            // A partial period says how many observations made it.
            let source_status = g.status.as_ref().and_then(|s| s.source.clone()).unwrap();
            if let (Some((n, _)), Some(c)) = (coverage(&source_status), w["count"].as_u64()) {
                assert_eq!(n as u64, c, "{name}: {w}");
            }
            let v = g.v.as_f64().unwrap();
            assert!(
                (v - w["value"].as_f64().unwrap()).abs() < 1e-9,
                "{name}: {v} vs {w}"
            );
        }
        // The counts, where the case gives them.
        if let Some(observed) = scaling.observed {
            let counting = Counting {
                source,
                zone: tz,
                holidays: None,
                target: scaling.target,
                block: scaling.block.as_ref(),
                tz,
            };
            let counts: Vec<usize> = aggregate(&points, &counting, observed)
                .iter()
                .map(|s| s.count)
                .collect();
            let wanted: Vec<usize> = want
                .iter()
                .map(|w| w["count"].as_u64().unwrap() as usize)
                .collect();
            assert_eq!(counts, wanted, "{name}");
        }
    }
}

#[test]
fn scaling_parameters_are_checked() {
    let err = |c, o, d, b| {
        Scaling::from_params(c, o, d, b)
            .unwrap_err()
            .public_message()
    };
    assert!(err(None, Some("averaged"), None, None).contains("_observed needs _calendar"));
    assert!(err(None, None, None, Some("PEAK")).contains("_block needs _calendar"));
    assert!(err(Some("FORTNIGHTLY"), Some("averaged"), None, None).contains("FORTNIGHTLY"));
    assert!(err(Some("DAILY"), Some("mean"), None, None).contains("\"mean\""));
    // Any other block is a block calendar's id, loaded by the read (a 400 there if absent);
    // a text that cannot be an id is refused here.
    assert!(err(Some("DAILY"), Some("averaged"), None, Some("A/B")).contains("\"A/B\""));
    assert_eq!(
        Scaling::from_params(Some("DAILY"), Some("averaged"), None, Some("NIGHT"))
            .unwrap()
            .unwrap()
            .block,
        Some(Block::Named("NIGHT".into()))
    );
    assert!(err(Some("DAILY"), None, None, None).contains("_observed"));
    assert!(err(Some("DAILY"), None, Some("linear"), None).contains("\"linear\""));
    assert_eq!(Scaling::from_params(None, None, None, None).unwrap(), None);
    // Not coarser, not finer.
    let daily = Scaling::from_params(Some("DAILY"), Some("summed"), None, None)
        .unwrap()
        .unwrap();
    let e = daily
        .apply(&[Point::num(0, 1.0)], Calendar::Monthly, Tz::UTC)
        .unwrap_err();
    assert!(e.public_message().contains("coarser"));
    let hourly = Scaling::from_params(Some("HOURLY"), None, Some("constant"), None)
        .unwrap()
        .unwrap();
    let e = hourly
        .apply(&[Point::num(0, 1.0)], Calendar::Intraday(900), Tz::UTC)
        .unwrap_err();
    assert!(e.public_message().contains("finer"));
}

#[test]
fn a_block_past_midnight_counts_on_the_day_it_starts() {
    use crate::calendars::{BlockCalendar, BlockHours};
    use crate::holidays::HolidayCalendar;
    let night = BlockHours {
        id: "NIGHT".into(),
        block: BlockCalendar {
            days: [true, true, true, true, true, false, false],
            from: 23,
            to: 3,
            holidays: Some("#H".into()),
        },
        holidays: Some(HolidayCalendar::parse(&["25th of December"]).unwrap()),
    };
    let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
    // Friday night's block is Friday's: Saturday 02:00 is in it, Saturday 23:00 is not;
    // Christmas night is off (the holiday is the day it starts), Christmas Eve's night on.
    assert!(night.keeps(d("2024-12-27"), 23) && night.keeps(d("2024-12-28"), 2));
    assert!(!night.keeps(d("2024-12-28"), 3) && !night.keeps(d("2024-12-28"), 23));
    assert!(!night.keeps(d("2024-12-25"), 23) && !night.keeps(d("2024-12-26"), 1));
    assert!(night.keeps(d("2024-12-24"), 23) && night.keeps(d("2024-12-25"), 2));
    assert!(!night.keeps(d("2024-12-23"), 2) && !night.keeps(d("2024-12-24"), 12));
    // Daily sums: each night on the day it starts (Mon 23:00 .. Tue 03:00 is Monday's).
    let tz = Tz::UTC;
    let points: Vec<Point> = (0..72)
        .map(|h| Point::num(ms("2024-12-02T00:00:00Z") + h * 3_600_000, 1.0))
        .collect();
    let block = Block::Hours(std::sync::Arc::new(night));
    let counting = Counting {
        source: Calendar::Intraday(3600),
        zone: tz,
        holidays: None,
        target: Target::Calendar(Calendar::Daily),
        block: Some(&block),
        tz,
    };
    let daily = aggregate(&points, &counting, Observed::Summed);
    // Monday 00:00-03:00 is Sunday night's, and Sunday is off the block.
    // Each weeknight holds 4 hours; Wednesday's has only its 23:00 here.
    let got: Vec<(i64, usize, Option<usize>)> = daily
        .iter()
        .map(|s| (s.start, s.count, s.expected))
        .collect();
    assert_eq!(
        got,
        [
            (ms("2024-12-02T00:00:00Z"), 4, Some(4)),
            (ms("2024-12-03T00:00:00Z"), 4, Some(4)),
            (ms("2024-12-04T00:00:00Z"), 1, Some(4))
        ]
    );
}
