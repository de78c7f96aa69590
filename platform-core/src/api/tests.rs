//! The typed calls against their JSON counterparts: the same rules, the same answers.

use super::{data::*, objects::*, validation::*};
use crate::auth::Principal;
use crate::data::read::DataQuery;
use crate::ids::{Source, VersionRef};
use crate::store::Collection;
use crate::{ErrorCode, Platform};
use chrono::{Duration, NaiveDate, TimeZone, Utc};
use serde_json::json;

fn setup() -> (Platform, Principal) {
    let platform = Platform::in_memory().unwrap();
    let me = platform.tenancy().local_principal("acme", "ann").unwrap();
    (platform, me)
}

fn hour(h: i64) -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 10, 26, 0, 0, 0).unwrap() + Duration::hours(h)
}

#[test]
fn a_typed_series_write_reads_back_the_same_through_json() {
    let (platform, me) = setup();
    let points: Vec<Point> = (0..5)
        .map(|h| Point::new(hour(h), h as f64 * 1.5))
        .collect();
    let opts = WriteOptions {
        units: Some("MWh".into()),
        timezone: Some("Europe/Berlin".into()),
        ..Default::default()
    };
    assert_eq!(
        platform
            .data()
            .write_series(&me, "DE:LOAD", &points, &opts)
            .unwrap(),
        1
    );
    let json = platform
        .data()
        .read(&me, Source::All, "DE:LOAD", &DataQuery::default())
        .unwrap();
    assert_eq!(json["units"], "MWh");
    assert_eq!(json["timezone"], "Europe/Berlin");
    assert_eq!(json["data"].as_array().unwrap().len(), 5);
    assert_eq!(json["data"][2]["time"], "2024-10-26T02:00:00Z");
    assert_eq!(json["data"][2]["value"], 3.0);
    let typed = platform
        .data()
        .series(&me, "DE:LOAD", &SeriesQuery::default())
        .unwrap();
    assert_eq!(typed.points, points);
    assert_eq!((typed.id.as_str(), typed.version), ("DE:LOAD", 1));
    assert_eq!(typed.header["timezone"], "Europe/Berlin");
}

#[test]
fn series_reads_take_every_range_form_and_old_versions() {
    let (platform, me) = setup();
    let points: Vec<Point> = (0..48).map(|h| Point::new(hour(h), h as f64)).collect();
    platform
        .data()
        .write_series(&me, "DE:P", &points, &WriteOptions::default())
        .unwrap();
    let replace = WriteOptions {
        replace: true,
        ..Default::default()
    };
    platform
        .data()
        .write_series(&me, "DE:P", &points[..2], &replace)
        .unwrap();
    let read = |range: ReadRange, version: Option<VersionRef>| {
        platform
            .data()
            .series(
                &me,
                "DE:P",
                &SeriesQuery {
                    range,
                    version,
                    ..Default::default()
                },
            )
            .unwrap()
            .points
    };
    assert_eq!(read(ReadRange::All, None), &points[..2]);
    let v1 = Some(VersionRef::Number(1));
    assert_eq!(read(ReadRange::All, v1.clone()), points);
    assert_eq!(read(ReadRange::Last(3), v1.clone()), &points[45..]);
    let between = ReadRange::Between {
        from: Some(hour(10)),
        to: Some(hour(12)),
    };
    assert_eq!(read(between, v1.clone()), &points[10..12]);
    let open = ReadRange::Between {
        from: Some(hour(46)),
        to: None,
    };
    assert_eq!(read(open, v1.clone()), &points[46..]);
    // The server's `_range` grammar: the same window as the JSON read answers.
    let expr = ReadRange::Expr("2024-10-27".into());
    let typed = read(expr, v1);
    assert_eq!(typed, &points[24..48]);
    let bad = platform.data().series(
        &me,
        "DE:P",
        &SeriesQuery {
            range: ReadRange::Expr("not a range".into()),
            ..Default::default()
        },
    );
    assert_eq!(bad.unwrap_err().code(), ErrorCode::InvalidParameter);
}

#[test]
fn typed_reads_refuse_the_wrong_kind_missing_data_and_text_values() {
    let (platform, me) = setup();
    let d = NaiveDate::from_ymd_opt(2024, 5, 14).unwrap();
    platform
        .data()
        .write_curve(
            &me,
            "TTF:FWD",
            d,
            &[Contract::new("M01", 30.0)],
            &Default::default(),
        )
        .unwrap();
    let not_series = platform
        .data()
        .series(&me, "TTF:FWD", &SeriesQuery::default())
        .unwrap_err();
    assert_eq!(not_series.code(), ErrorCode::NotFound);
    let missing = platform
        .data()
        .curve(&me, "TTF:NONE", &CurveQuery::default())
        .unwrap_err();
    assert_eq!(missing.code(), ErrorCode::NotFound);
    let no_ondate = CurveQuery {
        ondate: NaiveDate::from_ymd_opt(2024, 5, 15),
        ..Default::default()
    };
    let err = platform
        .data()
        .curve(&me, "TTF:FWD", &no_ondate)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    // A text value written as JSON is not a number for the typed read.
    platform
        .objects()
        .save(
            &me,
            Collection::Object,
            json!({"_id": "X", "S": {"_type": "VarTimeSeries", "data": [
                {"time": "2024-01-01T00:00:00Z", "value": "n/a"}]}}),
            &Default::default(),
        )
        .unwrap();
    let text = platform
        .data()
        .series(&me, "X:S", &SeriesQuery::default())
        .unwrap_err();
    assert_eq!(text.code(), ErrorCode::InvalidParameter);
    assert!(text.to_string().contains("not a number"), "{text}");
    // A write names no ondate in the data id.
    let err = platform
        .data()
        .write_series(&me, "X:S:2024-01-01", &[], &Default::default())
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidParameter);
}

