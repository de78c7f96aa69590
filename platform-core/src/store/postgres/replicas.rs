//! Read replicas: streaming replicas of the database that serve the reads a server allows them
//! ([`crate::store::ReplicaReads`]), each only once it has replayed what those reads must see.
//!
//! A thread of the store samples, every [`SAMPLE_EVERY`], the primary's write position and
//! authentication epoch, and each replica's replay position; a replica's lag is how long ago
//! the primary was at the first position the replica has not replayed (none when it has
//! replayed all the primary had). A read goes to a replica, in turn, that answers, is in
//! recovery (a replica, not a primary), lags at most the longest lag allowed, and has replayed
//! at least the position the read asks for and the position at which the primary's
//! authentication epoch last changed (so a token revoked on the primary is refused by replica
//! reads within a sample's time); else to the primary.

use super::pool::Pool;
use super::{get, redact, Shared};
use crate::error::{Error, Result};
use crate::store::{parse_position, ReplicaStatus};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// How often the positions are sampled.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// The longest a replica may lag and still serve reads, by default.
pub const DEFAULT_MAX_LAG: Duration = Duration::from_secs(5);

/// A read replica and how it is doing.
pub(crate) struct Replica {
    /// Its URL without a password.
    pub(crate) name: String,
    pub(crate) pool: Pool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    up: bool,
    /// The position it has replayed.
    replay: u64,
    lag: Option<Duration>,
    reason: Option<String>,
}

/// The read replicas of a store.
pub(crate) struct Replicas {
    pub(crate) list: Vec<Replica>,
    max_lag: Duration,
    /// The next replica to try (reads go to them in turn).
    next: AtomicUsize,
    /// The primary's write positions, with when they were sampled (oldest first).
    samples: Mutex<VecDeque<(Instant, u64)>>,
    /// The primary's position when its authentication epoch was last seen to change.
    auth_at: AtomicU64,
    /// The authentication epoch last sampled.
    epoch: AtomicU64,
}

impl Replica {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks it down (a read found it gone): no read goes to it until a sample finds it back.
    pub(crate) fn down(&self, why: &str) {
        let mut state = self.state();
        state.up = false;
        state.reason = Some(why.to_string());
    }
}

impl Replicas {
    /// The replicas at `urls`, each checked now: it answers and is in recovery, else the error
    /// names it.
    pub(crate) fn open(
        urls: &[String],
        schema: &str,
        max_lag: Duration,
        primary: &Pool,
    ) -> Result<Replicas> {
        let mut list = Vec::new();
        for url in urls {
            let name = redact(url);
            let config: tokio_postgres::Config = url.parse().map_err(|e| {
                Error::invalid_parameter(format!("\"{name}\" is not a PostgreSQL URL: {e}"))
            })?;
            let pool = Pool::new(config, schema, 16, primary.pooler())?;
            let recovering = pool
                .get()
                .and_then(|mut c| c.query("SELECT pg_is_in_recovery()", &[]))
                .map_err(|e| {
                    Error::invalid_parameter(format!(
                        "the read replica {name} does not answer: {e}"
                    ))
                })?;
            let in_recovery: bool = recovering
                .first()
                .map(|r| get(r, 0))
                .transpose()?
                .unwrap_or(false);
            if !in_recovery {
                return Err(Error::invalid_parameter(format!(
                    "{name} is not a read replica: it accepts writes (a replica is a streaming \
                     standby of the --db database, in recovery)"
                )));
            }
            list.push(Replica {
                name,
                pool,
                state: Mutex::default(),
            });
        }
        let replicas = Replicas {
            list,
            max_lag,
            next: AtomicUsize::new(0),
            samples: Mutex::default(),
            auth_at: AtomicU64::new(0),
            epoch: AtomicU64::new(u64::MAX),
        };
        replicas.sample(primary);
        Ok(replicas)
    }

