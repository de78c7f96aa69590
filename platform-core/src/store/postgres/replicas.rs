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
//!
//! A replica that does not answer, or accepts writes (a primary: after a fail-over the old
//! replica may be one), is skipped, at start as later, never an error: the samples find it
//! back. One log line says when a replica is skipped and why, and one when it serves again
//! (changes of state, not every sample). A connection to a replica found to accept writes is
//! dropped with the idle ones, so a URL of several hosts with `target_session_attrs=read-only`
//! connects again to a host that is a replica now.
//!
//! While the primary does not answer, its last sample stays: a replica that had replayed the
//! primary's position when it was last seen lags by nothing and serves the reads it may
//! (read-your-writes holds: a read that must see a later position than a replica has goes to
//! the primary, and fails while it is away).

use super::pool::Pool;
use super::{get, redact, Shared};
use crate::error::Result;
use crate::store::{parse_position, ReplicaStatus};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// How often the positions are sampled.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// The longest a replica may lag and still serve reads, by default.
pub const DEFAULT_MAX_LAG: Duration = Duration::from_secs(5);

/// Why a replica that is not in recovery is skipped.
const NOT_A_REPLICA: &str = "it is not a replica: it is not in recovery (a primary accepts \
                             writes); a replica is a streaming standby of the --db database";

/// Why a replica that has replayed nothing is skipped.
const NOTHING_REPLAYED: &str = "it has replayed nothing yet";

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
    /// Whether the log last said it serves (`None`: nothing said yet).
    logged: Option<bool>,
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
    /// Whether the last sample of the primary failed.
    primary_down: AtomicBool,
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
    /// The replicas at `urls`, each sampled now. A URL that does not parse is an error; a
    /// replica that does not answer or accepts writes is skipped (with a warning) until a
    /// sample finds it serving.
    pub(crate) fn open(
        urls: &[String],
        schema: &str,
        max_lag: Duration,
        primary: &Pool,
    ) -> Result<Replicas> {
        let mut list = Vec::new();
        for url in urls {
            let name = redact(url);
            let config = super::connect::target(url)?;
            let pool = Pool::new(config, schema, 16, primary.pooler())?;
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
            primary_down: AtomicBool::new(false),
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

    /// Whether the primary did not answer its last sample: a read meant for it fails at once
    /// rather than wait for a connection to a server that is gone (its host unreachable, a
    /// wait as long as the connection timeout), until a sample finds it back.
    pub(crate) fn primary_down(&self) -> bool {
        self.primary_down.load(Ordering::Relaxed)
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
        self.primary_down.store(sampled.is_err(), Ordering::Relaxed);
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
                let rows = c.query(
                    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text",
                    &[],
                )?;
                if !rows
                    .first()
                    .is_some_and(|r| get::<bool>(r, 0).unwrap_or(false))
                {
                    // Not a replica (any more): its connections go, so that a URL of several
                    // hosts finds the one that is a replica now.
                    c.discard();
                    replica.pool.drop_idle();
                }
                Ok(rows)
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
                            state.reason = Some(NOT_A_REPLICA.into());
                        }
                        (true, None) => {
                            state.up = false;
                            state.reason = Some(NOTHING_REPLAYED.into());
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
            self.log_change(replica, &mut state);
        }
    }

    /// Writes a log line when a replica starts or stops serving: when it is skipped (and why),
    /// and when it serves (again); not when only the reason it is skipped changes (`/ready`
    /// tells that).
    fn log_change(&self, replica: &Replica, state: &mut State) {
        let serving = state.up && state.lag.is_some_and(|lag| lag <= self.max_lag);
        let before = state.logged.replace(serving);
        if before == Some(serving) {
            return;
        }
        let name = &replica.name;
        match (serving, before) {
            (true, None) => {
                tracing::info!(replica = %name, "read replica serving: reads may be served by it")
            }
            (true, Some(_)) => {
                tracing::info!(replica = %name, "read replica serving again: it answers and has caught up")
            }
            (false, _) => {
                let why = match (&state.reason, state.lag) {
                    (Some(why), _) => why.clone(),
                    (None, Some(lag)) => format!(
                        "it lags {:.1} s behind the primary (at most {} s)",
                        lag.as_secs_f64(),
                        self.max_lag.as_secs_f64()
                    ),
                    (None, None) => "it has not been sampled".into(),
                };
                tracing::warn!(
                    replica = %name,
                    reason = %why,
                    "read replica skipped: its reads go to the primary until it serves again"
                );
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
