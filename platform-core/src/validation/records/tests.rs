use super::state::ms_of;
use super::*;
use crate::data::calendar::Calendar;
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

fn ctx(minute: u32) -> Context {
    Context {
        user: "u".into(),
        origin: "manual".into(),
        now: DateTime::parse_from_rfc3339(&format!("2024-07-01T10:{minute:02}:00Z"))
            .unwrap()
            .with_timezone(&Utc),
    }
}

fn result(status: u8, value: f64) -> PointResult {
    PointResult {
        key: 1_719_792_000_000,
        explicit: None,
        value: Some(CheckedValue::Num(value)),
        status,
        set: 0,
        checks: vec![CheckResult {
            status,
            message: if status == VALID {
                "".into()
            } else {
                "bad".into()
            },
            tenors_failed: None,
        }],
        message: Summary::of([("c", status)].into_iter()),
        hash: None,
        extra: None,
    }
}

/// A chunk holding `rec`, written and read back, then the record as JSON.
fn stored(rec: &Record, runs: Vec<RunInfo>) -> (Record, Map<String, Value>) {
    let mut chunk = Chunk::new("X:P", 0, "timeseries", None);
    chunk.runs = runs;
    chunk.sets = vec![vec![CheckMeta {
        id: "c".into(),
        name: "C".into(),
        scope: "point".into(),
        severity: "failed".into(),
    }]];
    chunk.records.push(rec.clone());
    let bytes = chunk.encode();
    let back = Chunk::decode("X:P", 0, &bytes).unwrap();
    assert_eq!(back.records.len(), 1);
    let json = back.materialize(&back.records[0]);
    (back.records[0].clone(), json)
}

fn runs(minutes: &[u32]) -> Vec<RunInfo> {
    minutes
        .iter()
        .map(|m| RunInfo {
            at: ms_of(ctx(*m).now),
            user: "u".into(),
            origin: "manual".into(),
            name: json!("N"),
            group: Value::Null,
            tags: json!([]),
            ms: vec![0.5],
        })
        .collect()
}

#[test]
fn worst_of() {
    assert_eq!(worst(["valid", "warning"]), "warning");
    assert_eq!(worst(["failed", "error", "warning"]), "error");
    assert_eq!(worst(["severe", "error"]), "severe");
    assert_eq!(worst(["skipped", "skipped"]), "skipped");
    assert_eq!(worst(Vec::<&str>::new()), "skipped");
    assert_eq!(worst(["skipped", "valid"]), "valid");
}

