//! Tests of the typed data calls: each answers the items the JSON call answers (made from the
//! same read, and the same as the typed series and curve reads give); filters and paging
//! apply; bad reads are refused with the JSON call's codes.

use super::*;

mod curves;
use crate::api::{
    data::Contract, data::CurveQuery, data::Nearest, data::ReadRange, data::SeriesQuery,
    data::WriteOptions,
};
use crate::data::answer::DatedPoint;
use crate::data::model::PointValue;
use crate::documents::SaveOptions;
use crate::error::ErrorCode;
use crate::ids::VersionRef;
use crate::query::Params;
use crate::store::Collection;
use crate::Platform;
use chrono::{Datelike, Duration};
use serde_json::json;

/// Parameters, as pairs.
type Pairs<'a> = &'a [(&'a str, &'a str)];

fn setup() -> (Platform, Principal) {
    let platform = Platform::in_memory().unwrap();
    let me = platform.tenancy().local_principal("acme", "ann").unwrap();
    (platform, me)
}

fn query(pairs: &[(&str, &str)]) -> DataQuery {
    DataQuery::from_params(&Params::from_slice(pairs)).unwrap()
}

fn request(pairs: &[(&str, &str)]) -> ListRequest {
    ListRequest::from_params(&Params::from_slice(pairs)).unwrap()
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap()
}

/// Hourly series on three hubs (two versions of NBP's), a daily series in Berlin, and a
/// curve of two ondates.
fn market(platform: &Platform, me: &Principal) {
    let data = platform.data();
    let hourly = |base: f64| -> Vec<Point> {
        (0..6)
            .map(|h| Point::new(start() + Duration::hours(h), base + h as f64))
            .collect()
    };
    let mwh = WriteOptions {
        units: Some("MWh".into()),
        ..Default::default()
    };
    for (id, base) in [("NBP:SPOT", 70.0), ("TTF:SPOT", 30.0), ("ZTP:SPOT", 20.0)] {
        data.write_series(me, id, &hourly(base), &mwh).unwrap();
    }
    let later = [Point::new(start() + Duration::hours(6), 99.0)];
    data.write_series(me, "NBP:SPOT", &later, &Default::default())
        .unwrap();
    let berlin = Tz::Europe__Berlin;
    let days: Vec<Point> = (1..=3)
        .map(|d| {
            let midnight = berlin.with_ymd_and_hms(2024, 3, d, 0, 0, 0).unwrap();
            Point::new(midnight.with_timezone(&Utc), f64::from(d))
        })
        .collect();
    let daily = WriteOptions {
        calendar: Some("DAILY".into()),
        timezone: Some("Europe/Berlin".into()),
        ..Default::default()
    };
    data.write_series(me, "DE:DAY", &days, &daily).unwrap();
    let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
    let eur = WriteOptions {
        units: Some("MWh".into()),
        currency: Some("EUR".into()),
        ..Default::default()
    };
    for (day, m1) in [(13, 30.0), (14, 31.5)] {
        let contracts = [Contract::new("BOM", m1 - 1.0), Contract::new("M01", m1)];
        data.write_curve(me, "TTF:FWD", d(day), &contracts, &eur)
            .unwrap();
    }
}

fn series(item: DataItem) -> Series {
    match item {
        DataItem::Series(s) => s,
        other => panic!("not a series: {other:?}"),
    }
}

