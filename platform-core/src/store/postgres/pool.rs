//! Connections, their pool, and the pipeline a transaction sends its statements through.
//!
//! The sockets are registered with the store's runtime (one thread, shared by every store of
//! the process). A pooled connection's messages are polled by the thread that waits on it
//! ([`driven`]: it writes its requests and reads the answers itself, and the runtime's thread
//! only wakes it when the socket is ready); those of a connection outside the pool (the bus's
//! listener, administration) by a task on the runtime, a call on one waiting for its answers
//! on the calling thread ([`block_on`]).
//!
//! The pool is deadpool's (idle connections reused, at most `max` open, a wait for a free one
//! bounded, a closed one dropped when it comes back); its futures run on the calling thread
//! inside the store's runtime context. A transaction's [`Conn`] keeps the statements
//! whose answers it does not need (writes, locks, reads whose rows go to the transaction's
//! cache) and sends them with the next statement whose answer it needs, or with `COMMIT`: one
//! round trip for all (requests polled together are pipelined, and run in order). A statement
//! not yet prepared on the connection is prepared first, all such at once.

mod driven;
mod pooled;

use super::connect::Target;
use super::failure::PgFailure;
use super::health::Health;
use super::tls::Tls;
use super::{pg_error, Db, PgPooler};
use crate::error::{Error, Result};
use driven::Driven;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, Client, Row, Statement};

/// Prepared statements kept per connection before its cache is emptied.
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
///
/// Unconstrained by tokio's budget: called inside an asynchronous task, the sockets, the
/// pool's semaphore and the join handles polled here would count against that task's budget,
/// and once it is spent answer `Pending` with their wake deferred to the task's runtime,
/// which this call keeps from running: the call would wait forever.
pub(crate) fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(tokio::task::unconstrained(fut));
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

/// One connection outside the pool (the listener of the bus, administration), and for a
/// listener its notifications.
pub(crate) struct PgConn {
    client: Client,
    notifications: Option<mpsc::Receiver<String>>,
}

/// Opens a connection (through `tls` as its settings say); with `listen`, the notifications it
/// receives are kept for [`PgConn::next_notification`].
pub(crate) fn connect(config: &tokio_postgres::Config, tls: &Tls, listen: bool) -> Result<PgConn> {
    let rt = runtime()?;
    let (config, tls) = (config.clone(), tls.clone());
    let (tx, rx) = mpsc::channel();
    let connected = block_on(rt.spawn(async move {
        let (client, connection) = config.connect(tls).await?;
        tokio::spawn(messages(connection, move |text| {
            if listen {
                let _ = tx.send(text);
            }
        }));
        Ok::<Client, tokio_postgres::Error>(client)
    }))
    .map_err(|e| Error::Internal(format!("the PostgreSQL connection task failed: {e}")))?;
    let client = connected.map_err(|e| Error::Unavailable(Box::new(PgFailure(e))))?;
    Ok(PgConn {
        client,
        notifications: listen.then_some(rx),
    })
}

/// A connection's message loop: the requests written, the answers read and handed to the
/// requests waiting for them, each notification's payload to `heard`, notices dropped; ready
/// when the connection ends.
fn messages(
    mut connection: tokio_postgres::Connection<tokio_postgres::Socket, super::tls::TlsStream>,
    mut heard: impl FnMut(String) + Send + 'static,
) -> impl Future<Output = ()> + Send + 'static {
    std::future::poll_fn(move |cx| loop {
        match connection.poll_message(cx) {
            Poll::Ready(Some(Ok(AsyncMessage::Notification(n)))) => heard(n.payload().to_string()),
            Poll::Ready(Some(Ok(_))) => {}
            Poll::Ready(Some(Err(e))) => {
                tracing::debug!(error = %e, "PostgreSQL connection ended");
                return Poll::Ready(());
            }
            Poll::Ready(None) => return Poll::Ready(()),
            Poll::Pending => return Poll::Pending,
        }
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

/// A parameter a deferred statement owns (it is sent later than the call that made it).
pub(crate) type Owned = Box<dyn ToSql + Sync + Send>;

/// The parameters of a statement, borrowed.
pub(crate) type Params<'p> = [&'p (dyn ToSql + Sync)];

/// A parameter owned by the statement it is sent with.
pub(crate) fn owned<T: ToSql + Sync + Send + 'static>(value: T) -> Owned {
    Box::new(value)
}

