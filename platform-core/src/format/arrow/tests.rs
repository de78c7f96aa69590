//! The Arrow renderings read back.

use super::*;
use arrow_array::cast::AsArray as _;
use arrow_array::types::{Float64Type, Int64Type, TimestampMillisecondType};
use arrow_schema::TimeUnit;
use serde_json::json;

fn read(bytes: &[u8]) -> RecordBatch {
    let mut reader = arrow_ipc::reader::StreamReader::try_new(bytes, None).unwrap();
    let batch = reader.next().unwrap().unwrap();
    assert!(reader.next().is_none(), "one batch");
    batch
}

#[test]
fn a_series_is_times_values_and_statuses() {
    let item = json!({"_id": "NBP", "property": "SPOT", "timezone": "Europe/London", "data": [
        {"time": "2024-10-27T01:00:00+01:00", "value": 1.5, "status": {"quality": "VALID"}},
        {"time": "2024-10-27T01:00:00Z", "value": null},
        {"time": "2024-10-28", "value": 3}
    ]});
    let batch = read(&to_arrow(&item).unwrap());
    assert_eq!(batch.num_rows(), 3);
    let time = batch.column(0).as_primitive::<TimestampMillisecondType>();
    assert_eq!(time.value(0), 1_729_987_200_000);
    assert_eq!(
        time.value(1),
        1_729_990_800_000,
        "the repeated hour stays distinct"
    );
    assert_eq!(time.value(2), 1_730_073_600_000);
    let value = batch.column(1).as_primitive::<Float64Type>();
    assert_eq!(
        (value.value(0), value.is_null(1), value.value(2)),
        (1.5, true, 3.0)
    );
    assert_eq!(batch.column(2).as_string::<i32>().value(0), "VALID");
    assert!(batch.column(2).is_null(1));
    let schema = batch.schema();
    assert_eq!(schema.metadata()["timezone"], "Europe/London");
    assert_eq!(schema.metadata()["_id"], "NBP");
    assert_eq!(
        schema.field(0).data_type(),
        &DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
    );
}

#[test]
fn a_series_from_columns_is_the_answer_its_json_gives() {
    use crate::data::model::{Point, PointValue, Status};
    let header = json!({"_id": "NBP", "property": "SPOT"});
    let header = header.as_object().unwrap();
    let t0 = 1_729_987_200_000;
    let plain: Vec<Point> = (0..5)
        .map(|i| Point::num(t0 + i * 3_600_000, i as f64 / 4.0))
        .collect();
    let mut mixed = plain.clone();
    mixed[1].v = PointValue::Text("n/a".into());
    mixed[2].v = PointValue::Null;
    mixed[3].status = Some(Box::new(Status {
        source: Some("CHANGED".into()),
        ..Status::default()
    }));
    mixed[4].v = PointValue::Num(f64::INFINITY);
    for points in [plain, mixed] {
        let columns = crate::data::columns::Columns::from_points(&points);
        let ours = read(
            &series_columns_to_arrow(header, columns, None::<fn(i64) -> i64>)
                .unwrap()
                .into_bytes(),
        );
        let mut item = header.clone();
        let data = points
            .iter()
            .map(|p| p.to_json(crate::data::calendar::utc_text(p.t).unwrap()))
            .collect();
        item.insert("data".into(), Value::Array(data));
        let theirs = read(&to_arrow(&Value::Object(item)).unwrap());
        assert_eq!(ours, theirs);
    }
    // Without statuses: time and value only; with one, only the status column it fills.
    let plain = read(
        &series_columns_to_arrow(
            header,
            crate::data::columns::Columns::from_points(&[Point::num(t0, 1.0)]),
            None::<fn(i64) -> i64>,
        )
        .unwrap()
        .into_bytes(),
    );
    assert_eq!(plain.num_columns(), 2);
    let mut with = Point::num(t0, 1.0);
    with.status = Some(Box::new(Status {
        quality: Some("VALID".into()),
        ..Status::default()
    }));
    let one = read(
        &series_columns_to_arrow(
            header,
            crate::data::columns::Columns::from_points(&[with, Point::num(t0 + 1, 2.0)]),
            Some(|t: i64| t + 1000),
        )
        .unwrap()
        .into_bytes(),
    );
    let names: Vec<String> = one
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, ["time", "value", "quality"]);
    assert_eq!(one.column(2).as_string::<i32>().value(0), "VALID");
    assert!(one.column(2).is_null(1));
    let time = one.column(0).as_primitive::<TimestampMillisecondType>();
    assert_eq!((time.value(0), time.value(1)), (t0 + 1000, t0 + 1001));
}

