//! `platform data get` with `--block`, `--units`, `--currency` and `--asof` (each the REST
//! parameter of the same meaning), the curves of a range and the nearest curve, a
//! back-adjusted continuation, and `data import --merge` of curves: on a database file and
//! through a server.

use crate::{platform, stderr_of_failure, stdout_of, Server};
use serde_json::Value;
use std::path::Path;

/// `platform ARGS --db DB`.
fn on_file(db: &Path, args: &[&str]) -> std::process::Output {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--db", db.to_str().unwrap()]);
    platform(&all)
}

fn json(out: &std::process::Output) -> Value {
    let text = stdout_of(out);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn values(v: &Value) -> Vec<f64> {
    v["data"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect()
}

/// Monday 28 October 2024 in Berlin, hour by hour: 100 + the hour.
fn monday(dir: &Path, hour_8: f64) -> std::path::PathBuf {
    let mut csv = String::from("time,value\n");
    for h in 0..24 {
        let v = if h == 8 { hour_8 } else { 100.0 + f64::from(h) };
        csv.push_str(&format!("2024-10-28T{h:02}:00,{v}\n"));
    }
    let file = dir.join(format!("monday-{hour_8}.csv"));
    std::fs::write(&file, csv).unwrap();
    file
}

fn close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "{got:?} != {want:?}");
    }
}

#[test]
fn data_get_passes_block_units_currency_and_asof_on_a_file_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    let token = token.trim().to_string();
    let import = |file: &Path| {
        on_file(
            &db,
            &[
                "data",
                "import",
                "DE:POWER",
                file.to_str().unwrap(),
                "--calendar",
                "HOURLY",
                "--timezone",
                "Europe/Berlin",
                "--currency",
                "EUR",
                "--units",
                "MWh",
            ],
        )
    };
    stdout_of(&import(&monday(dir.path(), 108.0)));
    let first = json(&on_file(&db, &["object", "get", "DE"]));
    let asof = first["_timestamp"].as_str().unwrap().to_string();
    // A correction of 08:00, and an FX rate: 1 EUR = 0.85 GBP.
    std::thread::sleep(std::time::Duration::from_millis(20));
    stdout_of(&import(&monday(dir.path(), 200.0)));
    let fx = dir.path().join("fx.json");
    std::fs::write(
        &fx,
        r##"{"_id": "#FX.EURGBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
            "data": [{"time": "2024-01-01", "value": 0.85}]}}"##,
    )
    .unwrap();
    stdout_of(&on_file(&db, &["object", "put", fx.to_str().unwrap()]));

    // Peak hours are 08:00 to 20:00: the twelve hours 108 (or 200) to 119.
    let peak_sum = |h8: f64| h8 + (109..=119).map(f64::from).sum::<f64>();
    let daily = [
        "data",
        "get",
        "DE:POWER",
        "--calendar",
        "DAILY",
        "--observed",
        "averaged",
    ];
    let get = |extra: &[&str]| {
        let mut args = daily.to_vec();
        args.extend_from_slice(extra);
        json(&on_file(&db, &args))
    };
    close(
        &values(&get(&["--block", "PEAK"])),
        &[peak_sum(200.0) / 12.0],
    );
    close(
        &values(&get(&["--block", "OFFPEAK"])),
        &[((100..=107).chain(120..=123).map(f64::from).sum::<f64>()) / 12.0],
    );
    // A price per MWh in kWh is a thousandth; in GBP 0.85 of it.
    let kwh = get(&["--block", "PEAK", "--units", "kWh"]);
    close(&values(&kwh), &[peak_sum(200.0) / 12.0 / 1000.0]);
    assert_eq!(kwh["units"], "kWh");
    let gbp = get(&["--block", "PEAK", "--currency", "GBP"]);
    close(&values(&gbp), &[peak_sum(200.0) / 12.0 * 0.85]);
    assert_eq!(gbp["currency"], "GBP");
    // As of the first import: 08:00 was 108.
    close(
        &values(&get(&["--block", "PEAK", "--asof", &asof])),
        &[peak_sum(108.0) / 12.0],
    );
    let plain = json(&on_file(&db, &["data", "get", "DE:POWER", "--asof", &asof]));
    assert_eq!(plain["data"][8]["value"], 108.0);
    // Refusals are the core's.
    let bad = stderr_of_failure(&on_file(
        &db,
        &["data", "get", "DE:POWER", "--units", "parsec"],
    ));
    assert!(bad.contains("parsec"), "{bad}");
    let bad = stderr_of_failure(&on_file(
        &db,
        &["data", "get", "DE:POWER", "--block", "PEAK"],
    ));
    assert!(bad.contains("--calendar"), "{bad}");

    // Through a server: the same answers.
    let server = Server::start_existing(&db);
    let remote = |extra: &[&str]| {
        let mut args = daily.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--url", &server.url, "--token", &token]);
        json(&platform(&args))
    };
    for extra in [
        &["--block", "PEAK", "--units", "kWh"][..],
        &["--block", "PEAK", "--currency", "GBP", "--asof", &asof],
    ] {
        assert_eq!(remote(extra)["data"], get(extra)["data"], "{extra:?}");
    }
}

/// Saves a curve of `DE:BASE` on `ondate` with these contracts (tenor, value).
fn save_curve(db: &Path, dir: &Path, ondate: &str, contracts: &[(&str, f64)]) {
    let contracts: Vec<String> = contracts
        .iter()
        .map(|(t, v)| format!(r#"{{"tenor": "{t}", "value": {v}}}"#))
        .collect();
    let file = dir.join(format!("{ondate}.json"));
    std::fs::write(
        &file,
        format!(
            r#"{{"_id": "DE", "BASE": {{"_type": "VarCurve", "ondate": "{ondate}",
                "contracts": [{}]}}}}"#,
            contracts.join(",")
        ),
    )
    .unwrap();
    stdout_of(&on_file(db, &["object", "put", file.to_str().unwrap()]));
}