/// One item read typed is the series or curve the typed series and curve reads (another code
/// path) give: at a version, in a range, converted, a dated series at its zone's midnights
/// whatever zone it prints in; its header is the item's without the system fields.
#[test]
fn a_typed_read_is_the_typed_series_and_curve_reads() {
    let (platform, me) = setup();
    market(&platform, &me);
    let data = platform.data();
    let cases: [(&str, Pairs, SeriesQuery); 5] = [
        ("NBP:SPOT", &[], SeriesQuery::default()),
        (
            "NBP:SPOT",
            &[("_version", "1"), ("_range", "last(2)")],
            SeriesQuery {
                version: Some(VersionRef::Number(1)),
                range: ReadRange::Last(2),
                ..Default::default()
            },
        ),
        (
            "TTF:SPOT",
            &[("units", "kWh")],
            SeriesQuery {
                units: Some("kWh".into()),
                ..Default::default()
            },
        ),
        ("DE:DAY", &[], SeriesQuery::default()),
        (
            "DE:DAY",
            &[("_timezone", "America/New_York")],
            SeriesQuery::default(),
        ),
    ];
    for (id, pairs, sq) in cases {
        let q = query(pairs);
        let typed = series(data.data_item(&me, Source::Private, id, &q).unwrap());
        let other = data.series(&me, id, &sq).unwrap();
        assert_eq!(typed.points, other.points, "{id} {pairs:?}");
        assert_eq!(
            (&typed.id, typed.version, &typed.units),
            (&other.id, other.version, &other.units),
            "{id} {pairs:?}"
        );
        if pairs.iter().all(|(k, _)| *k != "units") {
            assert_eq!(typed.header, other.header, "{id} {pairs:?}");
        }
    }
    let day = series(
        data.data_item(&me, Source::All, "DE:DAY", &query(&[]))
            .unwrap(),
    );
    assert_eq!(
        day.points[0].at,
        Utc.with_ymd_and_hms(2024, 2, 29, 23, 0, 0).unwrap()
    );
    let kwh = series(
        data.data_item(&me, Source::All, "TTF:SPOT", &query(&[("units", "kWh")]))
            .unwrap(),
    );
    assert_eq!(
        (kwh.units.as_deref(), kwh.points[1].value),
        (Some("kWh"), 31_000.0)
    );
    // The header as the read answers it: converted, without the system fields.
    let keys: Vec<&str> = kwh.header.keys().map(String::as_str).collect();
    assert_eq!(keys, ["units", "_type"]);
    assert_eq!(kwh.header["units"], "kWh");
    // Curves: the newest ondate, and one named in the id.
    for (id, ondate) in [
        ("TTF:FWD", None),
        ("TTF:FWD:2024-05-13", NaiveDate::from_ymd_opt(2024, 5, 13)),
    ] {
        let DataItem::Curve(typed) = data
            .data_item(&me, Source::Private, id, &query(&[]))
            .unwrap()
        else {
            panic!("{id}: not a curve");
        };
        let cq = CurveQuery {
            ondate,
            ..Default::default()
        };
        let other = data.curve(&me, "TTF:FWD", &cq).unwrap();
        assert_eq!(typed, other, "{id}");
    }
    let DataItem::Curve(newest) = data
        .data_item(&me, Source::Private, "TTF:FWD", &query(&[]))
        .unwrap()
    else {
        panic!("not a curve");
    };
    assert_eq!(newest.ondate, NaiveDate::from_ymd_opt(2024, 5, 14).unwrap());
    let values: Vec<(&str, Option<&str>, f64)> = newest
        .contracts
        .iter()
        .map(|c| (c.tenor.as_str(), c.absolute.as_deref(), c.value))
        .collect();
    assert_eq!(
        values,
        [("BOM", None, 30.5), ("M01", Some("2024M06"), 31.5)]
    );
    // A tenor's history: a series by ondate, at midnight UTC.
    let history = series(
        data.data_item(&me, Source::Private, "TTF:FWD", &query(&[("tenor", "M01")]))
            .unwrap(),
    );
    let points: Vec<(DateTime<Utc>, f64)> =
        history.points.iter().map(|p| (p.at, p.value)).collect();
    assert_eq!(
        points,
        [
            (Utc.with_ymd_and_hms(2024, 5, 13, 0, 0, 0).unwrap(), 30.0),
            (Utc.with_ymd_and_hms(2024, 5, 14, 0, 0, 0).unwrap(), 31.5)
        ]
    );
}

