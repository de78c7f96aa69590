//! Background jobs (`jobs`: the job's JSON form in `doc`, with its status and `not_before` as
//! columns for the claim) and workers (`workers`).

use super::{json_map, json_text, stored_time, time_text, Db, Tx};
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{Job, JobRead, JobStatus, JobWrite, Worker};
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

fn decode(doc: &str) -> Result<Job> {
    Job::from_json(&json_map(doc, "a job")?)
}

impl JobRead for Tx<'_> {
    fn job(&self, scope: &Scope, id: &str) -> Result<Option<Job>> {
        let text: Option<String> = self
            .conn
            .prepare_cached("SELECT doc FROM jobs WHERE tenant = ?1 AND env = ?2 AND id = ?3")
            .db()?
            .query_row(params![scope.tenant, scope.env, id], |r| r.get(0))
            .optional()
            .db()?;
        text.map(|t| decode(&t)).transpose()
    }

    fn jobs(&self, scope: &Scope) -> Result<Vec<Job>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT doc FROM jobs WHERE tenant = ?1 AND env = ?2 ORDER BY seq DESC")
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env], |r| r.get::<_, String>(0))
            .db()?;
        rows.map(|r| r.db().and_then(|t| decode(&t))).collect()
    }

    fn jobs_with_status(&self, status: JobStatus) -> Result<Vec<(Scope, Job)>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT tenant, env, doc FROM jobs WHERE status = ?1 ORDER BY seq")
            .db()?;
        let rows = stmt
            .query_map(params![status.as_str()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .db()?;
        rows.map(|r| {
            let (tenant, env, doc) = r.db()?;
            Ok((Scope::private(&tenant, &env), decode(&doc)?))
        })
        .collect()
    }

    fn workers_seen_since(&self, since: DateTime<Utc>) -> Result<Vec<Worker>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, host, pid, started, seen FROM workers WHERE seen >= ?1 ORDER BY id",
            )
            .db()?;
        let rows = stmt
            .query_map(params![time_text(since)], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, u32>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                ))
            })
            .db()?;
        rows.map(|r| {
            let (id, host, pid, started, seen) = r.db()?;
            let what = format!("worker {id}");
            Ok(Worker {
                started: stored_time(&started, &what)?,
                seen: stored_time(&seen, &what)?,
                id,
                host,
                pid,
            })
        })
        .collect()
    }
}

impl JobWrite for Tx<'_> {
    fn put_job(&mut self, scope: &Scope, job: &Job) -> Result<()> {
        let doc = json_text(&job.to_json(), "a job")?;
        self.conn
            .prepare_cached(
                "INSERT INTO jobs (tenant, env, id, status, not_before, doc) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
                 ON CONFLICT (id) DO UPDATE SET status = excluded.status, \
                 not_before = excluded.not_before, doc = excluded.doc",
            )
            .db()?
            .execute(params![
                scope.tenant,
                scope.env,
                job.id,
                job.status.as_str(),
                job.not_before.map(time_text),
                doc
            ])
            .db()?;
        Ok(())
    }

    fn claim_job(&mut self, now: DateTime<Utc>) -> Result<Option<(Scope, Job)>> {
        // The write transaction holds the database's one writer: nobody else claims meanwhile.
        let row: Option<(String, String, String)> = self
            .conn
            .prepare_cached(
                "SELECT tenant, env, doc FROM jobs WHERE status = 'queued' \
                 AND (not_before IS NULL OR not_before <= ?1) ORDER BY seq LIMIT 1",
            )
            .db()?
            .query_row(params![time_text(now)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()
            .db()?;
        let Some((tenant, env, doc)) = row else {
            return Ok(None);
        };
        let scope = Scope::private(&tenant, &env);
        let mut job = decode(&doc)?;
        job.status = JobStatus::Running;
        job.started = Some(now);
        self.put_job(&scope, &job)?;
        Ok(Some((scope, job)))
    }

    fn worker_seen(&mut self, w: &Worker) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO workers (id, host, pid, started, seen) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (id) DO UPDATE SET seen = excluded.seen",
            )
            .db()?
            .execute(params![
                w.id,
                w.host,
                w.pid,
                time_text(w.started),
                time_text(w.seen)
            ])
            .db()?;
        Ok(())
    }

    fn worker_gone(&mut self, id: &str) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM workers WHERE id = ?1")
            .db()?
            .execute(params![id])
            .db()?;
        Ok(())
    }
}
