//! CSV against the golden file, quoting and records.
use super::*;

#[test]
fn csv_golden_items() {
    let items = golden_items();
    let out = csv::objects_to_csv(items.as_array().unwrap());
    assert_eq!(out, include_str!("golden/items.csv"));
}

#[test]
fn csv_quoting_and_records() {
    let rows = vec![
        vec!["2024-01-01".to_string(), "1.5".to_string(), String::new()],
        vec!["a,b".into(), "say \"hi\"".into(), "two\nlines\r".into()],
    ];
    assert_eq!(
        csv::rows_to_csv(&["time", "value", "quality"], &rows),
        "time,value,quality\n2024-01-01,1.5,\n\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\r\"\n"
    );
    // A record of one empty field is not a blank line.
    assert_eq!(
        csv::rows_to_csv(&["tenor"], &[vec![String::new()]]),
        "tenor\n\"\"\n"
    );
    assert_eq!(csv::objects_to_csv(&[]), "_id\n");
    assert_eq!(
        csv::objects_to_csv(&[json!("scalar"), json!({"_id": "A"})]),
        "_id\n\"\"\nA\n"
    );
}

/// Each quoting rule of the module doc, one field at a time, so that a change in how the `csv`
/// crate decides to quote shows here: a comma, a double quote, a CR alone, an LF and a CRLF are
/// quoted; a leading `#`, spaces and non-ASCII text are not.
#[test]
fn csv_quotes_exactly_what_the_module_doc_says() {
    for (field, written) in [
        ("a,b", "\"a,b\""),
        ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("\"", "\"\"\"\""),
        ("cr\ralone", "\"cr\ralone\""),
        ("\r", "\"\r\""),
        ("lf\nhere", "\"lf\nhere\""),
        ("crlf\r\nhere", "\"crlf\r\nhere\""),
        ("#comment", "#comment"),
        ("# , both", "\"# , both\""),
        ("  padded  ", "  padded  "),
        (" ", " "),
        ("\ttab", "\ttab"),
        ("'single'", "'single'"),
        ("back\\slash", "back\\slash"),
        ("Zürich – 東京 ⚡", "Zürich – 東京 ⚡"),
        ("€,£", "\"€,£\""),
    ] {
        let rows = vec![vec![field.to_string(), "x".to_string()]];
        assert_eq!(
            csv::rows_to_csv(&["h", "i"], &rows),
            format!("h,i\n{written},x\n"),
            "{field:?}"
        );
        // Alone in its record, and as a header field.
        assert_eq!(
            csv::rows_to_csv(&[field], &[vec![field.to_string()]]),
            format!("{written}\n{written}\n"),
            "{field:?}"
        );
    }
}

/// Records: `\n` after each, `""` for a single empty field (header or row), an empty line for
/// a record of no fields, empty fields left empty among others, rows of any length, no BOM.
#[test]
fn csv_records_and_empty_fields() {
    let row = |fields: &[&str]| fields.iter().map(|f| f.to_string()).collect::<Vec<_>>();
    assert_eq!(csv::rows_to_csv(&[""], &[]), "\"\"\n");
    assert_eq!(csv::rows_to_csv(&[""], &[row(&[""])]), "\"\"\n\"\"\n");
    assert_eq!(csv::rows_to_csv(&[], &[]), "\n");
    assert_eq!(csv::rows_to_csv(&[], &[row(&["a"]), row(&[])]), "\na\n\n");
    assert_eq!(
        csv::rows_to_csv(
            &["a", "b", "c"],
            &[row(&["", "", ""]), row(&["1"]), row(&["", "x"])]
        ),
        "a,b,c\n,,\n1\n,x\n"
    );
    assert_eq!(
        csv::rows_to_csv(&["a", ""], &[row(&["", ""]), row(&[""])]),
        "a,\n,\n\"\"\n"
    );
    let out = csv::rows_to_csv(&["größe"], &[row(&["\u{FEFF}x"])]);
    assert_eq!(out, "größe\n\u{FEFF}x\n");
    assert!(out.starts_with("größe"), "no byte-order mark is added");
}

/// Cells of objects: a string as it is, a number or boolean as its JSON text, nested values as
/// compact JSON (quoted, since it holds commas and quotes), nothing for null or missing.
#[test]
fn csv_object_cells() {
    let items = [
        json!({"_id": "A", "n": 1.5, "b": true, "o": {"k": [1, "x"]}, "z": null}),
        json!({"_id": 7, "s": "#x , y", "a": [], "big": 18446744073709551615u64}),
        json!(null),
    ];
    assert_eq!(
        csv::objects_to_csv(&items),
        "_id,n,b,o,z,s,a,big\n\
         A,1.5,true,\"{\"\"k\"\":[1,\"\"x\"\"]}\",,,,\n\
         7,,,,,\"#x , y\",[],18446744073709551615\n\
         ,,,,,,,\n"
    );
}

