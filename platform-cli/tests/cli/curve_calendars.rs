//! Curve imports keep their expiry calendars, on a database file and through a server:
//! `--expiry-calendar` on a CSV file of ondate,tenor,value, and a JSON curve file's header
//! `expiryCalendar` (the prior art's SDK's shape); a calendar that does not exist is refused
//! with nothing stored.

use crate::{platform, stderr_of_failure, stdout_of, Server};
use serde_json::Value;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// The (absolute code, expiry) of each contract of a curve `data get` prints.
fn expiries(out: &std::process::Output) -> Vec<(String, String)> {
    let curve: Value = serde_json::from_str(&stdout_of(out)).unwrap();
    curve["contracts"]
        .as_array()
        .expect("contracts")
        .iter()
        .map(|c| {
            let p = &c["properties"];
            (
                p["absolute"].as_str().unwrap().to_string(),
                p["expiry"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn owned(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn curve_imports_keep_their_expiry_calendars_on_a_file_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("curves.db");
    let token = stdout_of(&platform(&["init", "--db", db.to_str().unwrap()]));
    let token = token.trim().to_string();
    // December 2024 starts on Sunday 1 December: by #REOMHENG it expires on Friday 29
    // November (without a calendar, on Saturday 30 November). September 2026 starts after the
    // bank holiday of Monday 31 August: #REOMHENG gives Friday 28 August, #REOMB Monday 31.
    let csv = write(
        dir.path(),
        "curves.csv",
        "ondate,tenor,value\n2024-11-25,2024M12,96.5\n2024-11-25,2026M09,80\n",
    );
    let next = write(
        dir.path(),
        "next.csv",
        "ondate,tenor,value\n2024-11-26,2024M12,97\n",
    );
    // The JSON the SDK's types.Curve makes, with the calendar in the curve's header.
    let json = write(
        dir.path(),
        "curve.json",
        r##"{"_type": "VarCurve", "expiryCalendar": "#REOMB", "currency": "EUR", "units": "MWh",
            "curves": [{"ondate": "2024-11-25", "contracts": [{"tenor": "2026M09", "value": 30.2}]},
                       {"ondate": {"curveDate": "2024-11-26", "expiryCalendar": "#REOMHENG"},
                        "contracts": [{"tenor": "2026M09", "value": 30.4}]}]}"##,
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
        let base = format!("{object}:BASE");
        stdout_of(&run(&[
            "data",
            "import",
            &base,
            &csv,
            "--expiry-calendar",
            "#REOMHENG",
        ]));
        let get = |ondate: &str| run(&["data", "get", &format!("{base}:{ondate}")]);
        assert_eq!(
            expiries(&get("2024-11-25")),
            owned(&[("2024M12", "2024-11-29"), ("2026M09", "2026-08-28")]),
            "{object}"
        );
        // The curve keeps its calendar: the next file, without the option, expires by it.
        stdout_of(&run(&["data", "import", &base, &next]));
        assert_eq!(
            expiries(&get("2024-11-26")),
            owned(&[("2024M12", "2024-11-29")]),
            "{object}"
        );
        // A JSON curve file: its header's calendar for the ondate naming none.
        let gas = format!("{object}:GAS");
        stdout_of(&run(&["data", "import", &gas, &json]));
        let gas_get = |ondate: &str| run(&["data", "get", &format!("{gas}:{ondate}")]);
        assert_eq!(
            expiries(&gas_get("2024-11-25")),
            owned(&[("2026M09", "2026-08-31")]),
            "{object}"
        );
        assert_eq!(
            expiries(&gas_get("2024-11-26")),
            owned(&[("2026M09", "2026-08-28")]),
            "{object}"
        );
        // A calendar that does not exist: refused, naming it; nothing is stored.
        let err = stderr_of_failure(&run(&[
            "data",
            "import",
            &format!("{object}:BAD"),
            &csv,
            "--expiry-calendar",
            "#NOPE",
        ]));
        assert!(
            err.contains("BAD.expiryCalendar") && err.contains("#NOPE"),
            "{err}"
        );
        let err = stderr_of_failure(&run(&["data", "get", &format!("{object}:BAD:2024-11-25")]));
        assert!(err.contains("not found"), "{object}: {err}");
        // On a series it is refused.
        let series = write(dir.path(), "s.csv", "time,value\n2024-01-01,1\n");
        let err = stderr_of_failure(&run(&[
            "data",
            "import",
            &format!("{object}:S"),
            &series,
            "--expiry-calendar",
            "#REOMB",
        ]));
        assert!(
            err.contains("--expiry-calendar sets when a curve's contracts expire"),
            "{err}"
        );
    }
}
