//! Every metric the platform records (here and in [`platform_core`]): its name, kind and the
//! description `/metrics` prints as its `# HELP` line. Names follow Prometheus' conventions, so
//! `promtool check metrics` finds nothing to say of them: counters end in `_total`, durations
//! are in seconds (`_seconds`), and no family's name is another's with a suffix the format
//! reserves (`_total`, `_count`, `_sum`, `_bucket`).

/// What kind of family a metric is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

impl Kind {
    /// The kind as the `metrics` macros and the `# TYPE` line name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// The platform's metrics: name, kind, description.
pub const METRICS: &[(&str, Kind, &str)] = &[
    (
        "platform_http_requests_total",
        Kind::Counter,
        "HTTP requests answered, by method, route template and status code.",
    ),
    (
        "platform_http_request_duration_seconds",
        Kind::Histogram,
        "Time from a request's arrival until its answer starts, by method and route template.",
    ),
    (
        "platform_backlog_jobs",
        Kind::Gauge,
        "Background jobs in the database by state (queued, running), read at each scrape.",
    ),
    (
        "platform_backlog_deliveries",
        Kind::Gauge,
        "Automation deliveries in the database by state (pending, running), read at each scrape.",
    ),
    (
        "platform_jobs_total",
        Kind::Counter,
        "Background jobs finished by this process, by outcome (done, failed).",
    ),
    (
        "platform_deliveries_total",
        Kind::Counter,
        "Automation delivery attempts ended, by outcome (delivered, retrying, failed, skipped).",
    ),
    (
        "platform_validation_runs_total",
        Kind::Counter,
        "Validation calls finished, by kind (run, test, runMany).",
    ),
    (
        "platform_validation_run_seconds",
        Kind::Histogram,
        "Duration of validation calls, by kind (run, test, runMany).",
    ),
    (
        "platform_db_wait_seconds",
        Kind::Histogram,
        "Time waited for a SQLite connection, by transaction (read, write).",
    ),
    (
        "platform_write_conflicts_total",
        Kind::Counter,
        "Write transactions run again after meeting a concurrent write.",
    ),
    (
        "platform_db_round_trips_total",
        Kind::Counter,
        "Round trips to PostgreSQL: statements sent together and their answers awaited.",
    ),
    (
        "platform_db_reads_total",
        Kind::Counter,
        "Reads a read replica may serve, by the server that served them (primary, replica).",
    ),
    (
        "platform_db_replica_fallbacks_total",
        Kind::Counter,
        "Reads sent to the primary after a read replica failed their first round trip.",
    ),
    (
        "platform_build_info",
        Kind::Gauge,
        "The build this process runs, by version and commit: always 1.",
    ),
    (
        "platform_db_up",
        Kind::Gauge,
        "1 when the database answered at the last check (a statement or connection), else 0.",
    ),
    (
        "platform_db_pool_max",
        Kind::Gauge,
        "Most connections the pool of connections to the PostgreSQL primary opens.",
    ),
    (
        "platform_db_pool_open",
        Kind::Gauge,
        "Connections to the PostgreSQL primary open now, idle or in use.",
    ),
    (
        "platform_db_pool_in_use",
        Kind::Gauge,
        "Connections to the PostgreSQL primary in use by a transaction now.",
    ),
    (
        "platform_db_pool_waiting",
        Kind::Gauge,
        "Callers waiting for a connection to the PostgreSQL primary now.",
    ),
    (
        "platform_db_replica_lag_seconds",
        Kind::Gauge,
        "How far each read replica is behind the primary, in seconds (NaN while it does not answer).",
    ),
    (
        "platform_db_replica_serving",
        Kind::Gauge,
        "1 when the read replica serves reads now, 0 when it is skipped.",
    ),
];

/// The counters listed from the start at zero, with the values each one's label takes (a
/// counter without labels has one series): `/metrics` shows them before their first event,
/// so a rate or an alert on them has a series to work on. The one counter left out is
/// `platform_http_requests_total`, whose labels (route template, status) are not known before
/// a request comes.
pub const ZERO_AT_START: &[(&str, &str, &[&str])] = &[
    ("platform_jobs_total", "outcome", &["done", "failed"]),
    (
        "platform_deliveries_total",
        "outcome",
        &["delivered", "retrying", "failed", "skipped"],
    ),
    (
        "platform_validation_runs_total",
        "kind",
        &["run", "test", "runMany"],
    ),
    ("platform_write_conflicts_total", "", &[]),
    ("platform_db_round_trips_total", "", &[]),
    ("platform_db_reads_total", "server", &["primary", "replica"]),
    ("platform_db_replica_fallbacks_total", "", &[]),
];

/// Records every counter of [`ZERO_AT_START`] at zero (each label value's series).
pub fn zero_counters() {
    for &(name, label, values) in ZERO_AT_START {
        if values.is_empty() {
            metrics::counter!(name).increment(0);
        }
        for &value in values {
            metrics::counter!(name, label => value).increment(0);
        }
    }
}

/// Describes every metric of [`METRICS`] to the installed recorder (which prints the
/// descriptions as `# HELP` lines).
pub fn describe() {
    for &(name, kind, help) in METRICS {
        match kind {
            Kind::Counter => metrics::describe_counter!(name, help),
            Kind::Gauge => metrics::describe_gauge!(name, help),
            Kind::Histogram => metrics::describe_histogram!(name, help),
        }
    }
}

/// `promtool check metrics` over `text`, or `None` when `promtool` is not on the `PATH`
/// (saying so on the process's standard error, which the harness does not capture). With
/// `PLATFORM_PROMTOOL=1` (as CI sets it) a missing `promtool` fails the test instead. For the
/// tests of `/metrics`, here and in the command line's.
#[doc(hidden)]
pub fn promtool_check(text: &str) -> Option<std::process::Output> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert_ne!(
                std::env::var("PLATFORM_PROMTOOL").as_deref(),
                Ok("1"),
                "PLATFORM_PROMTOOL=1 but no promtool on the PATH (Debian's package prometheus has it)"
            );
            let _ = writeln!(
                std::io::stderr(),
                "skipped: the lint of /metrics needs promtool on the PATH (CI installs it)"
            );
            return None;
        }
        Err(e) => panic!("promtool: {e}"),
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    Some(child.wait_with_output().unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prometheus::Prometheus;
    use std::path::{Path, PathBuf};

    /// The `.rs` files under `dir`, recursively.
    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// Every metric the crates' sources record (`counter!("name"`...) is in [`METRICS`] with
    /// that kind, and every one of [`METRICS`] is recorded somewhere: a new metric cannot go
    /// to `/metrics` without its description. The recorder's own module is left out: its tests
    /// record made-up names.
    #[test]
    fn every_metric_recorded_is_described_with_its_kind_and_every_one_described_is_recorded() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for krate in ["platform-core", "platform-server", "platform-cli"] {
            sources(&root.join(krate).join("src"), &mut files);
        }
        let skipped = ["prometheus.rs", "metric_names.rs"];
        let mut recorded = Vec::new();
        for file in files {
            if skipped.iter().any(|s| file.ends_with(s)) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for kind in [Kind::Counter, Kind::Gauge, Kind::Histogram] {
                let call = format!("{}!(", kind.as_str());
                for (at, _) in text.match_indices(&call) {
                    let after = text[at + call.len()..].trim_start();
                    let name = after
                        .strip_prefix('"')
                        .and_then(|rest| rest.split('"').next())
                        .unwrap_or_else(|| {
                            panic!(
                                "{}: a metric named by a literal, so that it can be checked here",
                                file.display()
                            )
                        });
                    recorded.push((name.to_string(), kind, file.display().to_string()));
                }
            }
        }
        for (name, kind, file) in &recorded {
            assert!(
                METRICS.iter().any(|(n, k, _)| n == name && k == kind),
                "{file} records the {} {name}, which METRICS does not describe as one",
                kind.as_str()
            );
        }
        for (name, kind, _) in METRICS {
            assert!(
                recorded.iter().any(|(n, k, _)| n == name && k == kind),
                "{name} is described but no source records it as a {}",
                kind.as_str()
            );
        }
    }

    /// Every counter of [`METRICS`] but the HTTP requests' is listed at zero from the start.
    #[test]
    fn every_counter_but_the_requests_is_listed_at_zero_from_the_start() {
        let recorder = Prometheus::new(&[]);
        metrics::with_local_recorder(&recorder, || {
            describe();
            zero_counters();
        });
        let text = recorder.render();
        for &(name, kind, _) in METRICS {
            if kind == Kind::Counter && name != "platform_http_requests_total" {
                assert!(
                    text.contains(&format!("# TYPE {name} counter\n")),
                    "{name} in\n{text}"
                );
            }
        }
        assert!(
            text.contains("platform_deliveries_total{outcome=\"retrying\"} 0\n"),
            "{text}"
        );
        assert!(
            text.contains("platform_write_conflicts_total 0\n"),
            "{text}"
        );
    }

    /// Each metric, with one series, prints its description as a `# HELP` line before its
    /// `# TYPE` line; and `promtool check metrics` (when installed, or when `PLATFORM_PROMTOOL=1`
    /// requires it) finds nothing to say of the whole text. This covers the metrics recorded
    /// only over PostgreSQL, which the test of a served binary does not reach.
    #[test]
    fn every_metric_prints_its_help_and_the_lint_of_promtool_finds_nothing() {
        let recorder = Prometheus::new(&[0.1, 1.0]);
        metrics::with_local_recorder(&recorder, || {
            describe();
            for &(name, kind, _) in METRICS {
                match kind {
                    Kind::Counter => metrics::counter!(name).increment(1),
                    Kind::Gauge => metrics::gauge!(name).set(1.0),
                    Kind::Histogram => metrics::histogram!(name).record(0.5),
                }
            }
        });
        let text = recorder.render();
        for &(name, kind, help) in METRICS {
            let family = format!("# HELP {name} {help}\n# TYPE {name} {}\n", kind.as_str());
            assert!(text.contains(&family), "no {family:?} in\n{text}");
        }
        let Some(out) = promtool_check(&text) else {
            return;
        };
        assert!(
            out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
            "promtool check metrics: {}\n{}{}\nof\n{text}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
    }
}
