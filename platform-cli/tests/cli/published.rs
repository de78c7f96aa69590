//! `platform data import` of files as their publishers write them, on a database file and
//! through a server: Elexon's system prices with all their columns (`--value-column`, the
//! settlement columns keying the rows, or `--time-column startTime`), and an exchange's
//! settlement prices (`;`, decimal commas, `--time-column "Trading Date"`). Without the options
//! an unknown column is refused, naming the columns found and `--value-column`.

use crate::{platform, stderr_of_failure, stdout_of, Server};
use serde_json::Value;
use std::path::Path;

const ELEXON_HEADER: &str = "settlementDate,settlementPeriod,startTime,createdDateTime,systemSellPrice,systemBuyPrice,bsadDefaulted,priceDerivationCode,reserveScarcityPrice,netImbalanceVolume,sellPriceAdjustment,buyPriceAdjustment,replacementPrice,replacementPriceReferenceVolume,totalAcceptedOfferVolume,totalAcceptedBidVolume,totalAdjustmentSellVolume,totalAdjustmentBuyVolume,totalSystemTaggedAcceptedOfferVolume,totalSystemTaggedAcceptedBidVolume,totalSystemTaggedAdjustmentSellVolume,totalSystemTaggedAdjustmentBuyVolume";

/// Settlement day 2025-10-26 (the autumn change: 50 periods from 2025-10-25T23:00Z) as Elexon
/// publishes it, and each period's (start, system sell price, imbalance volume).
fn elexon(dir: &Path) -> (String, Vec<(String, f64, f64)>) {
    let mut text = format!("{ELEXON_HEADER}\n");
    let mut rows = Vec::new();
    for p in 1..=50u32 {
        // 23:00Z on the 25th, then 30 minutes a period.
        let minutes = 23 * 60 + 30 * (p - 1);
        let (day, hour, minute) = (25 + minutes / 1440, minutes % 1440 / 60, minutes % 60);
        let start = format!("2025-10-{day}T{hour:02}:{minute:02}:00Z");
        let sell = 60.0 + 1.25 * f64::from(p);
        let niv = 210.0 - 9.5 * f64::from(p);
        text.push_str(&format!(
            "2025-10-26,{p},{start},2025-10-27T01:15:02Z,{sell:.2},{sell:.2},False,N,,{niv:.3},0,0,,,512.3,-98.25,0,0,480.125,-98.25,0,0\n"
        ));
        rows.push((start, sell, niv));
    }
    (write(dir, "system-prices.csv", &text), rows)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn observations(out: &std::process::Output) -> Vec<(String, f64)> {
    let item: Value = serde_json::from_str(&stdout_of(out)).unwrap();
    item["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|o| {
            (
                o["time"].as_str().unwrap().to_string(),
                o["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn published_files_import_with_the_columns_named_on_a_file_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("published.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    let token = token.trim().to_string();
    let (elexon, rows) = elexon(dir.path());
    let eex = write(
        dir.path(),
        "eex.csv",
        "Trading Date;Product;Delivery Start;Delivery End;Open Price;High Price;Low Price;Last Price;Settlement Price;Volume Exchange;Volume Trade Registration;Open Interest\n\
         2024-11-25;DE Base Month Dec-24;2024-12-01;2024-12-31;97,25;97,80;96,90;97,10;96,50;1250;480;8901\n\
         2024-11-26;DE Base Month Dec-24;2024-12-01;2024-12-31;;;;;95,75;0;120;8950\n\
         2024-11-27;DE Base Month Dec-24;2024-12-01;2024-12-31;95,60;98,00;95,40;97,95;98,125;2210;300;9012\n",
    );
    let server = Server::start_existing(&db);
    for remote in [false, true] {
        let run = |args: &[&str]| {
            let mut all = args.to_vec();
            if remote {
                all.extend_from_slice(&["--url", &server.url, "--token", &token]);
            } else {
                all.extend_from_slice(&["--db", db.to_str().unwrap()]);
            }
            platform(&all)
        };
        let object = if remote { "SERVED" } else { "FILE" };
        let id = |prop: &str| format!("{object}:{prop}");
        let half_hours = ["--calendar", "HALFHOURLY", "--timezone", "Europe/London"];
        // Without --value-column: refused, naming the columns and the option; nothing kept.
        let mut args = vec!["data", "import"];
        let ssp = id("SSP");
        args.extend_from_slice(&[ssp.as_str(), elexon.as_str()]);
        args.extend_from_slice(&half_hours);
        let err = stderr_of_failure(&run(&args));
        assert!(
            err.contains("line 1: unknown column \"startTime\": the header's columns are settlementDate, settlementPeriod, startTime, createdDateTime, systemSellPrice")
                && err.contains("name its value column with --value-column NAME (and its time column with --time-column NAME"),
            "{err}"
        );
        let err = stderr_of_failure(&run(&["data", "get", &ssp]));
        assert!(err.contains("not found"), "{err}");
        // The system sell price, keyed by settlement date and period.
        args.extend_from_slice(&["--value-column", "systemSellPrice"]);
        stdout_of(&run(&args));
        let got = observations(&run(&["data", "get", &ssp]));
        let want: Vec<(String, f64)> = rows.iter().map(|(t, s, _)| (t.clone(), *s)).collect();
        assert_eq!(got, want, "{object}");
        // The imbalance volume, keyed by its start time.
        let niv = id("NIV");
        let mut args = vec!["data", "import", niv.as_str(), elexon.as_str()];
        args.extend_from_slice(&half_hours);
        args.extend_from_slice(&[
            "--value-column",
            "netImbalanceVolume",
            "--time-column",
            "startTime",
        ]);
        stdout_of(&run(&args));
        let got = observations(&run(&["data", "get", &niv]));
        let want: Vec<(String, f64)> = rows.iter().map(|(t, _, n)| (t.clone(), *n)).collect();
        assert_eq!(got, want, "{object}");
        // The exchange's settlement prices: a trading day and a settlement price a row.
        let dec = id("DEC24");
        let out = run(&[
            "data",
            "import",
            &dec,
            &eex,
            "--calendar",
            "BUSINESS",
            "--time-column",
            "Trading Date",
            "--value-column",
            "Settlement Price",
        ]);
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(said.contains("imported 3 observations"), "{said}");
        assert_eq!(
            observations(&run(&["data", "get", &dec])),
            vec![
                ("2024-11-25".to_string(), 96.5),
                ("2024-11-26".to_string(), 95.75),
                ("2024-11-27".to_string(), 98.125)
            ]
        );
        // A column the header lacks, and the options on a JSON file, are refused.
        let err = stderr_of_failure(&run(&[
            "data",
            "import",
            &dec,
            &eex,
            "--value-column",
            "Settle",
        ]));
        assert!(
            err.contains("--value-column \"Settle\": the header has no such column; its columns are Trading Date, Product"),
            "{err}"
        );
    }
    let json = write(
        dir.path(),
        "s.json",
        r#"[{"time": "2024-01-01", "value": 1}]"#,
    );
    let err = stderr_of_failure(&platform(&[
        "data",
        "import",
        "J:S",
        &json,
        "--value-column",
        "x",
        "--db",
        db.to_str().unwrap(),
    ]));
    assert!(err.contains("this file is JSON"), "{err}");
}
