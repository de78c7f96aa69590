//! The statements' path behind a transaction pooler (pgbouncer's `pool_mode = transaction`):
//! a server connection belongs to this store's connection only from a transaction's first
//! statement to its end, and the next transaction may run on another one. So nothing of a
//! session is relied on:
//!
//! - no settings at connection start (pgbouncer refuses the startup `options`): the search
//!   path and time zone are set with `SET LOCAL` in each transaction's opening batch;
//! - no named statement outlives a transaction: a statement runs unnamed, its parameter types
//!   given with it (parse, bind, execute in one message, one round trip). The types of a text
//!   this process has not sent before are learnt by preparing it inside the transaction, and
//!   the statement is closed at once, before anything else is sent;
//! - statements sent outside a transaction (a lone query, a notification, lease renewals) run
//!   in one of their own: `BEGIN` with the settings, the statements and `COMMIT`, pipelined.
//!
//! What it costs against the direct path: one round trip more the first time this process
//! sends a text (to learn its types), the text parsed again by PostgreSQL on every call, and a
//! few bytes more per transaction. The direct path is untouched.

use super::{answers_of, join_all, Answer, Deferred, Driven, Last, Pool, Step, Tagged, ToSql};
use crate::error::{Error, Result};
use crate::store::postgres::pg_error;
use std::cell::Cell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use tokio_postgres::types::Type;
use tokio_postgres::Client;

/// Texts whose parameter types are kept before the list is emptied (texts made per call, such
/// as lists with their limits written in, would otherwise grow it without end).
const TYPES_KEPT: usize = 4_096;

/// What the statements of a pool behind a transaction pooler need.
pub(crate) struct Pooled {
    /// The settings every transaction opens with.
    settings: String,
    /// The parameter types of the texts sent so far.
    types: Mutex<HashMap<String, Arc<[Type]>>>,
}

/// What a pipeline sends: the statements that open a transaction (when it opens with it), the
/// statements held back, and the last one.
pub(crate) struct Sent<'s, 'p> {
    pub(crate) begin: Option<String>,
    pub(crate) deferred: &'s [Deferred],
    pub(crate) last: Last<'p>,
}

/// A statement being prepared to learn its parameter types (`None`: the opening batch).
type Learning<'f> = Pin<
    Box<dyn Future<Output = std::result::Result<Option<Arc<[Type]>>, tokio_postgres::Error>> + 'f>,
>;

impl Pooled {
    pub(crate) fn new(schema: &str) -> Pooled {
        Pooled {
            settings: format!("SET LOCAL search_path = \"{schema}\"; SET LOCAL TimeZone = 'UTC'"),
            types: Mutex::default(),
        }
    }

