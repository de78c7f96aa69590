//! A private PostgreSQL cluster for tests that must do to a server what cannot be done to a
//! shared one: crash it, restart it, give it a streaming replica.
//!
//! A cluster is made with `initdb` in a directory of its own under the system's temporary
//! directory and listens on 127.0.0.1 only, with its socket in that directory; it runs as the
//! `postgres` user when the tests run as root (PostgreSQL refuses root), as the current user
//! otherwise. Durability is the production one (`fsync` and `synchronous_commit` on). Like the
//! other PostgreSQL tests, it runs only when `PLATFORM_TEST_PG` is set. The clusters of test
//! processes no longer running (a killed run) are stopped and removed when the next one starts.

mod tls;

pub use tls::{TlsFiles, CERT_ROLE, DATABASE, PASSWORD_ROLE};

use super::testing::{admin, server_url};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The programs a cluster needs.
const PROGRAMS: [&str; 3] = ["initdb", "pg_ctl", "pg_basebackup"];

/// The start of the names of the clusters' directories (then the process id and a count).
const PREFIX: &str = "platform-pg-";

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A PostgreSQL server of a test's own, stopped and removed when dropped.
#[derive(Debug)]
pub struct PrivateCluster {
    /// The URL of its `postgres` database as the `postgres` superuser.
    pub url: String,
    dir: PathBuf,
    port: u16,
    bin: PathBuf,
    as_postgres: bool,
}