/// Days since 1970-01-01 of a date, counted apart from the code under test.
fn days(y: i32, m: u32, d: u32) -> i32 {
    let day = chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
    day.signed_duration_since(chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap())
        .num_days() as i32
}

fn names(batch: &RecordBatch) -> Vec<String> {
    batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect()
}

#[test]
fn a_curve_is_tenors_values_and_delivery_dates() {
    // Its ondate, delivery days and expiries are dates (date32), which pandas reads as the
    // days themselves; the contract codes are text.
    let item = json!({"_id": "TTF", "ondate": {"curveDate": "2024-12-02"}, "contracts": [
        {"tenor": "M01", "value": 30.5, "properties": {"absolute": "2025M01",
            "start": "2025-01-01", "end": "2025-01-31", "expiry": "2024-12-31"}},
        {"tenor": "Q1", "value": 29}
    ]});
    let batch = read(&to_arrow(&item).unwrap());
    assert_eq!(batch.num_rows(), 2);
    assert_eq!(
        names(&batch),
        ["ondate", "tenor", "value", "absolute", "start", "end", "expiry"]
    );
    for name in ["ondate", "start", "end", "expiry"] {
        let f = batch.schema().field_with_name(name).unwrap().clone();
        assert_eq!(f.data_type(), &DataType::Date32, "{name}");
    }
    let date = |name: &str, row: usize| {
        let c = batch.column_by_name(name).unwrap();
        let c = c.as_primitive::<arrow_array::types::Date32Type>();
        (!c.is_null(row)).then(|| c.value(row))
    };
    assert_eq!(date("ondate", 0), Some(days(2024, 12, 2)));
    assert_eq!(date("ondate", 1), Some(days(2024, 12, 2)));
    assert_eq!(date("start", 0), Some(days(2025, 1, 1)));
    assert_eq!(date("end", 0), Some(days(2025, 1, 31)));
    assert_eq!(date("expiry", 0), Some(days(2024, 12, 31)));
    assert_eq!(date("start", 1), None);
    assert_eq!(batch.column(1).as_string::<i32>().value(1), "Q1");
    assert_eq!(batch.column(2).as_primitive::<Float64Type>().value(1), 29.0);
    assert_eq!(batch.column(3).as_string::<i32>().value(0), "2025M01");
}

#[test]
fn the_curves_of_a_range_are_a_contract_a_row_with_its_ondate() {
    let curve = |ondate: &str, id: &str, values: &[f64]| {
        let contracts: Vec<Value> = values
            .iter()
            .map(|v| json!({"tenor": "M01", "value": v, "properties": {"start": "2024-11-01"}}))
            .collect();
        json!({"_id": id, "units": "MWh", "ondate": {"curveDate": ondate}, "contracts": contracts})
    };
    let items = [
        curve("2024-10-03", "DE:BASE:2024-10-03", &[70.0, 71.0]),
        curve("2024-10-04", "DE:BASE:2024-10-04", &[72.0]),
    ];
    for bytes in [
        curves_to_arrow(&items).unwrap(),
        to_arrow(&json!(items)).unwrap(),
    ] {
        let batch = read(&bytes);
        assert_eq!(batch.num_rows(), 3);
        let ondate = batch.column_by_name("ondate").unwrap();
        let ondate = ondate.as_primitive::<arrow_array::types::Date32Type>();
        assert_eq!(
            ondate.values().to_vec(),
            [days(2024, 10, 3), days(2024, 10, 3), days(2024, 10, 4)]
        );
        let value = batch.column_by_name("value").unwrap();
        assert_eq!(
            value.as_primitive::<Float64Type>().values().to_vec(),
            [70.0, 71.0, 72.0]
        );
        // What every curve shares is the metadata; the ids differ.
        let schema = batch.schema();
        assert_eq!(schema.metadata()["units"], "MWh");
        assert!(!schema.metadata().contains_key("_id"));
    }
    // None: no rows, and the columns of a curve.
    let empty = read(&curves_to_arrow(&[]).unwrap());
    assert_eq!(empty.num_rows(), 0);
    assert_eq!(
        names(&empty),
        ["ondate", "tenor", "value", "absolute", "start", "end", "expiry"]
    );
}

