//! The import file readers (`platform_core::data::import`): what `platform data import` and the
//! REST CSV import read.

use crate::input::{selector, text, MAX_FILE};
use chrono_tz::Tz;
use platform_core::data::calendar::Calendar;
use platform_core::data::import::{
    csv_records_choosing, curve_rows, json_file, ColumnChoice, PointReader,
};
use platform_core::data::model::Point;
use platform_core::data::series::{sort_payload, OnDuplicate, PayloadNames};
use platform_core::ErrorCode;
use serde_json::{json, Map, Value};

/// The settings a file is read with, from the selector byte.
struct Settings {
    calendar: Calendar,
    zone: Tz,
    code: &'static str,
    policy: OnDuplicate,
    delimiter: Option<u8>,
}

fn settings(choice: u8) -> Settings {
    let (calendar, code) = match choice % 4 {
        0 => (Calendar::Sparse, "SPARSE"),
        1 => (Calendar::Daily, "DAILY"),
        2 => (Calendar::Intraday(3600), "HOURLY"),
        _ => (Calendar::Monthly, "MONTHLY"),
    };
    let zone = match (choice / 4) % 3 {
        0 => Tz::UTC,
        1 => chrono_tz::Europe::Berlin,
        _ => chrono_tz::America::New_York,
    };
    let policy = match (choice / 12) % 3 {
        0 => OnDuplicate::Reject,
        1 => OnDuplicate::First,
        _ => OnDuplicate::Last,
    };
    let delimiter = match (choice / 36) % 4 {
        0 => None,
        1 => Some(b','),
        2 => Some(b';'),
        _ => Some(b'\t'),
    };
    Settings {
        calendar,
        zone,
        code,
        policy,
        delimiter,
    }
}

/// The lines of a file, as the readers count them (a last line without a line break counts).
fn line_count(text: &str) -> usize {
    1 + text.bytes().filter(|b| *b == b'\n').count()
}

/// Lines are named in file order and exist.
fn check_lines(text: &str, lines: &[usize]) {
    let last = line_count(text);
    assert!(
        lines.windows(2).all(|w| w[0] <= w[1]),
        "lines out of order: {lines:?}"
    );
    assert!(
        lines.iter().all(|l| (1..=last).contains(l)),
        "lines {lines:?} of a file of {last}"
    );
}

/// Sorting a payload leaves it strictly ascending, with each repeat dropped once.
fn check_sorted(mut points: Vec<Point>, policy: OnDuplicate) {
    let before = points.len();
    let names = PayloadNames {
        place: &|i| format!("point {i}"),
        time: &|t| t.to_string(),
        hint: "",
    };
    match sort_payload(&mut points, policy, &names) {
        Ok(dropped) => {
            assert!(points.windows(2).all(|w| w[0].t < w[1].t), "not ascending");
            assert_eq!(points.len() + dropped, before);
        }
        Err(e) => {
            assert_eq!(policy, OnDuplicate::Reject, "{e}");
            assert_user_error(&e);
        }
    }
}

fn assert_user_error(e: &platform_core::Error) {
    assert_ne!(e.code(), ErrorCode::Internal, "{e}");
}

/// CSV import files: the records and their lines, then the points of a series (on a calendar,
/// in a zone) or the contracts of curves, as `platform data import` reads them. The first byte
/// picks the calendar, zone, duplicate policy and separator.
pub fn import_csv(data: &[u8]) {
    let (choice, rest) = selector(data);
    let Some(text) = text(rest, MAX_FILE) else {
        return;
    };
    let s = settings(choice);
    // One selector in five reads the file as published: its first line's last name is the value
    // column, the other columns that key no row left out.
    let choose = ColumnChoice {
        value: (choice % 5 == 4)
            .then(|| {
                text.lines()
                    .next()
                    .and_then(|l| l.rsplit([',', ';', '\t']).next())
            })
            .flatten()
            .map(str::to_string),
        ..ColumnChoice::default()
    };
    let records = match csv_records_choosing(&text, s.delimiter, &choose, &()) {
        Ok(records) => records,
        Err(e) => return assert_user_error(&e),
    };
    if records.is_curve(choice & 128 != 0) {
        match curve_rows(&records, "FWD", s.policy, "") {
            Ok(rows) => {
                assert!(!rows.curves.is_empty());
                for (ondate, contracts) in rows.curves {
                    let mut sent = Map::new();
                    sent.insert("ondate".into(), json!(ondate));
                    sent.insert("contracts".into(), Value::Array(contracts));
                    // The core's curve reader takes what the file reader made.
                    if let Err(e) = platform_core::data::curve::parse("FWD", &sent) {
                        assert_user_error(&e);
                    }
                }
            }
            Err(e) => assert_user_error(&e),
        }
        return;
    }
    let mut reader = PointReader::new(s.calendar, s.zone, s.code);
    match reader.csv(&records, &()) {
        Ok((points, lines)) => {
            assert_eq!(points.len(), lines.len());
            check_lines(&text, &lines);
            check_sorted(points, s.policy);
        }
        Err(e) => assert_user_error(&e),
    }
}

/// JSON import files: the header and observations, each observation's line, and the points.
pub fn import_json(data: &[u8]) {
    let (choice, rest) = selector(data);
    let Some(text) = text(rest, MAX_FILE) else {
        return;
    };
    let s = settings(choice);
    let (_header, observations) = match json_file(&text) {
        Ok(parts) => parts,
        Err(e) => return assert_user_error(&e),
    };
    let mut reader = PointReader::new(s.calendar, s.zone, s.code);
    match reader.json(&text, &observations, &()) {
        Ok((points, lines)) => {
            assert_eq!(points.len(), lines.len());
            check_lines(&text, &lines);
            check_sorted(points, s.policy);
        }
        Err(e) => assert_user_error(&e),
    }
}