    fn types(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<[Type]>>> {
        self.types.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `sent` on `client` as [`super::Conn::send`] does; `in_tx` says whether a
    /// transaction is open on the connection, before and after.
    pub(crate) fn pipeline(
        &self,
        pool: &Pool,
        conn: &Driven,
        in_tx: &Cell<bool>,
        sent: Sent<'_, '_>,
    ) -> Result<(Answer, Tagged)> {
        let client = &conn.client;
        let Sent {
            begin,
            deferred,
            last,
        } = sent;
        // Outside a transaction, the statements run in one of their own.
        let own = begin.is_none() && !in_tx.get();
        let mut opening = match (&begin, own) {
            (Some(begin), _) => Some(format!("{begin}; {}", self.settings)),
            (None, true) => Some(format!("BEGIN; {}", self.settings)),
            (None, false) => None,
        };
        let last_sql = match &last {
            Last::Query(sql, _) | Last::Execute(sql, _) => Some(*sql),
            Last::Batch(_) | Last::Simple(_) | Last::Held => None,
        };
        let texts: Vec<&str> = deferred
            .iter()
            .map(|d| d.sql.as_str())
            .chain(last_sql)
            .collect();
        let known = self.types_of(pool, conn, &texts, &mut opening, own, in_tx)?;
        if let Err(e) = counts_match(&texts, &known, deferred, &last) {
            self.end_own(conn, own, in_tx);
            return Err(e);
        }
        // One round trip: the opening batch (unless sent above), the statements held back,
        // the last one, and the end of a transaction of their own.
        let refs: Vec<Vec<(&(dyn ToSql + Sync), Type)>> = deferred
            .iter()
            .zip(&known)
            .map(|(d, types)| {
                d.params
                    .iter()
                    .map(|p| p.as_ref() as &(dyn ToSql + Sync))
                    .zip(types.iter().cloned())
                    .collect()
            })
            .collect();
        let last_refs: Vec<(&(dyn ToSql + Sync), Type)> = match (&last, known.last()) {
            (Last::Query(_, params) | Last::Execute(_, params), Some(types)) => {
                params.iter().copied().zip(types.iter().cloned()).collect()
            }
            _ => Vec::new(),
        };
        let mut steps: Vec<Step<'_>> = Vec::with_capacity(deferred.len() + 3);
        let opened = opening.is_some();
        if let Some(sql) = &opening {
            steps.push(Box::pin(async move {
                client.batch_execute(sql).await.map(|()| Answer::Done)
            }));
        }
        for (d, params) in deferred.iter().zip(&refs) {
            steps.push(typed_step(client, &d.sql, params, d.tag.is_some()));
        }
        steps.push(match last {
            Last::Query(sql, _) => typed_step(client, sql, &last_refs, true),
            Last::Execute(sql, _) => typed_step(client, sql, &last_refs, false),
            Last::Batch(_) | Last::Simple(_) | Last::Held => super::last_step(client, &[], last),
        });
        if own {
            steps.push(Box::pin(async move {
                client.batch_execute("COMMIT").await.map(|()| Answer::Done)
            }));
        }
        let sent = steps.len() as u64;
        let mut answers = conn.block_on(join_all(steps));
        pool.counts.0.fetch_add(1, Ordering::Relaxed);
        pool.counts.1.fetch_add(sent, Ordering::Relaxed);
        metrics::counter!("platform_db_round_trips_total").increment(1);
        let committed = if own { answers.pop() } else { None };
        in_tx.set(match last {
            _ if own => false,
            Last::Batch(sql) | Last::Simple(sql) => open_after(sql, true),
            _ => true,
        });
        let out = answers_of(answers, opened, deferred)?;
        if let Some(Err(e)) = committed {
            return Err(pg_error(e));
        }
        Ok(out)
    }

    /// The parameter types of each of `texts`: those of texts not sent before are learnt in
    /// one round trip, which sends `opening` (taken) first, then prepares each new text and
    /// closes it at once (the close goes out before anything else: still in the transaction).
    fn types_of(
        &self,
        pool: &Pool,
        conn: &Driven,
        texts: &[&str],
        opening: &mut Option<String>,
        own: bool,
        in_tx: &Cell<bool>,
    ) -> Result<Vec<Arc<[Type]>>> {
        let known: Vec<Option<Arc<[Type]>>> = {
            let types = self.types();
            texts.iter().map(|t| types.get(*t).cloned()).collect()
        };
        let mut new: Vec<&str> = texts
            .iter()
            .zip(&known)
            .filter(|(_, k)| k.is_none())
            .map(|(t, _)| *t)
            .collect();
        if new.is_empty() {
            return Ok(known.into_iter().flatten().collect());
        }
        new.sort_unstable();
        new.dedup();
        let client = &conn.client;
        let opened = opening.take();
        let mut steps: Vec<Learning<'_>> = Vec::with_capacity(new.len() + 1);
        if let Some(sql) = &opened {
            steps.push(Box::pin(async move {
                client.batch_execute(sql).await.map(|()| None)
            }));
        }
        for sql in &new {
            steps.push(Box::pin(async move {
                let statement = client.prepare(sql).await?;
                Ok(Some(Arc::from(statement.params())))
            }));
        }
        let answers = conn.block_on(join_all(steps));
        pool.counts.0.fetch_add(1, Ordering::Relaxed);
        if opened.is_some() {
            in_tx.set(true);
        }
        let mut learnt: HashMap<&str, Arc<[Type]>> = HashMap::with_capacity(new.len());
        let mut new_texts = new.iter();
        for answer in answers {
            match answer {
                Ok(Some(types)) => {
                    if let Some(sql) = new_texts.next() {
                        learnt.insert(sql, types);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    self.end_own(conn, own, in_tx);
                    return Err(pg_error(e));
                }
            }
        }
        let mut types = self.types();
        if types.len() + learnt.len() > TYPES_KEPT {
            types.clear();
        }
        for (sql, t) in &learnt {
            types.insert(sql.to_string(), t.clone());
        }
        Ok(texts
            .iter()
            .zip(known)
            .filter_map(|(sql, k)| k.or_else(|| learnt.get(sql).cloned()))
            .collect())
    }

    /// Ends a transaction of its own that failed before its statements were sent.
    fn end_own(&self, conn: &Driven, own: bool, in_tx: &Cell<bool>) {
        if own && in_tx.get() {
            let _ = conn.block_on(conn.client.batch_execute("ROLLBACK"));
            in_tx.set(false);
        }
    }
}

/// Whether each statement is given as many parameters as it takes.
fn counts_match(
    texts: &[&str],
    known: &[Arc<[Type]>],
    deferred: &[Deferred],
    last: &Last<'_>,
) -> Result<()> {
    let counts = deferred.iter().map(|d| d.params.len()).chain(match last {
        Last::Query(_, params) | Last::Execute(_, params) => Some(params.len()),
        Last::Batch(_) | Last::Simple(_) | Last::Held => None,
    });
    for ((sql, types), given) in texts.iter().zip(known).zip(counts) {
        if types.len() != given {
            return Err(Error::Internal(format!(
                "the statement takes {} parameters, not {given}: {sql}",
                types.len()
            )));
        }
    }
    Ok(())
}

/// An unnamed statement with its parameters and their types: its rows when `rows`, else how
/// many rows it changed.
fn typed_step<'f>(
    client: &'f Client,
    sql: &'f str,
    params: &'f [(&'f (dyn ToSql + Sync), Type)],
    rows: bool,
) -> Step<'f> {
    if rows {
        Box::pin(async move { client.query_typed(sql, params).await.map(Answer::Rows) })
    } else {
        Box::pin(async move { client.execute_typed(sql, params).await.map(Answer::Count) })
    }
}