    /// A replica that may serve a read which must see the position `after`, in turn; `None`
    /// when none may (the primary serves it).
    pub(crate) fn pick(&self, after: u64) -> Option<&Replica> {
        let need = after.max(self.auth_at.load(Ordering::Relaxed));
        let n = self.list.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..n).map(|i| &self.list[(start + i) % n]).find(|r| {
            let state = r.state();
            state.up && state.replay >= need && state.lag.is_some_and(|l| l <= self.max_lag)
        })
    }

    /// Samples the primary and every replica once (see the module's comment).
    pub(crate) fn sample(&self, primary: &Pool) {
        let now = Instant::now();
        let sampled = primary.get().and_then(|mut c| {
            c.query(
                "SELECT pg_current_wal_lsn()::text, (SELECT n FROM auth_epoch WHERE id = 1)",
                &[],
            )
        });
        let mut samples = self.samples.lock().unwrap_or_else(|e| e.into_inner());
        match sampled.as_deref() {
            Ok([row, ..]) => {
                let position = get::<String>(row, 0).ok().and_then(|p| parse_position(&p));
                let epoch = get::<i64>(row, 1).map(|e| e as u64).ok();
                if let (Some(position), Some(epoch)) = (position, epoch) {
                    if self.epoch.swap(epoch, Ordering::Relaxed) != epoch {
                        self.auth_at.store(position, Ordering::Relaxed);
                    }
                    samples.push_back((now, position));
                }
            }
            Ok([]) => {}
            Err(e) => tracing::debug!(error = %e, "cannot sample the primary's position"),
        }
        // Samples as old as twice the longest lag are enough to measure it.
        while samples.len() > 1
            && samples
                .front()
                .is_some_and(|(at, _)| now.duration_since(*at) > self.max_lag * 2)
        {
            samples.pop_front();
        }
        for replica in &self.list {
            let found = replica.pool.get().and_then(|mut c| {
                c.query(
                    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text",
                    &[],
                )
            });
            let mut state = replica.state();
            match found.as_deref() {
                Ok([row, ..]) => {
                    let recovering: bool = get(row, 0).unwrap_or(false);
                    let replay = get::<Option<String>>(row, 1)
                        .ok()
                        .flatten()
                        .and_then(|p| parse_position(&p));
                    match (recovering, replay) {
                        (true, Some(replay)) => {
                            state.up = true;
                            state.replay = replay;
                            state.lag = Some(lag(&samples, replay, now));
                            state.reason = None;
                        }
                        (false, _) => {
                            state.up = false;
                            state.lag = None;
                            state.reason =
                                Some("it is not a replica any more: it accepts writes".into());
                        }
                        (true, None) => {
                            state.up = false;
                            state.reason = Some("it has replayed nothing yet".into());
                        }
                    }
                }
                Ok([]) => {}
                Err(e) => {
                    state.up = false;
                    state.lag = None;
                    state.reason = Some(format!("it does not answer: {e}"));
                }
            }
        }
    }

    /// How each replica is doing.
    pub(crate) fn statuses(&self) -> Vec<ReplicaStatus> {
        self.list
            .iter()
            .map(|r| {
                let state = r.state();
                let too_far = state.lag.is_some_and(|l| l > self.max_lag);
                ReplicaStatus {
                    name: r.name.clone(),
                    serving: state.up && !too_far && state.lag.is_some(),
                    lag: state.lag,
                    reason: match (&state.reason, too_far) {
                        (Some(why), _) => Some(why.clone()),
                        (None, true) => Some(format!(
                            "it lags more than {} s behind the primary",
                            self.max_lag.as_secs_f64()
                        )),
                        (None, false) => None,
                    },
                }
            })
            .collect()
    }
}

/// How long ago the primary was at the first position a replica that replayed `replay` lacks.
fn lag(samples: &VecDeque<(Instant, u64)>, replay: u64, now: Instant) -> Duration {
    samples
        .iter()
        .find(|(_, position)| *position > replay)
        .map_or(Duration::ZERO, |(at, _)| now.duration_since(*at))
}

/// Samples the positions every [`SAMPLE_EVERY`] until the store is dropped.
pub(super) fn start_sampling(shared: &Arc<Shared>) {
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let spawned = std::thread::Builder::new()
        .name("pg-replicas".into())
        .spawn(move || loop {
            std::thread::sleep(SAMPLE_EVERY);
            let Some(shared) = weak.upgrade() else { return };
            if let Some(replicas) = &shared.replicas {
                replicas.sample(&shared.pool);
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start sampling the read replicas");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replica_lags_by_the_age_of_the_first_position_it_lacks() {
        let now = Instant::now();
        let at = |ms: u64| now - Duration::from_millis(ms);
        let samples: VecDeque<(Instant, u64)> =
            [(at(900), 10), (at(600), 20), (at(300), 20), (at(0), 30)].into();
        assert_eq!(lag(&samples, 30, now), Duration::ZERO);
        assert_eq!(lag(&samples, 40, now), Duration::ZERO);
        assert_eq!(lag(&samples, 25, now), Duration::ZERO + (now - at(0)));
        assert_eq!(lag(&samples, 20, now), now - at(0));
        assert_eq!(lag(&samples, 15, now), now - at(600));
        assert_eq!(lag(&samples, 5, now), now - at(900));
    }
}