#[test]
fn a_typed_curve_converts_like_the_json_read() {
    let (platform, me) = setup();
    let d = NaiveDate::from_ymd_opt(2024, 5, 14).unwrap();
    let opts = WriteOptions {
        units: Some("MWh".into()),
        currency: Some("EUR".into()),
        ..Default::default()
    };
    platform
        .data()
        .write_curve(
            &me,
            "TTF:FWD",
            d,
            &[
                Contract::new("M01", 34.1214),
                Contract::new("2025Q01", 40.0),
            ],
            &opts,
        )
        .unwrap();
    let q = CurveQuery {
        units: Some("therm".into()),
        ..Default::default()
    };
    let curve = platform.data().curve(&me, "TTF:FWD", &q).unwrap();
    assert_eq!(curve.units.as_deref(), Some("therm"));
    assert_eq!(curve.currency.as_deref(), Some("EUR"));
    assert!((curve.contracts[0].value - 1.0).abs() < 1e-5, "{curve:?}");
    let json = platform
        .data()
        .read(
            &me,
            Source::All,
            "TTF:FWD",
            &DataQuery {
                conversion: crate::data::conversion::Conversion {
                    units: Some("therm".into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .unwrap();
    for (typed, sent) in curve
        .contracts
        .iter()
        .zip(json["contracts"].as_array().unwrap())
    {
        assert_eq!(typed.value, sent["value"].as_f64().unwrap());
        assert_eq!(typed.tenor, sent["tenor"].as_str().unwrap());
    }
    let q1 = &curve.contracts[1];
    assert_eq!(q1.absolute.as_deref(), Some("2025Q01"));
    assert_eq!(
        (q1.start, q1.end),
        (
            NaiveDate::from_ymd_opt(2025, 1, 1).unwrap(),
            NaiveDate::from_ymd_opt(2025, 3, 31).unwrap()
        )
    );
}

#[test]
fn typed_objects_round_trip_and_old_versions_keep_their_id() {
    let (platform, me) = setup();
    let objects = platform.objects();
    let saved = objects
        .save_object(
            &me,
            &Object::new("NBP").with_type("#Object").with("name", "hub"),
            &Default::default(),
        )
        .unwrap();
    assert_eq!(
        (saved.version, saved.user.as_deref()),
        (Some(1), Some("ann"))
    );
    assert!(saved.timestamp.is_some());
    assert!(!saved.properties.contains_key("_oid"));
    // Saving the same again makes no version.
    let same = objects
        .save_object(
            &me,
            &Object::new("NBP").with("name", "hub"),
            &Default::default(),
        )
        .unwrap();
    assert_eq!(same.version, Some(1));
    objects
        .save_object(
            &me,
            &Object::new("NBP").with("name", "NBP"),
            &Default::default(),
        )
        .unwrap();
    let old = objects
        .object_at(&me, "NBP", &VersionRef::Number(1))
        .unwrap();
    assert_eq!((old.id.as_str(), old.version), ("NBP", Some(1)));
    assert_eq!(old.properties["name"], "hub");
    // Rolling back twice removes the object; a third is NOT_FOUND, as the JSON delete is.
    assert_eq!(objects.roll_back(&me, "NBP", None).unwrap(), Some(1));
    assert_eq!(objects.roll_back(&me, "NBP", None).unwrap(), None);
    let err = objects.roll_back(&me, "NBP", None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    // Another tenant does not see a private object.
    objects
        .save_object(&me, &Object::new("GB"), &Default::default())
        .unwrap();
    let other = platform.tenancy().local_principal("globex", "bob").unwrap();
    assert_eq!(
        objects.object(&other, "GB").unwrap_err().code(),
        ErrorCode::NotFound
    );
}

#[test]
fn a_typed_validation_run_is_the_json_run() {
    let (platform, me) = setup();
    let points: Vec<Point> = [5.0, -1.0, 7.0, -2.0]
        .iter()
        .enumerate()
        .map(|(i, v)| Point::new(hour(i as i64), *v))
        .collect();
    platform
        .data()
        .write_series(&me, "A:S", &points, &Default::default())
        .unwrap();
    platform
        .objects()
        .save(
            &me,
            Collection::ValidationConfig,
            json!({"_id": "A:S", "kind": "timeseries", "checks": [
                {"name": "pos", "expression": "value > 0"},
                {"name": "small", "expression": "value < 100", "severity": "warning"}]}),
            &Default::default(),
        )
        .unwrap();
    let req = ValidationRequest::new("A:S").between(hour(0), hour(3));
    let tested = platform.validation().test(&me, &req).unwrap();
    // The body of the request on the wire reads as the request.
    let body = json!({"target": "A:S", "from": "2024-10-26T00:00:00.000Z", "to": "2024-10-26T03:00:00.000Z"});
    assert_eq!(ValidationRequest::from_body(&body).unwrap(), req);
    let json = serde_json::to_value(&tested).unwrap();
    assert_eq!(tested.points, json["points"].as_u64().unwrap());
    assert_eq!(
        tested.counts.failed,
        json["counts"]["failed"].as_u64().unwrap()
    );
    assert_eq!((tested.counts.valid, tested.counts.failed), (2, 2));
    assert_eq!(tested.records, 0);
    let run = platform
        .validation()
        .run(&me, &req)
        .unwrap()
        .done()
        .expect("checked now");
    assert_eq!((run.points, run.records), (4, 4));
    let second = &run.results[1];
    assert_eq!(second.status, ValidationStatus::Failed);
    assert_eq!(second.previous, None);
    assert_eq!(second.checks.len(), 2);
    assert_eq!(second.checks[0].status, ValidationStatus::Failed);
    assert_eq!(second.checks[1].status, ValidationStatus::Valid);
    // The answer's every field, typed: the run's kind and times, each point's record id and day.
    assert_eq!(run.kind, crate::api::validation::ValidationKind::TimeSeries);
    assert!(
        run.timings.read >= 0.0 && run.timings.save > 0.0,
        "{:?}",
        run.timings
    );
    assert_eq!(second.id, "A:S:2024-10-26T01:00:00Z");
    assert_eq!(
        Some(second.point_date),
        chrono::NaiveDate::from_ymd_opt(2024, 10, 26)
    );
    assert_eq!(
        (second.tenors.as_ref(), second.failed_tenors.as_ref()),
        (None, None)
    );
    let typed = serde_json::to_value(&tested).unwrap();
    for key in [
        "target", "kind", "test", "points", "records", "counts", "timings", "results",
    ] {
        assert!(typed.get(key).is_some() && json.get(key).is_some(), "{key}");
    }
    assert_eq!(typed["kind"], json["kind"]);
    // One check, one point: only that is run; the record keeps the earlier status.
    let one = ValidationRequest::new("A:S")
        .at([hour(1)])
        .only_checks(["small"]);
    let again = platform
        .validation()
        .run(&me, &one)
        .unwrap()
        .done()
        .expect("checked now");
    assert_eq!(again.points, 1);
    assert_eq!(again.results[0].previous, Some(ValidationStatus::Failed));
    // A request the JSON run refuses is refused the same.
    let mut bad_config = ValidationRequest::new("A:S");
    bad_config.config = Some(json!("not an object"));
    assert!(platform.validation().test(&me, &bad_config).is_err());
    // A reader may test but not run.
    let token = platform
        .tenancy()
        .create_token("acme", "rita", crate::auth::Role::Reader)
        .unwrap();
    let rita = platform
        .tenancy()
        .authenticate(Some(&crate::auth::Credentials::Bearer(token)), None)
        .unwrap();
    assert_eq!(
        platform.validation().run(&rita, &req).unwrap_err().code(),
        ErrorCode::NotAuthorized
    );
}

#[test]
fn a_large_run_goes_to_a_job_and_says_so() {
    let (platform, me) = setup();
    let points: Vec<Point> = (0..5).map(|h| Point::new(hour(h), 1.0)).collect();
    platform
        .data()
        .write_series(&me, "A:S", &points, &Default::default())
        .unwrap();
    platform
        .objects()
        .save(
            &me,
            Collection::ValidationConfig,
            json!({"_id": "A:S", "kind": "timeseries", "options": {"maxPoints": 2},
                   "checks": [{"name": "pos", "expression": "value > 0"}]}),
            &Default::default(),
        )
        .unwrap();
    let req = ValidationRequest::new("A:S").between(hour(0), hour(4));
    // Five points over maxPoints 2: queued, and nothing says it passed (it checked nothing).
    let crate::api::validation::RunOutcome::Queued(queued) =
        platform.validation().run(&me, &req).unwrap()
    else {
        panic!("a run over maxPoints is queued");
    };
    let job = queued.job;
    assert!(job.starts_with("job-"), "{job}");
    assert!(queued.message.contains(&job), "{}", queued.message);
    assert!(
        platform
            .validation()
            .records(&me, &Default::default())
            .unwrap()
            .items
            .is_empty(),
        "a queued run stored records"
    );
    assert!(platform.jobs().run_next().unwrap());
    // The job: done, its result the answer of the run it made.
    let typed = platform.jobs().jobs(&me).unwrap();
    assert_eq!(typed.len(), 1);
    let done = &typed[0];
    assert_eq!(
        (done.id.as_str(), done.status),
        (job.as_str(), crate::api::jobs::JobStatus::Done)
    );
    assert_eq!((done.progress, done.user.as_str()), (100, me.user.as_str()));
    assert!(done.started.is_some() && done.finished >= done.started);
    assert_eq!(
        done.result.as_ref().map(|r| r["points"].as_u64()),
        Some(Some(5))
    );
    // And its result typed: the five points checked, all valid.
    let Some(crate::api::validation::JobResult::Run(result)) = done.outcome().unwrap() else {
        panic!("a run's job answers a run's result: {:?}", done.outcome());
    };
    assert_eq!((result.counts.valid, result.passed()), (5, true));
}

/// A run asked to wait checks every point on the calling thread, past `maxPoints`, and a failing
/// point fails it: never a queued job counted as passed.
#[test]
fn a_large_run_that_waits_checks_every_point_now() {
    let (platform, me) = setup();
    let points: Vec<Point> = (0..5000)
        .map(|h| Point::new(hour(h), if h == 4321 { -1.0 } else { 1.0 }))
        .collect();
    platform
        .data()
        .write_series(&me, "A:S", &points, &Default::default())
        .unwrap();
    platform
        .objects()
        .save(
            &me,
            Collection::ValidationConfig,
            json!({"_id": "A:S", "kind": "timeseries",
                   "checks": [{"name": "pos", "expression": "value > 0"}]}),
            &Default::default(),
        )
        .unwrap();
    let req = ValidationRequest::new("A:S").between(hour(0), hour(4999));
    // Over the default maxPoints (1,000): run queues it and says so.
    let outcome = platform.validation().run(&me, &req).unwrap();
    assert!(
        matches!(&outcome, crate::api::validation::RunOutcome::Queued(q) if q.job.starts_with("job-")),
        "{outcome:?}"
    );
    let waited = platform.validation().run_and_wait(&me, &req).unwrap();
    assert_eq!((waited.points, waited.records), (5000, 5000));
    assert_eq!((waited.counts.valid, waited.counts.failed), (4999, 1));
    assert!(!waited.passed());
}

/// In a batch, an item past its `maxPoints` goes to a job of its own and says which (its status
/// `skipped` is not a pass); a batch that waits checks it now.
#[test]
fn a_batch_item_past_its_max_points_names_its_job_and_a_batch_that_waits_checks_it() {
    let (platform, me) = setup();
    for (id, max) in [("A:S", 2), ("B:S", 1000)] {
        let points: Vec<Point> = (0..5)
            .map(|h| Point::new(hour(h), if h == 3 { -1.0 } else { 1.0 }))
            .collect();
        platform
            .data()
            .write_series(&me, id, &points, &Default::default())
            .unwrap();
        platform
            .objects()
            .save(
                &me,
                Collection::ValidationConfig,
                json!({"_id": id, "kind": "timeseries", "options": {"maxPoints": max},
                       "checks": [{"name": "pos", "expression": "value > 0"}]}),
                &Default::default(),
            )
            .unwrap();
    }
    let at: Vec<_> = (0..5).map(hour).collect();
    let batch = crate::api::validation::ValidationBatch::new(["A:S", "B:S"]).at(at);
    let run = platform.validation().run_batch(&me, &batch).unwrap();
    let (queued, checked) = (&run.results[0], &run.results[1]);
    let job = queued.job.as_deref().expect("the item's job");
    assert!(job.starts_with("job-") && queued.points == 0, "{queued:?}");
    assert_eq!(checked.job, None);
    assert_eq!(checked.status, ValidationStatus::Failed);
    let waited = platform
        .validation()
        .run_batch_and_wait(&me, &batch)
        .unwrap();
    assert!(!waited.background && waited.job.is_none());
    for item in &waited.results {
        assert_eq!(
            (item.job.as_deref(), item.points, item.status),
            (None, 5, ValidationStatus::Failed),
            "{item:?}"
        );
    }
    let mut later = batch.clone();
    later.background = true;
    let e = platform
        .validation()
        .run_batch_and_wait(&me, &later)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidParameter, "{e}");
}

#[test]
fn the_json_bytes_of_a_data_read_are_the_json_read() {
    let (platform, me) = setup();
    platform
        .objects()
        .save(
            &me,
            Collection::Object,
            json!({"_id": "DE", "units": "x", "POWER": {
                "_type": "VarTimeSeries", "timezone": "Europe/Berlin", "calendar": "HOURLY",
                "units": "MWh", "currency": "EUR", "note": "quote \" and \\ and é",
                "dataType": "string",
                "data": [
                    {"time": "2024-10-27T01:00", "value": 61.25},
                    {"time": "2024-10-27T02:00", "value": 3},
                    {"time": "2024-10-27T02:00", "value": "n/a \"quoted\"",
                     "status": {"quality": "FAILED", "reliability": "QUOTED:feed \"x\""}},
                    {"time": "2024-10-27T03:00", "value": null, "status": {"quality": "VALID"}},
                    {"time": "2024-10-27T04:00", "value": -1.0e-7},
                    {"time": "2024-10-27T05:00", "value": 12345678901234.5}
                ]},
                "DAY": {"_type": "VarTimeSeries", "calendar": "DAILY", "timezone": "Europe/Berlin",
                    "data": [{"time": "2024-10-27", "value": 1}, {"time": "2024-10-28", "value": 2}]},
                "EMPTY": {"_type": "VarTimeSeries", "data": []}
            }),
            &Default::default(),
        )
        .unwrap();
    for (id, params) in [
        ("DE:POWER", vec![]),
        ("DE:POWER", vec![("_range", "last(2)")]),
        ("DE:POWER", vec![("_version", "1")]),
        ("DE:DAY", vec![]),
        ("DE:EMPTY", vec![]),
    ] {
        let params = crate::query::Params::new(
            params
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        let q = DataQuery::from_params(&params).unwrap();
        let tree = platform.data().read(&me, Source::Private, id, &q).unwrap();
        let answer = platform
            .data()
            .read_json_bytes(&me, Source::Private, id, &q)
            .unwrap();
        let text = String::from_utf8(answer.bytes).unwrap();
        // The same text, not only the same value: field order and number forms included.
        assert_eq!(text, tree.to_string(), "{id}");
        // The timestamp told beside it is the answer's own.
        assert_eq!(
            answer.timestamp.as_deref(),
            Some(tree["_timestamp"].as_str().unwrap()),
            "{id}"
        );
        // Arrow from the points: the schema (metadata included) and columns the JSON tree
        // gives.
        let arrow = platform
            .data()
            .read_arrow_bytes(&me, Source::Private, id, &q)
            .unwrap();
        let batch = |bytes: &[u8]| {
            let mut reader = arrow_ipc::reader::StreamReader::try_new(bytes, None).unwrap();
            reader.next().unwrap().unwrap()
        };
        let (direct, from_tree) = (
            batch(&arrow),
            batch(&crate::format::arrow::to_arrow(&tree).unwrap()),
        );
        assert_eq!(direct, from_tree, "{id} as Arrow");
        assert_eq!(direct.schema(), from_tree.schema(), "{id}: the schema");
    }
    // Errors are the same too.
    let q = DataQuery::from_params(&crate::query::Params::new(vec![])).unwrap();
    let missing = platform
        .data()
        .read_json_bytes(&me, Source::Private, "DE:NOPE", &q)
        .unwrap_err();
    assert_eq!(missing.code(), ErrorCode::NotFound);
}

/// A current document printed from its body as stored is, byte for byte, the JSON of its
/// read (with a reason and tags, data properties, and for a caller without the role of one of
/// them, without it); a missing document is the read's not-found.
#[test]
fn the_printed_json_of_a_document_is_its_json_read() {
    let (platform, me) = setup();
    let objects = platform.objects();
    let options = crate::documents::SaveOptions {
        reason: Some("checked \"twice\"".into()),
        ..Default::default()
    };
    objects
        .save(
            &me,
            Collection::Object,
            json!({"_id": "P1", "name": "Plant é \"1\"", "n": [1.5, -0.0, 12345678901234567890u64, 2.5e30],
                "meta": {"tier": 3, "tags": ["a", "b"]}, "e": {}, "nil": null,
                "PRICE": {"_type": "VarTimeSeries", "_access": "secret", "units": "EUR",
                    "data": [{"time": "2024-10-27T01:00", "value": 1}]},
                "LOAD": {"_type": "VarTimeSeries", "units": "MW",
                    "data": [{"time": "2024-10-27T01:00", "value": 2}]}}),
            &options,
        )
        .unwrap();
    objects
        .tag(
            &me,
            Collection::Object,
            Source::Private,
            "P1",
            &VersionRef::Number(1),
            "live",
        )
        .unwrap();
    objects
        .save(
            &me,
            Collection::Type,
            json!({"_id": "Plant", "description": "a plant"}),
            &Default::default(),
        )
        .unwrap();
    let mut outsider = me.clone();
    outsider.grants = crate::auth::Grants::default();
    for (who, coll, id) in [
        (&me, Collection::Object, "P1"),
        (&outsider, Collection::Object, "P1"),
        (&me, Collection::Type, "Plant"),
    ] {
        let read = objects
            .get(who, coll, Source::Private, id, None, None)
            .unwrap();
        // Printed in a snapshot of its own, and in the one its handle is of: the same bytes.
        let own = objects
            .get_printed(who, coll, Source::Private, id)
            .unwrap()
            .expect("printed");
        let snapshot = platform.snapshot().unwrap();
        let (bytes, timestamp) = snapshot
            .objects()
            .get_printed(who, coll, Source::Private, id)
            .unwrap()
            .expect("printed");
        assert_eq!(own, (bytes.clone(), timestamp.clone()));
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            serde_json::to_string(&read).unwrap()
        );
        assert_eq!(read["_timestamp"], timestamp);
        if coll == Collection::Object {
            assert_eq!(read.get("PRICE").is_some(), who.grants.everything, "{read}");
            assert!(read.get("LOAD").is_some() && read["_reason"] == "checked \"twice\"");
            assert_eq!(read["_tag"], json!(["live"]));
        }
    }
    // (An in-memory platform has one connection: a snapshot holds it until dropped.)
    let read = objects
        .get(&me, Collection::Object, Source::Private, "NONE", None, None)
        .unwrap_err();
    let snapshot = platform.snapshot().unwrap();
    let missing = snapshot
        .objects()
        .get_printed(&me, Collection::Object, Source::Private, "NONE")
        .unwrap_err();
    assert_eq!(missing.to_string(), read.to_string());
}

#[test]
fn columns_written_read_back_as_sent_and_bad_columns_change_nothing() {
    use crate::data::series::{Window, CHUNK_POINTS};
    use crate::documents::SaveOptions;
    use crate::observations::columns::{Columns, Extra};
    use crate::observations::model::{Point as Obs, PointValue, Status};
    let (platform, me) = setup();
    let data = platform.data();
    let minute = 60_000;
    let t0 = hour(0).timestamp_millis();
    let header = || {
        let mut h = serde_json::Map::new();
        h.insert("calendar".into(), json!("#PT1M"));
        // Numbers with a text value among them: a series declared to hold text.
        h.insert("dataType".into(), json!("string"));
        h
    };
    // Three chunks, with extras on both sides of the first chunk boundary and a number that is
    // no short decimal.
    let n = CHUNK_POINTS * 2 + 100;
    let mut sent = Columns::with_capacity(n);
    sent.times.extend((0..n as i64).map(|i| t0 + i * minute));
    sent.values
        .extend((0..n).map(|i| 40.0 + (i % 97) as f64 / 100.0));
    sent.values[100] = 1.0 / 3.0;
    let status = Some(Box::new(Status {
        quality: Some("FAILED:spike".into()),
        ..Status::default()
    }));
    for (index, value) in [
        (5, PointValue::Null),
        (
            CHUNK_POINTS - 1,
            PointValue::Num(sent.values[CHUNK_POINTS - 1]),
        ),
        (CHUNK_POINTS, PointValue::Text("n/a".into())),
        (n - 1, PointValue::Null),
    ] {
        if !matches!(value, PointValue::Num(_)) {
            sent.values[index] = f64::NAN;
        }
        let status = (index == CHUNK_POINTS - 1)
            .then(|| status.clone())
            .flatten();
        sent.extras.push(Extra {
            index,
            value,
            status,
        });
    }
    let opts = SaveOptions::default();
    data.save_columns(&me, "X", "p", header(), sent.clone(), &opts)
        .unwrap();
    let back = data
        .read_columns(&me, Source::Private, "X:p", Window::All, None)
        .unwrap();
    let points = sent.clone().into_points();
    assert_eq!(back.clone().into_points().len(), n);
    // Bit for bit (NaN where there is no number).
    let bits = |c: &Columns| c.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        (&back.times, bits(&back), &back.extras),
        (&sent.times, bits(&sent), &sent.extras)
    );
    // The same observations as points are stored the same.
    data.save_series(&me, "Y", "p", header(), points.clone(), &opts)
        .unwrap();
    let as_points = data
        .read_columns(&me, Source::Private, "Y:p", Window::All, None)
        .unwrap();
    assert_eq!(
        (bits(&as_points), &as_points.extras),
        (bits(&back), &back.extras)
    );
    assert_eq!(
        data.read_points(&me, Source::Private, "X:p", Window::Last(3), None)
            .unwrap(),
        points[n - 3..].to_vec()
    );

    // Columns out of time order are stored in order, their extras with them.
    let mut reversed = Columns::default();
    for p in points[..10].iter().rev() {
        reversed.push(p);
    }
    data.save_columns(&me, "R", "p", header(), reversed, &opts)
        .unwrap();
    assert_eq!(
        data.read_points(&me, Source::Private, "R:p", Window::All, None)
            .unwrap(),
        points[..10].to_vec()
    );

    // Columns over stored observations merge with them: a changed value is marked CHANGED.
    let mut update = Columns::default();
    update.push(&Obs::num(t0 + 6 * minute, 99.0));
    update.push(&Obs::num(t0 + n as i64 * minute, 1.5));
    data.save_columns(&me, "X", "p", header(), update, &opts)
        .unwrap();
    let merged = data
        .read_points(&me, Source::Private, "X:p", Window::All, None)
        .unwrap();
    assert_eq!(merged.len(), n + 1);
    assert_eq!(merged[6].v, PointValue::Num(99.0));
    assert_eq!(
        merged[6].status.as_ref().and_then(|s| s.source.as_deref()),
        Some("CHANGED")
    );
    assert_eq!(merged[..6], points[..6]);
    assert_eq!(merged[7..n], points[7..]);

    // Bad columns: a clear error, and nothing stored.
    let bad = |c: Columns, expect: &str| {
        let err = data
            .save_columns(&me, "Z", "p", header(), c, &opts)
            .unwrap_err();
        assert!(err.to_string().contains(expect), "{err}");
        assert!(data
            .read_columns(&me, Source::Private, "Z:p", Window::All, None)
            .is_err());
    };
    let mut short = sent.clone();
    short.values.pop();
    bad(short, &format!("p.data: {n} times and {} values", n - 1));
    let mut swapped = sent.clone();
    swapped.extras.swap(0, 1);
    bad(swapped, "the extra at position 5 is out of place");
    let mut beyond = sent.clone();
    beyond.extras.last_mut().unwrap().index = n;
    bad(
        beyond,
        &format!("the extra at position {n} is out of place"),
    );
    let mut differ = sent.clone();
    differ.values[CHUNK_POINTS - 1] += 1.0;
    bad(differ, "send the same number in both");
    let mut off = sent.clone();
    off.times[7] += 30_000;
    let err = data
        .save_columns(&me, "Z", "p", header(), off, &opts)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::IndexAlign);
    assert!(err.to_string().starts_with("p.data[7]: time "), "{err}");
    let mut twice = sent.clone();
    twice.times[8] = twice.times[2];
    bad(
        twice,
        "p observation 3 and p observation 9 are the same time",
    );
}

#[test]
fn a_token_for_another_role_changes_the_user_only_when_asked() {
    use crate::auth::{Credentials, Role};
    let platform = Platform::in_memory().unwrap();
    let tenancy = platform.tenancy();
    let role_of = |token: &str| {
        tenancy
            .authenticate(Some(&Credentials::Bearer(token.to_string())), None)
            .unwrap()
            .role
    };
    let first = tenancy.create_token("acme", "ann", Role::Admin).unwrap();
    let listed = tenancy.tokens(Some("acme")).unwrap();
    // Another role: refused, naming the token that would change, and nothing is stored.
    let e = tenancy
        .create_token("acme", "ann", Role::Writer)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conflict);
    assert!(
        e.to_string().contains(&listed[0].id) && e.to_string().contains("--set-role"),
        "{e}"
    );
    assert_eq!(tenancy.tokens(Some("acme")).unwrap(), listed);
    assert_eq!(role_of(&first), Role::Admin);
    // The same role: a second token, nothing changes.
    let second = tenancy.create_token("acme", "ann", Role::Admin).unwrap();
    assert_eq!(role_of(&second), Role::Admin);
    // Asked for: the role changes, and the change names both earlier tokens.
    let (third, change) = tenancy
        .create_token_setting_role("acme", "ann", Role::Writer)
        .unwrap();
    let change = change.unwrap();
    assert_eq!((change.from, change.to), (Role::Admin, Role::Writer));
    assert_eq!(change.tokens.len(), 2);
    for t in [&first, &second, &third] {
        assert_eq!(role_of(t), Role::Writer);
    }
    // A user whose tokens are all revoked takes a new role without being asked.
    tenancy.revoke_user_tokens("acme", "ann").unwrap();
    let fourth = tenancy.create_token("acme", "ann", Role::Reader).unwrap();
    assert_eq!(role_of(&fourth), Role::Reader);
}

#[test]
fn text_in_numeric_columns_is_refused_through_the_rust_api() {
    use crate::data::series::Window;
    use crate::observations::columns::{Columns, Extra};
    use crate::observations::model::{Point as Obs, PointValue};
    let (platform, me) = setup();
    let data = platform.data();
    let mut header = serde_json::Map::new();
    header.insert("units".into(), json!("EUR/MWh"));
    let t0 = hour(0).timestamp_millis();
    let mut sent = Columns::with_capacity(3);
    for i in 0..3 {
        sent.push(&Obs::num(t0 + i * 3_600_000, 10.0 + i as f64));
    }
    sent.values[1] = f64::NAN;
    sent.extras.push(Extra {
        index: 1,
        value: PointValue::Text("1.234,5".into()),
        status: None,
    });
    let e = data
        .save_columns(&me, "X", "p", header.clone(), sent, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("p observation 2: the value \"1.234,5\" is not a number (a thousands separator and a decimal comma? write 1234.5)")
            && e.contains("(it has units EUR/MWh)"),
        "{e}"
    );
    assert!(data
        .read_columns(&me, Source::Private, "X:p", Window::All, None)
        .is_err());
    // Points take the same path.
    let points = vec![
        Obs::num(t0, 1.0),
        Obs {
            t: t0 + 3_600_000,
            v: PointValue::Text("abc".into()),
            status: None,
        },
    ];
    let e = data
        .save_series(&me, "X", "p", header, points, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("p observation 2: the value \"abc\""), "{e}");
}

#[test]
fn a_daily_average_over_the_autumn_change_is_asked_in_types() {
    let (platform, me) = setup();
    // Hourly in Berlin from 2024-10-26 00:00 local (22:00 UTC the day before): 24 hours,
    // then the 25 of the autumn change, the value the hour's number.
    let start = Utc.with_ymd_and_hms(2024, 10, 25, 22, 0, 0).unwrap();
    let points: Vec<Point> = (0..49)
        .map(|h| Point::new(start + Duration::hours(h), h as f64))
        .collect();
    let opts = WriteOptions {
        calendar: Some("HOURLY".into()),
        timezone: Some("Europe/Berlin".into()),
        ..Default::default()
    };
    platform
        .data()
        .write_series(&me, "DE:DA", &points, &opts)
        .unwrap();
    let daily = SeriesQuery {
        scaling: Some(Scaling::aggregate(
            ScaleTarget::Calendar(Calendar::Daily),
            Observed::Averaged,
        )),
        ..Default::default()
    };
    let read = platform.data().series(&me, "DE:DA", &daily).unwrap();
    let days: Vec<(chrono::DateTime<Utc>, f64)> =
        read.points.iter().map(|p| (p.at, p.value)).collect();
    assert_eq!(
        days,
        [
            (start, 11.5),
            // The mean of hours 24..=48: 25 of them.
            (start + Duration::hours(24), 36.0),
        ]
    );
    assert_eq!(read.header["calendar"], "DAILY");
    assert_eq!(read.header["observed"], "averaged");
    assert!(read.partial.is_empty(), "{:?}", read.partial);

    // In London's days instead, and peak hours only: other periods, said in the header.
    let london = SeriesQuery {
        timezone: Some(ReadZone::Named(chrono_tz::Europe::London)),
        ..daily.clone()
    };
    let read = platform.data().series(&me, "DE:DA", &london).unwrap();
    assert_eq!(read.header["timezone"], "Europe/London");
    // The first hour (23:00 in London) falls on London's 25 October.
    let londons: Vec<_> = read.points.iter().map(|p| p.at).collect();
    assert_eq!(
        londons[..2],
        [start - Duration::hours(23), start + Duration::hours(1)],
        "London's midnights"
    );
    let peak = SeriesQuery {
        scaling: daily.scaling.clone().map(|s| s.in_block(Block::Peak)),
        ..Default::default()
    };
    // 2024-10-26 is a Saturday and the 27th a Sunday: no peak hours at all.
    assert!(platform
        .data()
        .series(&me, "DE:DA", &peak)
        .unwrap()
        .points
        .is_empty());

    // A missing hour makes its day partial, and the answer says so.
    let mut gap = points.clone();
    gap.remove(30);
    platform
        .data()
        .write_series(
            &me,
            "DE:DA",
            &gap,
            &WriteOptions {
                replace: true,
                ..opts.clone()
            },
        )
        .unwrap();
    let read = platform.data().series(&me, "DE:DA", &daily).unwrap();
    let partial: Vec<(usize, usize)> = read
        .partial
        .iter()
        .map(|p| (p.observations, p.expected))
        .collect();
    assert_eq!(partial, [(24, 25)]);
    assert_eq!(read.partial[0].at, start + Duration::hours(24));

    // Spreading with a block is refused, naming the Rust call.
    let refused = SeriesQuery {
        scaling: Some(
            Scaling::distribute(ScaleTarget::Calendar(Calendar::Intraday(900)))
                .in_block(Block::Peak),
        ),
        ..Default::default()
    };
    let e = platform.data().series(&me, "DE:DA", &refused).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidParameter);
    assert!(e.to_string().contains("Scaling::distribute"), "{e}");

    // The engine's refusals name what the Rust call was given, not HTTP parameters.
    let finer = SeriesQuery {
        scaling: Some(Scaling::aggregate(
            ScaleTarget::Calendar(Calendar::Intraday(900)),
            Observed::Averaged,
        )),
        ..Default::default()
    };
    let e = platform.data().series(&me, "DE:DA", &finer).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Scaling::aggregate needs a target calendar coarser than the series' calendar"
    );
    let bad_range = SeriesQuery {
        range: ReadRange::Expr("last(x)".into()),
        ..Default::default()
    };
    let e = platform
        .data()
        .series(&me, "DE:DA", &bad_range)
        .unwrap_err();
    assert!(e.to_string().starts_with("SeriesQuery.range: "), "{e}");
    assert!(!e.to_string().contains("_range"), "{e}");
}

