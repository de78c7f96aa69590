//! PostgreSQL for tests: `PLATFORM_TEST_PG` names a server (for example
//! `postgres://postgres@127.0.0.1:5432/test`); a test binary makes a database of its own on it
//! (`platform_test_<pid>`), each test a fresh schema in that database, dropped when the test
//! ends, and the database is dropped when its last schema is. Without the variable the
//! PostgreSQL runs are skipped, and the binary says so once.

use super::pool::{connect, PgConn};
use super::{PgStore, DEFAULT_LEASE};
use crate::error::{Error, Result};
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

/// The database of this test binary and how many schemas in it are in use.
static DATABASE: Mutex<(Option<String>, usize)> = Mutex::new((None, 0));
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A connection to `url` outside any store (for administration).
pub fn admin(url: &str) -> Result<Admin> {
    let mut config: tokio_postgres::Config = url
        .parse()
        .map_err(|e| Error::invalid_parameter(format!("{VAR} is not a PostgreSQL URL: {e}")))?;
    config.connect_timeout(Duration::from_secs(5));
    Ok(Admin(connect(&config, false)?))
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

/// Drops the test databases of binaries that are no longer running.
fn drop_stale(client: &mut Admin) {
    let Ok(names) = client
        .texts("SELECT datname::text FROM pg_database WHERE datname LIKE 'platform\\_test\\_%'")
    else {
        return;
    };
    for name in names {
        let pid = name
            .trim_start_matches("platform_test_")
            .split('_')
            .next()
            .and_then(|p| p.parse::<u32>().ok());
        let Some(pid) = pid else { continue };
        if pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ =
                client.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
        }
    }
}

/// A fresh schema in this binary's database: its URL and schema name; dropped (and the
/// database with the last one) when the guard drops.
#[derive(Debug)]
pub struct TestSchema {
    server: String,
    /// The URL of this binary's database.
    pub url: String,
    /// The schema's name.
    pub schema: String,
}

impl TestSchema {
    /// A fresh schema, or `None` when the PostgreSQL runs are skipped.
    pub fn new() -> Option<TestSchema> {
        let server = server_url()?;
        let mut db = DATABASE.lock().unwrap_or_else(|e| e.into_inner());
        let name = match &db.0 {
            Some(name) => name.clone(),
            None => {
                let mut client = admin(&server)
                    .unwrap_or_else(|e| panic!("{VAR}: PostgreSQL does not answer: {e}"));
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
                db.0 = Some(name.clone());
                name
            }
        };
        db.1 += 1;
        let schema = format!("t{}", NEXT.fetch_add(1, Ordering::Relaxed));
        Some(TestSchema {
            url: with_database(&server, &name),
            server,
            schema,
        })
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
        let mut db = DATABASE.lock().unwrap_or_else(|e| e.into_inner());
        db.1 -= 1;
        if db.1 == 0 {
            if let (Some(name), Ok(mut client)) = (db.0.take(), admin(&self.server)) {
                let _ = client
                    .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
            }
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