/// What an item is, and its id.
fn what(item: &DataItem) -> (&'static str, &str) {
    let what = match item {
        DataItem::Series(_) => "series",
        DataItem::Curve(_) => "curve",
        DataItem::Entry(_) => "entry",
    };
    (what, item.id())
}

/// The typed list: catalogue entries without `_range`, items read with it; its filters,
/// sort, paging and total those of the JSON list.
#[test]
fn typed_data_lists_filter_sort_and_page_as_the_json_lists() {
    let (platform, me) = setup();
    market(&platform, &me);
    let data = platform.data();
    let entries = ["DE:DAY", "NBP:SPOT", "TTF:FWD", "TTF:SPOT", "ZTP:SPOT"].map(|id| ("entry", id));
    // Each with the items (what and id) and the total it answers.
    let cases: [(Pairs, Pairs, Pairs, u64); 5] = [
        (&[], &[], &entries, 5),
        (
            &[("_dataid", "SPOT"), ("_sort", "-_objid"), ("_limit", "2")],
            &[("_range", "last(3)")],
            &[("series", "ZTP:SPOT"), ("series", "TTF:SPOT")],
            3,
        ),
        (&[("_type", "VarCurve")], &[], &[("entry", "TTF:FWD")], 1),
        (
            &[("units", "MWh"), ("_skip", "1")],
            &[("_range", "last(1)"), ("units", "kWh")],
            &[
                ("curve", "TTF:FWD"),
                ("series", "TTF:SPOT"),
                ("series", "ZTP:SPOT"),
            ],
            4,
        ),
        (
            &[("_id", "DE:DAY"), ("_id", "NOPE:X"), ("_id", "NBP:SPOT")],
            &[],
            &[("series", "DE:DAY"), ("series", "NBP:SPOT")],
            2,
        ),
    ];
    for (pairs, qpairs, want, total) in cases {
        let (req, q) = (request(pairs), query(qpairs));
        let source = if req.ids.is_empty() {
            Source::Private
        } else {
            Source::All
        };
        let typed = data.data_items(&me, source, &req, &q);
        let json = data.list(&me, source, &req, &q);
        let (typed, json) = match (typed, json) {
            (Ok(t), Ok(j)) => (t, j),
            (t, j) => panic!("{pairs:?} {qpairs:?}: {t:?} / {j:?}"),
        };
        let got: Vec<(&str, &str)> = typed.items.iter().map(what).collect();
        assert_eq!(
            (&got[..], typed.total),
            (want, total),
            "{pairs:?} {qpairs:?}"
        );
        assert_eq!(
            (typed.total, typed.items.len()),
            (json.total, json.items.len()),
            "{pairs:?} {qpairs:?}"
        );
    }
    // The catalogue, by value: every item, its extent in its own zone.
    let all = data
        .data_items(&me, Source::Private, &request(&[]), &query(&[]))
        .unwrap();
    let ids: Vec<&str> = all.items.iter().map(DataItem::id).collect();
    assert_eq!(
        ids,
        ["DE:DAY", "NBP:SPOT", "TTF:FWD", "TTF:SPOT", "ZTP:SPOT"]
    );
    let entries: Vec<(DataKind, u32, u64)> = all
        .items
        .iter()
        .map(|i| match i {
            DataItem::Entry(e) => (e.kind, e.version, e.count),
            other => panic!("not an entry: {other:?}"),
        })
        .collect();
    assert_eq!(
        entries,
        [
            (DataKind::Series, 1, 3),
            (DataKind::Series, 2, 7),
            (DataKind::Curve, 3, 2),
            (DataKind::Series, 3, 6),
            (DataKind::Series, 1, 6)
        ]
    );
    let DataItem::Entry(day) = &all.items[0] else {
        unreachable!()
    };
    assert_eq!(
        day.first,
        Some(Utc.with_ymd_and_hms(2024, 2, 29, 23, 0, 0).unwrap())
    );
    assert_eq!(day.header["calendar"], "DAILY");
    let DataItem::Entry(nbp) = &all.items[1] else {
        unreachable!()
    };
    assert_eq!(
        (nbp.first, nbp.last),
        (Some(start()), Some(start() + Duration::hours(6)))
    );
    assert_eq!(nbp.units.as_deref(), Some("MWh"));
    assert!(!nbp.header.contains_key("_objid") && !nbp.header.contains_key("_access"));
    // Filtered, sorted, paged and read: each item the typed series read of it.
    let req = request(&[("_dataid", "SPOT"), ("_sort", "-_objid"), ("_limit", "2")]);
    let page = data
        .data_items(&me, Source::Private, &req, &query(&[("_range", "last(3)")]))
        .unwrap();
    assert_eq!(page.total, 3);
    let ids: Vec<&str> = page.items.iter().map(DataItem::id).collect();
    assert_eq!(ids, ["ZTP:SPOT", "TTF:SPOT"]);
    for item in page.items {
        let sq = SeriesQuery {
            range: ReadRange::Last(3),
            ..Default::default()
        };
        let other = data.series(&me, item.id(), &sq).unwrap();
        assert_eq!(series(item), other);
    }
    let by_id = data
        .data_items(
            &me,
            Source::All,
            &request(&[("_id", "NOPE:X"), ("_id", "NBP:SPOT")]),
            &query(&[]),
        )
        .unwrap();
    assert_eq!(
        series(by_id.items[0].clone()).points.last().unwrap().value,
        99.0
    );
}