/// The three data renderings: a series (plain and keyed by settlement period), a curve and a
/// shaped curve, with strings, numbers, nulls and missing fields in their cells.
#[test]
fn csv_data_items() {
    let series = json!({"data": [
        {"time": "2024-01-01T00:00:00Z", "value": 1.25,
         "status": {"quality": "ACTUAL", "source": "a,b", "reliability": 0.9}},
        {"time": "2024-01-01T01:00:00Z", "value": null},
        {"time": "2024-01-01T02:00:00Z", "value": -3, "status": {"quality": null}},
    ]});
    assert_eq!(
        csv::data_to_csv(&series).unwrap(),
        "time,value,quality,source,reliability\n\
         2024-01-01T00:00:00Z,1.25,ACTUAL,\"a,b\",0.9\n\
         2024-01-01T01:00:00Z,,,,\n\
         2024-01-01T02:00:00Z,-3,,,\n"
    );
    let keyed = json!({"data": [
        {"time": "2024-03-31T00:00:00Z", "settlementDate": "2024-03-31", "settlementPeriod": 1,
         "value": 10, "status": {"source": "\"q\""}},
        {"time": "2024-03-31T00:30:00Z", "value": 11},
    ]});
    assert_eq!(
        csv::data_to_csv(&keyed).unwrap(),
        "time,settlementDate,settlementPeriod,value,quality,source,reliability\n\
         2024-03-31T00:00:00Z,2024-03-31,1,10,,\"\"\"q\"\"\",\n\
         2024-03-31T00:30:00Z,,,11,,,\n"
    );
    let curve = json!({"contracts": [
        {"tenor": "M+1", "value": 50.5, "properties": {"absolute": "2024-02", "start": "2024-02-01",
         "end": "2024-03-01", "expiry": null}},
        {"tenor": "Q+1", "value": 48},
    ]});
    assert_eq!(
        csv::data_to_csv(&curve).unwrap(),
        "tenor,value,absolute,start,end,expiry\n\
         M+1,50.5,2024-02,2024-02-01,2024-03-01,\n\
         Q+1,48,,,,\n"
    );
    let shaped = json!({"weights": "hours", "contracts": [
        {"tenor": "2024-02", "value": 51, "properties": {"from": "Q+1", "start": "2024-02-01",
         "end": "2024-03-01", "hours": 696}},
    ]});
    assert_eq!(
        csv::data_to_csv(&shaped).unwrap(),
        "tenor,value,from,start,end,hours\n2024-02,51,Q+1,2024-02-01,2024-03-01,696\n"
    );
    assert_eq!(
        csv::data_to_csv(&json!({"data": []})).unwrap(),
        "time,value,quality,source,reliability\n"
    );
    assert_eq!(csv::data_to_csv(&json!({"_id": "x"})), None);
}

/// A continuation names each point's contract (and, back-adjusted, what moved it), even with
/// no points; the curves of a range are a contract a row, each with its ondate.
#[test]
fn csv_continuations_and_the_curves_of_a_range() {
    let continuation = json!({"properties": {"continuation": "M01", "adjust": "difference"},
    "data": [
        {"time": "2024-03-28", "value": 5.28, "properties": {"absolute": "2024M04", "adjustment": 1}},
        {"time": "2024-03-29", "value": 5.29, "status": {"source": "CONVERTED"},
         "properties": {"absolute": "2024M05", "adjustment": 0}},
    ]});
    assert_eq!(
        csv::data_to_csv(&continuation).unwrap(),
        "time,value,absolute,adjustment,quality,source,reliability\n\
         2024-03-28,5.28,2024M04,1,,,\n\
         2024-03-29,5.29,2024M05,0,,CONVERTED,\n"
    );
    assert_eq!(
        csv::data_to_csv(&json!({"properties": {"continuation": "M01"}, "data": []})).unwrap(),
        "time,value,absolute,quality,source,reliability\n"
    );
    let curve = |ondate: &str, value: f64| {
        json!({"ondate": {"curveDate": ondate}, "contracts": [{"tenor": "M01", "value": value,
            "properties": {"absolute": "2024M11", "start": "2024-11-01", "end": "2024-11-30",
            "expiry": "2024-10-31"}}]})
    };
    assert_eq!(
        csv::curves_to_csv(&[curve("2024-10-03", 70.5), curve("2024-10-04", 71.0)]),
        "ondate,tenor,value,absolute,start,end,expiry\n\
         2024-10-03,M01,70.5,2024M11,2024-11-01,2024-11-30,2024-10-31\n\
         2024-10-04,M01,71.0,2024M11,2024-11-01,2024-11-30,2024-10-31\n"
    );
    assert_eq!(
        csv::curves_to_csv(&[]),
        "ondate,tenor,value,absolute,start,end,expiry\n"
    );
}
