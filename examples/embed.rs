//! Embedding the platform in a Rust program: no server, the core over a SQLite file.
//!
//! A desk loads the TTF day-ahead prices from a vendor's CSV file, checks them, reads a week
//! of them in EUR/therm, and undoes a vendor revision that failed its checks:
//!
//! 1. the hub object `TTF`, and the series `TTF:DA` loaded from `examples/data/ttf_day_ahead.csv`;
//! 2. a validation configuration (prices positive and below 200 EUR/MWh), run over the file;
//! 3. a late revision of two days from the vendor, one with a misplaced decimal point: the
//!    checks fail on it, and rolling the object back undoes the revision (and only it);
//! 4. a week read in EUR/therm, and the same week as the file first loaded it.
//!
//! Run with `cargo run --example embed [DB_FILE]` (default: a temporary file). The
//! walkthrough is [`walkthrough`]; a test of the project runs it (`tests/it/embed.rs`).

use chrono::{DateTime, NaiveDate, Utc};
use platform_core::api::import::{csv_records, PointReader};
use platform_core::api::{
    data::Point, data::ReadRange, data::SeriesQuery, data::WriteOptions, objects::Object,
    validation::ValidationRequest, Collection, VersionRef,
};
use platform_core::{Error, Platform, Result};
use serde_json::json;

/// The vendor's file: a header, then `date,price` in EUR/MWh, one business day a line.
pub const PRICES_CSV: &str = include_str!("data/ttf_day_ahead.csv");

/// What the walkthrough did, for the program to print and a test to check.
#[derive(Debug)]
pub struct Summary {
    /// Prices loaded from the file.
    pub loaded: usize,
    /// The object version the load made.
    pub load_version: u32,
    /// Points checked over the file, and how many failed.
    pub checked: u64,
    /// Failing points of the run over the file.
    pub failed_after_load: u64,
    /// The version the revision made, and the failing points the checks found in it.
    pub revision_version: u32,
    /// Failing points found in the revision (with the point of the first).
    pub failed_in_revision: Vec<String>,
    /// The version current after the rollback.
    pub after_rollback: Option<u32>,
    /// Whether the checks pass again after the rollback.
    pub passes_after_rollback: bool,
    /// The week of 2024-03-11 in EUR/therm (current version).
    pub week_in_therm: Vec<Point>,
    /// The same week in EUR/MWh as the load wrote it (read at the load's version).
    pub week_as_loaded: Vec<Point>,
}

/// Reads the vendor's CSV with the platform's import reader (the one `platform data import`
/// and the REST CSV import use): a header, then `date,price` lines; a date is the day's
/// delivery start at midnight UTC. A price that is not a number is refused naming its line.
pub fn parse_prices(csv: &str) -> Result<Vec<Point>> {
    let records = csv_records(csv, None, &())?;
    let mut reader = PointReader::of_settings(Some("DAILY"), Some("UTC"))?;
    let (points, lines) = reader.csv(&records, &())?;
    points
        .iter()
        .zip(lines)
        .map(|(p, line)| {
            let at = DateTime::from_timestamp_millis(p.t).unwrap_or_default();
            match p.v.as_f64() {
                Some(price) => Ok(Point::new(at, price)),
                None => Err(Error::invalid_body(format!(
                    "line {line}: the price is not a number"
                ))),
            }
        })
        .collect()
}

fn midnight(day: NaiveDate) -> DateTime<Utc> {
    day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc()
}

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default()
}