/// Whether a transaction is open after statements without parameters `sql` ran, from `open`
/// before them: a text that starts with `COMMIT` or `ROLLBACK` (`END`, `ABORT`), or whose last
/// statement is one, ends it. (A transaction opens only with [`super::Conn::begin_with_first`];
/// the texts are the platform's own, and a function body's `END` is not the first or last.)
fn open_after(sql: &str, open: bool) -> bool {
    let ends = |statement: &str| {
        let word = statement
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        matches!(word.as_str(), "COMMIT" | "ROLLBACK" | "END" | "ABORT")
            && statement.split_whitespace().count() == 1
    };
    let mut statements = sql.split(';').filter(|s| !s.trim().is_empty());
    let first = statements.next();
    let last = statements.next_back();
    if first.is_some_and(ends) || last.is_some_and(ends) {
        false
    } else {
        open
    }
}

#[cfg(test)]
mod tests {
    use super::open_after;

    #[test]
    fn the_end_of_a_transaction_is_read_from_its_statements() {
        assert!(!open_after("COMMIT", true));
        assert!(!open_after(
            "COMMIT; SELECT pg_current_wal_lsn()::text",
            true
        ));
        assert!(!open_after(" rollback", true));
        assert!(open_after("ROLLBACK TO SAVEPOINT a", true));
        assert!(open_after("", true));
        assert!(!open_after("", false));
        assert!(!open_after("CREATE TABLE t (a int); COMMIT", true));
        assert!(open_after(
            "CREATE FUNCTION f() RETURNS trigger AS $$ BEGIN RETURN NEW; END; $$ LANGUAGE plpgsql",
            true
        ));
    }
}