impl PrivateCluster {
    /// A new cluster, started; `None` when the PostgreSQL runs are skipped. Panics when the
    /// cluster cannot be made.
    pub fn start() -> Option<PrivateCluster> {
        server_url()?;
        let bin = bin_dir();
        let as_postgres = running_as_root();
        remove_stale(&bin, as_postgres);
        let dir = new_dir();
        let cluster = PrivateCluster {
            url: String::new(),
            dir,
            port: 0,
            bin,
            as_postgres,
        };
        cluster.run(
            "initdb",
            &[
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "-D",
                &cluster.dir_text(),
            ],
        );
        Some(cluster.started())
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops it at once, as a crash would: no checkpoint, the next start recovers from the WAL.
    pub fn crash(&self) {
        self.pg_ctl(&["stop", "-m", "immediate"]);
    }

    /// Starts it again after [`PrivateCluster::crash`] or [`PrivateCluster::stop`], on the same
    /// port.
    pub fn start_again(&self) {
        let options = self.options();
        self.pg_ctl(&[
            "start",
            "-w",
            "-t",
            "120",
            "-l",
            &self.log(),
            "-o",
            &options,
        ]);
    }

    /// A streaming replica of this cluster, started on a port of its own, once it accepts
    /// connections in recovery.
    pub fn replica(&self) -> PrivateCluster {
        let replica = PrivateCluster {
            url: String::new(),
            dir: new_dir(),
            port: 0,
            bin: self.bin.clone(),
            as_postgres: self.as_postgres,
        };
        replica.run(
            "pg_basebackup",
            &[
                "-R",
                "-X",
                "stream",
                "-c",
                "fast",
                "--no-sync",
                "-D",
                &replica.dir_text(),
                "-d",
                &self.url,
            ],
        );
        let replica = replica.started();
        let start = Instant::now();
        loop {
            let recovering = admin(&replica.url)
                .and_then(|mut c| c.texts("SELECT pg_is_in_recovery()::text"))
                .map(|t| t == ["true"]);
            match recovering {
                Ok(true) => return replica,
                _ if start.elapsed() < Duration::from_secs(30) => {
                    std::thread::sleep(Duration::from_millis(100))
                }
                other => panic!(
                    "the replica in {} is not in recovery after 30 s ({other:?}); its log:\n{}",
                    replica.dir.display(),
                    replica.log_text()
                ),
            }
        }
    }

    /// Stops it (fast: open transactions are rolled back, then a checkpoint).
    pub fn stop(&self) {
        self.pg_ctl(&["stop", "-m", "fast"]);
    }

    /// This cluster started on a free port (the one it has, or a new one).
    fn started(mut self) -> PrivateCluster {
        self.port = free_port();
        self.url = format!("postgres://postgres@127.0.0.1:{}/postgres", self.port);
        self.start_again();
        self
    }

    /// The server's settings, given at each start.
    fn options(&self) -> String {
        format!(
            "-p {} -k '{}' -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on \
             -c wal_level=replica -c max_wal_senders=8 -c shared_buffers=16MB",
            self.port,
            self.dir_text()
        )
    }

    fn dir_text(&self) -> String {
        self.dir.to_string_lossy().into_owned()
    }

    fn log(&self) -> String {
        self.dir.join("server.log").to_string_lossy().into_owned()
    }

    /// The end of the server's log (for messages).
    fn log_text(&self) -> String {
        let text = std::fs::read_to_string(self.log()).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    fn pg_ctl(&self, args: &[&str]) {
        let dir = self.dir_text();
        let mut all = vec!["-D", &dir];
        all.extend_from_slice(args);
        self.run("pg_ctl", &all);
    }

    /// Runs one of the programs, panicking with its output when it fails.
    fn run(&self, program: &str, args: &[&str]) {
        let out = run(&self.bin, self.as_postgres, program, args);
        if !out.status.success() {
            panic!(
                "{program} {} failed ({}):\n{}{}\nthe server's log:\n{}",
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                self.log_text()
            );
        }
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        let dir = self.dir_text();
        let _ = run(
            &self.bin,
            self.as_postgres,
            "pg_ctl",
            &["-D", &dir, "stop", "-m", "immediate"],
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs `program` of `bin` (as the `postgres` user with `as_postgres`), from the temporary
/// directory.
fn run(bin: &Path, as_postgres: bool, program: &str, args: &[&str]) -> Output {
    let path = bin.join(program);
    let mut command = if as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(&path);
        c
    } else {
        Command::new(&path)
    };
    command
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", path.display()))
}

/// The directory of PostgreSQL's programs: the newest `/usr/lib/postgresql/<version>/bin`
/// that has them all, or else the `PATH`'s.
fn bin_dir() -> PathBuf {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            Some((version, e.path().join("bin")))
        })
        .collect();
    versions.sort();
    let mut candidates: Vec<PathBuf> = versions.into_iter().rev().map(|(_, p)| p).collect();
    candidates.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let has = |dir: &PathBuf, program: &str| dir.join(program).is_file();
    if let Some(dir) = candidates
        .iter()
        .find(|d| PROGRAMS.iter().all(|p| has(d, p)))
    {
        return dir.clone();
    }
    let missing: Vec<&str> = PROGRAMS
        .iter()
        .copied()
        .filter(|p| !candidates.iter().any(|d| has(d, p)))
        .collect();
    panic!(
        "a private PostgreSQL cluster needs {} ({} not found in /usr/lib/postgresql/*/bin nor \
         on the PATH): install PostgreSQL's server programs (the Debian package `postgresql`), \
         or unset PLATFORM_TEST_PG to skip the PostgreSQL tests",
        PROGRAMS.join(", "),
        if missing.is_empty() {
            "not all in one directory".to_string()
        } else {
            missing.join(", ")
        }
    )
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A path for a new cluster's directory (`initdb` and `pg_basebackup` make it).
fn new_dir() -> PathBuf {
    std::env::temp_dir().join(format!(
        "{PREFIX}{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Stops and removes the clusters that test processes no longer running left behind (once per
/// process).
fn remove_stale(bin: &Path, as_postgres: bool) {
    static DONE: Mutex<bool> = Mutex::new(false);
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if std::mem::replace(&mut *done, true) {
        return;
    }
    for entry in std::fs::read_dir(std::env::temp_dir())
        .into_iter()
        .flatten()
    {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        let Some(pid) = pid else { continue };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let dir = entry.path().to_string_lossy().into_owned();
        let _ = run(
            bin,
            as_postgres,
            "pg_ctl",
            &["-D", &dir, "stop", "-m", "immediate"],
        );
        let _ = std::fs::remove_dir_all(entry.path());
    }
}

/// A TCP port free on 127.0.0.1, below the range the system gives outgoing connections (so that
/// none takes it while the cluster is down between a crash and its restart).
fn free_port() -> u16 {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0)
        ^ std::process::id().wrapping_mul(7919);
    (0..2000)
        .map(|i| 20_000 + (seed.wrapping_add(i) % 12_000) as u16)
        .find(|port| TcpListener::bind(("127.0.0.1", *port)).is_ok())
        .unwrap_or_else(|| panic!("no free TCP port on 127.0.0.1 between 20000 and 32000"))
}

#[cfg(test)]
mod tests {
    use super::PrivateCluster;
    use crate::store::postgres::testing::admin;
    use std::time::{Duration, Instant};

    #[test]
    fn a_replica_follows_and_a_crashed_primary_keeps_what_it_committed() {
        let Some(primary) = PrivateCluster::start() else {
            return;
        };
        let replica = primary.replica();
        assert_ne!(primary.port(), replica.port());
        let mut writer = admin(&primary.url).unwrap();
        writer
            .batch_execute("CREATE TABLE t (x text); INSERT INTO t VALUES ('written')")
            .unwrap();
        let start = Instant::now();
        loop {
            let seen = admin(&replica.url).and_then(|mut c| c.texts("SELECT x FROM t"));
            if matches!(&seen, Ok(rows) if rows == &["written"]) {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the replica does not have the row: {seen:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            admin(&replica.url)
                .unwrap()
                .batch_execute("INSERT INTO t VALUES ('refused')")
                .is_err(),
            "a replica is read-only"
        );

        drop(writer);
        primary.crash();
        assert!(admin(&primary.url).is_err(), "a crashed server is down");
        primary.start_again();
        let rows = admin(&primary.url)
            .unwrap()
            .texts("SELECT x FROM t")
            .unwrap();
        assert_eq!(rows, ["written"], "a committed row survives a crash");
        primary.stop();
    }
}
