//! `platform data import` of GB settlement-keyed files: settlement dates and periods become the
//! half-hours they name, 46 on the spring change day and 50 on the autumn one; a period outside
//! its day, or a date that is not one, names its line and stores nothing.

use crate::{data, new_db, platform, stderr_of_failure, stdout_of, Server};
use serde_json::Value;
use std::path::Path;

/// The settlement days of 2025 with their number of periods (the change days are known).
fn days_of_2025() -> Vec<(String, u32)> {
    let lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut days = Vec::new();
    for (m, len) in lengths.iter().enumerate() {
        for d in 1..=*len {
            let date = format!("2025-{:02}-{d:02}", m + 1);
            let n = match date.as_str() {
                "2025-03-30" => 46,
                "2025-10-26" => 50,
                _ => 48,
            };
            days.push((date, n));
        }
    }
    days
}

fn times(db: &Path, id: &str) -> Vec<String> {
    let item: Value = serde_json::from_str(&stdout_of(&data(db, &["get", id]))).unwrap();
    item["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|o| o["time"].as_str().unwrap().to_string())
        .collect()
}

/// A year of settlement periods in a file, with Elexon's column names; each value is its
/// period's number.
fn year_file(dir: &Path) -> std::path::PathBuf {
    let mut text = String::from("SettlementDate,SettlementPeriod,value\n");
    for (date, n) in days_of_2025() {
        for p in 1..=n {
            text.push_str(&format!("{date},{p},{p}\n"));
        }
    }
    let file = dir.join("gb.csv");
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn a_year_of_settlement_periods_imports_with_46_and_50_on_the_change_days() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let file = year_file(dir.path());
    let file = file.to_str().unwrap();
    let args = [
        "import",
        "GB:IMBALANCE",
        file,
        "--calendar",
        "HALFHOURLY",
        "--timezone",
        "Europe/London",
    ];
    let out = data(&db, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = times(&db, "GB:IMBALANCE");
    assert_eq!(all.len(), 17_520);
    let within = |from: &str, to: &str| {
        all.iter()
            .filter(|t| t.as_str() >= from && t.as_str() < to)
            .count()
    };
    // 30 March: midnight GMT to midnight BST; 26 October: midnight BST to midnight GMT.
    assert_eq!(within("2025-03-30T00:00:00Z", "2025-03-30T23:00:00Z"), 46);
    assert_eq!(within("2025-10-25T23:00:00Z", "2025-10-27T00:00:00Z"), 50);
    assert_eq!(within("2025-06-20T23:00:00Z", "2025-06-21T23:00:00Z"), 48);
    assert_eq!(all[0], "2025-01-01T00:00:00Z");
    assert_eq!(all[17_519], "2025-12-31T23:30:00Z");
    // Read back keyed the same way: the autumn settlement day by its date, 50 periods whose
    // value is their own number.
    let day = [
        "get",
        "GB:IMBALANCE",
        "--settlement",
        "GB",
        "--range",
        "between(2025-10-26,2025-10-26)",
        "--format",
        "csv",
    ];
    let text = stdout_of(&data(&db, &day));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "time,settlementDate,settlementPeriod,value,quality,source,reliability"
    );
    assert_eq!(lines.len(), 51, "{text}");
    for (p, line) in lines[1..].iter().enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields[1], "2025-10-26", "{line}");
        assert_eq!(fields[2], (p + 1).to_string(), "{line}");
        assert_eq!(fields[3].parse::<f64>().unwrap(), (p + 1) as f64, "{line}");
    }
}

#[test]
fn a_bad_settlement_row_names_its_line_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    for (rows, says) in [
        (
            "2025-10-26,50,1\n2025-10-26,51,2\n",
            &["line 3", "settlementPeriod 51", "2025-10-26", "50 periods"][..],
        ),
        (
            "2025-10-26,0,1\n",
            &["line 2", "settlementPeriod 0", "1..50"][..],
        ),
        (
            "2025-01-15,49,1\n",
            &["line 2", "settlementPeriod 49", "48 periods"][..],
        ),
        (
            "2025-02-30,1,1\n",
            &["line 2", "\"2025-02-30\"", "YYYY-MM-DD"][..],
        ),
    ] {
        let file = dir.path().join("bad.csv");
        std::fs::write(
            &file,
            format!("settlementDate,settlementPeriod,value\n{rows}"),
        )
        .unwrap();
        let out = data(
            &db,
            &[
                "import",
                "GB:BAD",
                file.to_str().unwrap(),
                "--calendar",
                "HALFHOURLY",
                "--timezone",
                "Europe/London",
            ],
        );
        let err = stderr_of_failure(&out);
        for part in says {
            assert!(err.contains(part), "{rows}: {err}");
        }
        assert!(!data(&db, &["get", "GB:BAD"]).status.success(), "{rows}");
    }
    // A settlement file keys half-hours: an hourly series refuses it.
    let file = dir.path().join("hourly.csv");
    std::fs::write(
        &file,
        "settlementDate,settlementPeriod,value\n2025-01-15,1,1\n",
    )
    .unwrap();
    let out = data(
        &db,
        &[
            "import",
            "GB:H",
            file.to_str().unwrap(),
            "--calendar",
            "HOURLY",
        ],
    );
    assert!(stderr_of_failure(&out).contains("HALFHOURLY"));
}

