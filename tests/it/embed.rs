//! The embedding example (`examples/embed.rs`) runs here as written: its walkthrough over a
//! fresh database, with what each step must have done checked, so the example cannot rot.

#[allow(dead_code)] // the example's `main` runs only as `cargo run --example embed`
#[path = "../../examples/embed.rs"]
mod example;

use chrono::{NaiveDate, TimeZone, Utc};
use platform_core::Platform;

#[test]
fn the_embedding_example_loads_validates_reads_and_rolls_back() {
    let dir = tempfile::tempdir().unwrap();
    let platform = Platform::open(dir.path().join("embed.db")).unwrap();
    let s = example::walkthrough(&platform, example::PRICES_CSV).unwrap();

    // The file: 30 business days, loaded at version 2 (the hub was version 1), all valid.
    assert_eq!((s.loaded, s.load_version), (30, 2));
    assert_eq!((s.checked, s.failed_after_load), (30, 0));

    // The revision (version 3) fails at the misplaced decimal point only, and is undone.
    assert_eq!(s.revision_version, 3);
    assert_eq!(s.failed_in_revision.len(), 1, "{:?}", s.failed_in_revision);
    assert!(
        s.failed_in_revision[0].starts_with("2024-03-13"),
        "{:?}",
        s.failed_in_revision
    );
    assert_eq!(s.after_rollback, Some(2));
    assert!(s.passes_after_rollback);

    // The week of 11 March: five business days, as the file has them (the revision is gone).
    let days: Vec<NaiveDate> = s.week_as_loaded.iter().map(|p| p.at.date_naive()).collect();
    assert_eq!(days.len(), 5);
    assert_eq!(days[0], NaiveDate::from_ymd_opt(2024, 3, 11).unwrap());
    let file = example::parse_prices(example::PRICES_CSV).unwrap();
    let in_file: Vec<f64> = file
        .iter()
        .filter(|p| p.at >= Utc.with_ymd_and_hms(2024, 3, 11, 0, 0, 0).unwrap())
        .take(5)
        .map(|p| p.value)
        .collect();
    let read: Vec<f64> = s.week_as_loaded.iter().map(|p| p.value).collect();
    assert_eq!(read, in_file);
    // In EUR/therm: 1 MWh is 34.1214 therm, so a price per therm is the price per MWh / 34.1214.
    for (therm, mwh) in s.week_in_therm.iter().zip(&s.week_as_loaded) {
        assert_eq!(therm.at, mwh.at);
        assert!(
            (therm.value * 34.1214 - mwh.value).abs() < 0.01,
            "{therm:?} {mwh:?}"
        );
    }
}

#[test]
fn the_example_refuses_a_malformed_price_line() {
    let err = example::parse_prices("date,price\n2024-03-01,26.1\n2024-03-04,n/a\n").unwrap_err();
    assert_eq!(err.code(), platform_core::ErrorCode::InvalidBody);
    assert!(err.to_string().contains("line 3"), "{err}");
}
