use super::records::{csv_value, detect_delimiter};
use super::*;
use crate::data::calendar::Calendar;
use crate::data::model::PointValue;
use crate::data::series::OnDuplicate;
use serde_json::{json, Value};
use std::cell::RefCell;

const HINT: &str = "or keep one with --on-duplicate first|last";

fn records(text: &str) -> Records {
    csv_records(text, None, &()).unwrap()
}

fn fields_of(r: &Records) -> Vec<(usize, Vec<String>)> {
    r.rows
        .iter()
        .map(|(line, rec)| (*line, rec.iter().map(str::to_string).collect()))
        .collect()
}

#[test]
fn csv_records_quotes_lines_and_headers() {
    let r = records(
        "time,value\r\n\n2024-01-01, 1.5 ,VALID\n\"2024-01-02\",\"a, \"\"b\"\"\nc\"\n2024-01-03,",
    );
    assert!(r.named);
    assert_eq!(r.columns, vec![Column::Time, Column::Value]);
    assert_eq!(
        fields_of(&r),
        vec![
            (3, vec!["2024-01-01".into(), "1.5".into(), "VALID".into()]),
            (4, vec!["2024-01-02".into(), "a, \"b\"\nc".into()]),
            (6, vec!["2024-01-03".into(), String::new()]),
        ]
    );
    let r = records("2024-01-01,1\n");
    assert!(!r.named);
    assert_eq!(r.columns[..2], [Column::Time, Column::Value]);
    let err = csv_records("time,value\n2024-01-01,\"1\n2024-01-02,2\n", None, &())
        .expect_err("an unclosed quote");
    assert_eq!(err.to_string(), "line 2: a quoted field is not closed");
}

#[test]
fn the_delimiter_is_the_one_the_first_line_holds_most() {
    assert_eq!(detect_delimiter("time,value\n"), b',');
    assert_eq!(detect_delimiter("\n\ntime;value;status\n"), b';');
    assert_eq!(detect_delimiter("time\tvalue\n"), b'\t');
    assert_eq!(detect_delimiter("2024-01-01;80,5\n"), b';');
    assert_eq!(detect_delimiter("2024-01-01\t80,5\n"), b'\t');
    assert_eq!(detect_delimiter("\"a;b\",c\n"), b',');
    assert_eq!(detect_delimiter("2024-01-01\n"), b',');
    let r = records("time;value\n2024-01-01;80,5\n2024-01-02;\"7\"\n");
    assert_eq!(
        fields_of(&r),
        vec![
            (2, vec!["2024-01-01".into(), "80,5".into()]),
            (3, vec!["2024-01-02".into(), "7".into()])
        ]
    );
    assert!(r.decimal_comma);
    assert_eq!(parse_delimiter("tab").unwrap(), b'\t');
    assert_eq!(parse_delimiter("|").unwrap(), b'|');
    let err = parse_delimiter("ab").unwrap_err();
    assert!(err.to_string().contains("\"ab\""), "{err}");
}

#[test]
fn csv_values() {
    assert_eq!(csv_value(" 2.5", false), PointValue::Num(2.5));
    assert_eq!(csv_value("-1e3", false), PointValue::Num(-1000.0));
    assert_eq!(csv_value("NaN", false), PointValue::Text("NaN".into()));
    assert_eq!(csv_value("n/a", false), PointValue::Text("n/a".into()));
    assert_eq!(csv_value("", false), PointValue::Null);
    assert_eq!(csv_value("80,5", true), PointValue::Num(80.5));
    assert_eq!(csv_value("80,5", false), PointValue::Text("80,5".into()));
    assert_eq!(
        csv_value("1,234.5", true),
        PointValue::Text("1,234.5".into())
    );
}

fn header(s: &str) -> csv::StringRecord {
    csv::StringRecord::from(s.split(',').collect::<Vec<_>>())
}

fn header_columns(names: &csv::StringRecord) -> crate::error::Result<Vec<Column>> {
    super::header::header_columns(names, &ColumnChoice::default())
}

