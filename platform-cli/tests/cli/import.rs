//! `platform data import` as users run it: hourly power around clock changes, files that hold a
//! time twice, `;` and tab separated exports, curves, and imports through a running server.

use crate::{data, new_db, stderr_of_failure, stdout_of, Server};
use serde_json::{json, Value};
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// The (time, value) pairs of a data item printed by `data get`.
fn observations(db: &Path, id: &str) -> Vec<(String, Value)> {
    let item: Value = serde_json::from_str(&stdout_of(&data(db, &["get", id]))).unwrap();
    item["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|o| (o["time"].as_str().unwrap().to_string(), o["value"].clone()))
        .collect()
}

fn stderr(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).trim().to_string()
}

#[test]
fn the_repeated_autumn_hour_is_imported_as_two_hours_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let file = write(
        dir.path(),
        "da.csv",
        "time,value\n2024-10-27 00:00,1\n2024-10-27 01:00,2\n2024-10-27 02:00,3\n\
         2024-10-27 02:00,4\n2024-10-27 03:00,5\n",
    );
    let out = data(
        &db,
        &[
            "import",
            "PWR:DA",
            &file,
            "--calendar",
            "HOURLY",
            "--timezone",
            "Europe/Berlin",
        ],
    );
    assert_eq!(
        stderr(&out),
        "imported 5 observations into PWR:DA (version 1)"
    );
    assert_eq!(
        observations(&db, "PWR:DA"),
        vec![
            ("2024-10-26T22:00:00Z".to_string(), json!(1.0)),
            ("2024-10-26T23:00:00Z".to_string(), json!(2.0)),
            ("2024-10-27T00:00:00Z".to_string(), json!(3.0)),
            ("2024-10-27T01:00:00Z".to_string(), json!(4.0)),
            ("2024-10-27T02:00:00Z".to_string(), json!(5.0)),
        ]
    );
    // The same file again stores nothing new, and says so.
    let out = data(&db, &["import", "PWR:DA", &file]);
    assert_eq!(
        stderr(&out),
        "imported 5 observations into PWR:DA (no change: the data held them already)"
    );
    // A time in the spring gap names its line and stores nothing.
    let gap = write(
        dir.path(),
        "gap.csv",
        "2024-03-31T01:00,1\n2024-03-31T02:30,2\n",
    );
    let err = stderr_of_failure(&data(&db, &["import", "PWR:DA", &gap]));
    assert!(
        err.contains("line 2") && err.contains("2024-03-31T02:30") && err.contains("Europe/Berlin"),
        "{err}"
    );
    assert_eq!(observations(&db, "PWR:DA").len(), 5);
}

#[test]
fn a_time_the_file_holds_twice_is_refused_with_both_lines_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let file = write(
        dir.path(),
        "twice.csv",
        "date,price\n2023-12-29,0\n2024-01-01,1\n2024-01-02,5\n2024-01-01T00:00:00Z,2\n",
    );
    let err = stderr_of_failure(&data(
        &db,
        &["import", "GAS:DA", &file, "--calendar", "DAILY"],
    ));
    assert!(
        err.contains("line 3 and line 5 are the same time 2024-01-01"),
        "{err}"
    );
    assert!(
        err.contains("--on-duplicate first|last") && err.contains("nothing was stored"),
        "{err}"
    );
    let missing = stderr_of_failure(&data(&db, &["get", "GAS:DA"]));
    assert!(missing.contains("NOT_FOUND"), "{missing}");

    let out = data(
        &db,
        &[
            "import",
            "GAS:DA",
            &file,
            "--calendar",
            "DAILY",
            "--on-duplicate",
            "last",
        ],
    );
    assert_eq!(
        stderr(&out),
        "imported 3 observations (1 observation the file held twice left out by \
         --on-duplicate) into GAS:DA (version 1)"
    );
    assert_eq!(
        observations(&db, "GAS:DA"),
        vec![
            ("2023-12-29".to_string(), json!(0.0)),
            ("2024-01-01".to_string(), json!(2.0)),
            ("2024-01-02".to_string(), json!(5.0)),
        ]
    );
    let out = data(&db, &["import", "GAS:DA", &file, "--on-duplicate", "first"]);
    stderr(&out);
    assert_eq!(observations(&db, "GAS:DA")[1].1, json!(1.0));
}