/// By ids and as profiles, the typed answers are the items read one by one; a profile list
/// pages objects.
#[test]
fn typed_reads_by_id_and_profiles_are_the_items_read_one_by_one() {
    let (platform, me) = setup();
    market(&platform, &me);
    let data = platform.data();
    for (ids, q, found) in [
        (
            &["TTF:FWD", "NOPE:SPOT", "NBP:SPOT", "NBP:NOPE"][..],
            query(&[]),
            &["TTF:FWD", "NBP:SPOT"][..],
        ),
        (
            &["NBP:SPOT", "DE:DAY"],
            query(&[("_range", "last(1)")]),
            &["NBP:SPOT", "DE:DAY"],
        ),
        (
            &["NBP:SPOT", "TTF:SPOT"],
            query(&[("_version", "1")]),
            &["NBP:SPOT", "TTF:SPOT"],
        ),
    ] {
        let typed = data.data_items_by_id(&me, ids, &q).unwrap();
        let one_by_one: Vec<DataItem> = found
            .iter()
            .map(|id| data.data_item(&me, Source::All, id, &q).unwrap())
            .collect();
        assert_eq!(typed, one_by_one, "{ids:?}");
    }
    // A curve read with `_range`: its curves in the range, each an item.
    let curves = data
        .data_items_by_id(&me, &["TTF:FWD"], &query(&[("_range", "last(2)")]))
        .unwrap();
    let ondates: Vec<NaiveDate> = curves
        .iter()
        .map(|c| match c {
            DataItem::Curve(c) => c.ondate,
            other => panic!("not a curve: {other:?}"),
        })
        .collect();
    assert_eq!(
        ondates,
        [13, 14].map(|d| NaiveDate::from_ymd_opt(2024, 5, d).unwrap())
    );
    let two = data
        .data_items_by_id(&me, &["TTF:FWD", "NOPE:SPOT", "NBP:SPOT"], &query(&[]))
        .unwrap();
    let got: Vec<(&str, DataKind, u32)> = two
        .iter()
        .map(|i| (i.id(), i.kind(), i.version()))
        .collect();
    assert_eq!(
        got,
        [
            ("TTF:FWD", DataKind::Curve, 3),
            ("NBP:SPOT", DataKind::Series, 2)
        ]
    );
    let at_one = data
        .data_items_by_id(&me, &["NBP:SPOT"], &query(&[("_version", "1")]))
        .unwrap();
    assert_eq!(
        (at_one[0].version(), series(at_one[0].clone()).points.len()),
        (1, 6)
    );

    let q = query(&[("_range", "last(2)")]);
    let typed = data
        .profile_item(&me, Source::Private, "NBP", "SPOT", &q)
        .unwrap();
    assert_eq!(
        typed,
        data.data_item(&me, Source::Private, "NBP:SPOT", &q)
            .unwrap()
    );
    assert_eq!((typed.object(), typed.property()), ("NBP", "SPOT"));
    let values: Vec<f64> = series(typed).points.iter().map(|p| p.value).collect();
    assert_eq!(values, [75.0, 99.0]);
    // Of a list of objects: objects without the item are left out, paging counts objects.
    for (pairs, found) in [
        (&[][..], &["NBP:SPOT", "TTF:SPOT", "ZTP:SPOT"][..]),
        (
            &[("_limit", "2"), ("_skip", "1")],
            &["NBP:SPOT", "TTF:SPOT"],
        ),
        (&[("_id", "ZTP"), ("_id", "DE")], &["ZTP:SPOT"]),
    ] {
        let req = request(pairs);
        let source = if req.ids.is_empty() {
            Source::Private
        } else {
            Source::All
        };
        let typed = data.profile_items(&me, source, &req, "SPOT", &q).unwrap();
        let json = data.list_profile(&me, source, &req, "SPOT", &q).unwrap();
        assert_eq!(
            (typed.total, typed.items.len()),
            (json.total, json.items.len())
        );
        let one_by_one: Vec<DataItem> = found
            .iter()
            .map(|id| data.data_item(&me, Source::All, id, &q).unwrap())
            .collect();
        assert_eq!(typed.items, one_by_one, "{pairs:?}");
    }
    let page = data
        .profile_items(
            &me,
            Source::Private,
            &request(&[("_limit", "2"), ("_skip", "1")]),
            "SPOT",
            &q,
        )
        .unwrap();
    let ids: Vec<&str> = page.items.iter().map(DataItem::id).collect();
    // Objects DE, NBP, TTF, ZTP: the second and third, DE's first being skipped.
    assert_eq!((ids, page.total), (vec!["NBP:SPOT", "TTF:SPOT"], 4));
}