/// A statement sent with the next one whose answer is needed.
pub(crate) struct Deferred {
    sql: String,
    params: Vec<Owned>,
    /// Its rows are kept for the caller under this tag (`None`: dropped).
    tag: Option<usize>,
}

/// What the last statement of a pipeline is.
#[derive(Clone, Copy)]
pub(crate) enum Last<'p> {
    /// A query with parameters: its rows.
    Query(&'p str, &'p Params<'p>),
    /// A statement with parameters: how many rows it changed.
    Execute(&'p str, &'p Params<'p>),
    /// Statements without parameters (simple protocol).
    Batch(&'p str),
    /// Statements without parameters (simple protocol): the first column of the rows they
    /// answer, as text.
    Simple(&'p str),
    /// Nothing more: the statements held back are sent (the last of them ends the round
    /// trip), answering `Done`.
    Held,
}

/// The rows of the tagged deferred statements of a pipeline, with their tags.
pub(crate) type Tagged = Vec<(usize, Vec<Row>)>;

/// The answer of a pipeline's last statement.
pub(crate) enum Answer {
    Rows(Vec<Row>),
    Count(u64),
    Texts(Vec<String>),
    Done,
}

/// A statement being prepared.
type Prepared<'f> =
    Pin<Box<dyn Future<Output = std::result::Result<Statement, tokio_postgres::Error>> + 'f>>;

/// A step of a pipeline: one statement sent, its answer awaited.
type Step<'f> =
    Pin<Box<dyn Future<Output = std::result::Result<Answer, tokio_postgres::Error>> + 'f>>;

/// Every statement of `texts` prepared on the connection (those new to it, all at once; the
/// connection's cache of statements is emptied when full).
fn prepare_all(pool: &Pool, conn: &Driven, texts: &[&str]) -> Result<Vec<Statement>> {
    let known: Vec<Option<Statement>> = {
        let mut cache = conn.statements.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= STATEMENTS_KEPT {
            cache.clear();
        }
        texts.iter().map(|sql| cache.get(*sql).cloned()).collect()
    };
    if known.iter().all(Option::is_some) {
        return Ok(known.into_iter().flatten().collect());
    }
    let mut new: Vec<&str> = texts
        .iter()
        .zip(&known)
        .filter(|(_, k)| k.is_none())
        .map(|(sql, _)| *sql)
        .collect();
    new.sort_unstable();
    new.dedup();
    let client = &conn.client;
    let prepares: Vec<Prepared<'_>> = new
        .iter()
        .map(|sql| Box::pin(client.prepare(sql)) as Prepared<'_>)
        .collect();
    let prepared = conn.block_on(join_all(prepares));
    pool.counts.0.fetch_add(1, Ordering::Relaxed);
    let mut cache = conn.statements.lock().unwrap_or_else(|e| e.into_inner());
    for (sql, statement) in new.iter().zip(prepared) {
        cache.insert(sql.to_string(), statement.map_err(pg_error)?);
    }
    texts
        .iter()
        .zip(known)
        .map(|(sql, k)| match k {
            Some(statement) => Ok(statement),
            None => cache
                .get(*sql)
                .cloned()
                .ok_or_else(|| Error::Internal("a prepared statement was lost".into())),
        })
        .collect()
}

/// A prepared statement with its parameters: its rows when `rows`, else how many rows it
/// changed.
fn statement_step<'f>(
    client: &'f Client,
    statement: &'f Statement,
    params: &'f [&'f (dyn ToSql + Sync)],
    rows: bool,
) -> Step<'f> {
    if rows {
        Box::pin(async move { client.query(statement, params).await.map(Answer::Rows) })
    } else {
        Box::pin(async move { client.execute(statement, params).await.map(Answer::Count) })
    }
}

/// The last statement of a pipeline; one with parameters is the first of `prepared` (the
/// statements prepared after the deferred ones).
fn last_step<'f>(client: &'f Client, prepared: &'f [Statement], last: Last<'f>) -> Step<'f> {
    match last {
        Last::Query(_, params) => statement_step(client, &prepared[0], params, true),
        Last::Execute(_, params) => statement_step(client, &prepared[0], params, false),
        Last::Batch(sql) => {
            Box::pin(async move { client.batch_execute(sql).await.map(|()| Answer::Done) })
        }
        // (`Conn::send` sends the last statement held back in its place.)
        Last::Held => Box::pin(async { Ok(Answer::Done) }),
        Last::Simple(sql) => Box::pin(async move {
            let messages = client.simple_query(sql).await?;
            let texts = messages
                .iter()
                .filter_map(|m| match m {
                    tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
                    _ => None,
                })
                .collect();
            Ok(Answer::Texts(texts))
        }),
    }
}

