//! EFA blocks counted by EFA day in months, and the coverage of aggregated points, each
//! number computed here another way (the EFA day from London's wall clock, the expected
//! counts from the calendar's days and clock changes, or a sweep of every time on the
//! series' calendar).

use super::*;
use std::collections::BTreeMap;

fn ms(text: &str) -> i64 {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .timestamp_millis()
}

const HALF_HOUR: i64 = 1_800_000;
const HOUR: i64 = 3_600_000;

/// A value per time that no two neighbours share.
fn value_at(t: i64) -> f64 {
    ((t / HALF_HOUR) * 37 % 101) as f64 + 0.25
}

/// Points every `step` ms from `from` to `to` (UTC, `to` left out).
fn steps(from: &str, to: &str, step: i64) -> Vec<Point> {
    (ms(from)..ms(to))
        .step_by(step as usize)
        .map(|t| Point::num(t, value_at(t)))
        .collect()
}

/// `(time, value, status source)` of a scaled read.
fn scaled(
    points: &[Point],
    source: &str,
    zone: Tz,
    query: (&str, &str, Option<&str>),
    cut: Tz,
) -> Vec<(i64, f64, String)> {
    let (calendar, observed, block) = query;
    let scaling = Scaling::from_params(Some(calendar), Some(observed), None, block)
        .unwrap()
        .unwrap();
    let source = Calendar::parse(Some(source)).unwrap();
    scaling
        .apply_in(points, (source, None), zone, cut)
        .unwrap()
        .into_iter()
        .map(|p| {
            let status = p.status.and_then(|s| s.source).unwrap_or_default();
            (p.t, p.v.as_f64().unwrap(), status)
        })
        .collect()
}

fn statuses(rows: &[(i64, f64, String)]) -> Vec<&str> {
    rows.iter().map(|(_, _, s)| s.as_str()).collect()
}

/// The EFA day and block of an instant from London's wall clock: 23:00 starts the next day's
/// EFA1, then a block every four hours from 03:00.
fn efa_by_wall_clock(t: i64) -> (NaiveDate, u8) {
    let local = at(t).with_timezone(&chrono_tz::Europe::London);
    let (date, hour) = (local.date_naive(), local.hour());
    match hour {
        23 => (date.succ_opt().unwrap(), 1),
        0..=2 => (date, 1),
        h => (date, ((h - 3) / 4 + 2) as u8),
    }
}

/// Averages of block `block` by the month of each point's EFA day, with their counts.
fn efa_months(points: &[Point], block: u8) -> BTreeMap<(i32, u32), (f64, usize)> {
    let mut sums: BTreeMap<(i32, u32), (f64, usize)> = BTreeMap::new();
    for p in points {
        let (day, b) = efa_by_wall_clock(p.t);
        if b == block {
            let e = sums.entry((day.year(), day.month())).or_default();
            e.0 += p.v.as_f64().unwrap();
            e.1 += 1;
        }
    }
    sums.into_iter()
        .map(|(k, (sum, n))| (k, (sum / n as f64, n)))
        .collect()
}

fn london() -> Tz {
    chrono_tz::Europe::London
}

#[test]
fn a_monthly_efa_block_counts_the_efa_days_of_its_month() {
    // GB half-hours from EFA1 of 1 March 2025 (23:00 GMT on 28 February) to 01:00 BST on
    // 1 May: the spring change's EFA1 (30 March) is 3 hours.
    let points = steps("2025-02-28T23:00:00Z", "2025-05-01T00:00:00Z", HALF_HOUR);
    let got = scaled(
        &points,
        "HALFHOURLY",
        london(),
        ("MONTHLY", "averaged", Some("EFA1")),
        london(),
    );
    let want = efa_months(&points, 1);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(want.len(), 3);
    for ((t, v, _), ((y, m), (avg, _))) in got.iter().zip(&want) {
        let local = at(*t).with_timezone(&london());
        assert_eq!((local.year(), local.month(), local.day()), (*y, *m, 1));
        assert!((v - avg).abs() < 1e-9, "{y}-{m}: {v} vs {avg}");
    }
    // March: 31 EFA days of 8 half-hours but 6 on the change day, all there; April: 30 of 8,
    // its first EFA1 starting at 23:00 BST on 31 March; May: EFA1 of 1 May from 23:00 BST on
    // 30 April, 4 of its 8 half-hours here (of 31 x 8 in the month).
    assert_eq!(
        want.values().map(|w| w.1).collect::<Vec<_>>(),
        [246, 240, 4]
    );
    assert_eq!(
        statuses(&got),
        ["CALCULATED", "CALCULATED", "CALCULATED:4 of 248"]
    );
    // 23:00-24:00 BST on 31 March is April's: April's average is not the one by local date.
    let by_date: Vec<f64> = points
        .iter()
        .filter(|p| {
            let l = at(p.t).with_timezone(&london());
            l.month() == 4 && efa_by_wall_clock(p.t).1 == 1
        })
        .map(|p| p.v.as_f64().unwrap())
        .collect();
    let by_date = by_date.iter().sum::<f64>() / by_date.len() as f64;
    assert!((got[1].1 - by_date).abs() > 1e-6, "{} {by_date}", got[1].1);
}