/// Bad reads are refused with the JSON calls' codes; reads whose answers are no data
/// items are refused; a series holding text is refused, to be read as JSON.
#[test]
fn typed_reads_refuse_what_the_json_reads_refuse_and_what_is_no_data_item() {
    let (platform, me) = setup();
    market(&platform, &me);
    let data = platform.data();
    for (source, id, pairs, code) in [
        (Source::Private, "NBP:NOPE", &[][..], ErrorCode::NotFound),
        (Source::Public, "NBP:SPOT", &[], ErrorCode::NotFound),
        (Source::Private, "NBP", &[], ErrorCode::InvalidParameter),
        (
            Source::Private,
            "NBP:SPOT",
            &[("tenor", "M01")],
            ErrorCode::InvalidParameter,
        ),
        (
            Source::Private,
            "NBP:SPOT",
            &[("_version", "9")],
            ErrorCode::NotFound,
        ),
        (
            Source::Private,
            "TTF:FWD:2024-05-01",
            &[],
            ErrorCode::NotFound,
        ),
    ] {
        let q = query(pairs);
        let typed = data.data_item(&me, source, id, &q).unwrap_err();
        let json = data.read(&me, source, id, &q).unwrap_err();
        assert_eq!((typed.code(), json.code()), (code, code), "{id} {pairs:?}");
    }
    let e = data
        .data_items_by_id(&me, &["NBP"], &query(&[]))
        .unwrap_err();
    let json = data
        .list(&me, Source::All, &request(&[("_id", "NBP")]), &query(&[]))
        .unwrap_err();
    assert_eq!(
        (e.code(), json.code()),
        (ErrorCode::InvalidParameter, ErrorCode::InvalidParameter)
    );
    // Not data items: tenor codes, a shaped curve.
    for pairs in [&[("listTenors", "true")][..], &[("_shape", "MONTHLY")]] {
        let q = query(pairs);
        assert!(
            data.read(&me, Source::Private, "TTF:FWD", &q).is_ok(),
            "{pairs:?}"
        );
        let e = data
            .data_item(&me, Source::Private, "TTF:FWD", &q)
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidParameter, "{pairs:?}");
        let e = data.data_items_by_id(&me, &["TTF:FWD"], &q).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidParameter, "{pairs:?}");
    }
    // Lists: a cursor (the data list pages by `_skip`), values, parts of items.
    let after = objects_cursor(&platform, &me);
    for pairs in [
        &[("_after", after.as_str())][..],
        &[("_distinct", "_objtype")],
        &[("_project", "units")],
    ] {
        let req = request(pairs);
        let json = data.list(&me, Source::Private, &req, &query(&[]));
        let typed = data
            .data_items(&me, Source::Private, &req, &query(&[]))
            .unwrap_err();
        assert_eq!(typed.code(), ErrorCode::InvalidParameter, "{pairs:?}");
        if let Err(json) = json {
            assert_eq!(json.code(), typed.code(), "{pairs:?}");
        }
    }
    // A conversion the data cannot take.
    let eur = query(&[("_range", "last(1)"), ("currency", "EUR")]);
    let e = data
        .data_items(&me, Source::Private, &request(&[]), &eur)
        .unwrap_err();
    let json = data
        .list(&me, Source::Private, &request(&[]), &eur)
        .unwrap_err();
    assert_eq!(
        (e.code(), json.code()),
        (ErrorCode::ConversionError, ErrorCode::ConversionError)
    );
    let e = data
        .profile_items(
            &me,
            Source::Private,
            &request(&[("_id", "NBP")]),
            "SPOT",
            &query(&[]),
        )
        .unwrap_err();
    let json = data
        .list_profile(
            &me,
            Source::Private,
            &request(&[("_id", "NBP")]),
            "SPOT",
            &query(&[]),
        )
        .unwrap_err();
    assert_eq!(
        (e.code(), json.code()),
        (ErrorCode::InvalidParameter, ErrorCode::InvalidParameter)
    );
    // A series holding text: refused as the typed series read refuses it, read as JSON.
    let body = json!({"_id": "FR", "SPOT": {"_type": "VarTimeSeries", "data": [
        {"time": "2024-01-01T00:00:00Z", "value": 1},
        {"time": "2024-01-01T01:00:00Z", "value": "n/a"}]}});
    platform
        .objects()
        .save(&me, Collection::Object, body, &Default::default())
        .unwrap();
    let e = data
        .data_item(&me, Source::Private, "FR:SPOT", &query(&[]))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidParameter);
    assert!(e.to_string().contains("Data::read"), "{e}");
    let typed_series = data
        .series(&me, "FR:SPOT", &Default::default())
        .unwrap_err();
    assert_eq!(typed_series.code(), e.code());
    assert!(data
        .read(&me, Source::Private, "FR:SPOT", &query(&[]))
        .is_ok());
}

