//! A small pool of connections: idle connections are reused, at most `max` are open, and a
//! connection that failed (closed by the server, a broken transaction) is dropped rather than
//! returned, so the pool recovers by opening a fresh one on the next call.

use super::{pg_error, Db, Params};
use crate::error::{Error, Result};
use postgres::{Client, NoTls, Row, Statement};
use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Prepared statements kept per connection before the cache is emptied.
const STATEMENTS_KEPT: usize = 512;
/// How long a caller waits for a connection when all are busy.
const WAIT: Duration = Duration::from_secs(30);

/// One connection with its prepared statements.
pub(crate) struct PgConn {
    client: Client,
    statements: HashMap<String, Statement>,
}

impl PgConn {
    pub(crate) fn client_mut(&mut self) -> &mut Client {
        &mut self.client
    }
}

struct State {
    idle: Vec<PgConn>,
    open: usize,
}

pub(crate) struct Pool {
    config: postgres::Config,
    schema: String,
    max: usize,
    state: Mutex<State>,
    freed: Condvar,
}

impl Pool {
    pub(crate) fn new(mut config: postgres::Config, schema: String, max: usize) -> Pool {
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        config.keepalives(true);
        config.keepalives_idle(Duration::from_secs(30));
        if config.get_application_name().is_none() {
            config.application_name(&format!("platform:{schema}"));
        }
        Pool {
            config,
            schema,
            max,
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
            }),
            freed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A connection: an idle one, or a new one while fewer than `max` are open, or the next
    /// one freed.
    pub(crate) fn get(&self) -> Result<Conn<'_>> {
        let mut state = self.lock();
        loop {
            if let Some(conn) = state.idle.pop() {
                if conn.client.is_closed() {
                    state.open -= 1;
                    continue;
                }
                return Ok(Conn {
                    pool: self,
                    conn: Some(conn),
                });
            }
            if state.open < self.max {
                state.open += 1;
                drop(state);
                return match self.connect() {
                    Ok(conn) => Ok(Conn {
                        pool: self,
                        conn: Some(conn),
                    }),
                    Err(e) => {
                        self.lock().open -= 1;
                        self.freed.notify_one();
                        Err(e)
                    }
                };
            }
            let (next, timeout) = self
                .freed
                .wait_timeout(state, WAIT)
                .unwrap_or_else(|e| e.into_inner());
            state = next;
            if timeout.timed_out() && state.idle.is_empty() && state.open >= self.max {
                return Err(Error::Unavailable(
                    "every connection to the database is busy".into(),
                ));
            }
        }
    }

    /// A new connection with the platform's settings (its schema first on the search path,
    /// UTC).
    pub(crate) fn connect(&self) -> Result<PgConn> {
        let mut client = self
            .config
            .connect(NoTls)
            .map_err(|e| Error::Unavailable(Box::new(e)))?;
        client
            .batch_execute(&format!(
                "SET search_path TO \"{}\"; SET TIME ZONE 'UTC'",
                self.schema
            ))
            .map_err(pg_error)?;
        Ok(PgConn {
            client,
            statements: HashMap::new(),
        })
    }

    fn give_back(&self, conn: PgConn) {
        let mut state = self.lock();
        if conn.client.is_closed() {
            state.open -= 1;
        } else {
            state.idle.push(conn);
        }
        drop(state);
        self.freed.notify_one();
    }

    fn forget(&self) {
        self.lock().open -= 1;
        self.freed.notify_one();
    }
}

/// A connection borrowed from the pool; returned when dropped (unless discarded).
pub(crate) struct Conn<'a> {
    pool: &'a Pool,
    conn: Option<PgConn>,
}

impl Conn<'_> {
    fn inner(&mut self) -> Result<&mut PgConn> {
        self.conn
            .as_mut()
            .ok_or_else(|| Error::Unavailable("the connection was discarded".into()))
    }

    /// Runs statements without parameters (simple protocol, one round trip).
    pub(crate) fn batch(&mut self, sql: &str) -> Result<()> {
        let out = self.inner()?.client.batch_execute(sql).db();
        self.check(out)
    }

    fn statement(&mut self, sql: &str) -> Result<Statement> {
        let conn = self.inner()?;
        if let Some(s) = conn.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = conn.client.prepare(sql).db()?;
        if conn.statements.len() >= STATEMENTS_KEPT {
            conn.statements.clear();
        }
        conn.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }

    pub(crate) fn query(&mut self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>> {
        let out = self.statement(sql).and_then(|s| {
            let conn = self.inner()?;
            conn.client.query(&s, params).db()
        });
        self.check(out)
    }

    pub(crate) fn execute(&mut self, sql: &str, params: &Params<'_>) -> Result<u64> {
        let out = self.statement(sql).and_then(|s| {
            let conn = self.inner()?;
            conn.client.execute(&s, params).db()
        });
        self.check(out)
    }

    /// A failure that lost the connection drops it from the pool.
    fn check<T>(&mut self, out: Result<T>) -> Result<T> {
        if let Err(Error::Unavailable(_)) = &out {
            self.discard();
        }
        out
    }

    /// Drops the connection instead of returning it to the pool.
    pub(crate) fn discard(&mut self) {
        if self.conn.take().is_some() {
            self.pool.forget();
        }
    }
}

impl Drop for Conn<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            self.pool.give_back(conn);
        }
    }
}