#[test]
fn efa_blocks_count_on_their_efa_day_over_the_autumn_change_and_in_days() {
    // October 2025: its EFA days run from 23:00 BST on 30 September to 23:00 GMT on 31
    // October; EFA1 of 26 October is 5 hours.
    let points = steps("2025-09-30T20:00:00Z", "2025-11-01T02:00:00Z", HALF_HOUR);
    let want = efa_months(&points, 1);
    for (query, months) in [("MONTHLY", 2), ("QUARTERLY", 1), ("YEARLY", 1)] {
        let got = scaled(
            &points,
            "HALFHOURLY",
            london(),
            (query, "summed", Some("EFA1")),
            london(),
        );
        assert_eq!(got.len(), months, "{query}: {got:?}");
        // October holds 30 EFA1 of 8 half-hours and one of 10.
        assert_eq!(want[&(2025, 10)].1, 250);
        let october: f64 = points
            .iter()
            .filter(|p| efa_by_wall_clock(p.t).1 == 1 && efa_by_wall_clock(p.t).0.month() == 10)
            .map(|p| p.v.as_f64().unwrap())
            .sum();
        if query == "MONTHLY" {
            assert!((got[0].1 - october).abs() < 1e-9, "{got:?}");
            assert_eq!(got[0].2, "CALCULATED");
            // EFA1 of 1 November: 23:00 GMT to 02:00, 6 of its 8 half-hours.
            assert_eq!(got[1].2, "CALCULATED:6 of 240");
        }
    }
    // By day: EFA1 of 1 October (from 23:00 BST on 30 September) is 1 October's.
    let got = scaled(
        &points,
        "HALFHOURLY",
        london(),
        ("DAILY", "averaged", Some("EFA1")),
        london(),
    );
    let first: Vec<f64> = (0..8)
        .map(|i| value_at(ms("2025-09-30T22:00:00Z") + i * HALF_HOUR))
        .collect();
    let day = at(got[0].0).with_timezone(&london()).date_naive();
    assert_eq!(day, NaiveDate::from_ymd_opt(2025, 10, 1).unwrap());
    assert!((got[0].1 - first.iter().sum::<f64>() / 8.0).abs() < 1e-9);
    let autumn = got
        .iter()
        .find(|(t, _, _)| at(*t).with_timezone(&london()).day() == 26)
        .unwrap();
    assert_eq!(autumn.2, "CALCULATED", "the 5-hour EFA1 is complete at 10");
}

#[test]
fn a_day_missing_an_hour_says_23_of_24_and_change_days_are_complete_at_their_length() {
    let berlin: Tz = "Europe/Berlin".parse().unwrap();
    // 2024-03-30 (24 hours), 2024-03-31 (23: the spring change), 2024-10-27 (25).
    let mut points = steps("2024-03-29T23:00:00Z", "2024-03-31T22:00:00Z", HOUR);
    points.extend(steps("2024-10-26T22:00:00Z", "2024-10-27T23:00:00Z", HOUR));
    assert_eq!(points.len(), 24 + 23 + 25);
    let read = |points: &[Point]| {
        scaled(
            points,
            "HOURLY",
            berlin,
            ("DAILY", "averaged", None),
            berlin,
        )
    };
    assert_eq!(statuses(&read(&points)), ["CALCULATED"; 3]);
    // 13:00 of the 30th and the second 02:00 of the autumn change gone; a value that is
    // missing (null) counts as missing.
    let mut gaps = points.clone();
    gaps.retain(|p| p.t != ms("2024-03-30T12:00:00Z") && p.t != ms("2024-10-27T01:00:00Z"));
    let missing = gaps
        .iter()
        .position(|p| p.t == ms("2024-03-31T10:00:00Z"))
        .unwrap();
    gaps[missing].v = PointValue::Null;
    let got = read(&gaps);
    assert_eq!(
        statuses(&got),
        [
            "CALCULATED:23 of 24",
            "CALCULATED:22 of 23",
            "CALCULATED:24 of 25"
        ]
    );
    // The value is the average of what is there.
    let day: Vec<f64> = gaps[..23].iter().map(|p| p.v.as_f64().unwrap()).collect();
    assert!((got[0].1 - day.iter().sum::<f64>() / 23.0).abs() < 1e-9);
    // Cut in UTC instead (`_timezone`), the same hours make UTC days of 24.
    let utc = scaled(
        &points[..24],
        "HOURLY",
        berlin,
        ("DAILY", "summed", None),
        Tz::UTC,
    );
    assert_eq!(
        statuses(&utc),
        ["CALCULATED:1 of 24", "CALCULATED:23 of 24"]
    );
}