/// The whole walkthrough on a platform, with prices from `csv`.
pub fn walkthrough(platform: &Platform, csv: &str) -> Result<Summary> {
    let me = platform.tenancy().local_principal("default", "desk")?;
    let (objects, data, validation) = (platform.objects(), platform.data(), platform.validation());

    // 1. The hub, then its day-ahead prices from the file.
    let hub = Object::new("TTF")
        .with("name", "Title Transfer Facility")
        .with("country", "NL");
    objects.save_object(&me, &hub, &Default::default())?;
    let prices = parse_prices(csv)?;
    let header = WriteOptions {
        units: Some("MWh".into()),
        currency: Some("EUR".into()),
        reason: Some("vendor file ttf_day_ahead.csv".into()),
        ..Default::default()
    };
    let load_version = data.write_series(&me, "TTF:DA", &prices, &header)?;

    // 2. The checks, run over the whole file.
    objects.save(
        &me,
        Collection::ValidationConfig,
        json!({"_id": "TTF:DA", "kind": "timeseries", "checks": [
            {"name": "positive", "expression": "value > 0"},
            {"name": "below cap", "expression": "value < 200"}
        ]}),
        &Default::default(),
    )?;
    let (first, last) = (prices[0].at, prices[prices.len() - 1].at);
    let whole_file = ValidationRequest::new("TTF:DA").between(first, last);
    let run = validation.run_and_wait(&me, &whole_file)?;

    // 3. A revision of two days, one with a misplaced decimal point; the checks find it.
    let revision = [
        Point::new(midnight(day(2024, 3, 12)), 26.84),
        Point::new(midnight(day(2024, 3, 13)), 2740.0),
    ];
    let revised = WriteOptions {
        reason: Some("vendor revision".into()),
        ..Default::default()
    };
    let revision_version = data.write_series(&me, "TTF:DA", &revision, &revised)?;
    let checked = validation.run_and_wait(
        &me,
        &ValidationRequest::new("TTF:DA").at(revision.map(|p| p.at)),
    )?;
    let failed_in_revision = checked
        .results
        .iter()
        .filter(|r| r.status.is_failing())
        .map(|r| r.point.clone())
        .collect();
    // Undo the whole revision: the object (and its series) back to the version before.
    let after_rollback = objects.roll_back(&me, "TTF", Some("revision failed its checks"))?;
    let again = validation.run_and_wait(&me, &whole_file)?;

    // 4. A week, converted to EUR/therm, and as the load wrote it.
    let week = ReadRange::Between {
        from: Some(midnight(day(2024, 3, 11))),
        to: Some(midnight(day(2024, 3, 16))),
    };
    let in_therm = data.series(
        &me,
        "TTF:DA",
        &SeriesQuery {
            range: week.clone(),
            units: Some("therm".into()),
            ..Default::default()
        },
    )?;
    let as_loaded = data.series(
        &me,
        "TTF:DA",
        &SeriesQuery {
            range: week,
            version: Some(VersionRef::Number(load_version)),
            ..Default::default()
        },
    )?;
    Ok(Summary {
        loaded: prices.len(),
        load_version,
        checked: run.points,
        failed_after_load: run.counts.failing(),
        revision_version,
        failed_in_revision,
        after_rollback,
        passes_after_rollback: again.passed(),
        week_in_therm: in_therm.points,
        week_as_loaded: as_loaded.points,
    })
}

fn main() -> Result<()> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::env::temp_dir().join(format!("platform-embed-{}.db", std::process::id()))
        });
    let platform = Platform::open(&path)?;
    let s = walkthrough(&platform, PRICES_CSV)?;
    println!(
        "loaded {} prices (object version {})",
        s.loaded, s.load_version
    );
    println!(
        "checked {} points: {} failing",
        s.checked, s.failed_after_load
    );
    println!(
        "revision (version {}) fails its checks at {:?}; rolled back to version {:?}; checks pass again: {}",
        s.revision_version, s.failed_in_revision, s.after_rollback, s.passes_after_rollback
    );
    for (therm, mwh) in s.week_in_therm.iter().zip(&s.week_as_loaded) {
        println!(
            "{}  {:>7.3} EUR/therm  {:>6.2} EUR/MWh",
            therm.at.date_naive(),
            therm.value,
            mwh.value
        );
    }
    platform.close()?;
    println!("database: {}", path.display());
    Ok(())
}