/// The answers of a pipeline, in order: the opening statements' (when `opened`), each
/// deferred statement's (the rows of the tagged ones kept), the last one's. The first failure
/// in order fails the whole.
fn answers_of(
    answers: Vec<std::result::Result<Answer, tokio_postgres::Error>>,
    opened: bool,
    deferred: &[Deferred],
) -> Result<(Answer, Tagged)> {
    let mut answers = answers.into_iter();
    if opened {
        if let Some(Err(e)) = answers.next() {
            return Err(pg_error(e));
        }
    }
    let mut tagged = Vec::new();
    for d in deferred {
        match answers.next() {
            Some(Ok(Answer::Rows(rows))) => {
                if let Some(tag) = d.tag {
                    tagged.push((tag, rows));
                }
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(pg_error(e)),
            None => return Err(Error::Internal("a pipeline lost an answer".into())),
        }
    }
    let answer = match answers.next() {
        Some(answer) => answer.map_err(pg_error)?,
        None => Answer::Done,
    };
    Ok((answer, tagged))
}

/// Polls every future together (their requests pipelined, in order) until all are ready.
async fn join_all<T>(mut futures: Vec<Pin<Box<dyn Future<Output = T> + '_>>>) -> Vec<T> {
    let mut out: Vec<Option<T>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, slot) in futures.iter_mut().zip(out.iter_mut()) {
            if slot.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

/// The connections of a store, and how many round trips they made.
/// (A clone shares the connections and the counts.)
#[derive(Clone)]
pub(crate) struct Pool {
    inner: deadpool::managed::Pool<driven::Manager>,
    /// Round trips made (pipelines sent and awaited, preparations of new statements), and
    /// statements sent.
    counts: Arc<(AtomicU64, AtomicU64)>,
    /// The connection settings, for connections outside the pool.
    config: tokio_postgres::Config,
    tls: Tls,
    /// Behind a transaction pooler: what its statements need ([`pooled::Pooled`]); `None` on
    /// a direct connection (prepared statements cached per connection, settings at start).
    pooled: Option<Arc<pooled::Pooled>>,
    /// The connection settings of the bus's listener, when not `config`'s.
    listen: Option<Target>,
    /// Whether the database answers, followed for the primary's pool ([`Pool::with_health`]).
    health: Option<Arc<Health>>,
}

impl Pool {
    /// A pool of at most `max` connections to `config`'s database, each with `schema` first
    /// on its search path and UTC as its time zone (set as the connection starts: no round trip;
    /// behind a transaction pooler, `pooler`, in each transaction instead: [`pooled`]).
    pub(crate) fn new(config: Target, schema: &str, max: usize, pooler: PgPooler) -> Result<Pool> {
        let Target { mut config, tls } = config;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        config.keepalives(true);
        config.keepalives_idle(Duration::from_secs(30));
        if config.get_application_name().is_none() {
            config.application_name(format!("platform:{schema}"));
        }
        let pooled = match pooler {
            PgPooler::None => {
                config.options(format!("-c search_path=\"{schema}\" -c TimeZone=UTC"));
                None
            }
            PgPooler::Transaction => Some(Arc::new(pooled::Pooled::new(schema))),
        };
        let manager = driven::Manager {
            config: config.clone(),
            tls: tls.clone(),
        };
        let inner = deadpool::managed::Pool::builder(manager)
            .max_size(max)
            .runtime(deadpool::Runtime::Tokio1)
            .wait_timeout(Some(WAIT))
            .create_timeout(Some(Duration::from_secs(10)))
            .build()
            .map_err(|e| Error::Internal(format!("cannot build the connection pool: {e}")))?;
        Ok(Pool {
            inner,
            counts: Arc::default(),
            config,
            tls,
            pooled,
            listen: None,
            health: None,
        })
    }

    /// The same pool, following whether the database answers (logging when it is lost and
    /// when it is back).
    pub(crate) fn with_health(self) -> Pool {
        Pool {
            health: Some(Arc::default()),
            ..self
        }
    }

    /// Whether the database answered at the last check, for a pool that follows it.
    pub(crate) fn is_up(&self) -> Option<bool> {
        self.health.as_ref().map(|h| h.is_up())
    }

    /// How many connections are open, in use, and how many callers wait for one.
    pub(crate) fn status(&self) -> crate::store::PoolStatus {
        let s = self.inner.status();
        crate::store::PoolStatus {
            max: s.max_size,
            open: s.size,
            in_use: s.size.saturating_sub(s.available),
            waiting: s.waiting,
        }
    }

    /// A connection: an idle one, or a new one while fewer than `max` are open, or the next
    /// one freed (waiting at most 30 s).
    pub(crate) fn get(&self) -> Result<Conn<'_>> {
        let _context = runtime()?.enter();
        let obj = block_on(self.inner.get()).map_err(|e| {
            use deadpool::managed::{PoolError, TimeoutType};
            let busy = matches!(e, PoolError::Timeout(TimeoutType::Wait));
            let e = match e {
                PoolError::Backend(e) => e,
                PoolError::Timeout(TimeoutType::Wait) => {
                    Error::Unavailable("every connection to the database is busy".into())
                }
                other => Error::Unavailable(other.to_string().into()),
            };
            // Every connection busy is no sign of a lost database.
            if let (Some(health), false) = (&self.health, busy) {
                health.failed(&e);
            }
            e
        })?;
        Ok(Conn {
            pool: self,
            obj: Some(obj),
            begin: None,
            deferred: Vec::new(),
            in_tx: std::cell::Cell::new(false),
        })
    }

    /// Drops the idle connections: the next ones are made anew (after a fail-over, to the
    /// host of a URL of several hosts that has the role its `target_session_attrs` asks for).
    pub(crate) fn drop_idle(&self) {
        let _context = runtime().map(|rt| rt.enter());
        drop(self.inner.retain(|_, _| false));
    }

    /// A new connection outside the pool with the platform's settings; with `listen`, one
    /// that keeps its notifications.
    pub(crate) fn connect(&self, listen: bool) -> Result<PgConn> {
        connect(&self.config, &self.tls, listen)
    }

    /// The pooler between this pool and PostgreSQL.
    pub(crate) fn pooler(&self) -> PgPooler {
        match self.pooled {
            Some(_) => PgPooler::Transaction,
            None => PgPooler::None,
        }
    }

    /// Has the bus's listener connect to `config` (a direct connection to PostgreSQL) rather
    /// than to the pool's database.
    pub(crate) fn listen_at(&mut self, target: Target) {
        self.listen = Some(target);
    }

    /// A new connection for the bus's listener (`LISTEN` needs a session of its own: behind a
    /// transaction pooler, a direct connection must be given, [`Pool::listen_at`]).
    pub(crate) fn connect_listener(&self) -> Result<PgConn> {
        match (&self.listen, &self.pooled) {
            (Some(listen), _) => connect(&listen.config, &listen.tls, true),
            (None, None) => connect(&self.config, &self.tls, true),
            (None, Some(_)) => Err(Error::invalid_parameter(
                "LISTEN cannot work through a transaction pooler: give the listener a direct \
                 connection to PostgreSQL (--pg-listen-db)",
            )),
        }
    }

    /// Round trips and statements so far.
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn counts(&self) -> (u64, u64) {
        (
            self.counts.0.load(Ordering::Relaxed),
            self.counts.1.load(Ordering::Relaxed),
        )
    }
}

/// A connection borrowed from the pool, with the statements it holds back; returned when
/// dropped (unless discarded).
pub(crate) struct Conn<'a> {
    pool: &'a Pool,
    obj: Option<deadpool::managed::Object<driven::Manager>>,
    /// Statements that open a transaction, sent with its first statement.
    begin: Option<String>,
    /// Statements sent with the next one whose answer is needed.
    deferred: Vec<Deferred>,
    /// Behind a transaction pooler: whether a transaction is open ([`pooled`]).
    in_tx: std::cell::Cell<bool>,
}