#[test]
fn half_hours_into_days_count_half_hours_and_a_partial_efa_block_says_so() {
    // London's spring change day holds 46 half-hours, the autumn one 50.
    let mut points = steps("2025-03-30T00:00:00Z", "2025-03-30T23:00:00Z", HALF_HOUR);
    points.extend(steps(
        "2025-10-25T23:00:00Z",
        "2025-10-27T00:00:00Z",
        HALF_HOUR,
    ));
    assert_eq!(points.len(), 46 + 50);
    points.pop();
    let got = scaled(
        &points,
        "HALFHOURLY",
        london(),
        ("DAILY", "averaged", None),
        london(),
    );
    assert_eq!(statuses(&got), ["CALCULATED", "CALCULATED:49 of 50"]);
    // A series ending inside EFA1 (00:30 is its fourth half-hour of eight).
    let end = steps("2025-01-14T19:00:00Z", "2025-01-15T01:00:00Z", HALF_HOUR);
    let got = scaled(
        &end,
        "HALFHOURLY",
        london(),
        ("EFA", "averaged", None),
        london(),
    );
    assert_eq!(statuses(&got), ["CALCULATED", "CALCULATED:4 of 8"]);
    // A SPARSE series has no expected count: its points say CALCULATED alone.
    let got = scaled(
        &end[..3],
        "SPARSE",
        london(),
        ("DAILY", "averaged", None),
        london(),
    );
    assert_eq!(statuses(&got), ["CALCULATED"]);
}

#[test]
fn dated_calendars_and_blocks_expect_their_own_times() {
    let utc = Tz::UTC;
    let days = |from: &str, n: i64| -> Vec<Point> {
        (0..n)
            .map(|i| {
                let t = ms(from) + i * 24 * HOUR;
                Point::num(t, 1.0)
            })
            .collect()
    };
    // February 2024 has 29 days; one gone.
    let mut feb = days("2024-02-01T00:00:00Z", 29);
    feb.remove(10);
    let got = scaled(&feb, "DAILY", utc, ("MONTHLY", "summed", None), utc);
    assert_eq!(statuses(&got), ["CALCULATED:28 of 29"]);
    // A business week holds 5 days: Friday 2024-07-12 gone.
    let week: Vec<Point> = days("2024-07-08T00:00:00Z", 4);
    let got = scaled(&week, "BUSINESS", utc, ("WEEKLY", "summed", None), utc);
    assert_eq!(statuses(&got), ["CALCULATED:4 of 5"]);
    // A weekly series on Mondays: July 2024 has five (1, 8, 15, 22, 29), August four.
    let mondays: Vec<Point> = (0..9)
        .map(|i| Point::num(ms("2024-07-01T00:00:00Z") + i * 7 * 24 * HOUR, 1.0))
        .filter(|p| p.t != ms("2024-07-15T00:00:00Z"))
        .collect();
    let got = scaled(&mondays, "WEEKLY", utc, ("MONTHLY", "summed", None), utc);
    assert_eq!(statuses(&got), ["CALCULATED:4 of 5", "CALCULATED"]);
    // PEAK hours of June 2024: 20 weekdays of 12 hours; an off-peak hour missing changes
    // nothing, a peak hour does.
    let june = steps("2024-06-01T00:00:00Z", "2024-07-01T00:00:00Z", HOUR);
    let peak = ("MONTHLY", "averaged", Some("PEAK"));
    assert_eq!(
        statuses(&scaled(&june, "HOURLY", utc, peak, utc)),
        ["CALCULATED"]
    );
    let mut holes = june.clone();
    holes.retain(|p| p.t != ms("2024-06-03T03:00:00Z") && p.t != ms("2024-06-03T09:00:00Z"));
    assert_eq!(
        statuses(&scaled(&holes, "HOURLY", utc, peak, utc)),
        ["CALCULATED:239 of 240"]
    );
    // A series by EFA block into months: March 2025 holds 31 EFA days of 6 blocks.
    let blocks: Vec<Point> = (ms("2025-02-28T23:00:00Z")..ms("2025-03-31T22:00:00Z"))
        .step_by(HALF_HOUR as usize)
        .filter(|t| super::super::efa::period_of(*t, false).0 == *t)
        .map(|t| Point::num(t, 1.0))
        .collect();
    assert_eq!(blocks.len(), 31 * 6);
    let got = scaled(
        &blocks,
        "EFA",
        london(),
        ("MONTHLY", "summed", None),
        london(),
    );
    assert_eq!(statuses(&got), ["CALCULATED"]);
    let got = scaled(
        &blocks[1..],
        "EFA",
        london(),
        ("MONTHLY", "summed", None),
        london(),
    );
    assert_eq!(statuses(&got), ["CALCULATED:185 of 186"]);
}

