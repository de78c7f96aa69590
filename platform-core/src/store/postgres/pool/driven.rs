//! A pooled connection whose messages are polled by the thread that waits on it.
//!
//! The connection's socket is registered with the store's runtime (one thread shared by the
//! process, which reads the sockets' readiness from `epoll`), but its messages are polled by
//! the call that waits on it, on the calling thread: the call writes its requests to the
//! socket itself and parks; the runtime's thread wakes it when the answer has come, and it
//! reads the answer itself. A round trip wakes two threads once each. (With the connection's
//! messages polled by a task on the runtime's thread, a round trip woke that thread to write,
//! again to read, and then the caller: thread switches were about a third of the server's CPU
//! per save.) No runtime is entered to wait, so the store may still be called from any
//! thread, inside an asynchronous task or not.

use super::super::failure::PgFailure;
use super::super::tls::Tls;
use super::{block_on, messages, runtime};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use tokio_postgres::{Client, Statement};

/// A connection's message loop (`super::messages`).
type Messages = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A connection of the pool, with its message loop and its prepared statements.
pub(crate) struct Driven {
    pub(crate) client: Client,
    /// `None` once the connection ended.
    messages: Mutex<Option<Messages>>,
    /// The statements prepared on this connection, by text.
    pub(crate) statements: Mutex<HashMap<String, Statement>>,
}

impl Driven {
    /// Opens a connection to `config`'s database (through `tls` as its settings say).
    pub(crate) fn connect(config: &tokio_postgres::Config, tls: &Tls) -> Result<Driven> {
        let (config, tls) = (config.clone(), tls.clone());
        let (client, connection) =
            block_on(runtime()?.spawn(async move { config.connect(tls).await }))
                .map_err(|e| Error::Internal(format!("a connection's start failed: {e}")))?
                .map_err(|e| Error::Unavailable(Box::new(PgFailure(e))))?;
        // A pooled connection listens to nothing: no notification comes to it.
        let messages: Messages = Box::pin(messages(connection, |_| {}));
        Ok(Driven {
            client,
            messages: Mutex::new(Some(messages)),
            statements: Mutex::default(),
        })
    }

    fn messages(&self) -> std::sync::MutexGuard<'_, Option<Messages>> {
        self.messages.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Polls the connection's messages once: the requests queued written, what has come read
    /// (the requests it answers woken); an ended connection's loop is dropped.
    fn poll_messages(messages: &mut Option<Messages>, cx: &mut Context<'_>) {
        if let Some(m) = messages.as_mut() {
            if m.as_mut().poll(cx).is_ready() {
                // The connection ended: its requests fail (and are woken).
                *messages = None;
            }
        }
    }

    /// Runs `fut` (requests on this connection) to completion, driving the connection on this
    /// thread meanwhile.
    pub(crate) fn block_on<F: Future>(&self, fut: F) -> F::Output {
        let mut messages = self.messages();
        let mut fut = std::pin::pin!(fut);
        block_on(std::future::poll_fn(|cx| {
            // The requests first (they queue what they send), then the connection (which
            // writes them, and reads what has come: it wakes the requests it answers, and
            // this is polled again at once).
            if let Poll::Ready(out) = fut.as_mut().poll(cx) {
                return Poll::Ready(out);
            }
            Self::poll_messages(&mut messages, cx);
            fut.as_mut().poll(cx)
        }))
    }

    /// Writes what the requests queued and reads what has come, without waiting (unconstrained
    /// by tokio's budget, as [`block_on`]).
    pub(crate) fn drive(&self) {
        let mut messages = self.messages();
        let mut once = std::pin::pin!(tokio::task::unconstrained(std::future::poll_fn(|cx| {
            Self::poll_messages(&mut messages, cx);
            Poll::Ready(())
        })));
        let _ = once
            .as_mut()
            .poll(&mut Context::from_waker(std::task::Waker::noop()));
    }

    /// Whether the connection ended (what came on it meanwhile read first).
    pub(crate) fn is_closed(&self) -> bool {
        self.drive();
        self.messages().is_none() || self.client.is_closed()
    }
}

/// Makes and checks the connections of a pool.
pub(crate) struct Manager {
    pub(crate) config: tokio_postgres::Config,
    pub(crate) tls: Tls,
}

impl deadpool::managed::Manager for Manager {
    type Type = Driven;
    type Error = Error;

    async fn create(&self) -> Result<Driven> {
        Driven::connect(&self.config, &self.tls)
    }

    async fn recycle(
        &self,
        conn: &mut Driven,
        _: &deadpool::managed::Metrics,
    ) -> deadpool::managed::RecycleResult<Error> {
        if conn.is_closed() {
            return Err(deadpool::managed::RecycleError::message(
                "the connection was closed",
            ));
        }
        Ok(())
    }
}
