//! Imports through the Rust API (`Data::save_curves`, `Data::import_csv`): a curve's expiry
//! calendar from its header, and files as published read by the columns named.

use super::csv_import::CsvImport;
use crate::auth::Principal;
use crate::data::read::DataQuery;
use crate::ids::Source;
use crate::store::Collection;
use crate::Platform;
use serde_json::{json, Map, Value};

fn setup() -> (Platform, Principal) {
    let platform = Platform::in_memory().unwrap();
    let me = platform.tenancy().local_principal("acme", "desk").unwrap();
    (platform, me)
}

fn read(p: &Platform, me: &Principal, id: &str) -> Value {
    p.data()
        .read(me, Source::Private, id, &DataQuery::default())
        .unwrap()
}

/// Each contract's (absolute code, expiry).
fn expiries(curve: &Value) -> Vec<(String, String)> {
    curve["contracts"]
        .as_array()
        .unwrap()
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

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn a_curves_expiry_calendar_sets_the_expiries_of_its_ondates() {
    let (p, me) = setup();
    let header = |calendar: &str| {
        let mut h = Map::new();
        h.insert("expiryCalendar".into(), json!(calendar));
        h
    };
    let curve = |ondate: Value| {
        let mut c = Map::new();
        c.insert("ondate".into(), ondate);
        c.insert(
            "contracts".into(),
            json!([{"tenor": "2024M12", "value": 96.5}, {"tenor": "2026M09", "value": 80.0}]),
        );
        c
    };
    // December 2024 starts on Sunday 1 December: by #REOMHENG it expires on Friday 29
    // November, not on Saturday 30 November (the calendar day before, the default).
    // September 2026 starts on Tuesday 1 September after the bank holiday of Monday 31
    // August: Friday 28 August.
    let opts = Default::default();
    let ondates = vec![
        curve(json!("2024-11-25")),
        curve(json!({"curveDate": "2024-11-26", "expiryCalendar": "#RDCEM"})),
    ];
    p.data()
        .save_curves(&me, "DEPWR", "BASE", header("#REOMHENG"), ondates, &opts)
        .unwrap();
    let first = read(&p, &me, "DEPWR:BASE:2024-11-25");
    assert_eq!(
        first["ondate"],
        json!({"curveDate": "2024-11-25", "expiryCalendar": "#REOMHENG"})
    );
    assert_eq!(
        expiries(&first),
        pairs(&[("2024M12", "2024-11-29"), ("2026M09", "2026-08-28")])
    );
    // An ondate's own calendar wins over the header's: #RDCEM is the calendar day before.
    let own = read(&p, &me, "DEPWR:BASE:2024-11-26");
    assert_eq!(
        expiries(&own),
        pairs(&[("2024M12", "2024-11-30"), ("2026M09", "2026-08-31")])
    );
    // The CSV import sets a curve's calendar too; #REOMB counts weekdays only (31 August).
    p.objects()
        .save(&me, Collection::Object, json!({"_id": "TTF"}), &opts)
        .unwrap();
    let req = CsvImport {
        expiry_calendar: Some("#REOMB".into()),
        ..Default::default()
    };
    let text = "ondate,tenor,value\n2024-11-25,2024M12,45.1\n2024-11-25,2026M09,30.2\n";
    p.data().import_csv(&me, "TTF:FWD", text, &req).unwrap();
    let ttf = read(&p, &me, "TTF:FWD:2024-11-25");
    assert_eq!(
        expiries(&ttf),
        pairs(&[("2024M12", "2024-11-29"), ("2026M09", "2026-08-31")])
    );
    // The header keeps it: the next import without it expires by #REOMB as well.
    let next = "ondate,tenor,value\n2024-11-26,2026M09,30.4\n";
    p.data()
        .import_csv(&me, "TTF:FWD", next, &CsvImport::default())
        .unwrap();
    assert_eq!(
        expiries(&read(&p, &me, "TTF:FWD:2024-11-26")),
        pairs(&[("2026M09", "2026-08-31")])
    );
    // A calendar that does not exist: refused, naming it, and nothing is stored.
    let before = read(&p, &me, "DEPWR:BASE:2024-11-25");
    let e = p
        .data()
        .save_curves(
            &me,
            "DEPWR",
            "BASE",
            header("#NOPE"),
            vec![curve(json!("2024-11-27"))],
            &opts,
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("BASE.expiryCalendar") && e.contains("#NOPE"),
        "{e}"
    );
    let bad = CsvImport {
        expiry_calendar: Some("#NOPE".into()),
        ..Default::default()
    };
    let e = p
        .data()
        .import_csv(
            &me,
            "TTF:FWD",
            "ondate,tenor,value\n2024-11-27,M01,1\n",
            &bad,
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("#NOPE"), "{e}");
    let object = p
        .objects()
        .get(&me, Collection::Object, Source::Private, "TTF", None, None)
        .unwrap();
    assert_eq!(object["FWD"]["expiryCalendar"], "#REOMB");
    assert_eq!(read(&p, &me, "DEPWR:BASE:2024-11-25"), before);
    for id in ["DEPWR:BASE:2024-11-27", "TTF:FWD:2024-11-27"] {
        let e = p
            .data()
            .read(&me, Source::Private, id, &DataQuery::default())
            .unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::NotFound, "{id}: {e}");
    }
}

#[test]
fn a_file_as_published_imports_by_the_columns_named() {
    let (p, me) = setup();
    p.objects()
        .save(
            &me,
            Collection::Object,
            json!({"_id": "GB"}),
            &Default::default(),
        )
        .unwrap();
    let text = "settlementDate,settlementPeriod,startTime,createdDateTime,systemSellPrice,systemBuyPrice,bsadDefaulted,priceDerivationCode\n\
                2025-01-01,1,2025-01-01T00:00:00Z,2025-01-01T01:40:00Z,73.15,73.15,False,N\n\
                2025-01-01,2,2025-01-01T00:30:00Z,2025-01-01T02:10:00Z,70.5,70.5,False,N\n";
    let req = CsvImport {
        calendar: Some("HALFHOURLY".into()),
        timezone: Some("Europe/London".into()),
        ..Default::default()
    };
    let e = p
        .data()
        .import_csv(&me, "GB:SSP", text, &req)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown column \"startTime\"") && e.contains("valueColumn NAME"),
        "{e}"
    );
    let req = CsvImport {
        value_column: Some("systemSellPrice".into()),
        ..req
    };
    let done = p.data().import_csv(&me, "GB:SSP", text, &req).unwrap();
    assert_eq!(done.read, 2);
    let got: Vec<(Value, Value)> = read(&p, &me, "GB:SSP")["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["time"].clone(), o["value"].clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (json!("2025-01-01T00:00:00Z"), json!(73.15)),
            (json!("2025-01-01T00:30:00Z"), json!(70.5))
        ]
    );
}