#[test]
fn header_names_columns() {
    assert_eq!(
        header_columns(&header("Date,Price")).unwrap(),
        vec![Column::Time, Column::Value]
    );
    assert_eq!(
        header_columns(&header("value,time,quality,source,reliability")).unwrap(),
        vec![
            Column::Value,
            Column::Time,
            Column::Quality,
            Column::Source,
            Column::Reliability
        ]
    );
    assert_eq!(
        header_columns(&header("ondate,Tenor,value")).unwrap(),
        vec![Column::Ondate, Column::Tenor, Column::Value]
    );
    assert_eq!(
        header_columns(&header("SettlementDate,SettlementPeriod,value")).unwrap(),
        vec![
            Column::SettlementDate,
            Column::SettlementPeriod,
            Column::Value
        ]
    );
    assert!(header_columns(&header("time,value,price")).is_err());
    assert!(header_columns(&header("time,time")).is_err());
    assert!(header_columns(&header("time,status")).is_err());
    assert!(header_columns(&header("tenor,value")).is_err());
    assert!(header_columns(&header("ondate,tenor,value,price")).is_err());
    assert!(header_columns(&header("settlementDate,value")).is_err());
    assert!(header_columns(&header("time,settlementDate,settlementPeriod,value")).is_err());
}

#[test]
fn json_observations_know_their_lines() {
    let text = "{\"units\": \"MW\",\n \"data\": [\n  {\"time\": \"2024-01-01\", \"value\": 1},\n  {\"time\": \"bad\"}\n]}";
    let (header, obs) = json_file(text).unwrap();
    assert_eq!(header.get("units"), Some(&Value::String("MW".into())));
    let mut reader = PointReader::new(Calendar::Sparse, chrono_tz::Tz::UTC, "SPARSE");
    let err = reader.json(text, &obs, &()).unwrap_err();
    assert!(err.to_string().starts_with("line 4: "), "{err}");
}

#[test]
fn settlement_rows_become_half_hours_and_bad_ones_name_their_line() {
    let london = chrono_tz::Europe::London;
    let r = records("settlementDate,settlementPeriod,value\n2025-10-26,1,1\n2025-10-26,50,2\n");
    let mut reader = PointReader::new(Calendar::Intraday(1800), london, "HALFHOURLY");
    let (points, lines) = reader.csv(&r, &()).unwrap();
    assert_eq!(lines, [2, 3]);
    // Midnight BST is 23:00 UTC the day before; period 50 starts at 23:30 GMT.
    assert_eq!(points[0].t, 1_761_433_200_000);
    assert_eq!(points[1].t, 1_761_521_400_000);
    let r = records("settlementDate,settlementPeriod,value\n2025-10-26,1,1\n2025-10-26,51,2\n");
    let err = reader.csv(&r, &()).unwrap_err().to_string();
    assert!(
        err.starts_with("line 3: settlementPeriod 51: settlement day 2025-10-26 has 50"),
        "{err}"
    );
    let mut hourly = PointReader::of_settings(Some("HOURLY"), None).unwrap();
    let err = hourly.csv(
        &records("settlementDate,settlementPeriod,value\n2025-01-15,1,1\n"),
        &(),
    );
    assert!(err.unwrap_err().to_string().contains("not HALFHOURLY"));
}

#[test]
fn progress_is_told_where_the_reader_is() {
    struct Seen(RefCell<Vec<u64>>, RefCell<usize>);
    impl Progress for Seen {
        fn at(&self, offset: u64) {
            self.0.borrow_mut().push(offset);
        }
        fn tick(&self) {
            *self.1.borrow_mut() += 1;
        }
    }
    let text: String = (0..10_000)
        .map(|i| format!("{},{i}\n", 1_700_000_000_000_i64 + i * 1000))
        .collect();
    let seen = Seen(RefCell::new(Vec::new()), RefCell::new(0));
    let r = csv_records(&text, None, &seen).unwrap();
    assert_eq!(r.len(), 10_000);
    let offsets = seen.0.borrow().clone();
    assert_eq!(offsets.len(), 3, "{offsets:?}");
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
    let mut reader = PointReader::new(Calendar::Sparse, chrono_tz::Tz::UTC, "SPARSE");
    let err = reader.csv(&r, &seen);
    // Milliseconds are not a time the reader knows: the first line is named.
    assert!(err.unwrap_err().to_string().starts_with("line 1: "));
    assert_eq!(*seen.1.borrow(), 1);
}