#[test]
fn a_continuation_is_dated_by_ondate_and_names_its_contracts() {
    let item = json!({"_id": "NBP:FWD", "properties": {"continuation": "M01", "adjust": "ratio"},
    "data": [
        {"time": "2024-03-28", "value": 4.0, "properties": {"absolute": "2024M04", "adjustment": 1.25}},
        {"time": "2024-03-29", "value": 5.0, "status": {"source": "CONVERTED"},
         "properties": {"absolute": "2024M05", "adjustment": 1.0}}
    ]});
    let batch = read(&dated_series_to_arrow(&item).unwrap());
    assert_eq!(
        names(&batch),
        ["time", "value", "absolute", "adjustment", "source"]
    );
    let time = batch
        .column(0)
        .as_primitive::<arrow_array::types::Date32Type>();
    assert_eq!(
        time.values().to_vec(),
        [days(2024, 3, 28), days(2024, 3, 29)]
    );
    assert_eq!(batch.column(2).as_string::<i32>().value(1), "2024M05");
    assert_eq!(
        batch
            .column(3)
            .as_primitive::<Float64Type>()
            .values()
            .to_vec(),
        [1.25, 1.0]
    );
    // Without points the contract column is still there.
    let empty = json!({"properties": {"continuation": "M01"}, "data": []});
    let batch = read(&dated_series_to_arrow(&empty).unwrap());
    assert_eq!(names(&batch), ["time", "value", "absolute"]);
    assert_eq!(batch.schema().field(0).data_type(), &DataType::Date32);
}

#[test]
fn a_dated_series_from_columns_is_its_local_dates() {
    use crate::data::model::Point;
    let header = json!({"_id": "NBP:SPOT"});
    // Midnights in London (23:00Z the day before in summer, 00:00Z in winter).
    let points = [
        Point::num(1_729_983_600_000, 1.0),
        Point::num(1_730_073_600_000, 2.0),
    ];
    let columns = crate::data::columns::Columns::from_points(&points);
    let bytes = series_columns_to_arrow_dated(header.as_object().unwrap(), columns, |t| {
        if t == 1_729_983_600_000 {
            days(2024, 10, 27)
        } else {
            days(2024, 10, 28)
        }
    })
    .unwrap()
    .into_bytes();
    let batch = read(&bytes);
    assert_eq!(batch.schema().field(0).data_type(), &DataType::Date32);
    let time = batch
        .column(0)
        .as_primitive::<arrow_array::types::Date32Type>();
    assert_eq!(
        time.values().to_vec(),
        [days(2024, 10, 27), days(2024, 10, 28)]
    );
    assert_eq!(
        batch
            .column(1)
            .as_primitive::<Float64Type>()
            .values()
            .to_vec(),
        [1.0, 2.0]
    );
}

#[test]
fn a_list_gets_a_column_per_field_of_its_widest_kind() {
    let items = json!([
        {"_id": "A", "n": 1, "x": 1, "ok": true, "tags": ["a"]},
        {"_id": "B", "n": 2, "x": 2.5, "extra": "e", "tags": null},
        {"_id": "C", "x": "mixed"}
    ]);
    let batch = read(&to_arrow(&items).unwrap());
    let schema = batch.schema();
    let names: Vec<_> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["_id", "n", "x", "ok", "tags", "extra"]);
    assert_eq!(schema.field(1).data_type(), &DataType::Int64);
    assert_eq!(
        schema.field(2).data_type(),
        &DataType::Utf8,
        "mixed kinds: JSON text"
    );
    assert_eq!(schema.field(3).data_type(), &DataType::Boolean);
    let n = batch.column(1).as_primitive::<Int64Type>();
    assert_eq!((n.value(1), n.is_null(2)), (2, true));
    assert_eq!(batch.column(2).as_string::<i32>().value(1), "2.5");
    assert_eq!(batch.column(4).as_string::<i32>().value(0), "[\"a\"]");
    assert!(batch.column(4).is_null(1));
    // Nothing at all is an empty batch.
    assert_eq!(read(&to_arrow(&json!([])).unwrap()).num_rows(), 0);
}
