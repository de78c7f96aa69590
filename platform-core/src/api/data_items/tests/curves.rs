//! Tests of the typed curve reads: the curves of a range, the nearest curve, a curve write's
//! answer, a back-adjusted continuation; and the source a typed series or curve read takes.

use super::*;

/// The curves of `TTF:FWD` on three ondates around a weekend (M01 worth 30 plus the day).
fn week_of_curves(platform: &Platform, me: &Principal) {
    for day in [3, 4, 7] {
        let ondate = NaiveDate::from_ymd_opt(2024, 10, day).unwrap();
        let contracts = [
            Contract::new("M01", 30.0 + f64::from(day)),
            Contract::new("M02", 40.0),
        ];
        let opts = WriteOptions {
            units: Some("MWh".into()),
            ..Default::default()
        };
        platform
            .data()
            .write_curve(me, "TTF:FWD", ondate, &contracts, &opts)
            .unwrap();
    }
}

#[test]
fn the_curves_of_a_range_and_the_nearest_curve_are_read_typed() {
    let (platform, me) = setup();
    week_of_curves(&platform, &me);
    let d = |day| NaiveDate::from_ymd_opt(2024, 10, day).unwrap();
    let data = platform.data();
    let kwh = CurveQuery {
        units: Some("kWh".into()),
        ..Default::default()
    };
    let week = data
        .curves_in_range(&me, "TTF:FWD", "between(2024-10-04,2024-10-07)", &kwh)
        .unwrap();
    let got: Vec<(NaiveDate, f64)> = week
        .iter()
        .map(|c| (c.ondate, c.contracts[0].value))
        .collect();
    // Without a currency the values are quantities: a MWh is 1,000 kWh.
    assert_eq!(got, [(d(4), 34_000.0), (d(7), 37_000.0)]);
    assert_eq!(week[0].units.as_deref(), Some("kWh"));
    // The JSON read answers the same curves; the typed read of one item refuses the list.
    let q = query(&[("_range", "between(2024-10-04,2024-10-07)")]);
    let json = data.read(&me, Source::Private, "TTF:FWD", &q).unwrap();
    assert_eq!(json.as_array().map(Vec::len), Some(2));
    let e = data
        .data_item(&me, Source::Private, "TTF:FWD", &q)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidParameter);
    assert!(e.public_message().contains("curves_in_range"), "{e}");
    // A weekend: no curve, and none read in its place.
    let q = CurveQuery {
        ondate: Some(d(5)),
        ..Default::default()
    };
    let e = data.curve(&me, "TTF:FWD", &q).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    let m = e.public_message();
    assert!(
        m.contains("2024-10-04 before") && m.contains("2024-10-07 after"),
        "{m}"
    );
    for (nearest, want) in [(Nearest::Before, d(4)), (Nearest::After, d(7))] {
        let q = CurveQuery {
            ondate: Some(d(5)),
            nearest: Some(nearest),
            ..Default::default()
        };
        let c = data.curve(&me, "TTF:FWD", &q).unwrap();
        assert_eq!(c.ondate, want);
        assert_eq!(c.contracts[0].value, 30.0 + f64::from(want.day0() + 1));
    }
    let q = CurveQuery {
        nearest: Some(Nearest::Before),
        ..Default::default()
    };
    assert_eq!(
        data.curve(&me, "TTF:FWD", &q).unwrap_err().code(),
        ErrorCode::InvalidParameter
    );
    // The typed item of an ondate with `_nearest`.
    let q = query(&[("_nearest", "before")]);
    let DataItem::Curve(c) = data
        .data_item(&me, Source::Private, "TTF:FWD:2024-10-06", &q)
        .unwrap()
    else {
        panic!("a curve")
    };
    assert_eq!(c.ondate, d(4));
}

#[test]
fn a_curve_write_answers_what_it_dropped_and_merges_when_asked() {
    let (platform, me) = setup();
    week_of_curves(&platform, &me);
    let data = platform.data();
    let curve = |contracts: Value| {
        json!({"ondate": "2024-10-03", "contracts": contracts})
            .as_object()
            .cloned()
            .unwrap()
    };
    let header = Map::new();
    let saved = data
        .save_curves(
            &me,
            "TTF",
            "FWD",
            header.clone(),
            vec![curve(json!([{"tenor": "M01", "value": 1.0}]))],
            &Default::default(),
        )
        .unwrap();
    assert_eq!(
        saved["_replacedCurves"],
        json!([{"_id": "TTF:FWD:2024-10-03", "stored": 2, "written": 1, "dropped": 1,
            "droppedTenors": ["M02"], "merged": false}])
    );
    let merge = SaveOptions {
        merge_contracts: true,
        ..Default::default()
    };
    let saved = data
        .save_curves(
            &me,
            "TTF",
            "FWD",
            header,
            vec![curve(json!([{"tenor": "M03", "value": 3.0}]))],
            &merge,
        )
        .unwrap();
    assert_eq!(saved["_replacedCurves"][0]["written"], 2);
    let q = CurveQuery {
        ondate: NaiveDate::from_ymd_opt(2024, 10, 3),
        ..Default::default()
    };
    let c = data.curve(&me, "TTF:FWD", &q).unwrap();
    let got: Vec<(&str, f64)> = c
        .contracts
        .iter()
        .map(|k| (k.tenor.as_str(), k.value))
        .collect();
    assert_eq!(got, [("M01", 1.0), ("M03", 3.0)]);
}

