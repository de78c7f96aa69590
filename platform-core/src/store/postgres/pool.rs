//! Connections and a small pool of them.
//!
//! Each connection's socket is driven by a task on the store's runtime (one thread, shared by
//! every store of the process); a call sends its request to the connection and waits for the
//! answer on the calling thread ([`block_on`]), which needs no runtime of its own, so the store
//! may be called from any thread, inside an async runtime or not.
//!
//! The pool reuses idle connections, opens at most `max`, and drops a connection that failed
//! (closed by the server, a broken transaction) rather than returning it, so it recovers by
//! opening a fresh one on the next call.

use super::{Db, Params};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::future::Future;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use tokio_postgres::{AsyncMessage, Client, NoTls, Row, Statement};

/// Prepared statements kept per connection before the cache is emptied.
const STATEMENTS_KEPT: usize = 512;
/// How long a caller waits for a connection when all are busy.
const WAIT: Duration = Duration::from_secs(30);

/// The runtime that drives every connection's socket.
fn runtime() -> Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> =
        OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("pg-connections")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| Error::Internal(format!("cannot start the PostgreSQL runtime: {e}")))
}

/// Both futures' outcomes, polling `a` first (so its request is sent first).
async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let mut a = std::pin::pin!(a);
    let mut b = std::pin::pin!(b);
    let (mut ra, mut rb) = (None, None);
    std::future::poll_fn(|cx| {
        if ra.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        if ra.is_some() && rb.is_some() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    match (ra, rb) {
        (Some(a), Some(b)) => (a, b),
        _ => unreachable!("both futures are ready"),
    }
}

/// Wakes the thread that waits in [`block_on`].
struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to completion on this thread (parking between polls).
pub(crate) fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

/// One connection with its prepared statements (and, for a listener, its notifications).
pub(crate) struct PgConn {
    client: Client,
    statements: HashMap<String, Statement>,
    notifications: Option<mpsc::Receiver<String>>,
}

/// Opens a connection; with `listen`, the notifications it receives are kept for
/// [`PgConn::next_notification`].
pub(crate) fn connect(config: &tokio_postgres::Config, listen: bool) -> Result<PgConn> {
    let rt = runtime()?;
    let config = config.clone();
    let (tx, rx) = mpsc::channel();
    let connected = block_on(rt.spawn(async move {
        let (client, mut connection) = config.connect(NoTls).await?;
        tokio::spawn(async move {
            let messages = std::future::poll_fn(|cx| loop {
                match connection.poll_message(cx) {
                    Poll::Ready(Some(Ok(AsyncMessage::Notification(n)))) => {
                        if listen {
                            let _ = tx.send(n.payload().to_string());
                        }
                    }
                    Poll::Ready(Some(Ok(_))) => {}
                    Poll::Ready(Some(Err(e))) => {
                        tracing::debug!(error = %e, "PostgreSQL connection ended");
                        return Poll::Ready(());
                    }
                    Poll::Ready(None) => return Poll::Ready(()),
                    Poll::Pending => return Poll::Pending,
                }
            });
            messages.await;
        });
        Ok::<Client, tokio_postgres::Error>(client)
    }))
    .map_err(|e| Error::Internal(format!("the PostgreSQL connection task failed: {e}")))?;
    let client = connected.map_err(|e| Error::Unavailable(Box::new(e)))?;
    Ok(PgConn {
        client,
        statements: HashMap::new(),
        notifications: listen.then_some(rx),
    })
}

impl PgConn {
    /// Runs statements without parameters (simple protocol, one round trip).
    pub(crate) fn batch_execute(&mut self, sql: &str) -> Result<()> {
        block_on(self.client.batch_execute(sql)).db()
    }

    /// A query with parameters, unprepared (for administration).
    #[cfg(any(test, feature = "contract-tests"))]
    pub(crate) fn query_once(&mut self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>> {
        block_on(self.client.query(sql, params)).db()
    }

    /// Starts listening on a channel.
    pub(crate) fn listen(&mut self, channel: &str) -> Result<()> {
        self.batch_execute(&format!("LISTEN \"{channel}\""))
    }

    /// The next notification's payload, waiting at most `wait`; an error once the connection
    /// is lost.
    pub(crate) fn next_notification(&mut self, wait: Duration) -> Result<Option<String>> {
        let Some(rx) = &self.notifications else {
            return Err(Error::Internal("not a listening connection".into()));
        };
        match rx.recv_timeout(wait) {
            Ok(text) => Ok(Some(text)),
            Err(mpsc::RecvTimeoutError::Timeout) if !self.client.is_closed() => Ok(None),
            Err(_) => Err(Error::Unavailable(
                "the listening connection was lost".into(),
            )),
        }
    }
}

struct State {
    idle: Vec<PgConn>,
    open: usize,
}

pub(crate) struct Pool {
    config: tokio_postgres::Config,
    schema: String,
    max: usize,
    state: Mutex<State>,
    freed: Condvar,
}

impl Pool {
    pub(crate) fn new(mut config: tokio_postgres::Config, schema: String, max: usize) -> Pool {
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        config.keepalives(true);
        config.keepalives_idle(Duration::from_secs(30));
        if config.get_application_name().is_none() {
            config.application_name(format!("platform:{schema}"));
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
                    begin: None,
                });
            }
            if state.open < self.max {
                state.open += 1;
                drop(state);
                return match self.connect(false) {
                    Ok(conn) => Ok(Conn {
                        pool: self,
                        conn: Some(conn),
                        begin: None,
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

    /// A new connection outside the pool with the platform's settings (its schema first on
    /// the search path, UTC); with `listen`, one that keeps its notifications.
    pub(crate) fn connect(&self, listen: bool) -> Result<PgConn> {
        let mut conn = connect(&self.config, listen)?;
        conn.batch_execute(&format!(
            "SET search_path TO \"{}\"; SET TIME ZONE 'UTC'",
            self.schema
        ))?;
        Ok(conn)
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
    /// Statements that open a transaction, sent with the first statement of the transaction
    /// (in one round trip: the requests are pipelined, and run in order).
    begin: Option<String>,
}

impl Conn<'_> {
    fn inner(&mut self) -> Result<&mut PgConn> {
        self.conn
            .as_mut()
            .ok_or_else(|| Error::Unavailable("the connection was discarded".into()))
    }

    /// Runs statements without parameters (simple protocol, one round trip).
    pub(crate) fn batch(&mut self, sql: &str) -> Result<()> {
        let sql = match self.begin.take() {
            Some(begin) => format!("{begin}; {sql}"),
            None => sql.to_string(),
        };
        let out = self.inner().and_then(|c| c.batch_execute(&sql));
        self.check(out)
    }

    /// Opens a transaction with `sql` (statements without parameters) when the first statement
    /// runs, in the same round trip; a transaction that runs no statement never opens.
    pub(crate) fn begin_with_first(&mut self, sql: String) {
        self.begin = Some(sql);
    }

    /// Whether the transaction was opened (a statement ran since [`Conn::begin_with_first`]).
    pub(crate) fn begun(&self) -> bool {
        self.begin.is_none()
    }

    /// Sends statements without parameters and does not wait for their answer (which the
    /// connection reads and drops).
    pub(crate) fn send_unawaited(&mut self, sql: &str) {
        if let Some(conn) = self.conn.as_mut() {
            let mut sent = std::pin::pin!(conn.client.batch_execute(sql));
            // The first poll hands the request to the connection; nothing waits for more.
            let _ = sent
                .as_mut()
                .poll(&mut Context::from_waker(std::task::Waker::noop()));
        }
    }

    /// Awaits a statement's future on the connection, pipelined behind the transaction's
    /// opening statements when they were not sent yet (`begin`). An opening that failed fails
    /// the call.
    fn finish<T>(
        client: &Client,
        begin: Option<String>,
        statement: impl Future<Output = std::result::Result<T, tokio_postgres::Error>>,
    ) -> Result<T> {
        match begin {
            None => block_on(statement).db(),
            Some(begin) => {
                let (opened, out) = block_on(join(client.batch_execute(&begin), statement));
                opened.db()?;
                out.db()
            }
        }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement> {
        let conn = self.inner()?;
        if let Some(s) = conn.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = block_on(conn.client.prepare(sql)).db()?;
        if conn.statements.len() >= STATEMENTS_KEPT {
            conn.statements.clear();
        }
        conn.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }

    pub(crate) fn query(&mut self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>> {
        let out = self.statement(sql).and_then(|s| {
            let begin = self.begin.take();
            let conn = self.inner()?;
            Conn::finish(&conn.client, begin, conn.client.query(&s, params))
        });
        self.check(out)
    }

    pub(crate) fn execute(&mut self, sql: &str, params: &Params<'_>) -> Result<u64> {
        let out = self.statement(sql).and_then(|s| {
            let begin = self.begin.take();
            let conn = self.inner()?;
            Conn::finish(&conn.client, begin, conn.client.execute(&s, params))
        });
        self.check(out)
    }

    /// A failure that lost the connection drops it from the pool.
    /// After a failure the transaction counts as opened, so that its commit reaches the
    /// connection (and fails there when the connection was lost).
    fn check<T>(&mut self, out: Result<T>) -> Result<T> {
        if out.is_err() {
            self.begin = None;
        }
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