/// A cursor of an object list, which the data list refuses.
fn objects_cursor(platform: &Platform, me: &Principal) -> String {
    let req = request(&[("_limit", "1")]);
    let (_, next) = platform
        .objects()
        .list_with_next(me, Collection::Object, Source::Private, &req)
        .unwrap();
    next.unwrap()
}

/// An answer that is no data item, or a dated series the platform made wrong, is an internal
/// error, not the caller's; a dated value that is not a number is the caller's to read as
/// JSON, named by its ondate.
#[test]
fn an_answer_that_is_no_data_item_is_an_internal_error() {
    let q = DataQuery::default();
    for answer in [
        Answer::Other(json!(["M01", "M02"])),
        Answer::Curves(Vec::new()),
    ] {
        let e = item_of(answer, &q, "Data::read").unwrap_err();
        assert_eq!(e.code(), ErrorCode::Internal, "{e}");
    }
    let dated = |timezone: Value, ondate: &str, value: PointValue| {
        let mut json = Map::new();
        json.insert("_type".into(), json!("VarTimeSeries"));
        json.insert("timezone".into(), timezone);
        Answer::Dated(DatedSeries {
            name: ItemName {
                object: "A".into(),
                prop: "B".into(),
                version: 1,
            },
            json,
            points: vec![DatedPoint {
                ondate: ondate.into(),
                value,
                status: None,
                properties: None,
            }],
        })
    };
    for bad in [
        dated(json!("Mars/Olympus"), "2024-01-01", PointValue::Num(1.0)),
        dated(json!("UTC"), "yesterday", PointValue::Num(1.0)),
    ] {
        let e = item_of(bad, &q, "Data::read").unwrap_err();
        assert_eq!(e.code(), ErrorCode::Internal, "{e}");
    }
    let e = item_of(
        dated(json!("UTC"), "2024-01-01", PointValue::Null),
        &q,
        "Data::read",
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidParameter);
    assert!(e
        .to_string()
        .contains("at 2024-01-01: read it as JSON with Data::read"));
    let berlin = item_of(
        dated(json!("Europe/Berlin"), "2024-01-01", PointValue::Num(2.5)),
        &q,
        "Data::read",
    )
    .unwrap();
    let midnight = Utc.with_ymd_and_hms(2023, 12, 31, 23, 0, 0).unwrap();
    assert_eq!(series(berlin).points, [Point::new(midnight, 2.5)]);
}

