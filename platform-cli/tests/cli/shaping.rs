//! `platform data get ID --shape monthly [--weights days]`: a curve read as arbitrage-free
//! months, on a database file and through a server, as JSON, a table and CSV; a disagreeing
//! quote said on standard error; bad options refused by name.

use crate::{platform, stderr_of_failure, stdout_of, Server};
use serde_json::Value;

#[test]
fn a_curve_shapes_into_months_on_a_file_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shape.db");
    let db_arg = db.to_str().unwrap().to_string();
    let token = stdout_of(&platform(&["init", "--db", &db_arg]));
    let token = token.trim().to_string();
    // The first vector's quarter over two months (ondate 2024-11-15), and an older ondate whose
    // fully quoted quarter disagrees with its months.
    let file = dir.path().join("fwd.csv");
    std::fs::write(
        &file,
        "ondate,tenor,value\n2024-11-14,2025M01,100\n2024-11-14,2025M02,100\n\
         2024-11-14,2025M03,100\n2024-11-14,2025Q01,90\n\
         2024-11-15,2025M01,100\n2024-11-15,2025M02,98\n2024-11-15,2025Q01,95\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    stdout_of(&platform(&[
        "data",
        "import",
        "DE:BASE",
        file,
        "--timezone",
        "Europe/Berlin",
        "--currency",
        "EUR",
        "--units",
        "MWh",
        "--db",
        &db_arg,
    ]));
    let server = Server::start_existing(&db);
    let on_file = |args: &[&str]| {
        let mut all = vec!["data", "get"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--db", &db_arg]);
        platform(&all)
    };
    let on_server = |args: &[&str]| {
        let mut all = vec!["data", "get"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--url", &server.url, "--token", &token]);
        platform(&all)
    };
    for get in [
        &on_file as &dyn Fn(&[&str]) -> std::process::Output,
        &on_server,
    ] {
        let json: Value =
            serde_json::from_str(&stdout_of(&get(&["DE:BASE", "--shape", "monthly"]))).unwrap();
        assert_eq!(
            (&json["shape"], &json["weights"]),
            (&"MONTHLY".into(), &"hours".into())
        );
        let march = &json["contracts"][2];
        assert_eq!(march["tenor"], "2025M03");
        assert_eq!(march["properties"]["from"], "2025Q01");
        assert!((march["value"].as_f64().unwrap() - 87.279946164).abs() < 1e-6);
        // By days: March is (95 * 90 - 100 * 31 - 98 * 28) / 31.
        let days = stdout_of(&get(&[
            "DE:BASE",
            "--shape",
            "monthly",
            "--weights",
            "days",
            "--format",
            "csv",
        ]));
        let lines: Vec<&str> = days.lines().collect();
        assert_eq!(lines[0], "tenor,value,from,start,end,days");
        let value: f64 = lines[3].split(',').nth(1).unwrap().parse().unwrap();
        let want = (95.0 * 90.0 - 100.0 * 31.0 - 98.0 * 28.0) / 31.0;
        assert!((value - want).abs() < 1e-9, "{days}");
        assert!(
            lines[3].ends_with(",2025Q01,2025-03-01,2025-03-31,31"),
            "{days}"
        );
        // The older ondate: a table, and its arbitrage said on standard error.
        let out = get(&[
            "DE:BASE:2024-11-14",
            "--shape",
            "monthly",
            "--format",
            "table",
        ]);
        let table = stdout_of(&out);
        assert!(table.starts_with("TENOR"), "{table}");
        assert!(
            table.contains("HOURS") && table.contains("2025M02"),
            "{table}"
        );
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("The quotes 2025M01 (quoted 100, fitted 97.416887, miss -2.583113)")
                && err
                    .contains("and 2025Q01 (quoted 90, fitted 97.495889, miss +7.495889) disagree"),
            "{err}"
        );
        // A tolerance that takes the misses in: nothing said; peak hours weigh the months.
        let out = get(&[
            "DE:BASE:2024-11-14",
            "--shape",
            "monthly",
            "--tolerance",
            "8",
            "--weights",
            "PEAK",
        ]);
        let json: Value = serde_json::from_str(&stdout_of(&out)).unwrap();
        assert_eq!(
            (&json["weights"], &json["tolerance"]),
            (&"PEAK".into(), &8.0.into())
        );
        assert_eq!(json["arbitrage"], serde_json::json!([]));
        // 23 weekdays of January 2025, 12 peak hours each.
        assert_eq!(json["contracts"][0]["properties"]["hours"], 276);
        assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    }
    // Bad options are refused by name with the values allowed, before anything is read.
    let err = stderr_of_failure(&on_file(&["DE:BASE", "--shape", "weekly"]));
    assert!(err.contains("--shape") && err.contains("monthly"), "{err}");
    let err = stderr_of_failure(&on_file(&["DE:BASE", "--weights", "days"]));
    assert!(err.contains("--shape"), "{err}");
    let err = stderr_of_failure(&on_file(&[
        "DE:BASE",
        "--shape",
        "monthly",
        "--weights",
        "kg",
    ]));
    assert!(
        err.contains("_weights \"kg\"") && err.contains("hours, days, PEAK"),
        "{err}"
    );
    // The server refuses a shaped tenor history, naming both.
    let err = stderr_of_failure(&on_server(&[
        "DE:BASE", "--shape", "monthly", "--tenor", "M01",
    ]));
    assert!(err.contains("tenor=") && err.contains("_shape"), "{err}");
}