#[test]
fn semicolon_and_tab_separated_exports_with_quotes_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    // A spreadsheet export: `;` between fields, decimal commas, quoted fields, CRLF.
    let semi = write(
        dir.path(),
        "semi.csv",
        "\u{feff}\"Datum\";\"Preis\";\"Status\"\r\n2024-07-01;80,5;VALID\r\n\
         \"2024-07-02\";\"81,25\";\r\n\r\n2024-07-03;\"n/a; closed\";\r\n",
    );
    let out = data(&db, &["import", "NBP:SPOT", &semi, "--calendar", "DAILY"]);
    assert_eq!(
        stderr(&out),
        "imported 3 observations into NBP:SPOT (version 1)"
    );
    assert_eq!(
        observations(&db, "NBP:SPOT"),
        vec![
            ("2024-07-01".to_string(), json!(80.5)),
            ("2024-07-02".to_string(), json!(81.25)),
            ("2024-07-03".to_string(), json!("n/a; closed")),
        ]
    );
    // Tab separated, detected from the header.
    let tabs = write(
        dir.path(),
        "tabs.tsv",
        "time\tvalue\n2024-07-04\t82\n2024-07-05\t83.5\n",
    );
    stderr(&data(&db, &["import", "NBP:SPOT", &tabs]));
    assert_eq!(observations(&db, "NBP:SPOT").len(), 5);
    // A file whose first line would mislead detection takes --delimiter.
    let said = write(dir.path(), "said.csv", "2024-07-08|84\n2024-07-09|85\n");
    let err = stderr_of_failure(&data(&db, &["import", "NBP:SPOT", &said]));
    assert!(err.contains("line 1"), "{err}");
    stderr(&data(
        &db,
        &["import", "NBP:SPOT", &said, "--delimiter", "|"],
    ));
    assert_eq!(observations(&db, "NBP:SPOT").len(), 7);
    let err = stderr_of_failure(&data(
        &db,
        &["import", "NBP:SPOT", &said, "--delimiter", "ab"],
    ));
    assert!(err.contains("--delimiter"), "{err}");
}

#[test]
fn curves_import_from_ondate_tenor_value_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let file = write(
        dir.path(),
        "fwd.csv",
        "ondate,tenor,value\n2024-03-01,M01,30.1\n2024-03-01,2024Q3,29.8\n\
         2024-03-04,M01,30.4\n2024-03-04,2024Q3,29.9\n2024-03-04,Y01,28\n",
    );
    let out = data(
        &db,
        &[
            "import",
            "TTF:FWD",
            &file,
            "--currency",
            "EUR",
            "--units",
            "MWh",
        ],
    );
    assert_eq!(
        stderr(&out),
        "imported 2 curves (5 contracts) into TTF:FWD (version 1)"
    );
    let curve: Value =
        serde_json::from_str(&stdout_of(&data(&db, &["get", "TTF:FWD:2024-03-01"]))).unwrap();
    assert_eq!(curve["currency"], "EUR");
    let tenors: Vec<(Value, Value)> = curve["contracts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["properties"]["absolute"].clone(), c["value"].clone()))
        .collect();
    assert_eq!(
        tenors,
        vec![
            (json!("2024M04"), json!(30.1)),
            (json!("2024Q03"), json!(29.8))
        ]
    );
    let history: Value = serde_json::from_str(&stdout_of(&data(
        &db,
        &["get", "TTF:FWD", "--tenor", "M01"],
    )))
    .unwrap();
    assert_eq!(
        history["data"],
        json!([{"time": "2024-03-01", "value": 30.1}, {"time": "2024-03-04", "value": 30.4}])
    );
    // Without a header, a stored curve takes ondate,tenor,value records; a bad tenor names its
    // line and stores nothing.
    let more = write(
        dir.path(),
        "more.csv",
        "2024-03-05,M01,31\n2024-03-05,M99X,1\n",
    );
    let err = stderr_of_failure(&data(&db, &["import", "TTF:FWD", &more]));
    assert!(err.contains("line 2") && err.contains("M99X"), "{err}");
    let more = write(dir.path(), "more.csv", "2024-03-05,M01,31\n");
    assert_eq!(
        stderr(&data(&db, &["import", "TTF:FWD", &more])),
        "imported 1 curve (1 contract) into TTF:FWD (version 2)"
    );
    // A series file into a curve is refused.
    let series = write(dir.path(), "s.csv", "time,value\n2024-03-05,1\n");
    let err = stderr_of_failure(&data(&db, &["import", "TTF:FWD", &series]));
    assert!(err.contains("holds a curve"), "{err}");
}