/// A scaled read names the points aggregated from fewer observations than their period holds:
/// a Berlin day missing an hour is 23 of 24, the spring change's 23 hours are a whole day.
#[test]
fn a_scaled_read_names_its_partial_points() {
    let (platform, me) = setup();
    let berlin = Tz::Europe__Berlin;
    let first = berlin.with_ymd_and_hms(2024, 3, 30, 0, 0, 0).unwrap();
    // 30 and 31 March 2024 (24 and 23 hours), 13:00 of the 30th missing.
    let points: Vec<Point> = (0..47)
        .filter(|h| *h != 13)
        .map(|h| Point::new(first.with_timezone(&Utc) + Duration::hours(h), h as f64))
        .collect();
    let opts = WriteOptions {
        calendar: Some("HOURLY".into()),
        timezone: Some("Europe/Berlin".into()),
        ..Default::default()
    };
    platform
        .data()
        .write_series(&me, "DE:PRICE", &points, &opts)
        .unwrap();
    let q = query(&[("_calendar", "DAILY"), ("_observed", "averaged")]);
    let item = platform
        .data()
        .data_item(&me, Source::Private, "DE:PRICE", &q)
        .unwrap();
    let s = series(item);
    let day1: f64 = (0..24).filter(|h| *h != 13).map(f64::from).sum::<f64>() / 23.0;
    let day2: f64 = (24..47).map(f64::from).sum::<f64>() / 23.0;
    let values: Vec<f64> = s.points.iter().map(|p| p.value).collect();
    assert_eq!(values, [day1, day2]);
    assert_eq!(
        s.partial,
        [crate::api::data::Partial {
            at: first.with_timezone(&Utc),
            observations: 23,
            expected: 24
        }]
    );
    // Unscaled, nothing is partial.
    let plain = series(
        platform
            .data()
            .data_item(&me, Source::Private, "DE:PRICE", &query(&[]))
            .unwrap(),
    );
    assert!(plain.partial.is_empty() && plain.points.len() == 46);
}
