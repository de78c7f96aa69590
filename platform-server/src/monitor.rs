//! What `/metrics` reads at each scrape besides what the platform records as it works: whether
//! the database answers, its pool of connections, each read replica's lag and state, the
//! process's own figures (`process_*`, read from `/proc`), and the build; what it holds from
//! the start (the build, every documented counter at zero); and the process-wide recorder that
//! `/metrics` renders.

use crate::prometheus::Prometheus;
use platform_core::Platform;
use std::sync::OnceLock;

/// Installs the recorder and records what `/metrics` lists from the start: the build
/// (`platform_build_info`, with the commit the binary was built from) and every documented
/// counter at zero.
pub fn start(build_commit: &str) {
    install_metrics();
    crate::metric_names::zero_counters();
    metrics::gauge!(
        "platform_build_info",
        "version" => env!("CARGO_PKG_VERSION"),
        "commit" => build_commit.to_string()
    )
    .set(1.0);
}

/// The process-wide Prometheus recorder (installed once; every app of the process shares it).
pub(crate) fn recorder() -> Option<&'static Prometheus> {
    static HANDLE: OnceLock<Option<&'static Prometheus>> = OnceLock::new();
    *HANDLE.get_or_init(|| {
        let seconds = [
            0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
            30.0,
        ];
        let recorder: &'static Prometheus = Box::leak(Box::new(Prometheus::new(&seconds)));
        match metrics::set_global_recorder(recorder) {
            Ok(()) => {
                crate::metric_names::describe();
                Some(recorder)
            }
            Err(e) => {
                tracing::warn!(error = %e, "metrics are off: another recorder is installed");
                None
            }
        }
    })
}

/// Installs the metrics recorder now, so counters recorded before the first scrape are kept.
pub fn install_metrics() {
    let _ = recorder();
}

/// Whether `e` is the failure of a database whose loss was logged already (its one line
/// stands for every call that fails for it until it is back): the caller then logs it at
/// debug level only.
pub(crate) fn loss_logged(e: &platform_core::Error) -> bool {
    e.code() == platform_core::ErrorCode::Unavailable
        && platform_core::api::interface::database_lost()
}

/// Logs a background worker's failure: an error (`serious`) or a warning, or at debug level
/// only when it is the loss of the database that was logged already ([`loss_logged`]).
pub(crate) fn worker_failed(e: &platform_core::Error, serious: bool, what: &str) {
    if loss_logged(e) {
        tracing::debug!(error = %e, "{what}");
    } else if serious {
        tracing::error!(error = %e, "{what}");
    } else {
        tracing::warn!(error = %e, "{what}");
    }
}

/// What a scrape reads of the database: the work waiting in it (`platform_backlog_*`, when
/// it answers) and its state ([`record_database`]). A database that does not answer is what
/// `platform_db_up` says, not a failed scrape.
pub fn record_at_scrape(platform: &Platform) {
    let backlog = platform.backlog();
    if let Ok(backlog) = &backlog {
        for (state, n) in [
            ("queued", backlog.jobs_queued),
            ("running", backlog.jobs_running),
        ] {
            metrics::gauge!("platform_backlog_jobs", "state" => state).set(n as f64);
        }
        for (state, n) in [
            ("pending", backlog.deliveries_pending),
            ("running", backlog.deliveries_running),
        ] {
            metrics::gauge!("platform_backlog_deliveries", "state" => state).set(n as f64);
        }
    }
    record_database(platform, backlog.is_ok());
}

/// Records the state of the database as it is now: up (as its store found it at the last
/// check, which `checked` was; or as `checked` went, for an embedded file), its pool, and each
/// read replica (by its name, without a password: lag in seconds, `NaN` while it does not
/// answer; serving 1 or 0).
pub fn record_database(platform: &Platform, checked: bool) {
    let status = platform.database_status();
    let up = status.map_or(checked, |s| s.up);
    metrics::gauge!("platform_db_up").set(if up { 1.0 } else { 0.0 });
    if let Some(pool) = status.map(|s| s.pool) {
        metrics::gauge!("platform_db_pool_max").set(pool.max as f64);
        metrics::gauge!("platform_db_pool_open").set(pool.open as f64);
        metrics::gauge!("platform_db_pool_in_use").set(pool.in_use as f64);
        metrics::gauge!("platform_db_pool_waiting").set(pool.waiting as f64);
    }
    for replica in platform.replicas() {
        let lag = replica.lag.map_or(f64::NAN, |l| l.as_secs_f64());
        metrics::gauge!("platform_db_replica_lag_seconds", "replica" => replica.name.clone())
            .set(lag);
        metrics::gauge!("platform_db_replica_serving", "replica" => replica.name.clone())
            .set(if replica.serving { 1.0 } else { 0.0 });
    }
}

