//! What an import keeps, as a new user meets it: text in a numeric series is refused naming the
//! line (on a file and through a server), nothing written; importing the same file again after
//! a validation marked it changes nothing and keeps the qualities.

use crate::{platform, stderr_of_failure, stdout_of, Server};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn on_file(db: &Path, args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--db", db.to_str().unwrap()]);
    platform(&all)
}

const HOURLY: [&str; 6] = [
    "--calendar",
    "HOURLY",
    "--timezone",
    "Europe/Berlin",
    "--units",
    "EUR/MWh",
];

#[test]
fn text_in_a_numeric_series_is_refused_by_line_on_a_file_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("values.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    let token = token.trim();
    let abc = write(
        dir.path(),
        "abc.csv",
        "time,value\n2024-01-01 00:00,61.2\n2024-01-01 01:00,abc\n2024-01-01 02:00,58\n",
    );
    let thousands = write(
        dir.path(),
        "thousands.csv",
        "time,value\n2024-01-01 00:00,61.2\n2024-01-01 01:00,\"1,234.5\"\n",
    );
    let mut import = vec!["data", "import", "DE_LU:PRICE"];
    import.extend_from_slice(&HOURLY);
    let on_server = |server: &Server, args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--url", &server.url, "--token", token]);
        platform(&all)
    };
    let check = |out: Output, expected: &str| {
        assert_eq!(out.status.code(), Some(2));
        let err = stderr_of_failure(&out);
        assert!(err.contains(expected), "{err}");
        assert!(err.contains("it has units EUR/MWh"), "{err}");
    };
    for (file, expected) in [
        (&abc, "line 3: the value \"abc\" is not a number"),
        (
            &thousands,
            "line 3: the value \"1,234.5\" is not a number (a thousands separator? write 1234.5)",
        ),
    ] {
        let mut args = import.clone();
        args.push(file);
        check(on_file(&db, &args), expected);
        let server = Server::start_existing(&db);
        check(on_server(&server, &args), expected);
        drop(server);
    }
    // Nothing was written: the object does not exist.
    let err = stderr_of_failure(&on_file(&db, &["data", "get", "DE_LU:PRICE"]));
    assert!(err.contains("not found"), "{err}");
    // A series that holds only numbers, without units, refuses text too (the stored series is
    // asked), by line.
    let numbers = write(dir.path(), "n.csv", "2024-01-01,1\n2024-01-02,2\n");
    stdout_of(&on_file(&db, &["data", "import", "X:N", &numbers]));
    let text = write(dir.path(), "t.csv", "2024-01-03,three\n");
    let err = stderr_of_failure(&on_file(&db, &["data", "import", "X:N", &text]));
    assert!(
        err.contains("line 1: the value \"three\" is not a number")
            && err.contains("it holds only numbers"),
        "{err}"
    );
    // Replacing it with text makes it a text series.
    stdout_of(&on_file(
        &db,
        &["data", "import", "X:N", &text, "--replace"],
    ));
}

fn qualities(db: &Path) -> (Vec<Value>, u64) {
    let out = stdout_of(&on_file(db, &["data", "get", "DE_LU:PRICE"]));
    let item: Value = serde_json::from_str(&out).unwrap();
    let q = item["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"]["quality"].clone())
        .collect();
    (q, item["_version"].as_u64().unwrap())
}

#[test]
fn importing_the_same_file_again_keeps_the_qualities_a_validation_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("quality.db");
    stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    let file = write(
        dir.path(),
        "prices.csv",
        "time,value\n2024-01-01 00:00,61.2\n2024-01-01 01:00,-500\n2024-01-01 02:00,58\n",
    );
    let mut import = vec!["data", "import", "DE_LU:PRICE", file.as_str()];
    import.extend_from_slice(&HOURLY);
    stdout_of(&on_file(&db, &import));
    let config = write(
        dir.path(),
        "config.json",
        r#"{"_id": "DE_LU:PRICE", "kind": "timeseries", "options": {"writeStatus": true},
            "checks": [{"name": "floor", "expression": "value > -100"}]}"#,
    );
    stdout_of(&on_file(&db, &["validate", "config", "put", &config]));
    let out = on_file(
        &db,
        &[
            "validate",
            "run",
            "DE_LU:PRICE",
            "--from",
            "2024-01-01",
            "--to",
            "2024-01-02",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "the run fails one point");
    let (validated, version) = qualities(&db);
    assert_eq!(
        validated,
        vec![
            Value::from("VALID"),
            Value::from("FAILED"),
            Value::from("VALID")
        ]
    );
    // The same file again: no new version, the red point stays red.
    let out = on_file(&db, &import);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{said}");
    assert!(said.contains("no change"), "{said}");
    assert_eq!(qualities(&db), (validated, version));
}