/// The observations of a `data get` output, as (time, value).
fn observations(out: &std::process::Output) -> Vec<(String, Value)> {
    let item: Value = serde_json::from_str(&stdout_of(out)).unwrap();
    item["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|o| (o["time"].as_str().unwrap().to_string(), o["value"].clone()))
        .collect()
}

#[test]
fn a_settlement_file_imports_through_a_server_as_on_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let on_file = new_db(dir.path());
    let served = dir.path().join("served.db");
    let token = stdout_of(&platform(&["init", "--db", served.to_str().unwrap()]));
    let token = token.trim();
    let server = Server::start_existing(&served);
    let through = |args: &[&str]| {
        let mut all = vec!["data"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--url", &server.url, "--token", token]);
        platform(&all)
    };
    let file = year_file(dir.path());
    let file = file.to_str().unwrap();
    let import = [
        "import",
        "GB:IMBALANCE",
        file,
        "--calendar",
        "HALFHOURLY",
        "--timezone",
        "Europe/London",
    ];
    let here = data(&on_file, &import);
    let there = through(&import);
    assert!(
        there.status.success(),
        "{}",
        String::from_utf8_lossy(&there.stderr)
    );
    // The same report, and the same stored points.
    assert_eq!(
        String::from_utf8_lossy(&here.stderr),
        String::from_utf8_lossy(&there.stderr)
    );
    let stored = observations(&through(&["get", "GB:IMBALANCE"]));
    assert_eq!(
        stored,
        observations(&data(&on_file, &["get", "GB:IMBALANCE"]))
    );
    assert_eq!(stored.len(), 17_520);
    let within = |from: &str, to: &str| {
        stored
            .iter()
            .filter(|(t, _)| t.as_str() >= from && t.as_str() < to)
            .map(|(_, v)| v.as_f64().unwrap())
            .collect::<Vec<_>>()
    };
    let periods = |n: u32| (1..=n).map(f64::from).collect::<Vec<_>>();
    assert_eq!(
        within("2025-03-30T00:00:00Z", "2025-03-30T23:00:00Z"),
        periods(46)
    );
    assert_eq!(
        within("2025-10-25T23:00:00Z", "2025-10-27T00:00:00Z"),
        periods(50)
    );
    // The server's own CSV import reads the file the same (into the object the import made).
    let url = format!(
        "{}/data/v1/private/GB:REST?calendar=HALFHOURLY&timezone=Europe/London",
        server.url
    );
    let answer: Value = ureq::post(&url)
        .set("Authorization", &format!("Bearer {token}"))
        .set("Content-Type", "text/csv")
        .send_string(&std::fs::read_to_string(file).unwrap())
        .unwrap()
        .into_json()
        .unwrap();
    assert_eq!(answer["_read"], 17_520, "{answer}");
    assert_eq!(observations(&through(&["get", "GB:REST"])), stored);
    // A period past its day names its line through the server too, and stores nothing.
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "settlementDate,settlementPeriod,value\n2025-10-26,50,1\n2025-10-26,51,2\n",
    )
    .unwrap();
    let args = [
        "import",
        "GB:BAD",
        bad.to_str().unwrap(),
        "--calendar",
        "HALFHOURLY",
        "--timezone",
        "Europe/London",
    ];
    let err = stderr_of_failure(&through(&args));
    for part in ["line 3", "settlementPeriod 51", "2025-10-26", "50 periods"] {
        assert!(err.contains(part), "{err}");
    }
    assert!(!through(&["get", "GB:BAD"]).status.success());
}

/// Settlement periods read by day: a day short of a period says how many of its periods made
/// its average (47 of 48); the spring change day is whole at 46.
#[test]
fn daily_averages_of_settlement_periods_say_when_a_period_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let mut text = String::from("SettlementDate,SettlementPeriod,value\n");
    for (date, n) in [("2025-03-30", 46), ("2025-03-31", 48)] {
        for p in 1..=n {
            if date == "2025-03-31" && p == 17 {
                continue;
            }
            text.push_str(&format!("{date},{p},{p}\n"));
        }
    }
    let file = dir.path().join("gb.csv");
    std::fs::write(&file, text).unwrap();
    let import = [
        "import",
        "GB:IMBALANCE",
        file.to_str().unwrap(),
        "--calendar",
        "HALFHOURLY",
        "--timezone",
        "Europe/London",
    ];
    stdout_of(&data(&db, &import));
    let args = [
        "get",
        "GB:IMBALANCE",
        "--calendar",
        "DAILY",
        "--observed",
        "averaged",
        "--format",
        "csv",
    ];
    let csv = stdout_of(&data(&db, &args));
    // The averages of the periods' numbers: 1..46 whole; 1..48 without 17.
    let spring = (1..=46).sum::<u32>() as f64 / 46.0;
    let short = ((1..=48).sum::<u32>() - 17) as f64 / 47.0;
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "time,value,quality,source,reliability");
    let row = |line: &str| -> (String, f64, String) {
        let cells: Vec<&str> = line.split(',').collect();
        (cells[0].into(), cells[1].parse().unwrap(), cells[3].into())
    };
    let (day, value, source) = row(lines[1]);
    assert_eq!(
        (day.as_str(), source.as_str()),
        ("2025-03-30", "CALCULATED")
    );
    assert!((value - spring).abs() < 1e-9, "{csv}");
    let (day, value, source) = row(lines[2]);
    assert_eq!(
        (day.as_str(), source.as_str()),
        ("2025-03-31", "CALCULATED:47 of 48")
    );
    assert!((value - short).abs() < 1e-9, "{csv}");
}