#[test]
fn data_get_reads_an_older_version_by_number_or_tag() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    let file = write(dir.path(), "a.csv", "2024-07-01,1\n2024-07-02,2\n");
    stderr(&data(&db, &["import", "X:S", &file]));
    let file = write(dir.path(), "b.csv", "2024-07-02,20\n2024-07-03,3\n");
    stderr(&data(&db, &["import", "X:S", &file]));
    let v1: Value =
        serde_json::from_str(&stdout_of(&data(&db, &["get", "X:S", "--version", "1"]))).unwrap();
    assert_eq!(v1["data"].as_array().unwrap().len(), 2);
    assert_eq!(v1["data"][1]["value"], 2.0);
    let now: Value = serde_json::from_str(&stdout_of(&data(&db, &["get", "X:S"]))).unwrap();
    assert_eq!(now["data"].as_array().unwrap().len(), 3);
    let err = stderr_of_failure(&data(&db, &["get", "X:S", "--version", "9"]));
    assert!(err.contains("NOT_FOUND"), "{err}");
}

#[test]
fn import_through_a_running_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("served.db");
    let server = Server::start(&db);
    let file = write(
        dir.path(),
        "da.csv",
        "time;value\n2024-10-27 01:00;2\n2024-10-27 02:00;3\n2024-10-27 02:00;4\n",
    );
    let remote = |args: &[&str]| {
        let mut all = vec![
            "data",
            "import",
            "--url",
            &server.url,
            "--token",
            &server.admin_token,
        ];
        all.extend_from_slice(args);
        crate::platform(&all)
    };
    let out = remote(&[
        "PWR:DA",
        &file,
        "--calendar",
        "HOURLY",
        "--timezone",
        "Europe/Berlin",
    ]);
    assert_eq!(
        stderr(&out),
        "imported 3 observations into PWR:DA (version 1)"
    );
    let item = crate::get(&server.url, &server.admin_token, "/data/v1/private/PWR:DA").unwrap();
    let times: Vec<&str> = item["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["time"].as_str().unwrap())
        .collect();
    assert_eq!(
        times,
        vec![
            "2024-10-26T23:00:00Z",
            "2024-10-27T00:00:00Z",
            "2024-10-27T01:00:00Z"
        ]
    );
    // The stored zone is used for a second file, and a duplicate is refused before anything is
    // sent.
    let twice = write(
        dir.path(),
        "twice.csv",
        "2024-10-28 05:00,1\n2024-10-28 05:00,2\n",
    );
    let err = stderr_of_failure(&remote(&["PWR:DA", &twice]));
    assert!(err.contains("line 1 and line 2"), "{err}");
    // Curves go through too, in one transaction.
    let fwd = write(
        dir.path(),
        "fwd.csv",
        "ondate,tenor,value\n2024-03-01,M01,30\n2024-03-04,M01,31\n",
    );
    assert_eq!(
        stderr(&remote(&["TTF:FWD", &fwd])),
        "imported 2 curves (2 contracts) into TTF:FWD (version 2)"
    );
    // A time off the stored calendar names its line.
    let bad = write(dir.path(), "bad.csv", "time,value\n2024-10-28 05:30,1\n");
    let err = stderr_of_failure(&remote(&["PWR:DA", &bad]));
    assert!(
        err.contains("INDEX_ALIGN") && err.contains("line 2"),
        "{err}"
    );
    // The server's refusal comes back with its code and message.
    let err = stderr_of_failure(&crate::platform(&[
        "data",
        "import",
        "--url",
        &server.url,
        "--token",
        "pt_wrong",
        "PWR:DA",
        &file,
    ]));
    assert!(err.contains("NOT_AUTHENTICATED"), "{err}");
}

#[test]
fn a_json_file_with_a_field_given_twice_is_refused_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_db(dir.path());
    for (name, text) in [
        (
            "header.json",
            r#"{"calendar": "DAILY", "calendar": "HOURLY", "data": [{"time": "2024-07-01", "value": 1}]}"#,
        ),
        (
            "point.json",
            "[{\"time\": \"2024-07-01\", \"value\": 1},\n {\"time\": \"2024-07-02\", \"value\": 2, \"value\": 3}]",
        ),
    ] {
        let file = write(dir.path(), name, text);
        let out = data(&db, &["import", "X:S", &file]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("given twice"), "{name}: {err}");
    }
    let out = data(&db, &["get", "X:S"]);
    assert!(!out.status.success(), "nothing was stored");
}
