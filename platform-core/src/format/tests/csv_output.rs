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