#[test]
fn curve_rows_group_by_ondate_and_name_repeats() {
    let r =
        records("ondate,tenor,value\n2024-03-01,M01,30\n2024-03-01,Q01,32\n2024-03-04,M01,31\n");
    let rows = curve_rows(&r, "FWD", OnDuplicate::Reject, HINT).unwrap();
    assert_eq!(rows.curves.len(), 2);
    assert_eq!(rows.curves[0].0, "2024-03-01");
    assert_eq!(rows.curves[0].1.len(), 2);
    assert_eq!(rows.curves[1].1[0]["value"], 31.0);
    assert_eq!(rows.contracts(), 3);
    let r = records("ondate,tenor,value\n2024-03-01,M01,30\n2024-03-01,m01,33\n");
    let err = curve_rows(&r, "FWD", OnDuplicate::Reject, HINT).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("lines 2 and 3 are both tenor m01"),
        "{err}"
    );
    assert!(err.to_string().contains(HINT), "{err}");
    let last = curve_rows(&r, "FWD", OnDuplicate::Last, HINT).unwrap();
    assert_eq!(
        (last.curves[0].1[0]["value"].clone(), last.dropped),
        (json!(33.0), 1)
    );
    let first = curve_rows(&r, "FWD", OnDuplicate::First, HINT).unwrap();
    assert_eq!(first.curves[0].1[0]["value"], 30.0);
    let sent = first.into_sent();
    assert_eq!(Value::Object(sent[0].clone())["ondate"], "2024-03-01");
    let r = records("ondate,tenor,value\n2024-03-01,M01,30\n2024-03-01,X9,1\n");
    let err = curve_rows(&r, "FWD", OnDuplicate::Reject, HINT).unwrap_err();
    assert!(err.to_string().starts_with("line 3: "), "{err}");
    let r = records("ondate,tenor,value\n01/03/2024,M01,30\n");
    let err = curve_rows(&r, "FWD", OnDuplicate::Reject, HINT).unwrap_err();
    assert!(err.to_string().contains("01/03/2024"), "{err}");
}

#[test]
fn a_body_that_is_not_utf8_is_refused_naming_its_line() {
    assert_eq!(text_of(b"time,value\n").unwrap(), "time,value\n");
    let err = text_of(b"time,value\n2024-01-01,\xff\n").unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::InvalidBody);
    assert!(err.to_string().starts_with("line 2: "), "{err}");
}

fn chosen(
    header_text: &str,
    value: Option<&str>,
    time: Option<&str>,
) -> crate::error::Result<Vec<Column>> {
    let choice = ColumnChoice::named(
        value.map(str::to_string),
        time.map(str::to_string),
        ("--value-column", "--time-column"),
    );
    super::header::header_columns(&header(header_text), &choice)
}

/// The header of the system prices Elexon publishes (BMRS, `balancing/settlement/system-prices`).
const ELEXON: &str = "settlementDate,settlementPeriod,startTime,createdDateTime,systemSellPrice,systemBuyPrice,bsadDefaulted,priceDerivationCode,reserveScarcityPrice,netImbalanceVolume,sellPriceAdjustment,buyPriceAdjustment,replacementPrice,replacementPriceReferenceVolume,totalAcceptedOfferVolume,totalAcceptedBidVolume,totalAdjustmentSellVolume,totalAdjustmentBuyVolume,totalSystemTaggedAcceptedOfferVolume,totalSystemTaggedAcceptedBidVolume,totalSystemTaggedAdjustmentSellVolume,totalSystemTaggedAdjustmentBuyVolume";

