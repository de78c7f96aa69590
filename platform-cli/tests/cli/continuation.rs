//! `platform data get ID --continuation M01 [--roll calendar]`: the continuation series of a
//! curve, the same on a database file and through a server, and its bad input refused.

use crate::{platform, stderr_of_failure, stdout_of, Server};
use serde_json::Value;
use std::path::Path;

/// Saves the curves of NBP:FWD on the #REOMHENG expiry calendar: April 2024 expires on
/// Thursday 28 March, before Good Friday.
fn save_curves(db: &Path, dir: &Path) {
    for (ondate, m1, m2) in [("2024-03-28", 4.28, 5.28), ("2024-03-29", 4.29, 5.29)] {
        let file = dir.join(format!("{ondate}.json"));
        let body = format!(
            r##"{{"_id": "NBP", "FWD": {{"_type": "VarCurve",
                "ondate": {{"curveDate": "{ondate}", "expiryCalendar": "#REOMHENG"}},
                "contracts": [{{"tenor": "M01", "value": {m1}}}, {{"tenor": "M02", "value": {m2}}}]}}}}"##
        );
        std::fs::write(&file, body).unwrap();
        stdout_of(&platform(&[
            "object",
            "put",
            "--db",
            db.to_str().unwrap(),
            file.to_str().unwrap(),
        ]));
    }
}

/// `(time, absolute, value)` of the points printed as JSON.
fn points(json: &str) -> Vec<(String, String, f64)> {
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["time"].as_str().unwrap().to_string(),
                p["properties"]["absolute"].as_str().unwrap().to_string(),
                p["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn row(time: &str, absolute: &str, value: f64) -> (String, String, f64) {
    (time.to_string(), absolute.to_string(), value)
}

#[test]
fn data_get_continuation_rolls_on_a_file_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    let token = token.trim().to_string();
    save_curves(&db, dir.path());
    let on_file = |args: &[&str]| {
        let mut all = vec!["data", "get", "NBP:FWD"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--db", db.to_str().unwrap()]);
        platform(&all)
    };
    let expiry = stdout_of(&on_file(&["--continuation", "M01"]));
    assert_eq!(
        points(&expiry),
        [
            row("2024-03-28", "2024M04", 4.28),
            row("2024-03-29", "2024M05", 5.29)
        ]
    );
    let calendar = stdout_of(&on_file(&["--continuation", "M01", "--roll", "calendar"]));
    assert_eq!(
        points(&calendar),
        [
            row("2024-03-28", "2024M04", 4.28),
            row("2024-03-29", "2024M04", 4.29)
        ]
    );
    let table = stdout_of(&on_file(&["--continuation", "M01", "--format", "csv"]));
    assert_eq!(
        table,
        "time,value,absolute,quality,source,reliability\n2024-03-28,4.28,2024M04,,,\n2024-03-29,5.29,2024M05,,,\n"
    );
    let bad = stderr_of_failure(&on_file(&["--continuation", "X7"]));
    assert!(
        bad.contains("_continuation \"X7\"") && bad.contains("M01"),
        "{bad}"
    );
    let bad = stderr_of_failure(&on_file(&["--continuation", "M01", "--roll", "sometimes"]));
    assert!(
        bad.contains("_roll \"sometimes\"") && bad.contains("calendar"),
        "{bad}"
    );
    let bad = stderr_of_failure(&on_file(&["--roll", "calendar"]));
    assert!(bad.contains("--continuation"), "{bad}");

    // Through a server: the same answers and the same refusals.
    let server = Server::start_existing(&db);
    let on_server = |args: &[&str]| {
        let mut all = vec!["data", "get", "NBP:FWD"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--url", &server.url, "--token", &token]);
        platform(&all)
    };
    assert_eq!(stdout_of(&on_server(&["--continuation", "M01"])), expiry);
    assert_eq!(
        stdout_of(&on_server(&["--continuation", "M01", "--roll", "calendar"])),
        calendar
    );
    let bad = stderr_of_failure(&on_server(&[
        "--continuation",
        "M01",
        "--roll",
        "sometimes",
    ]));
    assert!(
        bad.contains("_roll \"sometimes\"") && bad.contains("calendar"),
        "{bad}"
    );
}