/// The standard process families of Prometheus' clients, read from `/proc` now (Linux; on
/// other systems nothing): CPU seconds, resident and virtual memory, open and most file
/// descriptors, and when the process started.
pub fn process_metrics() -> String {
    let mut out = String::new();
    let Some(figures) = Process::read() else {
        return out;
    };
    let mut family = |name: &str, kind: &str, help: &str, value: f64| {
        out.push_str(&format!(
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n"
        ));
    };
    family(
        "process_cpu_seconds_total",
        "counter",
        "Total user and system CPU time spent in seconds.",
        figures.cpu_seconds,
    );
    family(
        "process_resident_memory_bytes",
        "gauge",
        "Resident memory size in bytes.",
        figures.resident_bytes,
    );
    family(
        "process_virtual_memory_bytes",
        "gauge",
        "Virtual memory size in bytes.",
        figures.virtual_bytes,
    );
    if let Some(open) = figures.open_fds {
        family(
            "process_open_fds",
            "gauge",
            "Number of open file descriptors.",
            open,
        );
    }
    if let Some(max) = figures.max_fds {
        family(
            "process_max_fds",
            "gauge",
            "Maximum number of open file descriptors.",
            max,
        );
    }
    if let Some(start) = figures.start_time_seconds {
        family(
            "process_start_time_seconds",
            "gauge",
            "Start time of the process since unix epoch in seconds.",
            start,
        );
    }
    out
}

/// What `/proc` says of this process.
#[derive(Debug)]
struct Process {
    cpu_seconds: f64,
    resident_bytes: f64,
    virtual_bytes: f64,
    open_fds: Option<f64>,
    max_fds: Option<f64>,
    start_time_seconds: Option<f64>,
}

/// Clock ticks a second in `/proc`'s times (`USER_HZ`: 100 on every architecture Linux
/// runs this on).
const TICKS: f64 = 100.0;
/// Bytes of a page of memory (`/proc/self/stat`'s resident set is in pages; 4 KiB on x86-64
/// and most arm64 kernels, so `VmRSS` of `/proc/self/status` is read instead where present).
const PAGE: f64 = 4096.0;

impl Process {
    fn read() -> Option<Process> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let boot = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
        let open_fds = std::fs::read_dir("/proc/self/fd")
            .ok()
            .map(|d| d.count() as f64);
        Process::parse(&stat, &status, &boot, &limits, open_fds)
    }

    /// The figures of the texts of `/proc/self/stat`, `/proc/self/status`, `/proc/stat` and
    /// `/proc/self/limits`.
    fn parse(
        stat: &str,
        status: &str,
        boot: &str,
        limits: &str,
        open_fds: Option<f64>,
    ) -> Option<Process> {
        // The fields after the command's name, which is in parentheses and may hold spaces:
        // the 3rd field of the line is the first here.
        let rest = &stat[stat.rfind(')')? + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let field = |n: usize| -> Option<f64> { fields.get(n - 3)?.parse().ok() };
        let cpu_seconds = (field(14)? + field(15)?) / TICKS;
        let virtual_bytes = field(23)?;
        let resident_bytes = kib(status, "VmRSS:").unwrap_or(field(24)? * PAGE);
        let booted = boot
            .lines()
            .find_map(|l| l.strip_prefix("btime "))
            .and_then(|v| v.trim().parse::<f64>().ok());
        let start_time_seconds = booted.zip(field(22)).map(|(b, t)| b + t / TICKS);
        let max_fds = limits
            .lines()
            .find_map(|l| l.strip_prefix("Max open files"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<f64>().ok());
        Some(Process {
            cpu_seconds,
            resident_bytes,
            virtual_bytes,
            open_fds,
            max_fds,
            start_time_seconds,
        })
    }
}

/// A `Name:   1234 kB` line of `/proc/self/status`, in bytes.
fn kib(status: &str, name: &str) -> Option<f64> {
    let value = status.lines().find_map(|l| l.strip_prefix(name))?;
    let kb: f64 = value.split_whitespace().next()?.parse().ok()?;
    Some(kb * 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures come from the fields `proc(5)` names, whatever spaces and parentheses the
    /// command's name holds.
    #[test]
    fn the_process_figures_are_read_from_the_fields_proc_names() {
        let stat = "4242 (platform (x) y) S 1 4242 4242 0 -1 4194560 2000 0 0 0 \
                    250 130 0 0 20 0 9 0 123456 987654321 5000 18446744073709551615";
        let status = "Name:\tplatform\nVmRSS:\t   20480 kB\n";
        let boot = "cpu  1 2 3\nbtime 1700000000\n";
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max open files            65536                524288               files\n";
        let p = Process::parse(stat, status, boot, limits, Some(12.0)).unwrap();
        assert_eq!(p.cpu_seconds, 3.8);
        assert_eq!(p.virtual_bytes, 987_654_321.0);
        assert_eq!(p.resident_bytes, 20_480.0 * 1024.0);
        assert_eq!(p.start_time_seconds, Some(1_700_000_000.0 + 1234.56));
        assert_eq!(p.max_fds, Some(65_536.0));
        assert_eq!(p.open_fds, Some(12.0));
        // Without VmRSS, the resident pages of the stat line.
        let p = Process::parse(stat, "", boot, "", None).unwrap();
        assert_eq!(p.resident_bytes, 5000.0 * PAGE);
        assert_eq!((p.max_fds, p.open_fds), (None, None));
    }

    /// This process's own figures are there and `promtool check metrics` finds nothing to
    /// say of them.
    #[test]
    #[cfg(target_os = "linux")]
    fn the_process_families_of_this_process_pass_promtool() {
        let text = process_metrics();
        for name in [
            "process_cpu_seconds_total",
            "process_resident_memory_bytes",
            "process_virtual_memory_bytes",
            "process_open_fds",
            "process_max_fds",
            "process_start_time_seconds",
        ] {
            assert!(
                text.contains(&format!("# TYPE {name} ")),
                "{name} in\n{text}"
            );
        }
        let Some(out) = crate::metric_names::promtool_check(&text) else {
            return;
        };
        assert!(
            out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
            "promtool: {}{}\nof\n{text}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