impl Conn<'_> {
    fn obj(&self) -> Result<&Driven> {
        self.obj
            .as_deref()
            .ok_or_else(|| Error::Unavailable("the connection was discarded".into()))
    }

    /// Opens a transaction with `sql` (statements without parameters) when the first statement
    /// is sent, in the same round trip; a transaction that sends no statement never opens.
    pub(crate) fn begin_with_first(&mut self, sql: String) {
        self.begin = Some(sql);
        self.in_tx.set(false);
    }

    /// Whether the transaction was opened (a statement was sent since [`Conn::begin_with_first`]).
    pub(crate) fn begun(&self) -> bool {
        self.begin.is_none()
    }

    /// Keeps a statement to send with the next one whose answer is needed; its rows, with a
    /// `tag`, come back from that one's [`Conn::send`].
    pub(crate) fn defer(&mut self, sql: String, params: Vec<Owned>, tag: Option<usize>) {
        self.deferred.push(Deferred { sql, params, tag });
    }

    /// Whether statements are held back.
    pub(crate) fn has_deferred(&self) -> bool {
        !self.deferred.is_empty()
    }

    /// Forgets the statements held back (the transaction ends without them).
    pub(crate) fn drop_deferred(&mut self) {
        self.deferred.clear();
    }

    /// Sends the opening statements, every deferred one and `last` in one round trip, and
    /// answers `last`'s outcome with the rows of the tagged deferred ones. The first failure
    /// in order fails the call (later statements of a failed transaction fail too).
    /// On a failure the deferred statements are kept, for the caller to drop
    /// ([`Conn::drop_deferred`]) or to send on another connection ([`Conn::take_deferred`]).
    pub(crate) fn send(&mut self, last: Last<'_>) -> Result<(Answer, Tagged)> {
        let mut deferred = std::mem::take(&mut self.deferred);
        let held = match last {
            Last::Held => match deferred.pop() {
                Some(held) => Some(held),
                None => return Ok((Answer::Done, Vec::new())),
            },
            _ => None,
        };
        let out = match &held {
            // The last statement held back ends the round trip (no empty statement after
            // it); its rows go with the others' under its tag.
            Some(h) => {
                let params: Vec<&(dyn ToSql + Sync)> = h
                    .params
                    .iter()
                    .map(|p| p.as_ref() as &(dyn ToSql + Sync))
                    .collect();
                self.pipeline(&deferred, Last::Query(&h.sql, &params)).map(
                    |(answer, mut tagged)| {
                        if let (Some(tag), Answer::Rows(rows)) = (h.tag, answer) {
                            tagged.push((tag, rows));
                        }
                        (Answer::Done, tagged)
                    },
                )
            }
            None => self.pipeline(&deferred, last),
        };
        if out.is_err() {
            deferred.extend(held);
            self.deferred = deferred;
        }
        self.check(out)
    }

    /// The deferred statements, taken away (to be sent on another connection).
    pub(crate) fn take_deferred(&mut self) -> Vec<Deferred> {
        std::mem::take(&mut self.deferred)
    }

    /// Statements deferred on another connection, to send with this one's next statement.
    pub(crate) fn put_deferred(&mut self, deferred: Vec<Deferred>) {
        self.deferred = deferred;
    }

    fn pipeline(&mut self, deferred: &[Deferred], last: Last<'_>) -> Result<(Answer, Tagged)> {
        let begin = self.begin.take();
        let pool = self.pool;
        let conn = self.obj()?;
        let client = &conn.client;
        if let Some(pooled) = &pool.pooled {
            let sent = pooled::Sent {
                begin,
                deferred,
                last,
            };
            return pooled.pipeline(pool, conn, &self.in_tx, sent);
        }
        let last_sql = match &last {
            Last::Query(sql, _) | Last::Execute(sql, _) => Some(*sql),
            Last::Batch(_) | Last::Simple(_) | Last::Held => None,
        };
        let texts: Vec<&str> = deferred
            .iter()
            .map(|d| d.sql.as_str())
            .chain(last_sql)
            .collect();
        let statements = prepare_all(pool, conn, &texts)?;
        // One pipeline: BEGIN, the deferred statements, the last one.
        let refs: Vec<Vec<&(dyn ToSql + Sync)>> = deferred
            .iter()
            .map(|d| {
                d.params
                    .iter()
                    .map(|p| p.as_ref() as &(dyn ToSql + Sync))
                    .collect()
            })
            .collect();
        let mut steps: Vec<Step<'_>> = Vec::with_capacity(deferred.len() + 2);
        let opened = begin.is_some();
        if let Some(begin) = &begin {
            steps.push(Box::pin(async move {
                client.batch_execute(begin).await.map(|()| Answer::Done)
            }));
        }
        for ((d, statement), params) in deferred.iter().zip(&statements).zip(&refs) {
            steps.push(statement_step(client, statement, params, d.tag.is_some()));
        }
        steps.push(last_step(client, &statements[deferred.len()..], last));
        let sent = steps.len() as u64;
        let answers = conn.block_on(join_all(steps));
        pool.counts.0.fetch_add(1, Ordering::Relaxed);
        pool.counts.1.fetch_add(sent, Ordering::Relaxed);
        metrics::counter!("platform_db_round_trips_total").increment(1);
        answers_of(answers, opened, deferred)
    }

    /// Runs statements without parameters (simple protocol), after the deferred ones.
    pub(crate) fn batch(&mut self, sql: &str) -> Result<()> {
        self.send(Last::Batch(sql)).map(|_| ())
    }

    /// Sends statements without parameters and does not wait for their answer (which the
    /// connection reads and drops).
    pub(crate) fn send_unawaited(&mut self, sql: &str) {
        if let Some(conn) = self.obj.as_deref() {
            let mut sent = std::pin::pin!(conn.client.batch_execute(sql));
            // The first poll hands the request to the connection, which writes it; nothing
            // waits for more (the answer is read with the connection's next request).
            let _ = sent
                .as_mut()
                .poll(&mut Context::from_waker(std::task::Waker::noop()));
            conn.drive();
        }
    }

    /// A query (after the deferred statements); deferred rows with tags are dropped, so use
    /// [`Conn::send`] where there may be some.
    pub(crate) fn query(&mut self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>> {
        match self.send(Last::Query(sql, params))? {
            (Answer::Rows(rows), _) => Ok(rows),
            _ => Err(Error::Internal("a query answered no rows".into())),
        }
    }

    /// A statement (after the deferred ones): how many rows it changed.
    pub(crate) fn execute(&mut self, sql: &str, params: &Params<'_>) -> Result<u64> {
        match self.send(Last::Execute(sql, params))? {
            (Answer::Count(n), _) => Ok(n),
            _ => Err(Error::Internal("a statement answered no count".into())),
        }
    }

    /// A failure that lost the connection drops it from the pool. After a failure the
    /// transaction counts as opened, so that its end reaches the connection (and fails there
    /// when the connection was lost).
    fn check<T>(&mut self, out: Result<T>) -> Result<T> {
        // (A connection discarded before was not tried: it says nothing of the database.)
        if let (Some(health), true) = (&self.pool.health, self.obj.is_some()) {
            match &out {
                Err(e @ Error::Unavailable(_)) => health.failed(e),
                // Any other answer, an error's too, came from the database.
                _ => health.answered(),
            }
        }
        if out.is_err() {
            self.begin = None;
        }
        if let Err(Error::Unavailable(cause)) = &out {
            self.discard();
            // A server that refuses writes is no primary now (a fail-over): its other
            // connections go too.
            if super::read_only(cause.as_ref()) {
                self.pool.drop_idle();
            }
        }
        out
    }

    /// Drops the connection instead of returning it to the pool.
    pub(crate) fn discard(&mut self) {
        if let Some(obj) = self.obj.take() {
            drop(deadpool::managed::Object::take(obj));
        }
    }
}
