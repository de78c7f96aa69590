//! Background jobs (`jobs`: the job's JSON form in `doc`, its status and `not_before` as
//! columns, and the claim's node and lease) and workers (`workers`).
//!
//! A claim takes the oldest due queued job, or a running one whose lease ran out (its node
//! stopped renewing: it was killed), with `FOR UPDATE SKIP LOCKED`. Each store renews the leases
//! of its running claims from a thread of its own ([`start_lease_renewal`]).

use super::{get, json_map, json_text, Shared, Tx};
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{Claim, Job, JobRead, JobStatus, JobWrite, Worker};
use chrono::{DateTime, Utc};
use std::sync::{Arc, Weak};

fn decode(doc: &str) -> Result<Job> {
    Job::from_json(&json_map(doc, "a job")?)
}

/// The lease of a claim made now, in seconds (for `make_interval`).
pub(super) fn lease_secs(shared: &Shared) -> f64 {
    shared.lease.as_secs_f64()
}

/// Renews the leases of this store's claims whose work goes on (those not ended,
/// [`crate::store::Store::claim_ended`]) every third of a lease, until the store is dropped. A
/// claim of this node whose work ended without its end being recorded (the database lost at
/// that moment, a commit whose outcome is unknown) is not renewed: it runs out, and a worker
/// takes it again. A failed renewal (the database away) is tried again next time; a lease
/// that ran out meanwhile may have been taken over, which the renewal then leaves alone.
pub(super) fn start_lease_renewal(shared: &Arc<Shared>) {
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let every = shared.lease / 3;
    let spawned = std::thread::Builder::new()
        .name("pg-leases".into())
        .spawn(move || loop {
            std::thread::sleep(every);
            let Some(shared) = weak.upgrade() else { return };
            if let Err(e) = renew(&shared) {
                tracing::warn!(error = %e, "cannot renew the leases of this node's claims");
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the lease renewal thread");
    }
}

fn renew(shared: &Shared) -> Result<()> {
    let (mut jobs, mut deliveries) = (Vec::new(), Vec::new());
    for claim in shared.claims().iter() {
        match claim {
            Claim::Job(id) => jobs.push(id.clone()),
            Claim::Delivery(seq) => deliveries.push(*seq),
        }
    }
    if jobs.is_empty() && deliveries.is_empty() {
        return Ok(());
    }
    let mut conn = shared.pool.get()?;
    let secs = lease_secs(shared);
    let still = "node = $1 AND status = 'running' AND lease_until > clock_timestamp()";
    let renewed = "lease_until = clock_timestamp() + make_interval(secs => $2)";
    if !jobs.is_empty() {
        conn.execute(
            &format!("UPDATE jobs SET {renewed} WHERE id = ANY($3) AND {still}"),
            &[&shared.node, &secs, &jobs],
        )?;
    }
    if !deliveries.is_empty() {
        conn.execute(
            &format!("UPDATE deliveries SET {renewed} WHERE seq = ANY($3) AND {still}"),
            &[&shared.node, &secs, &deliveries],
        )?;
    }
    Ok(())
}

impl JobRead for Tx<'_> {
    fn job(&self, scope: &Scope, id: &str) -> Result<Option<Job>> {
        self.query_opt(
            "SELECT doc FROM jobs WHERE tenant = $1 AND env = $2 AND id = $3",
            &[&scope.tenant, &scope.env, &id],
        )?
        .map(|r| decode(&get::<String>(&r, 0)?))
        .transpose()
    }

    fn jobs(&self, scope: &Scope) -> Result<Vec<Job>> {
        self.query(
            "SELECT doc FROM jobs WHERE tenant = $1 AND env = $2 ORDER BY seq DESC",
            &[&scope.tenant, &scope.env],
        )?
        .iter()
        .map(|r| decode(&get::<String>(r, 0)?))
        .collect()
    }

    fn jobs_with_status(&self, status: JobStatus) -> Result<Vec<(Scope, Job)>> {
        self.query(
            "SELECT tenant, env, doc FROM jobs WHERE status = $1 ORDER BY seq",
            &[&status.as_str()],
        )?
        .iter()
        .map(|r| {
            let tenant: String = get(r, 0)?;
            let env: String = get(r, 1)?;
            Ok((
                Scope::private(&tenant, &env),
                decode(&get::<String>(r, 2)?)?,
            ))
        })
        .collect()
    }

    fn workers_seen_since(&self, since: DateTime<Utc>) -> Result<Vec<Worker>> {
        self.query(
            "SELECT id, host, pid, started, seen FROM workers WHERE seen >= $1 ORDER BY id",
            &[&since],
        )?
        .iter()
        .map(|r| {
            Ok(Worker {
                id: get(r, 0)?,
                host: get(r, 1)?,
                pid: get::<i64>(r, 2)? as u32,
                started: get(r, 3)?,
                seen: get(r, 4)?,
            })
        })
        .collect()
    }
}

impl JobWrite for Tx<'_> {
    fn put_job(&mut self, scope: &Scope, job: &Job) -> Result<()> {
        let doc = json_text(&job.to_json(), "a job")?;
        self.defer(
            "INSERT INTO jobs (tenant, env, id, status, not_before, doc) VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (id) DO UPDATE SET status = excluded.status, \
             not_before = excluded.not_before, doc = excluded.doc",
            vec![Box::new((scope.tenant).to_owned()), Box::new((scope.env).to_owned()), Box::new((job.id).to_owned()), Box::new((job.status.as_str()).to_owned()), Box::new((job.not_before).to_owned()), Box::new((doc).to_owned())],
        );
        Ok(())
    }

    fn claim_job(&mut self, now: DateTime<Utc>) -> Result<Option<(Scope, Job)>> {
        let row = self.query_opt(
            "SELECT seq, tenant, env, doc FROM jobs WHERE (status = 'queued' \
             AND (not_before IS NULL OR not_before <= $1)) \
             OR (status = 'running' AND lease_until < clock_timestamp()) \
             ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED",
            &[&now],
        )?;
        let Some(row) = row else {
            return Ok(None);
        };
        let seq: i64 = get(&row, 0)?;
        let tenant: String = get(&row, 1)?;
        let env: String = get(&row, 2)?;
        let scope = Scope::private(&tenant, &env);
        let mut job = decode(&get::<String>(&row, 3)?)?;
        job.status = JobStatus::Running;
        job.started = Some(now);
        self.put_job(&scope, &job)?;
        self.defer(
            "UPDATE jobs SET node = $2, lease_until = clock_timestamp() + make_interval(secs => $3) \
             WHERE seq = $1",
            vec![Box::new((seq).to_owned()), Box::new((self.shared.node).to_owned()), Box::new((lease_secs(self.shared)).to_owned())],
        );
        self.claims.push(Claim::Job(job.id.clone()));
        Ok(Some((scope, job)))
    }

    fn worker_seen(&mut self, w: &Worker) -> Result<()> {
        self.defer(
            "INSERT INTO workers (id, host, pid, started, seen) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (id) DO UPDATE SET seen = excluded.seen",
            vec![
                Box::new((w.id).to_owned()),
                Box::new((w.host).to_owned()),
                Box::new((i64::from(w.pid)).to_owned()),
                Box::new((w.started).to_owned()),
                Box::new((w.seen).to_owned()),
            ],
        );
        Ok(())
    }

    fn worker_gone(&mut self, id: &str) -> Result<()> {
        self.defer(
            "DELETE FROM workers WHERE id = $1",
            vec![Box::new((id).to_owned())],
        );
        Ok(())
    }
}