#[test]
fn a_back_adjusted_continuation_reads_typed_as_its_json() {
    let (platform, me) = setup();
    week_of_curves(&platform, &me);
    // The curve of 1 November: M01 is December now, so November (M01 before) rolled.
    let nov = NaiveDate::from_ymd_opt(2024, 11, 1).unwrap();
    platform
        .data()
        .write_curve(
            &me,
            "TTF:FWD",
            nov,
            &[Contract::new("2024M11", 36.0), Contract::new("M01", 45.0)],
            &Default::default(),
        )
        .unwrap();
    let q = query(&[
        ("_continuation", "M01"),
        ("_adjust", "difference"),
        ("_roll", "calendar"),
    ]);
    let DataItem::Series(s) = platform
        .data()
        .data_item(&me, Source::Private, "TTF:FWD", &q)
        .unwrap()
    else {
        panic!("a series")
    };
    let values: Vec<f64> = s.points.iter().map(|p| p.value).collect();
    // On 1 November December (45) against November (36): every October price moves by 9.
    assert_eq!(values, [33.0 + 9.0, 34.0 + 9.0, 37.0 + 9.0, 45.0]);
    let json = platform
        .data()
        .read(&me, Source::Private, "TTF:FWD", &q)
        .unwrap();
    assert_eq!(json["rolls"][0]["difference"], 9.0);
    // The typed header carries what the read made: the rolls, what it continued.
    assert_eq!(s.header["rolls"], json["rolls"]);
    assert_eq!(s.header["properties"]["continuation"], "M01");
}

/// A curve query's source is the source the typed curve reads read from, as `data_item`'s is:
/// the default reads the curve from the source its id names, the other source does not hold it
/// and answers as `data_item` of that source does.
#[test]
fn the_typed_curve_reads_take_a_source_as_data_item_does() {
    let (platform, me) = setup();
    week_of_curves(&platform, &me);
    let data = platform.data();
    let of = |source| CurveQuery {
        source,
        ..Default::default()
    };
    for source in [Source::All, Source::Private] {
        assert_eq!(
            data.curve(&me, "TTF:FWD", &of(source)).unwrap(),
            data.curve(&me, "TTF:FWD", &CurveQuery::default()).unwrap()
        );
    }
    let json = data
        .data_item(&me, Source::Public, "TTF:FWD", &Default::default())
        .unwrap_err();
    let typed = data.curve(&me, "TTF:FWD", &of(Source::Public)).unwrap_err();
    assert_eq!(
        (typed.code(), typed.to_string()),
        (json.code(), json.to_string())
    );
    assert_eq!(typed.code(), ErrorCode::NotFound);
    let range = "between(2024-10-03,2024-10-07)";
    assert_eq!(
        data.curves_in_range(&me, "TTF:FWD", range, &of(Source::Private))
            .unwrap()
            .len(),
        3
    );
    let e = data
        .curves_in_range(&me, "TTF:FWD", range, &of(Source::Public))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    let shape = crate::api::data::ShapeQuery::default();
    let e = data
        .shape_curve(&me, "TTF:FWD", &of(Source::Public), &shape)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
}

/// A series query's source picks the source as `data_item`'s does.
#[test]
fn the_typed_series_read_takes_a_source_as_data_item_does() {
    let (platform, me) = setup();
    let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    let data = platform.data();
    data.write_series(
        &me,
        "NBP:SPOT",
        &[Point::new(at, 71.3)],
        &Default::default(),
    )
    .unwrap();
    let of = |source| SeriesQuery {
        source,
        ..Default::default()
    };
    let private = data.series(&me, "NBP:SPOT", &of(Source::Private)).unwrap();
    assert_eq!(
        private,
        data.series(&me, "NBP:SPOT", &of(Source::All)).unwrap()
    );
    let json = data
        .data_item(&me, Source::Public, "NBP:SPOT", &Default::default())
        .unwrap_err();
    let typed = data
        .series(&me, "NBP:SPOT", &of(Source::Public))
        .unwrap_err();
    assert_eq!(
        (typed.code(), typed.to_string()),
        (json.code(), json.to_string())
    );
}
