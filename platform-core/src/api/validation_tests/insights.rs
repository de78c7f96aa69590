//! Tests of the validation service's insights: the dashboard, suggestions, tunings and the
//! automations of configurations, each answer written as the interface answers it and bad
//! requests refused with its texts.

use super::*;

/// The dashboard of every record, written as the interface answers it.
const DASHBOARD: &str = concat!(
    r#"{"totals":{"records":28,"targets":1,"open":1,"resolved":1},"targets":1,"#,
    r#""byStatus":{"valid":26,"overridden":1,"failed":1},"byKind":{"timeseries":{"valid":26,"#,
    r#""overridden":1,"failed":1}},"#
);

/// The dashboard counts the records the query keeps, written as the interface answers it;
/// its query reads from the parameters with their texts.
#[test]
fn the_dashboard_counts_the_records_the_query_keeps() {
    let (platform, me) = with_records();
    let v = platform.validation();
    let ids = failing_ids(&platform, &me);
    v.override_records(&me, &ids[..1], "known").unwrap();
    let all = v.stats(&me, &StatsQuery::default()).unwrap();
    let text = wire(&all);
    assert!(text.starts_with(DASHBOARD), "{text}");
    assert!(text.contains(concat!(
        r#""byTarget":[{"target":"NBP:SPOT","name":"spot","records":28,"failing":1,"status":"failed"}],"#,
        r#""byCheck":[{"id":"cap","name":"cap","runs":28,"failures":1},"#,
        r#"{"id":"positive","name":"positive","runs":28,"failures":1}],"#,
        r#""open":[{"_id":"NBP:SPOT:2024-02-06T00:00:00Z","target":"NBP:SPOT","#,
        r#""point":"2024-02-06T00:00:00Z","status":"failed","openSince":"2024-03-01T12:00:00.000Z"}],"#,
        r#""resolved":{"count":1,"meanMinutes":0.0,"byResolution":{"override":1}},"#,
        r#""activity":[{"timestamp":"2024-03-01T12:00:00.000Z","action":"run","user":"ann","#,
        r#""origin":"manual","status":"valid","previous":null,"message":"all 2 checks passed","#,
        r#""_id":"NBP:SPOT:2024-02-01T00:00:00Z"}"#
    )), "{text}");
    assert!(
        text.ends_with(r#""configs":{"count":1,"enabled":1,"runOnUpdate":0}}"#),
        "{text}"
    );
    assert_eq!(all.by_day.len(), 28);
    assert_eq!(all.by_day[3].counts.overridden, 1);
    assert_eq!(all.activity.len(), 20);
    let params = Params::from_slice(&[
        ("from", "2024-02-02"),
        ("to", "2024-02-04"),
        ("target", "NBP:SPOT"),
        ("kind", "timeseries"),
        ("group", "gas"),
        ("other", "x"),
    ]);
    let d = |day| NaiveDate::from_ymd_opt(2024, 2, day).unwrap();
    let some = StatsQuery {
        from: Some(d(2)),
        to: Some(d(4)),
        target: Some("NBP:SPOT".into()),
        kind: Some("timeseries".into()),
        group: Some("gas".into()),
    };
    assert_eq!(StatsQuery::from_params(&params).unwrap(), some);
    let three = v.stats(&me, &some).unwrap();
    let days: Vec<NaiveDate> = three.by_day.iter().map(|c| c.day).collect();
    assert_eq!(days, [d(2), d(3), d(4)]);
    assert_eq!(wire(&three.by_status), r#"{"valid":2,"overridden":1}"#);
    // A kind that is not one, and a group of none, count no record; the configurations stay.
    for (k, v2) in [
        ("kind", "curve"),
        ("kind", "cube"),
        ("group", ""),
        ("target", ""),
    ] {
        let q = StatsQuery::from_params(&Params::from_slice(&[(k, v2)])).unwrap();
        let none = v.stats(&me, &q).unwrap();
        assert_eq!(
            (none.totals.records, none.configs.count),
            (0, 1),
            "{k}={v2}"
        );
        assert!(wire(&none).starts_with(concat!(
            r#"{"totals":{"records":0,"targets":0,"open":0,"resolved":0},"targets":0,"#,
            r#""byStatus":{},"byKind":{},"byDay":[],"byTarget":[],"byCheck":[],"open":[],"#,
            r#""resolved":{"count":0,"meanMinutes":null,"byResolution":{}},"activity":[],"#
        )));
    }
    for (k, bad) in [
        ("from", "garbage"),
        ("to", "2024-13-01"),
        ("from", "2024-1-01"),
    ] {
        let e = StatsQuery::from_params(&Params::from_slice(&[(k, bad)])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidParameter);
        assert_eq!(
            e.to_string(),
            format!("{k} \"{bad}\" is not a date: stats take dates as YYYY-MM-DD")
        );
    }
}

/// 40 days of positive prices, the last one negative (in the part not fitted), as NBP:LONG.
fn long_series(platform: &Platform, me: &Principal) {
    let first = Utc.with_ymd_and_hms(2024, 1, 15, 0, 0, 0).unwrap();
    let points: Vec<Point> = (0..40)
        .map(|d| {
            let value = if d == 39 { -5.0 } else { 50.0 + (d % 7) as f64 };
            Point::new(first + Duration::days(d), value)
        })
        .collect();
    platform
        .data()
        .write_series(me, "NBP:LONG", &points, &Default::default())
        .unwrap();
}

/// Suggestions propose scored checks per item, written as the interface answers them; an
/// item that cannot be read answers why; bad requests are refused with the body's texts,
/// read from a body or typed.
#[test]
fn suggestions_propose_checks_per_item_and_refuse_bad_requests() {
    let (platform, me) = with_records();
    let v = platform.validation();
    long_series(&platform, &me);
    let body = json!({"targets": ["NBP:LONG", "NOPE:X"], "kind": "timeseries", "days": 60});
    let req = SuggestionRequest::from_body(&body).unwrap();
    assert_eq!(
        req,
        SuggestionRequest {
            days: Some(60),
            ..SuggestionRequest::new(["NBP:LONG", "NOPE:X"])
        }
    );
    assert_eq!(serde_json::to_value(&req).unwrap(), body);
    let proposed = v.suggest(&me, &req).unwrap();
    assert_eq!((proposed.days, proposed.to), (60, now().date_naive()));
    let long = proposed.results[0].proposals.as_ref().unwrap();
    let stats = &long.stats;
    assert_eq!((long.points, stats.values, stats.negatives), (40, 40, 1));
    assert_eq!((stats.min, stats.max), (Some(-5.0), Some(56.0)));
    let WindowShape::Series {
        longest_gap,
        longest_run,
    } = stats.shape
    else {
        panic!("a series' window")
    };
    assert_eq!((longest_gap, longest_run), (None, 1));
    let positive = long
        .checks
        .iter()
        .find(|c| c.expression == "value > 0")
        .unwrap();
    assert_eq!((positive.runs, positive.failures), (40, 1));
    assert_eq!((positive.holdout.runs, positive.holdout.failures), (8, 1));
    assert_eq!(
        wire(&positive.example),
        r#"{"point":"2024-02-23T00:00:00Z","value":-5.0,"message":"value -5, expected > 0"}"#
    );
    assert!(!positive.suggested && positive.scope.is_none());
    assert_eq!(long.config["_id"], "NBP:LONG");
    let kept = long.checks.iter().filter(|c| c.in_config).count();
    assert_eq!(long.config["checks"].as_array().unwrap().len(), kept);
    let text = wire(&proposed);
    assert!(
        text.starts_with(concat!(
            r#"{"days":60,"from":"2024-01-01","to":"2024-03-01","results":[{"target":"NBP:LONG","#,
            r#""kind":"timeseries","points":40,"stats":{"values":40,"missing":0,"zeros":0,"#,
            r#""negatives":1,"min":-5.0,"max":56.0,"#
        )),
        "{text}"
    );
    assert!(
        text.contains(r#""longestGap":null,"longestRun":1},"checks":[{"id":"#),
        "{text}"
    );
    assert!(
        text.ends_with(concat!(
            r#"{"target":"NOPE:X","kind":"timeseries","#,
            r#""error":"data \"NOPE:X\" cannot be read: its object does not exist","ms":0}]}"#
        )),
        "{text}"
    );
    for (bad, code, message) in [
        (
            json!({"targets": []}),
            ErrorCode::MissingParameter,
            "targets is empty",
        ),
        (
            json!({"kind": "curve"}),
            ErrorCode::MissingParameter,
            "targets is missing",
        ),
        (
            json!([]),
            ErrorCode::InvalidBody,
            "the request must be a JSON object",
        ),
        (
            json!({"targets": [""]}),
            ErrorCode::InvalidBody,
            "targets must be an array of data ids (strings)",
        ),
        (
            json!({"targets": "x"}),
            ErrorCode::InvalidBody,
            "targets must be an array, not a string",
        ),
        (
            json!({"targets": ["A:B"], "kind": "cube"}),
            ErrorCode::InvalidBody,
            "kind must be timeseries or curve, not \"cube\"",
        ),
        (
            json!({"targets": ["A:B"], "kind": 3}),
            ErrorCode::InvalidBody,
            "kind must be a string, not a number",
        ),
        (
            json!({"targets": ["A:B"], "days": "5"}),
            ErrorCode::InvalidParameter,
            "days must be an integer from 1 to 366, not \"5\"",
        ),
        (
            json!({"targets": ["A:B"], "maxCurves": 61}),
            ErrorCode::InvalidParameter,
            "maxCurves must be an integer from 2 to 60, not 61",
        ),
    ] {
        let e = SuggestionRequest::from_body(&bad).unwrap_err();
        assert_eq!((e.code(), e.to_string()), (code, message.into()), "{bad}");
    }
    for (bad, code, message) in [
        (
            SuggestionRequest::new(Vec::<String>::new()),
            ErrorCode::MissingParameter,
            "targets is empty".to_string(),
        ),
        (
            SuggestionRequest::new([""]),
            ErrorCode::InvalidBody,
            "targets must be an array of data ids (strings)".into(),
        ),
        (
            SuggestionRequest::new((0..26).map(|i| format!("A:{i}"))),
            ErrorCode::InvalidParameter,
            "at most 25 targets; 26 were given".into(),
        ),
        (
            SuggestionRequest {
                days: Some(0),
                ..SuggestionRequest::new(["A:B"])
            },
            ErrorCode::InvalidParameter,
            "days must be an integer from 1 to 366, not 0".into(),
        ),
    ] {
        let e = v.suggest(&me, &bad).unwrap_err();
        assert_eq!((e.code(), e.to_string()), (code, message));
    }
}

/// Tunings relax the checks failing on the given points, written as the interface answers
/// them; bad requests are refused with the body's texts, read from a body or typed.
#[test]
fn tunings_relax_checks_and_refuse_bad_requests() {
    let (platform, me) = with_records();
    let v = platform.validation();
    let ids = failing_ids(&platform, &me);
    // The spike of day 5 is a false alarm; the negative of day 3 stands.
    v.override_records(&me, &ids[1..], "a real spike").unwrap();
    let body = json!({"items": [{"target": "NBP:SPOT", "points": ["2024-02-06T00:00:00.000Z"]},
        {"target": "NOPE:X", "points": ["2024-02-06"], "tenors": ["M01"]}], "days": 60});
    let req = TuningRequest::from_body(&body).unwrap();
    let spike = TuningItem {
        target: "NBP:SPOT".into(),
        points: vec![day(5).into()],
        tenors: None,
    };
    assert_eq!(req.items[0], spike);
    assert_eq!(serde_json::to_value(&req).unwrap(), body);
    let tuned = v.tune(&me, &req).unwrap();
    let spot = tuned.results[0].tuned.as_ref().unwrap();
    assert_eq!((spot.kind, spot.points), (ValidationKind::TimeSeries, 28));
    let cap = &spot.checks[0];
    assert_eq!(
        (cap.id.as_str(), cap.failing, cap.false_alarms),
        ("cap", 1, 1)
    );
    assert_eq!(cap.failing_points[0].value, Some(500.0));
    let suggested = cap.suggested.as_deref().unwrap();
    assert!(
        suggested.starts_with("value < ") && suggested != "value < 100",
        "{suggested}"
    );
    assert_eq!((cap.window.before, cap.window.after), (1, 0));
    assert_eq!(cap.lets_through, Some(vec![]));
    let text = wire(&tuned);
    assert!(
        text.starts_with(concat!(
            r#"{"days":60,"from":"2024-01-01","to":"2024-03-01","results":[{"target":"NBP:SPOT","#,
            r#""kind":"timeseries","points":28,"checks":[{"id":"cap","name":"cap","#,
            r#""expression":"value < 100","severity":"failed","scope":"point","failing":1,"#,
            r#""failingPoints":[{"point":"2024-02-06T00:00:00Z","value":500.0,"#,
            r#""message":"value 500, expected < 100"}],"runs":28,"falseAlarms":1,"standing":0,"#,
        )),
        "{text}"
    );
    assert!(
        text.contains(r#","letsThrough":[],"window":{"runs":28,"before":1,"after":0}}]"#),
        "{text}"
    );
    assert!(
        text.ends_with(
            r#"{"target":"NOPE:X","error":"\"NOPE:X\" has no validation configuration","ms":0}]}"#
        ),
        "{text}"
    );
    let item =
        |target: &str, points: Value| json!({"items": [{"target": target, "points": points}]});
    for (bad, code, message) in [
        (
            json!({"items": []}),
            ErrorCode::MissingParameter,
            "items is empty",
        ),
        (json!({}), ErrorCode::MissingParameter, "items is missing"),
        (
            json!({"items": [1]}),
            ErrorCode::InvalidBody,
            "items[0] must be an object {target, points, tenors?}",
        ),
        (
            item("", json!(["x"])),
            ErrorCode::MissingParameter,
            "items[0] needs a target",
        ),
        (
            item("A:B", json!([])),
            ErrorCode::MissingParameter,
            "items[0] needs points (the failing points to tune for)",
        ),
        (
            item("A:B", json!([1])),
            ErrorCode::InvalidBody,
            "items[0].points must be an array of strings",
        ),
        (
            json!({"items": [{"target": "A:B", "points": ["x"]}], "days": 0}),
            ErrorCode::InvalidParameter,
            "days must be an integer from 1 to 366, not 0",
        ),
    ] {
        let e = TuningRequest::from_body(&bad).unwrap_err();
        assert_eq!((e.code(), e.to_string()), (code, message.into()), "{bad}");
    }
    let no_points = TuningRequest::new([TuningItem {
        target: "NBP:SPOT".into(),
        ..TuningItem::default()
    }]);
    for (bad, code, message) in [
        (
            TuningRequest::default(),
            ErrorCode::MissingParameter,
            "items is empty",
        ),
        (
            no_points,
            ErrorCode::MissingParameter,
            "items[0] needs points (the failing points to tune for)",
        ),
        (
            TuningRequest {
                max_curves: Some(61),
                ..TuningRequest::new([spike])
            },
            ErrorCode::InvalidParameter,
            "maxCurves must be an integer from 2 to 60, not 61",
        ),
    ] {
        let e = v.tune(&me, &bad).unwrap_err();
        assert_eq!((e.code(), e.to_string()), (code, message.into()));
    }
}

/// Recreating automations recreates the one deleted, answering as the interface does; a
/// reader may not.
#[test]
fn recreating_automations_recreates_the_missing_one() -> Result<()> {
    let (platform, me) = platform();
    save_config(
        &platform,
        &me,
        json!({"_id": "NBP:SPOT", "kind": "timeseries",
        "runOnUpdate": true, "checks": [{"name": "positive", "expression": "value > 0"}]}),
    );
    save_config(
        &platform,
        &me,
        json!({"_id": "NBP:DAY", "kind": "timeseries",
        "checks": [{"name": "positive", "expression": "value > 0"}]}),
    );
    let paging = Paging {
        skip: 0,
        limit: None,
    };
    let made = platform.automations().automations(&me, &paging)?.items;
    assert_eq!(made.len(), 1);
    platform.automations().delete(&me, made[0].id())?;
    let sync = platform.validation().recreate_automations(&me)?;
    assert_eq!(platform.automations().automations(&me, &paging)?.total, 1);
    assert_eq!(
        wire(&sync),
        format!(
            r#"{{"checked":2,"created":1,"automations":["{}"]}}"#,
            made[0].id()
        )
    );
    let e = platform
        .validation()
        .recreate_automations(&reader(&me))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotAuthorized);
    Ok(())
}