#[test]
fn a_file_as_published_reads_the_columns_named_and_leaves_out_the_others() {
    use Column::*;
    // Elexon's system prices: the settlement columns key the rows, the named price is the value.
    let columns = chosen(ELEXON, Some("systemSellPrice"), None).unwrap();
    assert_eq!(columns.len(), 22);
    assert_eq!(
        &columns[..6],
        &[
            SettlementDate,
            SettlementPeriod,
            Ignored,
            Ignored,
            Value,
            Ignored
        ]
    );
    assert!(columns[6..].iter().all(|c| *c == Ignored));
    // Any case; a time column named instead keys the rows by it, the settlement columns left out.
    let columns = chosen(ELEXON, Some("SYSTEMBUYPRICE"), Some("startTime")).unwrap();
    assert_eq!(
        &columns[..6],
        &[Ignored, Ignored, Time, Ignored, Ignored, Value]
    );
    // A column called value, and the status columns, are left out beside the named one.
    assert_eq!(
        chosen("Date,value,Close,quality,source", Some("Close"), None).unwrap(),
        vec![Time, Ignored, Value, Ignored, Ignored]
    );
    // A time column named: the value is found as without it.
    assert_eq!(
        chosen("Trading Date,Settlement Price", None, Some("Trading Date")).unwrap(),
        vec![Time, Value]
    );
    // A curve file: ondate and tenor beside the named value.
    assert_eq!(
        chosen("ondate,tenor,open,settle,volume", Some("settle"), None).unwrap(),
        vec![Ondate, Tenor, Ignored, Value, Ignored]
    );
    // Names the header lacks, or a time column in a curve file, are refused with the columns.
    let e = chosen(ELEXON, Some("price"), None).unwrap_err().to_string();
    assert!(
        e.contains("--value-column \"price\": the header has no such column; its columns are settlementDate, settlementPeriod, startTime, createdDateTime, systemSellPrice"),
        "{e}"
    );
    let e = chosen("ondate,tenor,settle", Some("settle"), Some("ondate"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--time-column names a time column, and this is a curve file"),
        "{e}"
    );
    let e = chosen("a,A,b", Some("a_"), None).unwrap_err().to_string();
    assert!(e.contains("no such column; its columns are a, A, b"), "{e}");
    let e = chosen("date,Price,PRICE", Some("price"), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("2 columns of that name in other cases (Price, PRICE)"),
        "{e}"
    );
}

#[test]
fn an_unknown_column_names_the_columns_found_and_the_options() {
    let text = format!("{ELEXON}\n2025-01-01,1,2025-01-01T00:00:00Z,x,80.1,80.1\n");
    let e = csv_records(&text, None, &()).unwrap_err().to_string();
    assert!(
        e.starts_with("line 1: unknown column \"startTime\": the header's columns are settlementDate, settlementPeriod, startTime, createdDateTime, systemSellPrice, systemBuyPrice, bsadDefaulted"),
        "{e}"
    );
    assert!(
        e.contains("to read a file as published, name its value column with valueColumn NAME (and its time column with timeColumn NAME"),
        "{e}"
    );
    let choice = ColumnChoice::named(None, None, ("--value-column", "--time-column"));
    let e = csv_records_choosing(&text, None, &choice, &())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("with --value-column NAME (and its time column with --time-column NAME"),
        "{e}"
    );
    // With the value column named, the file reads: the other columns are left out.
    let choice = ColumnChoice::named(Some("systemSellPrice".into()), None, choice.options);
    let r = csv_records_choosing(&text, None, &choice, &()).unwrap();
    assert_eq!(r.len(), 1);
    // A file without a header has no columns to name.
    let e = csv_records_choosing("2025-01-01,1\n", None, &choice, &())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("name columns of a header, and the file has none"),
        "{e}"
    );
}

#[test]
fn json_curve_files_hold_one_curve_or_several() {
    // The prior art's SDK's types.Curve: one curve beside its header.
    let sdk = r##"{"_type": "VarCurve", "ondate": {"expiryCalendar": "#REOMHENG", "curveDate": "2026-08-20"}, "contracts": [{"tenor": "M01", "value": 1.4}], "_id": "CURVE", "name": "Example curve", "currency": "EUR"}"##;
    let (header, curves) = json_curve_file(sdk).unwrap().unwrap();
    assert_eq!(
        Value::Object(header),
        json!({"name": "Example curve", "currency": "EUR"})
    );
    assert_eq!(
        Value::Object(curves[0].clone()),
        json!({"ondate": {"expiryCalendar": "#REOMHENG", "curveDate": "2026-08-20"},
               "contracts": [{"tenor": "M01", "value": 1.4}]})
    );
    // A series file is none of its business; a JSON array neither.
    assert!(json_curve_file(r#"{"_type": "VarTimeSeries", "data": []}"#)
        .unwrap()
        .is_none());
    assert!(json_curve_file("[]").unwrap().is_none());
    for (text, says) in [
        (
            r#"{"_type": "VarCurve", "ondate": "2024-01-02", "contracts": [], "curves": []}"#,
            "not both",
        ),
        (
            r#"{"_type": "VarCurve", "name": "x"}"#,
            "the curve file has no curve",
        ),
        (
            r#"{"_type": "VarCurve", "curves": [1]}"#,
            "curves[0] must be an object",
        ),
        (
            r#"{"_type": "VarCurve", "_type": "VarCurve"}"#,
            "given twice",
        ),
    ] {
        let e = json_curve_file(text).unwrap_err().to_string();
        assert!(e.contains(says), "{text}: {e}");
    }
}