#[test]
fn a_record_batch_is_the_arrow_stream_s_batch() {
    let (platform, me) = setup();
    let points: Vec<Point> = (0..48)
        .map(|h| Point::new(hour(h), h as f64 / 2.0))
        .collect();
    let opts = WriteOptions {
        timezone: Some("Europe/Berlin".into()),
        ..Default::default()
    };
    platform
        .data()
        .write_series(&me, "DE:RB", &points, &opts)
        .unwrap();
    let ondate = NaiveDate::from_ymd_opt(2024, 5, 14).unwrap();
    let contracts = [Contract::new("M01", 31.2), Contract::new("Q01", 33.0)];
    platform
        .data()
        .write_curve(&me, "TTF:RB", ondate, &contracts, &Default::default())
        .unwrap();
    let q = DataQuery {
        range: Some("last(5)".parse::<RangeExpr>().unwrap()),
        timezone: Some(ReadZone::Series),
        ..Default::default()
    };
    for (id, q, rows) in [
        ("DE:RB", q, 5),
        ("TTF:RB", DataQuery::default(), contracts.len()),
    ] {
        let batch = platform
            .data()
            .read_record_batch(&me, Source::All, id, &q)
            .unwrap();
        let bytes = platform
            .data()
            .read_arrow_bytes(&me, Source::All, id, &q)
            .unwrap();
        let decoded = crate::format::arrow::ArrowStream::from(bytes)
            .record_batch()
            .unwrap();
        assert_eq!(batch, decoded, "{id}");
        assert_eq!(batch.num_rows(), rows, "{id}");
        assert_eq!(
            batch.schema().metadata()["_id"],
            id,
            "{id}: {:?}",
            batch.schema()
        );
    }
}

#[test]
fn a_missing_ondate_names_the_rust_field_that_reads_the_nearest() {
    let (platform, me) = setup();
    let d = |day| NaiveDate::from_ymd_opt(2024, 5, day).unwrap();
    platform
        .data()
        .write_curve(
            &me,
            "NBP:FWD",
            d(13),
            &[Contract::new("M01", 70.0)],
            &Default::default(),
        )
        .unwrap();
    let q = CurveQuery {
        ondate: Some(d(14)),
        ..Default::default()
    };
    let e = platform.data().curve(&me, "NBP:FWD", &q).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    let text = e.to_string();
    assert!(
        text.ends_with("ask for it with CurveQuery.nearest (Nearest::Before or Nearest::After)"),
        "{text}"
    );
    // Over HTTP the same refusal names the parameter.
    let wire = platform
        .data()
        .read(
            &me,
            Source::All,
            "NBP:FWD:2024-05-14",
            &DataQuery::default(),
        )
        .unwrap_err();
    assert!(
        wire.to_string()
            .ends_with("_nearest=before or _nearest=after"),
        "{wire}"
    );
}
