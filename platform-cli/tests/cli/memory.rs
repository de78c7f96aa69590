//! Memory after hostile input: eight clients at once send bodies carrying strings of 8 MiB
//! where ids, types, targets, times and values go (each refused); the server's resident memory
//! must come back within twice its level before, while it idles (the allocator's housekeeping,
//! platform-cli/src/allocator.rs).

use crate::Server;
use std::time::{Duration, Instant};

/// Resident and peak resident memory of a process, in KiB (`/proc/PID/status`).
fn memory_of(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (kib("VmRSS:"), kib("VmHWM:"))
}

/// The hostile bodies: 8 MiB strings where ids, targets, values and names go.
fn hostile(big: &str) -> Vec<(&'static str, String, String)> {
    vec![
        (
            "POST",
            "/object/v1".into(),
            format!(r#"{{"_id": "{big}"}}"#),
        ),
        (
            "POST",
            "/object/v1".into(),
            format!(r#"[{{"_id": "A", "_type": "{big}"}}]"#),
        ),
        (
            "POST",
            "/validation/v1?_function=run".into(),
            format!(r#"{{"target": "{big}"}}"#),
        ),
        (
            "POST",
            "/validationconfig/v1".into(),
            format!(r#"{{"_id": "C", "checks": "{big}"}}"#),
        ),
        (
            "POST",
            "/object/v1".into(),
            format!(
                r#"{{"_id": "A", "S": {{"_type": "VarTimeSeries", "data": [{{"time": "{big}", "value": 1}}]}}}}"#
            ),
        ),
        (
            "POST",
            "/automation/v1".into(),
            format!(r#"{{"target": "{big}"}}"#),
        ),
        (
            "POST",
            "/object/v1".into(),
            format!(r#"{{"_id": "B", "s": "{big}"#),
        ),
        (
            "POST",
            "/secret/v1".into(),
            format!(r#"{{"_id": "{big}", "value": "x"}}"#),
        ),
    ]
}

#[test]
fn memory_after_hostile_input_comes_back_near_its_level_before() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("memory.db"));
    let pid = server.child.id();
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(60))
        .build();
    let call = |method: &str, path: &str, body: &str| {
        let r = agent
            .request(method, &format!("{}{path}", server.url))
            .set("Authorization", &format!("Bearer {}", server.admin_token))
            .set("content-type", "application/json")
            .send_string(body);
        match r {
            Ok(r) => r.status(),
            Err(ureq::Error::Status(code, _)) => code,
            Err(e) => panic!("{method} {path}: {e}"),
        }
    };
    assert_eq!(call("POST", "/object/v1", r#"{"_id": "A"}"#), 200);
    // The same requests with small strings first: the code they run is paged in and the
    // threads they use are started before the level is taken.
    let small = "x".repeat(1000);
    for (method, path, body) in hostile(&small) {
        call(method, &path, &body);
    }
    std::thread::sleep(Duration::from_secs(2));
    let (before, _) = memory_of(pid);

    let big = "x".repeat(8 << 20);
    let cases = hostile(&big);
    let started = Instant::now();
    std::thread::scope(|s| {
        for client in 0..8 {
            let (cases, call) = (&cases, &call);
            s.spawn(move || {
                for round in 0..3 {
                    let (method, path, body) = &cases[(client + round) % cases.len()];
                    let status = call(method, path, body);
                    assert!((400..500).contains(&status), "{method} {path}: {status}");
                }
            });
        }
    });
    let hostile_for = started.elapsed();
    let (during, peak) = memory_of(pid);
    // Freed memory goes back to the system within seconds of the last request.
    let idle = Instant::now();
    let mut after = during;
    while after > 2 * before && idle.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(500));
        after = memory_of(pid).0;
    }
    eprintln!(
        "memory: {before} KiB before, peak {peak} KiB, {during} KiB at the end of {:?} of \
         hostile requests, {after} KiB {:?} later",
        hostile_for,
        idle.elapsed()
    );
    assert!(
        after <= 2 * before,
        "{after} KiB 30 s after the hostile requests, {before} KiB before"
    );
}
