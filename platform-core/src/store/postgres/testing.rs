//! PostgreSQL for tests: `PLATFORM_TEST_PG` names a server and a database on it (for example
//! `postgres://postgres@127.0.0.1:5432/test`); each test makes a fresh schema of its own in that
//! database (`platform_t_<pid>_<n>`), dropped when the test ends. Schemas and databases that
//! tests of processes no longer running left behind (a killed run) are dropped when the next
//! test binary starts. Tests whose processes open a database by URL get a fresh database of
//! their own ([`TestDatabase`]). Without the variable the PostgreSQL runs are skipped, and the
//! binary says so once.
//!
//! A schema costs its tables, about 50 ms; a database of its own per test binary cost a
//! `DROP DATABASE` (a checkpoint, about 100 ms) each time its last test ended, which in a
//! sequential run was after every test.

use super::pool::{connect, PgConn};
use super::{PgStore, DEFAULT_LEASE};
use crate::error::Result;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::Duration;

/// The variable naming the test server.
pub const VAR: &str = "PLATFORM_TEST_PG";

/// The test server's URL, or `None` (printing once that the PostgreSQL runs are skipped).
pub fn server_url() -> Option<String> {
    match std::env::var(VAR) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            static SAID: Once = Once::new();
            SAID.call_once(|| {
                // Written to the process's stderr itself, past the test harness's capture.
                let _ = writeln!(
                    std::io::stderr(),
                    "PostgreSQL runs skipped: set {VAR}=postgres://user@host:port/database to run them"
                );
            });
            None
        }
    }
}

/// `url` with its database replaced by `db`.
pub fn with_database(url: &str, db: &str) -> String {
    let after = url.find("://").map_or(0, |i| i + 3);
    let (head, rest) = url.split_at(after);
    let (authority, tail) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let query = tail.find('?').map_or("", |i| &tail[i..]);
    format!("{head}{authority}/{db}{query}")
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A connection to `url` outside any store (for administration).
pub fn admin(url: &str) -> Result<Admin> {
    let mut target = super::connect::target(url)?;
    target.config.connect_timeout(Duration::from_secs(5));
    Ok(Admin(connect(&target.config, &target.tls, false)?))
}

/// A connection for administering test databases.
pub struct Admin(PgConn);

impl Admin {
    /// Runs statements without parameters.
    pub fn batch_execute(&mut self, sql: &str) -> Result<()> {
        self.0.batch_execute(sql)
    }

    /// The first column of each row of a query without parameters, as text.
    pub fn texts(&mut self, sql: &str) -> Result<Vec<String>> {
        self.0
            .query_once(sql, &[])?
            .iter()
            .map(|r| super::get(r, 0))
            .collect()
    }
}

/// Whether the process that made a test schema or database named `<prefix><pid>_...` is gone.
fn of_a_gone_process(name: &str, prefix: &str) -> bool {
    let pid = name
        .trim_start_matches(prefix)
        .split('_')
        .next()
        .and_then(|p| p.parse::<u32>().ok());
    match pid {
        Some(pid) => {
            pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists()
        }
        None => false,
    }
}

/// Drops the test schemas of processes that are no longer running from the database `url`
/// names (once per process).
fn drop_stale_schemas(url: &str) {
    static DONE: Mutex<bool> = Mutex::new(false);
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if *done {
        return;
    }
    *done = true;
    let mut client =
        admin(url).unwrap_or_else(|e| panic!("{VAR}: PostgreSQL does not answer: {e}"));
    drop_stale(&mut client);
    drop_gone(
        &mut client,
        "SELECT nspname::text FROM pg_namespace WHERE nspname LIKE 'platform\\_t\\_%'",
        "platform_t_",
        |name| format!("DROP SCHEMA IF EXISTS \"{name}\" CASCADE"),
    );
}

/// Drops the test databases of binaries that are no longer running.
fn drop_stale(client: &mut Admin) {
    drop_gone(
        client,
        "SELECT datname::text FROM pg_database WHERE datname LIKE 'platform\\_test\\_%'",
        "platform_test_",
        |name| format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"),
    );
}

/// Runs `drop` for each name `list` answers that a process no longer running made.
fn drop_gone(client: &mut Admin, list: &str, prefix: &str, drop: impl Fn(&str) -> String) {
    let Ok(names) = client.texts(list) else {
        return;
    };
    for name in names {
        if of_a_gone_process(&name, prefix) {
            let _ = client.batch_execute(&drop(&name));
        }
    }
}

/// A fresh schema in the test database: its URL and schema name; dropped when the guard drops.
#[derive(Debug)]
pub struct TestSchema {
    /// The URL of the test database.
    pub url: String,
    /// The schema's name.
    pub schema: String,
}

impl TestSchema {
    /// A fresh schema, or `None` when the PostgreSQL runs are skipped.
    pub fn new() -> Option<TestSchema> {
        let url = server_url()?;
        drop_stale_schemas(&url);
        let schema = format!(
            "platform_t_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        Some(TestSchema { url, schema })
    }

    /// A store in this schema.
    pub fn store(&self) -> PgStore {
        self.store_with_lease(DEFAULT_LEASE)
    }

    /// A store in this schema whose claims last `lease`.
    pub fn store_with_lease(&self, lease: Duration) -> PgStore {
        PgStore::open_in_schema(&self.url, &self.schema, lease)
            .unwrap_or_else(|e| panic!("cannot open the test store: {e}"))
    }
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        if let Ok(mut client) = admin(&self.url) {
            let _ = client.batch_execute(&format!(
                "DROP SCHEMA IF EXISTS \"{}\" CASCADE",
                self.schema
            ));
        }
    }
}

/// A fresh database of its own on the test server (for processes that open a database by URL),
/// dropped when the guard drops.
#[derive(Debug)]
pub struct TestDatabase {
    server: String,
    name: String,
    /// The database's URL.
    pub url: String,
}

impl TestDatabase {
    /// A fresh database, or `None` when the PostgreSQL runs are skipped.
    pub fn new() -> Option<TestDatabase> {
        let server = server_url()?;
        let mut client =
            admin(&server).unwrap_or_else(|e| panic!("{VAR}: PostgreSQL does not answer: {e}"));
        drop_stale(&mut client);
        let name = format!(
            "platform_test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        client
            .batch_execute(&format!(
                "CREATE DATABASE \"{name}\" ENCODING 'UTF8' TEMPLATE template0"
            ))
            .unwrap_or_else(|e| panic!("cannot create the test database {name}: {e}"));
        Some(TestDatabase {
            url: with_database(&server, &name),
            server,
            name,
        })
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let Ok(mut client) = admin(&self.server) {
            let _ = client.batch_execute(&format!(
                "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                self.name
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::of_a_gone_process;

    #[test]
    fn only_names_of_processes_no_longer_running_are_stale() {
        let me = std::process::id();
        assert!(!of_a_gone_process(
            &format!("platform_t_{me}_3"),
            "platform_t_"
        ));
        // Linux's pids stay under 2^22.
        assert!(of_a_gone_process("platform_t_4294967295_0", "platform_t_"));
        assert!(of_a_gone_process(
            "platform_test_4294967295_1",
            "platform_test_"
        ));
        // A name that does not carry a pid is left alone.
        assert!(!of_a_gone_process("platform_t_x_0", "platform_t_"));
        assert!(!of_a_gone_process("platform_t__0", "platform_t_"));
    }
}