#[test]
fn data_get_reads_the_curves_of_a_range_the_nearest_curve_and_adjusted_continuations() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::new_db(dir.path());
    for (ondate, m1) in [
        ("2024-10-03", 33.0),
        ("2024-10-04", 34.0),
        ("2024-10-07", 37.0),
    ] {
        save_curve(&db, dir.path(), ondate, &[("M01", m1), ("M02", 40.0)]);
    }
    let get = |args: &[&str]| {
        let mut all = vec!["data", "get"];
        all.extend_from_slice(args);
        on_file(&db, &all)
    };
    let csv = stdout_of(&get(&[
        "DE:BASE",
        "--range",
        "between(2024-10-04,2024-10-06)",
        "--format",
        "csv",
    ]));
    assert_eq!(
        csv,
        "ondate,tenor,value,absolute,start,end,expiry\n\
         2024-10-04,M01,34.0,2024M11,2024-11-01,2024-11-30,2024-10-31\n\
         2024-10-04,M02,40.0,2024M12,2024-12-01,2024-12-31,2024-11-30\n"
    );
    let none = json(&get(&[
        "DE:BASE",
        "--range",
        "between(2024-10-05,2024-10-06)",
    ]));
    assert_eq!(none, Value::Array(vec![]));
    let bad = stderr_of_failure(&get(&["DE:BASE:2024-10-05"]));
    assert!(
        bad.contains("2024-10-04 before") && bad.contains("2024-10-07 after"),
        "{bad}"
    );
    let after = json(&get(&["DE:BASE:2024-10-05", "--nearest", "after"]));
    assert_eq!(after["ondate"]["curveDate"], "2024-10-07");
    assert_eq!(after["contracts"][0]["value"], 37.0);
    // A table of contracts does not show its ondate: which one was read is said on stderr.
    let out = get(&[
        "DE:BASE:2024-10-05",
        "--nearest",
        "before",
        "--format",
        "table",
    ]);
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(
        said.contains(
            "DE:BASE:2024-10-05 has no curve: the curve of 2024-10-04, the nearest, is printed"
        ),
        "{said}"
    );
    let out = get(&[
        "DE:BASE:2024-10-04",
        "--nearest",
        "before",
        "--format",
        "table",
    ]);
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");

    // On 1 November December is M01 (45) and November still quoted (36): October's front
    // prices move by 9, and each row names its contract and what moved it.
    save_curve(
        &db,
        dir.path(),
        "2024-11-01",
        &[("2024M11", 36.0), ("M01", 45.0)],
    );
    let table = stdout_of(&get(&[
        "DE:BASE",
        "--continuation",
        "M01",
        "--roll",
        "calendar",
        "--adjust",
        "difference",
        "--format",
        "csv",
    ]));
    assert_eq!(
        table,
        "time,value,absolute,adjustment,quality,source,reliability\n\
         2024-10-03,42.0,2024M11,9.0,,,\n2024-10-04,43.0,2024M11,9.0,,,\n\
         2024-10-07,46.0,2024M11,9.0,,,\n2024-11-01,45.0,2024M12,0.0,,,\n"
    );
    let bad = stderr_of_failure(&get(&["DE:BASE", "--adjust", "ratio"]));
    assert!(bad.contains("--continuation"), "{bad}");
}

#[test]
fn data_import_merge_keeps_the_stored_contracts_and_says_what_a_replace_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    let token = token.trim().to_string();
    save_curve(
        &db,
        dir.path(),
        "2024-10-03",
        &[("M01", 33.0), ("M02", 40.0), ("M03", 41.0)],
    );
    let file = dir.path().join("fix.csv");
    std::fs::write(&file, "ondate,tenor,value\n2024-10-03,M02,44.5\n").unwrap();
    let path = file.to_str().unwrap();
    let import = |extra: Vec<&str>| -> Vec<String> {
        let mut args = vec!["data", "import", "DE:BASE", path];
        args.extend(extra);
        args.into_iter().map(str::to_string).collect()
    };
    let args = import(vec!["--merge"]);
    let merged = on_file(&db, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let said = String::from_utf8(merged.stderr.clone()).unwrap();
    assert!(merged.status.success(), "{said}");
    assert!(
        said.contains("replaced the stored curves of 1 ondate, dropping 0 contracts"),
        "{said}"
    );
    let curve = |db_or_url: &[&str]| {
        let mut args = vec!["data", "get", "DE:BASE:2024-10-03"];
        args.extend_from_slice(db_or_url);
        let v = json(&platform(&args));
        v["contracts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["value"].as_f64().unwrap())
            .collect::<Vec<f64>>()
    };
    assert_eq!(curve(&["--db", db.to_str().unwrap()]), [33.0, 44.5, 41.0]);
    // Through a server, without --merge: the ondate's curve is the file's, and the two
    // contracts it dropped are said.
    let server = Server::start_existing(&db);
    let args = import(vec!["--url", &server.url, "--token", &token]);
    let replaced = platform(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let said = String::from_utf8(replaced.stderr.clone()).unwrap();
    assert!(replaced.status.success(), "{said}");
    assert!(
        said.contains("dropping 2 contracts they held (--merge keeps them)"),
        "{said}"
    );
    assert_eq!(curve(&["--url", &server.url, "--token", &token]), [44.5]);
}