/// Every time of an intraday calendar near `start..end`, found by trying each quarter-hour
/// of UTC time against the calendar (every zone here is a whole number of quarter-hours from
/// UTC), counted where `counting` counts it.
fn swept(counting: &Counting<'_>, start: i64, end: i64) -> usize {
    let quarter = 900_000;
    let lo = (start - 36 * HOUR).div_euclid(quarter) * quarter;
    let hi = end + 36 * HOUR;
    (lo..hi)
        .step_by(quarter as usize)
        .filter(|t| counting.source.check(*t, counting.zone, "x").is_ok())
        .filter(|t| {
            counting
                .counted_at(*t)
                .is_some_and(|u| u >= start && u < end)
        })
        .count()
}

#[test]
fn expected_counts_match_a_sweep_of_every_time_on_the_calendar() {
    let zones = [
        "Europe/London",
        "Asia/Kolkata",
        "Australia/Lord_Howe",
        "UTC",
    ];
    let blocks = [
        None,
        Some(Block::Peak),
        Some(Block::Efa(1)),
        Some(Block::Efa(6)),
    ];
    let targets = [
        Target::Calendar(Calendar::Daily),
        Target::Calendar(Calendar::Efa),
        Target::Calendar(Calendar::Intraday(7200)),
        Target::GasDay,
    ];
    // Days around clock changes of each zone (Lord Howe moves by half an hour).
    let days = [
        "2025-03-30",
        "2025-10-26",
        "2025-04-06",
        "2025-10-05",
        "2025-07-15",
    ];
    for zone in zones {
        let zone: Tz = zone.parse().unwrap();
        for step in [900u32, 2700, 3600] {
            for block in &blocks {
                for target in targets {
                    for day in days {
                        let noon = ms(&format!("{day}T12:00:00Z"));
                        let counting = Counting {
                            source: Calendar::Intraday(step),
                            zone,
                            holidays: None,
                            target,
                            block: block.as_ref(),
                            tz: zone,
                        };
                        let (start, end) = period_of(target, noon, zone);
                        let want = swept(&counting, start, end);
                        let got = counting.expected(start, end, noon);
                        assert_eq!(got, Some(want), "{zone} {step}s {block:?} {target:?} {day}");
                    }
                }
            }
        }
    }
    // The sweep itself counts as expected: a London day of quarter-hours holds 96, 92, 100.
    let quarter = |day: &str| {
        let counting = Counting {
            source: Calendar::Intraday(900),
            zone: london(),
            holidays: None,
            target: Target::Calendar(Calendar::Daily),
            block: None,
            tz: london(),
        };
        let (s, e) = period_of(counting.target, ms(&format!("{day}T12:00:00Z")), london());
        swept(&counting, s, e)
    };
    assert_eq!(
        [
            quarter("2025-07-15"),
            quarter("2025-03-30"),
            quarter("2025-10-26")
        ],
        [96, 92, 100]
    );
}

#[test]
fn a_series_on_a_holiday_calendar_expects_none_on_its_holidays() {
    let christmas = crate::holidays::HolidayCalendar::parse(&["25th of December"]).unwrap();
    let utc = Tz::UTC;
    // December 2024: 22 weekdays, Christmas (a Wednesday) off: 21 business days, all here.
    let days: Vec<Point> = (0..31)
        .map(|i| ms("2024-12-01T00:00:00Z") + i * 24 * HOUR)
        .filter(|t| {
            let d = at(*t).date_naive();
            !christmas.is_off(d)
        })
        .map(|t| Point::num(t, 1.0))
        .collect();
    assert_eq!(days.len(), 21);
    let scaling = Scaling::from_params(Some("MONTHLY"), Some("summed"), None, None)
        .unwrap()
        .unwrap();
    let status = |points: &[Point], holidays| {
        let got = scaling
            .apply_in(points, (Calendar::Business, holidays), utc, utc)
            .unwrap();
        got[0].status.as_ref().unwrap().source.clone().unwrap()
    };
    assert_eq!(status(&days, Some(&christmas)), "CALCULATED");
    assert_eq!(status(&days[1..], Some(&christmas)), "CALCULATED:20 of 21");
    // Plain BUSINESS days expect every weekday.
    assert_eq!(status(&days, None), "CALCULATED:21 of 22");
}