#[test]
fn open_and_resolve_by_rerun() {
    let (r, t) = apply_run(None, result(FAILED, 1.0), 0, &ctx(0));
    assert_eq!((t.previous, t.status.as_str()), (None, "failed"));
    let (r, j) = stored(&r, runs(&[0]));
    assert_eq!(j["openSince"], "2024-07-01T10:00:00.000Z");
    assert_eq!(j["runs"], 1);
    let (r, _) = apply_run(Some(r), result(FAILED, 1.0), 1, &ctx(5));
    let (r, j) = stored(&r, runs(&[0, 5]));
    assert_eq!(
        j["openSince"], "2024-07-01T10:00:00.000Z",
        "still the same open issue"
    );
    let (r, t) = apply_run(Some(r), result(VALID, 2.0), 2, &ctx(30));
    assert_eq!(t.previous.as_deref(), Some("failed"));
    let (_, j) = stored(&r, runs(&[0, 5, 30]));
    assert_eq!(
        (j["resolution"].clone(), j["resolveMinutes"].clone()),
        (json!("rerun"), json!(30))
    );
    assert!(j.get("openSince").is_none());
    assert_eq!(j["runs"], 3);
    assert_eq!(j["firstRun"], "2024-07-01T10:00:00.000Z");
    assert_eq!(j["lastRun"], "2024-07-01T10:30:00.000Z");
    let timeline = j["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), 3);
    assert_eq!(timeline[0]["previous"], Value::Null);
    assert_eq!(timeline[1]["timestamp"], "2024-07-01T10:05:00.000Z");
    assert_eq!(timeline[2]["message"], "all 1 checks passed");
    assert_eq!(j["checks"][0]["name"], "C");
    assert_eq!(j["checks"][0]["ms"], 0.5);
}

#[test]
fn overrides() {
    let (mut r, _) = apply_run(None, result(SEVERE, 1.0), 0, &ctx(0));
    apply_override(&mut r, "known outage", &ctx(10)).unwrap();
    let (mut r, j) = stored(&r, runs(&[0]));
    assert_eq!(j["status"], "overridden");
    assert_eq!(j["override"]["status"], "severe");
    assert_eq!(j["override"]["reason"], "known outage");
    assert_eq!(
        (j["resolution"].clone(), j["resolveMinutes"].clone()),
        (json!("override"), json!(10))
    );
    assert!(apply_override(&mut r, "again", &ctx(11)).is_err());
    // A re-run on the same failing data keeps the override.
    let (r, t) = apply_run(Some(r), result(SEVERE, 1.0), 1, &ctx(12));
    assert_eq!(t.status, "overridden");
    // Changed data that fails again clears it and opens a new issue.
    let (mut r, t) = apply_run(Some(r), result(FAILED, 2.0), 2, &ctx(20));
    assert_eq!(t.status, "failed");
    assert!(t.data_changed);
    let (_, j) = stored(&r, runs(&[0, 12, 20]));
    assert!(j.get("override").is_none());
    assert_eq!(j["openSince"], "2024-07-01T10:20:00.000Z");
    let actions: Vec<&str> = j["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        vec!["run", "override", "run", "override-cleared", "run"]
    );
    // removeOverride goes back to the checked status and reopens.
    apply_override(&mut r, "ok", &ctx(21)).unwrap();
    assert_eq!(remove_override(&mut r, &ctx(22)).unwrap(), "failed");
    assert_eq!(status_name(r.status), "failed");
    let (_, j) = stored(&r, runs(&[0, 12, 20]));
    assert_eq!(j["openSince"], "2024-07-01T10:22:00.000Z");
    assert!(remove_override(&mut r, &ctx(23)).is_err());
    let (mut valid, _) = apply_run(None, result(VALID, 1.0), 0, &ctx(0));
    assert!(apply_override(&mut valid, "x", &ctx(1))
        .unwrap_err()
        .contains("not failing"));
}

#[test]
fn the_timeline_keeps_the_last_hundred() {
    let (mut r, _) = apply_run(None, result(VALID, 1.0), 0, &ctx(0));
    for i in 0..150 {
        comment(&mut r, &format!("note {i}"), &ctx(1));
    }
    let (_, j) = stored(&r, runs(&[0]));
    let timeline = j["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), TIMELINE_MAX);
    assert_eq!(timeline[99]["message"], "note 149");
    assert_eq!(timeline[0]["message"], "note 50");
}

#[test]
fn chunks_keep_what_records_refer_to_and_drop_the_rest() {
    let mut chunk = Chunk::new("X:P", 0, "timeseries", None);
    chunk.set_index(&[]);
    let a = chunk.add_run(runs(&[0])[0].clone());
    let b = chunk.add_run(runs(&[5])[0].clone());
    let (r, _) = apply_run(None, result(VALID, 1.0), a, &ctx(0));
    chunk.records.push(r);
    // The only record moves on to run b: run a is referenced by its timeline still.
    let old = chunk.records.pop();
    let (r, _) = apply_run(old, result(VALID, 1.0), b, &ctx(5));
    chunk.records.push(r);
    chunk.runs.push(runs(&[9])[0].clone()); // unused
    let bytes = chunk.encode();
    let back = Chunk::decode("X:P", 0, &bytes).unwrap();
    assert_eq!(back.runs.len(), 2, "the unused run is dropped");
    assert_eq!(back.records, chunk.records);
    assert!(Chunk::decode("X:P", 0, &bytes[..bytes.len() - 1]).is_err());
}

#[test]
fn point_texts_are_derived_from_the_key_or_kept() {
    let fmt = PointFormat {
        calendar: Calendar::Intraday(60),
        tz: chrono_tz::Tz::UTC,
    };
    let mut chunk = Chunk::new(
        "X:P",
        bucket_of(1_719_792_060_000, Some(&fmt)),
        "timeseries",
        Some(fmt),
    );
    let mut res = result(VALID, 1.0);
    res.key = 1_719_792_060_000;
    assert_eq!(fmt.texts(res.key).0, "2024-07-01T00:01:00Z");
    let (r, _) = apply_run(None, res.clone(), 0, &ctx(0));
    chunk.records.push(r);
    assert_eq!(chunk.id_of(&chunk.records[0]), "X:P:2024-07-01T00:01:00Z");
    res.key += 60_000;
    res.explicit = Some(Box::new(("as written once".into(), "2024-07-01".into())));
    let (r, _) = apply_run(None, res, 0, &ctx(0));
    chunk.records.push(r);
    chunk.runs = runs(&[0]);
    let back = Chunk::decode("X:P", chunk.seq, &chunk.encode()).unwrap();
    assert_eq!(back.records, chunk.records);
    assert_eq!(back.id_of(&back.records[1]), "X:P:as written once");
    assert_eq!(chunk.seq, 1_719_792_000_000);
}

#[test]
fn a_summary_counts_the_checks_that_were_skipped() {
    let of = |statuses: &[(&'static str, u8)]| Summary::of(statuses.iter().copied()).text();
    assert_eq!(of(&[("a", VALID), ("b", VALID)]), "all 2 checks passed");
    assert_eq!(
        of(&[("a", VALID), ("b", SKIPPED), ("c", VALID)]),
        "2 checks passed, 1 skipped"
    );
    assert_eq!(
        of(&[("a", VALID), ("b", SKIPPED), ("c", SKIPPED)]),
        "1 check passed, 2 skipped"
    );
    assert_eq!(
        of(&[("a", FAILED), ("b", SKIPPED), ("c", VALID)]),
        "1 of 2 checks did not pass: a; 1 skipped"
    );
    assert_eq!(
        of(&[("a", SKIPPED), ("b", SKIPPED)]),
        "no check applied (2 skipped)"
    );
    assert_eq!(of(&[]), "no check applied");
    // Stored and read back, the summary keeps its counts.
    let mut res = result(VALID, 1.0);
    res.message = Summary::of([("a", VALID), ("b", SKIPPED)].into_iter());
    let (rec, _) = apply_run(None, res, 0, &ctx(0));
    let (back, json) = stored(&rec, runs(&[0]));
    assert_eq!(back.message, rec.message);
    assert_eq!(json["message"], "1 check passed, 1 skipped");
}