#[test]
fn data_get_prints_local_time_with_offsets_on_a_file_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("local.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    let file = write(
        dir.path(),
        "autumn.csv",
        "time,value\n2024-10-27 01:00,61.2\n2024-10-27 02:00,58\n2024-10-27 02:00,55.4\n2024-10-27 03:00,57.9\n",
    );
    let mut import = vec!["data", "import", "DE:POWER", file.as_str()];
    import.extend_from_slice(&HOURLY);
    stdout_of(&on_file(&db, &import));
    let get = [
        "data",
        "get",
        "DE:POWER",
        "--timezone",
        "Europe/Berlin",
        "--format",
        "csv",
    ];
    let expected = "time,value,quality,source,reliability\n\
        2024-10-27T01:00:00+02:00,61.2,,,\n\
        2024-10-27T02:00:00+02:00,58.0,,,\n\
        2024-10-27T02:00:00+01:00,55.4,,,\n\
        2024-10-27T03:00:00+01:00,57.9,,,\n";
    assert_eq!(stdout_of(&on_file(&db, &get)), expected);
    let table = stdout_of(&on_file(
        &db,
        &[
            "data",
            "get",
            "DE:POWER",
            "--timezone",
            "series",
            "--format",
            "table",
        ],
    ));
    for time in ["2024-10-27T02:00:00+02:00", "2024-10-27T02:00:00+01:00"] {
        assert_eq!(table.matches(time).count(), 1, "{time} in\n{table}");
    }
    let server = Server::start_existing(&db);
    let mut served = get.to_vec();
    served.extend_from_slice(&["--url", &server.url, "--token", token.trim()]);
    assert_eq!(stdout_of(&platform(&served)), expected);
    // Without --timezone, UTC as before.
    let utc = stdout_of(&on_file(
        &db,
        &["data", "get", "DE:POWER", "--format", "csv"],
    ));
    assert!(
        utc.contains("2024-10-27T00:00:00Z,58.0") && utc.contains("2024-10-27T01:00:00Z,55.4"),
        "{utc}"
    );
}

#[test]
fn nan_is_a_missing_value_and_the_sdks_json_keeps_its_value_type_on_a_file_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sdk.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    let token = token.trim();
    // A CSV file with the prior art's "NaN" for an hour without a value.
    let csv = write(
        dir.path(),
        "nan.csv",
        "time,value\n2024-01-01 00:00,61.2\n2024-01-01 01:00,NaN\n2024-01-01 02:00,58\n",
    );
    // The JSON the SDK's types.TimeSeries produces (valueType BASIC, dataType any, "NaN").
    let sdk = write(
        dir.path(),
        "sdk.json",
        r#"{"_type": "VarTimeSeries", "data": [{"time": "2021-01-01", "value": 21.5}, {"time": "2021-01-04", "value": "NaN"}, {"time": "2021-01-05", "value": 21.7}], "valueType": "BASIC", "_id": "ts1", "calendar": "BUSINESS", "start": "2021-01-01", "dataType": "any"}"#,
    );
    // The earlier reading's valueType is refused, naming dataType.
    let old = write(
        dir.path(),
        "old.json",
        r#"{"valueType": "number", "data": [{"time": "2021-01-01", "value": 1}]}"#,
    );
    let server = Server::start_existing(&db);
    for (at, remote) in [("FILE", false), ("SERVED", true)] {
        let run = |args: &[&str]| {
            let mut all = args.to_vec();
            if remote {
                all.extend_from_slice(&["--url", &server.url, "--token", token]);
            } else {
                all.extend_from_slice(&["--db", db.to_str().unwrap()]);
            }
            platform(&all)
        };
        let price = format!("{at}:PRICE");
        let mut import = vec!["data", "import", price.as_str(), csv.as_str()];
        import.extend_from_slice(&HOURLY);
        stdout_of(&run(&import));
        let item: Value = serde_json::from_str(&stdout_of(&run(&["data", "get", &price]))).unwrap();
        let values: Vec<Value> = item["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["value"].clone())
            .collect();
        assert_eq!(
            values,
            vec![Value::from(61.2), Value::Null, Value::from(58.0)],
            "{at}"
        );
        let ts1 = format!("{at}:ts1");
        stdout_of(&run(&["data", "import", &ts1, &sdk]));
        let item: Value = serde_json::from_str(&stdout_of(&run(&["data", "get", &ts1]))).unwrap();
        assert_eq!(item["valueType"], "BASIC", "{at}: {item}");
        assert_eq!(item["dataType"], "any", "{at}: {item}");
        assert_eq!(item["data"][1]["value"], Value::Null, "{at}: {item}");
        assert_eq!(item["data"][2]["value"], 21.7, "{at}: {item}");
        let err = stderr_of_failure(&run(&["data", "import", &format!("{at}:OLD"), &old]));
        assert!(
            err.contains("OLD.valueType \"number\" names the values' type, which is dataType"),
            "{at}: {err}"
        );
    }
}
